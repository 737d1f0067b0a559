//! `history.jsonl` (prompts typed, by project) and `sessions/<pid>.json`
//! (when and how sessions started).

use super::jsonl::{for_each_line, parse_line, Line, Str};
use crate::base::skip::Skip;
use chrono::{DateTime, TimeZone, Utc};
use serde::Deserialize;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3Default;

/// A timestamp given as milliseconds since the epoch or as an ISO string.
#[derive(Debug, Default)]
struct Stamp(Option<DateTime<Utc>>);

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Ok(Stamp(match v {
            serde_json::Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .and_then(from_millis),
            serde_json::Value::String(s) => DateTime::parse_from_rfc3339(&s)
                .ok()
                .map(|d| d.with_timezone(&Utc))
                .or_else(|| s.parse::<i64>().ok().and_then(from_millis)),
            _ => None,
        }))
    }
}

fn from_millis(ms: i64) -> Option<DateTime<Utc>> {
    // Values below 10^11 are seconds, not milliseconds.
    if ms.abs() < 100_000_000_000 {
        Utc.timestamp_opt(ms, 0).single()
    } else {
        Utc.timestamp_millis_opt(ms).single()
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct HistoryLine {
    display: Str,
    timestamp: Stamp,
    project: Str,
    session_id: Str,
}

/// What identity needs of a line the last build already redacted: its
/// project. The prompt is skipped, not decoded.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ProjectOnly {
    project: Str,
}

/// Where a history file's complete lines ended when it was last read, and
/// a hash of those lines: a file that still starts with them only grew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seal {
    /// Byte offset just past the last complete line.
    pub offset: u64,
    /// The number of lines before it.
    pub line: u64,
    /// A hash of every line before it (its text, number and end).
    pub hash: u64,
}

/// One reading of a history file.
#[derive(Debug, Default)]
pub struct Scan {
    /// The projects every line names, each once, unredacted: what
    /// identity learns from (lines without a time too).
    pub projects: BTreeSet<String>,
    /// Whether the file still starts with the lines the seal it was read
    /// with covers: then those lines were only looked at for their
    /// project, and `lines` holds the ones after them.
    pub kept: bool,
    /// The complete lines read in full, in file order.
    pub lines: Vec<RawHistory>,
    /// What was wrong with complete lines read in full.
    pub skips: Vec<Skip>,
    /// A last line without its newline (a writer still at work): read in
    /// full at every build, never sealed.
    pub open: Option<RawHistory>,
    /// What is wrong now but not with a sealed line, so never kept with
    /// them: that last line, or a file that could not be read to its end.
    pub passing: Vec<Skip>,
    /// The seal of this reading: every complete line.
    pub seal: Seal,
}

/// The running hash of a file's lines, as [`Seal`] keeps it.
struct LineHasher(Xxh3Default);

impl LineHasher {
    fn add(&mut self, line: &Line<'_>) {
        self.0.update(line.bytes);
        self.0.update(&line.number.to_le_bytes());
        self.0.update(&line.end.to_le_bytes());
    }
}

/// Read `history.jsonl`, streaming. Lines without a usable time are
/// skipped. When `sealed` is what the file still starts with, the lines
/// it covers are only looked at for their project.
pub fn scan_history(path: &Path, sealed: Option<Seal>) -> Scan {
    let mut scan = Scan::default();
    let mut hasher = LineHasher(Xxh3Default::new());
    let light_to = sealed.map_or(0, |s| s.offset);
    let result = for_each_line(path, |line| {
        if !line.unterminated {
            hasher.add(&line);
            scan.seal.offset = line.end;
            scan.seal.line = line.number;
        }
        let mut repaired = None;
        if line.end <= light_to {
            if let Ok(p) = parse_line::<ProjectOnly>(line.bytes, &mut repaired) {
                add_project(&mut scan.projects, p.project.as_deref());
            }
            if line.end == light_to {
                scan.kept = sealed.is_some_and(|s| {
                    !line.unterminated && s.line == line.number && s.hash == hasher.0.digest()
                });
            }
            return;
        }
        let (entry, skip) = read_line(path, &line, &mut scan.projects);
        if line.unterminated {
            scan.open = entry;
            scan.passing.extend(skip);
        } else {
            scan.lines.extend(entry);
            scan.skips.extend(skip);
        }
    });
    if let Err(e) = result {
        scan.passing
            .push(Skip::file(path, format!("cannot read: {e}")));
    }
    if light_to > 0 && !scan.kept {
        // The file was rewritten (or could not be read): read it again in full.
        return scan_history(path, None);
    }
    scan.seal.hash = hasher.0.digest();
    scan
}

/// Note a line's project for identity (a new one copied, a known one not).
fn add_project(projects: &mut BTreeSet<String>, project: Option<&str>) {
    if let Some(p) = project.filter(|p| !p.is_empty() && !projects.contains(*p)) {
        projects.insert(p.to_string());
    }
}

/// One line read in full: its entry, or why there is none.
fn read_line(
    path: &Path,
    line: &Line<'_>,
    projects: &mut BTreeSet<String>,
) -> (Option<RawHistory>, Option<Skip>) {
    let mut repaired = None;
    match parse_line::<HistoryLine>(line.bytes, &mut repaired) {
        Ok(h) => {
            add_project(projects, h.project.as_deref());
            let project = h.project.0.filter(|p| !p.is_empty());
            match h.timestamp.0 {
                Some(ts) => (
                    Some(RawHistory {
                        ts,
                        display: h.display.0.unwrap_or_default(),
                        project,
                        session_id: h.session_id.0.filter(|s| !s.is_empty()),
                    }),
                    None,
                ),
                None => (
                    None,
                    Some(Skip::line(
                        path,
                        line.number,
                        "history line without a timestamp",
                    )),
                ),
            }
        }
        Err(e) => {
            let reason = if line.unterminated {
                "incomplete last line (file still being written?)".to_string()
            } else {
                format!("malformed JSON: {e}")
            };
            (None, Some(Skip::line(path, line.number, reason)))
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct StartFile {
    session_id: Str,
    cwd: Str,
    started_at: Stamp,
    kind: Str,
    entrypoint: Str,
}

/// Read one `sessions/<pid>.json`, whatever key set it has.
pub fn read_session_start(path: &Path, skips: &mut Vec<Skip>) -> Option<RawStart> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            skips.push(Skip::file(path, format!("cannot read: {e}")));
            return None;
        }
    };
    let mut repaired = None;
    match parse_line::<StartFile>(&bytes, &mut repaired) {
        Ok(s) => match s.session_id.0.filter(|s| !s.is_empty()) {
            Some(session_id) => Some(RawStart {
                session_id,
                started: s.started_at.0,
                cwd: s.cwd.0,
                entrypoint: s.entrypoint.0,
                kind: s.kind.0,
            }),
            None => {
                skips.push(Skip::file(path, "session metadata without sessionId"));
                None
            }
        },
        Err(e) => {
            skips.push(Skip::file(path, format!("malformed JSON: {e}")));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn history_variants() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, r#"{{"display":"hello","pastedContents":{{}},"timestamp":1768719367888,"project":"/p","sessionId":"s1"}}"#).unwrap();
        writeln!(f, r#"{{"display":"old","pastedContents":{{"1":{{"id":1,"type":"text","contentHash":"ab"}}}},"timestamp":1759149289856,"project":"/p"}}"#).unwrap();
        writeln!(f, r#"{{"display":"no time"}}"#).unwrap();
        writeln!(f, r#"not json"#).unwrap();
        writeln!(
            f,
            r#"{{"display":"iso","timestamp":"2026-01-02T03:04:05Z"}}"#
        )
        .unwrap();
        let scan = scan_history(f.path(), None);
        let (h, skips) = (scan.lines, scan.skips);
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].session_id.as_deref(), Some("s1"));
        assert_eq!(h[0].ts.timestamp_millis(), 1768719367888);
        assert_eq!(h[1].session_id, None);
        assert_eq!(h[2].ts.to_rfc3339(), "2026-01-02T03:04:05+00:00");
        assert_eq!(skips.len(), 2);
        assert_eq!(skips[0].line, Some(3));
        assert_eq!(skips[1].line, Some(4));
    }

    #[test]
    fn session_start_key_sets() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("1.json");
        std::fs::write(&a, r#"{"pid":1,"sessionId":"s","cwd":"/x","startedAt":1775637263656,"kind":"interactive","entrypoint":"cli"}"#).unwrap();
        let b = dir.path().join("2.json");
        std::fs::write(
            &b,
            r#"{"pid":2,"sessionId":"t","cwd":"/y","startedAt":"2026-03-15T10:30:00.000Z"}"#,
        )
        .unwrap();
        let c = dir.path().join("3.json");
        std::fs::write(&c, r#"{"pid":3}"#).unwrap();
        let mut skips = Vec::new();
        let sa = read_session_start(&a, &mut skips).unwrap();
        assert_eq!(sa.started.unwrap().timestamp_millis(), 1775637263656);
        assert_eq!(sa.entrypoint.as_deref(), Some("cli"));
        let sb = read_session_start(&b, &mut skips).unwrap();
        assert_eq!(
            sb.started.unwrap().to_rfc3339(),
            "2026-03-15T10:30:00+00:00"
        );
        assert!(read_session_start(&c, &mut skips).is_none());
        assert_eq!(skips.len(), 1);
    }
}

/// One line of `history.jsonl`, as read (unredacted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawHistory {
    pub ts: DateTime<Utc>,
    pub display: String,
    pub project: Option<String>,
    pub session_id: Option<String>,
}

/// One `sessions/<pid>.json`, as read (unredacted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawStart {
    pub session_id: String,
    pub started: Option<DateTime<Utc>>,
    pub cwd: Option<String>,
    pub entrypoint: Option<String>,
    pub kind: Option<String>,
}
