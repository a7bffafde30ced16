//! A client for any MCP stdio server: spawns it, writes raw lines, reads
//! frames with a deadline on every read, and keeps the exact bytes of every
//! line that crossed the pipes (what token counts are measured on).
//!
//! Reads happen on a background thread that forwards whole lines through a
//! channel; `recv_timeout` gives every read its deadline. The server process
//! is killed when the client drops.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use quietcontext::protocol::jsonrpc::RequestId;
use quietcontext::protocol::mcp;
use serde_json::{Value, json};

/// `_meta` of a 2026-07-28 request.
pub fn modern_meta() -> Value {
    json!({
        mcp::META_PROTOCOL_VERSION: mcp::MODERN_VERSION,
        mcp::META_CLIENT_CAPABILITIES: {},
    })
}

/// Default deadline for one reply.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);

/// How to start a server.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Remove every inherited variable first (then `env` plus PATH and HOME).
    pub clean_env: bool,
    pub cwd: Option<PathBuf>,
}

impl ServerCommand {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            clean_env: false,
            cwd: None,
        }
    }

    /// Parses a shell-like command line: whitespace-separated words (no quoting).
    pub fn parse(line: &str) -> Option<Self> {
        let mut words = line.split_whitespace();
        let program = words.next()?;
        let mut cmd = Self::new(program);
        cmd.args = words.map(str::to_owned).collect();
        Some(cmd)
    }

    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }
}

/// Client failures.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot start {program}: {error}")]
    Spawn {
        program: String,
        error: std::io::Error,
    },
    #[error("write to server failed: {0}")]
    Write(std::io::Error),
    #[error("no frame from the server within {0:?}")]
    Timeout(Duration),
    #[error("the server closed its output (exited?)")]
    Closed,
    #[error("the server sent a line that is not JSON: {0}")]
    NotJson(String),
}

/// One line that crossed a pipe.
#[derive(Debug, Clone)]
pub struct WireLine {
    pub sent: bool,
    pub bytes: Vec<u8>,
}

/// A parsed frame with the exact bytes it arrived as.
#[derive(Debug, Clone)]
pub struct Frame {
    pub value: Value,
    pub raw: Vec<u8>,
}

impl Frame {
    pub fn id(&self) -> Option<&Value> {
        self.value.get("id")
    }

    pub fn is_notification(&self) -> bool {
        self.value.get("method").is_some() && self.value.get("id").is_none()
    }

    pub fn error_code(&self) -> Option<i64> {
        self.value.get("error")?.get("code")?.as_i64()
    }

    pub fn result(&self) -> Option<&Value> {
        self.value.get("result")
    }
}

/// The reply to a `tools/call`.
#[derive(Debug, Clone)]
pub struct ToolReply {
    /// The concatenated text blocks: what the model reads.
    pub text: String,
    pub is_error: bool,
    /// A JSON-RPC error instead of a result.
    pub rpc_error: Option<(i64, String)>,
    /// Notifications that arrived before the reply (progress).
    pub notifications: Vec<Frame>,
    pub frame: Frame,
    pub elapsed: Duration,
}

/// A running server and the transcript of its pipes.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    next_id: i64,
    pub transcript: Vec<WireLine>,
    pub deadline: Duration,
    /// Merged into every request's `params._meta` (2026-07-28 clients send
    /// their protocol version and capabilities this way).
    pub meta: Option<Value>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("pid", &self.child.id())
            .finish()
    }
}

impl Client {
    /// Starts the server; its stderr is passed through to ours.
    pub fn spawn(cmd: &ServerCommand) -> Result<Client, ClientError> {
        let mut command = Command::new(&cmd.program);
        command.args(&cmd.args);
        if cmd.clean_env {
            command.env_clear();
            for key in ["PATH", "HOME"] {
                if let Some(v) = std::env::var_os(key) {
                    command.env(key, v);
                }
            }
        }
        command.envs(cmd.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &cmd.cwd {
            command.current_dir(dir);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| ClientError::Spawn {
                program: cmd.program.display().to_string(),
                error,
            })?;
        let stdout = child.stdout.take().ok_or(ClientError::Closed)?;
        let (tx, lines) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                        }
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Ok(Client {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
            transcript: Vec::new(),
            deadline: DEFAULT_DEADLINE,
            meta: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one line (a newline is added) exactly as given.
    pub fn send_raw(&mut self, line: &[u8]) -> Result<(), ClientError> {
        let stdin = self.stdin.as_mut().ok_or(ClientError::Closed)?;
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        stdin.write_all(&bytes).map_err(ClientError::Write)?;
        stdin.flush().map_err(ClientError::Write)?;
        bytes.pop();
        self.transcript.push(WireLine { sent: true, bytes });
        Ok(())
    }

    pub fn send(&mut self, frame: &Value) -> Result<(), ClientError> {
        self.send_raw(frame.to_string().as_bytes())
    }

    /// Closes the server's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next frame, within `deadline`.
    pub fn recv(&mut self, deadline: Duration) -> Result<Frame, ClientError> {
        let raw = match self.lines.recv_timeout(deadline) {
            Ok(raw) => raw,
            Err(RecvTimeoutError::Timeout) => return Err(ClientError::Timeout(deadline)),
            Err(RecvTimeoutError::Disconnected) => return Err(ClientError::Closed),
        };
        self.transcript.push(WireLine {
            sent: false,
            bytes: raw.clone(),
        });
        let value = serde_json::from_slice(&raw)
            .map_err(|_| ClientError::NotJson(String::from_utf8_lossy(&raw).into_owned()))?;
        Ok(Frame { value, raw })
    }

    /// Waits up to `deadline` for any frame; `None` when none came.
    pub fn recv_quiet(&mut self, deadline: Duration) -> Result<Option<Frame>, ClientError> {
        match self.recv(deadline) {
            Ok(frame) => Ok(Some(frame)),
            Err(ClientError::Timeout(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request and waits for the response with its id; frames that
    /// arrive first (notifications) are returned alongside.
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(Frame, Vec<Frame>), ClientError> {
        let id = self.next_id();
        let mut frame = json!({"jsonrpc": "2.0", "id": id, "method": method});
        let params = match (&self.meta, params) {
            (Some(meta), params) => {
                let mut params = params.unwrap_or_else(|| json!({}));
                if !params["_meta"].is_object() {
                    params["_meta"] = json!({});
                }
                if let (Some(target), Some(extra)) =
                    (params["_meta"].as_object_mut(), meta.as_object())
                {
                    for (k, v) in extra {
                        target.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                Some(params)
            }
            (None, params) => params,
        };
        if let Some(params) = params {
            frame["params"] = params;
        }
        self.send(&frame)?;
        self.wait_for(&json!(id))
    }

    /// Reads frames until the response to `id` arrives.
    pub fn wait_for(&mut self, id: &Value) -> Result<(Frame, Vec<Frame>), ClientError> {
        let until = Instant::now() + self.deadline;
        let mut others = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let frame = self.recv(left)?;
            if frame.id() == Some(id) && !frame.is_notification() {
                return Ok((frame, others));
            }
            others.push(frame);
        }
    }

    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// The handshake-era start: `initialize` then `notifications/initialized`.
    pub fn initialize(&mut self, version: &str) -> Result<Frame, ClientError> {
        let (frame, _) = self.request(
            "initialize",
            Some(json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "qc-harness", "version": env!("CARGO_PKG_VERSION")}
            })),
        )?;
        self.notify("notifications/initialized", json!({}))?;
        Ok(frame)
    }

    /// `tools/list`: the frame and the result's serialized bytes.
    pub fn list_tools(&mut self) -> Result<Frame, ClientError> {
        Ok(self.request("tools/list", Some(json!({})))?.0)
    }

    /// Calls a tool and waits for its reply.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Result<ToolReply, ClientError> {
        self.call_tool_with(name, arguments, None)
    }

    /// Calls a tool with an optional `progressToken`.
    pub fn call_tool_with(
        &mut self,
        name: &str,
        arguments: Value,
        progress_token: Option<Value>,
    ) -> Result<ToolReply, ClientError> {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(token) = progress_token {
            params["_meta"] = json!({"progressToken": token});
        }
        let started = Instant::now();
        let (frame, notifications) = self.request("tools/call", Some(params))?;
        Ok(tool_reply(frame, notifications, started.elapsed()))
    }

    /// Stops the server: closes stdin, waits up to `grace`, then kills it.
    /// Returns whether it exited by itself within `grace`.
    pub fn shutdown(mut self, grace: Duration) -> bool {
        self.close_stdin();
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// Whether the server process has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads a `tools/call` response frame.
pub fn tool_reply(frame: Frame, notifications: Vec<Frame>, elapsed: Duration) -> ToolReply {
    let (text, is_error) = match frame.result() {
        Some(result) => (mcp::result_text(result), mcp::result_is_error(result)),
        None => (String::new(), true),
    };
    let rpc_error = frame.value.get("error").map(|e| {
        (
            e.get("code").and_then(Value::as_i64).unwrap_or(0),
            e.get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        )
    });
    ToolReply {
        text,
        is_error,
        rpc_error,
        notifications,
        frame,
        elapsed,
    }
}

/// The id of a frame as a request id (for comparisons with server types).
pub fn frame_id(frame: &Frame) -> Option<RequestId> {
    let raw = serde_json::value::to_raw_value(frame.id()?).ok()?;
    RequestId::from_raw(&raw)
}
