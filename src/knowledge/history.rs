//! The prompt history (`history.jsonl`), redacted once.
//!
//! A long-used history holds tens of thousands of prompts and only ever
//! grows at its end, a line or two per session. What each history file's
//! complete lines gave the last build (the prompts, redacted, and what was
//! wrong with them) is kept in the site's cache folder as `history.bin`,
//! with a [`Seal`] of those lines. A build that finds the file still
//! starting with them reads only their projects (for identity) and
//! redacts only the lines after them. Like the rest of the cache it holds
//! only redacted text, tagged with the redactor's fingerprint: new rules or
//! a new identity redact the whole history again.

use crate::base::hash::path_key;
use crate::base::skip::Skip;
use crate::base::stored;
use crate::knowledge::extract;
use crate::knowledge::model::HistoryEntry;
use crate::knowledge::redact::{Redactor, Tally, Text};
use crate::source::discover::Root;
use crate::source::history::{scan_history, Scan, Seal};
use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bump when [`Stored`] or the encoding of a block change shape.
const FORMAT: u32 = 1;

/// Prompts in a block of the cache: a block is a file of its own, read
/// and decoded by one task, and written once, when it is full. (A few in
/// tests, so that histories of a few lines cross blocks.)
const BLOCK: usize = if cfg!(test) { 3 } else { 4096 };

/// The index, `history.bin`; the blocks are files in `history/`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    format: u32,
    version: String,
    /// Parsing is code too: a rebuilt binary of the same version starts
    /// again.
    binary: (u64, i64),
    /// The redactor's fingerprint: the prompts were redacted by these rules.
    redactor: u64,
    /// By a hash of the file's path (as lossy text).
    files: Vec<(u64, Kept)>,
}

/// What one history file's complete lines gave a build.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Kept {
    seal: Seal,
    /// The prompts of those lines, redacted, in file order: blocks of
    /// [`BLOCK`] (the last one may hold fewer).
    blocks: Vec<Block>,
    /// What redacting them replaced.
    tally: Tally,
    /// What was wrong with those lines.
    skips: Vec<Skip>,
}

/// A block: how many prompts it holds, and the hash of its file's bytes,
/// which names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Block {
    count: u32,
    hash: u64,
}

impl Block {
    fn name(&self) -> String {
        format!("{:016x}.bin", self.hash)
    }
}

/// A prompt as a block holds it: the time as seconds and nanoseconds (a
/// `DateTime` is written as text, and parsing it back cost more than the
/// rest of the prompt).
type Encoded<T> = (i64, u32, T, Option<T>, Option<T>);

/// `entries` written as a block in `dir`, unless it is there already.
/// None when it cannot be written: the next build redacts them again.
fn write_block(dir: &Path, entries: &[HistoryEntry]) -> Option<Block> {
    let rows: Vec<Encoded<&Text>> = entries
        .iter()
        .map(|e| {
            let ts = (e.ts.timestamp(), e.ts.timestamp_subsec_nanos());
            (
                ts.0,
                ts.1,
                &e.display,
                e.project.as_ref(),
                e.session_id.as_ref(),
            )
        })
        .collect();
    let bytes = stored::encode(&rows).ok()?;
    let block = Block {
        count: u32::try_from(entries.len()).ok()?,
        hash: crate::base::hash::hash_bytes(&bytes),
    };
    let path = dir.join(block.name());
    if !path.is_file() && !stored::replace(&path, &bytes) {
        return None;
    }
    Some(block)
}

fn read_block(dir: &Path, block: &Block) -> Option<Vec<HistoryEntry>> {
    let rows: Vec<Encoded<Text>> = stored::read(&dir.join(block.name()))?;
    if rows.len() != block.count as usize {
        return None;
    }
    rows.into_iter()
        .map(|(secs, nanos, display, project, session_id)| {
            Some(HistoryEntry {
                ts: DateTime::<Utc>::from_timestamp(secs, nanos)?,
                display,
                project,
                session_id,
            })
        })
        .collect()
}

/// The history cache of one output directory.
#[derive(Debug, Default)]
pub struct HistoryCache {
    /// The index, when something is remembered (a cache folder, caching on).
    path: Option<PathBuf>,
    /// This binary, as the index records it.
    binary: (u64, i64),
    /// The last build's files, not checked against the redactor yet.
    old: Stored,
    new: Vec<(u64, Kept)>,
    /// Whether this build's files differ from the last build's.
    changed: bool,
}

impl HistoryCache {
    /// The cache for output directory `out`, kept under `root` (else the
    /// user's cache directory).
    pub fn open(out: &Path, root: Option<&Path>) -> HistoryCache {
        let binary = crate::base::dirs::this_binary();
        let fits = |s: &Stored| {
            s.format == FORMAT && s.version == env!("CARGO_PKG_VERSION") && s.binary == binary
        };
        let Some((path, old)) = stored::open_site_file(out, root, "history.bin", fits) else {
            return HistoryCache::default();
        };
        HistoryCache {
            path: Some(path),
            binary,
            old: old.unwrap_or_default(),
            ..HistoryCache::default()
        }
    }

    /// A cache that remembers nothing and saves nothing.
    pub fn disabled() -> HistoryCache {
        HistoryCache::default()
    }

    /// The folder of the blocks.
    fn blocks_dir(&self) -> Option<PathBuf> {
        Some(self.path.as_ref()?.with_file_name("history"))
    }

    /// Where the lines the last build kept of the file at `path` end.
    fn seal(&self, path: &Path) -> Option<Seal> {
        let k = path_key(path);
        let kept = self.old.files.iter().find(|(p, _)| *p == k)?;
        Some(kept.1.seal)
    }

    /// What the last build kept of the file at `path`, if its prompts were
    /// redacted by `redactor`, and those prompts.
    fn take(&mut self, path: &Path, redactor: &Redactor) -> Option<(Kept, Vec<HistoryEntry>)> {
        if self.old.redactor != redactor.fingerprint() {
            return None;
        }
        let dir = self.blocks_dir()?;
        let k = path_key(path);
        let at = self.old.files.iter().position(|(p, _)| *p == k)?;
        let (_, kept) = self.old.files.swap_remove(at);
        let blocks: Vec<Vec<HistoryEntry>> = kept
            .blocks
            .par_iter()
            .map(|b| read_block(&dir, b))
            .collect::<Option<_>>()?;
        let entries = blocks.into_iter().flatten().collect();
        Some((kept, entries))
    }

    /// Remember what the complete lines of the file at `path` gave: the
    /// full blocks the last build kept, and `entries` (every prompt of
    /// those lines, in file order) from there on.
    fn keep(&mut self, path: &Path, mut kept: Kept, entries: &[HistoryEntry], fresh: bool) {
        let Some(dir) = self.blocks_dir() else { return };
        self.changed |= fresh;
        let full = kept
            .blocks
            .iter()
            .take_while(|b| b.count as usize == BLOCK)
            .count();
        kept.blocks.truncate(full);
        let from = (full * BLOCK).min(entries.len());
        if !entries[from..].is_empty() && std::fs::create_dir_all(&dir).is_err() {
            return;
        }
        // A first build writes them all: on every core.
        let written: Option<Vec<Block>> = entries[from..]
            .par_chunks(BLOCK)
            .map(|chunk| write_block(&dir, chunk))
            .collect();
        let Some(written) = written else { return };
        kept.blocks.extend(written);
        self.new.push((path_key(path), kept));
    }

    /// Write the index for the next build, redacted by `redactor`, unless
    /// it would say what it already says, and remove the blocks it no
    /// longer names.
    fn save(self, redactor: &Redactor) {
        let (Some(path), Some(dir)) = (&self.path, self.blocks_dir()) else {
            return;
        };
        let same = !self.changed
            && self.old.files.is_empty()
            && self.old.redactor == redactor.fingerprint();
        if same {
            return;
        }
        let stored = Stored {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            binary: self.binary,
            redactor: redactor.fingerprint(),
            files: self.new,
        };
        if !stored::replace_with(path, &stored) {
            return;
        }
        let named: std::collections::HashSet<String> = stored
            .files
            .iter()
            .flat_map(|(_, k)| k.blocks.iter().map(Block::name))
            .collect();
        for found in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if !named.contains(&*found.file_name().to_string_lossy()) {
                let _ = std::fs::remove_file(found.path());
            }
        }
    }
}

/// How the cache served the history's prompts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PromptStats {
    /// Prompts taken as the last build redacted them.
    pub kept: usize,
    /// Prompts redacted in this build.
    pub redacted: usize,
}

/// Every history file of the sources, read: what identity needs of each,
/// and what is left to redact.
#[derive(Debug, Default)]
pub struct Read {
    files: Vec<(PathBuf, Scan)>,
    cache: HistoryCache,
}

impl Read {
    /// Every project the history names, unredacted, for identity.
    pub fn projects(&self) -> impl Iterator<Item = &str> {
        self.files
            .iter()
            .flat_map(|(_, s)| s.projects.iter().map(String::as_str))
    }
}

/// Read the history file of every root; the lines `cache` says the last
/// build kept only for their projects.
pub fn read(roots: &[Root], cache: HistoryCache) -> Read {
    let files = roots
        .iter()
        .filter_map(|r| r.history.as_ref())
        .map(|path| (path.clone(), scan_history(path, cache.seal(path))))
        .collect();
    Read { files, cache }
}

/// The prompts of every history file, redacted, in time order: those of
/// lines the last build kept taken from the cache, the rest redacted now.
/// What was redacted is added to `tally`, what was wrong to `skips`.
pub fn redact(
    read: Read,
    redactor: &Redactor,
    tally: &mut Tally,
    skips: &mut Vec<Skip>,
    stats: &mut PromptStats,
) -> Vec<HistoryEntry> {
    let Read { files, mut cache } = read;
    let mut all = Vec::new();
    for (path, mut scan) in files {
        let found = if scan.kept {
            cache.take(&path, redactor)
        } else {
            None
        };
        let (mut kept, mut entries) = match found {
            Some(found) => found,
            None => {
                if scan.kept {
                    // Lines kept by other rules: read them in full now.
                    scan = scan_history(&path, None);
                }
                (Kept::default(), Vec::new())
            }
        };
        // A line read in full, or a skip of one, moved the seal.
        let fresh = kept.seal != scan.seal;
        stats.kept += entries.len();
        stats.redacted += scan.lines.len() + usize::from(scan.open.is_some());
        let mut t = Tally::default();
        entries.extend(extract::history(scan.lines, redactor, &mut t));
        kept.tally.add(&t);
        kept.skips.extend(scan.skips);
        kept.seal = scan.seal;
        tally.add(&kept.tally);
        skips.extend(kept.skips.iter().cloned());
        cache.keep(&path, kept, &entries, fresh);
        all.extend(entries);
        if let Some(open) = scan.open {
            all.extend(extract::history(vec![open], redactor, tally));
        }
        skips.extend(scan.passing);
    }
    cache.save(redactor);
    all.sort_by(|a, b| {
        a.ts.cmp(&b.ts)
            .then_with(|| a.display.cmp(&b.display))
            .then_with(|| a.project.cmp(&b.project))
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::redact::RedactConfig;
    use proptest::prelude::*;
    use std::io::Write;

    const HOME: &str = "/home/dana";
    const SECRET: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    fn redactor(extra: bool) -> Redactor {
        Redactor::new(&RedactConfig {
            home_dirs: vec![HOME.into()],
            usernames: vec!["dana".into()],
            real_names: Vec::new(),
            extra_patterns: if extra {
                vec![("word".into(), "plain".into())]
            } else {
                Vec::new()
            },
        })
        .expect("redactor")
    }

    /// A history line of one of several shapes: prompts that name the
    /// home, hold a key, lack a time or a project, and lines that are not
    /// JSON at all.
    fn line(kind: u8, n: u32) -> String {
        let ts = 1_700_000_000_000u64 + u64::from(n % 7) * 1000;
        match kind % 6 {
            0 => format!(
                r#"{{"display":"look at {HOME}/code/app/{n}.rs","timestamp":{ts},"project":"{HOME}/code/app","sessionId":"s{n}"}}"#
            ),
            1 => format!(r#"{{"display":"key {SECRET} {n}","timestamp":{ts},"project":"/srv/x"}}"#),
            2 => format!(r#"{{"display":"no time {n}","project":"{HOME}/p"}}"#),
            3 => format!("not json {n}"),
            4 => format!(
                r#"{{"display":"plain words {n}","timestamp":"2026-01-02T03:04:05.123456789Z"}}"#
            ),
            _ => format!(
                r#"{{"display":"same time","timestamp":{ts},"project":"/srv/y","sessionId":"t"}}"#
            ),
        }
    }

    #[derive(Debug, Clone)]
    enum Step {
        /// Lines added at the end, the last one maybe without its newline.
        Append(Vec<u8>, bool),
        /// The file written anew: its first lines kept, then others.
        Rewrite(usize, Vec<u8>),
        /// Other redaction rules.
        Rules,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (proptest::collection::vec(0u8..6, 0..9), any::<bool>())
                .prop_map(|(k, open)| Step::Append(k, open)),
            1 => (0usize..12, proptest::collection::vec(0u8..6, 0..6))
                .prop_map(|(keep, k)| Step::Rewrite(keep, k)),
            1 => Just(Step::Rules),
        ]
    }

    /// What a build makes of the history: the prompts, counts and skips.
    fn build(
        roots: &[Root],
        cache: HistoryCache,
        red: &Redactor,
    ) -> (Vec<HistoryEntry>, Tally, Vec<Skip>, Vec<String>) {
        let read = read(roots, cache);
        let projects = read.projects().map(str::to_string).collect();
        let mut tally = Tally::default();
        let mut skips = Vec::new();
        let got = redact(
            read,
            red,
            &mut tally,
            &mut skips,
            &mut PromptStats::default(),
        );
        (got, tally, skips, projects)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Through any run of builds, as the history grows, is cut off
        /// mid-line, rewritten or redacted by other rules, a build that
        /// keeps what the last one redacted makes exactly what a build
        /// that remembers nothing makes, and what it keeps holds neither
        /// the home nor the key.
        #[test]
        fn a_kept_history_is_the_history_read_anew(steps in proptest::collection::vec(step(), 1..8)) {
            let data = tempfile::tempdir().expect("tempdir");
            let caches = tempfile::tempdir().expect("tempdir");
            let out = data.path().join("site");
            let path = data.path().join("history.jsonl");
            std::fs::write(&path, "").expect("write");
            let roots = vec![Root { history: Some(path.clone()), ..Root::default() }];
            let mut lines: Vec<String> = Vec::new();
            let mut open = false;
            let mut extra = false;
            let mut n = 0u32;
            for step in steps {
                match step {
                    Step::Append(kinds, unterminated) => {
                        let mut f = std::fs::OpenOptions::new().append(true).open(&path).expect("open");
                        if open {
                            // The line cut off last time is finished.
                            writeln!(f).expect("write");
                        }
                        let count = kinds.len();
                        for (i, k) in kinds.into_iter().enumerate() {
                            n += 1;
                            let text = line(k, n);
                            let last = i + 1 == count;
                            if last && unterminated {
                                write!(f, "{text}").expect("write");
                            } else {
                                writeln!(f, "{text}").expect("write");
                            }
                            lines.push(text);
                        }
                        open = unterminated && count > 0;
                    }
                    Step::Rewrite(keep, kinds) => {
                        lines.truncate(keep);
                        for k in kinds {
                            n += 1;
                            lines.push(line(k, n));
                        }
                        let mut all = lines.join("\n");
                        if !lines.is_empty() {
                            all.push('\n');
                        }
                        std::fs::write(&path, all).expect("write");
                        open = false;
                    }
                    Step::Rules => extra = !extra,
                }
                let red = redactor(extra);
                let kept = build(&roots, HistoryCache::open(&out, Some(caches.path())), &red);
                let fresh = build(&roots, HistoryCache::disabled(), &red);
                prop_assert_eq!(&kept, &fresh);
                let bad = lines
                    .iter()
                    .filter(|l| l.starts_with("not json") || l.contains("no time"))
                    .count();
                prop_assert_eq!(fresh.0.len(), lines.len() - bad);
                prop_assert_eq!(fresh.2.len(), bad);
                for file in walkdir::WalkDir::new(caches.path()).into_iter().flatten() {
                    if file.file_type().is_file() {
                        let bytes = std::fs::read(file.path()).expect("read");
                        for planted in [HOME, SECRET] {
                            prop_assert!(
                                memchr::memmem::find(&bytes, planted.as_bytes()).is_none(),
                                "{} holds {planted}", file.path().display()
                            );
                        }
                    }
                }
            }
        }
    }

    /// A build after a line was added reads the lines the last build kept
    /// only for their projects, and redacts the new one alone.
    #[test]
    fn a_grown_history_is_read_from_where_it_grew() {
        let data = tempfile::tempdir().expect("tempdir");
        let caches = tempfile::tempdir().expect("tempdir");
        let out = data.path().join("site");
        let path = data.path().join("history.jsonl");
        let mut text: String = (0..10).map(|n| line(0, n) + "\n").collect();
        std::fs::write(&path, &text).expect("write");
        let roots = vec![Root {
            history: Some(path.clone()),
            ..Root::default()
        }];
        let red = redactor(false);
        let first = build(&roots, HistoryCache::open(&out, Some(caches.path())), &red);
        assert_eq!(first.0.len(), 10);
        // A line cut off, as a writer at work leaves it, is read but not kept.
        text.push_str(&line(4, 10));
        std::fs::write(&path, &text).expect("write");
        let cut = build(&roots, HistoryCache::open(&out, Some(caches.path())), &red);
        assert_eq!(cut.0.len(), 11);
        text.push('\n');
        std::fs::write(&path, &text).expect("write");
        let cache = HistoryCache::open(&out, Some(caches.path()));
        let sealed = cache.seal(&path).expect("sealed");
        let scan = scan_history(&path, Some(sealed));
        assert!(scan.kept);
        assert_eq!(scan.lines.len(), 1);
        assert_eq!(
            scan.projects.iter().collect::<Vec<_>>(),
            [&format!("{HOME}/code/app")]
        );
        let second = build(&roots, cache, &red);
        assert_eq!(second.0.len(), 11);
        // Four blocks of three: three full ones kept, the last one new.
        let index: Stored = stored::read(
            &caches
                .path()
                .join(crate::base::dirs::site_key(&out))
                .join("history.bin"),
        )
        .expect("index");
        let blocks = &index.files[0].1.blocks;
        assert_eq!(
            blocks.iter().map(|b| b.count).collect::<Vec<_>>(),
            [3, 3, 3, 2]
        );
    }
}
