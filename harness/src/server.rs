//! Which server to run: `--server CMD`, else `QC_SERVER`, else the release
//! build of this repository (built with cargo first, which is a no-op when it
//! is up to date).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::client::ServerCommand;

/// The repository root: the nearest ancestor with `server/Cargo.toml`.
pub fn repo_root() -> Option<PathBuf> {
    let here = std::env::current_dir().ok()?;
    here.ancestors()
        .find(|dir| dir.join("server/Cargo.toml").is_file() && dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Resolves the server command.
pub fn resolve(flag: Option<&str>) -> anyhow::Result<ServerCommand> {
    if let Some(cmd) = flag.filter(|s| !s.trim().is_empty()) {
        return ServerCommand::parse(cmd)
            .map(absolute)
            .context("--server is empty");
    }
    if let Ok(cmd) = std::env::var("QC_SERVER")
        && !cmd.trim().is_empty()
    {
        return ServerCommand::parse(&cmd)
            .map(absolute)
            .context("QC_SERVER is empty");
    }
    let Some(root) = repo_root() else {
        bail!("no server given: pass --server CMD or set QC_SERVER (or run inside the repository)");
    };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "quietcontext"])
        .current_dir(&root)
        .status()
        .context("cannot run cargo to build the server")?;
    if !status.success() {
        bail!("cargo build of the server failed ({status})");
    }
    let binary = target_dir(&root).join("release/quietcontext");
    if !binary.is_file() {
        bail!("{} is missing after the build", binary.display());
    }
    Ok(ServerCommand::new(binary))
}

/// Servers run in their own working directories: a relative program path
/// (`target/release/x`) is made absolute first; a bare name stays for PATH lookup.
pub fn absolute(mut cmd: ServerCommand) -> ServerCommand {
    if cmd.program.is_relative()
        && cmd.program.components().count() > 1
        && let Ok(here) = std::env::current_dir()
    {
        cmd.program = here.join(&cmd.program);
    }
    cmd
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { root.join(p) })
        .unwrap_or_else(|| root.join("target"))
}

/// Finds an executable on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
