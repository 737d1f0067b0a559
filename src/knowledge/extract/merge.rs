//! Per-file digests merged into sessions, in (root, path) order: parts of
//! one session found in several files, sub-agents attached to the session
//! that spawned them, and `summary` records resolved to the session their
//! `leafUuid` points into once every file's summaries are known.

use super::transcript::{FileDigest, SessionPart};
use super::Extracted;
use crate::knowledge::model::{Session, Subagent, Text};
use crate::knowledge::redact::{Redactor, Scrub};
use std::collections::HashMap;

/// A sub-agent's file as read: its root, project folder, and (the session
/// it belongs to, its `cwd`, the sub-agent).
type AgentFile = (usize, Text, (Option<Text>, Option<Text>, Subagent));

/// What a part says about its session's summary: its uuids' hashes (a
/// `summary` record of any file may point into them) and its own summary.
type SummaryClue = (Vec<u64>, Option<Text>);

/// Where [`Merger::index`] files the session `id` of `root`.
fn key_hash(root: usize, id: &str) -> u64 {
    crate::base::hash::hash_bytes(id.as_bytes()) ^ (root as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Sessions as digests are added, each found by its root and id.
pub(super) struct Merger<'r> {
    sc: Scrub<'r>,
    /// leafUuid hash → summary text; the first file (in path order) wins.
    summaries: HashMap<u64, Text>,
    sessions: Vec<Session>,
    /// Each session's place in `sessions`, found by its root and id: the
    /// table holds places alone and compares the sessions themselves (a
    /// key of its own, a copy of the id, took 8 MB for 100,000 sessions
    /// at extraction's peak).
    index: hashbrown::HashTable<usize>,
    /// By session: the clues of its parts, in order, up to the first part
    /// with a summary of its own (no later part can matter).
    clues: Vec<Vec<SummaryClue>>,
    /// Attached at the end: a sub-agent's session may be in a later file.
    agents: Vec<AgentFile>,
    out: Extracted,
}

impl<'r> Merger<'r> {
    /// A merger with room for `files` sessions.
    pub(super) fn new(r: &'r Redactor, files: usize) -> Merger<'r> {
        Merger {
            sc: Scrub::new(r),
            summaries: HashMap::new(),
            sessions: Vec::with_capacity(files),
            index: hashbrown::HashTable::with_capacity(files),
            clues: Vec::with_capacity(files),
            agents: Vec::new(),
            out: Extracted::default(),
        }
    }

    /// The session `id` of `root`, made by `new` the first time (with
    /// that root and id: the index finds it by them).
    fn session(&mut self, root: usize, id: &Text, new: impl FnOnce() -> Session) -> usize {
        let sessions = &mut self.sessions;
        let hash = key_hash(root, id);
        let same = |&i: &usize| sessions[i].root == root && sessions[i].id == *id;
        if let Some(&i) = self.index.find(hash, same) {
            return i;
        }
        sessions.push(new());
        self.clues.push(Vec::new());
        let i = sessions.len() - 1;
        let sessions = &self.sessions;
        let rehash = |&j: &usize| key_hash(sessions[j].root, &sessions[j].id);
        self.index.insert_unique(hash, i, rehash);
        i
    }

    /// Add the next file's digest; files come in (root, path) order.
    pub(super) fn add(&mut self, mut d: FileDigest) {
        self.out.lines += d.lines;
        self.out.tally.add(&d.tally);
        self.out.skips.append(&mut d.skips);
        for (h, text) in std::mem::take(&mut d.summaries) {
            self.summaries.entry(h).or_insert(text);
        }
        if let Some(agent) = d.subagent.take() {
            self.agents.push((d.root, d.project_dir, agent));
            return;
        }
        for mut part in d.parts {
            let i = self.session(d.root, &part.id, || Session {
                id: part.id.clone(),
                root: d.root,
                project_dir: d.project_dir.clone(),
                ..Session::default()
            });
            let clue = (
                std::mem::take(&mut part.uuid_hashes),
                part.titles.summary.take(),
            );
            let clues = &mut self.clues[i];
            if !clues.last().is_some_and(|(_, own)| own.is_some()) {
                // Most sessions are one part: room for just it, where a
                // first push makes room for four (16 MB of a hundred
                // thousand sessions).
                if clues.is_empty() {
                    clues.reserve_exact(1);
                }
                clues.push(clue);
            }
            add_part(&mut self.sessions[i], part);
        }
    }

    /// The sessions, sorted by (root, id), with their sub-agents and
    /// summaries.
    pub(super) fn finish(mut self) -> Extracted {
        for (root, project_dir, (parent, cwd, agent)) in std::mem::take(&mut self.agents) {
            let parent = parent.unwrap_or_else(|| self.sc.text(&format!("agent-{}", agent.id)));
            let i = self.session(root, &parent, || Session {
                id: parent.clone(),
                root,
                project_dir,
                cwd,
                ..Session::default()
            });
            self.sessions[i].subagents.push(agent);
        }
        // The first part whose uuids a summary points into, or that has a
        // summary of its own, gives the session its summary.
        let summaries = &self.summaries;
        for (s, clues) in self
            .sessions
            .iter_mut()
            .zip(std::mem::take(&mut self.clues))
        {
            s.titles.summary = clues.into_iter().find_map(|(hashes, own)| {
                hashes
                    .iter()
                    .find_map(|h| summaries.get(h).cloned())
                    .or(own)
            });
        }
        let mut sessions = std::mem::take(&mut self.sessions);
        drop(self.index);
        sessions.sort_unstable_by(|a, b| (a.root, &a.id).cmp(&(b.root, &b.id)));
        for s in &mut sessions {
            // Held to the end of the build, a hundred thousand at a time: no
            // room for more (a vector's first push makes room for four).
            s.subagents.shrink_to_fit();
            s.work.shrink_to_fit();
            s.subagents
                .sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.id.cmp(&b.id)));
            if s.started.is_none() {
                s.started = s.subagents.iter().filter_map(|a| a.started).min();
            }
        }
        let mut out = self.out;
        out.sessions = once_per_id(sessions);
        // A sub-agent's tokens are its session's too.
        for s in &mut out.sessions {
            for a in &s.subagents {
                crate::knowledge::model::add_usage(&mut s.usage_by_model, &a.usage_by_model);
            }
        }
        out
    }
}

/// The same session found in several data roots (the live folder and a
/// backup of it, the archive) is shown once: the copy with the most turns
/// (the first root's on a tie), with every sub-agent any copy has (a
/// sub-agent's file may sit in another root than its session's).
fn once_per_id(sessions: Vec<Session>) -> Vec<Session> {
    let mut best: HashMap<&str, usize> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        let size = |s: &Session| (s.turns.len(), s.prompts, s.subagents.len());
        best.entry(&s.id)
            .and_modify(|b| {
                if size(s) > size(&sessions[*b]) {
                    *b = i;
                }
            })
            .or_insert(i);
    }
    if best.len() == sessions.len() {
        return sessions;
    }
    let keep: HashMap<String, usize> = best.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let mut kept: Vec<Option<Session>> = Vec::with_capacity(sessions.len());
    let mut others = Vec::new();
    for (i, s) in sessions.into_iter().enumerate() {
        if keep.get(s.id.as_str()) == Some(&i) {
            kept.push(Some(s));
        } else {
            kept.push(None);
            others.push((keep.get(s.id.as_str()).copied(), s));
        }
    }
    for (winner, other) in others {
        let Some(Some(w)) = winner.map(|i| &mut kept[i]) else {
            continue;
        };
        for agent in other.subagents {
            if !w.subagents.iter().any(|a| a.id == agent.id) {
                w.subagents.push(agent);
            }
        }
        w.subagents
            .sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.id.cmp(&b.id)));
    }
    kept.into_iter().flatten().collect()
}

fn add_part(s: &mut Session, part: SessionPart) {
    let conv = part.conv;
    if s.cwd.is_none() {
        s.cwd = part.cwd;
    }
    // Later parts carry the later rename.
    if part.titles.custom.is_some() {
        s.titles.custom = part.titles.custom;
    }
    if part.titles.ai.is_some() {
        s.titles.ai = part.titles.ai;
    }
    if s.entrypoint.is_none() {
        s.entrypoint = part.entrypoint;
    }
    s.branches.extend(part.branches);
    s.versions.extend(part.versions);
    s.models.extend(conv.models);
    s.prompts += conv.prompts;
    s.assistant_turns += conv.assistant_turns;
    s.usage.add(&conv.usage);
    crate::knowledge::model::add_usage(&mut s.usage_by_model, &conv.by_model);
    s.work.absorb(conv.tools, conv.files_touched, conv.outputs);
    s.setup.absorb(conv.setup);
    // Parts from several files: keep the turns in time order of their parts.
    let part_is_earlier = match (conv.first, s.started) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    };
    // The first prompt of the turns in order, as the title of last resort.
    if part_is_earlier {
        s.turns.prepend(part.turns);
        if part.first_prompt.is_some() {
            s.titles.first_prompt = part.first_prompt;
        }
        if part.first_answer.is_some() {
            s.titles.first_answer = part.first_answer;
        }
        if s.titles.last_answer.is_none() {
            s.titles.last_answer = part.last_answer;
        }
    } else {
        s.turns.append(part.turns);
        if s.titles.first_prompt.is_none() {
            s.titles.first_prompt = part.first_prompt;
        }
        if s.titles.first_answer.is_none() {
            s.titles.first_answer = part.first_answer;
        }
        if part.last_answer.is_some() {
            s.titles.last_answer = part.last_answer;
        }
    }
    s.started = crate::knowledge::model::min_opt(s.started, conv.first);
    s.ended = crate::knowledge::model::max_opt(s.ended, conv.last);
    s.subagents.extend(part.agents);
}
