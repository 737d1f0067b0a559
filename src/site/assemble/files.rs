//! A page per file a project's sessions changed: every change in time
//! order with its diff, and the backups Claude Code kept of it. A change is
//! read back from the spill only when its page is rendered.

use super::format::date_time;
use super::links::Links;
use super::shared_diffs::{CallAt, SharedDiffs};
use super::views::{BackupRow, ChangeView, FileRow, FileView, Link};
use super::{Page, View};
use crate::base::slugs::SlugSet;
use crate::knowledge::model::{Block, Session, Turn};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A call that changed a file, where its session's turns hold it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Found {
    /// The file, as the call named it (redacted).
    pub path: String,
    pub turn: usize,
    pub block: usize,
    pub ts: Option<DateTime<Utc>>,
    /// The page of the session (0 for the first) the turn is on.
    pub page: usize,
    /// The call's tool (`Edit`, `Write`...).
    pub tool: String,
    /// The bytes of its edits (see [`super::diff::edit_bytes`]): which
    /// diffs its file's page shows is known before any is read back.
    pub size: usize,
}

/// The calls of `turn` (turn `t` of its session, on `page`) that changed
/// a file, pushed onto `out`.
pub fn found_in(turn: &Turn, t: usize, page: usize, out: &mut Vec<Found>) {
    let Turn::Assistant { ts, blocks, .. } = turn else {
        return;
    };
    for (b, block) in blocks.iter().enumerate() {
        if let Block::Tool(c) = block {
            if !c.edits.is_empty() && !c.arg.is_empty() {
                out.push(Found {
                    path: c.arg.to_string(),
                    turn: t,
                    block: b,
                    ts: *ts,
                    page,
                    tool: c.name.to_string(),
                    size: super::diff::edit_bytes(&c.edits),
                });
            }
        }
    }
}

/// One change of a file: which session, and where in it.
#[derive(Debug, Clone)]
struct ChangeRef {
    session: usize,
    session_title: String,
    found: Found,
    /// The session page the change is on.
    href: String,
}

impl ChangeRef {
    /// Where its call is.
    fn at(&self) -> CallAt {
        (self.session, self.found.turn, self.found.block)
    }
}

/// One file page, its changes still in the spill.
#[derive(Debug)]
pub struct FilePage<'m> {
    model: &'m crate::knowledge::model::Knowledge,
    path: String,
    project: Option<Arc<Link>>,
    changes: Vec<ChangeRef>,
    backups: Vec<BackupRow>,
    /// The diffs its changes' session pages made.
    diffs: Arc<SharedDiffs<'m>>,
}

/// A file page with its changes read back.
pub struct LoadedFile<'m> {
    page: &'m FilePage<'m>,
    /// Each change's call: when its diff is shown, the diff its session
    /// page made, or its edits.
    calls: Vec<Option<Change>>,
}

/// What a file page keeps of a change's call.
struct Change {
    /// The bytes of its edits, kept when the edits are dropped.
    size: usize,
    /// Empty once the change is known not to show its diff.
    edits: Vec<crate::knowledge::model::Edit>,
    /// Its diff, when its session page made it.
    diff: Option<String>,
}

/// Wanted turns read back at a time, at most, all from one piece: a file
/// page holds the edits of the changes it may still show, and at most
/// this many turns besides, and decodes each piece once.
const TURNS_AT_A_TIME: usize = 64;

impl<'m> FilePage<'m> {
    pub fn load(&'m self) -> Result<LoadedFile<'m>, crate::Error> {
        // Which change is where: (session, turn, block); a place named
        // twice is the first change's.
        let mut place: HashMap<CallAt, usize> = HashMap::new();
        for (i, c) in self.changes.iter().enumerate() {
            place.entry(c.at()).or_insert(i);
        }
        // A change whose diff its session page made is not read back.
        let mut calls: Vec<Option<Change>> = (0..self.changes.len()).map(|_| None).collect();
        place.retain(|&at, &mut i| match self.diffs.take(at) {
            Some(diff) => {
                let size = self.changes[i].found.size;
                calls[i] = Some(Change {
                    size,
                    edits: Vec::new(),
                    diff: Some(diff),
                });
                false
            }
            None => true,
        });
        // The latest changes are read first, so that an older change's
        // edits are dropped as soon as the later ones fill the page's
        // budget: a file edited tens of thousands of times is never held
        // whole. Sessions by their latest change, and each session's
        // turns from its last, a piece at a time (a stored chunk decoded
        // once for all the changes it holds).
        let mut wanted: HashMap<usize, (usize, Vec<usize>)> = HashMap::new();
        for (&(session, turn, _), &i) in &place {
            let entry = wanted.entry(session).or_default();
            entry.0 = entry.0.max(i);
            entry.1.push(turn);
        }
        let mut sessions: Vec<(usize, (usize, Vec<usize>))> = wanted.into_iter().collect();
        sessions
            .sort_unstable_by_key(|&(session, (latest, _))| (std::cmp::Reverse(latest), session));
        // Bytes of edits held, and how many make it worth dropping some
        // (a budget's worth more than the last drop left).
        let (mut held, mut limit) = (0usize, 2 * super::PAGE_CHARS);
        for (session, (_, mut turns)) in sessions {
            turns.sort_unstable();
            turns.dedup();
            let s = &self.model.sessions[session];
            let piece = |t: usize| s.turns.piece_of(t).0;
            let pieces = turns.chunk_by(|&a, &b| piece(a) == piece(b));
            let batches = pieces.rev().flat_map(|p| p.rchunks(TURNS_AT_A_TIME));
            for batch in batches {
                let read = self.model.spill.load_at(&s.turns, batch)?;
                for (&t, turn) in batch.iter().zip(read) {
                    let Turn::Assistant { blocks, .. } = turn else {
                        continue;
                    };
                    for (b, block) in blocks.into_iter().enumerate() {
                        let (Block::Tool(call), Some(&i)) = (block, place.get(&(session, t, b)))
                        else {
                            continue;
                        };
                        let size = super::diff::edit_bytes(&call.edits);
                        held = held.saturating_add(size);
                        calls[i] = Some(Change {
                            size,
                            edits: call.edits,
                            diff: None,
                        });
                    }
                }
                if held > limit {
                    held = drop_elided(&mut calls, super::PAGE_CHARS);
                    limit = held.saturating_add(super::PAGE_CHARS);
                }
            }
        }
        Ok(LoadedFile { page: self, calls })
    }
}

/// Drop the edits of every change whose diff will not be shown whatever
/// the changes not yet read hold: those [`diffs_shown`] leaves out with
/// what is read so far (changes not read only add). Returns the bytes of
/// edits still held.
fn drop_elided(calls: &mut [Option<Change>], budget: usize) -> usize {
    let shown = diffs_shown(&sizes(calls), budget);
    let mut held = 0usize;
    for (change, shown) in calls.iter_mut().zip(shown) {
        match change {
            Some(c) if shown => held = held.saturating_add(c.size),
            Some(c) => c.edits = Vec::new(),
            None => {}
        }
    }
    held
}

/// The bytes of each change's edits (0 for one not read).
fn sizes(calls: &[Option<Change>]) -> Vec<usize> {
    calls
        .iter()
        .map(|c| c.as_ref().map_or(0, |c| c.size))
        .collect()
}

impl FilePage<'_> {
    /// Hash into `h` all this page is made of, without reading its changes
    /// back (the identity of the turn each is in stands for it). False when
    /// that cannot be known cheaply.
    pub fn input_key(&self, h: &mut impl std::hash::Hasher) -> bool {
        use std::hash::Hash;
        let bare = LoadedFile {
            page: self,
            calls: Vec::new(),
        };
        if !crate::base::fingerprint::hash_into(&bare.view(), h) {
            return false;
        }
        self.changes.iter().all(|c| {
            let s = &self.model.sessions[c.session];
            (c.found.block, c.found.ts, &c.session_title, &c.href).hash(h);
            s.turns.identity(c.found.turn..c.found.turn + 1, h)
        })
    }
}

impl LoadedFile<'_> {
    pub fn view(&self) -> FileView<'_> {
        let p = self.page;
        let shown = diffs_shown(&sizes(&self.calls), super::PAGE_CHARS);
        let changes: Vec<ChangeView<'_>> = (p.changes.iter().zip(&self.calls).zip(shown))
            .filter_map(|((c, call), shown)| {
                let call = call.as_ref()?;
                Some(ChangeView {
                    time: date_time(c.found.ts),
                    tool: &c.found.tool,
                    session: Link {
                        title: c.session_title.as_str().into(),
                        href: c.href.as_str().into(),
                    },
                    diff: match (shown, &call.diff) {
                        (true, Some(diff)) => diff.as_str().into(),
                        (true, None) => super::diff::diff(&p.path, &call.edits).into(),
                        (false, _) => "".into(),
                    },
                    elided: !shown,
                })
            })
            .collect();
        FileView {
            path: &p.path,
            project: p.project.clone(),
            elided: changes.iter().filter(|c| c.elided).count(),
            changes,
            backups: p.backups.clone(),
        }
    }
}

/// Which changes (of edits `sizes` bytes, oldest first) a file page shows
/// with their diff: the latest, as many as `budget` bytes of edits hold,
/// and always the last one. A file edited a thousand times made a page of
/// megabytes and took hundreds of megabytes to render; the older diffs
/// are on their sessions' pages, which the page links.
fn diffs_shown(sizes: &[usize], budget: usize) -> Vec<bool> {
    let mut used = 0usize;
    let mut shown: Vec<bool> = (sizes.iter().rev())
        .map(|&size| {
            used = used.saturating_add(size);
            used <= budget
        })
        .collect();
    if let Some(last) = shown.first_mut() {
        *last = true;
    }
    shown.reverse();
    shown
}

/// A backup's path made absolute with its session's `cwd`.
fn absolute(path: &str, cwd: Option<&str>) -> String {
    // `~` is a home redacted: rooted too.
    let rooted = crate::base::dirs::is_rooted(path) || path.starts_with('~');
    match cwd {
        Some(cwd) if !rooted => {
            let sep = if cwd.contains('\\') { '\\' } else { '/' };
            let path = if sep == '\\' {
                path.replace('/', "\\")
            } else {
                path.to_string()
            };
            format!("{}{sep}{path}", cwd.trim_end_matches(sep))
        }
        _ => path.to_string(),
    }
}

/// `path` relative to the project's folder, when it is inside it.
fn within<'a>(path: &'a str, project: &str) -> &'a str {
    path.strip_prefix(project)
        .and_then(|rest| rest.strip_prefix(['/', '\\']))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(path)
}

/// Every changed file by (project, path): its changes and its backups.
type Files = BTreeMap<(String, String), (Vec<ChangeRef>, Vec<BackupRow>)>;

fn gather(l: &Links<'_>, found: Vec<(usize, Vec<Found>)>) -> Files {
    let mut files = Files::new();
    for (session, calls) in found {
        let Some(key) = l.session_project[session].clone() else {
            continue;
        };
        let title = l.model.sessions[session].title();
        let first = l.session_href[session].as_deref().unwrap_or_default();
        for f in calls {
            let entry = files.entry((key.clone(), f.path.clone())).or_default();
            entry.0.push(ChangeRef {
                session,
                session_title: title.clone(),
                href: super::paging::session_page_href(first, f.page),
                found: f,
            });
        }
    }
    for &i in &l.sessions {
        let s: &Session = &l.model.sessions[i];
        let Some(key) = l.session_project[i].clone() else {
            continue;
        };
        if s.setup.backups.is_empty() {
            continue;
        }
        let session = Link {
            title: s.title().into(),
            href: l.session_href[i].clone().unwrap_or_default(),
        };
        for b in &s.setup.backups {
            let path = absolute(&b.path, s.cwd.as_deref());
            let row = BackupRow {
                time: date_time(b.at),
                version: b.version,
                kept: b.kept,
                session: session.clone(),
            };
            files.entry((key.clone(), path)).or_default().1.push(row);
        }
    }
    files
}

/// The file pages of every project, each project's list of them, and the
/// diffs their session pages are to keep for them.
pub fn pages<'m>(
    l: &Links<'m>,
    found: Vec<(usize, Vec<Found>)>,
) -> (
    Vec<Page<'m>>,
    BTreeMap<String, Vec<FileRow>>,
    Arc<SharedDiffs<'m>>,
) {
    let mut files = gather(l, found);
    files.retain(|(key, _), _| l.projects.contains_key(key));
    for (changes, backups) in files.values_mut() {
        changes.sort_by_key(|c| c.found.ts);
        backups.sort_by(|a, b| (&a.time, a.version).cmp(&(&b.time, b.version)));
    }
    let shown = files.values().flat_map(|(changes, _)| {
        let sizes: Vec<usize> = changes.iter().map(|c| c.found.size).collect();
        let shown = diffs_shown(&sizes, super::PAGE_CHARS);
        (changes.iter().zip(shown))
            .filter(|&(_, shown)| shown)
            .map(|(c, _)| c.at())
    });
    let diffs = Arc::new(SharedDiffs::new(&l.model.spill, shown));
    let mut pages = Vec::new();
    let mut lists: BTreeMap<String, Vec<FileRow>> = BTreeMap::new();
    let mut slugs: BTreeMap<String, SlugSet> = BTreeMap::new();
    for ((key, path), (changes, backups)) in files {
        let Some(project) = l.projects.get(&key) else {
            continue;
        };
        let shown = within(&path, &project.path).to_string();
        let slug = slugs.entry(key.clone()).or_default().claim(&shown);
        let dir = project.link.href.trim_end_matches("index.html");
        let href = format!("{dir}files/{slug}.html");
        lists.entry(key.clone()).or_default().push(FileRow {
            title: shown.clone(),
            href: href.clone(),
            changes: changes.len(),
            backups: backups.len(),
        });
        pages.push(Page {
            path: href,
            template: "file.html",
            title: shown,
            section: "projects",
            view: View::File(FilePage {
                model: l.model,
                path,
                project: l.project_link(&key),
                changes,
                backups,
                diffs: diffs.clone(),
            }),
        });
    }
    for rows in lists.values_mut() {
        rows.sort_by(|a, b| {
            b.changes
                .cmp(&a.changes)
                .then_with(|| a.title.cmp(&b.title))
        });
    }
    (pages, lists, diffs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::redact::Text;

    #[test]
    fn a_file_page_shows_the_diffs_of_its_latest_changes_that_fit() {
        assert_eq!(diffs_shown(&[10, 20, 30], 100), [true, true, true]);
        assert_eq!(diffs_shown(&[10, 20, 30], 50), [false, true, true]);
        // Once one does not fit, no older one is shown, small or not.
        assert_eq!(diffs_shown(&[1, 60, 30], 50), [false, false, true]);
        // The last change always is, whatever its size.
        assert_eq!(diffs_shown(&[5, 500], 50), [false, true]);
        assert!(diffs_shown(&[], 50).is_empty());
    }

    proptest::proptest! {
        /// Read in any order, with drops between reads, a file page keeps
        /// the edits of every change it shows (and, once all are read,
        /// of no other): what it drops early it would not have shown.
        #[test]
        fn edits_dropped_while_reading_are_never_shown(
            sizes in proptest::collection::vec(0usize..40, 0..30),
            order in proptest::collection::vec(proptest::num::usize::ANY, 0..30),
            budget in 0usize..120,
        ) {
            let edit = crate::knowledge::model::Edit { old: Text::test("a"), new: Text::test("b") };
            let mut calls: Vec<Option<Change>> = sizes.iter().map(|_| None).collect();
            let mut unread: Vec<usize> = (0..sizes.len()).collect();
            for pick in order.iter().chain(std::iter::repeat(&0)).take(sizes.len()) {
                let i = unread.remove(pick % unread.len());
                calls[i] = Some(Change { size: sizes[i], edits: vec![edit.clone()], diff: None });
                drop_elided(&mut calls, budget);
            }
            let shown = diffs_shown(&sizes, budget);
            let kept: Vec<bool> = calls.iter().map(|c| c.as_ref().is_some_and(|c| !c.edits.is_empty())).collect();
            proptest::prop_assert_eq!(kept, shown);
        }
    }

    #[test]
    fn a_backup_path_is_made_absolute_with_the_sessions_folder() {
        assert_eq!(
            absolute("src/a.rs", Some("/home/d/p")),
            "/home/d/p/src/a.rs"
        );
        assert_eq!(
            absolute(".op\\SETUP.md", Some("C:\\Users\\d\\v")),
            "C:\\Users\\d\\v\\.op\\SETUP.md"
        );
        assert_eq!(absolute("/etc/x", Some("/home/d/p")), "/etc/x");
        assert_eq!(absolute("C:\\x", Some("/p")), "C:\\x");
        assert_eq!(within("/home/d/p/src/a.rs", "/home/d/p"), "src/a.rs");
        assert_eq!(within("/home/d/pq/a.rs", "/home/d/p"), "/home/d/pq/a.rs");
    }
}
