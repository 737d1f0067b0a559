//! What the last build wrote, by page path, kept beside the cache (never in
//! the site): unchanged pages are linked from the previous site instead of
//! rendered and written again. Losing it only costs one full write.

use super::write::FileRecord;
use crate::base::stored;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bump when [`FileRecord`] changes shape.
const FORMAT: u32 = 3;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Stored {
    format: u32,
    version: String,
    pages: BTreeMap<String, FileRecord>,
}

/// The manifest of one output directory.
#[derive(Debug, Default)]
pub struct Manifest {
    /// None: nothing is remembered (no cache directory, or caching off).
    path: Option<PathBuf>,
    /// What the last build wrote.
    pub previous: BTreeMap<String, FileRecord>,
}

impl Manifest {
    /// The manifest for output directory `out`, kept under `root` (else the
    /// user's cache directory).
    pub fn open(out: &Path, root: Option<&Path>) -> Manifest {
        let fits = |s: &Stored| s.format == FORMAT && s.version == env!("CARGO_PKG_VERSION");
        match stored::open_site_file(out, root, "pages.bin", fits) {
            Some((path, last)) => Manifest {
                path: Some(path),
                previous: last.map(|s| s.pages).unwrap_or_default(),
            },
            None => Manifest::default(),
        }
    }

    /// A manifest that remembers nothing.
    pub fn disabled() -> Manifest {
        Manifest::default()
    }

    /// Remember what this build wrote. Failure only costs a full write next time.
    pub fn save(&self, pages: BTreeMap<String, FileRecord>) {
        let Some(path) = &self.path else { return };
        let stored = Stored {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            pages,
        };
        stored::replace_with(path, &stored);
    }
}
