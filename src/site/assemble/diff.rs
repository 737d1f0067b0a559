//! An edit as a diff: lines removed and added, the words that changed
//! inside a changed line marked.

use crate::knowledge::model::Edit;
use crate::site::highlight::Syntax;
use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// The largest edit (both sides) whose lines are coloured.
const COLOURED_EDIT: usize = 600;

/// The most lines a replaced block may have on either side for the words
/// that changed inside its lines to be marked: word marks help read a
/// small change; over a rewritten block they are noise, and finding them
/// was the costliest part of a diff.
const MARKED_LINES: usize = 12;

/// One line of a diff.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct DiffLine {
    /// `del`, `ins`, `same`, or `gap` between two edits.
    pub kind: &'static str,
    pub parts: Vec<DiffPart>,
    /// The line highlighted (escaped HTML), for a line whose words are not
    /// marked: marks and colours are not shown together. Never skipped
    /// when serialised: page fingerprints need every field.
    pub html: Option<String>,
}

/// A run of a line's text; `mark`: the words that changed.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct DiffPart {
    pub text: String,
    pub mark: bool,
}

/// The lines of every edit of the file at `path`, in order, a `gap` line
/// between two; lines coloured by the file's language when it is known.
pub fn diff(path: &str, edits: &[Edit]) -> Vec<DiffLine> {
    // Only small edits (the common case) are coloured, never whole files
    // written: colour is cheap to make but doubles a line's bytes, and
    // colouring every edit of a gigabyte of sessions made its site a
    // fifth larger (119 -> 144 MB) and its rendering a third slower.
    let size: usize = edits.iter().map(|e| e.old.len() + e.new.len()).sum();
    let syntax = (size <= COLOURED_EDIT)
        .then(|| crate::site::highlight::for_path(path))
        .flatten();
    let mut out = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        if i > 0 {
            out.push(DiffLine {
                kind: "gap",
                parts: Vec::new(),
                html: None,
            });
        }
        let d = TextDiff::from_lines(e.old.as_str(), e.new.as_str());
        for op in d.ops() {
            let (_, old, new) = op.as_tag_tuple();
            if old.len().max(new.len()) > MARKED_LINES {
                for change in d.iter_changes(op) {
                    let text = change.value().trim_end_matches(['\n', '\r']);
                    // A blank line has no parts, as in a marked block.
                    let parts = (!text.is_empty())
                        .then(|| DiffPart {
                            text: text.to_string(),
                            mark: false,
                        })
                        .into_iter()
                        .collect();
                    out.push(line(change.tag(), parts, syntax));
                }
                continue;
            }
            // Without similar's default half-second deadline: a block this
            // small is marked in microseconds, and a deadline read the clock
            // at every step (a tenth of a diff's time) and made the marks
            // depend on how fast the machine was.
            for change in d.iter_inline_changes_deadline(op, None) {
                let mut parts: Vec<DiffPart> = Vec::new();
                for (mark, text) in change.iter_strings_lossy() {
                    let text = text.trim_end_matches(['\n', '\r']);
                    if text.is_empty() {
                        continue;
                    }
                    // A changed line wholly changed needs no marks.
                    match parts.last_mut() {
                        Some(last) if last.mark == mark => last.text.push_str(text),
                        _ => parts.push(DiffPart {
                            text: text.to_string(),
                            mark,
                        }),
                    }
                }
                if parts.len() == 1 {
                    parts[0].mark = false;
                }
                out.push(line(change.tag(), parts, syntax));
            }
        }
    }
    out
}

/// One line of a diff; coloured when it is one run of text and `syntax`
/// is known.
fn line(tag: ChangeTag, parts: Vec<DiffPart>, syntax: Option<&Syntax>) -> DiffLine {
    let kind = match tag {
        ChangeTag::Delete => "del",
        ChangeTag::Insert => "ins",
        ChangeTag::Equal => "same",
    };
    let html = match (syntax, parts.as_slice()) {
        (Some(s), [only]) => crate::site::highlight::line(s, &only.text),
        _ => None,
    };
    DiffLine { kind, parts, html }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::redact::Text;

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old: Text::test(old),
            new: Text::test(new),
        }
    }

    fn shown(lines: &[DiffLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let text: String = l
                    .parts
                    .iter()
                    .map(|p| {
                        if p.mark {
                            format!("[{}]", p.text)
                        } else {
                            p.text.clone()
                        }
                    })
                    .collect();
                format!("{} {text}", l.kind)
            })
            .collect()
    }

    #[test]
    fn a_rewritten_block_shows_its_lines_without_word_marks() {
        let old: String = (0..20).map(|i| format!("let a{i} = {i};\n")).collect();
        let new: String = (0..20).map(|i| format!("let b{i} = {i};\n")).collect();
        let lines = diff("x.txt", &[edit(&old, &new)]);
        assert_eq!(lines.iter().filter(|l| l.kind == "del").count(), 20);
        assert_eq!(lines.iter().filter(|l| l.kind == "ins").count(), 20);
        assert!(lines.iter().all(|l| l.parts.iter().all(|p| !p.mark)));
        assert!(shown(&lines).contains(&"del let a3 = 3;".to_string()));
        assert!(shown(&lines).contains(&"ins let b19 = 19;".to_string()));
    }

    #[test]
    fn changed_words_are_marked_inside_changed_lines() {
        let lines = diff(
            "notes.txt",
            &[edit(
                "let a = 1;\nlet b = lock().unwrap();\n",
                "let a = 1;\nlet b = lock()?;\n",
            )],
        );
        // Words are what whitespace separates.
        assert_eq!(
            shown(&lines),
            [
                "same let a = 1;",
                "del let b = [lock().unwrap();]",
                "ins let b = [lock()?;]",
            ]
        );
    }

    #[test]
    fn lines_of_a_known_language_are_coloured_unless_their_words_are_marked() {
        let lines = diff(
            "src/a.rs",
            &[edit("let a = 1;\nfn f() {}\n", "let a = 2;\nfn f() {}\n")],
        );
        let f = lines.iter().find(|l| l.kind == "same").expect("same line");
        assert!(
            f.html.as_deref().is_some_and(|h| h.contains("hl-")),
            "{f:?}"
        );
        let changed = lines.iter().find(|l| l.kind == "del").expect("del line");
        assert!(changed.html.is_none() && changed.parts.iter().any(|p| p.mark));
        assert!(diff("a.txt", &[edit("", "x\n")])[0].html.is_none());
    }

    #[test]
    fn a_new_file_is_all_added_and_edits_are_set_apart() {
        let lines = diff(
            "notes.txt",
            &[edit("", "fn main() {}\n"), edit("a\n", "b\n")],
        );
        assert_eq!(
            shown(&lines),
            ["ins fn main() {}", "gap ", "del a", "ins b"]
        );
    }
}
