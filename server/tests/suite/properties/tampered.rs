//! Each property must fail when its invariant is broken: the same property
//! functions run against the server behind `tamper.py`, a proxy that breaks
//! one invariant on purpose, and must report a failure.

use super::Target;
use super::budget::{Carrier, budget_property};
use super::references::references_property;
use super::script_cache::script_cache_property;

#[test]
fn the_budget_property_catches_an_overlong_reply() {
    let result = budget_property(Target::Tampered("overflow"), Carrier::Execute, 4, None);
    let why = result.expect_err("the budget property passed against replies 9000 bytes too long");
    assert!(why.contains("budget"), "{why}");
}

#[test]
fn the_budget_property_catches_lost_bytes_in_retrieval() {
    // Cases big enough to be indexed, whose chunks come back one byte short.
    let result = budget_property(
        Target::Tampered("truncate-refs"),
        Carrier::Execute,
        12,
        None,
    );
    assert!(
        result.is_err(),
        "the budget property passed although retrieval lost bytes"
    );
}

#[test]
fn the_references_property_catches_an_incomplete_invalid_list() {
    let result = references_property(Target::Tampered("hide-invalid"), 24, None);
    let why = result.expect_err("the references property passed with an incomplete list");
    assert!(why.contains("listed"), "{why}");
}

#[test]
fn the_script_cache_property_catches_a_missing_reference() {
    let result = script_cache_property(Target::Tampered("drop-script"), 4, None);
    let why = result.expect_err("the script cache property passed without [s:...] suffixes");
    assert!(why.contains("got no reference"), "{why}");
}
