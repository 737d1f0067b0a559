//! Diffs made once for two pages. A call that changed a file shows its
//! diff on its session's page and again on the file's page: the session
//! page, rendered first, keeps the diffs the file pages will show, and
//! each file page takes them instead of reading its changes' turns back
//! and diffing them again (the second diff of every change and the turns
//! read back for it were a sixth of rendering a gigabyte's pages).
//!
//! The first [`HELD_BYTES`] of them are held in memory, the rest written
//! to the spill: writing them all out and reading them back was 4 % of
//! rendering a gigabyte's pages (whose 14 MB of them are held), and
//! holding them all would make memory grow with the data (59 MB for 3 GB).
//!
//! A diff not kept (its session page was not rendered, because it did not
//! change since the last build, or the spill could not take it) is made by
//! the file page as before: what is shared only saves time.

use crate::knowledge::spill::Spill;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A call by where its session's turns hold it: (session, turn, block).
pub type CallAt = (usize, usize, usize);

/// The most bytes of diffs held in memory at once.
const HELD_BYTES: usize = if cfg!(test) { 8 } else { 16 << 20 };

/// The diffs file pages will show, kept as their session pages make them.
#[derive(Debug, Default)]
pub struct SharedDiffs<'m> {
    spill: Option<&'m Spill>,
    /// Each call a file page shows the diff of, and its diff once made.
    wanted: FxHashMap<CallAt, Mutex<Kept>>,
    /// The bytes of the diffs held now.
    held: AtomicUsize,
}

/// A wanted diff, as far as it got.
#[derive(Debug, Default)]
enum Kept {
    /// Not made yet.
    #[default]
    Waiting,
    Held(String),
    /// In the spill, at this offset, this long.
    Stored(u64, usize),
    /// Taken, or not kept (the spill could not take it).
    Gone,
}

impl<'m> SharedDiffs<'m> {
    /// Diffs to keep for the calls `wanted`, in memory or in `spill`.
    pub fn new(spill: &'m Spill, wanted: impl IntoIterator<Item = CallAt>) -> SharedDiffs<'m> {
        SharedDiffs {
            spill: Some(spill),
            wanted: (wanted.into_iter())
                .map(|at| (at, Mutex::new(Kept::Waiting)))
                .collect(),
            held: AtomicUsize::new(0),
        }
    }

    /// The diff of the call `at`, made by `make`, and kept (the first
    /// time it is made) when a file page wants it.
    pub fn made(&self, at: CallAt, make: impl FnOnce() -> String) -> String {
        let html = make();
        // Most calls change no file: no diff, and nothing to look up (a
        // file page left without an empty diff makes the same one).
        if html.is_empty() {
            return html;
        }
        let (Some(slot), Some(spill)) = (self.wanted.get(&at), self.spill) else {
            return html;
        };
        let Ok(mut kept) = slot.lock() else {
            return html;
        };
        if !matches!(*kept, Kept::Waiting) {
            return html;
        }
        let held = self.held.fetch_add(html.len(), Ordering::Relaxed) + html.len();
        *kept = if held <= HELD_BYTES {
            Kept::Held(html.clone())
        } else {
            self.held.fetch_sub(html.len(), Ordering::Relaxed);
            match spill.put(html.as_bytes()) {
                Some(offset) => Kept::Stored(offset, html.len()),
                None => Kept::Gone,
            }
        };
        html
    }

    /// The diff of the call `at` its session page kept, if it did: taken
    /// once (a file page shows it once), its memory let go.
    pub fn take(&self, at: CallAt) -> Option<String> {
        let mut slot = self.wanted.get(&at)?.lock().ok()?;
        if matches!(*slot, Kept::Waiting) {
            return None;
        }
        match std::mem::replace(&mut *slot, Kept::Gone) {
            Kept::Held(html) => {
                self.held.fetch_sub(html.len(), Ordering::Relaxed);
                Some(html)
            }
            Kept::Stored(offset, len) => {
                let bytes = self.spill?.get(offset, len).ok()?;
                String::from_utf8(bytes).ok()
            }
            Kept::Waiting | Kept::Gone => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wanted_diff_is_kept_once_made_and_taken_once() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let spill = Spill::in_dir(dir.path()).expect("a spill");
        let shared = SharedDiffs::new(&spill, [(0, 1, 2), (3, 4, 5), (6, 7, 8)]);
        assert_eq!(shared.take((0, 1, 2)), None, "not made yet");
        // Held while it fits in memory (8 bytes in tests), stored after.
        let (small, large) = ("<i>d</i>", "<span class=\"ins\">a &amp; b</span>");
        assert_eq!(shared.made((0, 1, 2), || small.to_string()), small);
        assert_eq!(shared.held.load(Ordering::Relaxed), small.len());
        assert_eq!(shared.made((3, 4, 5), || large.to_string()), large);
        assert_eq!(shared.made((9, 9, 9), || "other".to_string()), "other");
        assert_eq!(shared.held.load(Ordering::Relaxed), small.len());
        // Made again (a page rendered twice), the first stays.
        assert_eq!(shared.made((0, 1, 2), || "again".to_string()), "again");
        assert_eq!(shared.take((0, 1, 2)).as_deref(), Some(small));
        assert_eq!(shared.held.load(Ordering::Relaxed), 0, "let go");
        assert_eq!(shared.take((3, 4, 5)).as_deref(), Some(large));
        assert_eq!(shared.take((0, 1, 2)), None, "taken once");
        assert_eq!(shared.take((3, 4, 5)), None, "taken once");
        assert_eq!(shared.take((9, 9, 9)), None, "not wanted, not kept");
        assert_eq!(shared.made((6, 7, 8), String::new), "", "no diff");
        assert_eq!(shared.take((6, 7, 8)), None, "wanted, never made but empty");
        // Room let go is room for the next.
        assert_eq!(shared.made((6, 7, 8), || small.to_string()), small);
        assert_eq!(shared.held.load(Ordering::Relaxed), small.len());
        assert_eq!(shared.take((6, 7, 8)).as_deref(), Some(small));
    }

    #[test]
    fn without_a_spill_file_only_what_memory_holds_is_kept() {
        let spill = Spill::none();
        let shared = SharedDiffs::new(&spill, [(0, 0, 0), (1, 1, 1)]);
        assert_eq!(shared.made((0, 0, 0), || "d".to_string()), "d");
        assert_eq!(
            shared.made((1, 1, 1), || "too long".repeat(2)),
            "too long".repeat(2)
        );
        assert_eq!(shared.take((0, 0, 0)).as_deref(), Some("d"));
        assert_eq!(shared.take((1, 1, 1)), None);
        let default = SharedDiffs::default();
        assert_eq!(default.made((0, 0, 0), || "d".to_string()), "d");
        assert_eq!(default.take((0, 0, 0)), None);
    }
}
