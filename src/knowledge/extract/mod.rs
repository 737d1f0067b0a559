//! Extraction: stream transcripts, `history.jsonl` and session metadata
//! into the knowledge model, every text through the redactor.
//!
//! Files are read in parallel (rayon), each line by line; nothing reads a
//! transcript whole. Per-file results are merged afterwards: parts of one
//! session found in several files, sub-agents attached to the session that
//! spawned them, and `summary` records resolved to the session their
//! `leafUuid` points into.

mod conversation;
mod transcript;

pub use conversation::{classify_user_text, Aside, UserLine, INSTRUCTION_CHARS};
pub use transcript::{read_fresh, read_transcript, FileDigest, ReaderState, PIECE_BYTES};

use crate::base::error::Error;
use crate::base::skip::Skip;
use crate::knowledge::model::{HistoryEntry, Session, SessionStart, Text};
use crate::knowledge::redact::{Redactor, Scrub, Tally};
use crate::knowledge::spill::Spill;
use crate::source::discover::Root;
use crate::source::history::{RawHistory, RawStart};
use rayon::prelude::*;
use std::collections::HashMap;

/// What extraction produced.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Sessions sorted by (root, id).
    pub sessions: Vec<Session>,
    pub skips: Vec<Skip>,
    /// Transcript lines read.
    pub lines: u64,
    /// What redaction replaced in the transcripts.
    pub tally: Tally,
}

/// Read every transcript of every root, keeping every turn in memory.
pub fn extract(roots: &[Root], r: &Redactor) -> Extracted {
    let none = Spill::none();
    let extracted = extract_cached(
        roots,
        r,
        &mut crate::knowledge::cache::Cache::disabled(),
        &crate::base::progress::Progress::default(),
        &none,
    );
    // Without a spill file nothing is written, so nothing can fail.
    extracted.unwrap_or_default()
}

/// [`extract`], served from and feeding `cache`, each file's turns written
/// to `spill` as soon as the file has been read.
pub fn extract_cached(
    roots: &[Root],
    r: &Redactor,
    cache: &mut crate::knowledge::cache::Cache,
    progress: &crate::base::progress::Progress,
    spill: &Spill,
) -> Result<Extracted, Error> {
    let mut files: Vec<_> = roots
        .iter()
        .flat_map(|r| r.transcripts.iter().map(move |t| (r.index, t)))
        .collect();
    // Largest first so one huge file does not start last and run alone.
    files.sort_by(|a, b| {
        b.1.size
            .cmp(&a.1.size)
            .then_with(|| a.1.path.cmp(&b.1.path))
    });
    let shared: &crate::knowledge::cache::Cache = cache;
    let total: u64 = files.iter().map(|(_, tf)| tf.size).sum();
    let done = std::sync::atomic::AtomicU64::new(0);
    let results: Vec<_> = files
        .par_iter()
        .map(|(root, tf)| {
            let (mut digest, entry, served) = shared.read(*root, tf, r);
            stow(&mut digest, spill);
            let now = done.fetch_add(tf.size, std::sync::atomic::Ordering::Relaxed) + tf.size;
            progress.report("reading transcripts", now, total);
            Ok((digest, entry, served))
        })
        .collect::<Result<_, Error>>()?;
    // Collected in place, into the results' own room: a hundred thousand
    // digests are not held twice.
    let mut digests: Vec<FileDigest> = results
        .into_iter()
        .map(|(digest, entry, served)| {
            cache.keep(entry, served);
            digest
        })
        .collect();
    digests.sort_by(|a, b| a.root.cmp(&b.root).then_with(|| a.file.cmp(&b.file)));

    let mut out = Extracted {
        lines: digests.iter().map(|d| d.lines).sum(),
        ..Extracted::default()
    };
    for d in &digests {
        out.tally.add(&d.tally);
    }
    merge(digests, &mut out, r);
    Ok(out)
}

/// History lines, redacted, in time order.
pub fn history(raw: Vec<RawHistory>, r: &Redactor, tally: &mut Tally) -> Vec<HistoryEntry> {
    let mut sc = Scrub::new(r);
    let mut out: Vec<HistoryEntry> = raw
        .into_iter()
        .map(|h| HistoryEntry {
            ts: h.ts,
            display: sc.owned(h.display),
            project: sc.opt(h.project.as_deref()),
            session_id: sc.opt(h.session_id.as_deref()),
        })
        .collect();
    out.sort_by(|a, b| {
        a.ts.cmp(&b.ts)
            .then_with(|| a.display.cmp(&b.display))
            .then_with(|| a.project.cmp(&b.project))
    });
    tally.add(&sc.tally);
    out
}

/// Session metadata, redacted, in order of start.
pub fn starts(raw: Vec<RawStart>, r: &Redactor, tally: &mut Tally) -> Vec<SessionStart> {
    let mut sc = Scrub::new(r);
    let mut out: Vec<SessionStart> = raw
        .into_iter()
        .map(|s| SessionStart {
            session_id: sc.owned(s.session_id),
            started: s.started,
            cwd: sc.opt(s.cwd.as_deref()),
            entrypoint: sc.opt(s.entrypoint.as_deref()),
            kind: sc.opt(s.kind.as_deref()),
        })
        .collect();
    out.sort_by(|a, b| {
        a.started
            .cmp(&b.started)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    tally.add(&sc.tally);
    out
}

/// Move a digest's turns to `spill`.
fn stow(d: &mut FileDigest, spill: &Spill) {
    d.parts.shrink_to_fit();
    for p in &mut d.parts {
        p.settle();
        spill.stow(&mut p.turns);
        for a in &mut p.agents {
            spill.stow(&mut a.turns);
        }
    }
    if let Some((_, _, a)) = &mut d.subagent {
        spill.stow(&mut a.turns);
    }
}

/// Combine per-file digests into sessions.
fn merge(digests: Vec<FileDigest>, out: &mut Extracted, r: &Redactor) {
    let mut sc = Scrub::new(r);
    // leafUuid hash → summary text; the first file (in path order) wins.
    let mut summaries: HashMap<u64, Text> = HashMap::new();
    for d in &digests {
        for (h, text) in &d.summaries {
            summaries.entry(*h).or_insert_with(|| text.clone());
        }
    }
    // Sessions in one vector, found by (root, id) through an index, and
    // sorted by that key at the end: a map of sessions collected into a
    // vector held a hundred thousand of them twice (the peak of a build of
    // that many small sessions).
    let most: usize = digests
        .iter()
        .map(|d| d.parts.len() + usize::from(d.subagent.is_some()))
        .sum();
    let mut sessions = Sessions {
        all: Vec::with_capacity(most),
        index: HashMap::with_capacity(most),
    };
    let mut agents = Vec::new();
    for mut d in digests {
        out.skips.append(&mut d.skips);
        if let Some(agent) = d.subagent.take() {
            agents.push((d.root, d.project_dir.clone(), d.file.clone(), agent));
            continue;
        }
        for part in d.parts {
            let s = sessions.get(d.root, &part.id, || Session {
                id: part.id.clone(),
                root: d.root,
                project_dir: d.project_dir.clone(),
                ..Session::default()
            });
            add_part(s, part, &d.file, &summaries);
        }
    }
    for (root, project_dir, file, (parent, cwd, agent)) in agents {
        let parent = parent.unwrap_or_else(|| sc.text(&format!("agent-{}", agent.id)));
        let s = sessions.get(root, &parent, || Session {
            id: parent.clone(),
            root,
            project_dir,
            cwd,
            ..Session::default()
        });
        s.files.push(file);
        s.subagents.push(agent);
    }
    let mut sessions = sessions.all;
    sessions.sort_unstable_by(|a, b| (a.root, &a.id).cmp(&(b.root, &b.id)));
    for s in &mut sessions {
        s.files.sort();
        // Held to the end of the build, a hundred thousand at a time: no
        // room for more (a vector's first push makes room for four).
        s.files.shrink_to_fit();
        s.subagents.shrink_to_fit();
        s.tool_outputs.shrink_to_fit();
        s.subagents
            .sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.id.cmp(&b.id)));
        if s.started.is_none() {
            s.started = s.subagents.iter().filter_map(|a| a.started).min();
        }
    }
    out.sessions = once_per_id(sessions);
    // A sub-agent's tokens are its session's too.
    for s in &mut out.sessions {
        for a in &s.subagents {
            crate::knowledge::model::add_usage(&mut s.usage_by_model, &a.usage_by_model);
        }
    }
}

/// Sessions as they are merged, each found by its root and id.
struct Sessions {
    all: Vec<Session>,
    index: HashMap<(usize, Text), usize>,
}

impl Sessions {
    /// The session `id` of `root`, made by `new` the first time.
    fn get(&mut self, root: usize, id: &Text, new: impl FnOnce() -> Session) -> &mut Session {
        let all = &mut self.all;
        let i = *self.index.entry((root, id.clone())).or_insert_with(|| {
            all.push(new());
            all.len() - 1
        });
        &mut all[i]
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

fn add_part(
    s: &mut Session,
    part: transcript::SessionPart,
    file: &std::path::Path,
    summaries: &HashMap<u64, Text>,
) {
    let conv = part.conv;
    if !s.files.iter().any(|f| f == file) {
        s.files.push(file.to_path_buf());
    }
    if s.cwd.is_none() {
        s.cwd = part.cwd;
    }
    if s.titles.summary.is_none() {
        s.titles.summary = part
            .uuid_hashes
            .iter()
            .find_map(|h| summaries.get(h).cloned())
            .or(part.titles.summary);
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
    for (k, v) in conv.tools {
        *s.tools.entry(k).or_insert(0) += v;
    }
    s.files_touched.extend(conv.files_touched);
    s.setup.absorb(conv.setup);
    s.tool_outputs.extend(conv.outputs);
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
