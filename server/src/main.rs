//! The `quietcontext` binary: parse flags, log to stderr, serve stdio.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use quietcontext::{Config, StoreConfig};

/// A token-lean MCP stdio server: execute, exec-file, index, search, fetch-index, batch.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Keep the knowledge store in this SQLite file (default: a temporary file removed at exit).
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Let `index` and `exec-file` read paths outside the working directory.
    #[arg(long)]
    allow_outside_workdir: bool,
    /// Refuse loopback addresses in fetch-index as well.
    #[arg(long)]
    strict_fetch: bool,
    /// Time limit of one fetch-index, redirects included.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    fetch_timeout_ms: u64,
    /// Largest response body fetch-index accepts.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    fetch_max_bytes: u64,
    /// Run programs in a new network namespace (no network) when `unshare` allows it.
    #[arg(long)]
    isolate_net: bool,
    /// Stop a program once it has printed this many MiB (all of it is indexed).
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    capture_limit_mib: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("QC_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let workdir = std::env::current_dir()?;
    let mut config = Config::new(workdir.canonicalize().unwrap_or(workdir));
    config.store = StoreConfig {
        path: cli.db,
        temp_root: None,
    };
    config.capture_limit = cli.capture_limit_mib.max(1) * 1024 * 1024;
    config.allow_outside_workdir = cli.allow_outside_workdir;
    config.fetch.strict = cli.strict_fetch;
    config.fetch.timeout = Duration::from_millis(cli.fetch_timeout_ms);
    config.fetch.max_bytes = cli.fetch_max_bytes;
    config.isolate_net = cli.isolate_net;
    let passthrough = std::env::var("QC_ENV_PASSTHROUGH")
        .map(|names| Config::parse_passthrough(&names))
        .unwrap_or_default();
    config.program_env =
        quietcontext::runner::Runner::filter_env(std::env::vars_os(), &passthrough);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(quietcontext::serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        config,
        shutdown_signal(),
    ));
    // stdin's reader thread may still be blocked in read(2); do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Completes on SIGTERM or SIGINT.
async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
