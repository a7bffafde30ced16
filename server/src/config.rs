//! Configuration, parsed and validated once at start-up; nothing downstream
//! reads environment variables.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::fetch::FetchPolicy;
use crate::store::StoreConfig;

/// Everything the server needs to know about its operator's choices.
#[derive(Debug, Clone)]
pub struct Config {
    /// The working directory of programs, and the boundary for `index` and `exec-file` paths.
    pub workdir: PathBuf,
    pub store: StoreConfig,
    /// Let `index` and `exec-file` read paths outside `workdir`.
    pub allow_outside_workdir: bool,
    /// The environment programs start from: the allow-listed part of the
    /// server's own (see `runner::Runner::filter_env`), read once in `main`.
    pub program_env: Vec<(OsString, OsString)>,
    /// `fetch-index` limits and address strictness.
    pub fetch: FetchPolicy,
    /// Run programs without network access when possible (`--isolate-net`).
    pub isolate_net: bool,
    /// Tool calls running at once; further calls wait their turn.
    pub max_concurrent_calls: usize,
    /// Where temporary files go: the store (unless `--db`), spill files, and
    /// each program's private `TMPDIR`.
    pub temp_root: PathBuf,
    /// A program printing more than this many bytes is stopped.
    pub capture_limit: u64,
}

impl Config {
    /// Defaults for `workdir`: no persistent store, nothing outside it allowed,
    /// the system's temporary folder.
    pub fn new(workdir: PathBuf) -> Self {
        Self {
            workdir,
            store: StoreConfig::default(),
            allow_outside_workdir: false,
            program_env: Vec::new(),
            fetch: FetchPolicy::default(),
            isolate_net: false,
            max_concurrent_calls: 16,
            temp_root: std::env::temp_dir(),
            capture_limit: crate::runner::DEFAULT_CAPTURE_LIMIT,
        }
    }

    /// Parses `QC_ENV_PASSTHROUGH`: names separated by commas or whitespace.
    pub fn parse_passthrough(value: &str) -> Vec<String> {
        value
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passthrough_names_split_on_commas_and_spaces() {
        assert_eq!(
            Config::parse_passthrough("A, B  C,,"),
            vec!["A".to_string(), "B".into(), "C".into()]
        );
    }
}
