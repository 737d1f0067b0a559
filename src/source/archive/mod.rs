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
use crate::base::walk::{Listed, Walked};
use crate::source::discover::Root;
use rayon::prelude::*;
// Keyed by names from the data: hashed with a seed drawn at random (not
// Fx's fixed one), so names crafted to collide cannot make lookups slow.
use foldhash::{HashMap, HashSet};
use std::collections::btree_map::{BTreeMap, Entry};
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
    pub name: String,
    pub path: PathBuf,
    /// Its length and modification time (nanoseconds since 1970) as the
    /// walk found them, or why they could not be read.
    pub stat: Result<(u64, i64), String>,
}

impl LiveFile {
    fn new(name: String, file: Listed) -> LiveFile {
        LiveFile {
            name,
            path: file.path,
            stat: file.stat,
        }
    }

    /// A file not met by a walk (a root's loose transcript, a file of its
    /// own such as `history.jsonl` when it is a link).
    fn at(name: String, path: PathBuf) -> LiveFile {
        let meta = std::fs::symlink_metadata(&path);
        LiveFile::new(name, Listed::from(Walked { path, meta }))
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
    pub live: HashMap<String, Vec<(PathBuf, ObjectId)>>,
    /// Files whose content was new to the archive.
    pub new_files: usize,
    /// Bytes read to archive them.
    pub bytes_read: u64,
    /// Files that could not be read: (path, why).
    pub failed: Vec<(PathBuf, String)>,
}

/// Every file of `root` the archive keeps, named as in a `~/.claude`
/// (`projects/…` even for a backup such as `projects.bak-2025`): taken
/// from the files discovery listed ([`Root::listing`], which it leaves
/// empty), but for what a link at the root's top leads to, which is
/// followed that one step (a `skills` folder linked from a dotfiles
/// repository) and walked here.
pub fn live_files(root: &mut Root) -> Vec<LiveFile> {
    let listing = std::mem::take(&mut root.listing);
    let projects = root.path.join(&root.projects_dir);
    let backup = root.projects_dir != "projects";
    // What the root's walk started from, and the names it keeps at the top.
    let (top, kept): (&Path, Vec<&str>) = if backup {
        (&projects, vec![])
    } else {
        let mut kept = KEPT.to_vec();
        kept.push("projects");
        (&root.path, kept)
    };
    let is_link = |name: &str| {
        std::fs::symlink_metadata(top.join(name)).is_ok_and(|m| m.file_type().is_symlink())
    };
    let linked: Vec<&str> = kept.iter().copied().filter(|n| is_link(n)).collect();
    // Named on every core, in the listing's order: one after the other,
    // 10,000 memory files took 4 ms of a rebuild's one core.
    let mut out: Vec<LiveFile> = (listing.into_par_iter())
        .filter_map(|file| {
            let rel = file.path.strip_prefix(top).ok()?;
            let first = rel.iter().next().unwrap_or_default();
            let archived = backup || kept.iter().any(|k| first == *k);
            let name = archived.then(|| named(if backup { "projects/" } else { "" }, rel))?;
            Some(LiveFile::new(name, file))
        })
        .collect();
    if !projects.is_dir() {
        // Loose transcripts: each under its folder's name.
        for t in &root.transcripts {
            let file = t.path.file_name().unwrap_or_default().to_string_lossy();
            let name = format!("projects/{}/{file}", t.project_dir);
            out.push(LiveFile::at(name, t.path.clone()));
        }
    }
    for name in linked {
        let path = top.join(name);
        if path.is_dir() {
            out.extend(walk(&path, name));
        } else if path.is_file() {
            out.push(LiveFile::at(name.to_string(), path));
        }
    }
    out
}

/// The files below `dir`, named `prefix/…`, with the length and time
/// their listing read; links are not followed.
fn walk(dir: &Path, prefix: &str) -> Vec<LiveFile> {
    let listing = crate::base::walk::files(dir, &|_, _| true);
    let prefix = format!("{prefix}/");
    let live = |f: Walked| {
        let name = named(&prefix, f.path.strip_prefix(dir).ok()?);
        Some(LiveFile::new(name, Listed::from(f)))
    };
    let mut files = Vec::with_capacity(listing.files.len());
    files.extend(listing.files.into_iter().filter_map(live));
    files
}

/// The archive's name of the file at `rel` below a folder named `prefix`
/// (empty, or ending in `/`): its parts joined by `/` on every system.
fn named(prefix: &str, rel: &Path) -> String {
    let mut name = format!("{prefix}{}", rel.to_string_lossy());
    if cfg!(windows) {
        name = name.replace('\\', "/");
    }
    name
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
        self.files_of_where(sources, |_, _| true)
    }

    /// [`Archive::files_of`], only the files for which `wanted` holds of
    /// one of their sources' versions: a build looks closer at a few of a
    /// hundred thousand, and copied the versions of all of them.
    pub fn files_of_where(
        &self,
        sources: &std::collections::BTreeSet<String>,
        wanted: impl Fn(&str, &[Version]) -> bool,
    ) -> BTreeMap<&str, Vec<Version>> {
        let of_sources = || {
            sources.iter().flat_map(|s| {
                (self.store.files.range((s.clone(), String::new())..))
                    .take_while(move |((source, _), _)| source == s)
                    .map(|((_, name), versions)| (name.as_str(), versions))
            })
        };
        let names: HashSet<&str> = (of_sources())
            .filter(|(name, versions)| wanted(name, versions))
            .map(|(name, _)| name)
            .collect();
        let mut out: BTreeMap<&str, Vec<Version>> = BTreeMap::new();
        for (name, versions) in of_sources().filter(|(name, _)| names.contains(name)) {
            let all = out.entry(name).or_default();
            for v in versions {
                if !all.iter().any(|a| a.object == v.object) {
                    all.push(v.clone());
                }
            }
        }
        for versions in out.values_mut() {
            versions.sort_by_key(|v| v.seq);
        }
        out
    }

    /// Keep every file of `roots` that is new or changed. A file seen with
    /// the same length and time as before is not read again. Each root's
    /// [`Root::listing`] is taken.
    pub fn keep(&mut self, roots: &mut [Root]) -> Result<Kept, Error> {
        let mut kept = Kept::default();
        // Roots of one source (a `projects` folder and its backups) name
        // their files alike: they are kept, and their drops checked,
        // together.
        let mut by_source: BTreeMap<String, Vec<LiveFile>> = BTreeMap::new();
        for root in roots.iter_mut() {
            let files = live_files(root);
            match by_source.entry(source_label(&root.source)) {
                Entry::Vacant(e) => {
                    e.insert(files);
                }
                Entry::Occupied(mut e) => e.get_mut().extend(files),
            }
        }
        let (mut adds, mut drops) = (Vec::new(), Vec::new());
        for (source, files) in by_source {
            self.keep_source(&source, files, &mut kept, &mut adds, &mut drops);
            kept.sources.insert(source);
        }
        drops.sort();
        drops.dedup();
        let dropped: Vec<ObjectId> = drops.iter().map(|(_, id)| *id).collect();
        self.store.commit(adds, drops)?;
        self.store.remove_unreferenced(&dropped);
        Ok(kept)
    }

    /// [`Archive::keep`] for the live `files` of one source: what is new
    /// is written as an object and added to `adds`, the versions it
    /// supersedes to `drops`, and every file readable to `kept`.
    fn keep_source(
        &self,
        source: &str,
        files: Vec<LiveFile>,
        kept: &mut Kept,
        adds: &mut Vec<(FileKey, Version)>,
        drops: &mut Vec<(FileKey, ObjectId)>,
    ) {
        // The versions kept before, by name: looked up without a key made
        // for each file, nor the source compared again in each lookup.
        let earlier: HashMap<&str, &[Version]> = (self.store.files)
            .range((source.to_string(), String::new())..)
            .take_while(|((s, _), _)| s == source)
            .map(|((_, name), versions)| (name.as_str(), versions.as_slice()))
            .collect();
        let earlier_of = |name: &str| earlier.get(name).copied().unwrap_or_default();
        let key = |name: &str| (source.to_string(), name.to_string());
        let outcomes: Vec<Outcome> = (files.par_iter())
            .map(|f| keep_one(&self.store, f, earlier_of(&f.name), || key(&f.name)))
            .collect();
        // Each file's content now; None when it could not be read.
        let mut objects: Vec<Option<ObjectId>> = Vec::with_capacity(files.len());
        let mut superseded = Vec::new();
        for (file, outcome) in files.iter().zip(outcomes) {
            let name = file.name.as_str();
            objects.push(match outcome {
                Outcome::Known(id) => Some(id),
                Outcome::Read(version, prefixes) => {
                    if !earlier_of(name).iter().any(|v| v.object == version.object) {
                        kept.new_files += 1;
                        kept.bytes_read += version.len;
                    }
                    superseded.extend(prefixes.into_iter().map(|p| (name, p)));
                    let object = version.object;
                    adds.push((key(name), version));
                    Some(object)
                }
                Outcome::Failed(why) => {
                    kept.failed.push((file.path.clone(), why));
                    None
                }
            });
        }
        // A version that a longer live copy holds is dropped only when no
        // live copy still has exactly it.
        if !superseded.is_empty() {
            let live_ids: HashSet<(&str, ObjectId)> = (files.iter().zip(&objects))
                .filter_map(|(f, id)| Some((f.name.as_str(), (*id)?)))
                .collect();
            drops.extend(
                (superseded.into_iter())
                    .filter(|d| !live_ids.contains(d))
                    .map(|(name, id)| (key(name), id)),
            );
        }
        drop(earlier);
        kept.live.reserve(files.len());
        for (file, object) in files.into_iter().zip(objects) {
            if let Some(object) = object {
                let copies = kept.live.entry(file.name).or_default();
                copies.push((file.path, object));
            }
        }
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

/// What to do with `file`, whose versions kept before are `earlier`
/// (`key`: its key, made only when it is written).
fn keep_one(
    store: &Store,
    file: &LiveFile,
    earlier: &[Version],
    key: impl Fn() -> FileKey,
) -> Outcome {
    let (len, mtime) = match &file.stat {
        Ok(stat) => *stat,
        Err(why) => return Outcome::Failed(why.clone()),
    };
    if let Some(v) = earlier.iter().find(|v| v.len == len && v.mtime == mtime) {
        return Outcome::Known(v.object);
    }
    match store.write_object(&file.path, &key(), mtime, earlier) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The archive keeps what discovery listed of a data root (its
    /// projects and the folders and files it keeps by name, not `debug/`),
    /// a backup's files as `projects/…`, and what a link at the root's top
    /// leads to; the listing is taken, and nothing is named twice.
    #[test]
    fn live_files_come_from_discovery_s_listing_and_links_at_the_top() {
        let tmp = tempfile::tempdir().expect("tmp");
        let home = tmp.path().join(".claude");
        let elsewhere = tmp.path().join("dotfiles/skills");
        let files = [
            ".claude/projects/-p/s1.jsonl",
            ".claude/projects/-p/memory/MEMORY.md",
            ".claude/projects.bak-1/-p/old.jsonl",
            ".claude/history.jsonl",
            ".claude/debug/log.txt",
            ".claude/todos/t.json",
            ".claude/file-history/s1/abc@v1",
            "dotfiles/skills/tidy/SKILL.md",
            "dotfiles/settings.json",
        ];
        for (i, f) in files.iter().enumerate() {
            let path = tmp.path().join(f);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
            std::fs::write(&path, "{}\n".repeat(i + 1)).expect("write");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&elsewhere, home.join("skills")).expect("link");
            let settings = tmp.path().join("dotfiles/settings.json");
            std::os::unix::fs::symlink(settings, home.join("settings.json")).expect("link");
        }
        let mut found =
            crate::source::discover::discover(std::slice::from_ref(&home)).expect("found");
        assert_eq!(found.roots.len(), 2, "the root and its backup");
        let mut names: Vec<(String, String)> = Vec::new();
        for root in &mut found.roots {
            assert!(!root.listing.is_empty());
            for f in live_files(root) {
                assert!(f.path.is_file(), "{}", f.path.display());
                assert!(f.stat.is_ok(), "{}", f.name);
                names.push((root.projects_dir.clone(), f.name));
            }
            assert!(root.listing.is_empty(), "taken");
        }
        names.sort();
        let mut want = vec![
            ("projects", "file-history/s1/abc@v1"),
            ("projects", "history.jsonl"),
            ("projects", "projects/-p/memory/MEMORY.md"),
            ("projects", "projects/-p/s1.jsonl"),
            ("projects.bak-1", "projects/-p/old.jsonl"),
        ];
        if cfg!(unix) {
            want.push(("projects", "settings.json"));
            want.push(("projects", "skills/tidy/SKILL.md"));
        }
        want.sort();
        let want: Vec<(String, String)> = (want.into_iter())
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(names, want);
    }

    /// The walk names every file below a folder part by part, in the order
    /// of those parts (a file before a folder whose name sorts after it),
    /// with the length and time a `stat` of it gives; links are left out.
    #[test]
    fn the_walk_names_files_in_order_with_their_length_and_time() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let files = ["a-b.jsonl", "a/z.jsonl", "a/m/n.md", "b.json", "a0/x"];
        for (i, f) in files.iter().enumerate() {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
            std::fs::write(&path, "x".repeat(i + 1)).expect("write");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("b.json"), dir.join("c.json")).expect("link");
        let walked = walk(dir, "projects");
        let names: Vec<&str> = walked.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "projects/a/m/n.md",
                "projects/a/z.jsonl",
                "projects/a-b.jsonl",
                "projects/a0/x",
                "projects/b.json"
            ]
        );
        for f in &walked {
            let meta = std::fs::symlink_metadata(&f.path).expect("stat");
            let stat = (meta.len(), crate::base::dirs::mtime_nanos(&meta));
            assert_eq!(f.stat, Ok(stat), "{}", f.name);
            assert_eq!(
                f.path,
                dir.join(f.name.strip_prefix("projects/").expect("prefix"))
            );
        }
    }
}
