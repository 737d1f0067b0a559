//! The new site's folder and the old site's, as the write phase reaches
//! into them: a page's folder made, the old copy of a page looked at and
//! linked, a new page created, each by its path inside the site.
//!
//! On Unix both folders are held open and every path goes from them
//! (`mkdirat`, `fstatat`, `linkat`, `openat`): a rebuild that keeps ten
//! thousand pages makes ten thousand folders and links, and the kernel
//! walking each full path from the root again was two fifths of that.

use std::fs;
use std::io;
use std::path::Path;

/// What a file of the old site is, as far as keeping it goes.
pub struct OldFile {
    pub len: u64,
    /// Modification time, ns since the epoch (0 before it), as
    /// [`crate::base::dirs::mtime_nanos`] gives it.
    pub mtime: i64,
}

#[cfg(unix)]
pub use unix::Folders;

#[cfg(not(unix))]
pub use portable::Folders;

#[cfg(unix)]
mod unix {
    use super::*;
    use rustix::fs::{linkat, mkdirat, openat, statat, AtFlags, FileType, Mode, OFlags, CWD};
    use std::os::fd::OwnedFd;

    pub struct Folders {
        staging: OwnedFd,
        /// None when there is no old site.
        out: Option<OwnedFd>,
    }

    /// The folder `path` itself: a link in its place is not followed.
    fn open_dir(path: &Path) -> io::Result<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        Ok(openat(CWD, path, flags, Mode::empty())?)
    }

    impl Folders {
        /// Open the new site's folder `staging` (made) and the old site's
        /// `out`, when there is one.
        pub fn open(staging: &Path, out: &Path) -> io::Result<Folders> {
            Ok(Folders {
                staging: open_dir(staging)?,
                out: open_dir(out).ok(),
            })
        }

        /// Make the folder `rel` of the new site, and those above it.
        pub fn make_dir(&self, rel: &Path) -> io::Result<()> {
            if rel.as_os_str().is_empty() {
                return Ok(());
            }
            match mkdirat(&self.staging, rel, Mode::from_bits_truncate(0o777)) {
                Ok(()) => Ok(()),
                Err(rustix::io::Errno::EXIST) => Ok(()),
                Err(rustix::io::Errno::NOENT) => {
                    self.make_dir(rel.parent().unwrap_or(Path::new("")))?;
                    match mkdirat(&self.staging, rel, Mode::from_bits_truncate(0o777)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => Ok(()),
                        Err(e) => Err(e.into()),
                    }
                }
                Err(e) => Err(e.into()),
            }
        }

        /// The old site's `rel`, when it is a plain file (a link is not
        /// followed).
        pub fn old_file(&self, rel: &str) -> Option<OldFile> {
            let st = statat(self.out.as_ref()?, rel, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                return None;
            }
            // The fields' types differ between systems (32-bit ones).
            #[allow(clippy::useless_conversion)]
            let (secs, nanos) = (
                i64::try_from(st.st_mtime).ok()?,
                i64::try_from(st.st_mtime_nsec).ok()?,
            );
            let mtime = match secs {
                ..0 => 0,
                _ => secs.saturating_mul(1_000_000_000).saturating_add(nanos),
            };
            Some(OldFile {
                len: u64::try_from(st.st_size).ok()?,
                mtime,
            })
        }

        /// Hard-link the old site's `rel` to the same place in the new one.
        pub fn link_old(&self, rel: &str) -> io::Result<()> {
            let out = self.out.as_ref().ok_or(io::ErrorKind::NotFound)?;
            Ok(linkat(out, rel, &self.staging, rel, AtFlags::empty())?)
        }

        /// Create the new site's file `rel`, empty (its folder made before).
        pub fn create(&self, rel: &str) -> io::Result<fs::File> {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC;
            let fd = openat(&self.staging, rel, flags, Mode::from_bits_truncate(0o666))?;
            Ok(fs::File::from(fd))
        }
    }
}

#[cfg(not(unix))]
mod portable {
    use super::*;
    use std::path::PathBuf;

    pub struct Folders {
        staging: PathBuf,
        out: PathBuf,
    }

    impl Folders {
        /// The new site's folder `staging` (made) and the old site's `out`.
        pub fn open(staging: &Path, out: &Path) -> io::Result<Folders> {
            Ok(Folders {
                staging: staging.to_path_buf(),
                out: out.to_path_buf(),
            })
        }

        /// Make the folder `rel` of the new site, and those above it.
        pub fn make_dir(&self, rel: &Path) -> io::Result<()> {
            fs::create_dir_all(self.staging.join(rel))
        }

        /// The old site's `rel`, when it is a plain file.
        pub fn old_file(&self, rel: &str) -> Option<OldFile> {
            let meta = fs::symlink_metadata(self.out.join(rel)).ok()?;
            meta.is_file().then(|| OldFile {
                len: meta.len(),
                mtime: crate::base::dirs::mtime_nanos(&meta),
            })
        }

        /// Hard-link the old site's `rel` to the same place in the new one.
        pub fn link_old(&self, rel: &str) -> io::Result<()> {
            fs::hard_link(self.out.join(rel), self.staging.join(rel))
        }

        /// Create the new site's file `rel`, empty (its folder made before).
        pub fn create(&self, rel: &str) -> io::Result<fs::File> {
            fs::File::create(self.staging.join(rel))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_made_files_linked_and_times_read_as_std_reads_them() {
        let tmp = tempfile::tempdir().unwrap();
        let (staging, out) = (tmp.path().join("new"), tmp.path().join("old"));
        fs::create_dir_all(out.join("a/b")).unwrap();
        fs::write(out.join("a/b/page.html"), "old page").unwrap();
        fs::create_dir(&staging).unwrap();
        let f = Folders::open(&staging, &out).unwrap();

        f.make_dir(Path::new("a/b")).unwrap();
        f.make_dir(Path::new("a/b")).unwrap();
        assert!(staging.join("a/b").is_dir());

        let meta = fs::symlink_metadata(out.join("a/b/page.html")).unwrap();
        let old = f.old_file("a/b/page.html").unwrap();
        assert_eq!(old.len, 8);
        assert_eq!(old.mtime, crate::base::dirs::mtime_nanos(&meta));
        assert!(f.old_file("a/b").is_none(), "a folder is not a file");
        assert!(f.old_file("a/missing.html").is_none());

        f.link_old("a/b/page.html").unwrap();
        assert_eq!(
            fs::read(staging.join("a/b/page.html")).unwrap(),
            b"old page"
        );

        use std::io::Write;
        f.make_dir(Path::new("c/d/e")).unwrap();
        f.create("c/d/e/new.html")
            .unwrap()
            .write_all(b"new")
            .unwrap();
        assert_eq!(fs::read(staging.join("c/d/e/new.html")).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_the_old_site_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let (staging, out) = (tmp.path().join("new"), tmp.path().join("old"));
        fs::create_dir_all(&out).unwrap();
        fs::create_dir(&staging).unwrap();
        fs::write(tmp.path().join("secret"), "not the site's").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), out.join("page.html")).unwrap();
        let f = Folders::open(&staging, &out).unwrap();
        assert!(f.old_file("page.html").is_none());
    }

    #[cfg(unix)]
    #[test]
    fn an_old_site_that_is_a_link_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let (staging, elsewhere) = (tmp.path().join("new"), tmp.path().join("elsewhere"));
        fs::create_dir(&staging).unwrap();
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("index.html"), "not the site").unwrap();
        let out = tmp.path().join("old");
        std::os::unix::fs::symlink(&elsewhere, &out).unwrap();
        let f = Folders::open(&staging, &out).unwrap();
        assert!(f.old_file("index.html").is_none());
        assert!(f.link_old("index.html").is_err());
    }

    #[test]
    fn without_an_old_site_nothing_is_old() {
        let tmp = tempfile::tempdir().unwrap();
        let staging = tmp.path().join("new");
        fs::create_dir(&staging).unwrap();
        let f = Folders::open(&staging, &tmp.path().join("none")).unwrap();
        assert!(f.old_file("index.html").is_none());
        assert!(f.link_old("index.html").is_err());
    }
}
