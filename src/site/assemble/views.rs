//! The lean view structs templates receive: only what a page shows, mostly
//! borrowed from the model. `docs/themes.md` documents each field.

pub use super::format::ClockText;
use crate::knowledge::model::Session;
use serde::Serialize;
use std::sync::Arc;

/// A link to another page: `href` is relative to the site root; templates
/// prefix it with `root` so every link is relative. Its texts are shared:
/// a session's or a project's link appears on many pages (a hundred
/// thousand sessions' links, copied into every list and day that shows
/// them, took tens of megabytes).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Link {
    pub title: Arc<str>,
    pub href: Arc<str>,
}

/// Totals shown on the home page and in the footer of lists.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    pub projects: usize,
    pub sessions: usize,
    pub memories: usize,
    pub skills: usize,
    pub references: usize,
    pub prompts: u64,
    pub first_day: Option<String>,
    pub last_day: Option<String>,
}

/// Sessions in one month, for the activity chart.
#[derive(Debug, Clone, Serialize)]
pub struct MonthBar {
    pub month: String,
    pub sessions: usize,
    /// 0–100, relative to the busiest month.
    pub percent: u32,
    pub href: String,
}

/// A month of the timeline, in its navigation.
#[derive(Debug, Clone, Serialize)]
pub struct MonthLink {
    pub month: String,
    pub href: String,
}

/// One project in a list.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectCard {
    pub title: String,
    pub href: String,
    pub path: String,
    pub sessions: usize,
    pub memories: usize,
    pub last_active: Option<String>,
}

/// One memory in a list.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryCard<'m> {
    pub title: &'m str,
    pub href: String,
    pub description: &'m str,
    pub kind: &'m str,
    pub project: Option<Arc<Link>>,
}

/// A list of memories for a partial (`partials/memory_cards.html`,
/// `partials/memory_facts.html`): as views, or the HTML the built-in
/// partial makes of them, written without a template when the built-in
/// templates show them (`output::cards`): the template walking ten
/// thousand cards was most of a project page's time, and the page is made
/// again whenever one of its memories changes.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Apart<T> {
    Views(Arc<[T]>),
    Html(String),
}

/// Memory cards, for `partials/memory_cards.html`.
pub type Cards<'m> = Apart<MemoryCard<'m>>;

/// Memories in full, for `partials/memory_facts.html`.
pub type Facts<'m> = Apart<MemoryBody<'m>>;

// By hand: derived, it would ask for `T: Clone`, which the shared list
// does not need.
impl<T> Clone for Apart<T> {
    fn clone(&self) -> Self {
        match self {
            Apart::Views(v) => Apart::Views(v.clone()),
            Apart::Html(h) => Apart::Html(h.clone()),
        }
    }
}

impl<T> From<Vec<T>> for Apart<T> {
    fn from(list: Vec<T>) -> Apart<T> {
        Apart::Views(list.into())
    }
}

impl<T> Default for Apart<T> {
    fn default() -> Self {
        Apart::Views(Arc::new([]))
    }
}

impl<T> Apart<T> {
    /// Nothing in it (as views; written ones always say something).
    pub fn is_empty(&self) -> bool {
        matches!(self, Apart::Views(v) if v.is_empty())
    }
}

/// One session in a list. What it shows besides its title and page (its
/// date, duration, prompts, project, digest) is made from its session when
/// it is shown: a hundred thousand rows held them, 11 MB at the peak of
/// a rebuild.
#[derive(Debug, Clone)]
pub struct SessionRow<'m> {
    pub title: Arc<str>,
    pub href: Arc<str>,
    pub session: &'m Session,
    pub project: Option<Arc<Link>>,
    /// What it was about beyond its title (a summary, where it ended),
    /// cut to a line when shown.
    pub about: Option<&'m str>,
}

/// How long a session's digest line is in a list.
const DIGEST_CHARS: usize = 160;

impl SessionRow<'_> {
    /// The line [`SessionRow::about`] shows, if it says anything.
    fn digest(&self) -> Option<String> {
        let line = crate::base::text::one_line(self.about?, DIGEST_CHARS);
        (!line.is_empty()).then_some(line)
    }
}

impl Serialize for SessionRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let session = self.session;
        let mut row = s.serialize_struct("SessionRow", 7)?;
        row.serialize_field("title", &self.title)?;
        row.serialize_field("href", &self.href)?;
        row.serialize_field("date", &super::format::date_time(session.started))?;
        row.serialize_field("project", &self.project)?;
        row.serialize_field("prompts", &session.prompts)?;
        let duration = super::format::duration(session.started, session.ended);
        row.serialize_field("duration", &duration)?;
        row.serialize_field("digest", &self.digest())?;
        row.end()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct HomeView<'m> {
    pub totals: Totals,
    pub projects: Vec<ProjectCard>,
    pub knowledge: Cards<'m>,
    pub recent: Vec<Arc<SessionRow<'m>>>,
    pub activity: Vec<MonthBar>,
    pub about: Vec<MemoryCard<'m>>,
}

/// A memory shown in full.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryBody<'m> {
    pub title: &'m str,
    pub href: String,
    pub description: &'m str,
    pub kind: &'m str,
    /// Markdown, internal links as `@/path`.
    pub body: String,
}

#[derive(Debug, Serialize)]
pub struct AboutView<'m> {
    pub memories: Vec<MemoryBody<'m>>,
}

/// Memories of one kind on a project page.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryGroup<'m> {
    pub kind: &'static str,
    pub label: &'static str,
    pub memories: Cards<'m>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProjectView<'m> {
    pub name: String,
    pub path: String,
    pub first_active: Option<String>,
    pub last_active: Option<String>,
    pub branches: Vec<&'m str>,
    pub models: Vec<&'m str>,
    /// `type: project` memories, in full.
    pub facts: Facts<'m>,
    /// Other memories, grouped by kind.
    pub knowledge: Vec<MemoryGroup<'m>>,
    /// The most recent sessions, at most a list page of them.
    pub sessions: Vec<Arc<SessionRow<'m>>>,
    /// All of the project's sessions.
    pub session_count: usize,
    /// Prompts known only from `history.jsonl`, newest first.
    pub history: Vec<HistoryRow>,
    pub tools: Vec<ToolCount>,
    pub files_touched: usize,
    /// The files its sessions changed, most changed first.
    pub files: Vec<FileRow>,
    pub prompts: u64,
    /// Estimated cost of its sessions' tokens (`$1.23`).
    pub cost: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct MemoryView<'m> {
    pub name: &'m str,
    pub description: &'m str,
    pub kind: &'m str,
    pub project: Option<Arc<Link>>,
    /// For skills: the rule, then Why and How to apply, when the body has them.
    pub rule: Option<String>,
    pub why: Option<String>,
    pub how: Option<String>,
    /// The whole body (Markdown) when it does not split that way.
    pub body: String,
    pub backlinks: Vec<Link>,
    pub source: String,
}

/// One piece of an assistant turn.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockView<'m> {
    Text {
        text: &'m str,
    },
    Tool {
        name: &'m str,
        arg: &'m str,
        /// Every argument, `name: value` a line (cut).
        input: &'m str,
        result: Option<&'m str>,
        /// The result's whole size ("48.2 KB") when only its start is shown.
        cut: Option<String>,
        error: bool,
        /// The key of the sub-agent this call started (see `agent_href`).
        #[serde(skip)]
        launches: Option<u64>,
        /// Where the sub-agent it started is (from the site's root).
        agent_href: Option<String>,
        /// The call's own anchor (`task-N`), which that sub-agent links back to.
        anchor: Option<String>,
        /// For a call that changes a file: its diff, as HTML (a `<span>`
        /// a line, its class the line's kind); empty for other calls.
        diff: String,
    },
}

/// One step of a conversation.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnView<'m> {
    Prompt {
        time: Option<ClockText>,
        text: &'m str,
        anchor: String,
    },
    Assistant {
        time: Option<ClockText>,
        model: Option<&'m str>,
        blocks: Vec<BlockView<'m>>,
        anchor: String,
        /// True when the previous turn was also the assistant's (tool calls in a row).
        continued: bool,
    },
    Command {
        time: Option<ClockText>,
        name: &'m str,
        args: &'m str,
    },
    Output {
        text: &'m str,
    },
    Compaction {
        time: Option<ClockText>,
        micro: bool,
        summary: Option<&'m str>,
    },
}

/// A conversation's turns as a session page's template gets them: their
/// views, or the HTML the built-in `partials/turns.html` makes of them,
/// written without a template when the built-in templates show them
/// (`output::turns`): a page is mostly its turns, and a template walking
/// them took a third of rendering.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Turns<'m> {
    Views(Vec<TurnView<'m>>),
    Html(String),
}

#[derive(Debug, Serialize)]
pub struct SubagentView<'m> {
    /// 1-based, across all pages: the `agent-N` anchor.
    pub number: usize,
    pub id: &'m str,
    pub role: &'static str,
    pub layout: &'static str,
    pub agent_type: Option<&'m str>,
    pub description: Option<&'m str>,
    pub assistant_turns: u64,
    pub turns: Turns<'m>,
    /// The call that started it (from the site's root), when known.
    pub called_from: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SessionView<'m> {
    pub title: String,
    pub id: &'m str,
    pub project: Option<Arc<Link>>,
    pub date: Option<String>,
    pub duration: Option<String>,
    pub models: Vec<&'m str>,
    pub branches: Vec<&'m str>,
    pub versions: Vec<&'m str>,
    pub entrypoint: Option<&'m str>,
    pub prompts: u64,
    pub assistant_turns: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Estimated cost of its tokens and its sub-agents' (`$1.23`).
    pub cost: Option<String>,
    /// What the session was about, when a summary says more than the title.
    pub summary: Option<&'m str>,
    /// The first paragraph of its last answer: where it ended.
    pub outcome: Option<&'m str>,
    /// What happened while the user was away (`away_summary`).
    pub away: Option<&'m str>,
    /// What `/insights` made of it.
    pub facet: Option<FacetView<'m>>,
    /// The agents, commands, skills and instruction files it used.
    pub setup: Vec<Link>,
    pub tools: Vec<ToolCount>,
    pub turns: Turns<'m>,
    pub subagents: Vec<SubagentView<'m>>,
    /// This page's number (1-based) and the session's page count. Not
    /// `page`: every template's context has `page` (title, section, path),
    /// which would hide it.
    pub page_number: usize,
    pub pages: usize,
    pub prev: Option<Link>,
    pub next: Option<Link>,
}

/// One timeline entry.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineEntry<'m> {
    /// Shown as its clock time (`14:05`), made when the page is.
    #[serde(rename = "time", serialize_with = "clock_time")]
    pub ts: chrono::DateTime<chrono::Utc>,
    pub kind: EntryKind,
    pub text: Arc<str>,
    pub project: Option<Arc<Link>>,
    /// Its session's row, shown as a link to it.
    #[serde(serialize_with = "row_link")]
    pub session: Option<Arc<SessionRow<'m>>>,
    /// Its place among the entries as they were found: the last word
    /// between entries of the same time and text.
    #[serde(skip)]
    pub seq: u32,
}

/// A session's row as a [`Link`] to its page.
fn row_link<S: serde::Serializer>(
    row: &Option<Arc<SessionRow<'_>>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let link = row.as_ref().map(|row| Link {
        title: row.title.clone(),
        href: row.href.clone(),
    });
    link.serialize(s)
}

/// What a timeline entry marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A prompt from the history.
    Prompt,
    /// A session began.
    Start,
}

impl TimelineEntry<'_> {
    /// Its clock time as shown (`14:05`), appended to `out`.
    pub fn push_time(&self, out: &mut String) {
        out.push_str(super::format::clock_text(&self.ts).as_str());
    }
}

impl EntryKind {
    /// Its name, as it is serialised.
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Prompt => "prompt",
            EntryKind::Start => "start",
        }
    }
}

fn clock_time<S: serde::Serializer>(
    ts: &chrono::DateTime<chrono::Utc>,
    s: S,
) -> Result<S::Ok, S::Error> {
    // Without allocating: a long timeline has tens of thousands of
    // entries, hashed every build.
    super::format::clock_text(ts).serialize(s)
}

/// A timeline page's days: as views, or the HTML the built-in
/// `partials/timeline_days.html` makes of them, written without a template
/// when the built-in templates show them (`output::timeline`): the
/// template walking their entries was most of a timeline page's time.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Days<'m> {
    Views(Vec<TimelineDay<'m>>),
    Html(String),
}

/// One day of a timeline page: a run of the timeline's entries, which
/// all its pages share (a hundred thousand entries copied into each
/// page's days took 25 MB).
#[derive(Debug, Clone, Serialize)]
pub struct TimelineDay<'m> {
    pub date: String,
    pub entries: EntryRun<'m>,
}

/// Entries `range` of `all`, serialised as a list of them.
#[derive(Debug, Clone)]
pub struct EntryRun<'m> {
    pub all: Arc<Vec<TimelineEntry<'m>>>,
    pub range: std::ops::Range<usize>,
}

impl<'m> EntryRun<'m> {
    /// The entries of the run.
    pub fn entries(&self) -> &[TimelineEntry<'m>] {
        self.all.get(self.range.clone()).unwrap_or_default()
    }
}

impl Serialize for EntryRun<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.entries())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineView<'m> {
    pub month: Option<String>,
    /// `page 2 of 5` when the month continues over several pages.
    pub part: Option<String>,
    /// Links, not bars: a bar's count changes with every new session,
    /// and would make every page of the timeline anew.
    pub months: Vec<MonthLink>,
    pub days: Days<'m>,
    pub newer: Option<Link>,
    pub older: Option<Link>,
}

/// An index page of one kind.
#[derive(Debug, Clone, Serialize)]
pub struct ListView<'m> {
    pub kind: &'static str,
    pub intro: &'static str,
    pub projects: Vec<ProjectCard>,
    pub memories: Cards<'m>,
    /// Sessions grouped by month, newest first.
    pub months: Vec<MonthGroup<'m>>,
    /// The pages before and after this one of a list that continues.
    pub newer: Option<Link>,
    pub older: Option<Link>,
}

/// How often a tool was called.
#[derive(Debug, Clone, Serialize)]
pub struct ToolCount {
    pub name: String,
    pub count: u64,
}

/// The sessions of one month.
#[derive(Debug, Clone, Serialize)]
pub struct MonthGroup<'m> {
    pub month: String,
    pub sessions: Vec<Arc<SessionRow<'m>>>,
}

/// A prompt known only from `history.jsonl`.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryRow {
    pub date: String,
    pub text: String,
}

/// The 404 page: nothing but the site around it.
#[derive(Debug, Clone, Serialize)]
pub struct NotFoundView {
    /// What the page is, for templates that share a layout.
    pub kind: &'static str,
}

/// One row of a usage table: tokens and their estimated cost.
#[derive(Debug, Serialize)]
pub struct UsageRow {
    pub name: String,
    /// A page to link to (a project's), from the site's root.
    pub href: Option<String>,
    /// Token counts, digits grouped (`1,234,567`).
    pub input: String,
    pub output: String,
    pub cache_write: String,
    pub cache_read: String,
    /// Every token, read or written (what bars are scaled by).
    #[serde(skip)]
    pub tokens: u64,
    /// `$1.23`, "unknown price", or empty when nothing was used.
    pub cost: String,
    /// Its tokens as a share (0–100) of the largest row's, for its bar.
    pub share: f64,
}

/// One week's bar in the usage chart (SVG units: 14 wide, 100 high).
#[derive(Debug, Serialize)]
pub struct WeekBar {
    pub x: usize,
    pub y: f64,
    pub height: f64,
    pub label: String,
}

/// Tokens by week as bars (SVG units: 14 per week), with what its axes say.
#[derive(Debug, Default, Serialize)]
pub struct WeekChart {
    pub width: usize,
    pub bars: Vec<WeekBar>,
    /// The Monday of the first and the last week the chart spans.
    pub first: String,
    pub last: String,
    /// The highest week: its tokens and Monday.
    pub peak: String,
}

/// The usage page.
#[derive(Debug, Serialize)]
pub struct UsageView {
    pub total: UsageRow,
    pub models: Vec<UsageRow>,
    pub projects: Vec<UsageRow>,
    pub weeks: Vec<UsageRow>,
    pub week_chart: WeekChart,
    pub heatmap: Heatmap,
}

/// A calendar of tokens by day (SVG units: 13 per cell).
#[derive(Debug, Default, Serialize)]
pub struct Heatmap {
    pub width: usize,
    pub cells: Vec<HeatCell>,
    /// Month names over the columns: (x, `Oct`).
    pub months: Vec<(usize, String)>,
    /// The days with tokens, newest first: (date, tokens).
    pub days: Vec<(String, String)>,
}

/// One day of the heatmap; `level` 1–4, darker for more tokens.
#[derive(Debug, Serialize)]
pub struct HeatCell {
    pub x: usize,
    pub y: usize,
    pub level: u64,
    pub label: String,
}

/// One file of the user's setup in a list.
#[derive(Debug, Serialize)]
pub struct SetupItem {
    pub title: String,
    pub href: String,
    pub description: String,
    /// For an instruction file a project's sessions read: the project.
    pub project: Option<Arc<Link>>,
    /// How many sessions used it.
    pub used: usize,
}

/// The setup files of one kind.
#[derive(Debug, Serialize)]
pub struct SetupGroup {
    /// `agents`, `commands`, `skills` …
    pub kind: &'static str,
    pub label: &'static str,
    pub items: Vec<SetupItem>,
}

/// The setup page.
#[derive(Debug, Serialize)]
pub struct SetupView<'m> {
    pub groups: Vec<SetupGroup>,
    pub settings: Option<SettingsView<'m>>,
}

/// One hook of `settings.json`.
#[derive(Debug, Serialize)]
pub struct HookRow<'m> {
    pub event: &'m str,
    pub matcher: &'m str,
    pub commands: Vec<&'m str>,
}

/// One MCP server of `settings.json`.
#[derive(Debug, Serialize)]
pub struct McpRow<'m> {
    pub name: &'m str,
    pub transport: &'m str,
    /// The command and its arguments, or the address (secrets hidden).
    pub target: &'m str,
    /// Environment variables and headers it is given, by name only.
    pub hidden: Vec<&'m str>,
}

/// What `settings.json` says (values of secrets never read).
#[derive(Debug, Serialize)]
pub struct SettingsView<'m> {
    pub model: Option<&'m str>,
    pub output_style: Option<&'m str>,
    pub status_line: Option<&'m str>,
    pub env_names: Vec<&'m str>,
    pub hooks: Vec<HookRow<'m>>,
    pub mcp: Vec<McpRow<'m>>,
    /// (name, enabled).
    pub plugins: Vec<(&'m str, bool)>,
    /// (allow | ask | deny, rule).
    pub permissions: Vec<(&'m str, &'m str)>,
}

impl<'m> SettingsView<'m> {
    pub fn of(s: &'m crate::knowledge::setup::Settings) -> SettingsView<'m> {
        let strs = |v: &'m [crate::knowledge::model::Text]| v.iter().map(|t| t.as_str()).collect();
        SettingsView {
            model: s.model.as_deref(),
            output_style: s.output_style.as_deref(),
            status_line: s.status_line.as_deref(),
            env_names: strs(&s.env_names),
            hooks: s
                .hooks
                .iter()
                .map(|(event, matcher, commands)| HookRow {
                    event,
                    matcher,
                    commands: strs(commands),
                })
                .collect(),
            mcp: s
                .mcp
                .iter()
                .map(|(name, transport, target, hidden)| McpRow {
                    name,
                    transport,
                    target,
                    hidden: strs(hidden),
                })
                .collect(),
            plugins: s.plugins.iter().map(|(n, on)| (n.as_str(), *on)).collect(),
            permissions: s
                .permissions
                .iter()
                .map(|(k, r)| (k.as_str(), r.as_str()))
                .collect(),
        }
    }
}

/// A page of one setup file.
#[derive(Debug, Serialize)]
pub struct SetupDocView<'m> {
    /// `Agents`, `Commands`, `Claude Code skills` …
    pub kind: &'static str,
    pub name: &'m str,
    pub description: &'m str,
    /// Markdown.
    pub body: &'m str,
    pub project: Option<Arc<Link>>,
    /// The sessions that used it, newest first (at most 50).
    pub used_in: Vec<Arc<SessionRow<'m>>>,
    pub used_total: usize,
}

/// What `/insights` made of a session.
#[derive(Debug, Serialize)]
pub struct FacetView<'m> {
    pub goal: Option<&'m str>,
    /// `mostly achieved`.
    pub outcome: Option<String>,
    pub summary: Option<&'m str>,
    pub categories: Vec<String>,
}

impl<'m> FacetView<'m> {
    pub fn of(f: &'m crate::knowledge::setup::Facet) -> FacetView<'m> {
        // `mostly_achieved` is read as words only now, after redaction:
        // a secret's underscores are part of its shape.
        let words = |t: &str| t.replace('_', " ");
        FacetView {
            goal: f.goal.as_deref(),
            outcome: f.outcome.as_deref().map(words),
            summary: f.summary.as_deref(),
            categories: f.categories.iter().map(|c| words(c)).collect(),
        }
    }
}

/// A file a project's sessions changed, in a list.
#[derive(Debug, Clone, Serialize)]
pub struct FileRow {
    /// Its path, relative to the project when inside it.
    pub title: String,
    pub href: String,
    pub changes: usize,
    pub backups: usize,
}

/// One change of a file.
#[derive(Debug, Serialize)]
pub struct ChangeView<'m> {
    pub time: Option<String>,
    /// `Edit`, `Write`, `MultiEdit`, `NotebookEdit`.
    pub tool: &'m str,
    /// The session page the call is on.
    pub session: Link,
    /// The change's diff, as HTML (a `<span>` a line, its class the
    /// line's kind); empty when `elided`. Borrowed when its session page
    /// made it.
    pub diff: std::borrow::Cow<'m, str>,
    /// True when the page leaves this change's diff to its session page
    /// (the page shows the diffs of a file's latest changes only).
    pub elided: bool,
}

/// A backup Claude Code kept of a file (`file-history/`).
#[derive(Debug, Clone, Serialize)]
pub struct BackupRow {
    pub time: Option<String>,
    pub version: u32,
    /// False: the file did not exist before this version.
    pub kept: bool,
    pub session: Link,
}

/// A file page.
#[derive(Debug, Serialize)]
pub struct FileView<'m> {
    pub path: &'m str,
    pub project: Option<Arc<Link>>,
    /// Oldest first.
    pub changes: Vec<ChangeView<'m>>,
    /// How many of the oldest changes leave their diff to their session's page.
    pub elided: usize,
    pub backups: Vec<BackupRow>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// A row shows what the list template reads, made from its session
    /// when shown: the digest one line of at most 160 characters, none
    /// when what the session was about says nothing.
    #[test]
    fn a_row_shows_its_session() {
        let start = chrono::Utc.with_ymd_and_hms(2026, 3, 4, 10, 0, 0).unwrap();
        let session = Session {
            started: Some(start),
            ended: Some(start + chrono::Duration::minutes(42)),
            prompts: 7,
            ..Session::default()
        };
        let long = format!("first  line\n{}", "word ".repeat(100));
        let row = |about| SessionRow {
            title: "T".into(),
            href: "sessions/x/index.html".into(),
            session: &session,
            project: Some(Arc::new(Link {
                title: "p".into(),
                href: "projects/p/index.html".into(),
            })),
            about,
        };
        let json = serde_json::to_value(row(Some(long.as_str()))).expect("json");
        assert_eq!(json["title"], "T");
        assert_eq!(json["href"], "sessions/x/index.html");
        assert_eq!(
            json["date"],
            super::super::format::date_time(Some(start)).unwrap()
        );
        assert_eq!(json["duration"], "42 min");
        assert_eq!(json["prompts"], 7);
        assert_eq!(json["project"]["href"], "projects/p/index.html");
        let digest = json["digest"].as_str().expect("a digest");
        assert!(digest.starts_with("first line word"), "{digest}");
        assert!(!digest.contains('\n') && digest.chars().count() <= 163);
        for nothing in [None, Some(""), Some(" \n\t ")] {
            let json = serde_json::to_value(row(nothing)).expect("json");
            assert!(json["digest"].is_null(), "{nothing:?}");
        }
    }

    proptest::proptest! {
        /// An entry's time reads as chrono writes `%H:%M`, at any minute.
        #[test]
        fn an_entry_shows_its_clock_time(secs in 0i64..4_000_000_000) {
            let ts = chrono::Utc.timestamp_opt(secs, 0).single().expect("a time");
            let entry = TimelineEntry {
                ts,
                kind: EntryKind::Prompt,
                text: "x".into(),
                project: None,
                session: None,
                seq: 0,
            };
            let json = serde_json::to_value(&entry).expect("json");
            let want = ts.format("%H:%M").to_string();
            proptest::prop_assert_eq!(json["time"].as_str(), Some(want.as_str()));
        }
    }
}
