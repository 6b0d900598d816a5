//! What the balance tests share: a fresh temporary folder and the `balance` command.

use std::path::PathBuf;
use std::process::Command;

/// A temporary folder for `name`, unique to this test process, removed if it was left behind.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toybattle-balance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `toybattle balance ARGS --quiet`: whether it succeeded, and its standard error.
pub fn balance(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .arg("balance")
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
