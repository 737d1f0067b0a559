//! How a long session is cut into pages, and the anchors and paths that
//! point into them.

use crate::knowledge::model::{Block, Turn};

/// The anchor letter of a turn that gets one: `p` for a prompt, `a` for an answer.
pub(super) fn anchor_letter<S>(t: &Turn<S>) -> Option<char> {
    match t {
        Turn::Prompt { .. } => Some('p'),
        Turn::Assistant { .. } => Some('a'),
        _ => None,
    }
}

/// Numbers a session's prompts and answers in order, across its pages:
/// `p1`, `a2`, `p3`… Search links use them.
#[derive(Debug, Default)]
pub(super) struct Anchors(usize);

impl Anchors {
    /// Numbering on after `anchored_before` anchored turns (those on a
    /// session's earlier pages).
    pub(super) fn after(anchored_before: usize) -> Anchors {
        Anchors(anchored_before)
    }

    /// The anchor of `t`, the next turn, after `prefix`; empty for a turn
    /// without one.
    pub(super) fn next<S>(&mut self, t: &Turn<S>, prefix: &str) -> String {
        match anchor_letter(t) {
            Some(letter) => {
                self.0 += 1;
                format!("{prefix}{letter}{}", self.0)
            }
            None => String::new(),
        }
    }
}

/// The anchor of each of `turns` on its page (see [`Anchors`]).
pub(super) fn turn_anchors_from<S>(
    turns: &[Turn<S>],
    prefix: &str,
    anchored_before: usize,
) -> Vec<String> {
    let mut anchors = Anchors::after(anchored_before);
    turns.iter().map(|t| anchors.next(t, prefix)).collect()
}

/// Text per session page: a longer conversation continues on pages 2, 3…
/// so that no page is too big for a browser, or for memory while rendering.
pub const PAGE_CHARS: usize = 400_000;

/// Which page (0-based) each turn and each sub-agent of a session is on.
/// Filled in order, the conversation a chunk at a time ([`Paging::add_turns`]),
/// then the sub-agents: a long session's turns are never all in memory.
#[derive(Debug, Clone, Default)]
pub struct Paging {
    pub turns: Vec<usize>,
    pub subagents: Vec<usize>,
    /// The page being filled, and how full it is.
    page: usize,
    used: usize,
    /// Prompts and answers on each page.
    anchored: Vec<usize>,
}

/// Which call started which sub-agent, and where each is.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct AgentLinks {
    /// A starting call's prompt key and the sub-agent's index, sorted by
    /// key, one entry a key (the first sub-agent with it). A sorted list,
    /// not a map: each page of a session hashes it whole, and a map had
    /// to be sorted first (a session with 1,200 sub-agents and 300 pages
    /// sorted it 300 times).
    pub by_key: Vec<(u64, usize)>,
    /// The page of each sub-agent.
    pub agent_page: Vec<usize>,
    /// The page of the call that started each sub-agent, if it was found.
    pub call_page: Vec<Option<usize>>,
}

impl AgentLinks {
    /// Tie each sub-agent (by its first prompt's key) to the call that
    /// gave it that prompt.
    /// `launches`: the calls that start a sub-agent, as (turn, prompt
    /// key), in order.
    pub fn new(
        launches: &[(usize, u64)],
        keys: impl Iterator<Item = Option<u64>>,
        paging: &Paging,
    ) -> AgentLinks {
        let mut links = AgentLinks {
            agent_page: paging.subagents.clone(),
            ..AgentLinks::default()
        };
        links.by_key = keys
            .enumerate()
            .filter_map(|(i, key)| Some((key?, i)))
            .collect();
        // Stable: of the sub-agents with one key, the first stays.
        links.by_key.sort_by_key(|&(key, _)| key);
        links.by_key.dedup_by_key(|&mut (key, _)| key);
        links.call_page = vec![None; links.agent_page.len()];
        for (t, key) in launches {
            if let Some(a) = links.agent_of(*key) {
                let slot = &mut links.call_page[a];
                if slot.is_none() {
                    *slot = paging.turns.get(*t).copied();
                }
            }
        }
        links
    }

    /// The index of the sub-agent the call with prompt key `key` started.
    pub fn agent_of(&self, key: u64) -> Option<usize> {
        let at = self.by_key.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        Some(self.by_key[at].1)
    }
}

/// The prompt keys of the sub-agents the calls of `turn` start.
pub fn launches(turn: &Turn) -> impl Iterator<Item = u64> + '_ {
    let blocks = match turn {
        Turn::Assistant { blocks, .. } => &blocks[..],
        _ => &[],
    };
    blocks.iter().filter_map(|b| match b {
        Block::Tool(c) => c.launches,
        Block::Text(_) => None,
    })
}

/// About how many characters `t` takes on a page.
pub fn turn_chars(t: &Turn) -> usize {
    100 + match t {
        Turn::Prompt { text, .. } | Turn::CommandOutput { text } => text.len(),
        Turn::Assistant { blocks, .. } => blocks
            .iter()
            .map(|b| match b {
                Block::Text(t) => t.len(),
                Block::Tool(c) => {
                    c.name.len()
                        + c.arg.len()
                        + c.input.len()
                        + c.result.as_ref().map_or(0, |r| r.len())
                        + c.edits
                            .iter()
                            .map(|e| 2 * (e.old.len() + e.new.len()))
                            .sum::<usize>()
                        + 200
                }
            })
            .sum(),
        Turn::Command { name, args, .. } => name.len() + args.len(),
        Turn::Compaction { summary, .. } => summary.as_ref().map_or(0, |t| t.len()),
    }
}

/// Cut a session into pages of about [`PAGE_CHARS`]: the conversation first,
/// then the sub-agents, a sub-agent never split.
#[cfg(test)]
pub fn paginate(turns: &[Turn], agents: &[Vec<Turn>]) -> Paging {
    let mut paging = Paging::default();
    paging.add_turns(turns);
    for a in agents {
        paging.add_subagent(a.iter().map(turn_chars).sum());
    }
    paging
}

impl Paging {
    /// The page for something of `size` characters: the one being filled,
    /// or the next when it would overflow it.
    fn place(&mut self, size: usize) -> usize {
        if self.used > 0 && self.used + size > PAGE_CHARS {
            self.page += 1;
            self.used = 0;
        }
        self.used += size;
        self.page
    }

    /// Place the conversation's next turns.
    pub fn add_turns(&mut self, turns: &[Turn]) {
        for t in turns {
            let page = self.place(turn_chars(t));
            self.turns.push(page);
            if anchor_letter(t).is_some() {
                if self.anchored.len() <= page {
                    self.anchored.resize(page + 1, 0);
                }
                self.anchored[page] += 1;
            }
        }
    }

    /// Place the next sub-agent, whose turns take `chars`; its page.
    pub fn add_subagent(&mut self, chars: usize) -> usize {
        let page = self.place(200 + chars);
        self.subagents.push(page);
        page
    }

    /// How many pages there are.
    pub fn pages(&self) -> usize {
        self.page + 1
    }

    /// The turns and the sub-agents on `page`: contiguous ranges, since
    /// pages are filled in order.
    pub fn ranges(&self, page: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let range = |of: &[usize]| {
            let start = of.iter().position(|p| *p >= page).unwrap_or(of.len());
            let end = of.iter().position(|p| *p > page).unwrap_or(of.len());
            start..end.max(start)
        };
        (range(&self.turns), range(&self.subagents))
    }

    /// What each page shows, in order.
    pub fn spans(&self) -> Vec<PageSpan> {
        let mut anchored_before = 0;
        (0..self.pages())
            .map(|page| {
                let (turns, subagents) = self.ranges(page);
                let span = PageSpan {
                    turns,
                    subagents,
                    anchored_before,
                };
                anchored_before += self.anchored.get(page).copied().unwrap_or(0);
                span
            })
            .collect()
    }
}

/// The turns and sub-agents one page of a session shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageSpan {
    pub(super) turns: std::ops::Range<usize>,
    pub(super) subagents: std::ops::Range<usize>,
    /// Prompts and answers on earlier pages: anchors continue after them.
    pub(super) anchored_before: usize,
}

/// Rows per page of a list (the timeline, the session list): a busy data
/// directory lists tens of thousands of sessions, and one page holding them
/// all would weigh tens of megabytes, too much for a browser and for memory
/// while rendering.
pub const LIST_ROWS: usize = 500;

/// Cut `groups` (a heading and its rows, such as a day of the timeline or
/// a month of sessions, in reading order) into pages of at most `max` rows;
/// a group that does not fit continues on the next page under its heading.
/// There is always at least one page. Each row is moved once.
pub(super) fn split_groups<H: Clone, R>(
    groups: Vec<(H, Vec<R>)>,
    max: usize,
) -> Vec<Vec<(H, Vec<R>)>> {
    let max = max.max(1);
    let mut pages = Vec::new();
    let mut page: Vec<(H, Vec<R>)> = Vec::new();
    let mut room = max;
    for (heading, rows) in groups {
        let mut rows = rows.into_iter().peekable();
        let mut empty = true;
        while rows.peek().is_some() || empty {
            if room == 0 {
                pages.push(std::mem::take(&mut page));
                room = max;
            }
            let part: Vec<R> = rows.by_ref().take(room).collect();
            room -= part.len();
            page.push((heading.clone(), part));
            empty = false;
        }
    }
    if !page.is_empty() || pages.is_empty() {
        pages.push(page);
    }
    pages
}

/// The title of part `part` (0-based) of `parts`: `2026-03`, or
/// `2026-03 (2 of 5)` when there are several.
pub(super) fn part_title(label: &str, part: usize, parts: usize) -> String {
    if parts > 1 {
        format!("{label} ({} of {parts})", part + 1)
    } else {
        label.to_string()
    }
}

/// The path of page `page` (0-based) of the session whose first page is `first`.
pub fn session_page_href(first: &str, page: usize) -> String {
    if page == 0 {
        return first.to_string();
    }
    let dir = first.strip_suffix("index.html").unwrap_or(first);
    format!("{dir}{}/index.html", page + 1)
}

/// A link to `anchor` on page `page`, relative to the session's first page.
pub fn session_anchor(page: usize, anchor: &str) -> String {
    let fragment = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    if page == 0 {
        fragment
    } else {
        format!("{}/index.html{fragment}", page + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sessions_are_paginated() {
        let big = "word ".repeat(PAGE_CHARS / 5 / 2 - 100);
        let turns: Vec<Turn> = (0..5)
            .map(|_| Turn::Prompt {
                ts: None,
                text: crate::knowledge::model::Text::test(&big),
            })
            .collect();
        let agents = vec![vec![Turn::Prompt {
            ts: None,
            text: crate::knowledge::model::Text::test("small"),
        }]];
        let p = paginate(&turns, &agents);
        assert_eq!(p.turns, vec![0, 0, 1, 1, 2]);
        assert_eq!(p.subagents, vec![2]);
        assert_eq!(p.pages(), 3);
        assert_eq!(
            session_page_href("sessions/x/index.html", 0),
            "sessions/x/index.html"
        );
        assert_eq!(
            session_page_href("sessions/x/index.html", 2),
            "sessions/x/3/index.html"
        );
        assert_eq!(session_anchor(0, "p1"), "#p1");
        assert_eq!(session_anchor(1, "p9"), "2/index.html#p9");
        assert_eq!(session_anchor(1, ""), "2/index.html");
        assert_eq!(paginate(&[], &[]).pages(), 1);
        // Anchors go on counting across pages.
        let spans = p.spans();
        assert_eq!(spans.len(), 3);
        assert_eq!(
            spans.iter().map(|s| s.anchored_before).collect::<Vec<_>>(),
            vec![0, 2, 4]
        );
        assert_eq!(spans[2].turns, 4..5);
        assert_eq!(spans[2].subagents, 0..1);
    }

    #[test]
    fn lists_are_cut_into_pages_without_losing_or_reordering_a_row() {
        // Every shape of groups up to 4 groups of up to 7 rows, pages of 1 to 5.
        for shape in 0..4096u32 {
            let sizes: Vec<usize> = (0..4).map(|k| ((shape >> (3 * k)) & 7) as usize).collect();
            let mut n = 0;
            let groups: Vec<(usize, Vec<u32>)> = sizes
                .iter()
                .enumerate()
                .map(|(h, &len)| {
                    n += len as u32;
                    (h, (n - len as u32..n).collect())
                })
                .collect();
            for max in 1..=5 {
                let pages = split_groups(groups.clone(), max);
                assert!(!pages.is_empty());
                let mut rows = Vec::new();
                for (i, page) in pages.iter().enumerate() {
                    let here: usize = page.iter().map(|g| g.1.len()).sum();
                    assert!(here <= max, "{sizes:?} max {max}: page {i} has {here}");
                    // Only the last page may be short of rows, and no page
                    // but an only one is empty.
                    if i + 1 < pages.len() {
                        assert_eq!(here, max, "{sizes:?} max {max}");
                    }
                    for g in page {
                        // A heading shows only with rows, unless it was empty to start with.
                        assert!(!g.1.is_empty() || sizes[g.0] == 0);
                        rows.extend(g.1.iter().copied());
                    }
                }
                assert_eq!(rows, (0..n).collect::<Vec<_>>(), "{sizes:?} max {max}");
            }
        }
        assert_eq!(part_title("2026-03", 1, 5), "2026-03 (2 of 5)");
        assert_eq!(part_title("2026-03", 0, 1), "2026-03");
    }

    proptest::proptest! {
        /// Each key finds the first sub-agent whose prompt has it, a key
        /// no sub-agent has finds none, and each sub-agent's call is the
        /// first launch of its key (as a map filled first-wins found them).
        #[test]
        fn calls_find_the_first_sub_agent_of_their_key(
            keys in proptest::collection::vec(proptest::option::of(0u64..12), 0..40),
            launches in proptest::collection::vec((0usize..30, 0u64..16), 0..40),
        ) {
            let paging = Paging {
                turns: (0..30).map(|t| t / 7).collect(),
                subagents: (0..keys.len()).map(|i| i % 3).collect(),
                ..Paging::default()
            };
            let links = AgentLinks::new(&launches, keys.iter().copied(), &paging);
            for key in 0u64..16 {
                let first = keys.iter().position(|k| *k == Some(key));
                proptest::prop_assert_eq!(links.agent_of(key), first);
            }
            for (a, page) in links.call_page.iter().enumerate() {
                let call = launches
                    .iter()
                    .find(|(_, key)| keys.iter().position(|k| *k == Some(*key)) == Some(a))
                    .map(|(t, _)| paging.turns[*t]);
                proptest::prop_assert_eq!(*page, call);
            }
        }
    }
}
