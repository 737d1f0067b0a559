//! Swapping a new site in for the old one, and finding the old one again
//! after a build that was killed while it did.
//!
//! Temporary directories beside the output are named
//! `.<out>.ccwiki-<new|old>-<build id>`, with a random build id, and hold a
//! [`BUILD_FILE`] with that id: a directory is removed or restored only when
//! both agree, so nothing ccwiki did not make is ever touched.

use super::write::MARKER;
use crate::base::error::Error;
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

/// The file in a temporary directory that proves which build made it.
pub(super) const BUILD_FILE: &str = ".ccwiki-build";

/// A new random build id.
pub(super) fn build_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:016x}", h.finish())
}

fn out_name(out: &Path) -> String {
    out.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".to_string())
}

fn parent_of(out: &Path) -> &Path {
    out.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The temporary directory `tag` (`new`, `old`) of build `id` beside `out`.
pub(super) fn temp_dir(out: &Path, tag: &str, id: &str) -> PathBuf {
    parent_of(out).join(format!(".{}.ccwiki-{tag}-{id}", out_name(out)))
}

/// Mark `dir` as made by build `id`.
pub(super) fn claim(dir: &Path, id: &str) -> Result<(), Error> {
    let file = dir.join(BUILD_FILE);
    fs::write(&file, id).map_err(|e| Error::io(&file, e))
}

/// Whether `dir` proves it was made by build `id`.
fn proven(dir: &Path, id: &str) -> bool {
    dir.join(MARKER).is_file() && holds_proof(dir, id)
}

/// Whether `dir` holds the proof of build `id`.
fn holds_proof(dir: &Path, id: &str) -> bool {
    fs::read_to_string(dir.join(BUILD_FILE)).is_ok_and(|s| s == id)
}

/// Remove a directory of ours, its marker and proof last: a build killed
/// while it removes leaves a directory that still proves whose it is. The
/// entries at its top go on every core (a site's sessions, skills and
/// projects folders), each with the standard library's removal, which
/// never follows a link out of the tree even if one is swapped in meanwhile.
/// What is already gone is not an error: another build's remover may be
/// at work on the same directory.
pub(super) fn remove_proven(dir: &Path) -> std::io::Result<()> {
    let gone = |r: std::io::Result<()>| match r {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    };
    let entries = match fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        entries => entries?,
    };
    let entries: Vec<fs::DirEntry> = entries
        .filter(|e| {
            e.as_ref().map_or(true, |e| {
                e.file_name() != BUILD_FILE && e.file_name() != MARKER
            })
        })
        .collect::<std::io::Result<_>>()?;
    entries.par_iter().try_for_each(|e| {
        gone(match e.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(e.path()),
            Ok(_) => fs::remove_file(e.path()),
            Err(e) => Err(e),
        })
    })?;
    let _ = fs::remove_file(dir.join(MARKER));
    let _ = fs::remove_file(dir.join(BUILD_FILE));
    gone(fs::remove_dir(dir))
}

/// Whether `dir` holds nothing but, at most, a proof file.
fn holds_nothing(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .all(|e| e.file_name() == BUILD_FILE && e.file_type().is_ok_and(|t| t.is_file()))
    })
}

/// Before anything else: if a build was killed between its two renames,
/// put the previous site back at `out`. Returns the copies that earlier
/// builds left beside it (each proven ccwiki's), for the caller to remove
/// with [`remove_previous`]: a previous site that the last build's own
/// remover may still be at work on (waiting here for it made a build
/// started right after another take four times as long), or a killed
/// build's.
pub(super) fn recover(out: &Path) -> Result<Vec<PathBuf>, Error> {
    let prefix = format!(".{}.ccwiki-", out_name(out));
    let Ok(entries) = fs::read_dir(parent_of(out)) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<(PathBuf, bool)> = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        // A build killed before its proof was fully written left a
        // directory holding nothing else: removing it loses nothing.
        if holds_nothing(&e.path()) {
            let _ = fs::remove_file(e.path().join(BUILD_FILE));
            let _ = fs::remove_dir(e.path());
            continue;
        }
        let (old, id) = match (rest.strip_prefix("old-"), rest.strip_prefix("new-")) {
            (Some(id), _) => (true, id),
            (_, Some(id)) => (false, id),
            _ => continue,
        };
        if proven(&e.path(), id) {
            found.push((e.path(), old));
        }
    }
    let mut left = Vec::new();
    for (dir, old) in found {
        if old && fs::symlink_metadata(out).is_err() {
            fs::rename(&dir, out).map_err(|e| Error::io(out, e))?;
        } else {
            left.push(dir);
        }
    }
    // A build killed right after its swap left its proof in the site.
    let _ = fs::remove_file(out.join(BUILD_FILE));
    Ok(left)
}

/// Move `staging` (of build `id`) to `out`. The old site is replaced in one
/// atomic step where the system can (Linux), else by two renames that
/// [`recover`] can undo. Returns where the previous site now is, still
/// proving whose it is: for [`remove_previous`].
pub(super) fn swap(staging: &Path, out: &Path, id: &str) -> Result<Option<PathBuf>, Error> {
    // Both copies carry the proof through the swap; the site drops it after.
    if fs::symlink_metadata(out).is_err() {
        fs::rename(staging, out).map_err(|e| Error::io(out, e))?;
        let _ = fs::remove_file(out.join(BUILD_FILE));
        return Ok(None);
    }
    claim(out, id)?;
    let old = if exchange(staging, out) {
        staging.to_path_buf()
    } else {
        let old = temp_dir(out, "old", id);
        if let Err(e) = fs::rename(out, &old) {
            let _ = fs::remove_file(out.join(BUILD_FILE));
            return Err(Error::io(out, e));
        }
        if let Err(e) = fs::rename(staging, out) {
            // Put the previous site back.
            let _ = fs::rename(&old, out);
            let _ = fs::remove_file(out.join(BUILD_FILE));
            return Err(Error::io(out, e));
        }
        old
    };
    let _ = fs::remove_file(out.join(BUILD_FILE));
    Ok(Some(old))
}

/// Remove the previous site that the swap moved to `dir`; only a folder
/// named and proven as such is touched (the command line hands this to a
/// process of its own, which must not become a way to remove anything
/// else). What could not be removed is said in a warning; the next build
/// tries again.
pub fn remove_previous(dir: &Path) -> Result<(), String> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let id = name.as_deref().and_then(|n| {
        let (_, rest) = n.strip_prefix('.')?.rsplit_once(".ccwiki-")?;
        rest.strip_prefix("new-")
            .or_else(|| rest.strip_prefix("old-"))
    });
    // The site it replaced was ccwiki's, or an empty folder (then holding
    // only the proof); a folder itself, not a link to one. Gone already:
    // the remover of the build that moved it aside was done first.
    let meta = fs::symlink_metadata(dir);
    if meta
        .as_ref()
        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    {
        return Ok(());
    }
    let folder = meta.is_ok_and(|m| m.is_dir());
    if !folder
        || !id.is_some_and(|id| proven(dir, id) || (holds_proof(dir, id) && holds_nothing(dir)))
    {
        return Err(format!(
            "{} is not a previous site that ccwiki moved aside: left as it is",
            dir.display()
        ));
    }
    remove_proven(dir).map_err(|e| {
        format!(
            "the new site is in place, but the previous copy at {} could not be removed ({e}); the next build tries again",
            dir.display()
        )
    })
}

/// [`remove_previous`] for each of `dirs`: why each one that was not
/// removed was not.
pub fn remove_all_previous(dirs: &[PathBuf]) -> Vec<String> {
    dirs.iter()
        .filter_map(|d| remove_previous(d).err())
        .collect()
}

/// Exchange two directories in one step; false where the system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(dir: &Path, page: &str) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join(MARKER), "m").unwrap();
        fs::write(dir.join("index.html"), page).unwrap();
    }

    #[test]
    fn a_build_killed_between_renames_gets_its_site_back() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        // killed after `site` became the old copy, before the new one moved in
        let old = temp_dir(&out, "old", "abc");
        site(&old, "previous");
        claim(&old, "abc").unwrap();
        let new = temp_dir(&out, "new", "abc");
        site(&new, "half");
        claim(&new, "abc").unwrap();
        // The half-made copy is handed back to be removed.
        assert_eq!(recover(&out).unwrap(), std::slice::from_ref(&new));
        remove_previous(&new).unwrap();
        assert_eq!(
            fs::read_to_string(out.join("index.html")).unwrap(),
            "previous"
        );
        assert!(!out.join(BUILD_FILE).exists());
        assert_eq!(
            fs::read_dir(tmp.path()).unwrap().count(),
            1,
            "temporaries gone"
        );
    }

    #[test]
    fn what_ccwiki_did_not_make_is_never_touched() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        site(&out, "live");
        // same name shape, no proof, or proof of another id
        let foreign = temp_dir(&out, "new", "1234");
        site(&foreign, "theirs");
        let lying = temp_dir(&out, "old", "5678");
        site(&lying, "theirs too");
        claim(&lying, "9999").unwrap();
        // an empty one, as a build killed at its first step leaves it, goes
        let empty = temp_dir(&out, "new", "0000");
        fs::create_dir(&empty).unwrap();
        let half = temp_dir(&out, "new", "0001");
        fs::create_dir(&half).unwrap();
        fs::write(half.join(BUILD_FILE), "").unwrap();
        assert_eq!(recover(&out).unwrap(), Vec::<PathBuf>::new());
        assert!(foreign.join("index.html").exists() && lying.join("index.html").exists());
        assert!(!empty.exists() && !half.exists());
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "live");
    }

    /// A previous site the last build moved aside, which its remover may
    /// still be removing, is handed back as it is (a build does not wait
    /// for it), and removing it twice, or after the other remover, is no
    /// error.
    #[test]
    fn a_copy_left_beside_the_site_is_handed_back_not_waited_for() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        site(&out, "live");
        let old = temp_dir(&out, "old", "abc");
        site(&old, "previous");
        fs::create_dir_all(old.join("sessions/x")).unwrap();
        fs::write(old.join("sessions/x/index.html"), "page").unwrap();
        claim(&old, "abc").unwrap();
        assert_eq!(recover(&out).unwrap(), std::slice::from_ref(&old));
        assert!(old.join("sessions/x/index.html").is_file());
        // Half removed by another remover: its proof is still there.
        fs::remove_dir_all(old.join("sessions")).unwrap();
        remove_previous(&old).unwrap();
        assert!(!old.exists());
        remove_previous(&old).unwrap();
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "live");
    }

    #[test]
    fn swap_replaces_the_site_and_leaves_nothing_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        site(&out, "old");
        let id = build_id();
        let staging = temp_dir(&out, "new", &id);
        site(&staging, "new");
        claim(&staging, &id).unwrap();
        let previous = swap(&staging, &out, &id).unwrap().expect("a previous site");
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "new");
        assert_eq!(
            fs::read_to_string(previous.join("index.html")).unwrap(),
            "old"
        );
        assert!(!out.join(BUILD_FILE).exists(), "the proof is not published");
        // Only the previous copy is removed, and only as such.
        for other in [&out, tmp.path(), Path::new("/")] {
            assert!(remove_previous(other).is_err(), "{}", other.display());
        }
        let fake = temp_dir(&out, "old", "0123");
        site(&fake, "not proven");
        assert!(remove_previous(&fake).is_err() && fake.join("index.html").exists());
        fs::remove_dir_all(&fake).unwrap();
        // A link named like the copy, to the copy, is not the copy.
        #[cfg(unix)]
        {
            let name = previous.file_name().unwrap().to_string_lossy().into_owned();
            let link = tmp.path().join("elsewhere").join(&name);
            fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&previous, &link).unwrap();
            assert!(remove_previous(&link).is_err());
            assert!(previous.join("index.html").exists());
            fs::remove_dir_all(tmp.path().join("elsewhere")).unwrap();
        }
        remove_previous(&previous).unwrap();
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
        assert!(out.join("index.html").exists());
        assert_ne!(build_id(), build_id());
    }
}
