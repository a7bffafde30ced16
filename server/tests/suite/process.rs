//! Process hygiene: groups killed on exit, timeout, cancellation, end of input.

use std::time::{Duration, Instant};

use serde_json::json;

use super::support::{Server, alive, gone_within, read_pid};

#[test]
fn a_backgrounded_child_does_not_survive_a_normal_exit() {
    let mut s = Server::start();
    let text = s.shell("sleep 300 & echo $! > bg.pid; echo started");
    assert_eq!(text, "started\n");
    let pid = read_pid(&s.path("bg.pid"));
    assert!(
        gone_within(pid, Duration::from_secs(2)),
        "background sleep {pid} survived"
    );
}

#[test]
fn a_timeout_kills_the_whole_group() {
    let mut s = Server::start();
    let started = Instant::now();
    let text = s.ok(
        "execute",
        json!({"language": "shell", "code": "sleep 300 & echo $! > bg.pid; echo $$ > me.pid; sleep 300", "timeout_ms": 700}),
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(text, "[timed out after 700 ms; process group killed]\n");
    for file in ["bg.pid", "me.pid"] {
        let pid = read_pid(&s.path(file));
        assert!(
            gone_within(pid, Duration::from_secs(2)),
            "{file}: {pid} survived"
        );
    }
}

#[test]
fn cancellation_stops_the_program_and_sends_no_response() {
    let mut s = Server::start();
    s.client
        .send(&json!({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"echo $$ > me.pid; sleep 30"}}}))
        .unwrap();
    let pid = read_pid(&s.path("me.pid"));
    assert!(alive(pid));
    s.client
        .notify(
            "notifications/cancelled",
            json!({"requestId": "slow", "reason": "test"}),
        )
        .unwrap();
    assert!(
        gone_within(pid, Duration::from_secs(1)),
        "sleep {pid} still running"
    );
    let stray = s.client.recv_quiet(Duration::from_millis(500)).unwrap();
    assert!(
        stray.is_none(),
        "a cancelled request was answered: {stray:?}"
    );
    let (pong, _) = s.client.request("ping", None).unwrap();
    assert_eq!(pong.result(), Some(&json!({})));
}

#[test]
fn end_of_input_during_a_call_kills_children_and_exits_within_a_second() {
    let mut s = Server::start();
    s.client
        .send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"sleep 300 & echo $! > bg.pid; sleep 300"}}}))
        .unwrap();
    let pid = read_pid(&s.path("bg.pid"));
    let started = Instant::now();
    let server = std::mem::replace(
        &mut s.client,
        qc_harness::client::Client::spawn(&qc_harness::client::ServerCommand::new("true")).unwrap(),
    );
    assert!(
        server.shutdown(Duration::from_secs(3)),
        "server did not exit"
    );
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(
        gone_within(pid, Duration::from_secs(1)),
        "child {pid} survived the server"
    );
}
