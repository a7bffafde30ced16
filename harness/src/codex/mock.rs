//! The mock model: an OpenAI Responses API endpoint on 127.0.0.1 (tiny_http)
//! that plays a scripted conversation. Each turn is decided from the request's
//! `input` alone (how many `function_call_output` items it holds), so a
//! retried request gets the same answer. Every request body is kept for
//! measurement.

use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use serde_json::{Value, json};

use crate::vars::Vars;

/// A tool call the model will make.
#[derive(Debug, Clone)]
pub struct PlannedCall {
    pub tool: String,
    pub args: Value,
    /// Regexes run on this call's output; their first group feeds later arguments.
    pub capture: Vec<(String, String)>,
}

/// How the mock answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Play the script.
    Script,
    /// Answer every request with HTTP 500 (to prove failures are reported).
    Fail500,
}

/// The MCP namespace Codex gives our server's tools.
pub const NAMESPACE: &str = "mcp__quietcontext";

/// The name Codex shows the model for one of our tools: characters other than
/// letters, digits and `_` become `_` (`exec-file` → `exec_file`).
pub fn codex_tool_name(tool: &str) -> String {
    tool.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The text of every `function_call_output` in a request's input, in order,
/// with Codex's `Wall time` header removed.
pub fn outputs(request: &Value) -> Vec<String> {
    request["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "function_call_output")
                .map(|i| output_text(&i["output"]))
                .collect()
        })
        .unwrap_or_default()
}

fn is_wall_time_header(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("Wall time: ") else {
        return false;
    };
    let Some((seconds, tail)) = rest.split_once(" seconds\nOutput:") else {
        return false;
    };
    tail.is_empty() && seconds.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Our text out of one `output` field (an array of `input_text` items, or a string).
pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => {
            if let Some(at) = s.find("seconds\nOutput:\n")
                && is_wall_time_header(&s[..at + "seconds\nOutput:".len()])
            {
                return s[at + "seconds\nOutput:\n".len()..].to_owned();
            }
            s.clone()
        }
        Value::Array(items) => {
            let texts: Vec<&str> = items.iter().filter_map(|i| i["text"].as_str()).collect();
            let skip = usize::from(texts.first().is_some_and(|t| is_wall_time_header(t)));
            texts[skip..].concat()
        }
        _ => String::new(),
    }
}

/// Server-sent events of one model response.
fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

fn completed(id: &str) -> Value {
    json!({"type": "response.completed", "response": {"id": id, "usage": {
        "input_tokens": 0, "input_tokens_details": null,
        "output_tokens": 0, "output_tokens_details": null, "total_tokens": 0}}})
}

/// The next response for `request`: the next planned call, or the final
/// message once every call has its output. Captures come from earlier outputs.
pub fn respond(calls: &[PlannedCall], request: &Value, base: &Vars) -> anyhow::Result<String> {
    let seen = outputs(request);
    let turn = seen.len();
    let id = format!("resp_{}", turn + 1);
    let mut vars = base.clone();
    for (call, output) in calls.iter().zip(&seen) {
        for (name, pattern) in &call.capture {
            vars.capture(name, pattern, output)?;
        }
    }
    let item = match calls.get(turn) {
        Some(call) => {
            let args = vars.expand_value(&call.args)?;
            json!({"type": "function_call", "id": format!("fc_{}", turn + 1),
                   "call_id": format!("call_{}", turn + 1), "namespace": NAMESPACE,
                   "name": codex_tool_name(&call.tool), "arguments": args.to_string()})
        }
        None => json!({"type": "message", "role": "assistant", "id": "msg_1",
                       "content": [{"type": "output_text", "text": "DONE"}]}),
    };
    Ok(sse(&[
        json!({"type": "response.created", "response": {"id": id}}),
        json!({"type": "response.output_item.done", "item": item}),
        completed(&id),
    ]))
}

/// A running mock; stops when dropped.
pub struct MockModel {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    pub port: u16,
    /// Raw `/responses` request bodies, in arrival order.
    requests: Arc<Mutex<Vec<String>>>,
}

impl MockModel {
    pub fn start(
        calls: Vec<PlannedCall>,
        vars: Vars,
        behaviour: Behaviour,
    ) -> anyhow::Result<MockModel> {
        let server = Arc::new(
            tiny_http::Server::http("127.0.0.1:0")
                .map_err(|e| anyhow::anyhow!("mock model: {e}"))?,
        );
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| anyhow::anyhow!("mock model has no port"))?;
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let (accept, seen) = (server.clone(), requests.clone());
        let event_stream =
            tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/event-stream"[..])
                .map_err(|()| anyhow::anyhow!("bad content-type header"))?;
        let thread = thread::spawn(move || {
            for mut request in accept.incoming_requests() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let reply = if behaviour == Behaviour::Fail500 {
                    tiny_http::Response::from_string("mock failure").with_status_code(500)
                } else if request.url().ends_with("/responses") {
                    let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                    let answer = respond(&calls, &value, &vars);
                    if let Ok(mut list) = seen.lock() {
                        list.push(body);
                    }
                    match answer {
                        Ok(events) => tiny_http::Response::from_string(events)
                            .with_header(event_stream.clone()),
                        Err(e) => tiny_http::Response::from_string(format!("mock error: {e}"))
                            .with_status_code(500),
                    }
                } else {
                    tiny_http::Response::from_string("not found").with_status_code(404)
                };
                let _ = request.respond(reply);
            }
        });
        Ok(MockModel {
            server,
            thread: Some(thread),
            port,
            requests,
        })
    }

    /// Every `/responses` request body received so far, as sent.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls() -> Vec<PlannedCall> {
        vec![
            PlannedCall {
                tool: "search".into(),
                args: json!({"queries": ["x"]}),
                capture: vec![("ref".into(), r"\[(r:\d{6})\]".into())],
            },
            PlannedCall {
                tool: "search".into(),
                args: json!({"refs": ["${ref}"]}),
                capture: vec![],
            },
        ]
    }

    fn output_item(call: usize, text: &str) -> Value {
        json!({"type": "function_call_output", "call_id": format!("call_{call}"), "output": [
            {"type": "input_text", "text": "Wall time: 0.0072 seconds\nOutput:"},
            {"type": "input_text", "text": text}
        ]})
    }

    fn events(body: &str) -> Vec<Value> {
        body.split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let data = e.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
                serde_json::from_str(data).unwrap()
            })
            .collect()
    }

    #[test]
    fn the_first_turn_calls_the_first_tool_in_our_namespace() {
        let body = respond(
            &calls(),
            &json!({"input": [{"type": "message"}]}),
            &Vars::default(),
        )
        .unwrap();
        assert!(body.starts_with("event: response.created\ndata: "));
        let ev = events(&body);
        assert_eq!(ev.len(), 3);
        let item = &ev[1]["item"];
        assert_eq!(item["type"], "function_call");
        assert_eq!(item["namespace"], NAMESPACE);
        assert_eq!(item["name"], "search");
        assert_eq!(item["call_id"], "call_1");
        assert_eq!(item["arguments"], r#"{"queries":["x"]}"#);
        assert_eq!(ev[2]["type"], "response.completed");
    }

    #[test]
    fn later_turns_use_captures_and_the_last_turn_says_done() {
        let request =
            json!({"input": [{"type": "message"}, output_item(1, "q: x\n[r:123456] T (s)\n")]});
        let ev = events(&respond(&calls(), &request, &Vars::default()).unwrap());
        assert_eq!(ev[1]["item"]["arguments"], r#"{"refs":["r:123456"]}"#);
        let done = json!({"input": [output_item(1, "[r:123456]"), output_item(2, "text")]});
        let ev = events(&respond(&calls(), &done, &Vars::default()).unwrap());
        assert_eq!(ev[1]["item"]["type"], "message");
        assert_eq!(ev[1]["item"]["content"][0]["text"], "DONE");
    }

    #[test]
    fn the_same_input_gets_the_same_answer() {
        let request = json!({"input": [output_item(1, "[r:654321]")]});
        let a = respond(&calls(), &request, &Vars::default()).unwrap();
        let b = respond(&calls(), &request, &Vars::default()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn tool_names_are_called_the_way_codex_shows_them() {
        assert_eq!(codex_tool_name("exec-file"), "exec_file");
        assert_eq!(codex_tool_name("fetch-index"), "fetch_index");
        assert_eq!(codex_tool_name("search"), "search");
    }

    #[test]
    fn wall_time_headers_are_stripped_in_both_forms() {
        assert_eq!(output_text(&output_item(1, "ours\n")["output"]), "ours\n");
        assert_eq!(
            output_text(&json!("Wall time: 1.5 seconds\nOutput:\nours")),
            "ours"
        );
        assert_eq!(output_text(&json!("no header")), "no header");
    }
}
