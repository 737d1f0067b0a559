//! The bottom layer: errors, skips, slugs, hashing and small text helpers.
//! Imports nothing else of the crate.

pub mod dirs;
pub mod error;
pub mod fingerprint;
pub mod hash;
pub mod html;
pub mod io;
pub mod progress;
pub mod skip;
pub mod slugs;
pub mod small_set;
pub mod stored;
pub mod text;
pub mod walk;
