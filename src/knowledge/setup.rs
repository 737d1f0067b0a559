//! The user's setup, redacted: the global `CLAUDE.md`, agents, commands,
//! Claude Code skills, output styles, `settings.json` (hooks, MCP servers,
//! plugins), and what `/insights` wrote of sessions (facets). Read once
//! per build; small files, so never cached.

use crate::base::skip::Skip;
use crate::knowledge::redact::{Redactor, Scrub, Tally, Text};
use crate::source::discover::{Root, SetupFile};
use crate::source::memory::{parse_memory, Parsed};
use crate::source::setup::{parse_facet, parse_settings, RawSettings};
use std::collections::HashSet;

pub use crate::source::discover::SetupKind;

/// One Markdown file of the setup.
#[derive(Debug, Clone)]
pub struct SetupDoc {
    pub kind: SetupKind,
    /// The name sessions use: the agent type, `/command`, the skill.
    pub name: Text,
    /// Frontmatter `description`, empty when there is none.
    pub description: Text,
    pub body: Text,
}

/// `settings.json`, redacted (secret values were never read).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub model: Option<Text>,
    pub output_style: Option<Text>,
    pub env_names: Vec<Text>,
    /// (event, matcher, commands).
    pub hooks: Vec<(Text, Text, Vec<Text>)>,
    /// (name, transport, command or address, hidden names).
    pub mcp: Vec<(Text, Text, Text, Vec<Text>)>,
    pub plugins: Vec<(Text, bool)>,
    pub permissions: Vec<(Text, Text)>,
    pub status_line: Option<Text>,
}

/// What `/insights` made of one session.
#[derive(Debug, Clone, Default)]
pub struct Facet {
    pub session_id: Text,
    pub goal: Option<Text>,
    pub outcome: Option<Text>,
    pub summary: Option<Text>,
    pub categories: Vec<Text>,
}

/// Everything of the setup the wiki shows.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    pub docs: Vec<SetupDoc>,
    /// The first root's `settings.json`.
    pub settings: Option<Settings>,
    pub facets: Vec<Facet>,
}

impl Setup {
    /// Nothing to show.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty() && self.settings.is_none()
    }
}

/// Read the setup of every root (the first root's wins where two have
/// the same file).
pub fn read(roots: &[Root], r: &Redactor, skips: &mut Vec<Skip>, tally: &mut Tally) -> Setup {
    let mut sc = Scrub::new(r);
    let mut out = Setup::default();
    let mut seen = HashSet::new();
    let mut seen_facets = HashSet::new();
    for root in roots {
        for file in &root.setup {
            if !seen.insert((file.kind, file.name.clone())) {
                continue;
            }
            let Some(text) = read_text(&file.path, skips) else {
                continue;
            };
            if file.kind == SetupKind::Settings {
                match parse_settings(&text) {
                    Ok(s) => out.settings = Some(settings(s, &mut sc)),
                    Err(why) => skips.push(Skip::file(&file.path, format!("not read: {why}"))),
                }
            } else if let Some(doc) = doc(file, &text, &mut sc) {
                out.docs.push(doc);
            }
        }
        for path in &root.facets {
            let Some(text) = read_text(path, skips) else {
                continue;
            };
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            match parse_facet(stem, &text) {
                Ok(f) if seen_facets.insert(f.session_id.clone()) => out.facets.push(Facet {
                    session_id: sc.text(&f.session_id),
                    goal: sc.opt(f.goal.as_deref()),
                    outcome: sc.opt(f.outcome.as_deref()),
                    summary: sc.opt(f.summary.as_deref()),
                    categories: f.categories.iter().map(|c| sc.text(c)).collect(),
                }),
                Ok(_) => {}
                Err(why) => skips.push(Skip::file(path, format!("not read: {why}"))),
            }
        }
    }
    out.docs
        .sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    tally.add(&sc.tally);
    out
}

fn read_text(path: &std::path::Path, skips: &mut Vec<Skip>) -> Option<String> {
    match std::fs::read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => {
            skips.push(Skip::file(path, format!("cannot read: {e}")));
            None
        }
    }
}

fn doc(file: &SetupFile, text: &str, sc: &mut Scrub) -> Option<SetupDoc> {
    let raw = match parse_memory(&file.path, text, None) {
        Parsed::Keep(m) | Parsed::KeepWithSkip(m, _) => m,
        Parsed::Private => return None,
    };
    // A skill's or a style's own name, else the name its place gives.
    let name = match file.kind {
        SetupKind::Skill | SetupKind::OutputStyle if raw.name != raw.stem => raw.name,
        _ => file.name.clone(),
    };
    Some(SetupDoc {
        kind: file.kind,
        name: sc.text(&name),
        description: sc.text(&raw.description),
        body: sc.text(&raw.body),
    })
}

fn settings(s: RawSettings, sc: &mut Scrub) -> Settings {
    let env_names = s.env_names.iter().map(|x| sc.text(x)).collect();
    Settings {
        model: sc.opt(s.model.as_deref()),
        output_style: sc.opt(s.output_style.as_deref()),
        env_names,
        hooks: s
            .hooks
            .iter()
            .map(|h| {
                let commands = h.commands.iter().map(|c| sc.text(c)).collect();
                (sc.text(&h.event), sc.text(&h.matcher), commands)
            })
            .collect(),
        mcp: s
            .mcp
            .iter()
            .map(|m| {
                let hidden = m.hidden.iter().map(|h| sc.text(h)).collect();
                (
                    sc.text(&m.name),
                    sc.text(&m.transport),
                    sc.text(&m.target),
                    hidden,
                )
            })
            .collect(),
        plugins: s.plugins.iter().map(|(n, on)| (sc.text(n), *on)).collect(),
        permissions: s
            .permissions
            .iter()
            .map(|(k, r)| (sc.text(k), sc.text(r)))
            .collect(),
        status_line: sc.opt(s.status_line.as_deref()),
    }
}
