//! References (SPEC §5 search): over generated corpora and queries, every
//! listed `[r:id]` resolves to exactly the chunk it was listed for, no chunk
//! is listed twice in one reply, previews stay within 600 characters, any mix
//! of valid and invalid references fails closed listing exactly the invalid
//! ones, and no reference survives a server restart.

use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use qc_harness::invariants;
use serde_json::json;

use super::{Target, runner, verdict};
use crate::suite::support::{Server, parse_chunk};

const SEEDS: &str = "tests/proptest-regressions/references.txt";
const WORDS: [&str; 12] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima",
];

/// A generated Markdown document: sections of words.
fn document() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            0usize..WORDS.len(),
            proptest::collection::vec(0usize..WORDS.len(), 1..40),
        ),
        1..8,
    )
    .prop_map(|sections| {
        sections
            .into_iter()
            .map(|(title, words)| {
                let body: Vec<&str> = words.iter().map(|w| WORDS[*w]).collect();
                format!("## {}\n{}\n", WORDS[title], body.join(" "))
            })
            .collect()
    })
}

fn queries() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        proptest::collection::vec(0usize..WORDS.len(), 1..3)
            .prop_map(|ws| ws.iter().map(|w| WORDS[*w]).collect::<Vec<_>>().join(" ")),
        1..5,
    )
}

/// An invalid reference: malformed, or well-formed but unknown.
fn invalid_ref() -> impl Strategy<Value = Invalid> {
    prop_oneof![
        "[a-z]{0,6}".prop_map(Invalid::Text),
        "r:[0-9]{1,5}".prop_map(Invalid::Text),
        (0u32..1_000_000).prop_map(Invalid::Unknown),
    ]
}

#[derive(Debug, Clone)]
enum Invalid {
    Text(String),
    /// `r:` and six digits, replaced by a number no listing produced.
    Unknown(u32),
}

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

type Case = (Vec<String>, Vec<String>, bool, u64, Vec<(Invalid, usize)>);

fn one_case(
    server: &mut Server,
    (docs, queries, preview, limit, invalid): Case,
) -> Result<(), TestCaseError> {
    let mut sources = BTreeMap::new();
    for (i, doc) in docs.iter().enumerate() {
        let source = format!("d{i}");
        let r = server
            .client
            .call_tool("index", json!({"source": source, "content": doc}))
            .map_err(fail)?;
        prop_assert!(!r.is_error, "{}", r.text);
        sources.insert(source, doc.clone());
    }
    let reply = server
        .client
        .call_tool(
            "search",
            json!({"queries": queries, "preview": preview, "limit": limit}),
        )
        .map_err(fail)?;
    prop_assert!(!reply.is_error, "{}", reply.text);
    invariants::refs_listed_once(&reply.text).map_err(fail)?;
    invariants::previews_bounded(&reply.text).map_err(fail)?;
    // Each listed reference fetches the chunk it was listed for.
    let mut valid = Vec::new();
    for line in reply
        .text
        .lines()
        .filter(|l| l.starts_with("[r:") && l.contains("] "))
    {
        let (reference, rest) = line[1..].split_once("] ").ok_or_else(|| fail(line))?;
        let fetched = server
            .client
            .call_tool("search", json!({"refs": [reference]}))
            .map_err(fail)?;
        prop_assert!(!fetched.is_error, "{reference}: {}", fetched.text);
        let (title_and_source, body) = parse_chunk(&fetched.text);
        let (title, source) = (
            title_and_source.clone(),
            rest.rsplit_once(" (")
                .map(|x| x.1.trim_end_matches(')'))
                .unwrap_or(""),
        );
        prop_assert!(
            rest.starts_with(&title),
            "listed {rest:?}, fetched title {title:?}"
        );
        let doc = sources
            .get(source)
            .ok_or_else(|| fail(format!("unknown source in {line}")))?;
        prop_assert!(
            doc.contains(&body),
            "{reference}: fetched text is not part of {source}"
        );
        valid.push(reference.to_owned());
    }
    // Any mix of valid and invalid references fails closed, naming exactly the invalid.
    let known: HashSet<&String> = valid.iter().collect();
    let mut asked = valid.clone();
    let mut wanted_invalid = Vec::new();
    for (bad, at) in &invalid {
        let text = match bad {
            Invalid::Text(t) => t.clone(),
            Invalid::Unknown(n) => {
                let mut n = *n;
                while known.contains(&format!("r:{n:06}")) {
                    n = (n + 1) % 1_000_000;
                }
                format!("r:{n:06}")
            }
        };
        let at = at % (asked.len() + 1);
        asked.insert(at, text);
    }
    for r in &asked {
        if !known.contains(r) {
            wanted_invalid.push(r.clone());
        }
    }
    if !asked.is_empty() && asked.len() <= 50 {
        let reply = server
            .client
            .call_tool("search", json!({"refs": asked}))
            .map_err(fail)?;
        if wanted_invalid.is_empty() {
            prop_assert!(!reply.is_error, "{}", reply.text);
        } else {
            prop_assert!(reply.is_error, "invalid refs were accepted: {}", reply.text);
            invariants::lists_exactly(&reply.text, &wanted_invalid).map_err(fail)?;
        }
    }
    // References die with the process.
    if !valid.is_empty() {
        let old = std::mem::replace(server, Target::Real.start());
        drop(old);
        let reply = server
            .client
            .call_tool("search", json!({"refs": valid}))
            .map_err(fail)?;
        prop_assert!(
            reply.is_error,
            "references survived a restart: {}",
            reply.text
        );
        invariants::lists_exactly(&reply.text, &valid).map_err(fail)?;
    }
    Ok(())
}

pub fn references_property(
    target: Target,
    cases: u32,
    seeds: Option<&'static str>,
) -> Result<(), String> {
    let strategy = (
        proptest::collection::vec(document(), 1..5),
        queries(),
        any::<bool>(),
        1u64..=20,
        proptest::collection::vec((invalid_ref(), any::<usize>()), 0..4),
    );
    verdict(runner(cases, seeds).run(&strategy, |case| {
        let mut server = target.start();
        one_case(&mut server, case)
    }))
}

#[test]
fn references_resolve_exactly_fail_closed_and_expire() {
    references_property(Target::Real, 24, Some(SEEDS)).unwrap();
}
