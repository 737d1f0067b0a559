//! What a finished conversation's digest takes from its turns (its first
//! prompt, first and last answers): worked out once, when its turns are
//! read or cached, so a conversation served from the cache never has its
//! turns decoded for it.

use crate::base::text::is_thematic_break;
use crate::knowledge::model::{Block, Text, Turn, Turns};
use crate::knowledge::spill::Spill;
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;

/// The texts a digest takes from a conversation's turns, as they are in
/// the turns (cut and redacted to one line by [`super::ReaderState::into_digest`],
/// as if the turns were there).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Firsts {
    pub prompt: Option<Text>,
    pub answer: Option<Text>,
    /// The first command, when there is no answer (it stands in for one).
    pub command: Option<String>,
    /// The first paragraph of the last answer.
    pub last_answer: Option<String>,
}

impl Firsts {
    /// What the digest takes from `turns`, reading back (through `spill`)
    /// only the chunks it needs: from the start until the first prompt
    /// worth a title and the first answer are found (the first command on
    /// the way, which stands in for an answer only when there is none),
    /// and from the end until the last answer is.
    pub fn of(turns: &Turns, spill: &Spill) -> Firsts {
        let mut f = Firsts::default();
        // The first prompt, until one worth a title is found.
        let mut any_prompt = None;
        // A chunk that cannot be read back gives nothing: a title is lost,
        // the failure is reported where the turns are loaded for pages.
        let _ = spill.visit(turns, false, |turns| {
            if f.prompt.is_none() {
                let mut prompts = turns.iter().filter_map(|t| match t {
                    Turn::Prompt { text, .. } => Some(text),
                    _ => None,
                });
                if any_prompt.is_none() {
                    any_prompt = prompts.clone().next().cloned();
                }
                f.prompt = prompts
                    .find(|t| crate::base::text::title_line(t).is_some())
                    .cloned();
            }
            f.answer = f.answer.take().or_else(|| first_answer(turns).cloned());
            f.command = f.command.take().or_else(|| first_command(turns));
            // The command stands in for an answer only when there is none.
            if f.prompt.is_some() && f.answer.is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        f.prompt = f.prompt.or(any_prompt);
        if f.answer.is_some() {
            // Not needed, and kept the same however the turns are cut.
            f.command = None;
        }
        let _ = spill.visit(turns, true, |turns| match last_answer(turns) {
            Some(t) => {
                f.last_answer = Some(first_paragraph(t).to_string());
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        });
        f
    }
}

/// The first command the user ran, with its arguments (`/context`): all
/// some sessions hold.
fn first_command(turns: &[Turn]) -> Option<String> {
    turns.iter().find_map(|t| match t {
        Turn::Command { name, args, .. } => Some(format!("{name} {args}").trim().to_string()),
        _ => None,
    })
}

/// The last text of the last answer in `turns`.
fn last_answer(turns: &[Turn]) -> Option<&Text> {
    turns.iter().rev().find_map(|t| match t {
        Turn::Assistant { blocks, .. } => blocks.iter().rev().find_map(|b| match b {
            Block::Text(text) => Some(text),
            _ => None,
        }),
        _ => None,
    })
}

/// A text's first paragraph that is not a heading or a rule (an answer
/// that opens with `---` ended with nothing to read but a line).
fn first_paragraph(text: &str) -> &str {
    text.split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#') && !is_thematic_break(p))
        .unwrap_or(text)
}

/// The first text of the first answer in `turns`.
fn first_answer(turns: &[Turn]) -> Option<&Text> {
    turns.iter().find_map(|t| match t {
        Turn::Assistant { blocks, .. } => blocks.iter().find_map(|b| match b {
            Block::Text(text) => Some(text),
            _ => None,
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::model::CompactKind;

    fn prompt(text: &str) -> Turn {
        Turn::Prompt {
            ts: None,
            text: Text::test(text),
        }
    }

    fn answer(text: &str) -> Turn {
        Turn::Assistant {
            ts: None,
            model: None,
            blocks: vec![Block::Text(Text::test(text))],
        }
    }

    fn command(name: &str) -> Turn {
        Turn::Command {
            ts: None,
            name: Text::test(name),
            args: Text::test(""),
        }
    }

    #[test]
    fn where_it_ended_skips_headings_and_rules() {
        assert_eq!(
            first_paragraph("---\n\nDone: all green."),
            "Done: all green."
        );
        assert_eq!(
            first_paragraph("# Summary\n\n* * *\n\n___\n\nDone."),
            "Done."
        );
        assert_eq!(first_paragraph("- a list\n\nmore"), "- a list");
        assert_eq!(first_paragraph("--\n\nx"), "--");
        assert_eq!(first_paragraph("-*-\n\nx"), "-*-");
        // nothing else to show: the text as it is
        assert_eq!(first_paragraph("---"), "---");
    }

    #[test]
    fn the_same_firsts_from_held_turns_and_from_chunks_read_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let filler = |n: usize| -> Vec<Turn> {
            (0..n)
                .map(|i| Turn::Compaction {
                    ts: None,
                    kind: CompactKind::Micro,
                    summary: Some(Text::test(&format!("{i} {}", "z".repeat(3000)))),
                })
                .collect()
        };
        let cases: Vec<Vec<Turn>> = vec![
            // A command long before the first answer, a title only later.
            [
                vec![prompt("/x"), command("/context")],
                filler(60),
                vec![prompt("## A title\n\nwhy"), answer("# Head\n\nFirst.")],
                filler(60),
                vec![answer("Last one.\n\nmore")],
            ]
            .concat(),
            // No answer at all: the command stands in.
            [
                filler(50),
                vec![command("/cost")],
                filler(50),
                vec![prompt("```")],
            ]
            .concat(),
            // Nothing but filler.
            filler(40),
        ];
        for (k, turns) in cases.into_iter().enumerate() {
            let held = Turns::from(turns.clone());
            let mut stored = Turns::from(turns);
            spill.stow(&mut stored);
            let (a, b) = (Firsts::of(&held, &spill), Firsts::of(&stored, &spill));
            assert_eq!(a, b, "case {k}");
            match k {
                0 => {
                    assert_eq!(a.prompt.as_deref(), Some("## A title\n\nwhy"));
                    assert_eq!(a.answer.as_deref(), Some("# Head\n\nFirst."));
                    assert_eq!(a.last_answer.as_deref(), Some("Last one."));
                    assert_eq!(a.command, None);
                }
                1 => {
                    assert_eq!(a.prompt.as_deref(), Some("```"));
                    assert_eq!(
                        (a.answer.as_deref(), a.command.as_deref()),
                        (None, Some("/cost"))
                    );
                }
                _ => assert_eq!(a, Firsts::default()),
            }
        }
        assert!(spill.written() > 5 * (64 << 10), "several chunks");
    }
}
