//! A large file's turns copied from the spill to another file (the
//! cache's pack) on a thread of their own, as they lie: see
//! [`Spill::copy_later`].

use super::{write_at, Chunk, Piece, Spill, Turns, RUN_BYTES};

/// Copies of spilled turns into other files (see [`Spill::copy_later`]),
/// and other cache files written after the build has what it needs of
/// them, each on a thread of its own: waited for when dropped.
#[derive(Debug, Default)]
#[must_use = "copies run until waited for"]
pub struct Copies {
    threads: Vec<std::thread::JoinHandle<bool>>,
    /// A write run here and now (no thread could be had) failed: said by
    /// [`Copies::wait`] as a thread's failure is.
    failed_here: bool,
}

impl Copies {
    pub fn push(&mut self, copy: std::thread::JoinHandle<bool>) {
        self.threads.push(copy);
    }

    /// Run `write` on a thread of its own (here and now if no thread can
    /// be had), to be waited for with the copies.
    pub fn run(&mut self, write: impl FnOnce() -> bool + Send + 'static) {
        self.run_on(write, |job| {
            std::thread::Builder::new()
                .name("ccwiki-save".into())
                .spawn(job)
        });
    }

    /// [`Copies::run`] with the thread made by `spawn` (which may refuse).
    fn run_on<W, S>(&mut self, write: W, spawn: S)
    where
        W: FnOnce() -> bool + Send + 'static,
        S: FnOnce(
            Box<dyn FnOnce() -> bool + Send>,
        ) -> std::io::Result<std::thread::JoinHandle<bool>>,
    {
        use std::sync::{Arc, Mutex};
        // Shared, so that it is still here when the thread is refused.
        let job = Arc::new(Mutex::new(Some(write)));
        let theirs = Arc::clone(&job);
        let take = |job: &Mutex<Option<W>>| job.lock().unwrap_or_else(|e| e.into_inner()).take();
        match spawn(Box::new(move || take(&theirs).is_some_and(|w| w()))) {
            Ok(handle) => self.push(handle),
            Err(_) => {
                if let Some(write) = take(&job) {
                    self.failed_here |= !write();
                }
            }
        }
    }

    /// No copy to wait for.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && !self.failed_here
    }

    /// Wait for every copy; false when one failed (its bytes are not all
    /// where they were to go).
    pub fn wait(mut self) -> bool {
        self.join()
    }

    fn join(&mut self) -> bool {
        // Every one joined, whatever the others say.
        let mut ok = !std::mem::take(&mut self.failed_here);
        for copy in self.threads.drain(..) {
            ok &= copy.join().unwrap_or(false);
        }
        ok
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        self.join();
    }
}

impl Turns {
    /// Bytes of the turns in the spill's own file (not held, not on a
    /// shelf).
    pub fn spilled_bytes(&self) -> u64 {
        (self.pieces.iter())
            .filter(|(_, p)| matches!(p, Piece::Stored { shelf: 0, .. }))
            .map(|(_, p)| p.stored_bytes())
            .sum()
    }
}

impl Spill {
    /// The chunks of `lists`, one list after another in an area as
    /// [`Spill::copy_later`] copies them (offsets from the area's start),
    /// and the area's bytes; None unless every turn of them is in the
    /// spill's own file.
    pub fn chunks_in_place(lists: &[&Turns]) -> Option<(Vec<Vec<Chunk>>, u64)> {
        let mut at = 0u64;
        let chunks = (lists.iter())
            .map(|turns| {
                (turns.pieces.iter())
                    .map(|(_, piece)| match piece {
                        Piece::Stored {
                            shelf: 0,
                            bytes,
                            turns,
                            hash,
                            ..
                        } => {
                            let chunk = Chunk {
                                offset: at,
                                bytes: *bytes,
                                turns: *turns,
                                hash: *hash,
                            };
                            at += u64::from(*bytes);
                            Some(chunk)
                        }
                        _ => None,
                    })
                    .collect::<Option<Vec<Chunk>>>()
            })
            .collect::<Option<Vec<_>>>()?;
        Some((chunks, at))
    }

    /// Copy the bytes of `lists` into `dest` from `at` on a thread of its
    /// own, as [`Spill::encoded`] hands them (read a run at a time, each
    /// chunk checked against its hash): when every turn is in this file,
    /// the layout [`Spill::chunks_in_place`] gives. A large file's turns
    /// reach the cache while the build goes on. The thread says whether
    /// all were copied. None when the copy cannot start.
    pub fn copy_later(
        &self,
        lists: &[&Turns],
        dest: std::fs::File,
        at: u64,
    ) -> Option<std::thread::JoinHandle<bool>> {
        // A spill of the thread's own over the same file (the lists of a
        // stored file are a few bytes a chunk).
        let reader = Spill {
            file: Some(self.file.as_ref()?.try_clone().ok()?),
            dir: self.dir.clone(),
            ..Spill::default()
        };
        let lists: Vec<Turns> = lists.iter().map(|&turns| turns.clone()).collect();
        let copy = move || -> std::io::Result<()> {
            let mut buf = Vec::new();
            let mut to = at;
            let mut write = |buf: &mut Vec<u8>| {
                write_at(&dest, buf, to)?;
                to += buf.len() as u64;
                buf.clear();
                Ok::<_, std::io::Error>(())
            };
            for turns in &lists {
                reader.encoded(turns, |bytes, _, _| {
                    buf.extend_from_slice(bytes);
                    match buf.len() as u64 >= RUN_BYTES {
                        true => write(&mut buf),
                        false => Ok(()),
                    }
                })?;
            }
            write(&mut buf)
        };
        std::thread::Builder::new()
            .name("ccwiki-copy".into())
            .spawn(move || copy().is_ok())
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::model::Turn;

    /// A write run apart is done once the copies are waited for, and one
    /// that failed says so.
    #[test]
    fn a_write_run_apart_is_done_when_waited_for() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("written");
        let mut copies = Copies::default();
        let to = path.clone();
        copies.run(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            std::fs::write(&to, "done").is_ok()
        });
        assert!(!copies.is_empty());
        assert!(copies.wait());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "done");
        let mut failing = Copies::default();
        failing.run(|| true);
        failing.run(|| false);
        assert!(!failing.wait());
    }

    /// With no thread to be had, a write runs here and now, and what it
    /// says is said by `wait` as a thread's would be.
    #[test]
    fn a_write_run_here_when_no_thread_is_had_still_says_it_failed() {
        let refuse = |_| Err(std::io::Error::other("no thread"));
        let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut copies = Copies::default();
        let mark = std::sync::Arc::clone(&ran);
        copies.run_on(
            move || {
                mark.store(true, std::sync::atomic::Ordering::SeqCst);
                true
            },
            refuse,
        );
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst), "run at once");
        assert!(copies.wait());
        let mut failing = Copies::default();
        failing.run_on(|| false, refuse);
        assert!(!failing.is_empty(), "a failure is still to be said");
        assert!(!failing.wait());
    }

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
    fn stored_turns_copied_later_are_the_chunks_laid_out_in_place() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        // Two lists, their chunks apart in the file (another list's
        // between), so the copy reads more than one run.
        let mut a = Turns::from((0..120).map(prompt).collect::<Vec<_>>());
        let mut between = Turns::from((0..30).map(prompt).collect::<Vec<_>>());
        let mut b = Turns::from((200..260).map(prompt).collect::<Vec<_>>());
        spill.stow(&mut a);
        spill.stow(&mut between);
        spill.stow(&mut b);
        let (chunks, bytes) = Spill::chunks_in_place(&[&a, &b]).expect("all stored");
        // What the cache would have written: each list's chunks encoded,
        // one list after the other.
        let mut expected = Vec::new();
        let mut listed = Vec::new();
        for turns in [&a, &b] {
            let mut list = Vec::new();
            spill
                .encoded(turns, |bytes, n, hash| {
                    list.push((expected.len() as u64, bytes.len() as u32, n, hash));
                    expected.extend_from_slice(bytes);
                    Ok(())
                })
                .expect("encoded");
            listed.push(list);
        }
        let laid: Vec<Vec<(u64, u32, u32, u64)>> = (chunks.iter())
            .map(|l| {
                l.iter()
                    .map(|c| (c.offset, c.bytes, c.turns, c.hash))
                    .collect()
            })
            .collect();
        assert_eq!(laid, listed);
        assert_eq!(bytes, expected.len() as u64);
        let dest_path = dir.path().join("dest");
        std::fs::write(&dest_path, b"head").expect("dest");
        let dest = std::fs::File::options()
            .write(true)
            .open(&dest_path)
            .expect("open");
        let copy = spill.copy_later(&[&a, &b], dest, 4).expect("started");
        let mut copies = Copies::default();
        copies.push(copy);
        assert!(copies.wait());
        let written = std::fs::read(&dest_path).expect("read");
        assert_eq!(&written[..4], b"head");
        assert_eq!(&written[4..], &expected[..]);
        // Held turns are not in place: nothing to copy later.
        let held = Turns::from(vec![prompt(1)]);
        assert!(Spill::chunks_in_place(&[&a, &held]).is_none());
        assert_eq!(a.spilled_bytes(), a.stored_bytes());
        assert_eq!(held.spilled_bytes(), 0);
        // A chunk changed on disk fails the copy.
        let Some((_, Piece::Stored { offset, .. })) = b.pieces.first() else {
            panic!("stored: {:?}", b.pieces);
        };
        write_at(spill.file.as_ref().expect("file"), b"changed", *offset).expect("write");
        let dest = std::fs::File::options()
            .write(true)
            .open(&dest_path)
            .expect("open");
        let mut copies = Copies::default();
        copies.push(spill.copy_later(&[&b], dest, 4).expect("started"));
        assert!(!copies.wait());
    }
}
