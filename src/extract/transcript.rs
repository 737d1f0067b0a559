//! Reading one transcript file into the sessions (or the sub-agent) it holds.

use super::conversation::Conversation;
use super::jsonl::{parse_line, read_lines, Position};
use super::record::{Message, Record};
use crate::discover::{FileRole, TranscriptFile};
use crate::model::{CompactKind, Subagent, SubagentLayout, SubagentRole, Titles};
use crate::skip::Skip;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// One session's share of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SessionPart {
    pub id: String,
    pub cwd: Option<String>,
    pub titles: Titles,
    pub branches: BTreeSet<String>,
    pub versions: BTreeSet<String>,
    pub entrypoint: Option<String>,
    pub conv: Conversation,
    pub inline_agents: Vec<(String, Conversation)>,
    /// Hashes of the uuids in this part, to resolve `summary.leafUuid` across files.
    pub uuid_hashes: Vec<u64>,
}

/// Everything one transcript file yielded.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct FileDigest {
    pub root: usize,
    pub file: PathBuf,
    pub project_dir: String,
    /// Sessions in a session file, in order of first appearance.
    pub parts: Vec<SessionPart>,
    /// The sub-agent in an `agent-*.jsonl` file, with the session it belongs to.
    pub subagent: Option<(Option<String>, Option<String>, Subagent)>,
    /// `summary` records: (hash of leafUuid, text).
    pub summaries: Vec<(u64, String)>,
    pub skips: Vec<Skip>,
    pub lines: u64,
}

/// Hash a uuid the same way everywhere (std's SipHash with fixed keys: deterministic).
pub fn uuid_hash(uuid: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    uuid.hash(&mut h);
    h.finish()
}

fn parse_ts(s: Option<&str>) -> Option<DateTime<Utc>> {
    let s = s?;
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// The state of reading one file, kept in the cache so that a file that
/// grew is read only from where the last build stopped.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ReaderState {
    pub digest: FileDigest,
    index: HashMap<String, usize>,
    current: Option<usize>,
    /// Agent files: one conversation, and the session id seen in its lines.
    agent_conv: Conversation,
    agent_parent: Option<String>,
    agent_cwd: Option<String>,
    /// Where the next read starts: just past the last complete line.
    pub position: (u64, u64),
}

impl ReaderState {
    /// A fresh state for `tf`.
    pub fn new(root: usize, tf: &TranscriptFile) -> ReaderState {
        ReaderState {
            digest: FileDigest {
                root,
                file: tf.path.clone(),
                project_dir: tf.project_dir.clone(),
                ..FileDigest::default()
            },
            ..ReaderState::default()
        }
    }

    /// Read `tf` from where this state stopped to the end. Returns the skip
    /// for an incomplete last line, which is not consumed: the next build
    /// reads it again, complete by then.
    pub fn read(&mut self, tf: &TranscriptFile) -> Option<Skip> {
        let stem = tf
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("session")
            .to_string();
        let is_agent_file = matches!(tf.role, FileRole::Subagent { .. });
        let mut tail: Option<Skip> = None;
        let start = Position {
            offset: self.position.0,
            line: self.position.1,
        };
        let mut consumed = start;
        let result = read_lines(&tf.path, start, |line| {
            let mut repaired = None;
            let rec: Record<'_> = match parse_line(&line.text, &mut repaired) {
                Ok(r) => r,
                Err(e) => {
                    if line.unterminated {
                        tail = Some(Skip::line(
                            &tf.path,
                            line.number,
                            "incomplete last line (file still being written?)",
                        ));
                    } else {
                        self.digest.skips.push(Skip::line(
                            &tf.path,
                            line.number,
                            format!("malformed JSON: {e}"),
                        ));
                        consumed = Position {
                            offset: line.end,
                            line: line.number,
                        };
                    }
                    return;
                }
            };
            consumed = Position {
                offset: line.end,
                line: line.number,
            };
            self.record(&tf.path, &stem, is_agent_file, line.number, &rec);
        });
        if let Err(e) = result {
            self.digest
                .skips
                .push(Skip::file(&tf.path, format!("cannot read: {e}")));
        }
        self.position = (consumed.offset, consumed.line);
        self.digest.lines = consumed.line;
        tail
    }

    fn record(
        &mut self,
        path: &Path,
        stem: &str,
        is_agent_file: bool,
        number: u64,
        rec: &Record<'_>,
    ) {
        let kind = rec.kind.as_deref().unwrap_or("");
        let ts = parse_ts(rec.timestamp.as_deref());
        if is_agent_file {
            if self.agent_parent.is_none() {
                self.agent_parent = rec.session_id.0.clone();
            }
            if self.agent_cwd.is_none() {
                self.agent_cwd = rec.cwd.0.clone();
            }
            if let Err(reason) = apply(&mut self.agent_conv, rec, kind, ts) {
                self.digest.skips.push(Skip::line(path, number, reason));
            }
            return;
        }
        let d = &mut self.digest;
        if kind == "summary" {
            if let Some(text) = rec.summary.0.clone() {
                match rec.leaf_uuid.as_deref() {
                    Some(leaf) => d.summaries.push((uuid_hash(leaf), text)),
                    None => {
                        let p = part(&mut d.parts, &mut self.index, &mut self.current, None, stem);
                        p.titles.summary.get_or_insert(text);
                    }
                }
            }
            return;
        }
        let p = part(
            &mut d.parts,
            &mut self.index,
            &mut self.current,
            rec.session_id.as_deref(),
            stem,
        );
        match kind {
            "custom-title" => {
                if let Some(t) = rec.custom_title.0.clone().filter(|t| !t.trim().is_empty()) {
                    p.titles.custom = Some(t);
                }
                return;
            }
            "ai-title" => {
                if let Some(t) = rec.ai_title.0.clone().filter(|t| !t.trim().is_empty()) {
                    p.titles.ai = Some(t);
                }
                return;
            }
            "user" | "assistant" | "system" => {}
            _ => return,
        }
        if let Some(u) = rec.uuid.as_deref() {
            p.uuid_hashes.push(uuid_hash(u));
        }
        if p.cwd.is_none() {
            p.cwd = rec.cwd.0.clone().filter(|c| !c.is_empty());
        }
        if let Some(b) = rec.git_branch.as_deref().filter(|b| !b.is_empty()) {
            if !p.branches.contains(b) {
                p.branches.insert(b.to_string());
            }
        }
        if let Some(v) = rec.version.as_deref().filter(|v| !v.is_empty()) {
            if !p.versions.contains(v) {
                p.versions.insert(v.to_string());
            }
        }
        if p.entrypoint.is_none() {
            p.entrypoint = rec.entrypoint.0.clone();
        }
        let conv = if rec.is_sidechain.is_true() {
            inline_agent(p, rec)
        } else {
            &mut p.conv
        };
        if let Err(reason) = apply(conv, rec, kind, ts) {
            d.skips.push(Skip::line(path, number, reason));
        }
    }

    /// The finished digest; `tail` is the skip for an incomplete last line.
    pub fn into_digest(mut self, tf: &TranscriptFile, tail: Option<Skip>) -> FileDigest {
        let mut d = self.digest;
        d.skips.extend(tail);
        if let FileRole::Subagent {
            agent_id,
            parent,
            layout,
            role,
            meta,
        } = &tf.role
        {
            let (agent_type, description) = meta.as_ref().map(read_meta).unwrap_or_default();
            self.agent_conv.finish();
            let parent = parent.clone().or(self.agent_parent);
            d.subagent = Some((
                parent,
                self.agent_cwd,
                Subagent {
                    id: agent_id.clone(),
                    layout: *layout,
                    role: *role,
                    agent_type,
                    description,
                    started: self.agent_conv.first,
                    assistant_turns: self.agent_conv.assistant_turns,
                    turns: self.agent_conv.turns,
                },
            ));
        }
        for p in &mut d.parts {
            p.conv.finish();
        }
        d
    }
}

/// Read one transcript file, streaming, from the start.
pub fn read_transcript(root: usize, tf: &TranscriptFile) -> FileDigest {
    let mut state = ReaderState::new(root, tf);
    let tail = state.read(tf);
    state.into_digest(tf, tail)
}

/// Apply one user/assistant/system record to a conversation.
fn apply(
    conv: &mut Conversation,
    rec: &Record<'_>,
    kind: &str,
    ts: Option<DateTime<Utc>>,
) -> Result<(), String> {
    match kind {
        "user" | "assistant" => {
            conv.saw_time(ts);
            let Some(raw) = rec.message else {
                return Ok(());
            };
            let mut repaired = None;
            let msg: Message = parse_line(raw.get(), &mut repaired)
                .map_err(|e| format!("unreadable message: {e}"))?;
            if kind == "user" {
                conv.user(rec, msg, ts);
            } else {
                conv.assistant(msg, ts);
            }
        }
        "system" => {
            conv.saw_time(ts);
            match rec.subtype.as_deref() {
                Some("compact_boundary") => conv.compaction(CompactKind::Full, ts),
                Some("microcompact_boundary") => conv.compaction(CompactKind::Micro, ts),
                Some("local_command") => {
                    if let Some(text) = rec.content.as_deref() {
                        conv.local_command(text, ts);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// The part for `session_id` (or the current one, or one named after the file).
fn part<'a>(
    parts: &'a mut Vec<SessionPart>,
    index: &mut HashMap<String, usize>,
    current: &mut Option<usize>,
    session_id: Option<&str>,
    stem: &str,
) -> &'a mut SessionPart {
    let i = match session_id.filter(|s| !s.is_empty()) {
        Some(id) => match index.get(id) {
            Some(i) => *i,
            None => {
                parts.push(SessionPart {
                    id: id.to_string(),
                    ..SessionPart::default()
                });
                index.insert(id.to_string(), parts.len() - 1);
                parts.len() - 1
            }
        },
        None => match *current {
            Some(i) => i,
            None => match index.get(stem) {
                Some(i) => *i,
                None => {
                    parts.push(SessionPart {
                        id: stem.to_string(),
                        ..SessionPart::default()
                    });
                    index.insert(stem.to_string(), parts.len() - 1);
                    parts.len() - 1
                }
            },
        },
    };
    *current = Some(i);
    &mut parts[i]
}

/// The inline sub-agent a sidechain line belongs to: by `agentId`, else a new
/// one at each root line (no parent), else the latest.
fn inline_agent<'a>(p: &'a mut SessionPart, rec: &Record<'_>) -> &'a mut Conversation {
    let key = match rec.agent_id.as_deref().filter(|a| !a.is_empty()) {
        Some(a) => a.to_string(),
        None => {
            let starts_new = rec.parent_uuid.0.is_none() || p.inline_agents.is_empty();
            if starts_new {
                format!("sidechain-{}", p.inline_agents.len() + 1)
            } else {
                p.inline_agents
                    .last()
                    .map(|(k, _)| k.clone())
                    .unwrap_or_default()
            }
        }
    };
    let pos = match p.inline_agents.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            p.inline_agents.push((key, Conversation::default()));
            p.inline_agents.len() - 1
        }
    };
    &mut p.inline_agents[pos].1
}

/// `agent-<id>.meta.json`: `agentType` and `description`.
fn read_meta(path: &PathBuf) -> (Option<String>, Option<String>) {
    #[derive(serde::Deserialize, Default)]
    #[serde(rename_all = "camelCase", default)]
    struct Meta {
        agent_type: super::jsonl::Str,
        description: super::jsonl::Str,
    }
    let meta: Meta = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    (meta.agent_type.0, meta.description.0)
}

/// Turn a finished inline sub-agent conversation into a [`Subagent`].
pub fn inline_subagent(id: String, mut conv: Conversation) -> Subagent {
    conv.finish();
    Subagent {
        id,
        layout: SubagentLayout::Inline,
        role: SubagentRole::Task,
        agent_type: None,
        description: conv.turns.iter().find_map(|t| match t {
            crate::model::Turn::Prompt { text, .. } => Some(crate::model::one_line(text, 100)),
            _ => None,
        }),
        started: conv.first,
        assistant_turns: conv.assistant_turns,
        turns: conv.turns,
    }
}
