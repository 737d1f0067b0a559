//! The site layer: the wiki's pages, their links, views and search documents.

pub mod assemble;
pub mod highlight;
pub mod search;
