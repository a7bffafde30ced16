//! Hostile protocol input: every case is answered per the spec (or ignored
//! when it is a notification) and the next valid request is still served.

use std::time::Duration;

use qc_harness::client::{Client, ServerCommand};
use quietcontext::protocol::jsonrpc::code;
use serde_json::{Value, json};

use super::support::BIN;

fn server() -> (Client, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::spawn(&ServerCommand::new(BIN).cwd(dir.path())).unwrap();
    client.deadline = Duration::from_secs(60);
    client.initialize("2025-06-18").unwrap();
    (client, dir)
}

fn still_serves(c: &mut Client) {
    let (pong, _) = c.request("ping", None).unwrap();
    assert_eq!(
        pong.result(),
        Some(&json!({})),
        "the server stopped serving"
    );
}

fn answer(c: &mut Client, line: &[u8]) -> Value {
    c.send_raw(line).unwrap();
    c.recv(Duration::from_secs(60)).unwrap().value
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let (mut c, _dir) = server();
    let reply = answer(
        &mut c,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}",
    );
    assert_eq!(reply["error"]["code"], code::PARSE_ERROR);
    assert_eq!(reply["id"], Value::Null);
    still_serves(&mut c);
}

#[test]
fn a_64_mib_line_is_refused_without_being_buffered() {
    let (mut c, _dir) = server();
    let mut line = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.to_vec();
    line.extend(std::iter::repeat_n(b'a', 64 * 1024 * 1024));
    line.extend_from_slice(br#""}}"#);
    let reply = answer(&mut c, &line);
    assert_eq!(reply["error"]["code"], code::INVALID_REQUEST);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds")
    );
    still_serves(&mut c);
}

#[test]
fn json_nested_100_000_deep_does_not_overflow_the_stack() {
    let (mut c, _dir) = server();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let reply = answer(&mut c, deep.as_bytes());
    assert_eq!(reply["error"]["code"], code::PARSE_ERROR);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let in_params = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{objects}}}"#);
    let reply = answer(&mut c, in_params.as_bytes());
    assert_eq!(reply["error"]["code"], code::PARSE_ERROR);
    // Deep, but valid JSON and not a JSON-RPC message: an invalid request.
    let reply = answer(&mut c, objects.as_bytes());
    assert_eq!(reply["error"]["code"], code::INVALID_REQUEST);
    still_serves(&mut c);
}

#[test]
fn huge_and_odd_ids() {
    let (mut c, _dir) = server();
    // Numbers and strings of any size come back exactly as sent.
    for id in [
        "123456789012345678901234567890",
        "-7",
        "1.5",
        "1e3",
        r#""x""#,
        r#""""#,
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        c.send_raw(line.as_bytes()).unwrap();
        let frame = c.recv(Duration::from_secs(10)).unwrap();
        let raw = String::from_utf8(frame.raw.clone()).unwrap();
        assert_eq!(
            raw,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
            "id {id}"
        );
    }
    // null, booleans, objects and arrays are not ids.
    for id in ["null", "true", r#"{"a":1}"#, "[1]"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let reply = answer(&mut c, line.as_bytes());
        assert_eq!(reply["error"]["code"], code::INVALID_REQUEST, "id {id}");
        assert_eq!(reply["id"], Value::Null);
    }
    still_serves(&mut c);
}

#[test]
fn wrong_params_types() {
    let (mut c, _dir) = server();
    for params in ["5", r#""x""#, "[]", "true"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{params}}}"#);
        let reply = answer(&mut c, line.as_bytes());
        assert_eq!(
            reply["error"]["code"],
            code::INVALID_PARAMS,
            "params {params}"
        );
    }
    for params in [r#"{"name":5}"#, r#"{"name":null}"#, r#"{}"#] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#);
        let reply = answer(&mut c, line.as_bytes());
        assert_eq!(
            reply["error"]["code"],
            code::INVALID_PARAMS,
            "params {params}"
        );
    }
    still_serves(&mut c);
}

#[test]
fn json_array_lines_get_one_invalid_request_error() {
    let (mut c, _dir) = server();
    for line in [
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        "[]",
    ] {
        let reply = answer(&mut c, line.as_bytes());
        assert_eq!(reply["error"]["code"], code::INVALID_REQUEST, "{line}");
        assert_eq!(reply["id"], Value::Null);
    }
    assert!(
        c.recv_quiet(Duration::from_millis(300)).unwrap().is_none(),
        "one answer per batch line"
    );
    still_serves(&mut c);
}

#[test]
fn a_notification_carrying_an_id_is_refused() {
    let (mut c, _dir) = server();
    let reply = answer(
        &mut c,
        br#"{"jsonrpc":"2.0","id":"n1","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    assert_eq!(reply["error"]["code"], code::INVALID_REQUEST);
    assert_eq!(reply["id"], "n1");
    still_serves(&mut c);
}

#[test]
fn unknown_notifications_and_client_responses_are_ignored() {
    let (mut c, _dir) = server();
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}"#)
        .unwrap();
    c.send_raw(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#)
        .unwrap();
    c.send_raw(b"").unwrap();
    c.send_raw(b"   ").unwrap();
    assert!(c.recv_quiet(Duration::from_millis(300)).unwrap().is_none());
    still_serves(&mut c);
}

#[test]
fn a_request_after_its_cancellation_runs_normally() {
    let (mut c, _dir) = server();
    c.notify("notifications/cancelled", json!({"requestId": 41}))
        .unwrap();
    c.send(&json!({"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"echo ran"}}}))
        .unwrap();
    let (frame, _) = c.wait_for(&json!(41)).unwrap();
    assert_eq!(
        quietcontext::protocol::mcp::result_text(frame.result().unwrap()),
        "ran\n"
    );
}
