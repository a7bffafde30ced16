//! The script cache against a reference model (SPEC §5): generated sequences
//! of up to 200 operations run on a fresh server and on a FIFO queue of 64;
//! after every step the server ran or refused, and appended `[s:...]` or not,
//! exactly as the model says.

use std::collections::VecDeque;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;

use super::{Target, runner, verdict};
use crate::suite::support::script_ref;

const SEEDS: &str = "tests/proptest-regressions/script_cache.txt";
const CAPACITY: usize = 64;

/// One operation on the cache.
#[derive(Debug, Clone)]
enum Op {
    /// Run a new long program.
    Insert,
    /// Rerun program `k` (of those created so far) by its reference.
    Reuse(usize),
    /// Send program `k`'s code again.
    Resubmit(usize),
    /// Send code together with program `k`'s reference.
    CodeAndRef(usize),
    /// A reference that was never issued.
    UnknownRef(u64),
    /// A program under 256 bytes.
    Short,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Insert),
        3 => any::<usize>().prop_map(Op::Reuse),
        2 => any::<usize>().prop_map(Op::Resubmit),
        1 => any::<usize>().prop_map(Op::CodeAndRef),
        1 => any::<u64>().prop_map(Op::UnknownRef),
        1 => Just(Op::Short),
    ]
}

/// Program `i`: prints `P<i>`; long enough to be cached.
fn program(i: usize) -> String {
    format!(
        "echo P{i}\n{}",
        "# this line pads the program past the 256-byte cache threshold\n".repeat(5)
    )
}

fn run_ops(target: Target, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut server = target.start();
    let mut model: VecDeque<usize> = VecDeque::new();
    let mut refs: Vec<Option<String>> = Vec::new();
    let insert = |model: &mut VecDeque<usize>, i: usize| {
        model.push_back(i);
        if model.len() > CAPACITY {
            model.pop_front();
        }
    };
    for (step, op) in ops.iter().enumerate() {
        let here = format!("step {step} {op:?}");
        match op {
            Op::Insert | Op::Resubmit(_) => {
                let i = match op {
                    Op::Resubmit(k) if !refs.is_empty() => k % refs.len(),
                    _ => {
                        refs.push(None);
                        refs.len() - 1
                    }
                };
                let was_cached = model.contains(&i);
                let text = server.ok("execute", json!({"language": "shell", "code": program(i)}));
                prop_assert!(text.starts_with(&format!("P{i}\n")), "{here}: {text}");
                let got = script_ref(&text);
                if was_cached {
                    prop_assert_eq!(got, None, "{}: a cached program got a new reference", here);
                } else {
                    prop_assert!(
                        got.is_some(),
                        "{here}: a new program got no reference: {text}"
                    );
                    refs[i] = got;
                    insert(&mut model, i);
                }
            }
            Op::Reuse(k) | Op::CodeAndRef(k) => {
                if refs.is_empty() {
                    continue;
                }
                let i = k % refs.len();
                let Some(r) = refs[i].clone() else { continue };
                let code_too = matches!(op, Op::CodeAndRef(_));
                let args = if code_too {
                    json!({"language": "shell", "code": "echo SHOULD_NOT_RUN", "script_ref": r})
                } else {
                    json!({"script_ref": r})
                };
                let reply = server.call("execute", args);
                if code_too || !model.contains(&i) {
                    prop_assert!(
                        reply.is_error,
                        "{here}: should have been refused: {}",
                        reply.text
                    );
                    prop_assert!(!reply.text.contains("SHOULD_NOT_RUN"));
                } else {
                    prop_assert!(!reply.is_error, "{here}: {}", reply.text);
                    prop_assert_eq!(reply.text, format!("P{i}\n"), "{}", here);
                }
            }
            Op::UnknownRef(n) => {
                let r = format!("s:{:010x}", n & 0xff_ffff_ffff);
                if refs.iter().flatten().any(|known| *known == r) {
                    continue;
                }
                let reply = server.call("execute", json!({"script_ref": r}));
                prop_assert!(reply.is_error, "{here}: {}", reply.text);
            }
            Op::Short => {
                let text = server.ok(
                    "execute",
                    json!({"language": "shell", "code": "echo short"}),
                );
                prop_assert_eq!(text, "short\n", "{}", here);
            }
        }
    }
    Ok(())
}

pub fn script_cache_property(
    target: Target,
    cases: u32,
    seeds: Option<&'static str>,
) -> Result<(), String> {
    verdict(
        runner(cases, seeds).run(&proptest::collection::vec(op(), 1..200), |ops| {
            run_ops(target, &ops)
        }),
    )
}

#[test]
fn the_script_cache_matches_a_fifo_model_of_64() {
    script_cache_property(Target::Real, 6, Some(SEEDS)).unwrap();
}
