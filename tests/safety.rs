//! Safe to publish: planted secrets never reach the output, a failed or
//! killed build leaves the previous site intact, nothing is written outside
//! `--out`, and the source is only ever read.

mod common;

use std::path::Path;

/// Fake credentials of every kind, built at run time so that this file does
/// not itself look like it holds secrets.
fn planted() -> Vec<(&'static str, String)> {
    let a = |n: usize| {
        "aB3dE5gH7jK9mN2pQ4sT6vX8zC1fR0wY"
            .chars()
            .cycle()
            .take(n)
            .collect::<String>()
    };
    let hex = |n: usize| {
        "0123456789abcdef"
            .chars()
            .cycle()
            .take(n)
            .collect::<String>()
    };
    vec![
        ("anthropic", format!("sk-ant-api03-{}", a(93))),
        ("openai", format!("sk-proj-{}", a(48))),
        ("aws-access-key", format!("AKIA{}", "QWERTYUIOPASDFGH")),
        ("aws-secret", a(40)),
        ("github", format!("ghp_{}", a(36))),
        ("github-pat", format!("github_pat_{}_{}", a(22), a(59))),
        ("gitlab", format!("glpat-{}", a(20))),
        (
            "slack",
            format!("xoxb-{}-{}-{}", "1234567890", "1234567890123", a(24)),
        ),
        ("google", format!("AIza{}", a(35))),
        ("stripe", format!("sk_live_{}", a(24))),
        ("jwt", format!("eyJ{}.eyJ{}.{}", a(20), a(30), a(43))),
        ("password", format!("Hunter2{}", a(8))),
        ("url", format!("s3cr3tPw{}", hex(6))),
    ]
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn line(v: serde_json::Value) -> String {
    v.to_string()
}

/// A data directory for users alice (Linux) and Bob (Windows) leaking everything.
fn leaky_source(dir: &Path) -> Vec<(&'static str, String)> {
    let secrets = planted();
    let get = |k: &str| secrets.iter().find(|(n, _)| *n == k).unwrap().1.clone();
    let mut prompt = String::from("My config, please check it:\n");
    for (kind, value) in &secrets {
        match *kind {
            "aws-secret" => prompt.push_str(&format!("aws_secret_access_key = {value}\n")),
            "password" => prompt.push_str(&format!("password={value}\n")),
            "url" => prompt.push_str(&format!(
                "DATABASE_URL=postgres://admin:{value}@db.internal/app\n"
            )),
            _ => prompt.push_str(&format!("{kind} token: {value}\n")),
        }
    }
    let key_block = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----",
        "MIIEow".to_string() + &"A".repeat(58),
        "Q".repeat(64)
    );
    let linux = [
        line(serde_json::json!({"type":"user","sessionId":"s1","uuid":"u1","cwd":"/home/alice/code/app","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content": prompt}})),
        line(serde_json::json!({"type":"assistant","sessionId":"s1","uuid":"a1","cwd":"/home/alice/code/app","timestamp":"2026-01-01T10:00:05Z","message":{"id":"m1","model":"claude-opus-4-6","content":[
            {"type":"text","text": format!("Found these in /home/alice/code/app/.env (alice's file):\n\n```\n{}\n{key_block}\n```", get("github"))},
            {"type":"tool_use","id":"t1","name":"Bash","input":{"command": format!("curl -H 'Authorization: Bearer {}' https://api.example.com", get("openai"))}},
            {"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/home/alice/secrets/alice.pem"}}
        ]}})),
        line(serde_json::json!({"type":"custom-title","sessionId":"s1","customTitle": format!("rotate {}", get("stripe"))})),
    ]
    .join("\n");
    write(dir, "projects/-home-alice-code-app/s1.jsonl", &linux);
    let windows = line(
        serde_json::json!({"type":"user","sessionId":"s2","cwd":"C:\\Users\\Bob\\work\\site","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":format!("Bob here: C:\\Users\\Bob\\work\\site has {}", get("slack"))}}),
    );
    write(dir, "projects/C--Users-Bob-work-site/s2.jsonl", &windows);
    write(
        dir,
        "projects/-home-alice-code-app/memory/MEMORY.md",
        "- [Deploy keys](deploy.md) — where alice keeps the keys\n",
    );
    write(
        dir,
        "projects/-home-alice-code-app/memory/deploy.md",
        &format!("---\nname: Deploy keys for alice\ndescription: token {}\ntype: reference\n---\nThe key is {} and lives in /home/alice/.ssh.\n", get("gitlab"), get("anthropic")),
    );
    write(
        dir,
        "history.jsonl",
        &line(
            serde_json::json!({"display": format!("use {} for the maps", get("google")), "timestamp": 1767261600000u64, "project": "/home/alice/code/app", "sessionId": "s1"}),
        ),
    );
    write(
        dir,
        "sessions/1.json",
        &line(
            serde_json::json!({"pid":1,"sessionId":"s1","cwd":"/home/alice/code/app","startedAt":1767261600000u64}),
        ),
    );
    let mut all = secrets;
    all.push(("private-key", "Q".repeat(64)));
    all
}

#[test]
fn planted_secrets_home_paths_and_usernames_never_reach_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    let secrets = leaky_source(&src);
    let out = tmp.path().join("site");
    let report = ccwiki::build(&common::options(vec![src.clone()], out.clone())).expect("builds");
    let files = common::read_tree(&out);
    assert!(files.len() > 10);
    for (rel, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        let lower = text.to_lowercase();
        for (kind, value) in &secrets {
            assert!(
                !text.contains(value.as_str()),
                "{kind} secret survives in {rel}"
            );
        }
        for user in ["alice", "bob"] {
            assert!(
                !lower.contains(user),
                "user name {user:?} survives in {rel}"
            );
            assert!(
                !rel.to_lowercase().contains(user),
                "user name in file name {rel}"
            );
        }
        assert!(
            !text.contains("/home/") && !lower.contains("c:\\\\users"),
            "home path in {rel}"
        );
    }
    for kind in [
        "home",
        "username",
        "github",
        "anthropic",
        "openai",
        "aws-access-key",
        "jwt",
        "stripe",
        "gitlab",
        "slack",
        "google-api-key",
        "private-key",
        "url-credentials",
        "assignment",
    ] {
        assert!(
            report.redactions.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} counted: {:?}",
            report.redactions
        );
    }
    // The same build without redaction shows them: the test would catch a leak.
    let raw = tmp.path().join("raw");
    let mut opts = common::options(vec![src], raw.clone());
    opts.redact = false;
    ccwiki::build(&opts).unwrap();
    let all: String = common::read_tree(&raw)
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert!(
        all.contains(&planted()[4].1),
        "unredacted build shows the GitHub token"
    );
}

#[test]
fn a_failed_build_leaves_the_previous_site_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    common::build_demo(&out, "default");
    let before = common::read_tree(&out);
    // A broken template in the wiki repository fails the build after the data was read.
    let repo = tmp.path().join("repo");
    write(&repo, "templates/session.html", "{% extends \"ccwiki/session.html\" %}{% block content %}{{ missing.value }}{% endblock content %}");
    let mut opts = common::options(vec![common::demo()], out.clone());
    opts.site_dir = Some(repo);
    let err = ccwiki::build(&opts).unwrap_err();
    assert_eq!(err.exit_code(), 3, "failed while writing: {err}");
    let err = err.to_string();
    assert!(err.contains("previous site is left as it was"), "{err}");
    assert!(
        err.contains("templates/session.html:1:") && err.contains("missing"),
        "{err}"
    );
    assert!(!err.contains('\n'), "one-line error: {err}");
    assert_eq!(common::read_tree(&out), before);
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        2,
        "no staging folder left behind"
    );
}

#[test]
fn a_killed_build_leaves_either_the_old_or_the_new_site() {
    let tmp = tempfile::tempdir().unwrap();
    // Enough sessions that writing takes a while.
    let src = tmp.path().join("claude");
    let demo_session = std::fs::read_to_string(
        common::demo()
            .join("projects/-home-dana-code-tide-api/a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8.jsonl"),
    )
    .unwrap();
    for i in 0..400 {
        let id = format!("{i:08x}-0000-4000-8000-000000000000");
        write(
            &src,
            &format!("projects/-home-dana-code-tide-api/{id}.jsonl"),
            &demo_session.replace("a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8", &id),
        );
    }
    let out = tmp.path().join("site");
    common::build_demo(&out, "default");
    let old = common::read_tree(&out);
    let expected_new = tmp.path().join("expected");
    ccwiki::build(&common::options(vec![src.clone()], expected_new.clone())).unwrap();
    let new = common::read_tree(&expected_new);
    // 30 kills spread over the whole build, from start-up to the swap.
    for delay_ms in (0..30u64).map(|i| 2 + (i * 37) % 400) {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ccwiki"))
            .env("CCWIKI_CACHE_DIR", common::test_cache())
            .env(
                "CCWIKI_ARCHIVE_DIR",
                std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
            )
            .args(["build", "--quiet", "--source"])
            .arg(&src)
            .arg("--out")
            .arg(&out)
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let mut now = common::read_tree(&out);
        // Killed in the instant of the swap, the site may still hold the
        // build's proof (a hidden file of 16 characters: the old site gets
        // it just before the swap, the new one drops it just after); the
        // next build removes it (checked below).
        now.remove(".ccwiki-build");
        let differing = |other: &std::collections::BTreeMap<String, Vec<u8>>| {
            (now.keys().chain(other.keys()))
                .filter(|k| now.get(*k) != other.get(*k))
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
        };
        assert!(
            now == old || now == new,
            "after a kill at {delay_ms} ms the site is neither the old nor the new one: \
             {:?} differ from the old, {:?} from the new",
            differing(&old),
            differing(&new)
        );
        // Put the old site back for the next round.
        if now == new {
            common::build_demo(&out, "default");
        }
    }
    // The next build cleans up what killed builds left and succeeds.
    ccwiki::build(&common::options(vec![src], out.clone())).unwrap();
    assert_eq!(common::read_tree(&out), new);
    let leftovers: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("ccwiki-"))
        .collect();
    // What each leftover holds, to tell which step a kill interrupted.
    let inside: Vec<String> = leftovers
        .iter()
        .map(|l| {
            let dir = tmp.path().join(l);
            let proof = std::fs::read_to_string(dir.join(".ccwiki-build")).unwrap_or_default();
            let files: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .take(4)
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            format!("{l}: proof {proof:?}, holds {files:?}")
        })
        .collect();
    assert!(leftovers.is_empty(), "{inside:?}");
}

#[test]
fn hostile_names_stay_inside_the_output_and_the_source_is_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    let evil_cwd = "/../../../../tmp/escape";
    write(
        &src,
        "projects/-evil/../../x.jsonl"
            .replace("../../", "")
            .as_str(),
        &line(
            serde_json::json!({"type":"user","sessionId":"../../../evil","cwd":evil_cwd,"message":{"content":"hi"}}),
        ),
    );
    write(
        &src,
        "projects/-evil/CON.jsonl",
        &line(
            serde_json::json!({"type":"user","sessionId":"CON","cwd":"C:\\..\\..\\Windows","message":{"content":"hi"}}),
        ),
    );
    write(
        &src,
        "projects/-evil/memory/nul.md",
        "---\nname: ../../../etc/passwd\ntype: feedback\n---\nx\n",
    );
    write(
        &src,
        "projects/-evil/memory/b.md",
        &format!("---\nname: {}\ntype: reference\n---\ny\n", "z".repeat(300)),
    );
    let before = common::read_tree(&src);
    let out = tmp.path().join("site");
    ccwiki::build(&common::options(vec![src.clone()], out.clone())).unwrap();
    assert_eq!(common::read_tree(&src), before, "the source is only read");
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        2,
        "nothing written beside the output: {names:?}"
    );
    for rel in common::read_tree(&out).keys() {
        assert!(!rel.contains(".."), "{rel}");
        assert!(rel.split('/').all(|seg| seg.len() <= 80), "{rel}");
        assert!(
            !rel.split('/')
                .any(|seg| seg.eq_ignore_ascii_case("con") || seg.eq_ignore_ascii_case("nul")),
            "{rel}"
        );
    }
    assert!(!Path::new("/tmp/escape").exists());
}

#[test]
fn a_memory_named_index_does_not_replace_its_sections_list() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    write(
        &src,
        "projects/-w-app/a.jsonl",
        &line(
            serde_json::json!({"type":"user","sessionId":"s1","cwd":"/w/app","message":{"content":"hi"}}),
        ),
    );
    for (file, name) in [("a.md", "index"), ("b.md", "Index"), ("c.md", "Other")] {
        write(
            &src,
            &format!("projects/-w-app/memory/{file}"),
            &format!("---\nname: {name}\ndescription: d\ntype: feedback\n---\nbody of {file}\n"),
        );
    }
    let out = tmp.path().join("site");
    ccwiki::build(&common::options(vec![src], out.clone())).unwrap();
    let page_text = |rel: &str| std::fs::read_to_string(out.join(rel)).unwrap();
    let list = page_text("skills/index.html");
    for (page, file) in [
        ("skills/index-page.html", "a.md"),
        ("skills/index-page-2.html", "b.md"),
        ("skills/other.html", "c.md"),
    ] {
        assert!(
            page_text(page).contains(&format!("body of {file}")),
            "{page}"
        );
        let href = format!("href=\"../{page}\"");
        assert!(list.contains(&href), "{href} in {list}");
    }
    assert!(!list.contains("body of"), "the list stays a list");
}

#[test]
fn output_inside_the_source_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "projects/-p/s.jsonl", "{}");
    let err = ccwiki::build(&common::options(
        vec![tmp.path().to_path_buf()],
        tmp.path().join("site"),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("overlaps the source"), "{err}");
    assert!(!tmp.path().join("site").exists());
}

#[test]
fn output_reaching_into_the_source_by_dots_or_symlinks_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    write(&src, "projects/-p/s.jsonl", "{}");
    std::fs::create_dir_all(tmp.path().join("elsewhere")).unwrap();
    let mut sneaky = vec![tmp.path().join("elsewhere/../claude/site")];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&src, tmp.path().join("link")).unwrap();
        sneaky.push(tmp.path().join("link/site"));
        sneaky.push(tmp.path().join("link/new/../site"));
    }
    for out in sneaky {
        let err =
            ccwiki::build(&common::options(vec![src.clone()], out.clone())).expect_err("refused");
        assert!(
            err.to_string().contains("overlaps the source"),
            "{}: {err}",
            out.display()
        );
    }
    assert!(!src.join("site").exists() && !src.join("new").exists());
}

#[test]
fn excluded_projects_and_private_memories_leave_no_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("claude");
    write(
        &src,
        "projects/-w-secretproj/s.jsonl",
        &line(
            serde_json::json!({"type":"user","sessionId":"s9","cwd":"/w/secretproj","message":{"content":"zanzibar plan"}}),
        ),
    );
    write(
        &src,
        "projects/-w-secretproj/memory/m.md",
        "---\nname: zanzibar memory\ntype: project\n---\nzanzibar\n",
    );
    write(
        &src,
        "history.jsonl",
        &line(
            serde_json::json!({"display":"zanzibar prompt","timestamp":1767261600000u64,"project":"/w/secretproj","sessionId":"s9"}),
        ),
    );
    write(
        &src,
        "projects/-w-open/s.jsonl",
        &line(
            serde_json::json!({"type":"user","sessionId":"s1","cwd":"/w/open","message":{"content":"hello"}}),
        ),
    );
    write(
        &src,
        "projects/-w-open/memory/p.md",
        "---\nname: quagga note\ntype: user\nprivate: true\n---\nquagga\n",
    );
    let out = tmp.path().join("site");
    let mut opts = common::options(vec![src], out.clone());
    opts.exclude = vec!["*secret*".into()];
    let report = ccwiki::build(&opts).unwrap();
    assert_eq!(report.excluded, 2);
    for (rel, bytes) in common::read_tree(&out) {
        let text = String::from_utf8_lossy(&bytes).to_lowercase();
        assert!(
            !text.contains("zanzibar") && !text.contains("secretproj"),
            "excluded project in {rel}"
        );
        assert!(!text.contains("quagga"), "private memory in {rel}");
    }
}

#[test]
fn a_rebuild_keeps_the_users_cname_nojekyll_and_well_known() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    common::build_demo(&out, "default");
    std::fs::write(out.join("CNAME"), "wiki.example.org\n").unwrap();
    std::fs::write(out.join(".nojekyll"), "").unwrap();
    std::fs::create_dir_all(out.join(".well-known")).unwrap();
    std::fs::write(out.join(".well-known/security.txt"), "Contact: x\n").unwrap();
    std::fs::write(out.join("stray.html"), "not kept").unwrap();
    #[cfg(unix)]
    {
        // a link in a kept folder is not followed out
        let outside = tmp.path().join("outside.txt");
        std::fs::write(&outside, "secret").unwrap();
        std::os::unix::fs::symlink(&outside, out.join(".well-known/link.txt")).unwrap();
    }
    common::build_demo(&out, "default");
    assert_eq!(
        std::fs::read_to_string(out.join("CNAME")).unwrap(),
        "wiki.example.org\n"
    );
    assert!(out.join(".nojekyll").is_file());
    assert!(out.join(".well-known/security.txt").is_file());
    assert!(!out.join(".well-known/link.txt").exists());
    assert!(
        !out.join("stray.html").exists(),
        "only what `keep` names stays"
    );
    // With `keep` empty, they go.
    let mut opts = common::options(vec![common::demo()], out.clone());
    opts.keep = Vec::new();
    ccwiki::build(&opts).unwrap();
    assert!(!out.join("CNAME").exists());
}
