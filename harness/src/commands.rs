//! What each subcommand does. Each returns `Ok(true)` when its checks passed,
//! `Ok(false)` on a contract failure, and `Err` when it could not run.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;

use crate::cli::{CodexArgs, GateArgs, ServerArg};
use crate::compare::{self, Profile};
use crate::gate::{self, Baseline};
use crate::replay::{Replayer, ScenarioResult};
use crate::report::{self, RunReport};
use crate::scenario::Scenario;
use crate::{codex, server, surface};

pub fn tokens(server: &ServerArg, json: bool) -> anyhow::Result<bool> {
    let cmd = server::resolve(server.server.as_deref())?;
    let surface = surface::measure(&cmd)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&surface)?);
    } else {
        let run = bare_run(&cmd, surface);
        let mut md = String::new();
        report::markdown::tools_table(&run, &mut md);
        print!("{md}");
    }
    Ok(true)
}

pub fn replay(server: &ServerArg, files: &[std::path::PathBuf]) -> anyhow::Result<bool> {
    let cmd = server::resolve(server.server.as_deref())?;
    let scenarios = if files.is_empty() {
        Scenario::load_dir(std::path::Path::new("scenarios"))?
    } else {
        files
            .iter()
            .map(|f| Scenario::load(f))
            .collect::<anyhow::Result<_>>()?
    };
    let results = run_scenarios(&cmd, &scenarios);
    let failed = results.iter().filter(|r| !r.passed).count();
    let tokens: usize = results.iter().map(|r| r.reply_tokens.o200k).sum();
    println!(
        "{} scenarios, {failed} failed, {tokens} reply tokens (o200k)",
        results.len()
    );
    for r in results.iter().filter(|r| !r.passed) {
        println!(
            "FAILED {}: {}",
            r.name,
            r.error.as_deref().unwrap_or("see steps above")
        );
    }
    Ok(failed == 0)
}

fn run_scenarios(
    cmd: &crate::client::ServerCommand,
    scenarios: &[Scenario],
) -> Vec<ScenarioResult> {
    let mut replayer = Replayer::new(cmd.clone());
    scenarios
        .iter()
        .map(|s| {
            let result = replayer.run(s);
            if !replayer.verbose {
                let mark = if result.passed { "ok  " } else { "FAIL" };
                println!(
                    "{mark} {:<48} {:>6} reply tokens",
                    result.name, result.reply_tokens.o200k
                );
                for step in result.steps.iter().filter(|st| !st.passed) {
                    for f in &step.failures {
                        println!(
                            "     {}: {}: expected {}\n       got {}",
                            step.label, f.check, f.expected, f.got
                        );
                    }
                }
                if let Some(e) = &result.error {
                    println!("     {e}");
                }
            }
            result
        })
        .collect()
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn bare_run(cmd: &crate::client::ServerCommand, surface: surface::Surface) -> RunReport {
    RunReport {
        schema: 1,
        generated_unix: now_unix(),
        server: format!("{} {}", cmd.program.display(), cmd.args.join(" ")),
        surface,
        scenarios: Vec::new(),
        codex: None,
        verdict: gate::Verdict::default(),
        baseline: None,
    }
}

pub fn gate(args: &GateArgs) -> anyhow::Result<bool> {
    let cmd = server::resolve(args.codex.server.server.as_deref())?;
    let surface = surface::measure(&cmd).context("cannot measure the server's metadata")?;
    let scenarios = Scenario::load_dir(&args.scenarios)?;
    let baseline = Baseline::load(&args.baseline)?;
    let results = run_scenarios(&cmd, &scenarios);
    let codex = if args.no_codex {
        None
    } else {
        match codex::run_all(&args.codex, &cmd) {
            Ok(report) => Some(report),
            Err(e) if args.require_codex => {
                println!("codex: {e:#}");
                None
            }
            Err(e) => {
                println!("codex skipped: {e:#}");
                None
            }
        }
    };
    let mut run = bare_run(&cmd, surface);
    run.scenarios = results;
    run.codex = codex;
    run.verdict = gate::judge(&run, baseline.as_ref(), args.require_codex);
    run.baseline = baseline;
    if args.update_baseline {
        let fresh = Baseline::from_run(&run);
        fresh.save(&args.baseline)?;
        println!("baseline written to {}", args.baseline.display());
        run.baseline = Some(fresh);
        run.verdict = gate::judge(&run, run.baseline.as_ref(), args.require_codex);
    }
    report::write_all(&run, &args.reports)?;
    let mut table = String::new();
    report::markdown::tools_table(&run, &mut table);
    print!("\n{table}");
    let (passed, failed, steps) = run.totals();
    println!("scenarios: {passed} passed, {failed} failed, {steps} steps");
    if let Some(c) = &run.codex {
        println!(
            "codex {}: namespace {} o200k tokens; {} scenarios in {:.1} s",
            c.version,
            c.namespace_tokens,
            c.scenarios.len(),
            c.elapsed_ms / 1000.0
        );
    }
    for v in &run.verdict.violations {
        println!("VIOLATION {v}");
    }
    for w in &run.verdict.warnings {
        println!("warning: {w}");
    }
    println!(
        "gate: {} (reports in {})",
        if run.verdict.passed { "PASS" } else { "FAIL" },
        args.reports.display()
    );
    Ok(run.verdict.passed)
}

pub fn compare(
    server: &ServerArg,
    peer: &str,
    profile: &std::path::Path,
    out: &std::path::Path,
) -> anyhow::Result<bool> {
    let ours = server::resolve(server.server.as_deref())?;
    let peer = crate::client::ServerCommand::parse(peer)
        .map(server::absolute)
        .context("--peer is empty")?;
    let profile = Profile::load(profile)?;
    let comparison = compare::run(&profile, &ours, &peer)?;
    let md = compare::markdown(&comparison);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, &md).with_context(|| format!("cannot write {}", out.display()))?;
    print!("{md}");
    Ok(true)
}

pub fn codex(args: &CodexArgs) -> anyhow::Result<bool> {
    let cmd = server::resolve(args.server.server.as_deref())?;
    let report = codex::run_all(args, &cmd)?;
    for s in &report.scenarios {
        println!(
            "{} {:<40} {}/{} model requests, {} outputs, {} tokens",
            if s.passed { "ok  " } else { "FAIL" },
            s.name,
            s.model_requests,
            s.expected_requests,
            s.outputs.len(),
            s.output_tokens
        );
        for f in &s.failures {
            println!("     {f}");
        }
    }
    println!(
        "codex {}: namespace {} B, {} o200k tokens; {:.1} s",
        report.version,
        report.namespace_bytes,
        report.namespace_tokens,
        report.elapsed_ms / 1000.0
    );
    Ok(report.failures.is_empty())
}

pub fn perf(
    server: &ServerArg,
    corpus_mb: u64,
    print_mb: u64,
    runs: usize,
    reports: &std::path::Path,
) -> anyhow::Result<bool> {
    let cmd = server::resolve(server.server.as_deref())?;
    let report = crate::perf::run(&cmd, corpus_mb, print_mb, runs.max(1))?;
    std::fs::create_dir_all(reports)?;
    std::fs::write(
        reports.join("perf.json"),
        serde_json::to_string_pretty(&report)? + "\n",
    )?;
    let md = crate::perf::markdown(&report);
    std::fs::write(reports.join("perf.md"), &md)?;
    print!("{md}");
    Ok(true)
}
