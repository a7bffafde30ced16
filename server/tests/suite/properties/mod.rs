//! Property tests of SPEC §4–5 against the spawned server, over generated
//! inputs. The checks are the harness's named invariants (the same functions
//! the scenario replayer runs after every step).
//!
//! - [`budget`]: every reply within its effective budget; big output indexed
//!   and retrievable byte for byte; small output returned whole.
//! - [`references`]: refs resolve to exactly what was listed, are listed once,
//!   fail closed listing exactly the invalid ones, and die with the process.
//! - [`script_cache`]: the server's cache against a reference model (a FIFO of 64).
//! - [`protocol_fuzz`]: arbitrary lines on the wire never break the server.
//! - [`tampered`]: each property fails against a proxy that breaks its invariant.
//!
//! Cases per property default low enough for a 2-core CI run; raise them
//! with `PROPTEST_CASES`. Failing seeds are kept in `tests/proptest-regressions/`.

mod budget;
mod content;
mod protocol_fuzz;
mod references;
mod script_cache;
mod tampered;

use proptest::test_runner::{Config, FileFailurePersistence, TestError, TestRunner};
use qc_harness::client::ServerCommand;

use super::support::{BIN, Server};

/// A runner with `default_cases` unless `PROPTEST_CASES` says otherwise, and
/// failures persisted under `tests/proptest-regressions/` when `seeds` is given.
pub fn runner(default_cases: u32, seeds: Option<&'static str>) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_cases);
    TestRunner::new(Config {
        cases,
        max_shrink_iters: if seeds.is_some() { 256 } else { 16 },
        failure_persistence: Some(Box::new(match seeds {
            Some(path) => FileFailurePersistence::Direct(path),
            None => FileFailurePersistence::Off,
        })),
        ..Config::default()
    })
}

/// A property's outcome as a message naming the minimal failing case.
pub fn verdict<T: std::fmt::Debug>(result: Result<(), TestError<T>>) -> Result<(), String> {
    result.map_err(|e| match e {
        TestError::Fail(why, case) => format!("{why}; minimal case: {case:?}"),
        TestError::Abort(why) => format!("aborted: {why}"),
    })
}

/// Which server a property runs against: the real one, or it behind the
/// tampering proxy in one of its modes.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Real,
    Tampered(&'static str),
}

impl Target {
    pub fn start(self) -> Server {
        Server::start_with(|cmd| self.command(cmd))
    }

    fn command(self, cmd: ServerCommand) -> ServerCommand {
        match self {
            Target::Real => cmd,
            Target::Tampered(mode) => {
                let script = concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../harness/tests/standin/tamper.py"
                );
                let mut cmd = cmd;
                cmd.program = "python3".into();
                cmd.args = vec![script.into(), mode.into(), "--".into(), BIN.into()];
                cmd
            }
        }
    }
}
