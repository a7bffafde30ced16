//! Helpers: a server in a fresh working directory, typed tool calls, and
//! process checks.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use qc_harness::client::{Client, ServerCommand, ToolReply};
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_quietcontext");

/// A running server with its own working directory, initialised.
pub struct Server {
    pub client: Client,
    pub dir: tempfile::TempDir,
}

impl Server {
    pub fn start() -> Server {
        Self::start_with(|cmd| cmd)
    }

    pub fn start_with(configure: impl FnOnce(ServerCommand) -> ServerCommand) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let cmd = configure(ServerCommand::new(BIN).cwd(dir.path()));
        let mut client = Client::spawn(&cmd).unwrap();
        client.deadline = Duration::from_secs(60);
        let init = client.initialize("2025-06-18").unwrap();
        assert!(
            init.result().is_some(),
            "initialize failed: {:?}",
            init.value
        );
        Server { client, dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn call(&mut self, tool: &str, args: Value) -> ToolReply {
        let reply = self.client.call_tool(tool, args).unwrap();
        assert!(reply.rpc_error.is_none(), "{tool}: {:?}", reply.rpc_error);
        reply
    }

    /// A call that must succeed; returns its text.
    pub fn ok(&mut self, tool: &str, args: Value) -> String {
        let reply = self.call(tool, args);
        assert!(!reply.is_error, "{tool} failed: {}", reply.text);
        reply.text
    }

    /// A call that must fail with `isError`; returns its text.
    pub fn err(&mut self, tool: &str, args: Value) -> String {
        let reply = self.call(tool, args);
        assert!(reply.is_error, "{tool} should have failed: {}", reply.text);
        reply.text
    }

    pub fn index(&mut self, source: &str, content: &str) -> String {
        self.ok("index", json!({"source": source, "content": content}))
    }

    pub fn shell(&mut self, code: &str) -> String {
        self.ok("execute", json!({"language": "shell", "code": code}))
    }
}

/// All `[r:......]` references in a text, in order.
pub fn refs(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"\[(r:\d{6})\]").unwrap();
    re.captures_iter(text).map(|c| c[1].to_owned()).collect()
}

/// The `[s:...]` reference a reply ends with, if any.
pub fn script_ref(text: &str) -> Option<String> {
    let re = regex::Regex::new(r"\[(s:[0-9a-f]{8,12})\]$").unwrap();
    re.captures(text.trim_end()).map(|c| c[1].to_owned())
}

/// The source label an oversized run was indexed under.
pub fn indexed_label(text: &str) -> String {
    let re = regex::Regex::new(r#"output indexed as "([^"]+)""#).unwrap();
    re.captures(text).expect(text)[1].to_owned()
}

/// Reads the whole text of a source back through `search`: list every chunk,
/// then fetch each by reference, parsing the exact byte count in its header.
pub fn read_source(server: &mut Server, label: &str) -> Vec<(String, String)> {
    let mut chunks = Vec::new();
    let mut offset = 0;
    loop {
        let args = if offset == 0 {
            json!({"source": label, "limit": 100})
        } else {
            json!({"source": label, "limit": 100, "offset": offset})
        };
        let listing = server.ok("search", args);
        let page = refs(&listing);
        assert!(!page.is_empty(), "empty page at {offset}: {listing}");
        for r in &page {
            let text = server.ok("search", json!({"refs": [r]}));
            chunks.push(parse_chunk(&text));
        }
        offset += page.len();
        if !listing.contains("next: offset") {
            return chunks;
        }
    }
}

/// `(title, body)` of a one-chunk `refs` reply.
pub fn parse_chunk(reply: &str) -> (String, String) {
    let (header, rest) = reply.split_once('\n').expect(reply);
    let re = regex::Regex::new(r"^\[r:\d{6}\] (.*) \(([^)]*)\) (\d+) B$").unwrap();
    let caps = re.captures(header).expect(header);
    let len: usize = caps[3].parse().unwrap();
    assert!(rest.len() > len, "chunk cut short: {reply}");
    (caps[1].to_owned(), rest[..len].to_owned())
}

/// Joins the chunks of one stream (titles start with `stdout` or `stderr`).
pub fn stream_text(chunks: &[(String, String)], stream: &str) -> String {
    chunks
        .iter()
        .filter(|(title, _)| title.starts_with(stream))
        .map(|(_, body)| body.as_str())
        .collect()
}

/// Whether a process is alive (zombies count as gone).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        }
        Err(_) => false,
    }
}

/// Waits up to `within` for `pid` to be gone.
pub fn gone_within(pid: u32, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

/// Reads a pid a program wrote to a file, waiting for it to appear.
pub fn read_pid(path: &Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(Instant::now() < until, "no pid in {}", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}
