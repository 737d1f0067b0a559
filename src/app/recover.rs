//! `ccwiki recover`: print a file back from what the sessions recorded of
//! it, or list the versions ccwiki can rebuild.

use crate::knowledge::pipeline::Pipeline;
use crate::knowledge::recover::{Query, Source, Version};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

/// What to print.
pub enum Wanted {
    /// Every version, one line each.
    List,
    /// The newest version with content at or before this time (None: the newest).
    Content(Option<DateTime<Utc>>),
}

/// Read `--at`: an RFC 3339 time, `YYYY-MM-DD HH:MM[:SS]` (UTC), or a day
/// (its end).
pub fn parse_time(s: &str) -> Result<DateTime<Utc>, String> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    for f in [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, f) {
            return Ok(t.and_utc());
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .map(|t| t.and_utc())
        .ok_or_else(|| format!("--at {s:?}: expected a time like 2026-11-04, 2026-11-04 09:30 or 2026-11-04T09:30:00Z"))
}

fn describe(v: &Version) -> String {
    let how = match v.source {
        Source::Write => "written whole".to_string(),
        Source::Edit => "edited".to_string(),
        Source::Backup(n) => format!("backup v{n}"),
    };
    let at =
        v.at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "(no time)          ".into());
    let size = match (&v.content, v.missing) {
        (Some(c), _) => format!("{} bytes", c.len()),
        (None, Some(why)) => format!("({why})"),
        (None, None) => "(no content)".into(),
    };
    let session: String = v.session.chars().take(8).collect();
    format!("{at}  {how:<13} {size:<24} session {session}")
}

/// Run `ccwiki recover`: the text to print on standard output, or why not.
pub fn recover(p: &Pipeline, q: &Query, wanted: &Wanted) -> Result<(String, Vec<String>), String> {
    let (versions, report) = p.file_versions(q).map_err(|e| e.to_string())?;
    let mut notes: Vec<String> = report.skips.iter().map(|s| s.to_string()).collect();
    let mut files: Vec<&str> = versions.iter().map(|v| v.path.as_str()).collect();
    files.dedup();
    match files.len() {
        0 => {
            return Err(format!(
                "no session changed a file {:?}{}",
                q.path,
                match &q.project {
                    Some(p) => format!(" in project {p:?}"),
                    None => String::new(),
                }
            ))
        }
        1 => {}
        _ => {
            return Err(format!(
                "{:?} names {} files; give the whole path, or the project with --project:\n  {}",
                q.path,
                files.len(),
                files.join("\n  ")
            ))
        }
    }
    let out = match wanted {
        Wanted::List => {
            let mut out = format!("{}\n", files[0]);
            for v in &versions {
                out.push_str(&describe(v));
                out.push('\n');
            }
            out
        }
        Wanted::Content(at) => {
            let mut eligible = versions
                .iter()
                .rev()
                .filter(|v| at.is_none_or(|at| v.at.is_some_and(|t| t <= at)))
                .peekable();
            let newest = eligible.peek().copied();
            let v = eligible.find(|v| v.content.is_some()).ok_or_else(|| {
                format!(
                    "no version of {} can be rebuilt{}; see --list",
                    files[0],
                    if at.is_some() { " at that time" } else { "" }
                )
            })?;
            if let Some(newer) = newest.filter(|n| !std::ptr::eq(*n, v)) {
                notes.push(format!(
                    "the newer change cannot be rebuilt ({}); printed: {}",
                    describe(newer).trim(),
                    describe(v).trim()
                ));
            }
            v.content.clone().unwrap_or_default()
        }
    };
    Ok((out, notes))
}
