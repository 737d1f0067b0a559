//! The incremental cache, kept in the user's cache directory
//! (`$CCWIKI_CACHE_DIR`, else `$XDG_CACHE_HOME/ccwiki`, else `~/.cache/ccwiki`),
//! one folder per output directory. Not beside the output: ccwiki writes
//! only inside `--out`. It holds only redacted text (what extraction
//! produced), tagged with the redactor's fingerprint: new rules, a new
//! identity or `--no-redact` make it start again.
//!
//! For each transcript it keeps the file's identity (size, modification
//! time, inode, a hash of its first 4 KB) and the reader's state after the
//! last complete line. On the next build an unchanged file is not read at
//! all, a file that only grew is read from where the last build stopped,
//! and anything else is read again from the start. For each page it keeps a
//! hash of the bytes written, so that unchanged pages are hard-linked from
//! the previous site (keeping their modification time) instead of rewritten.
//!
//! The cache is an optimisation only: a missing, unreadable or outdated
//! cache means a cold build, never an error.

use crate::base::skip::Skip;
use crate::base::stored;
use crate::knowledge::extract::{FileDigest, ReaderState};
use crate::knowledge::pack::{Packs, Slot};
use crate::knowledge::redact::Redactor;
use crate::source::discover::TranscriptFile;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bump when the cached structures change shape.
const FORMAT: u32 = 8;
const PROBE: u64 = 4096;

use crate::base::hash::hash_bytes;

/// What identifies a file's content without reading it all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Identity {
    size: u64,
    modified: (i64, u32),
    inode: u64,
    head: u64,
}

/// A transcript's identity: its size, time and inode as discovery saw
/// them (not looked at again), and a hash of its first bytes.
fn identity(tf: &TranscriptFile) -> Option<Identity> {
    let mut f = std::fs::File::open(&tf.path).ok()?;
    Some(identity_with(tf, hash_at(&mut f, 0, PROBE.min(tf.size))?))
}

fn identity_with(tf: &TranscriptFile, head: u64) -> Identity {
    let ns = tf.stamp.mtime;
    Identity {
        size: tf.size,
        modified: (
            ns.div_euclid(1_000_000_000),
            ns.rem_euclid(1_000_000_000) as u32,
        ),
        inode: tf.stamp.inode,
        head,
    }
}

/// What a file's entry records once it has been read up to `pos`: its
/// identity and a hash of the bytes before `pos`, with one opening of the
/// file (a hundred thousand small files were opened three times each).
fn sealed(tf: &TranscriptFile, pos: u64) -> Option<(Identity, u64)> {
    let mut f = std::fs::File::open(&tf.path).ok()?;
    let head_len = PROBE.min(tf.size);
    let head = hash_at(&mut f, 0, head_len)?;
    // A small file read to its end: the same bytes twice.
    let tail = if pos == head_len && pos <= PROBE {
        head
    } else {
        hash_at(&mut f, pos.saturating_sub(PROBE), pos.min(PROBE))?
    };
    Some((identity_with(tf, head), tail))
}

fn hash_range(path: &Path, start: u64, len: u64) -> Option<u64> {
    hash_at(&mut std::fs::File::open(path).ok()?, start, len)
}

fn hash_at(f: &mut std::fs::File, start: u64, len: u64) -> Option<u64> {
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = vec![0u8; usize::try_from(len).ok()?];
    f.read_exact(&mut buf).ok()?;
    Some(hash_bytes(&buf))
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    identity: Identity,
    /// Hash of the 4 KB before the read position: proves the file only grew.
    tail: u64,
    /// Where the reader's state is, encoded, in the packs under `states/`.
    /// Kept on disk, not in memory: the cache costs no memory while building.
    state: Slot,
    /// The skip for an incomplete last line, not part of the state.
    tail_skip: Option<Skip>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    format: u32,
    version: String,
    /// The redactor's fingerprint: cached text was redacted by these rules.
    redactor: u64,
    /// By path; hashed, not ordered: a hundred thousand paths compared
    /// component by component were a noticeable part of a build.
    files: HashMap<PathBuf, Entry>,
}

/// How the cache served one build.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    /// Transcripts not read at all.
    pub reused: usize,
    /// Transcripts read only from where the last build stopped.
    pub resumed: usize,
    /// Transcripts read from the start.
    pub read: usize,
}

/// The cache of one output directory.
#[derive(Debug, Default)]
pub struct Cache {
    /// `cache.bin`, the index; None when the cache is disabled.
    path: Option<PathBuf>,
    /// The packs of reader states, in the `states/` folder beside it.
    packs: Packs,
    old: Stored,
    new: Stored,
    pub stats: CacheStats,
}

impl Cache {
    /// The cache for output directory `out`, kept under `root` (else the
    /// user's cache directory), or an empty one.
    /// Entries made with other redaction rules are dropped: the cache holds
    /// only text redacted by `redactor`.
    pub fn open(out: &Path, root: Option<&Path>, redactor: &Redactor) -> Cache {
        let Some(dir) = crate::base::dirs::site_cache_dir(out, root) else {
            return Cache::disabled();
        };
        let path = dir.join("cache.bin");
        let old = stored::read::<Stored>(&path)
            .filter(|s| {
                s.format == FORMAT
                    && s.version == env!("CARGO_PKG_VERSION")
                    && s.redactor == redactor.fingerprint()
            })
            .unwrap_or_default();
        Cache {
            path: Some(path),
            packs: Packs::new(dir.join("states")),
            old,
            new: Stored {
                redactor: redactor.fingerprint(),
                ..Stored::default()
            },
            stats: CacheStats::default(),
        }
    }

    /// A cache that remembers nothing and saves nothing.
    pub fn disabled() -> Cache {
        Cache::default()
    }

    fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Read `tf` with whatever the cache knows of it. Safe to call from many
    /// threads; the caller hands the returned entry back with [`Cache::keep`].
    pub fn read(
        &self,
        root: usize,
        tf: &TranscriptFile,
        r: &Redactor,
    ) -> (FileDigest, Option<CachedFile>, Served) {
        if !self.enabled() {
            return (
                crate::knowledge::extract::read_transcript(root, tf, r),
                None,
                Served::Read,
            );
        }
        let old = self.old.files.get(&tf.path);
        // Only worth its opening of the file when there is something to
        // compare it with.
        let identity = old.and_then(|_| identity(tf));
        let decode = |e: &Entry| {
            self.packs
                .read(&e.state)
                .and_then(|bytes| stored::decode::<ReaderState>(&bytes))
        };
        if let (Some(id), Some(e)) = (&identity, old) {
            if *id == e.identity {
                if let Some(mut state) = decode(e) {
                    state.digest.root = root;
                    let digest = state.into_digest(tf, e.tail_skip.clone(), r);
                    let kept = CachedFile(tf.path.clone(), e.clone());
                    return (digest, Some(kept), Served::Reused);
                }
            }
            let grew = id.size > e.identity.size
                && id.inode == e.identity.inode
                && id.head == e.identity.head;
            if grew {
                if let Some(mut state) = decode(e) {
                    let pos = state.position.0;
                    let tail_ok = hash_range(&tf.path, pos.saturating_sub(PROBE), pos.min(PROBE))
                        == Some(e.tail);
                    if tail_ok {
                        state.digest.root = root;
                        let tail = state.read(tf, r);
                        return self.finish(tf, state, tail, Served::Resumed, r);
                    }
                }
            }
        }
        let (state, tail) = crate::knowledge::extract::read_fresh(
            root,
            tf,
            crate::knowledge::extract::PIECE_BYTES,
            r,
        );
        self.finish(tf, state, tail, Served::Read, r)
    }

    fn finish(
        &self,
        tf: &TranscriptFile,
        state: ReaderState,
        tail_skip: Option<Skip>,
        served: Served,
        r: &Redactor,
    ) -> (FileDigest, Option<CachedFile>, Served) {
        let pos = state.position.0;
        // Appended to this build's pack: the previous build's states stay
        // valid until the new index replaces the old one.
        let slot = self.packs.append_value(&state);
        let entry = match (slot, sealed(tf, pos)) {
            (Some(slot), Some((identity, tail))) => Some(Entry {
                identity,
                tail,
                state: slot,
                tail_skip: tail_skip.clone(),
            }),
            _ => None,
        };
        let digest = state.into_digest(tf, tail_skip, r);
        (
            digest,
            entry.map(|e| CachedFile(tf.path.clone(), e)),
            served,
        )
    }

    /// Keep a file's entry for the next build, and count how it was served.
    pub fn keep(&mut self, file: Option<CachedFile>, served: Served) {
        match served {
            Served::Reused => self.stats.reused += 1,
            Served::Resumed => self.stats.resumed += 1,
            Served::Read => self.stats.read += 1,
        }
        if let Some(CachedFile(path, entry)) = file {
            self.new.files.insert(path, entry);
        }
    }

    /// Write the cache for the next build. Failure only costs speed next time.
    pub fn save(mut self) {
        let Some(path) = self.path.take() else { return };
        self.new.format = FORMAT;
        self.new.version = env!("CARGO_PKG_VERSION").to_string();
        self.compact();
        if !self.packs.flush() {
            return;
        }
        let Ok(bytes) = stored::encode(&self.new) else {
            return;
        };
        if stored::replace(&path, &bytes) {
            // Packs no entry refers to any more: files gone, or superseded.
            let live: std::collections::HashSet<&str> = self
                .new
                .files
                .values()
                .map(|e| e.state.pack.as_str())
                .collect();
            self.packs.keep_only(&live);
        }
    }

    /// Copy the live states into this build's pack when the packs hold
    /// more dead states (superseded by later builds) than live ones, or
    /// when there are many packs: what a long `serve` session leaves.
    fn compact(&mut self) {
        let mut live: BTreeMap<&str, u64> = BTreeMap::new();
        for e in self.new.files.values() {
            *live.entry(e.state.pack.as_str()).or_default() += e.state.len;
        }
        let on_disk: u64 = live.keys().map(|p| self.packs.size(p)).sum();
        let used: u64 = live.values().sum();
        if live.len() <= MAX_PACKS && used.saturating_mul(2) >= on_disk {
            return;
        }
        let packs = &self.packs;
        // A state unreadable now is dropped: its file is read again next time.
        self.new.files.retain(
            |_, e| match packs.read(&e.state).and_then(|b| packs.append(&b)) {
                Some(slot) => {
                    e.state = slot;
                    true
                }
                None => false,
            },
        );
    }
}

/// More packs than this are merged into one.
const MAX_PACKS: usize = 8;

/// How a transcript was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    Reused,
    Resumed,
    Read,
}

/// A file's cache entry on its way back to the cache.
#[derive(Debug)]
pub struct CachedFile(PathBuf, Entry);
