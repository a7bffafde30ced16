//! A transparent stdio proxy that records every line between a client and an
//! MCP server: `qc-harness proxy --log FILE -- SERVER ARGS…`. The Codex run
//! puts it between Codex and our server, so what the server really sent can
//! be compared with what the model really saw.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

use anyhow::Context;

/// Direction marks in the log: a line the client sent, a line the server sent.
pub const FROM_CLIENT: &str = "> ";
pub const FROM_SERVER: &str = "< ";

/// Runs `command` with its stdio relayed through this process; returns its exit code.
pub fn run(log: &Path, command: &[String]) -> anyhow::Result<i32> {
    let (program, args) = command.split_first().context("proxy: no server command")?;
    let log = Arc::new(Mutex::new(BufWriter::new(
        File::create(log).with_context(|| format!("cannot create {}", log.display()))?,
    )));
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let mut child_in = child.stdin.take().context("no child stdin")?;
    let child_out = child.stdout.take().context("no child stdout")?;
    let up_log = log.clone();
    let upstream = thread::spawn(move || {
        for line in BufReader::new(std::io::stdin().lock()).split(b'\n') {
            let Ok(line) = line else { break };
            record(&up_log, FROM_CLIENT, &line);
            if child_in
                .write_all(&line)
                .and_then(|()| child_in.write_all(b"\n"))
                .is_err()
            {
                break;
            }
            let _ = child_in.flush();
        }
        // Dropping child_in closes the server's stdin.
    });
    let mut out = std::io::stdout().lock();
    for line in BufReader::new(child_out).split(b'\n') {
        let Ok(line) = line else { break };
        record(&log, FROM_SERVER, &line);
        out.write_all(&line)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    let status = child.wait()?;
    drop(upstream);
    if let Ok(mut log) = log.lock() {
        log.flush()?;
    }
    Ok(status.code().unwrap_or(1))
}

fn record(log: &Mutex<BufWriter<File>>, mark: &str, line: &[u8]) {
    if let Ok(mut log) = log.lock() {
        let _ = log.write_all(mark.as_bytes());
        let _ = log.write_all(line);
        let _ = log.write_all(b"\n");
        let _ = log.flush();
    }
}

/// One `tools/call` as the server received and answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCall {
    pub name: String,
    pub arguments: serde_json::Value,
    /// The result's text (empty when the server answered with an error).
    pub text: String,
}

/// Every `tools/call` in a proxy log, in the order they were made, with the
/// text the server answered.
pub fn tool_calls(log: &str) -> Vec<ServerCall> {
    use serde_json::Value;
    let mut calls: Vec<(Value, ServerCall)> = Vec::new();
    let mut results: Vec<(Value, String)> = Vec::new();
    for line in log.lines() {
        if let Some(sent) = line.strip_prefix(FROM_CLIENT) {
            let Ok(v) = serde_json::from_str::<Value>(sent) else {
                continue;
            };
            if v["method"] == "tools/call" {
                let call = ServerCall {
                    name: v["params"]["name"].as_str().unwrap_or("").to_owned(),
                    arguments: v["params"]["arguments"].clone(),
                    text: String::new(),
                };
                calls.push((v["id"].clone(), call));
            }
        } else if let Some(got) = line.strip_prefix(FROM_SERVER) {
            let Ok(v) = serde_json::from_str::<Value>(got) else {
                continue;
            };
            if let Some(result) = v.get("result") {
                results.push((
                    v["id"].clone(),
                    quietcontext::protocol::mcp::result_text(result),
                ));
            }
        }
    }
    calls
        .into_iter()
        .map(|(id, mut call)| {
            if let Some((_, text)) = results.iter().find(|(rid, _)| *rid == id) {
                call.text = text.clone();
            }
            call
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_follow_the_order_of_the_calls() {
        let log = [
            r#"> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
            r#"< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"x"}}"#,
            r#"> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}"#,
            r#"> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"b","arguments":{}}}"#,
            r#"< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"second"}]}}"#,
            r#"< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"first"}]}}"#,
        ]
        .join("\n");
        let calls = tool_calls(&log);
        let texts: Vec<&str> = calls.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, vec!["first", "second"]);
        assert_eq!(calls[0].name, "a");
        assert_eq!(calls[0].arguments, serde_json::json!({"x": 1}));
    }
}
