//! The redaction boundary: every text the wiki can show enters the
//! knowledge model through here, as a [`Text`], which nothing else can make.
//!
//! ccwiki turns Claude Code transcripts into a static wiki that people put on
//! the web. Redaction runs once, where text is read (extraction, triage),
//! before anything is cut, counted, cached, spilled or shown: so a new page,
//! a new search field or a new command cannot leak what it never receives.
//! The rules, in the order they run on a text (the homes and names, listed
//! first, run last, after every other: see `Redactor::pipeline`):
//!
//! 1. `home` and `username`: the owner's home directories become `~` (in
//!    every spelling: `/home/dana`, `C:\Users\Dana`, JSON's `C:\\Users\\Dana`,
//!    WSL, Git Bash, and the dashed form of project folders,
//!    `-home-dana-…`), other people's `~user`, and the owner's user names
//!    `user` wherever they stand as a word, as does their real name as a
//!    phrase (`Dana Kim`, `dana-kim`, `Kim, Dana`).
//! 2. `private-key`: a whole `-----BEGIN ... PRIVATE KEY-----` block up to its
//!    `-----END ...-----` line, or, when the block was truncated, the header
//!    plus the base64 lines that follow it.
//! 3. the table's patterns (`rules.toml`: cookies, auth headers, `.env`
//!    lines, connection strings) and the user's own
//!    ([`RedactConfig::extra_patterns`]).
//! 4. `url-credentials`: `scheme://user:pass@host` -> `scheme://[REDACTED:url-credentials]@host`
//!    (before the tokens, so the user name goes too).
//! 5. the table's prefixed tokens, in one combined regex.
//! 6. `bearer` (`Bearer <token>`) and `basic-auth` (`Authorization: Basic <b64>`,
//!    the password of `curl -u user:pass`).
//! 7. `assignment` / `aws-secret`: `password=...`, `"token": "..."`,
//!    `--password ...`, `<password>...</password>`; only the value is
//!    replaced, the key stays.
//! 8. `email` / `person`: e-mail addresses, with the name written before
//!    one (`Author: Jane Doe <jane@acme.io>` -> `Author: [REDACTED:person]`),
//!    except machine senders (`noreply@`, `git@host:`) and the reserved
//!    example domains (see `email.rs`). Before the homes and names, so
//!    `dana@acme.io` never reads `user@acme.io`.
//!
//! Every replacement is `[REDACTED:kind]` (or `~`, `~user`, `user`), no rule
//! ever touches text inside an existing `[REDACTED:...]` marker, and a
//! changed text goes through the rules again until it stops changing, which
//! keeps `redact(redact(x)) == redact(x)`.
//!
//! Decisions worth knowing:
//! - False positives are preferred to leaks, but the assignment rule knows
//!   code: unquoted values that are calls, paths, types, numbers in
//!   `NAME = 2,` or other variables are left alone (`token = get_token()`,
//!   `pub token: Token![;]`, `password: Option<String>`); quoted values are
//!   always redacted, except empty ones and placeholders (`$VAR`, `${VAR}`,
//!   `<your-key>`, `****`). Plural keys are not keys (`output_tokens: 512`,
//!   `max_tokens`).
//! - Prefixed tokens need a word boundary (or a `\n` / `%3D` escape) before
//!   them only where the prefix also occurs inside words or blobs (`sk-`,
//!   `AKIA`, `AIza`, `hf_`, stripe); distinctive prefixes (`sk-ant-`,
//!   `ghp_`, `xoxb-`, JWTs...) match even glued to the text before them.
//! - User names are replaced wherever they stand between non-alphanumeric
//!   characters (so `dana_config` becomes `user_config`, and the owner of
//!   `ls -l` output goes), case-insensitively, but never names shorter than
//!   3 characters or common account names (see `COMMON_USERNAMES`), whose
//!   home directories are still replaced. Unix home paths match
//!   case-sensitively, Windows ones case-insensitively.
//! - A text is cut (previews, samples) only after it was redacted, and the
//!   redactor sees past the cut ([`SCAN_AHEAD`] characters, then to the end
//!   of the word there): a secret that straddles the cut is whole when it
//!   is checked; a private key cut short is redacted to the end.
//!
//! Speed (2-core VM, one thread): clean prose + code + transcript JSON runs
//! at ~800 MB/s as one 50 MB string and ~600 MB/s as 2 KB messages, and
//! comes back as `Cow::Borrowed`. Every rule's regex skips clean text with
//! its literal prefilter (SIMD), every text is screened first (one search
//! for all the rules' literals), and the URL and private-key rules are
//! plain `memmem` scans.

mod assignment;
mod email;
mod engine;
mod people;
mod private_key;
pub mod rules;
mod screen;
mod text;

#[cfg(test)]
mod tests;

pub use text::{window_within, Scrub, Tally, Text, TextRef, LOOKAHEAD, SCAN_AHEAD, TEXT_MAX};

use regex::Regex;
use std::fmt;
use std::sync::atomic::AtomicU64;

/// Every rule: the table's, the engine's, the owner's homes and names, and
/// the user's patterns (the built-in ones compiled where a text first
/// needs them, see `engine::Lazy`). Build once with [`Redactor::new`] and
/// share it by `&` across threads: regexes are `Sync` and the counters are
/// atomics.
pub struct Redactor {
    /// False: texts pass through unchanged (`--no-redact`).
    enabled: bool,
    /// What identifies these rules, for caches of redacted text.
    fingerprint: u64,
    markers: Vec<String>,
    counts: Vec<AtomicU64>,
    rules: Rules,
    /// Home directories and user names, see `people.rs`.
    people: people::People,
    /// What a text needs, in one search (see `screen.rs`); None if a rule
    /// had no literal to screen with.
    screen: engine::Lazy<Option<screen::Screen>>,
}

/// The rules that do not depend on the owner, made before the owner is
/// known ([`Redactor::prepare`]); [`Redactor::for_owner`] adds the
/// owner's.
pub struct Prepared {
    rules: Rules,
    /// The user's patterns they were compiled from.
    extra_patterns: Vec<(String, String)>,
}

/// Whose data it is, as [`Redactor::for_owner`] takes it (the fields of
/// [`RedactConfig`] of the same names): named, so no list of the owner's
/// can be handed over as another.
#[derive(Debug, Clone, Default)]
pub struct Owner {
    pub home_dirs: Vec<String>,
    pub usernames: Vec<String>,
    pub real_names: Vec<String>,
}

/// The rules that do not depend on the owner: the table's, the engine's
/// and the user's patterns (made ahead of the owner's, see
/// `Redactor::prepare`; the built-in ones compiled where a text first
/// needs them, see `engine::Lazy`).
struct Rules {
    kinds: Vec<String>,
    pem_begin: engine::Lazy<Regex>,
    /// The check, after the screen found one of their literals, for the
    /// private-key, token, auth-header and assignment rules: they run only
    /// if it matches. (Two, see `engine::triggers`.)
    trigger_rest: [engine::Trigger; 2],
    /// Token passes: every rule (the bounded ones after a word boundary),
    /// then the bounded rules after a JSON escape (`\n`), then after a URL
    /// escape (`%3D`). Separate regexes because one alternation of the left
    /// contexts defeats the literal prefilter (0.5 vs 5+ GB/s).
    /// (All compiled at once: they run only on the rare text a trigger
    /// lets through.)
    tokens: engine::Lazy<Vec<TokenPass>>,
    auth_header: engine::Lazy<Regex>,
    /// `key = value` (groups: key word, separator, XML key word), then
    /// `--key value` in a second pass: one alternation of both costs 25%.
    assignment: [engine::Lazy<Regex>; 2],
    /// The table's patterns, then the user's.
    extras: Vec<Extra>,
    /// Keywords of the table's patterns, lower-cased and searched for in
    /// a lower-cased copy of a text: a pattern runs only on a text that
    /// holds one of its own. A case-sensitive search keeps its SIMD
    /// prefilter, which an ASCII-case-insensitive one loses (1,400 against
    /// 650 MB/s on transcript text, with no keyword under 3 bytes).
    pattern_keywords: aho_corasick::AhoCorasick,
    /// Each keyword of `pattern_keywords` (lower-cased), and its pattern's
    /// index into `extras`.
    keywords: Vec<(Box<[u8]>, usize)>,
}

struct TokenPass {
    re: Regex,
    /// (capture group, kind, check)
    groups: Vec<(usize, usize, rules::Check)>,
    /// The pass can match only where one of these does: the same rules
    /// without their left context, in groups that each keep a literal
    /// prefix to search for (a pass whose alternatives do not all start
    /// with one scans every byte: 670 MB/s against 1,400 for its screens
    /// on transcript text, and a secret, which makes the pass run, is rare).
    screens: Vec<Regex>,
}

struct Extra {
    kind: usize,
    /// The regex, and its capture groups `value`, `v2`, `v3`…: the first
    /// that took part in a match is replaced; none: the whole match.
    compiled: engine::Lazy<(Regex, Vec<usize>)>,
    /// True for the table's patterns (they have keywords, and leave
    /// placeholders alone); false for the user's (they always run).
    from_table: bool,
    /// Literals one of which every match holds past its start (see
    /// `screen::inner_literals`), searched for before the pattern: a
    /// screened text without one is not searched. The table's `.env`
    /// rule, which starts at any line, searched every line of each tool
    /// output with a `_key` or `_token` in it (a ninth of redaction's
    /// time), for a `_KEY` that was not there.
    inner: Option<aho_corasick::AhoCorasick>,
}

/// Settings for [`Redactor::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RedactConfig {
    /// Home directories to replace with `~`, e.g. "/home/dana",
    /// "/Users/bob", "C:\\Users\\Eve" (typically learned by
    /// [`crate::knowledge::identity`]). Their user names are added to
    /// `usernames`.
    pub home_dirs: Vec<String>,
    /// User names to replace with `user` wherever they stand as a word.
    pub usernames: Vec<String>,
    /// The owner's real names (`Dana Kim`: an account's display name),
    /// replaced with `user` wherever they stand as a phrase of their
    /// words (see `people::real_name_pattern`); a one-word name is a
    /// user name.
    pub real_names: Vec<String>,
    /// (kind, regex) pairs supplied by the user. A match is replaced by
    /// `[REDACTED:kind]`; if the regex has a group named `value`, only that
    /// group is replaced.
    pub extra_patterns: Vec<(String, String)>,
}

/// A pattern of [`RedactConfig`] that cannot be used.
#[derive(Debug)]
pub struct PatternError {
    pub kind: String,
    pub message: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad redaction pattern for {:?}: {}",
            self.kind, self.message
        )
    }
}

impl std::error::Error for PatternError {}
