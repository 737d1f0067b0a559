//! Privacy by construction, checked on the shapes real data has: a Windows
//! user's name in JSON-escaped paths and `ls -l` owners, a user known only
//! from a project folder's name, secrets that straddle the cut of a tool
//! output preview, cookies and session headers. No byte of a name, home
//! path or secret may reach any file of the site, any file name, or the
//! output of `ccwiki search` (plain and `--json`).

mod common;

use serde_json::json;
use std::path::Path;
use std::process::Command;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// A small deterministic generator: the same "random" places on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Fake secrets, built at run time so this file does not look like it holds any.
fn secrets(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let alnum = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut r = |n: usize| -> String {
        (0..n)
            .map(|_| alnum[rng.below(alnum.len() as u64) as usize] as char)
            .collect()
    };
    vec![
        ("pg-password", format!("Pg{}", r(14))),
        ("npm", format!("npm_{}", r(36))),
        ("jwt", format!("eyJ{}.eyJ{}.{}", r(24), r(40), r(43))),
        ("github", format!("ghp_{}", r(36))),
        ("cookie", format!("sess{}", r(28))),
        ("set-cookie", format!("sid{}", r(30))),
        ("curl-b", format!("tok{}", r(26))),
        ("auth-token", format!("tk{}", r(32))),
    ]
}

/// How each secret is written in a tool's output.
fn shape(kind: &str, value: &str) -> String {
    match kind {
        "pg-password" => format!("DATABASE_URL=postgres://app:{value}@db.internal:5432/app"),
        "cookie" => format!("Cookie: sessionid={value}; theme=dark"),
        "set-cookie" => format!("Set-Cookie: connect.sid={value}; Path=/; HttpOnly"),
        "curl-b" => format!("curl -b 'session={value}' https://example.com/api"),
        "auth-token" => format!("curl -H 'Authorization: token {value}' https://api.example.com"),
        _ => format!("the key is {value} here"),
    }
}

struct Fixture {
    /// Strings that must appear nowhere in the output.
    forbidden: Vec<String>,
    /// Secrets: no 8-character piece of them may appear either.
    secrets: Vec<String>,
}

/// A data directory with every leak shape, in `dir`.
fn leaky(dir: &Path) -> Fixture {
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    let mut forbidden = vec![
        "Zoltan".to_string(),
        "zoltan".to_string(),
        "Quintessa".to_string(),
        "quintessa".to_string(),
        "C:\\Users".to_string(),
        "C:\\\\Users".to_string(),
        "/Users/quintessa".to_string(),
    ];
    let mut all_secrets = Vec::new();
    let cwd = "C:\\Users\\Zoltan\\work\\orbit";
    let mut lines = vec![json!({"type":"user","sessionId":"w1","uuid":"u0","cwd":cwd,
        "timestamp":"2026-02-01T09:00:00Z",
        "message":{"role":"user","content":"list the folder and check the config"}})
    .to_string()];
    // Tool outputs with a secret planted at a random offset around the
    // preview's cut (300 characters), and at 200/256/300/500 exactly.
    let mut n = 0;
    for round in 0..6 {
        for (kind, value) in secrets(&mut rng) {
            let offset = match round {
                0 => 200,
                1 => 256,
                2 => 290,
                3 => 500,
                _ => 150 + rng.below(300) as usize,
            };
            let shaped = shape(kind, &value);
            // `ls -l` output with the owner's name and escaped paths as filler
            let filler =
                "drwxr-xr-x 1 Zoltan 197610 0 Feb  1 09:00 C:\\Users\\Zoltan\\work\\orbit\\src\n"
                    .repeat(8);
            let at = offset.min(filler.len());
            let output = format!("{}{}\n{}", &filler[..at], shaped, &filler[at..]);
            n += 1;
            lines.push(json!({"type":"assistant","sessionId":"w1","uuid":format!("a{n}"),"cwd":cwd,
                "timestamp":"2026-02-01T09:00:05Z",
                "message":{"id":format!("m{n}"),"model":"claude-opus-4-6","content":[
                    {"type":"tool_use","id":format!("t{n}"),"name":"Bash","input":{"command":"dir"}}]}})
            .to_string());
            lines.push(
                json!({"type":"user","sessionId":"w1","uuid":format!("r{n}"),"cwd":cwd,
                "timestamp":"2026-02-01T09:00:06Z",
                "message":{"role":"user","content":[
                    {"type":"tool_result","tool_use_id":format!("t{n}"),"content":output}]}})
                .to_string(),
            );
            all_secrets.push(value);
        }
    }
    lines.push(json!({"type":"assistant","sessionId":"w1","uuid":"z1","cwd":cwd,
        "timestamp":"2026-02-01T09:01:00Z",
        "message":{"id":"mz","model":"claude-opus-4-6","content":[
            {"type":"text","text":"Done: the files under C:\\Users\\Zoltan\\work\\orbit belong to Zoltan."}]}})
    .to_string());
    write(
        dir,
        "projects/C--Users-Zoltan-work-orbit/w1.jsonl",
        &(lines.join("\n") + "\n"),
    );
    // A user known only from a folder name: memory files, no transcript.
    write(
        dir,
        "projects/-Users-quintessa-notes/memory/MEMORY.md",
        "- [Stack](stack.md) — what quintessa uses\n",
    );
    write(
        dir,
        "projects/-Users-quintessa-notes/memory/stack.md",
        "---\nname: Stack\ndescription: tools\ntype: project\n---\nNotes live in /Users/quintessa/notes.\n",
    );
    forbidden.extend(all_secrets.iter().cloned());
    Fixture {
        forbidden,
        secrets: all_secrets,
    }
}

/// Every 8-character piece of `secret`.
fn pieces(secret: &str) -> Vec<&str> {
    let b = secret.as_bytes();
    (0..b.len().saturating_sub(7))
        .filter_map(|i| secret.get(i..i + 8))
        .collect()
}

fn assert_clean(what: &str, text: &str, fx: &Fixture) {
    for f in &fx.forbidden {
        if let Some(i) = text.find(f.as_str()) {
            let around: String = text[i..].chars().take(100).collect();
            panic!("{what} holds {f:?}: …{around}…");
        }
    }
    for s in &fx.secrets {
        for p in pieces(s) {
            assert!(!text.contains(p), "{what} holds {p:?}, a piece of a secret");
        }
    }
}

#[test]
fn nothing_private_reaches_the_site_or_the_search() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("claude");
    let fx = leaky(&src);
    let out = tmp.path().join("site");
    let report = ccwiki::build(&common::options(vec![src.clone()], out.clone())).expect("builds");
    assert!(report.sessions >= 1 && report.memories >= 1, "{report:?}");
    for (k, n) in [("home", 1), ("username", 1)] {
        assert!(
            report.redactions.get(k).copied().unwrap_or(0) >= n,
            "no {k} redaction: {:?}",
            report.redactions
        );
    }
    let tree = common::read_tree(&out);
    assert!(tree.len() > 10);
    for (path, bytes) in &tree {
        assert_clean(&format!("file name {path}"), path, &fx);
        assert_clean(path, &String::from_utf8_lossy(bytes), &fx);
    }
    // The project of the folder-only user is named without the name.
    assert!(
        tree.keys().any(|p| p.starts_with("projects/notes/")),
        "{:?}",
        tree.keys()
            .filter(|p| p.starts_with("projects/"))
            .collect::<Vec<_>>()
    );

    for query in ["Zoltan", "orbit", "Cookie", "session", "quintessa", "notes"] {
        for json in [false, true] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_ccwiki"));
            cmd.args(["search", query, "--limit", "50", "--source"])
                .arg(&src)
                .env("CCWIKI_CACHE_DIR", common::test_cache())
                .env(
                    "CCWIKI_ARCHIVE_DIR",
                    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
                );
            if json {
                cmd.arg("--json");
            }
            let o = cmd.output().expect("run ccwiki search");
            // (the query itself is the user's own words, echoed back)
            let text = String::from_utf8_lossy(&o.stdout).to_string()
                + &String::from_utf8_lossy(&o.stderr).replace(query, "");
            assert_clean(&format!("search {query} (json: {json})"), &text, &fx);
        }
    }
}

#[test]
fn no_redact_shows_what_redaction_hides() {
    // The check above proves nothing if the fixture never reached the
    // output: without redaction the name and the secrets are there.
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("claude");
    let fx = leaky(&src);
    let out = tmp.path().join("site");
    let mut opts = common::options(vec![src], out.clone());
    opts.redact = false;
    ccwiki::build(&opts).expect("builds");
    let all: String = common::read_tree(&out)
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert!(all.contains("Zoltan"));
    let shown = fx
        .secrets
        .iter()
        .filter(|s| pieces(s).iter().any(|p| all.contains(p)))
        .count();
    assert!(shown > 0, "no planted secret reached an unredacted site");
}
