//! What each memory file gave the last build (the memory, redacted, and
//! what was wrong with it), kept in the site's cache folder as
//! `memories.bin`. A file with the length and stamp the last build saw,
//! named by the same index line, is neither read, parsed
//! nor redacted again: ten thousand memory files took 60 ms to triage, the
//! largest part of a rebuild after one of them changed. Like the rest of
//! the cache it holds only redacted text, tagged with the redactor's
//! fingerprint, and losing it only costs one full triage.

use super::Outcome;
use crate::base::hash::hash_bytes;
use crate::base::stored;
use crate::knowledge::redact::Redactor;
use crate::source::discover::{MemoryFile, Stamp};
use crate::source::memory::IndexEntry;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bump when [`Outcome`] or [`Entry`] change shape.
const FORMAT: u32 = 2;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    header: Header,
    /// By a hash of the path (as lossy text). Two paths with one hash
    /// would also need the same length, time and inode to be mistaken.
    files: Vec<(u64, Entry)>,
}

/// What the entries were made by.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Header {
    format: u32,
    version: String,
    /// Parsing is code too: a rebuilt binary of the same version starts
    /// again.
    binary: (u64, i64),
    /// The redactor's fingerprint: cached text was redacted by these rules.
    redactor: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Length and stamp (modification and status change times, inode), as
    /// the walk saw them: what the no-op check compares too.
    seen: (u64, Stamp),
    /// [`index_line`] of the index entry that named the file.
    index_line: u64,
    outcome: Outcome,
}

/// An [`Entry`] of an outcome this build hands on: encoded as an `Entry`
/// is, with no copy of the outcome made for it.
#[derive(Serialize)]
struct KeptEntry<'a> {
    seen: (u64, Stamp),
    index_line: u64,
    outcome: &'a Outcome,
}

/// The triage cache of one output directory.
#[derive(Debug, Default)]
pub struct TriageCache {
    /// None when nothing is remembered (no cache folder, or caching off).
    path: Option<PathBuf>,
    /// The last build's entries, as decoded: moving ten thousand of them
    /// (280 bytes each) into a map by key was a part of every rebuild.
    old: Vec<(u64, Entry)>,
    /// Where in `old` the entry of each key not taken yet is.
    old_at: FxHashMap<u64, usize>,
    header: Header,
    /// This build's entries, each encoded as it is kept, as postcard
    /// encodes the items of [`Stored::files`] (a varint count before them
    /// makes the list): copying ten thousand outcomes to encode them at
    /// the end took 6-8 ms of a rebuild after one memory changed. Each is
    /// encoded where its outcome is made ([`TriageCache::encode`], on
    /// every core), and only its bytes appended here in order.
    kept: Vec<u8>,
    kept_count: usize,
    /// Whether this build's entries differ from the last build's: when
    /// not, the file already says it all and is not written again.
    changed: bool,
}

/// What of a file's index entry shapes its memory (title and hook stand in
/// for missing frontmatter); 0 for a file the index does not name.
pub fn index_line(entry: Option<&IndexEntry>) -> u64 {
    entry.map_or(0, |e| {
        let parts = [e.title.as_bytes(), e.target.as_bytes(), e.hook.as_bytes()];
        hash_bytes(&parts.join(&0u8)) | 1
    })
}

fn seen(file: &MemoryFile) -> (u64, Stamp) {
    (file.size, file.stamp)
}

fn key(file: &MemoryFile) -> u64 {
    crate::base::hash::path_key(&file.path)
}

/// One entry of this build, encoded by [`TriageCache::encode`] (None if
/// it could not be).
pub struct Encoded(Option<Vec<u8>>);

/// What the last build left in `memories.bin`, read but not yet checked
/// against this build's redactor ([`TriageCache::open`]): read while
/// the data directory is walked, since decoding ten thousand memories
/// (2.3 MB) took 13 ms of a rebuild after one of them changed.
pub struct ReadCache(Option<(PathBuf, Option<Stored>)>);

impl TriageCache {
    /// Read the cache for output directory `out`, kept under `root` (else
    /// the user's cache directory), for [`TriageCache::open`].
    pub fn read(out: &Path, root: Option<&Path>) -> ReadCache {
        ReadCache(stored::open_site_file(out, root, "memories.bin", |_| true))
    }

    /// The cache [`TriageCache::read`] read. What other rules than
    /// `redactor`'s redacted is dropped.
    pub fn open(read: ReadCache, redactor: &Redactor) -> TriageCache {
        let fingerprint = redactor.fingerprint();
        let binary = crate::base::dirs::this_binary();
        let header = Header {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            binary,
            redactor: fingerprint,
        };
        let Some((path, old)) = read.0 else {
            return TriageCache::disabled();
        };
        let old = (old.filter(|s| s.header == header))
            .map(|s| s.files)
            .unwrap_or_default();
        let old_at = (old.iter().enumerate())
            .map(|(at, (key, _))| (*key, at))
            .collect();
        TriageCache {
            path: Some(path),
            // An empty cache and no memory files: nothing to write.
            changed: false,
            old,
            old_at,
            header,
            kept: Vec::new(),
            kept_count: 0,
        }
    }

    /// A cache that remembers nothing and saves nothing.
    pub fn disabled() -> TriageCache {
        TriageCache::default()
    }

    /// What `file` gave the last build, taken out of the cache, if it is
    /// still what that build saw and the same index line names it.
    pub fn take(&mut self, file: &MemoryFile, index_line: u64) -> Option<Outcome> {
        let found = (self.old_at.remove(&key(file)))
            .map(|at| &mut self.old[at].1)
            .filter(|e| e.seen == seen(file) && e.index_line == index_line)
            .map(|e| std::mem::take(&mut e.outcome));
        self.changed |= found.is_none();
        found
    }

    /// What [`TriageCache::keep`] keeps of what `file` gave this build:
    /// its entry encoded, or None when nothing is to be kept. A file that
    /// could not be read (no memory, a warning) is not kept: what stopped
    /// it (a folder's permissions, say) may go away without changing its
    /// stamp.
    pub fn encode(&self, file: &MemoryFile, index_line: u64, outcome: &Outcome) -> Option<Encoded> {
        let unread = outcome.memory.is_none() && outcome.skip.is_some();
        if self.path.is_none() || unread {
            return None;
        }
        let entry = KeptEntry {
            seen: seen(file),
            index_line,
            outcome,
        };
        let mut bytes = Vec::new();
        // Failed: kept as a failure, and the cache not written (the next
        // build triages from nothing).
        let done = stored::encode_into(&(key(file), entry), &mut bytes);
        Some(Encoded(done.ok().map(|_| bytes)))
    }

    /// Remember an entry [`TriageCache::encode`] made, after the ones kept
    /// before it.
    pub fn keep(&mut self, encoded: Option<Encoded>) {
        match encoded {
            None => {}
            Some(Encoded(Some(bytes))) => {
                self.kept.extend_from_slice(&bytes);
                self.kept_count += 1;
            }
            Some(Encoded(None)) => self.path = None,
        }
    }

    /// The bytes of the cache file: what [`stored::encode`] makes of a
    /// [`Stored`] of the kept entries.
    fn encoded(&self) -> Option<Vec<u8>> {
        let mut bytes = Vec::with_capacity(self.kept.len() + 64);
        stored::encode_into(&self.header, &mut bytes).ok()?;
        stored::encode_into(&self.kept_count, &mut bytes).ok()?;
        bytes.extend_from_slice(&self.kept);
        stored::seal(&mut bytes);
        Some(bytes)
    }

    /// Write the cache for the next build, unless it would say what it
    /// already says; false when it could not be written. Failure only
    /// costs a full triage next time.
    pub fn save(self) -> bool {
        let Some(path) = &self.path else { return true };
        // Files gone since the last build are left in `old_at`.
        if !self.changed && self.old_at.is_empty() {
            return true;
        }
        self.encoded()
            .is_some_and(|bytes| stored::replace(path, &bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{triage, Triaged};
    use super::*;
    use crate::knowledge::redact::RedactConfig;
    use crate::source::discover::{discover, MemoryDir, Root};
    use std::fs;
    use std::time::{Duration, SystemTime};

    /// Everything triage hands on, as text (a memory's root and file too).
    fn shown(t: &Triaged) -> String {
        format!("{:?}\n{:?}\n{:?}", t.memories, t.skips, t.tally)
    }

    /// Triage `src` with the cache kept in `cache_dir`; and without one.
    fn both(src: &Path, cache_dir: &Path, r: &Redactor) -> (String, String) {
        let roots = discover(&[src.to_path_buf()]).unwrap().roots;
        let out = src.join("site");
        let mut cache = TriageCache::open(TriageCache::read(&out, Some(cache_dir)), r);
        let cached = triage(&roots, r, &mut cache);
        cache.save();
        let fresh = triage(&roots, r, &mut TriageCache::disabled());
        (shown(&cached), shown(&fresh))
    }

    /// The cache file of the site `src/site`, kept under `cache_dir`.
    fn cache_file(src: &Path, cache_dir: &Path) -> PathBuf {
        crate::base::dirs::site_cache_dir(&src.join("site"), Some(cache_dir))
            .unwrap()
            .join("memories.bin")
    }

    fn redactor(user: &str) -> Redactor {
        Redactor::new(&RedactConfig {
            home_dirs: vec![format!("/home/{user}")],
            usernames: vec![user.to_string()],
            ..RedactConfig::default()
        })
        .unwrap()
    }

    /// A file's new text, with a time of its own: an editor's save, not
    /// two writes within one tick of the clock (which the stamp, like
    /// make's, cannot tell apart).
    fn edit(path: &Path, text: &str, tick: &mut u64) {
        fs::write(path, text).unwrap();
        *tick += 1;
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + *tick);
        fs::File::options()
            .append(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    fn memory_text(n: u8, kind: u8) -> String {
        match kind % 4 {
            0 => format!("---\nname: Note {n}\ndescription: about {n}\ntype: feedback\n---\nSee /home/dana/x{n} and dana.\n"),
            1 => format!("No frontmatter, note {n}, by dana.\n"),
            2 => format!("---\nname: hidden {n}\nprivate: true\n---\nsecret\n"),
            _ => format!("---\n[broken {n}\n---\nBody {n}.\n"),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Whatever happens to the memory files and their index between
        /// builds, a triage that takes what it can from the cache gives
        /// what a triage from nothing gives.
        #[test]
        fn a_cached_triage_is_a_fresh_one(
            steps in proptest::collection::vec((0u8..6, 0u8..8, 0u8..8), 1..12)
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let src = tmp.path().join("claude");
            let mem = src.join("projects/-home-dana-p/memory");
            fs::create_dir_all(&mem).unwrap();
            let cache_dir = tmp.path().join("cache");
            let r = redactor("dana");
            let mut tick = 0;
            for n in 0..4u8 {
                edit(&mem.join(format!("n{n}.md")), &memory_text(n, 0), &mut tick);
            }
            let index = |hooks: u8| {
                (0..8u8)
                    .map(|n| format!("- [Title {n}](n{n}.md) — hook {n} v{hooks}\n"))
                    .collect::<String>()
            };
            edit(&mem.join("MEMORY.md"), &index(0), &mut tick);
            let (cached, fresh) = both(&src, &cache_dir, &r);
            proptest::prop_assert_eq!(cached, fresh);
            for (op, n, kind) in steps {
                let file = mem.join(format!("n{n}.md"));
                match op {
                    0 | 1 => edit(&file, &memory_text(n, kind), &mut tick),
                    2 => {
                        let _ = fs::remove_file(&file);
                    }
                    3 => edit(&mem.join("MEMORY.md"), &index(kind), &mut tick),
                    // Renamed: the same stamp under another name.
                    4 => {
                        let _ = fs::rename(&file, mem.join(format!("n{}.md", (n + 1) % 8)));
                    }
                    _ => {}
                }
                let (cached, fresh) = both(&src, &cache_dir, &r);
                proptest::prop_assert_eq!(cached, fresh);
            }
            // Other rules: nothing redacted by the old ones is taken.
            let (cached, fresh) = both(&src, &cache_dir, &redactor("other"));
            proptest::prop_assert_eq!(cached, fresh);
        }
    }

    /// The entries are encoded one by one as they are kept: the file is
    /// still what encoding the whole list at once gives.
    #[test]
    fn kept_entries_are_encoded_as_the_stored_list_is() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("claude");
        let mem = src.join("projects/-home-dana-p/memory");
        fs::create_dir_all(&mem).unwrap();
        let mut tick = 0;
        for n in 0..4 {
            edit(&mem.join(format!("n{n}.md")), &memory_text(n, n), &mut tick);
        }
        let cache_dir = tmp.path().join("cache");
        let r = redactor("dana");
        let roots = discover(std::slice::from_ref(&src)).unwrap().roots;
        let mut cache =
            TriageCache::open(TriageCache::read(&src.join("site"), Some(&cache_dir)), &r);
        let triaged = triage(&roots, &r, &mut cache);
        cache.save();
        let written = fs::read(cache_file(&src, &cache_dir)).unwrap();
        let whole: Stored = stored::decode(&written).unwrap();
        assert_eq!(whole.files.len(), 4, "{:?}", triaged.skips);
        assert_eq!(whole.header.redactor, r.fingerprint());
        assert_eq!(stored::encode(&whole).unwrap(), written);
    }

    #[test]
    fn a_file_that_could_not_be_read_is_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = MemoryDir {
            project_dir: "-p".into(),
            path: tmp.path().to_path_buf(),
            ..MemoryDir::default()
        };
        // The stamp as the walk saw it; the file not readable then.
        let file = MemoryFile {
            path: tmp.path().join("a.md"),
            size: 5,
            ..MemoryFile::default()
        };
        let roots = [Root {
            memory_dirs: vec![MemoryDir {
                files: vec![file],
                ..dir
            }],
            ..Root::default()
        }];
        let r = Redactor::disabled();
        let cache_dir = tmp.path().join("cache");
        let run = || {
            let mut cache = TriageCache::open(
                TriageCache::read(&tmp.path().join("site"), Some(&cache_dir)),
                &r,
            );
            let t = triage(&roots, &r, &mut cache);
            cache.save();
            t
        };
        let first = run();
        assert!(first.memories.is_empty() && first.skips.len() == 1);
        // Readable now, its stamp the same.
        fs::write(tmp.path().join("a.md"), "hello").unwrap();
        let second = run();
        assert_eq!(second.memories.len(), 1, "{:?}", second.skips);
        assert!(second.skips.is_empty());
    }

    // The cache file's inode tells whether it was written again.
    #[cfg(unix)]
    #[test]
    fn taken_whole_and_written_only_when_something_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("claude");
        let mem = src.join("projects/-home-dana-p/memory");
        fs::create_dir_all(&mem).unwrap();
        let mut tick = 0;
        for n in 0..3 {
            edit(&mem.join(format!("n{n}.md")), &memory_text(n, 0), &mut tick);
        }
        let cache_dir = tmp.path().join("cache");
        let r = redactor("dana");
        let stored = || {
            let meta = fs::metadata(cache_file(&src, &cache_dir)).unwrap();
            (meta.len(), std::os::unix::fs::MetadataExt::ino(&meta))
        };
        let roots = || discover(std::slice::from_ref(&src)).unwrap().roots;
        let run = |roots: &[Root]| {
            let mut cache =
                TriageCache::open(TriageCache::read(&src.join("site"), Some(&cache_dir)), &r);
            let t = triage(roots, &r, &mut cache);
            let changed = cache.changed || !cache.old_at.is_empty();
            cache.save();
            (t, changed)
        };
        let (first, changed) = run(&roots());
        assert!(changed && first.memories.len() == 3);
        let written = stored();
        // Nothing changed: every file taken from the cache, which is
        // left as it was.
        let (again, changed) = run(&roots());
        assert!(!changed);
        assert_eq!(shown(&again), shown(&first));
        assert_eq!(stored(), written);
        // A file gone: the cache is written without it.
        fs::remove_file(mem.join("n2.md")).unwrap();
        let (fewer, changed) = run(&roots());
        assert!(changed && fewer.memories.len() == 2);
        assert_ne!(stored(), written);
        // The home folder was redacted, and is still redacted when taken
        // from the cache.
        assert!(fewer.memories.iter().all(|m| !m.body.contains("dana")));
    }
}
