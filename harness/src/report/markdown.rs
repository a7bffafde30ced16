//! `summary.md`: the verdict, the token tables, and what failed.

use std::fmt::Write;

use super::RunReport;

pub fn render(run: &RunReport) -> String {
    let mut md = String::new();
    let (passed, failed, steps) = run.totals();
    let verdict = if run.verdict.passed { "PASS" } else { "FAIL" };
    let _ = writeln!(md, "# QuietContext gate: {verdict}\n");
    let _ = writeln!(
        md,
        "Server `{}` {} · {passed} scenarios passed, {failed} failed, {steps} steps\n",
        run.surface.server_name, run.surface.server_version
    );
    if !run.verdict.violations.is_empty() {
        let _ = writeln!(md, "## Violations\n");
        for v in &run.verdict.violations {
            let _ = writeln!(md, "- {v}");
        }
        md.push('\n');
    }
    tools_table(run, &mut md);
    scenario_table(run, &mut md);
    codex_table(run, &mut md);
    if !run.verdict.warnings.is_empty() {
        let _ = writeln!(md, "## Warnings\n");
        for w in &run.verdict.warnings {
            let _ = writeln!(md, "- {w}");
        }
    }
    md
}

/// The `tools/list` token table, also printed by `qc-harness tokens`.
pub fn tools_table(run: &RunReport, md: &mut String) {
    let s = &run.surface;
    let base = run.baseline.as_ref();
    let _ = writeln!(md, "## Metadata (every turn)\n");
    let _ = writeln!(md, "| item | bytes | o200k | cl100k | baseline o200k |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    let _ = writeln!(
        md,
        "| **tools/list** | {} | {} | {} | {} |",
        s.tools_list_bytes,
        s.tools_list_tokens.o200k,
        s.tools_list_tokens.cl100k,
        base.map(|b| b.tools_list_tokens.o200k.to_string())
            .unwrap_or_default()
    );
    for t in &s.tools {
        let _ = writeln!(
            md,
            "| {} (description {} + schema {}) | {} | {} | {} | |",
            t.name,
            t.description_tokens.o200k,
            t.schema_tokens.o200k,
            t.bytes,
            t.tokens.o200k,
            t.tokens.cl100k
        );
    }
    let _ = writeln!(
        md,
        "| instructions | {} | {} | {} | {} |",
        s.instructions_bytes,
        s.instructions_tokens.o200k,
        s.instructions_tokens.cl100k,
        base.map(|b| b.instructions_tokens.o200k.to_string())
            .unwrap_or_default()
    );
    let _ = writeln!(
        md,
        "\nCold start to the first `tools/list` reply: {:.1} ms\n",
        s.cold_start_ms
    );
}

fn scenario_table(run: &RunReport, md: &mut String) {
    let _ = writeln!(md, "## Scenarios (reply tokens)\n");
    let _ = writeln!(
        md,
        "| scenario | result | steps | request o200k | reply bytes | reply o200k | baseline | Δ |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|");
    for s in &run.scenarios {
        let base = run
            .baseline
            .as_ref()
            .and_then(|b| b.scenarios.get(&s.name))
            .map(|t| t.o200k);
        let delta = base
            .map(|b| format!("{:+}", s.reply_tokens.o200k as i64 - b as i64))
            .unwrap_or_default();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {delta} |",
            s.name,
            if s.passed { "pass" } else { "**FAIL**" },
            s.steps.len(),
            s.request_tokens.o200k,
            s.reply_bytes,
            s.reply_tokens.o200k,
            base.map(|b| b.to_string()).unwrap_or_default()
        );
    }
    let total: usize = run.scenarios.iter().map(|s| s.reply_tokens.o200k).sum();
    let _ = writeln!(md, "\nTotal reply tokens (o200k): {total}\n");
}

fn codex_table(run: &RunReport, md: &mut String) {
    let Some(codex) = &run.codex else {
        return;
    };
    let _ = writeln!(md, "## Codex {} (what the model saw)\n", codex.version);
    let _ = writeln!(
        md,
        "Namespace `mcp__quietcontext`: {} B, {} o200k tokens per turn. Codex part: {:.1} s.\n",
        codex.namespace_bytes,
        codex.namespace_tokens,
        codex.elapsed_ms / 1000.0
    );
    let _ = writeln!(
        md,
        "| scenario | result | model requests | tool outputs | output o200k |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|");
    for s in &codex.scenarios {
        let _ = writeln!(
            md,
            "| {} | {} | {}/{} | {} | {} |",
            s.name,
            if s.passed { "pass" } else { "**FAIL**" },
            s.model_requests,
            s.expected_requests,
            s.outputs.len(),
            s.output_tokens
        );
    }
    md.push('\n');
}
