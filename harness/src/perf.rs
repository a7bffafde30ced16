//! Whole-process performance (`qc-harness perf`): cold start, `execute`
//! overhead against the bare interpreter, memory at idle, after indexing
//! 100 MB and while a program prints 1 GB, and search latency at 100 MB.
//! Every figure is a median of repeated runs; comparisons are ratios
//! measured in the same run. Writes `reports/perf.json` and `reports/perf.md`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::client::{Client, ServerCommand};
use crate::compare::median;

/// A timing summary in milliseconds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stat {
    pub runs: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
}

impl Stat {
    pub fn of(mut samples: Vec<f64>) -> Stat {
        samples.sort_by(f64::total_cmp);
        let p95 = samples
            .get(((samples.len() as f64) * 0.95).ceil() as usize - 1)
            .copied()
            .unwrap_or(0.0);
        Stat {
            runs: samples.len(),
            median_ms: median(samples),
            p95_ms: p95,
        }
    }
}

/// One interpreter: bare spawn against `execute` of the same no-op.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overhead {
    pub interpreter: String,
    pub bare: Stat,
    pub execute: Stat,
    pub overhead_ms: f64,
    pub ratio: f64,
}

/// Everything `perf` measures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PerfReport {
    pub generated_unix: u64,
    pub server: String,
    pub cold_start: Stat,
    pub execute_overhead: Vec<Overhead>,
    pub rss_idle_kib: u64,
    pub corpus_bytes: u64,
    pub index_seconds: f64,
    pub index_mb_per_s: f64,
    pub rss_after_index_kib: u64,
    pub search_at_corpus: Stat,
    pub print_bytes_requested: u64,
    pub print_seconds: f64,
    pub rss_before_print_kib: u64,
    pub rss_peak_during_print_kib: u64,
}

/// `VmRSS` and `VmHWM` (peak) of a process, in KiB.
pub fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn start(cmd: &ServerCommand, dir: &Path) -> anyhow::Result<Client> {
    let mut client = Client::spawn(&cmd.clone().cwd(dir))?;
    client.deadline = Duration::from_secs(600);
    client.initialize("2025-06-18")?;
    Ok(client)
}

fn cold_start(cmd: &ServerCommand, dir: &Path, runs: usize) -> anyhow::Result<Stat> {
    let mut samples = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let mut client = Client::spawn(&cmd.clone().cwd(dir))?;
        client.initialize("2025-06-18")?;
        client.list_tools()?;
        samples.push(ms(started.elapsed()));
        client.shutdown(Duration::from_secs(2));
    }
    Ok(Stat::of(samples))
}

fn overhead(
    client: &mut Client,
    interpreter: &str,
    bare: &[&str],
    language: &str,
    code: &str,
    runs: usize,
) -> anyhow::Result<Overhead> {
    let mut bare_samples = Vec::new();
    let mut exec_samples = Vec::new();
    // Interleaved, so both see the same machine load.
    for _ in 0..runs {
        let started = Instant::now();
        let status = Command::new(bare[0])
            .args(&bare[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("cannot run {}", bare[0]))?;
        bare_samples.push(ms(started.elapsed()));
        if !status.success() {
            bail!("{} failed", bare.join(" "));
        }
        let started = Instant::now();
        let reply = client.call_tool("execute", json!({"language": language, "code": code}))?;
        exec_samples.push(ms(started.elapsed()));
        if reply.is_error {
            bail!("execute {language} failed: {}", reply.text);
        }
    }
    let (bare, execute) = (Stat::of(bare_samples), Stat::of(exec_samples));
    Ok(Overhead {
        interpreter: interpreter.to_owned(),
        overhead_ms: execute.median_ms - bare.median_ms,
        ratio: execute.median_ms / bare.median_ms.max(f64::EPSILON),
        bare,
        execute,
    })
}

/// A deterministic log-like corpus of about `bytes` bytes.
pub fn write_corpus(path: &Path, bytes: u64) -> anyhow::Result<()> {
    const WORDS: [&str; 16] = [
        "request", "handler", "timeout", "cache", "index", "query", "session", "worker", "payload",
        "retry", "socket", "buffer", "commit", "schema", "token", "budget",
    ];
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut written = 0u64;
    let mut line = String::new();
    let mut n = 0u64;
    while written < bytes {
        line.clear();
        n += 1;
        let _ = write!(
            line,
            "2026-11-29T12:{:02}:{:02}Z id={n} ",
            (n / 60) % 60,
            n % 60
        );
        for _ in 0..8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            line.push_str(WORDS[(state % 16) as usize]);
            line.push(' ');
        }
        let _ = writeln!(line, "v{}", state % 100_000);
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    out.flush()?;
    Ok(())
}

/// Measures everything; `corpus_mb` and `print_mb` scale the big runs.
pub fn run(
    cmd: &ServerCommand,
    corpus_mb: u64,
    print_mb: u64,
    runs: usize,
) -> anyhow::Result<PerfReport> {
    let dir = tempfile::tempdir()?;
    eprintln!("perf: cold start ×{runs}");
    let cold = cold_start(cmd, dir.path(), runs)?;

    let mut client = start(cmd, dir.path())?;
    let pid = client.pid();
    std::thread::sleep(Duration::from_millis(200));
    let (rss_idle, _) = memory_kib(pid);
    eprintln!("perf: execute overhead ×{runs}");
    let mut overheads = vec![overhead(
        &mut client,
        "bash",
        &["bash", "-c", "true"],
        "shell",
        "true",
        runs,
    )?];
    if crate::server::which("python3").is_some() {
        overheads.push(overhead(
            &mut client,
            "python3",
            &["python3", "-c", "pass"],
            "python",
            "pass",
            runs,
        )?);
    }

    eprintln!("perf: indexing {corpus_mb} MB");
    let corpus = dir.path().join("corpus.log");
    write_corpus(&corpus, corpus_mb * 1024 * 1024)?;
    let corpus_bytes = std::fs::metadata(&corpus)?.len();
    let started = Instant::now();
    let reply = client.call_tool("index", json!({"path": "corpus.log", "source": "corpus"}))?;
    let index_seconds = started.elapsed().as_secs_f64();
    if reply.is_error {
        bail!("indexing the corpus failed: {}", reply.text);
    }
    let (rss_after_index, _) = memory_kib(pid);
    eprintln!("perf: searches ×{}", runs * 2);
    let queries = [
        "timeout retry",
        "socket",
        "id=4242",
        "payload commit schema",
        "v31337",
        "budget token",
    ];
    let mut search_samples = Vec::new();
    for i in 0..runs * 2 {
        let q = queries[i % queries.len()];
        let started = Instant::now();
        let reply = client.call_tool("search", json!({"queries": [q], "source": "corpus"}))?;
        search_samples.push(ms(started.elapsed()));
        if reply.is_error {
            bail!("search failed: {}", reply.text);
        }
    }
    client.shutdown(Duration::from_secs(5));

    eprintln!("perf: a program printing {print_mb} MB");
    let mut fresh = start(cmd, dir.path())?;
    let fresh_pid = fresh.pid();
    std::thread::sleep(Duration::from_millis(200));
    let (rss_before_print, _) = memory_kib(fresh_pid);
    let bytes = print_mb * 1024 * 1024;
    let started = Instant::now();
    let reply = fresh.call_tool(
        "execute",
        json!({"language": "shell", "timeout_ms": 600_000,
               "code": format!("head -c {bytes} /dev/zero | tr '\\0' 'x' | fold -w 99")}),
    )?;
    let print_seconds = started.elapsed().as_secs_f64();
    if reply.is_error {
        bail!("the printing program failed: {}", reply.text);
    }
    let (_, peak) = memory_kib(fresh_pid);
    fresh.shutdown(Duration::from_secs(5));

    Ok(PerfReport {
        generated_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        server: format!("{} {}", cmd.program.display(), cmd.args.join(" ")),
        cold_start: cold,
        execute_overhead: overheads,
        rss_idle_kib: rss_idle,
        corpus_bytes,
        index_seconds,
        index_mb_per_s: corpus_bytes as f64 / 1_048_576.0 / index_seconds,
        rss_after_index_kib: rss_after_index,
        search_at_corpus: Stat::of(search_samples),
        print_bytes_requested: bytes,
        print_seconds,
        rss_before_print_kib: rss_before_print,
        rss_peak_during_print_kib: peak,
    })
}

/// The Markdown table, with the targets each figure is held against.
pub fn markdown(r: &PerfReport) -> String {
    let mut md = String::new();
    let mib = |kib: u64| kib as f64 / 1024.0;
    let corpus_mb = r.corpus_bytes as f64 / 1_048_576.0;
    let _ = writeln!(md, "| measure | value | target |");
    let _ = writeln!(md, "|---|---:|---|");
    let _ = writeln!(
        md,
        "| cold start to first `tools/list` reply (median of {}) | {:.1} ms (p95 {:.1}) | ≤ 1/20 of context-mode's |",
        r.cold_start.runs, r.cold_start.median_ms, r.cold_start.p95_ms
    );
    for o in &r.execute_overhead {
        let _ = writeln!(
            md,
            "| `execute` {} no-op vs bare spawn (median of {}) | {:.2} ms vs {:.2} ms: +{:.2} ms, {:.2}× | ≤ +3 ms |",
            o.interpreter,
            o.bare.runs,
            o.execute.median_ms,
            o.bare.median_ms,
            o.overhead_ms,
            o.ratio
        );
    }
    let _ = writeln!(
        md,
        "| idle RSS | {:.1} MiB | ≤ 16 MiB |",
        mib(r.rss_idle_kib)
    );
    let _ = writeln!(
        md,
        "| index {corpus_mb:.0} MB log (`index` by path) | {:.1} s, {:.1} MB/s | ≥ 20 MB/s |",
        r.index_seconds, r.index_mb_per_s
    );
    let _ = writeln!(
        md,
        "| RSS after indexing {corpus_mb:.0} MB | {:.1} MiB | |",
        mib(r.rss_after_index_kib)
    );
    let _ = writeln!(
        md,
        "| search round trip at {corpus_mb:.0} MB (median of {}) | {:.2} ms (p95 {:.2}) | p50 ≤ 5 ms |",
        r.search_at_corpus.runs, r.search_at_corpus.median_ms, r.search_at_corpus.p95_ms
    );
    let _ = writeln!(
        md,
        "| a program printing {:.0} MB: peak RSS | {:.1} MiB (idle {:.1}), {:.1} s | < idle + 64 MiB |",
        r.print_bytes_requested as f64 / 1_048_576.0,
        mib(r.rss_peak_during_print_kib),
        mib(r.rss_before_print_kib),
        r.print_seconds
    );
    md
}
