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

use super::files::Found;
use super::paging::{paginate, AgentLinks, PageSpan};
use crate::base::stored;
use crate::knowledge::model::Session;
use crate::knowledge::spill::Spill;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bump when [`Layout`] or what it is made from changes.
const FORMAT: u32 = 1;

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
    /// Lay out `s`, reading its turns back from `spill`.
    pub fn of(s: &Session, spill: &Spill) -> Result<Layout, crate::Error> {
        let (turns, agents) = spill.load_session(s)?;
        let paging = paginate(&turns, &agents);
        let links = AgentLinks::new(&turns, s.subagents.iter().map(|a| a.prompt_key), &paging);
        let texts = crate::site::search::session_texts(&turns, &agents, &paging);
        let spans = paging.spans(&turns);
        let found = super::files::found_in(&turns, |t| {
            spans
                .iter()
                .position(|sp| sp.turns.contains(&t))
                .unwrap_or(0)
        });
        Ok(Layout {
            spans,
            agents: links,
            texts,
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
        let Some(dir) = crate::base::dirs::site_cache_dir(out, root) else {
            return Layouts::default();
        };
        let path = dir.join("layouts.bin");
        let old = stored::read::<Stored>(&path)
            .filter(|s| {
                s.format == FORMAT
                    && s.version == env!("CARGO_PKG_VERSION")
                    && s.binary == crate::base::dirs::this_binary()
            })
            .map(|s| s.layouts)
            .unwrap_or_default();
        Layouts {
            path: Some(path),
            old,
            new: Mutex::default(),
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
}
