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

use crate::base::error::Error;
use crate::output::pages::{self, NavItem};
use crate::output::splice::{marker, splice};
use crate::output::theme::Theme;
use crate::output::turns::Written;
use crate::output::write::Stager;
use crate::site::assemble::views::{ChangeView, FileView, SessionView};
use crate::site::assemble::{Page, Site, View};
use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Kwargs, State, Tera, TeraResult, Value};

/// Built-in templates: (name, source).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("home.html", include_str!("../../templates/home.html")),
    ("about.html", include_str!("../../templates/about.html")),
    ("404.html", include_str!("../../templates/404.html")),
    ("project.html", include_str!("../../templates/project.html")),
    ("memory.html", include_str!("../../templates/memory.html")),
    ("session.html", include_str!("../../templates/session.html")),
    (
        "timeline.html",
        include_str!("../../templates/timeline.html"),
    ),
    ("list.html", include_str!("../../templates/list.html")),
    ("usage.html", include_str!("../../templates/usage.html")),
    (
        "partials/diff.html",
        include_str!("../../templates/partials/diff.html"),
    ),
    ("setup.html", include_str!("../../templates/setup.html")),
    ("file.html", include_str!("../../templates/file.html")),
    (
        "setup_doc.html",
        include_str!("../../templates/setup_doc.html"),
    ),
    (
        "partials/usage_cells.html",
        include_str!("../../templates/partials/usage_cells.html"),
    ),
    (
        "partials/project_cards.html",
        include_str!("../../templates/partials/project_cards.html"),
    ),
    (
        "partials/memory_cards.html",
        include_str!("../../templates/partials/memory_cards.html"),
    ),
    (
        "partials/memory_facts.html",
        include_str!("../../templates/partials/memory_facts.html"),
    ),
    (
        "partials/session_rows.html",
        include_str!("../../templates/partials/session_rows.html"),
    ),
    (
        "partials/turns.html",
        include_str!("../../templates/partials/turns.html"),
    ),
    (
        "partials/session_pager.html",
        include_str!("../../templates/partials/session_pager.html"),
    ),
    (
        "partials/timeline_days.html",
        include_str!("../../templates/partials/timeline_days.html"),
    ),
];

/// The script that runs search in the browser (the same rules as [`crate::site::search`]).
pub const SEARCH_JS: &[u8] = include_bytes!("../site/search/search.js");

/// Largest search index shard, in bytes, before it is split.
pub const SHARD_BYTES: usize = 1 << 20;

/// The prefix under which built-in templates stay reachable.
pub const BUILTIN_PREFIX: &str = "ccwiki/";
/// The prefix under which the theme's templates stay reachable.
pub const THEME_PREFIX: &str = "theme/";

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
    NavItem {
        title: "Usage",
        href: "usage/index.html",
        section: "usage",
    },
];

#[derive(Serialize)]
struct SiteInfo<'a> {
    title: &'a str,
    base_path: &'a str,
    theme: &'a str,
    extra: &'a serde_json::Map<String, serde_json::Value>,
}

/// What the renderer needs beyond the pages.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    pub title: String,
    pub base_path: String,
    /// The `extra` table of `ccwiki.toml`, handed to templates as `site.extra`.
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// The wiki repository, whose `templates/` and `static/` override the theme's.
    pub site_dir: Option<std::path::PathBuf>,
}

/// What every template is handed of its page (as `page`, and `root`).
#[derive(Debug, Serialize)]
pub(crate) struct PageInfo<'a> {
    /// The page's path back to the site root (`../../`), handed as `root`.
    #[serde(skip)]
    pub root: String,
    pub title: &'a str,
    pub section: &'a str,
    pub path: &'a str,
    /// The search index shard to load first (this page's project).
    pub search_first: Option<String>,
}

/// A configured Tera instance and the static files to copy.
pub struct Renderer {
    tera: Tera,
    /// Whether session pages get their turns as HTML written by
    /// [`crate::output::turns`] (the templates in use show them as the
    /// built-in ones do) rather than as views for Tera to walk.
    turns_written: bool,
    /// Whether timeline pages get their days as HTML written by
    /// [`crate::output::timeline`] (the templates in use show them as the
    /// built-in ones do) rather than as views for Tera to walk.
    days_written: bool,
    /// Whether file pages get their diffs spliced into what their template
    /// makes (the templates in use show them as the built-in ones do).
    diffs_spliced: bool,
    /// Whether the home, list and project pages get their memory cards as
    /// HTML written by [`crate::output::cards`] (the templates in use show
    /// them as the built-in ones do) rather than as views for Tera to walk.
    cards_written: bool,
    /// Whether session pages are written whole by
    /// [`crate::output::pages`] (the templates in use make them as the
    /// built-in ones do), their turns spliced in.
    sessions_written: bool,
    /// Whether file pages are written whole by [`crate::output::pages`],
    /// their diffs spliced in.
    files_written: bool,
    /// The site's title, for the pages written without a template.
    site_title: String,
    /// Hash of everything besides a page's own context that shapes its HTML.
    fingerprint: u64,
    static_files: Vec<(String, Vec<u8>)>,
    /// Where the templates come from, to name them in an error.
    place: Place,
    /// Where the site is served, ending in `/`: the root of pages served at
    /// any address (the 404 page).
    base_path: String,
}

impl Renderer {
    /// Load templates in layers: the wiki repository's, the theme's, the built-in ones.
    pub fn new(opts: &RenderOptions, theme: &Theme) -> Result<Renderer, Error> {
        use crate::output::{cards, timeline, turns};
        let theme_dir = match &theme.origin {
            crate::output::theme::Origin::Local(d) => d.display().to_string(),
            crate::output::theme::Origin::Bundled => format!("themes/{}", theme.name),
        };
        let (templates, static_files) = layers(opts, theme)?;
        let place = Place {
            site_dir: opts.site_dir.clone(),
            theme_dir,
            drifted: Drifted::of(&templates),
        };
        let tmpl_err = |e: tera::Error| Error::Template(place.one_line(&describe(&e)));
        let mut tera = Tera::new();
        tera.autoescape_on([".html", ".htm", ".xml"]);
        tera.set_fallback_prefixes([THEME_PREFIX, BUILTIN_PREFIX])
            .map_err(tmpl_err)?;
        tera.register_filter("markdown", markdown_filter);
        tera.register_filter("markdown_line", markdown_line_filter);
        tera.register_filter("text", text_filter);
        tera.register_filter("grouped", |n: u64, _: Kwargs, _: &State| {
            crate::base::text::grouped(n)
        });
        tera.add_raw_templates(templates.clone())
            .map_err(tmpl_err)?;
        let as_built_in = |names: &[&str]| {
            crate::output::splice::shows_as_built_in(names, |n| resolve(&templates, n), builtin)
        };
        let turns_written = as_built_in(&turns::STOOD_IN_FOR);
        let diffs_spliced = as_built_in(&DIFFS_SPLICED_IN);
        let days_written = as_built_in(&timeline::DAYS_STOOD_IN_FOR);
        let cards_written = as_built_in(&cards::STOOD_IN_FOR);
        let sessions_written = turns_written && as_built_in(&pages::SESSION_STOOD_IN_FOR);
        let files_written = diffs_spliced && as_built_in(&pages::FILE_STOOD_IN_FOR);
        // Each partial whose lists are written apart prints them instead.
        let printed = [
            (
                cards_written,
                "partials/memory_cards.html",
                cards::PRINT_CARDS,
            ),
            (
                cards_written,
                "partials/memory_facts.html",
                cards::PRINT_FACTS,
            ),
            (
                days_written,
                "partials/timeline_days.html",
                timeline::PRINT_DAYS,
            ),
            (turns_written, "partials/turns.html", turns::PRINT_TURNS),
        ];
        for (_, name, print) in printed.into_iter().filter(|(written, ..)| *written) {
            tera.add_raw_template(name, print).map_err(tmpl_err)?;
        }
        tera.global_context().insert("nav", NAV);
        tera.global_context().insert(
            "site",
            &SiteInfo {
                title: &opts.title,
                base_path: &opts.base_path,
                theme: &theme.name,
                extra: &opts.extra,
            },
        );
        let fingerprint = fingerprint(opts, theme, &templates, &static_files);
        Ok(Renderer {
            tera,
            turns_written,
            days_written,
            diffs_spliced,
            cards_written,
            sessions_written,
            files_written,
            site_title: opts.title.clone(),
            fingerprint,
            static_files,
            place,
            base_path: format!("/{}/", opts.base_path.trim_matches('/')).replace("//", "/"),
        })
    }

    /// What identifies `page` made from the inputs `content` hashes: the
    /// templates, the page's place and title, then its content. 0 when
    /// `content` cannot say (the page is rendered).
    fn page_hash(
        &self,
        page: &Page<'_>,
        content: impl FnOnce(&mut xxhash_rust::xxh3::Xxh3Default) -> bool,
    ) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = xxhash_rust::xxh3::Xxh3Default::new();
        (
            self.fingerprint,
            &page.path,
            page.template,
            &page.title,
            page.section,
        )
            .hash(&mut h);
        if !content(&mut h) {
            return 0;
        }
        h.finish().max(1)
    }

    /// Render `page`, whose context is `view`, to HTML in `out`.
    fn html(&self, page: &Page<'_>, view: &impl Serialize, out: &mut Vec<u8>) -> Result<(), Error> {
        self.html_for(&self.page_info(page), page.template, view, out)
    }

    /// What every template is handed of `page` besides its view.
    fn page_info<'p>(&self, page: &'p Page<'_>) -> PageInfo<'p> {
        // The 404 page is served at whatever address was asked for:
        // relative links would lead nowhere, so its links start at the
        // served root.
        let root = match page.view {
            crate::site::assemble::View::NotFound(_) => self.base_path.clone(),
            _ => page.root(),
        };
        PageInfo {
            root,
            title: &page.title,
            section: page.section,
            path: &page.path,
            search_first: (page.project()).map(|p| crate::site::search::shard_key(Some(p))),
        }
    }

    /// Render `template` for the page `info` tells of, whose context is
    /// `view`, to HTML in `out`.
    pub(crate) fn html_for(
        &self,
        info: &PageInfo<'_>,
        template: &str,
        view: &impl Serialize,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let mut ctx = Context::from_serialize(view)
            .map_err(|e| Error::Template(format!("{}: {}", info.path, describe(&e))))?;
        // `root`, `page`, `site` and `nav` are every template's: a view's
        // field of the same name would hide them or be hidden (a session's
        // page number once was).
        debug_assert!(
            !["root", "page", "site", "nav"]
                .iter()
                .any(|k| ctx.contains_key(k)),
            "{}: the view has a field named like a global (root, page, site, nav)",
            info.path
        );
        ctx.insert("root", &info.root);
        ctx.insert("page", info);
        self.tera.render_to(template, &ctx, out).map_err(|e| {
            let msg = self.place.one_line(&describe(&e));
            Error::Template(format!("{msg} (rendering {})", info.path))
        })
    }

    /// Whether session pages are written without a template.
    #[cfg(test)]
    pub(crate) fn writes_sessions(&self) -> bool {
        self.sessions_written
    }

    /// Whether file pages are written without a template.
    #[cfg(test)]
    pub(crate) fn writes_files(&self) -> bool {
        self.files_written
    }

    /// Append to `out` the page `write` writes without a template, handed
    /// what `base.html` shows of `page`: false, with `out` as it was, when
    /// `write` cannot write it.
    fn write_frame(
        &self,
        page: &Page<'_>,
        out: &mut Vec<u8>,
        write: impl FnOnce(&pages::Frame<'_>, &mut String) -> bool,
    ) -> bool {
        thread_local! {
            // A page's frame is a few kilobytes, made a thousand times.
            static FRAME: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let info = self.page_info(page);
        let frame = self.frame(&info);
        FRAME.with_borrow_mut(|html| {
            html.clear();
            let written = write(&frame, html);
            if written {
                out.extend_from_slice(html.as_bytes());
            }
            written
        })
    }

    /// What `base.html` shows of the page `info` tells of.
    pub(crate) fn frame<'a>(&'a self, info: &'a PageInfo<'_>) -> pages::Frame<'a> {
        pages::Frame {
            site_title: &self.site_title,
            nav: NAV,
            root: &info.root,
            title: info.title,
            section: info.section,
            search_first: info.search_first.as_deref(),
        }
    }

    /// Make `page` with `make` (handed its key) unless the page made from
    /// the same inputs last time, which `content` hashes, can be kept.
    fn keep_or_make(
        &self,
        page: &Page<'_>,
        stager: &Stager,
        content: impl FnOnce(&mut xxhash_rust::xxh3::Xxh3Default) -> bool,
        make: impl FnOnce(u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let input = self.page_hash(page, content);
        if stager.reuse(&page.path, input)? {
            return Ok(());
        }
        make(input)
    }

    /// Render `page` from the view `written` makes of its own, with parts
    /// a template would walk written as HTML, unless the page made from
    /// the same view last time can be kept.
    fn write_apart<V: Serialize>(
        &self,
        page: &Page<'_>,
        stager: &Stager,
        written: impl FnOnce() -> V,
    ) -> Result<(), Error> {
        self.keep_or_make(
            page,
            stager,
            |h| crate::base::fingerprint::hash_into(&page.view, h),
            |input| self.write(page, &written(), stager, input),
        )
    }

    /// Render `page` into `stager`, recorded as made from `input`.
    fn write(
        &self,
        page: &Page<'_>,
        view: &impl Serialize,
        stager: &Stager,
        input: u64,
    ) -> Result<(), Error> {
        PAGE.with_borrow_mut(|html| {
            html.clear();
            self.html(page, view, html)?;
            stager.put(&page.path, html, input)
        })
    }

    /// Render a session page, its turns written apart and spliced into
    /// what its template makes of `view` (or, when they cannot be, handed
    /// to the template as HTML: the same page either way).
    fn write_spliced(
        &self,
        page: &Page<'_>,
        mut view: SessionView<'_>,
        stager: &Stager,
        input: u64,
    ) -> Result<(), Error> {
        thread_local! {
            static TURNS: std::cell::RefCell<Written> = std::cell::RefCell::new(Written::default());
        }
        TURNS.with_borrow_mut(|written| {
            crate::output::turns::write_all(&mut view, &page.root(), written);
            let frame = |html: &mut Vec<u8>| match self.sessions_written {
                true if self.write_frame(page, html, |f, out| pages::session(f, &view, out)) => {
                    Ok(())
                }
                _ => self.html(page, &view, html),
            };
            let spliced = self.put_spliced(page, stager, input, frame, written.count(), |i| {
                written.list(i)
            })?;
            if spliced {
                return Ok(());
            }
            written.unmark(&mut view);
            self.write(page, &view, stager, input)
        })
    }

    /// Make `page` with `frame` (through its templates, or written without
    /// them), its `count` parts made apart standing as markers, and put it
    /// in `stager` with `part(i)` in the place of the `i`th marker: false,
    /// with nothing put, when they could not be.
    fn put_spliced<'p>(
        &self,
        page: &Page<'_>,
        stager: &Stager,
        input: u64,
        frame: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
        count: usize,
        part: impl Fn(usize) -> &'p str,
    ) -> Result<bool, Error> {
        PAGE.with_borrow_mut(|html| {
            html.clear();
            frame(html)?;
            match splice(html, count, part) {
                Some(pieces) => stager.put_parts(&page.path, &pieces, input).map(|()| true),
                None => Ok(false),
            }
        })
    }

    /// Render a file page, its diffs spliced into what its template makes
    /// of `view` (or, when they cannot be, handed to the template: the
    /// same page either way). A file's diffs through Tera (made template
    /// values, then copied out by `safe`) were half its rendering.
    fn write_diffs_spliced(
        &self,
        page: &Page<'_>,
        mut view: FileView<'_>,
        stager: &Stager,
        input: u64,
    ) -> Result<(), Error> {
        // The template prints the diff of each change it does not elide.
        fn shown<'v, 'm>(
            view: &'v mut FileView<'m>,
        ) -> impl Iterator<Item = &'v mut ChangeView<'m>> {
            view.changes.iter_mut().filter(|c| !c.elided)
        }
        let mut diffs = Vec::new();
        for (i, c) in shown(&mut view).enumerate() {
            diffs.push(std::mem::replace(&mut c.diff, marker(i).into()));
        }
        let frame = |html: &mut Vec<u8>| match self.files_written {
            true => {
                self.write_frame(page, html, |f, out| {
                    pages::file(f, &view, out);
                    true
                });
                Ok(())
            }
            false => self.html(page, &view, html),
        };
        let spliced = self.put_spliced(page, stager, input, frame, diffs.len(), |i| &diffs[i])?;
        if spliced {
            return Ok(());
        }
        for (c, diff) in shown(&mut view).zip(diffs) {
            c.diff = diff;
        }
        self.write(page, &view, stager, input)
    }

    /// Render one page into `stager`; a session page's turns are read
    /// back from the spill for the time it takes.
    ///
    /// Those pages, whose making is most of a build's rendering (turns read
    /// back, diffs, colours), are known by what they are made of before
    /// they are made: when that is unchanged, the page is kept as it is.
    pub fn page(&self, page: &Page<'_>, stager: &Stager) -> Result<(), Error> {
        use crate::output::{cards, timeline};
        use crate::site::assemble::View;
        match &page.view {
            View::Session(s) => self.keep_or_make(
                page,
                stager,
                |h| s.input_key(h),
                |input| {
                    let loaded = s.load()?;
                    let view = loaded.view()?;
                    if !self.turns_written {
                        return self.write(page, &view, stager, input);
                    }
                    self.write_spliced(page, view, stager, input)
                },
            ),
            View::File(f) => self.keep_or_make(
                page,
                stager,
                |h| f.input_key(h),
                |input| {
                    let loaded = f.load()?;
                    let view = loaded.view();
                    if !self.diffs_spliced {
                        return self.write(page, &view, stager, input);
                    }
                    self.write_diffs_spliced(page, view, stager, input)
                },
            ),
            View::Timeline(t) if self.days_written => self.write_apart(page, stager, || {
                timeline::with_days_written(t, &page.root())
            }),
            View::Home(v) if self.cards_written => {
                self.write_apart(page, stager, || cards::home(v, &page.root()))
            }
            View::List(v) if self.cards_written => {
                self.write_apart(page, stager, || cards::list(v, &page.root()))
            }
            View::Project(v) if self.cards_written => {
                self.write_apart(page, stager, || cards::project(v, &page.root()))
            }
            view => self.keep_or_make(
                page,
                stager,
                |h| crate::base::fingerprint::hash_into(view, h),
                |input| self.write(page, view, stager, input),
            ),
        }
    }
}

thread_local! {
    // One buffer per thread for a page's HTML (its template's output when
    // parts are spliced in as it is written), reused: pages are rendered
    // by the thousand.
    static PAGE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The templates whose built-in text file pages' diffs are spliced for:
/// the file page, which hands each diff to the diff partial, which prints
/// it.
pub(crate) const DIFFS_SPLICED_IN: [&str; 2] = ["file.html", "partials/diff.html"];

/// The most pages one task of the loops over pages other than sessions'
/// takes. Without a bound, rayon hands a thread a share of the pages to go
/// through alone once it has started: when the other finished its share
/// first, it had nothing to take (ten thousand memory pages kept: the last
/// sixth of the phase on one core). Not for sessions' pages: a hundred
/// thousand one-page sessions in tasks of this size rendered slower.
const TASK_PAGES: usize = 32;

/// Render every page, in parallel, straight into `stager`, with the static
/// files and the search index. Returns the number of files.
pub fn render(site: &Site<'_>, r: &Renderer, stager: &Stager) -> Result<usize, Error> {
    // The index is one long sequential job: it runs beside the pages.
    let (index, pages) = rayon::join(
        || {
            let mut files = 0;
            site.search_docs.write_index(SHARD_BYTES, |path, bytes| {
                files += 1;
                stager.put(path, bytes, 0)
            })?;
            for (path, bytes) in &r.static_files {
                stager.put(path, bytes, 0)?;
            }
            Ok::<_, Error>(files + r.static_files.len())
        },
        || {
            // File pages after the sessions' pages, which keep the diffs
            // file pages show (see `SharedDiffs`); the other pages side by
            // side with the sessions', not before them: waiting for the
            // last of them left a core idle before the sessions began.
            let (files, others): (Vec<&Page<'_>>, Vec<&Page<'_>>) =
                (site.pages.iter()).partition(|p| matches!(p.view, View::File(_)));
            let (pages, sessions) = rayon::join(
                || (others.par_iter().with_max_len(TASK_PAGES)).try_for_each(|p| r.page(p, stager)),
                || render_sessions(site, r, stager),
            );
            pages.and(sessions)?;
            (files.par_iter().with_max_len(TASK_PAGES)).try_for_each(|p| r.page(p, stager))
        },
    );
    pages?;
    Ok(index? + site.page_count())
}

/// About how many tasks the sessions' pages are cut into.
const SESSION_TASKS: usize = 256;

/// The sessions' pages.
fn render_sessions(site: &Site<'_>, r: &Renderer, stager: &Stager) -> Result<(), Error> {
    let sessions = &site.session_pages;
    // Heaviest first, each session a task of its own (up to a few hundred
    // tasks), so that the last sessions left are light ones: in the
    // sessions' own order (newest first), a core waited at the end of the
    // phase while the other finished a large one.
    let mut order: Vec<_> = sessions.sessions().iter().collect();
    order.sort_by_cached_key(|laid| std::cmp::Reverse(laid.weight()));
    let per_task = (order.len() / SESSION_TASKS).max(1);
    order
        .par_iter()
        .with_max_len(per_task)
        .try_for_each(|laid| {
            let pages = sessions.pages_of(laid);
            // A long session's pages on every core too: one session
            // of a gigabyte is hundreds of pages, and was rendered by
            // one thread while the other had nothing left to do. A
            // single page is rendered here: handing it to rayon cost
            // 2-3% of rendering 100,000 one-page sessions.
            if pages.len() > 1 {
                pages.par_iter().try_for_each(|p| r.page(p, stager))
            } else {
                pages.iter().try_for_each(|p| r.page(p, stager))
            }
        })
}

/// `{{ text | markdown(root=root) }}`: safe HTML from untrusted Markdown;
/// `breaks=true` keeps each line break as typed (a session's text).
pub(crate) fn markdown_filter(text: &str, kwargs: Kwargs, _: &State) -> TeraResult<Value> {
    use crate::output::markdown::{render, Breaks};
    let root: &str = kwargs.get("root")?.unwrap_or("");
    let breaks = match kwargs.get("breaks")?.unwrap_or(false) {
        true => Breaks::AsTyped,
        false => Breaks::Reflow,
    };
    Ok(Value::safe_string(&render(text, root, breaks)))
}

/// `{{ text | text }}`: text shown between tags, escaped as body text
/// (quotes kept: see [`crate::base::html::escape_text`]). Not for
/// attribute values, which autoescaping covers.
pub(crate) fn text_filter(text: &str, _: Kwargs, _: &State) -> TeraResult<Value> {
    let mut out = String::with_capacity(text.len() + 16);
    crate::base::html::escape_text(&mut out, text);
    Ok(Value::safe_string(&out))
}

/// `{{ text | markdown_line }}`: one line of untrusted Markdown as safe
/// inline HTML (see [`crate::output::markdown::inline_into`]).
pub(crate) fn markdown_line_filter(text: &str, _: Kwargs, _: &State) -> TeraResult<Value> {
    let mut out = String::with_capacity(text.len() + 16);
    crate::output::markdown::inline_into(text, &mut out);
    Ok(Value::safe_string(&out))
}

/// What identifies the pages a renderer makes beyond their own inputs:
/// this binary, the templates, the static files and the site's settings.
fn fingerprint(
    opts: &RenderOptions,
    theme: &Theme,
    templates: &[(String, String)],
    static_files: &[(String, Vec<u8>)],
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::base::hash::hasher();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    // Pages kept from a build by another binary would keep its diffs and
    // colours.
    crate::base::dirs::this_binary().hash(&mut h);
    templates.hash(&mut h);
    static_files.hash(&mut h);
    (&opts.title, &opts.base_path, &theme.name).hash(&mut h);
    serde_json::to_string(&opts.extra)
        .unwrap_or_default()
        .hash(&mut h);
    h.finish()
}

/// The templates, named by layer (built-in ones under
/// [`BUILTIN_PREFIX`], the theme's under [`THEME_PREFIX`], the wiki
/// repository's under their own names), and the static files, one per
/// path: a later layer's wins.
type Layers = (Vec<(String, String)>, Vec<(String, Vec<u8>)>);

/// The built-in templates, the theme's and the wiki repository's, with
/// their static files.
fn layers(opts: &RenderOptions, theme: &Theme) -> Result<Layers, Error> {
    let mut templates: Vec<(String, String)> = BUILTIN_TEMPLATES
        .iter()
        .map(|(name, src)| (format!("{BUILTIN_PREFIX}{name}"), src.to_string()))
        .collect();
    templates.extend(
        theme
            .templates()
            .into_iter()
            .map(|(n, src)| (format!("{THEME_PREFIX}{n}"), src)),
    );
    let mut static_files = vec![("static/search.js".to_string(), SEARCH_JS.to_vec())];
    static_files.extend(theme.static_files());
    if let Some(dir) = &opts.site_dir {
        let own = dir.join("templates");
        if own.is_dir() {
            for f in crate::output::theme::read_tree(&own)? {
                templates.push((f.path, String::from_utf8_lossy(&f.bytes).into_owned()));
            }
        }
        let own_static = dir.join("static");
        if own_static.is_dir() {
            for f in crate::output::theme::read_tree(&own_static)? {
                static_files.push((format!("static/{}", f.path), f.bytes.into_owned()));
            }
        }
    }
    // Later layers win: keep the last file for each path.
    let mut seen = std::collections::HashSet::new();
    static_files.reverse();
    static_files.retain(|(p, _)| seen.insert(p.clone()));
    static_files.reverse();
    Ok((templates, static_files))
}

/// The text the template `name` resolves to among `templates` (named
/// by layer, as [`layers`] gives them): the wiki repository's, else the
/// theme's, else the built-in one.
fn resolve<'t>(templates: &'t [(String, String)], name: &str) -> Option<&'t str> {
    let named = |full: &str| {
        (templates.iter().rev())
            .find(|(n, _)| n == full)
            .map(|(_, src)| src.as_str())
    };
    named(name)
        .or_else(|| named(&format!("{THEME_PREFIX}{name}")))
        .or_else(|| named(&format!("{BUILTIN_PREFIX}{name}")))
}

/// The built-in template `name`'s text.
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    (BUILTIN_TEMPLATES.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, src)| *src)
}

/// The names of the templates (theme's and wiki repository's) whose
/// text differs from the built-in template of the same name.
struct Drifted(std::collections::HashSet<String>);

impl Drifted {
    /// From the templates as loaded: built-in ones under
    /// [`BUILTIN_PREFIX`], the theme's under [`THEME_PREFIX`], the wiki
    /// repository's under their own names.
    fn of(templates: &[(String, String)]) -> Drifted {
        let builtin: std::collections::HashMap<&str, &str> = templates
            .iter()
            .filter_map(|(n, src)| Some((n.strip_prefix(BUILTIN_PREFIX)?, src.as_str())))
            .collect();
        let drifted = templates
            .iter()
            .filter(|(n, _)| !n.starts_with(BUILTIN_PREFIX))
            .filter_map(|(n, src)| {
                let name = n.strip_prefix(THEME_PREFIX).unwrap_or(n);
                builtin
                    .get(name)
                    .is_some_and(|b| b != src)
                    .then(|| n.clone())
            })
            .collect();
        Drifted(drifted)
    }
}

/// Where templates come from, to name them in an error.
struct Place {
    /// The wiki repository, whose `templates/` come first.
    site_dir: Option<std::path::PathBuf>,
    /// The theme's folder, as the user knows it.
    theme_dir: String,
    /// The theme's and the wiki repository's templates that stand in for
    /// a built-in one of the same name with other text.
    drifted: Drifted,
}

impl Place {
    /// Tera's multi-line report as one line that starts with the
    /// template's file and line: `templates/home.html:1:55: Variable
    /// `nope` is not defined…`. An error in a copy of a built-in template
    /// (an ejected theme's) that differs from it says so: after an
    /// upgrade, the copy may be the built-in one as an older ccwiki had
    /// it.
    fn one_line(&self, report: &str) -> String {
        let location = report
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .map(str::trim);
        let message = report
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("-->") && !l.starts_with('|'))
            .unwrap_or(report)
            .trim_start_matches("error: ")
            .to_string();
        let Some(loc) = location else {
            return message;
        };
        let name = loc.split(':').next().unwrap_or(loc);
        let hint = match self.drifted.0.contains(name) {
            true => {
                let builtin = name.strip_prefix(THEME_PREFIX).unwrap_or(name);
                format!(
                    " (this copy differs from the built-in {builtin}: if you did not edit it, \
                     it is from another version of ccwiki; delete it to use the built-in one, \
                     or eject the theme again and compare)"
                )
            }
            false => String::new(),
        };
        let file = if let Some(rest) = loc.strip_prefix(BUILTIN_PREFIX) {
            format!("built-in template {rest}")
        } else if let Some(rest) = loc.strip_prefix(THEME_PREFIX) {
            format!("{}/templates/{rest}", self.theme_dir)
        } else {
            match &self.site_dir {
                Some(d) => format!("{}/templates/{loc}", d.display()),
                None => loc.to_string(),
            }
        };
        format!("{file}: {message}{hint}")
    }
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
