//! Phase 4: scrub the model before any page is assembled.
//!
//! Redaction runs on the extracted model rather than on finished pages, so
//! that titles, slugs, file paths, link text and the search index are all
//! derived from text that is already clean, and so that a pattern never has
//! to see through HTML escaping. Every string the wiki can show passes
//! through [`Redactor::redact`].

mod patterns;

pub use patterns::{PatternError, RedactConfig, Redactor};

use crate::knowledge::model::{
    Block, HistoryEntry, Memory, Model, Session, SessionStart, Subagent, Turn,
};

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

/// Scrub every string of the model in place. Turns are read back from the
/// model's spill one session at a time; those that change are written again.
pub fn apply(model: &mut Model, r: &Redactor) -> Result<(), crate::Error> {
    use rayon::prelude::*;
    let spill = &model.spill;
    model
        .sessions
        .par_iter_mut()
        .try_for_each(|s| session(s, r, spill))?;
    model.memories.par_iter_mut().for_each(|m| memory(m, r));
    model.history.iter_mut().for_each(|h| history(h, r));
    model.starts.iter_mut().for_each(|s| start(s, r));
    Ok(())
}

/// Scrub `s`; true when anything changed.
fn fix(s: &mut String, r: &Redactor) -> bool {
    match r.redact(s) {
        std::borrow::Cow::Owned(clean) => {
            *s = clean;
            true
        }
        std::borrow::Cow::Borrowed(_) => false,
    }
}

fn fix_opt(s: &mut Option<String>, r: &Redactor) -> bool {
    s.as_mut().is_some_and(|s| fix(s, r))
}

/// Scrub stored turns, writing them again only when something changed.
fn stored_turns(
    stored: &mut crate::knowledge::model::Turns,
    r: &Redactor,
    spill: &crate::knowledge::spill::Spill,
) -> Result<(), crate::Error> {
    let mut ts = spill.load(stored)?;
    if turns(&mut ts, r) {
        *stored = ts.into();
        spill.stow(stored)?;
    }
    Ok(())
}

fn fix_set(set: &mut std::collections::BTreeSet<String>, r: &Redactor) {
    if set
        .iter()
        .any(|s| matches!(r.redact(s), std::borrow::Cow::Owned(_)))
    {
        *set = set.iter().map(|s| r.redact(s).into_owned()).collect();
    }
}

/// Scrub turns in place; true when anything changed.
fn turns(ts: &mut [Turn], r: &Redactor) -> bool {
    let mut changed = false;
    for t in ts {
        changed |= match t {
            Turn::Prompt { text, .. } | Turn::CommandOutput { text } => fix(text, r),
            Turn::Assistant { blocks, model, .. } => {
                let mut c = fix_opt(model, r);
                for b in blocks {
                    c |= match b {
                        Block::Text(text) => fix(text, r),
                        Block::Tool(call) => fix(&mut call.name, r) | fix(&mut call.arg, r),
                    };
                }
                c
            }
            Turn::Command { name, args, .. } => fix(name, r) | fix(args, r),
            Turn::Compaction { summary, .. } => fix_opt(summary, r),
        };
    }
    changed
}

fn subagent(
    a: &mut Subagent,
    r: &Redactor,
    spill: &crate::knowledge::spill::Spill,
) -> Result<(), crate::Error> {
    fix(&mut a.id, r);
    fix_opt(&mut a.agent_type, r);
    fix_opt(&mut a.description, r);
    stored_turns(&mut a.turns, r, spill)
}

fn session(
    s: &mut Session,
    r: &Redactor,
    spill: &crate::knowledge::spill::Spill,
) -> Result<(), crate::Error> {
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
    stored_turns(&mut s.turns, r, spill)?;
    for a in &mut s.subagents {
        subagent(a, r, spill)?;
    }
    Ok(())
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
