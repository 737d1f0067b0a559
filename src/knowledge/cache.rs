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
//! and anything else is read again from the start. The state's turns are
//! kept apart from it, in the chunks the build reads them back from (see
//! `spill`): an unchanged file's turns are checked against their hashes,
//! never decoded or written again. For each page it keeps a
//! hash of the bytes written, so that unchanged pages are hard-linked from
//! the previous site (keeping their modification time) instead of rewritten.
//!
//! The cache is an optimisation only: a missing, unreadable or outdated
//! cache means a cold build, never an error.

use crate::base::skip::Skip;
use crate::base::stored;
use crate::knowledge::extract::{FileDigest, ReaderState, Shelved};
use crate::knowledge::pack::{Packs, Slot};
use crate::knowledge::redact::Redactor;
use crate::knowledge::spill::{chunk_intact, Chunk, Copies, Spill};
use crate::source::discover::TranscriptFile;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bump when the cached structures change shape, or what extraction
/// derives into them does (12: where a session ended skips a rule).
const FORMAT: u32 = 12;
const PROBE: u64 = crate::source::discover::HEAD_HASHED;

use crate::base::hash::{hash_bytes, path_key};

/// What identifies a file's content without reading it all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Identity {
    size: u64,
    modified: (i64, u32),
    inode: u64,
    head: u64,
}

/// A transcript's identity: its size, time and inode as discovery saw
/// them (not looked at again), and a hash of its first bytes (as the
/// build first read them, else read now).
fn identity(tf: &TranscriptFile) -> Option<Identity> {
    let head = head_of(tf, |start, len| hash_range(&tf.path, start, len))?;
    Some(identity_with(tf, head))
}

/// The hash of `tf`'s first bytes: as the build first read them, else
/// made now with `hash(start, len)`.
fn head_of(tf: &TranscriptFile, hash: impl FnOnce(u64, u64) -> Option<u64>) -> Option<u64> {
    match tf.head.get() {
        Some(&head) => Some(head),
        None => hash(0, PROBE.min(tf.size)),
    }
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
/// identity and a hash of the bytes before `pos`, with at most one opening
/// of the file (a hundred thousand small files were opened three times
/// each): its first bytes were hashed when the build first read them, and
/// a small file read to its end has no other bytes.
fn sealed(tf: &TranscriptFile, pos: u64) -> Option<(Identity, u64)> {
    let mut file = None;
    let mut hash = |start: u64, len: u64| {
        if file.is_none() {
            file = Some(std::fs::File::open(&tf.path).ok()?);
        }
        hash_at(file.as_mut()?, start, len)
    };
    let head_len = PROBE.min(tf.size);
    let head = head_of(tf, &mut hash)?;
    // A small file read to its end: the same bytes twice.
    let tail = if pos == head_len && pos <= PROBE {
        head
    } else {
        hash(pos.saturating_sub(PROBE), pos.min(PROBE))?
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
    /// Where the state's turns are: chunks (see `spill::Chunk`) one after
    /// another, in the same pack.
    turns: Slot,
    /// The skip for an incomplete last line, not part of the state
    /// (boxed: rare, and as large as the rest of the entry).
    tail_skip: Option<Box<Skip>>,
}

/// The index, as read (`F` is [`Found`]) and as written ([`Written`]):
/// the same bytes either way.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored<F> {
    format: u32,
    version: String,
    /// The redactor's fingerprint: cached text was redacted by these rules.
    redactor: u64,
    files: F,
}

/// The last build's entries, by a hash of their path ([`path_key`]): a
/// hundred thousand paths compared component by component were a
/// noticeable part of a build, and held as keys, 10 MB of a rebuild's
/// peak. Two paths with one hash would only make one of them miss: an
/// entry is used only for a file whose identity it matches.
#[derive(Debug, Default)]
struct Found(HashMap<u64, Entry>);

/// [`path_key`] of a path as the index stores it (its lossy text).
fn str_key(path: &str) -> u64 {
    hash_bytes(path.as_bytes())
}

impl<'de> Deserialize<'de> for Found {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Found;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of paths to cache entries")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Found, A::Error> {
                let mut found = HashMap::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((path, entry)) =
                    map.next_entry::<std::borrow::Cow<'de, str>, Entry>()?
                {
                    found.insert(str_key(&path), entry);
                }
                Ok(Found(found))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// This build's entries, in the order they are written (see
/// [`Written`]): those it made, and those of the last build it keeps, by
/// their key in [`Found`] (a hundred thousand entries copied from there
/// were 11 MB of the peak of a rebuild; one list of both, the made ones
/// boxed, cost a cold build 2.4 MB more). The paths are borrowed from
/// discovery: copied, with a map's room, they were about 15 MB of the
/// peak of a build of a hundred thousand files.
#[derive(Debug, Default)]
struct Kept<'s> {
    made: Vec<(&'s Path, Entry)>,
    same: Vec<(&'s Path, u64)>,
    /// For each file in order, whether its entry is in `same`.
    is_same: Vec<bool>,
}

/// A file's entry in this build: the last build's as it was, by its key
/// in [`Found`], or a new one.
#[derive(Debug)]
enum Keep {
    Same(u64),
    New(Entry),
}

impl<'s> Kept<'s> {
    /// Make room for `files` entries, of which the last build's index
    /// holds `old`.
    fn reserve(&mut self, files: usize, old: usize) {
        self.made.reserve_exact(files.saturating_sub(old));
        self.same.reserve_exact(files.min(old));
        self.is_same.reserve_exact(files);
    }

    fn push(&mut self, path: &'s Path, keep: Keep) {
        self.is_same.push(matches!(keep, Keep::Same(_)));
        match keep {
            Keep::Same(key) => self.same.push((path, key)),
            Keep::New(entry) => self.made.push((path, entry)),
        }
    }

    /// Each file's path and entry, in order; those of the last build
    /// looked up in `old`.
    fn entries<'a>(&'a self, old: &'a Found) -> impl Iterator<Item = (&'s Path, &'a Entry)> + 'a {
        let (mut made, mut same) = (self.made.iter(), self.same.iter());
        self.is_same
            .iter()
            .filter_map(move |&is_same| match is_same {
                true => same
                    .next()
                    .and_then(|(path, key)| Some((*path, old.0.get(key)?))),
                false => made.next().map(|(path, entry)| (*path, entry)),
            })
    }
}

/// This build's entries as they are written: those of the last build
/// they keep looked up in it.
struct Written<'a, 's> {
    kept: &'a Kept<'s>,
    old: &'a Found,
}

impl Serialize for Written<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.kept.entries(self.old).count()))?;
        for (path, entry) in self.kept.entries(self.old) {
            map.serialize_entry(&path.to_string_lossy(), entry)?;
        }
        map.end()
    }
}

impl Stored<Found> {
    /// Make the slots of one pack share its name: each was read as a
    /// string of its own.
    fn share_pack_names(&mut self) {
        let mut names: std::collections::HashSet<std::sync::Arc<str>> = Default::default();
        for e in self.files.0.values_mut() {
            for slot in [&mut e.state, &mut e.turns] {
                match names.get(&slot.pack) {
                    Some(name) => slot.pack = name.clone(),
                    None => {
                        names.insert(slot.pack.clone());
                    }
                }
            }
        }
    }
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

/// The cache of one output directory, for a build of the transcripts
/// discovery found (`'s`).
#[derive(Debug, Default)]
pub struct Cache<'s> {
    /// `cache.bin`, the index; None when the cache is disabled.
    path: Option<PathBuf>,
    /// The packs of reader states, in the `states/` folder beside it.
    packs: Packs,
    old: Stored<Found>,
    new: Stored<Kept<'s>>,
    pub stats: CacheStats,
    /// Large files' turns being copied into this build's pack.
    copies: std::sync::Mutex<Copies>,
    /// Files larger than this are read in pieces, in parallel; None for
    /// [`crate::knowledge::extract::PIECE_BYTES`] (tests set less).
    piece_bytes: Option<u64>,
}

impl<'s> Cache<'s> {
    /// The cache for output directory `out`, kept under `root` (else the
    /// user's cache directory), or an empty one.
    /// Entries made with other redaction rules are dropped: the cache holds
    /// only text redacted by `redactor`.
    pub fn open(out: &Path, root: Option<&Path>, redactor: &Redactor) -> Cache<'s> {
        let fits = |s: &Stored<Found>| {
            s.format == FORMAT
                && s.version == env!("CARGO_PKG_VERSION")
                && s.redactor == redactor.fingerprint()
        };
        let Some((path, old)) = stored::open_site_file(out, root, "cache.bin", fits) else {
            return Cache::disabled();
        };
        let mut old = old.unwrap_or_default();
        old.share_pack_names();
        Cache {
            packs: Packs::new(path.with_file_name("states")),
            path: Some(path),
            old,
            new: Stored {
                redactor: redactor.fingerprint(),
                ..Stored::default()
            },
            stats: CacheStats::default(),
            copies: Default::default(),
            piece_bytes: None,
        }
    }

    /// A cache that remembers nothing and saves nothing.
    pub fn disabled() -> Cache<'s> {
        Cache::default()
    }

    fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Read `tf` with whatever the cache knows of it; turns kept in the
    /// cache are read back through `spill`. Safe to call from many
    /// threads; the caller hands the returned entry back with [`Cache::keep`].
    pub fn read(
        &self,
        root: usize,
        tf: &'s TranscriptFile,
        r: &Redactor,
        spill: &Spill,
    ) -> (FileDigest, Option<CachedFile<'s>>, Served) {
        if !self.enabled() {
            return (
                crate::knowledge::extract::read_transcript(root, tf, r, spill),
                None,
                Served::Read,
            );
        }
        let old = self.old.files.0.get(&path_key(&tf.path));
        // Only worth its opening of the file when there is something to
        // compare it with.
        let identity = old.and_then(|_| identity(tf));
        if let (Some(id), Some(e)) = (&identity, old) {
            if *id == e.identity {
                if let Some(digest) = self.reuse(root, tf, e, r, spill) {
                    let kept = CachedFile(&tf.path, Keep::Same(path_key(&tf.path)));
                    return (digest, Some(kept), Served::Reused);
                }
            }
            let grew = id.size > e.identity.size
                && id.inode == e.identity.inode
                && id.head == e.identity.head;
            if grew {
                if let Some(mut state) = self.state_with_turns(e, root, tf, spill) {
                    let pos = state.position.0;
                    let tail_ok = hash_range(&tf.path, pos.saturating_sub(PROBE), pos.min(PROBE))
                        == Some(e.tail);
                    if tail_ok {
                        let tail = state.read(tf, r, spill);
                        return self.finish(tf, state, tail, Served::Resumed, r, spill);
                    }
                }
            }
        }
        let (state, tail) = crate::knowledge::extract::read_fresh(
            root,
            tf,
            (self.piece_bytes).unwrap_or(crate::knowledge::extract::PIECE_BYTES),
            r,
            spill,
        );
        self.finish(tf, state, tail, Served::Read, r, spill)
    }

    /// The state of `e`, without its turns, for `tf` (found in root `root`).
    fn state(&self, e: &Entry, root: usize, tf: &TranscriptFile) -> Option<ReaderState> {
        let mut state: ReaderState = stored::decode(&self.packs.read(&e.state)?)?;
        state.digest.root = root;
        state.digest.file.clone_from(&tf.path);
        Some(state)
    }

    /// Where the turns of `e` are, read through `spill`.
    fn shelved(&self, e: &Entry, spill: &Spill) -> Option<Shelved> {
        Some(Shelved {
            shelf: spill.shelf(&self.packs.path(&e.turns.pack)?)?,
            base: e.turns.offset,
        })
    }

    /// The digest of an unchanged file: its state, its turns left where
    /// they are once their bytes are found intact.
    fn reuse(
        &self,
        root: usize,
        tf: &TranscriptFile,
        e: &Entry,
        r: &Redactor,
        spill: &Spill,
    ) -> Option<FileDigest> {
        let mut state = self.state(e, root, tf)?;
        if !self.turns_intact(e, &state.stored_chunks()?) {
            return None;
        }
        let at = self.shelved(e, spill)?;
        Some(state.into_digest(tf, e.tail_skip.as_deref().cloned(), r, Some(at), spill))
    }

    /// True when every chunk of `e`'s turns reads back as it was written.
    fn turns_intact(&self, e: &Entry, chunks: &[Chunk]) -> bool {
        self.each_chunk(e, chunks, |c, bytes| chunk_intact(bytes, c))
    }

    /// The state of `e` with its turns, to read on from: left where they
    /// are once found intact, read back (through `spill`) only where a new
    /// line changes one, and copied to this build's pack as they are, so
    /// pages of the unchanged part keep their identity.
    fn state_with_turns(
        &self,
        e: &Entry,
        root: usize,
        tf: &TranscriptFile,
        spill: &Spill,
    ) -> Option<ReaderState> {
        let mut state = self.state(e, root, tf)?;
        if !self.turns_intact(e, &state.stored_chunks()?) {
            return None;
        }
        let at = self.shelved(e, spill)?;
        state.restore_turns(at).then_some(state)
    }

    /// Hand each of `chunks` of `e`'s turns to `f` with its bytes; false
    /// when one cannot be read or `f` says false. Read a few megabytes at a
    /// time into one buffer per thread: a gigabyte of transcripts holds
    /// 70 MB of turns, checked on every rebuild (a buffer and a read per
    /// chunk took twice as long).
    fn each_chunk(
        &self,
        e: &Entry,
        chunks: &[Chunk],
        mut f: impl FnMut(&Chunk, &[u8]) -> bool,
    ) -> bool {
        thread_local! {
            static AREA: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let end_of = |c: &Chunk| c.offset.saturating_add(u64::from(c.bytes));
        AREA.with_borrow_mut(|buf| {
            let mut rest = chunks;
            while let Some(first) = rest.first() {
                // Chunks lie one after another: read as many as fit.
                let start = first.offset;
                let n = rest
                    .iter()
                    .take_while(|c| c.offset >= start && end_of(c) - start <= READ_BYTES)
                    .count();
                let (group, after) = rest.split_at(n.max(1));
                let end = group.iter().map(end_of).max().unwrap_or(start);
                let slot = Slot {
                    pack: e.turns.pack.clone(),
                    offset: e.turns.offset + start,
                    len: end - start,
                };
                if end > e.turns.len || self.packs.read_into(&slot, buf).is_none() {
                    return false;
                }
                let handed = group.iter().all(|c| {
                    let at = (c.offset - start) as usize;
                    buf.get(at..at + c.bytes as usize)
                        .is_some_and(|bytes| f(c, bytes))
                });
                if !handed {
                    return false;
                }
                rest = after;
            }
            true
        })
    }

    fn finish(
        &self,
        tf: &'s TranscriptFile,
        mut state: ReaderState,
        tail_skip: Option<Skip>,
        served: Served,
        r: &Redactor,
        spill: &Spill,
    ) -> (FileDigest, Option<CachedFile<'s>>, Served) {
        let pos = state.position.0;
        // Appended to this build's pack: the previous build's states stay
        // valid until the new index replaces the old one. A large file's
        // turns are copied there on a thread of their own, and read back
        // from the spill meanwhile.
        let later = self.copy_turns_later(&mut state, spill);
        let shelve = later.is_none();
        let turns = later.or_else(|| self.append_turns(&mut state, spill));
        let slots = turns.and_then(|turns| {
            let state = self.packs.append_value(&state)?;
            Some((state, turns))
        });
        let entry = match (slots, sealed(tf, pos)) {
            (Some((state, turns)), Some((identity, tail))) => Some(Entry {
                identity,
                tail,
                state,
                turns,
                tail_skip: tail_skip.clone().map(Box::new),
            }),
            _ => None,
        };
        // The turns are read back from the pack, not written again.
        let shelved = (entry.as_ref())
            .filter(|_| shelve)
            .and_then(|e| self.shelved(e, spill));
        let digest = state.into_digest(tf, tail_skip, r, shelved, spill);
        let kept = entry.map(|e| CachedFile(&tf.path, Keep::New(e)));
        (digest, kept, served)
    }

    /// Keep room in this build's pack for the state's turns when most are
    /// in the spill already (a file read in pieces: the few held, where
    /// pieces meet, are written there too), copy them there on a thread
    /// of their own, and record in the state where they will be; None
    /// when they are not copied so. The copy of a 1 GB session's 65 MB of
    /// turns took one core for 40 ms while the other waited, at the end of
    /// extraction; now it runs beside the pages' layout.
    fn copy_turns_later(&self, state: &mut ReaderState, spill: &Spill) -> Option<Slot> {
        let spilled: u64 = (state.turn_lists().iter()).map(|t| t.spilled_bytes()).sum();
        if spilled < COPIED_APART_FROM {
            return None;
        }
        state.stow_turns(spill);
        let lists = state.turn_lists();
        let (chunks, bytes) = Spill::chunks_in_place(&lists)?;
        let (slot, file) = self.packs.reserve(bytes)?;
        let copy = spill.copy_later(&lists, file, slot.offset)?;
        self.copies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(copy);
        state.turns_stored(chunks, spill);
        Some(slot)
    }

    /// Append the state's turns to this build's pack, in chunks, and
    /// record in the state where they are; None when they cannot be.
    /// Turns already in `spill` (a large file's) are copied as they are.
    fn append_turns(&self, state: &mut ReaderState, spill: &Spill) -> Option<Slot> {
        let mut chunks = Vec::new();
        let slot = self.packs.append_with(|w| {
            let mut at = 0u64;
            for turns in state.turn_lists() {
                let mut list = Vec::new();
                spill.encoded(turns, |bytes, n, hash| {
                    w.write_all(bytes)?;
                    list.push(Chunk {
                        offset: at,
                        bytes: u32::try_from(bytes.len()).map_err(std::io::Error::other)?,
                        turns: n,
                        hash,
                    });
                    at += bytes.len() as u64;
                    Ok(())
                })?;
                chunks.push(list);
            }
            Ok(at)
        })?;
        state.turns_stored(chunks, spill);
        Some(slot)
    }

    /// Hand this build's pack to the system, so that turns read back from
    /// it through the spill are there.
    pub fn flush(&self) {
        self.packs.flush();
    }

    /// Make room for the entries of `files` transcripts.
    pub fn expect(&mut self, files: usize) {
        if self.enabled() {
            self.new.files.reserve(files, self.old.files.0.len());
        }
    }

    /// Keep a file's entry for the next build, and count how it was served.
    pub fn keep(&mut self, file: Option<CachedFile<'s>>, served: Served) {
        match served {
            Served::Reused => self.stats.reused += 1,
            Served::Resumed => self.stats.resumed += 1,
            Served::Read => self.stats.read += 1,
        }
        if let Some(CachedFile(path, keep)) = file {
            self.new.files.push(path, keep);
        }
    }

    /// Write the cache for the next build. Failure only costs speed next
    /// time. The copies of large files' turns still running are handed
    /// back: they must be waited for before the process ends (a copy cut
    /// short costs reading its file again next build).
    pub fn save(mut self) -> Copies {
        let copies = std::mem::take(self.copies.get_mut().unwrap_or_else(|e| e.into_inner()));
        let Some(path) = self.path.take() else {
            return copies;
        };
        self.new.format = FORMAT;
        self.new.version = env!("CARGO_PKG_VERSION").to_string();
        let copies = self.compact(copies);
        if !self.packs.flush() {
            return copies;
        }
        let written = Stored {
            format: self.new.format,
            version: std::mem::take(&mut self.new.version),
            redactor: self.new.redactor,
            files: Written {
                kept: &self.new.files,
                old: &self.old.files,
            },
        };
        if stored::replace_with(&path, &written) {
            // Packs no entry refers to any more: files gone, or superseded.
            let live: std::collections::HashSet<&str> = (self.new.files)
                .entries(&self.old.files)
                .flat_map(|(_, e)| [&*e.state.pack, &*e.turns.pack])
                .collect();
            self.packs.keep_only(&live);
        }
        copies
    }

    /// Copy the live states into this build's pack when the packs hold
    /// more dead states (superseded by later builds) than live ones, or
    /// when there are many packs: what a long `serve` session leaves.
    /// `copies` are waited for first (the turns they copy are copied
    /// with the rest); what is left of them to wait for is handed back.
    fn compact(&mut self, copies: Copies) -> Copies {
        let mut live: BTreeMap<&str, u64> = BTreeMap::new();
        let old = &self.old.files;
        for (_, e) in self.new.files.entries(old) {
            for slot in [&e.state, &e.turns] {
                *live.entry(&*slot.pack).or_default() += slot.len;
            }
        }
        let on_disk: u64 = live.keys().map(|p| self.packs.size(p)).sum();
        let used: u64 = live.values().sum();
        if live.len() <= MAX_PACKS && used.saturating_mul(2) >= on_disk {
            return copies;
        }
        copies.wait();
        let packs = &self.packs;
        // A state unreadable now is dropped: its file is read again next
        // time. Its turns are copied whole: chunks are placed from the
        // start of their area, wherever it is.
        let copy = |slot: &Slot| packs.read(slot).and_then(|b| packs.append(&b));
        let moved: Vec<(&Path, Entry)> = (self.new.files.entries(old))
            .filter_map(|(path, e)| match (copy(&e.state), copy(&e.turns)) {
                (Some(state), Some(turns)) => Some((
                    path,
                    Entry {
                        state,
                        turns,
                        ..e.clone()
                    },
                )),
                _ => None,
            })
            .collect();
        self.new.files = Kept {
            is_same: vec![false; moved.len()],
            made: moved,
            same: Vec::new(),
        };
        Copies::default()
    }
}

/// How much of a file's cached turns is read at a time to check them
/// (in tests, about a chunk: a few kilobytes of turns take several reads).
const READ_BYTES: u64 = if cfg!(test) { 64 << 10 } else { 4 << 20 };

/// Turns of at least this many bytes, all in the spill, are copied into
/// the pack on a thread of their own (see `Cache::copy_turns_later`).
const COPIED_APART_FROM: u64 = if cfg!(test) { 1 } else { 8 << 20 };

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
pub struct CachedFile<'s>(&'s Path, Keep);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::extract::{extract, extract_cached};
    use crate::knowledge::model::Session;
    use crate::source::discover::{discover, Root};

    fn line(sid: &str, uuid: &str, kind: &str, body: &str, sidechain: bool) -> String {
        let message = if kind == "user" {
            format!(r#"{{"role":"user","content":{body}}}"#)
        } else {
            format!(
                r#"{{"id":"m-{uuid}","model":"claude-opus-4-6","role":"assistant","content":[{body}],"usage":{{"input_tokens":3,"output_tokens":5}}}}"#
            )
        };
        format!(
            r#"{{"type":"{kind}","sessionId":"{sid}","uuid":"{uuid}","isSidechain":{sidechain},"cwd":"/home/u/p","timestamp":"2026-01-01T10:00:00Z","message":{message}}}"#
        ) + "\n"
    }

    /// A session long enough for several chunks, with an inline sub-agent,
    /// and an agent file of its own.
    fn write_data(dir: &Path) {
        let mut s = String::new();
        for i in 0..300 {
            let big = "x".repeat(i * 7 % 900);
            s += &line(
                "s1",
                &format!("u{i}"),
                "user",
                &format!(r#""prompt {i} {big}""#),
                false,
            );
            let text = format!(r###"{{"type":"text","text":"## Head\n\nanswer {i} {big}"}}"###);
            s += &line("s1", &format!("a{i}"), "assistant", &text, i % 50 == 7);
        }
        let folder = dir.join("projects/-home-u-p");
        std::fs::create_dir_all(folder.join("s1/subagents")).unwrap();
        std::fs::write(folder.join("s1.jsonl"), s).unwrap();
        let agent = line("s1", "g1", "user", r#""look around""#, true)
            + &line(
                "s1",
                "g2",
                "assistant",
                r#"{"type":"text","text":"found it"}"#,
                true,
            );
        std::fs::write(folder.join("s1/subagents/agent-abc.jsonl"), agent).unwrap();
    }

    /// Everything of a session, its turns and its sub-agents' read back.
    fn whole(s: &Session, spill: &Spill) -> String {
        let turns = spill.load(&s.turns).unwrap();
        let agents: Vec<Vec<crate::knowledge::model::Turn>> = s
            .subagents
            .iter()
            .map(|a| spill.load(&a.turns).unwrap())
            .collect();
        let mut bare = s.clone();
        bare.turns = Default::default();
        for a in &mut bare.subagents {
            a.turns = Default::default();
        }
        format!("{bare:?}\n{turns:?}\n{agents:?}")
    }

    struct Build {
        text: Vec<String>,
        stats: CacheStats,
        spilled: u64,
    }

    fn build(roots: &[Root], out: &Path, cache_root: &Path) -> Build {
        let r = Redactor::disabled();
        let mut cache = Cache::open(out, Some(cache_root), &r);
        let spill = Spill::in_dir(cache_root).unwrap();
        let progress = crate::base::progress::Progress::default();
        let x = extract_cached(roots, &r, &mut cache, &progress, &spill);
        let stats = cache.stats;
        cache.save().wait();
        Build {
            text: x.sessions.iter().map(|s| whole(s, &spill)).collect(),
            stats,
            spilled: spill.written(),
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_data_directory_whose_path_is_not_utf8_is_cached_too() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join(std::ffi::OsStr::from_bytes(b"d\xffata"));
        let cache_root = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        write_data(&data);
        let roots = discover(std::slice::from_ref(&data)).unwrap().roots;
        assert_eq!(roots[0].transcripts.len(), 2);
        let cold = build(&roots, &out, cache_root.path());
        assert_eq!(cold.stats.read, 2);
        let warm = build(&roots, &out, cache_root.path());
        assert_eq!((warm.stats.reused, warm.stats.read), (2, 0));
        assert_eq!(warm.text, cold.text);
    }

    /// A file read in pieces has its turns in the spill: they reach the
    /// cache's pack on a thread of their own, are read from the spill
    /// meanwhile, and serve the next build from the pack.
    #[test]
    fn a_large_files_turns_are_copied_to_the_cache_beside_the_build() {
        let data = tempfile::tempdir().unwrap();
        let cache_root = tempfile::tempdir().unwrap();
        let out = data.path().join("site");
        write_data(data.path());
        let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
        let r = Redactor::disabled();
        let expected: Vec<String> = (extract(&roots, &r).sessions.iter())
            .map(|s| whole(s, &Spill::none()))
            .collect();
        let build = || {
            let mut cache = Cache::open(&out, Some(cache_root.path()), &r);
            cache.piece_bytes = Some(16 << 10);
            let spill = Spill::in_dir(cache_root.path()).unwrap();
            let progress = crate::base::progress::Progress::default();
            let x = extract_cached(&roots, &r, &mut cache, &progress, &spill);
            let stats = cache.stats;
            let copies = cache.save();
            let copying = !copies.is_empty();
            let text: Vec<String> = x.sessions.iter().map(|s| whole(s, &spill)).collect();
            (text, stats, spill.written(), copying && copies.wait())
        };
        let (text, stats, spilled, copied) = build();
        assert_eq!(stats.read, 2);
        assert_eq!(text, expected);
        assert!(spilled > 0, "read in pieces, its turns went to the spill");
        assert!(copied, "copied on a thread of their own, all of them");
        let (text, stats, spilled, _) = build();
        assert_eq!((stats.reused, stats.read), (2, 0), "served from the pack");
        assert_eq!(text, expected);
        assert_eq!(spilled, 0);
    }

    /// Packs merged in a build whose large file is still being copied:
    /// its turns are merged once copied, and serve the next build.
    #[test]
    fn packs_merged_while_a_copy_runs_keep_its_turns() {
        let data = tempfile::tempdir().unwrap();
        let cache_root = tempfile::tempdir().unwrap();
        let out = data.path().join("site");
        write_data(data.path());
        let session = data.path().join("projects/-home-u-p/s1.jsonl");
        let original = std::fs::read(&session).unwrap();
        let r = Redactor::disabled();
        let build = |roots: &[Root]| {
            let mut cache = Cache::open(&out, Some(cache_root.path()), &r);
            cache.piece_bytes = Some(16 << 10);
            let spill = Spill::in_dir(cache_root.path()).unwrap();
            let progress = crate::base::progress::Progress::default();
            let x = extract_cached(roots, &r, &mut cache, &progress, &spill);
            let stats = cache.stats;
            let _ = cache.save().wait();
            let text: Vec<String> = x.sessions.iter().map(|s| whole(s, &spill)).collect();
            (text, stats)
        };
        let packs = || {
            walkdir::WalkDir::new(cache_root.path())
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
                .count()
        };
        // Each build reads the large file again (rewritten, so neither
        // reused nor resumed) and copies its turns apart, and finds one
        // more small session, whose entry keeps that build's pack live:
        // past MAX_PACKS, they are merged in a build that copies.
        let mut merged = 0;
        for i in 0..MAX_PACKS + 2 {
            let mut bytes = original.clone();
            bytes[40] = b'a' + (i % 26) as u8;
            std::fs::write(&session, &bytes).unwrap();
            let extra = line(&format!("x{i}"), "u1", "user", r#""hello""#, false);
            std::fs::write(session.with_file_name(format!("x{i}.jsonl")), extra).unwrap();
            let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
            let (_, stats) = build(&roots);
            assert_eq!(stats.read, 2 + usize::from(i == 0), "build {i}");
            merged += usize::from(i > 0 && packs() == 1);
        }
        assert!(
            merged > 0,
            "packs merged in a build that copied turns apart"
        );
        let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
        let expected: Vec<String> = (extract(&roots, &r).sessions.iter())
            .map(|s| whole(s, &Spill::none()))
            .collect();
        let (text, stats) = build(&roots);
        assert_eq!((stats.reused, stats.read), (MAX_PACKS + 4, 0));
        assert_eq!(text, expected);
    }

    #[test]
    fn cached_turns_are_read_where_they_are_kept_and_checked() {
        let data = tempfile::tempdir().unwrap();
        let cache_root = tempfile::tempdir().unwrap();
        let out = data.path().join("site");
        write_data(data.path());
        let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
        let truth = |roots: &[Root]| -> Vec<String> {
            let x = extract(roots, &Redactor::disabled());
            x.sessions
                .iter()
                .map(|s| whole(s, &Spill::none()))
                .collect()
        };
        let expected = truth(&roots);
        assert!(
            expected[0].contains("answer 299"),
            "{}",
            &expected[0][..200]
        );

        let cold = build(&roots, &out, cache_root.path());
        assert_eq!(cold.stats.read, 2);
        assert_eq!(cold.text, expected);
        assert_eq!(cold.spilled, 0, "turns are written once, to the cache");
        let index = || {
            let found = walkdir::WalkDir::new(cache_root.path())
                .into_iter()
                .filter_map(Result::ok)
                .find(|e| e.file_name() == "cache.bin");
            std::fs::read(found.expect("an index").path()).unwrap()
        };
        let after_cold = index();

        let warm = build(&roots, &out, cache_root.path());
        assert_eq!(warm.stats.reused, 2);
        assert_eq!(warm.text, expected);
        assert_eq!(warm.spilled, 0);
        // The entries it kept are the last build's, written as they were.
        assert_eq!(index(), after_cold);

        // A flipped byte in the session's turns: that file is read again.
        let cache = Cache::open(&out, Some(cache_root.path()), &Redactor::disabled());
        let session = roots[0]
            .transcripts
            .iter()
            .find(|t| t.path.ends_with("s1.jsonl"))
            .unwrap();
        let turns = cache.old.files.0[&path_key(&session.path)].turns.clone();
        assert!(turns.len > 2 * READ_BYTES, "several reads: {}", turns.len);
        let pack = cache.packs.path(&turns.pack).unwrap();
        let mut bytes = std::fs::read(&pack).unwrap();
        bytes[(turns.offset + turns.len / 2) as usize] ^= 0x20;
        std::fs::write(&pack, bytes).unwrap();
        let mended = build(&roots, &out, cache_root.path());
        assert_eq!((mended.stats.reused, mended.stats.read), (1, 1));
        assert_eq!(mended.text, expected);

        // A session that grew is read on from its cached turns.
        let file = &session.path;
        let mut grown = std::fs::read_to_string(file).unwrap();
        grown += &line("s1", "u-late", "user", r#""one more thing""#, false);
        std::fs::write(file, grown).unwrap();
        let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
        let resumed = build(&roots, &out, cache_root.path());
        assert_eq!(resumed.stats.resumed, 1);
        let expected = truth(&roots);
        assert!(expected[0].contains("one more thing"));
        assert_eq!(resumed.text, expected);
        assert_eq!(build(&roots, &out, cache_root.path()).text, expected);

        // Lines that change turns an earlier build read: more of an early
        // response (same message id), a result for a call read by the last
        // build, a summary for its compaction. Each lands as a fresh read
        // of the whole file puts it.
        let call =
            r#"{"type":"tool_use","id":"call-late","name":"Bash","input":{"command":"make"}}"#;
        let compact = r#"{"type":"system","subtype":"compact_boundary","sessionId":"s1","uuid":"c1","timestamp":"2026-01-01T11:00:00Z"}"#;
        let steps = [
            line(
                "s1",
                "a5",
                "assistant",
                r#"{"type":"text","text":"more of answer 5"}"#,
                false,
            ) + &line("s1", "a-call", "assistant", call, false)
                + compact
                + "\n",
            line(
                "s1",
                "u-result",
                "user",
                r#"[{"type":"tool_result","tool_use_id":"call-late","content":"built fine"}]"#,
                false,
            ) + r#"{"type":"user","isCompactSummary":true,"sessionId":"s1","uuid":"c2","message":{"role":"user","content":"what came before"}}"#
                + "\n",
        ];
        for (k, step) in steps.iter().enumerate() {
            let mut grown = std::fs::read_to_string(file).unwrap();
            grown += step;
            std::fs::write(file, grown).unwrap();
            let roots = discover(&[data.path().to_path_buf()]).unwrap().roots;
            let resumed = build(&roots, &out, cache_root.path());
            assert_eq!(resumed.stats.resumed, 1, "step {k}");
            let expected = truth(&roots);
            assert_eq!(resumed.text, expected, "step {k}");
        }
        let done = truth(&discover(&[data.path().to_path_buf()]).unwrap().roots);
        for seen in ["more of answer 5", "built fine", "what came before"] {
            assert!(done[0].contains(seen), "{seen}");
        }
    }
}
