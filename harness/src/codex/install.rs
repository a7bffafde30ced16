//! Provisioning the pinned Codex CLI with npm into a cache folder of the
//! build output (`target/codex-cli`), reused when the right version is there.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The Codex version the gate runs (see `../shared/CODEX.md`).
pub const CODEX_VERSION: &str = "0.171.0";

/// The native binary inside the npm install.
const BINARY: &str =
    "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";

/// The default cache folder: `target/codex-cli` of this repository.
pub fn default_cache() -> PathBuf {
    crate::server::repo_root()
        .map(|root| root.join("target"))
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("codex-cli")
}

fn installed_version(cache: &Path) -> Option<String> {
    let manifest =
        std::fs::read_to_string(cache.join("node_modules/@openai/codex/package.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&manifest).ok()?;
    value["version"].as_str().map(str::to_owned)
}

/// The Codex binary, installing it first when missing or of another version.
/// An exclusive file lock keeps concurrent runs (parallel tests) from
/// installing over each other.
pub fn ensure(cache: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(cache).with_context(|| format!("cannot create {}", cache.display()))?;
    let lock = std::fs::File::create(cache.join(".install.lock"))
        .with_context(|| format!("cannot create a lock in {}", cache.display()))?;
    lock.lock().context("cannot lock the Codex cache")?;
    let binary = cache.join(BINARY);
    if binary.is_file() && installed_version(cache).as_deref() == Some(CODEX_VERSION) {
        return Ok(binary);
    }
    if crate::server::which("npm").is_none() {
        bail!(
            "npm is not on PATH: cannot install @openai/codex@{CODEX_VERSION} (install Node.js and npm)"
        );
    }
    // The native binary comes as an optional dependency: never --omit=optional.
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--prefix",
        ])
        .arg(cache)
        .arg(format!("@openai/codex@{CODEX_VERSION}"))
        .status()
        .context("cannot run npm")?;
    if !status.success() {
        bail!("npm install @openai/codex@{CODEX_VERSION} failed ({status})");
    }
    if !binary.is_file() {
        bail!(
            "the Codex binary is missing after npm install: {}",
            binary.display()
        );
    }
    Ok(binary)
}
