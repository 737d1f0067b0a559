//! Claude Code's own settings file, `.claude.json`: whose account is
//! signed in.
//!
//! Claude Code keeps it beside its data directory (`~/.claude.json` next
//! to `~/.claude`), or inside the data directory when
//! `CLAUDE_CONFIG_DIR` moved it there. Of all it holds (every project's
//! settings, MCP servers with their environment, tips shown) only the
//! account's display name is read: the owner's real name, which no path
//! shows and the redactor must hide. Nothing else of it is kept.

use crate::base::skip::Skip;
use crate::source::discover::Root;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file's name.
const FILE: &str = ".claude.json";

/// Larger files are not read: the file holds settings, a few hundred KB
/// even after years of use.
const MAX_BYTES: u64 = 64 << 20;

#[derive(Deserialize)]
struct Settings {
    #[serde(rename = "oauthAccount")]
    account: Option<Account>,
}

#[derive(Deserialize)]
struct Account {
    #[serde(rename = "displayName")]
    display_name: Option<String>,
}

/// The settings file of the data directory `root`: inside it, or beside
/// it when it is a `.claude` folder (as Claude Code places them by
/// default). None when there is none.
pub fn find(root: &Path) -> Option<PathBuf> {
    let inside = root.join(FILE);
    if inside.is_file() {
        return Some(inside);
    }
    if root.file_name()? != ".claude" {
        return None;
    }
    let beside = root.parent()?.join(FILE);
    beside.is_file().then_some(beside)
}

/// The display names of the accounts signed in where `roots` were
/// written (each settings file read once), trimmed, empty ones left out.
/// A file that cannot be read is skipped with the reason.
pub fn display_names(roots: &[Root], skips: &mut Vec<Skip>) -> BTreeSet<String> {
    let files: BTreeSet<&PathBuf> = roots
        .iter()
        .filter_map(|r| r.claude_json.as_ref())
        .collect();
    files
        .into_iter()
        .filter_map(|f| {
            display_name(f).unwrap_or_else(|skip| {
                skips.push(skip);
                None
            })
        })
        .collect()
}

/// The account's display name in the settings file at `path`.
pub fn display_name(path: &Path) -> Result<Option<String>, Skip> {
    let cannot = |why: String| Skip::file(path, format!("owner's name not learned: {why}"));
    let len = std::fs::metadata(path)
        .map_err(|e| cannot(format!("cannot read: {e}")))?
        .len();
    if len > MAX_BYTES {
        return Err(cannot(format!("{len} bytes, more than settings hold")));
    }
    let bytes = std::fs::read(path).map_err(|e| cannot(format!("cannot read: {e}")))?;
    let settings: Settings = serde_json::from_slice(&bytes).map_err(|e| {
        // serde's message ends with where it stopped: said once, as the line.
        let message = e.to_string();
        let reason = message
            .rfind(" at line ")
            .map_or(message.as_str(), |at| &message[..at]);
        Skip::line(
            path,
            e.line() as u64,
            format!("owner's name not learned: {reason}"),
        )
    })?;
    Ok(settings
        .account
        .and_then(|a| a.display_name)
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &Path, rel: &str, text: &str) -> PathBuf {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }

    #[test]
    fn the_file_is_found_inside_the_data_or_beside_a_claude_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let claude = tmp.path().join(".claude");
        std::fs::create_dir_all(&claude).expect("mkdir");
        assert_eq!(find(&claude), None);
        let beside = settings(tmp.path(), ".claude.json", "{}");
        assert_eq!(find(&claude), Some(beside));
        // Moved by CLAUDE_CONFIG_DIR: the one inside wins.
        let inside = settings(&claude, ".claude.json", "{}");
        assert_eq!(find(&claude), Some(inside));
        // Beside a folder of another name, it is not that folder's.
        let other = tmp.path().join("backup");
        std::fs::create_dir_all(&other).expect("mkdir");
        assert_eq!(find(&other), None);
    }

    #[test]
    fn only_the_display_name_is_read() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = settings(
            tmp.path(),
            "a.json",
            r#"{"numStartups": 12, "projects": {"/home/x": {"history": [1, 2]}},
                "oauthAccount": {"emailAddress": "dana@acme.io", "displayName": "  Dana Kim "}}"#,
        );
        assert_eq!(display_name(&file), Ok(Some("Dana Kim".into())));
        for none in [
            "{}",
            r#"{"oauthAccount": null}"#,
            r#"{"oauthAccount": {"displayName": " "}}"#,
            r#"{"oauthAccount": {"emailAddress": "dana@acme.io"}}"#,
        ] {
            let file = settings(tmp.path(), "b.json", none);
            assert_eq!(display_name(&file), Ok(None), "{none}");
        }
    }

    #[test]
    fn a_broken_file_is_one_skip_naming_its_line() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = settings(
            tmp.path(),
            "c.json",
            "{\n  \"oauthAccount\": {\n    \"displayName\": 7\n}",
        );
        let skip = display_name(&file).expect_err("not a name");
        assert_eq!(skip.line, Some(3), "{skip}");
        let shown = skip.to_string();
        assert!(
            shown.starts_with(&format!(
                "{}:3: owner's name not learned: invalid type",
                file.display()
            )),
            "{shown}"
        );
        assert!(!shown.contains("at line"), "{shown}");
        let roots = vec![Root {
            claude_json: Some(file),
            ..Root::default()
        }];
        let mut skips = Vec::new();
        assert!(display_names(&roots, &mut skips).is_empty());
        assert_eq!(skips.len(), 1);
    }
}
