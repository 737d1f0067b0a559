//! What a reader sees, checked in headless Chromium: the search box answers
//! from `file://` with the same ranking as `ccwiki search`; every bundled
//! theme renders without console errors or horizontal overflow, at desktop
//! and phone widths, light and dark (screenshots in target/screenshots/).
//!
//! Needs Chromium (`apt-get install chromium`); `.ci/run` installs it. Set
//! `CCWIKI_CHROMIUM` to use another binary.

mod common;

use common::{dump_dom, dump_dom_with, probe, probed_copy, screenshot, View, DESKTOP};
use std::path::{Path, PathBuf};

fn demo_site() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    ccwiki::build(&common::options(vec![demo], out.clone())).expect("demo builds");
    (tmp, out)
}

/// Result links shown by the page's search panel, relative to the site.
fn page_results(site: &Path, page: &str, query: &str) -> Vec<String> {
    let base = format!("file://{}/", site.display());
    let url = format!("{base}{page}?q={}", query.replace(' ', "%20"));
    let dom = dump_dom(&url, DESKTOP);
    let panel = dom
        .split("class=\"search-results\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no results panel for {query:?}"));
    panel
        .split("class=\"result-title\" href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap_or("").replace("&amp;", "&"))
        .map(|href| href.strip_prefix(&base).unwrap_or(&href).to_string())
        .collect()
}

#[test]
fn search_answers_from_file_urls_like_the_cli() {
    if !common::has_chromium() {
        return;
    }
    let (_tmp, site) = demo_site();
    for (query, top) in common::search_cases() {
        let query = query.as_str();
        let page = page_results(&site, "sessions/index.html", query);
        let cli = common::cli_search(query);
        assert!(
            page.len() >= top.len() && page[..top.len()] == top[..],
            "the page ranks {query:?} as {page:?}, the case table says {top:?} first"
        );
        let n = page.len().min(cli.len()).min(5);
        assert_eq!(&page[..n], &cli[..n], "top results differ for {query:?}");
        assert!(
            page.len() == cli.len() || page.len() == 20,
            "{query:?}: page {} vs cli {}",
            page.len(),
            cli.len()
        );
    }
    // From a page two levels down, links still resolve inside the site.
    let deep = page_results(&site, "projects/tide-api/index.html", "clippy");
    assert!(
        deep.iter()
            .all(|u| !u.starts_with("file:") && !u.contains("..")),
        "{deep:?}"
    );
    // A word only in a branch name matches nothing (seed 003's "log rotation").
    let dom = dump_dom(
        &format!("file://{}/index.html?q=rotation", site.display()),
        DESKTOP,
    );
    assert!(dom.contains("No results."), "branch names are not searched");
}

#[test]
fn bundled_themes_render_cleanly_everywhere() {
    if !common::has_chromium() {
        return;
    }
    let shots = common::repo().join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let pages = [
        ("home", "index.html"),
        ("project", "projects/tide-api/index.html"),
        ("skill", "skills/clippy-gate.html"),
        ("session", "sessions/a8e4f019/index.html"),
        ("usage", "usage/index.html"),
        ("file", "projects/tide-api/files/src-rate-limit-rs.html"),
        ("setup", "setup/index.html"),
        ("code", "sessions/c71f3d92/index.html"),
    ];
    let views = [
        ("desktop", DESKTOP),
        (
            "desktop-dark",
            View {
                width: 1280,
                height: 900,
                dark: true,
            },
        ),
        (
            "phone",
            View {
                width: 390,
                height: 844,
                dark: false,
            },
        ),
        (
            "phone-dark",
            View {
                width: 390,
                height: 844,
                dark: true,
            },
        ),
    ];
    let mut problems = Vec::new();
    for theme in ["default", "docs"] {
        let tmp = tempfile::tempdir().unwrap();
        let site = tmp.path().join("site");
        common::build_demo(&site, theme);
        let probed = probed_copy(&site);
        let jobs: Vec<_> = pages
            .iter()
            .flat_map(|p| views.iter().map(move |v| (p, v)))
            .collect();
        for chunk in jobs.chunks(4) {
            let handles: Vec<_> = chunk
                .iter()
                .map(|((pname, path), (vname, view))| {
                    let url = format!("file://{}/{path}", probed.path().display());
                    let plain = format!("file://{}/{path}", site.display());
                    let png = shots.join(format!("{theme}-{pname}-{vname}.png"));
                    let (view, label) = (*view, format!("{theme} {pname} {vname}"));
                    std::thread::spawn(move || {
                        let dom = dump_dom(&url, view);
                        screenshot(&plain, view, &png);
                        let mut found = Vec::new();
                        if probe(&dom, "done").is_none() {
                            found.push(format!("{label}: page did not finish loading"));
                        }
                        for key in ["console", "error", "csp", "dialog"] {
                            if let Some(v) = probe(&dom, key) {
                                found.push(format!("{label}: {key}: {v}"));
                            }
                        }
                        if let Some(v) = probe(&dom, "overflow").filter(|v| !v.is_empty()) {
                            found.push(format!("{label}: horizontal overflow: {v}"));
                        }
                        found
                    })
                })
                .collect();
            for h in handles {
                problems.extend(h.join().expect("browser thread"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A laptop's half screen (1,000 px): the search box gives up width
/// rather than take a line of its own under the menu.
#[test]
fn the_search_box_stays_on_the_menus_line_at_a_thousand_pixels() {
    if !common::has_chromium() {
        return;
    }
    for theme in ["default", "docs"] {
        let tmp = tempfile::tempdir().unwrap();
        let site = tmp.path().join("site");
        common::build_demo(&site, theme);
        let probed = probed_copy(&site);
        let url = format!("file://{}/index.html", probed.path().display());
        let view = |width| View {
            width,
            height: 700,
            dark: false,
        };
        let row = |width| probe(&dump_dom(&url, view(width)), "search-row");
        assert_eq!(
            row(1000).as_deref(),
            Some("the menu's"),
            "{theme} at 1000 px"
        );
        // Narrower, it wraps: the probe does tell the two apart.
        assert_eq!(
            row(700).as_deref(),
            Some("below the menu"),
            "{theme} at 700 px"
        );
    }
}

#[test]
fn the_search_hint_names_the_slash_key_only_where_there_is_a_keyboard() {
    if !common::has_chromium() {
        return;
    }
    let (_tmp, site) = demo_site();
    let url = format!("file://{}/index.html", site.display());
    let placeholder = |pointer: &str| {
        let flags = format!(
            "--blink-settings=primaryHoverType={pointer},availableHoverTypes={pointer},primaryPointerType={p},availablePointerTypes={p}",
            p = if pointer == "2" { "2" } else { "4" }
        );
        let dom = dump_dom_with(&url, DESKTOP, &[&flags]);
        dom.split("placeholder=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_default()
            .to_string()
    };
    // Hover type 2: a mouse; 1: none (a touch screen).
    assert_eq!(placeholder("2"), "Search (press /)");
    assert_eq!(placeholder("1"), "Search");
}
