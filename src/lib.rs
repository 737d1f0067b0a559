//! ccwiki turns a Claude Code data directory (`~/.claude`) into a static wiki.
//!
//! The crate is built in layers, each importing only the ones below it:
//!
//! - [`base`] and [`config`]: errors, skips, slugs, hashing, settings.
//! - [`source`]: discover the files of a data directory and parse them.
//! - [`knowledge`]: the redacted model; triage and extraction produce it,
//!   and every text passes through the redactor on its way in.
//! - [`site`]: the wiki's pages, links, views and search documents.
//! - [`output`]: render with Tera, write the site atomically.
//! - [`app`]: the commands (`build`, `search`, `init`), each running the
//!   layers in order.

pub mod app;
pub mod base;
pub mod config;
pub mod knowledge;
pub mod output;
pub mod serve;
pub mod site;
pub mod source;

pub use app::build::{build, BuildOptions, BuildReport, Progress};
pub use base::error::Error;
