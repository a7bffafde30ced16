//! Faults: programs that misbehave, an unwritable temporary folder, a store
//! deleted or corrupted underneath, termination. Nothing crashes; errors name
//! what went wrong.

use std::time::{Duration, Instant};

use qc_harness::client::{Client, ServerCommand};
use serde_json::json;

use super::support::{BIN, Server, alive, gone_within, read_pid};

#[test]
fn a_program_closing_stdout_early_and_running_on_is_still_reported() {
    let mut s = Server::start();
    let text = s.shell("echo first; exec 1>&-; sleep 0.3; echo 'still here' >&2; exit 3");
    assert_eq!(text, "first\n[stderr]\nstill here\n[exit 3]\n");
}

#[test]
fn a_storm_of_children_is_ended_by_the_timeout_and_the_group_kill() {
    let mut s = Server::start();
    let started = Instant::now();
    let text = s.ok(
        "execute",
        json!({"language": "shell", "timeout_ms": 1000,
               "code": "for i in $(seq 1 200); do sleep 300 & echo $! >> kids.pid; done; wait"}),
    );
    assert!(
        text.ends_with("[timed out after 1000 ms; process group killed]\n"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let pids: Vec<u32> = std::fs::read_to_string(s.path("kids.pid"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 200);
    for pid in pids {
        assert!(
            gone_within(pid, Duration::from_secs(2)),
            "child {pid} survived"
        );
    }
}

#[test]
fn a_session_leader_escapes_the_group_but_the_reply_still_comes() {
    // Documented limit: `setsid` leaves the process group, so the group kill
    // cannot reach it. It keeps the output pipe open; reading stops after a
    // grace period and the reply says so.
    let mut s = Server::start();
    let started = Instant::now();
    let text = s.shell(
        "setsid sh -c 'echo $$ > escaped.pid; sleep 30' & while [ ! -s escaped.pid ]; do sleep 0.05; done; echo started",
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(text.starts_with("started\n"), "{text}");
    assert!(text.contains("kept its output open"), "{text}");
    let pid = read_pid(&s.path("escaped.pid"));
    assert!(
        alive(pid),
        "the escaped process is expected to survive (documented)"
    );
    let _ = nix_kill(pid);
}

fn nix_kill(pid: u32) -> std::io::Result<std::process::ExitStatus> {
    std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
}

#[test]
fn endless_output_is_stopped_at_the_capture_limit_with_bounded_memory() {
    let mut s = Server::start_with(|cmd| cmd.arg("--capture-limit-mib").arg("24"));
    let pid = s.client.pid();
    let idle = memory(pid).0;
    let text = s.ok(
        "execute",
        json!({"language": "shell", "code": "yes 'endless output line'"}),
    );
    assert!(text.starts_with("[stopped: output passed the 24 MiB capture limit; process group killed] output indexed as"), "{text}");
    let peak = memory(pid).1;
    assert!(
        peak < idle + 64 * 1024,
        "peak RSS {peak} KiB, idle {idle} KiB"
    );
    // What was captured is indexed and searchable.
    let label = super::support::indexed_label(&text);
    let hits = s.ok("search", json!({"source": label, "limit": 1}));
    assert!(hits.contains("chunks; 1-1:"), "{hits}");
}

/// (VmRSS, VmHWM) in KiB.
fn memory(pid: u32) -> (u64, u64) {
    qc_harness::perf::memory_kib(pid)
}

#[test]
fn an_unwritable_temporary_folder_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let locked = tmp.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let store = tmp.path().join("store.db");
    let mut s = Server::start_with(|cmd| {
        cmd.env("TMPDIR", locked.display().to_string())
            .arg("--db")
            .arg(store.display().to_string())
    });
    // Remove write permission after start (root ignores modes, so also replace
    // the folder with a file, which nobody can create entries in).
    std::fs::remove_dir(&locked).unwrap();
    std::fs::write(&locked, "not a folder").unwrap();
    let text = s.err("execute", json!({"language": "shell", "code": "echo hi"}));
    assert!(
        text.starts_with(&format!(
            "cannot create a temporary folder in {}",
            locked.display()
        )),
        "{text}"
    );
    let (pong, _) = s.client.request("ping", None).unwrap();
    assert!(pong.result().is_some());
    // Indexing still works: the store is elsewhere.
    s.index("x", "still indexing");
}

#[test]
fn a_store_deleted_or_corrupted_underneath_gives_errors_not_crashes() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("store.db");
    let mut s = Server::start_with(|cmd| cmd.arg("--db").arg(db.display().to_string()));
    s.index("a", "alpha text");
    // Deleted: SQLite keeps its open file; the server goes on or says why.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    for _ in 0..3 {
        let reply = s.call("search", json!({"queries": ["alpha"]}));
        assert!(
            !reply.is_error || reply.text.starts_with("store error: "),
            "{}",
            reply.text
        );
        let reply = s.call("index", json!({"source": "b", "content": "beta"}));
        assert!(
            !reply.is_error || reply.text.starts_with("store error: "),
            "{}",
            reply.text
        );
    }
    // Corrupted: garbage over a fresh store's pages.
    let db2 = tmp.path().join("store2.db");
    let mut s2 = Server::start_with(|cmd| cmd.arg("--db").arg(db2.display().to_string()));
    let big: String = (0..3000)
        .map(|i| format!("line {i} with words\n"))
        .collect();
    s2.index("c", &big);
    let len = std::fs::metadata(&db2).unwrap().len();
    std::fs::write(&db2, vec![0xAB; len as usize]).unwrap();
    let _ = std::fs::remove_file(format!("{}-wal", db2.display()));
    let reply = s2.call("search", json!({"queries": ["words"]}));
    assert!(
        !reply.is_error || reply.text.starts_with("store error: "),
        "{}",
        reply.text
    );
    let reply = s2.call("index", json!({"source": "d", "content": "delta"}));
    assert!(
        !reply.is_error || reply.text.starts_with("store error: "),
        "{}",
        reply.text
    );
    for server in [&mut s, &mut s2] {
        let (pong, _) = server.client.request("ping", None).unwrap();
        assert!(pong.result().is_some(), "the server stopped serving");
    }
}

#[test]
fn sigterm_exits_cleanly_and_removes_temporary_files() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cmd = ServerCommand::new(BIN)
        .cwd(work.path())
        .env("TMPDIR", tmp.path().display().to_string());
    let mut c = Client::spawn(&cmd).unwrap();
    c.initialize("2025-06-18").unwrap();
    c.call_tool("index", json!({"source": "x", "content": "some text"}))
        .unwrap();
    c.send(&json!({"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"execute","arguments":{"language":"shell","code":"echo $$ > me.pid; sleep 60"}}}))
        .unwrap();
    let child = read_pid(&work.path().join("me.pid"));
    let entries = || std::fs::read_dir(tmp.path()).unwrap().count();
    assert!(
        entries() >= 2,
        "the store's folder and the call's TMPDIR should exist"
    );
    let started = Instant::now();
    std::process::Command::new("kill")
        .arg("-TERM")
        .arg(c.pid().to_string())
        .status()
        .unwrap();
    let mut exited = false;
    while started.elapsed() < Duration::from_secs(5) {
        if c.exited() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(exited, "no exit after SIGTERM");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        gone_within(child, Duration::from_secs(1)),
        "the program survived SIGTERM"
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}
