//! `ccwiki search`: rank the wiki's pages for a query in the terminal.

use serde::Serialize;

/// `link` (`#p3`, or `2/index.html#p120`) resolved against page `url`.
fn resolve(url: &str, link: &str) -> String {
    if link.starts_with('#') {
        return format!("{url}{link}");
    }
    let dir = url.rfind('/').map_or("", |i| &url[..=i]);
    format!("{dir}{link}")
}

/// One result of [`search_sources`], owned, ready to print or serialise.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub rank: usize,
    pub title: String,
    /// `knowledge` or `session`.
    pub kind: &'static str,
    pub project: Option<String>,
    pub date: Option<String>,
    /// Page path relative to the site root, with the anchor of the match.
    pub url: String,
    pub score: f64,
    pub snippet: String,
}

/// `ccwiki search`: load the data as `build` does (same pipeline: config,
/// exclusion, privacy, redaction), nothing written, rank
/// every memory and session for `query`, keep those of `project` (a name or
/// part of a path, case-insensitive) if given.
pub fn search_sources(
    pipeline: &crate::knowledge::pipeline::Pipeline,
    query: &str,
    project: Option<&str>,
    limit: usize,
) -> Result<Vec<Found>, crate::Error> {
    let (model, _) = pipeline.load()?;
    let site = crate::site::assemble::assemble(&model)?;
    let wanted = project.map(str::to_lowercase);
    let docs: Vec<crate::site::search::Doc> = site
        .search_docs
        .docs()?
        .into_iter()
        .filter(|d| match (&wanted, &d.project) {
            (None, _) => true,
            (Some(w), Some(p)) => p.to_lowercase().contains(w.as_str()),
            (Some(_), None) => false,
        })
        .collect();
    Ok(crate::site::search::search(&docs, query, limit)
        .into_iter()
        .enumerate()
        .map(|(i, h)| Found {
            rank: i + 1,
            title: h.doc.title.clone(),
            kind: match h.doc.kind {
                crate::site::search::DocKind::Knowledge => "knowledge",
                crate::site::search::DocKind::Session => "session",
            },
            project: h.doc.project.clone(),
            date: h.doc.date.clone(),
            url: match &h.anchor {
                Some(a) => resolve(&h.doc.url, a),
                None => h.doc.url.clone(),
            },
            score: h.score,
            snippet: h.snippet,
        })
        .collect())
}
