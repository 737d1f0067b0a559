//! A folder's files listed on every core, each with its metadata.
//!
//! Discovery and the archive both list every file of a data directory
//! (a hundred thousand of them in a large one) and look at each: folders
//! are listed in parallel here, and a file's metadata is read relative to
//! its open folder as it is listed, not by its whole path afterwards.

use rayon::prelude::*;
use std::fs::{DirEntry, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// A file met by [`files`].
#[derive(Debug)]
pub struct Walked {
    pub path: PathBuf,
    /// Its metadata (of the file itself: links are not followed).
    pub meta: io::Result<Metadata>,
}

/// A walked file with only what is kept of its metadata: held past the
/// walk (the archive takes discovery's), where a hundred thousand whole
/// metadata would be 20 MB.
#[derive(Debug, Clone)]
pub struct Listed {
    pub path: PathBuf,
    /// Its length and modification time (nanoseconds since 1970), or why
    /// they could not be read.
    pub stat: Result<(u64, i64), String>,
}

impl From<Walked> for Listed {
    fn from(f: Walked) -> Listed {
        let stat = (f.meta)
            .map(|m| (m.len(), crate::base::dirs::mtime_nanos(&m)))
            .map_err(|e| e.to_string());
        Listed { path: f.path, stat }
    }
}

/// What [`files`] found.
#[derive(Debug, Default)]
pub struct Listing {
    /// Every file, in the order of their paths part by part (a folder's
    /// entries by name, bytes against bytes; a folder's files come where
    /// its name sorts).
    pub files: Vec<Walked>,
    /// Folders or entries that could not be read, and why.
    pub errors: Vec<(PathBuf, io::Error)>,
}

/// Every file below `dir`. Links are not followed (a link is not listed,
/// whatever it points to); `enter(folder, depth)` says whether to go into
/// a folder (`depth` is 1 for the folders of `dir` itself).
pub fn files(dir: &Path, enter: &(impl Fn(&Path, usize) -> bool + Sync)) -> Listing {
    folder(dir, 1, enter)
}

fn folder(dir: &Path, depth: usize, enter: &(impl Fn(&Path, usize) -> bool + Sync)) -> Listing {
    enum Item {
        File(Walked),
        Folder(Listing),
        Error(PathBuf, io::Error),
    }
    let mut listing = Listing::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            listing.errors.push((dir.to_path_buf(), e));
            return listing;
        }
    };
    let mut named: Vec<(std::ffi::OsString, DirEntry)> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => named.push((e.file_name(), e)),
            Err(e) => listing.errors.push((dir.to_path_buf(), e)),
        }
    }
    named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let items: Vec<Item> = (named.into_par_iter())
        .filter_map(|(_, entry)| {
            let path = entry.path();
            match entry.file_type() {
                Err(e) => Some(Item::Error(path, e)),
                Ok(t) if t.is_dir() => {
                    (enter(&path, depth)).then(|| Item::Folder(folder(&path, depth + 1, enter)))
                }
                Ok(t) if t.is_file() => Some(Item::File(Walked {
                    meta: entry.metadata(),
                    path,
                })),
                Ok(_) => None,
            }
        })
        .collect();
    // Sized once: grown by doubling, a hundred thousand files were copied
    // over and over, and held twice at the end.
    let count = |item: &Item| match item {
        Item::File(_) => 1,
        Item::Folder(l) => l.files.len(),
        Item::Error(..) => 0,
    };
    listing.files.reserve_exact(items.iter().map(count).sum());
    for item in items {
        match item {
            Item::File(f) => listing.files.push(f),
            Item::Folder(l) => {
                listing.files.extend(l.files);
                listing.errors.extend(l.errors);
            }
            Item::Error(path, e) => listing.errors.push((path, e)),
        }
    }
    listing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files come in the order of their paths' parts, each with the
    /// metadata a `stat` of it (not following links) gives; links and the
    /// folders `enter` refuses are left out.
    #[test]
    fn files_come_in_order_with_their_metadata_and_refused_folders_are_left_out() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let files = [
            "a-b.jsonl",
            "a/z.jsonl",
            "a/m/n.md",
            "b.json",
            "a0/x",
            "skip/y",
        ];
        for (i, f) in files.iter().enumerate() {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
            std::fs::write(&path, "x".repeat(i + 1)).expect("write");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("b.json"), dir.join("c.json")).expect("link");
            std::os::unix::fs::symlink(dir.join("a"), dir.join("d")).expect("link");
        }
        let enter = |p: &Path, depth: usize| {
            assert_eq!(depth, p.strip_prefix(dir).expect("below").iter().count());
            !p.ends_with("skip")
        };
        let listing = self::files(dir, &enter);
        assert!(listing.errors.is_empty(), "{:?}", listing.errors);
        let rel: Vec<PathBuf> = (listing.files.iter())
            .map(|f| f.path.strip_prefix(dir).expect("below").to_path_buf())
            .collect();
        let want = ["a/m/n.md", "a/z.jsonl", "a-b.jsonl", "a0/x", "b.json"];
        assert_eq!(rel, want.map(PathBuf::from));
        for f in &listing.files {
            let meta = f.meta.as_ref().expect("meta");
            let stat = std::fs::symlink_metadata(&f.path).expect("stat");
            assert_eq!(
                (meta.len(), meta.modified().ok()),
                (stat.len(), stat.modified().ok())
            );
        }
    }

    #[test]
    fn a_folder_that_cannot_be_listed_is_an_error_not_a_stop() {
        let tmp = tempfile::tempdir().expect("tmp");
        let listing = self::files(&tmp.path().join("missing"), &|_, _| true);
        assert!(listing.files.is_empty());
        assert_eq!(listing.errors.len(), 1);
    }
}
