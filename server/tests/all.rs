//! Integration tests: every test spawns the built `quietcontext` binary and
//! talks to it over its real stdio, with a deadline on every read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
