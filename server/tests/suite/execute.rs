//! SPEC §5 execute: languages, output handling, budgets, indexing of big output.

use serde_json::json;

use super::support::{Server, indexed_label, read_source, refs, stream_text};

const HELLO: [(&str, &str); 10] = [
    ("shell", "echo hello from shell"),
    ("python", "print('hello from python')"),
    ("javascript", "console.log('hello from javascript')"),
    (
        "typescript",
        "const who: string = 'typescript'; console.log(`hello from ${who}`)",
    ),
    ("perl", "print \"hello from perl\\n\";"),
    ("ruby", "puts 'hello from ruby'"),
    (
        "go",
        "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hello from go\") }",
    ),
    ("rust", "fn main() { println!(\"hello from rust\"); }"),
    ("php", "<?php echo \"hello from php\\n\";"),
    ("r", "cat('hello from r\\n')"),
];

#[test]
fn every_language_runs_or_names_its_missing_runtime() {
    let mut s = Server::start();
    let mut ran = Vec::new();
    for (language, code) in HELLO {
        let reply = s.call(
            "execute",
            json!({"language": language, "code": code, "timeout_ms": 120_000}),
        );
        if reply.is_error {
            assert!(
                reply
                    .text
                    .starts_with(&format!("language: {language} needs ")),
                "{language}: {}",
                reply.text
            );
            assert!(
                reply.text.ends_with("which is not on PATH"),
                "{}",
                reply.text
            );
        } else {
            assert!(
                reply.text.contains(&format!("hello from {language}")),
                "{language}: {}",
                reply.text
            );
            ran.push(language);
        }
    }
    // CI must run at least these.
    for required in ["shell", "python", "javascript", "perl"] {
        assert!(
            ran.contains(&required),
            "{required} did not run: ran {ran:?}"
        );
    }
}

#[test]
fn stderr_is_kept_on_success_and_failures_are_one_line() {
    let mut s = Server::start();
    let text = s.shell("echo out; echo warn >&2");
    assert_eq!(text, "out\n[stderr]\nwarn\n");
    let text = s.shell("echo partial; exit 7");
    assert_eq!(text, "partial\n[exit 7]\n");
    let text = s.shell("kill -9 $$");
    assert_eq!(text, "[killed by signal 9 (SIGKILL)]\n");
}

#[test]
fn the_submitted_code_is_never_echoed() {
    let mut s = Server::start();
    let marker = "UNPRINTED_MARKER_93731";
    let text = s.ok(
        "execute",
        json!({"language": "python", "code": format!("x = '{marker}'\nprint(len(x))")}),
    );
    assert_eq!(text, "22\n");
    let big = s.ok(
        "execute",
        json!({"language": "python", "code": format!("x = '{marker}'\nprint('y' * 20000)\nraise SystemExit(x[:0] or 1)")}),
    );
    assert!(!big.contains(marker), "{big}");
}

#[test]
fn max_bytes_256_1000_8192_are_honoured() {
    let mut s = Server::start();
    for budget in [256usize, 1000, 8192] {
        let text = s.ok(
            "execute",
            json!({"language": "shell", "code": "seq 1 5000", "max_bytes": budget}),
        );
        assert!(text.len() <= budget, "{budget}: {} bytes", text.len());
        assert!(text.contains("output indexed as"), "{text}");
    }
    let whole = s.ok(
        "execute",
        json!({"language": "shell", "code": "seq 1 50", "max_bytes": 256}),
    );
    assert_eq!(
        whole,
        (1..=50).map(|i| format!("{i}\n")).collect::<String>()
    );
}

#[test]
fn out_of_range_max_bytes_is_rejected_before_anything_runs() {
    let mut s = Server::start();
    let text = s.err(
        "execute",
        json!({"language": "shell", "code": "touch ran.txt", "max_bytes": 100}),
    );
    assert_eq!(
        text,
        "invalid argument max_bytes: must be an integer in 256..=8192, got 100"
    );
    assert!(!s.path("ran.txt").exists());
}

#[test]
fn one_megabyte_of_output_is_indexed_and_retrievable_byte_for_byte() {
    let mut s = Server::start();
    let code = "import sys\nfor i in range(20000):\n    sys.stdout.write('row %05d ' % i + 'x' * 40 + '\\n')\nsys.stderr.write('done\\n')";
    let text = s.ok("execute", json!({"language": "python", "code": code}));
    assert!(text.len() <= 8192);
    assert!(text.contains("(stdout 1020000 B, stderr 5 B)"), "{text}");
    let label = indexed_label(&text);
    let chunks = read_source(&mut s, &label);
    let expected: String = (0..20000)
        .map(|i| format!("row {i:05} {}\n", "x".repeat(40)))
        .collect();
    assert_eq!(stream_text(&chunks, "stdout"), expected);
    assert_eq!(stream_text(&chunks, "stderr"), "done\n");
}

#[test]
fn two_oversized_runs_get_separate_sources() {
    let mut s = Server::start();
    let first = s.shell("for i in $(seq 1 3000); do echo first-run-$i; done");
    let second = s.shell("for i in $(seq 1 3000); do echo second-run-$i; done");
    let (a, b) = (indexed_label(&first), indexed_label(&second));
    assert_ne!(a, b);
    let hits = s.ok(
        "search",
        json!({"queries": ["first-run-1500"], "source": a}),
    );
    assert_eq!(refs(&hits).len(), 1, "{hits}");
    let hits = s.ok(
        "search",
        json!({"queries": ["second-run-1500"], "source": b}),
    );
    assert_eq!(refs(&hits).len(), 1, "{hits}");
}

#[test]
fn a_failing_oversized_run_points_at_its_error() {
    let mut s = Server::start();
    let code = "for i in range(3000):\n    print('progress line', i)\nraise ValueError('the widget exploded')";
    let text = s.ok("execute", json!({"language": "python", "code": code}));
    assert!(text.starts_with("[exit 1] output indexed as"), "{text}");
    assert!(
        text.contains("ValueError: the widget exploded"),
        "excerpt should favour stderr: {text}"
    );
    let errors = text
        .lines()
        .find(|l| l.starts_with("errors: "))
        .expect(&text);
    let error_ref = refs(errors)[0].clone();
    let chunk = s.ok("search", json!({"refs": [error_ref]}));
    assert!(
        chunk.contains("Traceback") || chunk.contains("ValueError"),
        "{chunk}"
    );
}

#[test]
fn a_secret_of_the_server_is_invisible_to_programs() {
    let mut s = Server::start_with(|cmd| {
        cmd.env("QC_TEST_SECRET_TOKEN", "hunter2-secret")
            .env("QC_TEST_VISIBLE", "shown-value")
            .env("QC_ENV_PASSTHROUGH", "QC_TEST_VISIBLE")
    });
    let text = s.shell("env");
    assert!(!text.contains("hunter2-secret"), "{text}");
    assert!(text.contains("QC_TEST_VISIBLE=shown-value"), "{text}");
    assert!(text.contains("PATH="), "{text}");
}

#[test]
fn programs_run_in_the_server_working_directory_with_a_private_tmpdir() {
    let mut s = Server::start();
    std::fs::write(s.path("here.txt"), "x").unwrap();
    let text = s.shell("ls here.txt; echo $TMPDIR; touch $TMPDIR/scratch");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("here.txt"));
    let tmp = lines.next().unwrap();
    assert!(tmp.contains("qc-run-"), "{text}");
    assert!(
        !std::path::Path::new(tmp).exists(),
        "TMPDIR {tmp} was not removed"
    );
}

#[test]
fn argument_errors_name_the_field() {
    let mut s = Server::start();
    let text = s.err("execute", json!({"language": "cobol", "code": "x"}));
    assert!(
        text.starts_with("invalid argument language: unknown language \"cobol\""),
        "{text}"
    );
    let text = s.err("execute", json!({"code": "echo"}));
    assert_eq!(text, "invalid argument language: required with code");
    let text = s.err(
        "execute",
        json!({"language": "shell", "code": "true", "timeout_ms": 5}),
    );
    assert_eq!(
        text,
        "invalid argument timeout_ms: must be an integer in 100..=600000, got 5"
    );
}
