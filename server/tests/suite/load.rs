//! Load: many concurrent calls on one connection, many sequential searches,
//! and searches answered while a large corpus is being indexed.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::Server;

#[test]
fn sixty_four_concurrent_mixed_calls_are_all_answered_with_matching_ids() {
    let mut s = Server::start();
    s.index("doc", "# Doc\nconcurrent search target\n");
    std::fs::write(s.path("f.txt"), "file body\n").unwrap();
    let calls = [
        (
            "execute",
            json!({"language": "shell", "code": "echo exec; sleep 0.2"}),
        ),
        ("search", json!({"queries": ["concurrent"]})),
        ("index", json!({"content": "more text to index"})),
        (
            "exec-file",
            json!({"path": "f.txt", "language": "shell", "code": "cat"}),
        ),
        (
            "batch",
            json!({"commands": [{"label": "l", "command": "echo b"}]}),
        ),
        (
            "execute",
            json!({"language": "python", "code": "print(sum(range(10)))"}),
        ),
    ];
    for i in 0..64 {
        let (tool, args) = &calls[i % calls.len()];
        let mut args = args.clone();
        if *tool == "batch" {
            args["commands"][0]["label"] = json!(format!("l{i}"));
        }
        s.client
            .send(
                &json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}}),
            )
            .unwrap();
    }
    let mut seen = HashSet::new();
    while seen.len() < 64 {
        let frame = s.client.recv(Duration::from_secs(60)).unwrap();
        // Every line is one whole frame (the client parsed it as JSON).
        let id = frame.value["id"].as_u64().expect("a response with an id");
        assert!((1000..1064).contains(&id), "unexpected id {id}");
        assert!(frame.value.get("result").is_some(), "{}", frame.value);
        assert!(seen.insert(id), "id {id} answered twice");
    }
    assert!(
        s.client
            .recv_quiet(Duration::from_millis(300))
            .unwrap()
            .is_none()
    );
}

#[test]
fn ten_thousand_sequential_searches_keep_memory_flat() {
    let mut s = Server::start();
    let doc: String = (0..200)
        .map(|i| format!("## Part {i}\nword{} shared text\n", i % 17))
        .collect();
    s.index("doc", &doc);
    let pid = s.client.pid();
    let mut rss_at = Vec::new();
    for i in 0..10_000 {
        let q = format!("word{} shared", i % 17);
        let reply = s
            .client
            .call_tool("search", json!({"queries": [q], "preview": i % 2 == 0}))
            .unwrap();
        assert!(!reply.is_error);
        if i == 1000 || i == 9999 {
            rss_at.push(qc_harness::perf::memory_kib(pid).0);
        }
    }
    let (early, late) = (rss_at[0], rss_at[1]);
    assert!(
        late < early + 8 * 1024,
        "RSS grew from {early} KiB to {late} KiB over 9000 searches"
    );
}

#[test]
fn searches_are_answered_while_a_large_corpus_is_indexed() {
    let mut s = Server::start();
    s.index("small", "# Small\nneedle in a small document\n");
    qc_harness::perf::write_corpus(&s.path("big.log"), 100 * 1024 * 1024).unwrap();
    s.client
        .send(&json!({"jsonrpc":"2.0","id":"big","method":"tools/call",
                      "params":{"name":"index","arguments":{"path":"big.log","source":"big"}}}))
        .unwrap();
    let started = Instant::now();
    let mut answered_during = 0;
    let mut slowest = Duration::ZERO;
    let mut big: Option<Value> = None;
    let mut next_id = 0;
    while big.is_none() {
        next_id += 1;
        let t = Instant::now();
        s.client
            .send(&json!({"jsonrpc":"2.0","id":next_id,"method":"tools/call",
                          "params":{"name":"search","arguments":{"queries":["needle"],"source":"small"}}}))
            .unwrap();
        loop {
            let frame = s.client.recv(Duration::from_secs(120)).unwrap();
            if frame.value["id"] == "big" {
                big = Some(frame.value);
                continue;
            }
            assert_eq!(frame.value["id"], next_id);
            let text = quietcontext::protocol::mcp::result_text(&frame.value["result"]);
            assert!(text.contains("Small (small)"), "{text}");
            slowest = slowest.max(t.elapsed());
            if big.is_none() {
                answered_during += 1;
            }
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "indexing never finished"
        );
    }
    let big = big.unwrap();
    let summary = quietcontext::protocol::mcp::result_text(&big["result"]);
    assert!(summary.starts_with("indexed \"big\": "), "{summary}");
    assert!(
        answered_during >= 5,
        "only {answered_during} searches answered during indexing"
    );
    assert!(
        slowest < Duration::from_secs(2),
        "a search took {slowest:?} during indexing"
    );
}
