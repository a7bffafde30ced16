//! `dashboard.html`: one self-contained page (no scripts, no network) with
//! inline SVG bar charts: `tools/list` tokens per tool (description against
//! schema), reply tokens per scenario against the baseline, and the Codex
//! outputs.

use std::fmt::Write;

use super::RunReport;

const ROW: usize = 22;
const LABEL_W: usize = 300;
const BAR_W: usize = 520;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One bar segment: value, CSS colour.
type Segment = (usize, &'static str);

/// A chart of rows, each one or more bars (stacked when `stacked`, else side by side).
fn chart(
    title: &str,
    legend: &[(&str, &str)],
    rows: &[(String, Vec<Segment>)],
    stacked: bool,
) -> String {
    let max = rows
        .iter()
        .map(|(_, segs)| {
            if stacked {
                segs.iter().map(|s| s.0).sum()
            } else {
                segs.iter().map(|s| s.0).max().unwrap_or(0)
            }
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let bars_per_row = if stacked {
        1
    } else {
        rows.iter().map(|r| r.1.len()).max().unwrap_or(1)
    };
    let row_h = if stacked {
        ROW + 6
    } else {
        (ROW - 6) * bars_per_row.max(1) + 10
    };
    let height = rows.len() * row_h + 40;
    let width = LABEL_W + BAR_W + 90;
    let mut svg = format!(
        "<h2>{}</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">\n",
        escape(title),
        escape(title)
    );
    let mut x = LABEL_W;
    for (name, colour) in legend {
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"4\" width=\"12\" height=\"12\" fill=\"{colour}\"/><text x=\"{}\" y=\"15\" class=\"l\">{}</text>",
            x + 16,
            escape(name)
        );
        x += 24 + name.len() * 8;
    }
    for (i, (label, segs)) in rows.iter().enumerate() {
        let y = 28 + i * row_h;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"l\">{}</text>",
            LABEL_W - 8,
            y + 14,
            escape(label)
        );
        let mut offset = 0usize;
        for (j, (value, colour)) in segs.iter().enumerate() {
            let w = value * BAR_W / max;
            let (bx, by, bh) = if stacked {
                (LABEL_W + offset, y, ROW - 4)
            } else {
                (LABEL_W, y + j * (ROW - 6), ROW - 8)
            };
            let _ = writeln!(
                svg,
                "<rect x=\"{bx}\" y=\"{by}\" width=\"{w}\" height=\"{bh}\" fill=\"{colour}\"><title>{} {value}</title></rect>",
                escape(label)
            );
            if stacked {
                offset += w;
            } else {
                let _ = writeln!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" class=\"v\">{value}</text>",
                    bx + w + 4,
                    by + bh - 2
                );
            }
        }
        if stacked {
            let total: usize = segs.iter().map(|s| s.0).sum();
            let _ = writeln!(
                svg,
                "<text x=\"{}\" y=\"{}\" class=\"v\">{total}</text>",
                LABEL_W + offset + 4,
                y + 14
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

pub fn render(run: &RunReport) -> String {
    let (passed, failed, steps) = run.totals();
    let verdict = if run.verdict.passed { "PASS" } else { "FAIL" };
    let colour = if run.verdict.passed {
        "#1a7f37"
    } else {
        "#cf222e"
    };
    let s = &run.surface;
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>QuietContext gate: {verdict}</title>\n<style>\
body{{font-family:system-ui,sans-serif;margin:2em;color:#1f2328}} .verdict{{color:{colour}}} \
.cards{{display:flex;gap:1em;flex-wrap:wrap}} .card{{border:1px solid #d0d7de;border-radius:6px;padding:.6em 1em}} \
.card b{{display:block;font-size:1.6em}} svg .l{{font-size:12px;fill:#1f2328}} svg .v{{font-size:11px;fill:#57606a}} \
li{{font-family:monospace}}</style></head><body>\n\
<h1>QuietContext gate: <span class=\"verdict\">{verdict}</span></h1>\n<div class=\"cards\">\n"
    );
    let mut card = |title: &str, value: String| {
        let _ = writeln!(
            html,
            "<div class=\"card\">{}<b>{}</b></div>",
            escape(title),
            escape(&value)
        );
    };
    card(
        "tools/list o200k tokens",
        s.tools_list_tokens.o200k.to_string(),
    );
    card("tools/list bytes", format!("{} / 4096", s.tools_list_bytes));
    card("scenarios", format!("{passed} passed, {failed} failed"));
    card("steps", steps.to_string());
    card(
        "reply o200k tokens",
        run.scenarios
            .iter()
            .map(|x| x.reply_tokens.o200k)
            .sum::<usize>()
            .to_string(),
    );
    card("cold start", format!("{:.1} ms", s.cold_start_ms));
    if let Some(c) = &run.codex {
        card("Codex namespace o200k", c.namespace_tokens.to_string());
    }
    html.push_str("</div>\n");
    if !run.verdict.violations.is_empty() {
        html.push_str("<h2>Violations</h2><ul>\n");
        for v in &run.verdict.violations {
            let _ = writeln!(html, "<li>{}</li>", escape(v));
        }
        html.push_str("</ul>\n");
    }
    let tool_rows: Vec<(String, Vec<Segment>)> = s
        .tools
        .iter()
        .map(|t| {
            let other = t
                .tokens
                .o200k
                .saturating_sub(t.description_tokens.o200k + t.schema_tokens.o200k);
            (
                t.name.clone(),
                vec![
                    (t.description_tokens.o200k, "#0969da"),
                    (t.schema_tokens.o200k, "#8250df"),
                    (other, "#afb8c1"),
                ],
            )
        })
        .collect();
    html.push_str(&chart(
        "tools/list tokens per tool (o200k)",
        &[
            ("description", "#0969da"),
            ("schema", "#8250df"),
            ("name and framing", "#afb8c1"),
        ],
        &tool_rows,
        true,
    ));
    let scenario_rows: Vec<(String, Vec<Segment>)> = run
        .scenarios
        .iter()
        .map(|sc| {
            let base = run
                .baseline
                .as_ref()
                .and_then(|b| b.scenarios.get(&sc.name))
                .map(|t| t.o200k)
                .unwrap_or(0);
            let now_colour = if sc.passed { "#1a7f37" } else { "#cf222e" };
            (
                sc.name.clone(),
                vec![(sc.reply_tokens.o200k, now_colour), (base, "#afb8c1")],
            )
        })
        .collect();
    html.push_str(&chart(
        "reply tokens per scenario (o200k): this run against the baseline",
        &[("this run", "#1a7f37"), ("baseline", "#afb8c1")],
        &scenario_rows,
        false,
    ));
    if let Some(c) = &run.codex {
        let rows: Vec<(String, Vec<Segment>)> = c
            .scenarios
            .iter()
            .map(|sc| {
                let base = run
                    .baseline
                    .as_ref()
                    .and_then(|b| b.codex_scenarios.get(&sc.name))
                    .copied()
                    .unwrap_or(0);
                (
                    sc.name.clone(),
                    vec![(sc.output_tokens, "#bf3989"), (base, "#afb8c1")],
                )
            })
            .collect();
        html.push_str(&chart(
            "Codex: tool output tokens the model saw per scenario (o200k)",
            &[("this run", "#bf3989"), ("baseline", "#afb8c1")],
            &rows,
            false,
        ));
    }
    html.push_str("</body></html>\n");
    html
}
