//! `qc-harness`: parse the command line, run the command, map the outcome
//! to an exit code (0 pass, 1 contract failure or regression, 2 could not run).

use std::process::ExitCode;

use clap::Parser;
use qc_harness::cli::{Cli, Command};
use qc_harness::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Tokens { server, json } => commands::tokens(server, *json),
        Command::Replay { server, files } => commands::replay(server, files),
        Command::Gate(args) => commands::gate(args),
        Command::Compare {
            server,
            peer,
            profile,
            out,
        } => commands::compare(server, peer, profile, out),
        Command::Codex(args) => commands::codex(args),
        Command::Perf {
            server,
            corpus_mb,
            print_mb,
            runs,
            reports,
        } => commands::perf(server, *corpus_mb, *print_mb, *runs, reports),
        Command::Proxy { log, command } => {
            return match qc_harness::codex::proxy::run(log, command) {
                Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                Err(e) => {
                    eprintln!("qc-harness proxy: {e:#}");
                    ExitCode::from(2)
                }
            };
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("qc-harness: {e:#}");
            ExitCode::from(2)
        }
    }
}
