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
//! 1.8 GB/s walked in four pieces, 650 MB/s in one, measured before the
//! walk had registers of its own; no SIMD prefilter)
//! than each rule's own, but on real output
//! the rules' literals are everywhere (paths under the home, `api`,
//! `token`), so their prefilters stop all the time, and the screen lets
//! most rules skip the text: 6 % less redaction time on 1 GB of
//! transcripts than letting every rule run on long texts. Its literals
//! are drawn from the rules' regexes by the regex parser's own literal
//! extraction, so they cannot drift from the rules; a rule whose matches
//! need not hold a literal (none now) leaves the screen out.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::{dfa::DFA, Anchored, MatchKind, StartKind};
use regex_syntax::hir::literal::Extractor;
use regex_syntax::hir::{Hir, HirKind};
use std::collections::BTreeMap;

/// What a literal found in a text lets run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Gate {
    /// The rules behind this one of `Redactor::trigger_rest` (which
    /// checks the text where the literal starts then).
    Rest(usize),
    /// The URL rule (`://`).
    Url,
    /// The e-mail rule (`@`, `%40`).
    Email,
    /// The home and name rule.
    People,
    /// The same, and its homes under a drive letter.
    Users,
    /// The table pattern of this index into `Redactor::extras`.
    Pattern(usize),
}

/// The rules a text needs, as the screen found them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Needs {
    /// Where a literal of the `i`th of `Redactor::trigger_rest` starts, as
    /// (`i`, byte offset): each place one of its matches can start (a
    /// place can be listed twice).
    pub rest: Vec<(usize, usize)>,
    pub url: bool,
    pub email: bool,
    /// Where a literal of the home and name rule's regexes starts (byte
    /// offset), in no order, a place perhaps twice: each place a match of
    /// the rule can start, unless a home under a drive letter is there
    /// (`users`).
    pub people_at: Vec<usize>,
    /// A `users` (`people::USERS`): a home under a drive letter may be
    /// there.
    pub users: bool,
}

impl Needs {
    /// Whether the home and name rule can match.
    pub(super) fn people(&self) -> bool {
        self.users || !self.people_at.is_empty()
    }
}

pub(super) struct Screen {
    /// Every literal, ASCII-lower-cased, searched for in any ASCII case
    /// (a superset of what each rule's own case rules find), every
    /// occurrence (overlapping ones too).
    literals: DFA,
    start: StateID,
    /// The longest literal's length.
    longest: usize,
    /// Each literal's length.
    lens: Vec<usize>,
    /// For each literal, the gates it opens.
    gates: Vec<Vec<Gate>>,
}

/// The shortest piece a text is cut into to be walked beside others
/// (measured on tool output: two pieces pay from about 80 bytes, four
/// from 160).
const MIN_PIECE: usize = 40;

impl Screen {
    /// The screen for the rules behind `rest` (regexes), the home and
    /// name rule (`people` and `users`: regexes, one of which every match
    /// of the rule holds a match of; `users` for the homes under a drive
    /// letter) and the table patterns' `keywords` (lower-cased, with their
    /// pattern's index). None when one of the regexes has matches without
    /// a literal.
    pub(super) fn new(
        rest: &[String],
        people: &[String],
        users: &str,
        keywords: &[(Box<[u8]>, usize)],
    ) -> Option<Screen> {
        let mut found: Vec<(Vec<u8>, Gate)> = vec![
            (b"://".to_vec(), Gate::Url),
            (b"@".to_vec(), Gate::Email),
            (b"%40".to_vec(), Gate::Email),
        ];
        let sources = rest
            .iter()
            .enumerate()
            .map(|(i, source)| (source.as_str(), Gate::Rest(i)))
            .chain(people.iter().map(|source| (source.as_str(), Gate::People)))
            .chain(std::iter::once((users, Gate::Users)));
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
        let lens: Vec<usize> = literals.iter().map(Vec::len).collect();
        let longest = lens.iter().copied().max().unwrap_or(0);
        let literals = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            // Walked by hand below: a state is special only when it matches.
            .prefilter(false)
            .build(&literals)
            .ok()?;
        let start = literals.start_state(Anchored::No).ok()?;
        Some(Screen {
            literals,
            start,
            longest,
            lens,
            gates,
        })
    }

    /// What `text` needs; sets `patterns[p]` for each table pattern whose
    /// keyword it holds (as `Redactor::patterns_for` would).
    ///
    /// The automaton takes a state from the last one and the next byte: a
    /// load that waits for the load before it, so one walk over a text
    /// runs at the memory's latency (four cycles a byte, 1.5 ns). A longer
    /// text is cut into two or four pieces walked side by side, a step of
    /// each in turn: 0.8 ns a byte with two, 0.55 with four (measured on
    /// tool output before `steps` kept the walk in registers; eight were
    /// slower than four).
    pub(super) fn scan(&self, text: &str, patterns: &mut [bool]) -> Needs {
        let mut needs = Needs::default();
        let bytes = text.as_bytes();
        let mut open = |literal: usize, end: usize| self.open(literal, end, &mut needs, patterns);
        // Each piece past the first starts early by the longest literal
        // less one, bytes walked twice: at most half a piece.
        let back = self.longest.saturating_sub(1);
        let pieces = |n: usize| bytes.len() / n >= MIN_PIECE.max(2 * back);
        if pieces(4) {
            self.walk::<4>(bytes, &mut open);
        } else if pieces(2) {
            self.walk::<2>(bytes, &mut open);
        } else {
            self.walk::<1>(bytes, &mut open);
        }
        needs
    }

    /// Find every literal in `bytes`, walked as `N` pieces side by side;
    /// `open` is handed each literal found and where it ends (one in two
    /// pieces, twice).
    /// Each piece past the first starts the longest literal's length less
    /// one before its place, so that a literal across a cut is found
    /// whole in the piece after it.
    fn walk<const N: usize>(&self, bytes: &[u8], open: &mut impl FnMut(usize, usize)) {
        let dfa = &self.literals;
        let piece = bytes.len() / N;
        let back = self.longest.saturating_sub(1);
        let starts: [usize; N] = std::array::from_fn(|k| (k * piece).saturating_sub(back));
        let ends: [usize; N] = std::array::from_fn(|k| {
            if k + 1 == N {
                bytes.len()
            } else {
                (k + 1) * piece
            }
        });
        let mut found = |sid: StateID, end: usize| {
            for i in 0..dfa.match_len(sid) {
                open(dfa.match_pattern(sid, i).as_usize(), end);
            }
        };
        let heads: [&[u8]; N] = std::array::from_fn(|k| &bytes[starts[k]..][..piece]);
        let mut states = [self.start; N];
        side_by_side(dfa, heads, starts, &mut states, &mut found);
        // Each piece's rest to its end, on its own: the longest literal
        // less one byte (what the next piece walked before its place),
        // the last piece what the cut into `N` left over too.
        for k in 0..N {
            let from = starts[k] + piece;
            let rest = [&bytes[from..ends[k]]];
            side_by_side(dfa, rest, [from], &mut [states[k]], &mut found);
        }
    }

    /// Open the gates of `literal`, found in a text ending at `end`.
    fn open(&self, literal: usize, end: usize, needs: &mut Needs, patterns: &mut [bool]) {
        let start = end - self.lens[literal];
        for gate in &self.gates[literal] {
            match *gate {
                Gate::Rest(i) => needs.rest.push((i, start)),
                Gate::Url => needs.url = true,
                Gate::Email => needs.email = true,
                Gate::People => needs.people_at.push(start),
                Gate::Users => needs.users = true,
                Gate::Pattern(p) => {
                    if let Some(run) = patterns.get_mut(p) {
                        *run = true;
                    }
                }
            }
        }
    }
}

/// Walk `heads` (of one length; each starts at its `at` in the text)
/// from `states` to their ends, handing each match to `found` with where
/// it ends.
fn side_by_side<const N: usize>(
    dfa: &DFA,
    heads: [&[u8]; N],
    at: [usize; N],
    states: &mut [StateID; N],
    found: &mut impl FnMut(StateID, usize),
) {
    let mut walked = 0;
    while walked < heads[0].len() {
        walked = steps(dfa, heads, states, walked);
        for (k, &sid) in states.iter().enumerate() {
            if dfa.is_match(sid) {
                found(sid, at[k] + walked);
            }
        }
    }
}

/// Walk `heads` side by side from byte `from` on, a step of each in turn,
/// until one of `states` matches (a state is special only then: no
/// prefilter) or the heads end; returns how many bytes of each are walked.
///
/// Apart from what a match opens, and never inlined: in the redactor's
/// round, or beside the code for a match, the walk had no registers left
/// and loaded each state, piece and table from the stack at each step.
#[inline(never)]
fn steps<const N: usize>(
    dfa: &DFA,
    heads: [&[u8]; N],
    states: &mut [StateID; N],
    from: usize,
) -> usize {
    let len = heads[0].len();
    let heads = heads.map(|h| &h[..len]);
    let mut now = *states;
    let mut i = from;
    while i < len {
        for k in 0..N {
            now[k] = dfa.next_state(Anchored::No, now[k], heads[k][i]);
        }
        i += 1;
        if now.iter().any(|&sid| dfa.is_special(sid)) {
            break;
        }
    }
    *states = now;
    i
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

/// Literals one of which is in every match of `pattern` past its start,
/// or None: those that start the rest of its outermost sequence from one
/// of its parts on, cut to the length of the shortest (a few short ones
/// search faster than many long ones), from the part that gives the
/// longest (three bytes at least), then the fewest. The literals a match
/// starts with are left to the regex's own search, which looks for them;
/// it does not look inside.
pub(super) fn inner_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let found = (1..parts.len()).filter_map(|i| {
        let rest = Hir::concat(parts[i..].to_vec());
        let seq = Extractor::new().extract(&rest);
        let literals = seq.literals()?;
        let shortest = literals.iter().map(|l| l.as_bytes().len()).min()?;
        if shortest < 3 {
            return None;
        }
        let mut cut: Vec<Vec<u8>> = (literals.iter())
            .map(|l| l.as_bytes()[..shortest].to_vec())
            .collect();
        cut.sort();
        cut.dedup();
        Some(cut)
    });
    found.max_by_key(|cut| (cut[0].len(), std::cmp::Reverse(cut.len())))
}

#[cfg(test)]
mod tests {
    use super::super::{RedactConfig, Redactor};

    /// The screen is there for every kind of owner: a rule without a
    /// literal to screen with would leave it out, and every text would
    /// silently take every rule again. So are the checks tried where it
    /// finds their literals: else they search each text it lets through.
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
                real_names: vec!["Christopher J. Montgomery".into(), "Élodie".into()],
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

    /// The `.env` rule, which starts at any line, is searched for only
    /// where one of its names' ends is: the part of it that needs one.
    #[test]
    fn inner_literals_come_from_the_part_that_needs_the_longest() {
        let env = super::super::rules::TABLE
            .pattern
            .iter()
            .find(|p| p.kind == "env-secret");
        let literals = super::inner_literals(&env.expect("the .env rule").regex).expect("literals");
        assert!(
            literals.iter().any(|l| l.starts_with(b"_KEY")),
            "{literals:?}"
        );
        assert!(literals
            .iter()
            .all(|l| l.len() == literals[0].len() && l.starts_with(b"_")));
        assert!(
            literals[0].len() >= 4 && literals.len() < 32,
            "{literals:?}"
        );
        // A match's first part is the regex's own search; a sequence of
        // one part, or none long enough, gives nothing.
        assert_eq!(super::inner_literals(r"(?:password|secret)=\w+"), None);
        assert_eq!(super::inner_literals(r"a|bcdef"), None);
        assert_eq!(super::inner_literals(r"\w+=[a-z]{2}"), None);
        assert_eq!(
            super::inner_literals(r"\w+(?:xyz|uvw)\d"),
            Some(vec![b"uvw".to_vec(), b"xyz".to_vec()])
        );
        // Cut to the shortest: `xyz abc` and `xyz abd` are both `xyz ab`.
        let cut = super::inner_literals(r"\w+(?:xyz|uvw) ?(?:abc|abd|defg)").expect("literals");
        let text = |l: &Vec<u8>| String::from_utf8(l.clone()).expect("text");
        assert_eq!(
            cut.iter().map(text).collect::<Vec<_>>(),
            [
                "uvw ab", "uvw de", "uvwabc", "uvwabd", "uvwdef", "xyz ab", "xyz de", "xyzabc",
                "xyzabd", "xyzdef"
            ]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Every match of a pattern, the table's and others, holds one of
        /// its inner literals: checked on the table's examples cut, grown
        /// and spliced at random places.
        #[test]
        fn every_match_holds_an_inner_literal(
            edits in proptest::collection::vec((0usize..64, 0usize..1000, "[A-Za-z0-9_=:; \t\n\\\"'.-]{0,6}", 0usize..4), 1..6),
        ) {
            let table = super::super::rules::TABLE.pattern.iter().map(|p| (p.regex.clone(), p.examples.clone()));
            let others = [
                (r"(?i)[a-z]+_(?:key|token)\s*=\s*(?P<value>\S{4,})".to_string(), vec!["API_KEY = abcdef".to_string()]),
                (r"(?:^|\n)[A-Z]+_SECRET(?:_[A-Z]+)?=\S+".to_string(), vec!["\nAWS_SECRET_X=1234".to_string()]),
            ];
            for (pattern, examples) in table.chain(others) {
                let Some(literals) = super::inner_literals(&pattern) else { continue };
                let re = regex::Regex::new(&pattern).expect("pattern");
                let mut texts = examples.clone();
                for &(which, at, ref piece, cut) in &edits {
                    let mut text = examples[which % examples.len()].clone();
                    let mut at = at % (text.len() + 1);
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    let mut end = (at + cut).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, piece);
                    texts.push(text);
                }
                for text in texts {
                    for m in re.find_iter(&text) {
                        let held = literals.iter().any(|l| m.as_str().as_bytes().windows(l.len()).any(|w| w == &l[..]));
                        proptest::prop_assert!(held, "{:?} in {:?} holds none of {:?}", m.as_str(), text, literals);
                    }
                }
            }
        }

        /// Walked whole or as two or four pieces side by side, the screen
        /// finds every keyword the text holds, in any ASCII case, and no
        /// other: wherever it lies, across the pieces' cuts too, and
        /// however long the longest keyword is. As a rule's literals, it
        /// finds each place one starts.
        #[test]
        fn every_literal_is_found_wherever_it_lies(
            mut keywords in proptest::collection::vec("[ab/_:-]{1,12}", 1..30),
            long in "[ab]{1,70}",
            parts in proptest::collection::vec(("[ab/_:AB -]{0,60}", 0usize..64, proptest::bool::ANY), 0..80),
        ) {
            keywords.push(long);
            let mut text = String::new();
            for (filler, k, upper) in parts {
                text.push_str(&filler);
                let keyword = &keywords[k % keywords.len()];
                text.push_str(&if upper { keyword.to_ascii_uppercase() } else { keyword.clone() });
            }
            let indexed: Vec<(Box<[u8]>, usize)> = keywords
                .iter()
                .enumerate()
                .map(|(p, k)| (k.as_bytes().into(), p))
                .collect();
            let rule: Vec<String> = keywords.iter().map(|k| regex::escape(k)).collect();
            let rule = [rule.join("|")];
            let screen = super::Screen::new(&rule, &rule, super::super::people::USERS, &indexed).expect("screen");
            let lower = text.to_ascii_lowercase();
            let held: Vec<bool> = keywords.iter().map(|k| lower.contains(k.as_str())).collect();
            let starts: std::collections::BTreeSet<usize> = (0..lower.len())
                .filter(|&i| keywords.iter().any(|k| lower[i..].starts_with(k.as_str())))
                .collect();
            // As the rest's literals and as the home and name rule's.
            let found = |needs: &super::Needs| -> std::collections::BTreeSet<usize> {
                let rest: std::collections::BTreeSet<usize> =
                    needs.rest.iter().map(|&(i, at)| { assert_eq!(i, 0); at }).collect();
                let people: std::collections::BTreeSet<usize> = needs.people_at.iter().copied().collect();
                assert_eq!(rest, people);
                rest
            };
            let bytes = text.as_bytes();
            for pieces in [1, 2, 4] {
                let mut patterns = vec![false; keywords.len()];
                let mut needs = super::Needs::default();
                let mut open = |literal, end| screen.open(literal, end, &mut needs, &mut patterns);
                match pieces {
                    1 => screen.walk::<1>(bytes, &mut open),
                    2 => screen.walk::<2>(bytes, &mut open),
                    _ => screen.walk::<4>(bytes, &mut open),
                }
                proptest::prop_assert_eq!(&patterns, &held, "in {} pieces", pieces);
                proptest::prop_assert_eq!(found(&needs), starts.clone(), "in {} pieces", pieces);
            }
            let mut patterns = vec![false; keywords.len()];
            let needs = screen.scan(&text, &mut patterns);
            proptest::prop_assert_eq!(&patterns, &held);
            proptest::prop_assert_eq!(found(&needs), starts);
        }
    }
}
