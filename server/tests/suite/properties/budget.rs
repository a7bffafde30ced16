//! Budgets (SPEC §4): for generated output and `max_bytes`, every reply of
//! execute, exec-file, batch and search stays within its effective budget and
//! never splits a character; output over the budget was indexed and reads
//! back byte for byte; output within it is returned whole.

use std::cell::RefCell;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use qc_harness::invariants;
use serde_json::json;

use super::content::{OutputSpec, max_bytes, output_spec};
use super::{Target, runner, verdict};
use crate::suite::support::{Server, indexed_label, read_source, stream_text};

/// Which tool carries the output.
#[derive(Debug, Clone, Copy)]
pub enum Carrier {
    Execute,
    ExecFile,
    Batch,
}

const SEEDS: &str = "tests/proptest-regressions/budget.txt";

fn check(ok: Result<(), String>) -> Result<(), TestCaseError> {
    ok.map_err(TestCaseError::fail)
}

/// What execute / exec-file return when the output fits.
fn inline_exec(stdout: &str, stderr: &str) -> String {
    let mut text = stdout.to_owned();
    if !stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(stderr);
    }
    text
}

fn lines(s: &str) -> usize {
    s.matches('\n').count() + usize::from(!s.is_empty() && !s.ends_with('\n'))
}

/// What batch returns when the output fits.
fn inline_batch(label: &str, stdout: &str, stderr: &str) -> String {
    let bytes = stdout.len() + stderr.len();
    let mut status = format!(
        "$ {label}: exit 0, {bytes} B, {} lines",
        lines(stdout) + lines(stderr)
    );
    if !stderr.is_empty() {
        status.push_str(&format!(" (stderr {} B)", stderr.len()));
    }
    format!("{status}\n{stdout}{stderr}")
}

fn one_case(
    server: &mut Server,
    carrier: Carrier,
    n: usize,
    spec: &OutputSpec,
    budget: Option<usize>,
) -> Result<(), TestCaseError> {
    let (stdout, stderr) = spec.build();
    std::fs::write(server.path("out.bin"), &stdout)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    std::fs::write(server.path("err.bin"), &stderr)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let label = format!("c{n}");
    let (tool, mut args) = match carrier {
        Carrier::Execute => (
            "execute",
            json!({"language": "shell", "code": "cat out.bin; cat err.bin >&2"}),
        ),
        Carrier::ExecFile => (
            "exec-file",
            json!({"path": "out.bin", "language": "shell", "code": "cat; cat err.bin >&2"}),
        ),
        Carrier::Batch => (
            "batch",
            json!({"commands": [{"label": label, "command": "cat out.bin; cat err.bin >&2"}], "queries": ["a"]}),
        ),
    };
    if let Some(b) = budget {
        args["max_bytes"] = json!(b);
    }
    let reply = server
        .client
        .call_tool(tool, args.clone())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(!reply.is_error, "{tool} failed: {}", reply.text);
    check(invariants::within_budget(tool, &args, &reply.text))?;
    check(invariants::no_split_characters(&reply.text))?;
    let effective = invariants::effective_budget(tool, &args).unwrap_or(0);
    let (whole, source) = match carrier {
        Carrier::Batch => (inline_batch(&label, &stdout, &stderr), label.clone()),
        _ => (inline_exec(&stdout, &stderr), String::new()),
    };
    if whole.len() <= effective {
        prop_assert_eq!(
            &reply.text,
            &whole,
            "output within the budget must be returned whole"
        );
        return Ok(());
    }
    let source = match carrier {
        Carrier::Batch => source,
        _ => {
            prop_assert!(reply.text.contains("output indexed as"), "{}", reply.text);
            indexed_label(&reply.text)
        }
    };
    let chunks = read_source(server, &source);
    check(invariants::retrieved_exactly(
        &stdout,
        &stream_text(&chunks, "stdout"),
    ))?;
    check(invariants::retrieved_exactly(
        &stderr,
        &stream_text(&chunks, "stderr"),
    ))?;
    Ok(())
}

/// The budget property for one carrier; `Err` names the minimal failing case.
pub fn budget_property(
    target: Target,
    carrier: Carrier,
    cases: u32,
    seeds: Option<&'static str>,
) -> Result<(), String> {
    let server = RefCell::new(target.start());
    let counter = RefCell::new(0usize);
    let cap = match carrier {
        Carrier::Batch => 12288,
        _ => 8192,
    };
    verdict(
        runner(cases, seeds).run(&(output_spec(), max_bytes(cap)), |(spec, budget)| {
            let n = {
                let mut c = counter.borrow_mut();
                *c += 1;
                *c
            };
            one_case(&mut server.borrow_mut(), carrier, n, &spec, budget)
        }),
    )
}

/// Search replies over a generated corpus, with previews and large limits.
pub fn search_budget_property(
    target: Target,
    cases: u32,
    seeds: Option<&'static str>,
) -> Result<(), String> {
    let server = RefCell::new(target.start());
    let counter = RefCell::new(0usize);
    let strategy = (
        output_spec(),
        max_bytes(8192),
        1u64..=100,
        any::<bool>(),
        proptest::collection::vec("[a-z]{1,3}", 1..4),
    );
    verdict(
        runner(cases, seeds).run(&strategy, |(spec, budget, limit, preview, queries)| {
            let mut server = server.borrow_mut();
            let n = {
                let mut c = counter.borrow_mut();
                *c += 1;
                *c
            };
            let (stdout, stderr) = spec.build();
            let text = stdout + &stderr;
            if text.trim().is_empty() {
                return Ok(());
            }
            let source = format!("corpus{n}");
            let indexed = server
                .client
                .call_tool("index", json!({"source": source, "content": text}))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(!indexed.is_error, "{}", indexed.text);
            let mut args =
                json!({"queries": queries, "source": source, "limit": limit, "preview": preview});
            if let Some(b) = budget {
                args["max_bytes"] = json!(b);
            }
            let reply = server
                .client
                .call_tool("search", args.clone())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(!reply.is_error, "{}", reply.text);
            check(invariants::within_budget("search", &args, &reply.text))?;
            check(invariants::no_split_characters(&reply.text))?;
            check(invariants::previews_bounded(&reply.text))?;
            check(invariants::refs_listed_once(&reply.text))?;
            Ok(())
        }),
    )
}

#[test]
fn execute_replies_stay_within_budget_and_lose_nothing() {
    budget_property(Target::Real, Carrier::Execute, 24, Some(SEEDS)).unwrap();
}

#[test]
fn exec_file_replies_stay_within_budget_and_lose_nothing() {
    budget_property(Target::Real, Carrier::ExecFile, 16, Some(SEEDS)).unwrap();
}

#[test]
fn batch_replies_stay_within_budget_and_lose_nothing() {
    budget_property(Target::Real, Carrier::Batch, 16, Some(SEEDS)).unwrap();
}

#[test]
fn search_replies_stay_within_budget() {
    search_budget_property(Target::Real, 24, Some(SEEDS)).unwrap();
}
