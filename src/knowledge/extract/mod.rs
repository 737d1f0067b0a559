//! Extraction: stream transcripts, `history.jsonl` and session metadata
//! into the knowledge model, every text through the redactor.
//!
//! Files are read in parallel (rayon), each line by line; nothing reads a
//! transcript whole. Per-file results are merged in batches, in (root,
//! path) order (see `merge`): parts of one session found in several files,
//! sub-agents attached to the session that spawned them, and `summary`
//! records resolved to the session their `leafUuid` points into.

mod conversation;
mod firsts;
mod merge;
mod transcript;

pub use conversation::{classify_user_text, Aside, UserLine, INSTRUCTION_CHARS};
pub use transcript::{read_fresh, read_transcript, FileDigest, ReaderState, Shelved, PIECE_BYTES};

use crate::base::skip::Skip;
use crate::knowledge::model::{HistoryEntry, Session, SessionStart};
use crate::knowledge::redact::{Redactor, Scrub, Tally, Text};
use crate::knowledge::spill::Spill;
use crate::source::discover::Root;
use crate::source::history::{RawHistory, RawStart};
use rayon::prelude::*;

/// What extraction produced.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Sessions sorted by (root, id).
    pub sessions: Vec<Session>,
    pub skips: Vec<Skip>,
    /// Transcript lines read.
    pub lines: u64,
    /// What redaction replaced in the transcripts.
    pub tally: Tally,
}

/// Read every transcript of every root, keeping every turn in memory.
pub fn extract(roots: &[Root], r: &Redactor) -> Extracted {
    extract_cached(
        roots,
        r,
        &mut crate::knowledge::cache::Cache::disabled(),
        &crate::base::progress::Progress::default(),
        &Spill::none(),
    )
}

/// [`extract`], served from and feeding `cache`. As soon as a file has
/// been read its turns are left in the cache (read back through `spill`),
/// or written to `spill` when the cache cannot keep them. Nothing here
/// fails: an unreadable file is a skip, a spill that cannot be written
/// holds turns in memory (see [`Spill::failure`]).
///
/// Files are read in batches (4,096 files), in parallel within a batch, and
/// merged in (root, path) order as each batch is done: a hundred thousand
/// files' digests are never held at once.
pub fn extract_cached<'s>(
    roots: &'s [Root],
    r: &Redactor,
    cache: &mut crate::knowledge::cache::Cache<'s>,
    progress: &crate::base::progress::Progress,
    spill: &Spill,
) -> Extracted {
    let mut files: Vec<_> = roots
        .iter()
        .flat_map(|r| r.transcripts.iter().map(move |t| (r.index, t)))
        .collect();
    // The order files are merged in: what comes first wins (a summary's
    // session, a title), so it must not depend on which thread was faster.
    files.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.path.cmp(&b.1.path)));
    let total: u64 = files.iter().map(|(_, tf)| tf.size).sum();
    let done = std::sync::atomic::AtomicU64::new(0);
    let mut merger = merge::Merger::new(r, files.len());
    cache.expect(files.len());
    for batch in files.chunks(BATCH) {
        // Largest first so one huge file does not start last and run alone,
        // each thread taking the next file of that order as it is free (a
        // split list gave one thread all the large files, one after
        // another, while the other finished the small ones and waited).
        let mut order: Vec<usize> = (0..batch.len()).collect();
        order.sort_by(|&a, &b| batch[b].1.size.cmp(&batch[a].1.size));
        let shared: &crate::knowledge::cache::Cache<'s> = cache;
        let mut read: Vec<_> = order
            .iter()
            .par_bridge()
            .map(|&k| {
                let (root, tf) = batch[k];
                let (mut digest, entry, served) = shared.read(root, tf, r, spill);
                stow(&mut digest, spill);
                let now = done.fetch_add(tf.size, std::sync::atomic::Ordering::Relaxed) + tf.size;
                progress.report("reading transcripts", now, total);
                (k, digest, entry, served)
            })
            .collect();
        read.sort_unstable_by_key(|(k, ..)| *k);
        for (_, digest, entry, served) in read {
            cache.keep(entry, served);
            merger.add(digest);
        }
    }
    // Turns cached in this build's pack are read back from it.
    cache.flush();
    merger.finish()
}

/// How many files are read between two merges: enough to keep every core
/// busy, few enough that their digests (a kilobyte or two each, most of it
/// the parts' inline room) stay small.
const BATCH: usize = 4096;

/// History lines, redacted, in the order given.
pub fn history(raw: Vec<RawHistory>, r: &Redactor, tally: &mut Tally) -> Vec<HistoryEntry> {
    // A long-used history holds tens of thousands of prompts, redacted
    // anew at every build: on every core, and each of its few projects
    // and sessions redacted once per batch.
    let len = raw.len();
    // Taken, not borrowed: each prompt's text is redacted in its own
    // buffer, and freed as its batch is done.
    let batches: Vec<(Vec<HistoryEntry>, Tally)> = raw
        .into_par_iter()
        .chunks(HISTORY_BATCH)
        .map(|batch| {
            let mut sc = Scrub::new(r);
            let mut seen = Seen::default();
            let entries = batch
                .into_iter()
                .map(|h| HistoryEntry {
                    ts: h.ts,
                    project: h.project.as_deref().map(|p| seen.text(&mut sc, p)),
                    session_id: h.session_id.as_deref().map(|id| seen.text(&mut sc, id)),
                    display: sc.owned(h.display),
                })
                .collect();
            (entries, sc.tally)
        })
        .collect();
    let mut out = Vec::with_capacity(len);
    for (entries, t) in batches {
        out.extend(entries);
        tally.add(&t);
    }
    out
}

/// Prompts of the history redacted by one task.
const HISTORY_BATCH: usize = 2048;

/// Short texts that repeat (a project's path, a session's id), each
/// redacted once: what the redactor made of it and what it counted.
#[derive(Default)]
struct Seen {
    texts: std::collections::HashMap<String, (Text, Tally)>,
}

impl Seen {
    /// `raw` redacted, counted in `sc` as if it were redacted again.
    fn text(&mut self, sc: &mut Scrub<'_>, raw: &str) -> Text {
        if let Some((text, counted)) = self.texts.get(raw) {
            sc.tally.add(counted);
            return text.clone();
        }
        let mut once = Scrub::new(sc.redactor());
        let text = once.text(raw);
        sc.tally.add(&once.tally);
        self.texts
            .insert(raw.to_string(), (text.clone(), once.tally));
        text
    }
}

/// Session metadata, redacted, in order of start.
pub fn starts(raw: Vec<RawStart>, r: &Redactor, tally: &mut Tally) -> Vec<SessionStart> {
    let mut sc = Scrub::new(r);
    let mut out: Vec<SessionStart> = raw
        .into_iter()
        .map(|s| SessionStart {
            session_id: sc.owned(s.session_id),
            started: s.started,
            cwd: sc.opt(s.cwd.as_deref()),
            entrypoint: sc.opt(s.entrypoint.as_deref()),
            kind: sc.opt(s.kind.as_deref()),
        })
        .collect();
    out.sort_by(|a, b| {
        a.started
            .cmp(&b.started)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    tally.add(&sc.tally);
    out
}

/// Move a digest's turns to `spill`.
fn stow(d: &mut FileDigest, spill: &Spill) {
    d.parts.shrink_to_fit();
    for p in &mut d.parts {
        p.settle();
        spill.stow(&mut p.turns);
        for a in &mut p.agents {
            spill.stow(&mut a.turns);
        }
    }
    if let Some((_, _, a)) = &mut d.subagent {
        spill.stow(&mut a.turns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::redact::RedactConfig;
    use chrono::{TimeZone, Utc};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// The history redacted in batches, each project and session
        /// once, reads and counts exactly as every field redacted on its
        /// own, in one pass.
        #[test]
        fn history_in_batches_is_the_history_redacted_one_by_one(
            picks in proptest::collection::vec((0usize..6, 0usize..4, 0usize..5, 0i64..50), 0..5000),
        ) {
            let red = Redactor::new(&RedactConfig {
                home_dirs: vec!["/home/dana".into()],
                usernames: vec!["dana".into()],
                ..RedactConfig::default()
            })
            .expect("redactor");
            let displays = [
                "fix the build",
                "look at /home/dana/code/app/main.rs",
                "dana's key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
                "",
                "ask Dana about C:\\Users\\dana\\x",
                "plain words",
            ];
            let projects = [None, Some("/home/dana/code/app"), Some("/srv/app"), Some("/home/dana")];
            let sessions = [None, Some("s-1"), Some("s-2"), Some("dana-session"), Some("s-3")];
            let raw: Vec<RawHistory> = picks
                .iter()
                .map(|&(d, p, s, t)| RawHistory {
                    ts: Utc.timestamp_opt(1_700_000_000 + t, 0).single().expect("time"),
                    display: displays[d].to_string(),
                    project: projects[p].map(str::to_string),
                    session_id: sessions[s].map(str::to_string),
                })
                .collect();
            let mut tally = Tally::default();
            let got = history(raw.clone(), &red, &mut tally);
            let mut sc = Scrub::new(&red);
            let want: Vec<HistoryEntry> = raw
                .iter()
                .map(|h| HistoryEntry {
                    ts: h.ts,
                    display: sc.text(&h.display),
                    project: sc.opt(h.project.as_deref()),
                    session_id: sc.opt(h.session_id.as_deref()),
                })
                .collect();
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(tally, sc.tally);
        }
    }
}
