//! Phase 6: turn assembled pages into HTML with Tera.
//!
//! The built-in templates are compiled into the binary, so an installed
//! `ccwiki` works anywhere. They are registered under the `ccwiki/` prefix
//! and found through Tera's fallback prefixes: a template named
//! `session.html` resolves to an override first, then to the built-in one,
//! which stays reachable as `ccwiki/session.html` so an override can extend
//! it instead of copying it. Autoescaping is on for every template; the only
//! HTML that reaches a page unescaped is what the `markdown` filter makes,
//! and that escapes any raw HTML in its input.

use crate::assemble::{Page, Site};
use crate::error::Error;
use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Kwargs, State, Tera, TeraResult, Value};

/// Built-in templates: (name, source).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    ("home.html", include_str!("../templates/home.html")),
    ("about.html", include_str!("../templates/about.html")),
    ("project.html", include_str!("../templates/project.html")),
    ("memory.html", include_str!("../templates/memory.html")),
    ("session.html", include_str!("../templates/session.html")),
    ("timeline.html", include_str!("../templates/timeline.html")),
    ("list.html", include_str!("../templates/list.html")),
    (
        "partials/project_cards.html",
        include_str!("../templates/partials/project_cards.html"),
    ),
    (
        "partials/memory_cards.html",
        include_str!("../templates/partials/memory_cards.html"),
    ),
    (
        "partials/session_rows.html",
        include_str!("../templates/partials/session_rows.html"),
    ),
    (
        "partials/turns.html",
        include_str!("../templates/partials/turns.html"),
    ),
];

/// Static files of the default theme: (path under the site root, bytes).
pub const DEFAULT_STATIC: &[(&str, &[u8])] = &[(
    "static/style.css",
    include_bytes!("../themes/default/static/style.css"),
)];

/// The script that runs search in the browser (the same rules as [`crate::search`]).
pub const SEARCH_JS: &[u8] = include_bytes!("search/search.js");

/// Largest search index shard, in bytes, before it is split.
pub const SHARD_BYTES: usize = 1 << 20;

/// The prefix under which built-in templates stay reachable.
pub const BUILTIN_PREFIX: &str = "ccwiki/";

#[derive(Serialize)]
struct NavItem {
    title: &'static str,
    href: &'static str,
    section: &'static str,
}

const NAV: &[NavItem] = &[
    NavItem {
        title: "Home",
        href: "index.html",
        section: "home",
    },
    NavItem {
        title: "About you",
        href: "about/index.html",
        section: "about",
    },
    NavItem {
        title: "Projects",
        href: "projects/index.html",
        section: "projects",
    },
    NavItem {
        title: "Skills",
        href: "skills/index.html",
        section: "skills",
    },
    NavItem {
        title: "References",
        href: "references/index.html",
        section: "references",
    },
    NavItem {
        title: "Sessions",
        href: "sessions/index.html",
        section: "sessions",
    },
    NavItem {
        title: "Timeline",
        href: "timeline/index.html",
        section: "timeline",
    },
];

#[derive(Serialize)]
struct SiteInfo<'a> {
    title: &'a str,
}

#[derive(Serialize)]
struct PageInfo<'a> {
    title: &'a str,
    section: &'a str,
    path: &'a str,
}

/// A configured Tera instance, ready to render pages.
pub struct Renderer {
    tera: Tera,
}

impl Renderer {
    /// Load the built-in templates.
    pub fn new(site_title: &str) -> Result<Renderer, Error> {
        let mut tera = Tera::new();
        tera.autoescape_on([".html", ".htm", ".xml"]);
        tera.set_fallback_prefixes([BUILTIN_PREFIX])
            .map_err(|e| Error::Template(describe(&e)))?;
        tera.register_filter("markdown", markdown_filter);
        tera.add_raw_templates(
            BUILTIN_TEMPLATES
                .iter()
                .map(|(name, src)| (format!("{BUILTIN_PREFIX}{name}"), *src)),
        )
        .map_err(|e| Error::Template(describe(&e)))?;
        tera.global_context().insert("nav", NAV);
        tera.global_context()
            .insert("site", &SiteInfo { title: site_title });
        Ok(Renderer { tera })
    }

    /// Render one page to HTML.
    pub fn page(&self, page: &Page<'_>) -> Result<String, Error> {
        let mut ctx = Context::from_serialize(&page.view)
            .map_err(|e| Error::Template(format!("{}: {}", page.path, describe(&e))))?;
        ctx.insert("root", &page.root());
        ctx.insert(
            "page",
            &PageInfo {
                title: &page.title,
                section: page.section,
                path: &page.path,
            },
        );
        self.tera
            .render(page.template, &ctx)
            .map_err(|e| Error::Template(format!("rendering {}: {}", page.path, describe(&e))))
    }
}

/// Render every page, in parallel. Returns (path, bytes) in page order.
pub fn render(site: &Site<'_>, r: &Renderer) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut files: Vec<(String, Vec<u8>)> = site
        .pages
        .par_iter()
        .map(|p| r.page(p).map(|html| (p.path.clone(), html.into_bytes())))
        .collect::<Result<_, _>>()?;
    files.extend(
        DEFAULT_STATIC
            .iter()
            .map(|(path, bytes)| (path.to_string(), bytes.to_vec())),
    );
    files.push(("static/search.js".to_string(), SEARCH_JS.to_vec()));
    files.extend(crate::search::index_files(&site.search_docs, SHARD_BYTES));
    Ok(files)
}

/// `{{ text | markdown(root=root) }}`: safe HTML from untrusted Markdown.
fn markdown_filter(text: &str, kwargs: Kwargs, _: &State) -> TeraResult<Value> {
    let root: &str = kwargs.get("root")?.unwrap_or("");
    Ok(Value::safe_string(&crate::markdown::render(text, root)))
}

/// An error with its whole chain of causes on one line.
fn describe(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let c = cause.to_string();
        if !s.contains(&c) {
            s.push_str(": ");
            s.push_str(&c);
        }
        source = cause.source();
    }
    s
}
