//! Where conversations wait between extraction and rendering.
//!
//! A session's turns are most of what extraction keeps, and a build needs
//! them twice after that: once to assemble (pagination, search documents)
//! and once to render. Holding every session's turns from extraction to
//! rendering makes memory grow with the data directory. Instead, as soon as
//! a transcript has been read, its turns are encoded into a [`Spill`] file
//! and the model keeps only [`Turns`], a list of where they are; later
//! phases read back one session (or one page of a session) at a time, so
//! memory depends on the largest session, not on the total.
//!
//! The file is anonymous (unlinked as soon as it is made), in the user's
//! cache directory: it holds unredacted text, disappears with the process
//! however it ends, and never goes near the site.
//!
//! Other bytes that wait for rendering (the search documents) are kept in
//! the same file, through [`Spill::put`] and [`Spill::get`].
//!
//! Turns the incremental cache already keeps are not written again: the
//! cache's packs hold them in the same chunks (see [`Spill::encoded`]), and a
//! pack opened as a *shelf* of the spill ([`Spill::shelf`]) is read like
//! the spill's own file. A rebuild neither decodes nor re-encodes the turns
//! of the transcripts that did not change.

use crate::base::stored;
use crate::knowledge::model::Turn;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

mod copy;
mod encoded;
pub use copy::Copies;
pub use encoded::Encoded;

thread_local! {
    // One buffer per thread, reused: chunks are read by the thousand.
    static CHUNK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The first `len` bytes of `buf`, grown (zeroed) only past its longest
/// length yet: cut to each read's length, the buffer was zeroed again
/// before every read longer than the one before it.
fn zeroed_prefix(buf: &mut Vec<u8>, len: usize) -> &mut [u8] {
    if buf.len() < len {
        buf.resize(len, 0);
    }
    &mut buf[..len]
}

/// Turns are written in chunks of about this many encoded bytes, so that a
/// page of a long session reads only the chunks it shows, and a file's page
/// (one turn for each change) little more than its turns. A chunk is read
/// whole: with 64 KB chunks the file pages of a gigabyte re-read 370 MB of
/// them, and 8 KB is as fast as any smaller size.
const CHUNK_BYTES: usize = 8 << 10;

/// A conversation's turns: held in memory as extracted, or written to a
/// [`Spill`] and read back with [`Spill::load`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turns {
    /// Each piece with the index just past its last turn (the last one's
    /// is how many turns there are): the piece that holds a turn is found
    /// by halves (a 1 GB session has ten thousand pieces, and its file
    /// pages look up thousands of turns).
    pieces: Vec<(usize, Piece)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Held(Vec<Turn>),
    /// `hash`: of the encoded turns, what they are without reading them.
    /// `shelf`: 0 for the spill's own file, else the shelf `shelf - 1`.
    Stored {
        shelf: u32,
        offset: u64,
        bytes: u32,
        turns: u32,
        hash: u64,
    },
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Held(t) => t.len(),
            Piece::Stored { turns, .. } => *turns as usize,
        }
    }

    /// Its bytes in a file; 0 when held.
    fn stored_bytes(&self) -> u64 {
        match self {
            Piece::Held(_) => 0,
            Piece::Stored { bytes, .. } => u64::from(*bytes),
        }
    }
}

impl From<Vec<Turn>> for Turns {
    fn from(turns: Vec<Turn>) -> Turns {
        let pieces = if turns.is_empty() {
            Vec::new()
        } else {
            vec![(turns.len(), Piece::Held(turns))]
        };
        Turns { pieces }
    }
}

/// Turns encoded one after another, in a file the spill reads: where in
/// their area (`offset`, from the area's start), how many bytes and turns,
/// and a hash of the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    pub offset: u64,
    pub bytes: u32,
    pub turns: u32,
    pub hash: u64,
}

/// Encode `turns` in chunks of about 8 KB (the spill's and the
/// cache's chunks are the same, so a page's identity does not depend on
/// which file holds its turns), handing each to `put` with the number of
/// turns it holds and its hash. On failure, how many turns were handed
/// over, and why.
fn encode_chunks(
    turns: &[Turn],
    mut put: impl FnMut(&[u8], u32, u64) -> std::io::Result<()>,
) -> Result<(), (usize, std::io::Error)> {
    let mut buf = Vec::new();
    // The first turn in `buf`.
    let mut start = 0;
    for (i, turn) in turns.iter().enumerate() {
        stored::encode_into(turn, &mut buf).map_err(|e| (start, invalid(e)))?;
        if buf.len() >= CHUNK_BYTES || i + 1 == turns.len() {
            let n = u32::try_from(i + 1 - start).map_err(|e| (start, invalid(e)))?;
            put(&buf, n, crate::base::hash::hash_bytes(&buf)).map_err(|e| (start, e))?;
            buf.clear();
            start = i + 1;
        }
    }
    Ok(())
}

/// The most bytes of stored chunks [`Spill::encoded`] and
/// [`Spill::load_range`] read at once.
const RUN_BYTES: u64 = 1 << 20;

/// How many of `pieces`, from the first (stored in `shelf` at `start`),
/// lie one after another in that file: read as one, up to [`RUN_BYTES`]
/// (the first whatever its size).
fn stored_run(pieces: &[(usize, Piece)], shelf: u32, start: u64) -> usize {
    let mut end = start;
    let mut n = 0;
    for (_, piece) in pieces {
        match piece {
            Piece::Stored {
                shelf: s,
                offset,
                bytes,
                ..
            } if *s == shelf
                && *offset == end
                && (n == 0 || end - start + u64::from(*bytes) <= RUN_BYTES) =>
            {
                end += u64::from(*bytes);
                n += 1;
            }
            _ => break,
        }
    }
    n
}

/// True when `bytes`, read back from disk, are `c` as it was written.
pub fn chunk_intact(bytes: &[u8], c: &Chunk) -> bool {
    bytes.len() == c.bytes as usize && crate::base::hash::hash_bytes(bytes) == c.hash
}

/// A file of turns that the spill reads but did not write: see
/// [`Spill::shelf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shelf(u32);

impl Turns {
    /// The turns of `chunks`, whose area starts at `base` in `shelf`.
    pub fn shelved(shelf: Shelf, base: u64, chunks: &[Chunk]) -> Turns {
        let mut len = 0;
        let pieces = chunks
            .iter()
            .map(|c| {
                len += c.turns as usize;
                let piece = Piece::Stored {
                    shelf: shelf.0,
                    offset: base + c.offset,
                    bytes: c.bytes,
                    turns: c.turns,
                    hash: c.hash,
                };
                (len, piece)
            })
            .collect();
        Turns { pieces }
    }

    /// How many turns there are, without reading them.
    pub fn len(&self) -> usize {
        self.pieces.last().map_or(0, |(end, _)| *end)
    }

    /// The index of the piece that holds turn `i` (the number of pieces
    /// when there is none), and the index of that piece's first turn.
    /// Turns of one piece are read back together: [`Spill::load_at`]
    /// decodes a stored piece once for all the turns asked of it.
    pub fn piece_of(&self, i: usize) -> (usize, usize) {
        let k = self.pieces.partition_point(|(end, _)| *end <= i);
        let start = match k.checked_sub(1) {
            Some(before) => self.pieces[before].0,
            None => 0,
        };
        (k, start)
    }

    /// Hash into `h` what identifies the turns at `range`: two lists whose
    /// identities at a range are equal hold the same turns there. False
    /// (nothing known) when some of them are held, not stored.
    pub fn identity(&self, range: Range<usize>, h: &mut impl std::hash::Hasher) -> bool {
        use std::hash::Hash;
        (range.start, range.end).hash(h);
        let (first, mut start) = self.piece_of(range.start);
        for (end, piece) in &self.pieces[first..] {
            let here = start..*end;
            start = here.end;
            if here.start >= range.end {
                break;
            }
            match piece {
                Piece::Held(_) => return false,
                Piece::Stored { turns, hash, .. } => (here.start, *turns, *hash).hash(h),
            }
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the stored turns take encoded (held turns count nothing).
    pub fn stored_bytes(&self) -> u64 {
        self.pieces.iter().map(|(_, p)| p.stored_bytes()).sum()
    }

    /// Put `other`'s turns after these.
    pub fn append(&mut self, other: Turns) {
        let before = self.len();
        if self.pieces.is_empty() {
            // Most sessions have one part: its list as it is, not copied
            // into room for four.
            self.pieces = other.pieces;
        } else {
            (self.pieces).extend(other.pieces.into_iter().map(|(end, p)| (before + end, p)));
        }
    }

    /// Put `other`'s turns before these.
    pub fn prepend(&mut self, mut other: Turns) {
        other.append(std::mem::take(self));
        *self = other;
    }

    /// Put `turn` after the others, held.
    pub fn push(&mut self, turn: Turn) {
        let end = self.len() + 1;
        match self.pieces.last_mut() {
            Some((last, Piece::Held(held))) => {
                held.push(turn);
                *last = end;
            }
            _ => self.pieces.push((end, Piece::Held(vec![turn]))),
        }
    }

    /// The piece that holds turn `i`, and where `i` is in it.
    fn locate(&self, i: usize) -> Option<(usize, usize)> {
        let (k, start) = self.piece_of(i);
        (k < self.pieces.len()).then_some((k, i - start))
    }

    /// Turn `i`, to change: a stored chunk that holds it is read back and
    /// held from then on (and written again when the turns are stowed).
    /// None when there is no such turn, or its chunk cannot be read back
    /// (said by [`Spill::failure`]).
    pub fn get_mut(&mut self, i: usize, spill: &Spill) -> Option<&mut Turn> {
        let (k, at) = self.locate(i)?;
        let piece = &mut self.pieces[k].1;
        if matches!(piece, Piece::Stored { .. }) {
            let mut turns = Vec::with_capacity(piece.len());
            match spill.read_piece(piece, 0..piece.len(), &mut turns) {
                Ok(()) => *piece = Piece::Held(turns),
                Err(e) => {
                    spill.unreadable(&e);
                    return None;
                }
            }
        }
        match &mut self.pieces[k].1 {
            Piece::Held(held) => held.get_mut(at),
            Piece::Stored { .. } => None,
        }
    }

    /// Every turn, taken out: held ones moved, stored ones read back.
    pub fn into_vec(self, spill: &Spill) -> Result<Vec<Turn>, crate::Error> {
        let mut out = Vec::with_capacity(self.len());
        for (_, piece) in self.pieces {
            match piece {
                Piece::Held(held) => out.extend(held),
                stored => spill.read_piece(&stored, 0..stored.len(), &mut out)?,
            }
        }
        Ok(out)
    }

    /// Each piece as a list of its own, in order: a chunk stored, or turns held.
    pub fn into_pieces(self) -> impl Iterator<Item = Turns> {
        self.pieces.into_iter().map(|(_, piece)| Turns {
            pieces: vec![(piece.len(), piece)],
        })
    }
}

/// The file that holds spilled turns; see the module documentation.
#[derive(Debug, Default)]
pub struct Spill {
    /// None: nothing is spilled, turns stay held (small, in-memory uses).
    file: Option<std::fs::File>,
    /// The folder of the file, for error messages.
    dir: PathBuf,
    /// The end of the file: where the next chunk goes.
    end: Mutex<u64>,
    /// Why a write failed; from then on turns stay in memory.
    failed: Mutex<Option<String>>,
    /// Files of turns written by others (the cache's packs), by path.
    shelves: Mutex<Vec<(PathBuf, std::sync::Arc<std::fs::File>)>>,
}

fn invalid(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
}

impl Spill {
    /// A spill that keeps everything in memory.
    pub fn none() -> Spill {
        Spill::default()
    }

    /// A spill file in `dir` (created when missing).
    pub fn in_dir(dir: &Path) -> Result<Spill, crate::Error> {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
        let file = tempfile::tempfile_in(dir).map_err(|e| crate::Error::io(dir, e))?;
        Ok(Spill {
            file: Some(file),
            dir: dir.to_path_buf(),
            ..Spill::default()
        })
    }

    /// A spill file in `dir`, else the user's cache directory, else (when
    /// there is none, or it cannot be written) in the system's temporary
    /// directory.
    pub fn new(dir: Option<&Path>) -> Result<Spill, crate::Error> {
        dir.map(Path::to_path_buf)
            .or_else(crate::base::dirs::cache_root)
            .and_then(|dir| Spill::in_dir(&dir).ok())
            .map_or_else(|| Spill::in_dir(&std::env::temp_dir()), Ok)
    }

    fn error(&self, e: std::io::Error) -> crate::Error {
        crate::Error::io(
            self.dir
                .join("(ccwiki's temporary file of extracted turns)"),
            e,
        )
    }

    /// Write the held turns of `turns` to the file, keeping only where they
    /// are. Without a file, nothing changes. When writing fails (a full
    /// disk), the turns not written stay held, every later call holds
    /// everything, and [`Spill::failure`] says why: the build goes on, with
    /// more memory.
    pub fn stow(&self, turns: &mut Turns) {
        let Some(file) = &self.file else {
            return;
        };
        if !turns
            .pieces
            .iter()
            .any(|(_, p)| matches!(p, Piece::Held(_)))
        {
            return;
        }
        let mut out = Vec::with_capacity(turns.pieces.len());
        let mut end = 0;
        let mut place = |p: Piece| {
            end += p.len();
            out.push((end, p));
        };
        for (_, piece) in std::mem::take(&mut turns.pieces) {
            match piece {
                Piece::Held(held) if self.failure().is_none() => {
                    self.stow_held(file, held).into_iter().for_each(&mut place);
                }
                p => place(p),
            }
        }
        turns.pieces = out;
    }

    /// `held` as stored chunks, and what could not be written still held.
    fn stow_held(&self, file: &std::fs::File, mut held: Vec<Turn>) -> Vec<Piece> {
        let mut pieces = Vec::new();
        let written = encode_chunks(&held, |buf, n, hash| {
            pieces.push(self.write(file, buf, n, hash)?);
            Ok(())
        });
        if let Err((done, e)) = written {
            self.fail(e.to_string());
            held.drain(..done);
            pieces.push(Piece::Held(held));
        }
        pieces
    }

    /// Read turns from the file at `path` too (a pack of the cache) and
    /// say how to refer to it; opened once however often it is asked for.
    /// The file is kept open: it may be replaced or removed (a cache
    /// compacted, a stale pack cleared) before the turns are read back.
    pub fn shelf(&self, path: &Path) -> Option<Shelf> {
        let mut shelves = self.shelves.lock().unwrap_or_else(|e| e.into_inner());
        let at = match shelves.iter().position(|(p, _)| p == path) {
            Some(at) => at,
            None => {
                let file = std::fs::File::open(path).ok()?;
                shelves.push((path.to_path_buf(), std::sync::Arc::new(file)));
                shelves.len() - 1
            }
        };
        u32::try_from(at + 1).ok().map(Shelf)
    }

    /// Read `buf.len()` bytes at `offset` of the file of `shelf`.
    fn read_from(&self, shelf: u32, buf: &mut [u8], offset: u64) -> Result<(), crate::Error> {
        let missing = || self.error(invalid("turns stored without a file"));
        if shelf == 0 {
            let file = self.file.as_ref().ok_or_else(missing)?;
            return read_at(file, buf, offset).map_err(|e| self.error(e));
        }
        let shelves = || self.shelves.lock().unwrap_or_else(|e| e.into_inner());
        let at = shelf as usize - 1;
        let file = shelves()
            .get(at)
            .map(|(_, f)| f.clone())
            .ok_or_else(missing)?;
        read_at(&file, buf, offset).map_err(|e| {
            let path = shelves()
                .get(at)
                .map(|(p, _)| p.clone())
                .unwrap_or_default();
            crate::Error::io(path, e)
        })
    }

    /// Bytes of turns written to the file so far.
    pub fn written(&self) -> u64 {
        *self.end.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The folder of the file.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Why writing the file failed, if it did: turns are held in memory
    /// from then on.
    pub fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn write(
        &self,
        file: &std::fs::File,
        buf: &[u8],
        turns: u32,
        hash: u64,
    ) -> std::io::Result<Piece> {
        let bytes = u32::try_from(buf.len()).map_err(invalid)?;
        let offset = self.append(file, buf)?;
        Ok(Piece::Stored {
            shelf: 0,
            offset,
            bytes,
            turns,
            hash,
        })
    }

    /// Write `buf` at the end of the file; where it went.
    fn append(&self, file: &std::fs::File, buf: &[u8]) -> std::io::Result<u64> {
        // Claim the range under the lock, write it outside: threads write
        // their chunks side by side.
        let offset = {
            let mut end = self.end.lock().unwrap_or_else(|e| e.into_inner());
            let offset = *end;
            *end += buf.len() as u64;
            offset
        };
        write_at(file, buf, offset)?;
        Ok(offset)
    }

    /// Keep `buf` (bytes that are not turns) in the file, and say where;
    /// None when there is no file or it cannot be written: the caller
    /// holds them itself. Unlike turns, a failure here is not remembered.
    pub fn put(&self, buf: &[u8]) -> Option<u64> {
        self.append(self.file.as_ref()?, buf).ok()
    }

    /// `len` bytes [`Spill::put`] kept at `offset`.
    pub fn get(&self, offset: u64, len: usize) -> Result<Vec<u8>, crate::Error> {
        let mut buf = vec![0; len];
        self.read_from(0, &mut buf, offset)?;
        Ok(buf)
    }

    /// Every turn of `turns`, in order.
    pub fn load(&self, turns: &Turns) -> Result<Vec<Turn>, crate::Error> {
        self.load_range(turns, 0..turns.len())
    }

    /// Hand `f` the turns of each piece of `turns` in order (from the last
    /// when `backwards`) until it says to stop: held turns where they
    /// are, stored ones read back one chunk at a time.
    pub fn visit(
        &self,
        turns: &Turns,
        backwards: bool,
        mut f: impl FnMut(&[Turn]) -> std::ops::ControlFlow<()>,
    ) -> Result<(), crate::Error> {
        let mut read = Vec::new();
        let mut step = |(_, piece): &(usize, Piece)| match piece {
            Piece::Held(held) => Ok(f(held)),
            Piece::Stored { .. } => {
                read.clear();
                self.read_piece(piece, 0..piece.len(), &mut read)?;
                Ok(f(&read))
            }
        };
        let mut pieces = turns.pieces.iter();
        while let Some(piece) = if backwards {
            pieces.next_back()
        } else {
            pieces.next()
        } {
            if step(piece)?.is_break() {
                break;
            }
        }
        Ok(())
    }

    /// Hand `put` each chunk of `turns` encoded, with the number of turns
    /// it holds and its hash: stored chunks as they were written
    /// (checked), held turns encoded as [`Spill::stow`] would. Stored
    /// chunks that lie side by side are read together: a 1 GB session's
    /// are ten thousand, nearly all in a row.
    pub fn encoded(
        &self,
        turns: &Turns,
        mut put: impl FnMut(&[u8], u32, u64) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut buf = Vec::new();
        let mut pieces = turns.pieces.as_slice();
        while let Some(first) = pieces.first() {
            let (shelf, start) = match &first.1 {
                Piece::Held(held) => {
                    encode_chunks(held, &mut put).map_err(|(_, e)| e)?;
                    pieces = &pieces[1..];
                    continue;
                }
                Piece::Stored { shelf, offset, .. } => (*shelf, *offset),
            };
            let (run, rest) = pieces.split_at(stored_run(pieces, shelf, start));
            let len = run.iter().map(|(_, p)| p.stored_bytes()).sum::<u64>();
            let buf = zeroed_prefix(&mut buf, usize::try_from(len).map_err(invalid)?);
            self.read_from(shelf, buf, start)
                .map_err(std::io::Error::other)?;
            let mut at = 0;
            for (_, piece) in run {
                let Piece::Stored {
                    bytes, turns, hash, ..
                } = piece
                else {
                    continue;
                };
                let chunk = &buf[at..at + *bytes as usize];
                if crate::base::hash::hash_bytes(chunk) != *hash {
                    return Err(invalid("extracted turns changed on disk"));
                }
                put(chunk, *turns, *hash)?;
                at += chunk.len();
            }
            pieces = rest;
        }
        Ok(())
    }

    /// The turns at `range` (indexes into the whole list); reads only the
    /// chunks that hold them.
    pub fn load_range(
        &self,
        turns: &Turns,
        range: Range<usize>,
    ) -> Result<Vec<Turn>, crate::Error> {
        self.read_range(turns, range)?.owned()
    }

    /// The turns at `at` (indexes into the whole list, ascending, each
    /// once), in that order. A chunk is read and decoded once, however
    /// many of them it holds: a file's page takes one turn for each
    /// change, and the changes of one session often share a chunk.
    pub fn load_at(&self, turns: &Turns, at: &[usize]) -> Result<Vec<Turn>, crate::Error> {
        let mut out = Vec::with_capacity(at.len());
        let Some(&first) = at.first() else {
            return Ok(out);
        };
        let (first, mut start) = turns.piece_of(first);
        let mut rest = at;
        for &(end, ref piece) in &turns.pieces[first..] {
            let (wanted, after) = rest.split_at(rest.partition_point(|&i| i < end));
            rest = after;
            match (piece, wanted) {
                (_, []) => {}
                (Piece::Held(t), _) => {
                    out.extend(wanted.iter().filter_map(|&i| t.get(i - start)).cloned())
                }
                (Piece::Stored { .. }, [.., last]) => {
                    let mut next = wanted.iter().map(|&i| i - start).peekable();
                    self.decode_piece(piece, last - start + 1, |i, turn| {
                        if next.next_if_eq(&i).is_some() {
                            out.push(turn);
                        }
                    })?;
                }
            }
            if rest.is_empty() {
                break;
            }
            start = end;
        }
        Ok(out)
    }

    /// Push onto `out` the turns at `range` (indexes into the piece) of a
    /// stored piece: a run of one.
    fn read_piece(
        &self,
        piece: &Piece,
        range: Range<usize>,
        out: &mut Vec<Turn>,
    ) -> Result<(), crate::Error> {
        self.decode_piece(piece, range.end, |i, turn| {
            if i >= range.start {
                out.push(turn);
            }
        })
    }

    /// Read a stored piece and decode its first `upto` turns, handing
    /// each to `keep` with its index in the piece. Turns are encoded one
    /// after another: one past `upto` is never decoded.
    fn decode_piece(
        &self,
        piece: &Piece,
        upto: usize,
        keep: impl FnMut(usize, Turn),
    ) -> Result<(), crate::Error> {
        let Piece::Stored {
            shelf,
            offset,
            bytes,
            turns,
            ..
        } = piece
        else {
            return Ok(());
        };
        CHUNK.with_borrow_mut(|buf| {
            let buf = zeroed_prefix(buf, *bytes as usize);
            self.read_from(*shelf, buf, *offset)?;
            self.decode_chunk(buf, *turns as usize, upto, keep)
        })
    }

    /// Decode the first `upto` of the `turns` turns encoded one after
    /// another in `chunk`, handing each to `keep` with its index.
    fn decode_chunk<'a, T: serde::Deserialize<'a>>(
        &self,
        chunk: &'a [u8],
        turns: usize,
        upto: usize,
        mut keep: impl FnMut(usize, T),
    ) -> Result<(), crate::Error> {
        let mut at = 0;
        for i in 0..upto.min(turns) {
            let (t, used): (T, usize) =
                stored::decode_prefix(&chunk[at..]).map_err(|e| self.error(invalid(e)))?;
            at += used;
            keep(i, t);
        }
        Ok(())
    }

    /// Remember that stored turns could not be read back (`e`): what
    /// changed them is lost, and the build says so.
    pub fn unreadable(&self, e: &crate::Error) {
        self.fail(format!("cannot read back extracted turns: {e}"));
    }

    /// Remember why turns could not be written or read back: from then
    /// on turns stay held.
    fn fail(&self, why: String) {
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.get_or_insert(why);
    }
}

#[cfg(unix)]
fn write_at(file: &std::fs::File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn write_at(file: &std::fs::File, mut buf: &[u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, buf, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        buf = &buf[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(file, buf, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(i: usize) -> Turn {
        Turn::Prompt {
            ts: None,
            text: crate::knowledge::model::Text::test(&format!(
                "prompt {i} {}",
                "x".repeat(i * 37 % 5000)
            )),
        }
    }

    #[test]
    fn stowed_turns_read_back_whole_and_in_ranges() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let all: Vec<Turn> = (0..400).map(prompt).collect();
        let mut turns = Turns::from(all[..250].to_vec());
        let mut later = Turns::from(all[250..].to_vec());
        spill.stow(&mut turns);
        spill.stow(&mut later);
        turns.append(later);
        assert!(
            turns.pieces.len() > 4,
            "several chunks: {}",
            turns.pieces.len()
        );
        assert!(turns
            .pieces
            .iter()
            .all(|(_, p)| matches!(p, Piece::Stored { .. })));
        assert_eq!(turns.len(), 400);
        assert_eq!(spill.load(&turns).expect("load"), all);
        for range in [0..0, 0..1, 3..97, 120..260, 249..251, 399..400, 0..400] {
            assert_eq!(
                spill.load_range(&turns, range.clone()).expect("load"),
                all[range.clone()],
                "{range:?}"
            );
        }
    }

    proptest::proptest! {
        /// Picked turns, stored or held, come back as they were, in the
        /// order asked.
        #[test]
        fn picked_turns_are_the_turns_at_those_places(
            picks in proptest::collection::btree_set(0usize..300, 0..40),
            held in 0usize..300,
        ) {
            let dir = tempfile::tempdir().expect("temp dir");
            let spill = Spill::in_dir(dir.path()).expect("spill");
            let all: Vec<Turn> = (0..300).map(prompt).collect();
            let mut turns = Turns::from(all[held..].to_vec());
            spill.stow(&mut turns);
            turns.prepend(Turns::from(all[..held].to_vec()));
            let at: Vec<usize> = picks.into_iter().collect();
            let want: Vec<Turn> = at.iter().map(|&i| all[i].clone()).collect();
            proptest::prop_assert_eq!(spill.load_at(&turns, &at).expect("load"), want);
            // Pieces end in order, the last with the last turn; asked one
            // piece at a time, the turns are the same.
            let ends: Vec<usize> = turns.pieces.iter().map(|(end, _)| *end).collect();
            proptest::prop_assert!(ends.windows(2).all(|w| w[0] < w[1]));
            proptest::prop_assert_eq!(ends.last().copied(), Some(300));
            let mut by_piece = Vec::new();
            for group in at.chunk_by(|&a, &b| {
                ends.partition_point(|&e| e <= a) == ends.partition_point(|&e| e <= b)
            }) {
                by_piece.extend(spill.load_at(&turns, group).expect("load"));
            }
            proptest::prop_assert_eq!(by_piece, at.iter().map(|&i| all[i].clone()).collect::<Vec<_>>());
        }
    }

    /// What [`Turns::identity`] hashes, found by walking every piece
    /// from the first (as it was before pieces knew where they end).
    fn identity_by_walk(turns: &Turns, range: Range<usize>) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (range.start, range.end).hash(&mut h);
        let mut start = 0;
        for (_, piece) in &turns.pieces {
            let here = start..start + piece.len();
            start = here.end;
            if here.end <= range.start || here.start >= range.end {
                continue;
            }
            match piece {
                Piece::Held(_) => return None,
                Piece::Stored { turns, hash, .. } => (here.start, *turns, *hash).hash(&mut h),
            }
        }
        Some(h.finish())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// However a list is made (turns pushed, lists stowed, appended and
        /// prepended, a stored turn taken out to change), each piece knows
        /// where it ends, and turns found by halves are the turns found by
        /// walking: the same turns read back, the same identities, the
        /// same turn to change.
        #[test]
        fn pieces_found_by_halves_are_the_pieces_walked_to(
            steps in proptest::collection::vec((0u8..5, 1usize..120), 1..12),
            ranges in proptest::collection::vec((0usize..1000, 0usize..60), 8),
        ) {
            use std::hash::Hasher;
            let dir = tempfile::tempdir().expect("temp dir");
            let spill = Spill::in_dir(dir.path()).expect("spill");
            let mut turns = Turns::default();
            let mut want: Vec<Turn> = Vec::new();
            let mut next = 0;
            let mut fresh = |n: usize| -> Vec<Turn> {
                next += n;
                (next - n..next).map(prompt).collect()
            };
            for (op, n) in steps {
                match op {
                    0 => {
                        let t = fresh(1).remove(0);
                        want.push(t.clone());
                        turns.push(t);
                    }
                    1 | 2 => {
                        let part = fresh(n);
                        let mut list = Turns::from(part.clone());
                        if op == 1 {
                            spill.stow(&mut list);
                        }
                        want.extend(part);
                        turns.append(list);
                    }
                    3 => {
                        let part = fresh(n);
                        let mut list = Turns::from(part.clone());
                        spill.stow(&mut list);
                        want.splice(0..0, part);
                        turns.prepend(list);
                    }
                    _ => {
                        spill.stow(&mut turns);
                        if !want.is_empty() {
                            let i = n % want.len();
                            let t = turns.get_mut(i, &spill).expect("turn to change");
                            proptest::prop_assert_eq!(&*t, &want[i]);
                        }
                    }
                }
            }
            let mut end = 0;
            for (e, piece) in &turns.pieces {
                end += piece.len();
                proptest::prop_assert_eq!(*e, end);
            }
            proptest::prop_assert_eq!(turns.len(), want.len());
            proptest::prop_assert_eq!(spill.load(&turns).expect("load"), want.clone());
            for (start, len) in ranges {
                let start = start % (want.len() + 1);
                let range = start..(start + len).min(want.len());
                proptest::prop_assert_eq!(
                    spill.load_range(&turns, range.clone()).expect("load"),
                    want[range.clone()].to_vec()
                );
                let mut h = std::collections::hash_map::DefaultHasher::new();
                let known = turns.identity(range.clone(), &mut h);
                proptest::prop_assert_eq!(known.then(|| h.finish()), identity_by_walk(&turns, range));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The chunks handed over hold every turn, in order, each with its
        /// own hash, whether held, stored side by side (read together,
        /// more than a run's bytes in all) or stored apart.
        #[test]
        fn encoded_chunks_hold_the_turns_in_order(
            cuts in proptest::collection::btree_set(1usize..600, 0..8),
            held in 0usize..600,
            apart: bool,
        ) {
            let dir = tempfile::tempdir().expect("temp dir");
            let spill = Spill::in_dir(dir.path()).expect("spill");
            let all: Vec<Turn> = (0..600).map(prompt).collect();
            let mut turns = Turns::default();
            let bounds: Vec<usize> = std::iter::once(held)
                .chain(cuts.into_iter().filter(|&c| c > held))
                .chain([600])
                .collect();
            for w in bounds.windows(2) {
                let mut part = Turns::from(all[w[0]..w[1]].to_vec());
                spill.stow(&mut part);
                turns.append(part);
                if apart {
                    spill.stow(&mut Turns::from(vec![prompt(1)]));
                }
            }
            turns.prepend(Turns::from(all[..held].to_vec()));
            let mut back = Vec::new();
            spill.encoded(&turns, |bytes, n, hash| {
                assert_eq!(hash, crate::base::hash::hash_bytes(bytes));
                let mut at = 0;
                for _ in 0..n {
                    let (t, used): (Turn, usize) = stored::decode_prefix(&bytes[at..]).expect("turn");
                    back.push(t);
                    at += used;
                }
                assert_eq!(at, bytes.len(), "a chunk holds its turns and nothing else");
                Ok(())
            }).expect("encoded");
            proptest::prop_assert_eq!(back, all);
        }
    }

    #[test]
    fn stored_chunks_changed_on_disk_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let mut turns = Turns::from((0..50).map(prompt).collect::<Vec<_>>());
        spill.stow(&mut turns);
        let Some((_, Piece::Stored { offset, .. })) = turns.pieces.last() else {
            panic!("stored: {:?}", turns.pieces);
        };
        let file = spill.file.as_ref().expect("file");
        write_at(file, b"changed", *offset).expect("write");
        let err = spill
            .encoded(&turns, |_, _, _| Ok(()))
            .expect_err("refused");
        assert!(err.to_string().contains("changed on disk"), "{err}");
    }

    #[test]
    fn held_and_stored_pieces_mix_in_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let mut first = Turns::from((0..10).map(prompt).collect::<Vec<_>>());
        spill.stow(&mut first);
        let mut turns = Turns::from((10..20).map(prompt).collect::<Vec<_>>());
        turns.prepend(first);
        assert_eq!(
            spill.load(&turns).expect("load"),
            (0..20).map(prompt).collect::<Vec<_>>()
        );
        // Without a file, stowing keeps turns held.
        let mut held = Turns::from(vec![prompt(1)]);
        Spill::none().stow(&mut held);
        assert_eq!(held.pieces, vec![(1, Piece::Held(vec![prompt(1)]))]);
    }

    #[test]
    fn the_file_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let mut t = Turns::from(vec![prompt(3)]);
        spill.stow(&mut t);
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_keeps_the_turns_in_memory_and_says_why() {
        // Every write to /dev/full fails with "no space left on device".
        let full = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let spill = Spill {
            file: Some(full),
            dir: PathBuf::from("/dev"),
            ..Spill::default()
        };
        let all: Vec<Turn> = (0..300).map(prompt).collect();
        let mut turns = Turns::from(all.clone());
        spill.stow(&mut turns);
        let why = spill.failure().expect("the failure is reported");
        assert!(why.to_lowercase().contains("space"), "{why}");
        assert_eq!(turns.len(), 300);
        assert_eq!(spill.load(&turns).expect("held turns read back"), all);
        // Later turns are held at once.
        let mut more = Turns::from(vec![prompt(7)]);
        spill.stow(&mut more);
        assert_eq!(more.pieces, vec![(1, Piece::Held(vec![prompt(7)]))]);
    }
}
