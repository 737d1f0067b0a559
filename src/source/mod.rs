//! The source layer: find the files of a Claude Code data directory and
//! parse them into raw records. Knows nothing of pages, and nothing here is
//! redacted: its output goes only to the knowledge layer.

pub mod account;
pub mod archive;
pub mod changes;
pub mod discover;
pub mod history;
pub mod jsonl;
pub mod memory;
pub mod record;
pub mod setup;
pub mod skim;
