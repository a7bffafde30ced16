//! SPEC §5 fetch-index against a real HTTP server on loopback.

use serde_json::json;

use super::support::{Server, refs};
use qc_harness::fixtures::HttpFixture as TestHttp;

fn server() -> Server {
    Server::start_with(|cmd| {
        cmd.arg("--fetch-timeout-ms")
            .arg("1500")
            .arg("--fetch-max-bytes")
            .arg("200000")
    })
}

#[test]
fn an_html_page_becomes_searchable_markdown_and_the_reply_holds_no_content() {
    let http = TestHttp::start().unwrap();
    let mut s = server();
    let url = http.url("/page");
    let text = s.ok("fetch-index", json!({"url": url}));
    assert!(text.starts_with(&format!("indexed {url:?}: ")), "{text}");
    assert!(text.ends_with("text/html"), "{text}");
    assert!(text.len() <= 512);
    for word in ["flibbertigibbet", "Widget", "cargo install", "max_widgets"] {
        assert!(!text.contains(word), "page content in reply: {text}");
    }
    let found = s.ok("search", json!({"queries": ["flibbertigibbet"]}));
    assert!(found.contains("Widget Manual"), "{found}");
    let code = s.ok(
        "search",
        json!({"queries": ["cargo install widget"], "preview": true}),
    );
    assert!(code.contains("Widget Manual > Install"), "{code}");
    let table = s.ok(
        "search",
        json!({"queries": ["max_widgets"], "preview": true}),
    );
    // The table survives as a Markdown table (htmd escapes the underscore).
    assert!(
        table.contains("| Name | Value |") && table.contains("widgets | 42 |"),
        "{table}"
    );
    for dropped in ["scriptonly", "navonlyword", "footeronlyword"] {
        let miss = s.ok("search", json!({"queries": [dropped]}));
        assert!(refs(&miss).is_empty(), "{dropped} was indexed: {miss}");
    }
    let again = s.ok("fetch-index", json!({"url": url}));
    assert!(again.contains("; replaced "), "{again}");
}

#[test]
fn redirects_are_followed_and_each_hop_is_checked() {
    let http = TestHttp::start().unwrap();
    let mut s = server();
    let text = s.ok(
        "fetch-index",
        json!({"url": http.url("/r1"), "source": "manual"}),
    );
    assert!(text.starts_with("indexed \"manual\""), "{text}");
    assert!(text.contains("2 redirects"), "{text}");
    for path in ["/to-metadata", "/to-mapped"] {
        let text = s.err("fetch-index", json!({"url": http.url(path)}));
        assert!(text.starts_with("url: refused http://"), "{path}: {text}");
        assert!(text.contains("link-local"), "{text}");
    }
    let text = s.err("fetch-index", json!({"url": http.url("/loop")}));
    assert_eq!(text, "more than 5 redirects");
}

#[test]
fn http_errors_name_the_status() {
    let http = TestHttp::start().unwrap();
    let mut s = server();
    let text = s.err("fetch-index", json!({"url": http.url("/missing")}));
    assert_eq!(
        text,
        format!("HTTP 404 Not Found from {}", http.url("/missing"))
    );
    let text = s.err("fetch-index", json!({"url": http.url("/500")}));
    assert!(text.starts_with("HTTP 500 Internal Server Error"), "{text}");
}

#[test]
fn oversized_and_slow_responses_end_with_clear_errors() {
    let http = TestHttp::start().unwrap();
    let mut s = server();
    let text = s.err("fetch-index", json!({"url": http.url("/big")}));
    assert!(text.contains("exceeds the 200000-byte limit"), "{text}");
    let started = std::time::Instant::now();
    let text = s.err("fetch-index", json!({"url": http.url("/slow")}));
    assert!(text.contains("took longer than"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
}

#[test]
fn schemes_and_addresses_that_are_never_allowed() {
    let mut s = server();
    for (url, expect) in [
        ("file:///etc/passwd", "scheme \"file\" is not allowed"),
        ("ftp://example.com/x", "scheme \"ftp\" is not allowed"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::ffff:169.254.169.254]/", "link-local"),
        ("http://2852039166/", "link-local"),
        ("http://0251.0376.0251.0376/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://0.0.0.0/", "unspecified"),
    ] {
        let text = s.err("fetch-index", json!({"url": url}));
        assert!(text.contains(expect), "{url}: {text}");
    }
}

#[test]
fn strict_mode_refuses_loopback() {
    let http = TestHttp::start().unwrap();
    let mut s = Server::start_with(|cmd| cmd.arg("--strict-fetch"));
    let text = s.err("fetch-index", json!({"url": http.url("/page")}));
    assert!(text.contains("loopback address (strict mode)"), "{text}");
}

#[test]
fn json_and_text_are_indexed_and_other_types_refused() {
    let http = TestHttp::start().unwrap();
    let mut s = server();
    let text = s.ok("fetch-index", json!({"url": http.url("/json")}));
    assert!(text.ends_with("application/json"), "{text}");
    let found = s.ok("search", json!({"queries": ["gizmo"]}));
    assert!(found.contains("[r:"), "{found}");
    s.ok("fetch-index", json!({"url": http.url("/text")}));
    assert!(!refs(&s.ok("search", json!({"queries": ["quasar"]}))).is_empty());
    let text = s.err("fetch-index", json!({"url": http.url("/pdf")}));
    assert!(text.starts_with("content type application/pdf"), "{text}");
}
