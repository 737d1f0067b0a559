//! How search ranks, written once. `ccwiki search` reads [`SPEC`] here;
//! the site carries it as JSON in `search/index.js`, and `search.js` ranks
//! with what it reads there, so the two cannot drift apart.

use serde::Serialize;
use std::sync::LazyLock;

/// The weight of a match in each field of an index document. The names are
/// the documents' own field names (`t` the page's title, `h` the headings
/// of its text, `n` tool names, `f` file paths, `x` prompt and answer text,
/// `o` tool output).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Weights {
    /// Counted once per term: a title says what the page is about.
    pub t: f64,
    /// Counted once per term: a heading says what a part of it is about.
    pub h: f64,
    pub n: f64,
    pub f: f64,
    pub x: f64,
    pub o: f64,
}

/// The ranking rules.
#[derive(Debug, Clone, Serialize)]
pub struct Spec {
    pub weights: Weights,
    /// Blocks counted per field and term: a word repeated 500 times is not
    /// 500 times as relevant.
    pub max_hits: usize,
    /// A query's terms: lower-cased, split where this pattern matches (a
    /// regex both Rust's `regex` and JavaScript read alike), each once.
    pub split: &'static str,
    /// Characters shown before the first match in a snippet.
    pub snippet_before: usize,
    /// Characters in a snippet.
    pub snippet_chars: usize,
}

/// The rules of seed 003 (tool name 2, file path 1.5, text 1, output 0.5),
/// and a title or heading match above any single block of the body.
pub const SPEC: Spec = Spec {
    weights: Weights {
        t: 3.0,
        h: 2.0,
        n: 2.0,
        f: 1.5,
        x: 1.0,
        o: 0.5,
    },
    max_hits: 10,
    split: r"\s+",
    snippet_before: 60,
    snippet_chars: 160,
};

/// [`Spec::split`], compiled.
pub(super) static SPLIT: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(SPEC.split).expect("the split pattern is valid"));

/// The spec as the browser reads it.
pub fn json() -> String {
    crate::base::text::json_for_script(&serde_json::to_string(&SPEC).unwrap_or_default())
}
