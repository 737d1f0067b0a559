//! The `ccwiki` binary as a user runs it: exit codes, messages, summary.

use std::path::PathBuf;
use std::process::Command;

fn ccwiki() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ccwiki"))
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
        help.contains("--source") && help.contains("Examples:"),
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
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not made by ccwiki"));
    assert_eq!(
        std::fs::read_to_string(site.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_dir(&site).unwrap().count(), 1);
}
