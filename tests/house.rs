//! The house rules, checked on the source itself: top-level modules depend
//! on each other one way only (no cycle), no file holds over 1,000 lines of
//! code, no function over 80 lines of logic, and the declared
//! `rust-version` is one every locked dependency accepts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.expect("walk src"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect()
}

/// Lines that hold code: not blank, not a comment.
fn is_code(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with("//")
}

/// The top-level module a file belongs to (`src/site/x.rs` → `site`).
fn top_module(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    (!matches!(name.as_str(), "lib" | "main")).then_some(name)
}

/// Top-level module → the top-level modules it uses (`crate::x`, or
/// `super::x` from a top-level file).
fn module_edges() -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let files = rust_files(&src());
    let tops: BTreeSet<String> = files.iter().filter_map(|f| top_module(f)).collect();
    for f in &files {
        let Some(from) = top_module(f) else { continue };
        let text = std::fs::read_to_string(f).expect("read source");
        let deps = edges.entry(from.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != from && tops.contains(&name) {
                deps.insert(name);
            }
        }
        // `use crate::{a, b}` lists
        for (i, _) in text.match_indices("crate::{") {
            let rest = &text[i + "crate::{".len()..];
            let list = &rest[..rest.find('}').unwrap_or(0)];
            for item in list.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != from && tops.contains(&name) {
                    deps.insert(name);
                }
            }
        }
    }
    edges
}

/// A cycle through `start`, if any.
fn cycle_from(start: &str, edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        node: &str,
        start: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in edges.get(node).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(next, start, edges, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(start, start, edges, &mut path, &mut seen).then_some(path)
}

#[test]
fn top_level_modules_form_no_cycle() {
    let edges = module_edges();
    assert!(edges.len() >= 5, "modules found: {edges:?}");
    for m in edges.keys() {
        if let Some(cycle) = cycle_from(m, &edges) {
            panic!("module cycle: {} → {m}", cycle.join(" → "));
        }
    }
    // The bottom imports nothing above it.
    for low in ["base", "config"] {
        let above: Vec<&String> = edges[low].iter().filter(|d| *d != "base").collect();
        assert!(above.is_empty(), "{low} uses {above:?}");
    }
}

#[test]
fn no_file_over_a_thousand_lines_of_code() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = ["src", "tests", "examples", "benches"]
        .iter()
        .flat_map(|d| rust_files(&root.join(d)));
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read source");
        let code = text.lines().filter(|l| is_code(l)).count();
        assert!(code <= 1000, "{} has {code} lines of code", f.display());
    }
}

/// Functions and their lines of logic, found by indentation (rustfmt's
/// layout: a body ends at the first `}` at the indentation of its `fn`).
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_tests = None;
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if line.trim_start().starts_with("mod tests") {
            in_tests = Some(indent);
        }
        let t = line.trim_start();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        let one_line = t.ends_with('}') && t.contains('{');
        if !is_fn || one_line || t.ends_with(';') || in_tests.is_some_and(|d| indent > d) {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        let end = lines[i..]
            .iter()
            .position(|l| l.starts_with(&close) && !l[indent..].starts_with("})"))
            .map_or(lines.len(), |e| i + e);
        let body = lines[i..end].iter().filter(|l| is_code(l)).count();
        if body > limit {
            let name: String = t
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((name, body));
        }
    }
    out
}

#[test]
fn no_function_over_eighty_lines_of_logic() {
    let mut long = Vec::new();
    // (test modules kept in their own file, `tests.rs` or a file under
    // a `tests` folder, are test code too)
    let is_test = |f: &std::path::Path| {
        let inside = f.strip_prefix(src()).unwrap_or(f);
        f.ends_with("tests.rs") || inside.components().any(|c| c.as_os_str() == "tests")
    };
    for f in rust_files(&src()).into_iter().filter(|f| !is_test(f)) {
        let text = std::fs::read_to_string(&f).expect("read source");
        for (name, n) in long_functions(&text, 80) {
            long.push(format!("{}: {name} has {n} lines", f.display()));
        }
    }
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

#[test]
fn the_length_check_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(90);
    let text = format!("fn short() {{\n    1\n}}\n\npub fn long() {{\n{body}}}\n");
    assert_eq!(long_functions(&text, 80), vec![("long".to_string(), 91)]);
}

/// `1.88` → (1, 88, 0).
fn version(v: &str) -> (u64, u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// Where cargo keeps the sources of the crates it built.
fn registry_sources() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    std::fs::read_dir(home.join("registry/src"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn rust_version_of(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let v: toml::Value = toml::from_str(&text).ok()?;
    v.get("package")?
        .get("rust-version")?
        .as_str()
        .map(str::to_string)
}

/// Every locked crate this machine built (their sources are in cargo's
/// registry, offline), against the `rust-version` declared here.
#[test]
fn declared_rust_version_is_one_every_locked_dependency_accepts() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ours = rust_version_of(&root.join("Cargo.toml")).expect("ccwiki declares a rust-version");
    let lock: toml::Value = toml::from_str(
        &std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock is committed"),
    )
    .expect("Cargo.lock is TOML");
    let sources = registry_sources();
    let (mut read, mut newer) = (0, Vec::new());
    for p in lock["package"].as_array().expect("packages") {
        let (Some(name), Some(ver)) = (p["name"].as_str(), p["version"].as_str()) else {
            continue;
        };
        let Some(manifest) = sources
            .iter()
            .map(|s| s.join(format!("{name}-{ver}/Cargo.toml")))
            .find(|m| m.is_file())
        else {
            continue;
        };
        read += 1;
        if let Some(v) = rust_version_of(&manifest) {
            if version(&v) > version(&ours) {
                newer.push(format!("{name} {ver} needs Rust {v}"));
            }
        }
    }
    assert!(
        read >= 20,
        "read the manifests of only {read} locked crates"
    );
    assert!(
        newer.is_empty(),
        "rust-version {ours} is older than what these need:\n{}",
        newer.join("\n")
    );
}
