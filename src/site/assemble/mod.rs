//! Phase 5: decide the wiki's pages, their paths, and the links between them.
//!
//! A project is identified by the `cwd` its records carry, never by its
//! folder name (which is lossy). Every page gets a path relative to the site
//! root (`projects/tide-api/index.html`); templates prefix links with the
//! page's `root` (`../../`), so the site works from `file://` and under any
//! sub-path. Internal links inside Markdown are written `@/path` and resolved
//! by the `markdown` filter at render time.
//!
//! The link table (`links::Links`) decides every path and cross-reference once; each page
//! kind (home, projects, memories, sessions, timeline) is a module that
//! reads it and returns its pages.

mod diff;
mod files;
mod format;
mod home;
mod layouts;
mod links;
mod memories;
mod paging;
mod projects;
mod sessions;
mod setup;
mod shared_diffs;
mod timeline;
mod usage;
pub mod views;

use crate::base::skip::Skip;
use crate::knowledge::model::Knowledge;
use serde::Serialize;
use views::*;

pub use files::{FilePage, LoadedFile};
pub use format::duration;
pub use layouts::Layouts;
pub use links::project_key;
pub use memories::split_skill;
pub use paging::{session_anchor, session_page_href, PageSpan, Paging, PAGE_CHARS};
pub use sessions::{LaidSession, LoadedPage, SessionPage, SessionPages};

/// What a page shows; serialised as the template's context. The views of
/// pages that are not a session's or a file's are boxed: a page is as large
/// as its largest view, and sessions' pages are the many.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum View<'m> {
    Home(Box<HomeView<'m>>),
    About(Box<AboutView<'m>>),
    Project(Box<ProjectView<'m>>),
    Memory(Box<MemoryView<'m>>),
    /// Rendered from [`SessionPage::load`], never serialised as it is.
    #[serde(skip_serializing)]
    Session(SessionPage<'m>),
    /// Rendered from [`FilePage::load`], never serialised as it is.
    #[serde(skip_serializing)]
    File(FilePage<'m>),
    Timeline(Box<TimelineView<'m>>),
    List(Box<ListView<'m>>),
    /// The page a server shows for an address with nothing at it.
    NotFound(NotFoundView),
    Usage(Box<views::UsageView>),
    Setup(Box<views::SetupView<'m>>),
    SetupDoc(Box<views::SetupDocView<'m>>),
}

/// One page of the site.
#[derive(Debug)]
pub struct Page<'m> {
    /// Path relative to the site root, e.g. `projects/tide-api/index.html`.
    pub path: String,
    /// The template that renders it.
    pub template: &'static str,
    pub title: String,
    /// The navigation section it belongs to.
    pub section: &'static str,
    pub view: View<'m>,
}

impl Page<'_> {
    /// The project this page is about, if any.
    pub fn project(&self) -> Option<&str> {
        match &self.view {
            View::Project(p) => Some(&p.name),
            View::Session(s) => s.project.as_ref().map(|l| &*l.title),
            _ => None,
        }
    }

    /// The prefix that leads from this page back to the site root (`../../`).
    pub fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }
}

/// The assembled site: pages, and what assembly found worth reporting.
#[derive(Debug)]
pub struct Site<'m> {
    /// Every page but the sessions' pages.
    pub pages: Vec<Page<'m>>,
    /// The sessions' pages, apart, made as they are rendered.
    pub session_pages: SessionPages<'m>,
    /// What the search index holds: one document per memory and session page.
    pub search_docs: crate::site::search::SearchDocs<'m>,
    pub skips: Vec<Skip>,
    pub projects: usize,
    pub sessions: usize,
    pub empty_sessions: usize,
}

impl<'m> Site<'m> {
    /// How many pages the site has.
    pub fn page_count(&self) -> usize {
        self.pages.len() + self.session_pages.count()
    }
}

/// Assemble the site from the (already redacted) model.
pub fn assemble(model: &Knowledge) -> Result<Site<'_>, crate::Error> {
    assemble_with(model, &Layouts::disabled())
}

/// [`assemble`], with the sessions' layouts of the last build (see
/// [`Layouts`]); this build's are left in `layouts` for the next.
pub fn assemble_with<'m>(
    model: &'m Knowledge,
    layouts: &Layouts,
) -> Result<Site<'m>, crate::Error> {
    let mut skips = Vec::new();
    let l = links::Links::new(model, &mut skips);
    let cards = projects::cards(&l);
    let activity = timeline::activity(&l);
    let setup = setup::Paths::new(&l);
    // The search documents and the sessions' pages beside the other
    // pages: 10,000 memories' documents, then 10,000 memory pages, were
    // made one after the other on one core. Sessions' documents go
    // straight after the others, into room made for them: appended later,
    // a hundred thousand were held twice. The files' pages follow the
    // sessions' (a walk over them, on one thread).
    let (with_sessions, (home, others)) = rayon::join(
        || {
            let mut search_docs = crate::site::search::SearchDocs::new(&model.spill);
            memories::search_docs(&l, &mut search_docs);
            projects::history_docs(&l, &mut search_docs);
            let (session_pages, changes) = sessions::pages(&l, &setup, layouts, &mut search_docs)?;
            Ok::<_, crate::Error>((session_pages, files::pages(&l, changes), search_docs))
        },
        || {
            let home = home::pages(&l, &cards, &activity);
            let mut others = memories::pages(&l);
            others.extend(sessions::list(&l));
            others.push(usage::page(&l));
            others.extend(setup::pages(&l, &setup));
            (home, others)
        },
    );
    let (mut session_pages, (file_pages, file_lists, diffs), search_docs) = with_sessions?;
    session_pages.share(diffs);
    let (projects, timeline) = rayon::join(
        || projects::pages(&l, &cards, file_lists),
        || timeline::pages(&l),
    );
    let mut pages = home;
    pages.extend(projects);
    pages.extend(others);
    pages.extend(file_pages);
    pages.extend(timeline);
    Ok(Site {
        pages,
        session_pages,
        search_docs,
        skips,
        projects: l.projects.len(),
        sessions: l.sessions.len(),
        empty_sessions: l.empty_sessions,
    })
}
