//! The commands: each runs the layers below it.

pub mod archive;
pub mod audit;
pub mod build;
pub mod check;
pub mod init;
pub mod options;
pub mod recover;
pub mod search;
pub mod summary;
pub mod unchanged;
