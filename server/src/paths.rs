//! The path boundary shared by `index` and `exec-file`: a path resolves
//! against the working directory, symlinks and `..` included, and must stay
//! inside it unless the operator allows otherwise.

use std::path::PathBuf;

use crate::config::Config;
use crate::error::ToolError;

/// The canonical path `raw` names, if it exists and is allowed.
pub fn resolve(config: &Config, raw: &str, field: &str) -> Result<PathBuf, ToolError> {
    let joined = config.workdir.join(raw);
    let canonical = joined.canonicalize().map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            _ => e.to_string(),
        };
        ToolError::failed(format!("{field}: {raw}: {why}"))
    })?;
    if !config.allow_outside_workdir && !canonical.starts_with(&config.workdir) {
        return Err(ToolError::failed(format!(
            "{field}: {raw} is outside the working directory {} (the operator may allow it with --allow-outside-workdir)",
            config.workdir.display()
        )));
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &std::path::Path) -> Config {
        Config::new(dir.canonicalize().unwrap())
    }

    #[test]
    fn inside_paths_resolve_and_escapes_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir(&work).unwrap();
        std::fs::write(work.join("a.txt"), "a").unwrap();
        std::fs::write(root.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret.txt"), work.join("link")).unwrap();
        let cfg = config(&work);
        assert!(resolve(&cfg, "a.txt", "path").is_ok());
        assert!(
            resolve(&cfg, "./sub/../a.txt", "path").is_err(),
            "sub does not exist"
        );
        for escape in ["../secret.txt", "link"] {
            let err = resolve(&cfg, escape, "path").unwrap_err().to_string();
            assert!(
                err.contains("outside the working directory"),
                "{escape}: {err}"
            );
        }
        let abs = root.path().join("secret.txt");
        assert!(resolve(&cfg, abs.to_str().unwrap(), "path").is_err());
        let missing = resolve(&cfg, "nope.txt", "path").unwrap_err().to_string();
        assert_eq!(missing, "path: nope.txt: no such file or directory");
        let mut open = cfg.clone();
        open.allow_outside_workdir = true;
        assert!(resolve(&open, "../secret.txt", "path").is_ok());
    }
}
