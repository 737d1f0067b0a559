//! The screen: one search for every literal that a rule's match must
//! hold, which tells a round of the rules what it can skip.
//!
//! Most texts of a transcript are short (a command, a path, a line of a
//! tool's output: 256,000 of the 285,000 texts of 1 GB of transcripts, 88
//! bytes on average), and on those a round's cost is a dozen searches'
//! fixed costs, not bytes: 1.1 µs a text. The screen is one search (0.1
//! µs); a text it finds nothing in is clean, and one it finds only a home
//! path in runs only the rules that can touch it. Long texts (tool output
//! up to the redactor's window, 1–4 KB: three quarters of the bytes) are
//! screened too: the union of the literals is a slower search (about
//! 600 MB/s, no SIMD prefilter) than each rule's own, but on real output
//! the rules' literals are everywhere (paths under the home, `api`,
//! `token`), so their prefilters stop all the time, and the screen lets
//! most rules skip the text: 6 % less redaction time on 1 GB of
//! transcripts than letting every rule run on long texts. Its literals
//! are drawn from the rules' regexes by the regex parser's own literal
//! extraction, so they cannot drift from the rules; a rule whose matches
//! need not hold a literal (none now) leaves the screen out.

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex_syntax::hir::literal::Extractor;
use std::collections::BTreeMap;

/// What a literal found in a text lets run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Gate {
    /// The rules behind this one of `Redactor::trigger_rest` (which
    /// checks the text then).
    Rest(usize),
    /// The URL rule (`://`).
    Url,
    /// The home and name rule.
    People,
    /// The table pattern of this index into `Redactor::extras`.
    Pattern(usize),
}

/// The rules a text needs, as the screen found them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Needs {
    /// Bit `i`: the `i`th of `Redactor::trigger_rest` may match.
    pub rest: u32,
    pub url: bool,
    pub people: bool,
}

pub(super) struct Screen {
    /// Every literal, ASCII-lower-cased, searched for in any ASCII case
    /// (a superset of what each rule's own case rules find).
    literals: AhoCorasick,
    /// For each literal, the gates it opens.
    gates: Vec<Vec<Gate>>,
}

impl Screen {
    /// The screen for the rules behind `rest` (regexes), the home and
    /// name rule (`people`: regexes, one of which every match of the rule
    /// holds a match of) and the table patterns' `keywords` (lower-cased,
    /// with their pattern's index). None when one of the regexes has
    /// matches without a literal.
    pub(super) fn new(
        rest: &[String],
        people: &[String],
        keywords: &[(Box<[u8]>, usize)],
    ) -> Option<Screen> {
        let mut found: Vec<(Vec<u8>, Gate)> = vec![(b"://".to_vec(), Gate::Url)];
        let sources = rest
            .iter()
            .enumerate()
            .map(|(i, source)| (source, Gate::Rest(i)))
            .chain(people.iter().map(|source| (source, Gate::People)));
        for (source, gate) in sources {
            for literal in required_literals(source)? {
                found.push((literal, gate));
            }
        }
        for (keyword, p) in keywords {
            found.push((keyword.to_vec(), Gate::Pattern(*p)));
        }
        let mut by_literal: BTreeMap<Vec<u8>, Vec<Gate>> = BTreeMap::new();
        for (mut literal, gate) in found {
            literal.make_ascii_lowercase();
            let gates = by_literal.entry(literal).or_default();
            if !gates.contains(&gate) {
                gates.push(gate);
            }
        }
        let (literals, gates): (Vec<_>, Vec<_>) = by_literal.into_iter().unzip();
        let literals = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&literals)
            .ok()?;
        Some(Screen { literals, gates })
    }

    /// What `text` needs; sets `patterns[p]` for each table pattern whose
    /// keyword it holds (as `Redactor::patterns_for` would).
    pub(super) fn scan(&self, text: &str, patterns: &mut [bool]) -> Needs {
        let mut needs = Needs::default();
        for m in self.literals.find_overlapping_iter(text) {
            for gate in &self.gates[m.pattern().as_usize()] {
                match *gate {
                    Gate::Rest(i) => needs.rest |= 1 << i,
                    Gate::Url => needs.url = true,
                    Gate::People => needs.people = true,
                    Gate::Pattern(p) => {
                        if let Some(run) = patterns.get_mut(p) {
                            *run = true;
                        }
                    }
                }
            }
        }
        needs
    }
}

/// Literals one of which starts every match of `pattern`; None when
/// there are matches that need none (an empty literal, or too many to
/// list).
fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let seq = Extractor::new().extract(&hir);
    let literals = seq.literals()?;
    if literals.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(literals.iter().map(|l| l.as_bytes().to_vec()).collect())
}

#[cfg(test)]
mod tests {
    use super::super::{RedactConfig, Redactor};

    /// The screen is there for every kind of owner: a rule without a
    /// literal to screen with would leave it out, and every text would
    /// silently take every rule again.
    #[test]
    fn texts_are_screened() {
        let owners = [
            RedactConfig::default(),
            RedactConfig {
                home_dirs: vec!["/home/dana".into(), "C:\\Users\\Élodie".into()],
                ..RedactConfig::default()
            },
            RedactConfig {
                home_dirs: vec!["/Users/christopher.montgomery".into(), "/root".into()],
                usernames: vec!["maximilian-alexander".into(), "Kirsty".into()],
                ..RedactConfig::default()
            },
            RedactConfig {
                home_dirs: (0..20).map(|i| format!("/home/person{i}")).collect(),
                extra_patterns: vec![("internal".into(), r"ACME-[0-9]{6}".into())],
                ..RedactConfig::default()
            },
        ];
        for owner in owners {
            let red = Redactor::new(&owner).unwrap();
            assert!(red.screen.is_some(), "no screen for {owner:?}");
        }
    }
}
