//! `password = ...`, `"token": "..."`, `--password ...`: the value of a
//! secret-looking key, and the many ways code looks like one without being one.

use super::engine::{
    is_b64, marker_spans, slots_if_match, Rewriter, State, K_ASSIGNMENT, K_AWS_SECRET,
};
use super::Redactor;

/// Assignment keys in lower, UPPER and Capitalized spelling (which also
/// covers camelCase: apiKey, accessToken, clientSecret). Not `(?i)`:
/// case-insensitive alternations defeat the regex literal prefilter and cost
/// 10x on clean text.
pub(super) const KEYS: &str = r"(?:[Pp]ass(?:word|wd|phrase)|PASS(?:WORD|WD|PHRASE)|[Pp]wd|PWD|[_\-](?:[Pp]ass|PASS)|[Ss]ecret|SECRET|[Tt]oken|TOKEN|(?:[Aa]pi|API|[Pp]rivate|PRIVATE|[Aa]ccess|ACCESS|[Ss]ecret|SECRET|[Aa]ccount|ACCOUNT|[Ss]igning|SIGNING|[Ee]ncryption|ENCRYPTION|[Mm]aster|MASTER)[_\- ]?(?:[Kk]ey|KEY)|[Aa]uth|AUTH|secret_key_base|SECRET_KEY_BASE|secretKeyBase)";

/// A quote closing a key, possibly escaped as in JSON inside JSON
/// (`"key"`, `\"key\"`, `\\\"key\\\"`).
pub(super) const QUOTE: &str = r#"(?:\\{0,3}["'`])"#;

impl Redactor {
    pub(super) fn stage_assignment(&self, text: &str, st: &mut State) -> Option<String> {
        let first = self.assignment_pass(false, text, st);
        if let Some(s) = &first {
            st.markers = marker_spans(s);
        }
        let src = first.as_deref().unwrap_or(text);
        match self.assignment_pass(true, src, st) {
            Some(second) => {
                st.replaced(first, &second);
                Some(second)
            }
            None => first,
        }
    }

    fn assignment_pass(&self, flag: bool, text: &str, st: &mut State) -> Option<String> {
        let re = &self.rules.assignment[flag as usize];
        let bytes = text.as_bytes();
        let (mut locs, mut pos) = slots_if_match(re, text)?;
        let mut rw = Rewriter::new(text, st);
        while let Some(m) = re.captures_read_at(&mut locs, text, pos) {
            pos = m.end();
            // main: 1 key, 2 separator, 3 XML key; flag: 1 key
            let xml = !flag && locs.get(3).is_some();
            let (ks, ke) = match locs.get(1).or_else(|| locs.get(3)) {
                Some(r) => r,
                None => continue,
            };
            let key = key_before(bytes, ks, ke);
            let key_start = ke - key.len();
            // `<password>hunter2</password>`
            if xml && (key_start == 0 || bytes[key_start - 1] != b'<') {
                continue;
            }
            // `auth` only as the whole key with a quoted credential-like
            // value: `"auth": "ZGFuYTpw..."` (docker), `_auth=...` (npm)
            let auth = text[ks..ke].eq_ignore_ascii_case("auth");
            if not_a_key(bytes, ks, key_start, key) {
                continue;
            }
            let word = text[ks..ke].to_ascii_lowercase();
            let colon = !flag && locs.get(2).is_some_and(|(s, e)| &text[s..e] == ":");
            let query = key_start > 0 && matches!(bytes[key_start - 1], b'?' | b'&');
            let parsed = if xml {
                let lim = (m.end() + 4096).min(bytes.len());
                memchr::memchr2(b'<', b'\n', &bytes[m.end()..lim]).map(|i| Value {
                    start: m.end(),
                    end: m.end() + i,
                    quoted: true,
                })
            } else {
                parse_value(bytes, m.end(), query)
            };
            let Some(mut v) = parsed.filter(|v| v.end > v.start) else {
                continue;
            };
            if auth {
                let k = String::from_utf8_lossy(key).to_ascii_lowercase();
                let val = &bytes[v.start..v.end];
                if !(matches!(k.as_str(), "auth" | "_auth")
                    && val.len() >= 12
                    && val.iter().all(|&c| is_b64(c) || c == b'-' || c == b'_'))
                {
                    continue;
                }
            }
            if flag && bytes[v.start] == b'-' {
                continue;
            }
            if colon && !v.quoted && is_type_annotation(&text[v.start..v.end], bytes, v.end) {
                // `password: str = "hunter2"`: the default after the type.
                match default_after_type(bytes, v.end) {
                    // (a marker is no part of a type)
                    Some(d) if !st.overlaps_marker(v.end, d.start) => v = d,
                    _ => continue,
                }
            }
            let val = &text[v.start..v.end];
            if is_non_value(val, v.quoted)
                || (word == "pwd" && looks_like_path(val))
                || (word == "token" && val.len() <= 6 && val.bytes().all(|c| c.is_ascii_digit()))
                || (!v.quoted && is_code(val, key, bytes, v.end))
                || st.overlaps_marker(v.start, v.end)
            {
                // not past the value: a key may hide in what was skipped
                continue;
            }
            let kind = if is_aws_secret_key(bytes, ks, ke) && is_aws_secret_value(val) {
                K_AWS_SECRET
            } else {
                K_ASSIGNMENT
            };
            rw.replace(v.start, v.end, &self.markers[kind]);
            self.bump(st, kind);
            pos = pos.max(v.end);
        }
        rw.finish(st)
    }
}

struct Value {
    start: usize,
    end: usize,
    quoted: bool,
}

/// The value of an assignment starting at `p` (after `key=` / `key: `).
fn parse_value(b: &[u8], p: usize, amp: bool) -> Option<Value> {
    let mut p = p;
    // Markdown emphasis around the key: "**Password:** hunter2"
    let mut q = p;
    while q < b.len() && (b[q] == b'*' || b[q] == b'_') && q - p < 2 {
        q += 1;
    }
    if q > p && q < b.len() && (b[q] == b' ' || b[q] == b'\t') {
        while q < b.len() && (b[q] == b' ' || b[q] == b'\t') {
            q += 1;
        }
        p = q;
    }
    if p >= b.len() {
        return None;
    }
    // quoted, possibly JSON-escaped: "x", \"x\", \\\"x\\\"
    let mut n = 0;
    while p + n < b.len() && b[p + n] == b'\\' && n < 3 {
        n += 1;
    }
    if p + n < b.len() && matches!(b[p + n], b'"' | b'\'' | b'`') {
        let quote = b[p + n];
        let start = p + n + 1;
        let lim = (start + 4096).min(b.len());
        let mut i = start;
        while i < lim {
            let c = b[i];
            if c == b'\n' {
                break;
            }
            if c == quote {
                let mut bs = 0;
                while i - bs > start && b[i - bs - 1] == b'\\' {
                    bs += 1;
                }
                if (n == 0 && bs % 2 == 0) || (n > 0 && bs == n) {
                    return Some(Value {
                        start,
                        end: i - bs,
                        quoted: true,
                    })
                    .filter(|v| v.end > v.start);
                }
            }
            i += 1;
        }
        // unterminated: fall back to the unquoted rule from after the quote
        let end = unquoted_end(b, start, amp);
        return (end > start).then_some(Value {
            start,
            end,
            quoted: true,
        });
    }
    if n > 0 {
        // `\n` right after `key:` — the value is on another line
        return None;
    }
    if matches!(b[p], b':' | b'=' | b'{' | b'[' | b'(' | b'|' | b'>' | b'#') {
        return None;
    }
    let end = unquoted_end(b, p, amp);
    (end > p).then_some(Value {
        start: p,
        end,
        quoted: false,
    })
}

/// End of an unquoted value. `&` ends it in a URL query (`amp`, or when a
/// `name=` follows): elsewhere (`.env` files) it may be part of a password.
fn unquoted_end(b: &[u8], p: usize, amp: bool) -> usize {
    let mut e = p;
    while e < b.len() {
        let c = b[e];
        if c.is_ascii_whitespace()
            || (c == b'&' && (amp || starts_param(&b[e + 1..])))
            || matches!(
                c,
                b'"' | b'\'' | b'`' | b'\\' | b';' | b',' | b')' | b']' | b'}' | b'<' | b'>'
            )
        {
            break;
        }
        e += 1;
    }
    e
}

/// Values that are not secrets: empty, null-ish, variable references,
/// template placeholders, masks.
fn is_non_value(v: &str, quoted: bool) -> bool {
    if v.is_empty() || is_placeholder(v) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "null" | "none" | "nil" | "undefined" | "required" | "optional"
    ) {
        return true;
    }
    // one character is no secret (and usually code: `token: T`, `{token:?}`)
    !quoted && v.chars().count() == 1
}

/// A key-looking word that is no key: `$token` (a variable), docstrings
/// (`:param password: the password to use`), type aliases (`type Token =
/// u8;`), GitHub Actions permissions (`id-token: write`).
fn not_a_key(bytes: &[u8], ks: usize, key_start: usize, key: &[u8]) -> bool {
    if ks > 0 && bytes[ks - 1] == b'$' {
        return true;
    }
    let before = &bytes[key_start.saturating_sub(7)..key_start];
    before.ends_with(b":param ")
        || before.ends_with(b"@param ")
        || before.ends_with(b":type ")
        || before.ends_with(b"type ")
        || key.eq_ignore_ascii_case(b"id-token")
}

const CODE_WORDS: &[&str] = &[
    "match", "if", "else", "await", "async", "new", "function", "lambda", "yield", "typeof",
    "require", "import", "self", "this", "super", "crate", "mut", "ref", "move", "return", "not",
    "and", "or", "in", "is", "let", "const", "var", "fn", "def",
];

/// An identifier value that is another variable (`token = token`,
/// `password = new_password`) or an operand (`NAME = BASE + 2`).
fn names_a_variable(v: &str, key: &[u8], b: &[u8], end: usize) -> bool {
    let lower = v.to_ascii_lowercase();
    let key = String::from_utf8_lossy(key).to_ascii_lowercase();
    // another variable: `token = token`, `semi_token: semi`,
    // `password = new_password`
    if key.split(['_', '-', '.']).any(|part| part == lower)
        || (lower.contains('_')
            && lower.rsplit('_').next().is_some_and(|last| {
                matches!(
                    last,
                    "token" | "password" | "passwd" | "pwd" | "secret" | "key" | "pass"
                )
            }))
    {
        return true;
    }
    // an operand: `NAME = BASE + 2`, `4000 + 447`
    let after = next_blank_end(b, end);
    if after > end
        && matches!(
            b.get(after),
            Some(b'+' | b'-' | b'*' | b'/' | b'|' | b'&' | b'%')
        )
        && matches!(b.get(after + 1), Some(b' ' | b'\t'))
    {
        return true;
    }
    false
}

/// Objects whose fields hold settings: `config.token` is a reference.
const ROOTS: &[&str] = &[
    "self",
    "this",
    "os",
    "process",
    "env",
    "config",
    "cfg",
    "settings",
    "args",
    "opts",
    "options",
    "ctx",
    "context",
    "params",
    "request",
    "req",
    "props",
    "secrets",
    "inputs",
    "vars",
    "tokenizer",
];

/// An unquoted value that is code, not a literal: `get_token()`,
/// `os.environ[`, `Token![;]`, `node.eq_token`, `token::Paren`, `match`,
/// `FirstPass {`, small numbers in `NAME = 2,`.
///
/// These only apply to unquoted values; a quoted value is always a literal.
/// The price is that an unquoted password that looks like such code (say
/// `pass=ab(cd` or `pass=a.token`) survives; transcripts hold far more code
/// than such passwords.
fn is_code(v: &str, key: &[u8], b: &[u8], end: usize) -> bool {
    let vb = v.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // call, index or macro: ident(  ident[  ident!(  path.to::f(
    if let Some(i) = vb.iter().position(|&c| matches!(c, b'(' | b'[' | b'!')) {
        let call = vb[i] != b'!' || matches!(vb.get(i + 1), Some(b'(' | b'[' | b'{'));
        if call
            && i > 0
            && vb[..i]
                .iter()
                .all(|&c| ident(c) || matches!(c, b'.' | b':'))
        {
            return true;
        }
    }
    if vb.iter().all(|&c| ident(c)) && names_a_variable(v, key, b, end) {
        return true;
    }
    let all_path = vb.iter().all(|&c| ident(c) || c == b'.' || c == b':');
    // a reference: `password = &buf`, `key: &'a str`
    if vb.len() > 1
        && vb[0] == b'&'
        && (vb[1].is_ascii_alphabetic() || vb[1] == b'_' || vb[1] == b'\'')
        && vb[1..]
            .iter()
            .all(|&c| ident(c) || matches!(c, b'.' | b':' | b'\''))
    {
        return true;
    }
    // Rust/C++ path: token::Paren, Foo::BAR
    if all_path && v.contains("::") {
        return true;
    }
    if CODE_WORDS.contains(&v) || v == "Self" || is_primitive_type(v) {
        return true;
    }
    // a collection of them: `token = tokens`
    if let Some(stem) = v.to_ascii_lowercase().strip_suffix('s') {
        if ["token", "password", "passwd", "secret", "key"].contains(&stem) {
            return true;
        }
    }
    // dotted reference: self.token, node.eq_token, process.env.TOKEN
    if let Some(dot) = v.find('.') {
        let root = &v[..dot];
        let last = v[v.rfind('.').unwrap_or(0)..].to_ascii_lowercase();
        if all_path
            && !root.is_empty()
            && (ROOTS.contains(&root)
                || ["token", "pass", "pwd", "secret", "key"]
                    .iter()
                    .any(|k| last.contains(k)))
        {
            return true;
        }
    }
    let next = next_non_blank(b, end);
    // numeric constants in code: `NAME = 2,` `FLAG: u32 = 0x30;`
    let numeric = vb.iter().all(|&c| c.is_ascii_digit() || c == b'_')
        || (v.starts_with("0x") && vb[2..].iter().all(|c| c.is_ascii_hexdigit()));
    if numeric && (vb.len() <= 3 || matches!(next, Some(b',' | b';' | b')'))) {
        return true;
    }
    // constructor / block after an identifier: `FirstPass {`, `Foo (`
    vb.iter().all(|&c| ident(c)) && matches!(next, Some(b'{' | b'('))
}

/// `name=` at the start of `b` (the next parameter of a query string).
fn starts_param(b: &[u8]) -> bool {
    let n = b
        .iter()
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'[' | b']')
        })
        .count();
    n > 0 && b.get(n) == Some(&b'=')
}

/// The whole identifier that ends with the key word at `ks..ke`.
fn key_before(b: &[u8], ks: usize, ke: usize) -> &[u8] {
    let mut s = ks;
    while s > 0 && (b[s - 1].is_ascii_alphanumeric() || matches!(b[s - 1], b'_' | b'-' | b'.')) {
        s -= 1;
    }
    &b[s..ke]
}

fn next_non_blank(b: &[u8], mut i: usize) -> Option<u8> {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    b.get(i).copied()
}

/// `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `{{ x }}`, `<your-token>`, `****`,
/// `xxxx`, `...`, and already-redacted values.
pub(super) fn is_placeholder(v: &str) -> bool {
    let b = v.as_bytes();
    if b.is_empty() {
        return true;
    }
    if v.starts_with("[REDACTED")
        || v.starts_with("${")
        || v.starts_with("$(")
        || v.starts_with("{{")
    {
        return true;
    }
    if b[0] == b'$'
        && b.len() > 1
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return true;
    }
    if b.len() > 2 && b[0] == b'%' && b[b.len() - 1] == b'%' {
        return true;
    }
    if b.len() > 2 && b[0] == b'<' && b[b.len() - 1] == b'>' {
        return true;
    }
    // format strings: '%s:%s', '%r', "{}", "{0}"
    if ["%s", "%r", "%d", "%(", "{}", "{0}"]
        .iter()
        .any(|f| v.contains(f))
    {
        return true;
    }
    b.iter()
        .all(|&c| matches!(c, b'*' | b'.' | b'x' | b'X' | b'-' | b'#'))
        || v.chars().all(|c| c == '…' || c == '•')
}

const TYPE_NAMES: &[&str] = &[
    "str",
    "string",
    "bytes",
    "int",
    "bool",
    "boolean",
    "number",
    "any",
    "unknown",
    "object",
    "option",
    "optional",
    "secret",
    "secretstr",
    "secretstring",
    "vec",
    "impl",
    "dyn",
    "mut",
    "char",
    "float",
    "none",
    "box",
    "arc",
    "rc",
    "cow",
    "path",
    "pathbuf",
    "buffer",
    "self",
    "i32",
    "i64",
    "u32",
    "u64",
    "u8",
    "usize",
    "list",
    "dict",
    "tuple",
    "union",
    "literal",
    "uint8array",
    "readonly",
    "const",
    "pub",
];

/// `token: String`, `password: Option<String>`, `pw: *mut c_char`,
/// `secret: SecretStr`, `token: T)`: a type annotation, not a value.
fn is_type_annotation(v: &str, b: &[u8], end: usize) -> bool {
    let vb = v.as_bytes();
    if vb.is_empty() {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if TYPE_NAMES.contains(&lower.as_str()) {
        return true;
    }
    // pointer, reference (or YAML alias, anchor): *mut T, &str, *alias
    if matches!(vb[0], b'*' | b'&') && vb.len() > 1 {
        return true;
    }
    // C / Rust primitive names: u32, c_long, __u32, size_t, status_t
    let bare = lower.trim_start_matches('_');
    if bare.starts_with("c_")
        || lower.starts_with("__")
        || (bare.len() > 2 && bare.ends_with("_t"))
        || is_primitive_type(bare)
    {
        return true;
    }
    let path = vb
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b':');
    let next = next_non_blank(b, end);
    // `name: Type = default` (the default is then looked at)
    if path && next == Some(b'=') {
        let after = b.get(next_blank_end(b, end) + 1).copied();
        return !matches!(after, Some(b'=' | b'>'));
    }
    // `token: TokenTree,`  `token: T)`  `token: C1)`  `type Token: Token;`
    // `Foo<..>` (digits only in short names: `password: Hunter2,` is no type)
    path && vb[0].is_ascii_uppercase()
        && (matches!(next, Some(b'<' | b'['))
            || (matches!(next, Some(b',' | b')' | b';' | b'>' | b'{'))
                && (vb.len() <= 2 || !vb.iter().any(|c| c.is_ascii_digit()))))
}

/// Rust primitive types: `Stream<Token = u8>`, `token: usize`.
fn is_primitive_type(v: &str) -> bool {
    matches!(
        v,
        "bool" | "char" | "str" | "usize" | "isize" | "f32" | "f64"
    ) || (v.len() >= 2
        && matches!(v.as_bytes()[0], b'i' | b'u')
        && matches!(&v[1..], "8" | "16" | "32" | "64" | "128"))
}

fn next_blank_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// For `password: str = "hunter2"`: the value after `=` following a type.
fn default_after_type(b: &[u8], from: usize) -> Option<Value> {
    let lim = (from + 120).min(b.len());
    let mut i = from;
    while i < lim && (b[i].is_ascii_alphanumeric() || b" \t<>[],.|&'?:_".contains(&b[i])) {
        i += 1;
    }
    if i >= lim || b[i] != b'=' || matches!(b.get(i + 1), Some(b'=' | b'>')) {
        return None;
    }
    let mut p = i + 1;
    while p < b.len() && (b[p] == b' ' || b[p] == b'\t') {
        p += 1;
    }
    parse_value(b, p, false)
}

fn looks_like_path(v: &str) -> bool {
    let b = v.as_bytes();
    b.first().is_some_and(|&c| c == b'/' || c == b'~')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// The key ending at `ke` (whole identifier, scanned backwards) names an AWS
/// secret access key: aws_secret_access_key, SecretAccessKey, ...
fn is_aws_secret_key(b: &[u8], ks: usize, ke: usize) -> bool {
    let mut s = ks;
    while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_' || b[s - 1] == b'-') {
        s -= 1;
    }
    let key: Vec<u8> = b[s..ke]
        .iter()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    key.ends_with(b"secretaccesskey")
}

fn is_aws_secret_value(v: &str) -> bool {
    v.len() == 40
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'/' || c == b'+')
}
