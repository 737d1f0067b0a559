//! Generate a synthetic Claude Code data directory (`~/.claude`) of a given
//! size, for benchmarks.
//!
//! ```sh
//! cargo run --release --example gen_corpus -- --size 1GB --out /tmp/cc-1g
//! cargo run --release --example gen_corpus -- --size 100MB --out /tmp/cc-big --big-session 1GB
//! ```
//!
//! The output has the shape of a real data directory (see the corpus under
//! `../shared/corpus`): `projects/<dir>/<session>.jsonl` transcripts over
//! several projects, sub-agents in all three layouts (inline sidechain lines
//! for 1.0.x, `agent-<id>.jsonl` beside the sessions for 2.0.x,
//! `<session>/subagents/agent-<id>.jsonl` plus `.meta.json` for 2.1.x),
//! `memory/` folders with a `MEMORY.md` index, `history.jsonl` and a few
//! `sessions/<pid>.json`. Records carry the real fields and the real mix of
//! types; text is prose and code built from a vocabulary, not random bytes.
//!
//! Same arguments, same bytes: everything comes from one seeded PRNG and
//! nothing reads the clock except the timing printed at the end. Every file
//! is streamed through a `BufWriter`; only one record is held in memory.
//!
//! Rare words for search benchmarks ("needles") appear in about one prose
//! sentence in 4,000: see [`NEEDLES`].

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str = "usage: gen_corpus --size SIZE --out DIR [--seed N] [--big-session SIZE]

  --size SIZE          total bytes to write (KB, MB, GB suffixes; decimal: 1MB = 1000000)
  --out DIR            output directory: created, or empty, or a previous gen_corpus output
  --seed N             random seed (default 1); the same arguments give byte-identical output
  --big-session SIZE   also write one single session file of about SIZE, on top of --size";

/// The file that marks a directory as ours, so a rerun may replace it.
const MARKER: &str = ".gen_corpus";

/// Rare words for search benchmarks: each appears in about 1 in 4,000 sentences.
#[rustfmt::skip]
const NEEDLES: &[&str] = &[
    "quokka-cache", "zanzibar-retry", "heisenbug", "flux-capacitor", "snark-hunt", "XYZZY_PLUGH",
];

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gen_corpus: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            ExitCode::from(1)
        }
    }
}

// ---------------------------------------------------------------- arguments

struct Args {
    size: u64,
    out: PathBuf,
    seed: u64,
    big: Option<u64>,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut size = None;
    let mut out = None;
    let mut seed = 1u64;
    let mut big = None;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if key == "-h" || key == "--help" {
            return Ok(None);
        }
        let mut value = || -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{key} needs a value"))
        };
        match key.as_str() {
            "--size" => size = Some(parse_size(&value()?)?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seed" => {
                let v = value()?;
                seed = v
                    .parse()
                    .map_err(|_| format!("--seed wants a whole number, not {v:?}"))?;
            }
            "--big-session" => big = Some(parse_size(&value()?)?),
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    let size = size.ok_or("--size is required")?;
    let out = out.ok_or("--out is required")?;
    Ok(Some(Args {
        size,
        out,
        seed,
        big,
    }))
}

/// `100MB`, `1GB`, `1.5gb`, `20000KB`, `123456` (bytes). Decimal units.
fn parse_size(s: &str) -> Result<u64, String> {
    let u = s.trim().to_ascii_uppercase();
    let units: [(&str, f64); 7] = [
        ("GB", 1e9),
        ("MB", 1e6),
        ("KB", 1e3),
        ("G", 1e9),
        ("M", 1e6),
        ("K", 1e3),
        ("B", 1.0),
    ];
    let (num, mult) = units
        .iter()
        .find_map(|(suffix, m)| u.strip_suffix(suffix).map(|n| (n, *m)))
        .unwrap_or((u.as_str(), 1.0));
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v * mult >= 1.0 => Ok((v * mult).round() as u64),
        _ => Err(format!(
            "bad size {s:?}: use a number with KB, MB or GB (e.g. 100MB, 1GB)"
        )),
    }
}

// ---------------------------------------------------------------- randomness

/// splitmix64: tiny, fast, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x5DEE_CE66_D1CE_B00C);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// Log-uniform in `lo..hi`.
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
    /// Geometric-ish count with the given mean, at least 1, at most `max`.
    fn count(&mut self, mean: f64, max: u64) -> u64 {
        let p = 1.0 / mean.max(1.0);
        let mut n = 1;
        while n < max && !self.chance(p) {
            n += 1;
        }
        n
    }
    /// Pick an index by weight.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return i;
            }
            x -= w as u64;
        }
        weights.len() - 1
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";
const B62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn uuid(r: &mut Rng) -> String {
    let (a, b) = (r.next(), r.next());
    let mut s = String::with_capacity(36);
    for i in 0..32 {
        let word = if i < 16 { a } else { b };
        let mut nib = ((word >> ((i % 16) * 4)) & 0xF) as usize;
        if i == 12 {
            nib = 4;
        } else if i == 16 {
            nib = 8 | (nib & 3);
        }
        if matches!(i, 8 | 12 | 16 | 20) {
            s.push('-');
        }
        s.push(HEX[nib] as char);
    }
    s
}

fn from_alphabet(r: &mut Rng, alphabet: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| alphabet[r.below(alphabet.len() as u64) as usize] as char)
        .collect()
}

fn hex(r: &mut Rng, n: usize) -> String {
    from_alphabet(r, HEX, n)
}

// ---------------------------------------------------------------- time

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn ms_at(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y, m, d) * 86_400_000
}

/// `2026-01-31T07:22:13.117Z`
fn iso(l: &mut Vec<u8>, ms: i64) {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    pad(l, y as u64, 4);
    l.push(b'-');
    pad(l, mo as u64, 2);
    l.push(b'-');
    pad(l, d as u64, 2);
    l.push(b'T');
    pad(l, h as u64, 2);
    l.push(b':');
    pad(l, mi as u64, 2);
    l.push(b':');
    pad(l, s as u64, 2);
    l.push(b'.');
    pad(l, milli as u64, 3);
    l.push(b'Z');
}

// ---------------------------------------------------------------- JSON bits

fn pad(l: &mut Vec<u8>, n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = 20;
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while 20 - i < width {
        i -= 1;
        buf[i] = b'0';
    }
    l.extend_from_slice(&buf[i..]);
}

fn num(l: &mut Vec<u8>, n: u64) {
    pad(l, n, 1);
}

/// Append `s` escaped as the inside of a JSON string.
fn esc(l: &mut Vec<u8>, s: &[u8]) {
    let mut start = 0;
    for (i, &c) in s.iter().enumerate() {
        let rep: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        l.extend_from_slice(&s[start..i]);
        if rep.is_empty() {
            l.extend_from_slice(b"\\u00");
            l.push(HEX[(c >> 4) as usize]);
            l.push(HEX[(c & 15) as usize]);
        } else {
            l.extend_from_slice(rep);
        }
        start = i + 1;
    }
    l.extend_from_slice(&s[start..]);
}

/// Append `s` as a quoted JSON string.
fn q(l: &mut Vec<u8>, s: &str) {
    l.push(b'"');
    esc(l, s.as_bytes());
    l.push(b'"');
}

/// Append already-escaped bytes as a quoted JSON string.
fn qe(l: &mut Vec<u8>, escaped: &[u8]) {
    l.push(b'"');
    l.extend_from_slice(escaped);
    l.push(b'"');
}

trait Ext {
    fn s<T: AsRef<str> + ?Sized>(&mut self, s: &T) -> &mut Self;
}

impl Ext for Vec<u8> {
    fn s<T: AsRef<str> + ?Sized>(&mut self, s: &T) -> &mut Self {
        self.extend_from_slice(s.as_ref().as_bytes());
        self
    }
}

// ---------------------------------------------------------------- output

/// A buffered file that counts what it wrote.
struct Out {
    w: BufWriter<File>,
    n: u64,
    path: PathBuf,
}

impl Out {
    fn create(path: &Path) -> Res<Out> {
        let f = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Out {
            w: BufWriter::with_capacity(1 << 20, f),
            n: 0,
            path: path.to_path_buf(),
        })
    }
    fn b(&mut self, bytes: &[u8]) -> Res<()> {
        self.n += bytes.len() as u64;
        self.w
            .write_all(bytes)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()).into())
    }
    fn finish(self) -> Res<u64> {
        let (n, path) = (self.n, self.path.clone());
        let f = self
            .w
            .into_inner()
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        drop(f);
        Ok(n)
    }
}

const KINDS: [&str; 12] = [
    "assistant",
    "user",
    "progress",
    "queue-operation",
    "attachment",
    "file-history-snapshot",
    "system",
    "last-prompt",
    "ai-title",
    "summary",
    "custom-title",
    "permission-mode",
];
const K_ASSISTANT: usize = 0;
const K_USER: usize = 1;
const K_PROGRESS: usize = 2;
const K_QUEUE: usize = 3;
const K_ATTACHMENT: usize = 4;
const K_SNAPSHOT: usize = 5;
const K_SYSTEM: usize = 6;
const K_LAST_PROMPT: usize = 7;
const K_AI_TITLE: usize = 8;
const K_SUMMARY: usize = 9;
const K_CUSTOM_TITLE: usize = 10;
const K_PERMISSION: usize = 11;

#[derive(Default)]
struct Stats {
    files: u64,
    bytes: u64,
    lines: u64,
    kinds: [u64; KINDS.len()],
    sessions: u64,
    subagents: u64,
}

impl Stats {
    fn file(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
    }
}

fn write_file(stats: &mut Stats, path: &Path, bytes: &[u8]) -> Res<()> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    stats.file(bytes.len() as u64);
    Ok(())
}

fn mkdir(path: &Path) -> Res<()> {
    fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()).into())
}

// ---------------------------------------------------------------- vocabulary

#[rustfmt::skip]
const NOUNS: &[&str] = &[
    "parser", "config", "cache", "request", "response", "handler", "session", "token", "buffer",
    "index", "query", "schema", "migration", "endpoint", "router", "worker", "queue", "thread",
    "lock", "timeout", "retry", "error", "message", "payload", "record", "field", "column",
    "table", "row", "page", "template", "layout", "component", "hook", "state", "store", "reducer",
    "action", "event", "listener", "stream", "file", "path", "directory", "module", "crate",
    "package", "dependency", "build", "test", "fixture", "benchmark", "profile", "trace", "log",
    "metric", "counter", "histogram", "span", "client", "server", "connection", "pool", "socket",
    "header", "cookie", "user", "account", "permission", "role", "policy", "secret", "key",
    "certificate", "signature", "hash", "digest", "checksum", "snapshot", "backup", "release",
    "version", "branch", "commit", "diff", "patch", "merge", "conflict", "review", "issue", "bug",
    "regression", "feature", "flag", "option", "argument", "command", "script", "pipeline", "job",
    "task", "scheduler", "deadline", "budget", "limit", "quota", "batch", "chunk", "offset",
    "cursor", "iterator", "closure", "trait", "struct", "enum", "variant", "function", "method",
    "macro", "type", "generic", "lifetime", "borrow", "reference", "pointer", "allocation", "heap",
    "stack", "frame", "slice", "vector", "map", "tree", "graph", "node", "edge", "cluster",
    "shard", "replica", "leader", "transaction", "wiki", "renderer", "slug", "link", "anchor",
    "sidebar", "timeline", "summary", "transcript", "frontmatter", "redaction", "watcher",
    "manifest", "lockfile", "registry", "runtime", "sandbox", "webhook",
];

#[rustfmt::skip]
const VERBS: &[&str] = &[
    "add", "remove", "update", "fix", "refactor", "rename", "move", "split", "merge", "parse",
    "render", "validate", "check", "load", "save", "read", "write", "flush", "sync", "fetch",
    "send", "retry", "cache", "index", "sort", "filter", "map", "reduce", "group", "format", "log",
    "trace", "measure", "profile", "optimize", "inline", "extract", "wrap", "handle", "catch",
    "skip", "redact", "escape", "encode", "decode", "compress", "hash", "sign", "verify", "test",
    "mock", "document", "deprecate", "migrate", "deploy", "build", "bundle", "lint", "review",
    "stream", "batch", "dedupe", "normalize", "serialize", "reload",
];

#[rustfmt::skip]
const ADJS: &[&str] = &[
    "stale", "flaky", "slow", "fast", "empty", "missing", "broken", "nested", "lazy", "eager",
    "async", "blocking", "concurrent", "parallel", "deterministic", "idempotent", "atomic",
    "partial", "complete", "invalid", "valid", "unknown", "legacy", "new", "old", "large", "small",
    "huge", "tiny", "optional", "required", "private", "public", "internal", "external",
    "redundant", "unused", "deprecated", "experimental", "stable", "unstable", "cached", "dirty",
    "clean", "sorted", "malformed", "truncated", "duplicate", "unique", "default", "custom",
    "global", "local", "temporary", "persistent", "relative", "absolute", "recursive", "quiet",
];

const FRAMES: &[&str] = &[
    "The {a} {n} {vs} the {n} when {c} is called.",
    "We should {v} the {n} in {f} before the next release.",
    "This {vs} about {num} {n} entries per second on the benchmark machine.",
    "Let me {v} the {n} first and then {v} {c}.",
    "It looks like {c} {vs} a {a} {n} instead of the expected {n}.",
    "The test in {f} fails because the {n} is {a}.",
    "Next, I will {v} {c} so that the {n} {vs} the {a} {n}.",
    "Once the {n} is {a}, we can {v} the {n} safely.",
    "There are {num} call sites of {c}; most of them {v} the {n} directly.",
    "I found the cause: {c} never {vs} the {n} after a {a} {n}.",
    "Now {f} {vs} the {n}, and the {a} path is covered by a test.",
    "The {n} in {f} is {a}, so {c} has to {v} it again.",
    "Keeping the {n} {a} avoids a {a} {n} in {c}.",
    "All {num} tests pass and the {a} {n} no longer {vs} the {n}.",
    "I'll {v} the {a} {n} and leave {c} as it is.",
    "The {n} and the {n} share one {a} {n}, which is why {c} {vs} twice.",
    "After this change {c} {vs} the {n} in {num} ms instead of {num} ms.",
    "Note that the {n} is {a} on Windows, where {c} {vs} a {a} {n}.",
    "A {a} {n} here would {v} every {n} in the {n}.",
    "To {v} the {n}, {c} now takes the {n} by reference.",
    "The {a} {n} comes from {f}, not from the {n}.",
    "I checked {f}: the {n} is only {a} when the {n} is {a}.",
];

const PROMPT_FRAMES: &[&str] = &[
    "Can you {v} the {a} {n} in {f}?",
    "Please {v} {c} so it {vs} the {n} correctly.",
    "Why does {c} {v} the {n} twice?",
    "The {n} is {a} after the last change. {V} it and add a test.",
    "Let's {v} the {n}. Keep the {a} {n} as it is.",
    "{V} the {n} in {f} and run the tests.",
    "I think {c} is {a}. Can you check the {n} and {v} it?",
    "Add a {a} {n} to {f} that {vs} the {n}.",
    "The build fails with a {a} {n} in {f}. Fix it.",
    "Refactor {c} to {v} the {n} without a {a} {n}.",
    "Write a test for {c} that covers the {a} {n}.",
    "What happens to the {n} when {c} gets a {a} {n}?",
    "{V} the {a} {n} and commit.",
    "Look at {f} and tell me how the {n} gets {a}.",
    "ok, now {v} the {n} too",
    "{v} the {n} in {c}, the {a} one",
];

#[rustfmt::skip]
const SLUG_ADJS: &[&str] = &[
    "jiggly", "cached", "vivid", "radiant", "peaceful", "clean", "quiet", "sunny", "brave",
    "gentle", "humble", "lucky", "misty", "nimble", "rustic", "silly", "witty", "zesty",
];
#[rustfmt::skip]
const SLUG_VERBS: &[&str] = &[
    "skipping", "soaring", "plotting", "cuddling", "finding", "dancing", "juggling", "wandering",
    "humming", "floating", "spinning", "drifting", "hopping", "glowing", "roaming", "whistling",
];
#[rustfmt::skip]
const SLUG_NOUNS: &[&str] = &[
    "sun", "cat", "newt", "robin", "crystal", "moon", "otter", "comet", "maple", "river", "pebble",
    "falcon", "meadow", "lantern", "harbor", "acorn",
];

#[rustfmt::skip]
const PROJECT_NAMES: &[&str] = &[
    "ccwiki", "atlas-api", "billing-service", "ledger-ui", "orbit-cli", "harbor-infra",
    "pixel-forge", "quill-docs", "nimbus-sync", "sparrow-ml", "tern-router", "kestrel-auth",
    "mosaic-dashboard", "relay-gateway", "delta-etl", "cobalt-db", "lumen-search",
    "fjord-notebooks", "aspen-mobile", "vector-tiles", "granite-queue", "willow-blog",
    "falcon-deploy", "ember-chat", "prism-metrics", "tundra-backup", "coral-payments",
    "onyx-scheduler", "juniper-forms", "basalt-storage", "meadow-cms", "zephyr-edge",
];

// ---------------------------------------------------------------- text generator

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Ts,
    Py,
    Go,
}

impl Lang {
    fn ext(self) -> &'static str {
        match self {
            Lang::Rust => "rs",
            Lang::Ts => "ts",
            Lang::Py => "py",
            Lang::Go => "go",
        }
    }
    fn fence(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Ts => "typescript",
            Lang::Py => "python",
            Lang::Go => "go",
        }
    }
    fn idx(self) -> usize {
        self as usize
    }
    fn indent(self) -> usize {
        match self {
            Lang::Ts => 2,
            Lang::Go => 1,
            _ => 4,
        }
    }
}

/// How text is written: for which language, and JSON-escaped or raw.
#[derive(Clone, Copy)]
struct Style {
    lang: Lang,
    esc: bool,
}

impl Style {
    fn nl(self) -> &'static [u8] {
        if self.esc {
            b"\\n"
        } else {
            b"\n"
        }
    }
}

enum Piece {
    Lit { raw: Vec<u8>, esc: Vec<u8> },
    Ident,
    Type,
    Num,
    Phrase,
    Sentence,
    Hex7,
    Hex40,
    Ext,
}

/// A line template: literal text with `@i` (identifier), `@T` (type name),
/// `@n` (number), `@s` (phrase), `@S` (sentence), `@h`/`@H` (short/long
/// hash) and `@e` (file extension) holes.
struct Tpl {
    pieces: Vec<Piece>,
    opens: bool,
    closes: bool,
}

fn tpl(s: &str) -> Tpl {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut chars = s.chars().peekable();
    let flush = |lit: &mut String, pieces: &mut Vec<Piece>| {
        if !lit.is_empty() {
            let mut e = Vec::new();
            esc(&mut e, lit.as_bytes());
            pieces.push(Piece::Lit {
                raw: lit.as_bytes().to_vec(),
                esc: e,
            });
            lit.clear();
        }
    };
    while let Some(c) = chars.next() {
        if c == '@' {
            let hole = match chars.peek() {
                Some('i') => Some(Piece::Ident),
                Some('T') => Some(Piece::Type),
                Some('n') => Some(Piece::Num),
                Some('s') => Some(Piece::Phrase),
                Some('S') => Some(Piece::Sentence),
                Some('h') => Some(Piece::Hex7),
                Some('H') => Some(Piece::Hex40),
                Some('e') => Some(Piece::Ext),
                _ => None,
            };
            if let Some(h) = hole {
                chars.next();
                flush(&mut lit, &mut pieces);
                pieces.push(h);
                continue;
            }
        }
        lit.push(c);
    }
    flush(&mut lit, &mut pieces);
    let t = s.trim_end();
    Tpl {
        pieces,
        opens: t.ends_with('{') || t.ends_with(':') || t.ends_with('('),
        closes: s.starts_with('}') || s.starts_with(')'),
    }
}

const RUST_CODE: &[&str] = &[
    "use crate::@i::{@T, @T};",
    "use std::collections::HashMap;",
    "pub fn @i(&self, @i: &@T) -> Result<@T, Error> {",
    "fn @i(@i: &mut @T, @i: usize) -> Option<@T> {",
    "let @i = @i.@i()?;",
    "let mut @i = Vec::with_capacity(@n);",
    "let @i = self.@i.get(&@i).cloned().unwrap_or_default();",
    "if @i.is_empty() {",
    "if let Some(@i) = @i.@i(@n) {",
    "return Err(Error::@T(\"@s\".into()));",
    "for @i in @i.iter().filter(|@i| @i.@i > @n) {",
    "match @i {",
    "@T::@T => @i(@i),",
    "Some(@i) => @i.@i(@n),",
    "None => return Ok(None),",
    "#[derive(Debug, Clone, PartialEq, Eq)]",
    "pub struct @T {",
    "pub @i: @T,",
    "@i: Option<Box<@T>>,",
    "impl @T {",
    "impl From<@T> for @T {",
    "// @S",
    "/// @S",
    "assert_eq!(@i.@i(), @n);",
    "let @i: HashMap<String, @T> = HashMap::new();",
    "tracing::debug!(\"@s: {}\", @i);",
    "self.@i.insert(@i.clone(), @i);",
    "Ok(@T { @i, @i })",
    "#[test]",
    "fn @i() {",
    "let @i = std::fs::read_to_string(&@i).map_err(|e| Error::Io(e, @i.clone()))?;",
    "write!(f, \"{}:{}\", self.@i, self.@i)?;",
    "@i.sort_by(|a, b| a.@i.cmp(&b.@i));",
];

const TS_CODE: &[&str] = &[
    "import { @T, @T } from './@i';",
    "import type { @T } from '../@i/@i';",
    "export async function @i(@i: @T): Promise<@T> {",
    "export function @i(@i: string, @i = @n): @T {",
    "const @i = await @i.@i(@n);",
    "const { @i, @i } = @i;",
    "if (!@i) {",
    "throw new Error(`@s: ${@i}`);",
    "return @i.map((@i) => @i.@i);",
    "return @i.filter((@i) => @i.@i > @n);",
    "export interface @T {",
    "@i: string;",
    "@i?: number;",
    "@i: @T[];",
    "const [@i, @i] = useState<@T | null>(null);",
    "console.log('@s', @i);",
    "@i.@i = @i ?? @n;",
    "// @S",
    "/** @S */",
    "it('@s', async () => {",
    "expect(@i(@n)).toBe(@n);",
    "expect(@i).toEqual({ @i: @n });",
    "<div className=\"@i\">{@i}</div>",
    "useEffect(() => {",
    "for (const @i of @i) {",
    "switch (@i.type) {",
    "case '@i':",
    "export default @T;",
];

const PY_CODE: &[&str] = &[
    "from .@i import @T, @T",
    "import @i",
    "def @i(self, @i: @T, @i: int = @n) -> @T:",
    "async def @i(@i: str) -> list[@T]:",
    "@i = self.@i.get(\"@i\", @n)",
    "if not @i:",
    "raise ValueError(f\"@s: {@i}\")",
    "return [@i for @i in @i if @i.@i]",
    "class @T(@T):",
    "\"\"\"@S\"\"\"",
    "logger.info(\"@s: %s\", @i)",
    "for @i in @i:",
    "with open(@i, encoding=\"utf-8\") as @i:",
    "assert @i(@n) == @n",
    "# @S",
    "@i: dict[str, @T] = {}",
    "await self.@i(@i)",
    "@pytest.mark.parametrize(\"@i\", [@n, @n, @n])",
    "@i.append(@T(@i=@i, @i=@n))",
    "except @TError as exc:",
    "try:",
    "return @i",
    "self.@i = @i",
];

const GO_CODE: &[&str] = &[
    "func (s *@T) @T(ctx context.Context, @i @T) (*@T, error) {",
    "func @T(@i []@T) int {",
    "@i, err := s.@i.@T(ctx, @i)",
    "if err != nil {",
    "return nil, fmt.Errorf(\"@s: %w\", err)",
    "for _, @i := range @i {",
    "type @T struct {",
    "@T @T `json:\"@i\"`",
    "// @S",
    "@i := make(map[string]@T, @n)",
    "defer @i.Close()",
    "return &@T{@T: @i}, nil",
    "t.Run(\"@s\", func(t *testing.T) {",
    "log.Printf(\"@s: %v\", @i)",
    "if @i == nil {",
    "@i = append(@i, @T{@T: @n})",
    "switch @i.@T {",
    "case @T:",
    "mu.Lock()",
    "if got := @T(@i); got != @n {",
];

/// Command templates with the kind of output they produce.
const COMMANDS: &[(&str, usize, u8)] = &[
    ("cargo test @i", 0, 0),
    ("cargo build --release 2>&1 | tail -40", 1, 0),
    ("cargo clippy --all-targets -- -D warnings", 1, 0),
    ("npm test -- @i", 2, 1),
    ("npx tsc --noEmit", 1, 1),
    ("pytest tests/test_@i.py -x -q", 3, 2),
    ("ruff check . && mypy @i", 1, 2),
    ("go test ./internal/@i/...", 4, 3),
    ("go vet ./...", 1, 3),
    ("git status", 5, 9),
    ("git log --oneline -30", 6, 9),
    ("git diff --stat", 7, 9),
    ("ls -la src/@i", 8, 9),
    ("rg -n \"@i\" src", 9, 9),
];

const OUTPUTS: &[&[&str]] = &[
    // 0: cargo test
    &[
        "running @n tests",
        "test @i::tests::@i ... ok",
        "test @i::@i ... ok",
        "test @i::tests::@i_@i ... ok",
        "test @i::@i ... ignored",
        "     Running unittests src/lib.rs (target/debug/deps/@i-@h)",
        "test result: ok. @n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.@ns",
    ],
    // 1: build / lint
    &[
        "   Compiling @i v0.@n.@n",
        "warning: unused variable: `@i`",
        "  --> src/@i.@e:@n:@n",
        "   |",
        "@n |     let @i = @i.@i(@n);",
        "   |         ^^^^ help: if this is intentional, prefix it with an underscore: `_@i`",
        "error[E0502]: cannot borrow `@i` as mutable because it is also borrowed as immutable",
        "src/@i.@e(@n,@n): error TS2339: Property '@i' does not exist on type '@T'.",
        "@i.py:@n:@n: F401 `@i` imported but unused",
        "    Finished `release` profile [optimized] target(s) in @n.@ns",
    ],
    // 2: npm test
    &[
        "> @i@1.@n.@n test",
        " PASS  src/@i.test.ts (@n.@n s)",
        "  ✓ @s (@n ms)",
        "  ✓ @s (@n ms)",
        "  ✕ @s (@n ms)",
        "    Expected: @n",
        "    Received: @n",
        "Tests:       @n passed, @n total",
        "Time:        @n.@n s",
    ],
    // 3: pytest
    &[
        "tests/test_@i.py::test_@i PASSED",
        "tests/test_@i.py::test_@i PASSED",
        "tests/test_@i.py::test_@i FAILED",
        "E       AssertionError: assert @n == @n",
        "E        +  where @n = @i(@n)",
        "========== @n passed, @n warnings in @n.@ns ==========",
    ],
    // 4: go test
    &[
        "=== RUN   Test@T",
        "--- PASS: Test@T (0.0@ns)",
        "--- FAIL: Test@T (0.0@ns)",
        "    @i_test.go:@n: got @n, want @n",
        "ok  \texample.com/bench/internal/@i\t0.@ns",
        "FAIL\texample.com/bench/internal/@i\t0.@ns",
    ],
    // 5: git status
    &[
        "On branch @i",
        "Changes not staged for commit:",
        "  (use \"git add <file>...\" to update what will be committed)",
        "\tmodified:   src/@i.@e",
        "\tmodified:   src/@i/@i.@e",
        "Untracked files:",
        "\tsrc/@i/",
    ],
    // 6: git log
    &["@h @S", "@h Fix @s", "@h Add @s", "@h Merge branch '@i' into main"],
    // 7: git diff --stat
    &[
        " src/@i.@e | @n ++++++----",
        " src/@i/@i.@e | @n +++--",
        " tests/@i.@e | @n +++++++",
        " @n files changed, @n insertions(+), @n deletions(-)",
    ],
    // 8: ls
    &[
        "-rw-r--r--  1 bench bench  @n May  @n 10:@n @i.@e",
        "drwxr-xr-x  @n bench bench  4096 May  @n 09:@n @i",
        "-rw-r--r--  1 bench bench @n Apr  @n 18:@n @i_test.@e",
    ],
];

struct Gen {
    snake: Vec<String>,
    camel: Vec<String>,
    types: Vec<String>,
    frames: Vec<Vec<Word>>,
    prompt_frames: Vec<Vec<Word>>,
    code: [Vec<Tpl>; 4],
    outputs: Vec<Vec<Tpl>>,
    commands: Vec<(Tpl, usize, u8)>,
}

/// A piece of a prose frame: literal text (never needs escaping) or a word hole.
enum Word {
    Lit(&'static str),
    /// `{n}`
    Noun,
    /// `{v}`
    Verb,
    /// `{V}`
    VerbCap,
    /// `{vs}`
    Verbs,
    /// `{a}`
    Adj,
    /// `{c}`: an identifier in backticks.
    Code,
    /// `{f}`: a file name in backticks.
    File,
    /// `{num}`
    Num,
}

fn frame(s: &'static str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap_or(0);
        if open > 0 {
            out.push(Word::Lit(&rest[..open]));
        }
        out.push(match &rest[open + 1..close] {
            "n" => Word::Noun,
            "v" => Word::Verb,
            "V" => Word::VerbCap,
            "vs" => Word::Verbs,
            "a" => Word::Adj,
            "c" => Word::Code,
            "f" => Word::File,
            _ => Word::Num,
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Word::Lit(rest));
    }
    out
}

fn third_person(v: &str) -> String {
    if v.ends_with('s') || v.ends_with('x') || v.ends_with("sh") || v.ends_with("ch") {
        format!("{v}es")
    } else if let Some(stem) = v.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{v}s")
    }
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

impl Gen {
    fn new(r: &mut Rng) -> Gen {
        let mut snake = Vec::new();
        let mut camel = Vec::new();
        let mut types = Vec::new();
        for _ in 0..1500 {
            let (v, n) = (r.word(VERBS), r.word(NOUNS));
            let n = n.replace(' ', "_");
            match r.below(3) {
                0 => {
                    snake.push(format!("{v}_{n}"));
                    camel.push(format!("{v}{}", capitalize(&n)));
                }
                1 => {
                    let a = r.word(ADJS);
                    snake.push(format!("{a}_{n}"));
                    camel.push(format!("{a}{}", capitalize(&n)));
                }
                _ => {
                    snake.push(n.clone());
                    camel.push(n.clone());
                }
            }
            let (a, n2) = (r.word(ADJS), r.word(NOUNS));
            types.push(format!(
                "{}{}",
                capitalize(a),
                capitalize(&n2.replace(' ', ""))
            ));
        }
        for (s, c) in snake.iter_mut().zip(camel.iter_mut()) {
            if s.contains(' ') {
                *s = s.replace(' ', "_");
                *c = c.replace(' ', "");
            }
        }
        let code =
            [RUST_CODE, TS_CODE, PY_CODE, GO_CODE].map(|l| l.iter().map(|s| tpl(s)).collect());
        Gen {
            snake,
            camel,
            types,
            frames: FRAMES.iter().map(|f| frame(f)).collect(),
            prompt_frames: PROMPT_FRAMES.iter().map(|f| frame(f)).collect(),
            code,
            outputs: OUTPUTS
                .iter()
                .map(|o| o.iter().map(|s| tpl(s)).collect())
                .collect(),
            commands: COMMANDS.iter().map(|(c, k, l)| (tpl(c), *k, *l)).collect(),
        }
    }

    fn ident<'a>(&'a self, r: &mut Rng, lang: Lang) -> &'a str {
        match lang {
            Lang::Rust | Lang::Py => r.pick(&self.snake).as_str(),
            Lang::Ts | Lang::Go => r.pick(&self.camel).as_str(),
        }
    }

    fn file_name(&self, r: &mut Rng, lang: Lang) -> String {
        let base = r.pick(&self.snake);
        match lang {
            Lang::Ts => format!("{}.{}", self.camel_of(base), lang.ext()),
            _ => format!("{base}.{}", lang.ext()),
        }
    }

    fn camel_of(&self, snake: &str) -> String {
        let mut out = String::new();
        for (i, part) in snake.split('_').enumerate() {
            if i == 0 {
                out.push_str(part);
            } else {
                out.push_str(&capitalize(part));
            }
        }
        out
    }

    /// One line from a template.
    fn line(&self, r: &mut Rng, out: &mut Vec<u8>, t: &Tpl, st: Style) {
        for p in &t.pieces {
            match p {
                Piece::Lit { raw, esc } => out.extend_from_slice(if st.esc { esc } else { raw }),
                Piece::Ident => {
                    out.s(self.ident(r, st.lang));
                }
                Piece::Type => {
                    out.s(r.pick(&self.types));
                }
                Piece::Num => {
                    let n = if r.chance(0.7) {
                        r.below(100)
                    } else {
                        r.below(10_000)
                    };
                    num(out, n);
                }
                Piece::Phrase => {
                    let (a, n) = (r.word(ADJS), r.word(NOUNS));
                    match r.below(3) {
                        0 => out.s(a).s(" ").s(n),
                        1 => out.s("failed to ").s(r.word(VERBS)).s(" ").s(n),
                        _ => out.s(r.word(VERBS)).s(" the ").s(a).s(" ").s(n),
                    };
                }
                Piece::Sentence => self.sentence(r, out, st, false),
                Piece::Hex7 => {
                    out.s(&hex(r, 7));
                }
                Piece::Hex40 => {
                    out.s(&hex(r, 40));
                }
                Piece::Ext => {
                    out.s(st.lang.ext());
                }
            }
        }
    }

    /// One prose sentence.
    fn sentence(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, prompt: bool) {
        let frames = if prompt {
            &self.prompt_frames
        } else {
            &self.frames
        };
        let f = r.pick(frames);
        let start = out.len();
        for p in f {
            match p {
                Word::Lit(text) => {
                    out.s(text);
                }
                Word::Noun => {
                    out.s(r.word(NOUNS));
                }
                Word::Verb => {
                    out.s(r.word(VERBS));
                }
                Word::VerbCap => {
                    out.s(&capitalize(r.word(VERBS)));
                }
                Word::Verbs => {
                    out.s(&third_person(r.word(VERBS)));
                }
                Word::Adj => {
                    out.s(r.word(ADJS));
                }
                Word::Code => {
                    out.push(b'`');
                    out.s(self.ident(r, st.lang));
                    if r.chance(0.5) {
                        out.s("()");
                    }
                    out.push(b'`');
                }
                Word::File => {
                    out.push(b'`');
                    if r.chance(0.5) {
                        out.s("src/");
                    }
                    out.s(&self.file_name(r, st.lang));
                    out.push(b'`');
                }
                Word::Num => num(out, r.range(2, 400)),
            }
        }
        if let Some(c) = out.get_mut(start) {
            c.make_ascii_uppercase();
        }
        if r.chance(1.0 / 4000.0) {
            out.s(" (see ").s(r.word(NEEDLES)).s(")");
        }
    }

    fn paragraph(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, sentences: u64) {
        for i in 0..sentences {
            if i > 0 {
                out.push(b' ');
            }
            self.sentence(r, out, st, false);
        }
    }

    /// Code lines until `bytes` are written; `spans` receives each line's range.
    fn code(
        &self,
        r: &mut Rng,
        out: &mut Vec<u8>,
        st: Style,
        bytes: usize,
        mut spans: Option<&mut Vec<(usize, usize)>>,
    ) {
        let tpls = &self.code[st.lang.idx()];
        let start = out.len();
        let mut depth = 0usize;
        let mut first = true;
        while out.len() - start < bytes || first {
            if !first {
                out.extend_from_slice(st.nl());
            }
            first = false;
            let ls = out.len();
            if depth > 0 && r.chance(0.16) {
                depth -= 1;
                if st.lang != Lang::Py {
                    push_indent(out, depth * st.lang.indent(), st);
                    out.s(match (st.lang, r.below(4)) {
                        (Lang::Ts, 0) => "});",
                        (Lang::Rust, 0) => "};",
                        _ => "}",
                    });
                }
            } else if r.chance(0.06) {
                // blank line
            } else {
                let t = r.pick(tpls);
                if t.closes && depth > 0 {
                    depth -= 1;
                }
                push_indent(out, depth * st.lang.indent(), st);
                self.line(r, out, t, st);
                if t.opens && depth < 6 {
                    depth += 1;
                }
            }
            if let Some(s) = spans.as_deref_mut() {
                s.push((ls, out.len()));
            }
        }
    }

    /// Command output lines until `bytes` are written.
    fn output(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, kind: usize, bytes: usize) {
        let start = out.len();
        let mut first = true;
        while out.len() - start < bytes || first {
            if !first {
                out.extend_from_slice(st.nl());
            }
            first = false;
            if kind == 9 {
                // rg: path:line: code
                out.s("src/").s(&self.file_name(r, st.lang)).s(":");
                num(out, r.range(1, 900));
                out.s(":");
                let t = r.pick(&self.code[st.lang.idx()]);
                self.line(r, out, t, st);
            } else {
                let t = r.pick(&self.outputs[kind]);
                self.line(r, out, t, st);
            }
        }
    }

    /// Markdown of about `bytes`: paragraphs, headings, lists, code fences.
    fn markdown(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, bytes: usize) {
        let start = out.len();
        let nl = st.nl();
        let n = r.range(1, 3);
        self.paragraph(r, out, st, n);
        while out.len() - start < bytes {
            out.extend_from_slice(nl);
            out.extend_from_slice(nl);
            match r.below(5) {
                0 => {
                    out.s(r.pick(&["## ", "### "]));
                    out.s(r.pick(&[
                        "Summary",
                        "What changed",
                        "Root cause",
                        "Next steps",
                        "Findings",
                        "Plan",
                    ]));
                    out.extend_from_slice(nl);
                    out.extend_from_slice(nl);
                    for _ in 0..r.range(2, 6) {
                        out.s("- **").s(r.word(NOUNS)).s("**: ");
                        self.sentence(r, out, st, false);
                        out.extend_from_slice(nl);
                    }
                }
                1 => {
                    out.s("```").s(st.lang.fence());
                    out.extend_from_slice(nl);
                    let b = r.range(80, 900) as usize;
                    self.code(r, out, st, b, None);
                    out.extend_from_slice(nl);
                    out.s("```");
                }
                2 => {
                    for i in 1..=r.range(2, 5) {
                        num(out, i);
                        out.s(". ");
                        self.sentence(r, out, st, false);
                        out.extend_from_slice(nl);
                    }
                }
                _ => {
                    let n = r.range(2, 5);
                    self.paragraph(r, out, st, n);
                }
            }
        }
    }

    /// A user prompt (raw text) and, when it has one, the pasted part.
    fn prompt(&self, r: &mut Rng, lang: Lang) -> (String, Option<String>) {
        let st = Style { lang, esc: false };
        let mut out = Vec::new();
        self.sentence(r, &mut out, st, true);
        if r.chance(0.4) {
            end_sentence(&mut out);
            out.push(b' ');
            let n = r.range(1, 3);
            self.paragraph(r, &mut out, st, n);
        }
        let mut pasted = None;
        if r.chance(0.12) {
            let mut p = Vec::new();
            if r.chance(0.5) {
                let b = r.range(100, 1500) as usize;
                self.code(r, &mut p, st, b, None);
            } else {
                let b = r.range(100, 1500) as usize;
                self.output(r, &mut p, st, 1, b);
            }
            out.s("\n\n");
            out.extend_from_slice(&p);
            pasted = Some(String::from_utf8_lossy(&p).into_owned());
        }
        (String::from_utf8_lossy(&out).into_owned(), pasted)
    }

    /// A title: `Fix Stale Cache In Parser`.
    fn title(&self, r: &mut Rng) -> String {
        let v = capitalize(r.word(VERBS));
        let a = capitalize(r.word(ADJS));
        let n = capitalize(r.word(NOUNS));
        match r.below(3) {
            0 => format!("{v} {a} {n}"),
            1 => format!("{v} {n} {}", capitalize(r.word(NOUNS))),
            _ => format!("{a} {n} {} Fix", capitalize(r.word(NOUNS))),
        }
    }
}

/// Add a full stop unless the text already ends a sentence.
fn end_sentence(out: &mut Vec<u8>) {
    if !matches!(out.last(), Some(b'.' | b'?' | b'!')) {
        out.push(b'.');
    }
}

fn push_indent(out: &mut Vec<u8>, n: usize, st: Style) {
    if st.lang == Lang::Go {
        for _ in 0..n {
            out.extend_from_slice(if st.esc { b"\\t" } else { b"\t" });
        }
    } else {
        out.resize(out.len() + n, b' ');
    }
}

// ---------------------------------------------------------------- versions

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Era {
    V10,
    V20,
    V21,
}

#[rustfmt::skip]
const V10: &[&str] = &[
    "1.0.0", "1.0.17", "1.0.24", "1.0.31", "1.0.43", "1.0.51", "1.0.62", "1.0.71", "1.0.83",
    "1.0.98", "1.0.110", "1.0.126",
];
#[rustfmt::skip]
const V20: &[&str] = &[
    "2.0.0", "2.0.5", "2.0.14", "2.0.22", "2.0.28", "2.0.36", "2.0.42", "2.0.50", "2.0.60",
    "2.0.76",
];
#[rustfmt::skip]
const V21: &[&str] = &[
    "2.1.1", "2.1.7", "2.1.12", "2.1.19", "2.1.22", "2.1.27", "2.1.29", "2.1.50", "2.1.72",
    "2.1.87", "2.1.92", "2.1.114", "2.1.123", "2.1.133", "2.1.141", "2.1.144",
];
/// Index in [`V21`] from which lines carry `entrypoint`, and tool_use `caller`.
const V21_ENTRYPOINT: usize = 8;
const V21_CALLER: usize = 9;

/// (share of sessions, first day, last day) of each era.
fn era_window(e: Era) -> (f64, f64, i64, i64) {
    match e {
        Era::V10 => (0.0, 0.10, ms_at(2025, 5, 22), ms_at(2025, 9, 28)),
        Era::V20 => (0.10, 0.25, ms_at(2025, 9, 29), ms_at(2026, 1, 6)),
        Era::V21 => (0.25, 1.0, ms_at(2026, 1, 7), ms_at(2026, 5, 15)),
    }
}

// ---------------------------------------------------------------- projects

struct Project {
    name: String,
    cwd: String,
    dir: String,
    lang: Lang,
    branches: Vec<String>,
    files: Vec<String>,
    hooks: bool,
}

fn make_project(g: &Gen, r: &mut Rng, i: usize) -> Project {
    let base = PROJECT_NAMES[i % PROJECT_NAMES.len()];
    let name = if i < PROJECT_NAMES.len() {
        base.to_string()
    } else {
        format!("{base}-{}", i / PROJECT_NAMES.len() + 1)
    };
    let cwd = format!("/home/bench/code/{name}");
    let dir: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let lang = [Lang::Rust, Lang::Ts, Lang::Py, Lang::Go][i % 4];
    let mut branches = vec!["main".to_string()];
    for _ in 0..r.range(2, 6) {
        let b = match r.below(3) {
            0 => format!("feat/{}-{}", r.word(ADJS), r.word(NOUNS)),
            1 => format!("fix/{}-{}", r.word(NOUNS), r.word(NOUNS)),
            _ => format!("{}-{}", r.word(VERBS), r.word(NOUNS)),
        };
        branches.push(b.replace(' ', "-"));
    }
    let dirs: &[&str] = match lang {
        Lang::Rust => &[
            "src",
            "src/model",
            "src/render",
            "src/extract",
            "tests",
            "benches",
        ],
        Lang::Ts => &[
            "src",
            "src/components",
            "src/lib",
            "src/pages",
            "src/hooks",
            "test",
        ],
        Lang::Py => &[
            "app",
            "app/api",
            "app/models",
            "app/services",
            "tests",
            "scripts",
        ],
        Lang::Go => &[
            "cmd/server",
            "internal/store",
            "internal/api",
            "pkg/util",
            "internal/auth",
        ],
    };
    let files = (0..r.range(40, 120))
        .map(|_| format!("{}/{}", r.pick(dirs), g.file_name(r, lang)))
        .collect();
    Project {
        name,
        cwd,
        dir,
        lang,
        branches,
        files,
        // Three projects in four run hooks (hook_progress lines, stop hooks).
        hooks: i % 4 != 3,
    }
}

// ---------------------------------------------------------------- sessions

/// What stays fixed over one session.
struct S<'a> {
    g: &'a Gen,
    p: &'a Project,
    id: String,
    era: Era,
    vi: usize,
    version: &'static str,
    branch: String,
    slug: Option<String>,
    entry: Option<&'static str>,
    model: &'static str,
    dir: PathBuf,
}

impl S<'_> {
    fn caller(&self) -> bool {
        self.era == Era::V21 && self.vi >= V21_CALLER
    }
    fn task_tool(&self) -> &'static str {
        if self.caller() {
            "Agent"
        } else {
            "Task"
        }
    }
    fn style(&self) -> Style {
        Style {
            lang: self.p.lang,
            esc: true,
        }
    }
    fn path(&self, r: &mut Rng) -> String {
        format!("{}/{}", self.p.cwd, r.pick(&self.p.files))
    }
}

/// What changes while writing: randomness, the clock, counters, scratch.
struct W {
    r: Rng,
    t: i64,
    scale: f64,
    stats: Stats,
    line: Vec<u8>,
    hist: Out,
}

impl W {
    /// Advance the clock by a random natural delay (ms), scaled to fit the session's slot.
    fn tick(&mut self, lo: u64, hi: u64) {
        let d = self.r.range(lo, hi) as f64 * self.scale;
        self.t += (d as i64).max(1);
    }
    fn emit(&mut self, o: &mut Out, kind: usize, l: Vec<u8>) -> Res<()> {
        o.b(&l)?;
        self.line = l;
        self.stats.lines += 1;
        self.stats.kinds[kind] += 1;
        Ok(())
    }
    fn start(&mut self) -> Vec<u8> {
        let mut l = std::mem::take(&mut self.line);
        l.clear();
        l
    }
}

/// A chain of records: the main conversation or one sub-agent.
struct Chain {
    parent: Option<String>,
    side: bool,
    agent: Option<String>,
}

impl Chain {
    fn main() -> Chain {
        Chain {
            parent: None,
            side: false,
            agent: None,
        }
    }
}

fn head(l: &mut Vec<u8>, s: &S, ch: &Chain) {
    l.s("{\"parentUuid\":");
    match &ch.parent {
        Some(p) => q(l, p),
        None => {
            l.s("null");
        }
    }
    l.s(if ch.side {
        ",\"isSidechain\":true"
    } else {
        ",\"isSidechain\":false"
    });
    l.s(",\"userType\":\"external\",\"cwd\":");
    q(l, &s.p.cwd);
    l.s(",\"sessionId\":\"")
        .s(&s.id)
        .s("\",\"version\":\"")
        .s(s.version);
    l.s("\",\"gitBranch\":");
    q(l, &s.branch);
    if let Some(a) = &ch.agent {
        l.s(",\"agentId\":\"").s(a).s("\"");
    }
    if let Some(slug) = &s.slug {
        l.s(",\"slug\":\"").s(slug).s("\"");
    }
    if let Some(e) = s.entry {
        l.s(",\"entrypoint\":\"").s(e).s("\"");
    }
}

fn foot(l: &mut Vec<u8>, uuid: &str, t: i64) {
    l.s(",\"uuid\":\"").s(uuid).s("\",\"timestamp\":\"");
    iso(l, t);
    l.push(b'"');
}

/// One API response: lines share its id and usage.
struct Msg {
    id: String,
    req: String,
    usage: Vec<u8>,
    model: &'static str,
}

fn new_msg(s: &S, w: &mut W, model: &'static str) -> Msg {
    let r = &mut w.r;
    let mut u = Vec::with_capacity(300);
    u.s("{\"input_tokens\":");
    num(&mut u, r.range(1, 12));
    let create = if r.chance(0.3) {
        r.range(200, 30_000)
    } else {
        r.range(0, 2_000)
    };
    u.s(",\"cache_creation_input_tokens\":");
    num(&mut u, create);
    u.s(",\"cache_read_input_tokens\":");
    num(&mut u, r.range(8_000, 160_000));
    if s.era >= Era::V20 {
        u.s(",\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":");
        num(&mut u, create);
        u.s("}");
    }
    u.s(",\"output_tokens\":");
    num(&mut u, r.range(1, 2_500));
    u.s(",\"service_tier\":\"standard\"}");
    Msg {
        id: format!("msg_01{}", from_alphabet(r, B62, 22)),
        req: format!("req_011C{}", from_alphabet(r, B62, 18)),
        usage: u,
        model,
    }
}

fn w_assistant(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    m: &Msg,
    block: &[u8],
) -> Res<String> {
    w.tick(300, 4_000);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"message\":{\"model\":\"")
        .s(m.model)
        .s("\",\"id\":\"")
        .s(&m.id);
    l.s("\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
    l.extend_from_slice(block);
    l.s("],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":");
    l.extend_from_slice(&m.usage);
    l.s("},\"requestId\":\"")
        .s(&m.req)
        .s("\",\"type\":\"assistant\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_ASSISTANT, l)?;
    ch.parent = Some(id.clone());
    Ok(id)
}

/// A user line. `content` is the JSON value of `message.content`; `flags`
/// go before the uuid, `after` after the timestamp (each starts with `,`).
struct UserLine<'a> {
    content: &'a [u8],
    flags: &'a str,
    after: &'a [u8],
    uuid: Option<String>,
}

fn w_user(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, u: UserLine) -> Res<String> {
    let id = u.uuid.unwrap_or_else(|| uuid(&mut w.r));
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":");
    l.extend_from_slice(u.content);
    l.s("}").s(u.flags);
    foot(&mut l, &id, w.t);
    l.extend_from_slice(u.after);
    l.s("}\n");
    w.emit(o, K_USER, l)?;
    ch.parent = Some(id.clone());
    Ok(id)
}

fn w_progress(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    data: &[u8],
    tool_use: &str,
) -> Res<()> {
    w.tick(5, 400);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"progress\",\"data\":");
    l.extend_from_slice(data);
    l.s(",\"toolUseID\":\"")
        .s(tool_use)
        .s("\",\"parentToolUseID\":\"")
        .s(tool_use)
        .s("\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_PROGRESS, l)?;
    ch.parent = Some(id);
    Ok(())
}

/// A `system` line; `mid` holds its own fields (starting with `,`).
fn w_system(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, subtype: &str, mid: &[u8]) -> Res<()> {
    w.tick(5, 200);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"system\",\"subtype\":\"")
        .s(subtype)
        .s("\"");
    l.extend_from_slice(mid);
    foot(&mut l, &id, w.t);
    l.s(",\"isMeta\":false}\n");
    w.emit(o, K_SYSTEM, l)?;
    ch.parent = Some(id);
    Ok(())
}

fn w_attachment(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain) -> Res<()> {
    w.tick(5, 100);
    let id = uuid(&mut w.r);
    let mut a = Vec::with_capacity(512);
    let r = &mut w.r;
    match r.below(7) {
        0 => {
            a.s("{\"type\":\"todo_reminder\",\"content\":[{\"content\":");
            q(&mut a, &s.g.title(r));
            a.s(",\"status\":\"in_progress\",\"activeForm\":");
            q(&mut a, &s.g.title(r));
            a.s("}],\"itemCount\":1}");
        }
        1 => {
            a.s("{\"type\":\"skill_listing\",\"content\":\"");
            for _ in 0..r.range(3, 10) {
                a.s("- ").s(s.g.ident(r, Lang::Py)).s(": ");
                s.g.sentence(r, &mut a, s.style(), false);
                a.s("\\n");
            }
            a.s("\",\"skillCount\":");
            num(&mut a, r.range(3, 20));
            a.s("}");
        }
        2 => {
            a.s("{\"type\":\"nested_memory\",\"path\":");
            q(&mut a, &format!("{}/CLAUDE.md", s.p.cwd));
            a.s(",\"content\":{\"path\":");
            q(&mut a, &format!("{}/CLAUDE.md", s.p.cwd));
            a.s(",\"type\":\"Project\",\"content\":\"# ")
                .s(&s.p.name)
                .s("\\n\\n");
            let n = r.range(3, 8);
            s.g.paragraph(r, &mut a, s.style(), n);
            a.s("\"}}");
        }
        3 => {
            a.s("{\"type\":\"deferred_tools_delta\",\"addedNames\":[\"AskUserQuestion\",\"CronCreate\",\"EnterPlanMode\",\"NotebookEdit\",\"TodoWrite\",\"WebFetch\",\"WebSearch\"],\"addedLines\":[\"AskUserQuestion\",\"CronCreate\",\"EnterPlanMode\",\"NotebookEdit\",\"TodoWrite\",\"WebFetch\",\"WebSearch\"],\"removedNames\":[]}");
        }
        4 => {
            a.s("{\"type\":\"edited_text_file\",\"filename\":");
            q(&mut a, &s.path(r));
            a.s(",\"snippet\":\"");
            let b = r.range(100, 1200) as usize;
            s.g.code(r, &mut a, s.style(), b, None);
            a.s("\"}");
        }
        5 => {
            a.s("{\"type\":\"hook_success\",\"hookName\":\"PostToolUse:Edit\",\"toolUseID\":\"toolu_01").s(&from_alphabet(r, B62, 22));
            a.s("\",\"hookEvent\":\"PostToolUse\",\"content\":\"\",\"stdout\":\"\",\"stderr\":\"\",\"exitCode\":0,\"command\":\"npx prettier --write \\\"$CLAUDE_FILE_PATHS\\\"\",\"durationMs\":");
            num(&mut a, r.range(40, 2000));
            a.s("}");
        }
        _ => {
            a.s("{\"type\":\"plan_mode\",\"reminderType\":\"full\",\"isSubAgent\":false,\"planFilePath\":");
            q(
                &mut a,
                &format!(
                    "/home/bench/.claude/plans/{}.md",
                    s.slug.as_deref().unwrap_or("plan")
                ),
            );
            a.s(",\"planExists\":false}");
        }
    }
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"attachment\":");
    l.extend_from_slice(&a);
    l.s(",\"type\":\"attachment\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_ATTACHMENT, l)?;
    ch.parent = Some(id);
    Ok(())
}

fn w_queue(s: &S, w: &mut W, o: &mut Out, op: &str, content: Option<&str>) -> Res<()> {
    w.tick(1, 50);
    let mut l = w.start();
    l.s("{\"type\":\"queue-operation\",\"operation\":\"")
        .s(op)
        .s("\",\"timestamp\":\"");
    iso(&mut l, w.t);
    l.s("\",\"sessionId\":\"").s(&s.id).s("\"");
    if let Some(c) = content {
        l.s(",\"content\":");
        q(&mut l, c);
    }
    l.s("}\n");
    w.emit(o, K_QUEUE, l)
}

fn w_snapshot(s: &S, w: &mut W, o: &mut Out, message: &str, update: bool) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"file-history-snapshot\",\"messageId\":\"")
        .s(message);
    l.s("\",\"snapshot\":{\"messageId\":\"")
        .s(message)
        .s("\",\"trackedFileBackups\":{");
    if update {
        for i in 0..w.r.range(1, 4) {
            if i > 0 {
                l.push(b',');
            }
            let rel = w.r.pick(&s.p.files).clone();
            q(&mut l, &rel);
            l.s(":{\"backupFileName\":\"").s(&hex(&mut w.r, 16)).s("@v");
            let v = w.r.range(1, 6);
            num(&mut l, v);
            l.s("\",\"version\":");
            num(&mut l, v);
            l.s(",\"backupTime\":\"");
            iso(&mut l, w.t);
            l.s("\"}");
        }
    }
    l.s("},\"timestamp\":\"");
    iso(&mut l, w.t);
    l.s("\"},\"isSnapshotUpdate\":")
        .s(if update { "true" } else { "false" });
    l.s("}\n");
    w.emit(o, K_SNAPSHOT, l)
}

/// `last-prompt`, `ai-title`, `custom-title`, `permission-mode`: `{"type":..,key:value,"sessionId":..}`.
fn w_meta(s: &S, w: &mut W, o: &mut Out, kind: usize, key: &str, value: &str) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"")
        .s(KINDS[kind])
        .s("\",\"")
        .s(key)
        .s("\":");
    q(&mut l, value);
    l.s(",\"sessionId\":\"").s(&s.id).s("\"}\n");
    w.emit(o, kind, l)
}

fn w_summary(w: &mut W, o: &mut Out, text: &str, leaf: &str) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"summary\",\"summary\":");
    q(&mut l, text);
    l.s(",\"leafUuid\":\"").s(leaf).s("\"}\n");
    w.emit(o, K_SUMMARY, l)
}

fn history(s: &S, w: &mut W, display: &str, pasted: Option<&str>) -> Res<()> {
    let mut l = Vec::with_capacity(display.len() + 200);
    l.s("{\"display\":");
    match pasted {
        Some(p) => {
            let first = display.split("\n\n").next().unwrap_or("");
            let lines = p.lines().count();
            q(&mut l, &format!("{first} [Pasted text #1 +{lines} lines]"));
            if s.era == Era::V21 {
                l.s(",\"pastedContents\":{\"1\":{\"id\":1,\"type\":\"text\",\"contentHash\":\"");
                l.s(&hex(&mut w.r, 16)).s("\"}}");
            } else {
                l.s(",\"pastedContents\":{\"1\":{\"id\":1,\"type\":\"text\",\"content\":");
                q(&mut l, p);
                l.s("}}");
            }
        }
        None => {
            q(&mut l, display);
            l.s(",\"pastedContents\":{}");
        }
    }
    l.s(",\"timestamp\":");
    num(&mut l, w.t as u64);
    l.s(",\"project\":");
    q(&mut l, &s.p.cwd);
    if s.era != Era::V10 {
        l.s(",\"sessionId\":\"").s(&s.id).s("\"");
    }
    l.s("}\n");
    w.hist.b(&l)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    Read,
    Edit,
    Write,
    Bash,
    Grep,
    Glob,
    Todo,
    WebFetch,
    WebSearch,
    Task,
}

impl Tool {
    fn name(self, s: &S) -> &'static str {
        match self {
            Tool::Read => "Read",
            Tool::Edit => "Edit",
            Tool::Write => "Write",
            Tool::Bash => "Bash",
            Tool::Grep => "Grep",
            Tool::Glob => "Glob",
            Tool::Todo => "TodoWrite",
            Tool::WebFetch => "WebFetch",
            Tool::WebSearch => "WebSearch",
            Tool::Task => s.task_tool(),
        }
    }
}

/// One tool call: what the result needs to know about the input.
struct Call {
    tool: Tool,
    id: String,
    uuid: String,
    path: String,
    /// Escaped: old_string / content / todos / command output kind's text.
    a: Vec<u8>,
    a_spans: Vec<(usize, usize)>,
    b: Vec<u8>,
    b_spans: Vec<(usize, usize)>,
    text: String,
    kind: usize,
    /// Task: the sub-agent's type and short description.
    agent_type: &'static str,
    desc: String,
}

/// How a conversation behaves: the main one or a sub-agent.
#[derive(Clone, Copy)]
struct Mode {
    agent: bool,
    model: &'static str,
    /// Scales tool output sizes.
    scale: f64,
}

fn pick_tool(r: &mut Rng, mode: Mode) -> Tool {
    if mode.agent {
        const T: [Tool; 4] = [Tool::Read, Tool::Grep, Tool::Glob, Tool::Bash];
        return T[r.weighted(&[40, 22, 15, 23])];
    }
    const T: [Tool; 10] = [
        Tool::Read,
        Tool::Bash,
        Tool::Edit,
        Tool::Grep,
        Tool::Glob,
        Tool::Write,
        Tool::Todo,
        Tool::WebFetch,
        Tool::WebSearch,
        Tool::Task,
    ];
    T[r.weighted(&[30, 24, 14, 8, 7, 4, 4, 1, 1, 3])]
}

/// Size of a file read, in bytes: mostly 1–20 KB, often up to 200 KB, rarely 1–2 MB.
fn read_size(r: &mut Rng, scale: f64) -> usize {
    let x = r.unit();
    let b = if x < 0.003 {
        r.log_uniform(1e6, 2e6)
    } else if x < 0.2 {
        r.log_uniform(20e3, 200e3) * scale
    } else {
        r.log_uniform(1e3, 20e3) * scale
    };
    b as usize
}

/// Build the tool_use block for a new call.
fn tool_use(s: &S, w: &mut W, tool: Tool) -> (Call, Vec<u8>) {
    let r = &mut w.r;
    let g = s.g;
    let st = s.style();
    let mut c = Call {
        tool,
        id: format!("toolu_01{}", from_alphabet(r, B62, 22)),
        uuid: String::new(),
        path: s.path(r),
        a: Vec::new(),
        a_spans: Vec::new(),
        b: Vec::new(),
        b_spans: Vec::new(),
        text: String::new(),
        kind: 0,
        agent_type: "general-purpose",
        desc: String::new(),
    };
    let mut bl = Vec::with_capacity(256);
    bl.s("{\"type\":\"tool_use\",\"id\":\"")
        .s(&c.id)
        .s("\",\"name\":\"")
        .s(tool.name(s));
    bl.s("\",\"input\":{");
    match tool {
        Tool::Read => {
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            if r.chance(0.1) {
                bl.s(",\"offset\":");
                num(&mut bl, r.range(1, 400));
                bl.s(",\"limit\":");
                num(&mut bl, r.range(50, 300));
            }
        }
        Tool::Edit => {
            let n = r.range(60, 900) as usize;
            g.code(r, &mut c.a, st, n, Some(&mut c.a_spans));
            let n = r.range(60, 1200) as usize;
            g.code(r, &mut c.b, st, n, Some(&mut c.b_spans));
            if s.era >= Era::V20 {
                bl.s("\"replace_all\":false,");
            }
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            bl.s(",\"old_string\":");
            qe(&mut bl, &c.a);
            bl.s(",\"new_string\":");
            qe(&mut bl, &c.b);
        }
        Tool::Write => {
            let n = r.log_uniform(800.0, 20_000.0) as usize;
            g.code(r, &mut c.a, st, n, None);
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            bl.s(",\"content\":");
            qe(&mut bl, &c.a);
        }
        Tool::Bash => {
            let matching: Vec<&(Tpl, usize, u8)> = g
                .commands
                .iter()
                .filter(|(_, _, l)| *l == 9 || *l as usize == s.p.lang.idx())
                .collect();
            let (t, kind, _) = *r.pick(&matching);
            let mut cmd = Vec::new();
            g.line(
                r,
                &mut cmd,
                t,
                Style {
                    lang: s.p.lang,
                    esc: false,
                },
            );
            c.text = String::from_utf8_lossy(&cmd).into_owned();
            c.kind = *kind;
            bl.s("\"command\":");
            q(&mut bl, &c.text);
            bl.s(",\"description\":");
            q(
                &mut bl,
                &format!("{} the {}", capitalize(r.word(VERBS)), r.word(NOUNS)),
            );
            if r.chance(0.1) {
                bl.s(",\"timeout\":120000");
            }
        }
        Tool::Grep => {
            c.text = match r.below(3) {
                0 => g.ident(r, s.p.lang).to_string(),
                1 => format!("fn {}|struct {}", g.ident(r, Lang::Rust), r.pick(&g.types)),
                _ => format!("{}\\(", g.ident(r, s.p.lang)),
            };
            c.kind = r.below(2) as usize;
            bl.s("\"pattern\":");
            q(&mut bl, &c.text);
            bl.s(",\"path\":");
            q(&mut bl, &s.p.cwd);
            bl.s(if c.kind == 0 {
                ",\"output_mode\":\"files_with_matches\""
            } else {
                ",\"output_mode\":\"content\",\"-n\":true"
            });
        }
        Tool::Glob => {
            c.text = format!(
                "{}**/*.{}",
                r.pick(&["", "src/", "tests/", "internal/"]),
                s.p.lang.ext()
            );
            bl.s("\"pattern\":");
            q(&mut bl, &c.text);
        }
        Tool::Todo => {
            c.a.push(b'[');
            for i in 0..r.range(2, 7) {
                if i > 0 {
                    c.a.push(b',');
                }
                let t = g.title(r);
                c.a.s("{\"content\":");
                q(&mut c.a, &t);
                c.a.s(",\"status\":\"")
                    .s(r.pick(&["completed", "in_progress", "pending"]));
                c.a.s("\",\"activeForm\":");
                q(&mut c.a, &format!("Working on {}", t.to_lowercase()));
                c.a.s("}");
            }
            c.a.push(b']');
            bl.s("\"todos\":");
            bl.extend_from_slice(&c.a);
        }
        Tool::WebFetch => {
            c.text = format!(
                "https://docs.example.com/{}/{}",
                r.word(NOUNS).replace(' ', "-"),
                g.ident(r, Lang::Py)
            );
            bl.s("\"url\":");
            q(&mut bl, &c.text);
            bl.s(",\"prompt\":\"");
            g.sentence(r, &mut bl, st, true);
            bl.s("\"");
        }
        Tool::WebSearch => {
            c.text = format!(
                "{} {} {} 2026",
                s.p.lang.fence(),
                r.word(ADJS),
                r.word(NOUNS)
            );
            bl.s("\"query\":");
            q(&mut bl, &c.text);
        }
        Tool::Task => {
            c.agent_type = *r.pick(&["general-purpose", "Explore", "Explore", "Plan"]);
            let mut p = Vec::new();
            let raw = Style {
                lang: s.p.lang,
                esc: false,
            };
            g.sentence(r, &mut p, raw, true);
            end_sentence(&mut p);
            p.push(b' ');
            let n = r.range(2, 6);
            g.paragraph(r, &mut p, raw, n);
            c.text = String::from_utf8_lossy(&p).into_owned();
            let desc = format!(
                "{} {} {}",
                capitalize(r.word(VERBS)),
                r.word(ADJS),
                r.word(NOUNS)
            );
            bl.s("\"description\":");
            q(&mut bl, &desc);
            bl.s(",\"prompt\":");
            q(&mut bl, &c.text);
            bl.s(",\"subagent_type\":\"").s(c.agent_type).s("\"");
            c.desc = desc;
        }
    }
    bl.s("}");
    if s.caller() {
        bl.s(",\"caller\":{\"type\":\"direct\"}");
    }
    bl.s("}");
    (c, bl)
}

/// Numbered lines as the Read tool shows them: `     1→code`.
fn numbered(out: &mut Vec<u8>, body: &[u8], spans: &[(usize, usize)], first: u64) {
    for (i, (a, b)) in spans.iter().enumerate() {
        let n = first + i as u64;
        let mut digits = Vec::with_capacity(8);
        num(&mut digits, n);
        for _ in digits.len()..6 {
            out.push(b' ');
        }
        out.extend_from_slice(&digits);
        out.s("→");
        out.extend_from_slice(&body[*a..*b]);
        out.s("\\n");
    }
}

fn path_list(out: &mut Vec<u8>, s: &S, r: &mut Rng, n: u64, json_array: bool) {
    for i in 0..n {
        if i > 0 {
            out.s(if json_array { "," } else { "\\n" });
        }
        let p = s.path(r);
        if json_array {
            q(out, &p);
        } else {
            esc(out, p.as_bytes());
        }
    }
}

/// Write the result of a call (and, for a Task, run the sub-agent first).
fn tool_result(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, mode: Mode, c: &Call) -> Res<()> {
    let st = s.style();
    let g = s.g;
    let mut content = Vec::new();
    let mut tur = Vec::new();
    let mut is_error = false;
    w.tick(20, 8_000);
    if c.tool == Tool::Task {
        let (text, tools) = subagent(s, w, o, ch, c)?;
        w.tick(1_000, 60_000);
        content.s("[{\"type\":\"text\",\"text\":");
        qe(&mut content, &text);
        content.s("}]");
        tur.s(",\"toolUseResult\":{\"status\":\"completed\",\"prompt\":");
        q(&mut tur, &c.text);
        tur.s(",\"content\":");
        tur.extend_from_slice(&content);
        tur.s(",\"totalDurationMs\":");
        num(&mut tur, w.r.range(5_000, 400_000));
        tur.s(",\"totalTokens\":");
        num(&mut tur, w.r.range(5_000, 90_000));
        tur.s(",\"totalToolUseCount\":");
        num(&mut tur, tools);
        tur.s("}");
    } else {
        let r = &mut w.r;
        match c.tool {
            Tool::Read => {
                let mut body = Vec::new();
                let mut spans = Vec::new();
                let size = read_size(r, mode.scale);
                g.code(r, &mut body, st, size, Some(&mut spans));
                let mut shown = Vec::with_capacity(body.len() + spans.len() * 10);
                numbered(&mut shown, &body, &spans, 1);
                qe(&mut content, &shown);
                tur.s(",\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"content\":");
                qe(&mut tur, &body);
                tur.s(",\"numLines\":");
                num(&mut tur, spans.len() as u64);
                tur.s(",\"startLine\":1,\"totalLines\":");
                num(&mut tur, spans.len() as u64);
                tur.s("}}");
            }
            Tool::Edit => {
                let start = r.range(1, 600);
                let mut shown = Vec::new();
                shown.s("The file ");
                esc(&mut shown, c.path.as_bytes());
                shown.s(" has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\\n");
                numbered(&mut shown, &c.b, &c.b_spans, start);
                qe(&mut content, &shown);
                tur.s(",\"toolUseResult\":{\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"oldString\":");
                qe(&mut tur, &c.a);
                tur.s(",\"newString\":");
                qe(&mut tur, &c.b);
                tur.s(",\"originalFile\":\"");
                let size = (read_size(r, mode.scale) / 2).max(1_000);
                g.code(r, &mut tur, st, size, None);
                tur.s("\",\"structuredPatch\":[{\"oldStart\":");
                num(&mut tur, start);
                tur.s(",\"oldLines\":");
                num(&mut tur, c.a_spans.len() as u64);
                tur.s(",\"newStart\":");
                num(&mut tur, start);
                tur.s(",\"newLines\":");
                num(&mut tur, c.b_spans.len() as u64);
                tur.s(",\"lines\":[");
                let old = c.a_spans.iter().map(|sp| (b'-', &c.a, sp));
                let new = c.b_spans.iter().map(|sp| (b'+', &c.b, sp));
                for (i, (sign, body, (x, y))) in old.chain(new).enumerate() {
                    if i > 0 {
                        tur.push(b',');
                    }
                    tur.push(b'"');
                    tur.push(sign);
                    tur.extend_from_slice(&body[*x..*y]);
                    tur.push(b'"');
                }
                tur.s("]}],\"userModified\":false,\"replaceAll\":false}");
            }
            Tool::Write => {
                content.s("\"File created successfully at: ");
                esc(&mut content, c.path.as_bytes());
                content.s("\"");
                tur.s(",\"toolUseResult\":{\"type\":\"create\",\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"content\":");
                qe(&mut tur, &c.a);
                tur.s(",\"structuredPatch\":[]}");
            }
            Tool::Bash => {
                let mut body = Vec::new();
                let size = if r.chance(0.02) {
                    r.log_uniform(30e3, 300e3)
                } else {
                    r.log_uniform(80.0, 30e3) * mode.scale
                } as usize;
                g.output(r, &mut body, st, c.kind, size);
                is_error = r.chance(0.08);
                if is_error {
                    content.s("\"Exit code 1\\n");
                    content.extend_from_slice(&body);
                    content.s("\"");
                } else {
                    qe(&mut content, &body);
                }
                tur.s(",\"toolUseResult\":{\"stdout\":");
                qe(&mut tur, &body);
                tur.s(",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
            }
            Tool::Grep => {
                let n = r.range(0, 40);
                if c.kind == 0 {
                    let mut body = Vec::new();
                    if n == 0 {
                        body.s("No files found");
                    } else {
                        body.s("Found ");
                        num(&mut body, n);
                        body.s(" files\\n");
                        path_list(&mut body, s, r, n, false);
                    }
                    qe(&mut content, &body);
                    tur.s(",\"toolUseResult\":{\"mode\":\"files_with_matches\",\"filenames\":[");
                    path_list(&mut tur, s, r, n, true);
                    tur.s("],\"numFiles\":");
                    num(&mut tur, n);
                    tur.s("}");
                } else {
                    let mut body = Vec::new();
                    let size = r.log_uniform(200.0, 20e3) as usize;
                    g.output(r, &mut body, st, 9, size);
                    qe(&mut content, &body);
                    tur.s(",\"toolUseResult\":{\"mode\":\"content\",\"numFiles\":0,\"filenames\":[],\"content\":");
                    qe(&mut tur, &body);
                    tur.s(",\"numLines\":");
                    num(
                        &mut tur,
                        body.windows(2).filter(|x| x == b"\\n").count() as u64 + 1,
                    );
                    tur.s("}");
                }
            }
            Tool::Glob => {
                let n = r.range(1, 80);
                let mut body = Vec::new();
                path_list(&mut body, s, r, n, false);
                qe(&mut content, &body);
                tur.s(",\"toolUseResult\":{\"filenames\":[");
                path_list(&mut tur, s, r, n, true);
                tur.s("],\"durationMs\":");
                num(&mut tur, r.range(2, 400));
                tur.s(",\"numFiles\":");
                num(&mut tur, n);
                tur.s(",\"truncated\":false}");
            }
            Tool::Todo => {
                content.s("\"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\"");
                tur.s(",\"toolUseResult\":{\"oldTodos\":[],\"newTodos\":");
                tur.extend_from_slice(&c.a);
                tur.s("}");
            }
            Tool::WebFetch | Tool::WebSearch => {
                let mut body = Vec::new();
                if c.tool == Tool::WebSearch {
                    body.s("Web search results for query: \\\"");
                    esc(&mut body, c.text.as_bytes());
                    body.s("\\\"\\n\\n");
                }
                let size = r.log_uniform(1e3, 40e3) as usize;
                g.markdown(r, &mut body, st, size);
                qe(&mut content, &body);
                if c.tool == Tool::WebFetch {
                    tur.s(",\"toolUseResult\":{\"bytes\":");
                    num(&mut tur, body.len() as u64 * 3);
                    tur.s(",\"code\":200,\"codeText\":\"OK\",\"result\":");
                    qe(&mut tur, &body);
                    tur.s(",\"durationMs\":");
                    num(&mut tur, r.range(80, 5000));
                    tur.s(",\"url\":");
                    q(&mut tur, &c.text);
                    tur.s("}");
                } else {
                    tur.s(",\"toolUseResult\":{\"query\":");
                    q(&mut tur, &c.text);
                    tur.s(",\"durationSeconds\":");
                    num(&mut tur, r.range(1, 9));
                    tur.s("}");
                }
            }
            Tool::Task => {}
        }
    }
    let mut block = Vec::with_capacity(content.len() + 120);
    block
        .s("[{\"tool_use_id\":\"")
        .s(&c.id)
        .s("\",\"type\":\"tool_result\",\"content\":");
    block.extend_from_slice(&content);
    if is_error {
        block.s(",\"is_error\":true");
    } else if c.tool == Tool::Bash {
        block.s(",\"is_error\":false");
    }
    block.s("}]");
    if s.era == Era::V21 {
        tur.s(",\"sourceToolAssistantUUID\":\"").s(&c.uuid).s("\"");
    }
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &block,
            flags: "",
            after: &tur,
            uuid: None,
        },
    )?;
    Ok(())
}

/// Run a sub-agent for a Task call; returns its final report (escaped) and tool count.
fn subagent(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, c: &Call) -> Res<(Vec<u8>, u64)> {
    w.stats.subagents += 1;
    let model = if c.agent_type == "Explore" && s.era >= Era::V20 {
        "claude-haiku-4-5-20251001"
    } else {
        s.model
    };
    let mode = Mode {
        agent: true,
        model,
        scale: 0.5,
    };
    let rounds = w.r.range(2, 10);
    let start_t = w.t;
    match s.era {
        Era::V10 => {
            // Inline: sidechain lines in the session file.
            let mut side = Chain {
                parent: None,
                side: true,
                agent: None,
            };
            agent_prompt(s, w, o, &mut side, &c.text)?;
            run_rounds(s, w, o, &mut side, mode, rounds)
        }
        Era::V20 | Era::V21 => {
            let (id, path) = if s.era == Era::V20 {
                let id = hex(&mut w.r, 8);
                let p = s.dir.join(format!("agent-{id}.jsonl"));
                (id, p)
            } else {
                let id = format!("a{}", hex(&mut w.r, 16));
                let dir = s.dir.join(&s.id).join("subagents");
                mkdir(&dir)?;
                let mut meta = Vec::new();
                meta.s("{\"agentType\":\"")
                    .s(c.agent_type)
                    .s("\",\"description\":");
                q(&mut meta, &c.desc);
                meta.s("}");
                write_file(
                    &mut w.stats,
                    &dir.join(format!("agent-{id}.meta.json")),
                    &meta,
                )?;
                (id.clone(), dir.join(format!("agent-{id}.jsonl")))
            };
            let mut ao = Out::create(&path)?;
            let mut side = Chain {
                parent: None,
                side: true,
                agent: Some(id.clone()),
            };
            agent_prompt(s, w, &mut ao, &mut side, &c.text)?;
            let res = run_rounds(s, w, &mut ao, &mut side, mode, rounds)?;
            let n = ao.finish()?;
            w.stats.file(n);
            if s.era == Era::V21 {
                // The parent shows the agent's progress while it runs.
                let end_t = w.t;
                w.t = start_t;
                for _ in 0..w.r.range(1, 4) {
                    let mut d = Vec::with_capacity(400);
                    d.s("{\"message\":{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"");
                    s.g.sentence(&mut w.r, &mut d, s.style(), false);
                    d.s("\"}]},\"timestamp\":\"");
                    iso(&mut d, w.t);
                    d.s("\"},\"normalizedMessages\":[],\"type\":\"agent_progress\",\"prompt\":\"\",\"agentId\":\"").s(&id).s("\"}");
                    w_progress(s, w, o, ch, &d, &c.id)?;
                }
                w.t = w.t.max(end_t);
            }
            Ok(res)
        }
    }
}

fn agent_prompt(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, prompt: &str) -> Res<()> {
    let mut content = Vec::with_capacity(prompt.len() + 8);
    q(&mut content, prompt);
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &content,
            flags: "",
            after: b"",
            uuid: None,
        },
    )?;
    Ok(())
}

/// Assistant rounds until a final answer. Returns the answer (escaped) and the tool count.
fn run_rounds(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    mode: Mode,
    rounds: u64,
) -> Res<(Vec<u8>, u64)> {
    let st = s.style();
    let mut tools = 0;
    for round in 0..rounds {
        let last = round + 1 == rounds;
        let m = new_msg(s, w, mode.model);
        let think = match s.era {
            Era::V10 => w.r.chance(0.15),
            Era::V20 => w.r.chance(0.3),
            Era::V21 => w.r.chance(0.45),
        };
        if think {
            let mut b = Vec::with_capacity(2048);
            b.s("{\"type\":\"thinking\",\"thinking\":\"");
            let empty = s.era == Era::V21 && s.vi >= V21_ENTRYPOINT && w.r.chance(0.7);
            if !empty {
                let n = w.r.range(2, 10);
                s.g.paragraph(&mut w.r, &mut b, st, n);
            }
            b.s("\",\"signature\":\"");
            let n = w.r.range(200, 1400) as usize;
            b.s(&from_alphabet(&mut w.r, B64, n));
            b.s("\"}");
            w_assistant(s, w, o, ch, &m, &b)?;
        }
        if last {
            let mut text = Vec::with_capacity(4096);
            let size = w.r.log_uniform(150.0, 6_000.0) as usize;
            s.g.markdown(&mut w.r, &mut text, st, size);
            let mut b = Vec::with_capacity(text.len() + 40);
            b.s("{\"type\":\"text\",\"text\":");
            qe(&mut b, &text);
            b.s("}");
            w_assistant(s, w, o, ch, &m, &b)?;
            return Ok((text, tools));
        }
        if w.r.chance(0.45) {
            let mut b = Vec::with_capacity(512);
            b.s("{\"type\":\"text\",\"text\":\"");
            let n = w.r.range(1, 3);
            s.g.paragraph(&mut w.r, &mut b, st, n);
            b.s("\"}");
            w_assistant(s, w, o, ch, &m, &b)?;
        }
        let k = match w.r.below(10) {
            0..=6 => 1,
            7 | 8 => 2,
            _ => w.r.range(3, 4),
        };
        let mut calls = Vec::new();
        for _ in 0..k {
            let mut tool = pick_tool(&mut w.r, mode);
            if tool == Tool::Task && calls.iter().any(|c: &Call| c.tool == Tool::Task) {
                tool = Tool::Read;
            }
            let (mut c, block) = tool_use(s, w, tool);
            c.uuid = w_assistant(s, w, o, ch, &m, &block)?;
            calls.push(c);
        }
        let progress = s.era == Era::V21;
        if progress && !mode.agent && w.r.chance(0.12) {
            w_attachment(s, w, o, ch)?;
        }
        for c in &calls {
            tools += 1;
            if progress && s.p.hooks && w.r.chance(0.7) {
                hook_progress(s, w, o, ch, "PreToolUse", c)?;
            }
            if progress && c.tool == Tool::Bash {
                for i in 0..w.r.range(0, 3) {
                    let mut d = Vec::with_capacity(200);
                    d.s("{\"type\":\"bash_progress\",\"output\":\"\",\"fullOutput\":\"\",\"elapsedTimeSeconds\":");
                    num(&mut d, i + 2);
                    d.s(",\"totalLines\":0}");
                    w_progress(s, w, o, ch, &d, &c.id)?;
                }
            }
            if !mode.agent && w.r.chance(0.012) {
                // The user rejects the call and interrupts the turn.
                let mut block = Vec::new();
                block.s("[{\"type\":\"tool_result\",\"content\":\"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.\",\"is_error\":true,\"tool_use_id\":\"").s(&c.id).s("\"}]");
                let tur = b",\"toolUseResult\":\"Error: The user doesn't want to proceed with this tool use. The tool use was rejected.\"";
                w.tick(2_000, 30_000);
                let u = UserLine {
                    content: &block,
                    flags: "",
                    after: tur,
                    uuid: None,
                };
                w_user(s, w, o, ch, u)?;
                let u = UserLine {
                    content: b"[{\"type\":\"text\",\"text\":\"[Request interrupted by user for tool use]\"}]",
                    flags: "",
                    after: b"",
                    uuid: None,
                };
                w_user(s, w, o, ch, u)?;
                return Ok((b"Interrupted.".to_vec(), tools));
            }
            tool_result(s, w, o, ch, mode, c)?;
            if progress && s.p.hooks && w.r.chance(0.3) {
                hook_progress(s, w, o, ch, "PostToolUse", c)?;
            }
        }
    }
    Ok((Vec::new(), tools))
}

fn hook_progress(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, event: &str, c: &Call) -> Res<()> {
    let mut d = Vec::with_capacity(200);
    d.s("{\"type\":\"hook_progress\",\"hookEvent\":\"").s(event);
    d.s("\",\"hookName\":\"").s(event).s(":").s(c.tool.name(s));
    d.s("\",\"command\":\"node \\\"${CLAUDE_PLUGIN_ROOT}/scripts/hooks/");
    d.s(if event == "PreToolUse" {
        "pre-tool-use.js"
    } else {
        "post-tool-use.js"
    });
    d.s("\\\"\"}");
    w_progress(s, w, o, ch, &d, &c.id)
}

/// One prompt and everything it sets off.
fn turn(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, first: bool) -> Res<()> {
    w.tick(20_000, 900_000);
    let (prompt, pasted) = s.g.prompt(&mut w.r, s.p.lang);
    let pid = uuid(&mut w.r);
    if s.era >= Era::V20 {
        w_queue(s, w, o, "enqueue", Some(&prompt))?;
        w_queue(s, w, o, "dequeue", None)?;
    }
    let mut content = Vec::with_capacity(prompt.len() + 300);
    if s.era == Era::V21 && w.r.chance(0.5) {
        content.s("[");
        if s.entry == Some("claude-vscode") && w.r.chance(0.4) {
            content.s("{\"type\":\"text\",\"text\":\"<ide_opened_file>The user opened the file ");
            let p = s.path(&mut w.r);
            esc(&mut content, p.as_bytes());
            content.s(" in the IDE. This may or may not be related to the current task.</ide_opened_file>\"},");
        }
        content.s("{\"type\":\"text\",\"text\":");
        q(&mut content, &prompt);
        content.s("}]");
    } else {
        q(&mut content, &prompt);
    }
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &content,
            flags: "",
            after: b"",
            uuid: Some(pid.clone()),
        },
    )?;
    history(s, w, &prompt, pasted.as_deref())?;
    if s.era >= Era::V20 || s.vi >= 8 {
        w_snapshot(s, w, o, &pid, false)?;
    }
    if s.era == Era::V21 {
        for _ in 0..w.r.below(4) {
            w_attachment(s, w, o, ch)?;
        }
    }
    let queued = s.era >= Era::V20 && w.r.chance(0.3);
    if queued {
        let (more, _) = s.g.prompt(&mut w.r, s.p.lang);
        w_queue(s, w, o, "enqueue", Some(&more))?;
    }
    let rounds = w.r.count(5.0, 30) + 1;
    let mode = Mode {
        agent: false,
        model: s.model,
        scale: 1.0,
    };
    run_rounds(s, w, o, ch, mode, rounds)?;
    if queued {
        let op = if w.r.chance(0.7) { "dequeue" } else { "remove" };
        w_queue(s, w, o, op, None)?;
    }
    if s.era >= Era::V20 && w.r.chance(0.1) {
        w_snapshot(s, w, o, &pid, true)?;
    }
    if s.era == Era::V21 {
        if s.p.hooks {
            let mut mid = Vec::new();
            mid.s(",\"hookCount\":1,\"hookInfos\":[{\"command\":\"${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh\",\"durationMs\":");
            num(&mut mid, w.r.range(100, 2000));
            mid.s("}],\"hookErrors\":[],\"preventedContinuation\":false,\"stopReason\":\"\",\"hasOutput\":false,\"level\":\"suggestion\"");
            w_system(s, w, o, ch, "stop_hook_summary", &mid)?;
        }
        if w.r.chance(0.4) {
            let mut mid = Vec::new();
            mid.s(",\"durationMs\":");
            num(&mut mid, w.r.range(2_000, 600_000));
            w_system(s, w, o, ch, "turn_duration", &mid)?;
        }
        let short: String = prompt.chars().take(200).collect();
        let short = if short.len() < prompt.len() {
            format!("{short}…")
        } else {
            short
        };
        w_meta(s, w, o, K_LAST_PROMPT, "lastPrompt", &short)?;
        if first || w.r.chance(0.3) {
            let t = s.g.title(&mut w.r);
            w_meta(s, w, o, K_AI_TITLE, "aiTitle", &t)?;
        }
    }
    Ok(())
}

const SLASH: &[(&str, &str, &str)] = &[
    ("model", "", "Set model to claude-opus-4-6"),
    (
        "cost",
        "",
        "Total cost: $2.41\nTotal duration (API): 14m 3.2s",
    ),
    ("context", "", "Context Usage: 61k/200k tokens (31%)"),
    ("mcp", "", "No MCP servers configured."),
    ("review", "42", ""),
    ("init", "", ""),
    ("compact", "", "Compacted. ctrl+o to see full summary"),
    ("commit", "", ""),
];

const CAVEAT: &str = "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>";

/// A slash command: caveat, command, output; `/compact` also compacts.
fn command(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain) -> Res<()> {
    w.tick(10_000, 300_000);
    let (name, args, stdout) = *w.r.pick(SLASH);
    let tags = format!(
        "<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n            <command-args>{args}</command-args>"
    );
    let display = if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    };
    history(s, w, &display, None)?;
    if s.era == Era::V21 && w.r.chance(0.5) {
        let mut mid = Vec::new();
        mid.s(",\"content\":");
        q(&mut mid, &tags);
        mid.s(",\"level\":\"info\"");
        w_system(s, w, o, ch, "local_command", &mid)?;
        if !stdout.is_empty() {
            let mut mid = Vec::new();
            mid.s(",\"content\":");
            q(
                &mut mid,
                &format!("<local-command-stdout>{stdout}</local-command-stdout>"),
            );
            mid.s(",\"level\":\"info\"");
            w_system(s, w, o, ch, "local_command", &mid)?;
        }
    } else {
        let mut c = Vec::new();
        q(&mut c, CAVEAT);
        let u = UserLine {
            content: &c,
            flags: ",\"isMeta\":true",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
        let mut c = Vec::new();
        q(&mut c, &tags);
        let u = UserLine {
            content: &c,
            flags: "",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
        let mut c = Vec::new();
        q(
            &mut c,
            &format!("<local-command-stdout>{stdout}</local-command-stdout>"),
        );
        let u = UserLine {
            content: &c,
            flags: "",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
    }
    if name == "compact" {
        compact(s, w, o, ch, "manual")?;
    }
    Ok(())
}

/// `compact_boundary` then the summary the conversation continues from.
fn compact(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, trigger: &str) -> Res<()> {
    let logical = ch.parent.take().unwrap_or_default();
    let mut mid = Vec::new();
    mid.s(",\"logicalParentUuid\":\"").s(&logical);
    mid.s("\",\"content\":\"Conversation compacted\",\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"").s(trigger);
    mid.s("\",\"preTokens\":");
    num(&mut mid, w.r.range(120_000, 190_000));
    mid.s("}");
    w.tick(20_000, 120_000);
    w_system(s, w, o, ch, "compact_boundary", &mid)?;
    let st = s.style();
    let mut text = Vec::with_capacity(8192);
    text.s("This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\\n\\nAnalysis:\\n");
    let n = w.r.range(3, 8);
    s.g.paragraph(&mut w.r, &mut text, st, n);
    text.s("\\n\\nSummary:\\n1. Primary Request and Intent:\\n   ");
    let n = w.r.range(2, 5);
    s.g.paragraph(&mut w.r, &mut text, st, n);
    text.s("\\n\\n2. Key Technical Concepts:\\n");
    for _ in 0..w.r.range(3, 8) {
        text.s("   - ");
        s.g.sentence(&mut w.r, &mut text, st, false);
        text.s("\\n");
    }
    text.s("\\n3. Files and Code Sections:\\n   - ");
    let p = s.path(&mut w.r);
    esc(&mut text, p.as_bytes());
    text.s("\\n     ```").s(s.p.lang.fence()).s("\\n");
    let n = w.r.range(200, 2000) as usize;
    s.g.code(&mut w.r, &mut text, st, n, None);
    text.s("\\n     ```");
    let mut content = Vec::with_capacity(text.len() + 2);
    qe(&mut content, &text);
    if s.era == Era::V21 {
        // The summary was written by a compaction sub-agent.
        let id = hex(&mut w.r, 16);
        let dir = s.dir.join(&s.id).join("subagents");
        mkdir(&dir)?;
        let mut ao = Out::create(&dir.join(format!("agent-acompact-{id}.jsonl")))?;
        let mut side = Chain {
            parent: None,
            side: true,
            agent: Some(format!("acompact-{id}")),
        };
        agent_prompt(s, w, &mut ao, &mut side, "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.")?;
        let m = new_msg(s, w, s.model);
        let mut b = Vec::with_capacity(text.len() + 40);
        b.s("{\"type\":\"text\",\"text\":");
        qe(&mut b, &text);
        b.s("}");
        w_assistant(s, w, &mut ao, &mut side, &m, &b)?;
        let n = ao.finish()?;
        w.stats.file(n);
    }
    let u = UserLine {
        content: &content,
        flags: ",\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true",
        after: b"",
        uuid: None,
    };
    w_user(s, w, o, ch, u)?;
    Ok(())
}

/// Write one session file of about `target` bytes. Returns its last uuid.
/// Stops at `target` bytes, or earlier when the whole output reaches `limit`.
/// Returns the last uuid and the size of the session file.
fn session(
    s: &S,
    w: &mut W,
    target: u64,
    limit: u64,
    prev_leaf: Option<&str>,
) -> Res<(Option<String>, u64)> {
    let mut o = Out::create(&s.dir.join(format!("{}.jsonl", s.id)))?;
    let mut ch = Chain::main();
    if let Some(leaf) = prev_leaf {
        let p = if s.era == Era::V10 { 0.8 } else { 0.4 };
        if w.r.chance(p) {
            for _ in 0..w.r.range(1, 4) {
                let t = s.g.title(&mut w.r);
                w_summary(w, &mut o, &t, leaf)?;
            }
        }
    }
    if s.era == Era::V21 {
        if w.r.chance(0.1) {
            let m = *w.r.pick(&["default", "acceptEdits", "plan"]);
            w_meta(s, w, &mut o, K_PERMISSION, "permissionMode", m)?;
        }
        if s.p.hooks {
            let hook_id = uuid(&mut w.r);
            let d = b"{\"type\":\"hook_progress\",\"hookEvent\":\"SessionStart\",\"hookName\":\"SessionStart:startup\",\"command\":\"node \\\"${CLAUDE_PLUGIN_ROOT}/scripts/hooks/session-start.js\\\"\"}";
            w_progress(s, w, &mut o, &mut ch, d, &hook_id)?;
        }
    }
    let mut turns = 0u32;
    while (o.n < target && w.stats.bytes + w.hist.n + o.n < limit) || turns == 0 {
        if turns > 0 && w.r.chance(0.05) {
            command(s, w, &mut o, &mut ch)?;
        } else {
            turn(s, w, &mut o, &mut ch, turns == 0)?;
        }
        if target > 1_000_000 && turns > 2 && w.r.chance(0.02) {
            compact(s, w, &mut o, &mut ch, "auto")?;
        }
        turns += 1;
    }
    if s.era >= Era::V20 && w.r.chance(0.25) {
        let t = s.g.title(&mut w.r);
        w_meta(s, w, &mut o, K_CUSTOM_TITLE, "customTitle", &t)?;
    }
    let n = o.finish()?;
    w.stats.file(n);
    w.stats.sessions += 1;
    Ok((ch.parent, n))
}

// ---------------------------------------------------------------- memory

fn memories(g: &Gen, r: &mut Rng, p: &Project, root: &Path, stats: &mut Stats) -> Res<()> {
    let dir = root.join("projects").join(&p.dir).join("memory");
    mkdir(&dir)?;
    let st = Style {
        lang: p.lang,
        esc: false,
    };
    let n = r.range(3, 8);
    let mut index = Vec::new();
    index
        .s("# Memory Index\n\nMemory for ")
        .s(&p.name)
        .s(". Read the relevant files before answering.\n");
    let mut used: Vec<String> = Vec::new();
    let mut last_kind = "";
    const ORDER: [&str; 4] = ["user", "feedback", "project", "reference"];
    let mut kinds: Vec<&str> = (0..n)
        .map(|i| match (i, r.below(10)) {
            (0, _) => "user",
            (_, 0..=3) => "feedback",
            (_, 4..=7) => "project",
            _ => "reference",
        })
        .collect();
    kinds.sort_by_key(|k| ORDER.iter().position(|o| o == k));
    for kind in kinds {
        let topic = loop {
            let t = format!("{}_{}", r.word(ADJS), r.word(NOUNS).replace(' ', "_"));
            if !used.contains(&t) {
                break t;
            }
        };
        used.push(topic.clone());
        let file = format!("{kind}_{topic}.md");
        let name = capitalize(&topic.replace('_', " "));
        let mut desc = Vec::new();
        g.sentence(r, &mut desc, st, false);
        let desc = String::from_utf8_lossy(&desc).replace(':', " -");
        let mut body = Vec::new();
        body.s("---\nname: ")
            .s(&name)
            .s("\ndescription: ")
            .s(&desc)
            .s("\ntype: ")
            .s(kind)
            .s("\n");
        if r.chance(0.3) {
            body.s("originSessionId: ").s(&uuid(r)).s("\n");
        }
        body.s("---\n\n");
        match kind {
            "feedback" => {
                g.sentence(r, &mut body, st, false);
                body.s("\n\n**Why:** ");
                let k = r.range(1, 3);
                g.paragraph(r, &mut body, st, k);
                body.s("\n\n**How to apply:** ");
                let k = r.range(1, 3);
                g.paragraph(r, &mut body, st, k);
                body.s("\n");
            }
            "user" => {
                body.s("The user works on ")
                    .s(&p.name)
                    .s(" (")
                    .s(p.lang.fence())
                    .s("). ");
                let k = r.range(2, 5);
                g.paragraph(r, &mut body, st, k);
                body.s("\n");
            }
            _ => {
                let b = r.range(200, 3000) as usize;
                g.markdown(r, &mut body, st, b);
                body.s("\n");
            }
        }
        write_file(stats, &dir.join(&file), &body)?;
        if kind != last_kind {
            let heading = match kind {
                "user" => "User",
                "feedback" => "Feedback",
                "project" => "Projects",
                _ => "References",
            };
            index.s("\n## ").s(heading).s("\n");
            last_kind = kind;
        }
        index
            .s("- [")
            .s(&name)
            .s("](")
            .s(&file)
            .s(") — ")
            .s(&desc)
            .s("\n");
    }
    write_file(stats, &dir.join("MEMORY.md"), &index)
}

// ---------------------------------------------------------------- the run

fn prepare_out(out: &Path) -> Res<()> {
    if out.exists() {
        if !out.is_dir() {
            return Err(format!("{} exists and is not a directory", out.display()).into());
        }
        let mut entries = fs::read_dir(out)
            .map_err(|e| format!("cannot read {}: {e}", out.display()))?
            .peekable();
        if entries.peek().is_some() {
            if !out.join(MARKER).is_file() {
                return Err(format!(
                    "refusing to write into {}: it is not empty and not a gen_corpus output (no {MARKER} file). Pick an empty or new directory.",
                    out.display()
                )
                .into());
            }
            for name in ["projects", "sessions"] {
                let p = out.join(name);
                if p.exists() {
                    fs::remove_dir_all(&p)
                        .map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
                }
            }
            for name in ["history.jsonl", MARKER] {
                let p = out.join(name);
                if p.exists() {
                    fs::remove_file(&p)
                        .map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
                }
            }
        }
    }
    mkdir(out)
}

/// Planned session sizes: mostly 50 KB–5 MB (log-triangular), 4 % 20–80 MB.
fn plan_sizes(r: &mut Rng, budget: u64) -> Vec<u64> {
    let cap = (budget as f64 / 8.0).max(60e3);
    let mut sizes = Vec::new();
    let mut sum = 0u64;
    while sum < budget {
        let s = if r.chance(0.04) {
            r.log_uniform(20e6, 80e6)
        } else {
            let u = (r.unit() + r.unit()) / 2.0;
            (50e3f64.ln() + u * (5e6f64.ln() - 50e3f64.ln())).exp()
        };
        let s = s.min(cap) as u64;
        sizes.push(s);
        sum += s;
    }
    sizes
}

fn run(a: &Args) -> Res<()> {
    let started = Instant::now();
    prepare_out(&a.out)?;
    let mut stats = Stats::default();
    let marker = format!(
        "gen_corpus output (safe to delete)\nsize={}\nseed={}\nbig_session={}\n",
        a.size,
        a.seed,
        a.big.unwrap_or(0)
    );
    write_file(&mut stats, &a.out.join(MARKER), marker.as_bytes())?;
    let mut r = Rng::new(a.seed);
    let g = Gen::new(&mut r);

    let n_projects = ((a.size as f64 / 1e9 * 8.0).round() as usize).max(3);
    let projects: Vec<Project> = (0..n_projects)
        .map(|i| make_project(&g, &mut r, i))
        .collect();
    for p in &projects {
        mkdir(&a.out.join("projects").join(&p.dir))?;
        memories(&g, &mut r, p, &a.out, &mut stats)?;
    }

    // Sub-agent files add roughly a tenth on top of the planned session sizes.
    let plan = plan_sizes(&mut r, (a.size as f64 * 0.9) as u64);
    let n = plan.len();
    let weights: Vec<u32> = (0..n_projects)
        .map(|i| (1000.0 / (i as f64 + 1.0).powf(0.8)) as u32)
        .collect();
    let mut owner: Vec<usize> = (0..n).map(|_| r.weighted(&weights)).collect();
    // Every project gets at least one session (spread over time).
    if n >= n_projects {
        for p in 0..n_projects {
            owner[p * n / n_projects] = p;
        }
    }

    let mut w = W {
        r: Rng::new(0),
        t: 0,
        scale: 1.0,
        stats,
        line: Vec::with_capacity(1 << 16),
        hist: Out::create(&a.out.join("history.jsonl"))?,
    };
    let mut leaves: Vec<Option<String>> = vec![None; n_projects];
    let mut starts: Vec<(i64, String, String)> = Vec::new();
    let total = |w: &W| w.stats.bytes + w.hist.n;
    let mut i = 0usize;
    loop {
        let remaining = a.size.saturating_sub(total(&w));
        if remaining < 20_000 || (i >= n && remaining < a.size / 100) {
            break;
        }
        let target = if i < n { plan[i] } else { 1_000_000 }.min(remaining);
        let f = ((i as f64 + 0.5) / n as f64).min(0.999);
        let pi = if i < n { owner[i] } else { i % n_projects };
        let p = &projects[pi];
        let mut sr = Rng::new(a.seed ^ (i as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        let era = if f < 0.10 {
            Era::V10
        } else if f < 0.25 {
            Era::V20
        } else {
            Era::V21
        };
        let (lo, hi, t0, t1) = era_window(era);
        let local = (f - lo) / (hi - lo);
        let slot = (t1 - t0) as f64 / ((hi - lo) * n as f64);
        let start = t0 + (local * (t1 - t0) as f64) as i64 + (sr.unit() * slot * 0.1) as i64;
        let versions = match era {
            Era::V10 => V10,
            Era::V20 => V20,
            Era::V21 => V21,
        };
        let vi = ((local * versions.len() as f64) as usize).min(versions.len() - 1);
        w.r = sr;
        w.t = start;
        // Fit the session into 80 % of its slot: about 3 KB and 25 s per line.
        let natural = target as f64 / 3_000.0 * 25_000.0;
        w.scale = (slot * 0.8 / natural).min(1.0);
        let s = make_session(&g, p, &mut w.r, era, vi, versions[vi], &a.out);
        let (leaf, _) = session(&s, &mut w, target, a.size, leaves[pi].as_deref())?;
        leaves[pi] = leaf;
        starts.push((start, s.id.clone(), p.cwd.clone()));
        i += 1;
    }
    let regular = total(&w);

    let (mut big_file, mut big_agents) = (0, 0);
    if let Some(big) = a.big {
        // One huge session after everything else.
        let p = &projects[0];
        w.r = Rng::new(a.seed ^ 0xB16_B16);
        w.t = ms_at(2026, 5, 16);
        w.scale = 0.05;
        let s = make_session(
            &g,
            p,
            &mut w.r,
            Era::V21,
            V21.len() - 1,
            V21[V21.len() - 1],
            &a.out,
        );
        big_file = session(&s, &mut w, big, u64::MAX, None)?.1;
        big_agents = total(&w) - regular - big_file;
        starts.push((ms_at(2026, 5, 16), s.id.clone(), p.cwd.clone()));
    }

    // sessions/<pid>.json for the last few sessions.
    let sdir = a.out.join("sessions");
    mkdir(&sdir)?;
    let mut pid = 20_000 + r.below(20_000);
    for (k, (t, id, cwd)) in starts.iter().rev().take(5).enumerate() {
        pid += r.range(50, 900);
        let mut j = Vec::new();
        j.s("{\"pid\":");
        num(&mut j, pid);
        j.s(",\"sessionId\":\"").s(id).s("\",\"cwd\":");
        q(&mut j, cwd);
        j.s(",\"startedAt\":");
        if k % 2 == 0 {
            num(&mut j, *t as u64);
            j.s(",\"kind\":\"interactive\",\"entrypoint\":\"cli\"}");
        } else {
            j.push(b'"');
            iso(&mut j, *t);
            j.s("\"}");
        }
        write_file(&mut w.stats, &sdir.join(format!("{pid}.json")), &j)?;
    }

    let hist = w.hist;
    let mut stats = w.stats;
    let hn = hist.finish()?;
    stats.file(hn);
    let secs = started.elapsed().as_secs_f64();
    // Ignore a closed stdout (`| head`): the files are written either way.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "gen_corpus: wrote {} files, {} bytes ({:.1} MB), {} transcript lines in {:.2} s ({:.0} MB/s) to {}",
        stats.files,
        stats.bytes,
        stats.bytes as f64 / 1e6,
        stats.lines,
        secs,
        stats.bytes as f64 / 1e6 / secs.max(1e-9),
        a.out.display()
    );
    let _ = writeln!(
        out,
        "  {} projects, {} sessions, {} sub-agents; regular part {:.1} MB of {:.1} MB asked{}",
        n_projects,
        stats.sessions,
        stats.subagents,
        regular as f64 / 1e6,
        a.size as f64 / 1e6,
        match a.big {
            Some(_) => format!(
                ", plus one {:.1} MB session file (and {:.1} MB of its sub-agents and history)",
                big_file as f64 / 1e6,
                big_agents as f64 / 1e6
            ),
            None => String::new(),
        }
    );
    let mix: Vec<String> = KINDS
        .iter()
        .zip(stats.kinds.iter())
        .filter(|(_, &c)| c > 0)
        .map(|(k, &c)| format!("{k} {:.1}%", c as f64 * 100.0 / stats.lines.max(1) as f64))
        .collect();
    let _ = writeln!(out, "  lines: {}", mix.join(" · "));
    Ok(())
}

fn make_session<'a>(
    g: &'a Gen,
    p: &'a Project,
    r: &mut Rng,
    era: Era,
    vi: usize,
    version: &'static str,
    root: &Path,
) -> S<'a> {
    let id = uuid(r);
    let branch = if r.chance(0.5) {
        "main".to_string()
    } else {
        r.pick(&p.branches).clone()
    };
    let slug = (era == Era::V21).then(|| {
        format!(
            "{}-{}-{}",
            r.word(SLUG_ADJS),
            r.word(SLUG_VERBS),
            r.word(SLUG_NOUNS)
        )
    });
    let entry = (era == Era::V21 && vi >= V21_ENTRYPOINT).then(|| {
        *r.pick(&[
            "cli",
            "cli",
            "cli",
            "cli",
            "claude-vscode",
            "claude-vscode",
            "sdk-cli",
        ])
    });
    let model = match era {
        Era::V10 => *r.pick(&[
            "claude-sonnet-4-20250514",
            "claude-sonnet-4-20250514",
            "claude-opus-4-20250514",
            "claude-opus-4-1-20250805",
        ]),
        Era::V20 => *r.pick(&[
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-5-20251101",
        ]),
        Era::V21 => *r.pick(&[
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-opus-4-6",
            "claude-sonnet-4-5-20250929",
        ]),
    };
    S {
        g,
        p,
        id,
        era,
        vi,
        version,
        branch,
        slug,
        entry,
        model,
        dir: root.join("projects").join(&p.dir),
    }
}
