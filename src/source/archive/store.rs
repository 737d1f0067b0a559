//! The archive on disk: zstd objects named by the hash of what they hold,
//! and a journal that says which file had which content.
//!
//! ```text
//! archive/
//!   objects/3f/a9…e1.zst   a file's bytes, zstd; first a skippable frame
//!                          naming the file (to rebuild a lost journal);
//!                          a file that grew: the frames of the version it
//!                          grew from, then one of what was added
//!   journal.jsonl          one line per version kept or superseded
//!   tmp/                   objects being written
//! ```
//!
//! Nothing is ever rewritten in place: an object is written to `tmp/`,
//! flushed to disk and renamed; only then does the journal get its line.
//! A build killed at any point leaves objects that are whole (or none)
//! and a journal whose last line at worst is cut (and then ignored).
//!
//! A file that grows gets a line for each version kept and one for each
//! it supersedes, build after build: once the journal holds many more
//! lines than versions kept, it is written anew (in `tmp/`, renamed over
//! the old one) with one line per version, so opening the archive costs
//! what it holds, not how many builds it has seen.

use crate::base::error::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3Default;

/// zstd's level: fast to write, about a sixth of the size on transcripts.
const LEVEL: i32 = 3;
/// Files shorter than this are compressed whole when they grow: cheap
/// enough, and a frame of their own for a few added bytes would not be.
const GROWN_MIN: u64 = 1 << 20;
/// Frames of added bytes an object may hold before the file is compressed
/// whole again: each is a little larger than the same bytes compressed
/// with the rest (a history grows by a line or two a build).
const GROWN_FRAMES: u32 = if cfg!(test) { 3 } else { 32 };
/// The magic number of the skippable frame that names an object's file.
const NAME_FRAME: u32 = 0x184D_2A5C;
const JOURNAL: &str = "journal.jsonl";
/// The most new objects a commit flushes one by one (with their folders)
/// on Linux; more are flushed with the whole file system at once.
const FLUSHED_ONE_BY_ONE: usize = 64;
/// Lines beyond twice the versions kept that a journal may hold before
/// it is written anew.
const JOURNAL_SLACK: usize = 4096;

/// The content hash that names an object.
pub type ObjectId = u128;

pub fn hex(id: ObjectId) -> String {
    format!("{id:032x}")
}

/// One content a file had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub object: ObjectId,
    pub len: u64,
    /// Modification time (nanoseconds since 1970) when it was read.
    pub mtime: i64,
    /// When it was kept: later versions have larger numbers.
    pub seq: u64,
}

/// A line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Entry {
    /// `path` had this content (again, or for the first time).
    Add {
        /// The source (`--source`) the file was read from.
        source: String,
        path: String,
        object: String,
        len: u64,
        mtime: i64,
    },
    /// A longer version of `path` holds this one: it is no longer kept.
    Drop {
        source: String,
        path: String,
        object: String,
    },
}

/// A line of the journal as it is read: an [`Entry`], its fields borrowed
/// from the line where they hold no escapes. (Read as the tagged `Entry`,
/// every line was first buffered into a tree of values: 76,000 lines took
/// 58 ms, at every build.)
#[derive(Deserialize)]
struct Line<'a> {
    op: &'a str,
    #[serde(borrow)]
    source: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    path: std::borrow::Cow<'a, str>,
    object: &'a str,
    len: Option<u64>,
    mtime: Option<i64>,
}

impl Entry {
    /// The entry as the journal's reader sees it.
    fn line(&self) -> Line<'_> {
        use std::borrow::Cow::Borrowed;
        match self {
            Entry::Add {
                source,
                path,
                object,
                len,
                mtime,
            } => Line {
                op: "add",
                source: Borrowed(source),
                path: Borrowed(path),
                object,
                len: Some(*len),
                mtime: Some(*mtime),
            },
            Entry::Drop {
                source,
                path,
                object,
            } => Line {
                op: "drop",
                source: Borrowed(source),
                path: Borrowed(path),
                object,
                len: None,
                mtime: None,
            },
        }
    }
}

/// `entries` as lines of the journal.
fn journal_text(entries: &[Entry]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&serde_json::to_string(entry).unwrap_or_default());
        text.push('\n');
    }
    text
}

/// A file of the archive: the source it came from (`--source`, resolved)
/// and its path in a data directory's layout (`projects/<folder>/<session>.jsonl`).
pub type FileKey = (String, String);

/// What the archive holds: every file and its versions.
#[derive(Debug)]
pub struct Store {
    pub dir: PathBuf,
    pub files: BTreeMap<FileKey, Vec<Version>>,
    /// Journal lines that could not be read (a cut last line).
    pub bad_lines: usize,
    /// The journal was missing or unreadable and was rebuilt from objects.
    pub rebuilt: bool,
    seq: u64,
    /// Lines in the journal.
    lines: usize,
    /// Objects moved into place since the last commit, to be made durable
    /// before the journal names them.
    moved: std::sync::Mutex<Vec<PathBuf>>,
    /// Held while the archive is open: one build at a time writes it.
    _lock: File,
}

/// Wait for, then hold, the archive's lock.
fn lock(dir: &Path) -> Result<File, Error> {
    let path = dir.join("lock");
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    f.lock().map_err(|e| Error::io(&path, e))?;
    Ok(f)
}

/// Make `dir` (and its parents) readable by its owner only.
pub fn private_dir(dir: &Path) -> Result<(), Error> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| Error::io(dir, e))
}

/// A new file only its owner can read.
fn private_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

impl Store {
    /// Open (or create) the archive in `dir`.
    pub fn open(dir: &Path) -> Result<Store, Error> {
        private_dir(&dir.join("objects"))?;
        private_dir(&dir.join("tmp"))?;
        let mut store = Store {
            dir: dir.to_path_buf(),
            files: BTreeMap::new(),
            bad_lines: 0,
            rebuilt: false,
            seq: 0,
            lines: 0,
            moved: std::sync::Mutex::default(),
            _lock: lock(dir)?,
        };
        let journal = dir.join(JOURNAL);
        match File::open(&journal) {
            Ok(f) => store.read_journal(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(journal, e)),
        }
        if store.files.is_empty() && store.bad_lines > 0 || store.needs_rebuild()? {
            store.rebuild()?;
        } else if store.lines > 2 * store.versions() + JOURNAL_SLACK {
            // Best effort: a journal that cannot be written anew stays
            // as it is, long but right.
            let _ = store.compact();
        }
        Ok(store)
    }

    /// How many versions of files are kept.
    fn versions(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }

    /// Write the journal anew: one line per version kept, in the order
    /// they were kept.
    fn compact(&mut self) -> Result<(), Error> {
        let mut kept: Vec<(&FileKey, &Version)> = self
            .files
            .iter()
            .flat_map(|(key, versions)| versions.iter().map(move |v| (key, v)))
            .collect();
        kept.sort_by_key(|(_, v)| v.seq);
        let entries: Vec<Entry> = kept
            .into_iter()
            .map(|((source, path), v)| Entry::Add {
                source: source.clone(),
                path: path.clone(),
                object: hex(v.object),
                len: v.len,
                mtime: v.mtime,
            })
            .collect();
        self.replace_journal(entries)
    }

    /// Make `entries` the whole journal (written aside, then renamed over
    /// it) and what the store holds.
    fn replace_journal(&mut self, entries: Vec<Entry>) -> Result<(), Error> {
        let tmp = self.dir.join("tmp").join(JOURNAL);
        let _ = fs::remove_file(&tmp);
        let mut f = private_file(&tmp).map_err(|e| Error::io(&tmp, e))?;
        f.write_all(journal_text(&entries).as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| Error::io(&tmp, e))?;
        let journal = self.dir.join(JOURNAL);
        fs::rename(&tmp, &journal).map_err(|e| Error::io(&journal, e))?;
        sync_all(&self.dir)?;
        self.files.clear();
        self.seq = 0;
        self.lines = 0;
        self.take_in(&entries);
        Ok(())
    }

    /// Take `entries`, now in the journal, into what the store holds.
    fn take_in(&mut self, entries: &[Entry]) {
        self.lines += entries.len();
        for entry in entries {
            self.apply(entry.line());
        }
    }

    fn read_journal(&mut self, f: File) {
        for line in BufReader::new(f).split(b'\n') {
            let Ok(line) = line else {
                self.bad_lines += 1;
                break;
            };
            if line.is_empty() {
                continue;
            }
            self.lines += 1;
            let applied = serde_json::from_slice::<Line>(&line)
                .ok()
                .is_some_and(|l| self.apply(l));
            if !applied {
                self.bad_lines += 1;
            }
        }
    }

    /// Apply one line of the journal; false for one that says nothing
    /// that can be applied.
    fn apply(&mut self, line: Line<'_>) -> bool {
        let Ok(object) = u128::from_str_radix(line.object, 16) else {
            return false;
        };
        let key = (line.source.into_owned(), line.path.into_owned());
        match (line.op, line.len, line.mtime) {
            ("add", Some(len), Some(mtime)) => {
                self.seq += 1;
                let versions = self.files.entry(key).or_default();
                versions.retain(|v| v.object != object);
                versions.push(Version {
                    object,
                    len,
                    mtime,
                    seq: self.seq,
                });
            }
            ("drop", _, _) => {
                if let Some(versions) = self.files.get_mut(&key) {
                    versions.retain(|v| v.object != object);
                }
            }
            _ => return false,
        }
        true
    }

    /// No journal, but objects: the journal was lost.
    fn needs_rebuild(&self) -> Result<bool, Error> {
        Ok(self.files.is_empty() && !self.object_paths()?.is_empty())
    }

    /// A new journal from the names inside the objects (a file whose
    /// content another file also had is then known under one name).
    fn rebuild(&mut self) -> Result<(), Error> {
        let mut lines = Vec::new();
        for path in self.object_paths()? {
            let Some(id) = id_of(&path) else { continue };
            let Some((source, name, mtime)) = read_name(&path) else {
                continue;
            };
            // Counted as it streams: an object can be gigabytes.
            let len = match self
                .open_object(id)
                .and_then(|mut r| std::io::copy(&mut r, &mut std::io::sink()))
            {
                Ok(len) => len,
                Err(_) => continue,
            };
            lines.push(Entry::Add {
                source,
                path: name,
                object: hex(id),
                len,
                mtime,
            });
        }
        self.replace_journal(lines)?;
        self.rebuilt = true;
        self.bad_lines = 0;
        Ok(())
    }

    /// Every object file.
    pub fn object_paths(&self) -> Result<Vec<PathBuf>, Error> {
        let root = self.dir.join("objects");
        let mut out = Vec::new();
        for entry in walkdir::WalkDir::new(&root)
            .follow_links(false)
            .sort_by_file_name()
        {
            let entry =
                entry.map_err(|e| Error::io(&root, std::io::Error::other(e.to_string())))?;
            if entry.file_type().is_file() {
                out.push(entry.into_path());
            }
        }
        Ok(out)
    }

    pub fn object_path(&self, id: ObjectId) -> PathBuf {
        let h = hex(id);
        self.dir
            .join("objects")
            .join(&h[..2])
            .join(format!("{}.zst", &h[2..]))
    }

    /// The bytes of an object.
    pub fn read_object(&self, id: ObjectId) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        self.open_object(id)?.read_to_end(&mut out)?;
        Ok(out)
    }

    /// A reader of an object's bytes.
    pub fn open_object(&self, id: ObjectId) -> std::io::Result<impl Read> {
        zstd::stream::read::Decoder::new(File::open(self.object_path(id))?)
    }

    /// Whether an object's bytes hash to its name (and zstd's own
    /// checksum holds).
    pub fn object_is_whole(&self, id: ObjectId) -> bool {
        let Ok(mut reader) = self.open_object(id) else {
            return false;
        };
        let mut hasher = Xxh3Default::new();
        let mut buf = vec![0; 1 << 16];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return hasher.digest128() == id,
                Ok(n) => hasher.update(&buf[..n]),
                Err(_) => return false,
            }
        }
    }

    /// Copy `source` (the file `name` of a data directory) into a new
    /// object, unless its content is already kept. Returns the content's
    /// id, its length, and which of `earlier` (lengths of versions of the
    /// same file) are prefixes of it, by their ids.
    pub fn write_object(
        &self,
        source: &Path,
        key: &FileKey,
        mtime: i64,
        earlier: &[Version],
    ) -> std::io::Result<Written> {
        let mut input = File::open(source)?;
        let len = input.metadata()?.len();
        // A large file that grew (the history, a transcript being written):
        // the version it starts with is kept compressed as it is, and only
        // what was added is compressed, as a frame of its own after it.
        // The longest version it may start with first (there are seldom
        // more than one or two: the versions a file grew from are let go).
        let mut bases: Vec<&Version> = earlier
            .iter()
            .filter(|v| v.len >= GROWN_MIN && v.len < len)
            .collect();
        bases.sort_by_key(|v| std::cmp::Reverse(v.len));
        for base in bases {
            if let Some(w) = self.write_grown(source, &mut input, (key, mtime), earlier, base)? {
                return Ok(w);
            }
            std::io::Seek::rewind(&mut input)?;
        }
        self.write_with(source, |out| {
            write_name(out, key, mtime, 0)?;
            compress_rest(&mut input, Hashing::new(earlier), out)
        })
    }

    /// [`Store::write_object`] for a file whose first `base.len` bytes are
    /// the version `base`: its object's frames copied, the rest compressed
    /// after them. None when the file does not start with that version,
    /// its object cannot be read, or it already holds [`GROWN_FRAMES`]
    /// added frames (then the whole file is compressed anew, as one frame).
    fn write_grown(
        &self,
        source: &Path,
        input: &mut File,
        (key, mtime): (&FileKey, i64),
        earlier: &[Version],
        base: &Version,
    ) -> std::io::Result<Option<Written>> {
        let mut hashing = Hashing::new(earlier);
        hashing.copy(
            &mut Read::by_ref(input).take(base.len),
            &mut std::io::sink(),
        )?;
        if !hashing.prefixes.contains(&base.object) {
            return Ok(None);
        }
        let Ok(mut old) = File::open(self.object_path(base.object)) else {
            return Ok(None);
        };
        let Some(added) = read_name_frame(&mut old).map(|n| n.added) else {
            return Ok(None);
        };
        if added >= GROWN_FRAMES {
            return Ok(None);
        }
        // `old` is now at its first frame of content.
        let written = self.write_with(source, |out| {
            write_name(out, key, mtime, added + 1)?;
            std::io::copy(&mut old, out)?;
            compress_rest(input, hashing, out)
        })?;
        Ok(Some(written))
    }

    /// Write an object with `write` (handed the file, which it must fill
    /// completely: name frame, then content) in `tmp/`, then move it to
    /// where its id says, unless an object of that id is there already.
    /// `source` names the temporary file.
    fn write_with(
        &self,
        source: &Path,
        write: impl FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<Written>,
    ) -> std::io::Result<Written> {
        let tmp = self.dir.join("tmp").join(format!(
            "{}-{:x}.zst",
            std::process::id(),
            xxhash_rust::xxh3::xxh3_64(source.as_os_str().as_encoded_bytes())
        ));
        // A file of that name is left from a build that was stopped.
        let file = match private_file(&tmp) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                fs::remove_file(&tmp)?;
                private_file(&tmp)?
            }
            made => made?,
        };
        let result = (|| {
            let mut out = std::io::BufWriter::new(file);
            let written = write(&mut out)?;
            let _file = out.into_inner().map_err(|e| e.into_error())?;
            // Linux flushes the objects at the commit (`flush_moved`).
            #[cfg(not(target_os = "linux"))]
            _file.sync_all()?;
            Ok::<_, std::io::Error>(written)
        })();
        let written = match result {
            Ok(w) => w,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        let target = self.object_path(written.object);
        if target.exists() {
            fs::remove_file(&tmp)?;
        } else {
            // Its folder is made the first time it is needed, not looked
            // for before every object.
            match fs::rename(&tmp, &target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if let Some(parent) = target.parent() {
                        private_dir(parent).map_err(std::io::Error::other)?;
                    }
                    fs::rename(&tmp, &target)?;
                }
                moved => moved?,
            }
            // Past `FLUSHED_ONE_BY_ONE` the commit flushes the whole file
            // system: a first fill holds no list of all it wrote.
            if let Ok(mut moved) = self.moved.lock() {
                if moved.len() <= FLUSHED_ONE_BY_ONE {
                    moved.push(target);
                }
            }
        }
        Ok(written)
    }

    /// Make every object written so far durable, then record `entries`.
    pub fn commit(
        &mut self,
        adds: Vec<(FileKey, Version)>,
        drops: Vec<(FileKey, ObjectId)>,
    ) -> Result<(), Error> {
        if adds.is_empty() && drops.is_empty() {
            return Ok(());
        }
        self.flush_moved()?;
        let journal = self.dir.join(JOURNAL);
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut f = options.open(&journal).map_err(|e| Error::io(&journal, e))?;
        let mut entries = Vec::new();
        for ((source, path), v) in adds {
            entries.push(Entry::Add {
                source,
                path,
                object: hex(v.object),
                len: v.len,
                mtime: v.mtime,
            });
        }
        for ((source, path), object) in drops {
            entries.push(Entry::Drop {
                source,
                path,
                object: hex(object),
            });
        }
        f.write_all(journal_text(&entries).as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| Error::io(&journal, e))?;
        self.take_in(&entries);
        Ok(())
    }

    /// Make the objects moved into place durable. On Linux a few one by
    /// one, with their folders (a rebuild keeps a file or two: flushing
    /// the whole file system for them took a tenth of a second on a disk,
    /// the site and the cache just written included), many at once with
    /// the whole file system (a first fill moves thousands).
    fn flush_moved(&self) -> Result<(), Error> {
        let moved = match self.moved.lock() {
            Ok(mut moved) => std::mem::take(&mut *moved),
            // A thread that held it panicked: flush everything.
            Err(_) => return sync_all(&self.dir),
        };
        // Elsewhere each object was flushed as it was written.
        if !cfg!(target_os = "linux") || moved.len() > FLUSHED_ONE_BY_ONE {
            return sync_all(&self.dir);
        }
        let mut folders: Vec<&Path> = moved.iter().filter_map(|p| p.parent()).collect();
        folders.sort();
        folders.dedup();
        for path in moved.iter().map(PathBuf::as_path).chain(folders) {
            File::open(path)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    }

    /// Remove objects no file refers to any more (versions that a longer
    /// one holds); a failure leaves a harmless extra file.
    pub fn remove_unreferenced(&self, ids: &[ObjectId]) {
        for id in ids {
            let used = self.files.values().flatten().any(|v| v.object == *id);
            if !used {
                let _ = fs::remove_file(self.object_path(*id));
            }
        }
    }
}

/// What writing an object found.
#[derive(Debug)]
pub struct Written {
    pub object: ObjectId,
    pub len: u64,
    /// Earlier versions the new content starts with.
    pub prefixes: Vec<ObjectId>,
}

/// The rest of `input`, hashed by `hashing`, written to `out` as one zstd
/// frame (with its checksum).
fn compress_rest(
    input: &mut impl Read,
    mut hashing: Hashing<'_>,
    out: &mut impl Write,
) -> std::io::Result<Written> {
    use zstd::zstd_safe::{CCtx, CParameter};
    thread_local! {
        // Each thread's compression context, set up once: a context made
        // for each object (its tables allocated, zeroed, handed back to the
        // system) was most of the time of archiving ten thousand small
        // files. Only the session is reset between objects.
        static CONTEXT: std::cell::RefCell<Option<CCtx<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    CONTEXT.with_borrow_mut(|context| {
        let context = match context {
            Some(c) => c,
            None => {
                let mut c = CCtx::try_create().ok_or_else(|| {
                    std::io::Error::other("zstd could not make a compression context")
                })?;
                let zstd_error =
                    |code| std::io::Error::other(zstd::zstd_safe::get_error_name(code));
                c.set_parameter(CParameter::CompressionLevel(LEVEL))
                    .map_err(zstd_error)?;
                c.set_parameter(CParameter::ChecksumFlag(true))
                    .map_err(zstd_error)?;
                context.insert(c)
            }
        };
        let mut encoder = zstd::stream::write::Encoder::with_context(out, context);
        hashing.copy(input, &mut encoder)?;
        encoder.finish()?;
        Ok::<(), std::io::Error>(())
    })?;
    Ok(hashing.done())
}

/// Bytes copied and hashed, checking at each earlier version's length
/// whether the bytes so far are that version.
struct Hashing<'e> {
    hasher: Xxh3Default,
    /// The earlier versions not reached yet, shortest first.
    marks: std::iter::Peekable<std::vec::IntoIter<&'e Version>>,
    prefixes: Vec<ObjectId>,
    at: u64,
}

impl<'e> Hashing<'e> {
    fn new(earlier: &'e [Version]) -> Hashing<'e> {
        let mut marks: Vec<&Version> = earlier.iter().filter(|v| v.len > 0).collect();
        marks.sort_by_key(|v| v.len);
        Hashing {
            hasher: Xxh3Default::new(),
            marks: marks.into_iter().peekable(),
            prefixes: Vec::new(),
            at: 0,
        }
    }

    /// Copy the rest of `input` into `out`.
    fn copy(&mut self, input: &mut impl Read, out: &mut impl Write) -> std::io::Result<()> {
        thread_local! {
            // Kept from one object to the next: a new zeroed buffer for
            // each of ten thousand small files was a page fault or two
            // each, and as many pages handed back.
            static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut buf = BUFFER.take();
        buf.resize(1 << 17, 0);
        let copied = self.copy_with(input, out, &mut buf);
        BUFFER.set(buf);
        copied
    }

    fn copy_with(
        &mut self,
        input: &mut impl Read,
        out: &mut impl Write,
        buf: &mut [u8],
    ) -> std::io::Result<()> {
        loop {
            let n = input.read(buf)?;
            if n == 0 {
                return Ok(());
            }
            let mut chunk = &buf[..n];
            while !chunk.is_empty() {
                // Feed up to the next mark, then look.
                let room = self.marks.peek().map_or(chunk.len() as u64, |v| {
                    (v.len - self.at).min(chunk.len() as u64)
                });
                let (now, rest) = chunk.split_at(room as usize);
                self.hasher.update(now);
                out.write_all(now)?;
                self.at += room;
                chunk = rest;
                while let Some(v) = self.marks.next_if(|v| v.len == self.at) {
                    if self.hasher.digest128() == v.object {
                        self.prefixes.push(v.object);
                    }
                }
            }
        }
    }

    fn done(self) -> Written {
        Written {
            object: self.hasher.digest128(),
            len: self.at,
            prefixes: self.prefixes,
        }
    }
}

/// The skippable frame that names the file an object was made from, and
/// how many frames of added bytes follow its first frame of content.
fn write_name(out: &mut impl Write, key: &FileKey, mtime: i64, added: u32) -> std::io::Result<()> {
    let mut name = serde_json::json!({ "source": key.0, "path": key.1, "mtime": mtime });
    if added > 0 {
        name["added"] = added.into();
    }
    let body = name.to_string();
    out.write_all(&NAME_FRAME.to_le_bytes())?;
    out.write_all(&(body.len() as u32).to_le_bytes())?;
    out.write_all(body.as_bytes())
}

/// What an object's first frame says.
struct Name {
    source: String,
    path: String,
    mtime: i64,
    added: u32,
}

/// The first frame of the object `f` reads, leaving `f` just after it.
fn read_name_frame(f: &mut impl Read) -> Option<Name> {
    let mut head = [0u8; 8];
    f.read_exact(&mut head).ok()?;
    let magic = u32::from_le_bytes(head[..4].try_into().ok()?);
    let len = u32::from_le_bytes(head[4..].try_into().ok()?) as usize;
    if magic != NAME_FRAME || len > 1 << 16 {
        return None;
    }
    let mut body = vec![0; len];
    f.read_exact(&mut body).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&body).ok()?;
    Some(Name {
        source: v.get("source")?.as_str()?.to_string(),
        path: v.get("path")?.as_str()?.to_string(),
        mtime: v.get("mtime")?.as_i64()?,
        added: v
            .get("added")
            .and_then(serde_json::Value::as_u64)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
    })
}

/// The source, file name and time an object's first frame gives.
fn read_name(path: &Path) -> Option<(String, String, i64)> {
    let n = read_name_frame(&mut File::open(path).ok()?)?;
    Some((n.source, n.path, n.mtime))
}

/// The id an object's path names.
pub fn id_of(path: &Path) -> Option<ObjectId> {
    let file = path.file_name()?.to_str()?.strip_suffix(".zst")?;
    let dir = path.parent()?.file_name()?.to_str()?;
    u128::from_str_radix(&format!("{dir}{file}"), 16).ok()
}

/// Everything written to the file system holding `dir` is on disk.
fn sync_all(dir: &Path) -> Result<(), Error> {
    let f = File::open(dir).map_err(|e| Error::io(dir, e))?;
    #[cfg(target_os = "linux")]
    {
        rustix::fs::syncfs(&f).map_err(|e| Error::io(dir, e.into()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        f.sync_all().map_err(|e| Error::io(dir, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::HashMap;
    use std::fs;

    fn version(object: ObjectId, len: u64) -> Version {
        Version {
            object,
            len,
            mtime: len as i64,
            seq: 0,
        }
    }

    /// What the store holds, without the order numbers (renumbered when
    /// the journal is written anew; their order is what counts).
    fn held(s: &Store) -> Vec<String> {
        s.files
            .iter()
            .map(|(k, vs)| {
                let mut vs = vs.clone();
                vs.sort_by_key(|v| v.seq);
                let vs: Vec<_> = vs.iter().map(|v| (v.object, v.len, v.mtime)).collect();
                format!("{k:?} {vs:?}")
            })
            .collect()
    }

    #[test]
    fn a_journal_of_many_builds_is_written_anew_with_what_is_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = |p: &str| ("src".to_string(), p.to_string());
        let before = {
            let mut s = Store::open(dir.path()).expect("open");
            // A file kept twice under two names, and one that grows build
            // after build: each version supersedes the one before.
            s.commit(
                vec![(key("a"), version(1, 10)), (key("b"), version(1, 10))],
                vec![],
            )
            .expect("commit");
            s.commit(vec![(key("a"), version(2, 20))], vec![])
                .expect("commit");
            for n in 3..3000u128 {
                let grown = vec![(key("log"), version(n, n as u64 * 10))];
                s.commit(grown, vec![(key("log"), n - 1)]).expect("commit");
            }
            held(&s)
        };
        let journal = dir.path().join(JOURNAL);
        let lines = |p: &Path| fs::read_to_string(p).expect("journal").lines().count();
        assert!(lines(&journal) > 5000, "every build left its lines");
        let s = Store::open(dir.path()).expect("open");
        assert_eq!(held(&s), before, "the same versions, in the same order");
        assert_eq!(lines(&journal), 4, "one line per version kept");
        assert!(!s.rebuilt);
        drop(s);
        // Read back as it was written, and not written again.
        let again = Store::open(dir.path()).expect("open");
        assert_eq!(held(&again), before);
        assert_eq!(again.lines, 4);
        assert_eq!(
            fs::read_dir(dir.path().join("tmp")).expect("tmp").count(),
            0
        );
    }

    #[test]
    fn a_journal_is_read_line_by_line_and_odd_lines_are_counted() {
        let dir = tempfile::tempdir().expect("temp dir");
        {
            let mut s = Store::open(dir.path()).expect("open");
            // A path with characters JSON escapes, written and read back.
            let odd = ("src".to_string(), "projects/-a/\"q\"\\é.md".to_string());
            s.commit(vec![(odd.clone(), version(7, 3))], vec![])
                .expect("commit");
        }
        let journal = dir.path().join(JOURNAL);
        let mut text = fs::read_to_string(&journal).expect("journal");
        let add = |path: &str, object: &str| {
            format!(
                r#"{{"op":"add","source":"src","path":"{path}","object":"{object}","len":5,"mtime":9}}"#
            )
        };
        for line in [
            add("b", "0b"),
            add("c", "0c"),
            r#"{"op":"drop","source":"src","path":"c","object":"0c"}"#.to_string(),
            // Not applicable: no length, an unknown operation, no hex, cut.
            r#"{"op":"add","source":"src","path":"d","object":"0d","mtime":9}"#.to_string(),
            r#"{"op":"move","source":"src","path":"e","object":"0e"}"#.to_string(),
            add("f", "zz"),
            r#"{"op":"add","sou"#.to_string(),
        ] {
            text.push_str(&line);
            text.push('\n');
        }
        fs::write(&journal, text).expect("journal");
        let s = Store::open(dir.path()).expect("open");
        assert_eq!(s.bad_lines, 4);
        assert_eq!(s.lines, 8);
        let got: Vec<String> = s
            .files
            .iter()
            .filter(|(_, vs)| !vs.is_empty())
            .map(|((_, p), vs)| {
                format!(
                    "{p} {:?}",
                    vs.iter()
                        .map(|v| (v.object, v.len, v.mtime))
                        .collect::<Vec<_>>()
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                "b [(11, 5, 9)]".to_string(),
                "projects/-a/\"q\"\\é.md [(7, 3, 3)]".to_string(),
            ]
        );
    }

    /// Objects written one after another through the thread's one
    /// compression context each read back as their file was and are
    /// whole (their checksum included), and a temporary file left by a
    /// build that was stopped does not stop the next one.
    #[test]
    fn objects_written_in_a_row_are_whole_and_a_left_temporary_file_is_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let s = Store::open(&dir.path().join("archive")).expect("open");
        let src = dir.path().join("note.md");
        let key = ("src".to_string(), "note.md".to_string());
        let left = s.dir.join("tmp").join(format!(
            "{}-{:x}.zst",
            std::process::id(),
            xxhash_rust::xxh3::xxh3_64(src.as_os_str().as_encoded_bytes())
        ));
        fs::write(&left, "cut short").expect("left");
        for n in [0usize, 1, 700, 5, 300_000, 2] {
            let text: String = (0..n)
                .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
                .collect();
            fs::write(&src, &text).expect("write");
            let w = s.write_object(&src, &key, 0, &[]).expect("write object");
            assert_eq!(s.read_object(w.object).expect("read"), text.as_bytes());
            assert!(s.object_is_whole(w.object), "{n} bytes");
            assert!(!left.exists(), "the temporary file is moved into place");
        }
    }

    /// What an object's name frame says of its added frames.
    fn added(s: &Store, id: ObjectId) -> u32 {
        let mut f = File::open(s.object_path(id)).expect("object");
        read_name_frame(&mut f).expect("name frame").added
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// A large file that grows, is cut back or rewritten, kept build
        /// after build: every object reads back as the file was, is whole,
        /// knows which earlier versions it starts with, and one that grew
        /// holds the frames of the version before it and one more (until
        /// there are too many: then it is compressed whole again).
        #[test]
        fn a_grown_file_keeps_its_earlier_frames_and_reads_back_whole(
            steps in proptest::collection::vec((0u8..8, 1usize..3000), 1..40),
        ) {
            let dir = tempfile::tempdir().expect("temp dir");
            let s = Store::open(&dir.path().join("archive")).expect("open");
            let src = dir.path().join("history.jsonl");
            let key = ("src".to_string(), "history.jsonl".to_string());
            // Lines that do not repeat, so that a megabyte stays large.
            let line = |n: usize| format!("{{\"display\":\"prompt {n} {}\"}}\n", n * 7919 % 10007);
            let mut text: String = (0..40_000).map(line).collect();
            let mut n = 40_000;
            let mut earlier: Vec<Version> = Vec::new();
            let mut frames: HashMap<ObjectId, u32> = HashMap::new();
            for (what, count) in steps {
                let before = text.clone();
                match what {
                    // Cut back, or written anew from a point on.
                    0 => text.truncate(text.len().saturating_sub(count)),
                    1 => {
                        text.truncate(text.len() / 2);
                        text.push_str(&line(n + 1_000_000));
                    }
                    _ => {
                        for _ in 0..count % 5 + 1 {
                            n += 1;
                            text.push_str(&line(n));
                        }
                    }
                }
                fs::write(&src, &text).expect("write");
                let w = s.write_object(&src, &key, 0, &earlier).expect("write object");
                proptest::prop_assert_eq!(s.read_object(w.object).expect("read"), text.as_bytes());
                proptest::prop_assert!(s.object_is_whole(w.object));
                proptest::prop_assert_eq!(w.len, text.len() as u64);
                for v in &earlier {
                    // An empty version is nobody's prefix: the archive keeps
                    // it (as it always has), it is not superseded.
                    let starts = v.len > 0
                        && text.as_bytes().starts_with(&s.read_object(v.object).expect("read"));
                    proptest::prop_assert_eq!(w.prefixes.contains(&v.object), starts);
                }
                // Objects are named by their content: a file cut back to
                // the very bytes of a version written before gets that
                // version's object back, frames and all.
                let last = earlier.last().cloned();
                match last {
                    _ if frames.contains_key(&w.object) => {
                        proptest::prop_assert_eq!(added(&s, w.object), frames[&w.object]);
                    }
                    Some(v)
                        if before.len() as u64 >= GROWN_MIN
                            && text.len() > before.len()
                            && text.starts_with(&before) =>
                    {
                        let was = added(&s, v.object);
                        let want = if was + 1 > GROWN_FRAMES { 0 } else { was + 1 };
                        proptest::prop_assert_eq!(added(&s, w.object), want);
                    }
                    _ => proptest::prop_assert_eq!(added(&s, w.object), 0),
                }
                // As the archive keeps it: the versions a new one starts
                // with are superseded.
                frames.insert(w.object, added(&s, w.object));
                earlier.retain(|v| !w.prefixes.contains(&v.object));
                earlier.push(version(w.object, w.len));
            }
        }
    }
}
