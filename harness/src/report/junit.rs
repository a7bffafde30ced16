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

pub fn render(run: &RunReport) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"qc-harness\">\n",
    );
    let failed = run.scenarios.iter().filter(|s| !s.passed).count();
    let seconds: f64 = run.scenarios.iter().map(|s| s.elapsed_ms).sum::<f64>() / 1000.0;
    let _ = writeln!(
        xml,
        "  <testsuite name=\"scenarios\" tests=\"{}\" failures=\"{failed}\" time=\"{seconds:.3}\">",
        run.scenarios.len()
    );
    for s in &run.scenarios {
        let _ = write!(
            xml,
            "    <testcase classname=\"scenarios\" name=\"{}\" time=\"{:.3}\"",
            escape(&s.name),
            s.elapsed_ms / 1000.0
        );
        if s.passed {
            xml.push_str("/>\n");
            continue;
        }
        let mut message = s.error.clone().unwrap_or_default();
        for step in s.steps.iter().filter(|st| !st.passed) {
            for f in &step.failures {
                let _ = writeln!(message, "{}: {f}", step.label);
            }
        }
        let _ = writeln!(
            xml,
            ">\n      <failure message=\"scenario failed\">{}</failure>\n    </testcase>",
            escape(&message)
        );
    }
    xml.push_str("  </testsuite>\n");
    if let Some(codex) = &run.codex {
        let failed = codex.scenarios.iter().filter(|s| !s.passed).count();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"codex\" tests=\"{}\" failures=\"{failed}\" time=\"{:.3}\">",
            codex.scenarios.len(),
            codex.elapsed_ms / 1000.0
        );
        for s in &codex.scenarios {
            let _ = write!(
                xml,
                "    <testcase classname=\"codex\" name=\"{}\" time=\"{:.3}\"",
                escape(&s.name),
                s.elapsed_ms / 1000.0
            );
            if s.passed {
                xml.push_str("/>\n");
            } else {
                let _ = writeln!(
                    xml,
                    ">\n      <failure message=\"codex scenario failed\">{}</failure>\n    </testcase>",
                    escape(&s.failures.join("\n"))
                );
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    let gate_failures: Vec<&String> = run
        .verdict
        .violations
        .iter()
        .filter(|v| !v.starts_with("scenario ") || v.contains("reply tokens grew"))
        .collect();
    let _ = writeln!(
        xml,
        "  <testsuite name=\"gate\" tests=\"1\" failures=\"{}\">",
        usize::from(!gate_failures.is_empty())
    );
    if gate_failures.is_empty() {
        xml.push_str("    <testcase classname=\"gate\" name=\"tokens and limits\"/>\n");
    } else {
        let text: Vec<&str> = gate_failures.iter().map(|s| s.as_str()).collect();
        let _ = writeln!(
            xml,
            "    <testcase classname=\"gate\" name=\"tokens and limits\">\n      <failure message=\"gate violations\">{}</failure>\n    </testcase>",
            escape(&text.join("\n"))
        );
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}
