//! The redaction report: what a written site still holds that may be
//! private, for the owner to check before publishing.
//!
//! It reads the site as a visitor would (the text of each page's `<main>`,
//! and every string of the search shards), so it sees exactly what is
//! published. Two things are listed: the redaction markers on each page,
//! and residual suspects that no rule replaced but that look private
//! (high-entropy strings, email addresses, IP addresses, host names).

use crate::base::error::Error;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::LazyLock;

/// What a suspect looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SuspectKind {
    HighEntropy,
    Email,
    Ip,
    Host,
}

impl SuspectKind {
    fn title(self) -> &'static str {
        match self {
            SuspectKind::HighEntropy => "High-entropy strings",
            SuspectKind::Email => "Email addresses",
            SuspectKind::Ip => "IP addresses",
            SuspectKind::Host => "Host names",
        }
    }
}

/// The findings on a written site.
#[derive(Debug, Default)]
pub struct Audit {
    /// Redaction markers (`[REDACTED:kind]`) by page, then by kind.
    pub markers: BTreeMap<String, BTreeMap<String, u64>>,
    /// Residual suspects: (kind, value) → pages where they stand.
    pub suspects: BTreeMap<(SuspectKind, String), BTreeSet<String>>,
    /// Pages read.
    pub pages: usize,
}

impl Audit {
    /// Suspects of one kind, most widespread first.
    pub fn of_kind(&self, kind: SuspectKind) -> Vec<(&str, &BTreeSet<String>)> {
        let mut v: Vec<(&str, &BTreeSet<String>)> = self
            .suspects
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, value), pages)| (value.as_str(), pages))
            .collect();
        v.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        v
    }

    /// The markers and the suspects of one page's text.
    fn scan(&mut self, page: &str, text: &str) {
        for m in MARKER.captures_iter(text) {
            *self
                .markers
                .entry(page.to_string())
                .or_default()
                .entry(m[1].to_string())
                .or_insert(0) += 1;
        }
        self.note_suspects(page, text);
    }

    fn note_suspects(&mut self, page: &str, text: &str) {
        for (kind, value) in suspects(text) {
            self.suspects
                .entry((kind, value))
                .or_default()
                .insert(page.to_string());
        }
    }
}

static MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[REDACTED:([a-z0-9-]+)\]").expect("marker regex is valid"));
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_=.-]{20,}").expect("token regex is valid"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
        .expect("email regex is valid")
});
static IPV4: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^\d.])((?:\d{1,3}\.){3}\d{1,3})(?:$|[^\d.])").expect("ip regex is valid")
});
static URL_HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[a-z][a-z0-9+.-]*://(?:[^/\s@]*@)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)")
        .expect("url regex is valid")
});
static PRIVATE_HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:internal|local|lan|corp|intranet|localdomain|home\.arpa)\b")
        .expect("host regex is valid")
});

/// Hosts everyone knows: listing them would bury the ones that matter.
const PUBLIC_HOSTS: &[&str] = &[
    "localhost",
    "example.com",
    "example.org",
    "example.net",
    "github.com",
    "raw.githubusercontent.com",
    "api.github.com",
    "gitlab.com",
    "anthropic.com",
    "docs.anthropic.com",
    "api.anthropic.com",
    "claude.ai",
    "www.npmjs.com",
    "registry.npmjs.org",
    "pypi.org",
    "crates.io",
    "docs.rs",
    "www.w3.org",
];

fn public_host(host: &str) -> bool {
    let h = host.to_ascii_lowercase();
    PUBLIC_HOSTS.iter().any(|p| h == *p)
        || h.ends_with(".example.com")
        || h.ends_with(".example.org")
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// A token that looks like a random key rather than a word, a path or a
/// hash: letters of both cases and digits, and more entropy than hex can
/// carry (git hashes and UUIDs stay out).
fn high_entropy(token: &str) -> bool {
    let t = token.trim_matches(|c: char| c == '.' || c == '-' || c == '=' || c == '/');
    if t.len() < 20 || t.contains("REDACTED") {
        return false;
    }
    let has = |f: fn(&u8) -> bool| t.as_bytes().iter().any(f);
    if !(has(u8::is_ascii_digit) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_uppercase)) {
        return false;
    }
    // Paths and dotted names are made of words: judge their longest piece.
    let longest = t.split(['/', '.']).max_by_key(|p| p.len()).unwrap_or(t);
    longest.len() >= 20 && entropy(longest) > 4.2
}

/// The suspects in `text`.
pub fn suspects(text: &str) -> Vec<(SuspectKind, String)> {
    let mut out = Vec::new();
    for m in TOKEN.find_iter(text) {
        if high_entropy(m.as_str()) {
            out.push((SuspectKind::HighEntropy, m.as_str().to_string()));
        }
    }
    for m in EMAIL.find_iter(text) {
        let e = m.as_str();
        let domain = e.rsplit('@').next().unwrap_or("");
        if !public_host(domain) && !e.eq_ignore_ascii_case("noreply@anthropic.com") {
            out.push((SuspectKind::Email, e.to_string()));
        }
    }
    for c in IPV4.captures_iter(text) {
        let ip = &c[1];
        let octets: Vec<u32> = ip.split('.').filter_map(|o| o.parse().ok()).collect();
        let valid = octets.len() == 4 && octets.iter().all(|o| *o <= 255);
        let trivial = octets.first() == Some(&127) || octets.iter().all(|o| *o == 0);
        if valid && !trivial {
            out.push((SuspectKind::Ip, ip.to_string()));
        }
    }
    for c in URL_HOST.captures_iter(text) {
        let host = &c[1];
        if !public_host(host) && !host.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            out.push((SuspectKind::Host, host.to_ascii_lowercase()));
        }
    }
    for m in PRIVATE_HOST.find_iter(text) {
        // `grafana.internal.example` is one name, not `grafana.internal`.
        let after = &text.as_bytes()[m.end()..];
        if after.first() == Some(&b'.') && after.get(1).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        out.push((SuspectKind::Host, m.as_str().to_ascii_lowercase()));
    }
    out
}

/// The text a visitor reads in a page: what `<main>` holds, without tags,
/// entities decoded.
fn page_text(html: &str) -> String {
    let start = html.find("<main").unwrap_or(0);
    let end = html[start..]
        .find("</main>")
        .map(|e| start + e)
        .unwrap_or(html.len());
    let mut text = String::with_capacity(end - start);
    let mut in_tag = false;
    for c in html[start..end].chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    decode_entities(&text)
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let entity = rest.find(';').filter(|e| *e <= 10).map(|e| &rest[1..e]);
        let decoded = entity.and_then(|e| match e {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => e
                .strip_prefix("#x")
                .or_else(|| e.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| e.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        });
        match (entity, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every string of a search shard (`ccwikiSearch.add([...]);`), by the
/// page (`u`) of the document that holds it.
fn shard_texts(js: &str) -> Vec<(String, String)> {
    let Some(open) = js.find('[') else {
        return Vec::new();
    };
    let Some(close) = js.rfind(']') else {
        return Vec::new();
    };
    let Ok(docs) = serde_json::from_str::<Vec<serde_json::Value>>(&js[open..=close]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for doc in docs {
        let page = doc
            .get("u")
            .and_then(|u| u.as_str())
            .unwrap_or("search")
            .to_string();
        let mut strings = String::new();
        collect_strings(&doc, &mut strings);
        out.push((page, strings));
    }
    out
}

fn collect_strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// Read the site in `dir`.
pub fn audit_site(dir: &Path) -> Result<Audit, Error> {
    let mut audit = Audit::default();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e.path().map(Path::to_path_buf).unwrap_or_default();
            Error::io(path, std::io::Error::other(e.to_string()))
        })?;
        let path = entry.path();
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let is_html = rel.ends_with(".html");
        // (search/index.js lists the shards and the ranking spec: no text)
        let is_shard =
            rel.starts_with("search/") && rel.ends_with(".js") && rel != "search/index.js";
        if !entry.file_type().is_file() || !(is_html || is_shard) {
            continue;
        }
        let body = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        if is_html {
            audit.pages += 1;
            audit.scan(&rel, &page_text(&body));
        } else {
            // Shards repeat what pages show: only what they add counts, so
            // their markers are not counted twice.
            for (page, text) in shard_texts(&body) {
                audit.note_suspects(&page, &text);
            }
        }
    }
    Ok(audit)
}

/// How many suspects of each kind the report lists.
const LISTED: usize = 200;

/// The report as Markdown.
pub fn report_markdown(site: &Path, replaced: &BTreeMap<String, u64>, audit: &Audit) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# ccwiki redaction report\n");
    let _ = writeln!(
        md,
        "Site: `{}` ({} pages read). This report is for you, not for the site: it \
         quotes what may be private. Do not publish it.\n",
        site.display(),
        audit.pages
    );
    let _ = writeln!(md, "## Replaced, by kind\n");
    if replaced.is_empty() {
        let _ = writeln!(md, "Nothing was replaced (is redaction off?).\n");
    } else {
        let _ = writeln!(md, "| kind | replaced |\n|---|---:|");
        for (k, n) in replaced {
            let _ = writeln!(md, "| {k} | {n} |");
        }
        let _ = writeln!(
            md,
            "\nHome folders become `~` (yours) or `~user` (others'), your user name \
             becomes `user`; credentials become `[REDACTED:kind]`.\n"
        );
    }
    let _ = writeln!(md, "## Markers, by page\n");
    if audit.markers.is_empty() {
        let _ = writeln!(md, "No page shows a `[REDACTED:…]` marker.\n");
    } else {
        let _ = writeln!(md, "| page | markers |\n|---|---|");
        for (page, kinds) in &audit.markers {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(md, "| {page} | {} |", list.join(", "));
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "## Residual suspects\n\nNo rule replaced these, but they look private. For \
         each that is, add a `[[redact_patterns]]` entry to ccwiki.toml, or leave its \
         project out with `exclude`, and build again.\n"
    );
    for kind in [
        SuspectKind::HighEntropy,
        SuspectKind::Email,
        SuspectKind::Ip,
        SuspectKind::Host,
    ] {
        let found = audit.of_kind(kind);
        let _ = writeln!(md, "### {} ({})\n", kind.title(), found.len());
        if found.is_empty() {
            let _ = writeln!(md, "None.\n");
            continue;
        }
        let _ = writeln!(md, "| value | pages | for instance |\n|---|---:|---|");
        for (value, pages) in found.iter().take(LISTED) {
            let first = pages.iter().next().map(String::as_str).unwrap_or("");
            let _ = writeln!(md, "| `{value}` | {} | {first} |", pages.len());
        }
        if found.len() > LISTED {
            let _ = writeln!(md, "\n… and {} more.", found.len() - LISTED);
        }
        let _ = writeln!(md);
    }
    md
}

/// Refuse a report path inside the site: the report quotes what may be
/// private, and the site is what gets published.
pub fn check_report_path(report: &Path, out: &Path) -> Result<(), Error> {
    let resolved = crate::base::dirs::resolved;
    if resolved(report).starts_with(resolved(out)) {
        return Err(Error::ReportInSite {
            report: report.to_path_buf(),
            out: out.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(SuspectKind, String)> {
        suspects(text)
    }

    #[test]
    fn finds_each_kind() {
        let text = "key Zx9Qw3Rt7Yu2Io5Pa8Sd4Fg6Hj1Kl0Mn here, mail ann.lee@acme-corp.io, \
                    ssh 10.20.30.40, https://build.acme-corp.io/job and db.prod.internal";
        let found = kinds(text);
        assert!(found.contains(&(
            SuspectKind::HighEntropy,
            "Zx9Qw3Rt7Yu2Io5Pa8Sd4Fg6Hj1Kl0Mn".into()
        )));
        assert!(found.contains(&(SuspectKind::Email, "ann.lee@acme-corp.io".into())));
        assert!(found.contains(&(SuspectKind::Ip, "10.20.30.40".into())));
        assert!(found.contains(&(SuspectKind::Host, "build.acme-corp.io".into())));
        assert!(found.contains(&(SuspectKind::Host, "db.prod.internal".into())));
    }

    #[test]
    fn leaves_common_shapes_alone() {
        let text = "commit 3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f9a0, uuid \
                    0f8fad5b-d9cb-469f-a165-70867728950e, path src/knowledge/redact/engine.rs, \
                    version 1.2.3, loopback 127.0.0.1, https://github.com/x/y, \
                    Co-Authored-By: Claude <noreply@anthropic.com>, [REDACTED:aws-secret], \
                    CamelCaseIdentifierWithoutDigitsAtAll, semver 10.2.3.4.5";
        assert_eq!(kinds(text), Vec::new());
    }

    #[test]
    fn page_text_reads_main_only_and_decodes() {
        let html = "<nav>https://secret.nav.internal</nav><main id=\"main\"><p>a &amp; b \
                    &lt;x&gt; &#x27;q&#39; [REDACTED:jwt]</p></main><footer>f</footer>";
        let t = page_text(html);
        assert!(t.contains("a & b <x> 'q' [REDACTED:jwt]"), "{t}");
        assert!(!t.contains("nav.internal"));
    }

    #[test]
    fn shard_strings_are_attributed_to_their_page() {
        let js = "ccwikiSearch.add([\n{\"u\":\"sessions/a/index.html\",\"t\":\"mail bo@corp.example.io\",\"x\":[[\"#p1\",\"10.1.2.3\"]]}\n]);\n";
        let texts = shard_texts(js);
        assert_eq!(texts.len(), 1);
        assert_eq!(texts[0].0, "sessions/a/index.html");
        let found = suspects(&texts[0].1);
        assert!(found.contains(&(SuspectKind::Email, "bo@corp.example.io".into())));
        assert!(found.contains(&(SuspectKind::Ip, "10.1.2.3".into())));
    }

    #[test]
    fn report_path_inside_the_site_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("site");
        std::fs::create_dir_all(&out).expect("mkdir");
        assert!(check_report_path(&out.join("report.md"), &out).is_err());
        assert!(check_report_path(&out.join("sub/report.md"), &out).is_err());
        assert!(check_report_path(&dir.path().join("report.md"), &out).is_ok());
    }
}
