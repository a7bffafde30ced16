//! QuietContext: a token-lean, six-tool MCP stdio server.
//!
//! Layout:
//! - [`protocol`]: wire types shared with the harness (line codec, JSON-RPC, MCP payloads).
//! - [`session`]: the stdio loop: reader → per-request tasks → one writer; cancellation.
//! - `dispatch`: method routing for both protocol eras.
//! - `tools`: the six tools, their schemas and argument parsing, in one table.
//! - [`budget`]: byte budgets and the one formatter that cuts output.
//! - [`store`]: SQLite FTS5: chunking, ranking, references.
//! - `runner`: subprocesses: languages, environment, process groups, bounded capture.
//! - `cache`: the process-local script cache.
//! - [`fetch`]: HTTP fetching with address checks and HTML → Markdown.
//! - [`config`]: configuration parsed once; `context`: shared state per process.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod budget;
mod cache;
pub mod config;
mod context;
mod dispatch;
pub mod error;
pub mod fetch;
mod paths;
pub mod protocol;
pub mod runner;
pub mod session;
pub mod store;
pub mod tools;

use std::future::Future;

use tokio::io::{AsyncRead, AsyncWrite};

pub use config::Config;
pub use store::{Store, StoreConfig};

/// Opens the store and serves one session until end of input or `shutdown`.
pub async fn serve<R, W, S>(input: R, output: W, config: Config, shutdown: S) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = ()>,
{
    use anyhow::Context as _;
    let mut store_config = config.store.clone();
    store_config
        .temp_root
        .get_or_insert_with(|| config.temp_root.clone());
    let store = Store::open(&store_config).context("cannot open the knowledge store")?;
    let runner = runner::Runner::new(&config);
    let ctx = context::Context::new(config, store, runner);
    let served = session::run(input, output, ctx, shutdown).await;
    // Whatever happened, no program outlives the server.
    runner::kill_all();
    served?;
    Ok(())
}
