//! What a finished conversation's digest takes from its turns (its first
//! prompt, first and last answers): worked out once, when its turns are
//! read or cached, so a conversation served from the cache never has its
//! turns decoded for it.

use crate::knowledge::model::{Block, Text, Turn};
use serde::{Deserialize, Serialize};

/// The texts a digest takes from a conversation's turns, as they are in
/// the turns (cut and redacted to one line by [`super::ReaderState::into_digest`],
/// as if the turns were there).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Firsts {
    pub prompt: Option<Text>,
    pub answer: Option<Text>,
    pub command: Option<String>,
    /// The first paragraph of the last answer.
    pub last_answer: Option<String>,
}

impl Firsts {
    pub fn of(turns: &[Turn]) -> Firsts {
        Firsts {
            prompt: first_prompt(turns).cloned(),
            answer: first_answer(turns).cloned(),
            command: first_command(turns),
            last_answer: last_answer(turns).map(|t| first_paragraph(t).to_string()),
        }
    }
}

/// The first prompt in `turns` with a line worth a title (not only a
/// command or Markdown syntax), else the first prompt.
fn first_prompt(turns: &[Turn]) -> Option<&Text> {
    let mut prompts = turns.iter().filter_map(|t| match t {
        Turn::Prompt { text, .. } => Some(text),
        _ => None,
    });
    let first = prompts.clone().next();
    prompts
        .find(|t| crate::base::text::title_line(t).is_some())
        .or(first)
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

/// A text's first paragraph that is not a heading.
fn first_paragraph(text: &str) -> &str {
    text.split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#'))
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
