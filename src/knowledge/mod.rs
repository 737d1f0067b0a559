//! The knowledge layer: the redacted model of what was read (projects,
//! sessions, memories, history), produced by triage and extraction.

pub mod aliases;
pub mod cache;
pub mod exclude;
pub mod extract;
pub mod history;
pub mod identity;
pub mod model;
pub mod pack;
pub mod pipeline;
pub mod recover;
pub mod redact;
pub mod setup;
pub mod spill;
pub mod triage;
