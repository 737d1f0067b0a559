//! The user's setup: a page listing instructions, agents, commands, Claude
//! Code's own skills, output styles, hooks, MCP servers and plugins, and a
//! page per file, each with the sessions that used it.

use super::links::Links;
use super::views::{
    Link, SessionRow, SettingsView, SetupDocView, SetupGroup, SetupItem, SetupView,
};
use super::{Page, View};
use crate::base::slugs::SlugSet;
use crate::knowledge::setup::SetupKind;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How many sessions a setup page lists (newest first).
const USED_IN_SHOWN: usize = 50;

/// One page of the setup: a file of `~/.claude`, or an instruction file
/// sessions were given (a project's `CLAUDE.md`).
struct Item<'m> {
    kind: SetupKind,
    name: &'m str,
    description: &'m str,
    body: &'m str,
    href: String,
    /// The project of the sessions that read it (instruction files only).
    project: Option<String>,
    /// Sessions (indices into the model) that used it, newest first.
    used_in: Vec<usize>,
}

/// Every setup page's path, and which sessions used what: decided once,
/// read by the setup pages and by the session pages.
pub struct Paths<'m> {
    items: Vec<Item<'m>>,
    /// Session (index into the model) → the items it used.
    session_uses: HashMap<usize, Vec<usize>>,
}

fn folder(kind: SetupKind) -> &'static str {
    match kind {
        SetupKind::Instructions => "instructions",
        SetupKind::Agent => "agents",
        SetupKind::Command => "commands",
        SetupKind::Skill => "skills",
        SetupKind::OutputStyle => "output-styles",
        SetupKind::Settings => "settings",
    }
}

fn label(kind: SetupKind) -> &'static str {
    match kind {
        SetupKind::Instructions => "Instructions",
        SetupKind::Agent => "Agents",
        SetupKind::Command => "Commands",
        SetupKind::Skill => "Claude Code skills",
        SetupKind::OutputStyle => "Output styles",
        SetupKind::Settings => "Settings",
    }
}

/// The key a session's use of an item is noted under.
fn use_key(kind: SetupKind, name: &str) -> Option<String> {
    match kind {
        SetupKind::Agent => Some(format!("agent:{name}")),
        SetupKind::Skill => Some(format!("skill:{name}")),
        SetupKind::Command => Some(name.to_string()),
        _ => None,
    }
}

impl<'m> Paths<'m> {
    pub fn new(l: &Links<'m>) -> Paths<'m> {
        let model = l.model;
        let mut slugs: BTreeMap<SetupKind, SlugSet> = BTreeMap::new();
        let mut claim = |kind: SetupKind, name: &str| {
            let slug = slugs.entry(kind).or_default().claim(name);
            format!("setup/{}/{slug}.html", folder(kind))
        };
        let mut items: Vec<Item<'m>> = model
            .setup
            .docs
            .iter()
            .map(|d| Item {
                kind: d.kind,
                name: &d.name,
                description: &d.description,
                body: &d.body,
                href: claim(d.kind, &d.name),
                project: None,
                used_in: Vec::new(),
            })
            .collect();
        // Instruction files sessions were given, by path: the newest
        // session's copy (sessions are newest first).
        let mut by_path: HashMap<&'m str, usize> = HashMap::new();
        for &i in &l.sessions {
            let s = &model.sessions[i];
            for (path, text) in &s.setup.instructions {
                if by_path.contains_key(path.as_str()) {
                    continue;
                }
                by_path.insert(path, items.len());
                items.push(Item {
                    kind: SetupKind::Instructions,
                    name: path,
                    description: "",
                    body: text,
                    href: claim(SetupKind::Instructions, short_path(path)),
                    project: l.session_project[i].clone(),
                    used_in: Vec::new(),
                });
            }
        }
        let by_key: HashMap<String, usize> = items
            .iter()
            .enumerate()
            .filter_map(|(n, it)| use_key(it.kind, it.name).map(|k| (k, n)))
            .collect();
        let mut session_uses = HashMap::new();
        for &i in &l.sessions {
            let s = &model.sessions[i];
            let agents = s.subagents.iter().filter_map(|a| a.agent_type.as_deref());
            let mut used: Vec<usize> = agents
                .map(|t| format!("agent:{t}"))
                .filter_map(|k| by_key.get(&k).copied())
                .chain(
                    s.setup
                        .uses
                        .iter()
                        .chain(s.subagents.iter().flat_map(|a| &a.uses))
                        .filter_map(|u| by_key.get(u.as_str()).copied()),
                )
                .chain(
                    s.setup
                        .instructions
                        .keys()
                        .filter_map(|p| by_path.get(p.as_str()).copied()),
                )
                .collect();
            used.sort_unstable();
            used.dedup();
            for &n in &used {
                items[n].used_in.push(i);
            }
            if !used.is_empty() {
                session_uses.insert(i, used);
            }
        }
        Paths {
            items,
            session_uses,
        }
    }

    /// Links to the setup a session used.
    pub fn used_by(&self, session: usize) -> Vec<Link> {
        let Some(used) = self.session_uses.get(&session) else {
            return Vec::new();
        };
        used.iter()
            .map(|&n| {
                let it = &self.items[n];
                Link {
                    title: match it.kind {
                        SetupKind::Agent => format!("agent {}", it.name).into(),
                        SetupKind::Skill => format!("skill {}", it.name).into(),
                        SetupKind::Instructions => short_path(it.name).into(),
                        _ => it.name.into(),
                    },
                    href: it.href.as_str().into(),
                }
            })
            .collect()
    }
}

/// The last two parts of a path: `tide-api/CLAUDE.md`.
fn short_path(path: &str) -> &str {
    let mut cut = path.len();
    for _ in 0..2 {
        match path[..cut].rfind(['/', '\\']) {
            Some(i) => cut = i,
            None => return path,
        }
    }
    &path[cut + 1..]
}

/// The setup pages (the list is there even when empty, to say so).
pub fn pages<'m>(l: &Links<'m>, paths: &Paths<'m>) -> Vec<Page<'m>> {
    let model = l.model;
    let mut pages = Vec::new();
    let mut groups: BTreeMap<SetupKind, Vec<SetupItem>> = BTreeMap::new();
    for it in &paths.items {
        groups.entry(it.kind).or_default().push(SetupItem {
            title: it.name.to_string(),
            href: it.href.clone(),
            description: it.description.to_string(),
            project: it.project.as_deref().and_then(|k| l.project_link(k)),
            used: it.used_in.len(),
        });
        let rows: Vec<Arc<SessionRow>> = it
            .used_in
            .iter()
            .take(USED_IN_SHOWN)
            .map(|&i| l.session_row(i))
            .collect();
        pages.push(Page {
            path: it.href.clone(),
            template: "setup_doc.html",
            title: it.name.to_string(),
            section: "setup",
            view: View::SetupDoc(Box::new(SetupDocView {
                kind: label(it.kind),
                name: it.name,
                description: it.description,
                body: it.body,
                project: it.project.as_deref().and_then(|k| l.project_link(k)),
                used_in: rows,
                used_total: it.used_in.len(),
            })),
        });
    }
    let settings = model.setup.settings.as_ref().map(SettingsView::of);
    pages.push(Page {
        path: "setup/index.html".into(),
        template: "setup.html",
        title: "Your setup".into(),
        section: "setup",
        view: View::Setup(Box::new(SetupView {
            groups: groups
                .into_iter()
                .map(|(kind, items)| SetupGroup {
                    kind: folder(kind),
                    label: label(kind),
                    items,
                })
                .collect(),
            settings,
        })),
    });
    pages
}
