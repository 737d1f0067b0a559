//! What the last build wrote, by page path, kept beside the cache (never in
//! the site): unchanged pages are linked from the previous site instead of
//! rendered and written again. Losing it only costs one full write.

use super::write::FileRecord;
use crate::base::stored;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bump when [`FileRecord`] changes shape.
const FORMAT: u32 = 4;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Stored {
    format: u32,
    version: String,
    #[serde(deserialize_with = "built_whole")]
    pages: BTreeMap<String, FileRecord>,
}

/// The pages' map, built from all its entries at once. Read one entry
/// after another (in order, as they are kept), a map fills its nodes by
/// half: the map of 100,000 pages took 13 MB more where rendering
/// begins, at a rebuild's peak.
fn built_whole<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, FileRecord>, D::Error> {
    struct Entries;
    impl<'de> serde::de::Visitor<'de> for Entries {
        type Value = BTreeMap<String, FileRecord>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of page paths to records")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            // The length is read from the file: room for a million
            // entries at most, more as they come.
            let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(entry) = map.next_entry::<String, FileRecord>()? {
                entries.push(entry);
            }
            Ok(entries.into_iter().collect())
        }
    }
    d.deserialize_map(Entries)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What one build saves, the next opens as it was: the map built from
    /// all its entries at once holds each of them.
    #[test]
    fn a_saved_manifest_opens_as_it_was() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("site");
        let pages: BTreeMap<String, FileRecord> = (0..5_000u64)
            .map(|i| {
                let record = FileRecord {
                    len: i,
                    input: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    mtime: -(i as i64),
                };
                (format!("sessions/{i:05}/index.html"), record)
            })
            .collect();
        Manifest::open(&out, Some(root.path())).save(pages.clone());
        let opened = Manifest::open(&out, Some(root.path()));
        assert_eq!(opened.previous, pages);
        assert!(Manifest::disabled().previous.is_empty());
    }
}
