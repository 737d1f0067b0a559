//! Themes: a folder `themes/<name>/` with `theme.toml`, `templates/` and
//! `static/`. Two are bundled in the binary; a wiki repository may add its
//! own in `themes/`, or eject a bundled one there to edit it.
//!
//! Layering, highest first: the wiki repository's `templates/` and `static/`,
//! then the theme's, then ccwiki's built-in templates. The originals stay
//! reachable as `theme/<name>` and `ccwiki/<name>`, so an override can
//! `{% extends "ccwiki/session.html" %}` and change one block instead of
//! copying the whole file.

use crate::base::error::Error;
use crate::output::render::BUILTIN_TEMPLATES;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A file of a theme, by its path inside the theme folder.
#[derive(Debug, Clone)]
pub struct ThemeFile {
    pub path: String,
    pub bytes: Cow<'static, [u8]>,
}

/// Where a theme comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Bundled,
    Local(PathBuf),
}

/// A theme, loaded.
#[derive(Debug, Clone)]
pub struct Theme {
    pub name: String,
    pub description: String,
    /// The ccwiki version whose templates an ejected theme copied.
    pub ccwiki_version: Option<String>,
    pub origin: Origin,
    pub files: Vec<ThemeFile>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Manifest {
    name: Option<String>,
    description: Option<String>,
    ccwiki_version: Option<String>,
}

type Files = &'static [(&'static str, &'static [u8])];

/// The themes compiled into the binary.
pub const BUNDLED: &[(&str, Files)] = &[
    (
        "default",
        &[
            (
                "theme.toml",
                include_bytes!("../../themes/default/theme.toml"),
            ),
            (
                "static/style.css",
                include_bytes!("../../themes/default/static/style.css"),
            ),
        ],
    ),
    (
        "docs",
        &[
            ("theme.toml", include_bytes!("../../themes/docs/theme.toml")),
            (
                "static/style.css",
                include_bytes!("../../themes/docs/static/style.css"),
            ),
        ],
    ),
];

impl Theme {
    fn from_files(
        origin: Origin,
        fallback_name: &str,
        files: Vec<ThemeFile>,
    ) -> Result<Theme, Error> {
        let manifest: Manifest = match files.iter().find(|f| f.path == "theme.toml") {
            Some(f) => {
                let text = String::from_utf8_lossy(&f.bytes);
                toml::from_str(&text).map_err(|e| Error::Config {
                    path: match &origin {
                        Origin::Local(dir) => dir.join("theme.toml"),
                        Origin::Bundled => {
                            PathBuf::from(format!("themes/{fallback_name}/theme.toml"))
                        }
                    },
                    message: e.message().to_string(),
                })?
            }
            None => Manifest::default(),
        };
        Ok(Theme {
            name: manifest.name.unwrap_or_else(|| fallback_name.to_string()),
            description: manifest.description.unwrap_or_default(),
            ccwiki_version: manifest.ccwiki_version,
            origin,
            files,
        })
    }

    /// The theme's templates: (name relative to `templates/`, source).
    pub fn templates(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .filter_map(|f| {
                f.path.strip_prefix("templates/").map(|n| {
                    (
                        n.to_string(),
                        String::from_utf8_lossy(&f.bytes).into_owned(),
                    )
                })
            })
            .collect()
    }

    /// The theme's static files: (path under the site root, bytes).
    pub fn static_files(&self) -> Vec<(String, Vec<u8>)> {
        self.files
            .iter()
            .filter(|f| f.path.starts_with("static/"))
            .map(|f| (f.path.clone(), f.bytes.to_vec()))
            .collect()
    }
}

fn bundled_theme(name: &str) -> Option<Theme> {
    BUNDLED
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(n, files)| {
            let files = files
                .iter()
                .map(|(p, b)| ThemeFile {
                    path: p.to_string(),
                    bytes: Cow::Borrowed(*b),
                })
                .collect();
            Theme::from_files(Origin::Bundled, n, files).ok()
        })
}

/// Every file below `dir`, by its path relative to `dir` with `/` separators.
pub fn read_tree(dir: &Path) -> Result<Vec<ThemeFile>, Error> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| {
            let path = e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.to_path_buf());
            Error::io(path, std::io::Error::other(e.to_string()))
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = match entry.path().strip_prefix(dir) {
            Ok(r) => r.to_string_lossy().replace('\\', "/"),
            Err(_) => continue,
        };
        let bytes = std::fs::read(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        files.push(ThemeFile {
            path: rel,
            bytes: Cow::Owned(bytes),
        });
    }
    Ok(files)
}

/// Find theme `name`: the wiki repository's `themes/<name>/` first, then the bundled ones.
pub fn resolve(name: &str, site_dir: Option<&Path>) -> Result<Theme, Error> {
    if let Some(dir) = site_dir
        .map(|d| d.join("themes").join(name))
        .filter(|d| d.is_dir())
    {
        let files = read_tree(&dir)?;
        return Theme::from_files(Origin::Local(dir), name, files);
    }
    bundled_theme(name).ok_or_else(|| Error::UnknownTheme {
        name: name.to_string(),
    })
}

/// Every theme available: bundled ones, then the repository's own.
pub fn list(site_dir: Option<&Path>) -> Vec<Theme> {
    let mut out: Vec<Theme> = BUNDLED
        .iter()
        .filter_map(|(n, _)| bundled_theme(n))
        .collect();
    if let Some(dir) = site_dir.map(|d| d.join("themes")) {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for n in names {
                if let Ok(t) = resolve(&n, site_dir) {
                    out.retain(|b| b.name != t.name);
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Copy bundled theme `name` to `dest` as a complete, editable theme: its
/// static files, and every template (ccwiki's built-in ones with the theme's
/// own on top), so that building with it gives the same bytes. Refuses a
/// `dest` that exists and is not empty.
pub fn eject(name: &str, dest: &Path) -> Result<Vec<PathBuf>, Error> {
    let theme = bundled_theme(name).ok_or_else(|| Error::UnknownTheme {
        name: name.to_string(),
    })?;
    if dest.exists()
        && std::fs::read_dir(dest)
            .map_err(|e| Error::io(dest, e))?
            .next()
            .is_some()
    {
        return Err(Error::io(
            dest,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "exists and is not empty; choose another folder or remove it yourself",
            ),
        ));
    }
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let manifest = format!(
        "name = {:?}\ndescription = {:?}\n# The templates below were copied from ccwiki {}. ccwiki's own stay\n# reachable as \"ccwiki/<name>\": a template can extend one instead of copying it.\nccwiki_version = {:?}\n",
        theme.name,
        theme.description,
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_VERSION"),
    );
    files.push(("theme.toml".into(), manifest.into_bytes()));
    let own = theme.templates();
    for (tpl, src) in BUILTIN_TEMPLATES {
        if !own.iter().any(|(n, _)| n == tpl) {
            files.push((format!("templates/{tpl}"), src.as_bytes().to_vec()));
        }
    }
    for (n, src) in own {
        files.push((format!("templates/{n}"), src.into_bytes()));
    }
    files.extend(theme.static_files());
    let mut written = Vec::new();
    for (rel, bytes) in files {
        let p = dest.join(&rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| Error::io(&p, e))?;
        written.push(p);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_themes_load() {
        let names: Vec<String> = list(None).into_iter().map(|t| t.name).collect();
        assert_eq!(names, vec!["default", "docs"]);
        for n in names {
            let t = resolve(&n, None).unwrap();
            assert!(!t.description.is_empty());
            assert!(t
                .static_files()
                .iter()
                .any(|(p, _)| p == "static/style.css"));
        }
        assert!(matches!(
            resolve("nope", None),
            Err(Error::UnknownTheme { .. })
        ));
    }

    #[test]
    fn eject_copies_everything_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("themes/docs");
        let written = eject("docs", &dest).unwrap();
        assert!(written.len() > BUILTIN_TEMPLATES.len());
        assert!(dest.join("templates/session.html").is_file());
        assert!(dest.join("static/style.css").is_file());
        let local = resolve("docs", Some(dir.path())).unwrap();
        assert_eq!(local.origin, Origin::Local(dest.clone()));
        std::fs::write(dest.join("static/style.css"), "edited").unwrap();
        assert!(eject("docs", &dest).is_err());
        assert_eq!(
            std::fs::read_to_string(dest.join("static/style.css")).unwrap(),
            "edited"
        );
    }
}
