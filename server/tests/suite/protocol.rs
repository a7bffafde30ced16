//! SPEC §2–3: lifecycle in both eras, error codes, the tool surface, framing.

use std::time::Duration;

use qc_harness::client::{Client, ServerCommand};
use quietcontext::protocol::jsonrpc::code;
use serde_json::{Value, json};

use super::support::{BIN, Server};

fn raw_client() -> (Client, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let client = Client::spawn(&ServerCommand::new(BIN).cwd(dir.path())).unwrap();
    (client, dir)
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn legacy_initialize_echoes_each_supported_version() {
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let (mut c, _dir) = raw_client();
        let frame = c.initialize(version).unwrap();
        let result = frame.result().unwrap();
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"]["name"], "quietcontext");
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert!(result["instructions"].as_str().unwrap().len() <= 256);
        assert!(
            result.get("resultType").is_none(),
            "legacy results stay plain"
        );
        let (pong, _) = c.request("ping", None).unwrap();
        assert_eq!(pong.result(), Some(&json!({})));
    }
}

#[test]
fn an_unknown_legacy_version_gets_the_newest() {
    let (mut c, _dir) = raw_client();
    let frame = c.initialize("1999-01-01").unwrap();
    assert_eq!(frame.result().unwrap()["protocolVersion"], "2025-11-25");
}

#[test]
fn modern_discover_and_stateless_tools_list() {
    let (mut c, _dir) = raw_client();
    let (discover, _) = c
        .request("server/discover", Some(json!({"_meta": modern_meta()})))
        .unwrap();
    let d = discover.result().unwrap();
    assert_eq!(d["resultType"], "complete");
    assert_eq!(d["supportedVersions"][0], "2026-07-28");
    assert_eq!(d["serverInfo"]["name"], "quietcontext");
    assert_eq!(d["cacheScope"], "public");
    assert!(d["ttlMs"].as_u64().unwrap() > 0);

    // No handshake: a stateless request straight away, with extra _meta keys.
    let mut meta = modern_meta();
    meta["progressToken"] = json!(7);
    meta["vendor.example/anything"] = json!({"x": 1});
    let (list, _) = c
        .request("tools/list", Some(json!({"_meta": meta})))
        .unwrap();
    let l = list.result().unwrap();
    assert_eq!(l["resultType"], "complete");
    assert_eq!(l["cacheScope"], "public");
    assert!(l["ttlMs"].as_u64().unwrap() > 0);
    assert_eq!(l["tools"].as_array().unwrap().len(), 6);

    let (call, _) = c
        .request(
            "tools/call",
            Some(
                json!({"_meta": modern_meta(), "name": "search", "arguments": {"queries": ["x"]}}),
            ),
        )
        .unwrap();
    assert_eq!(call.result().unwrap()["resultType"], "complete");
}

#[test]
fn an_unsupported_modern_version_is_32022_with_the_supported_list() {
    let (mut c, _dir) = raw_client();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let (frame, _) = c
        .request("tools/list", Some(json!({"_meta": meta})))
        .unwrap();
    assert_eq!(frame.error_code(), Some(code::UNSUPPORTED_PROTOCOL_VERSION));
    let data = &frame.value["error"]["data"];
    assert_eq!(data["requested"], "2099-01-01");
    assert!(
        data["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
}

#[test]
fn tools_list_is_exactly_six_tools_within_4096_bytes() {
    let mut s = Server::start();
    let frame = s.client.list_tools().unwrap();
    let result = frame.result().unwrap();
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "batch",
            "exec-file",
            "execute",
            "fetch-index",
            "index",
            "search"
        ]
    );
    let bytes = serde_json::to_string(result).unwrap().len();
    assert!(bytes <= 4096, "tools/list result is {bytes} bytes");
    for tool in result["tools"].as_array().unwrap() {
        assert!(tool.get("outputSchema").is_none());
        assert_eq!(tool["inputSchema"]["type"], "object");
    }
}

#[test]
fn every_error_code_path_and_the_server_keeps_serving() {
    let (mut c, _dir) = raw_client();
    c.initialize("2025-06-18").unwrap();
    let cases: Vec<(&str, i64)> = vec![
        ("{not json", code::PARSE_ERROR),
        ("[1,", code::PARSE_ERROR),
        ("42", code::INVALID_REQUEST),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            code::INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            code::INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            code::INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"nope/nothing"}"#,
            code::METHOD_NOT_FOUND,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            code::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":[1]}}"#,
            code::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":"x"}}"#,
            code::INVALID_PARAMS,
        ),
    ];
    for (line, expected) in cases {
        c.send_raw(line.as_bytes()).unwrap();
        let frame = c.recv(Duration::from_secs(10)).unwrap();
        assert_eq!(
            frame.error_code(),
            Some(expected),
            "{line} -> {}",
            frame.value
        );
        let (pong, _) = c.request("ping", None).unwrap();
        assert_eq!(pong.result(), Some(&json!({})), "after {line}");
    }
}

#[test]
fn parse_errors_answer_with_a_null_id() {
    let (mut c, _dir) = raw_client();
    c.send_raw(b"{oops").unwrap();
    let frame = c.recv(Duration::from_secs(10)).unwrap();
    assert_eq!(frame.value["id"], Value::Null);
    assert_eq!(frame.error_code(), Some(code::PARSE_ERROR));
}

#[test]
fn a_line_over_the_limit_is_refused_and_the_next_is_served() {
    let (mut c, _dir) = raw_client();
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    c.send_raw(long.as_bytes()).unwrap();
    let frame = c.recv(Duration::from_secs(30)).unwrap();
    assert_eq!(frame.error_code(), Some(code::INVALID_REQUEST));
    assert!(
        frame.value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds")
    );
    let (pong, _) = c.request("ping", None).unwrap();
    assert_eq!(pong.result(), Some(&json!({})));
}

#[test]
fn unknown_arguments_and_bad_values_are_tool_errors_that_name_the_field() {
    let mut s = Server::start();
    let text = s.err("search", json!({"query": "x"}));
    assert!(
        text.starts_with("invalid argument query: unknown field"),
        "{text}"
    );
    let text = s.err("search", json!({"queries": "x"}));
    assert_eq!(
        text,
        "invalid argument queries: must be an array of strings, got a string"
    );
    let text = s.err("search", json!({"queries": ["x"], "limit": 0}));
    assert_eq!(
        text,
        "invalid argument limit: must be an integer in 1..=100, got 0"
    );
}

#[test]
fn requests_run_concurrently_and_answers_never_interleave() {
    let mut s = Server::start();
    // A slow call first, then a fast one: the fast answer arrives first.
    s.client
        .send(&json!({"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"sleep 1; echo slow"}}}))
        .unwrap();
    s.client
        .send(&json!({"jsonrpc":"2.0","id":101,"method":"ping"}))
        .unwrap();
    let first = s.client.recv(Duration::from_secs(10)).unwrap();
    assert_eq!(first.value["id"], 101);
    let second = s.client.recv(Duration::from_secs(10)).unwrap();
    assert_eq!(second.value["id"], 100);
    assert_eq!(
        quietcontext::protocol::mcp::result_text(second.result().unwrap()),
        "slow\n"
    );
}

#[test]
fn a_duplicate_in_flight_id_is_refused() {
    let mut s = Server::start();
    let slow = json!({"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"sleep 1; echo done"}}});
    s.client.send(&slow).unwrap();
    s.client.send(&slow).unwrap();
    let first = s.client.recv(Duration::from_secs(10)).unwrap();
    assert_eq!(first.error_code(), Some(code::INVALID_REQUEST));
    assert!(
        first.value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in flight")
    );
    let second = s.client.recv(Duration::from_secs(10)).unwrap();
    assert_eq!(second.value["id"], "dup");
    assert!(second.result().is_some());
}

#[test]
fn end_of_input_exits_promptly() {
    let (mut c, _dir) = raw_client();
    c.initialize("2025-06-18").unwrap();
    assert!(
        c.shutdown(Duration::from_secs(2)),
        "server did not exit on EOF"
    );
}
