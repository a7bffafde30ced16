//! Languages and their runtimes: which program runs a language, found once
//! on PATH at start-up, and how a source file becomes a command line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A language `execute` can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    Shell,
    Python,
    JavaScript,
    TypeScript,
    Perl,
    Ruby,
    Go,
    Rust,
    Php,
    R,
}

impl Language {
    pub const ALL: [Language; 10] = [
        Language::Shell,
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Perl,
        Language::Ruby,
        Language::Go,
        Language::Rust,
        Language::Php,
        Language::R,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Language::Shell => "shell",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Perl => "perl",
            Language::Ruby => "ruby",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::Php => "php",
            Language::R => "r",
        }
    }

    /// Parses a language name, accepting common aliases (`bash`, `js`, `py`, …).
    pub fn parse(name: &str) -> Option<Language> {
        let lang = match name.trim().to_ascii_lowercase().as_str() {
            "shell" | "bash" | "sh" => Language::Shell,
            "python" | "python3" | "py" => Language::Python,
            "javascript" | "js" | "node" => Language::JavaScript,
            "typescript" | "ts" => Language::TypeScript,
            "perl" | "pl" => Language::Perl,
            "ruby" | "rb" => Language::Ruby,
            "go" | "golang" => Language::Go,
            "rust" | "rs" => Language::Rust,
            "php" => Language::Php,
            "r" => Language::R,
            _ => return None,
        };
        Some(lang)
    }

    pub fn names() -> String {
        Language::ALL.map(Language::name).join(", ")
    }

    /// The source file a program is written to in its folder.
    pub(super) fn file_name(self) -> &'static str {
        match self {
            Language::Shell => "script.sh",
            Language::Python => "main.py",
            Language::JavaScript => "main.js",
            Language::TypeScript => "main.ts",
            Language::Perl => "main.pl",
            Language::Ruby => "main.rb",
            Language::Go => "main.go",
            Language::Rust => "main.rs",
            Language::Php => "main.php",
            Language::R => "main.R",
        }
    }
}

/// Runtimes found on PATH at start-up.
#[derive(Debug, Clone, Default)]
pub struct Runtimes {
    bash: Option<PathBuf>,
    python: Option<PathBuf>,
    node: Option<PathBuf>,
    /// Node ≥ 22.6 strips TypeScript types itself.
    node_strips_types: bool,
    tsx: Option<PathBuf>,
    ts_node: Option<PathBuf>,
    perl: Option<PathBuf>,
    ruby: Option<PathBuf>,
    go: Option<PathBuf>,
    rustc: Option<PathBuf>,
    php: Option<PathBuf>,
    rscript: Option<PathBuf>,
}

/// A command line ready to spawn.
#[derive(Debug, Clone)]
pub struct CommandLine {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl Runtimes {
    /// Looks each runtime up on `path` (a PATH value). Only file system checks:
    /// nothing is spawned, so start-up stays fast.
    pub fn detect(path: Option<&std::ffi::OsStr>) -> Runtimes {
        let find = |names: &[&str]| names.iter().find_map(|n| which(n, path));
        let node = find(&["node", "nodejs"]);
        let node_strips_types = node.as_deref().is_some_and(node_supports_type_stripping);
        Runtimes {
            bash: find(&["bash"]),
            python: find(&["python3", "python"]),
            node,
            node_strips_types,
            tsx: find(&["tsx"]),
            ts_node: find(&["ts-node"]),
            perl: find(&["perl"]),
            ruby: find(&["ruby"]),
            go: find(&["go"]),
            rustc: find(&["rustc"]),
            php: find(&["php"]),
            rscript: find(&["Rscript"]),
        }
    }

    /// The command that runs `source` (written in `dir`) in `language`, or the
    /// name of the missing runtime.
    pub fn command(&self, language: Language, dir: &Path) -> Result<CommandLine, &'static str> {
        let file: OsString = dir.join(language.file_name()).into();
        let run = |program: &Option<PathBuf>, missing: &'static str, pre: &[&str]| {
            let program = program.clone().ok_or(missing)?;
            let mut args: Vec<OsString> = pre.iter().map(OsString::from).collect();
            args.push(file.clone());
            Ok(CommandLine { program, args })
        };
        match language {
            Language::Shell => run(&self.bash, "bash", &[]),
            Language::Python => run(&self.python, "python3", &[]),
            Language::JavaScript => run(&self.node, "node", &[]),
            Language::TypeScript => {
                if self.node_strips_types {
                    run(
                        &self.node,
                        "node",
                        &["--experimental-strip-types", "--no-warnings"],
                    )
                } else if self.tsx.is_some() {
                    run(&self.tsx, "tsx", &[])
                } else {
                    run(
                        &self.ts_node,
                        "a TypeScript runtime (node >= 22.6, tsx or ts-node)",
                        &[],
                    )
                }
            }
            Language::Perl => run(&self.perl, "perl", &[]),
            Language::Ruby => run(&self.ruby, "ruby", &[]),
            Language::Go => run(&self.go, "go", &["run"]),
            Language::Rust => {
                // Compile in the call's folder, then run the binary in place of the shell.
                let rustc = self.rustc.clone().ok_or("rustc")?;
                let bash = self.bash.clone().ok_or("bash")?;
                let binary: OsString = dir.join("main").into();
                Ok(CommandLine {
                    program: bash,
                    args: vec![
                        "-c".into(),
                        "\"$0\" --edition 2021 -O -o \"$1\" \"$2\" && exec \"$1\"".into(),
                        rustc.into(),
                        binary,
                        file,
                    ],
                })
            }
            Language::Php => run(&self.php, "php", &[]),
            Language::R => run(&self.rscript, "Rscript", &[]),
        }
    }

    /// Languages whose runtime is present.
    pub fn available(&self) -> Vec<Language> {
        let dir = Path::new("/");
        Language::ALL
            .into_iter()
            .filter(|l| self.command(*l, dir).is_ok())
            .collect()
    }
}

/// Finds an executable `name` on `path`.
pub fn which(name: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = path?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Whether this node strips TypeScript types (22.6 and later). Read from the
/// `include/node/node_version.h` installations ship beside `bin/node`, because
/// spawning `node --version` would slow every start-up; without it, assume not.
fn node_supports_type_stripping(node: &Path) -> bool {
    let header = node
        .canonicalize()
        .ok()
        .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
        .map(|prefix| prefix.join("include/node/node_version.h"));
    let Some(text) = header.and_then(|h| std::fs::read_to_string(h).ok()) else {
        return false;
    };
    let number = |key: &str| -> Option<u32> {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("#define {key} ")))
            .and_then(|v| v.trim().parse().ok())
    };
    matches!(
        (number("NODE_MAJOR_VERSION"), number("NODE_MINOR_VERSION")),
        (Some(major), Some(minor)) if major > 22 || (major == 22 && minor >= 6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_parse_and_unknown_names_do_not() {
        assert_eq!(Language::parse("bash"), Some(Language::Shell));
        assert_eq!(Language::parse("JS"), Some(Language::JavaScript));
        assert_eq!(Language::parse("cobol"), None);
        for l in Language::ALL {
            assert_eq!(Language::parse(l.name()), Some(l));
        }
    }

    #[test]
    fn a_missing_runtime_is_named() {
        let none = Runtimes::default();
        let err = none
            .command(Language::Python, Path::new("/tmp"))
            .unwrap_err();
        assert_eq!(err, "python3");
        assert!(none.available().is_empty());
    }

    #[test]
    fn shell_is_found_on_this_machine() {
        let found = Runtimes::detect(std::env::var_os("PATH").as_deref());
        let cmd = found.command(Language::Shell, Path::new("/tmp/x")).unwrap();
        assert!(cmd.program.ends_with("bash"));
        assert_eq!(cmd.args, vec![OsString::from("/tmp/x/script.sh")]);
    }
}
