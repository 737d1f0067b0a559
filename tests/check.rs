//! `ccwiki check` and `ccwiki build --check` as a user runs them.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

fn ccwiki(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .args(args)
        .args(paths)
        .env("CCWIKI_CACHE_DIR", common::test_cache().join("check"))
        .env(
            "CCWIKI_ARCHIVE_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
        )
        .output()
        .expect("ccwiki runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn a_fresh_build_passes_and_a_removed_page_is_named_where_it_is_linked() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let out = ccwiki(
        &["build", "--check", "--source"],
        &[&common::demo(), Path::new("--out"), &site],
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let said = stdout(&out);
    assert!(said.contains(": 0 broken"), "{said}");
    // The end of a build says what to open, and how to serve it.
    assert!(
        said.contains(&format!(
            "Open {} in a browser",
            site.join("index.html").display()
        )) && said.contains(&format!(
            "ccwiki serve --source {}",
            common::demo().display()
        )),
        "{said}"
    );

    let out = ccwiki(&["check"], &[&site]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // Remove one project's page: every page that links to it is named.
    let gone = site.join("projects/tide-api/index.html");
    std::fs::remove_file(&gone).unwrap();
    let out = ccwiki(&["check"], &[&site]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("projects/index.html:")
            && text.contains("tide-api/index.html (no such file)"),
        "{text}"
    );
    assert!(text.lines().last().unwrap_or("").contains("broken"));
}

#[test]
fn a_missing_anchor_and_a_link_above_the_site_are_broken() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("a")).unwrap();
    std::fs::write(
        tmp.path().join("a/index.html"),
        "<h2 id=\"t\">t</h2>\n<a href=\"#t\">ok</a>\n<a href=\"../b.html#nope\">b</a>\n\
         <a href=\"../../up.html\">up</a>\n<img src=\"../img/x.png\">",
    )
    .unwrap();
    std::fs::write(tmp.path().join("b.html"), "<p id=\"there\"></p>").unwrap();
    let out = ccwiki(&["check"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(
        lines[..3],
        [
            "a/index.html:3: ../b.html#nope (no #nope in b.html)",
            "a/index.html:4: ../../up.html (leads outside the site)",
            "a/index.html:5: ../img/x.png (no such file)",
        ]
    );
}

#[test]
fn a_missing_site_is_an_error_that_says_what_to_pass() {
    let out = ccwiki(&["check", "no-such-site-here"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a built site"));
}

/// A web server that answers `/ok` with 200 and anything else with 404.
fn web_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut reader = BufReader::new(&stream);
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let status = if first.contains(" /ok ") {
                "200 OK"
            } else {
                "404 Not Found"
            };
            let _ = write!(
                &stream,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    addr
}

#[test]
fn external_links_are_asked_only_when_requested() {
    let web = web_server();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("index.html"),
        format!("<a href=\"http://{web}/ok\">a</a>\n<a href=\"http://{web}/gone\">b</a>"),
    )
    .unwrap();
    let out = ccwiki(&["check"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(0), "no network without --external");

    let out = ccwiki(&["check", "--external", "--timeout", "5"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("index.html:2: http://{web}/gone (HTTP 404)")),
        "{text}"
    );
    assert!(!text.contains("/ok"), "{text}");
    assert!(text.contains("2 web addresses: 1 broken"), "{text}");
}
