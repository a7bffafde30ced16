//! One stdio session: reader → per-request tasks → a single writer.
//!
//! The reader parses each line once and spawns a task per request, so
//! requests are served concurrently. Every frame leaves through one bounded
//! channel to one writer task, so lines never interleave. Each request owns a
//! cancellation token: `notifications/cancelled` fires it, the request's future
//! is dropped (its child processes are killed by their guards) and no
//! response is sent. At end of input, in-flight requests get a short grace to
//! finish; then (or at once on `shutdown`) the rest are cancelled, the writer
//! drains, and `run` returns.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::context::{Context, Progress};
use crate::dispatch;
use crate::protocol::codec::{Line, LineReader, MAX_LINE_BYTES};
use crate::protocol::jsonrpc::{FrameError, Incoming, Outgoing, RequestId, RpcError, code};
use crate::store::lock;

/// Frames waiting for the writer; senders wait when it is full.
const OUTBOX_CAPACITY: usize = 256;
/// At end of input, how long in-flight requests may still finish normally
/// (a client that writes its requests and closes stdin still gets answers).
const EOF_GRACE: Duration = Duration::from_millis(750);
/// After cancelling, how long requests get to wind down before being aborted.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

type InFlight = Arc<Mutex<HashMap<RequestId, CancellationToken>>>;

/// Serves JSON-RPC lines from `input`, writing frames to `output`, until end
/// of input or until `shutdown` completes.
pub async fn run<R, W, S>(
    input: R,
    output: W,
    ctx: Arc<Context>,
    shutdown: S,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = ()>,
{
    let (outbox, frames) = mpsc::channel::<Outgoing>(OUTBOX_CAPACITY);
    let writer = tokio::spawn(write_frames(output, frames));
    let mut lines = LineReader::new(BufReader::new(input));
    let inflight: InFlight = Arc::default();
    let permits = Arc::new(Semaphore::new(ctx.config.max_concurrent_calls.max(1)));
    let mut tasks = JoinSet::new();
    tokio::pin!(shutdown);
    let mut end_of_input = true;

    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            () = &mut shutdown => {
                tracing::info!("shutdown requested");
                end_of_input = false;
                break;
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let frame = match line {
            Ok(None) => break,
            Err(e) => {
                tracing::warn!("stdin read failed: {e}");
                break;
            }
            Ok(Some(Line::TooLong { bytes })) => {
                let error = RpcError::new(
                    code::INVALID_REQUEST,
                    format!("line of {bytes} bytes exceeds the {MAX_LINE_BYTES}-byte limit"),
                );
                let _ = outbox.send(Outgoing::Error { id: None, error }).await;
                continue;
            }
            Ok(Some(Line::Frame(frame))) => frame,
        };
        if frame.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Incoming::parse(&frame) {
            Err(FrameError { id, error }) => {
                let _ = outbox.send(Outgoing::Error { id, error }).await;
            }
            Ok(Incoming::Notification { method, params }) => {
                on_notification(&method, params.as_ref(), &inflight);
            }
            Ok(Incoming::Response { .. }) => {}
            Ok(Incoming::Request { id, method, params }) => {
                let token = CancellationToken::new();
                if !register(&inflight, &id, &token) {
                    let error = RpcError::new(
                        code::INVALID_REQUEST,
                        format!("request id {id} is already in flight"),
                    );
                    let _ = outbox
                        .send(Outgoing::Error {
                            id: Some(id),
                            error,
                        })
                        .await;
                    continue;
                }
                let request = Request {
                    ctx: ctx.clone(),
                    id,
                    method,
                    params,
                    token,
                    outbox: outbox.clone(),
                    inflight: inflight.clone(),
                    permits: permits.clone(),
                };
                tasks.spawn(request.serve());
            }
        }
    }

    if end_of_input && !tasks.is_empty() {
        let _ = tokio::time::timeout(EOF_GRACE, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
    }
    for token in lock(&inflight).values() {
        token.cancel();
    }
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!("requests still running after {DRAIN_TIMEOUT:?}; aborting them");
        tasks.shutdown().await;
    }
    drop(outbox);
    match writer.await {
        Ok(result) => result,
        Err(e) => Err(std::io::Error::other(e)),
    }
}

/// Records a request as in flight; `false` when its id already is.
fn register(inflight: &InFlight, id: &RequestId, token: &CancellationToken) -> bool {
    let mut map = lock(inflight);
    if map.contains_key(id) {
        return false;
    }
    map.insert(id.clone(), token.clone());
    true
}

fn on_notification(method: &str, params: Option<&Value>, inflight: &InFlight) {
    match method {
        "notifications/cancelled" => {
            let id = params
                .and_then(|p| p.get("requestId"))
                .and_then(|v| serde_json::value::to_raw_value(v).ok())
                .and_then(|raw| RequestId::from_raw(&raw));
            match id.and_then(|id| lock(inflight).get(&id).cloned()) {
                Some(token) => token.cancel(),
                // Unknown or finished: nothing to stop (a later request with that id runs normally).
                None => tracing::debug!("cancellation for a request not in flight"),
            }
        }
        "notifications/initialized" => {}
        other => tracing::debug!("ignoring notification {other}"),
    }
}

/// One request on its way to a response.
struct Request {
    ctx: Arc<Context>,
    id: RequestId,
    method: String,
    params: Option<Value>,
    token: CancellationToken,
    outbox: mpsc::Sender<Outgoing>,
    inflight: InFlight,
    permits: Arc<Semaphore>,
}

impl Request {
    async fn serve(self) {
        let progress_token = crate::protocol::mcp::request_meta(self.params.as_ref())
            .and_then(|meta| meta.get("progressToken"))
            .cloned();
        let progress = Progress::new(progress_token, self.outbox.clone());
        let work = async {
            // Tool calls take a permit so a flood of them cannot fork without bound.
            let _permit = if self.method == "tools/call" {
                self.permits.acquire().await.ok()
            } else {
                None
            };
            dispatch::handle(&self.ctx, &self.method, self.params.as_ref(), progress).await
        };
        let result = tokio::select! {
            result = work => Some(result),
            () = self.token.cancelled() => None,
        };
        lock(&self.inflight).remove(&self.id);
        let Some(result) = result else {
            tracing::debug!("request {} cancelled", self.id);
            return;
        };
        let frame = match result {
            Ok(result) => Outgoing::Result {
                id: self.id,
                result,
            },
            Err(error) => Outgoing::Error {
                id: Some(self.id),
                error,
            },
        };
        let _ = self.outbox.send(frame).await;
    }
}

/// The single writer: one frame per line, flushed when no other frame waits.
async fn write_frames<W: AsyncWrite + Unpin>(
    mut output: W,
    mut frames: mpsc::Receiver<Outgoing>,
) -> std::io::Result<()> {
    while let Some(frame) = frames.recv().await {
        let mut line = frame.to_line();
        line.push('\n');
        output.write_all(line.as_bytes()).await?;
        if frames.is_empty() {
            output.flush().await?;
        }
    }
    output.flush().await
}
