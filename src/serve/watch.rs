//! Watch the sources (and the wiki repository's templates, themes and
//! root/), rebuild when something that feeds the wiki changed, and tell
//! the open pages.

use super::Say;
use crate::app::build::{build, BuildOptions};
use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    new_debouncer, DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache,
};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How long a file must be quiet before a rebuild: Claude Code appends a
/// line at a time, and one rebuild per burst is enough.
const SETTLE: Duration = Duration::from_millis(300);

/// Folders of a data directory that Claude Code writes to all the time
/// and the wiki never reads.
const NOISE: &[&str] = &[
    "debug",
    "shell-snapshots",
    "statsig",
    "todos",
    "telemetry",
    "ide",
    ".git",
];

/// Whether `event` can change the wiki: a change (reading, which every
/// build does, is none) to what a build reads or to the wiki repository.
fn relevant(event: &DebouncedEvent, site: &[PathBuf]) -> bool {
    !matches!(event.kind, EventKind::Access(_))
        && event
            .paths
            .iter()
            .any(|p| site.iter().any(|d| p.starts_with(d)) || matters(p))
}

/// Whether a change at `path`, in a source, can change the wiki.
fn matters(path: &Path) -> bool {
    let noisy = path.components().any(|c| match c {
        Component::Normal(name) => NOISE.iter().any(|n| name == *n),
        _ => false,
    });
    let read = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "jsonl" | "json" | "md" | "txt"));
    !noisy && (read || path.is_dir())
}

/// The folders of the wiki repository whose changes show in the site.
fn site_folders(opts: &BuildOptions) -> Vec<PathBuf> {
    let Some(dir) = &opts.site_dir else {
        return Vec::new();
    };
    ["templates", "themes", "root"]
        .iter()
        .map(|f| dir.join(f))
        .filter(|d| d.is_dir())
        .collect()
}

/// Start watching; each settled change rebuilds `opts` and, when files of
/// the site changed, sends the build's number to `reload`. Watching stops
/// when the returned debouncer is dropped.
pub fn rebuild_on_change(
    opts: BuildOptions,
    reload: broadcast::Sender<u64>,
    say: Say,
) -> Result<Debouncer<RecommendedWatcher, RecommendedCache>, String> {
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(SETTLE, None, tx).map_err(|e| e.to_string())?;
    let site = site_folders(&opts);
    for dir in opts.sources.iter().chain(&site) {
        debouncer
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    }
    std::thread::spawn(move || {
        let mut number = 0;
        while let Ok(batch) = rx.recv() {
            let relevant = match batch {
                Ok(events) => events.iter().any(|e| relevant(e, &site)),
                Err(errors) => {
                    for e in errors {
                        say(&format!("watching: {e}"));
                    }
                    false
                }
            };
            // Changes that came in meanwhile are part of this rebuild.
            while rx.try_recv().is_ok() {}
            if relevant {
                number += 1;
                rebuild(&opts, number, &reload, &say);
            }
        }
    });
    Ok(debouncer)
}

fn rebuild(opts: &BuildOptions, number: u64, reload: &broadcast::Sender<u64>, say: &Say) {
    match build(opts) {
        Ok(report) => {
            let changed = report.files_written.saturating_sub(report.files_unchanged);
            say(&format!(
                "Rebuilt in {:.2?}: {changed} files changed, {} sessions",
                report.elapsed(),
                report.sessions
            ));
            if changed > 0 {
                // No page open is no error.
                let _ = reload.send(number);
            }
            // Only now: removing the previous copy (a second for a
            // hundred thousand pages) held the reload back.
            for w in crate::output::write::remove_all_previous(&report.previous) {
                say(&format!("warning: {w}"));
            }
        }
        Err(e) => say(&format!(
            "rebuild failed, the pages served are the previous ones: {e}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_wiki_reads_triggers_a_rebuild() {
        assert!(matters(Path::new("/h/.claude/projects/-a/s.jsonl")));
        assert!(matters(Path::new("/h/.claude/projects/-a/memory/x.md")));
        assert!(matters(Path::new("/h/.claude/history.jsonl")));
        assert!(!matters(Path::new("/h/.claude/debug/latest.txt")));
        assert!(!matters(Path::new("/h/.claude/todos/a.json")));
        assert!(!matters(Path::new("/h/.claude/projects/-a/s.jsonl.lock")));
    }
}
