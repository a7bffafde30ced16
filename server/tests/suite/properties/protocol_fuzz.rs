//! Hostile bytes on the wire (a proptest over arbitrary input, the fuzz
//! target for the line codec and the dispatcher): whatever lines arrive, the
//! server answers each at most once, never writes anything but whole JSON
//! frames, never dies, and then serves a valid request.

use std::cell::RefCell;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;

use super::{Target, runner, verdict};

const SEEDS: &str = "tests/proptest-regressions/protocol_fuzz.txt";

/// A line: random bytes, or a JSON-RPC-shaped message with random parts.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let method = prop_oneof![
        Just("ping".to_owned()),
        Just("tools/list".to_owned()),
        Just("tools/call".to_owned()),
        Just("initialize".to_owned()),
        Just("server/discover".to_owned()),
        Just("notifications/cancelled".to_owned()),
        "[a-z/]{0,12}",
    ];
    let id = prop_oneof![
        Just("1".to_owned()),
        Just("null".to_owned()),
        Just("\"s\"".to_owned()),
        Just("1.5".to_owned()),
        Just("{}".to_owned()),
        Just("99999999999999999999999".to_owned()),
    ];
    let params = prop_oneof![
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just("5".to_owned()),
        Just(r#"{"name":"search","arguments":{"queries":["x"]}}"#.to_owned()),
        Just(r#"{"name":"execute","arguments":{"language":"shell","code":"echo hi"}}"#.to_owned()),
        Just(r#"{"name":"nope","arguments":7}"#.to_owned()),
        Just(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}"#.to_owned()),
        "[ -~]{0,30}",
    ];
    prop_oneof![
        proptest::collection::vec(
            any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
            0..200
        ),
        (method, id, params, any::<bool>()).prop_map(|(m, id, p, with_id)| {
            let id = if with_id {
                format!(r#""id":{id},"#)
            } else {
                String::new()
            };
            format!(r#"{{"jsonrpc":"2.0",{id}"method":"{m}","params":{p}}}"#).into_bytes()
        }),
    ]
}

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

pub fn protocol_fuzz_property(cases: u32, seeds: Option<&'static str>) -> Result<(), String> {
    let server = RefCell::new(Target::Real.start());
    verdict(
        runner(cases, seeds).run(&proptest::collection::vec(line(), 1..8), |lines| {
            let mut server = server.borrow_mut();
            let c = &mut server.client;
            for line in &lines {
                c.send_raw(line).map_err(fail)?;
            }
            // A valid request after the noise must still be answered.
            let (pong, _) = c.request("ping", None).map_err(fail)?;
            prop_assert_eq!(pong.result(), Some(&json!({})));
            // Anything else that arrived is one whole JSON frame per line
            // (the client parsed it), and there is at most one per line sent.
            let mut extra = 0;
            while let Some(frame) = c.recv_quiet(Duration::from_millis(50)).map_err(fail)? {
                prop_assert!(frame.value.is_object());
                extra += 1;
            }
            prop_assert!(!c.exited(), "the server died");
            prop_assert!(
                extra <= lines.len() + 1,
                "{extra} frames for {} lines",
                lines.len()
            );
            Ok(())
        }),
    )
}

#[test]
fn arbitrary_lines_never_break_the_server() {
    protocol_fuzz_property(64, Some(SEEDS)).unwrap();
}
