//! SPEC §5 index and search, §6 store: round trips, budgets, references, ranking.

use serde_json::json;

use super::support::{Server, parse_chunk, refs};

const GUIDE: &str = "# Guide\nIntro text about the project.\n\
## Install\nRun the installer with cargo. The zebracorn flag enables extras.\n\
## Configure\nEdit the config file; zebracorn appears here too.\n\
## Deploy\nShip it to production with the deploy script and the config file.\n";

#[test]
fn index_replies_with_one_summary_line_and_no_content() {
    let mut s = Server::start();
    let text = s.index("guide", GUIDE);
    assert_eq!(
        text,
        format!("indexed \"guide\": 4 chunks, {} B, markdown", GUIDE.len())
    );
    assert!(!text.contains("zebracorn"));
    let again = s.index("guide", GUIDE);
    assert!(again.ends_with("; replaced 4 chunks"), "{again}");
}

#[test]
fn default_search_lists_titles_sources_and_refs_without_content() {
    let mut s = Server::start();
    s.index("guide", GUIDE);
    let text = s.ok("search", json!({"queries": ["zebracorn"]}));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "q: zebracorn");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].ends_with("Guide > Install (guide)")
            || lines[1].ends_with("Guide > Configure (guide)")
    );
    assert!(
        !text.contains("installer") && !text.contains("Edit the config"),
        "content leaked: {text}"
    );
    assert_eq!(refs(&text).len(), 2);
}

#[test]
fn previews_are_bounded_and_taken_around_the_match() {
    let mut s = Server::start();
    let long = format!(
        "# Big\n{}\nthe needle word sits here\n{}\n",
        "filler words go on. ".repeat(200),
        "more filler after. ".repeat(200)
    );
    s.index("big", &long);
    let text = s.ok("search", json!({"queries": ["needle"], "preview": true}));
    let preview = text.lines().find(|l| l.starts_with("  > ")).expect(&text);
    let chars = preview.trim_start_matches("  > ").chars().count();
    assert!(chars <= 600, "{chars} chars");
    assert!(
        preview.contains("needle"),
        "preview missed the match: {preview}"
    );
}

#[test]
fn results_are_not_repeated_across_queries() {
    let mut s = Server::start();
    s.index("guide", GUIDE);
    let text = s.ok(
        "search",
        json!({"queries": ["deploy script", "production deploy"], "preview": true}),
    );
    let deploy_ref = refs(&text)[0].clone();
    let full_lines = text
        .lines()
        .filter(|l| l.contains(&deploy_ref) && l.contains("Deploy"))
        .count();
    assert_eq!(full_lines, 1, "{text}");
    assert!(
        text.lines().any(|l| l == format!("[{deploy_ref}]")),
        "{text}"
    );
    assert_eq!(
        text.matches("  > ").count(),
        refs(&text)
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
    );
    // The same call again gives the same output.
    let again = s.ok(
        "search",
        json!({"queries": ["deploy script", "production deploy"], "preview": true}),
    );
    assert_eq!(text, again);
}

#[test]
fn refs_return_the_indexed_text_byte_for_byte() {
    let mut s = Server::start();
    let content = "# Ünïcode 🦀\nLine one\n\n  indented\ttab\n## Next\nlast";
    s.index("u", content);
    let listing = s.ok("search", json!({"source": "u"}));
    let mut joined = String::new();
    for r in refs(&listing) {
        let (_, body) = parse_chunk(&s.ok("search", json!({"refs": [r]})));
        joined.push_str(&body);
    }
    assert_eq!(joined, content);
}

#[test]
fn invalid_refs_fail_closed_listing_exactly_the_invalid_ones() {
    let mut s = Server::start();
    s.index("guide", GUIDE);
    let good = refs(&s.ok("search", json!({"queries": ["deploy"]})))[0].clone();
    let text = s.err(
        "search",
        json!({"refs": [good, "r:000000", "bogus", "[r:12]"]}),
    );
    assert!(text.starts_with("refs: unknown or expired: "), "{text}");
    let listed = text.split(": ").nth(2).unwrap().split(" (").next().unwrap();
    let listed: Vec<&str> = listed.split(", ").collect();
    // (r:000000 could only be valid if this process drew it: one chance in a million.)
    assert_eq!(listed, vec!["r:000000", "bogus", "[r:12]"], "{text}");
}

#[test]
fn max_bytes_is_honoured_and_out_of_range_values_are_rejected() {
    let mut s = Server::start();
    let doc: String = (0..100)
        .map(|i| format!("## Section {i}\nshared keyword body {i}\n"))
        .collect();
    s.index("doc", &doc);
    let text = s.ok(
        "search",
        json!({"queries": ["shared keyword"], "limit": 100, "preview": true, "max_bytes": 256}),
    );
    assert!(text.len() <= 256, "{} bytes", text.len());
    assert!(text.contains("…[cut: "), "{text}");
    for bad in [json!(255), json!(8193), json!("300"), json!(300.5)] {
        let text = s.err("search", json!({"queries": ["shared"], "max_bytes": bad}));
        assert!(
            text.starts_with("invalid argument max_bytes: must be an integer in 256..=8192"),
            "{text}"
        );
    }
}

#[test]
fn limit_is_honoured_as_given() {
    let mut s = Server::start();
    let doc: String = (0..60).map(|i| format!("## S{i}\nword\n")).collect();
    s.index("doc", &doc);
    let text = s.ok("search", json!({"queries": ["word"], "limit": 37}));
    assert_eq!(refs(&text).len(), 37);
}

#[test]
fn punctuation_queries_never_raise_errors() {
    let mut s = Server::start();
    s.index(
        "api",
        "The exec-file tool; a::b paths; GET /v1/x returns NEAR results",
    );
    for q in [
        "exec-file",
        "a::b",
        "\"",
        "*",
        "NEAR(",
        "/v1/x",
        "AND",
        "(",
        "col:val",
        "-x",
    ] {
        let reply = s.call("search", json!({"queries": [q]}));
        assert!(!reply.is_error, "{q}: {}", reply.text);
    }
    let text = s.ok("search", json!({"queries": ["/v1/x"]}));
    assert_eq!(refs(&text).len(), 1, "{text}");
}

#[test]
fn the_section_matching_every_term_ranks_first() {
    let mut s = Server::start();
    s.index("guide", GUIDE);
    let text = s.ok("search", json!({"queries": ["deploy config file"]}));
    let first = text.lines().nth(1).unwrap();
    assert!(first.contains("Guide > Deploy"), "{text}");
}

#[test]
fn typos_and_substrings_still_find_something() {
    let mut s = Server::start();
    s.index("guide", GUIDE);
    for q in ["zebracron", "zebrac", "nstaller"] {
        let text = s.ok("search", json!({"queries": [q]}));
        assert!(!refs(&text).is_empty(), "{q}: {text}");
    }
}

#[test]
fn indexing_a_directory_respects_gitignore_and_skips_binaries() {
    let mut s = Server::start();
    let docs = s.path("docs");
    std::fs::create_dir_all(docs.join("sub")).unwrap();
    std::fs::write(docs.join("a.md"), "# Alpha\nquokka facts\n").unwrap();
    std::fs::write(docs.join("sub/b.txt"), "quokka notes\n").unwrap();
    std::fs::write(docs.join("ignored.txt"), "quokka secret\n").unwrap();
    std::fs::write(docs.join(".gitignore"), "ignored.txt\n").unwrap();
    std::fs::write(docs.join("blob.bin"), [0u8, 1, 2, 3]).unwrap();
    let text = s.ok("index", json!({"path": "docs"}));
    assert!(text.starts_with("indexed \"docs\": 2 chunks"), "{text}");
    assert!(text.contains("2 files; skipped 1: 1 binary"), "{text}");
    let found = s.ok("search", json!({"queries": ["quokka"]}));
    assert!(found.contains("a.md > Alpha (docs)"), "{found}");
    assert!(found.contains("sub/b.txt"), "{found}");
    assert_eq!(refs(&found).len(), 2);
}

#[test]
fn paths_outside_the_working_directory_are_refused() {
    let mut s = Server::start();
    let text = s.err("index", json!({"path": "/etc/hostname"}));
    assert!(text.contains("outside the working directory"), "{text}");
    let text = s.err("index", json!({"path": "missing.txt"}));
    assert_eq!(text, "path: missing.txt: no such file or directory");
}

#[test]
fn a_large_single_paragraph_log_becomes_many_small_chunks() {
    let mut s = Server::start();
    let log = "token ".repeat(25_000);
    let text = s.index("log", &log);
    let chunks: usize = text
        .split(": ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(chunks >= 150_000 / 4096, "{text}");
}
