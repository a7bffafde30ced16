//! What every tool call can reach: configuration, the store, the runner, the
//! script cache, and a way to report progress.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::cache::ScriptCache;
use crate::config::Config;
use crate::protocol::jsonrpc::Outgoing;
use crate::runner::Runner;
use crate::store::Store;

/// Shared server state, one per process.
#[derive(Debug)]
pub struct Context {
    pub config: Config,
    pub store: Store,
    pub runner: Runner,
    /// std Mutex: held only for map operations, never across an await.
    pub scripts: Mutex<ScriptCache>,
}

impl Context {
    pub fn new(config: Config, store: Store, runner: Runner) -> Arc<Self> {
        Arc::new(Self {
            config,
            store,
            runner,
            scripts: Mutex::default(),
        })
    }
}

/// Sends `notifications/progress` for a request that carried a `progressToken`.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    target: Option<(Value, mpsc::Sender<Outgoing>)>,
}

impl Progress {
    pub fn new(token: Option<Value>, outbox: mpsc::Sender<Outgoing>) -> Self {
        Self {
            target: token.map(|t| (t, outbox)),
        }
    }

    /// Reports `done` of `total` steps. Waits for room in the outbox, so
    /// notifications stay in order and before the response.
    pub async fn report(&self, done: u64, total: u64, message: &str) {
        if let Some((token, outbox)) = &self.target {
            let params = json!({
                "progressToken": token,
                "progress": done,
                "total": total,
                "message": message,
            });
            let _ = outbox
                .send(Outgoing::Notification {
                    method: "notifications/progress".into(),
                    params,
                })
                .await;
        }
    }
}
