//! The rule engine: one pass of every stage over a text, repeated until
//! the text stops changing.

use super::assignment::{is_placeholder, KEYS, QUOTE};
use super::rules::{Check, TABLE};
use super::{
    Extra, Owner, PatternError, Prepared, RedactConfig, Redactor, Rules, Tally, TokenPass,
};
use memchr::memmem;
use regex::Regex;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

/// Kinds of the rules that live in code, in a fixed order (indices below);
/// the table's kinds and the user's follow.
const ENGINE_KINDS: &[&str] = &[
    "private-key",
    "aws-secret",
    "url-credentials",
    "bearer",
    "basic-auth",
    "assignment",
    "home",
    "username",
    "email",
    "person",
];
pub(super) const K_PRIVATE_KEY: usize = 0;
pub(super) const K_AWS_SECRET: usize = 1;
pub(super) const K_URL_CREDENTIALS: usize = 2;
pub(super) const K_BEARER: usize = 3;
pub(super) const K_BASIC_AUTH: usize = 4;
pub(super) const K_ASSIGNMENT: usize = 5;
pub(super) const K_HOME: usize = 6;
pub(super) const K_USERNAME: usize = 7;
pub(super) const K_EMAIL: usize = 8;
pub(super) const K_PERSON: usize = 9;

/// How large a rule's compiled program may grow, and its lazy DFA's cache.
const REGEX_SIZE_LIMIT: usize = 64 << 20;
const DFA_SIZE_LIMIT: usize = 16 << 20;

fn pattern_error(kind: &str, e: impl std::fmt::Display) -> PatternError {
    PatternError {
        kind: kind.to_string(),
        message: e.to_string(),
    }
}

/// A built-in rule's compiled form, made where a text first needs it.
/// Compiling every rule took a tenth of the CPU of a rebuild after one
/// changed memory file, which redacts a handful of texts; a cold build
/// compiles each rule as its texts first need it. (The user's patterns
/// are compiled up front, so that their errors are reported before a
/// build starts.)
pub(super) type Lazy<T> = LazyLock<T, Box<dyn FnOnce() -> T + Send>>;

/// A [`Lazy`] made by `make`, which cannot fail for a built-in rule: the
/// tests compile every one (`every_rule_compiles`).
pub(super) fn lazy<T>(make: impl FnOnce() -> Result<T, PatternError> + Send + 'static) -> Lazy<T> {
    LazyLock::new(Box::new(move || match make() {
        Ok(made) => made,
        Err(e) => panic!("built-in redaction rules do not compile: {e}"),
    }))
}

/// [`build`], made where a text first needs it (see [`Lazy`]).
pub(super) fn build_lazy(kind: &'static str, pattern: String) -> Lazy<Regex> {
    lazy(move || build(kind, &pattern))
}

pub(super) fn build(kind: &str, pattern: &str) -> Result<Regex, PatternError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map_err(|e| pattern_error(kind, e))
}

/// One regex of several patterns, which reports which one matched (the
/// first listed wins at one position, as in an alternation) without the
/// capture search a group would need; same limits as [`build`].
pub(super) fn build_many(
    kind: &str,
    patterns: &[String],
) -> Result<regex_automata::meta::Regex, PatternError> {
    regex_automata::meta::Regex::builder()
        .configure(
            regex_automata::meta::Config::new()
                .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                .hybrid_cache_capacity(DFA_SIZE_LIMIT),
        )
        .build_many(patterns)
        .map_err(|e| pattern_error(kind, e))
}

/// Literals (as regex) of the engine's own rules that the trigger looks
/// for besides the table's token keywords.
const ENGINE_TRIGGERS: &str =
    r"PRIVATE KEY|[Bb]earer|BEARER|[Aa]uthorization|AUTHORIZATION|-u[ \t]|--user[ \t]";

/// The index of `kind` in `kinds`, added when new.
fn kind_index(kinds: &mut Vec<String>, kind: &str) -> usize {
    match kinds.iter().position(|k| k == kind) {
        Some(i) => i,
        None => {
            kinds.push(kind.to_string());
            kinds.len() - 1
        }
    }
}

/// The capture groups that hold a pattern's value: `value`, `v2`, `v3`...
fn value_groups(re: &Regex) -> Vec<usize> {
    re.capture_names()
        .enumerate()
        .filter(|(_, n)| {
            n.is_some_and(|n| n == "value" || (n.starts_with('v') && n[1..].parse::<u8>().is_ok()))
        })
        .map(|(i, _)| i)
        .collect()
}

impl Rules {
    fn new(cfg: &RedactConfig) -> Result<Rules, PatternError> {
        let mut kinds: Vec<String> = ENGINE_KINDS.iter().map(|s| s.to_string()).collect();
        let pem_begin = build_lazy(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----".to_string(),
        );
        let tokens = token_passes(&mut kinds);
        let auth_header = build_lazy(
            "bearer",
            format!(
                r#"(?-u:\b)(?:Bearer|bearer|BEARER)[ \t]+(?P<b>[A-Za-z0-9._~+/\-]{{16,}}=*)|(?:[Aa]uthorization|AUTHORIZATION){q}?[ \t]*[:=][ \t]*{q}?[ \t]*(?:Basic|basic|BASIC)[ \t]+(?P<a>[A-Za-z0-9+/]{{8,}}={{0,2}})|(?-u:\B)(?:-u|--user)[ \t]+['"]?[^\s:'"@/]+:(?P<c>[^\s'"]+)"#,
                q = QUOTE
            ),
        );
        let assignment = [
            build_lazy("assignment", assignment_source()),
            build_lazy("assignment", flag_source()),
        ];
        let (mut extras, pattern_keywords, keywords) = table_patterns(&mut kinds)?;
        extras.extend(user_patterns(cfg, &mut kinds)?);
        Ok(Rules {
            kinds,
            pem_begin,
            tokens,
            auth_header,
            assignment,
            extras,
            pattern_keywords,
            keywords,
            trigger_rest: triggers(),
        })
    }

    /// Compile every rule now (see [`Lazy`]).
    fn compile(&self) {
        let _ = (&*self.pem_begin, &*self.tokens, &*self.auth_header);
        let _ = (&*self.assignment[0], &*self.assignment[1]);
        self.extras.iter().for_each(|e| {
            let _ = &*e.compiled;
        });
        self.trigger_rest.iter().for_each(Trigger::compile);
    }
}

impl Prepared {
    /// Compile every rule now, not where a text first needs it (see
    /// `engine::Lazy`): for a build that will redact every text.
    pub fn compile(&self) {
        self.rules.compile();
    }
}

impl Redactor {
    /// Check the user's own patterns (kind names, regex syntax) without
    /// compiling every built-in rule.
    pub fn check_patterns(cfg: &RedactConfig) -> Result<(), PatternError> {
        user_patterns(cfg, &mut Vec::new()).map(|_| ())
    }

    /// A redactor that changes nothing (`--no-redact`): texts still become
    /// [`super::Text`], with their control characters removed.
    pub fn disabled() -> Redactor {
        let mut r = match Redactor::new(&RedactConfig::default()) {
            Ok(r) => r,
            // Without the user's patterns or an owner, only the home
            // rule's built-in patterns are compiled now (a test compiles
            // them): nothing can fail.
            Err(e) => panic!("built-in redaction rules do not compile: {e}"),
        };
        r.enabled = false;
        r.fingerprint = 0;
        r
    }

    /// What identifies these rules: the table's version, the owner's homes
    /// and names, the user's patterns. Redacted text cached under another
    /// fingerprint is redone.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Whether this redactor changes anything.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn new(cfg: &RedactConfig) -> Result<Redactor, PatternError> {
        // The user's patterns' errors first, then the owner's.
        let rules = Rules::new(cfg)?;
        Redactor::with(cfg, rules, super::people::People::new(cfg))
    }

    /// The rules that do not depend on the owner (the table's, the
    /// engine's and the user's `extra_patterns`), made while the owner is
    /// not known yet: a build learns whose data it reads from the data.
    /// (Only the user's patterns are compiled here, see `engine::Lazy`.)
    pub fn prepare(extra_patterns: &[(String, String)]) -> Result<Prepared, PatternError> {
        let cfg = RedactConfig {
            extra_patterns: extra_patterns.to_vec(),
            ..RedactConfig::default()
        };
        Ok(Prepared {
            rules: Rules::new(&cfg)?,
            extra_patterns: cfg.extra_patterns,
        })
    }

    /// The redactor of `prepared` and the owner's homes and names: the
    /// same as [`Redactor::new`] with those and `prepared`'s patterns.
    pub fn for_owner(prepared: Prepared, owner: Owner) -> Result<Redactor, PatternError> {
        let Owner {
            home_dirs,
            usernames,
            real_names,
        } = owner;
        let cfg = RedactConfig {
            home_dirs,
            usernames,
            real_names,
            extra_patterns: prepared.extra_patterns,
        };
        let people = super::people::People::new(&cfg);
        Redactor::with(&cfg, prepared.rules, people)
    }

    /// The redactor of `cfg`, from its rules and its owner's.
    fn with(
        cfg: &RedactConfig,
        rules: Rules,
        people: Result<(super::people::People, Vec<String>), PatternError>,
    ) -> Result<Redactor, PatternError> {
        let (people, people_literals) = people?;
        let keywords = rules.keywords.clone();
        let screen = lazy(move || {
            Ok(super::screen::Screen::new(
                &trigger_sources(),
                &people_literals,
                super::people::USERS,
                &keywords,
            ))
        });
        let fingerprint = {
            use std::hash::{Hash, Hasher};
            let mut h = crate::base::hash::hasher();
            (TABLE.version, super::rules::SOURCE, cfg).hash(&mut h);
            h.finish()
        };
        let markers = rules
            .kinds
            .iter()
            .map(|k| format!("[REDACTED:{k}]"))
            .collect();
        let counts = rules.kinds.iter().map(|_| AtomicU64::new(0)).collect();
        Ok(Redactor {
            enabled: true,
            fingerprint,
            markers,
            counts,
            rules,
            people,
            screen,
        })
    }

    /// Replace every credential with `[REDACTED:kind]`, home dirs with `~`, usernames with `user`.
    ///
    /// A redacted text goes through the rules again until nothing changes
    /// (at most 4 rounds; one more round almost always suffices): that makes
    /// `redact(redact(x)) == redact(x)` hold even where a replacement creates
    /// a new match, e.g. `dana` glued to a token becomes a word once the token
    /// is a marker. Clean text takes one round and is not copied.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut tally = Tally::default();
        let out = self.redact_tally(text, &mut tally);
        for (k, c) in self.counts.iter().enumerate() {
            let n = tally.get(k);
            if n > 0 {
                c.fetch_add(n, Ordering::Relaxed);
            }
        }
        out
    }

    /// [`Redactor::redact`], counting into `tally` instead of the
    /// redactor's own counters.
    pub fn redact_tally<'a>(&self, text: &'a str, tally: &mut Tally) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(text);
        }
        let mut cur = match self.pipeline(text, true, tally) {
            Cow::Borrowed(b) => return Cow::Borrowed(b),
            Cow::Owned(s) => s,
        };
        for _ in 0..3 {
            match self.pipeline(&cur, true, tally) {
                Cow::Borrowed(_) => break,
                Cow::Owned(s) => cur = s,
            }
        }
        Cow::Owned(cur)
    }

    /// One round of all the rules; `use_trigger`: skip the groups of rules
    /// whose trigger finds nothing, and the token passes and drive-letter
    /// homes whose screens find nothing (false only in tests, to check
    /// that triggers and screens never hide a match).
    pub(super) fn pipeline<'a>(
        &self,
        text: &'a str,
        use_trigger: bool,
        tally: &mut Tally,
    ) -> Cow<'a, str> {
        if text.is_empty() {
            return Cow::Borrowed(text);
        }
        let Some(Round {
            url,
            rest,
            email,
            people,
            mut people_at,
            users,
            patterns,
        }) = self.round_for(text, use_trigger)
        else {
            return Cow::Borrowed(text);
        };
        let mut st = State {
            counts: Vec::new(),
            markers: marker_spans(text),
            spare: String::new(),
        };
        let mut cur: Cow<'a, str> = Cow::Borrowed(text);
        // Secrets first, on the text as written: a home path glued to the
        // next word (`C:\Users\ZolCookie: …` in a cut line) must not take
        // the secret's context with it. Homes and names go last; the next
        // round sees the text as it will finally read (`-u /home/dana:pw`
        // becomes `-u ~:pw`, which the basic-auth rule then matches).
        // The table's patterns come after the specific rules (tokens, URLs,
        // assignments): they catch what those left, never take it from them.
        for stage in 0..9 {
            let out = match stage {
                0 if rest => self.stage_private_key(&cur, &mut st),
                1 => self.stage_extras(&cur, &mut st, &patterns, false, use_trigger),
                2 if url => self.stage_url_credentials(&cur, &mut st),
                3 if rest => self.stage_tokens(&cur, &mut st, use_trigger),
                4 if rest => self.stage_auth_header(&cur, &mut st),
                5 if rest => self.stage_assignment(&cur, &mut st),
                6 => self.stage_extras(&cur, &mut st, &patterns, true, use_trigger),
                // Before the names: `dana@acme.io` must not become
                // `user@acme.io`, which still says where dana works.
                7 if email => self.stage_email(&cur, &mut st),
                8 if people => {
                    // Where its matches can start, when the screen says:
                    // in the text as screened (nothing replaced yet), and
                    // with no home under a drive letter (whose match starts
                    // before its `users`).
                    let starts = (people_at.take())
                        .filter(|_| matches!(cur, Cow::Borrowed(_)) && users == Some(false));
                    self.stage_people(&cur, &mut st, users, starts)
                }
                _ => None,
            };
            if let Some(s) = out {
                match std::mem::replace(&mut cur, Cow::Owned(s)) {
                    Cow::Owned(old) => st.replaced(Some(old), &cur),
                    Cow::Borrowed(_) => st.replaced(None, &cur),
                }
            }
        }
        for (i, n) in st.counts.iter().enumerate() {
            if *n > 0 {
                tally.bump(i, *n);
            }
        }
        cur
    }

    /// Which rules a round on `text` runs, or None when none can match.
    /// All decided on the original text: replacing names and homes
    /// (`user`, `~` next to a non-alphanumeric character) creates no
    /// trigger literal, and a home or name the round can still replace
    /// after a marker went in lies outside the marker (one inside or
    /// across it is refused), in bytes the text already held side by
    /// side: its literal was there from the start.
    fn round_for(&self, text: &str, use_trigger: bool) -> Option<Round> {
        let Some(screen) = self.screen.as_ref().filter(|_| use_trigger) else {
            return Some(Round {
                url: !use_trigger || SCHEME_END.find(text.as_bytes()).is_some(),
                rest: !use_trigger || self.rules.trigger_rest.iter().any(|t| t.is_match(text)),
                email: !use_trigger || super::email::may_hold(text),
                people: true,
                people_at: None,
                users: use_trigger.then_some(true),
                patterns: self.patterns_for(text, use_trigger),
            });
        };
        let mut patterns = self.user_patterns();
        let needs = screen.scan(text, &mut patterns);
        let people = needs.people();
        let quiet = needs.rest.is_empty() && !needs.url && !needs.email;
        if quiet && !people && !patterns.contains(&true) {
            return None;
        }
        let mut triggers = self.rules.trigger_rest.iter().enumerate();
        let rest = triggers.any(|(i, t)| {
            let starts = needs.rest.iter().filter(|&&(j, _)| j == i);
            t.matches_at(text, starts.map(|&(_, at)| at))
        });
        Some(Round {
            url: needs.url,
            rest,
            email: needs.email,
            people,
            people_at: Some(needs.people_at),
            users: Some(needs.users),
            patterns,
        })
    }

    /// Compile every rule now (see [`Lazy`]): a built-in rule that does
    /// not compile panics here rather than where a text needs it.
    #[cfg(test)]
    pub(super) fn compile_all(&self) {
        self.rules.compile();
        let _ = &*self.screen;
        self.people.compile();
    }

    /// Which extras run on `text`: the user's always, the table's when
    /// one of their keywords is there.
    pub(super) fn patterns_for(&self, text: &str, use_trigger: bool) -> Vec<bool> {
        if !use_trigger {
            return vec![true; self.rules.extras.len()];
        }
        let mut run = self.user_patterns();
        // Lower-cased a window at a time (with room for a keyword
        // that starts in it to end), so the copy stays small.
        let bytes = text.as_bytes();
        let overlap = self
            .rules
            .pattern_keywords
            .max_pattern_len()
            .saturating_sub(1);
        let mut lower = LOWER_CASED.take();
        for from in (0..bytes.len()).step_by(KEYWORD_WINDOW) {
            lower.clear();
            lower.extend_from_slice(
                &bytes[from..(from + KEYWORD_WINDOW + overlap).min(bytes.len())],
            );
            lower.make_ascii_lowercase();
            // A leftmost search from just past each hit's start, and
            // every keyword tried at that start: each place a keyword
            // starts is seen, as an overlapping search would see it.
            let mut at = 0;
            let find = |at| {
                let input = aho_corasick::Input::new(&lower).range(at..);
                self.rules.pattern_keywords.find(input)
            };
            while let Some(m) = find(at) {
                let here = &lower[m.start()..];
                for (keyword, p) in &self.rules.keywords {
                    if here.starts_with(keyword) {
                        run[*p] = true;
                    }
                }
                at = m.start() + 1;
            }
        }
        LOWER_CASED.set(lower);
        run
    }

    /// Which extras run on a text with none of the table's keywords: the
    /// user's.
    fn user_patterns(&self) -> Vec<bool> {
        self.rules.extras.iter().map(|e| !e.from_table).collect()
    }

    /// Counts of replacements so far, by kind (includes "home" and "username"), sorted by kind.
    /// Kinds with no replacement yet are left out.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        self.rules
            .kinds
            .iter()
            .zip(&self.counts)
            .map(|(k, c)| (k.clone(), c.load(Ordering::Relaxed)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    pub(super) fn bump(&self, st: &mut State, kind: usize) {
        if st.counts.len() < self.rules.kinds.len() {
            st.counts.resize(self.rules.kinds.len(), 0);
        }
        st.counts[kind] += 1;
    }

    fn stage_private_key(&self, text: &str, st: &mut State) -> Option<String> {
        let bytes = text.as_bytes();
        memmem::find(bytes, b"PRIVATE KEY")?;
        let mut rw = Rewriter::new(text, st);
        let mut pos = 0;
        while let Some(m) = self.rules.pem_begin.find_at(text, pos) {
            let end = super::private_key::block_end(bytes, m.end());
            match end {
                Some(end) if !st.overlaps_marker(m.start(), end) => {
                    rw.replace(m.start(), end, &self.markers[K_PRIVATE_KEY]);
                    self.bump(st, K_PRIVATE_KEY);
                    pos = end;
                }
                _ => pos = m.end(),
            }
        }
        rw.finish(st)
    }

    fn stage_extras(
        &self,
        text: &str,
        st: &mut State,
        run: &[bool],
        from_table: bool,
        screened: bool,
    ) -> Option<String> {
        let mut cur: Option<String> = None;
        let chosen = self.rules.extras.iter().zip(run);
        for (ex, _) in chosen.filter(|(e, r)| **r && e.from_table == from_table) {
            let src: &str = cur.as_deref().unwrap_or(text);
            if screened && ex.inner.as_ref().is_some_and(|inner| !inner.is_match(src)) {
                continue;
            }
            let (re, groups) = &*ex.compiled;
            let Some((mut locs, mut pos)) = slots_if_match(re, src) else {
                continue;
            };
            let mut rw = Rewriter::new(src, st);
            while pos <= src.len() {
                let Some(m) = re.captures_read_at(&mut locs, src, pos) else {
                    break;
                };
                let (s, e) = if groups.is_empty() {
                    (m.start(), m.end())
                } else {
                    groups
                        .iter()
                        .find_map(|&g| locs.get(g))
                        .unwrap_or((m.start(), m.start()))
                };
                let placeholder = ex.from_table && is_placeholder(&src[s..e]);
                // A table pattern takes a whole value (a cookie header, say)
                // even where another rule already marked part of it: the
                // rest of the value is as secret. A value that is nothing
                // but markers is done.
                let blocked = if ex.from_table {
                    st.only_markers(src, s, e)
                } else {
                    st.overlaps_marker(s, e)
                };
                if e > s && !placeholder && !blocked {
                    rw.replace(s, e, &self.markers[ex.kind]);
                    self.bump(st, ex.kind);
                }
                pos = if m.end() > m.start() {
                    m.end()
                } else {
                    next_char(src, m.end())
                };
            }
            if let Some(s) = rw.finish(st) {
                let old = cur.replace(s);
                st.replaced(old, cur.as_deref().unwrap_or_default());
            }
        }
        cur
    }

    fn stage_tokens(&self, text: &str, st: &mut State, screen: bool) -> Option<String> {
        let mut cur: Option<String> = None;
        for pass in self.rules.tokens.iter() {
            let src: &str = cur.as_deref().unwrap_or(text);
            if screen && !pass.screens.iter().any(|s| s.is_match(src)) {
                continue;
            }
            if let Some(s) = self.token_pass(pass, src, st) {
                let old = cur.replace(s);
                st.replaced(old, cur.as_deref().unwrap_or_default());
            }
        }
        cur
    }

    fn token_pass(&self, pass: &TokenPass, text: &str, st: &mut State) -> Option<String> {
        let re = &pass.re;
        let (mut locs, mut pos) = slots_if_match(re, text)?;
        let mut rw = Rewriter::new(text, st);
        while let Some(m) = re.captures_read_at(&mut locs, text, pos) {
            pos = m.end();
            let Some((kind, check, (s, e))) = pass
                .groups
                .iter()
                .find_map(|&(g, kind, check)| locs.get(g).map(|r| (kind, check, r)))
            else {
                continue;
            };
            // A rejected candidate is skipped whole: the checks are monotone
            // (any part of a rejected span would be rejected as well).
            if check == Check::MixedCase && !mixed_case(&text[s..e]) {
                continue;
            }
            if st.overlaps_marker(s, e) {
                continue;
            }
            rw.replace(s, e, &self.markers[kind]);
            self.bump(st, kind);
        }
        rw.finish(st)
    }

    /// `scheme://user:pass@host`: a plain scan from each `://` (a regex
    /// here is slow, since `://` is everywhere in docs and transcripts).
    /// The userinfo is everything up to the last `@` of the authority that is
    /// followed by a host; the user part (before the first `:`) holds no
    /// `@`, `[` or `]`, so `[REDACTED:url-credentials]@` never matches again.
    fn stage_url_credentials(&self, text: &str, st: &mut State) -> Option<String> {
        let b = text.as_bytes();
        let mut rw = Rewriter::new(text, st);
        let mut done = 0;
        for i in SCHEME_END.find_iter(b) {
            if i < done || i == 0 || !b[i - 1].is_ascii_alphanumeric() {
                continue;
            }
            let start = i + 3;
            let lim = (start + 1024).min(b.len());
            let mut end = start;
            let mut at = None;
            while end < lim {
                let c = b[end];
                if c.is_ascii_whitespace()
                    || matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'\\')
                {
                    break;
                }
                if c == b'@'
                    && matches!(b.get(end + 1), Some(c) if c.is_ascii_alphanumeric() || *c == b'[')
                {
                    at = Some(end);
                }
                end += 1;
            }
            let Some(at) = at else { continue };
            let info = &b[start..at];
            let Some(colon) = memchr::memchr(b':', info) else {
                continue;
            };
            let user = &info[..colon];
            let pass = &text[start + colon + 1..at];
            if pass.is_empty()
                || user.iter().any(|&c| matches!(c, b'@' | b'[' | b']'))
                || is_placeholder(pass)
                || st.overlaps_marker(start, at)
            {
                continue;
            }
            rw.replace(start, at, &self.markers[K_URL_CREDENTIALS]);
            self.bump(st, K_URL_CREDENTIALS);
            done = at;
        }
        rw.finish(st)
    }

    /// E-mail addresses, with the name written before one (see `email.rs`).
    fn stage_email(&self, text: &str, st: &mut State) -> Option<String> {
        let mut rw = Rewriter::new(text, st);
        for found in super::email::find(text) {
            if st.overlaps_marker(found.start, found.end) {
                continue;
            }
            let kind = if found.with_name { K_PERSON } else { K_EMAIL };
            rw.replace(found.start, found.end, &self.markers[kind]);
            self.bump(st, kind);
        }
        rw.finish(st)
    }

    fn stage_auth_header(&self, text: &str, st: &mut State) -> Option<String> {
        let (mut locs, mut pos) = slots_if_match(&self.rules.auth_header, text)?;
        let mut rw = Rewriter::new(text, st);
        while let Some(m) = self
            .rules
            .auth_header
            .captures_read_at(&mut locs, text, pos)
        {
            pos = m.end();
            let (kind, (s, e)) = if let Some(r) = locs.get(1) {
                (K_BEARER, r)
            } else if let Some(r) = locs.get(2) {
                (K_BASIC_AUTH, r)
            } else if let Some(r) = locs.get(3) {
                // `curl -u user:pass`; not `docker run -u 1000:1000`
                let v = &text[r.0..r.1];
                if v.bytes().all(|c| c.is_ascii_digit()) || is_placeholder(v) {
                    continue;
                }
                if !st.overlaps_marker(r.0, r.1) {
                    rw.replace(r.0, r.1, &self.markers[K_BASIC_AUTH]);
                    self.bump(st, K_BASIC_AUTH);
                }
                continue;
            } else {
                continue;
            };
            let v = &text[s..e];
            let plausible = v.bytes().any(|c| c.is_ascii_digit())
                || (v.bytes().any(|c| c.is_ascii_uppercase())
                    && v.bytes().any(|c| c.is_ascii_lowercase()));
            if !plausible || st.overlaps_marker(s, e) {
                continue;
            }
            rw.replace(s, e, &self.markers[kind]);
            self.bump(st, kind);
        }
        rw.finish(st)
    }
}

/// The rules one round runs on a text (see `Redactor::round_for`).
struct Round {
    url: bool,
    /// The rules behind `Redactor::trigger_rest`.
    rest: bool,
    email: bool,
    /// Whether the home and name rule runs, and where the screen found
    /// its literals (None: not screened).
    people: bool,
    people_at: Option<Vec<usize>>,
    /// Whether a home under a drive letter may be there (see
    /// `stage_people`); None: not screened.
    users: Option<bool>,
    /// Which extras run.
    patterns: Vec<bool>,
}

/// Per-call scratch: local counts (flushed to the atomics once per call),
/// the spans of `[REDACTED:...]` markers already in the text, and a buffer
/// to recycle.
pub(super) struct State {
    pub(super) counts: Vec<u64>,
    pub(super) markers: Vec<(usize, usize)>,
    pub(super) spare: String,
}

impl State {
    /// `text` replaces `old` as the current text.
    pub(super) fn replaced(&mut self, old: Option<String>, text: &str) {
        self.markers = marker_spans(text);
        if let Some(old) = old {
            self.spare = old;
        }
    }

    /// Whether `text[s..e]` holds nothing but markers (and blanks or
    /// punctuation) once the markers in it are taken out.
    pub(super) fn only_markers(&self, text: &str, s: usize, e: usize) -> bool {
        let mut rest = String::new();
        let mut at = s;
        for &(ms, me) in &self.markers {
            if me <= s || ms >= e {
                continue;
            }
            rest.push_str(&text[at..ms.max(at)]);
            at = me.min(e);
        }
        if at == s {
            return false;
        }
        rest.push_str(&text[at.min(e)..e]);
        !rest.chars().any(char::is_alphanumeric)
    }

    pub(super) fn overlaps_marker(&self, s: usize, e: usize) -> bool {
        if self.markers.is_empty() {
            return false;
        }
        // first marker that ends after s
        let i = self.markers.partition_point(|&(_, me)| me <= s);
        i < self.markers.len() && self.markers[i].0 < e
    }
}

/// The searchers of literals looked for in every text, built once:
/// `memmem::find` builds one at every call, a cost beside a short text.
static MARKER_START: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"[REDACTED:"));
static SCHEME_END: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"://"));

/// Capture slots for `re` and where its first match in `text` starts, or
/// None when it has none: most texts match no rule, and making slots for
/// every text and rule was about 3 % of redaction's time.
pub(super) fn slots_if_match(re: &Regex, text: &str) -> Option<(regex::CaptureLocations, usize)> {
    let m = re.find(text)?;
    Some((re.capture_locations(), m.start()))
}

pub(super) fn marker_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut v = Vec::new();
    for s in MARKER_START.find_iter(bytes) {
        let lim = (s + 80).min(bytes.len());
        if let Some(i) = memchr::memchr(b']', &bytes[s..lim]) {
            v.push((s, s + i + 1));
        }
    }
    v
}

/// Builds a stage's output lazily in a recycled buffer (the text an earlier
/// stage replaced), so a call allocates at most two buffers however many
/// stages change the text.
pub(super) struct Rewriter<'t> {
    src: &'t str,
    out: String,
    started: bool,
    last: usize,
}

impl<'t> Rewriter<'t> {
    pub(super) fn new(src: &'t str, st: &mut State) -> Self {
        Rewriter {
            src,
            out: std::mem::take(&mut st.spare),
            started: false,
            last: 0,
        }
    }

    /// Replacements must come in increasing, non-overlapping order.
    pub(super) fn replace(&mut self, start: usize, end: usize, with: &str) {
        debug_assert!(start >= self.last && end >= start);
        if !self.started {
            self.started = true;
            self.out.clear();
            self.out.reserve(self.src.len() + 64);
        }
        self.out.push_str(&self.src[self.last..start]);
        self.out.push_str(with);
        self.last = end;
    }

    /// The new text, or None (and the buffer goes back to `st`).
    pub(super) fn finish(mut self, st: &mut State) -> Option<String> {
        if !self.started {
            st.spare = self.out;
            return None;
        }
        self.out.push_str(&self.src[self.last..]);
        Some(self.out)
    }
}

pub(super) fn next_char(text: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < text.len() && !text.is_char_boundary(j) {
        j += 1;
    }
    j
}

fn mixed_case(s: &str) -> bool {
    let up = s.bytes().filter(|c| c.is_ascii_uppercase()).count();
    let low = s.bytes().filter(|c| c.is_ascii_lowercase()).count();
    up >= 2 && low >= 2
}

pub(super) fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'='
}

/// `key = value`, `key: value`, `"key": "value"`, `<key>value`.
fn assignment_source() -> String {
    format!(
        r"(?P<k>{keys}){q}?[ \t]*(?P<sep>=>|:=|=|:)[ \t]*|(?P<xk>{keys})>",
        keys = KEYS,
        q = QUOTE
    )
}

/// `--password value`.
fn flag_source() -> String {
    format!(r"--(?P<k>{KEYS})[ \t]+")
}

/// The token rules of the table as three passes: free-standing, after a
/// JSON escape (`\n`), after a URL escape (`%0A`); their kinds added to
/// `kinds` now, the passes compiled where a text first needs them.
fn token_passes(kinds: &mut Vec<String>) -> Lazy<Vec<TokenPass>> {
    let rules: Vec<(usize, &'static super::rules::TokenRule)> = TABLE
        .token
        .iter()
        .map(|r| (kind_index(kinds, &r.kind), r))
        .collect();
    lazy(move || compile_token_passes(&rules))
}

/// The passes of [`token_passes`], of `rules` (with their kinds).
fn compile_token_passes(
    rules: &[(usize, &super::rules::TokenRule)],
) -> Result<Vec<TokenPass>, PatternError> {
    let alts = |bounded: bool| -> String {
        rules
            .iter()
            .enumerate()
            .filter(|(_, (_, r))| r.bounded == bounded)
            .map(|(i, (_, r))| format!("{}(?P<t{}>{})", r.lead, i, r.secret))
            .collect::<Vec<_>>()
            .join("|")
    };
    let (free, bounded) = (alts(false), alts(true));
    let screens = token_screens()?;
    [
        (
            format!(r"(?:{free})|(?-u:\b)(?:{bounded})"),
            screens.clone(),
        ),
        (format!(r"\\[nrt](?:{bounded})"), screens[..1].to_vec()),
        (
            format!(r"%[0-9A-Fa-f]{{2}}(?:{bounded})"),
            screens[..1].to_vec(),
        ),
    ]
    .into_iter()
    .map(|(src, screens)| {
        let re = build("token", &src)?;
        let groups = re
            .capture_names()
            .enumerate()
            .filter_map(|(g, n)| {
                let i: usize = n?.strip_prefix('t')?.parse().ok()?;
                let (kind, rule) = rules.get(i)?;
                Some((g, *kind, rule.check))
            })
            .collect();
        Ok(TokenPass {
            re,
            groups,
            screens,
        })
    })
    .collect()
}

/// The token passes' screens (see [`TokenPass`]): the bounded rules (all
/// the later passes hold) first, then the other rules that start with a
/// literal, then each rule that starts with a class (`[0-9]{8,10}:AA…`)
/// on its own, where the regex engine searches for a literal inside it.
fn token_screens() -> Result<Vec<Regex>, PatternError> {
    let start = |r: &super::rules::TokenRule| {
        let src = if r.lead.is_empty() {
            &r.secret
        } else {
            &r.lead
        };
        !src.starts_with(['[', '\\', '.'])
    };
    let union = |rules: &mut dyn Iterator<Item = &super::rules::TokenRule>| {
        let alts: Vec<String> = rules
            .map(|r| format!("{}(?:{})", r.lead, r.secret))
            .collect();
        build("token", &alts.join("|"))
    };
    let mut screens = vec![
        union(&mut TABLE.token.iter().filter(|r| r.bounded))?,
        union(&mut TABLE.token.iter().filter(|r| !r.bounded && start(r)))?,
    ];
    for r in TABLE.token.iter().filter(|r| !r.bounded && !start(r)) {
        screens.push(union(&mut std::iter::once(r))?);
    }
    Ok(screens)
}

/// Bytes of a text lower-cased at a time to look for keywords in.
const KEYWORD_WINDOW: usize = 1 << 16;

thread_local! {
    /// A lower-cased copy of the text whose keywords are looked for.
    static LOWER_CASED: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The pattern rules of the table, the keywords that let a text skip them
/// (lower-cased), and which pattern each keyword belongs to.
type TablePatterns = (
    Vec<Extra>,
    aho_corasick::AhoCorasick,
    Vec<(Box<[u8]>, usize)>,
);

fn table_patterns(kinds: &mut Vec<String>) -> Result<TablePatterns, PatternError> {
    let mut extras = Vec::new();
    let mut keywords: Vec<(Box<[u8]>, usize)> = Vec::new();
    for rule in TABLE.pattern.iter() {
        for k in &rule.keywords {
            keywords.push((k.to_ascii_lowercase().into_bytes().into(), extras.len()));
        }
        extras.push(Extra {
            kind: kind_index(kinds, &rule.kind),
            compiled: lazy(|| {
                let re = build(&rule.kind, &rule.regex)?;
                let groups = value_groups(&re);
                Ok((re, groups))
            }),
            from_table: true,
            inner: inner_search(&rule.regex),
        });
    }
    let pattern_keywords = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(keywords.iter().map(|(k, _)| k))
        .map_err(|e| pattern_error("keywords", e))?;
    Ok((extras, pattern_keywords, keywords))
}

/// A search for the literals one of which is in every match of `pattern`
/// past its start (see [`super::screen::inner_literals`]).
fn inner_search(pattern: &str) -> Option<aho_corasick::AhoCorasick> {
    let literals = super::screen::inner_literals(pattern)?;
    aho_corasick::AhoCorasick::new(literals).ok()
}

/// The user's own `[[redact_patterns]]`.
fn user_patterns(cfg: &RedactConfig, kinds: &mut Vec<String>) -> Result<Vec<Extra>, PatternError> {
    let mut extras = Vec::new();
    for (kind, pat) in &cfg.extra_patterns {
        let named = kind
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.');
        if kind.is_empty() || !named {
            return Err(PatternError {
                kind: kind.clone(),
                message: "kind must be non-empty and use only letters, digits, '-', '_', '.'"
                    .into(),
            });
        }
        // Compiled now: a pattern of the user's that does not compile
        // stops the build before it starts.
        let re = build(kind, pat)?;
        let groups = re
            .capture_names()
            .position(|n| n == Some("value"))
            .into_iter()
            .collect();
        extras.push(Extra {
            kind: kind_index(kinds, kind),
            inner: inner_search(pat),
            compiled: lazy(move || Ok((re, groups))),
            from_table: false,
        });
    }
    Ok(extras)
}

/// What makes a text worth the full passes. Two checks: searched for in
/// a whole text (where it is not screened), each keeps a literal set
/// small enough for the fast SIMD prefilter (one union took 120 ns on a
/// 70-byte line, these two together 95 ns).
fn triggers() -> [Trigger; 2] {
    trigger_sources().map(Trigger::new)
}

/// The check that one of a group of rules may match a text, made where
/// the screen found one of the check's literals: every match starts with
/// one, so trying to match there and only there says the same as a search
/// of the whole text. Those literals (a key's first letters: `toke`,
/// `auth`, `sign`) are in every other line of a tool's output, and a
/// search stopped at each of them for a check that almost never matches
/// (5,000 of 150,000 screened texts of a gigabyte of transcripts), at a
/// sixth of redaction's time; a match tried where each starts stops a few
/// bytes on. One regex does both (its lazy DFA runs anchored searches as
/// well): an anchored dense DFA beside it took 8 ms to build, which a
/// rebuild that redacts one text paid whole, and a cold build of 100 MB
/// took 2 % more instructions with it.
pub(super) struct Trigger(Lazy<regex_automata::meta::Regex>);

impl Trigger {
    fn new(source: String) -> Trigger {
        Trigger(lazy(move || build_many("trigger", &[source])))
    }

    /// Compile it now (see [`Lazy`]).
    fn compile(&self) {
        let _ = &*self.0;
    }

    /// Whether a match of the check is anywhere in `text`.
    pub(super) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// Whether a match of the check starts at one of `starts` in `text`.
    pub(super) fn matches_at(&self, text: &str, mut starts: impl Iterator<Item = usize>) -> bool {
        use regex_automata::{Anchored, Input};
        starts.any(|at| {
            let input = Input::new(text).range(at..).anchored(Anchored::Yes);
            self.0.is_match(input)
        })
    }
}

/// The sources of [`triggers`].
fn trigger_sources() -> [String; 2] {
    let assignment_trigger = format!(
        "{}|{}",
        assignment_source()
            .replace("(?P<k>", "(?:")
            .replace("(?P<sep>", "(?:")
            .replace("(?P<xk>", "(?:"),
        flag_source().replace("(?P<k>", "(?:")
    );
    let token_keywords: Vec<String> = TABLE
        .token
        .iter()
        .flat_map(|r| r.keywords.iter().map(|k| regex::escape(k)))
        .collect();
    let triggers = format!("{ENGINE_TRIGGERS}|{}", token_keywords.join("|"));
    [triggers, assignment_trigger]
}
