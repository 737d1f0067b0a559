//! `[aliases]` in ccwiki.toml: other paths of one project (a worktree, a
//! moved folder, another machine's home) filed under the project's own.

use crate::knowledge::model::Knowledge;
use crate::knowledge::redact::{Redactor, Scrub, Text};

/// Path prefixes and what they stand for, redacted as the paths they are
/// matched against.
#[derive(Debug, Default)]
pub struct Aliases(Vec<(String, String)>);

impl Aliases {
    /// `pairs` as the user wrote them (`from = to`), longest `from` first
    /// so that the most specific alias wins.
    pub fn new(pairs: &[(String, String)], redactor: &Redactor) -> Aliases {
        let mut out: Vec<(String, String)> = pairs
            .iter()
            .map(|(from, to)| {
                let clean = |p: &str| {
                    redactor
                        .redact(p.trim().trim_end_matches(['/', '\\']))
                        .into_owned()
                };
                (clean(from), clean(to))
            })
            .filter(|(from, _)| !from.is_empty())
            .collect();
        out.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        Aliases(out)
    }

    /// `path` with an alias's prefix replaced, if one matches at a path
    /// boundary.
    fn map(&self, path: &str) -> Option<String> {
        self.0.iter().find_map(|(from, to)| {
            let rest = path.strip_prefix(from.as_str())?;
            (rest.is_empty() || rest.starts_with(['/', '\\'])).then(|| format!("{to}{rest}"))
        })
    }

    fn apply(&self, text: &mut Option<Text>, scrub: &mut Scrub<'_>) {
        if let Some(mapped) = text.as_deref().and_then(|t| self.map(t)) {
            *text = Some(scrub.text(&mapped));
        }
    }

    /// File every session, history prompt and session start under the
    /// path its alias names.
    pub fn apply_to(&self, knowledge: &mut Knowledge, redactor: &Redactor) {
        if self.0.is_empty() {
            return;
        }
        let mut scrub = Scrub::new(redactor);
        for s in &mut knowledge.sessions {
            self.apply(&mut s.cwd, &mut scrub);
        }
        for h in &mut knowledge.history {
            self.apply(&mut h.project, &mut scrub);
        }
        for s in &mut knowledge.starts {
            self.apply(&mut s.cwd, &mut scrub);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_matches_whole_path_parts_and_the_longest_wins() {
        let r = Redactor::disabled();
        let a = Aliases::new(
            &[
                (
                    "/Users/dana/code/tide".to_string(),
                    "/home/dana/code/tide".to_string(),
                ),
                (
                    "/Users/dana/code/tide/wt/".to_string(),
                    "/home/dana/code/tide".to_string(),
                ),
            ],
            &r,
        );
        assert_eq!(
            a.map("/Users/dana/code/tide").as_deref(),
            Some("/home/dana/code/tide")
        );
        assert_eq!(
            a.map("/Users/dana/code/tide/src").as_deref(),
            Some("/home/dana/code/tide/src")
        );
        assert_eq!(
            a.map("/Users/dana/code/tide/wt/x").as_deref(),
            Some("/home/dana/code/tide/x")
        );
        assert_eq!(a.map("/Users/dana/code/tide-api"), None);
    }
}
