//! `ccwiki.toml`: a wiki repository's settings. Every key is optional; the
//! command line overrides the file, the file overrides the defaults.
//!
//! ```toml
//! title = "Claude Code wiki"          # the wiki's title
//! source = ["~/.claude"]              # data directories (default: $CLAUDE_CONFIG_DIR, else ~/.claude)
//! out = "site"                        # output directory, relative to this file
//! base_path = "/"                     # where the site is served; links stay relative either way
//! theme = "default"                   # a bundled theme, or one in ./themes/<name>/
//! redact = true                       # scrub credentials, home paths and user names
//! exclude = []                        # project globs to leave out: "*/secret-*", "/home/me/work/*"
//! strict = false                      # warnings fail the build, the previous site stays
//!
//! [[redact_patterns]]                 # your own patterns, replaced by [REDACTED:<kind>]
//! kind = "ticket"
//! regex = "ACME-[0-9]{4,}"
//!
//! [extra]                             # anything: handed to templates as `site.extra`
//! author = "Dana"
//! ```

use crate::base::error::Error;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name ccwiki looks for in the current directory.
pub const FILE_NAME: &str = "ccwiki.toml";

/// One user-defined redaction pattern.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RedactPattern {
    pub kind: String,
    pub regex: String,
}

/// `archive = "DIR"` or `archive = false` (`true`: the default place).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ArchiveSetting {
    Dir(String),
    Off(bool),
}

/// The settings of `ccwiki.toml`, all optional.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub title: Option<String>,
    #[serde(alias = "sources")]
    pub source: Option<Vec<String>>,
    /// Where the archive is (`archive = "~/wiki-archive"`), or
    /// `archive = false` for none.
    pub archive: Option<ArchiveSetting>,
    pub out: Option<String>,
    pub base_path: Option<String>,
    pub theme: Option<String>,
    pub redact: Option<bool>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub redact_patterns: Vec<RedactPattern>,
    #[serde(default)]
    pub extra: BTreeMap<String, toml::Value>,
    /// Files and folders at the site's root that a rebuild keeps (the
    /// user's own: `CNAME`, `.nojekyll`, `.well-known`); None: those three.
    pub keep: Option<Vec<String>>,
    /// Warnings fail the build (as `--strict`).
    pub strict: Option<bool>,
    /// Other paths of a project (worktrees, moved folders, other machines'
    /// homes) and the project path each stands for.
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    /// Prices per million tokens by model name prefix, over the built-in
    /// table (`[prices] "claude-opus-4-5" = { input = 5.0, output = 25.0 }`).
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
}

/// A model family's price, US dollars per million tokens (cache writes
/// and reads are priced from `input`, as in the built-in table).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// A loaded configuration and the directory it lives in (the wiki repository).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub config: Config,
    /// Where `templates/`, `static/` and `themes/` overrides are looked up;
    /// None when no configuration file was found.
    pub dir: Option<PathBuf>,
}

impl Loaded {
    /// Resolve a path from the file relative to the file's directory, with `~` expanded.
    pub fn path(&self, value: &str) -> PathBuf {
        let expanded = expand_home(value);
        match &self.dir {
            Some(dir) if expanded.is_relative() => dir.join(expanded),
            _ => expanded,
        }
    }
}

/// `~/x` → `$HOME/x`.
pub fn expand_home(value: &str) -> PathBuf {
    if let Some(rest) = value
        .strip_prefix("~/")
        .or(if value == "~" { Some("") } else { None })
    {
        if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
            return PathBuf::from(home).join(rest);
        }
    }
    PathBuf::from(value)
}

/// Load `explicit`, or `./ccwiki.toml` when it exists, or nothing.
pub fn load(explicit: Option<&Path>) -> Result<Loaded, Error> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => {
            let p = PathBuf::from(FILE_NAME);
            if !p.is_file() {
                return Ok(Loaded::default());
            }
            p
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let config = parse(&text).map_err(|message| Error::Config {
        path: path.clone(),
        message,
    })?;
    let dir = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .map(Path::to_path_buf);
    Ok(Loaded { config, dir })
}

/// Parse configuration text; the error names the line and the key.
pub fn parse(text: &str) -> Result<Config, String> {
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        let msg = e.message().trim().to_string();
        match line {
            Some(l) => format!("line {l}: {msg}"),
            None => msg,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_file_parses() {
        let c = parse(
            r#"
title = "My wiki"
source = ["~/.claude", "/data/other"]
out = "public"
base_path = "/wiki/"
theme = "docs"
redact = false
exclude = ["*/secret-*"]
[[redact_patterns]]
kind = "ticket"
regex = "ACME-[0-9]+"
[extra]
author = "Dana"
"#,
        )
        .unwrap();
        assert_eq!(c.title.as_deref(), Some("My wiki"));
        assert_eq!(c.theme.as_deref(), Some("docs"));
        assert_eq!(c.redact, Some(false));
        assert_eq!(c.exclude, vec!["*/secret-*"]);
        assert_eq!(c.redact_patterns[0].kind, "ticket");
        assert_eq!(c.extra["author"].as_str(), Some("Dana"));
    }

    #[test]
    fn empty_file_is_all_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let e = parse("title = \"x\"\n\nthem = \"docs\"\n").unwrap_err();
        assert!(e.starts_with("line 3:"), "{e}");
        assert!(e.contains("them"), "{e}");
    }

    #[test]
    fn relative_paths_resolve_against_the_file() {
        let l = Loaded {
            config: Config::default(),
            dir: Some(PathBuf::from("/repo")),
        };
        assert_eq!(l.path("site"), PathBuf::from("/repo/site"));
        assert_eq!(l.path("/abs"), PathBuf::from("/abs"));
    }
}
