//! What the build reads from the archive, laid out as one more data root:
//! files that only the archive still has, and JSONL files whose copies
//! differ (two machines, a rewrite) merged into one.

use super::store::{hex, ObjectId};
use super::{Archive, Kept};
use crate::base::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file that says what each file of the view was made from, so that
/// a rebuild rewrites only what changed.
const MADE_FROM: &str = ".made-from.json";

/// What the view holds.
#[derive(Debug, Default)]
pub struct View {
    /// The folder, when it holds anything to read.
    pub root: Option<PathBuf>,
    /// Live files that a merged file of the view stands for: not to be
    /// read themselves.
    pub replaced: Vec<PathBuf>,
    /// Sessions whose transcript only the archive still has.
    pub archive_only_sessions: usize,
    /// Files merged from differing copies.
    pub merged: usize,
}

/// How a file of the view is made.
enum Make {
    Copy(ObjectId),
    Merge(Vec<ObjectId>),
}

impl Make {
    fn key(&self) -> String {
        match self {
            Make::Copy(id) => hex(*id),
            Make::Merge(ids) => ids.iter().map(|i| hex(*i)).collect::<Vec<_>>().join("+"),
        }
    }
}

/// A session's transcript (`projects/<folder>/<id>.jsonl`), not a sub-agent's.
pub fn is_session(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    parts.len() == 3
        && parts[0] == "projects"
        && parts[2].ends_with(".jsonl")
        && !parts[2].starts_with("agent-")
}

/// Whether a build reads the file (the rest is kept, not shown yet).
fn is_read(name: &str) -> bool {
    name.starts_with("projects/") || name.starts_with("sessions/") || name == "history.jsonl"
}

/// Decide what the view holds, then write what changed.
pub fn build(archive: &Archive, kept: &Kept, dir: &Path) -> Result<View, Error> {
    let mut view = View::default();
    let mut wanted: BTreeMap<&str, Make> = BTreeMap::new();
    // Only files the build does not already read as they are: not live,
    // or live with a content the archive has another of.
    let looked_at = |name: &str, versions: &[super::Version]| {
        is_read(name)
            && kept.live.get(name).is_none_or(|copies| {
                (versions.iter()).any(|v| copies.iter().any(|(_, c)| *c != v.object))
            })
    };
    let files = archive.files_of_where(&kept.sources, looked_at);
    for (name, versions) in &files {
        if versions.is_empty() {
            continue;
        }
        let ids: Vec<ObjectId> = versions.iter().map(|v| v.object).collect();
        let jsonl = name.ends_with(".jsonl");
        match kept.live.get(*name) {
            None => {
                if is_session(name) {
                    view.archive_only_sessions += 1;
                }
                let make = match ids.as_slice() {
                    [one] => Make::Copy(*one),
                    _ if jsonl => Make::Merge(ids),
                    [.., newest] => Make::Copy(*newest),
                    [] => continue,
                };
                wanted.insert(name, make);
            }
            Some(copies) => {
                let differ = ids.iter().any(|id| copies.iter().any(|(_, c)| c != id));
                if jsonl && differ {
                    view.merged += 1;
                    view.replaced.extend(copies.iter().map(|(p, _)| p.clone()));
                    wanted.insert(name, Make::Merge(ids));
                }
            }
        }
    }
    write(archive, dir, &wanted)?;
    if !wanted.is_empty() {
        view.root = Some(dir.to_path_buf());
    }
    Ok(view)
}

/// Write the files of `wanted` that are not already there as wanted, and
/// remove those no longer wanted.
fn write(archive: &Archive, dir: &Path, wanted: &BTreeMap<&str, Make>) -> Result<(), Error> {
    super::store::private_dir(dir)?;
    let record = dir.join(MADE_FROM);
    let before: BTreeMap<String, String> = std::fs::read(&record)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut after = BTreeMap::new();
    for (name, make) in wanted {
        let key = make.key();
        let target = dir.join(name);
        if before.get(*name) != Some(&key) || !target.is_file() {
            let bytes = match make {
                Make::Copy(id) => archive.read_object(*id),
                Make::Merge(ids) => ids
                    .iter()
                    .map(|id| archive.read_object(*id))
                    .collect::<std::io::Result<Vec<_>>>()
                    .map(super::merge::merge),
            }
            .map_err(|e| Error::io(archive.dir().join("objects"), e))?;
            replace(&target, &bytes)?;
        }
        after.insert(name.to_string(), key);
    }
    for name in before.keys().filter(|n| !after.contains_key(*n)) {
        let _ = std::fs::remove_file(dir.join(name));
    }
    if after == before {
        return Ok(());
    }
    let json = serde_json::to_vec(&after).unwrap_or_default();
    replace(&record, &json)
}

/// Write `bytes` to `target` through a temporary file and a rename.
fn replace(target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let parent = target.parent().unwrap_or(Path::new("."));
    super::store::private_dir(parent)?;
    let tmp = parent.join(format!(
        ".{}.tmp",
        target.file_name().unwrap_or_default().to_string_lossy()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, target).map_err(|e| Error::io(target, e))
}
