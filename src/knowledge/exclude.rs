//! Keeping projects out of the wiki entirely: `--exclude-project GLOB` and
//! the `exclude` key. A pattern matches a project's path (its `cwd`, with `/`
//! separators) or its name; `*` matches across `/`. Excluded projects leave
//! no trace: no page, no search entry, no timeline line.

use crate::base::error::Error;
use crate::knowledge::model::Knowledge;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::HashMap;

/// Compiled exclusion patterns.
#[derive(Debug, Clone)]
pub struct Excluder {
    set: GlobSet,
}

impl Excluder {
    /// Compile `patterns`; a bad one is an error that names it.
    pub fn new(patterns: &[String]) -> Result<Excluder, Error> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            let glob = Glob::new(p).map_err(|e| Error::Pattern {
                kind: format!("exclude {p:?}"),
                message: e.kind().to_string(),
            })?;
            b.add(glob);
        }
        let set = b.build().map_err(|e| Error::Pattern {
            kind: "exclude".into(),
            message: e.to_string(),
        })?;
        Ok(Excluder { set })
    }

    /// Whether a project at `path` is excluded.
    pub fn matches(&self, path: &str) -> bool {
        if self.set.is_empty() {
            return false;
        }
        let norm = path.replace('\\', "/");
        let trimmed = norm.trim_end_matches('/');
        let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
        self.set.is_match(trimmed) || self.set.is_match(name)
    }
}

/// Remove every session, memory, history line and session start of an
/// excluded project. Returns how many sessions and memories were removed.
pub fn apply(model: &mut Knowledge, ex: &Excluder) -> usize {
    if ex.set.is_empty() {
        return 0;
    }
    // A memory folder belongs to the project whose sessions live beside it.
    let mut folder_cwd: HashMap<(usize, String), String> = HashMap::new();
    for s in &model.sessions {
        if let Some(c) = &s.cwd {
            folder_cwd
                .entry((s.root, s.project_dir.to_string()))
                .or_insert_with(|| c.to_string());
        }
    }
    let before = model.sessions.len() + model.memories.len();
    model.sessions.retain(|s| {
        let path = s
            .cwd
            .as_ref()
            .map(|c| c.to_string())
            .unwrap_or_else(|| s.project_dir.replace('-', "/"));
        !ex.matches(&path)
    });
    model.memories.retain(|m| {
        let path = folder_cwd
            .get(&(m.root, m.project_dir.to_string()))
            .cloned()
            .unwrap_or_else(|| m.project_dir.replace('-', "/"));
        !ex.matches(&path)
    });
    model
        .history
        .retain(|h| h.project.as_deref().is_none_or(|p| !ex.matches(p)));
    model
        .starts
        .retain(|s| s.cwd.as_deref().is_none_or(|p| !ex.matches(p)));
    before - model.sessions.len() - model.memories.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_paths_and_names() {
        let ex = Excluder::new(&["*secret*".into(), "/work/*".into(), "client-x".into()]).unwrap();
        assert!(ex.matches("/home/a/secret-project"));
        assert!(ex.matches("/work/thing"));
        assert!(ex.matches("/home/a/code/client-x/"));
        assert!(ex.matches("C:\\Users\\a\\client-x"));
        assert!(!ex.matches("/home/a/public"));
        assert!(Excluder::new(&["[unclosed".into()]).is_err());
    }
}
