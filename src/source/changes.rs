//! Every change a transcript records of one file, in full and as
//! written: whole writes, edits, and the backups `file-history-snapshot`
//! lines name. For `ccwiki recover`, which prints a file back to its
//! owner; nothing here is redacted, and nothing here reaches a page.

use super::jsonl::{parse_line, read_lines, Position};
use super::record::{tracked_backups, Content, EditInput, Record};
use std::path::Path;

/// What one event did to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The whole new content (Write).
    Write(String),
    /// Replacements, in order (Edit, MultiEdit): (old, new, replace all).
    Edit(Vec<(String, String, bool)>),
    /// A backup Claude Code kept: its file name under
    /// `file-history/<session>/`, None when the file did not exist yet.
    Backup { name: Option<String>, version: u32 },
}

/// One change of a file, where and when it was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The file as the line names it (a snapshot's may be relative to `cwd`).
    pub path: String,
    pub time: Option<String>,
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub line: u64,
    pub change: Change,
}

/// The changes of files whose path contains `needle` (the file's name:
/// a line that does not hold it is never parsed). Unreadable lines are
/// passed over: a recovery takes what can be read.
pub fn file_events(path: &Path, needle: &str, mut f: impl FnMut(Event)) -> std::io::Result<()> {
    let mut cwd: Option<String> = None;
    // A snapshot line names no session: the last one seen, else the file's
    // own (`<session>.jsonl`).
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let mut session: Option<String> = (!stem.starts_with("agent-")).then(|| stem.to_string());
    read_lines(path, Position::default(), |line| {
        if memchr::memmem::find(line.bytes, needle.as_bytes()).is_none() {
            return;
        }
        let mut repaired = None;
        let Ok(rec) = parse_line::<Record>(line.bytes, &mut repaired) else {
            return;
        };
        if let Some(c) = rec.cwd.as_deref() {
            cwd = Some(c.to_string());
        }
        if let Some(s) = rec.session_id.as_deref() {
            session = Some(s.to_string());
        }
        let at = |path: String, change: Change| Event {
            path,
            time: rec.timestamp.as_deref().map(str::to_string),
            session: session.clone(),
            cwd: cwd.clone(),
            line: line.number,
            change,
        };
        if let Some(snapshot) = rec.snapshot {
            for t in tracked_backups(snapshot)
                .into_iter()
                .filter(|t| t.path.contains(needle))
            {
                let mut e = at(
                    t.path,
                    Change::Backup {
                        name: t.backup,
                        version: t.version,
                    },
                );
                e.time = t.time.or(e.time);
                f(e);
            }
            return;
        }
        if rec.kind.as_deref() != Some("assistant") {
            return;
        }
        let Some(msg) = rec.message.value else {
            return;
        };
        let Content::Blocks(blocks) = msg.content else {
            return;
        };
        for b in blocks {
            let (Some(name), Some(input)) = (b.name.as_deref(), b.input) else {
                continue;
            };
            if let Some((p, change)) = file_change(name, &input.text()) {
                f(at(p, change));
            }
        }
    })?;
    Ok(())
}

/// A tool call's change of a file: (path, change).
fn file_change(tool: &str, input: &str) -> Option<(String, Change)> {
    if !matches!(tool, "Write" | "Edit" | "MultiEdit") {
        return None;
    }
    let i: EditInput = serde_json::from_str(input).ok()?;
    let path = i.file_path?;
    if tool == "Write" {
        return Some((path, Change::Write(i.content?)));
    }
    let mut pairs = Vec::new();
    if let (Some(old), Some(new)) = (i.old_string, i.new_string) {
        pairs.push((old, new, i.replace_all));
    }
    pairs.extend(i.edits.into_iter().map(|e| {
        (
            e.old_string.unwrap_or_default(),
            e.new_string.unwrap_or_default(),
            e.replace_all,
        )
    }));
    (!pairs.is_empty()).then_some((path, Change::Edit(pairs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_edits_and_backups_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        let long = "x".repeat(10_000);
        let lines = [
            format!(r#"{{"type":"assistant","cwd":"/p","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{{"content":[{{"type":"tool_use","name":"Write","input":{{"file_path":"/p/a.txt","content":"{long}"}}}}]}}}}"#),
            r#"{"type":"assistant","timestamp":"2026-01-01T00:01:00Z","message":{"content":[{"type":"tool_use","name":"MultiEdit","input":{"file_path":"/p/a.txt","edits":[{"old_string":"x","new_string":"y","replace_all":true}]}}]}}"#.to_string(),
            r#"{"type":"file-history-snapshot","snapshot":{"trackedFileBackups":{"a.txt":{"backupFileName":"abc@v2","version":2,"backupTime":"2026-01-01T00:02:00Z"}}}}"#.to_string(),
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/p/other.txt","old_string":"a","new_string":"b"}}]}}"#.to_string(),
            "not json a.txt".to_string(),
        ];
        std::fs::write(&file, lines.join("\n")).unwrap();
        let mut seen = Vec::new();
        file_events(&file, "a.txt", |e| seen.push(e)).unwrap();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].change, Change::Write(long));
        assert_eq!(seen[0].session.as_deref(), Some("s1"));
        assert_eq!(
            seen[1].change,
            Change::Edit(vec![("x".into(), "y".into(), true)])
        );
        assert_eq!(seen[2].path, "a.txt");
        assert_eq!(seen[2].cwd.as_deref(), Some("/p"));
        assert_eq!(seen[2].time.as_deref(), Some("2026-01-01T00:02:00Z"));
        assert_eq!(
            seen[2].change,
            Change::Backup {
                name: Some("abc@v2".into()),
                version: 2
            }
        );
    }
}
