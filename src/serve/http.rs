//! The server: the site's files as they are, HTML pages with the reload
//! hook added, an event stream that says when to reload.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use tokio::sync::broadcast;
use tower::ServiceExt;
use tower_http::services::ServeDir;

/// Where the hook and its events live; no page of a site is there.
const HOOK: &str = "/__ccwiki/live.js";
const EVENTS: &str = "/__ccwiki/events";
/// How many pages listen for rebuilds, as JSON (for tests and the curious).
const STATUS: &str = "/__ccwiki/status";
const LIVE_JS: &str = include_str!("live.js");

/// What every request needs.
#[derive(Clone)]
struct Site {
    root: PathBuf,
    /// Says "reload" (with the build's number) after each rebuild.
    reload: broadcast::Sender<u64>,
}

/// The routes: the hook, its events, and the site.
pub fn router(root: PathBuf, reload: broadcast::Sender<u64>) -> Router {
    Router::new()
        .route(HOOK, get(hook))
        .route(EVENTS, get(events))
        .route(STATUS, get(status))
        .fallback(file)
        .with_state(Site { root, reload })
}

async fn hook() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        LIVE_JS,
    )
        .into_response()
}

async fn status(State(site): State<Site>) -> Response {
    let listening = site.reload.receiver_count();
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("{{\"listening\":{listening}}}\n"),
    )
        .into_response()
}

/// One `reload` event after each rebuild, for as long as the page is open.
async fn events(
    State(site): State<Site>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let stream = futures_util::stream::unfold(site.reload.subscribe(), |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(build) => {
                    let event = Event::default().event("reload").data(build.to_string());
                    return Some((Ok(event), rx));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// The site path a request names: percent-decoded, every part a plain
/// name. None for `..`, `.`, backslashes, NUL or a drive prefix: nothing
/// outside the site is ever reached.
pub fn site_path(uri_path: &str) -> Option<PathBuf> {
    let decoded = crate::base::text::percent_decode(uri_path)?;
    let mut path = PathBuf::new();
    for part in decoded.split('/').filter(|p| !p.is_empty()) {
        if part == "." || part == ".." || part.contains(['\\', '\0', ':']) {
            return None;
        }
        let mut components = Path::new(part).components();
        match (components.next(), components.next()) {
            (Some(Component::Normal(_)), None) => path.push(part),
            _ => return None,
        }
    }
    Some(path)
}

/// A file of the site: HTML pages with the hook, directories as their
/// `index.html` (after a redirect to the address with a slash, which
/// relative links need), everything else as it is, with ranges.
async fn file(State(site): State<Site>, request: Request) -> Response {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let uri_path = request.uri().path().to_string();
    let Some(rel) = site_path(&uri_path) else {
        return (StatusCode::BAD_REQUEST, "bad path\n").into_response();
    };
    let path = site.root.join(&rel);
    if path.is_dir() {
        if !uri_path.ends_with('/') {
            let to = format!("{uri_path}/");
            return (StatusCode::PERMANENT_REDIRECT, [(header::LOCATION, to)]).into_response();
        }
        return page(&site.root, &path.join("index.html")).await;
    }
    if path.extension().is_some_and(|e| e == "html") {
        return page(&site.root, &path).await;
    }
    match ServeDir::new(&site.root).oneshot(request).await {
        Ok(r) if r.status() == StatusCode::NOT_FOUND => not_found(&site.root).await,
        Ok(r) => r.map(Body::new),
        Err(never) => match never {},
    }
}

/// An HTML page with the reload hook, or the site's 404 page when there
/// is no such page.
async fn page(root: &Path, path: &Path) -> Response {
    match tokio::fs::read_to_string(path).await {
        Ok(html) => html_response(StatusCode::OK, &html),
        Err(_) => not_found(root).await,
    }
}

/// The site's 404 page (with the hook), with status 404.
async fn not_found(root: &Path) -> Response {
    match tokio::fs::read_to_string(root.join("404.html")).await {
        Ok(html) => html_response(StatusCode::NOT_FOUND, &html),
        Err(_) => (StatusCode::NOT_FOUND, "not found\n").into_response(),
    }
}

fn html_response(status: StatusCode, html: &str) -> Response {
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        with_hook(html),
    )
        .into_response()
}

/// `html` with the reload script before `</body>`, and the page's
/// Content-Security-Policy (if it allows no connections) allowing the
/// event stream from this server.
pub fn with_hook(html: &str) -> String {
    let html = html.replacen(
        "default-src 'none';",
        "default-src 'none'; connect-src 'self';",
        1,
    );
    let script = format!("<script src=\"{HOOK}\" defer></script>\n");
    match html.rfind("</body>") {
        Some(at) => {
            let mut out = String::with_capacity(html.len() + script.len());
            out.push_str(&html[..at]);
            out.push_str(&script);
            out.push_str(&html[at..]);
            out
        }
        None => html + &script,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_request_path_leaves_the_site() {
        for bad in [
            "/../etc/passwd",
            "/a/../../etc",
            "/%2e%2e/etc/passwd",
            "/a/%2E%2E/%2e%2E/x",
            "/..%2fetc",
            "/a%5c..%5c..%5cwin.ini",
            "/c:/windows",
            "/a%00b",
            "/%ff",
            "/%2",
        ] {
            assert_eq!(site_path(bad), None, "{bad}");
        }
        assert_eq!(
            site_path("/sessions/a%20b/index.html"),
            Some(PathBuf::from("sessions/a b/index.html"))
        );
        assert_eq!(site_path("/"), Some(PathBuf::new()));
    }

    #[test]
    fn the_hook_goes_before_the_body_ends_and_the_policy_lets_it_connect() {
        let html = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self'\"><body>x</body></html>";
        let out = with_hook(html);
        assert!(out.contains("default-src 'none'; connect-src 'self'; script-src 'self'"));
        assert!(out.ends_with("<script src=\"/__ccwiki/live.js\" defer></script>\n</body></html>"));
    }
}
