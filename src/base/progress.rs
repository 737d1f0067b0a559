//! Where long work reports how far it got.

/// A function told (phase, done, total); `total` is 0 when unknown.
type ProgressFn = dyn Fn(&str, u64, u64) + Send + Sync;

/// Where a build reports its progress.
#[derive(Clone, Default)]
pub struct Progress(Option<std::sync::Arc<ProgressFn>>);

impl Progress {
    /// Report progress to `f`.
    pub fn new(f: impl Fn(&str, u64, u64) + Send + Sync + 'static) -> Progress {
        Progress(Some(std::sync::Arc::new(f)))
    }

    /// Tell the callback, if any.
    pub fn report(&self, phase: &str, done: u64, total: u64) {
        if let Some(f) = &self.0 {
            f(phase, done, total);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(on)"
        } else {
            "Progress(off)"
        })
    }
}
