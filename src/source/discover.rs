//! Phase 1: find the data roots and classify every file in them.
//!
//! Nothing is parsed here; the result lists what later phases will read.
//! Symbolic links are never followed, so nothing outside a source is read.

use crate::base::error::Error;
use crate::base::skip::Skip;
use crate::base::walk::Listed;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// Everything found in one data root (a `~/.claude`-like directory).
#[derive(Debug, Clone, Default)]
pub struct Root {
    pub index: usize,
    /// The source it was found in (as given, a `projects/` folder's parent).
    pub source: PathBuf,
    pub path: PathBuf,
    /// The folder of project folders: `projects`, or a backup of it
    /// (`projects.bak-2025-06`) read as a root of its own.
    pub projects_dir: String,
    pub transcripts: Vec<TranscriptFile>,
    pub memory_dirs: Vec<MemoryDir>,
    pub history: Option<PathBuf>,
    pub session_starts: Vec<PathBuf>,
    /// The user's setup: `CLAUDE.md`, agents, commands, skills, output
    /// styles and `settings.json`, in walk order.
    pub setup: Vec<SetupFile>,
    /// `usage-data/facets/<session>.json`: what `/insights` made of a session.
    pub facets: Vec<PathBuf>,
    /// `file-history/`, when there is one: backups of the files sessions changed.
    pub file_history: Option<PathBuf>,
    /// Claude Code's settings file, `.claude.json`, inside the root or
    /// beside it (see `account.rs`): whose account wrote the data.
    pub claude_json: Option<PathBuf>,
    /// Every file the walk met, in its order (links and nested roots left
    /// out), the ones a wiki does not show too: the archive keeps them all
    /// and takes them from here instead of walking the root again.
    pub listing: Vec<Listed>,
}

/// What a setup file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SetupKind {
    /// The global `CLAUDE.md`: instructions read at the start of every session.
    Instructions,
    /// `agents/<name>.md`: a sub-agent type.
    Agent,
    /// `commands/<name>.md`: a slash command (`commands/ns/name.md` is `/ns:name`).
    Command,
    /// `skills/<name>/SKILL.md`: one of Claude Code's own skills.
    Skill,
    /// `output-styles/<name>.md`.
    OutputStyle,
    /// `settings.json`: hooks, MCP servers, plugins.
    Settings,
}

/// One setup file and the name sessions use for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupFile {
    pub kind: SetupKind,
    /// `CLAUDE.md`, the agent type, `/command`, the skill's folder name,
    /// the style's file stem, `settings.json`.
    pub name: String,
    pub path: PathBuf,
}

/// A JSONL transcript and what its place in the tree says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptFile {
    pub path: PathBuf,
    /// The folder under `projects/` (or the parent folder of a loose file).
    pub project_dir: String,
    pub role: FileRole,
    pub size: u64,
    /// When the walk saw it: what the cache and the no-op check compare
    /// (a hundred thousand files are not looked at twice).
    pub stamp: Stamp,
    /// A hash of its first bytes (see [`HEAD_HASHED`]), taken where the
    /// build first reads them (learning whose data it is): the cache
    /// compares it without opening the file again.
    pub head: std::sync::OnceLock<u64>,
}

/// How many of a transcript's first bytes [`TranscriptFile::head`] hashes.
pub const HEAD_HASHED: u64 = 4096;

impl TranscriptFile {
    fn new(path: &Path, project_dir: &str, role: FileRole, (size, stamp): (u64, Stamp)) -> Self {
        TranscriptFile {
            path: path.to_path_buf(),
            project_dir: project_dir.to_string(),
            role,
            size,
            stamp,
            head: std::sync::OnceLock::new(),
        }
    }
}

/// A file's modification time (ns since 1970), inode and status change
/// time (ns; both 0 where the system has none), as the walk saw them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub mtime: i64,
    pub inode: u64,
    /// Moves when the file's permissions do, which the modification time
    /// does not: a file that could not be read may be readable now.
    pub changed: i64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let (inode, changed) = {
            use std::os::unix::fs::MetadataExt;
            let ns = meta.ctime().saturating_mul(1_000_000_000);
            (meta.ino(), ns.saturating_add(meta.ctime_nsec()))
        };
        #[cfg(not(unix))]
        let (inode, changed) = (0, 0);
        Stamp {
            mtime: crate::base::dirs::mtime_nanos(meta),
            inode,
            changed,
        }
    }
}

/// Whether a transcript is a session or a sub-agent of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRole {
    /// `<session>.jsonl`: one or more sessions.
    Session,
    /// `agent-*.jsonl`: a sub-agent (boxed: a session's file is the
    /// common case, and a hundred thousand of them held room for this).
    Subagent(Box<AgentFile>),
}

/// A sub-agent's transcript; `parent` is known from the folder in the
/// nested layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFile {
    pub agent_id: String,
    pub parent: Option<String>,
    pub layout: SubagentLayout,
    pub role: SubagentRole,
    pub meta: Option<PathBuf>,
}

/// A project's `memory/` folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryDir {
    pub project_dir: String,
    pub path: PathBuf,
    pub index: Option<PathBuf>,
    pub files: Vec<MemoryFile>,
}

/// A memory file (not the index) as the walk saw it: triage's cache and the
/// no-op check compare its size and stamp without looking at it again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryFile {
    pub path: PathBuf,
    pub size: u64,
    pub stamp: Stamp,
}

/// The roots found, and anything that could not be looked at.
#[derive(Debug, Default)]
pub struct Sources {
    pub roots: Vec<Root>,
    pub skips: Vec<Skip>,
    /// What the user should know about how the sources were read (not
    /// warnings).
    pub notes: Vec<String>,
}

impl Sources {
    /// Leave out the JSONL files in `paths` (copies that a merged file of
    /// the archive's view stands for).
    pub fn leave_out(&mut self, paths: &[PathBuf]) {
        if paths.is_empty() {
            return;
        }
        let gone: std::collections::HashSet<&PathBuf> = paths.iter().collect();
        for root in &mut self.roots {
            root.transcripts.retain(|t| !gone.contains(&t.path));
            if root.history.as_ref().is_some_and(|h| gone.contains(h)) {
                root.history = None;
            }
            root.session_starts.retain(|s| !gone.contains(s));
        }
    }

    /// Let go of every root's [`Root::listing`]: what the archive did not
    /// take (there is no archive, or the roots are its own view).
    pub fn forget_listings(&mut self) {
        for root in &mut self.roots {
            root.listing = Vec::new();
        }
    }

    /// Bytes of transcripts in all roots.
    pub fn transcript_bytes(&self) -> u64 {
        self.roots
            .iter()
            .flat_map(|r| &r.transcripts)
            .map(|t| t.size)
            .sum()
    }
}

/// Resolve the given source directories to data roots and classify their files.
///
/// A source may hold several data roots: a backup with `.claude/`,
/// `config/` and `.claude-home/.config/claude`, or `projects.bak-*` folders
/// beside `projects/`. Every one found is read (the same session seen in
/// two is shown once); [`Root::path`] names each for the build summary.
pub fn discover(sources: &[PathBuf]) -> Result<Sources, Error> {
    let mut out = Sources::default();
    let mut seen = std::collections::BTreeSet::new();
    for source in sources {
        if !source.is_dir() {
            return Err(Error::bad_source(source));
        }
        let start = match projects_parent(source) {
            Some(parent) => {
                out.notes.push(format!(
                    "{} is the projects/ folder of a Claude Code data directory: reading all of {} (memories and history too)",
                    source.display(),
                    parent.display()
                ));
                parent
            }
            None => source.clone(),
        };
        let before = out.roots.len();
        for (path, projects_dir) in data_roots(&start) {
            let key = (crate::base::dirs::resolved(&path), projects_dir.clone());
            if !seen.insert(key) {
                continue;
            }
            let mut root = Root {
                index: out.roots.len(),
                source: start.clone(),
                path,
                projects_dir,
                ..Root::default()
            };
            walk_root(&mut root, &mut out.skips);
            root.claude_json = super::account::find(&root.path);
            if !root.is_empty() {
                out.roots.push(root);
            }
        }
        if out.roots.len() == before {
            return Err(Error::NoData {
                path: source.clone(),
            });
        }
    }
    Ok(out)
}

impl Root {
    /// The folder as the user would name it: the data root, or the backup
    /// of its projects folder.
    pub fn shown_path(&self) -> PathBuf {
        if self.projects_dir == "projects" {
            self.path.clone()
        } else {
            self.path.join(&self.projects_dir)
        }
    }

    /// Nothing Claude Code writes was found in it.
    fn is_empty(&self) -> bool {
        self.transcripts.is_empty()
            && self.memory_dirs.is_empty()
            && self.history.is_none()
            && self.session_starts.is_empty()
    }
}

/// Folders that never hold a data root: skipped when looking for one,
/// and read as their data root's own. The setup's folders are among them:
/// a skill named `projects-helper` is not a backup of the projects folder.
const NOT_ROOTS: [&str; 12] = [
    "file-history",
    "shell-snapshots",
    "todos",
    "debug",
    "statsig",
    "node_modules",
    ".git",
    "plugins",
    "skills",
    "commands",
    "agents",
    "output-styles",
];

/// Whether `rel` (a folder's path below a data root) is where a data root
/// may be found: not in any of [`NOT_ROOTS`].
fn may_hold_root(rel: &Path) -> bool {
    rel.iter()
        .all(|c| !NOT_ROOTS.iter().any(|n| c == std::ffi::OsStr::new(n)))
}

/// A folder that is a data root of its own.
fn is_root(dir: &Path) -> bool {
    dir.join("projects").is_dir() || dir.join("history.jsonl").is_file()
}

/// How deep below a source data roots are looked for
/// (`backup/.claude-home/.config/claude` is three levels down).
const ROOT_DEPTH: usize = 4;

/// A backup of the projects folder: `projects.bak`, `projects.bak-2025-06`,
/// `projects-backup`…
fn is_projects_backup(name: &str) -> bool {
    name != "projects" && name.starts_with("projects") && name[8..].starts_with(['.', '-', '_'])
}

/// The data roots at or below `start`, each as (folder, its projects folder
/// name): `start` itself when it holds `projects/` or `history.jsonl`,
/// every such folder below it, and each backup of a projects folder.
fn data_roots(start: &Path) -> Vec<(PathBuf, String)> {
    let mut roots = Vec::new();
    let walker = WalkDir::new(start)
        .follow_links(false)
        .max_depth(ROOT_DEPTH)
        .sort_by(by_name)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || (e.file_type().is_dir()
                    && name != "projects"
                    && !is_projects_backup(&name)
                    && !NOT_ROOTS.contains(&name.as_ref()))
        });
    for entry in walker.filter_map(Result::ok) {
        let dir = entry.path();
        if is_root(dir) {
            roots.push((dir.to_path_buf(), "projects".to_string()));
        }
        let Ok(children) = fs::read_dir(dir) else {
            continue;
        };
        let mut backups: Vec<String> = children
            .filter_map(Result::ok)
            .filter(|c| c.file_type().is_ok_and(|t| t.is_dir()))
            .map(|c| c.file_name().to_string_lossy().into_owned())
            .filter(|n| is_projects_backup(n))
            .collect();
        backups.sort();
        roots.extend(backups.into_iter().map(|b| (dir.to_path_buf(), b)));
    }
    // Loose transcripts with no data root around them: read the source as one.
    if roots.is_empty() {
        roots.push((start.to_path_buf(), "projects".to_string()));
    }
    roots
}

/// The folder Claude Code keeps a project's files in, named after its path:
/// every character but ASCII letters and digits becomes `-`
/// (`/home/dana/x.y` is `-home-dana-x-y`).
pub fn folder_name(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The data directory when `source` is its `projects/` folder (what other
/// tools take): a folder named `projects` holding project folders.
fn projects_parent(source: &Path) -> Option<PathBuf> {
    if source.file_name()? != "projects" || source.join("projects").is_dir() {
        return None;
    }
    let holds_projects = fs::read_dir(source).ok()?.filter_map(Result::ok).any(|e| {
        e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name().to_string_lossy().starts_with('-')
    });
    holds_projects.then(|| source.parent().map(Path::to_path_buf))?
}

/// Entries of one folder by name. Within a folder the whole paths compare
/// as the names do, bytes against bytes: a name taken out of its path for
/// each comparison was a third of discovering ten thousand files.
fn by_name(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    a.path().as_os_str().cmp(b.path().as_os_str())
}

fn walk_root(root: &mut Root, skips: &mut Vec<Skip>) {
    // Without a projects/ folder, treat every .jsonl below as a loose transcript.
    let has_projects = root.path.join(&root.projects_dir).is_dir();
    // A backup of projects/ is read alone: the rest of its folder is the
    // data root's own.
    let backup = root.projects_dir != "projects";
    let top = if backup {
        root.path.join(&root.projects_dir)
    } else {
        root.path.clone()
    };
    // Nested data roots and backups are roots of their own.
    let projects = top.join("projects");
    let enter = |dir: &Path, depth: usize| {
        let nested = depth <= ROOT_DEPTH
            && !backup
            && !dir.starts_with(&projects)
            && may_hold_root(dir.strip_prefix(&top).unwrap_or(dir))
            && (dir.file_name())
                .is_some_and(|n| is_projects_backup(&n.to_string_lossy()) || is_root(dir));
        !nested
    };
    // Listed, each file looked at (a `stat`: a hundred thousand of them in
    // a large data directory), on every core, then classified in order.
    let listing = crate::base::walk::files(&top, &enter);
    for (path, err) in listing.errors {
        skips.push(Skip::file(path, format!("cannot read: {err}")));
    }
    root.listing.reserve_exact(listing.files.len());
    for file in listing.files {
        let (path, meta) = (file.path.as_path(), file.meta.as_ref().ok());
        if let Ok(rel) = path.strip_prefix(&root.path) {
            let mut parts: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
            if backup && !parts.is_empty() {
                parts[0] = "projects";
            }
            if parts.len() == rel.iter().count() {
                let size = meta.map_or(0, |m| m.len());
                let stamp = meta.map(Stamp::of).unwrap_or_default();
                classify(root, path, &parts, (size, stamp), has_projects);
            } else {
                skips.push(Skip::file(path, "file name is not valid UTF-8"));
            }
        }
        root.listing.push(Listed::from(file));
    }
    // Memory folders come out of the walk in order; keep them that way.
    root.memory_dirs
        .sort_by(|a, b| a.project_dir.cmp(&b.project_dir));
    // Held through the whole build: no room doubled and never used.
    root.transcripts.shrink_to_fit();
}

fn classify(
    root: &mut Root,
    path: &Path,
    parts: &[&str],
    (size, stamp): (u64, Stamp),
    has_projects: bool,
) {
    let name = parts[parts.len() - 1];
    match parts {
        ["history.jsonl"] => root.history = Some(path.to_path_buf()),
        ["sessions", file] if file.ends_with(".json") => {
            root.session_starts.push(path.to_path_buf())
        }
        _ if classify_setup(root, path, parts) => {}
        ["projects", dir, "memory", file] if file.ends_with(".md") => {
            let mdir = memory_dir(root, dir, path);
            if *file == "MEMORY.md" {
                mdir.index = Some(path.to_path_buf());
            } else {
                mdir.files.push(MemoryFile {
                    path: path.to_path_buf(),
                    size,
                    stamp,
                });
            }
        }
        ["projects", dir, file] if file.ends_with(".jsonl") => {
            let role = if let Some(id) = agent_id(file) {
                FileRole::Subagent(Box::new(AgentFile {
                    role: agent_role(&id),
                    agent_id: id,
                    parent: None,
                    layout: SubagentLayout::Sibling,
                    meta: None,
                }))
            } else {
                FileRole::Session
            };
            root.transcripts
                .push(TranscriptFile::new(path, dir, role, (size, stamp)));
        }
        // `subagents/journal.jsonl` and the like are bookkeeping, not agents.
        ["projects", dir, session, "subagents", file]
            if file.ends_with(".jsonl") && file.starts_with("agent-") =>
        {
            let id = agent_id(file).unwrap_or_else(|| file.trim_end_matches(".jsonl").to_string());
            let meta =
                path.with_file_name(format!("{}.meta.json", file.trim_end_matches(".jsonl")));
            let role = FileRole::Subagent(Box::new(AgentFile {
                role: agent_role(&id),
                agent_id: id,
                parent: Some(session.to_string()),
                layout: SubagentLayout::Nested,
                // A regular file only: a symlink could lead out of the source.
                meta: std::fs::symlink_metadata(&meta)
                    .is_ok_and(|m| m.file_type().is_file())
                    .then_some(meta),
            }));
            root.transcripts
                .push(TranscriptFile::new(path, dir, role, (size, stamp)));
        }
        _ if !has_projects && name.ends_with(".jsonl") && name != "history.jsonl" => {
            let dir = if parts.len() >= 2 {
                parts[parts.len() - 2]
            } else {
                ""
            };
            let role = FileRole::Session;
            root.transcripts
                .push(TranscriptFile::new(path, dir, role, (size, stamp)));
        }
        _ => {}
    }
}

/// The user's setup, facets and file history: true when `path` is one.
fn classify_setup(root: &mut Root, path: &Path, parts: &[&str]) -> bool {
    match parts {
        ["file-history", ..] => {
            root.file_history
                .get_or_insert_with(|| root.path.join("file-history"));
        }
        ["usage-data", "facets", file] if file.ends_with(".json") => {
            root.facets.push(path.to_path_buf())
        }
        _ => match setup_kind(parts) {
            Some((kind, name)) => root.setup.push(SetupFile {
                kind,
                name,
                path: path.to_path_buf(),
            }),
            None => return false,
        },
    }
    true
}

/// A setup file's kind and name, from its place in the data root.
fn setup_kind(parts: &[&str]) -> Option<(SetupKind, String)> {
    let md = |f: &str| {
        f.strip_suffix(".md")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match parts {
        ["CLAUDE.md"] => Some((SetupKind::Instructions, "CLAUDE.md".into())),
        ["settings.json"] => Some((SetupKind::Settings, "settings.json".into())),
        ["agents", file] => Some((SetupKind::Agent, md(file)?)),
        ["output-styles", file] => Some((SetupKind::OutputStyle, md(file)?)),
        ["skills", name, "SKILL.md"] => Some((SetupKind::Skill, name.to_string())),
        ["commands", folders @ .., file] => {
            let mut name = folders.join(":");
            if !name.is_empty() {
                name.push(':');
            }
            name.push_str(&md(file)?);
            Some((SetupKind::Command, format!("/{name}")))
        }
        _ => None,
    }
}

fn memory_dir<'a>(root: &'a mut Root, dir: &str, file: &Path) -> &'a mut MemoryDir {
    // The walk is sorted: a folder's files come together, so its entry is
    // nearly always the last one (and a search stays rare: linear overall).
    let last = root.memory_dirs.len().checked_sub(1);
    let pos = match last
        .filter(|&l| root.memory_dirs[l].project_dir == dir)
        .or_else(|| root.memory_dirs.iter().position(|m| m.project_dir == dir))
    {
        Some(p) => p,
        None => {
            root.memory_dirs.push(MemoryDir {
                project_dir: dir.to_string(),
                path: file.parent().map(Path::to_path_buf).unwrap_or_default(),
                index: None,
                files: Vec::new(),
            });
            root.memory_dirs.len() - 1
        }
    };
    &mut root.memory_dirs[pos]
}

/// `agent-abc123.jsonl` → `abc123`.
fn agent_id(file: &str) -> Option<String> {
    file.strip_prefix("agent-")
        .and_then(|s| s.strip_suffix(".jsonl"))
        .map(str::to_string)
}

fn agent_role(id: &str) -> SubagentRole {
    if id.starts_with("acompact") {
        SubagentRole::Compaction
    } else if id.starts_with("aprompt_suggestion") {
        SubagentRole::PromptSuggestion
    } else if id.starts_with("aside_question") {
        SubagentRole::Aside
    } else {
        SubagentRole::Task
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn entries_are_walked_in_the_order_of_their_names() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "a", "a-b", "a.b", "a b", "ab", "a_b", "A", "é", "e", "z", "a0", "a~", "-x", ".h",
        ];
        for n in names {
            fs::create_dir_all(dir.path().join(n).join(n)).unwrap();
            fs::write(dir.path().join(n).join(format!("{n}.md")), "x").unwrap();
            fs::write(dir.path().join(format!("{n}.jsonl")), "x").unwrap();
        }
        let walk = |w: WalkDir| -> Vec<PathBuf> {
            w.into_iter()
                .map(|e| e.unwrap().path().to_path_buf())
                .collect()
        };
        let ours = walk(WalkDir::new(dir.path()).sort_by(by_name));
        let theirs = walk(WalkDir::new(dir.path()).sort_by_file_name());
        assert_eq!(ours.len(), 1 + names.len() * 4);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn classifies_every_layout() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for f in [
            "history.jsonl",
            "sessions/42.json",
            "projects/-a/memory/MEMORY.md",
            "projects/-a/memory/user_role.md",
            "projects/-a/s1.jsonl",
            "projects/-a/agent-1234abcd.jsonl",
            "projects/-a/s1/subagents/agent-acompact-99.jsonl",
            "projects/-a/s1/subagents/agent-acompact-99.meta.json",
            "projects/-a/s1/tool-results/x.txt",
            "todos/x.json",
        ] {
            let p = r.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "{}").unwrap();
        }
        let s = discover(&[r.to_path_buf()]).unwrap();
        let root = &s.roots[0];
        assert!(root.history.is_some());
        assert_eq!(root.session_starts.len(), 1);
        assert_eq!(root.memory_dirs.len(), 1);
        assert_eq!(root.memory_dirs[0].files.len(), 1);
        assert!(root.memory_dirs[0].index.is_some());
        assert_eq!(root.transcripts.len(), 3);
        let roles: Vec<_> = root.transcripts.iter().map(|t| &t.role).collect();
        assert!(roles.contains(&&FileRole::Session));
        assert!(roles.iter().any(|r| matches!(
            r,
            FileRole::Subagent(a) if a.layout == SubagentLayout::Sibling && a.role == SubagentRole::Task
        )));
        assert!(roles.iter().any(
            |r| matches!(r, FileRole::Subagent(a) if a.layout == SubagentLayout::Nested
            && a.role == SubagentRole::Compaction
            && a.parent.as_deref() == Some("s1")
            && a.meta.is_some())
        ));
    }

    /// A setup folder whose name looks like a backup of the projects
    /// folder (a skill called `projects-helper`) is read as the setup it
    /// is, not taken for a data root of its own.
    #[test]
    fn a_skill_named_like_a_projects_backup_is_a_skill() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for f in [
            "projects/-a/s1.jsonl",
            "projects.bak-1/-a/s0.jsonl",
            "skills/projects-helper/SKILL.md",
            "commands/projects.sync/go.md",
            "agents/projects_x.md",
            "skills/tidy/SKILL.md",
        ] {
            let p = r.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        let s = discover(&[r.to_path_buf()]).unwrap();
        let dirs: Vec<&str> = s.roots.iter().map(|r| r.projects_dir.as_str()).collect();
        assert_eq!(dirs, ["projects", "projects.bak-1"]);
        let names: Vec<&str> = s.roots[0].setup.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["projects_x", "/projects.sync:go", "projects-helper", "tidy"]
        );
    }

    #[test]
    fn missing_source_is_an_error() {
        let err = discover(&[PathBuf::from("/definitely/not/here")]).unwrap_err();
        assert!(err.to_string().contains("/definitely/not/here"));
    }

    #[test]
    fn dotfiles_repo_is_read_through_dot_claude() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".claude/projects/-x")).unwrap();
        fs::write(dir.path().join(".claude/projects/-x/s.jsonl"), "").unwrap();
        let s = discover(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(s.roots[0].transcripts.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.jsonl"), "{}").unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("projects/-a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("projects/-a/link")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.jsonl"),
            dir.path().join("projects/-a/s.jsonl"),
        )
        .unwrap();
        // Nothing but links out: nothing is read, and the build says so.
        assert!(matches!(
            discover(&[dir.path().to_path_buf()]),
            Err(Error::NoData { .. })
        ));
    }

    #[test]
    fn an_empty_source_is_refused_and_projects_means_its_parent() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            discover(&[dir.path().to_path_buf()]),
            Err(Error::NoData { .. })
        ));
        fs::create_dir_all(dir.path().join("projects/-home-a-p/memory")).unwrap();
        fs::write(dir.path().join("projects/-home-a-p/s.jsonl"), "{}\n").unwrap();
        fs::write(dir.path().join("projects/-home-a-p/memory/m.md"), "x").unwrap();
        fs::write(dir.path().join("history.jsonl"), "{}\n").unwrap();
        let s = discover(&[dir.path().join("projects")]).unwrap();
        assert_eq!(s.roots[0].path, dir.path());
        assert!(s.roots[0].history.is_some() && s.roots[0].memory_dirs.len() == 1);
        assert!(s.notes.iter().any(|n| n.contains("projects/ folder")));
        assert!(s.skips.is_empty(), "a note, not a warning");
    }

    fn session(dir: &Path, project: &str, id: &str) {
        let p = dir.join("projects").join(project);
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join(format!("{id}.jsonl")), "{}\n").unwrap();
    }

    #[test]
    fn every_nested_data_root_and_projects_backup_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path();
        // A backup of several machines: none at the top.
        session(&b.join(".claude"), "-home-a-p", "s1");
        session(&b.join("config"), "-home-a-q", "s2");
        session(&b.join(".claude-home/.config/claude"), "-home-a-r", "s3");
        fs::write(b.join("config/history.jsonl"), "{}\n").unwrap();
        // A backup of the projects folder beside the live one.
        let bak = b.join(".claude/projects.bak-2025-06/-home-a-old");
        fs::create_dir_all(&bak).unwrap();
        fs::write(bak.join("s0.jsonl"), "{}\n").unwrap();
        let s = discover(&[b.to_path_buf()]).unwrap();
        let shown: Vec<PathBuf> = s
            .roots
            .iter()
            .map(|r| r.shown_path().strip_prefix(b).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            shown,
            [
                ".claude",
                ".claude/projects.bak-2025-06",
                ".claude-home/.config/claude",
                "config"
            ]
            .map(PathBuf::from)
        );
        let files = |i: usize| -> Vec<String> {
            s.roots[i]
                .transcripts
                .iter()
                .map(|t| t.path.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        // Each file is read through one root only.
        assert_eq!(files(0), ["s1.jsonl"]);
        assert_eq!(files(1), ["s0.jsonl"]);
        assert_eq!(s.roots[1].transcripts[0].project_dir, "-home-a-old");
        assert_eq!(files(2), ["s3.jsonl"]);
        assert_eq!(files(3), ["s2.jsonl"]);
        assert!(s.roots[3].history.is_some() && s.roots[0].history.is_none());
        assert_eq!(
            s.roots.iter().map(|r| r.index).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        // Naming a root twice, or a root and its folder, reads it once.
        let twice = discover(&[b.join("config"), b.to_path_buf()]).unwrap();
        assert_eq!(twice.roots.len(), 4);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_meta_file_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(
            outside.path().join("secret.json"),
            r#"{"description":"secret"}"#,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("projects/-a/s1/subagents");
        fs::create_dir_all(&agents).unwrap();
        fs::write(agents.join("agent-x.jsonl"), "{}\n").unwrap();
        fs::write(agents.join("agent-y.jsonl"), "{}\n").unwrap();
        fs::write(agents.join("agent-y.meta.json"), "{}").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.json"),
            agents.join("agent-x.meta.json"),
        )
        .unwrap();
        let s = discover(&[dir.path().to_path_buf()]).unwrap();
        let metas: Vec<Option<PathBuf>> = s.roots[0]
            .transcripts
            .iter()
            .map(|t| match &t.role {
                FileRole::Subagent(a) => a.meta.clone(),
                FileRole::Session => None,
            })
            .collect();
        assert_eq!(metas.len(), 2);
        assert_eq!(metas[0], None, "the symlinked meta is ignored");
        assert!(metas[1].is_some(), "a real meta file is read");
    }
}

/// How a sub-agent transcript was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SubagentLayout {
    /// `isSidechain` lines inside the session file (1.0.x).
    Inline,
    /// `agent-<id>.jsonl` beside the session files (2.0.x).
    Sibling,
    /// `<session>/subagents/agent-<id>.jsonl` with `.meta.json` (2.1.x).
    Nested,
}

/// What a sub-agent transcript is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SubagentRole {
    /// A task the main agent delegated.
    Task,
    /// The side conversation that wrote a compaction summary (`agent-acompact-*`).
    Compaction,
    /// Prompt suggestions generated in the background (`agent-aprompt_suggestion-*`).
    PromptSuggestion,
    /// An aside question (`agent-aside_question-*`).
    Aside,
}

impl SubagentRole {
    pub fn label(self) -> &'static str {
        match self {
            SubagentRole::Task => "sub-agent",
            SubagentRole::Compaction => "compaction",
            SubagentRole::PromptSuggestion => "prompt suggestion",
            SubagentRole::Aside => "aside",
        }
    }
}
