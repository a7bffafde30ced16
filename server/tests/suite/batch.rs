//! SPEC §5 batch: outputs indexed and searched, budgets, progress, timeouts.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::{Server, refs};

fn log_command(tag: &str, lines: usize) -> String {
    format!("for i in $(seq 1 {lines}); do echo \"{tag} line $i widget-$i status ok\"; done")
}

#[test]
fn small_output_is_shown_as_is_and_never_larger_than_raw_plus_status() {
    let mut s = Server::start();
    let text = s.ok(
        "batch",
        json!({"commands": [
            {"label": "a", "command": "echo alpha"},
            {"label": "b", "command": "echo beta >&2; exit 3"}
        ], "queries": ["alpha"]}),
    );
    assert_eq!(
        text,
        "$ a: exit 0, 6 B, 1 lines\nalpha\n$ b: exit 3, 5 B, 1 lines (stderr 5 B)\nbeta\n"
    );
}

#[test]
fn large_outputs_are_indexed_searched_and_deduplicated_within_the_budget() {
    let mut s = Server::start();
    let text = s.ok(
        "batch",
        json!({"commands": [
            {"label": "build", "command": log_command("build", 2000)},
            {"label": "test", "command": log_command("test", 2000)},
            {"label": "lint", "command": "echo lint clean"}
        ], "queries": ["widget-1234", "build widget-1234"]}),
    );
    assert!(text.len() <= 12288, "{}", text.len());
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("$ build: exit 0, "), "{text}");
    assert!(
        lines[2].starts_with("$ lint: exit 0, 11 B, 1 lines"),
        "{text}"
    );
    assert!(text.contains("q: widget-1234"), "{text}");
    let all = refs(&text);
    assert!(!all.is_empty());
    // A chunk listed under the first query is only referenced under the second.
    let previews = text.matches("  > ").count();
    let unique: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(previews, unique.len(), "{text}");
    let later = s.ok(
        "search",
        json!({"queries": ["widget-77"], "source": "test"}),
    );
    assert_eq!(refs(&later).len(), 1, "{later}");
    let lower = s.ok(
        "batch",
        json!({"commands": [{"label": "big", "command": log_command("big", 2000)}],
               "queries": ["widget-5"], "max_bytes": 600}),
    );
    assert!(lower.len() <= 600, "{}", lower.len());
}

#[test]
fn a_failing_command_is_reported_and_the_rest_still_run() {
    let mut s = Server::start();
    let text = s.ok(
        "batch",
        json!({"commands": [
            {"label": "bad", "command": "false"},
            {"label": "good", "command": "echo fine"}
        ]}),
    );
    assert!(
        text.starts_with("$ bad: exit 1, 0 B, 0 lines\n$ good: exit 0"),
        "{text}"
    );
}

#[test]
fn a_timeout_skips_the_remaining_commands_and_names_them() {
    let mut s = Server::start();
    let text = s.ok(
        "batch",
        json!({"commands": [
            {"label": "quick", "command": "echo ok"},
            {"label": "hang", "command": "sleep 30"},
            {"label": "never1", "command": "touch never.txt"},
            {"label": "never2", "command": "touch never.txt"}
        ], "timeout_ms": 800}),
    );
    assert!(text.contains("$ hang: timed out after"), "{text}");
    assert!(
        text.ends_with("batch timed out after 800 ms; skipped: never1, never2\n"),
        "{text}"
    );
    assert!(!s.path("never.txt").exists());
}

#[test]
fn duplicate_labels_and_bad_commands_are_argument_errors() {
    let mut s = Server::start();
    let text = s.err(
        "batch",
        json!({"commands": [{"label": "x", "command": "true"}, {"label": "x", "command": "true"}]}),
    );
    assert_eq!(
        text,
        "invalid argument commands[1].label: duplicate label \"x\""
    );
    let text = s.err("batch", json!({"commands": [{"label": "x"}]}));
    assert_eq!(
        text,
        "invalid argument commands[0].command: missing required string"
    );
    let text = s.err("batch", json!({"commands": []}));
    assert_eq!(
        text,
        "invalid argument commands: must hold 1..=50 commands, got 0"
    );
}

#[test]
fn progress_notifications_arrive_in_order_before_the_response() {
    let mut s = Server::start();
    let reply = s
        .client
        .call_tool_with(
            "batch",
            json!({"commands": [
                {"label": "one", "command": "echo 1"},
                {"label": "two", "command": "echo 2"},
                {"label": "three", "command": "echo 3"}
            ]}),
            Some(json!("tok-1")),
        )
        .unwrap();
    let progress: Vec<&Value> = reply
        .notifications
        .iter()
        .map(|f| &f.value)
        .filter(|v| v["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", reply.notifications);
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(p["params"]["progressToken"], "tok-1");
        assert_eq!(p["params"]["progress"], i as u64 + 1);
        assert_eq!(p["params"]["total"], 3);
    }
    // Nothing more after the response.
    assert!(
        s.client
            .recv_quiet(Duration::from_millis(300))
            .unwrap()
            .is_none()
    );
}
