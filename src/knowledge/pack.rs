//! The reader states of the cache, many to a file: each build appends the
//! states it makes to one new pack (`states/<id>.pack`), and an entry of the
//! index says where its state is. A hundred thousand small sessions make
//! one file, not a hundred thousand (creating them was most of a cold build
//! of such a data directory on ext4). Each state is sealed on its own
//! (`stored::encode`): a torn or flipped one is a cache miss for that file
//! only.

use crate::base::stored;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where one state is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// The pack's file name under `states/`: shared by the slots of one
    /// pack (a hundred thousand copies of it took 8 MB).
    pub pack: Arc<str>,
    pub offset: u64,
    pub len: u64,
}

/// This build's pack: its name, the file, and its end.
type Writer = (Arc<str>, BufWriter<File>, u64);

/// The packs of one cache: read from any, append to this build's own.
#[derive(Debug, Default)]
pub struct Packs {
    dir: PathBuf,
    /// This build's pack, opened at the first state written, and its end.
    writer: Mutex<Option<Writer>>,
    readers: Mutex<HashMap<Arc<str>, Arc<File>>>,
}

impl Packs {
    pub fn new(dir: PathBuf) -> Packs {
        Packs {
            dir,
            ..Packs::default()
        }
    }

    /// Append `bytes` to this build's pack; None when it cannot be written.
    pub fn append(&self, bytes: &[u8]) -> Option<Slot> {
        self.append_with(|w| w.write_all(bytes).map(|()| bytes.len() as u64))
    }

    /// Append `value`, sealed (see [`stored::encode_to`]), to this build's
    /// pack, encoded straight into it: a large state is never held twice.
    pub fn append_value<T: Serialize>(&self, value: &T) -> Option<Slot> {
        self.append_with(|w| stored::encode_to(value, w))
    }

    /// This build's pack, created at the first use.
    fn writer(&self) -> Option<std::sync::MutexGuard<'_, Option<Writer>>> {
        let mut w = self.writer.lock().ok()?;
        if w.is_none() {
            std::fs::create_dir_all(&self.dir).ok()?;
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let name = format!("{:032x}-{}.pack", stamp, std::process::id());
            let file = File::create_new(self.dir.join(&name)).ok()?;
            *w = Some((name.into(), BufWriter::with_capacity(1 << 16, file), 0));
        }
        Some(w)
    }

    /// Room for `len` bytes at the end of this build's pack, which later
    /// appends leave alone, and the pack's file to write them into at the
    /// slot's offset (from another thread, while the build goes on).
    pub fn reserve(&self, len: u64) -> Option<(Slot, File)> {
        use std::io::{Seek, SeekFrom};
        let mut w = self.writer()?;
        let (name, file, offset) = w.as_mut()?;
        file.flush().ok()?;
        let end = offset.checked_add(len)?;
        // The file's length covers the room, so that a failed append
        // (which goes on from the file's length) never lands in it.
        file.get_ref().set_len(end).ok()?;
        file.get_mut().seek(SeekFrom::Start(end)).ok()?;
        let slot = Slot {
            pack: name.clone(),
            offset: *offset,
            len,
        };
        *offset = end;
        // A handle of its own: a clone would share the writer's position,
        // which a positioned write moves on some systems.
        let own = File::options().write(true).open(self.dir.join(&*slot.pack));
        Some((slot, own.ok()?))
    }

    /// Append what `write` writes, and says it wrote, to this build's pack.
    pub fn append_with(
        &self,
        write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<u64>,
    ) -> Option<Slot> {
        let mut w = self.writer()?;
        let (name, file, offset) = w.as_mut()?;
        let Ok(len) = write(file) else {
            // A state half written is garbage in the pack: nothing points
            // to it, and the next ones go after it.
            *offset = file.get_ref().metadata().ok()?.len() + file.buffer().len() as u64;
            return None;
        };
        let slot = Slot {
            pack: name.clone(),
            offset: *offset,
            len,
        };
        *offset += len;
        Some(slot)
    }

    /// The bytes at `slot`, if they can be read.
    pub fn read(&self, slot: &Slot) -> Option<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_into(slot, &mut buf)?;
        Some(buf)
    }

    /// The bytes at `slot` in `buf` (its room reused: checking every
    /// cached chunk on a rebuild reads tens of megabytes).
    pub fn read_into(&self, slot: &Slot, buf: &mut Vec<u8>) -> Option<()> {
        // A state of this build's pack may still be in its buffer.
        if let Some((name, w, _)) = self.writer.lock().ok()?.as_mut() {
            if *name == slot.pack {
                w.flush().ok()?;
            }
        }
        let file = {
            let mut readers = self.readers.lock().ok()?;
            match readers.get(&slot.pack) {
                Some(f) => f.clone(),
                None => {
                    let f = Arc::new(File::open(self.path(&slot.pack)?).ok()?);
                    readers.insert(slot.pack.clone(), f.clone());
                    f
                }
            }
        };
        buf.resize(usize::try_from(slot.len).ok()?, 0);
        read_at(&file, buf, slot.offset).ok()
    }

    /// The file of the pack `name`, if it is one of these packs.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        safe_name(name).map(|n| self.dir.join(n))
    }

    /// Hand what this build's pack holds in its buffer to the system, so
    /// that other readers of the file see it; false when it cannot be.
    ///
    /// Not made durable (no `fsync`): the cache is a copy of what the
    /// sources say, and every state and chunk read back is checked against
    /// its hash, so an index that outlives its pack's bytes in a crash
    /// costs a reading of those files, never a wrong page. Waiting for the
    /// disk was 48 ms of a cold 1 GB build on a virtual disk.
    pub fn flush(&self) -> bool {
        match self.writer.lock() {
            Ok(mut w) => w.as_mut().is_none_or(|(_, f, _)| f.flush().is_ok()),
            Err(_) => false,
        }
    }

    /// Remove every file of `states/` that `live` does not name.
    pub fn keep_only(&self, live: &std::collections::HashSet<&str>) {
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.filter_map(Result::ok) {
                if !live.contains(e.file_name().to_string_lossy().as_ref()) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    /// Bytes of the pack `name` on disk.
    pub fn size(&self, name: &str) -> u64 {
        safe_name(name)
            .and_then(|n| std::fs::metadata(self.dir.join(n)).ok())
            .map_or(0, |m| m.len())
    }
}

/// A pack name from the index, never a path.
fn safe_name(name: &str) -> Option<&Path> {
    crate::base::dirs::plain_name(name).then(|| Path::new(name))
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file.try_clone()?;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Seek;

    #[test]
    fn states_go_in_one_pack_and_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let packs = Packs::new(dir.path().join("states"));
        let a = packs.append(b"first").unwrap();
        let b = packs.append(b"second!").unwrap();
        assert_eq!((a.pack == b.pack, b.offset, b.len), (true, 5, 7));
        // Still in the writer's buffer, and read all the same.
        assert_eq!(packs.read(&a).as_deref(), Some(&b"first"[..]));
        let c = packs.append_value(&("third", 3u8)).unwrap();
        assert_eq!(c.offset, 12);
        assert!(packs.flush());
        let third = packs.read(&c).unwrap();
        assert_eq!(stored::decode(&third), Some(("third".to_string(), 3u8)));
        assert_eq!(packs.read(&b).as_deref(), Some(&b"second!"[..]));
        let other = Packs::new(dir.path().join("states"));
        assert_eq!(other.read(&a).as_deref(), Some(&b"first"[..]));
        // Past the end, or a name that is a path: nothing.
        let torn = Slot {
            len: 99,
            ..a.clone()
        };
        assert!(other.read(&torn).is_none());
        let escape = Slot {
            pack: "../x".into(),
            ..a.clone()
        };
        assert!(other.read(&escape).is_none());
        // Room kept, filled later through the file handed out: appends
        // go after it, and it reads back as written.
        let (room, file) = packs.reserve(6).unwrap();
        let after = packs.append(b"after").unwrap();
        assert_eq!(
            (room.offset, after.offset),
            (c.offset + c.len, room.offset + 6)
        );
        assert!(packs.flush());
        let mut file = file;
        file.seek(std::io::SeekFrom::Start(room.offset)).unwrap();
        file.write_all(b"filled").unwrap();
        assert_eq!(packs.read(&room).as_deref(), Some(&b"filled"[..]));
        assert_eq!(packs.read(&after).as_deref(), Some(&b"after"[..]));
        let live = std::collections::HashSet::new();
        other.keep_only(&live);
        assert_eq!(
            std::fs::read_dir(dir.path().join("states"))
                .unwrap()
                .count(),
            0
        );
    }
}
