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
    format!(
        "{:016x}",
        crate::base::hash::hash_bytes(abs.to_string_lossy().as_bytes())
    )
}
