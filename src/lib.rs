//! ccwiki turns a Claude Code data directory (`~/.claude`) into a static wiki.
//!
//! The build runs in phases, one module each, every phase handing the next a
//! small typed value:
//!
//! 1. [`discover`]: walk the source roots and classify every file.
//! 2. [`triage`]: read `MEMORY.md` indexes, then the memory files.
//! 3. [`extract`]: stream transcripts, `history.jsonl` and `sessions/*.json`.
//! 4. [`redact`]: scrub credentials, home paths and user names from the model.
//! 5. [`assemble`]: decide the wiki's pages, their paths and the links between them.
//! 6. [`render`]: turn each page into HTML with Tera and pulldown-cmark.
//! 7. [`mod@write`]: put the site on disk, atomically, touching only what ccwiki made.
//!
//! [`build::build`] runs them in order and returns a [`build::BuildReport`].

pub mod assemble;
pub mod build;
pub mod cache;
pub mod config;
pub mod discover;
pub mod error;
pub mod exclude;
pub mod extract;
pub mod fingerprint;
pub mod init;
pub mod markdown;
pub mod model;
pub mod redact;
pub mod render;
pub mod search;
pub mod skip;
pub mod slugs;
pub mod spill;
pub mod theme;
pub mod triage;
pub mod write;

pub use build::{build, BuildOptions, BuildReport, Progress};
pub use error::Error;
