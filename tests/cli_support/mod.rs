//! What the command-line tests share: running the built binary and scratch folders.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn toybattle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .expect("the built binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let o = toybattle(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    stdout(&o)
}

/// Runs a command that must fail and returns its standard error.
pub fn fails(args: &[&str]) -> String {
    let o = toybattle(args);
    assert!(!o.status.success(), "{args:?} should fail");
    stderr(&o)
}

/// A fresh directory for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}
