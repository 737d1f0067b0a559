//! `ccwiki serve` as a user runs it: the binary on a free port, a browser's
//! requests made by hand, a session written while it serves.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the tests wait for something that should take a second: long
/// enough for a loaded CI machine, never a measure of speed.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running `ccwiki serve`, stopped (SIGTERM, then SIGKILL) when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:port`.
    addr: String,
    /// The server's lines after the address.
    lines: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(source: &Path) -> Server {
    serve_from(source, &std::env::temp_dir())
}

/// [`serve`], its site in a folder under `tmp`.
fn serve_from(source: &Path, tmp: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .args(["serve", "--port", "0", "--source"])
        .arg(source)
        .env("TMPDIR", tmp)
        .env("CCWIKI_CACHE_DIR", common::test_cache().join("serve"))
        .env(
            "CCWIKI_ARCHIVE_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ccwiki serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut server = Server {
        child,
        addr: String::new(),
        lines,
    };
    while let Ok(line) = server.lines.recv_timeout(PATIENCE) {
        if let Some(url) = line.split("http://").nth(1) {
            server.addr = url.split('/').next().unwrap_or("").to_string();
            return server;
        }
    }
    panic!("ccwiki serve never said where it serves");
}

/// One raw HTTP/1.1 exchange: the status line, the headers (lowercased
/// names) and the body. Raw so that paths reach the server as written.
fn exchange(addr: &str, request: &str) -> (String, Vec<(String, String)>, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        stream,
        "{request}\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines.next().unwrap_or("").to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

fn get(addr: &str, path: &str) -> (String, String) {
    let (status, _, body) = exchange(addr, &format!("GET {path} HTTP/1.1"));
    (status, String::from_utf8_lossy(&body).to_string())
}

/// A session of two lines in `project` whose prompt says `word`.
fn session_file(id: &str, word: &str) -> String {
    let base = format!(
        r#""isSidechain":false,"userType":"external","cwd":"/home/dana/code/tide-api","sessionId":"{id}","version":"1.0.51""#
    );
    let prompt = format!(
        r#"{{"parentUuid":null,{base},"type":"user","message":{{"role":"user","content":"Please explain the {word} module"}},"uuid":"{id}-u","timestamp":"2026-10-20T10:00:00.000Z"}}"#
    );
    let answer = format!(
        r#"{{"parentUuid":"{id}-u",{base},"type":"assistant","message":{{"id":"msg_{word}","type":"message","role":"assistant","model":"claude-opus-4-1-20250805","content":[{{"type":"text","text":"The {word} module routes requests."}}]}},"uuid":"{id}-a","timestamp":"2026-10-20T10:00:05.000Z"}}"#
    );
    format!("{prompt}\n{answer}\n")
}

fn copy_demo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::demo(), tmp.path());
    tmp
}

#[test]
fn a_session_written_while_serving_shows_up_and_open_pages_are_told_to_reload() {
    let data = copy_demo();
    let tmp = tempfile::tempdir().unwrap();
    let server = serve_from(data.path(), tmp.path());
    let (status, sessions) = get(&server.addr, "/sessions/");
    assert!(status.contains("200"), "{status}");
    assert!(!sessions.contains("quokkafish"));

    // An open page's event stream.
    let mut events = TcpStream::connect(&server.addr).unwrap();
    events.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        events,
        "GET /__ccwiki/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let (said, heard) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(events).lines().map_while(Result::ok) {
            if line.starts_with("event: reload") && said.send(()).is_err() {
                return;
            }
        }
    });
    // Let the stream be subscribed before the change.
    std::thread::sleep(Duration::from_millis(300));

    let id = "7e57c0de-0000-4000-8000-000000000001";
    let file = data
        .path()
        .join("projects/-home-dana-code-tide-api")
        .join(format!("{id}.jsonl"));
    std::fs::write(&file, session_file(id, "quokkafish")).unwrap();

    heard
        .recv_timeout(PATIENCE)
        .expect("the open page is told to reload");
    let deadline = Instant::now() + PATIENCE;
    loop {
        let (_, sessions) = get(&server.addr, "/sessions/");
        if sessions.contains("quokkafish") {
            break;
        }
        assert!(Instant::now() < deadline, "the new session never showed");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The server says so too; its line may still be on its way.
    let mut rebuilt: Vec<String> = Vec::new();
    while !rebuilt.iter().any(|l| l.starts_with("Rebuilt in ")) {
        let left = deadline.saturating_duration_since(Instant::now());
        match server
            .lines
            .recv_timeout(left.max(Duration::from_millis(500)))
        {
            Ok(line) => rebuilt.push(line),
            Err(_) => break,
        }
    }
    assert!(
        rebuilt.iter().any(|l| l.starts_with("Rebuilt in ")),
        "{rebuilt:?}"
    );
    // The previous copy of the site goes once the pages are told: nothing
    // is left beside the site served.
    let [served] = &std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect::<Vec<_>>()[..]
    else {
        panic!("one folder for the served site");
    };
    let beside = || -> Vec<String> {
        std::fs::read_dir(served)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "site")
            .collect()
    };
    while !beside().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(beside(), Vec::<String>::new());
}

#[test]
fn files_are_served_as_a_browser_expects() {
    let server = serve(&common::demo());
    let addr = &server.addr;

    let (status, headers, body) = exchange(addr, "GET / HTTP/1.1");
    assert!(status.contains("200"), "{status}");
    assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
    let home = String::from_utf8_lossy(&body);
    assert!(home.contains("<script src=\"/__ccwiki/live.js\" defer></script>"));
    assert!(home.contains("connect-src 'self'"));

    let (status, headers, body) = exchange(addr, "HEAD / HTTP/1.1");
    assert!(status.contains("200"), "{status}");
    assert!(body.is_empty());
    assert_eq!(
        header(&headers, "content-length"),
        home.len().to_string(),
        "HEAD gives the length GET sends"
    );

    let (status, headers, _) = exchange(addr, "GET /static/style.css HTTP/1.1");
    assert!(status.contains("200"), "{status}");
    assert!(header(&headers, "content-type").starts_with("text/css"));

    let (status, headers, body) =
        exchange(addr, "GET /static/search.js HTTP/1.1\r\nRange: bytes=0-9");
    assert!(status.contains("206"), "{status}");
    assert_eq!(body.len(), 10);
    assert!(header(&headers, "content-range").starts_with("bytes 0-9/"));

    let (status, headers, _) = exchange(addr, "GET /projects HTTP/1.1");
    assert!(status.contains("308"), "{status}");
    assert_eq!(header(&headers, "location"), "/projects/");

    let (status, body) = get(addr, "/no/such/page.html");
    assert!(status.contains("404"), "{status}");
    assert!(body.contains("Claude Code wiki"), "the theme's 404 page");

    let (status, _) = get(addr, "/__ccwiki/live.js");
    assert!(status.contains("200"), "{status}");
}

#[test]
fn no_request_reaches_outside_the_site() {
    let server = serve(&common::demo());
    for path in [
        "/../../../../etc/passwd",
        "/static/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd",
        "/..%5c..%5c..%5cetc%5cpasswd",
        "/static/..",
    ] {
        let (status, body) = get(&server.addr, path);
        assert!(
            status.contains("400") || status.contains("404"),
            "{path}: {status}"
        );
        assert!(!body.contains("root:"), "{path} served a system file");
    }
    // A folder without an index page is no listing: the 404 page.
    let (status, body) = get(&server.addr, "/static/");
    assert!(status.contains("404"), "{status}");
    assert_eq!(body, get(&server.addr, "/no/such/page").1);
}

#[test]
fn a_built_site_never_holds_the_reload_hook() {
    let tmp = tempfile::tempdir().unwrap();
    common::build_demo(&tmp.path().join("site"), "default");
    for (path, bytes) in common::read_tree(&tmp.path().join("site")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("__ccwiki"), "{path} holds the serve hook");
        assert!(!text.contains("EventSource"), "{path} holds the serve hook");
    }
}

#[test]
fn a_port_in_use_is_refused_with_the_way_out() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .args(["serve", "--port", &port, "--source"])
        .arg(common::demo())
        .env("CCWIKI_CACHE_DIR", common::test_cache().join("serve"))
        .env(
            "CCWIKI_ARCHIVE_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot serve on 127.0.0.1:{port}")) && err.contains("--port"),
        "{err}"
    );
}

#[test]
fn a_served_page_in_a_browser_listens_for_rebuilds() {
    if !common::has_chromium() {
        return;
    }
    let server = serve(&common::demo());
    let (mut browser, _profile) = common::open_page(&format!("http://{}/", server.addr));
    // The page's own Content-Security-Policy must let the hook connect.
    let deadline = Instant::now() + PATIENCE;
    let mut status = String::new();
    while Instant::now() < deadline {
        status = get(&server.addr, "/__ccwiki/status").1;
        if status.contains("\"listening\":1") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = browser.kill();
    let _ = browser.wait();
    assert!(
        status.contains("\"listening\":1"),
        "the page's reload hook never connected: {status}"
    );
}
