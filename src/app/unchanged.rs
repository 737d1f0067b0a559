//! A rebuild with nothing changed does nothing. After each build, a
//! fingerprint of everything it read is kept beside the cache: every source
//! file's size, modification time and inode, the options, the wiki
//! repository's templates, themes and `root/` files, and the ccwiki binary
//! itself. When the next build finds the same fingerprint and every page
//! of the last build still in the site, it stops there and says so.

use super::build::{BuildOptions, BuildReport};
use crate::base::skip::Skip;
use crate::base::stored;
use crate::source::discover::{Sources, Stamp};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// Bump when [`LastBuild`] changes shape.
const FORMAT: u32 = 3;

/// What the last build read (as a fingerprint) and what it reported.
#[derive(Debug, Default, Serialize, Deserialize)]
struct LastBuild {
    format: u32,
    fingerprint: u128,
    projects: usize,
    sessions: usize,
    empty_sessions: usize,
    memories: usize,
    subagents: usize,
    excluded: usize,
    prompts: u64,
    pages: usize,
    transcript_bytes: u64,
    lines: u64,
    skips: Vec<Skip>,
    redactions: BTreeMap<String, u64>,
    roots: Vec<PathBuf>,
    /// Every file and link of the site as the build left it: the site must
    /// still be exactly that (a page edited, removed or added by hand, a
    /// link in a kept folder: the next build makes the site again).
    files: Vec<SiteFile>,
}

/// One entry of the site: its path, length, modification time (ns), and
/// whether it is a symbolic link.
type SiteFile = (String, u64, i64, bool);

/// Every file and link under `out`, by path.
fn site_files(out: &Path) -> Vec<SiteFile> {
    let mut files = files_under(out, "");
    files.sort_unstable();
    files
}

/// Every file and link under `dir`, whose path in the site is `rel`. The
/// entries of a folder are looked at on every core: a site of a hundred
/// thousand pages is a hundred thousand folders. Links are not followed;
/// what cannot be read is left out (the lists then differ: a real build).
fn files_under(dir: &Path, rel: &str) -> Vec<SiteFile> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let entries: Vec<std::fs::DirEntry> = entries.filter_map(Result::ok).collect();
    entries
        .par_iter()
        .flat_map_iter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let rel = if rel.is_empty() {
                name.into_owned()
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                return files_under(&e.path(), &rel);
            }
            // The entry itself, never what a link points to.
            let Ok(m) = e.metadata() else {
                return Vec::new();
            };
            let mtime = crate::base::dirs::mtime_nanos(&m);
            vec![(rel, m.len(), mtime, m.file_type().is_symlink())]
        })
        .collect()
}

fn stat(h: &mut Xxh3, path: &Path) {
    let seen = std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), crate::source::discover::Stamp::of(&m)));
    stamp(h, path, seen);
}

/// A file as it was seen: its length and stamp (modification time, inode,
/// status change time), or None when it could not be.
fn stamp(h: &mut Xxh3, path: &Path, seen: Option<(u64, Stamp)>) {
    h.write(path.as_os_str().as_encoded_bytes());
    h.write_u8(0);
    let Some((len, s)) = seen else {
        h.write_u8(1);
        return;
    };
    h.write_u64(len);
    h.write_i64(s.mtime);
    if cfg!(unix) {
        h.write_u64(s.inode);
        h.write_i64(s.changed);
    }
}

/// Every file under `dir`, in order.
fn stat_tree(h: &mut Xxh3, dir: &Path) {
    let files = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok);
    for e in files {
        stat(h, e.path());
    }
}

/// The fingerprint of a build of `sources` with `opts`.
pub fn fingerprint(opts: &BuildOptions, sources: &Sources) -> u128 {
    let mut h = Xxh3::new();
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    // A rebuilt binary (same version, other code) is another build.
    if let Ok(exe) = std::env::current_exe() {
        stat(&mut h, &exe);
    }
    // Everything that shapes the site; how progress is shown does not.
    let mut shaping = opts.clone();
    shaping.progress = crate::base::progress::Progress::default();
    shaping.leave_previous = false;
    h.write(format!("{shaping:?}").as_bytes());
    for r in &sources.roots {
        h.write(r.path.as_os_str().as_encoded_bytes());
        // Transcripts and memory files as discovery saw them (the many);
        // the rest looked at.
        for t in &r.transcripts {
            stamp(&mut h, &t.path, Some((t.size, t.stamp)));
        }
        for m in r.memory_dirs.iter().flat_map(|d| &d.files) {
            stamp(&mut h, &m.path, Some((m.size, m.stamp)));
        }
        let files = r
            .memory_dirs
            .iter()
            .flat_map(|m| &m.index)
            .chain(&r.history)
            .chain(&r.session_starts)
            .chain(r.setup.iter().map(|s| &s.path))
            .chain(&r.facets)
            .chain(&r.claude_json);
        for f in files {
            stat(&mut h, f);
        }
        // Sub-agents' metadata.
        for t in &r.transcripts {
            if let crate::source::discover::FileRole::Subagent(a) = &t.role {
                if let Some(m) = &a.meta {
                    stat(&mut h, m);
                }
            }
        }
    }
    if let Some(dir) = &opts.site_dir {
        for part in ["templates", "themes", "root"] {
            stat_tree(&mut h, &dir.join(part));
        }
    }
    h.digest128()
}

fn last_build_path(opts: &BuildOptions) -> Option<PathBuf> {
    if !opts.cache || opts.report.is_some() {
        return None;
    }
    crate::base::dirs::site_cache_dir(&opts.out, opts.cache_dir.as_deref())
        .map(|d| d.join("last-build.bin"))
}

/// The last build's report, when it read exactly what `fingerprint` says
/// and its pages are all still in the site.
pub fn check(opts: &BuildOptions, fingerprint: u128) -> Option<BuildReport> {
    let last: LastBuild = stored::read(&last_build_path(opts)?)?;
    if last.format != FORMAT || last.fingerprint != fingerprint {
        return None;
    }
    (site_files(&opts.out) == last.files).then(|| BuildReport {
        unchanged: true,
        projects: last.projects,
        sessions: last.sessions,
        empty_sessions: last.empty_sessions,
        memories: last.memories,
        subagents: last.subagents,
        excluded: last.excluded,
        prompts: last.prompts,
        pages: last.pages,
        transcript_bytes: last.transcript_bytes,
        lines: last.lines,
        skips: last.skips,
        redactions: last.redactions,
        roots: last.roots,
        ..BuildReport::default()
    })
}

/// Forget the last build (before one that may change the site).
pub fn forget(opts: &BuildOptions) {
    if let Some(p) = last_build_path(opts) {
        let _ = std::fs::remove_file(p);
    }
}

/// Remember what this build read and reported, and the files it left in
/// the site (path, length, time; by path). Failure only costs a full build
/// next time.
pub fn remember(
    opts: &BuildOptions,
    fingerprint: u128,
    report: &BuildReport,
    files_left: Vec<(String, u64, i64)>,
) {
    let Some(path) = last_build_path(opts) else {
        return;
    };
    let last = LastBuild {
        format: FORMAT,
        fingerprint,
        projects: report.projects,
        sessions: report.sessions,
        empty_sessions: report.empty_sessions,
        memories: report.memories,
        subagents: report.subagents,
        excluded: report.excluded,
        prompts: report.prompts,
        pages: report.pages,
        transcript_bytes: report.transcript_bytes,
        lines: report.lines,
        skips: report.skips.clone(),
        redactions: report.redactions.clone(),
        roots: report.roots.clone(),
        files: files_left
            .into_iter()
            .map(|(rel, len, mtime)| (rel, len, mtime, false))
            .collect(),
    };
    stored::replace_with(&path, &last);
}
