//! What a session's turns decide about its pages (where each page starts
//! and ends, which call started which sub-agent, the texts its search
//! document holds, the calls that changed a file), kept between builds
//! beside the cache and keyed by what the turns are. A rebuild reads back
//! only the turns of sessions that changed: laying out every session again
//! meant reading all their turns (a gigabyte of transcripts holds 70 MB of
//! them, and one long session all at once).
//!
//! Only sessions with more than a chunk of turns are kept: a short one is
//! laid out again faster than it is kept. Losing the file costs one build
//! the time to lay out every session again.

use super::files::{found_in, Found};
use super::paging::{launches, session_anchor, turn_chars, AgentLinks, Anchors, PageSpan, Paging};
use crate::base::stored;
use crate::knowledge::model::Session;
use crate::knowledge::spill::Spill;
use crate::site::search::SessionTexts;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bump when [`Layout`] or what it is made from changes.
const FORMAT: u32 = 2;

/// Sessions whose turns take fewer bytes than this are not kept (a
/// hundred thousand of three turns each are laid out again in a moment,
/// and would make the file as large as the data).
const KEPT_FROM: u64 = 16 << 10;

/// One session's layout.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Layout {
    pub spans: Vec<PageSpan>,
    pub agents: AgentLinks,
    /// The search document's texts, each with its anchor.
    pub texts: Vec<(String, String)>,
    /// The calls that changed a file.
    pub found: Vec<Found>,
}

impl Layout {
    /// Lay out `s`, reading its turns back from `spill` a chunk at a time,
    /// once: where each turn goes, its prompts and answers for search, the
    /// calls that changed a file or started a sub-agent; then each
    /// sub-agent.
    pub fn of(s: &Session, spill: &Spill) -> Result<Layout, crate::Error> {
        let mut paging = Paging::default();
        let mut texts = SessionTexts::default();
        // Answers come after every prompt in the search texts: the first
        // of them (as many as could ever fit) wait here.
        let mut answers = SessionTexts::default();
        let mut found = Vec::new();
        let mut launched = Vec::new();
        let mut anchors = Anchors::default();
        spill.visit(&s.turns, false, |turns| {
            let first = paging.turns.len();
            paging.add_turns(turns);
            for (k, t) in turns.iter().enumerate() {
                let (i, page) = (first + k, paging.turns[first + k]);
                let anchor = anchors.next(t, "");
                texts.prompt(t, || session_anchor(page, &anchor));
                answers.answer(t, || session_anchor(page, &anchor));
                found_in(t, i, page, &mut found);
                launched.extend(launches(t).map(|key| (i, key)));
            }
            ControlFlow::Continue(())
        })?;
        texts.append(answers);
        for (k, a) in s.subagents.iter().enumerate() {
            // Its page is known once all its turns are counted: its texts
            // are anchored there after.
            let (mut chars, from) = (0, texts.len());
            spill.visit(&a.turns, false, |turns| {
                for t in turns {
                    chars += turn_chars(t);
                    texts.answer_texts(t, String::new);
                }
                ControlFlow::Continue(())
            })?;
            let page = paging.add_subagent(chars);
            texts.anchor_from(from, &session_anchor(page, &format!("agent-{}", k + 1)));
        }
        let keys = s.subagents.iter().map(|a| a.prompt_key);
        Ok(Layout {
            spans: paging.spans(),
            agents: AgentLinks::new(&launched, keys, &paging),
            texts: texts.into_texts(),
            found,
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    format: u32,
    version: String,
    /// This binary (see [`crate::base::dirs::this_binary`]): a layout is
    /// the code's as much as the turns'.
    binary: (u64, i64),
    layouts: HashMap<u64, Layout>,
}

/// The layouts of one output directory: last build's, and this one's.
#[derive(Debug, Default)]
pub struct Layouts {
    /// `layouts.bin`; None when nothing is kept.
    path: Option<PathBuf>,
    old: HashMap<u64, Layout>,
    /// This build's, by key: None for one of `old` (not held twice).
    new: Mutex<HashMap<u64, Option<Layout>>>,
}

impl Layouts {
    /// The layouts kept for output directory `out` under `root` (else the
    /// user's cache directory).
    pub fn open(out: &Path, root: Option<&Path>) -> Layouts {
        let fits = |s: &Stored| {
            s.format == FORMAT
                && s.version == env!("CARGO_PKG_VERSION")
                && s.binary == crate::base::dirs::this_binary()
        };
        match stored::open_site_file(out, root, "layouts.bin", fits) {
            Some((path, last)) => Layouts {
                path: Some(path),
                old: last.map(|s| s.layouts).unwrap_or_default(),
                new: Mutex::default(),
            },
            None => Layouts::default(),
        }
    }

    /// Layouts that are neither read nor kept.
    pub fn disabled() -> Layouts {
        Layouts::default()
    }

    /// The layout of `s`: last build's when its turns are the same, else
    /// made from them (and kept for the next build when it is long).
    pub fn get(&self, s: &Session, spill: &Spill) -> Result<Layout, crate::Error> {
        let key = self.path.as_ref().and_then(|_| key(s));
        if let Some(k) = key {
            if let Some(layout) = self.old.get(&k) {
                self.keep(k, None);
                return Ok(layout.clone());
            }
        }
        let layout = Layout::of(s, spill)?;
        if let Some(k) = key {
            self.keep(k, Some(layout.clone()));
        }
        Ok(layout)
    }

    fn keep(&self, key: u64, layout: Option<Layout>) {
        self.new
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, layout);
    }

    /// Keep this build's layouts for the next one, when they are not those
    /// already kept. Failure only costs time next build.
    pub fn save(mut self) {
        let Some(path) = self.path else { return };
        let new = self.new.into_inner().unwrap_or_else(|e| e.into_inner());
        if new.len() == self.old.len() && new.values().all(Option::is_none) {
            return;
        }
        let layouts = new
            .into_iter()
            .filter_map(|(k, made)| Some((k, made.or_else(|| self.old.remove(&k))?)))
            .collect();
        let stored = Stored {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            binary: crate::base::dirs::this_binary(),
            layouts,
        };
        stored::replace_with(&path, &stored);
    }
}

/// What `s`'s layout is made of: its turns and its sub-agents' (by the
/// identity of the chunks that hold them) and the keys that tie each
/// sub-agent to its call. None for a short session, or one whose turns
/// are held in memory (nothing to know them by).
fn key(s: &Session) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let bytes = s.turns.stored_bytes()
        + s.subagents
            .iter()
            .map(|a| a.turns.stored_bytes())
            .sum::<u64>();
    if bytes < KEPT_FROM {
        return None;
    }
    let mut h = crate::base::hash::hasher();
    FORMAT.hash(&mut h);
    if !s.turns.identity(0..s.turns.len(), &mut h) {
        return None;
    }
    for a in &s.subagents {
        a.prompt_key.hash(&mut h);
        if !a.turns.identity(0..a.turns.len(), &mut h) {
            return None;
        }
    }
    Some(h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::model::{Text, Turn, Turns};

    fn session(spill: &Spill, words: &str) -> Session {
        let turns: Vec<Turn> = (0..40)
            .map(|i| Turn::Prompt {
                ts: None,
                text: Text::test(&format!("## Part {i}\n\n{}", words.repeat(60))),
            })
            .collect();
        let mut turns = Turns::from(turns);
        spill.stow(&mut turns);
        Session {
            id: Text::test("s1"),
            turns,
            ..Session::default()
        }
    }

    #[test]
    fn a_long_session_is_laid_out_once_and_again_only_when_its_turns_change() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("site");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let s = session(&spill, "twenty one bytes long ");
        assert!(s.turns.stored_bytes() >= KEPT_FROM);

        let first = Layouts::open(&out, Some(dir.path()));
        let made = first.get(&s, &spill).expect("laid out");
        assert!(made.texts.iter().any(|(_, t)| t.contains("Part 3")));
        first.save();

        // Kept: served without reading a turn (this spill has no file).
        let kept = Layouts::open(&out, Some(dir.path()));
        let served = kept.get(&s, &Spill::none()).expect("kept layout");
        assert_eq!(format!("{served:?}"), format!("{made:?}"));

        // Other turns: laid out from them, so reading is needed again.
        let other = session(&spill, "other words, same size");
        assert!(kept.get(&other, &Spill::none()).is_err());
        assert!(kept.get(&other, &spill).is_ok());

        // A short session is not kept.
        let short = Session {
            turns: Turns::from(vec![Turn::Prompt {
                ts: None,
                text: Text::test("hi"),
            }]),
            ..Session::default()
        };
        assert_eq!(key(&short), None);
    }

    /// A session of every kind of turn, `seed` deciding their kinds, sizes
    /// and which calls start which of its sub-agents.
    fn mixed(seed: u64) -> (Vec<Turn>, Vec<Vec<Turn>>) {
        use crate::knowledge::model::{Block, CompactKind, Edit, ToolCall};
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n.max(1)
        };
        let text =
            |n: u64, tag: &str| Text::test(&format!("{tag} {}", "words ".repeat(n as usize)));
        let agents = next(4) as usize;
        let turn = |i: usize, next: &mut dyn FnMut(u64) -> u64| match next(6) {
            0 => Turn::Prompt {
                ts: None,
                text: text(next(3000), &format!("prompt {i}")),
            },
            1 => Turn::Command {
                ts: None,
                name: Text::test("/review"),
                args: text(next(20), "args"),
            },
            2 => Turn::Compaction {
                ts: None,
                kind: CompactKind::Full,
                summary: (next(2) == 0).then(|| text(next(500), "summary")),
            },
            _ => Turn::Assistant {
                ts: None,
                model: None,
                blocks: (0..1 + next(3))
                    .map(|b| match next(3) {
                        0 => Block::Text(text(next(4000), &format!("answer {i}.{b}"))),
                        _ => Block::Tool(ToolCall {
                            name: Text::test("Edit"),
                            arg: Text::test(&format!("src/file{}.rs", next(5))),
                            input: text(next(200), "input"),
                            result: Some(text(next(800), "result")),
                            result_bytes: 10,
                            error: false,
                            launches: (next(4) == 0).then(|| next(agents as u64 + 1)),
                            edits: (0..next(2))
                                .map(|_| Edit {
                                    old: text(next(300), "old"),
                                    new: text(next(300), "new"),
                                })
                                .collect(),
                        }),
                    })
                    .collect(),
            },
        };
        let turns: Vec<Turn> = (0..next(600) as usize)
            .map(|i| turn(i, &mut next))
            .collect();
        let subagents = (0..agents)
            .map(|_| (0..next(40) as usize).map(|i| turn(i, &mut next)).collect())
            .collect();
        (turns, subagents)
    }

    /// The search texts as first written, from all the turns at once:
    /// every prompt, then every answer, then the sub-agents' answers, each
    /// cut, within the budget.
    fn reference_texts(turns: &[Turn], agents: &[Vec<Turn>], l: &Layout) -> Vec<(String, String)> {
        use crate::knowledge::model::Block;
        use crate::site::search::{BLOCK_CHARS, TEXT_CHARS};
        let page_of = |t: usize| l.spans.iter().position(|s| s.turns.contains(&t)).unwrap();
        let mut n = 0;
        let anchors: Vec<String> = (0..turns.len())
            .map(|t| match &turns[t] {
                Turn::Prompt { .. } | Turn::Assistant { .. } => {
                    n += 1;
                    let letter = if matches!(turns[t], Turn::Prompt { .. }) {
                        'p'
                    } else {
                        'a'
                    };
                    session_anchor(page_of(t), &format!("{letter}{n}"))
                }
                _ => session_anchor(page_of(t), ""),
            })
            .collect();
        let mut candidates: Vec<(String, String)> = Vec::new();
        for (t, turn) in turns.iter().enumerate() {
            if let Turn::Prompt { text, .. } = turn {
                candidates.push((anchors[t].clone(), text.to_string()));
            }
        }
        for (t, turn) in turns.iter().enumerate() {
            match turn {
                Turn::Assistant { blocks, .. } => {
                    candidates.extend(blocks.iter().filter_map(|b| match b {
                        Block::Text(x) => Some((anchors[t].clone(), x.to_string())),
                        Block::Tool(_) => None,
                    }))
                }
                Turn::Command { name, args, .. } => {
                    candidates.push((anchors[t].clone(), format!("{name} {args}")))
                }
                Turn::Compaction {
                    summary: Some(x), ..
                } => candidates.push((anchors[t].clone(), x.to_string())),
                _ => {}
            }
        }
        for (k, a) in agents.iter().enumerate() {
            let page = l
                .spans
                .iter()
                .position(|s| s.subagents.contains(&k))
                .unwrap();
            let anchor = session_anchor(page, &format!("agent-{}", k + 1));
            for turn in a {
                if let Turn::Assistant { blocks, .. } = turn {
                    for b in blocks {
                        if let Block::Text(x) = b {
                            candidates.push((anchor.clone(), x.to_string()));
                        }
                    }
                }
            }
        }
        let mut budget = TEXT_CHARS;
        let mut out = Vec::new();
        for (anchor, text) in candidates {
            if budget == 0 || text.trim().is_empty() {
                continue;
            }
            let cut: String = text.chars().take(BLOCK_CHARS.min(budget)).collect();
            budget -= cut.chars().count();
            out.push((anchor, cut));
        }
        out
    }

    #[test]
    fn a_session_is_laid_out_the_same_from_held_turns_and_from_stored_chunks() {
        use crate::knowledge::model::{SubagentLayout, SubagentRole};
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let (mut pages, mut answered, mut agents_searched) = (0, 0, 0);
        for seed in 0..24 {
            let (turns, agents) = mixed(seed);
            let session = |stow: bool| {
                let list = |t: &Vec<Turn>| {
                    let mut t = Turns::from(t.clone());
                    if stow {
                        spill.stow(&mut t);
                    }
                    t
                };
                Session {
                    turns: list(&turns),
                    subagents: agents
                        .iter()
                        .enumerate()
                        .map(|(k, a)| crate::knowledge::model::Subagent {
                            id: Text::test(&format!("agent {k}")),
                            layout: SubagentLayout::Inline,
                            role: SubagentRole::Task,
                            agent_type: None,
                            description: None,
                            turns: list(a),
                            assistant_turns: 0,
                            started: None,
                            prompt_key: Some(k as u64),
                            usage_by_model: Default::default(),
                            uses: Default::default(),
                        })
                        .collect(),
                    ..Session::default()
                }
            };
            let held = Layout::of(&session(false), &Spill::none()).expect("held");
            let stored = Layout::of(&session(true), &spill).expect("stored");
            // (as values: the map of keys compares without its order)
            let json = |l: &Layout| serde_json::to_value(l).expect("json");
            assert_eq!(json(&held), json(&stored), "seed {seed}");
            assert_eq!(
                held.texts,
                reference_texts(&turns, &agents, &held),
                "seed {seed}"
            );
            let has = |what: &str| {
                held.texts
                    .iter()
                    .any(|(a, t)| a.contains(what) || t.starts_with(what))
            };
            answered += usize::from(has("answer"));
            agents_searched += usize::from(has("agent-"));
            pages += held.spans.len();
            // The layout covers every turn and sub-agent once, in order.
            let covered: Vec<usize> = held.spans.iter().flat_map(|s| s.turns.clone()).collect();
            assert_eq!(covered, (0..turns.len()).collect::<Vec<_>>(), "seed {seed}");
            let agents_on: usize = held.spans.iter().map(|s| s.subagents.len()).sum();
            assert_eq!(agents_on, agents.len(), "seed {seed}");
        }
        assert!(spill.written() > 64 << 10, "many chunks were stored");
        assert!(pages > 24, "some sessions took several pages: {pages}");
        assert!(
            answered > 0 && agents_searched > 0,
            "{answered} {agents_searched}"
        );
    }
}
