//! Lines and files the build passed over, with the reason, for the summary.

use std::fmt;
use std::path::PathBuf;

/// One thing the build could not use. Never fatal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Skip {
    /// The file concerned.
    #[serde(with = "shown_path")]
    pub file: PathBuf,
    /// The 1-based line, when the problem is one line of a JSONL file.
    pub line: Option<u64>,
    /// Why it was skipped, one short clause.
    pub reason: String,
}

/// A path kept (in the cache) to be shown, never opened: as text, lossily
/// when it is not UTF-8, so that such a path cannot make a whole record
/// unsaveable.
pub mod shown_path {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::path::{Path, PathBuf};

    pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&path.to_string_lossy())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        String::deserialize(d).map(PathBuf::from)
    }
}

impl Skip {
    /// A whole file skipped.
    pub fn file(file: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Skip {
            file: file.into(),
            line: None,
            reason: reason.into(),
        }
    }

    /// One line of a file skipped.
    pub fn line(file: impl Into<PathBuf>, line: u64, reason: impl Into<String>) -> Self {
        Skip {
            file: file.into(),
            line: Some(line),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "{}:{}: {}", self.file.display(), n, self.reason),
            None => write!(f, "{}: {}", self.file.display(), self.reason),
        }
    }
}
