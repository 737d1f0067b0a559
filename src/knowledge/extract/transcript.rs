//! Reading one transcript file into the sessions (or the sub-agent) it holds.

use super::conversation::Conversation;
use super::firsts::Firsts;
use crate::base::skip::Skip;
use crate::base::small_set::SmallSet;
use crate::knowledge::model::Turns;
use crate::knowledge::model::{CompactKind, Subagent, SubagentLayout, SubagentRole, Text, Titles};
use crate::knowledge::redact::{Redactor, Scrub, Tally};
use crate::knowledge::spill::{Chunk, Shelf, Spill};
use crate::source::discover::{AgentFile, FileRole, TranscriptFile};
use crate::source::jsonl::{parse_line, read_range, Position};
use crate::source::record::{Message, Object, Record};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One session's share of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SessionPart {
    pub id: Text,
    /// Hash of the raw id: parts of one session match on it.
    key: u64,
    pub cwd: Option<Text>,
    pub titles: Titles,
    pub branches: SmallSet<Text>,
    pub versions: SmallSet<Text>,
    pub entrypoint: Option<Text>,
    pub conv: Conversation,
    pub inline_agents: Vec<(Text, Conversation)>,
    /// Hashes of the uuids in this part, to resolve `summary.leafUuid` across files.
    pub uuid_hashes: Vec<u64>,
    /// Hashes of the raw branch and version values seen, so each is
    /// redacted (and counted) once, not on every line.
    seen: BTreeSet<u64>,
    /// The inline sub-agent that continues the previous piece's last one
    /// (read in pieces only).
    #[serde(skip)]
    continued_group: Option<usize>,
    /// The finished part, filled by [`ReaderState::into_digest`] (never
    /// cached): its turns, its inline sub-agents, its first prompt.
    #[serde(skip)]
    pub turns: crate::knowledge::model::Turns,
    #[serde(skip)]
    pub agents: Vec<Subagent>,
    #[serde(skip)]
    pub first_prompt: Option<Text>,
    /// The start of the first answer, a title of last resort (never cached).
    #[serde(skip)]
    pub first_answer: Option<Text>,
    /// The first paragraph of the last answer: where the part ended (never
    /// cached: made again with the digest, like the two above).
    #[serde(skip)]
    pub last_answer: Option<Text>,
}

impl SessionPart {
    /// Let go of what only reading needed, once the part is finished and
    /// cached: a busy data directory holds a hundred thousand parts until
    /// they are merged.
    pub fn settle(&mut self) {
        self.seen = BTreeSet::new();
        self.conv.settle();
        self.uuid_hashes.shrink_to_fit();
    }
}

/// Everything one transcript file yielded.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct FileDigest {
    pub root: usize,
    /// The file, for messages on the owner's terminal only.
    #[serde(with = "crate::base::skip::shown_path")]
    pub file: PathBuf,
    pub project_dir: Text,
    /// Sessions in a session file, in order of first appearance.
    pub parts: Vec<SessionPart>,
    /// The sub-agent in an `agent-*.jsonl` file, with the session it
    /// belongs to and its `cwd` (filled by [`ReaderState::into_digest`]).
    #[serde(skip)]
    pub subagent: Option<(Option<Text>, Option<Text>, Subagent)>,
    /// `summary` records: (hash of leafUuid, text).
    pub summaries: Vec<(u64, Text)>,
    pub skips: Vec<Skip>,
    pub lines: u64,
    /// What redaction replaced in this file.
    pub tally: Tally,
}

/// True the first time `(tag, raw)` is seen in `seen`.
fn first_time(seen: &mut BTreeSet<u64>, tag: &[u8], raw: &str) -> bool {
    use std::hash::Hasher;
    // (runs for every line: hashed in place, nothing allocated)
    let mut h = crate::base::hash::hasher();
    h.write(tag);
    h.write(raw.as_bytes());
    seen.insert(h.finish())
}

/// Hash a uuid the same way everywhere.
pub fn uuid_hash(uuid: &str) -> u64 {
    crate::base::hash::hash_bytes(uuid.as_bytes())
}

pub(super) fn parse_ts(s: Option<&str>) -> Option<DateTime<Utc>> {
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
    /// Hash of the raw session id -> part.
    index: HashMap<u64, usize>,
    current: Option<usize>,
    /// Agent files: one conversation, and the session id seen in its lines.
    agent_conv: Conversation,
    agent_parent: Option<Text>,
    agent_cwd: Option<Text>,
    /// Where the next read starts: just past the last complete line.
    pub position: (u64, u64),
    /// True for a piece of a large file read in parallel.
    #[serde(skip)]
    piece: bool,
    /// Where each conversation's turns are (in [`ReaderState::conversations`]
    /// order), once they are cached apart from the state (the state is
    /// then cached without them: see `Cache`).
    #[serde(default)]
    stored: Vec<StoredTurns>,
}

/// A conversation's turns as the cache keeps them: chunks of the entry's
/// area of turns, and what the digest takes from them.
#[derive(Debug, Default, Serialize, Deserialize)]
struct StoredTurns {
    chunks: Vec<Chunk>,
    firsts: Firsts,
}

/// Where the turns of a state cached apart from it are: a shelf of the
/// spill, and the start of the state's area of turns in it.
#[derive(Debug, Clone, Copy)]
pub struct Shelved {
    pub shelf: Shelf,
    pub base: u64,
}

impl ReaderState {
    /// A fresh state for `tf`.
    pub fn new(root: usize, tf: &TranscriptFile, r: &Redactor) -> ReaderState {
        let mut sc = Scrub::new(r);
        let project_dir = sc.text(&tf.project_dir);
        ReaderState {
            digest: FileDigest {
                root,
                file: tf.path.clone(),
                project_dir,
                tally: sc.tally,
                ..FileDigest::default()
            },
            ..ReaderState::default()
        }
    }

    /// Read `tf` from where this state stopped to the end. Returns the skip
    /// for an incomplete last line, which is not consumed: the next build
    /// reads it again, complete by then.
    /// Earlier turns a line changes are read back through `spill`.
    pub fn read(&mut self, tf: &TranscriptFile, r: &Redactor, spill: &Spill) -> Option<Skip> {
        self.read_to(tf, u64::MAX, r, spill)
    }

    /// [`ReaderState::read`], stopping before the first line at or after `end`.
    fn read_to(
        &mut self,
        tf: &TranscriptFile,
        end: u64,
        r: &Redactor,
        spill: &Spill,
    ) -> Option<Skip> {
        let mut sc = Scrub::new(r);
        let stem = tf
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("session")
            .to_string();
        let is_agent_file = matches!(tf.role, FileRole::Subagent(_));
        let mut tail: Option<Skip> = None;
        let start = Position {
            offset: self.position.0,
            line: self.position.1,
        };
        let mut consumed = start;
        let result = read_range(&tf.path, start, end, |line| {
            let mut repaired = None;
            let mut rec: Record<'_> = match parse_line(line.bytes, &mut repaired) {
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
            let at = (tf.path.as_path(), line.number);
            self.record(at, &stem, is_agent_file, &mut rec, &mut sc, spill);
        });
        self.digest.tally.add(&sc.tally);
        if let Err(e) = result {
            self.digest
                .skips
                .push(Skip::file(&tf.path, format!("cannot read: {e}")));
        }
        self.position = (consumed.offset, consumed.line);
        self.digest.lines = consumed.line;
        tail
    }

    /// Line `at` (file, number), of a sub-agent's own file when `is_agent_file`.
    fn record(
        &mut self,
        (path, number): (&Path, u64),
        stem: &str,
        is_agent_file: bool,
        rec: &mut Record<'_>,
        sc: &mut Scrub,
        spill: &Spill,
    ) {
        let message = std::mem::take(&mut rec.message);
        let rec = &*rec;
        let kind = rec.kind.as_deref().unwrap_or("");
        let ts = parse_ts(rec.timestamp.as_deref());
        if is_agent_file {
            if self.agent_parent.is_none() {
                self.agent_parent = sc.opt(rec.session_id.as_deref());
            }
            if self.agent_cwd.is_none() {
                self.agent_cwd = sc.opt(rec.cwd.as_deref());
            }
            if let Err(reason) = apply(&mut self.agent_conv, rec, message, kind, ts, sc, spill) {
                self.digest.skips.push(Skip::line(path, number, reason));
            }
            return;
        }
        if kind == "summary" {
            self.summary(stem, rec, sc);
            return;
        }
        let d = &mut self.digest;
        let wanted = match kind {
            "custom-title" | "ai-title" | "user" | "assistant" | "system" => true,
            // Of attachments, only the instruction files Claude Code read.
            "attachment" => rec
                .attachment
                .is_some_and(|a| memchr::memmem::find(a.bytes(), b"\"nested_memory\"").is_some()),
            "file-history-snapshot" => rec.snapshot.is_some(),
            _ => false,
        };
        if !wanted {
            return;
        }
        let p = part(
            &mut d.parts,
            &mut self.index,
            &mut self.current,
            rec.session_id.as_deref(),
            stem,
            self.piece,
            sc,
        );
        match kind {
            "custom-title" => {
                if let Some(t) = rec.custom_title.as_deref().filter(|t| !t.trim().is_empty()) {
                    p.titles.custom = Some(sc.text(t));
                }
                return;
            }
            "ai-title" => {
                if let Some(t) = rec.ai_title.as_deref().filter(|t| !t.trim().is_empty()) {
                    p.titles.ai = Some(sc.text(t));
                }
                return;
            }
            "user" | "assistant" | "system" | "attachment" | "file-history-snapshot" => {}
            _ => return,
        }
        note_metadata(p, rec, sc);
        let conv = if rec.is_sidechain.is_true() {
            inline_agent(p, rec, self.piece, sc)
        } else {
            &mut p.conv
        };
        if let Err(reason) = apply(conv, rec, message, kind, ts, sc, spill) {
            d.skips.push(Skip::line(path, number, reason));
        }
    }

    /// A `summary` line: the title of the conversation its leaf ends, or
    /// of the session when it names no leaf.
    fn summary(&mut self, stem: &str, rec: &Record<'_>, sc: &mut Scrub) {
        let Some(text) = rec.summary.as_deref() else {
            return;
        };
        let text = sc.text(text);
        let d = &mut self.digest;
        match rec.leaf_uuid.as_deref() {
            Some(leaf) => d.summaries.push((uuid_hash(leaf), text)),
            None => {
                let p = part(
                    &mut d.parts,
                    &mut self.index,
                    &mut self.current,
                    None,
                    stem,
                    self.piece,
                    sc,
                );
                p.titles.summary.get_or_insert(text);
            }
        }
    }

    /// Fold the state of the next piece of the same file into this one.
    fn absorb(
        &mut self,
        mut next: ReaderState,
        tail: &mut Option<Skip>,
        r: &Redactor,
        spill: &Spill,
    ) {
        let mut sc = Scrub::new(r);
        let base = self.position.1;
        for s in next.digest.skips.iter_mut().chain(tail.iter_mut()) {
            if let Some(line) = s.line.as_mut() {
                *line += base;
            }
        }
        self.digest.skips.append(&mut next.digest.skips);
        self.digest.summaries.append(&mut next.digest.summaries);
        self.digest.tally.add(&next.digest.tally);
        let mut mapped = Vec::with_capacity(next.digest.parts.len());
        for p in next.digest.parts {
            match self.index.get(&p.key) {
                Some(&i) => {
                    absorb_part(&mut self.digest.parts[i], p, &mut sc, spill);
                    mapped.push(i);
                }
                None => {
                    self.index.insert(p.key, self.digest.parts.len());
                    mapped.push(self.digest.parts.len());
                    self.digest.parts.push(p);
                }
            }
        }
        if let Some(c) = next.current {
            self.current = mapped.get(c).copied();
        }
        self.agent_conv.absorb(next.agent_conv, spill);
        if self.agent_parent.is_none() {
            self.agent_parent = next.agent_parent;
        }
        if self.agent_cwd.is_none() {
            self.agent_cwd = next.agent_cwd;
        }
        self.position = (next.position.0, base + next.position.1);
        self.digest.lines = self.position.1;
        self.digest.tally.add(&sc.tally);
    }

    /// Read a large file from the start in pieces of about `piece_bytes`,
    /// in parallel, then fold the pieces in order: the same result as one
    /// read, on every core. Each piece's turns go to `spill` as soon as it
    /// is read: memory holds a piece or two, however large the file.
    pub fn read_in_pieces(
        root: usize,
        tf: &TranscriptFile,
        piece_bytes: u64,
        r: &Redactor,
        spill: &Spill,
    ) -> (ReaderState, Option<Skip>) {
        use rayon::prelude::*;
        let bounds = piece_bounds(&tf.path, piece_bytes);
        let pieces: Vec<(ReaderState, Option<Skip>)> = (0..bounds.len().saturating_sub(1))
            .into_par_iter()
            .map(|i| {
                let mut s = ReaderState::new(root, tf, r);
                s.piece = i > 0;
                if s.piece {
                    // counted once, by the first piece
                    s.digest.tally = Tally::default();
                }
                if s.piece {
                    s.agent_conv = Conversation::for_piece();
                }
                s.position = (bounds[i], 0);
                let tail = s.read_to(tf, bounds[i + 1], r, spill);
                for c in s.conversations() {
                    c.stow(spill);
                }
                (s, tail)
            })
            .collect();
        let mut iter = pieces.into_iter();
        let (mut state, mut tail) = iter
            .next()
            .unwrap_or_else(|| (ReaderState::new(root, tf, r), None));
        for (next, mut next_tail) in iter {
            state.absorb(next, &mut next_tail, r, spill);
            tail = next_tail;
        }
        (state, tail)
    }

    /// Every conversation, in the order their turns are cached: the agent
    /// file's, then each part's own followed by its inline sub-agents'.
    fn conversations(&mut self) -> Vec<&mut Conversation> {
        let mut out = vec![&mut self.agent_conv];
        for p in &mut self.digest.parts {
            out.push(&mut p.conv);
            out.extend(p.inline_agents.iter_mut().map(|(_, c)| c));
        }
        out
    }

    /// Write every conversation's held turns to `spill`.
    pub fn stow_turns(&mut self, spill: &Spill) {
        for c in self.conversations() {
            c.stow(spill);
        }
    }

    /// Each conversation's turns, in `conversations` order,
    /// to be cached apart from the state.
    pub fn turn_lists(&mut self) -> Vec<&Turns> {
        self.conversations().into_iter().map(|c| &c.turns).collect()
    }

    /// Record where [`ReaderState::turn_lists`] were cached (one list of
    /// chunks for each), and what the digest takes from them: the state
    /// can now be cached without its turns.
    pub fn turns_stored(&mut self, chunks: Vec<Vec<Chunk>>, spill: &Spill) {
        self.stored = self
            .conversations()
            .into_iter()
            .zip(chunks)
            .map(|(c, chunks)| StoredTurns {
                firsts: Firsts::of(&c.turns, spill),
                chunks,
            })
            .collect();
    }

    /// Every chunk of the turns cached apart from the state (see
    /// [`ReaderState::turns_stored`]); None when it says of fewer
    /// conversations than it has.
    pub fn stored_chunks(&mut self) -> Option<Vec<Chunk>> {
        (self.stored.len() == self.conversations().len()).then(|| {
            self.stored
                .iter()
                .flat_map(|s| s.chunks.iter().copied())
                .collect()
        })
    }

    /// Put the turns cached apart from the state (where `at` says) back
    /// into its conversations, to read on. False when the state says of
    /// fewer conversations than it has.
    pub fn restore_turns(&mut self, at: Shelved) -> bool {
        let stored = std::mem::take(&mut self.stored);
        let mut conversations = self.conversations();
        if stored.len() != conversations.len() {
            return false;
        }
        for (c, s) in conversations.iter_mut().zip(stored) {
            c.turns = Turns::shelved(at.shelf, at.base, &s.chunks);
        }
        true
    }

    /// Each conversation's turns for the digest, with what it takes from
    /// them: where the cache keeps them when `shelved`, else as held.
    fn take_turns(&mut self, shelved: Option<Shelved>, spill: &Spill) -> Vec<(Turns, Firsts)> {
        let stored = std::mem::take(&mut self.stored);
        let conversations = self.conversations();
        match shelved {
            Some(at) if stored.len() == conversations.len() => conversations
                .into_iter()
                .zip(stored)
                .map(|(c, s)| {
                    // Held too when they were just read: let go of them.
                    c.turns = Turns::default();
                    (Turns::shelved(at.shelf, at.base, &s.chunks), s.firsts)
                })
                .collect(),
            _ => conversations
                .into_iter()
                .map(|c| {
                    let turns = std::mem::take(&mut c.turns);
                    let firsts = Firsts::of(&turns, spill);
                    (turns, firsts)
                })
                .collect(),
        }
    }

    /// The finished digest; `tail` is the skip for an incomplete last line.
    /// The turns are the cache's when `shelved` says where they are (see
    /// [`ReaderState::turns_stored`]), else the state's own.
    pub fn into_digest(
        mut self,
        tf: &TranscriptFile,
        tail: Option<Skip>,
        r: &Redactor,
        shelved: Option<Shelved>,
        spill: &Spill,
    ) -> FileDigest {
        let mut turns = self.take_turns(shelved, spill).into_iter();
        let mut next = || turns.next().unwrap_or_default();
        let mut d = self.digest;
        d.skips.extend(tail);
        let mut sc = Scrub::new(r);
        let (agent_turns, agent_firsts) = next();
        if let FileRole::Subagent(a) = &tf.role {
            let AgentFile {
                agent_id,
                parent,
                layout,
                role,
                meta,
            } = &**a;
            let (agent_type, description) = meta.as_ref().map(read_meta).unwrap_or_default();
            self.agent_conv.finish();
            let parent = sc.opt(parent.as_deref()).or(self.agent_parent);
            d.subagent = Some((
                parent,
                self.agent_cwd,
                Subagent {
                    id: sc.text(agent_id),
                    layout: *layout,
                    role: *role,
                    agent_type: sc.opt(agent_type.as_deref()),
                    description: sc
                        .opt(description.as_deref())
                        .or_else(|| agent_firsts.prompt.as_ref().map(|t| sc.one_line(t, 100))),
                    started: self.agent_conv.first,
                    assistant_turns: self.agent_conv.assistant_turns,
                    turns: agent_turns,
                    prompt_key: self.agent_conv.first_prompt_key,
                    usage_by_model: std::mem::take(&mut self.agent_conv.by_model),
                    uses: std::mem::take(&mut self.agent_conv.setup.uses),
                },
            ));
        }
        for p in &mut d.parts {
            p.conv.finish();
            let (turns, f) = next();
            p.last_answer = f.last_answer.map(|t| sc.one_line(&t, 400));
            p.first_answer = f
                .answer
                .map(|t| sc.one_line(&t, 300))
                .or_else(|| f.command.map(|c| sc.one_line(&c, 300)));
            p.first_prompt = f.prompt;
            p.turns = turns;
            p.agents = std::mem::take(&mut p.inline_agents)
                .into_iter()
                .map(|(id, conv)| {
                    let (turns, f) = next();
                    inline_subagent(id, conv, turns, f, &mut sc)
                })
                .collect();
        }
        // Cached states are turned into digests on every build: what this
        // adds is not kept in the state, so it is counted once per build.
        d.tally.add(&sc.tally);
        d
    }
}

/// Files larger than this are read in pieces, in parallel.
pub const PIECE_BYTES: u64 = 32 << 20;

/// Read one transcript file, streaming, from the start; a large file's
/// turns go to `spill` as they are read.
pub fn read_transcript(
    root: usize,
    tf: &TranscriptFile,
    r: &Redactor,
    spill: &Spill,
) -> FileDigest {
    let (state, tail) = read_fresh(root, tf, PIECE_BYTES, r, spill);
    state.into_digest(tf, tail, r, None, spill)
}

/// Read `tf` from the start: in one go, or in pieces when it is large.
pub fn read_fresh(
    root: usize,
    tf: &TranscriptFile,
    piece_bytes: u64,
    r: &Redactor,
    spill: &Spill,
) -> (ReaderState, Option<Skip>) {
    if tf.size > 2 * piece_bytes {
        return ReaderState::read_in_pieces(root, tf, piece_bytes, r, spill);
    }
    let mut state = ReaderState::new(root, tf, r);
    let tail = state.read(tf, r, spill);
    (state, tail)
}

/// Line starts about every `piece_bytes` through the file, then its size.
fn piece_bounds(path: &Path, piece_bytes: u64) -> Vec<u64> {
    use std::io::{BufRead, Seek, SeekFrom};
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut bounds = vec![0];
    let Ok(file) = std::fs::File::open(path) else {
        return vec![0, size];
    };
    let mut reader = std::io::BufReader::new(file);
    let mut target = piece_bytes.max(1);
    let mut skip = Vec::new();
    while target < size {
        if reader.seek(SeekFrom::Start(target)).is_err() {
            break;
        }
        skip.clear();
        let Ok(n) = reader.read_until(b'\n', &mut skip) else {
            break;
        };
        let start = target + n as u64;
        if start >= size {
            break;
        }
        if start > *bounds.last().unwrap_or(&0) {
            bounds.push(start);
        }
        target = start + piece_bytes;
    }
    bounds.push(size);
    bounds
}

/// Apply one user/assistant/system record, whose message is `message`, to
/// a conversation.
fn apply(
    conv: &mut Conversation,
    rec: &Record<'_>,
    message: Object<Message<'_>>,
    kind: &str,
    ts: Option<DateTime<Utc>>,
    sc: &mut Scrub,
    spill: &Spill,
) -> Result<(), String> {
    match kind {
        "user" | "assistant" => {
            conv.saw_time(ts);
            let Some(msg) = message.value else {
                return match message.odd {
                    true => Err("unreadable message: not a JSON object".to_string()),
                    false => Ok(()),
                };
            };
            if kind == "user" {
                conv.user(rec, msg, ts, sc, spill);
            } else {
                conv.assistant(msg, ts, sc, spill);
            }
        }
        "system" => {
            conv.saw_time(ts);
            match rec.subtype.as_deref() {
                Some("compact_boundary") => conv.compaction(CompactKind::Full, ts),
                Some("microcompact_boundary") => conv.compaction(CompactKind::Micro, ts),
                Some("local_command") => {
                    if let Some(text) = rec.content.as_deref() {
                        conv.local_command(text, ts, sc);
                    }
                }
                // What happened while the user was away, as Claude Code
                // tells it when they come back.
                Some("away_summary") => {
                    if let Some(text) = rec.content.as_deref().filter(|t| !t.trim().is_empty()) {
                        conv.setup.away = Some(sc.text(text));
                    }
                }
                _ => {}
            }
        }
        "attachment" => {
            if let Some(raw) = rec.attachment {
                conv.attachment(raw, sc);
            }
        }
        "file-history-snapshot" => {
            if let Some(raw) = rec.snapshot {
                conv.snapshot(raw, sc);
            }
        }
        _ => {}
    }
    Ok(())
}

/// The part for `session_id` (or the current one, or one named after the file).
fn part<'a>(
    parts: &'a mut Vec<SessionPart>,
    index: &mut HashMap<u64, usize>,
    current: &mut Option<usize>,
    session_id: Option<&str>,
    stem: &str,
    piece: bool,
    sc: &mut Scrub,
) -> &'a mut SessionPart {
    let id = match session_id.filter(|s| !s.is_empty()) {
        Some(id) => id,
        None => match *current {
            Some(i) => return &mut parts[i],
            None => stem,
        },
    };
    let key = crate::base::hash::hash_bytes(id.as_bytes());
    let i = match index.get(&key) {
        Some(i) => *i,
        None => {
            parts.push(SessionPart {
                id: sc.text(id),
                key,
                conv: if piece {
                    Conversation::for_piece()
                } else {
                    Conversation::default()
                },
                ..SessionPart::default()
            });
            index.insert(key, parts.len() - 1);
            parts.len() - 1
        }
    };
    *current = Some(i);
    &mut parts[i]
}

/// The inline sub-agent a sidechain line belongs to: by `agentId`, else a new
/// one at each root line (no parent), else the latest.
fn inline_agent<'a>(
    p: &'a mut SessionPart,
    rec: &Record<'_>,
    piece: bool,
    sc: &mut Scrub,
) -> &'a mut Conversation {
    let mut continues = false;
    let key = match rec.agent_id.as_deref().filter(|a| !a.is_empty()) {
        Some(a) => sc.text(a),
        None => {
            let root_line = rec.parent_uuid.0.is_none();
            if root_line || p.inline_agents.is_empty() {
                // In a piece, a non-root line with no group yet continues the
                // previous piece's last group.
                continues = !root_line;
                sc.text(&format!("sidechain-{}", p.inline_agents.len() + 1))
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
            let conv = if piece {
                Conversation::for_piece()
            } else {
                Conversation::default()
            };
            p.inline_agents.push((key, conv));
            if continues {
                p.continued_group = Some(p.inline_agents.len() - 1);
            }
            p.inline_agents.len() - 1
        }
    };
    &mut p.inline_agents[pos].1
}

/// Fold the next piece's share of a session into this piece's.
fn absorb_part(q: &mut SessionPart, p: SessionPart, sc: &mut Scrub, spill: &Spill) {
    if p.titles.custom.is_some() {
        q.titles.custom = p.titles.custom;
    }
    if p.titles.ai.is_some() {
        q.titles.ai = p.titles.ai;
    }
    if q.titles.summary.is_none() {
        q.titles.summary = p.titles.summary;
    }
    q.branches.extend(p.branches);
    q.versions.extend(p.versions);
    if q.cwd.is_none() {
        q.cwd = p.cwd;
    }
    if q.entrypoint.is_none() {
        q.entrypoint = p.entrypoint;
    }
    q.uuid_hashes.extend(p.uuid_hashes);
    q.seen.extend(p.seen);
    q.conv.absorb(p.conv, spill);
    for (k, (key, conv)) in p.inline_agents.into_iter().enumerate() {
        if p.continued_group == Some(k) {
            if let Some((_, last)) = q.inline_agents.last_mut() {
                last.absorb(conv, spill);
                continue;
            }
        }
        let anonymous = key.starts_with("sidechain-");
        if !anonymous {
            if let Some((_, same)) = q.inline_agents.iter_mut().find(|(k2, _)| *k2 == key) {
                same.absorb(conv, spill);
                continue;
            }
        }
        let key = if anonymous {
            sc.text(&format!("sidechain-{}", q.inline_agents.len() + 1))
        } else {
            key
        };
        q.inline_agents.push((key, conv));
    }
}

/// `agent-<id>.meta.json`: `agentType` and `description`.
fn read_meta(path: &PathBuf) -> (Option<String>, Option<String>) {
    #[derive(serde::Deserialize, Default)]
    #[serde(rename_all = "camelCase", default)]
    struct Meta {
        agent_type: crate::source::jsonl::Str,
        description: crate::source::jsonl::Str,
    }
    let meta: Meta = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    (meta.agent_type.0, meta.description.0)
}

/// Turn a finished inline sub-agent conversation into a [`Subagent`].
fn inline_subagent(
    id: Text,
    mut conv: Conversation,
    turns: Turns,
    firsts: Firsts,
    sc: &mut Scrub,
) -> Subagent {
    conv.finish();
    Subagent {
        id,
        layout: SubagentLayout::Inline,
        role: SubagentRole::Task,
        agent_type: None,
        description: firsts.prompt.as_ref().map(|t| sc.one_line(t, 100)),
        started: conv.first,
        assistant_turns: conv.assistant_turns,
        turns,
        prompt_key: conv.first_prompt_key,
        usage_by_model: conv.by_model,
        uses: conv.setup.uses,
    }
}

/// What a line says about its session besides the conversation: ids, the
/// working directory, branches, versions, the entry point. Each value is
/// redacted once: these repeat on every line.
fn note_metadata(p: &mut SessionPart, rec: &Record<'_>, sc: &mut Scrub) {
    if let Some(u) = rec.uuid.as_deref() {
        p.uuid_hashes.push(uuid_hash(u));
    }
    if p.cwd.is_none() {
        p.cwd = sc.opt(rec.cwd.as_deref().filter(|c| !c.is_empty()));
    }
    if let Some(b) = rec.git_branch.as_deref().filter(|b| !b.is_empty()) {
        if first_time(&mut p.seen, b"branch", b) {
            p.branches.insert(sc.text(b));
        }
    }
    if let Some(v) = rec.version.as_deref().filter(|v| !v.is_empty()) {
        if first_time(&mut p.seen, b"version", v) {
            p.versions.insert(sc.text(v));
        }
    }
    if p.entrypoint.is_none() {
        p.entrypoint = sc.opt(rec.entrypoint.as_deref());
    }
}
