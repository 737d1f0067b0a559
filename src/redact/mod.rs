//! Phase 4: scrub the model before any page is assembled.
//!
//! Redaction runs on the extracted model rather than on finished pages, so
//! that titles, slugs, file paths, link text and the search index are all
//! derived from text that is already clean, and so that a pattern never has
//! to see through HTML escaping. Every string the wiki can show passes
//! through [`Redactor::redact`].

mod patterns;

pub use patterns::{PatternError, RedactConfig, Redactor};

use crate::model::{Block, HistoryEntry, Memory, Model, Session, SessionStart, Subagent, Turn};

/// Build a redactor for this model: home directories and user names come
/// from every `cwd` the records carry.
pub fn redactor_for(
    model: &Model,
    extra_patterns: &[(String, String)],
) -> Result<Redactor, PatternError> {
    let mut cfg = RedactConfig {
        extra_patterns: extra_patterns.to_vec(),
        ..RedactConfig::default()
    };
    let cwds = model
        .sessions
        .iter()
        .filter_map(|s| s.cwd.as_deref())
        .chain(model.history.iter().filter_map(|h| h.project.as_deref()))
        .chain(model.starts.iter().filter_map(|s| s.cwd.as_deref()));
    for cwd in cwds {
        if let Some((home, user)) = Redactor::home_of(cwd) {
            if !cfg.home_dirs.contains(&home) {
                cfg.home_dirs.push(home);
            }
            if !cfg.usernames.contains(&user) {
                cfg.usernames.push(user);
            }
        }
    }
    cfg.home_dirs.sort();
    cfg.usernames.sort();
    Redactor::new(&cfg)
}

/// Scrub every string of the model in place.
pub fn apply(model: &mut Model, r: &Redactor) {
    use rayon::prelude::*;
    model.sessions.par_iter_mut().for_each(|s| session(s, r));
    model.memories.par_iter_mut().for_each(|m| memory(m, r));
    model.history.iter_mut().for_each(|h| history(h, r));
    model.starts.iter_mut().for_each(|s| start(s, r));
}

fn fix(s: &mut String, r: &Redactor) {
    if let std::borrow::Cow::Owned(clean) = r.redact(s) {
        *s = clean;
    }
}

fn fix_opt(s: &mut Option<String>, r: &Redactor) {
    if let Some(s) = s {
        fix(s, r);
    }
}

fn fix_set(set: &mut std::collections::BTreeSet<String>, r: &Redactor) {
    if set
        .iter()
        .any(|s| matches!(r.redact(s), std::borrow::Cow::Owned(_)))
    {
        *set = set.iter().map(|s| r.redact(s).into_owned()).collect();
    }
}

fn turns(ts: &mut [Turn], r: &Redactor) {
    for t in ts {
        match t {
            Turn::Prompt { text, .. } | Turn::CommandOutput { text } => fix(text, r),
            Turn::Assistant { blocks, model, .. } => {
                fix_opt(model, r);
                for b in blocks {
                    match b {
                        Block::Text(text) => fix(text, r),
                        Block::Tool(c) => {
                            fix(&mut c.name, r);
                            fix(&mut c.arg, r);
                        }
                    }
                }
            }
            Turn::Command { name, args, .. } => {
                fix(name, r);
                fix(args, r);
            }
            Turn::Compaction { summary, .. } => fix_opt(summary, r),
        }
    }
}

fn subagent(a: &mut Subagent, r: &Redactor) {
    fix(&mut a.id, r);
    fix_opt(&mut a.agent_type, r);
    fix_opt(&mut a.description, r);
    turns(&mut a.turns, r);
}

fn session(s: &mut Session, r: &Redactor) {
    fix(&mut s.id, r);
    fix(&mut s.project_dir, r);
    fix_opt(&mut s.cwd, r);
    fix_opt(&mut s.titles.custom, r);
    fix_opt(&mut s.titles.ai, r);
    fix_opt(&mut s.titles.summary, r);
    fix_opt(&mut s.titles.first_prompt, r);
    fix_opt(&mut s.entrypoint, r);
    fix_set(&mut s.models, r);
    fix_set(&mut s.branches, r);
    fix_set(&mut s.versions, r);
    fix_set(&mut s.files_touched, r);
    if s.tools
        .keys()
        .any(|k| matches!(r.redact(k), std::borrow::Cow::Owned(_)))
    {
        let mut clean = std::collections::BTreeMap::new();
        for (k, v) in std::mem::take(&mut s.tools) {
            *clean.entry(r.redact(&k).into_owned()).or_insert(0) += v;
        }
        s.tools = clean;
    }
    for o in &mut s.tool_outputs {
        fix(o, r);
    }
    turns(&mut s.turns, r);
    for a in &mut s.subagents {
        subagent(a, r);
    }
}

fn memory(m: &mut Memory, r: &Redactor) {
    fix(&mut m.project_dir, r);
    fix(&mut m.stem, r);
    fix(&mut m.name, r);
    fix(&mut m.description, r);
    fix(&mut m.body, r);
    if let Some(clean) = m.file.to_str().map(|p| r.redact(p).into_owned()) {
        m.file = clean.into();
    }
}

fn history(h: &mut HistoryEntry, r: &Redactor) {
    fix(&mut h.display, r);
    fix_opt(&mut h.project, r);
    fix_opt(&mut h.session_id, r);
}

fn start(s: &mut SessionStart, r: &Redactor) {
    fix(&mut s.session_id, r);
    fix_opt(&mut s.cwd, r);
    fix_opt(&mut s.entrypoint, r);
    fix_opt(&mut s.kind, r);
}
