//! The session list, and each session's pages: turns are read back from
//! the spill only when a page is rendered.

use super::format::{clock, date_time, duration, month_key};
use super::layouts::Layouts;
use super::links::Links;
use super::paging::{
    part_title, session_page_href, split_groups, turn_anchors_from, AgentLinks, PageSpan, LIST_ROWS,
};
use super::projects::tool_counts;
use super::shared_diffs::SharedDiffs;
use super::views::{
    BlockView, Cards, Link, ListView, MonthGroup, SessionRow, SessionView, SubagentView, TurnView,
    Turns,
};
use super::{Page, View};
use crate::knowledge::model::{
    Block, CompactKind, Session, SubagentLayout, TextRef, ToolCall, Turn,
};
use crate::knowledge::spill::Encoded;
use std::sync::Arc;

/// The list of sessions by month, newest first, in pages of [`LIST_ROWS`].
pub(super) fn list<'m>(l: &Links<'m>) -> Vec<Page<'m>> {
    let mut months: Vec<(String, Vec<Arc<SessionRow<'m>>>)> = Vec::new();
    for &i in &l.sessions {
        let m = l.model.sessions[i]
            .started
            .map(month_key)
            .unwrap_or_else(|| "undated".into());
        match months.last_mut() {
            Some((month, rows)) if *month == m => rows.push(l.session_row(i)),
            _ => months.push((m, vec![l.session_row(i)])),
        }
    }
    let split = split_groups(months, LIST_ROWS);
    let n = split.len();
    let link = |i: usize| Link {
        title: part_title("Sessions", i, n).into(),
        href: session_page_href("sessions/index.html", i).into(),
    };
    split
        .into_iter()
        .enumerate()
        .map(|(i, months)| Page {
            path: session_page_href("sessions/index.html", i),
            template: "list.html",
            title: part_title("Sessions", i, n),
            section: "sessions",
            view: View::List(Box::new(ListView {
                kind: "sessions",
                intro: "Every conversation, newest first.",
                projects: Vec::new(),
                memories: Cards::default(),
                months: months
                    .into_iter()
                    .map(|(month, sessions)| MonthGroup { month, sessions })
                    .collect(),
                newer: i.checked_sub(1).map(link),
                older: (i + 1 < n).then(|| link(i + 1)),
            })),
        })
        .collect()
}

/// One session laid out: its page spans, its search document, which call
/// started which sub-agent, and the calls that changed a file.
type LaidOut = (
    Vec<PageSpan>,
    crate::site::search::Packed,
    AgentLinks,
    Vec<super::files::Found>,
);

fn lay_out(l: &Links<'_>, layouts: &Layouts, i: usize) -> Result<LaidOut, crate::Error> {
    let model = l.model;
    let s = &model.sessions[i];
    let layout = layouts.get(s, &model.spill)?;
    let project = l.session_project[i]
        .as_deref()
        .and_then(|k| l.projects.get(k))
        .map(|p| &*p.link.title);
    let first = l.session_href[i].as_deref().unwrap_or_default();
    let doc = crate::site::search::session_doc(s, layout.texts, first, project);
    let doc = crate::site::search::Packed::new(&doc);
    Ok((layout.spans, doc, layout.agents, layout.found))
}

/// Every session laid out, and the calls that changed a file (session
/// index, calls).
pub(super) type LaidSessions<'m> = (SessionPages<'m>, Vec<(usize, Vec<super::files::Found>)>);

/// How many sessions are laid out at a time: what a batch makes is held
/// twice (laid out, then kept), a few megabytes at most, where a hundred
/// thousand sessions held that way all at once took 30 MB. Large, so that
/// cores rarely wait for a batch's largest session.
const BATCH: usize = 8192;

/// Each session laid out, and its search document pushed to `docs`. Each
/// session's turns are read back once, in parallel, to lay out its pages
/// and index it, then let go.
pub(super) fn pages<'m>(
    l: &Links<'m>,
    setup: &super::setup::Paths<'m>,
    layouts: &Layouts,
    docs: &mut crate::site::search::SearchDocs<'_>,
) -> Result<LaidSessions<'m>, crate::Error> {
    use rayon::prelude::*;
    let mut laid = Vec::with_capacity(l.sessions.len());
    docs.reserve(l.sessions.len());
    let mut changes = Vec::new();
    let mut count = 0;
    for batch in l.sessions.chunks(BATCH) {
        let laid_out: Vec<LaidOut> = batch
            .par_iter()
            .map(|&i| lay_out(l, layouts, i))
            .collect::<Result<_, crate::Error>>()?;
        for (&i, (spans, doc, agents, found)) in batch.iter().zip(laid_out) {
            docs.push(doc);
            if !found.is_empty() {
                changes.push((i, found));
            }
            count += spans.len().max(1);
            laid.push(laid_session(l, setup, i, spans, agents));
        }
    }
    let pages = SessionPages {
        model: l.model,
        laid,
        count,
        diffs: Arc::default(),
    };
    Ok((pages, changes))
}

/// What session `i`'s pages are made of.
fn laid_session<'m>(
    l: &Links<'m>,
    setup: &super::setup::Paths<'m>,
    i: usize,
    spans: Vec<PageSpan>,
    agents: AgentLinks,
) -> LaidSession<'m> {
    let s = &l.model.sessions[i];
    let no_agents =
        agents.by_key.is_empty() && agents.agent_page.is_empty() && agents.call_page.is_empty();
    let spans = match spans.as_slice() {
        [one] if *one == whole(s) => Box::default(),
        _ => spans.into_boxed_slice(),
    };
    LaidSession {
        session: s,
        index: i,
        row: l.session_row(i),
        setup: setup.used_by(i).into_boxed_slice(),
        facet: l.facets.get(s.id.as_str()).copied(),
        spans,
        agents: (!no_agents).then(|| Box::new(agents)),
    }
}

/// The one page of a session that has one: all of it.
fn whole(s: &Session) -> PageSpan {
    PageSpan {
        turns: 0..s.turns.len(),
        subagents: 0..s.subagents.len(),
        anchored_before: 0,
    }
}

/// The sessions' pages, made only when they are rendered: held as pages,
/// a hundred thousand sessions' paths, titles and views took 50 MB from
/// assembly to the end of rendering.
#[derive(Debug)]
pub struct SessionPages<'m> {
    model: &'m crate::knowledge::model::Knowledge,
    /// The sessions with pages, newest first.
    laid: Vec<LaidSession<'m>>,
    /// How many pages they make.
    count: usize,
    /// The diffs to keep for file pages.
    diffs: Arc<SharedDiffs<'m>>,
}

/// What one session's pages are made of.
#[derive(Debug)]
pub struct LaidSession<'m> {
    session: &'m Session,
    /// Its index in the model's sessions.
    index: usize,
    /// Its row in lists: its title, first page and project.
    row: Arc<SessionRow<'m>>,
    setup: Box<[Link]>,
    facet: Option<&'m crate::knowledge::setup::Facet>,
    /// Its pages' spans; none for a session on one page (most are).
    spans: Box<[PageSpan]>,
    /// None when no call started a sub-agent and there is none.
    agents: Option<Box<AgentLinks>>,
}

impl LaidSession<'_> {
    /// About how much making its pages costs: the bytes of its turns and
    /// its sub-agents' as stored, and their number (held turns are not
    /// stored).
    pub fn weight(&self) -> u64 {
        let s = self.session;
        (std::iter::once(&s.turns).chain(s.subagents.iter().map(|a| &a.turns)))
            .map(|t| t.stored_bytes() + t.len() as u64)
            .sum()
    }
}

impl<'m> SessionPages<'m> {
    /// How many pages the sessions make.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Keep the diffs of `diffs` as the pages are made, for file pages.
    pub(super) fn share(&mut self, diffs: Arc<SharedDiffs<'m>>) {
        self.diffs = diffs;
    }

    /// The sessions laid out, newest first: [`SessionPages::pages_of`]
    /// makes each one's pages.
    pub fn sessions(&self) -> &[LaidSession<'m>] {
        &self.laid
    }

    /// The pages of one session, made now.
    pub fn pages_of<'s>(&'s self, laid: &'s LaidSession<'m>) -> Vec<Page<'s>> {
        static NO_AGENTS: std::sync::LazyLock<AgentLinks> =
            std::sync::LazyLock::new(AgentLinks::default);
        let s = laid.session;
        let one = [whole(s)];
        let spans = if laid.spans.is_empty() {
            &one[..]
        } else {
            &laid.spans[..]
        };
        let count = spans.len();
        let cost = super::usage::cost_text(&self.model.prices, &s.usage_by_model);
        let extra = Extra {
            setup: &laid.setup,
            facet: laid.facet,
            cost,
        };
        let title = s.title();
        let mut pages = Vec::with_capacity(count);
        for (page, span) in spans.iter().enumerate() {
            pages.push(Page {
                path: session_page_href(&laid.row.href, page),
                template: "session.html",
                title: if count > 1 {
                    format!("{title} (page {} of {count})", page + 1)
                } else {
                    title.clone()
                },
                section: "sessions",
                view: View::Session(SessionPage {
                    session: s,
                    index: laid.index,
                    diffs: &self.diffs,
                    spill: &self.model.spill,
                    project: laid.row.project.as_ref(),
                    span: span.clone(),
                    page,
                    pages: count,
                    first_href: &laid.row.href,
                    agents: laid.agents.as_deref().unwrap_or(&NO_AGENTS),
                    extra: extra.clone(),
                }),
            });
        }
        pages
    }

    /// Every session's pages, made one session at a time.
    pub fn all(&self) -> impl Iterator<Item = Page<'_>> {
        self.laid.iter().flat_map(|laid| self.pages_of(laid))
    }
}

/// A turn read back for a page, its texts borrowed from what was read.
type Read<'a> = Turn<TextRef<'a>>;

/// A call's diff, made from the index of its turn among those viewed, the
/// index of its block in the turn, and the call.
type DiffOf<'f, 'a> = &'f dyn Fn(usize, usize, &ToolCall<TextRef<'a>>) -> String;

/// A call's diff, made now.
fn diff_now(_: usize, _: usize, c: &ToolCall<TextRef<'_>>) -> String {
    super::diff::diff(&c.arg, &c.edits)
}

fn turn_views<'a>(turns: &[Read<'a>], prefix: &str) -> Vec<TurnView<'a>> {
    turn_views_from(turns, prefix, 0, &diff_now)
}

/// Views of `turns`, whose anchors continue after `anchored_before` anchored
/// turns (the turns of the session's earlier pages), each call's diff made
/// by `diff_of`.
fn turn_views_from<'a>(
    turns: &[Read<'a>],
    prefix: &str,
    anchored_before: usize,
    diff_of: DiffOf<'_, 'a>,
) -> Vec<TurnView<'a>> {
    let anchors = turn_anchors_from(turns, prefix, anchored_before);
    let mut after_assistant = false;
    turns
        .iter()
        .zip(anchors)
        .enumerate()
        .map(|(i, (t, anchor))| {
            let continued = after_assistant;
            after_assistant = matches!(t, Turn::Assistant { .. });
            (i, t, continued, anchor)
        })
        .map(|(i, t, continued, anchor)| match t {
            Turn::Prompt { ts, text } => TurnView::Prompt {
                time: clock(*ts),
                text: text.as_str(),
                anchor,
            },
            Turn::Assistant { ts, model, blocks } => TurnView::Assistant {
                time: clock(*ts),
                model: model.map(TextRef::as_str),
                blocks: blocks
                    .iter()
                    .enumerate()
                    .map(|(k, b)| match b {
                        Block::Text(t) => BlockView::Text { text: t.as_str() },
                        Block::Tool(c) => BlockView::Tool {
                            name: c.name.as_str(),
                            arg: c.arg.as_str(),
                            input: c.input.as_str(),
                            result: c.result.map(TextRef::as_str),
                            cut: result_cut(c),
                            error: c.error,
                            launches: c.launches,
                            agent_href: None,
                            anchor: None,
                            diff: diff_of(i, k, c),
                        },
                    })
                    .collect(),
                anchor,
                continued,
            },
            Turn::Command { ts, name, args } => TurnView::Command {
                time: clock(*ts),
                name: name.as_str(),
                args: args.as_str(),
            },
            Turn::CommandOutput { text } => TurnView::Output {
                text: text.as_str(),
            },
            Turn::Compaction { ts, kind, summary } => TurnView::Compaction {
                time: clock(*ts),
                micro: *kind == CompactKind::Micro,
                summary: summary.map(TextRef::as_str),
            },
        })
        .collect()
}

/// The whole size of a tool result of which only the start is kept.
fn result_cut(c: &ToolCall<TextRef<'_>>) -> Option<String> {
    let shown = c.result.as_ref()?.len() as u64;
    // The transcript's size counts JSON quoting: only a clear cut is said.
    (c.result_bytes > shown + 64 && c.result_bytes > 1_000).then(|| {
        if c.result_bytes >= 1_000_000 {
            format!("{:.1} MB", c.result_bytes as f64 / 1e6)
        } else {
            format!("{:.1} KB", c.result_bytes as f64 / 1e3)
        }
    })
}

/// One page of a session. Its turns are read back from the spill only when
/// the page is rendered, so a long session's turns are never all in memory.
#[derive(Debug)]
pub struct SessionPage<'m> {
    session: &'m Session,
    /// Its index in the model's sessions.
    index: usize,
    /// Where the diffs file pages show are kept.
    diffs: &'m SharedDiffs<'m>,
    spill: &'m crate::knowledge::spill::Spill,
    pub project: Option<&'m Arc<Link>>,
    span: PageSpan,
    page: usize,
    pages: usize,
    first_href: &'m str,
    /// Which call started which sub-agent.
    agents: &'m AgentLinks,
    extra: Extra<'m>,
}

/// What a session page shows beside its turns.
#[derive(Debug, Clone)]
struct Extra<'m> {
    /// The setup it used.
    setup: &'m [Link],
    facet: Option<&'m crate::knowledge::setup::Facet>,
    /// Its estimated cost, its sub-agents' included.
    cost: Option<String>,
}

/// The turns of one session page, read back from the spill.
pub struct LoadedPage<'m> {
    page: &'m SessionPage<'m>,
    turns: Encoded<'m>,
    subagents: Vec<Encoded<'m>>,
}

impl<'m> SessionPage<'m> {
    /// Read this page's turns and sub-agents.
    pub fn load(&'m self) -> Result<LoadedPage<'m>, crate::Error> {
        let s = self.session;
        Ok(LoadedPage {
            page: self,
            turns: self.spill.read_range(&s.turns, self.span.turns.clone())?,
            subagents: s.subagents[self.span.subagents.clone()]
                .iter()
                .map(|a| self.spill.read_range(&a.turns, 0..a.turns.len()))
                .collect::<Result<_, _>>()?,
        })
    }
}

impl SessionPage<'_> {
    /// Hash into `h` all this page is made of, without reading its turns
    /// (their identity stands for them): an unchanged page is neither read
    /// back nor rendered again. False when that cannot be known cheaply.
    pub fn input_key(&self, h: &mut impl std::hash::Hasher) -> bool {
        use std::hash::Hash;
        let s = self.session;
        let span = &self.span;
        (
            span.subagents.start,
            span.subagents.end,
            span.anchored_before,
        )
            .hash(h);
        let agents = &self.agents;
        (&agents.by_key, &agents.agent_page, &agents.call_page).hash(h);
        // What the page shows besides the turns: its view without them.
        let bare = self.view_of(&[], &vec![Vec::new(); span.subagents.len()]);
        crate::base::fingerprint::hash_into(&bare, h)
            && s.turns.identity(span.turns.clone(), h)
            && s.subagents[span.subagents.clone()]
                .iter()
                .all(|a| a.turns.identity(0..a.turns.len(), h))
    }
    /// Link each call that started a sub-agent to it, and give it the
    /// anchor the sub-agent links back to.
    fn link_calls(&self, turns: &mut [TurnView<'_>]) {
        for t in turns {
            let TurnView::Assistant { blocks, .. } = t else {
                continue;
            };
            for b in blocks {
                if let BlockView::Tool {
                    launches: Some(key),
                    agent_href,
                    anchor,
                    ..
                } = b
                {
                    if let Some(k) = self.agents.agent_of(*key) {
                        let page = self.agents.agent_page.get(k).copied().unwrap_or(0);
                        *agent_href = Some(format!(
                            "{}#agent-{}",
                            session_page_href(self.first_href, page),
                            k + 1
                        ));
                        *anchor = Some(format!("task-{}", k + 1));
                    }
                }
            }
        }
    }

    /// The template's context, with `turns` and the page's `subagents`'
    /// turns.
    fn view_of<'a>(&'a self, turns: &[Read<'a>], subagents: &[Vec<Read<'a>>]) -> SessionView<'a> {
        let s = self.session;
        let tools = tool_counts(s.work.tools.iter().map(|(k, v)| (k.as_str(), *v)));
        let first = self.span.turns.start;
        let diff_of = |i: usize, block: usize, c: &ToolCall<TextRef<'a>>| {
            (self.diffs).made((self.index, first + i, block), || diff_now(i, block, c))
        };
        let mut turns = turn_views_from(turns, "", self.span.anchored_before, &diff_of);
        self.link_calls(&mut turns);
        // A page starts with a speaker, even in the middle of the assistant's run.
        if let Some(TurnView::Assistant { continued, .. }) = turns.first_mut() {
            *continued = false;
        }
        let link = |n: usize| Link {
            title: format!("Page {}", n + 1).into(),
            href: session_page_href(self.first_href, n).into(),
        };
        let title = s.title();
        let summary = s.titles.summary.as_deref().filter(|sum| *sum != title);
        SessionView {
            title,
            id: &s.id,
            project: self.project.cloned(),
            date: date_time(s.started),
            duration: duration(s.started, s.ended),
            models: s.models.iter().map(|t| t.as_str()).collect(),
            branches: s.branches.iter().map(|t| t.as_str()).collect(),
            versions: s.versions.iter().map(|t| t.as_str()).collect(),
            entrypoint: s.entrypoint.as_deref(),
            prompts: s.prompts,
            assistant_turns: s.assistant_turns,
            tokens_in: s.usage.input + s.usage.cache_read + s.usage.cache_creation,
            tokens_out: s.usage.output,
            cost: self.extra.cost.clone(),
            summary,
            outcome: s.titles.last_answer.as_deref(),
            away: s.setup.away.as_deref(),
            facet: self.extra.facet.map(super::views::FacetView::of),
            setup: self.extra.setup.to_vec(),
            tools,
            turns: Turns::Views(turns),
            subagents: s.subagents[self.span.subagents.clone()]
                .iter()
                .zip(subagents)
                .zip(self.span.subagents.clone())
                .map(|((a, agent_turns), k)| SubagentView {
                    number: k + 1,
                    id: &a.id,
                    role: a.role.label(),
                    layout: match a.layout {
                        SubagentLayout::Inline => "inline",
                        SubagentLayout::Sibling => "sibling file",
                        SubagentLayout::Nested => "subagents folder",
                    },
                    agent_type: a.agent_type.as_deref(),
                    description: a.description.as_deref(),
                    assistant_turns: a.assistant_turns,
                    turns: Turns::Views(turn_views(agent_turns, &format!("s{}-", k + 1))),
                    called_from: self.agents.call_page.get(k).copied().flatten().map(|page| {
                        format!(
                            "{}#task-{}",
                            session_page_href(self.first_href, page),
                            k + 1
                        )
                    }),
                })
                .collect(),
            page_number: self.page + 1,
            pages: self.pages,
            prev: (self.page > 0).then(|| link(self.page - 1)),
            next: (self.page + 1 < self.pages).then(|| link(self.page + 1)),
        }
    }
}

impl LoadedPage<'_> {
    /// The template's context: the turns decoded, their texts borrowed
    /// from what was read.
    pub fn view(&self) -> Result<SessionView<'_>, crate::Error> {
        let turns = self.turns.turns()?;
        let subagents = (self.subagents.iter())
            .map(Encoded::turns)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.page.view_of(&turns, &subagents))
    }
}
