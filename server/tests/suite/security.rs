//! Security: path boundaries, fetch address checks, owner-only files, and
//! optional network isolation for programs.

use std::os::unix::fs::PermissionsExt;

use qc_harness::fixtures::HttpFixture;
use serde_json::json;

use super::support::Server;

#[test]
fn index_and_exec_file_refuse_paths_that_escape() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside secret").unwrap();
    let mut s = Server::start();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), s.path("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), s.path("linkdir")).unwrap();
    let absolute = outside.path().join("secret.txt").display().to_string();
    for path in [
        "../secret.txt",
        absolute.as_str(),
        "link.txt",
        "linkdir",
        "linkdir/secret.txt",
        "/etc",
    ] {
        let text = s.err("index", json!({"path": path}));
        assert!(
            text.contains("outside the working directory") || text.contains("no such file"),
            "index {path}: {text}"
        );
        let text = s.err(
            "exec-file",
            json!({"path": path, "language": "shell", "code": "cat"}),
        );
        assert!(
            text.contains("outside the working directory") || text.contains("no such file"),
            "exec-file {path}: {text}"
        );
        assert!(!text.contains("outside secret"));
    }
    // A symlink inside a directory being indexed is skipped, not followed.
    std::fs::create_dir(s.path("docs")).unwrap();
    std::fs::write(s.path("docs/ok.txt"), "inside text").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), s.path("docs/escape.txt"))
        .unwrap();
    let text = s.ok("index", json!({"path": "docs"}));
    assert!(text.contains("1 files"), "{text}");
    let found = s.ok("search", json!({"queries": ["secret"]}));
    assert!(found.contains("no match"), "{found}");
}

#[test]
fn the_operator_can_allow_paths_outside() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes.txt"), "allowed notes").unwrap();
    let mut s = Server::start_with(|cmd| cmd.arg("--allow-outside-workdir"));
    let path = outside.path().join("notes.txt").display().to_string();
    s.ok("index", json!({"path": path, "source": "notes"}));
    assert!(
        s.ok("search", json!({"queries": ["allowed"]}))
            .contains("(notes)")
    );
}

#[test]
fn names_resolving_to_refused_addresses_are_refused_at_connection_time() {
    // In strict mode loopback is refused; `localhost` is a name, so this goes
    // through the resolver check rather than the literal-address check.
    let http = HttpFixture::start().unwrap();
    let port = http.base.rsplit(':').next().unwrap();
    let mut s = Server::start_with(|cmd| cmd.arg("--strict-fetch"));
    let text = s.err(
        "fetch-index",
        json!({"url": format!("http://localhost:{port}/page")}),
    );
    assert!(text.contains("localhost resolves to"), "{text}");
    assert!(text.contains("loopback address (strict mode)"), "{text}");
}

#[test]
fn database_and_temporary_files_are_owner_only() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("named.db");
    let mut s = Server::start_with(|cmd| {
        cmd.env("TMPDIR", tmp.path().display().to_string())
            .arg("--db")
            .arg(db.display().to_string())
    });
    s.index("x", &"text ".repeat(1000));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o600, "the named database");
    for suffix in ["-wal", "-shm"] {
        let p = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
        if p.exists() {
            assert_eq!(mode(&p) & 0o077, 0, "{suffix}");
        }
    }
    let text = s.shell("stat -c %a \"$TMPDIR\"; echo $TMPDIR");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("700"), "the call's TMPDIR: {text}");
    // The default store lives in a private folder too.
    let mut plain = Server::start_with(|cmd| cmd.env("TMPDIR", tmp.path().display().to_string()));
    plain.index("y", "text");
    let store_dir = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("quietcontext-")
        })
        .expect("the temporary store's folder");
    assert_eq!(mode(&store_dir), 0o700);
    assert_eq!(mode(&store_dir.join("store.db")), 0o600);
}

fn unshare_works() -> bool {
    std::process::Command::new("unshare")
        .args(["--net", "--map-root-user", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn isolate_net_cuts_programs_off_the_network_where_unshare_allows_it() {
    let http = HttpFixture::start().unwrap();
    let probe = format!(
        "python3 -c \"import urllib.request; print(urllib.request.urlopen('{}/text', timeout=3).read().decode())\" 2>&1 | tail -1",
        http.base
    );
    let mut open = Server::start();
    assert_eq!(
        open.shell(&probe),
        "plain words about quasar\n",
        "without isolation the fixture is reachable"
    );
    let mut isolated = Server::start_with(|cmd| cmd.arg("--isolate-net"));
    let text = isolated.shell(&probe);
    if unshare_works() {
        assert!(
            !text.contains("quasar"),
            "isolated program reached the network: {text}"
        );
        assert!(
            text.contains("Error") || text.contains("refused") || text.contains("unreachable"),
            "{text}"
        );
    } else {
        // Without user namespaces the flag cannot isolate: programs still run
        // (the server warns on stderr); this is the documented fallback.
        assert!(text.contains("quasar"), "{text}");
    }
}
