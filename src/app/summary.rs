//! The summary a build prints.

use super::build::{BuildOptions, BuildReport};
use std::fmt::Write as _;

/// `writeln!` into the summary (writing to a String cannot fail).
macro_rules! wln {
    ($s:expr, $($arg:tt)*) => {{
        let _ = writeln!($s, $($arg)*);
    }};
}

impl BuildReport {
    /// What the build did, for the terminal: counts, what was redacted,
    /// skipped lines and files (all of them with `verbose`), and the time
    /// of each phase (with `timings`).
    pub fn summary(&self, opts: &BuildOptions, verbose: bool, timings: bool) -> String {
        let mut s = String::new();
        self.write_head(&mut s, opts);
        self.write_sources(&mut s, opts);
        if self.excluded > 0 {
            wln!(
                s,
                "  {} sessions and memories left out by exclude",
                self.excluded
            );
        }
        if self.empty_sessions > 0 {
            wln!(
                s,
                "  {} session files had nothing to show",
                self.empty_sessions
            );
        }
        if !self.redactions.is_empty() {
            let parts: Vec<String> = self
                .redactions
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            wln!(s, "  redacted: {}", parts.join(", "));
        } else if !opts.redact {
            wln!(
                s,
                "  redaction is OFF: check the output before publishing it"
            );
        }
        if let Some(path) = &opts.report {
            wln!(
                s,
                "  redaction report: {} ({} residual suspects to check)",
                path.display(),
                self.suspects
            );
        }
        self.write_skips(&mut s, verbose);
        if timings {
            for (phase, d) in &self.timings {
                wln!(s, "  {phase:<9} {:>9.2?}", d);
            }
        }
        s
    }

    /// What was built (or that nothing had to be), and from what.
    fn write_head(&self, s: &mut String, opts: &BuildOptions) {
        if self.unchanged {
            wln!(
                s,
                "Nothing changed since the last build: the {} pages in {} are up to date (checked in {:.2?})",
                self.pages,
                opts.out.display(),
                self.elapsed()
            );
        } else {
            wln!(
                s,
                "Built {} pages into {} in {:.2?}",
                self.pages,
                opts.out.display(),
                self.elapsed()
            );
        }
        wln!(
            s,
            "  {} projects, {} sessions ({} sub-agents), {} memories, {} prompts",
            self.projects,
            self.sessions,
            self.subagents,
            self.memories,
            self.prompts
        );
        if self.unchanged {
            wln!(
                s,
                "  {:.1} MB of transcripts ({} lines), none of them read again; nothing written",
                self.transcript_bytes as f64 / 1e6,
                self.lines
            );
        } else {
            let kept = match self.pages_kept {
                0 => String::new(),
                n => format!(", {n} of them not made again"),
            };
            wln!(
                s,
                "  {:.1} MB of transcripts ({} lines); {} files, {:.1} MB, {} unchanged \
                 since the last build{kept}",
                self.transcript_bytes as f64 / 1e6,
                self.lines,
                self.files_written,
                self.bytes_written as f64 / 1e6,
                self.files_unchanged,
            );
        }
    }

    /// The data roots read, notes on how, and what the cache served.
    fn write_sources(&self, s: &mut String, opts: &BuildOptions) {
        // The roots read, when they are not simply the sources given.
        if self.roots.as_slice() != opts.sources.as_slice() {
            let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
            let what = if roots.len() == 1 {
                "data root"
            } else {
                "data roots"
            };
            wln!(s, "  read {} {what}: {}", roots.len(), roots.join(", "));
        }
        for note in &self.notes {
            wln!(s, "  note: {note}");
        }
        if let Some(a) = &self.archive {
            let mut line = format!(
                "  archive: {} new or grown files ({:.1} MB) kept in {}",
                a.new_files,
                a.bytes_read as f64 / 1e6,
                a.dir.display()
            );
            if a.archive_only_sessions > 0 {
                let _ = write!(
                    line,
                    "; {} sessions only in the archive",
                    a.archive_only_sessions
                );
            }
            if a.merged > 0 {
                let _ = write!(line, "; {} files merged from differing copies", a.merged);
            }
            wln!(s, "{line}");
        }
        let c = self.cache;
        if c.reused + c.resumed > 0 {
            wln!(
                s,
                "  cache: {} transcripts unchanged, {} read from where they grew, {} read in full",
                c.reused,
                c.resumed,
                c.read
            );
        }
        let p = self.prompt_cache;
        if p.kept > 0 {
            wln!(
                s,
                "  cache: {} prompts of the history as redacted before, {} redacted now",
                p.kept,
                p.redacted
            );
        }
    }

    /// The skipped lines and files: the first ten, or all with `verbose`.
    fn write_skips(&self, s: &mut String, verbose: bool) {
        if !self.skips.is_empty() {
            let lines = self.skips.iter().filter(|s| s.line.is_some()).count();
            wln!(
                s,
                "  skipped {} lines and {} files/entries:",
                lines,
                self.skips.len() - lines
            );
            let limit = if verbose { usize::MAX } else { 10 };
            for skip in self.skips.iter().take(limit) {
                wln!(s, "    {skip}");
            }
            if self.skips.len() > limit {
                wln!(
                    s,
                    "    … and {} more (--verbose lists them all)",
                    self.skips.len() - limit
                );
            }
        }
    }
}
