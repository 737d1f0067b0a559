//! The archive: every file of the data roots that a wiki is made from,
//! kept after Claude Code deletes it (`cleanupPeriodDays`), so the wiki
//! never forgets a session.
//!
//! Raw data, never published: the archive is created readable by its
//! owner only and never inside a site. Each build [`Archive::keep`]s what
//! is new or grew, then [`Archive::view`] lays out what only the archive
//! still has (and sessions merged from several copies) as one more data
//! root for the build to read.

mod merge;
mod store;
mod view;

pub use store::{hex, FileKey, ObjectId, Version};
pub use view::{is_session, View};

use crate::base::error::Error;
use crate::source::discover::Root;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use store::Store;

/// What a data root holds besides its projects folder that the archive
/// keeps, by name in the root.
const KEPT: &[&str] = &[
    "history.jsonl",
    "sessions",
    "file-history",
    "usage-data",
    "settings.json",
    "settings.local.json",
    "CLAUDE.md",
    "agents",
    "commands",
    "skills",
    "output-styles",
];

/// The archive's default place: `$CCWIKI_ARCHIVE_DIR`, else
/// `$XDG_DATA_HOME/ccwiki/archive`, else `~/.local/share/ccwiki/archive`.
pub fn default_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("CCWIKI_ARCHIVE_DIR")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("ccwiki/archive")))
        .or_else(|| var("HOME").map(|d| d.join(".local/share/ccwiki/archive")))
        .or_else(|| var("LOCALAPPDATA").map(|d| d.join("ccwiki/archive")))
}

/// An open archive.
#[derive(Debug)]
pub struct Archive {
    store: Store,
}

/// A file of a live data root, by its name in the archive.
#[derive(Debug, Clone)]
pub struct LiveFile {
    /// The source it is read from, as the archive names it.
    pub source: String,
    pub name: String,
    pub path: PathBuf,
}

impl LiveFile {
    fn key(&self) -> FileKey {
        (self.source.clone(), self.name.clone())
    }
}

/// How the archive names a source: its absolute path, links resolved.
pub fn source_label(source: &Path) -> String {
    crate::base::dirs::resolved(source)
        .to_string_lossy()
        .into_owned()
}

/// What [`Archive::keep`] did.
#[derive(Debug, Default)]
pub struct Kept {
    /// The sources of the build, as the archive names them.
    pub sources: std::collections::BTreeSet<String>,
    /// Every live file (by name) and the content each copy has now.
    pub live: BTreeMap<String, Vec<(PathBuf, ObjectId)>>,
    /// Files whose content was new to the archive.
    pub new_files: usize,
    /// Bytes read to archive them.
    pub bytes_read: u64,
    /// Files that could not be read: (path, why).
    pub failed: Vec<(PathBuf, String)>,
}

/// Nanoseconds since 1970 of a file's last change (0 when unknown).
/// Every file of `root` the archive keeps, named as in a `~/.claude`
/// (`projects/…` even for a backup such as `projects.bak-2025`).
pub fn live_files(root: &Root) -> Vec<LiveFile> {
    let source = source_label(&root.source);
    let mut out = Vec::new();
    let projects = root.path.join(&root.projects_dir);
    if projects.is_dir() {
        walk(&projects, &source, "projects", &mut out);
    } else {
        // Loose transcripts: each under its folder's name.
        for t in &root.transcripts {
            let file = t.path.file_name().unwrap_or_default().to_string_lossy();
            out.push(LiveFile {
                source: source.clone(),
                name: format!("projects/{}/{file}", t.project_dir),
                path: t.path.clone(),
            });
        }
    }
    if root.projects_dir == "projects" {
        for name in KEPT {
            let path = root.path.join(name);
            if path.is_dir() {
                walk(&path, &source, name, &mut out);
            } else if path.is_file() {
                out.push(LiveFile {
                    source: source.clone(),
                    name: name.to_string(),
                    path,
                });
            }
        }
    }
    out
}

/// The files below `dir`, named `prefix/…`; links are not followed.
fn walk(dir: &Path, source: &str, prefix: &str, out: &mut Vec<LiveFile>) {
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        out.push(LiveFile {
            source: source.to_string(),
            name: format!("{prefix}/{rel}"),
            path: entry.into_path(),
        });
    }
}

/// What happened to one live file.
enum Outcome {
    /// Known: same length and time as a version kept before.
    Known(ObjectId),
    /// Read: its content, and the earlier versions it holds.
    Read(Version, Vec<ObjectId>),
    Failed(String),
}

impl Archive {
    /// Open the archive in `dir` that a build made; an error when there is none.
    pub fn open_existing(dir: &Path) -> Result<Archive, Error> {
        if !dir.join("objects").is_dir() {
            return Err(Error::NoArchive {
                path: dir.to_path_buf(),
            });
        }
        Archive::open(dir)
    }

    /// Open (or create, owner-only) the archive in `dir`.
    pub fn open(dir: &Path) -> Result<Archive, Error> {
        Ok(Archive {
            store: Store::open(dir)?,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.store.dir
    }

    /// Every file kept, with its versions.
    pub fn files(&self) -> &BTreeMap<FileKey, Vec<Version>> {
        &self.store.files
    }

    /// The files of `sources` (labels), by name, with the versions of all
    /// their copies, oldest first.
    pub fn files_of(
        &self,
        sources: &std::collections::BTreeSet<String>,
    ) -> BTreeMap<&str, Vec<Version>> {
        let mut out: BTreeMap<&str, Vec<Version>> = BTreeMap::new();
        for ((source, name), versions) in &self.store.files {
            if sources.contains(source) {
                let all = out.entry(name.as_str()).or_default();
                for v in versions {
                    if !all.iter().any(|a| a.object == v.object) {
                        all.push(v.clone());
                    }
                }
            }
        }
        for versions in out.values_mut() {
            versions.sort_by_key(|v| v.seq);
        }
        out
    }

    /// Keep every file of `roots` that is new or changed. A file seen with
    /// the same length and time as before is not read again.
    pub fn keep(&mut self, roots: &[Root]) -> Result<Kept, Error> {
        let files: Vec<LiveFile> = roots.iter().flat_map(live_files).collect();
        let store = &self.store;
        let outcomes: Vec<Outcome> = files.par_iter().map(|f| keep_one(store, f)).collect();
        let mut kept = Kept {
            sources: roots.iter().map(|r| source_label(&r.source)).collect(),
            ..Kept::default()
        };
        let mut adds = Vec::new();
        let mut drops = Vec::new();
        let mut live_ids = std::collections::HashSet::new();
        for (file, outcome) in files.into_iter().zip(outcomes) {
            let key = file.key();
            let object = match outcome {
                Outcome::Known(id) => id,
                Outcome::Read(version, prefixes) => {
                    let known = self
                        .store
                        .files
                        .get(&key)
                        .is_some_and(|vs| vs.iter().any(|v| v.object == version.object));
                    if !known {
                        kept.new_files += 1;
                        kept.bytes_read += version.len;
                    }
                    drops.extend(prefixes.into_iter().map(|p| (key.clone(), p)));
                    adds.push((key.clone(), version.clone()));
                    version.object
                }
                Outcome::Failed(why) => {
                    kept.failed.push((file.path, why));
                    continue;
                }
            };
            live_ids.insert((key, object));
            kept.live
                .entry(file.name)
                .or_default()
                .push((file.path, object));
        }
        // A version that a longer live copy holds is dropped only when no
        // live copy still has exactly it.
        drops.retain(|d| !live_ids.contains(d));
        drops.sort();
        drops.dedup();
        let dropped: Vec<ObjectId> = drops.iter().map(|(_, id)| *id).collect();
        self.store.commit(adds, drops)?;
        self.store.remove_unreferenced(&dropped);
        Ok(kept)
    }

    /// Lay out what the build must read besides the live roots, in a
    /// folder of the archive's `view/` that belongs to the build's sources.
    pub fn view(&self, kept: &Kept) -> Result<View, Error> {
        let labels: Vec<&str> = kept.sources.iter().map(String::as_str).collect();
        let key = crate::base::hash::hash_bytes(labels.join("\n").as_bytes());
        let dir = self.store.dir.join("view").join(format!("{key:016x}"));
        view::build(self, kept, &dir)
    }

    /// An object's bytes.
    pub fn read_object(&self, id: ObjectId) -> std::io::Result<Vec<u8>> {
        self.store.read_object(id)
    }

    /// Every object is whole and every file's versions are there.
    pub fn verify(&self) -> Verified {
        let mut verified = Verified {
            bad_journal_lines: self.store.bad_lines,
            rebuilt: self.store.rebuilt,
            ..Verified::default()
        };
        let referenced: std::collections::BTreeSet<ObjectId> = self
            .store
            .files
            .values()
            .flatten()
            .map(|v| v.object)
            .collect();
        let damaged: Vec<ObjectId> = referenced
            .par_iter()
            .filter(|id| !self.store.object_is_whole(**id))
            .copied()
            .collect();
        verified.objects = referenced.len();
        for ((source, name), versions) in &self.store.files {
            for v in versions {
                if damaged.contains(&v.object) {
                    verified.damaged.push(format!(
                        "{source}/{name}: object {} is missing or damaged",
                        hex(v.object)
                    ));
                }
            }
        }
        if let Ok(paths) = self.store.object_paths() {
            verified.unreferenced = paths
                .iter()
                .filter_map(|p| store::id_of(p))
                .filter(|id| !referenced.contains(id))
                .count();
        }
        verified
    }

    /// Write every file back, byte for byte, in a data directory's layout
    /// under `dir`: the newest version at the file's name, earlier ones
    /// beside it as `NAME.v1`, `NAME.v2`… Files already there are left
    /// alone (and listed).
    pub fn export(&self, sources: &[PathBuf], dir: &Path) -> Result<Exported, Error> {
        let mut exported = Exported::default();
        let labels = sources.iter().map(|s| source_label(s)).collect();
        for (name, versions) in self.files_of(&labels) {
            let n = versions.len();
            for (i, v) in versions.iter().enumerate() {
                let target = if i + 1 == n {
                    dir.join(name)
                } else {
                    dir.join(format!("{name}.v{}", i + 1))
                };
                if !safe_name(name) {
                    exported.refused.push(target);
                    continue;
                }
                if target.exists() {
                    exported.existing.push(target);
                    continue;
                }
                self.export_one(v.object, &target)?;
                exported.files += 1;
                exported.bytes += v.len;
            }
        }
        Ok(exported)
    }

    fn export_one(&self, id: ObjectId, target: &Path) -> Result<(), Error> {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let mut reader = self
            .store
            .open_object(id)
            .map_err(|e| Error::io(self.store.object_path(id), e))?;
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(target)
            .map_err(|e| Error::io(target, e))?;
        std::io::copy(&mut reader, &mut out).map_err(|e| Error::io(target, e))?;
        Ok(())
    }

    /// Bytes the archive's objects take on disk.
    pub fn stored_bytes(&self) -> u64 {
        self.store
            .object_paths()
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.metadata().ok())
            .map(|m| m.len())
            .sum()
    }
}

/// A name from the journal that stays inside the folder it is written to.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && name.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.contains(['\\', ':', '\0'])
        })
}

fn keep_one(store: &Store, file: &LiveFile) -> Outcome {
    let meta = match std::fs::symlink_metadata(&file.path) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mtime = crate::base::dirs::mtime_nanos(&meta);
    let earlier = store.files.get(&file.key()).map_or(&[][..], Vec::as_slice);
    if let Some(v) = earlier
        .iter()
        .find(|v| v.len == meta.len() && v.mtime == mtime)
    {
        return Outcome::Known(v.object);
    }
    match store.write_object(&file.path, &file.key(), mtime, earlier) {
        Ok(w) => Outcome::Read(
            Version {
                object: w.object,
                len: w.len,
                mtime,
                seq: 0,
            },
            w.prefixes,
        ),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    pub objects: usize,
    /// One line per damaged or missing object.
    pub damaged: Vec<String>,
    /// Journal lines that could not be read (a build killed mid-line).
    pub bad_journal_lines: usize,
    /// Objects no file refers to (a build killed before its journal line).
    pub unreferenced: usize,
    /// The journal was lost and rebuilt from the objects.
    pub rebuilt: bool,
}

/// What `export` wrote.
#[derive(Debug, Default)]
pub struct Exported {
    pub files: usize,
    pub bytes: u64,
    /// Files already in the target folder, left as they were.
    pub existing: Vec<PathBuf>,
    /// Names that would leave the target folder, not written.
    pub refused: Vec<PathBuf>,
}
