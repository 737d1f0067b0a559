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
mod links;
mod memories;
mod paging;
mod projects;
mod sessions;
mod setup;
mod timeline;
mod usage;
pub mod views;

use crate::base::skip::Skip;
use crate::knowledge::model::Knowledge;
use serde::Serialize;
use views::*;

pub use files::{FilePage, LoadedFile};
pub use format::duration;
pub use links::project_key;
pub use memories::split_skill;
pub use paging::{
    paginate, session_anchor, session_page_href, turn_anchors, PageSpan, Paging, PAGE_CHARS,
};
pub use sessions::{LoadedPage, SessionPage};

/// What a page shows; serialised as the template's context.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum View<'m> {
    Home(HomeView<'m>),
    About(AboutView<'m>),
    Project(ProjectView<'m>),
    Memory(MemoryView<'m>),
    /// Rendered from [`SessionPage::load`], never serialised as it is.
    #[serde(skip_serializing)]
    Session(SessionPage<'m>),
    /// Rendered from [`FilePage::load`], never serialised as it is.
    #[serde(skip_serializing)]
    File(FilePage<'m>),
    Timeline(TimelineView),
    List(ListView<'m>),
    /// The page a server shows for an address with nothing at it.
    NotFound(NotFoundView),
    Usage(views::UsageView),
    Setup(views::SetupView<'m>),
    SetupDoc(views::SetupDocView<'m>),
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
            View::Session(s) => s.project.as_ref().map(|l| l.title.as_str()),
            _ => None,
        }
    }

    /// The prefix that leads from this page back to the site root (`../../`).
    pub fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }
}

/// The assembled site: pages, and what assembly found worth reporting.
#[derive(Debug, Default)]
pub struct Site<'m> {
    pub pages: Vec<Page<'m>>,
    /// What the search index holds: one document per memory and session page.
    pub search_docs: Vec<crate::site::search::Doc>,
    pub skips: Vec<Skip>,
    pub projects: usize,
    pub sessions: usize,
    pub empty_sessions: usize,
}

/// Assemble the site from the (already redacted) model.
pub fn assemble(model: &Knowledge) -> Result<Site<'_>, crate::Error> {
    let mut skips = Vec::new();
    let l = links::Links::new(model, &mut skips);
    let cards = projects::cards(&l);
    let activity = timeline::activity(&l);
    let setup = setup::Paths::new(&l);
    let (session_pages, session_docs, changes) = sessions::pages(&l, &setup)?;
    let (file_pages, file_lists) = files::pages(&l, changes);
    let mut pages = home::pages(&l, &cards, &activity);
    pages.extend(projects::pages(&l, &cards, file_lists));
    pages.extend(memories::pages(&l));
    pages.extend(sessions::list(&l));
    pages.push(usage::page(&l));
    pages.extend(setup::pages(&l, &setup));
    pages.extend(file_pages);
    let mut search_docs = memories::search_docs(&l);
    search_docs.extend(projects::history_docs(&l));
    let timeline_pages = timeline::pages(&l, &activity);
    // Exactly: with a hundred thousand sessions, doubling would hold tens
    // of megabytes of room never used.
    pages.reserve_exact(session_pages.len() + timeline_pages.len());
    pages.extend(session_pages);
    search_docs.extend(session_docs);
    pages.extend(timeline_pages);
    Ok(Site {
        pages,
        search_docs,
        skips,
        projects: l.projects.len(),
        sessions: l.sessions.len(),
        empty_sessions: l.empty_sessions,
    })
}
