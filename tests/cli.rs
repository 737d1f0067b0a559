//! The `ccwiki` binary as a user runs it: exit codes, messages, summary.

use std::path::PathBuf;
use std::process::Command;

/// The binary, with its incremental cache kept under the build's target
/// folder rather than the user's cache directory.
fn ccwiki() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ccwiki"));
    c.env(
        "CCWIKI_CACHE_DIR",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-cache"),
    );
    // Never the user's own archive.
    c.env(
        "CCWIKI_ARCHIVE_DIR",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
    );
    c
}

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

#[test]
fn version_and_help() {
    let out = ccwiki().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ccwiki "));
    let out = ccwiki().args(["build", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--source")
            && help.contains("Examples:")
            && help.contains("--strict")
            && help.contains("3  failed while writing"),
        "{help}"
    );
}

#[test]
fn usage_error_exits_2() {
    let out = ccwiki().args(["build", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ccwiki().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_source_exits_2_and_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(&missing)
        .arg("--out")
        .arg(tmp.path().join("site"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&*missing.to_string_lossy()), "{err}");
    assert!(err.contains("--source"), "{err}");
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
    assert!(!tmp.path().join("site").exists());
}

#[test]
fn a_file_given_as_source_is_named_as_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("history.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    for cmd in ["build", "search"] {
        let mut c = ccwiki();
        c.arg(cmd);
        if cmd == "search" {
            c.arg("x");
        } else {
            c.arg("--out").arg(tmp.path().join("site"));
        }
        let out = c.arg("--source").arg(&file).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains("is a file, not a folder") && !err.contains("not found"),
            "{cmd}: {err}"
        );
    }
    // Search in a folder with no data says so, rather than "no match".
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = ccwiki()
        .args(["search", "x", "--source"])
        .arg(&empty)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds no Claude Code data"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_folder_that_refuses_the_site_is_named_not_the_temporary_one() {
    // /proc refuses new folders even to root, as a read-only parent would.
    let out = ccwiki()
        .args(["build", "--quiet", "--no-cache", "--source"])
        .arg(demo())
        .args(["--out", "/proc/ccwiki-site"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write the site /proc/ccwiki-site: its folder /proc refuses it")
            && !err.contains("ccwiki-new"),
        "{err}"
    );
}

#[test]
fn default_source_comes_from_claude_config_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ccwiki()
        .arg("build")
        .arg("--out")
        .arg(tmp.path().join("site"))
        .env("CLAUDE_CONFIG_DIR", tmp.path().join("absent"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("absent"));
}

#[test]
fn builds_demo_and_prints_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let out = ccwiki()
        .args(["build", "--timings", "--source"])
        .arg(demo())
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("projects") && text.contains("sessions") && text.contains("memories"),
        "{text}"
    );
    assert!(
        text.contains("skipped"),
        "the demo's malformed line is reported: {text}"
    );
    assert!(text.contains("extract"), "timings listed: {text}");
    assert!(site.join("index.html").is_file());
    assert!(site.join(".ccwiki").is_file());
}

#[test]
fn foreign_output_directory_is_refused_and_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("notes.txt"), "mine").unwrap();
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(demo())
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "refused before writing");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not made by ccwiki"));
    assert_eq!(
        std::fs::read_to_string(site.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_dir(&site).unwrap().count(), 1);
}

#[test]
fn a_rebuild_returns_with_its_site_in_place_and_the_previous_copy_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let build = || {
        let out = ccwiki()
            .args(["build", "--quiet", "--no-archive", "--source"])
            .arg(demo())
            .arg("--out")
            .arg(&site)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    build();
    let first = files_under(&site);
    // Something changed: a new site is swapped in, the previous one
    // moved aside and removed by a process of its own.
    std::fs::write(site.join("index.html"), "edited by hand").unwrap();
    build();
    assert_eq!(files_under(&site), first);
    assert_ne!(
        std::fs::read_to_string(site.join("index.html")).unwrap(),
        "edited by hand"
    );
    let beside = || -> Vec<String> {
        std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "site")
            .collect()
    };
    // Waiting for that process, not timing it.
    for _ in 0..600 {
        if beside().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(beside(), Vec::<String>::new());
    // That command removes nothing but such a copy.
    let foreign = tmp.path().join(".site.ccwiki-old-0123");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join(".ccwiki-build"), "0123").unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    for dir in [&foreign, &site, &tmp.path().to_path_buf()] {
        let out = ccwiki().arg("remove-previous").arg(dir).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", dir.display());
        assert!(String::from_utf8_lossy(&out.stderr).contains("left as it is"));
    }
    assert!(foreign.join("notes.txt").is_file() && site.join("index.html").is_file());
    std::fs::remove_dir_all(&foreign).unwrap();
    // A copy an earlier build moved aside and whose remover has not
    // finished (or was stopped) goes as well, in the same way: the next
    // build, even one that finds nothing changed, does not wait for it.
    let left = tmp.path().join(".site.ccwiki-old-0456");
    std::fs::create_dir_all(left.join("sessions/x")).unwrap();
    std::fs::write(left.join("sessions/x/index.html"), "page").unwrap();
    std::fs::write(left.join(".ccwiki"), "").unwrap();
    std::fs::write(left.join(".ccwiki-build"), "0456").unwrap();
    build();
    assert_eq!(files_under(&site), first);
    for _ in 0..600 {
        if beside().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(beside(), Vec::<String>::new());
}

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn turns_held_during_a_build_leave_no_file_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let temp = tmp.path().join("temp");
    std::fs::create_dir_all(&temp).unwrap();
    let build = |site: &str, cache: &std::path::Path, temp: &std::path::Path| {
        ccwiki()
            .args(["build", "--quiet", "--source"])
            .arg(demo())
            .arg("--out")
            .arg(tmp.path().join(site))
            .env("CCWIKI_CACHE_DIR", cache)
            .env(
                "CCWIKI_ARCHIVE_DIR",
                std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
            )
            .env("TMPDIR", temp)
            .output()
            .unwrap()
    };

    // In the cache directory: afterwards only the cache's own files are there.
    let out = build("site", &cache, &temp);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept = files_under(&cache);
    assert!(!kept.is_empty());
    for f in &kept {
        assert!(
            f.ends_with("cache.bin")
                || f.ends_with("pages.bin")
                || f.ends_with("memories.bin")
                || f.ends_with("last-build.bin")
                || f.ends_with("history.bin")
                || f.contains("history/")
                || f.contains("states"),
            "unexpected file left in the cache directory: {f}"
        );
    }

    // A cache directory that cannot be made: the system's temporary
    // directory serves instead, the same site comes out, nothing is left.
    let not_a_dir = tmp.path().join("plain-file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let out = build("site2", &not_a_dir, &temp);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = |site: &str| std::fs::read(tmp.path().join(site).join("index.html")).unwrap();
    assert_eq!(index("site"), index("site2"));
    assert!(files_under(&temp).is_empty());

    // Neither can be written: the build goes on without them, holding the
    // turns in memory, and says so; the same site comes out.
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(demo())
        .arg("--out")
        .arg(tmp.path().join("site3"))
        .env("CCWIKI_CACHE_DIR", &not_a_dir)
        .env(
            "CCWIKI_ARCHIVE_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
        )
        .env("TMPDIR", &not_a_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("cannot keep temporary files") && summary.contains("plain-file"),
        "{summary}"
    );
    assert_eq!(index("site"), index("site3"));
}

#[test]
fn report_lists_replacements_markers_and_suspects_outside_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let report = tmp.path().join("redaction.md");
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(demo())
        .arg("--out")
        .arg(&site)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("redaction report:"), "{summary}");
    let md = std::fs::read_to_string(&report).unwrap();
    // totals by kind, from the redactor's own count
    assert!(md.contains("| aws-access-key | 1 |"), "{md}");
    assert!(md.contains("| home |"), "{md}");
    // markers by page, read off the written page
    let page_row = md
        .lines()
        .find(|l| l.starts_with("| sessions/7c2d9e40/index.html |"))
        .unwrap_or_else(|| panic!("no marker row for the .env session: {md}"));
    assert!(page_row.contains("jwt 1") && page_row.contains("aws-secret 1"));
    // a private host the rules do not replace is a suspect
    assert!(md.contains("| `db.staging.internal` |"), "{md}");
    // the report is not part of the site
    assert!(!site.join("redaction.md").exists());

    // Inside the site: refused before anything is written.
    let inside = site.join("report.md");
    let before = std::fs::read_dir(&site).unwrap().count();
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(demo())
        .arg("--out")
        .arg(&site)
        .arg("--report")
        .arg(&inside)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("inside the site") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!inside.exists());
    assert_eq!(std::fs::read_dir(&site).unwrap().count(), before);
}

#[test]
fn a_source_without_claude_code_data_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = ccwiki()
        .args(["build", "--source"])
        .arg(&empty)
        .arg("--out")
        .arg(tmp.path().join("site"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds no Claude Code data") && err.contains("empty"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!tmp.path().join("site").exists());
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        let out = ccwiki().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains("ccwiki") && script.contains("source"),
            "{shell}"
        );
    }
    let out = ccwiki().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.contains(".TH ccwiki 1") && page.contains("build"),
        "{page}"
    );
    assert!(!page.contains("remove-previous"), "an inner command");
}

#[test]
fn strict_turns_warnings_into_a_refusal_that_keeps_the_previous_site() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    let project = src.join("projects/-home-u-p");
    std::fs::create_dir_all(&project).unwrap();
    let good = r#"{"type":"user","sessionId":"s1","uuid":"u1","cwd":"/home/u/p","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hello strict"}}"#;
    std::fs::write(project.join("s1.jsonl"), format!("{good}\n")).unwrap();
    let out = tmp.path().join("site");
    let build = |strict: bool| {
        let mut c = ccwiki();
        c.args(["build", "--quiet", "--no-cache", "--source"])
            .arg(&src)
            .arg("--out")
            .arg(&out);
        if strict {
            c.arg("--strict");
        }
        c.output().unwrap()
    };
    // Clean data: --strict builds like any build.
    let first = build(true);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let before = files_under(&out);
    let index = std::fs::read(out.join("index.html")).unwrap();
    // A line that cannot be read is a warning: without --strict the build
    // goes on, with it the new site is dropped and the exit status is 1.
    std::fs::write(
        project.join("s1.jsonl"),
        format!("{good}\n{{\"type\": \"user\", broken\n"),
    )
    .unwrap();
    std::fs::write(
        project.join("s2.jsonl"),
        format!("{}\n", good.replace("s1", "s2")),
    )
    .unwrap();
    let strict = build(true);
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
    let err = String::from_utf8_lossy(&strict.stderr);
    assert!(
        err.contains("--strict") && err.contains("s1.jsonl:2"),
        "{err}"
    );
    assert_eq!(files_under(&out), before, "the previous site stays whole");
    assert_eq!(std::fs::read(out.join("index.html")).unwrap(), index);
    let siblings: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(siblings.len(), 2, "no staging folder left: {siblings:?}");
    let lenient = build(false);
    assert_eq!(lenient.status.code(), Some(0), "{lenient:?}");
    assert_ne!(files_under(&out), before, "the new session is in");
}

#[test]
fn a_project_known_only_from_history_gets_a_page_counted_and_searchable() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    let project = src.join("projects/-home-u-live");
    std::fs::create_dir_all(&project).unwrap();
    // One live session with one prompt, and its history line (no session
    // id, as older history files have): counted once.
    std::fs::write(
        project.join("s1.jsonl"),
        r#"{"type":"user","sessionId":"s1","uuid":"u1","cwd":"/home/u/live","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"live prompt"}}"#
            .to_string()
            + "\n",
    )
    .unwrap();
    let at = |minute: u64| 1_772_359_200_000u64 + minute * 60_000; // 2026-03-01T10:00Z
    let history = [
        format!(
            r#"{{"display":"live prompt","timestamp":{},"project":"/home/u/live"}}"#,
            at(0)
        ),
        format!(
            r#"{{"display":"zanzibar migration plan","timestamp":{},"project":"/home/u/ghost"}}"#,
            at(600)
        ),
        format!(
            r#"{{"display":"second ghost prompt","timestamp":{},"project":"/home/u/ghost"}}"#,
            at(700)
        ),
    ];
    std::fs::write(src.join("history.jsonl"), history.join("\n") + "\n").unwrap();
    let out = tmp.path().join("site");
    let built = ccwiki()
        .args(["build", "--quiet", "--no-cache", "--source"])
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let ghost = std::fs::read_to_string(out.join("projects/ghost/index.html")).unwrap();
    assert!(ghost.contains("zanzibar migration plan") && ghost.contains("second ghost prompt"));
    assert!(
        ghost.contains("<dt>Prompts</dt><dd>2</dd>"),
        "project count"
    );
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        home.contains("<dt>Prompts</dt><dd>3</dd>"),
        "1 in a session + 2 from history"
    );
    let live = std::fs::read_to_string(out.join("projects/live/index.html")).unwrap();
    assert!(
        !live.contains("Prompts from history"),
        "its prompt is the session's"
    );
    // The page's search index and the command line find the prompt.
    let index: String = std::fs::read_dir(out.join("search"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert!(index.contains("zanzibar migration plan"));
    let found = ccwiki()
        .args(["search", "zanzibar", "--source"])
        .arg(&src)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&found.stdout);
    assert!(
        found.status.success() && stdout.contains("projects/ghost/index.html"),
        "{stdout}"
    );
}

#[test]
fn a_wiki_repository_root_folder_is_copied_and_a_404_page_is_made() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("wiki");
    std::fs::create_dir_all(repo.join("root/.well-known")).unwrap();
    std::fs::write(repo.join("root/CNAME"), "wiki.example.org\n").unwrap();
    std::fs::write(repo.join("root/.well-known/security.txt"), "Contact: x\n").unwrap();
    std::fs::write(repo.join("root/index.html"), "mine").unwrap();
    // The theme's root/ too, the repository's file winning over the theme's.
    let theme = repo.join("themes/mine");
    std::fs::create_dir_all(theme.join("root")).unwrap();
    std::fs::write(theme.join("theme.toml"), "name = \"mine\"\n").unwrap();
    std::fs::write(theme.join("root/CNAME"), "theme.example.org\n").unwrap();
    std::fs::write(theme.join("root/humans.txt"), "by the theme\n").unwrap();
    std::fs::write(
        repo.join("ccwiki.toml"),
        format!(
            "source = [{:?}]\nbase_path = \"/wiki/\"\ntheme = \"mine\"\n",
            demo().display().to_string()
        ),
    )
    .unwrap();
    let out = ccwiki()
        .args(["build", "--config"])
        .arg(repo.join("ccwiki.toml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    let site = repo.join("site");
    assert_eq!(
        std::fs::read_to_string(site.join("CNAME")).unwrap(),
        "wiki.example.org\n"
    );
    assert!(site.join(".well-known/security.txt").is_file());
    assert_eq!(
        std::fs::read_to_string(site.join("humans.txt")).unwrap(),
        "by the theme\n"
    );
    assert!(
        !format!("{stdout}{stderr}").contains("themes/mine/root/CNAME"),
        "the repository overriding its theme is no warning: {stdout}"
    );
    // A generated page wins over a file of the same path, and the build says so.
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("<html"), "the generated home page");
    assert!(
        format!("{stdout}{stderr}").contains("a generated page has the same path"),
        "{stdout}"
    );
    // The 404 page links from the served root, wherever it is shown.
    let not_found = std::fs::read_to_string(site.join("404.html")).unwrap();
    assert!(not_found.contains("Page not found"));
    assert!(
        not_found.contains("href=\"/wiki/static/style.css\"")
            && not_found.contains("href=\"/wiki/index.html\""),
        "{not_found}"
    );
}
