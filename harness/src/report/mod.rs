//! Reports of a gate run, written under `reports/`:
//! - `latest.json` ([`RunReport`], stable keys, for machines),
//! - `summary.md` ([`markdown`], for people and CI step summaries),
//! - `junit.xml` ([`junit`], for CI systems),
//! - `dashboard.html` ([`dashboard`], one self-contained page with SVG charts).

pub mod dashboard;
pub mod junit;
pub mod markdown;

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::codex::CodexReport;
use crate::gate::{Baseline, Verdict};
use crate::replay::ScenarioResult;
use crate::surface::Surface;

/// Everything one gate run measured and decided.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    pub schema: u32,
    pub generated_unix: u64,
    pub server: String,
    pub surface: Surface,
    pub scenarios: Vec<ScenarioResult>,
    pub codex: Option<CodexReport>,
    pub verdict: Verdict,
    /// The baseline judged against, if any (for side-by-side rendering).
    pub baseline: Option<Baseline>,
}

impl RunReport {
    pub fn totals(&self) -> (usize, usize, usize) {
        let passed = self.scenarios.iter().filter(|s| s.passed).count();
        let steps = self.scenarios.iter().map(|s| s.steps.len()).sum();
        (passed, self.scenarios.len() - passed, steps)
    }
}

/// Writes the four reports into `dir`.
pub fn write_all(run: &RunReport, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write("latest.json", serde_json::to_string_pretty(run)? + "\n")?;
    write("summary.md", markdown::render(run))?;
    write("junit.xml", junit::render(run))?;
    write("dashboard.html", dashboard::render(run))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::Failure;
    use crate::replay::StepResult;
    use crate::surface::ToolCost;
    use crate::tokens::Tokens;

    fn run(passed: bool) -> RunReport {
        let step = StepResult {
            label: "1: call search".into(),
            kind: "call".into(),
            tool: Some("search".into()),
            passed,
            failures: if passed {
                vec![]
            } else {
                vec![Failure::new("contains", "\"<a & b>\"", "\"nothing\"")]
            },
            request_bytes: 10,
            request_tokens: Tokens {
                o200k: 3,
                cl100k: 3,
            },
            reply_bytes: 40,
            reply_tokens: Tokens {
                o200k: 12,
                cl100k: 11,
            },
            elapsed_ms: 1.0,
        };
        let mut report = RunReport {
            schema: 1,
            generated_unix: 0,
            server: "quietcontext".into(),
            surface: Surface {
                server_name: "quietcontext".into(),
                server_version: "0.1.0".into(),
                protocol_version: "2025-06-18".into(),
                tools_list_bytes: 100,
                tools_list_tokens: Tokens {
                    o200k: 30,
                    cl100k: 28,
                },
                instructions_bytes: 10,
                instructions_tokens: Tokens {
                    o200k: 3,
                    cl100k: 3,
                },
                tools: vec![ToolCost {
                    name: "search".into(),
                    bytes: 100,
                    tokens: Tokens {
                        o200k: 30,
                        cl100k: 28,
                    },
                    description_tokens: Tokens {
                        o200k: 10,
                        cl100k: 9,
                    },
                    schema_tokens: Tokens {
                        o200k: 15,
                        cl100k: 14,
                    },
                }],
                cold_start_ms: 5.0,
            },
            scenarios: vec![ScenarioResult {
                name: "search-<once>".into(),
                file: "scenarios/x.yaml".into(),
                description: "d".into(),
                passed,
                error: None,
                steps: vec![step],
                request_tokens: Tokens {
                    o200k: 3,
                    cl100k: 3,
                },
                reply_tokens: Tokens {
                    o200k: 12,
                    cl100k: 11,
                },
                reply_bytes: 40,
                elapsed_ms: 1.0,
            }],
            codex: None,
            verdict: Verdict::default(),
            baseline: None,
        };
        report.verdict = crate::gate::judge(&report, None, false);
        report
    }

    #[test]
    fn markdown_carries_the_verdict_and_the_token_tables() {
        let md = markdown::render(&run(true));
        assert!(md.starts_with("# QuietContext gate: PASS"));
        assert!(md.contains("| **tools/list** | 100 | 30 | 28 |"));
        assert!(md.contains("| search (description 10 + schema 15) | 100 | 30 | 28 | |"));
        assert!(md.contains("| search-<once> | pass | 1 | 3 | 40 | 12 |"));
    }

    #[test]
    fn junit_escapes_and_reports_failures() {
        let xml = junit::render(&run(false));
        assert!(xml.contains("name=\"search-&lt;once&gt;\""));
        assert!(xml.contains("&quot;&lt;a &amp; b&gt;&quot;"));
        assert!(xml.contains("tests=\"1\" failures=\"1\""));
        assert!(!xml.contains("<a & b>"));
    }

    #[test]
    fn the_dashboard_is_self_contained_with_svg_charts() {
        let html = dashboard::render(&run(false));
        assert!(html.contains("<svg"));
        assert!(html.contains("FAIL"));
        assert!(!html.contains("<script"));
        // The only URL is the SVG namespace: nothing is fetched.
        assert_eq!(
            html.matches("http").count(),
            html.matches("http://www.w3.org/2000/svg").count()
        );
        assert!(html.contains("search-&lt;once&gt;"));
    }

    #[test]
    fn latest_json_round_trips() {
        let report = run(true);
        let text = serde_json::to_string(&report).unwrap();
        let back: RunReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back.surface, report.surface);
        assert_eq!(back.verdict, report.verdict);
    }
}
