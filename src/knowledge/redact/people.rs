//! Home directories and user names. The owner's homes (learned from the
//! data by [`crate::knowledge::identity`]) become `~` in every spelling,
//! including the dashed form of project folders (`-home-dana-code` is
//! `~-code`); anybody else's home becomes `~user`; the owner's user names
//! become `user` wherever they stand as a word.

use super::engine::{build_lazy, build_many, next_char, Lazy, Rewriter, State, K_HOME, K_USERNAME};
use super::{PatternError, RedactConfig, Redactor};
use regex::Regex;
use regex_automata::{meta, Anchored, Input};

/// User names never replaced as words: too short (< 3 chars) or so common
/// that replacing them would wreck ordinary prose and code ("node", "admin",
/// "runner" ...). Their home directories are still replaced by `~`.
const COMMON_USERNAMES: &[&str] = &[
    "user",
    "users",
    "admin",
    "administrator",
    "root",
    "ubuntu",
    "debian",
    "runner",
    "runneradmin",
    "node",
    "home",
    "guest",
    "test",
    "tester",
    "dev",
    "developer",
    "default",
    "public",
    "shared",
    "docker",
    "vagrant",
    "ec2-user",
    "git",
    "www",
    "www-data",
    "nobody",
    "daemon",
    "build",
    "builder",
    "app",
    "code",
    "work",
    "data",
    "main",
    "local",
    "system",
    "service",
    "server",
    "owner",
    "codespace",
    "vscode",
    "jenkins",
    "circleci",
    "travis",
    "postgres",
    "mysql",
    "redis",
    "mac",
    "macbook",
    "desktop",
    "linux",
    "windows",
    "centos",
    "fedora",
    "alpine",
    "claude",
];

/// Names in home paths that are not people: shared folders and the
/// placeholders of documentation (`/home/user/`, `C:\Users\you\`).
const NOT_PEOPLE: &[&str] = &[
    "shared",
    "public",
    "default",
    "user",
    "username",
    "you",
    "yourname",
    "your-name",
    "name",
    "me",
    "linuxbrew",
];

/// A separator as written in text: `/`, `\`, or JSON-escaped `\\` (and `\\\\`).
const SEP: &str = r"(?:\\{1,4}|/)";

/// A user name in a path that nobody told us about: word characters, dots
/// and dashes inside (a sentence's full stop is not part of it).
const ANY_NAME: &str = r"[\w-]+(?:\.[\w-]+)*";

/// The compiled home and name rules.
pub(super) struct People {
    /// One pattern per kind of match, in the order they win at one
    /// position. A multi-pattern regex names the pattern that matched
    /// without a capture search: with a home path in nearly every text,
    /// captures were the costliest part of redaction.
    re: meta::Regex,
    /// `re` without the homes under a drive letter (`C:\Users\x`,
    /// `/c/Users/x`): their alternatives start with a class, which takes
    /// the literal prefilter away from the whole regex (640 against 2,600
    /// MB/s on transcript text). Used on a text where none can start.
    plain: meta::Regex,
    /// `users` as those homes spell it (any case).
    users: Lazy<Regex>,
    /// Someone's home at the start of a text: what an owner's home glued
    /// to more letters (`C:\Users\Danathe`, a cut in a tool's output) is.
    /// Compiled where first needed (see `engine::Lazy`): its classes of
    /// any letter in any script are slow to compile.
    other: Lazy<Regex>,
    /// Pattern index -> what it matches: [`OWNER_HOME`], [`DASHED_HOME`],
    /// [`EATEN_HOME`], [`OTHER_HOME`] or [`NAME`].
    kinds: Vec<usize>,
}

/// `users` as a home under a drive letter spells it.
pub(super) const USERS: &str = "(?i:users)";

const OWNER_HOME: usize = 0;
const DASHED_HOME: usize = 1;
const OTHER_HOME: usize = 2;
const NAME: usize = 3;
/// The owner's home under a drive letter with its backslashes gone, as a
/// shell leaves an unquoted Windows path (`cd C:\Users\Eve\x` fails
/// with `C:UsersEvex`): what follows is glued to the name.
const EATEN_HOME: usize = 4;

impl People {
    /// The rules, and the regexes that screen for them (see `screen.rs`):
    /// the patterns of [`People::plain`]. Every match of the rules holds a
    /// match of one of them, or of [`USERS`], which every home under a
    /// drive letter holds.
    pub(super) fn new(cfg: &RedactConfig) -> Result<(People, Vec<String>), PatternError> {
        // Home directories, longest first so /home/dana2 wins over /home/dana
        // (the right-boundary check would reject the shorter one anyway).
        let mut homes: Vec<String> = Vec::new();
        let mut dashed: Vec<String> = Vec::new();
        let mut eaten: Vec<String> = Vec::new();
        let mut users: Vec<String> = cfg.usernames.iter().map(|u| u.trim().to_string()).collect();
        for h in &cfg.home_dirs {
            let h = h.trim();
            if let Some((_, u)) = Redactor::home_of(h) {
                users.push(u);
            }
            if let Some(p) = home_pattern(h) {
                homes.push(p);
            }
            if let Some(p) = dashed_pattern(h) {
                dashed.push(p);
            }
            if let Some(p) = eaten_pattern(h) {
                eaten.push(p);
            }
        }
        for v in [&mut homes, &mut dashed, &mut eaten] {
            v.sort_by_key(|p| std::cmp::Reverse(p.len()));
            v.dedup();
        }
        let mut users: Vec<String> = users
            .into_iter()
            .filter(|u| username_is_replaceable(u))
            .map(|u| regex::escape(&u.to_lowercase()))
            .collect();
        users.sort_by_key(|u| std::cmp::Reverse(u.len()));
        users.dedup();
        // An owner's name glued after an eaten `C:\Users\` is their
        // Windows home whatever homes the data showed (sessions in WSL
        // print Windows paths too). Only on `C:`, where Windows keeps
        // homes: glued, `D:UsersEvex` may as well be someone's `Evex`.
        eaten.extend(users.iter().map(|u| format!("(?i:c:users{u})")));
        // Real names after: a phrase is no user name to find glued to a
        // Windows home, and (longest first) it wins over its first word.
        users.extend(cfg.real_names.iter().filter_map(|n| real_name_pattern(n)));
        users.sort_by_key(|u| std::cmp::Reverse(u.len()));
        users.dedup();
        let plain_others = format!(r"(?:/var)?/home/{n}|/Users/{n}", n = ANY_NAME);
        let others = format!(
            r"{plain_others}|(?i:[a-z]):{SEP}(?i:users){SEP}{n}|(?:/mnt)?/(?i:[a-z])/(?i:users)/{n}",
            n = ANY_NAME
        );
        let mut patterns = Vec::new();
        let mut kinds = Vec::new();
        if !homes.is_empty() {
            patterns.push(homes.join("|"));
            kinds.push(OWNER_HOME);
        }
        if !dashed.is_empty() {
            patterns.push(dashed.join("|"));
            kinds.push(DASHED_HOME);
        }
        // In the plain set too: their literal (`c:users…`) keeps the
        // prefilter, and a text holding one has no separator for
        // `for_text` to find.
        if !eaten.is_empty() {
            patterns.push(eaten.join("|"));
            kinds.push(EATEN_HOME);
        }
        let at = patterns.len();
        patterns.push(others.clone());
        kinds.push(OTHER_HOME);
        if !users.is_empty() {
            patterns.push(format!("(?i:{})", users.join("|")));
            kinds.push(NAME);
        }
        let mut plain_patterns = patterns.clone();
        plain_patterns[at] = plain_others;
        // Compiled side by side: a build waits for them before it reads a
        // transcript, and the two sets of every spelling of the owner's
        // homes and names took 4.7 ms on one core.
        let (re, plain) = rayon::join(
            || build_many("home", &patterns),
            || build_many("home", &plain_patterns),
        );
        let people = People {
            re: re?,
            plain: plain?,
            users: build_lazy("home", USERS.to_string()),
            other: build_lazy("home", format!("^(?:{others})")),
            kinds,
        };
        Ok((people, plain_patterns))
    }

    /// Compile the regexes made where first needed (see `engine::Lazy`).
    #[cfg(test)]
    pub(super) fn compile(&self) {
        let _ = (&*self.users, &*self.other);
    }

    /// The regex that finds every home and name in `text`: [`People::plain`]
    /// unless a home under a drive letter may start there (a `users`
    /// after a separator after `:` or after `/x`), which is rare outside
    /// Windows and WSL.
    fn for_text(&self, text: &str) -> &meta::Regex {
        let drive = self.users.find_iter(text).any(|m| {
            let before = &text[..m.start()];
            let trimmed = before.trim_end_matches(['/', '\\']);
            let mut back = trimmed.chars().rev();
            trimmed.len() < before.len()
                && match back.next() {
                    Some(':') => true,
                    Some(c) => drive_letter(c) && back.next() == Some('/'),
                    None => false,
                }
        });
        match drive {
            true => &self.re,
            false => &self.plain,
        }
    }
}

/// What `(?i:[a-z])` matches: an ASCII letter, or a character whose case
/// folds to one (the long s and the Kelvin sign).
fn drive_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '\u{17F}' | '\u{212A}')
}

/// Whether `text[s..e]`, a match of `group`, stands on its own.
fn bounded(text: &str, s: usize, e: usize, group: usize) -> bool {
    let before = text[..s].chars().next_back();
    let after = text[e..].chars().next();
    // An owner's home starts after no letter, digit or `_`.
    let home_starts = || before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    match group {
        OWNER_HOME => {
            home_starts() && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
        }
        // What followed the name lost its separator too: only the left counts.
        EATEN_HOME => home_starts(),
        // `-home-dana-code`: the folder name goes on after a dash.
        DASHED_HOME => {
            before.is_none_or(|c| !c.is_alphanumeric())
                && after.is_none_or(|c| c == '-' || !(c.is_alphanumeric() || c == '_'))
        }
        OTHER_HOME => {
            let left = match before {
                None => true,
                // `file:///home/x`, not `src/home/x`
                Some('/') => text[..s].ends_with("://"),
                Some(c) => !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '~')),
            };
            let name = text[s..e]
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            left && !NOT_PEOPLE.contains(&name.as_str())
        }
        _ => {
            // a user name counts only between non-alphanumeric characters
            let left_ok = match before {
                None => true,
                Some(c) if !c.is_alphanumeric() => true,
                // JSON escapes: "\nDana" starts a new line.
                Some('n' | 't' | 'r') => text[..s - 1].ends_with('\\'),
                // URL escapes: "%2Fdana" follows a `/`.
                Some(c) if c.is_ascii_hexdigit() => url_escape_before(&text[..s]),
                Some(_) => false,
            };
            left_ok && (after.is_none_or(|c| !c.is_alphanumeric()) || machine_name(&text[e..]))
        }
    }
}

/// Whether `before` ends with a URL escape of a byte that is neither a
/// letter nor a digit (`%2F`, `%5C`, `%20`).
fn url_escape_before(before: &str) -> bool {
    match before.as_bytes() {
        [.., b'%', hi, lo] => {
            let hex = |b: &u8| (*b as char).to_digit(16);
            matches!((hex(hi), hex(lo)), (Some(h), Some(l)) if !((h * 16 + l) as u8).is_ascii_alphanumeric())
        }
        _ => false,
    }
}

/// Whether what follows a user name makes it a machine's name, as macOS
/// and Windows name them after their owner: `dana` in `danas-MacBook-Pro`,
/// `Dana-PC`, `liuhanwendeMacBook-Air` (a Chinese system's "的").
fn machine_name(rest: &str) -> bool {
    let possessive = ["'s", "’s", "s", "de", "的"]
        .iter()
        .find_map(|p| rest.strip_prefix(p));
    let r = possessive.unwrap_or(rest);
    let dashed = r.strip_prefix(['-', '_']);
    if possessive.is_none() && dashed.is_none() {
        return false;
    }
    let r = dashed.unwrap_or(r);
    let word: String = r
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    word.starts_with("macbook")
        || matches!(
            word.as_str(),
            "imac" | "mac" | "macmini" | "mbp" | "pc" | "laptop" | "desktop" | "workstation"
        )
}

impl Redactor {
    /// The home directory and user name of a path such as /home/NAME/x,
    /// /Users/NAME/x, C:\Users\NAME\x, c:/Users/NAME (case-insensitive
    /// drive and Users), /root, /var/home/NAME (Fedora Atomic),
    /// /mnt/c/Users/NAME (WSL) and /c/Users/NAME (Git Bash). The home is
    /// returned as spelled in `cwd` (same separators and case).
    pub fn home_of(cwd: &str) -> Option<(String, String)> {
        let s = cwd.trim();
        let b = s.as_bytes();
        // (byte offset just past a component, component) for each component
        let comps = |from: usize| -> Vec<(usize, &str)> {
            let mut v = Vec::new();
            let mut i = from;
            while i < s.len() {
                while i < s.len() && (b[i] == b'/' || b[i] == b'\\') {
                    i += 1;
                }
                let st = i;
                while i < s.len() && b[i] != b'/' && b[i] != b'\\' {
                    i += 1;
                }
                if i > st {
                    v.push((i, &s[st..i]));
                }
            }
            v
        };
        let user_at = |c: &[(usize, &str)], i: usize| -> Option<(String, String)> {
            let (end, name) = *c.get(i)?;
            if name.is_empty()
                || name.eq_ignore_ascii_case("shared")
                || name.eq_ignore_ascii_case("public")
            {
                return None;
            }
            Some((s[..end].to_string(), name.to_string()))
        };
        let is_users = |x: &str| x.eq_ignore_ascii_case("users");
        if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
            // C:\Users\NAME, c:/Users/NAME, C:\\Users\\NAME
            if b.len() > 2 && b[2] != b'/' && b[2] != b'\\' {
                return None;
            }
            let c = comps(2);
            if c.len() >= 2 && is_users(c[0].1) {
                return user_at(&c, 1);
            }
            return None;
        }
        if !s.starts_with('/') {
            return None;
        }
        let c = comps(0);
        let first = c.first()?.1;
        match first {
            "home" => user_at(&c, 1),
            "Users" => user_at(&c, 1),
            "root" => Some((s[..c[0].0].to_string(), "root".to_string())),
            "var" if c.len() >= 3 && c[1].1 == "home" => user_at(&c, 2),
            // WSL: /mnt/c/Users/NAME
            "mnt" if c.len() >= 4 && c[1].1.len() == 1 && is_users(c[2].1) => user_at(&c, 3),
            // Git Bash / MSYS: /c/Users/NAME
            d if d.len() == 1 && c.len() >= 3 && is_users(c[1].1) => user_at(&c, 2),
            _ => None,
        }
    }

    /// Homes (`~`, `~user`) and names (`user`) in one pass: at one
    /// position a home path wins, so `/home/dana` becomes `~`, not
    /// `/home/user`; a rejected home still lets its user name be replaced.
    ///
    /// `users`: whether the screen found a [`USERS`] in the text, None
    /// when it was not screened. Where it found none, no home under a
    /// drive letter can be there, and the text is not searched for one.
    /// `starts`: where the screen found the literals that start every
    /// match of the rule without such homes (only then given), in any
    /// order.
    pub(super) fn stage_people(
        &self,
        text: &str,
        st: &mut State,
        users: Option<bool>,
        starts: Option<Vec<usize>>,
    ) -> Option<String> {
        let people = &self.people;
        let re = match users {
            None => &people.re,
            Some(false) => &people.plain,
            Some(true) => people.for_text(text),
        };
        let mut rw = Rewriter::new(text, st);
        let mut pos = 0;
        // Each match in turn, from `pos` on: searched for in the text, or,
        // when the screen found where they can start, tried at each of
        // those places in order (the first place that holds one holds the
        // leftmost, and it is the same match). A search stopped at every
        // home path, and found where its match started with a second
        // search, backwards.
        let mut places = starts.map(|mut s| {
            s.sort_unstable();
            s.dedup();
            s.into_iter()
        });
        let mut next = |pos: usize| match places.as_mut() {
            None => re.search(&Input::new(text).range(pos..)),
            Some(places) => places.filter(|&at| at >= pos).find_map(|at| {
                let input = Input::new(text).range(at..).anchored(Anchored::Yes);
                re.search(&input)
            }),
        };
        while let Some(m) = next(pos) {
            let (s, e) = (m.start(), m.end());
            let group = people
                .kinds
                .get(m.pattern().as_usize())
                .copied()
                .unwrap_or(NAME);
            if !bounded(text, s, e, group) || st.overlaps_marker(s, e) {
                // The owner's home glued to more letters is still a home.
                let glued = (group == OWNER_HOME)
                    .then(|| people.other.find(&text[s..]))
                    .flatten()
                    .map(|o| s + o.end())
                    .filter(|&e| bounded(text, s, e, OTHER_HOME) && !st.overlaps_marker(s, e));
                match glued {
                    Some(e) => {
                        rw.replace(s, e, "~user");
                        self.bump(st, K_HOME);
                        pos = e;
                    }
                    None => pos = next_char(text, s),
                }
                continue;
            }
            let (with, kind) = match group {
                OWNER_HOME | DASHED_HOME | EATEN_HOME => ("~", K_HOME),
                OTHER_HOME => ("~user", K_HOME),
                _ => ("user", K_USERNAME),
            };
            rw.replace(s, e, with);
            self.bump(st, kind);
            pos = e;
        }
        rw.finish(st)
    }
}

/// Regex for one home directory, or None if it is not an absolute path.
fn home_pattern(home: &str) -> Option<String> {
    if let Some((drive, parts)) = under_drive(home) {
        if parts.is_empty() {
            return None;
        }
        let tail: Vec<String> = parts
            .iter()
            .map(|p| format!("(?i:{})", regex::escape(p)))
            .collect();
        let tail = tail.join(SEP);
        // C:\Users\Eve, plus the same home seen from WSL (/mnt/c/Users/Eve)
        // and Git Bash (/c/Users/Eve).
        return Some(format!(
            "(?i:{drive}):{SEP}{tail}|(?:/mnt)?/(?i:{drive})/{}",
            parts
                .iter()
                .map(|p| format!("(?i:{})", regex::escape(p)))
                .collect::<Vec<_>>()
                .join("/")
        ));
    }
    let parts: Vec<&str> = home.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    if !home.starts_with('/') || parts.is_empty() {
        return None;
    }
    // Unix paths are case-sensitive: match exactly as given.
    Some(format!(
        "/{}",
        parts
            .iter()
            .map(|p| regex::escape(p))
            .collect::<Vec<_>>()
            .join("/")
    ))
}

/// Regex for a home under a drive letter as it reads once a shell has
/// eaten its backslashes (`C:\Users\Eve` is `C:UsersEve`), or None for
/// any other home.
fn eaten_pattern(home: &str) -> Option<String> {
    let (drive, parts) = under_drive(home)?;
    (parts.len() >= 2).then(|| format!("(?i:{drive}:{})", regex::escape(&parts.concat())))
}

/// A path under a drive letter (`C:\Users\Eve`, `c:/Users/Eve`) as its
/// drive letter, in lower case, and the names after it; None for any
/// other path.
fn under_drive(home: &str) -> Option<(char, Vec<&str>)> {
    let b = home.as_bytes();
    if !(b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return None;
    }
    let parts = home[2..].split(['/', '\\']).filter(|p| !p.is_empty());
    Some(((b[0] as char).to_ascii_lowercase(), parts.collect()))
}

/// Regex for the dashed form of a home directory, as Claude Code names
/// project folders (every character but letters and digits becomes `-`):
/// `/home/dana` is `-home-dana`, `C:\Users\Dana` is `C--Users-Dana`.
fn dashed_pattern(home: &str) -> Option<String> {
    let (_, name) = Redactor::home_of(home)?;
    if name == "root" {
        return None;
    }
    let dashed = crate::source::discover::folder_name(home);
    let windows = home.as_bytes().get(1) == Some(&b':');
    Some(if windows {
        format!("(?i:{})", regex::escape(&dashed))
    } else {
        regex::escape(&dashed)
    })
}

/// The pattern of the owner's real name `name` for the rule's
/// case-insensitive group of names: its words in order, apart by spaces
/// or tabs, joined by one `-`, `_` or `.` or glued, with the digits a
/// handle adds (`Dana Kim`, `dana-kim`, `dana.kim`, `danakim27`), and
/// the last word first after a comma (`Kim, Dana`); the first and last
/// words alone too when there are more (`Dana Kim` and `Kim, Dana` for
/// `Dana Lee Kim`). A one-word name is a user name: None when it is too
/// short or an account name (`admin`).
fn real_name_pattern(name: &str) -> Option<String> {
    let words: Vec<String> = name.split_whitespace().map(str::to_lowercase).collect();
    let phrase = |words: &[String]| {
        let escaped: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
        escaped.join(r"(?:[ \t]+|[-_.])?") + "[0-9]*"
    };
    match words.as_slice() {
        [] => None,
        [word] => username_is_replaceable(word).then(|| regex::escape(word)),
        [first, middle @ .., last] => {
            let last = regex::escape(last);
            let mut shapes = vec![phrase(&words)];
            shapes.push(format!(
                r"{last},[ \t]*{}",
                phrase(&words[..words.len() - 1])
            ));
            if !middle.is_empty() {
                shapes.push(phrase(&[first.clone(), words[words.len() - 1].clone()]));
                shapes.push(format!(r"{last},[ \t]*{}", regex::escape(first)));
            }
            Some(shapes.join("|"))
        }
    }
}

fn username_is_replaceable(u: &str) -> bool {
    u.chars().count() >= 3 && !COMMON_USERNAMES.iter().any(|c| c.eq_ignore_ascii_case(u))
}

#[cfg(test)]
mod tests {
    /// The screen's letter test is the regex's class, for every character.
    #[test]
    fn drive_letter_is_what_the_regex_class_matches() {
        let class = regex::Regex::new(r"^(?i:[a-z])$").unwrap();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(
                super::drive_letter(c),
                class.is_match(c.encode_utf8(&mut [0; 4])),
                "{c:?}"
            );
        }
    }
}
