//! The gate must be able to fail: a stand-in server that breaks the contract
//! (a fat tools/list, a reply over budget, a token regression) makes
//! `qc-harness gate` and `replay` exit 1; a well-behaved one passes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HARNESS: &str = env!("CARGO_BIN_EXE_qc-harness");

fn standin(mode: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/standin/mcp_standin.py");
    format!("python3 {} {mode}", script.display())
}

struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("scenarios")).unwrap();
        std::fs::write(
            dir.path().join("scenarios/search-once.yaml"),
            "description: one search\nsteps:\n  - call: search\n    args: {queries: [x]}\n    expect: {contains: ['q: x']}\n",
        )
        .unwrap();
        Workspace { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn gate(&self, mode: &str, extra: &[&str]) -> Output {
        let out = Command::new(HARNESS)
            .current_dir(self.dir.path())
            .args(["gate", "--no-codex", "--server", &standin(mode)])
            .args(extra)
            .output()
            .unwrap();
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
        out
    }
}

fn summary(ws: &Workspace) -> String {
    std::fs::read_to_string(ws.path("reports/summary.md")).unwrap()
}

#[test]
fn a_well_behaved_server_passes_and_all_four_reports_are_written() {
    let ws = Workspace::new();
    let out = ws.gate("ok", &["--update-baseline"]);
    assert_eq!(out.status.code(), Some(0));
    for report in ["latest.json", "summary.md", "junit.xml", "dashboard.html"] {
        assert!(
            ws.path("reports").join(report).is_file(),
            "{report} missing"
        );
    }
    assert!(ws.path("reports/baseline.json").is_file());
    assert!(summary(&ws).starts_with("# QuietContext gate: PASS"));
    let again = ws.gate("ok", &[]);
    assert_eq!(again.status.code(), Some(0));
}

#[test]
fn a_tools_list_over_4096_bytes_fails_the_gate() {
    let ws = Workspace::new();
    let out = ws.gate("fat-list", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        summary(&ws).contains("over the 4096 B limit"),
        "{}",
        summary(&ws)
    );
    let junit = std::fs::read_to_string(ws.path("reports/junit.xml")).unwrap();
    assert!(junit.contains("<failure"), "{junit}");
}

#[test]
fn a_reply_over_its_budget_fails_replay_and_the_gate() {
    let ws = Workspace::new();
    let out = ws.gate("over-budget", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        summary(&ws).contains("over its 8192 B budget"),
        "{}",
        summary(&ws)
    );
    let replay = Command::new(HARNESS)
        .current_dir(ws.dir.path())
        .args(["replay", "--server", &standin("over-budget")])
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(1));
}

#[test]
fn a_token_regression_against_the_baseline_fails_the_gate() {
    let ws = Workspace::new();
    assert_eq!(ws.gate("ok", &["--update-baseline"]).status.code(), Some(0));
    let out = ws.gate("verbose", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        summary(&ws).contains("reply tokens grew from"),
        "{}",
        summary(&ws)
    );
}

#[test]
fn a_missing_required_codex_fails_the_gate() {
    let ws = Workspace::new();
    let out = Command::new(HARNESS)
        .current_dir(ws.dir.path())
        .args(["gate", "--require-codex", "--server", &standin("ok")])
        .args(["--codex-scenarios", "does-not-exist"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(summary(&ws).contains("codex"), "{}", summary(&ws));
}

#[test]
fn a_server_that_cannot_start_is_exit_code_2() {
    let ws = Workspace::new();
    let out = Command::new(HARNESS)
        .current_dir(ws.dir.path())
        .args(["tokens", "--server", "/nonexistent/server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/server"));
}
