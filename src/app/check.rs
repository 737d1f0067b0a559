//! `ccwiki check`: every internal link, anchor and asset of a built site
//! resolves (and, on request, every link to the web answers).
//!
//! Pages are read with a real HTML tokenizer (html5ever's), so a link in a
//! comment, a script or escaped text is no link, and attributes in any
//! quoting are found.

use crate::base::error::Error;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, StartTag, Tag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
    TokenizerOpts,
};
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// What to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Where the site is served: links starting with it (`/wiki/x`) lead
    /// into the site, as the 404 page's do.
    pub base_path: String,
    /// Check links to the web too, each with this timeout.
    pub external: Option<Duration>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            base_path: "/".to_string(),
            external: None,
        }
    }
}

/// One link that leads nowhere.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Broken {
    /// The page that holds it, relative to the site.
    pub page: PathBuf,
    /// Its line in the page.
    pub line: u64,
    /// The link as written.
    pub target: String,
    /// Why it is broken.
    pub why: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.page.display(),
            self.line,
            self.target,
            self.why
        )
    }
}

/// What a check found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub pages: usize,
    /// Internal links, anchors and assets followed.
    pub links: usize,
    /// Distinct web addresses asked (with `external`).
    pub external: usize,
    pub broken: Vec<Broken>,
}

/// A link or asset reference found in a page.
struct Link {
    line: u64,
    target: String,
}

/// What one page holds: the ids it can be linked to, its links.
#[derive(Default)]
struct Page {
    ids: HashSet<String>,
    links: Vec<Link>,
}

/// Collects ids and links as the tokenizer goes.
#[derive(Default)]
struct Collector {
    page: RefCell<Page>,
}

/// Attributes that lead somewhere, by the tags that carry them.
fn link_attribute(tag: &str) -> Option<&'static str> {
    match tag {
        "a" | "link" | "area" => Some("href"),
        "img" | "script" | "iframe" | "source" | "audio" | "video" | "track" | "embed" => {
            Some("src")
        }
        _ => None,
    }
}

impl Collector {
    fn tag(&self, tag: &Tag, line: u64) {
        let mut page = self.page.borrow_mut();
        let wanted = link_attribute(&tag.name);
        for attr in &tag.attrs {
            let name = &*attr.name.local;
            if name == "id" || (name == "name" && &*tag.name == "a") {
                page.ids.insert(attr.value.to_string());
            } else if Some(name) == wanted {
                page.links.push(Link {
                    line,
                    target: attr.value.trim().to_string(),
                });
            }
        }
    }
}

impl TokenSink for Collector {
    type Handle = ();

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
        let TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind != StartTag {
            return TokenSinkResult::Continue;
        }
        self.tag(&tag, line);
        // Without a tree builder the tokenizer must be told where text is
        // raw, or a `<a href>` inside a script would count as a link.
        match &*tag.name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            _ => TokenSinkResult::Continue,
        }
    }
}

/// The ids and links of one HTML document.
fn read_page(html: &str) -> Page {
    let tokenizer = Tokenizer::new(Collector::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.page.take()
}

/// What kind of place a link leads to.
enum Target<'a> {
    /// Not checked: mail, telephone, data, scripts, empty.
    Skip,
    Web(&'a str),
    /// A file of the site (relative to its root) and an anchor in it.
    Site(PathBuf, Option<String>),
    /// Above the site's root.
    Outside,
}

/// Where `href`, found on `page` (relative to the site), leads.
fn classify<'a>(href: &'a str, page: &Path, base_path: &str) -> Target<'a> {
    if href.is_empty() || href == "#" {
        return Target::Skip;
    }
    if href.starts_with("//") {
        return Target::Web(href);
    }
    if let Some((scheme, _)) = href.split_once(':') {
        let is_scheme = scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if is_scheme && !scheme.contains('/') {
            return match scheme.to_ascii_lowercase().as_str() {
                "http" | "https" => Target::Web(href),
                _ => Target::Skip,
            };
        }
    }
    let (rest, fragment) = match href.split_once('#') {
        Some((r, f)) => (r, Some(decode(f))),
        None => (href, None),
    };
    let path = rest.split('?').next().unwrap_or("");
    if path.is_empty() {
        // `#anchor` or `?query`: this page.
        return Target::Site(page.to_path_buf(), fragment);
    }
    let from = match path.strip_prefix('/') {
        Some(absolute) => {
            let base = base_path.trim_matches('/');
            let below = if base.is_empty() {
                Some(absolute)
            } else {
                absolute
                    .strip_prefix(base)
                    .filter(|r| r.is_empty() || r.starts_with('/'))
            };
            match below {
                Some(b) => PathBuf::from(decode(b.trim_start_matches('/'))),
                None => return Target::Outside,
            }
        }
        None => page.parent().unwrap_or(Path::new("")).join(decode(path)),
    };
    let mut clean = PathBuf::new();
    for part in from.components() {
        match part {
            Component::Normal(p) => clean.push(p),
            Component::ParentDir if !clean.pop() => return Target::Outside,
            _ => {}
        }
    }
    if path.ends_with('/') {
        clean.push("index.html");
    }
    Target::Site(clean, fragment)
}

/// `%20` and friends decoded; a link whose escapes do not decode is
/// taken as written.
fn decode(s: &str) -> String {
    crate::base::text::percent_decode(s).unwrap_or_else(|| s.to_string())
}

/// Every HTML page of the site, relative to it, and every other file.
fn list_files(site: &Path) -> Result<(Vec<PathBuf>, HashSet<PathBuf>), Error> {
    let mut pages = Vec::new();
    let mut files = HashSet::new();
    for entry in walkdir::WalkDir::new(site).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(site).to_path_buf();
            Error::io(path, e.into())
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry.path().strip_prefix(site).unwrap_or(entry.path());
        if rel.extension().is_some_and(|e| e == "html") {
            pages.push(rel.to_path_buf());
        }
        files.insert(rel.to_path_buf());
    }
    Ok((pages, files))
}

/// Check the site in `site`: every page's links, anchors and assets.
pub fn check_site(site: &Path, opts: &CheckOptions) -> Result<CheckReport, Error> {
    if !site.is_dir() {
        return Err(Error::NotASite {
            path: site.to_path_buf(),
        });
    }
    let (paths, files) = list_files(site)?;
    let pages: HashMap<PathBuf, Page> = paths
        .par_iter()
        .map(|rel| {
            let path = site.join(rel);
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            Ok((rel.clone(), read_page(&String::from_utf8_lossy(&bytes))))
        })
        .collect::<Result<_, Error>>()?;
    let mut report = CheckReport {
        pages: pages.len(),
        ..CheckReport::default()
    };
    let mut web: BTreeMap<String, Vec<(PathBuf, u64)>> = BTreeMap::new();
    for rel in &paths {
        let Some(page) = pages.get(rel) else { continue };
        for link in &page.links {
            let broken = |why: String| Broken {
                page: rel.clone(),
                line: link.line,
                target: link.target.clone(),
                why,
            };
            match classify(&link.target, rel, &opts.base_path) {
                Target::Skip => {}
                Target::Web(url) => web
                    .entry(url.to_string())
                    .or_default()
                    .push((rel.clone(), link.line)),
                Target::Outside => report
                    .broken
                    .push(broken("leads outside the site".to_string())),
                Target::Site(path, fragment) => {
                    report.links += 1;
                    if let Some(why) = resolve(&path, fragment.as_deref(), &files, &pages) {
                        report.broken.push(broken(why));
                    }
                }
            }
        }
    }
    if let Some(timeout) = opts.external {
        report.external = web.len();
        report.broken.extend(check_web(&web, timeout));
    }
    report.broken.sort();
    Ok(report)
}

/// Why a link to `path#fragment` inside the site is broken, if it is.
fn resolve(
    path: &Path,
    fragment: Option<&str>,
    files: &HashSet<PathBuf>,
    pages: &HashMap<PathBuf, Page>,
) -> Option<String> {
    let file = if files.contains(path) {
        path.to_path_buf()
    } else if files.contains(&path.join("index.html")) {
        path.join("index.html")
    } else {
        return Some("no such file".to_string());
    };
    let fragment = fragment.filter(|f| !f.is_empty() && *f != "top")?;
    let page = pages.get(&file)?;
    (!page.ids.contains(fragment)).then(|| format!("no #{fragment} in {}", file.display()))
}

/// Ask every web address once (HEAD, then GET where HEAD is refused);
/// each failure is reported at every place that links to it.
fn check_web(web: &BTreeMap<String, Vec<(PathBuf, u64)>>, timeout: Duration) -> Vec<Broken> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let failures: BTreeSet<(String, String)> = web
        .par_iter()
        .filter_map(|(url, _)| {
            let full = if url.starts_with("//") {
                format!("https:{url}")
            } else {
                url.clone()
            };
            ask(&agent, &full).map(|why| (url.clone(), why))
        })
        .collect();
    let mut broken = Vec::new();
    for (url, why) in failures {
        for (page, line) in web.get(&url).into_iter().flatten() {
            broken.push(Broken {
                page: page.clone(),
                line: *line,
                target: url.clone(),
                why: why.clone(),
            });
        }
    }
    broken
}

/// Why `url` does not answer, if it does not.
fn ask(agent: &ureq::Agent, url: &str) -> Option<String> {
    let status = match agent.head(url).call() {
        Ok(r) if matches!(r.status().as_u16(), 405 | 501) => agent.get(url).call(),
        other => other,
    };
    match status {
        Ok(r) if r.status().is_success() || r.status().is_redirection() => None,
        Ok(r) => Some(format!("HTTP {}", r.status().as_u16())),
        Err(e) => Some(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_scripts_comments_and_text_are_no_links() {
        let page = read_page(
            "<p id=a>x</p><!-- <a href=\"c.html\"> -->\n<script>let s = '<a href=\"s.html\">';</script>\
             <p>&lt;a href=\"t.html\"&gt;</p>\n<a href='real.html' name=n>r</a><img src=i.png>",
        );
        let targets: Vec<&str> = page.links.iter().map(|l| l.target.as_str()).collect();
        assert_eq!(targets, ["real.html", "i.png"]);
        assert_eq!(page.links[0].line, 3);
        assert!(page.ids.contains("a") && page.ids.contains("n"));
    }

    #[test]
    fn links_are_classified_from_the_page_that_holds_them() {
        let page = Path::new("projects/p/index.html");
        let site = |t: Target| match t {
            Target::Site(p, f) => Some((p, f)),
            _ => None,
        };
        assert_eq!(
            site(classify("../../sessions/a%20b.html#t", page, "/")),
            Some((PathBuf::from("sessions/a b.html"), Some("t".to_string())))
        );
        assert_eq!(
            site(classify("/wiki/static/x.css", page, "/wiki/")),
            Some((PathBuf::from("static/x.css"), None))
        );
        assert_eq!(
            site(classify("./", page, "/")),
            Some((PathBuf::from("projects/p/index.html"), None))
        );
        assert!(matches!(
            classify("../../../x.html", page, "/"),
            Target::Outside
        ));
        assert!(matches!(
            classify("/other/x", page, "/wiki/"),
            Target::Outside
        ));
        assert!(matches!(
            classify("https://e.org", page, "/"),
            Target::Web(_)
        ));
        assert!(matches!(classify("mailto:a@b", page, "/"), Target::Skip));
    }
}
