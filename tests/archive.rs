//! The archive: what Claude Code deletes stays in the wiki, files come
//! back byte for byte, copies merge, and a killed build leaves it whole.

mod common;

use ccwiki::source::archive::Archive;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const TIDE: &str = "projects/-home-dana-code-tide-api";
const SESSION: &str = "5d0c2a71-3e8b-4f6a-9c14-7b2e9d4a0f61";

/// A copy of the demo data in `tmp/data`.
fn demo_copy(tmp: &Path) -> PathBuf {
    let data = tmp.join("data");
    common::copy_dir(&common::demo(), &data);
    data
}

fn build(sources: Vec<PathBuf>, out: &Path, archive: &Path) -> ccwiki::app::build::BuildReport {
    let mut opts = common::options(sources, out.to_path_buf());
    opts.archive = Some(archive.to_path_buf());
    ccwiki::build(&opts).expect("builds")
}

fn ccwiki(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .args(args)
        .env("CCWIKI_CACHE_DIR", common::test_cache().join("archive"))
        .output()
        .expect("ccwiki runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_deleted_session_keeps_its_page_its_search_entry_and_its_place_in_the_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    let (site, archive) = (tmp.path().join("site"), tmp.path().join("archive"));
    build(vec![data.clone()], &site, &archive);
    let before = common::read_tree(&site);
    assert!(before.contains_key("sessions/5d0c2a71/index.html"));

    std::fs::remove_file(data.join(TIDE).join(format!("{SESSION}.jsonl"))).unwrap();
    let report = build(vec![data.clone()], &site, &archive);
    let kept = report.archive.expect("the archive was used");
    assert_eq!(kept.archive_only_sessions, 1);
    assert_eq!(kept.new_files, 0, "nothing new to keep");
    // The whole site is as it was: the page, the search index, the
    // timeline, the project's list.
    assert_eq!(common::read_tree(&site), before);

    // Without the archive the session is gone: the test can fail.
    let mut opts = common::options(vec![data], tmp.path().join("bare"));
    opts.archive = None;
    ccwiki::build(&opts).unwrap();
    assert!(!tmp.path().join("bare/sessions/5d0c2a71").exists());
}

#[test]
fn export_gives_every_file_back_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    let archive = tmp.path().join("archive");
    build(vec![data.clone()], &tmp.path().join("site"), &archive);
    let original = common::read_tree(&data);
    std::fs::remove_dir_all(data.join("projects")).unwrap();

    let out = tmp.path().join("back");
    let done = ccwiki(&[
        "archive",
        "export",
        s(&out),
        "--archive",
        s(&archive),
        "--source",
        s(&data),
    ]);
    assert!(done.status.success(), "{done:?}");
    assert_eq!(common::read_tree(&out), original);

    // Export never writes over a file.
    let again = ccwiki(&[
        "archive",
        "export",
        s(&out),
        "--archive",
        s(&archive),
        "--source",
        s(&data),
    ]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("exists, left as it was"));
    assert_eq!(common::read_tree(&out), original);
}

/// The object files of an archive.
fn objects(archive: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(archive.join("objects"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

#[test]
fn a_grown_file_keeps_its_longer_content_and_a_rewritten_one_both() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let session = data.join(TIDE).join(format!("{SESSION}.jsonl"));
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    let demo = std::fs::read_to_string(common::demo().join(TIDE).join(format!("{SESSION}.jsonl")))
        .unwrap();
    let lines: Vec<&str> = demo.lines().collect();
    let (site, archive) = (tmp.path().join("site"), tmp.path().join("archive"));

    std::fs::write(&session, lines[..4].join("\n") + "\n").unwrap();
    build(vec![data.clone()], &site, &archive);
    let grown = lines.join("\n") + "\n";
    std::fs::write(&session, &grown).unwrap();
    build(vec![data.clone()], &site, &archive);
    // The shorter content is held by the longer one: one object.
    assert_eq!(objects(&archive).len(), 1);

    let rewritten = lines[5..7].join("\n") + "\n";
    std::fs::write(&session, &rewritten).unwrap();
    build(vec![data.clone()], &site, &archive);
    assert_eq!(objects(&archive).len(), 2);

    let out = tmp.path().join("back");
    let opened = Archive::open_existing(&archive).unwrap();
    opened.export(&[data], &out).unwrap();
    let name = format!("{TIDE}/{SESSION}.jsonl");
    let back = common::read_tree(&out);
    assert_eq!(
        back.get(&name).map(Vec::as_slice),
        Some(rewritten.as_bytes())
    );
    assert_eq!(
        back.get(&format!("{name}.v1")).map(Vec::as_slice),
        Some(grown.as_bytes())
    );
}

#[test]
fn two_sources_with_the_same_session_make_one_page_without_doubled_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let laptop = tmp.path().join("laptop");
    let desktop = tmp.path().join("desktop");
    common::copy_dir(&common::demo(), &laptop);
    common::copy_dir(&common::demo(), &desktop);
    // The desktop's copy lacks the last line and has one of its own.
    let file = format!("{TIDE}/a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8.jsonl");
    let text = std::fs::read_to_string(laptop.join(&file)).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.pop();
    lines.push(
        r#"{"parentUuid":"12afeb2b-8653-4a0a-8762-51f61ae83ba5","isSidechain":false,"type":"assistant","cwd":"/home/dana/code/tide-api","sessionId":"a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8","message":{"id":"msg_desk","type":"message","role":"assistant","model":"claude-opus-4-1-20250805","content":[{"type":"text","text":"Desktop-only planted answer."}]},"uuid":"0dd0dd0d-0000-4000-8000-00000000beef","timestamp":"2026-10-21T09:44:00.000Z"}"#
            .to_string(),
    );
    std::fs::write(desktop.join(&file), lines.join("\n") + "\n").unwrap();

    let one = tmp.path().join("one");
    let mut opts = common::options(vec![laptop.clone()], one.clone());
    opts.archive = None;
    ccwiki::build(&opts).unwrap();
    let both = tmp.path().join("both");
    let report = build(vec![laptop, desktop], &both, &tmp.path().join("archive"));
    assert_eq!(
        report.archive.as_ref().map(|a| a.merged),
        Some(1),
        "{:?} {:?}",
        report.archive,
        report.roots
    );

    // The conversation, without the digest above it (which quotes the
    // last answer).
    let page = |site: &Path| {
        let html = std::fs::read_to_string(site.join("sessions/a8e4f019/index.html")).unwrap();
        let at = html.find("class=\"conversation\"").unwrap();
        html[at..].to_string()
    };
    let (alone, merged) = (page(&one), page(&both));
    assert_eq!(merged.matches("Desktop-only planted answer.").count(), 1);
    // Every turn of the laptop's copy is there once, and the desktop's own.
    let turns = |page: &str| page.matches("<div class=\"turn ").count();
    assert_eq!(turns(&merged), turns(&alone) + 1);
    assert_eq!(
        merged.matches("turn prompt").count(),
        alone.matches("turn prompt").count()
    );
    assert_eq!(
        std::fs::read_dir(both.join("sessions"))
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("a8e4f019"))
            .count(),
        1,
        "one page"
    );
}

#[test]
fn a_build_with_nothing_new_writes_nothing_in_the_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    let (site, archive) = (tmp.path().join("site"), tmp.path().join("archive"));
    build(vec![data.clone()], &site, &archive);
    std::fs::remove_file(data.join(TIDE).join(format!("{SESSION}.jsonl"))).unwrap();
    build(vec![data.clone()], &site, &archive);
    let stamp = |dir: &Path| -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && e.file_name() != "lock")
            .map(|e| {
                let m = e.metadata().unwrap();
                (e.into_path(), (m.len(), m.modified().unwrap()))
            })
            .collect()
    };
    let before = stamp(&archive);
    let report = build(vec![data], &site, &archive);
    assert_eq!(report.archive.map(|a| a.new_files), Some(0));
    assert_eq!(
        stamp(&archive),
        before,
        "no object, journal or view file touched"
    );
}

#[test]
fn the_archive_is_private_and_never_inside_the_site_or_a_source() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    let archive = tmp.path().join("a/b/archive");
    build(vec![data.clone()], &tmp.path().join("site"), &archive);
    for dir in [&archive, &archive.join("objects")] {
        let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
    for f in objects(&archive)
        .iter()
        .chain([&archive.join("journal.jsonl")])
    {
        let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", f.display());
    }

    let site = tmp.path().join("site2");
    let mut opts = common::options(vec![data.clone()], site.clone());
    opts.archive = Some(site.join("archive"));
    let e = ccwiki::build(&opts).unwrap_err();
    assert!(e.to_string().contains("is inside the site"), "{e}");
    assert!(!site.join("archive").exists());

    opts.archive = Some(data.join("kept"));
    let e = ccwiki::build(&opts).unwrap_err();
    assert!(
        e.to_string().contains("is inside the data directory"),
        "{e}"
    );
    assert!(!data.join("kept").exists());
}

#[test]
fn a_lost_journal_is_rebuilt_from_the_objects() {
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    let (site, archive) = (tmp.path().join("site"), tmp.path().join("archive"));
    build(vec![data.clone()], &site, &archive);
    let files = Archive::open_existing(&archive).unwrap().files().len();
    std::fs::remove_file(archive.join("journal.jsonl")).unwrap();
    std::fs::remove_file(data.join(TIDE).join(format!("{SESSION}.jsonl"))).unwrap();

    let opened = Archive::open_existing(&archive).unwrap();
    assert_eq!(opened.files().len(), files);
    let verified = opened.verify();
    assert!(verified.rebuilt && verified.damaged.is_empty());
    drop(opened);
    let report = build(vec![data], &site, &archive);
    assert_eq!(report.archive.map(|a| a.archive_only_sessions), Some(1));
    assert!(site.join("sessions/5d0c2a71/index.html").is_file());
}

/// Sessions of about `kb` kilobytes each, of text that does not compress
/// to nothing, so that archiving them takes a while.
fn sizeable_data(dir: &Path, sessions: usize, kb: usize) {
    let project = dir.join("projects/-home-u-p");
    std::fs::create_dir_all(&project).unwrap();
    let mut seed: u64 = 7;
    for s in 0..sessions {
        let mut text = String::new();
        let mut n = 0;
        while text.len() < kb * 1024 {
            let words: Vec<String> = (0..30)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    format!("w{:x}", seed >> 44)
                })
                .collect();
            text.push_str(&format!(
                r#"{{"type":"user","uuid":"u{s}-{n}","sessionId":"s{s}","cwd":"/home/u/p","timestamp":"2026-01-01T10:00:00Z","message":{{"role":"user","content":"{}"}}}}"#,
                words.join(" ")
            ));
            text.push('\n');
            n += 1;
        }
        std::fs::write(
            project.join(format!("00000000-0000-4000-8000-{s:012}.jsonl")),
            text,
        )
        .unwrap();
    }
}

#[test]
fn a_build_killed_while_archiving_leaves_an_archive_that_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    sizeable_data(&data, 40, 400);
    let archive = tmp.path().join("archive");
    let site = tmp.path().join("site");
    for round in 0..8u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
            .args([
                "build",
                "--quiet",
                "--source",
                s(&data),
                "--out",
                s(&site),
                "--archive",
                s(&archive),
            ])
            .env("CCWIKI_CACHE_DIR", tmp.path().join("cache"))
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20 + round * 40));
        let _ = child.kill();
        let _ = child.wait();
        // Grow one file, so later rounds have something new to keep.
        let grow = data.join("projects/-home-u-p/00000000-0000-4000-8000-000000000001.jsonl");
        let mut text = std::fs::read_to_string(&grow).unwrap();
        text.push_str(&format!("{{\"type\":\"user\",\"uuid\":\"g{round}\",\"sessionId\":\"s1\",\"message\":{{\"role\":\"user\",\"content\":\"more {round}\"}}}}\n"));
        std::fs::write(&grow, text).unwrap();

        if !archive.join("objects").is_dir() {
            continue;
        }
        let verify = ccwiki(&["archive", "verify", "--archive", s(&archive)]);
        assert!(
            verify.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&verify.stdout)
        );
    }
    // A build that runs to its end keeps everything, byte for byte.
    let done = ccwiki(&[
        "build",
        "--quiet",
        "--source",
        s(&data),
        "--out",
        s(&site),
        "--archive",
        s(&archive),
    ]);
    assert!(done.status.success(), "{done:?}");
    let back = tmp.path().join("back");
    Archive::open_existing(&archive)
        .unwrap()
        .export(std::slice::from_ref(&data), &back)
        .unwrap();
    let exported: BTreeMap<String, Vec<u8>> = common::read_tree(&back)
        .into_iter()
        .filter(|(k, _)| !k.contains(".v"))
        .collect();
    assert_eq!(exported, common::read_tree(&data));
}

#[test]
fn the_corpus_is_archived_in_well_under_half_its_size() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&corpus).unwrap().filter_map(Result::ok) {
        if entry.file_type().unwrap().is_dir() {
            sources.push(entry.path());
        }
    }
    let mut found = ccwiki::source::discover::discover(&sources).unwrap();
    let mut archive = Archive::open(&tmp.path().join("archive")).unwrap();
    let kept = archive.keep(&mut found.roots).unwrap();
    let raw = kept.bytes_read;
    let stored = archive.stored_bytes();
    eprintln!(
        "corpus: {raw} bytes kept in {stored} ({:.1}%)",
        stored as f64 * 100.0 / raw as f64
    );
    assert!(raw > 10_000_000, "the corpus was read: {raw}");
    assert!(stored * 2 < raw, "{stored} of {raw}");
}

#[test]
fn an_alias_files_a_worktree_under_its_project() {
    let tmp = tempfile::tempdir().unwrap();
    let data = demo_copy(tmp.path());
    // A session run in a worktree of tide-api.
    let wt = data.join("projects/-home-dana-code-tide-api-wt-limits");
    std::fs::create_dir_all(&wt).unwrap();
    let text = std::fs::read_to_string(data.join(TIDE).join(format!("{SESSION}.jsonl")))
        .unwrap()
        .replace(
            "/home/dana/code/tide-api",
            "/home/dana/code/tide-api-wt/limits",
        )
        .replace(SESSION, "0e0e0e0e-1111-4222-8333-444444444444");
    std::fs::write(wt.join("0e0e0e0e-1111-4222-8333-444444444444.jsonl"), text).unwrap();

    let projects = |aliases: Vec<(String, String)>, out: &str| {
        let mut opts = common::options(vec![data.clone()], tmp.path().join(out));
        opts.aliases = aliases;
        let report = ccwiki::build(&opts).unwrap();
        let page =
            std::fs::read_to_string(tmp.path().join(out).join("projects/tide-api/index.html"))
                .unwrap();
        (report.projects, page.contains("sessions/0e0e0e0e/"))
    };
    assert_eq!(projects(Vec::new(), "plain"), (4, false));
    let alias = vec![(
        "/home/dana/code/tide-api-wt/limits".to_string(),
        "/home/dana/code/tide-api".to_string(),
    )];
    assert_eq!(projects(alias, "aliased"), (3, true));
}

#[test]
fn an_archive_beside_the_data_in_one_source_is_never_read_as_data() {
    let tmp = tempfile::tempdir().unwrap();
    let backup = tmp.path().join("backup");
    common::copy_dir(&common::demo(), &backup.join(".claude"));
    let archive = backup.join("archive");
    let site = tmp.path().join("site");
    let first = build(vec![backup.clone()], &site, &archive);
    let again = build(vec![backup], &site, &archive);
    assert_eq!(again.sessions, first.sessions);
    assert_eq!(again.roots.len(), 1, "{:?}", again.roots);
    assert_eq!(again.archive.map(|a| a.new_files), Some(0));
}
