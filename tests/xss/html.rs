//! A rough HTML tokenizer, and what the static scan allows in a page and a
//! search shard.

use super::root_of;
use std::collections::BTreeSet;

/// One tag of a page.
#[derive(Debug)]
pub(crate) struct Tag {
    /// Lower-cased element name.
    pub(crate) name: String,
    pub(crate) closing: bool,
    /// Lower-cased attribute names, values with entities decoded.
    pub(crate) attrs: Vec<(String, Option<String>)>,
    /// Byte range of the tag in the page.
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Tag {
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, name: &str) -> bool {
        self.attrs.iter().any(|(n, _)| n == name)
    }

    pub(crate) fn attr_names(&self) -> Vec<&str> {
        self.attrs.iter().map(|(n, _)| n.as_str()).collect()
    }
}

pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// The tags of `html`, and everything that does not look like what an
/// HTML-escaping generator makes: a `<` that opens no tag, a comment, an
/// unquoted or unterminated attribute value, an odd attribute name.
pub(crate) fn scan(html: &str) -> (Vec<Tag>, Vec<String>) {
    let b = html.as_bytes();
    let mut tags = Vec::new();
    let mut problems = Vec::new();
    let mut i = 0;
    let snippet = |at: usize| -> String {
        let end = (at + 80).min(html.len());
        let mut e = end;
        while !html.is_char_boundary(e) {
            e -= 1;
        }
        html[at..e].to_string()
    };
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let start = i;
        if i == 0 && html.len() >= 15 && html[..15].eq_ignore_ascii_case("<!doctype html>") {
            i = 15;
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let name_at = if closing { i + 2 } else { i + 1 };
        if !b.get(name_at).is_some_and(|c| c.is_ascii_alphabetic()) {
            problems.push(format!(
                "'<' that opens no tag at byte {i}: {:?}",
                snippet(i)
            ));
            i += 1;
            continue;
        }
        let mut j = name_at;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
            j += 1;
        }
        let name = html[name_at..j].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut ok = true;
        loop {
            while j < b.len() && (is_space(b[j]) || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() {
                problems.push(format!(
                    "unterminated tag at byte {start}: {:?}",
                    snippet(start)
                ));
                ok = false;
                break;
            }
            if b[j] == b'>' {
                j += 1;
                break;
            }
            let n0 = j;
            // A name may start with any character, even '=', in a browser.
            j += html[j..].chars().next().map_or(1, char::len_utf8);
            while j < b.len() && !is_space(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
                j += 1;
            }
            let attr = html[n0..j].to_ascii_lowercase();
            let good_name = attr.as_bytes()[0].is_ascii_lowercase()
                && attr.bytes().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b':'
                });
            if !good_name {
                problems.push(format!(
                    "odd attribute name {attr:?} in <{name}>: {:?}",
                    snippet(start)
                ));
            }
            while j < b.len() && is_space(b[j]) {
                j += 1;
            }
            let mut value = None;
            if j < b.len() && b[j] == b'=' {
                j += 1;
                while j < b.len() && is_space(b[j]) {
                    j += 1;
                }
                match b.get(j) {
                    Some(&q) if q == b'"' || q == b'\'' => match html[j + 1..].find(q as char) {
                        Some(len) => {
                            value = Some(decode_entities(&html[j + 1..j + 1 + len]));
                            j += len + 2;
                        }
                        None => {
                            problems.push(format!(
                                "unterminated attribute value in <{name}>: {:?}",
                                snippet(start)
                            ));
                            ok = false;
                            break;
                        }
                    },
                    _ => {
                        let v0 = j;
                        while j < b.len() && !is_space(b[j]) && b[j] != b'>' {
                            j += 1;
                        }
                        problems.push(format!(
                            "unquoted attribute value {:?} in <{name}>: {:?}",
                            &html[v0..j],
                            snippet(start)
                        ));
                        value = Some(decode_entities(&html[v0..j]));
                    }
                }
            }
            attrs.push((attr, value));
        }
        if !ok {
            break;
        }
        tags.push(Tag {
            name,
            closing,
            attrs,
            start,
            end: j,
        });
        i = j;
    }
    (tags, problems)
}

/// Decode character references the way a browser does in an attribute:
/// numeric ones with or without `;`, and the named ones that matter here.
pub(crate) fn decode_entities(s: &str) -> String {
    const NAMED: &[(&str, char)] = &[
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&apos;", '\''),
        ("&colon;", ':'),
        ("&tab;", '\t'),
        ("&newline;", '\n'),
        ("&nbsp;", '\u{a0}'),
        ("&sol;", '/'),
        ("&lpar;", '('),
        ("&rpar;", ')'),
        ("&period;", '.'),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let b = rest.as_bytes();
        if b.get(1) == Some(&b'#') {
            let hex = matches!(b.get(2), Some(b'x' | b'X'));
            let from = if hex { 3 } else { 2 };
            let digits = rest[from..]
                .bytes()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            if digits > 0 {
                let n = u32::from_str_radix(&rest[from..from + digits], if hex { 16 } else { 10 });
                out.push(n.ok().and_then(char::from_u32).unwrap_or('\u{fffd}'));
                let mut len = from + digits;
                if b.get(len) == Some(&b';') {
                    len += 1;
                }
                rest = &rest[len..];
                continue;
            }
        }
        let mut e = rest.len().min(12);
        while !rest.is_char_boundary(e) {
            e -= 1;
        }
        let lower = rest[..e].to_ascii_lowercase();
        match NAMED.iter().find(|(n, _)| lower.starts_with(n)) {
            Some((n, c)) => {
                out.push(*c);
                rest = &rest[n.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Why a URL attribute value is dangerous, if it is.
pub(crate) fn url_problem(value: &str) -> Option<String> {
    let cleaned: String = decode_entities(value)
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    for bad in ["javascript:", "vbscript:", "data:"] {
        if cleaned.contains(bad) {
            return Some(format!("{bad} in {value:?}"));
        }
    }
    if let Some(i) = cleaned.find([':', '/', '?', '#']) {
        if cleaned.as_bytes()[i] == b':' {
            let scheme = &cleaned[..i];
            if !matches!(scheme, "http" | "https" | "mailto") {
                return Some(format!("scheme {scheme:?} in {value:?}"));
            }
        }
    }
    None
}

/// The text a reader sees: tags removed, character references decoded.
pub(crate) fn visible_text(html: &str, tags: &[Tag]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for t in tags {
        out.push_str(&decode_entities(&html[at..t.start]));
        out.push(' ');
        at = t.end;
    }
    out.push_str(&decode_entities(&html[at..]));
    out
}

/// Elements a generated page may contain: the templates' and what
/// pulldown-cmark makes of Markdown (images become links).
pub(crate) const PAGE_TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "link",
    "script",
    "body",
    "header",
    "nav",
    "main",
    "footer",
    "section",
    "article",
    "aside",
    "div",
    "span",
    "p",
    "a",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "form",
    "label",
    "input",
    "details",
    "summary",
    "time",
    "code",
    "pre",
    "em",
    "strong",
    "del",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "mark",
    // The usage page's charts (an <svg class="chart"> only: see tag_problems),
    // the heatmap's month and weekday names drawn as text.
    "figure",
    "figcaption",
    "svg",
    "rect",
    "text",
];

/// Elements Markdown from content may produce.
pub(crate) const MARKDOWN_TAGS: &[&str] = &[
    "p",
    "a",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "code",
    "pre",
    "em",
    "strong",
    "del",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "input",
    // Code coloured at build time: only `class="hl-…"` (checked where used).
    "span",
];

/// Attributes a generated page may carry (plus `aria-*`).
pub(crate) const PAGE_ATTRS: &[&str] = &[
    "scope",
    "viewbox",
    "preserveaspectratio",
    "text-anchor",
    "x",
    "y",
    "width",
    "height",
    "action",
    "autocomplete",
    "charset",
    "class",
    "content",
    "data-first",
    "defer",
    "disabled",
    "checked",
    "for",
    "href",
    "http-equiv",
    "id",
    "lang",
    "name",
    "placeholder",
    "rel",
    "role",
    "spellcheck",
    "src",
    "title",
    "type",
    "start",
    "style",
    "datetime",
    "hidden",
    "open",
];

/// Elements that must never appear, named for clearer failures.
pub(crate) const FORBIDDEN_TAGS: &[&str] = &[
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "svg",
    "math",
    "base",
    "style",
    "template",
    "noscript",
    "textarea",
    "button",
    "img",
    "video",
    "audio",
    "source",
    "animate",
    "set",
    "mglyph",
    "mtext",
    "foreignobject",
    "portal",
    "xmp",
    "plaintext",
    "noembed",
    "marquee",
    "isindex",
    "body-onload",
];

/// Attributes whose value is loaded or navigated to.
pub(crate) const URL_ATTRS: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "xlink:href",
    "cite",
    "srcset",
    "ping",
    "codebase",
    "longdesc",
    "manifest",
    "lowsrc",
    "dynsrc",
];

/// Problems common to any markup: event handlers, styles, URL schemes, and
/// elements outside `allowed_tags`.
pub(crate) fn tag_problems(t: &Tag, allowed_tags: &[&str], allowed_attrs: &[&str]) -> Vec<String> {
    let mut p = Vec::new();
    // The usage page's charts: an <svg class="chart"> of rectangles drawn
    // at build time (never from data; any handler on it is still caught).
    let chart = t.name == "svg"
        && t.attrs
            .iter()
            .any(|(n, v)| n == "class" && v.as_deref() == Some("chart"));
    if FORBIDDEN_TAGS.contains(&t.name.as_str()) && !chart {
        p.push(format!("forbidden element <{}>", t.name));
    } else if !allowed_tags.contains(&t.name.as_str()) && !chart {
        p.push(format!("unexpected element <{}>", t.name));
    }
    for (name, value) in &t.attrs {
        if name.starts_with("on") {
            p.push(format!("event handler {name}= on <{}>", t.name));
        } else if !allowed_attrs.contains(&name.as_str()) && !name.starts_with("aria-") {
            p.push(format!("unexpected attribute {name} on <{}>", t.name));
        }
        if name == "style" {
            let v = value.as_deref().unwrap_or("");
            let fine = ["left", "center", "right"]
                .iter()
                .any(|a| v.trim().trim_end_matches(';') == format!("text-align: {a}"));
            if !fine {
                p.push(format!("style={v:?} on <{}>", t.name));
            }
        }
        if URL_ATTRS.contains(&name.as_str()) {
            if let Some(why) = url_problem(value.as_deref().unwrap_or("")) {
                p.push(format!("{name} on <{}>: {why}", t.name));
            }
        }
    }
    p
}

/// Everything wrong with one generated page.
pub(crate) fn page_problems(rel: &str, html: &str) -> (Vec<String>, Vec<Tag>) {
    let root = root_of(rel);
    let (tags, mut problems) = scan(html);
    let mut scripts = 0;
    let mut forms = 0;
    let mut csp = 0;
    for (k, t) in tags.iter().enumerate() {
        if t.closing {
            if !PAGE_TAGS.contains(&t.name.as_str()) {
                problems.push(format!(
                    "closing tag of an unexpected element </{}>",
                    t.name
                ));
            }
            continue;
        }
        problems.extend(tag_problems(t, PAGE_TAGS, PAGE_ATTRS));
        match t.name.as_str() {
            "script" => {
                scripts += 1;
                let src = format!("{root}static/search.js");
                // Its one optional attribute names the search shard to load
                // first: a slug, never anything from the data verbatim.
                let first_ok = match t.attr("data-first") {
                    None => t.attrs.len() == 2,
                    Some(v) => {
                        t.attrs.len() == 3
                            && v.starts_with("sessions-")
                            && v.bytes()
                                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    }
                };
                let own = t.attr("src") == Some(src.as_str()) && t.has("defer") && first_ok;
                let next = tags.get(k + 1);
                let empty =
                    next.is_some_and(|n| n.closing && n.name == "script" && n.start == t.end);
                if !own || !empty {
                    problems.push(format!(
                        "a script that is not the site's: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "form" => {
                forms += 1;
                let action = format!("{root}index.html");
                let own =
                    t.attr("class") == Some("search") && t.attr("action") == Some(action.as_str());
                if !own {
                    problems.push(format!(
                        "a form that is not the site's: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "link" => {
                let href = format!("{root}static/style.css");
                let own = t.attr("rel") == Some("stylesheet")
                    && t.attr("href") == Some(href.as_str())
                    && t.attrs.len() == 2;
                if !own {
                    problems.push(format!(
                        "a link that is not the site's stylesheet: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "meta" => {
                let equiv = t.attr("http-equiv").map(|v| v.to_ascii_lowercase());
                match equiv.as_deref() {
                    Some("content-security-policy") => {
                        csp += 1;
                        let c = t.attr("content").unwrap_or("");
                        if !c.contains("default-src 'none'")
                            || !c.contains("script-src 'self'")
                            || c.contains("unsafe-")
                        {
                            problems.push(format!("weak Content-Security-Policy {c:?}"));
                        }
                    }
                    Some(other) => problems.push(format!("<meta http-equiv={other:?}>")),
                    None => {
                        let fine = t.has("charset")
                            || matches!(
                                t.attr("name"),
                                Some("viewport" | "referrer" | "generator")
                            );
                        if !fine {
                            problems.push(format!("unexpected meta: {:?}", &html[t.start..t.end]));
                        }
                    }
                }
            }
            "input" => {
                let fine = match t.attr("type") {
                    Some("search") => t.attr("id") == Some("search-input"),
                    Some("checkbox") => t.has("disabled"),
                    _ => false,
                };
                if !fine {
                    problems.push(format!("unexpected input: {:?}", &html[t.start..t.end]));
                }
            }
            "title" => {
                // Raw text element: nothing but text until </title>.
                let next = tags.get(k + 1);
                if !next.is_some_and(|n| n.closing && n.name == "title") {
                    problems.push("markup inside <title>".to_string());
                }
            }
            _ => {}
        }
    }
    if scripts != 1 {
        problems.push(format!(
            "{scripts} script elements, expected only the site's search.js"
        ));
    }
    if forms != 1 {
        problems.push(format!(
            "{forms} forms, expected only the site's search form"
        ));
    }
    if csp != 1 {
        problems.push(format!(
            "{csp} Content-Security-Policy meta tags, expected 1"
        ));
    }
    let lower = html.to_ascii_lowercase();
    if !lower.starts_with("<!doctype html>") {
        problems.push("no <!doctype html>".to_string());
    }
    (
        problems
            .into_iter()
            .map(|p| format!("{rel}: {p}"))
            .collect(),
        tags,
    )
}

/// Everything wrong with one search index file: it must be a single call
/// with a JSON argument, so payloads in it are data, never code.
pub(crate) fn shard_problems(rel: &str, js: &str, all: &BTreeSet<String>) -> Vec<String> {
    // The index opens with the ranking spec: one call, a JSON object.
    let js = match js.strip_prefix("ccwikiSearch.spec(") {
        Some(rest) => {
            let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
            let spec = line.strip_suffix(");").unwrap_or("");
            match serde_json::from_str::<serde_json::Value>(spec) {
                Ok(v) if v.is_object() => after,
                _ => return vec![format!("{rel}: spec() of something other than an object")],
            }
        }
        None => js,
    };
    let re = regex::Regex::new(r"^ccwikiSearch\.(add|shards)\(([\s\S]*)\);\n?$").unwrap();
    let Some(c) = re.captures(js) else {
        let head: String = js.chars().take(120).collect();
        return vec![format!("{rel}: not a single ccwikiSearch call: {head:?}")];
    };
    let json: serde_json::Value = match serde_json::from_str(&c[2]) {
        Ok(v) => v,
        Err(e) => return vec![format!("{rel}: the argument is not JSON: {e}")],
    };
    let mut p = Vec::new();
    match (&c[1], json.as_array()) {
        ("add", Some(docs)) => {
            if !docs.iter().all(|d| d.is_object()) {
                p.push(format!("{rel}: add() of something other than objects"));
            }
            for d in docs {
                let url = d["u"].as_str().unwrap_or("");
                if !all.contains(url) {
                    p.push(format!(
                        "{rel}: a document links {url:?}, which is no page of the site"
                    ));
                }
            }
        }
        ("shards", Some(names)) => {
            for n in names {
                let name = n.as_str().unwrap_or("");
                let fine = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
                if !fine || !all.contains(&format!("search/{name}.js")) {
                    p.push(format!("{rel}: shard name {n} is odd or missing"));
                }
            }
        }
        _ => p.push(format!("{rel}: the argument is not an array")),
    }
    p
}
