//! `junit.xml`: one test case per scenario, per Codex scenario, and one for
//! the token gate.

use std::fmt::Write;

use super::RunReport;

fn escape(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&apos;".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// One test case: its name, seconds, and the failure text if it failed.
struct Case {
    name: String,
    seconds: f64,
    failure: Option<String>,
}

/// Writes one `<testsuite>` of cases.
fn suite(xml: &mut String, name: &str, cases: &[Case]) {
    let failed = cases.iter().filter(|c| c.failure.is_some()).count();
    let seconds: f64 = cases.iter().map(|c| c.seconds).sum();
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{failed}\" time=\"{seconds:.3}\">",
        cases.len()
    );
    for case in cases {
        let _ = write!(
            xml,
            "    <testcase classname=\"{name}\" name=\"{}\" time=\"{:.3}\"",
            escape(&case.name),
            case.seconds
        );
        match &case.failure {
            None => xml.push_str("/>\n"),
            Some(text) => {
                let _ = writeln!(
                    xml,
                    ">\n      <failure message=\"{name} failed\">{}</failure>\n    </testcase>",
                    escape(text)
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n");
}

pub fn render(run: &RunReport) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"qc-harness\">\n",
    );
    let scenarios: Vec<Case> = run
        .scenarios
        .iter()
        .map(|s| Case {
            name: s.name.clone(),
            seconds: s.elapsed_ms / 1000.0,
            failure: (!s.passed).then(|| {
                let mut message = s.error.clone().unwrap_or_default();
                for step in s.steps.iter().filter(|st| !st.passed) {
                    for f in &step.failures {
                        let _ = writeln!(message, "{}: {f}", step.label);
                    }
                }
                message
            }),
        })
        .collect();
    suite(&mut xml, "scenarios", &scenarios);
    if let Some(codex) = &run.codex {
        let cases: Vec<Case> = codex
            .scenarios
            .iter()
            .map(|s| Case {
                name: s.name.clone(),
                seconds: s.elapsed_ms / 1000.0,
                failure: (!s.passed).then(|| s.failures.join("\n")),
            })
            .collect();
        suite(&mut xml, "codex", &cases);
    }
    // Token and size limits: everything the gate said that is not a step failure.
    let gate_failures: Vec<&str> = run
        .verdict
        .violations
        .iter()
        .filter(|v| !v.starts_with("scenario ") || v.contains("reply tokens grew"))
        .map(String::as_str)
        .collect();
    let gate = Case {
        name: "tokens and limits".into(),
        seconds: 0.0,
        failure: (!gate_failures.is_empty()).then(|| gate_failures.join("\n")),
    };
    suite(&mut xml, "gate", &[gate]);
    xml.push_str("</testsuites>\n");
    xml
}
