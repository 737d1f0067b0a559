//! Where ccwiki keeps its private files, outside any site.

use std::path::PathBuf;

/// The user's cache directory for ccwiki (`$CCWIKI_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/ccwiki`, else `~/.cache/ccwiki`, else
/// `%LOCALAPPDATA%\ccwiki`); None when no home or cache directory is known.
pub fn cache_root() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("CCWIKI_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("ccwiki")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/ccwiki")))
        .or_else(|| var("LOCALAPPDATA").map(|d| d.join("ccwiki")))
}

/// The file that marks a directory as a site ccwiki made: only such a
/// directory (or an empty one) is ever replaced.
pub const MARKER: &str = ".ccwiki";

/// The folder name under the cache directory that belongs to output
/// directory `out`: a hash of its absolute path.
pub fn site_key(out: &std::path::Path) -> String {
    let abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    format!("{:016x}", crate::base::hash::path_key(&abs))
}

/// The folder that keeps what ccwiki remembers of output directory `out`
/// between builds (the transcript cache, the page manifest): under `root`,
/// else the user's cache directory; None when there is neither.
pub fn site_cache_dir(out: &std::path::Path, root: Option<&std::path::Path>) -> Option<PathBuf> {
    let base = root.map(std::path::Path::to_path_buf).or_else(cache_root)?;
    Some(base.join(site_key(out)))
}

/// `path` as the file system will resolve it, whether or not it exists yet:
/// absolute, its longest existing ancestor canonicalised (symlinks followed),
/// `.` and `..` in the rest applied. Paths are compared in this form, so
/// `site/../source/x` or a symlink into the source cannot pass for
/// somewhere else.
pub fn resolved(path: &std::path::Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    // Walk up to the longest ancestor that exists, keeping what was passed.
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    let base = loop {
        if let Ok(real) = existing.canonicalize() {
            break real;
        }
        let (Some(last), Some(parent)) = (existing.components().next_back(), existing.parent())
        else {
            break existing.to_path_buf();
        };
        rest.push(last.as_os_str().to_os_string());
        existing = parent;
    };
    // Then back down, applying `.` and `..`.
    let mut out = base;
    for part in rest.iter().rev() {
        if part == ".." {
            out.pop();
        } else if part != "." {
            out.push(part);
        }
    }
    out
}

/// A path as a transcript writes it (of any system) starts at a root:
/// `/x`, `\x`, or a drive, `C:\x` or `C:/x`.
pub fn is_rooted(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with(['/', '\\']) || (b.len() > 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

/// A name read from data that is one plain file name, never a path: safe
/// to join to a folder.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\']) && name != ".."
}

/// A file's modification time in nanoseconds since 1970 (0 when the
/// system does not say).
pub fn mtime_nanos(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// What tells this ccwiki binary from another build of the same version:
/// its size and modification time (zeros when it cannot be read).
pub fn this_binary() -> (u64, i64) {
    std::env::current_exe()
        .and_then(std::fs::metadata)
        .map_or((0, 0), |m| (m.len(), mtime_nanos(&m)))
}

/// `path` as a site path: its parts joined by `/` on every system.
pub fn slash_path(path: &std::path::Path) -> String {
    let parts: Vec<std::borrow::Cow<'_, str>> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_sees_through_dots_and_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(real.join("src/a")).unwrap();
        assert_eq!(
            resolved(&real.join("out/../src/site")),
            real.join("src/site")
        );
        assert_eq!(resolved(&real.join("src/a/./b")), real.join("src/a/b"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(real.join("src"), real.join("link")).unwrap();
            assert_eq!(resolved(&real.join("link/site")), real.join("src/site"));
            assert_eq!(resolved(&real.join("link/new/../x")), real.join("src/x"));
        }
    }
}
