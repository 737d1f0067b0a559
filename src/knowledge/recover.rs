//! The versions of a file ccwiki can rebuild from the sources: whole
//! writes, edits applied on top of a known version, and the backups in
//! `file-history/`. Content here is the owner's file, unredacted: it goes
//! to their terminal (`ccwiki recover`), never to a page.

use crate::base::dirs::{is_rooted, plain_name};
use crate::base::skip::Skip;
use crate::source::changes::{file_events, Change, Event};
use crate::source::discover::Root;
use chrono::{DateTime, Utc};
use std::path::PathBuf;

/// Which file to recover.
#[derive(Debug, Clone)]
pub struct Query {
    /// As the sessions wrote it: absolute, or relative to the project.
    pub path: String,
    /// The project (its folder, or the end of it) when `path` is relative.
    pub project: Option<String>,
}

/// How a version was learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Write,
    /// Edits applied on the version before.
    Edit,
    /// Claude Code's backup (`file-history/`), version N.
    Backup(u32),
}

/// One version of the file.
#[derive(Debug, Clone)]
pub struct Version {
    /// The file, absolute as far as the sessions say.
    pub path: String,
    pub at: Option<DateTime<Utc>>,
    pub source: Source,
    pub session: String,
    /// None: the version is known to exist but cannot be rebuilt (an edit
    /// of a version never seen, a backup file missing), or the file did
    /// not exist yet (a backup of nothing).
    pub content: Option<String>,
    /// Why there is no content.
    pub missing: Option<&'static str>,
}

/// `path` with `/` separators, for comparing.
fn norm(path: &str) -> String {
    path.replace('\\', "/")
}

/// The event's file, made absolute with its session's `cwd`.
fn absolute(e: &Event) -> String {
    match &e.cwd {
        Some(cwd) if !is_rooted(&e.path) => {
            format!("{}/{}", norm(cwd).trim_end_matches('/'), norm(&e.path))
        }
        _ => norm(&e.path),
    }
}

impl Query {
    fn matches(&self, file: &str, cwd: Option<&str>) -> bool {
        let want = norm(&self.path);
        if is_rooted(&self.path) {
            return file == want;
        }
        let in_project = match (&self.project, cwd) {
            (None, _) => true,
            (Some(p), Some(cwd)) => {
                let (p, cwd) = (norm(p), norm(cwd));
                let p = p.trim_end_matches('/');
                cwd == p || cwd.ends_with(&format!("/{p}"))
            }
            (Some(_), None) => false,
        };
        in_project && (file == want || file.ends_with(&format!("/{want}")))
    }

    /// The name every line about the file holds.
    fn needle(&self) -> &str {
        self.path.rsplit(['/', '\\']).next().unwrap_or(&self.path)
    }
}

/// Every version of the files `q` names, oldest first, grouped by file.
pub fn versions(roots: &[Root], q: &Query, skips: &mut Vec<Skip>) -> Vec<Version> {
    let mut events: Vec<(Event, String, Option<PathBuf>)> = Vec::new();
    for root in roots {
        for t in &root.transcripts {
            let res = file_events(&t.path, q.needle(), |e| {
                let file = absolute(&e);
                if q.matches(&file, e.cwd.as_deref()) {
                    events.push((e, file, root.file_history.clone()));
                }
            });
            if let Err(e) = res {
                skips.push(Skip::file(&t.path, format!("cannot read: {e}")));
            }
        }
    }
    let time = |e: &Event| {
        e.time
            .as_deref()
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
    };
    events.sort_by(|a, b| (&a.1, time(&a.0)).cmp(&(&b.1, time(&b.0))));
    // The same line seen in two roots (a backup of the projects folder)
    // is one event.
    events.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
    let mut out: Vec<Version> = Vec::new();
    for (e, file, history) in events {
        let before = out
            .last()
            .filter(|v| v.path == file)
            .and_then(|v| v.content.clone());
        let session = e.session.clone().unwrap_or_default();
        let at = time(&e);
        let (source, content, missing) = match e.change {
            Change::Write(text) => (Source::Write, Some(text), None),
            Change::Edit(pairs) => match before.and_then(|b| apply(b, &pairs)) {
                Some(text) => (Source::Edit, Some(text), None),
                None => (Source::Edit, None, Some("edits of a version not known")),
            },
            Change::Backup { name, version } => {
                let (content, missing) = backup(history, &session, name.as_deref());
                (Source::Backup(version), content, missing)
            }
        };
        out.push(Version {
            path: file,
            at,
            source,
            session,
            content,
            missing,
        });
    }
    out
}

/// Apply edits as Claude Code did: each `old` must be found (every
/// occurrence replaced when `replace all`, else the first).
fn apply(mut text: String, pairs: &[(String, String, bool)]) -> Option<String> {
    for (old, new, all) in pairs {
        if old.is_empty() || !text.contains(old.as_str()) {
            return None;
        }
        text = if *all {
            text.replace(old.as_str(), new)
        } else {
            text.replacen(old.as_str(), new, 1)
        };
    }
    Some(text)
}

/// A backup's content, read from `file-history/<session>/<name>`.
fn backup(
    history: Option<PathBuf>,
    session: &str,
    name: Option<&str>,
) -> (Option<String>, Option<&'static str>) {
    let Some(name) = name else {
        return (None, Some("the file did not exist yet"));
    };
    let Some(dir) = history.filter(|_| plain_name(session) && plain_name(name)) else {
        return (None, Some("backup not found"));
    };
    match std::fs::read(dir.join(session).join(name)) {
        Ok(bytes) => (Some(String::from_utf8_lossy(&bytes).into_owned()), None),
        Err(_) => (None, Some("backup not found")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_like_claude_code() {
        let pairs = |p: &[(&str, &str, bool)]| -> Vec<(String, String, bool)> {
            p.iter()
                .map(|(a, b, c)| (a.to_string(), b.to_string(), *c))
                .collect()
        };
        assert_eq!(
            apply("a a".into(), &pairs(&[("a", "b", false)])).as_deref(),
            Some("b a")
        );
        assert_eq!(
            apply("a a".into(), &pairs(&[("a", "b", true)])).as_deref(),
            Some("b b")
        );
        assert_eq!(apply("a".into(), &pairs(&[("z", "b", false)])), None);
    }

    #[test]
    fn a_relative_path_matches_inside_its_project() {
        let q = Query {
            path: "src/app.rs".into(),
            project: Some("tide-api".into()),
        };
        assert!(q.matches("/home/d/tide-api/src/app.rs", Some("/home/d/tide-api")));
        assert!(!q.matches("/home/d/other/src/app.rs", Some("/home/d/other")));
        assert!(!q.matches("/home/d/tide-api/xsrc/app.rs", Some("/home/d/tide-api")));
        let abs = Query {
            path: "C:\\p\\a.rs".into(),
            project: None,
        };
        assert!(abs.matches("C:/p/a.rs", None));
        assert_eq!(abs.needle(), "a.rs");
    }
}
