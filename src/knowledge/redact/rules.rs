//! The rule table (`rules.toml`), loaded once.

use serde::Deserialize;
use std::sync::LazyLock;

/// The table as shipped in the binary.
pub const SOURCE: &str = include_str!("rules.toml");

/// All the rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// Bumped when a rule changes, so caches of redacted text are redone.
    pub version: u32,
    #[serde(default)]
    pub token: Vec<TokenRule>,
    #[serde(default)]
    pub pattern: Vec<PatternRule>,
    #[serde(default)]
    pub builtin: Vec<Builtin>,
}

/// Extra check a token candidate must pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    #[default]
    None,
    /// At least two upper-case and two lower-case ASCII letters.
    MixedCase,
}

/// A prefixed credential (see `rules.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRule {
    pub kind: String,
    #[serde(default)]
    pub lead: String,
    pub secret: String,
    #[serde(default)]
    pub check: Check,
    #[serde(default)]
    pub bounded: bool,
    pub keywords: Vec<String>,
    #[serde(default)]
    pub examples: Vec<String>,
}

/// A regex whose `value` group is replaced (see `rules.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternRule {
    pub kind: String,
    pub regex: String,
    pub keywords: Vec<String>,
    #[serde(default)]
    pub examples: Vec<String>,
}

/// A rule that lives in code, listed for its examples.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Builtin {
    pub kind: String,
    #[serde(default)]
    pub examples: Vec<String>,
}

/// The table, parsed on first use. It ships inside the binary and a test
/// parses it, so a parse failure is a bug of the build, not of the data.
pub static TABLE: LazyLock<Table> = LazyLock::new(|| match toml::from_str(SOURCE) {
    Ok(t) => t,
    Err(e) => panic!("src/knowledge/redact/rules.toml is not valid: {e}"),
});
