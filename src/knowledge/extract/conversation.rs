//! Turning records into turns: the rules for what a reader sees.
//!
//! One accumulator per conversation (a session, or a sub-agent) merges the
//! lines of one API response by `message.id`, tells real prompts from tool
//! results, meta lines and slash commands, and counts usage once per response.

use crate::base::small_set::SmallSet;
use crate::knowledge::model::{
    prompt_key, Block, CompactKind, Edit, ModelUsage, Text, ToolCall, Turn, Turns, Usage,
    EDIT_CHARS, TOOL_TEXT_CHARS,
};
use crate::knowledge::redact::{window_within, Scrub, LOOKAHEAD, SCAN_AHEAD};
use crate::knowledge::spill::Spill;
use crate::source::record::{
    edits_of, input_lines, output_prefix, Content, Message, RawBlock, Record, ToolInput, EDIT_ARGS,
};
use crate::source::skim::Raw;
use chrono::{DateTime, Utc};
// Message and call ids come from the data: a hasher seeded at random (not
// a fixed one) keeps crafted ids from colliding, and foldhash is several
// times faster than the standard SipHash on these short keys.
use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// Tags that wrap user lines Claude Code wrote, not the user.
const COMMAND_TAGS: &[&str] = &[
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "user-prompt-submit-hook",
];

/// Context blocks an IDE or hook attaches to a prompt, as the marks that
/// open and close them: never prompt text.
const CONTEXT_MARKS: [(&str, &str); 3] = [
    ("<ide_opened_file>", "</ide_opened_file>"),
    ("<ide_selection>", "</ide_selection>"),
    ("<system-reminder>", "</system-reminder>"),
];

/// How much of each tool result is kept, for search only.
pub const OUTPUT_SAMPLE_CHARS: usize = 300;
/// How many tool results per conversation are kept, for search only.
pub const OUTPUT_SAMPLES: usize = 24;

/// What a user line is.
#[derive(Debug, PartialEq, Eq)]
pub enum UserLine {
    /// Something the user typed.
    Prompt(String),
    /// `/name args` or `!command`.
    Command { name: String, args: String },
    /// Output of a local command.
    Output(String),
    /// Tool results, meta lines, interruptions: not shown as prompts.
    Other,
}

/// Classify the text of a user line (not meta, not a tool result).
pub fn classify_user_text(text: &str) -> UserLine {
    let t = text.trim_start();
    if t.starts_with("[Request interrupted") {
        return UserLine::Other;
    }
    // Claude Code's own lines start with its tags; a prompt (pasted logs
    // of megabytes among them) is only searched for context blocks.
    if let Some(line) = t.starts_with('<').then(|| tagged(t)).flatten() {
        return line;
    }
    let stripped = strip_context(t);
    let stripped = stripped.trim();
    if stripped.is_empty() {
        UserLine::Other
    } else {
        UserLine::Prompt(stripped.to_string())
    }
}

/// What a text that starts with `<` is when the tag there is one of
/// Claude Code's; None for the user's own text.
fn tagged(t: &str) -> Option<UserLine> {
    let is_command = ["command-name", "command-message", "command-args"]
        .iter()
        .any(|tag| starts_with_tag(t, tag));
    if let Some(name) = is_command.then(|| tag_body(t, "command-name")).flatten() {
        let args = tag_body(t, "command-args").unwrap_or("").trim().to_string();
        return Some(UserLine::Command {
            name: name.trim().to_string(),
            args,
        });
    }
    if let Some(cmd) = (starts_with_tag(t, "bash-input"))
        .then(|| tag_body(t, "bash-input"))
        .flatten()
    {
        return Some(UserLine::Command {
            name: "!".to_string(),
            args: cmd.trim().to_string(),
        });
    }
    for tag in [
        "local-command-stdout",
        "bash-stdout",
        "local-command-stderr",
        "bash-stderr",
    ] {
        let opens = (t.strip_prefix('<').and_then(|r| r.strip_prefix(tag)))
            .is_some_and(|r| r.starts_with('>'));
        if opens {
            let body = tag_body(t, tag).unwrap_or("").trim();
            return Some(if body.is_empty() {
                UserLine::Other
            } else {
                UserLine::Output(body.to_string())
            });
        }
    }
    (COMMAND_TAGS.iter().any(|tag| starts_with_tag(t, tag))).then_some(UserLine::Other)
}

fn starts_with_tag(t: &str, tag: &str) -> bool {
    t.strip_prefix('<')
        .and_then(|r| r.strip_prefix(tag))
        .is_some_and(|r| r.starts_with('>') || r.starts_with(' '))
}

/// The text between `<tag>` and `</tag>`, if both are present.
fn tag_body<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(&text[start..end])
}

/// Remove IDE and hook context blocks from a prompt: copied only when it
/// holds one.
fn strip_context(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    if memchr::memchr(b'<', text.as_bytes()).is_none() {
        return out;
    }
    for (open, close) in CONTEXT_MARKS {
        while let Some(s) = out.find(open) {
            match out[s..].find(close) {
                Some(e) => out.to_mut().replace_range(s..s + e + close.len(), ""),
                None => break,
            }
        }
    }
    out
}

/// What a conversation holds beside its turns: the setup it used, the
/// instructions it was given, what happened while the user was away, the
/// backups Claude Code kept of the files it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Aside {
    /// `/command`, `agent:<type>`, `skill:<name>`.
    pub uses: SmallSet<Text>,
    /// Instruction files Claude Code read for it (`CLAUDE.md`, rules), by
    /// path: the last content seen, cut after [`INSTRUCTION_CHARS`].
    pub instructions: BTreeMap<Text, Text>,
    /// The last `away_summary`: what happened while the user was away.
    pub away: Option<Text>,
    /// The backups `file-history-snapshot` lines name, each once.
    pub backups: BTreeSet<crate::knowledge::model::Backup>,
}

/// How much of one instruction file a session keeps.
pub const INSTRUCTION_CHARS: usize = 16_000;

impl Aside {
    pub fn absorb(&mut self, next: Aside) {
        self.uses.extend(next.uses);
        self.instructions.extend(next.instructions);
        if next.away.is_some() {
            self.away = next.away;
        }
        self.backups.extend(next.backups);
    }
}

/// Accumulates one conversation's turns and counts.
///
/// Turns read are held; a piece of a file read in pieces is stowed to the
/// spill as soon as it is read ([`Conversation::stow`]), and a file read
/// on from where the last build stopped starts from the cache's chunks. A
/// later line that changes an earlier turn (a result for its call, more of
/// its response, a summary for its compaction) reads back only the chunk
/// that holds it, so one huge session never has all its turns in memory.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Conversation {
    /// Cached apart from the rest (see `ReaderState::turns_stored`).
    #[serde(skip)]
    pub turns: Turns,
    by_message_id: HashMap<String, usize>,
    /// Compaction markers still waiting for their summary, in order: the
    /// next summary fills the last.
    #[serde(default)]
    open_markers: Vec<usize>,
    pub prompts: u64,
    pub assistant_turns: u64,
    pub usage: Usage,
    /// Tokens by model.
    pub by_model: ModelUsage,
    pub tools: BTreeMap<Text, u64>,
    pub files_touched: SmallSet<Text>,
    #[serde(default)]
    pub setup: Aside,
    /// The start of the first tool results (never shown; searched at weight 0.5).
    pub outputs: Vec<Text>,
    pub models: SmallSet<Text>,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
    /// Usage per message id, kept only while a large file is read in
    /// pieces, so a response split across two pieces is counted once.
    #[serde(skip)]
    usage_by_id: Option<HashMap<String, (Text, Usage)>>,
    /// Compaction summaries this piece found no open marker for: the
    /// previous piece may have it.
    #[serde(skip)]
    orphan_summaries: Vec<usize>,
    /// [`prompt_key`] of the first user text: for a sub-agent, which call
    /// started it.
    pub first_prompt_key: Option<u64>,
    /// Tool calls waiting for their result: id → (turn, block). Cached
    /// with the state: a result often comes after a build read its call.
    pending: HashMap<String, (usize, usize)>,
    /// Results this piece found no call for: the previous piece may have it.
    #[serde(skip)]
    orphan_results: Vec<(String, ToolResult)>,
}

/// A tool call's result, as a session keeps it.
#[derive(Debug, Clone)]
struct ToolResult {
    text: Text,
    bytes: u64,
    error: bool,
}

impl Conversation {
    /// Let go of the lookup tables that only reading needed.
    pub fn settle(&mut self) {
        self.by_message_id = HashMap::new();
        self.pending = HashMap::new();
        self.outputs.shrink_to_fit();
    }

    /// Note a timestamp for the first/last activity.
    pub fn saw_time(&mut self, ts: Option<DateTime<Utc>>) {
        if let Some(t) = ts {
            if self.first.is_none_or(|f| t < f) {
                self.first = Some(t);
            }
            if self.last.is_none_or(|l| t > l) {
                self.last = Some(t);
            }
        }
    }

    /// A `user` line.
    pub fn user(
        &mut self,
        rec: &Record<'_>,
        msg: Message,
        ts: Option<DateTime<Utc>>,
        sc: &mut Scrub,
        spill: &Spill,
    ) {
        if rec.is_compact_summary.is_true() {
            let text = sc.owned(text_of(&msg.content).trim().to_string());
            self.compact_summary(text, ts, spill);
            return;
        }
        if rec.is_meta.is_true() {
            return;
        }
        if self.first_prompt_key.is_none() {
            let text = text_of(&msg.content);
            if !text.trim().is_empty() {
                self.first_prompt_key = Some(prompt_key(&text));
            }
        }
        let text = match &msg.content {
            Content::Text(s) => s.clone(),
            Content::Blocks(blocks) => {
                if blocks
                    .iter()
                    .any(|b| b.kind.as_deref() == Some("tool_result"))
                {
                    for b in blocks {
                        self.tool_result(b, sc, spill);
                    }
                    return;
                }
                text_of(&msg.content)
            }
            Content::None => return,
        };
        self.user_text(&text, ts, sc);
    }

    /// A tool result: kept (cut, redacted) with the call it answers, and
    /// the first few sampled for search.
    fn tool_result(&mut self, b: &RawBlock, sc: &mut Scrub, spill: &Spill) {
        let (Some(id), Some(content)) = (b.tool_use_id.as_deref(), b.content) else {
            return;
        };
        // A large output Claude Code saved to tool-results/<id>.txt comes
        // as a wrapper around its first 2 KB: show those, say the size.
        let text = decoded_for_redaction(content);
        let (text, bytes) = match persisted(&text) {
            Some((preview, size)) => (preview.to_string(), size),
            None => (text, content.bytes().len() as u64),
        };
        let result = ToolResult {
            text: sc.prefix(&text, TOOL_TEXT_CHARS),
            bytes,
            error: b.is_error.is_true(),
        };
        // A sample for search: the start of the result as shown, already
        // redacted (and redacted past the cut).
        if self.outputs.len() < OUTPUT_SAMPLES && !result.text.trim().is_empty() {
            self.outputs.push(result.text.cut(OUTPUT_SAMPLE_CHARS));
        }
        match self.pending.remove(id) {
            Some((turn, block)) => attach(self.turns.get_mut(turn, spill), block, result),
            None => self.orphan_results.push((id.to_string(), result)),
        }
    }

    /// Text a user (or a local command) put into the conversation.
    pub fn user_text(&mut self, text: &str, ts: Option<DateTime<Utc>>, sc: &mut Scrub) {
        match classify_user_text(text) {
            UserLine::Prompt(text) => {
                self.prompts += 1;
                let text = sc.owned(text);
                self.turns.push(Turn::Prompt { ts, text });
            }
            line => self.command_line(line, ts, sc),
        }
    }

    /// A `system` record of a local command: a command or its output, never a prompt.
    pub fn local_command(&mut self, text: &str, ts: Option<DateTime<Utc>>, sc: &mut Scrub) {
        match classify_user_text(text) {
            UserLine::Prompt(_) => {}
            line => self.command_line(line, ts, sc),
        }
    }

    fn command_line(&mut self, line: UserLine, ts: Option<DateTime<Utc>>, sc: &mut Scrub) {
        match line {
            UserLine::Command { name, args } => {
                let name = sc.owned(name);
                if name.starts_with('/') {
                    self.setup.uses.insert(name.clone());
                }
                self.turns.push(Turn::Command {
                    ts,
                    name,
                    args: sc.owned(args),
                })
            }
            UserLine::Output(text) => self.turns.push(Turn::CommandOutput {
                text: sc.owned(text),
            }),
            UserLine::Prompt(_) | UserLine::Other => {}
        }
    }

    /// The blocks of a response the wiki shows, and its tool calls' ids
    /// with their places among them.
    fn blocks(&mut self, raw: Vec<RawBlock>, sc: &mut Scrub) -> (Vec<Block>, Vec<(String, usize)>) {
        let mut blocks = Vec::new();
        let mut calls = Vec::new();
        for b in raw {
            match b.kind.as_deref() {
                Some("text") => {
                    if let Some(t) = b.text.0.filter(|t| !t.trim().is_empty()) {
                        blocks.push(Block::Text(sc.owned(t)));
                    }
                }
                Some("tool_use") | Some("server_tool_use") => {
                    // The arguments are read once, for every use below.
                    let input = b.tool_input();
                    let call = tool_call(&b, input.as_ref(), sc);
                    *self.tools.entry(call.name.clone()).or_insert(0) += 1;
                    if let Some(id) = b.id.0.clone().filter(|i| !i.is_empty()) {
                        calls.push((id, blocks.len()));
                    }
                    if let Some(input) = &input {
                        self.note_setup_use(&call.name, input, sc);
                        for p in [&input.file_path, &input.notebook_path] {
                            if let Some(p) = p.as_deref() {
                                self.files_touched.insert(sc.text(p));
                            }
                        }
                    }
                    blocks.push(Block::Tool(call));
                }
                _ => {}
            }
        }
        (blocks, calls)
    }

    /// A Task with an agent type, a Skill: the setup it used.
    fn note_setup_use(&mut self, tool: &str, input: &ToolInput, sc: &mut Scrub) {
        let used = match tool {
            "Task" | "Agent" => input.subagent_type.as_deref().map(|t| format!("agent:{t}")),
            "Skill" => input.skill.as_deref().map(|s| format!("skill:{s}")),
            _ => None,
        };
        if let Some(u) = used.filter(|u| !u.ends_with(':')) {
            self.setup.uses.insert(sc.text(&u));
        }
    }

    /// An `attachment` line: the instruction files Claude Code read
    /// (`nested_memory`); the rest are reminders the wiki leaves out.
    pub fn attachment(&mut self, raw: Raw<'_>, sc: &mut Scrub) {
        #[derive(serde::Deserialize)]
        struct Attachment {
            #[serde(rename = "type")]
            kind: Option<String>,
            path: Option<String>,
            content: Option<NestedContent>,
        }
        #[derive(serde::Deserialize)]
        struct NestedContent {
            content: Option<String>,
        }
        let Ok(a) = serde_json::from_str::<Attachment>(&raw.text()) else {
            return;
        };
        if a.kind.as_deref() != Some("nested_memory") {
            return;
        }
        if let (Some(path), Some(text)) = (a.path, a.content.and_then(|c| c.content)) {
            let path = sc.text(&path);
            let text = sc.prefix(&text, INSTRUCTION_CHARS);
            self.setup.instructions.insert(path, text);
        }
    }

    /// A `file-history-snapshot` line: the backups it names.
    pub fn snapshot(&mut self, raw: Raw<'_>, sc: &mut Scrub) {
        for t in crate::source::record::tracked_backups(raw) {
            self.setup.backups.insert(crate::knowledge::model::Backup {
                path: sc.text(&t.path),
                version: t.version,
                at: super::transcript::parse_ts(t.time.as_deref()),
                kept: t.backup.is_some(),
            });
        }
    }

    /// An `assistant` line: one block of a response, or all of it.
    pub fn assistant(
        &mut self,
        msg: Message,
        ts: Option<DateTime<Utc>>,
        sc: &mut Scrub,
        spill: &Spill,
    ) {
        let model = msg
            .model
            .0
            .filter(|m| !m.is_empty() && m != "<synthetic>")
            .map(|m| sc.owned(m));
        if let Some(m) = &model {
            if !self.models.contains(m) {
                self.models.insert(m.clone());
            }
        }
        let blocks = match msg.content {
            Content::Blocks(b) => b,
            Content::Text(t) => vec![RawBlock {
                kind: crate::source::jsonl::Loose(Some("text".into())),
                text: crate::source::jsonl::Loose(Some(t)),
                ..RawBlock::default()
            }],
            Content::None => Vec::new(),
        };
        let (new_blocks, calls) = self.blocks(blocks, sc);
        // Lines of one response share message.id: merge them, count usage once.
        let id = msg.id.0.filter(|s| !s.is_empty());
        if let Some(&idx) = id.as_ref().and_then(|id| self.by_message_id.get(id)) {
            if let Some(Turn::Assistant { blocks, .. }) = self.turns.get_mut(idx, spill) {
                let offset = blocks.len();
                blocks.extend(new_blocks);
                for (call, j) in calls {
                    self.pending.insert(call, (idx, offset + j));
                }
            }
            return;
        }
        for (call, j) in calls {
            self.pending.insert(call, (self.turns.len(), j));
        }
        self.assistant_turns += 1;
        let usage = msg.usage.value.as_ref().map(usage_of);
        let model_key = model.clone().unwrap_or_else(|| sc.owned(String::new()));
        if let Some(u) = &usage {
            self.usage.add(u);
            self.by_model.entry_or_default(model_key.clone()).add(u);
        }
        if let Some(id) = id {
            if let (Some(map), Some(u)) = (self.usage_by_id.as_mut(), usage) {
                map.insert(id.clone(), (model_key, u));
            }
            self.by_message_id.insert(id, self.turns.len());
        }
        self.turns.push(Turn::Assistant {
            ts,
            model,
            blocks: new_blocks,
        });
    }

    /// A compaction boundary.
    pub fn compaction(&mut self, kind: CompactKind, ts: Option<DateTime<Utc>>) {
        self.open_markers.push(self.turns.len());
        self.turns.push(Turn::Compaction {
            ts,
            kind,
            summary: None,
        });
    }

    /// The summary written after a compaction: fills the last open marker.
    fn compact_summary(&mut self, text: Text, ts: Option<DateTime<Utc>>, spill: &Spill) {
        if let Some(open) = self.open_markers.pop() {
            if let Some(Turn::Compaction { summary, .. }) = self.turns.get_mut(open, spill) {
                *summary = Some(text);
            }
            return;
        }
        self.orphan_summaries.push(self.turns.len());
        self.turns.push(Turn::Compaction {
            ts,
            kind: CompactKind::Full,
            summary: Some(text),
        });
    }

    /// A conversation for one piece of a large file read in pieces.
    pub fn for_piece() -> Conversation {
        Conversation {
            usage_by_id: Some(HashMap::new()),
            ..Conversation::default()
        }
    }

    /// Append the conversation read from the next piece of the same file,
    /// as if it had been read in one go: a response split across the two
    /// pieces becomes one turn counted once, and a compaction summary fills
    /// this piece's open marker. Stored turns are read back (through
    /// `spill`) only where something changes them.
    pub fn absorb(&mut self, mut next: Conversation, spill: &Spill) {
        let moved = self.fill_markers(&mut next, spill);
        let placed = self.follow(&mut next, &moved, spill);
        self.pair_across(next.orphan_results, next.pending, &placed, spill);
        if self.first_prompt_key.is_none() {
            self.first_prompt_key = next.first_prompt_key;
        }
        self.prompts += next.prompts;
        self.assistant_turns += next.assistant_turns;
        self.usage.add(&next.usage);
        crate::knowledge::model::add_usage(&mut self.by_model, &next.by_model);
        for (k, v) in next.tools {
            *self.tools.entry(k).or_insert(0) += v;
        }
        self.files_touched.extend(next.files_touched);
        self.setup.absorb(next.setup);
        let room = OUTPUT_SAMPLES.saturating_sub(self.outputs.len());
        self.outputs.extend(next.outputs.into_iter().take(room));
        self.models.extend(next.models);
        self.first = crate::knowledge::model::min_opt(self.first, next.first);
        self.last = crate::knowledge::model::max_opt(self.last, next.last);
        if let (Some(mine), Some(theirs)) = (self.usage_by_id.as_mut(), next.usage_by_id) {
            mine.extend(theirs);
        }
    }

    /// Fill this piece's open compaction markers with the summaries `next`
    /// found no marker for; which of next's turns moved so.
    fn fill_markers(&mut self, next: &mut Conversation, spill: &Spill) -> Vec<bool> {
        let mut moved = vec![false; next.turns.len()];
        for &i in &next.orphan_summaries {
            let Some(&open) = self.open_markers.last() else {
                break;
            };
            let Some(Turn::Compaction { summary, .. }) = next.turns.get_mut(i, spill) else {
                continue;
            };
            let text = summary.take();
            if let Some(Turn::Compaction { summary: slot, .. }) = self.turns.get_mut(open, spill) {
                *slot = text;
            }
            self.open_markers.pop();
            moved[i] = true;
        }
        moved
    }

    /// Put next's turns after these but those `moved`, a response that
    /// continues one of these merged into it (and its usage taken off
    /// next's, counted here already); where each went: (turn, offset of
    /// its blocks), `usize::MAX` for none.
    fn follow(
        &mut self,
        next: &mut Conversation,
        moved: &[bool],
        spill: &Spill,
    ) -> Vec<(usize, usize)> {
        let mut continues: HashMap<usize, (String, usize)> = HashMap::new();
        for (id, &i) in &next.by_message_id {
            if let Some(&mine) = self.by_message_id.get(id) {
                continues.insert(i, (id.clone(), mine));
            }
        }
        let mut placed = vec![(usize::MAX, 0); next.turns.len()];
        let mut start = 0;
        for piece in std::mem::take(&mut next.turns).into_pieces() {
            let range = start..start + piece.len();
            start = range.end;
            if !range
                .clone()
                .any(|i| moved[i] || continues.contains_key(&i))
            {
                // The common case, a chunk as it is, not read back.
                let to = self.turns.len();
                for (k, i) in range.enumerate() {
                    placed[i] = (to + k, 0);
                }
                self.turns.append(piece);
                continue;
            }
            let turns = match piece.into_vec(spill) {
                Ok(turns) => turns,
                Err(e) => {
                    spill.unreadable(&e);
                    continue;
                }
            };
            for (i, turn) in range.zip(turns) {
                if moved[i] {
                    continue;
                }
                let Some((id, mine)) = continues.get(&i) else {
                    placed[i] = (self.turns.len(), 0);
                    self.turns.push(turn);
                    continue;
                };
                if let (
                    Some(Turn::Assistant { blocks, .. }),
                    Turn::Assistant { blocks: more, .. },
                ) = (self.turns.get_mut(*mine, spill), turn)
                {
                    placed[i] = (*mine, blocks.len());
                    blocks.extend(more);
                }
                next.assistant_turns = next.assistant_turns.saturating_sub(1);
                if let Some((model, u)) = next.usage_by_id.as_ref().and_then(|m| m.get(id)) {
                    next.usage.sub(u);
                    if let Some(m) = next.by_model.get_mut(model) {
                        m.sub(u);
                    }
                }
            }
        }
        for (id, i) in std::mem::take(&mut next.by_message_id) {
            if !continues.contains_key(&i) {
                if let Some(&(to, _)) = placed.get(i).filter(|p| p.0 != usize::MAX) {
                    self.by_message_id.insert(id, to);
                }
            }
        }
        self.open_markers.extend(
            next.open_markers
                .iter()
                .filter_map(|&i| placed.get(i).map(|p| p.0).filter(|&p| p != usize::MAX)),
        );
        placed
    }

    /// Results of the next piece that answer this piece's calls, and the
    /// next piece's calls still waiting (at the places `placed` says).
    fn pair_across(
        &mut self,
        results: Vec<(String, ToolResult)>,
        pending: HashMap<String, (usize, usize)>,
        placed: &[(usize, usize)],
        spill: &Spill,
    ) {
        for (id, result) in results {
            match self.pending.remove(&id) {
                Some((turn, block)) => attach(self.turns.get_mut(turn, spill), block, result),
                None => self.orphan_results.push((id, result)),
            }
        }
        for (id, (turn, block)) in pending {
            if let Some(&(to, offset)) = placed.get(turn).filter(|p| p.0 != usize::MAX) {
                self.pending.insert(id, (to, offset + block));
            }
        }
    }

    /// Write the held turns to `spill`, keeping where they are.
    pub fn stow(&mut self, spill: &Spill) {
        spill.stow(&mut self.turns);
    }

    /// Drop per-message bookkeeping once the conversation is complete.
    pub fn finish(&mut self) {
        self.by_message_id = HashMap::new();
        self.pending = HashMap::new();
        self.orphan_results = Vec::new();
        self.usage_by_id = None;
        self.orphan_summaries = Vec::new();
        self.open_markers = Vec::new();
    }
}

/// Put `result` on the call at `block` of `turn`.
fn attach(turn: Option<&mut Turn>, block: usize, result: ToolResult) {
    if let Some(Turn::Assistant { blocks, .. }) = turn {
        if let Some(Block::Tool(call)) = blocks.get_mut(block) {
            call.result = Some(result.text);
            call.result_bytes = result.bytes;
            call.error = result.error;
        }
    }
}

/// The start of a tool result, as much as the redactor looks at when the
/// first [`TOOL_TEXT_CHARS`] of it (or of the preview it wraps) are kept.
/// That is nearly always [`SCAN_AHEAD`] characters past the cut and a few
/// more to the end of a word; a word may run on to [`LOOKAHEAD`], so the
/// short decode is checked and the long one made when the short one does
/// not hold the redactor's whole window. (Decoding the long one every
/// time cost about 3 % of a cold build's CPU.)
fn decoded_for_redaction(content: Raw<'_>) -> String {
    const SHORT: usize = TOOL_TEXT_CHARS + SCAN_AHEAD + 400;
    let text = output_prefix(content, SHORT).unwrap_or_default();
    // Shorter than asked for (in bytes, so in characters): all of it.
    let whole = text.len() < SHORT;
    let shown = persisted(&text).map_or(text.as_str(), |(preview, _)| preview);
    if whole || window_within(shown, TOOL_TEXT_CHARS) {
        return text;
    }
    output_prefix(content, TOOL_TEXT_CHARS + LOOKAHEAD + 400).unwrap_or_default()
}

/// The preview and the whole size (bytes) of a result Claude Code saved
/// to a file: `<persisted-output>\nOutput too large (52.8KB). Full output
/// saved to: …\n\nPreview (first 2KB):\n…`.
fn persisted(text: &str) -> Option<(&str, u64)> {
    let rest = text.strip_prefix("<persisted-output>")?;
    let size = rest.split_once("Output too large (")?.1.split_once(')')?.0;
    let (number, unit) = size.split_at(size.find(|c: char| c.is_ascii_alphabetic())?);
    let scale = match unit.trim() {
        "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => return None,
    };
    let bytes = (number.trim().parse::<f64>().ok()? * scale) as u64;
    let preview = rest.split_once("):\n").map_or("", |(_, p)| p);
    Some((
        preview.trim_end_matches("</persisted-output>").trim_end(),
        bytes,
    ))
}

/// A response's usage as the model keeps it.
fn usage_of(u: &crate::source::record::RawUsage) -> Usage {
    Usage {
        input: u.input_tokens.get(),
        output: u.output_tokens.get(),
        cache_read: u.cache_read_input_tokens.get(),
        cache_creation: u.cache_creation_input_tokens.get(),
        cache_write_1h: u
            .cache_creation
            .value
            .as_ref()
            .map_or(0, |c| c.ephemeral_1h_input_tokens.get()),
    }
}

/// All text blocks of a content value, joined by blank lines.
pub fn text_of(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        Content::Blocks(blocks) => {
            let mut out = String::new();
            for b in blocks {
                if b.kind.as_deref() == Some("text") {
                    if let Some(t) = b.text.as_deref() {
                        if !out.is_empty() {
                            out.push_str("\n\n");
                        }
                        out.push_str(t);
                    }
                }
            }
            out
        }
        Content::None => String::new(),
    }
}

/// A tool call as a session keeps it; `args` are its arguments, read once.
fn tool_call(b: &RawBlock, args: Option<&ToolInput>, sc: &mut Scrub) -> ToolCall {
    let name = b.name.as_deref().unwrap_or("tool").to_string();
    let arg = args
        .map(|i| {
            let pick = |fields: &[&crate::source::jsonl::Str]| {
                fields
                    .iter()
                    .find_map(|f| f.as_deref().filter(|s| !s.trim().is_empty()))
                    .unwrap_or("")
                    .to_string()
            };
            match name.as_str() {
                "Bash" | "PowerShell" => pick(&[&i.command]),
                "Grep" => {
                    let p = pick(&[&i.pattern]);
                    match i.path.as_deref() {
                        Some(path) if !path.is_empty() => format!("{p}  in {path}"),
                        _ => p,
                    }
                }
                "Glob" => pick(&[&i.pattern]),
                "WebFetch" => pick(&[&i.url]),
                "WebSearch" => pick(&[&i.query]),
                "Task" | "Agent" => {
                    let d = pick(&[&i.description, &i.prompt]);
                    match i.subagent_type.as_deref() {
                        Some(t) if !t.is_empty() => format!("{d} ({t})"),
                        _ => d,
                    }
                }
                "Skill" => pick(&[&i.skill, &i.command]),
                _ => pick(&[
                    &i.file_path,
                    &i.notebook_path,
                    &i.path,
                    &i.command,
                    &i.pattern,
                    &i.url,
                    &i.query,
                    &i.description,
                ]),
            }
        })
        .unwrap_or_default();
    let edits: Vec<Edit> = b
        .input
        .map(|raw| edits_of(&name, raw, EDIT_CHARS + LOOKAHEAD))
        .unwrap_or_default()
        .into_iter()
        .map(|(old, new)| Edit {
            old: sc.prefix(&old, EDIT_CHARS),
            new: sc.prefix(&new, EDIT_CHARS),
        })
        .collect();
    let skip = if edits.is_empty() { &[][..] } else { EDIT_ARGS };
    let input = b
        .input
        .map(|raw| input_lines(raw, TOOL_TEXT_CHARS + LOOKAHEAD, skip))
        .unwrap_or_default();
    let launches = matches!(name.as_str(), "Task" | "Agent")
        .then_some(args)
        .flatten()
        .and_then(|i| i.prompt.as_deref())
        .map(prompt_key);
    ToolCall {
        name: sc.owned(name),
        arg: sc.one_line(&arg, 160),
        input: sc.prefix(&input, TOOL_TEXT_CHARS),
        result: None,
        result_bytes: 0,
        error: false,
        launches,
        edits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    /// What a tool result shows, from its decoded start, as `tool_result`
    /// makes it.
    fn shown(decoded: &str) -> String {
        let r = crate::knowledge::redact::Redactor::new(&Default::default()).expect("redactor");
        let text = persisted(decoded).map_or(decoded, |(preview, _)| preview);
        Scrub::new(&r).prefix(text, TOOL_TEXT_CHARS).to_string()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The short decode shows what the long one does, whatever the
        /// words (a token of thousands of characters across the cut), the
        /// form (a string, text items) and the wrapper of a saved output.
        #[test]
        fn a_tool_result_decoded_short_shows_what_the_long_decode_shows(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                4 => "[a-z]{1,8}",
                3 => "[ \n\"']",
                1 => "é|日本",
                1 => "eyJ[A-Za-z0-9]{20,1200}\\.eyJ[A-Za-z0-9]{20,1200}\\.[A-Za-z0-9_-]{20,1200}",
            ], 0..400),
            items in 1usize..4,
            wrapped in proptest::bool::ANY,
        ) {
            let mut text: String = pieces.concat();
            if wrapped {
                text = format!("<persisted-output>\nOutput too large (52.8KB). Full output saved to: x\n\nPreview (first 2KB):\n{text}");
            }
            let json = if items == 1 {
                serde_json::to_string(&text).expect("json")
            } else {
                let at = text.char_indices().nth(text.chars().count() / items).map_or(0, |(i, _)| i);
                serde_json::json!([{"type":"text","text":&text[..at]},{"type":"text","text":&text[at..]}]).to_string()
            };
            let raw: Raw = crate::source::skim::from_slice(json.as_bytes()).expect("raw");
            let long = output_prefix(raw, TOOL_TEXT_CHARS + LOOKAHEAD + 400).unwrap_or_default();
            proptest::prop_assert_eq!(shown(&decoded_for_redaction(raw)), shown(&long));
        }
    }

    #[test]
    fn a_saved_output_shows_its_preview_and_its_whole_size() {
        let text = "<persisted-output>\nOutput too large (52.8KB). Full output saved to: /home/u/.claude/projects/-p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\ndiff --git a/x b/x\n+ok\n</persisted-output>";
        assert_eq!(persisted(text), Some(("diff --git a/x b/x\n+ok", 52_800)));
        assert_eq!(persisted("plain output"), None);
        assert_eq!(
            persisted("<persisted-output>\nOutput too large (oops)"),
            None
        );
    }

    /// `classify_user_text` as it was before it looked for tags only where
    /// a text starts with one: every tag searched for in every prompt.
    fn classified_by_every_search(text: &str) -> UserLine {
        let t = text.trim_start();
        if t.starts_with("[Request interrupted") {
            return UserLine::Other;
        }
        let is_command = ["command-name", "command-message", "command-args"]
            .iter()
            .any(|tag| starts_with_tag(t, tag));
        if let Some(name) = tag_body(t, "command-name").filter(|_| is_command) {
            let args = tag_body(t, "command-args").unwrap_or("").trim().to_string();
            return UserLine::Command {
                name: name.trim().to_string(),
                args,
            };
        }
        if let Some(cmd) = tag_body(t, "bash-input").filter(|_| starts_with_tag(t, "bash-input")) {
            return UserLine::Command {
                name: "!".to_string(),
                args: cmd.trim().to_string(),
            };
        }
        for tag in [
            "local-command-stdout",
            "bash-stdout",
            "local-command-stderr",
            "bash-stderr",
        ] {
            if t.starts_with(&format!("<{tag}>")) {
                let body = tag_body(t, tag).unwrap_or("").trim();
                return if body.is_empty() {
                    UserLine::Other
                } else {
                    UserLine::Output(body.to_string())
                };
            }
        }
        if COMMAND_TAGS.iter().any(|tag| starts_with_tag(t, tag)) {
            return UserLine::Other;
        }
        let mut stripped = t.to_string();
        for (open, close) in CONTEXT_MARKS {
            while let Some(s) = stripped.find(open) {
                match stripped[s..].find(close) {
                    Some(e) => stripped.replace_range(s..s + e + close.len(), ""),
                    None => break,
                }
            }
        }
        if stripped.trim().is_empty() {
            UserLine::Other
        } else {
            UserLine::Prompt(stripped.trim().to_string())
        }
    }

    proptest::proptest! {
        /// Any text of tags, text and blanks is classified as when every
        /// tag was searched for in every text.
        #[test]
        fn user_lines_are_classified_as_by_every_search(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(vec![
                    "<command-name>", "</command-name>", "<command-message>",
                    "</command-message>", "<command-args>", "</command-args>",
                    "<command-name ", "<bash-input>", "</bash-input>",
                    "<bash-stdout>", "</bash-stdout>", "<local-command-stdout>",
                    "</local-command-stdout>", "<local-command-stderr>",
                    "<local-command-caveat>", "<task-notification>",
                    "<ide_opened_file>", "</ide_opened_file>", "<ide_selection>",
                    "</ide_selection>", "<system-reminder>", "</system-reminder>",
                    "[Request interrupted", "<div>", "<", ">", "/", " ", "\n", "\t",
                ]).prop_map(str::to_string),
                "[a-z é]{0,6}",
            ], 0..12),
        ) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(classify_user_text(&text), classified_by_every_search(&text));
        }
    }

    #[test]
    fn user_lines() {
        assert_eq!(
            classify_user_text("fix the bug"),
            UserLine::Prompt("fix the bug".into())
        );
        assert_eq!(
            classify_user_text("<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/</command-args>"),
            UserLine::Command { name: "/review".into(), args: "src/".into() }
        );
        assert_eq!(
            classify_user_text("<local-command-stdout>Set model to opus</local-command-stdout>"),
            UserLine::Output("Set model to opus".into())
        );
        assert_eq!(
            classify_user_text("<local-command-stdout></local-command-stdout>"),
            UserLine::Other
        );
        assert_eq!(
            classify_user_text("<local-command-caveat>Caveat: …</local-command-caveat>"),
            UserLine::Other
        );
        assert_eq!(
            classify_user_text("[Request interrupted by user]"),
            UserLine::Other
        );
        assert_eq!(
            classify_user_text("<bash-input>ls -la</bash-input>"),
            UserLine::Command {
                name: "!".into(),
                args: "ls -la".into()
            }
        );
        assert_eq!(
            classify_user_text(
                "<ide_opened_file>The user opened x.rs</ide_opened_file>why is this slow?"
            ),
            UserLine::Prompt("why is this slow?".into())
        );
        assert_eq!(
            classify_user_text("<ide_selection>x</ide_selection>"),
            UserLine::Other
        );
        assert_eq!(
            classify_user_text("<task-notification>done</task-notification>"),
            UserLine::Other
        );
        // Unknown tags are the user's own text.
        assert_eq!(
            classify_user_text("<div>hi</div>"),
            UserLine::Prompt("<div>hi</div>".into())
        );
    }
}
