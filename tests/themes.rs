//! Themes people customise: bundled themes, one-template overrides that
//! extend the original, eject, and the command line around them.

mod common;

use std::path::Path;

fn build(out: &Path, theme: &str, site_dir: Option<&Path>) {
    let mut opts = common::options(vec![common::demo()], out.to_path_buf());
    opts.theme = theme.to_string();
    opts.site_dir = site_dir.map(Path::to_path_buf);
    ccwiki::build(&opts).expect("builds");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_bundled_theme_builds_the_demo_with_its_own_stylesheet() {
    let tmp = tempfile::tempdir().unwrap();
    let mut sheets = Vec::new();
    for theme in ccwiki::output::theme::list(None) {
        let out = tmp.path().join(&theme.name);
        build(&out, &theme.name, None);
        let files = common::read_tree(&out);
        assert!(files.len() > 30, "{}: {} files", theme.name, files.len());
        let css = files.get("static/style.css").expect("stylesheet");
        let own = theme
            .static_files()
            .into_iter()
            .find(|(p, _)| p == "static/style.css")
            .unwrap()
            .1;
        assert_eq!(css, &own, "{} ships its own stylesheet", theme.name);
        sheets.push(css.clone());
    }
    assert!(sheets.len() >= 2 && sheets[0] != sheets[1], "themes differ");
}

#[test]
fn eject_then_build_gives_the_same_bytes() {
    for name in ["default", "docs"] {
        let tmp = tempfile::tempdir().unwrap();
        let bundled = tmp.path().join("bundled");
        build(&bundled, name, None);
        let repo = tmp.path().join("repo");
        ccwiki::output::theme::eject(name, &repo.join("themes").join(name)).unwrap();
        let ejected = tmp.path().join("ejected");
        build(&ejected, name, Some(&repo));
        assert_eq!(
            common::read_tree(&bundled),
            common::read_tree(&ejected),
            "{name}"
        );
        // And the ejected copy is really used: edit it, see the change.
        write(
            &repo.join("themes").join(name).join("static/style.css"),
            "body{}",
        );
        build(&ejected, name, Some(&repo));
        assert_eq!(
            std::fs::read_to_string(ejected.join("static/style.css")).unwrap(),
            "body{}"
        );
    }
}

#[test]
fn an_error_in_an_ejected_copy_that_differs_from_the_built_in_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let theme = repo.join("themes/default");
    ccwiki::output::theme::eject("default", &theme).unwrap();
    let build_err = || {
        let mut opts = common::options(vec![common::demo()], tmp.path().join("site"));
        opts.site_dir = Some(repo.clone());
        ccwiki::build(&opts)
            .expect_err("the template fails")
            .to_string()
    };
    // The diff partial as an older ccwiki had it (lines were runs of text).
    write(
        &theme.join("templates/partials/diff.html"),
        "<pre class=\"diff\">{% for l in diff %}<span class=\"{{ l.kind }}\">{% for p in l.parts %}{{ p.text }}{% endfor %}</span>{% endfor %}</pre>\n",
    );
    let err = build_err();
    assert!(
        err.contains("themes/default/templates/partials/diff.html:1:")
            && err.contains("differs from the built-in partials/diff.html")
            && !err.contains('\n'),
        "{err}"
    );
    // A template of the theme's own, with no built-in of its name, fails
    // plainly.
    ccwiki::output::theme::eject("default", &tmp.path().join("fresh")).unwrap();
    std::fs::copy(
        tmp.path().join("fresh/templates/partials/diff.html"),
        theme.join("templates/partials/diff.html"),
    )
    .unwrap();
    write(&theme.join("templates/partials/mine.html"), "{{ nope.x }}");
    write(
        &theme.join("templates/about.html"),
        "{% extends \"ccwiki/about.html\" %}{% block title %}{% include \"partials/mine.html\" %}{% endblock title %}",
    );
    let err = build_err();
    assert!(
        err.contains("partials/mine.html:1:") && !err.contains("differs from the built-in"),
        "{err}"
    );
}

#[test]
fn a_template_that_does_not_compile_fails_the_build_and_keeps_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, out) = (tmp.path().join("repo"), tmp.path().join("site"));
    let mut opts = common::options(vec![common::demo()], out.clone());
    opts.site_dir = Some(repo.clone());
    ccwiki::build(&opts).expect("builds");
    let before = common::read_tree(&out);
    // Nothing of the site is touched, and the error names the template.
    write(
        &repo.join("templates/about.html"),
        "{% extends \"ccwiki/about.html\" %}{% block title %}{{ oops( }}{% endblock title %}",
    );
    let err = ccwiki::build(&opts).expect_err("the template does not compile");
    let err = err.to_string();
    assert!(err.contains("about.html") && !err.contains('\n'), "{err}");
    assert!(before == common::read_tree(&out), "the site is as it was");
}

#[test]
fn one_template_override_extends_the_original() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    build(&plain, "default", None);
    let repo = tmp.path().join("repo");
    write(
        &repo.join("templates/session.html"),
        "{% extends \"ccwiki/session.html\" %}{% block title %}Transcript · {{ page.title }}{% endblock title %}",
    );
    write(&repo.join("static/extra.css"), "/* mine */");
    let custom = tmp.path().join("custom");
    build(&custom, "default", Some(&repo));
    let (a, b) = (common::read_tree(&plain), common::read_tree(&custom));
    let session = "sessions/a8e4f019/index.html";
    let page = String::from_utf8_lossy(&b[session]).into_owned();
    assert!(page.contains("<title>Transcript · "), "override used");
    assert!(
        page.contains("class=\"turn prompt\""),
        "the rest of the original is kept"
    );
    assert_eq!(a["index.html"], b["index.html"], "other pages unchanged");
    assert_eq!(b["static/extra.css"], b"/* mine */");
    let changed: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
    assert!(
        changed
            .iter()
            .all(|k| k.starts_with("sessions/") && *k != "sessions/index.html"),
        "{changed:?}"
    );
}

#[test]
fn a_local_theme_layers_over_the_built_ins() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    write(
        &repo.join("themes/mine/theme.toml"),
        "name = \"mine\"\ndescription = \"Mine.\"\n",
    );
    write(
        &repo.join("themes/mine/static/style.css"),
        "main{color:red}",
    );
    write(
        &repo.join("themes/mine/templates/base.html"),
        "{% extends \"ccwiki/base.html\" %}{% block head %}<link rel=\"stylesheet\" href=\"{{ root }}static/mine.css\">{% endblock head %}",
    );
    write(&repo.join("themes/mine/static/mine.css"), "p{}");
    let out = tmp.path().join("site");
    build(&out, "mine", Some(&repo));
    let files = common::read_tree(&out);
    assert_eq!(files["static/style.css"], b"main{color:red}");
    let about = String::from_utf8_lossy(&files["about/index.html"]).into_owned();
    assert!(
        about.contains("href=\"../static/mine.css\""),
        "theme template used, root resolved"
    );
    assert!(about.contains("About you"), "built-in page content kept");
    let names: Vec<String> = ccwiki::output::theme::list(Some(&repo))
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, vec!["default", "docs", "mine"]);
}

#[test]
fn unknown_theme_and_bad_config_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ccwiki"))
            .env("CCWIKI_CACHE_DIR", common::test_cache())
            .env(
                "CCWIKI_ARCHIVE_DIR",
                std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
            )
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap()
    };
    let demo = common::demo();
    let demo = demo.to_str().unwrap();
    let out = run(&["build", "--source", demo, "--theme", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("theme list"));
    std::fs::write(
        tmp.path().join("ccwiki.toml"),
        "title = \"x\"\nthemes = \"docs\"\n",
    )
    .unwrap();
    let out = run(&["build", "--source", demo]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ccwiki.toml") && err.contains("line 2") && err.contains("themes"),
        "{err}"
    );
    std::fs::write(
        tmp.path().join("ccwiki.toml"),
        "title = \"From config\"\ntheme = \"docs\"\nout = \"public\"\n[extra]\nauthor = \"Dana\"\n",
    )
    .unwrap();
    let out = run(&["build", "--source", demo, "--title", "From flag"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let home = std::fs::read_to_string(tmp.path().join("public/index.html")).unwrap();
    assert!(home.contains("From flag"), "flags override the file");
    let css = std::fs::read(tmp.path().join("public/static/style.css")).unwrap();
    let docs = ccwiki::output::theme::resolve("docs", None)
        .unwrap()
        .static_files();
    assert_eq!(
        css,
        docs.iter()
            .find(|(p, _)| p == "static/style.css")
            .unwrap()
            .1,
        "theme from the file"
    );
    let out = run(&["theme", "list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.lines().next().unwrap().starts_with("default\t"),
        "{list}"
    );
}

#[test]
fn an_overridden_turns_partial_is_used_and_makes_what_the_built_in_one_does() {
    // With the built-in templates, turns are written without Tera
    // (`output::turns`); an override of the partial goes through Tera.
    // The same text with a mark before it must give the same pages, mark
    // aside: the two ways agree on real sessions, and the override is used.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    build(&plain, "default", None);
    let built_in = ccwiki::output::render::BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "partials/turns.html")
        .unwrap()
        .1;
    let repo = tmp.path().join("repo");
    write(
        &repo.join("templates/partials/turns.html"),
        &format!("<!-- mine -->{built_in}"),
    );
    let custom = tmp.path().join("custom");
    build(&custom, "default", Some(&repo));
    let (a, b) = (common::read_tree(&plain), common::read_tree(&custom));
    let mut sessions = 0;
    for (path, page) in &a {
        let theirs = String::from_utf8_lossy(&b[path]).into_owned();
        let ours = String::from_utf8_lossy(page).into_owned();
        if ours.contains("class=\"conversation\"") {
            sessions += 1;
            assert!(theirs.contains("<!-- mine -->"), "{path}: override used");
        }
        assert_eq!(theirs.replace("<!-- mine -->", ""), ours, "{path}");
    }
    assert!(sessions > 5, "{sessions} session pages");
}

#[test]
fn an_overridden_diff_partial_is_used_and_makes_what_the_built_in_one_does() {
    // With the built-in templates, a file page's diffs are spliced into
    // what its template makes (`output::splice`); an override of the diff
    // partial hands them to Tera. The same text with a mark after it must
    // give the same pages, marks aside.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    build(&plain, "default", None);
    let built_in = ccwiki::output::render::BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "partials/diff.html")
        .unwrap()
        .1;
    let repo = tmp.path().join("repo");
    write(
        &repo.join("templates/partials/diff.html"),
        &format!("{built_in}<!-- mine -->"),
    );
    let custom = tmp.path().join("custom");
    build(&custom, "default", Some(&repo));
    let (a, b) = (common::read_tree(&plain), common::read_tree(&custom));
    let mut diffs = 0;
    for (path, page) in &a {
        let theirs = String::from_utf8_lossy(&b[path]).into_owned();
        let ours = String::from_utf8_lossy(page).into_owned();
        if path.contains("/files/") {
            let shown = ours.matches("<pre class=\"diff\">").count();
            assert_eq!(theirs.matches("<!-- mine -->").count(), shown, "{path}");
            diffs += shown;
        }
        assert_eq!(theirs.replace("<!-- mine -->", ""), ours, "{path}");
    }
    assert!(diffs > 5, "{diffs} diffs on file pages");
}

#[test]
fn an_overridden_facts_partial_is_used_and_makes_what_the_built_in_one_does() {
    // With the built-in templates, a project page's facts (and cards) are
    // written without Tera (`output::cards`); an override of the facts
    // partial walks them in Tera, Markdown filter and all. The same text
    // with a mark after it must give the same pages, marks aside.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    build(&plain, "default", None);
    let built_in = ccwiki::output::render::BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "partials/memory_facts.html")
        .unwrap()
        .1;
    let repo = tmp.path().join("repo");
    write(
        &repo.join("templates/partials/memory_facts.html"),
        &format!("{built_in}<!-- mine -->"),
    );
    let custom = tmp.path().join("custom");
    build(&custom, "default", Some(&repo));
    let (a, b) = (common::read_tree(&plain), common::read_tree(&custom));
    let mut facts = 0;
    for (path, page) in &a {
        let theirs = String::from_utf8_lossy(&b[path]).into_owned();
        let ours = String::from_utf8_lossy(page).into_owned();
        // A project's own page: `projects/<name>/index.html`.
        let project_page = path.starts_with("projects/") && path.matches('/').count() == 2;
        if project_page && path.ends_with("/index.html") {
            assert!(theirs.contains("<!-- mine -->"), "{path}: override used");
            facts += ours.matches("<article class=\"memory fact\">").count();
        }
        assert_eq!(theirs.replace("<!-- mine -->", ""), ours, "{path}");
    }
    assert!(facts > 2, "{facts} project facts");
}

#[test]
fn an_overridden_timeline_partial_is_used_and_makes_what_the_built_in_one_does() {
    // With the built-in templates, a timeline page's days are written
    // without Tera (`output::timeline`); an override of the partial walks
    // them in Tera. The same text with a mark after it must give the same
    // pages, marks aside.
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    build(&plain, "default", None);
    let built_in = ccwiki::output::render::BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "partials/timeline_days.html")
        .unwrap()
        .1;
    let repo = tmp.path().join("repo");
    write(
        &repo.join("templates/partials/timeline_days.html"),
        &format!("{built_in}<!-- mine -->"),
    );
    let custom = tmp.path().join("custom");
    build(&custom, "default", Some(&repo));
    let (a, b) = (common::read_tree(&plain), common::read_tree(&custom));
    let mut entries = 0;
    for (path, page) in &a {
        let theirs = String::from_utf8_lossy(&b[path]).into_owned();
        let ours = String::from_utf8_lossy(page).into_owned();
        if path.starts_with("timeline/") && path.ends_with(".html") {
            assert!(theirs.contains("<!-- mine -->"), "{path}: override used");
            entries += ours.matches("<li class=\"entry").count();
        }
        assert_eq!(theirs.replace("<!-- mine -->", ""), ours, "{path}");
    }
    assert!(entries > 5, "{entries} timeline entries");
}
