//! SPEC §5 script cache: references, reuse across tools, fail-closed rules, FIFO bound.

use serde_json::json;

use super::support::{Server, script_ref};

/// A program of at least 256 bytes that prints `tag`.
fn long_program(tag: &str) -> String {
    format!(
        "echo {tag}\n{}",
        "# a comment that pads this program past the threshold\n".repeat(6)
    )
}

#[test]
fn a_long_program_gets_a_reference_once_and_short_ones_never() {
    let mut s = Server::start();
    let code = long_program("first");
    assert!(code.len() >= 256);
    let text = s.ok("execute", json!({"language": "shell", "code": code}));
    let r = script_ref(&text).expect(&text);
    assert!(text.starts_with("first\n"));
    assert!(r.len() >= 10 && r.len() <= 14, "{r}");
    let again = s.ok("execute", json!({"language": "shell", "code": code}));
    assert_eq!(script_ref(&again), None, "{again}");
    let short = s.ok(
        "execute",
        json!({"language": "shell", "code": "echo short"}),
    );
    assert_eq!(short, "short\n");
}

#[test]
fn a_reference_reruns_on_execute_and_on_exec_file_with_another_file() {
    let mut s = Server::start();
    let code = format!(
        "wc -c < \"${{FILE:-/dev/null}}\"\n{}",
        "# padding for the cache threshold\n".repeat(10)
    );
    std::fs::write(s.path("a.txt"), "12345").unwrap();
    std::fs::write(s.path("b.txt"), "1234567890").unwrap();
    let text = s.ok(
        "exec-file",
        json!({"path": "a.txt", "language": "shell", "code": code}),
    );
    let r = script_ref(&text).expect(&text);
    assert!(text.starts_with("5\n"), "{text}");
    let text = s.ok("exec-file", json!({"path": "b.txt", "script_ref": r}));
    assert_eq!(text, "10\n");
    let text = s.ok("execute", json!({"script_ref": format!("[{r}]")}));
    assert_eq!(text, "0\n");
}

#[test]
fn ambiguous_and_unknown_references_fail_without_running() {
    let mut s = Server::start();
    let code = format!(
        "touch ran.txt\n{}",
        "# padding for the cache threshold\n".repeat(10)
    );
    let text = s.ok("execute", json!({"language": "shell", "code": code}));
    let r = script_ref(&text).unwrap();
    std::fs::remove_file(s.path("ran.txt")).unwrap();

    let text = s.err(
        "execute",
        json!({"code": code, "language": "shell", "script_ref": r}),
    );
    assert_eq!(
        text,
        "invalid argument script_ref: send either code or script_ref, not both"
    );
    let text = s.err("execute", json!({"script_ref": "s:0123456789"}));
    assert!(
        text.starts_with("invalid argument script_ref: unknown \"s:0123456789\""),
        "{text}"
    );
    let text = s.err("execute", json!({"script_ref": r, "language": "python"}));
    assert!(
        text.starts_with("invalid argument language: python does not match"),
        "{text}"
    );
    std::fs::write(s.path("f.txt"), "x").unwrap();
    let text = s.err(
        "exec-file",
        json!({"path": "f.txt", "script_ref": "s:ffffffffff"}),
    );
    assert!(text.contains("unknown"), "{text}");
    assert!(
        !s.path("ran.txt").exists(),
        "a refused call ran its program"
    );
}

#[test]
fn the_sixty_fifth_insert_evicts_the_first() {
    let mut s = Server::start();
    let mut refs = Vec::new();
    for i in 0..65 {
        let text = s.ok(
            "execute",
            json!({"language": "shell", "code": long_program(&format!("p{i}"))}),
        );
        refs.push(script_ref(&text).expect(&text));
    }
    let text = s.err("execute", json!({"script_ref": refs[0]}));
    assert!(text.contains("unknown"), "{text}");
    let text = s.ok("execute", json!({"script_ref": refs[1]}));
    assert_eq!(text, "p1\n");
    let text = s.ok("execute", json!({"script_ref": refs[64]}));
    assert_eq!(text, "p64\n");
}
