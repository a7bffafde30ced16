//! SPEC §5 exec-file: the file on stdin and in `$FILE`, never in the context.

use serde_json::json;

use super::support::Server;

const CSV: &str = "name,qty\napple,3\npear,5\nplum,11\n";

#[test]
fn a_csv_reaches_the_program_on_stdin_and_as_file() {
    let mut s = Server::start();
    std::fs::write(s.path("data.csv"), CSV).unwrap();
    let text = s.ok(
        "exec-file",
        json!({
            "path": "data.csv",
            "language": "python",
            "code": "import sys, os\nrows = sys.stdin.read().splitlines()[1:]\nprint(sum(int(r.split(',')[1]) for r in rows))\nprint(os.path.basename(os.environ['FILE']), len(open(os.environ['FILE']).read()))"
        }),
    );
    assert_eq!(text, format!("19\ndata.csv {}\n", CSV.len()));
    assert!(!text.contains("apple"));
}

#[test]
fn a_missing_or_escaping_file_is_an_error_and_nothing_runs() {
    let mut s = Server::start();
    let text = s.err(
        "exec-file",
        json!({"path": "nope.csv", "language": "shell", "code": "touch ran.txt"}),
    );
    assert_eq!(text, "path: nope.csv: no such file or directory");
    let text = s.err(
        "exec-file",
        json!({"path": "../../../etc/passwd", "language": "shell", "code": "touch ran.txt"}),
    );
    assert!(text.contains("outside the working directory"), "{text}");
    std::fs::create_dir(s.path("adir")).unwrap();
    let text = s.err(
        "exec-file",
        json!({"path": "adir", "language": "shell", "code": "touch ran.txt"}),
    );
    assert_eq!(text, "path: adir is not a regular file");
    assert!(!s.path("ran.txt").exists());
}

#[test]
fn exec_file_honours_budgets_and_indexes_big_output() {
    let mut s = Server::start();
    let data: String = (0..5000).map(|i| format!("{i},value-{i}\n")).collect();
    std::fs::write(s.path("big.csv"), &data).unwrap();
    for budget in [256usize, 1000, 8192] {
        let text = s.ok(
            "exec-file",
            json!({"path": "big.csv", "language": "shell", "code": "cat", "max_bytes": budget}),
        );
        assert!(text.len() <= budget, "{budget}: {}", text.len());
        assert!(text.contains("output indexed as"));
    }
}
