//! `ccwiki serve`: build into a private temporary folder, serve it on
//! 127.0.0.1, rebuild when the sources change and reload the open pages.
//!
//! The reload hook is added to pages as they are served (`http::with_hook`),
//! so a built site never holds it.

pub mod http;
mod watch;

use crate::app::build::{build, BuildOptions};
use crate::base::error::Error;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Where the server's messages go (one line each).
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// What to serve, and where.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The build as `ccwiki build` would run it; its `out` is only used
    /// to share that site's cache.
    pub build: BuildOptions,
    pub interface: IpAddr,
    /// 0: any free port.
    pub port: u16,
    /// Open the wiki in the default browser once it is served.
    pub open: bool,
}

/// The build `serve` runs: into `dir`, served at `/`, with the cache of
/// the site the user builds.
fn served_build(opts: &BuildOptions, dir: &Path) -> BuildOptions {
    let mut served = opts.clone();
    served.cache_site = Some(opts.out.clone());
    served.out = dir.join("site");
    served.base_path = "/".to_string();
    served.report = None;
    served.strict = false;
    served.keep = Vec::new();
    // The previous copy of the site is removed once the open pages are
    // told to reload (see `watch::rebuild`).
    served.leave_previous = true;
    // Builds repeat in this process: each frees what it made.
    served.process_ends = false;
    served
}

/// Build, serve and watch until Ctrl-C (or SIGTERM); `ready` is told the
/// address once the server listens.
pub fn serve(opts: &ServeOptions, say: Say, ready: impl FnOnce(SocketAddr)) -> Result<(), Error> {
    let dir = tempfile::Builder::new()
        .prefix("ccwiki-serve-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let served = served_build(&opts.build, dir.path());
    // Into a new folder: no previous copy to remove.
    let report = build(&served)?;
    say(&format!(
        "Built {} pages ({} projects, {} sessions) in {:.2?}",
        report.pages,
        report.projects,
        report.sessions,
        report.elapsed()
    ));
    let wanted = SocketAddr::new(opts.interface, opts.port);
    let listener = std::net::TcpListener::bind(wanted)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|source| Error::Listen {
            addr: wanted.to_string(),
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| Error::Listen {
        addr: wanted.to_string(),
        source,
    })?;
    let (reload, _) = broadcast::channel(16);
    // Serving goes on without watching (with the reason said) when the
    // system refuses more watches.
    let _watching = watch::rebuild_on_change(served.clone(), reload.clone(), say.clone())
        .map_err(|e| say(&format!("not watching for changes: {e}")))
        .ok();
    let url = page_url(addr);
    say(&format!("Serving the wiki at {url} (Ctrl-C to stop)"));
    if opts.open {
        if let Err(e) = opener::open(&url) {
            say(&format!("could not open a browser: {e}"));
        }
    }
    ready(addr);
    run(listener, &served.out, reload).map_err(|source| Error::Listen {
        addr: addr.to_string(),
        source,
    })
}

/// The address to open: the loopback one when serving on every interface.
fn page_url(addr: SocketAddr) -> String {
    let shown = if addr.ip().is_unspecified() {
        SocketAddr::new(IpAddr::from([127, 0, 0, 1]), addr.port())
    } else {
        addr
    };
    format!("http://{shown}/")
}

/// Serve `root` until a signal to stop.
fn run(
    listener: std::net::TcpListener,
    root: &Path,
    reload: broadcast::Sender<u64>,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let app = http::router(root.to_path_buf(), reload);
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        tokio::select! {
            served = axum::serve(listener, app) => served,
            () = stop_signal() => Ok(()),
        }
    });
    // Open event streams never end by themselves: do not wait for them.
    runtime.shutdown_background();
    result
}

/// Ctrl-C, or SIGTERM where there is one.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
