//! Diffs made once for two pages. A call that changed a file shows its
//! diff on its session's page and again on the file's page: the session
//! page, rendered first, keeps the diffs the file pages will show in the
//! spill, and each file page takes them from there instead of reading its
//! changes' turns back and diffing them again (the second diff of every
//! change and the turns read back for it were a sixth of rendering a
//! gigabyte's pages).
//!
//! A diff not kept (its session page was not rendered, because it did not
//! change since the last build, or the spill could not take it) is made by
//! the file page as before: what is shared only saves time.

use crate::knowledge::spill::Spill;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// A call by where its session's turns hold it: (session, turn, block).
pub type CallAt = (usize, usize, usize);

/// The diffs file pages will show, kept as their session pages make them.
#[derive(Debug, Default)]
pub struct SharedDiffs<'m> {
    spill: Option<&'m Spill>,
    /// Each call a file page shows the diff of, and where in the spill its
    /// HTML went once made (None when the spill could not take it).
    wanted: FxHashMap<CallAt, OnceLock<Option<(u64, usize)>>>,
}

impl<'m> SharedDiffs<'m> {
    /// Diffs to keep for the calls `wanted`, in `spill`.
    pub fn new(spill: &'m Spill, wanted: impl IntoIterator<Item = CallAt>) -> SharedDiffs<'m> {
        SharedDiffs {
            spill: Some(spill),
            wanted: wanted.into_iter().map(|at| (at, OnceLock::new())).collect(),
        }
    }

    /// The diff of the call `at`, made by `make`, and kept when a file page
    /// wants it.
    pub fn made(&self, at: CallAt, make: impl FnOnce() -> String) -> String {
        let html = make();
        if let (Some(slot), Some(spill)) = (self.wanted.get(&at), self.spill) {
            slot.get_or_init(|| {
                spill
                    .put(html.as_bytes())
                    .map(|offset| (offset, html.len()))
            });
        }
        html
    }

    /// The diff of the call `at` its session page kept, if it did.
    pub fn take(&self, at: CallAt) -> Option<String> {
        let &(offset, len) = self.wanted.get(&at)?.get()?.as_ref()?;
        let bytes = self.spill?.get(offset, len).ok()?;
        String::from_utf8(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wanted_diff_is_kept_once_made_and_no_other() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let spill = Spill::in_dir(dir.path()).expect("a spill");
        let shared = SharedDiffs::new(&spill, [(0, 1, 2), (3, 4, 5)]);
        assert_eq!(shared.take((0, 1, 2)), None, "not made yet");
        let html = "<span class=\"ins\">a &amp; b</span>";
        assert_eq!(shared.made((0, 1, 2), || html.to_string()), html);
        assert_eq!(shared.made((9, 9, 9), || "other".to_string()), "other");
        assert_eq!(shared.take((0, 1, 2)).as_deref(), Some(html));
        assert_eq!(shared.take((9, 9, 9)), None, "not wanted, not kept");
        assert_eq!(shared.take((3, 4, 5)), None, "wanted, never made");
        // Made again (a page rendered twice), the first stays.
        assert_eq!(shared.made((0, 1, 2), || "again".to_string()), "again");
        assert_eq!(shared.take((0, 1, 2)).as_deref(), Some(html));
    }

    #[test]
    fn without_a_spill_nothing_is_kept() {
        let spill = Spill::none();
        let shared = SharedDiffs::new(&spill, [(0, 0, 0)]);
        assert_eq!(shared.made((0, 0, 0), || "d".to_string()), "d");
        assert_eq!(shared.take((0, 0, 0)), None);
        let default = SharedDiffs::default();
        assert_eq!(default.made((0, 0, 0), || "d".to_string()), "d");
        assert_eq!(default.take((0, 0, 0)), None);
    }
}
