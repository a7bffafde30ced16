//! Subprocesses: the one module that owns how programs run.
//!
//! - [`lang`]: languages, runtimes found on PATH, command lines.
//! - [`capture`]: bounded capture of stdout and stderr (memory, then a spill file).
//! - [`group`]: process-group guards; whole groups die on exit, timeout, cancel.
//!
//! A program runs in a fresh per-call folder (its `TMPDIR`, removed
//! afterwards) with the server's working directory as its own, an
//! environment built from an allow-list, stdin from a file or nothing, and
//! a deadline. Output past the capture limit ([`DEFAULT_CAPTURE_LIMIT`]
//! unless the operator sets another) stops the program, explicitly.

pub mod capture;
pub mod group;
pub mod lang;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::Notify;

pub use capture::Capture;
pub use group::{GroupGuard, kill_all};
pub use lang::{Language, Runtimes};

/// A program that prints more than this (stdout and stderr together) is
/// stopped; everything up to it is indexed.
pub const DEFAULT_CAPTURE_LIMIT: u64 = 256 * 1024 * 1024;
/// After the program ends, how long its pipes may stay open (held by a process
/// that left the group, e.g. via `setsid`) before reading stops.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Variables programs may see besides `LC_*` and the operator's pass-through list.
pub const ALLOWED_ENV: [&str; 5] = ["PATH", "HOME", "LANG", "TERM", "TMPDIR"];

/// What a program gets on stdin.
#[derive(Debug)]
pub enum Input {
    Null,
    File(PathBuf),
}

/// One program to run.
#[derive(Debug)]
pub struct Job<'a> {
    pub language: Language,
    pub code: &'a str,
    pub input: Input,
    /// Extra variables (e.g. `FILE` for exec-file).
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
}

/// How a program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
    TimedOut(Duration),
    /// Stopped by the server after printing this many bytes (the capture limit).
    CaptureLimit(u64),
}

impl Ending {
    pub fn success(self) -> bool {
        self == Ending::Exited(0)
    }

    /// One short line for the reply; `None` for a clean exit.
    pub fn describe(self) -> Option<String> {
        match self {
            Ending::Exited(0) => None,
            Ending::Exited(code) => Some(format!("[exit {code}]")),
            Ending::Signaled(sig) => Some(format!("[killed by signal {sig}{}]", signal_name(sig))),
            Ending::TimedOut(after) => Some(format!(
                "[timed out after {} ms; process group killed]",
                after.as_millis()
            )),
            Ending::CaptureLimit(limit) => Some(format!(
                "[stopped: output passed the {} capture limit; process group killed]",
                human_bytes(limit)
            )),
        }
    }
}

fn human_bytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MiB", n / (1024 * 1024))
    } else {
        format!("{n} B")
    }
}

fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig)
        .map(|s| format!(" ({})", s.as_str()))
        .unwrap_or_default()
}

/// What a program did.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: Capture,
    pub stderr: Capture,
    pub elapsed: Duration,
    /// Output pipes stayed open after the group was killed (a process escaped it).
    pub pipes_held: bool,
}

/// Why a program could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("language: {language} needs {runtime}, which is not on PATH")]
    MissingRuntime {
        language: &'static str,
        runtime: &'static str,
    },
    #[error("cannot prepare the program: {0}")]
    Setup(std::io::Error),
    #[error("cannot create a temporary folder in {}: {error}", dir.display())]
    TempDir { dir: PathBuf, error: std::io::Error },
    #[error("cannot start {program}: {error}")]
    Spawn {
        program: String,
        error: std::io::Error,
    },
}

/// How programs are started: runtimes, working directory, environment.
#[derive(Debug, Clone)]
pub struct Runner {
    pub runtimes: Runtimes,
    pub workdir: PathBuf,
    /// The allow-listed part of the server's environment, read once at start.
    pub base_env: Vec<(OsString, OsString)>,
    /// Wrap programs in `unshare --net` (no network), when available.
    pub isolate_net: Option<PathBuf>,
    /// Where each call's private folder and spill files go.
    pub temp_root: PathBuf,
    pub capture_limit: u64,
}

impl Runner {
    /// Detects runtimes on the programs' PATH and, when asked, network isolation.
    pub fn new(config: &crate::config::Config) -> Self {
        let path = config
            .program_env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.as_os_str());
        let isolate_net = if config.isolate_net {
            let found = lang::which("unshare", path).filter(|u| unshare_works(u));
            if found.is_none() {
                tracing::warn!(
                    "--isolate-net: `unshare --net --map-root-user` is not usable here; programs keep network access"
                );
            }
            found
        } else {
            None
        };
        Self {
            runtimes: Runtimes::detect(path),
            workdir: config.workdir.clone(),
            base_env: config.program_env.clone(),
            isolate_net,
            temp_root: config.temp_root.clone(),
            capture_limit: config.capture_limit,
        }
    }

    /// Keeps only the allowed names of `vars`: [`ALLOWED_ENV`], `LC_*`, and `passthrough`.
    pub fn filter_env(
        vars: impl Iterator<Item = (OsString, OsString)>,
        passthrough: &[String],
    ) -> Vec<(OsString, OsString)> {
        vars.filter(|(name, _)| {
            let name = name.to_string_lossy();
            name != "TMPDIR"
                && (ALLOWED_ENV.contains(&name.as_ref())
                    || name.starts_with("LC_")
                    || passthrough.iter().any(|p| p == name.as_ref()))
        })
        .collect()
    }

    /// Checks the runtime for `language` without running anything.
    pub fn check(&self, language: Language) -> Result<(), RunError> {
        self.runtimes
            .command(language, Path::new("/"))
            .map(|_| ())
            .map_err(|runtime| RunError::MissingRuntime {
                language: language.name(),
                runtime,
            })
    }

    /// Runs one program to its end, its timeout, or the capture limit.
    /// Dropping the returned future kills the program's whole group.
    pub async fn run(&self, job: Job<'_>) -> Result<Finished, RunError> {
        let started = Instant::now();
        let dir = tempfile::Builder::new()
            .prefix("qc-run-")
            .permissions(crate::store::owner_only_dir())
            .tempdir_in(&self.temp_root)
            .map_err(|error| RunError::TempDir {
                dir: self.temp_root.clone(),
                error,
            })?;
        let cmd = self
            .runtimes
            .command(job.language, dir.path())
            .map_err(|runtime| RunError::MissingRuntime {
                language: job.language.name(),
                runtime,
            })?;
        let source = dir.path().join(job.language.file_name());
        std::fs::write(&source, job.code).map_err(RunError::Setup)?;
        let stdin = match &job.input {
            Input::Null => Stdio::null(),
            Input::File(path) => Stdio::from(std::fs::File::open(path).map_err(RunError::Setup)?),
        };

        let mut command = match &self.isolate_net {
            Some(unshare) => {
                let mut c = Command::new(unshare);
                c.args(["--net", "--map-root-user", "--"]).arg(&cmd.program);
                c
            }
            None => Command::new(&cmd.program),
        };
        command
            .args(&cmd.args)
            .current_dir(&self.workdir)
            .env_clear()
            .envs(self.base_env.iter().map(|(k, v)| (k, v)))
            .env("TMPDIR", dir.path())
            .envs(job.env.iter().map(|(k, v)| (k, v)))
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|error| RunError::Spawn {
            program: cmd.program.display().to_string(),
            error,
        })?;
        let guard = child.id().map(GroupGuard::new);
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(RunError::Setup(std::io::Error::other("pipes missing")));
        };

        let total = AtomicU64::new(0);
        let over_limit = Notify::new();
        let mut out = Capture::new(&self.temp_root);
        let mut err = Capture::new(&self.temp_root);
        let (ending, pipes_held) = {
            let mut reading = Box::pin(async {
                tokio::join!(
                    pump(stdout, &mut out, &total, self.capture_limit, &over_limit),
                    pump(stderr, &mut err, &total, self.capture_limit, &over_limit)
                )
            });
            let deadline = tokio::time::sleep(job.timeout);
            tokio::pin!(deadline);
            let mut read_all = false;
            let ending = loop {
                tokio::select! {
                    status = child.wait() => break match status {
                        Ok(status) => ending_of(status),
                        Err(_) => Ending::Signaled(0),
                    },
                    _ = &mut reading, if !read_all => read_all = true,
                    () = &mut deadline => break Ending::TimedOut(job.timeout),
                    () = over_limit.notified() => break Ending::CaptureLimit(self.capture_limit),
                }
            };
            // The leader is done (or must stop): end the whole group, then read
            // what is left in the pipes.
            if let Some(guard) = &guard {
                guard.kill();
            }
            let _ = child.wait().await;
            let pipes_held = !read_all
                && tokio::time::timeout(DRAIN_GRACE, &mut reading)
                    .await
                    .is_err();
            (ending, pipes_held)
        };
        drop(guard);
        Ok(Finished {
            ending,
            stdout: out,
            stderr: err,
            elapsed: started.elapsed(),
            pipes_held,
        })
    }
}

/// Whether `unshare --net --map-root-user true` succeeds (user namespaces allowed).
fn unshare_works(unshare: &Path) -> bool {
    std::process::Command::new(unshare)
        .args(["--net", "--map-root-user", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn ending_of(status: ExitStatus) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(sig)) => Ending::Signaled(sig),
        (None, None) => Ending::Exited(-1),
    }
}

/// Copies one pipe into its capture until end of file or the shared limit.
async fn pump(
    mut pipe: impl AsyncRead + Unpin,
    capture: &mut Capture,
    total: &AtomicU64,
    limit: u64,
    over_limit: &Notify,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let before = total.fetch_add(n as u64, Ordering::Relaxed);
        let allowed = limit.saturating_sub(before).min(n as u64) as usize;
        capture.push(&buf[..allowed]);
        if allowed < n || before + n as u64 >= limit {
            over_limit.notify_one();
            return;
        }
    }
}
