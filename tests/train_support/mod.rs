//! Helpers of the tests of the fitted models' commands: a folder of published records and a
//! run of `toybattle train`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder with the first `n` Castle Field records of the published strong study (normal
/// variant), unique to this test process and `tag`.
pub fn some_records(tag: &str, n: usize) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results/balance/study/runs/strong-normal/records/castle_field");
    let dir = std::env::temp_dir().join(format!("toybattle-train-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<_> = std::fs::read_dir(&from)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    for name in names.into_iter().take(n) {
        std::fs::copy(from.join(&name), dir.join(&name)).unwrap();
    }
    dir
}

/// `toybattle train COMMAND ARGS…`, run to its end.
pub fn train(command: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["train", command])
        .args(args)
        .output()
        .unwrap()
}
