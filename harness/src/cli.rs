//! Command-line interface. Exit codes: 0 pass, 1 a contract failure or token
//! regression (the gate said no, a scenario failed), 2 the harness could not
//! do its job (bad arguments, unreadable files, a server that will not start).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "qc-harness",
    version,
    about = "Measure, replay and gate MCP stdio servers"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ServerArg {
    /// Server command line (default: $QC_SERVER, else this repo's release build).
    #[arg(long, value_name = "CMD")]
    pub server: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Token and byte costs of a server's metadata (tools/list, instructions).
    Tokens {
        #[command(flatten)]
        server: ServerArg,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Replay scenario files (default: every scenarios/*.yaml).
    Replay {
        #[command(flatten)]
        server: ServerArg,
        files: Vec<PathBuf>,
    },
    /// Tokens + replay (+ Codex) against the committed baseline; writes reports.
    Gate(GateArgs),
    /// The same workload on another MCP stdio server, side by side.
    Compare {
        #[command(flatten)]
        server: ServerArg,
        /// The peer server's command line.
        #[arg(long, value_name = "CMD")]
        peer: String,
        /// Profile mapping the workload onto both servers' tools.
        #[arg(long, value_name = "FILE")]
        profile: PathBuf,
        /// Where to write the Markdown table.
        #[arg(long, default_value = "reports/peer.md")]
        out: PathBuf,
    },
    /// Run the Codex scenarios alone.
    Codex(CodexArgs),
    /// Whole-process timings and memory; writes reports/perf.json and perf.md.
    Perf {
        #[command(flatten)]
        server: ServerArg,
        /// Size of the indexed corpus, in MB.
        #[arg(long, default_value_t = 100)]
        corpus_mb: u64,
        /// How much a program prints in the memory test, in MB.
        #[arg(long, default_value_t = 1024)]
        print_mb: u64,
        /// Repetitions behind each median.
        #[arg(long, default_value_t = 20)]
        runs: usize,
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
    },
    /// Relay stdio to a server, recording every line (used inside Codex runs).
    #[command(hide = true)]
    Proxy {
        #[arg(long)]
        log: PathBuf,
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct CodexArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// Folder of Codex scenarios.
    #[arg(long, default_value = "scenarios/codex")]
    pub codex_scenarios: PathBuf,
    /// Where the pinned Codex CLI is installed (default: target/codex-cli).
    #[arg(long)]
    pub codex_cache: Option<PathBuf>,
    /// Make the mock model answer HTTP 500 (to test failure reporting).
    #[arg(long, hide = true)]
    pub mock_fail: bool,
}

#[derive(Args, Debug, Clone)]
pub struct GateArgs {
    #[command(flatten)]
    pub codex: CodexArgs,
    /// Folder of scenarios.
    #[arg(long, default_value = "scenarios")]
    pub scenarios: PathBuf,
    /// The committed baseline.
    #[arg(long, default_value = "reports/baseline.json")]
    pub baseline: PathBuf,
    /// Where reports are written.
    #[arg(long, default_value = "reports")]
    pub reports: PathBuf,
    /// Rewrite the baseline from this run (a deliberate act: commit the result).
    #[arg(long)]
    pub update_baseline: bool,
    /// Fail the gate when Codex is missing or fails.
    #[arg(long)]
    pub require_codex: bool,
    /// Skip the Codex run.
    #[arg(long, conflicts_with = "require_codex")]
    pub no_codex: bool,
}
