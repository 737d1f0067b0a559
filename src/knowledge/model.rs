//! The data model the phases hand each other: what was learned from the
//! source, before any page exists. Plain data, no behaviour beyond helpers.

use crate::base::small_set::{SmallMap, SmallSet};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::knowledge::redact::{Text, TextRef};

pub use crate::knowledge::spill::Turns;

/// The `type` of a memory file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MemoryKind {
    /// Who the user is: role, expertise, preferences.
    User,
    /// A workflow rule learned from feedback: shown as a skill.
    Feedback,
    /// Facts about a project: goals, decisions, status.
    Project,
    /// Pointers to external resources.
    Reference,
    /// A `type` ccwiki does not know, kept as written.
    Other(String),
    /// A memory file without frontmatter.
    Untyped,
}

impl MemoryKind {
    /// Parse a frontmatter `type` value.
    pub fn parse(value: &str) -> MemoryKind {
        match value.trim().to_ascii_lowercase().as_str() {
            "user" => MemoryKind::User,
            "feedback" => MemoryKind::Feedback,
            "project" => MemoryKind::Project,
            "reference" => MemoryKind::Reference,
            "" => MemoryKind::Untyped,
            _ => MemoryKind::Other(value.trim().to_string()),
        }
    }

    /// The label shown to readers.
    pub fn label(&self) -> &str {
        match self {
            MemoryKind::User => "user",
            MemoryKind::Feedback => "skill",
            MemoryKind::Project => "project",
            MemoryKind::Reference => "reference",
            MemoryKind::Other(s) => s,
            MemoryKind::Untyped => "note",
        }
    }
}

/// One memory file, after triage. Kept in triage's cache without where it
/// came from: that is set again from the file it is kept for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Memory {
    /// Which source root it came from (index into the roots list).
    #[serde(skip)]
    pub root: usize,
    /// The project folder name under `projects/`.
    pub project_dir: Text,
    /// The file on disk, for messages on the owner's terminal only (never
    /// on a page: it is the unredacted path).
    #[serde(skip)]
    pub file: PathBuf,
    /// The file name without `.md`.
    pub stem: Text,
    /// Frontmatter `name`, else the index title, else the stem.
    pub name: Text,
    /// Frontmatter `description`, else the MEMORY.md hook.
    pub description: Text,
    pub kind: MemoryKind,
    /// The Markdown body after the frontmatter.
    pub body: Text,
    /// The line in MEMORY.md that links to this file, if any.
    pub indexed: bool,
}

/// Token usage of one API response, counted once per `message.id`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    /// Tokens written to the cache (both lifetimes).
    pub cache_creation: u64,
    /// Of `cache_creation`, those kept for an hour (priced higher).
    #[serde(default)]
    pub cache_write_1h: u64,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_creation += other.cache_creation;
        self.cache_write_1h += other.cache_write_1h;
    }

    /// Take away `other` (a response counted twice).
    pub fn sub(&mut self, other: &Usage) {
        self.input = self.input.saturating_sub(other.input);
        self.output = self.output.saturating_sub(other.output);
        self.cache_read = self.cache_read.saturating_sub(other.cache_read);
        self.cache_creation = self.cache_creation.saturating_sub(other.cache_creation);
        self.cache_write_1h = self.cache_write_1h.saturating_sub(other.cache_write_1h);
    }

    /// Every token, read or written.
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_creation
    }
}

/// Usage by model (the model's name; empty when the transcript gives none).
pub type ModelUsage = SmallMap<Text, Usage>;

/// Add every model's usage of `more` to `into`.
pub fn add_usage(into: &mut ModelUsage, more: &ModelUsage) {
    for (model, u) in more.iter() {
        into.entry_or_default(model.clone()).add(u);
    }
}

/// One tool call, reduced to what a reader needs: the name and its main argument.
///
/// Like every part of a turn, generic over how its text is held: owned
/// ([`Text`]), or borrowed from the bytes it was read back from
/// ([`TextRef`], see [`Turn`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall<S = Text> {
    pub name: S,
    /// The argument that says what the call did (a path, a command, a pattern).
    pub arg: S,
    /// Every argument, `name: value` a line, cut after [`TOOL_TEXT_CHARS`].
    pub input: S,
    /// What the call returned, cut after [`TOOL_TEXT_CHARS`]; None when
    /// no result was seen.
    pub result: Option<S>,
    /// The result's whole size in bytes (as written in the transcript).
    pub result_bytes: u64,
    /// The result is an error.
    pub error: bool,
    /// For a call that starts a sub-agent (Task, Agent): the key of the
    /// prompt it gave, which is the sub-agent's first prompt.
    pub launches: Option<u64>,
    /// For a call that changes a file: what it replaced, shown as a diff.
    pub edits: Vec<Edit<S>>,
}

/// One replacement in a file, each side cut after [`EDIT_CHARS`]; `old`
/// is empty for a whole new text (Write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit<S = Text> {
    pub old: S,
    pub new: S,
}

/// A backup Claude Code kept of a file a session changed
/// (`file-history/<session>/<name>`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Backup {
    /// As the snapshot names it: relative to the session's `cwd`, or absolute.
    pub path: Text,
    pub version: u32,
    #[serde(with = "chrono::serde::ts_microseconds_option")]
    pub at: Option<DateTime<Utc>>,
    /// A backup file exists (the file existed before this version).
    pub kept: bool,
}

/// How much of each side of an edit a session keeps.
pub const EDIT_CHARS: usize = 4_000;

/// The key that ties a sub-agent to the call that started it: a hash of
/// the prompt (as written, before redaction) the call gave it.
pub fn prompt_key(prompt: &str) -> u64 {
    crate::base::hash::hash_bytes(prompt.trim().as_bytes())
}

/// How much of a tool call's input and of its result a session keeps:
/// enough to see what happened, bounded for sessions of many calls.
pub const TOOL_TEXT_CHARS: usize = 1_500;

/// A piece of an assistant turn, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Block<S = Text> {
    /// Markdown text the assistant wrote.
    Text(S),
    /// A tool call, shown as one compact line.
    Tool(ToolCall<S>),
}

/// What a compaction marker records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompactKind {
    Full,
    Micro,
}

/// One step of a conversation, as the wiki shows it. Times are encoded as
/// microseconds: turns are encoded and decoded by the million (spill, cache).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Turn<S = Text> {
    /// A real prompt the user typed.
    Prompt {
        #[serde(with = "chrono::serde::ts_microseconds_option")]
        ts: Option<DateTime<Utc>>,
        text: S,
    },
    /// One API response (all lines sharing a `message.id`), blocks in order.
    Assistant {
        #[serde(with = "chrono::serde::ts_microseconds_option")]
        ts: Option<DateTime<Utc>>,
        model: Option<S>,
        blocks: Vec<Block<S>>,
    },
    /// A slash command or `!` shell command the user ran.
    Command {
        #[serde(with = "chrono::serde::ts_microseconds_option")]
        ts: Option<DateTime<Utc>>,
        name: S,
        args: S,
    },
    /// Output of a local command.
    CommandOutput { text: S },
    /// The conversation was compacted; `summary` is what the model kept.
    Compaction {
        #[serde(with = "chrono::serde::ts_microseconds_option")]
        ts: Option<DateTime<Utc>>,
        kind: CompactKind,
        summary: Option<S>,
    },
}

impl Turn {
    /// The turn with its texts lent, as a turn read back in place is.
    pub fn borrowed(&self) -> Turn<TextRef<'_>> {
        fn lend(t: &Option<Text>) -> Option<TextRef<'_>> {
            t.as_ref().map(TextRef::from)
        }
        match self {
            Turn::Prompt { ts, text } => Turn::Prompt {
                ts: *ts,
                text: text.into(),
            },
            Turn::Assistant { ts, model, blocks } => Turn::Assistant {
                ts: *ts,
                model: lend(model),
                blocks: blocks.iter().map(Block::borrowed).collect(),
            },
            Turn::Command { ts, name, args } => Turn::Command {
                ts: *ts,
                name: name.into(),
                args: args.into(),
            },
            Turn::CommandOutput { text } => Turn::CommandOutput { text: text.into() },
            Turn::Compaction { ts, kind, summary } => Turn::Compaction {
                ts: *ts,
                kind: *kind,
                summary: lend(summary),
            },
        }
    }
}

impl Block {
    fn borrowed(&self) -> Block<TextRef<'_>> {
        match self {
            Block::Text(t) => Block::Text(t.into()),
            Block::Tool(c) => Block::Tool(ToolCall {
                name: (&c.name).into(),
                arg: (&c.arg).into(),
                input: (&c.input).into(),
                result: c.result.as_ref().map(TextRef::from),
                result_bytes: c.result_bytes,
                error: c.error,
                launches: c.launches,
                edits: (c.edits.iter())
                    .map(|e| Edit {
                        old: (&e.old).into(),
                        new: (&e.new).into(),
                    })
                    .collect(),
            }),
        }
    }
}

pub use crate::source::discover::{SubagentLayout, SubagentRole};

/// A sub-agent conversation attached to the session that spawned it.
#[derive(Debug, Clone)]
pub struct Subagent {
    pub id: Text,
    pub layout: SubagentLayout,
    pub role: SubagentRole,
    /// `agentType` from `.meta.json`, when there is one.
    pub agent_type: Option<Text>,
    /// `description` from `.meta.json`, when there is one.
    pub description: Option<Text>,
    pub turns: Turns,
    pub assistant_turns: u64,
    pub started: Option<DateTime<Utc>>,
    /// [`prompt_key`] of its first prompt: which call started it.
    pub prompt_key: Option<u64>,
    /// Its tokens, by model (counted with its session's too).
    pub usage_by_model: ModelUsage,
    /// The commands, agents and skills it used (counted as its session's).
    pub uses: SmallSet<Text>,
}

/// Titles a session may carry; [`Session::title`] picks among them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Titles {
    pub custom: Option<Text>,
    pub ai: Option<Text>,
    pub summary: Option<Text>,
    pub first_prompt: Option<Text>,
    /// The start of the first answer (else the first command run), when no
    /// prompt says anything.
    #[serde(skip)]
    pub first_answer: Option<Text>,
    /// The first paragraph of the last answer: where the session ended.
    #[serde(default)]
    pub last_answer: Option<Text>,
}

/// One conversation, with everything the wiki shows of it.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub id: Text,
    pub root: usize,
    /// The project folder the file was found in (lossy; `cwd` is the truth).
    pub project_dir: Text,
    /// The first `cwd` seen: the project's identity.
    pub cwd: Option<Text>,
    pub started: Option<DateTime<Utc>>,
    pub ended: Option<DateTime<Utc>>,
    pub titles: Titles,
    pub models: SmallSet<Text>,
    pub branches: SmallSet<Text>,
    pub versions: SmallSet<Text>,
    pub entrypoint: Option<Text>,
    pub turns: Turns,
    pub subagents: Vec<Subagent>,
    pub prompts: u64,
    pub assistant_turns: u64,
    pub usage: Usage,
    /// Tokens by model, its sub-agents' included.
    pub usage_by_model: ModelUsage,
    /// What its tool calls left.
    pub work: SessionWork,
    /// What of the user's setup it used, the instructions it was given,
    /// what happened while the user was away, the backups of its files.
    pub setup: SessionAside,
}

impl Session {
    /// The title the wiki shows: a given title (custom, AI, summary), else
    /// the first prompt line that says something, else what a sub-agent
    /// was asked to do, else the first sentence of the first answer, else
    /// any prompt text; the id only when the session holds no text at all.
    pub fn title(&self) -> String {
        let t = &self.titles;
        if let Some(given) = t
            .custom
            .as_deref()
            .or(t.ai.as_deref())
            .or(t.summary.as_deref())
        {
            return one_line(given, 120);
        }
        let prompt = t.first_prompt.as_deref();
        // A prompt or an answer makes a long title: keep its first words.
        if let Some(line) = prompt.and_then(crate::base::text::title_line) {
            return one_line(&line, 72);
        }
        if let Some(d) = self.subagents.iter().find_map(|a| a.description.as_deref()) {
            return one_line(d, 72);
        }
        let answer = t.first_answer.as_deref();
        if let Some(line) = answer.and_then(crate::base::text::title_line) {
            return one_line(first_sentence(&line), 72);
        }
        // A prompt or a command that is nothing but a command.
        match prompt.or(answer).filter(|p| !p.trim().is_empty()) {
            Some(p) => one_line(p, 72),
            None => format!("Session {}", short_id(&self.id)),
        }
    }
}

/// A session's [`Aside`](crate::knowledge::extract::Aside), boxed only
/// when it holds something: most sessions use no setup and leave no
/// backups, and a hundred thousand empty ones held inline took 9 MB.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionAside(Option<Box<crate::knowledge::extract::Aside>>);

impl SessionAside {
    /// Add what a later part of the session holds.
    pub fn absorb(&mut self, next: crate::knowledge::extract::Aside) {
        if next != Default::default() {
            self.0.get_or_insert_default().absorb(next);
        }
    }
}

impl std::ops::Deref for SessionAside {
    type Target = crate::knowledge::extract::Aside;
    fn deref(&self) -> &Self::Target {
        static EMPTY: std::sync::LazyLock<crate::knowledge::extract::Aside> =
            std::sync::LazyLock::new(Default::default);
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

/// What a session's tool calls left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Work {
    /// Each tool by how often it was called.
    pub tools: BTreeMap<Text, u64>,
    pub files_touched: SmallSet<Text>,
    /// The start of some tool results: searched, never shown.
    pub tool_outputs: Vec<Text>,
}

/// A session's [`Work`], boxed only when it holds something: a session
/// with no tool call (a question answered, a prompt from a script) holds
/// a pointer, where three empty collections inline took 72 bytes (7 MB
/// of a hundred thousand tiny sessions, held from extraction to the end).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionWork(Option<Box<Work>>);

impl SessionWork {
    /// Add the tools, files and outputs of a later part of the session.
    pub fn absorb(
        &mut self,
        tools: BTreeMap<Text, u64>,
        files: SmallSet<Text>,
        outputs: Vec<Text>,
    ) {
        if tools.is_empty() && files.is_empty() && outputs.is_empty() {
            return;
        }
        let work = self.0.get_or_insert_default();
        for (k, v) in tools {
            *work.tools.entry(k).or_insert(0) += v;
        }
        work.files_touched.extend(files);
        work.tool_outputs.extend(outputs);
    }

    /// Let go of the room the outputs' list has beyond them.
    pub fn shrink_to_fit(&mut self) {
        if let Some(work) = self.0.as_mut() {
            work.tool_outputs.shrink_to_fit();
        }
    }
}

impl std::ops::Deref for SessionWork {
    type Target = Work;
    fn deref(&self) -> &Work {
        static EMPTY: std::sync::LazyLock<Work> = std::sync::LazyLock::new(Default::default);
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

/// One line of `history.jsonl`: a prompt typed in some project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub ts: DateTime<Utc>,
    pub display: Text,
    pub project: Option<Text>,
    pub session_id: Option<Text>,
}

/// One `sessions/<pid>.json`: when and how a session started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStart {
    pub session_id: Text,
    pub started: Option<DateTime<Utc>>,
    pub cwd: Option<Text>,
    pub entrypoint: Option<Text>,
    pub kind: Option<Text>,
}

pub use crate::base::text::{max_opt, min_opt, one_line, short_id};

/// Up to the end of the first sentence.
fn first_sentence(text: &str) -> &str {
    let end = text
        .match_indices(['.', '?', '!'])
        .map(|(i, _)| i + 1)
        .find(|&i| text[i..].starts_with(' ') || i == text.len());
    &text[..end.unwrap_or(text.len())]
}

/// Everything read from the sources, redacted: what the site is made of.
#[derive(Debug, Default)]
pub struct Knowledge {
    pub memories: Vec<Memory>,
    pub sessions: Vec<Session>,
    pub history: Vec<HistoryEntry>,
    pub starts: Vec<SessionStart>,
    /// The user's setup: instructions, agents, commands, skills, settings.
    pub setup: crate::knowledge::setup::Setup,
    /// The user's own prices (`[prices]`), by model name prefix.
    pub prices: Vec<(String, crate::config::Price)>,
    /// Where the sessions' turns are.
    pub spill: crate::knowledge::spill::Spill,
    /// Large files' turns still being copied into the cache: waited for
    /// when the build is done with the model (or when it is dropped).
    pub copies: crate::knowledge::spill::Copies,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(prompt: Option<&str>, answer: Option<&str>, agent: Option<&str>) -> Session {
        Session {
            id: Text::test("0123456789abcdef"),
            titles: Titles {
                first_prompt: prompt.map(Text::test),
                first_answer: answer.map(Text::test),
                ..Titles::default()
            },
            subagents: agent
                .map(|d| Subagent {
                    id: Text::test("a1"),
                    layout: SubagentLayout::Nested,
                    role: SubagentRole::Task,
                    agent_type: None,
                    description: Some(Text::test(d)),
                    turns: Turns::default(),
                    assistant_turns: 0,
                    started: None,
                    prompt_key: None,
                    usage_by_model: ModelUsage::new(),
                    uses: SmallSet::new(),
                })
                .into_iter()
                .collect(),
            ..Session::default()
        }
    }

    #[test]
    fn a_title_is_never_a_bare_id_when_there_is_text() {
        let answer = Some("I looked at the parser. It reads lines. More here");
        assert_eq!(
            with(Some("## Fix the `parser`"), answer, None).title(),
            "Fix the parser"
        );
        // A prompt that is only a command: the sub-agent's task, else the
        // first sentence of the answer.
        assert_eq!(
            with(Some("/init"), answer, Some("Audit the cache")).title(),
            "Audit the cache"
        );
        assert_eq!(
            with(Some("/init"), answer, None).title(),
            "I looked at the parser."
        );
        assert_eq!(
            with(None, None, Some("Audit the cache")).title(),
            "Audit the cache"
        );
        // A session that only ran a command is named after it.
        assert_eq!(with(None, Some("/context"), None).title(), "/context");
        // Only a command and nothing else: the command, not the id.
        assert_eq!(with(Some("/init"), None, None).title(), "/init");
        assert_eq!(with(None, None, None).title(), "Session 01234567");
        let given = Session {
            titles: Titles {
                custom: Some(Text::test("Named by the user")),
                ..Titles::default()
            },
            ..with(Some("a prompt"), None, None)
        };
        assert_eq!(given.title(), "Named by the user");
    }
}
