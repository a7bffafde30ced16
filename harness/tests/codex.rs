//! A failing Codex run is a clear failure, never a hang: the real Codex CLI
//! (installed by the harness with npm) against a server that does not exist,
//! and against a mock model that answers HTTP 500.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const HARNESS: &str = env!("CARGO_BIN_EXE_qc-harness");

fn scenarios() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("one-search.yaml"),
        "description: one search\nturns:\n  - call: search\n    args: {queries: [x]}\n",
    )
    .unwrap();
    dir
}

fn standin() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/standin/mcp_standin.py");
    format!("python3 {} ok", script.display())
}

fn codex(server: &str, extra: &[&str]) -> (Option<i32>, String, Duration) {
    let dir = scenarios();
    let started = Instant::now();
    let out = Command::new(HARNESS)
        .args(["codex", "--server", server, "--codex-scenarios"])
        .arg(dir.path())
        .args(extra)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text, started.elapsed())
}

#[test]
fn a_missing_server_binary_fails_the_run_clearly() {
    let (code, text, took) = codex("/nonexistent/quietcontext", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("FAIL one-search"), "{text}");
    assert!(text.contains("codex exec exited with"), "{text}");
    assert!(took < Duration::from_secs(90), "took {took:?}");
}

#[test]
fn a_mock_answering_500_fails_the_run_clearly() {
    let (code, text, took) = codex(&standin(), &["--mock-fail"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("codex exec exited with"), "{text}");
    assert!(took < Duration::from_secs(90), "took {took:?}");
}

#[test]
fn a_passing_run_sees_the_servers_text_unchanged() {
    let (code, text, _) = codex(&standin(), &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("ok   one-search"), "{text}");
    assert!(text.contains("2/2 model requests"), "{text}");
}
