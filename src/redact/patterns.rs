//! TEMPORARY: replaced by the full pattern set.
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Debug, Clone, Default)]
pub struct RedactConfig {
    pub home_dirs: Vec<String>,
    pub usernames: Vec<String>,
    pub extra_patterns: Vec<(String, String)>,
}
#[derive(Debug)]
pub struct PatternError {
    pub kind: String,
    pub message: String,
}
pub struct Redactor {
    homes: Vec<String>,
    counts: Mutex<BTreeMap<String, u64>>,
}
impl Redactor {
    pub fn new(cfg: &RedactConfig) -> Result<Redactor, PatternError> {
        Ok(Redactor {
            homes: cfg.home_dirs.clone(),
            counts: Mutex::default(),
        })
    }
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut t = Cow::Borrowed(text);
        for h in &self.homes {
            if t.contains(h.as_str()) {
                t = Cow::Owned(t.replace(h.as_str(), "~"));
                if let Ok(mut c) = self.counts.lock() {
                    *c.entry("home".into()).or_insert(0) += 1;
                }
            }
        }
        t
    }
    pub fn counts(&self) -> BTreeMap<String, u64> {
        self.counts.lock().map(|c| c.clone()).unwrap_or_default()
    }
    pub fn home_of(cwd: &str) -> Option<(String, String)> {
        let parts: Vec<&str> = cwd.split('/').collect();
        if parts.len() >= 3 && (parts[1] == "home" || parts[1] == "Users") {
            return Some((format!("/{}/{}", parts[1], parts[2]), parts[2].to_string()));
        }
        None
    }
}
