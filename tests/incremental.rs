//! The incremental cache never serves stale content: after every kind of
//! change to the sources, an incremental build equals a cold build byte for
//! byte; and what did not change is neither re-read nor rewritten.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

struct Fixture {
    _tmp: tempfile::TempDir,
    src: PathBuf,
    out: PathBuf,
    cold: PathBuf,
    repo: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("claude");
        common::copy_dir(&common::demo(), &src);
        let f = Fixture {
            src,
            out: tmp.path().join("site"),
            cold: tmp.path().join("cold"),
            repo: tmp.path().join("repo"),
            _tmp: tmp,
        };
        fs::create_dir_all(&f.repo).unwrap();
        f.build();
        f
    }

    fn opts(&self, out: &Path, cache: bool) -> ccwiki::BuildOptions {
        let mut o = common::options(vec![self.src.clone()], out.to_path_buf());
        o.cache = cache;
        o.site_dir = Some(self.repo.clone());
        o
    }

    fn build(&self) -> ccwiki::BuildReport {
        ccwiki::build(&self.opts(&self.out, true)).expect("incremental build")
    }

    /// Build incrementally and cold; both must be identical.
    fn check(&self, what: &str) -> ccwiki::BuildReport {
        let report = self.build();
        if self.cold.exists() {
            fs::remove_dir_all(&self.cold).unwrap();
        }
        ccwiki::build(&self.opts(&self.cold, false)).expect("cold build");
        let (a, b) = (common::read_tree(&self.out), common::read_tree(&self.cold));
        let differ: Vec<&String> = a
            .keys()
            .chain(b.keys())
            .filter(|k| a.get(*k) != b.get(*k))
            .collect();
        assert!(
            differ.is_empty(),
            "after {what}, the incremental build differs from a cold one in {differ:?}"
        );
        report
    }

    fn session(&self, name: &str) -> PathBuf {
        let p = self
            .src
            .join("projects/-home-dana-code-tide-api")
            .join(name);
        assert!(p.exists(), "{}", p.display());
        p
    }
}

const S2: &str = "a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8.jsonl";
const S3: &str = "c71f3d92-0b5e-4a8d-a6e3-94d2b8f1e057.jsonl";

fn append(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn prompt_line(sid: &str, uuid: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"type":"user","sessionId":sid,"uuid":uuid,"cwd":"/home/dana/code/tide-api","timestamp":"2026-10-21T10:00:00Z","message":{"role":"user","content":text}})
    )
}

#[test]
fn nothing_changed_nothing_read_nothing_rewritten() {
    let f = Fixture::new();
    let before = fs::metadata(f.out.join("index.html"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Nothing at all: the build stops after comparing, the site untouched.
    let r = f.check("no change");
    assert!(r.unchanged, "{r:?}");
    assert_eq!(r.pages, f.build().pages);
    // A file touched but not changed: read from the cache, nothing rewritten.
    let memory = f
        .src
        .join("projects/-home-dana-code-tide-api/memory/user_role.md");
    fs::write(&memory, fs::read(&memory).unwrap()).unwrap();
    let r = f.check("a file touched");
    assert!(!r.unchanged);
    assert_eq!(r.cache.read + r.cache.resumed, 0, "{:?}", r.cache);
    assert!(r.cache.reused > 5);
    assert_eq!(r.files_unchanged, r.files_written, "every page kept");
    assert_eq!(
        fs::metadata(f.out.join("index.html"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
}

#[test]
fn appended_session_reads_only_its_tail() {
    let f = Fixture::new();
    let sid = "a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8";
    append(
        &f.session(S2),
        &prompt_line(sid, "x-1", "one more question about quokka buckets"),
    );
    let r = f.check("an append");
    assert_eq!(r.cache.resumed, 1, "{:?}", r.cache);
    assert_eq!(r.cache.read, 0, "{:?}", r.cache);
    let page = fs::read_to_string(f.out.join("sessions/a8e4f019/index.html")).unwrap();
    assert!(page.contains("quokka buckets"));
    assert!(r.files_unchanged > 0 && r.files_unchanged < r.files_written);
    // A half-written line, then the rest of it.
    let line = prompt_line(sid, "x-2", "and the zebra case");
    let (head, rest) = line.split_at(40);
    append(&f.session(S2), head);
    let r = f.check("a half-written line");
    assert!(r
        .skips
        .iter()
        .any(|s| s.reason.contains("incomplete last line")));
    append(&f.session(S2), rest);
    let r = f.check("the rest of the line");
    assert!(!r
        .skips
        .iter()
        .any(|s| s.reason.contains("incomplete last line")));
    assert!(
        fs::read_to_string(f.out.join("sessions/a8e4f019/index.html"))
            .unwrap()
            .contains("zebra case")
    );
}

#[test]
fn a_grown_history_redacts_only_its_new_prompts() {
    let f = Fixture::new();
    let old_month = f.out.join("timeline/2026-10/index.html");
    let stamp = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
    let before = stamp(&old_month);
    std::thread::sleep(std::time::Duration::from_millis(20));
    // A new session in the newest month, and its prompt in the history,
    // as Claude Code writes them.
    let sid = "3f6a1c2e-8b4d-4e7a-9c05-d2b1e8f7a640";
    fs::write(
        f.src
            .join("projects/-home-dana-code-tide-api")
            .join(format!("{sid}.jsonl")),
        prompt_line(sid, "n-1", "count the pelicans").replace("2026-10-21", "2026-11-28"),
    )
    .unwrap();
    let history = f.src.join("history.jsonl");
    append(
        &history,
        &format!(
            "{}\n",
            serde_json::json!({"display":"count the pelicans in /home/dana/code/tide-api","pastedContents":{},"timestamp":1795000000000u64,"project":"/home/dana/code/tide-api","sessionId":sid})
        ),
    );
    let r = f.check("a new session and its prompt");
    let p = r.prompt_cache;
    assert_eq!((p.kept, p.redacted), (20, 1), "{p:?}");
    let newest = fs::read_to_string(f.out.join("timeline/index.html")).unwrap();
    assert!(newest.contains("count the pelicans"));
    assert!(!newest.contains("/home/dana"));
    // The older month's page did not change: it was kept, not made again
    // (its list of months links them; it counts nothing that changed).
    assert_eq!(stamp(&old_month), before);
    let pages = |r: &ccwiki::BuildReport| r.files_written - (r.files_unchanged - r.pages_kept);
    assert!(
        r.pages_kept > 0 && r.pages_kept < pages(&r),
        "{} of {} pages kept",
        r.pages_kept,
        pages(&r)
    );
    // The history written anew: every prompt redacted again.
    let text = fs::read_to_string(&history).unwrap();
    fs::write(
        &history,
        text.replacen("Agreed on all three", "Agreed on all four", 1),
    )
    .unwrap();
    let r = f.check("a history rewritten");
    let p = r.prompt_cache;
    assert_eq!((p.kept, p.redacted), (0, 21), "{p:?}");
}

#[test]
fn edited_truncated_deleted_renamed_and_new_sessions() {
    let f = Fixture::new();
    // Edit in place, same size.
    let p = f.session(S2);
    let text = fs::read_to_string(&p)
        .unwrap()
        .replacen("token bucket", "tokEN BUCKET", 1);
    fs::write(&p, text).unwrap();
    let r = f.check("an edit");
    assert_eq!(r.cache.read, 1, "{:?}", r.cache);
    // Truncate.
    let text = fs::read_to_string(&p).unwrap();
    let keep: Vec<&str> = text.lines().take(6).collect();
    fs::write(&p, keep.join("\n") + "\n").unwrap();
    f.check("a truncation");
    // Rename.
    fs::rename(
        f.session(S3),
        f.src
            .join("projects/-home-dana-code-tide-api/renamed.jsonl"),
    )
    .unwrap();
    f.check("a rename");
    // Delete.
    fs::remove_file(
        f.src
            .join("projects/-home-dana-code-tide-api/renamed.jsonl"),
    )
    .unwrap();
    f.check("a deletion");
    // A new session.
    let sid = "00000000-1111-4222-8333-444444444444";
    fs::write(
        f.src
            .join(format!("projects/-home-dana-code-tide-api/{sid}.jsonl")),
        prompt_line(sid, "n-1", "a brand new session"),
    )
    .unwrap();
    let r = f.check("a new session");
    assert_eq!(r.cache.read, 1, "{:?}", r.cache);
}

/// Session and file pages are kept without being made again when what
/// they are made of is unchanged: a change inside an edit, or inside a
/// sub-agent, must still show on every page that shows it.
#[test]
fn a_change_inside_an_edit_or_a_subagent_shows_on_its_pages() {
    let f = Fixture::new();
    let p = f.session(S2);
    let text = fs::read_to_string(&p).unwrap();
    assert!(text.contains("handlers::v1_routes()\\n"));
    fs::write(
        &p,
        text.replacen("handlers::v1_routes()\\n", "handlers::v9_routes()\\n", 1),
    )
    .unwrap();
    f.check("an edit's new text changed");
    let agent = f
        .src
        .join("projects/-home-dana-code-tide-api/c71f3d92-0b5e-4a8d-a6e3-94d2b8f1e057/subagents/agent-a7c2e9f41b3d8065e.jsonl");
    let text = fs::read_to_string(&agent).unwrap();
    assert!(text.contains("Looking for the test server helper."));
    fs::write(
        &agent,
        text.replace(
            "Looking for the test server helper.",
            "Looking for the TEST server helper.",
        ),
    )
    .unwrap();
    let r = f.check("a sub-agent's text changed");
    assert!(
        r.files_unchanged > 20,
        "other pages kept: {}",
        r.files_unchanged
    );
}

#[test]
fn memory_and_template_changes_show_up() {
    let f = Fixture::new();
    let m = f
        .src
        .join("projects/-home-dana-code-tide-api/memory/feedback_clippy_gate.md");
    let text = fs::read_to_string(&m)
        .unwrap()
        .replace("Clippy gate", "Clippy gate, strict");
    fs::write(&m, text).unwrap();
    f.check("a memory edit");
    assert!(fs::read_to_string(f.out.join("skills/clippy-gate-strict.html")).is_ok());
    fs::create_dir_all(f.repo.join("templates")).unwrap();
    fs::write(
        f.repo.join("templates/session.html"),
        "{% extends \"ccwiki/session.html\" %}{% block title %}T: {{ page.title }}{% endblock title %}",
    )
    .unwrap();
    let r = f.check("a template override");
    assert!(
        fs::read_to_string(f.out.join("sessions/a8e4f019/index.html"))
            .unwrap()
            .contains("<title>T: ")
    );
    assert_eq!(r.cache.read, 0, "templates do not invalidate transcripts");
    fs::remove_file(f.repo.join("templates/session.html")).unwrap();
    f.check("removing the override");
}

#[test]
fn a_page_edited_by_hand_is_written_anew_even_at_the_same_length() {
    let f = Fixture::new();
    let page = f.out.join("skills/clippy-gate.html");
    let original = fs::read(&page).unwrap();
    // Same length, different bytes: a length check alone would keep it.
    let mut edited = original.clone();
    let at = edited.iter().position(|b| *b == b'C').expect("a capital C");
    edited[at] = b'X';
    fs::write(&page, &edited).unwrap();
    f.check("a page edited by hand");
    assert_eq!(fs::read(&page).unwrap(), original);
}

#[test]
fn a_corrupt_cache_is_noticed_and_rebuilt() {
    let f = Fixture::new();
    let dir = common::test_cache().join(ccwiki::base::dirs::site_key(&f.out));
    let mut flipped = 0;
    for e in walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_file() {
            let mut bytes = fs::read(e.path()).unwrap();
            let mid = bytes.len() / 2;
            if let Some(b) = bytes.get_mut(mid) {
                *b ^= 0x55;
                fs::write(e.path(), &bytes).unwrap();
                flipped += 1;
            }
        }
    }
    assert!(
        flipped >= 2,
        "the cache holds its index and states: {flipped}"
    );
    let report = f.check("a corrupted cache");
    assert_eq!(
        report.cache.reused + report.cache.resumed,
        0,
        "nothing served from a corrupt cache"
    );
}

/// The cache's packs are not synced to disk: after a crash the index may
/// point at bytes that never reached it (a pack cut short, or zeros).
/// Those states and turns fail their hashes and the files are read again:
/// a slower build, never a wrong page.
#[test]
fn packs_that_lost_their_bytes_are_read_again() {
    let f = Fixture::new();
    let dir = common::test_cache().join(ccwiki::base::dirs::site_key(&f.out));
    let packs: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .collect();
    assert!(!packs.is_empty(), "the cache keeps its states in packs");
    for pack in &packs {
        let mut bytes = fs::read(pack).unwrap();
        let len = bytes.len();
        bytes[len / 4..len / 2].fill(0);
        bytes.truncate(len * 3 / 4);
        fs::write(pack, &bytes).unwrap();
    }
    // A memory file written again: a build, with every transcript's
    // entry in the index as it was.
    let memory = walkdir::WalkDir::new(&f.src)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.path().extension().is_some_and(|x| x == "md"))
        .expect("a memory file")
        .into_path();
    fs::write(&memory, fs::read(&memory).unwrap()).unwrap();
    let report = f.check("packs that lost their bytes");
    assert!(report.cache.read > 0, "{:?}", report.cache);
}

#[test]
fn a_rebuild_with_nothing_changed_still_notices_the_site_and_the_options() {
    let f = Fixture::new();
    assert!(f.build().unchanged);
    // A source file's permissions changed (a file that could not be read
    // may be readable now): its modification time stays, its status
    // change time moves.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let memory = walkdir::WalkDir::new(&f.src)
            .into_iter()
            .filter_map(Result::ok)
            .find(|e| {
                e.path().extension().is_some_and(|x| x == "md")
                    && e.path().to_string_lossy().contains("/memory/")
            })
            .expect("a memory file")
            .into_path();
        let mode = fs::metadata(&memory).unwrap().permissions().mode();
        fs::set_permissions(&memory, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&memory, fs::Permissions::from_mode(mode)).unwrap();
        assert!(!f.build().unchanged, "a permission change is a change");
        assert!(f.build().unchanged);
    }
    // A page removed from the site comes back.
    let page = f.out.join("skills/clippy-gate.html");
    let original = fs::read(&page).unwrap();
    fs::remove_file(&page).unwrap();
    assert!(!f.check("a page removed").unchanged);
    assert_eq!(fs::read(&page).unwrap(), original);
    // A file added to the site goes.
    fs::write(f.out.join("stray.html"), "x").unwrap();
    assert!(!f.build().unchanged);
    assert!(!f.out.join("stray.html").exists());
    // Another title is another site.
    let mut o = f.opts(&f.out, true);
    o.title = "Other".into();
    let r = ccwiki::build(&o).unwrap();
    assert!(!r.unchanged);
    assert!(fs::read_to_string(f.out.join("index.html"))
        .unwrap()
        .contains("Other"));
    // A template of the repository, added after the last build.
    assert!(!f.build().unchanged, "back to the first title");
    fs::create_dir_all(f.repo.join("templates")).unwrap();
    fs::write(
        f.repo.join("templates/about.html"),
        "{% extends \"ccwiki/about.html\" %}{% block content %}ABOUT-OVERRIDE{% endblock content %}",
    )
    .unwrap();
    assert!(!f.build().unchanged);
    assert!(fs::read_to_string(f.out.join("about/index.html"))
        .unwrap()
        .contains("ABOUT-OVERRIDE"));
    assert!(f.build().unchanged);
    // Files that are not pages (kept from the site, copied from the
    // repository's root/, in folders) are known to the next build too:
    // after one build that places them, the next one has nothing to do;
    // and one of them touched is noticed.
    fs::create_dir_all(f.out.join(".well-known")).unwrap();
    fs::write(f.out.join(".well-known/security.txt"), "c").unwrap();
    fs::write(f.out.join("CNAME"), "wiki.example.org").unwrap();
    fs::create_dir_all(f.repo.join("root/img")).unwrap();
    fs::write(f.repo.join("root/img/logo.svg"), "<svg/>").unwrap();
    assert!(!f.build().unchanged);
    assert!(f.build().unchanged, "the kept and copied files are known");
    #[cfg(unix)]
    {
        // A link added deep in the site is seen, and not kept.
        std::os::unix::fs::symlink(f.repo.join("root/img/logo.svg"), f.out.join("img/l.svg"))
            .unwrap();
        assert!(!f.build().unchanged);
        assert!(fs::symlink_metadata(f.out.join("img/l.svg")).is_err());
        assert!(f.build().unchanged);
    }
    fs::write(f.out.join("img/logo.svg"), "<svg></svg>").unwrap();
    assert!(!f.build().unchanged);
    assert_eq!(fs::read(f.out.join("img/logo.svg")).unwrap(), b"<svg/>");
    assert_eq!(
        fs::read(f.out.join(".well-known/security.txt")).unwrap(),
        b"c"
    );
}

#[test]
fn states_stay_in_a_few_packs_however_many_builds() {
    let f = Fixture::new();
    let s2 = f.session(S2);
    for n in 0..12 {
        append(
            &s2,
            &prompt_line(
                "a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8",
                &format!("grow-{n}"),
                &format!("one more prompt {n}"),
            ),
        );
        let r = f.build();
        assert_eq!(r.cache.resumed, 1, "build {n}: {:?}", r.cache);
    }
    let states = common::test_cache()
        .join(ccwiki::base::dirs::site_key(&f.out))
        .join("states");
    let packs = fs::read_dir(&states).unwrap().count();
    assert!(
        (1..=9).contains(&packs),
        "{packs} packs in {}",
        states.display()
    );
    f.check("twelve builds of a growing session");
}

#[test]
fn a_long_sessions_kept_layout_serves_only_while_its_turns_are_the_same() {
    let f = Fixture::new();
    let sid = "a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8";
    // Long enough for its layout to be kept (16 KB of turns and more).
    let long: String = (0..50)
        .map(|i| {
            let words = "how do quokka buckets rotate their keys ".repeat(10);
            prompt_line(
                sid,
                &format!("long-{i}"),
                &format!("## Step {i}\n\n{words}"),
            )
        })
        .collect();
    append(&f.session(S2), &long);
    f.check("a long session");
    let layouts = common::test_cache()
        .join(ccwiki::base::dirs::site_key(&f.out))
        .join("layouts.bin");
    let kept = fs::read(&layouts).expect("the long session's layout is kept");

    // A new title, the same turns: the kept layout serves (the file is not
    // written again), and the pages and search index show the new title.
    append(
        &f.session(S2),
        &format!(
            "{}\n",
            serde_json::json!({"type":"custom-title","customTitle":"Quokka key rotation","sessionId":sid})
        ),
    );
    f.check("a new title for the long session");
    assert_eq!(fs::read(&layouts).unwrap(), kept, "laid out again");
    let index = fs::read_to_string(f.out.join("search/sessions-tide-api.js")).unwrap();
    assert!(index.contains("Quokka key rotation"));

    // Other turns: laid out again, and the kept layout replaced.
    append(
        &f.session(S2),
        &prompt_line(sid, "long-last", "and the zebra buckets too"),
    );
    f.check("one more turn in the long session");
    assert_ne!(fs::read(&layouts).unwrap(), kept, "the old layout served");
    let pages = common::read_tree(&f.out.join("sessions/a8e4f019"));
    assert!(pages
        .values()
        .any(|p| String::from_utf8_lossy(p).contains("zebra buckets")));
}
