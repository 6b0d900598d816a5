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

/// Runs the binary to its end: (success, standard output, standard error).
pub fn run_cli(args: &[&str]) -> (bool, String, String) {
    let o = toybattle(args);
    (o.status.success(), stdout(&o), stderr(&o))
}

// ----- Tournament runs and external bots ---------------------------------------------------------

use std::sync::Arc;
use toybattle::terrain;
use toybattle::tournament::store::{read_games, GameLine, GAMES_FILE};
use toybattle::tournament::{run_tournament, RunConfig, RunOptions, RunReport, TournamentError};

/// Whether python3 is there to run the external-bot scripts; says so when it is not.
pub fn python3() -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: python3 is not installed");
    }
    found
}

/// An executable Python script `name` in `dir` (created if needed), with `body` after the
/// imports of json, os, subprocess, sys and time.
pub fn python_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).expect("script directory");
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/usr/bin/env python3\nimport json, os, subprocess, sys, time\n{body}"),
    )
    .expect("script written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("script made executable");
    path
}

/// Runs (or resumes) the tournament of `config` in `out` on the shipped terrains, quietly, with
/// `concurrency` games at once and every invariant checked.
pub fn run_tournament_in(
    config: &RunConfig,
    out: &Path,
    concurrency: usize,
) -> Result<RunReport, TournamentError> {
    let terrains = config
        .terrains
        .iter()
        .map(|k| Arc::new(terrain::builtin(k).expect("a shipped terrain").clone()))
        .collect();
    run_tournament(RunOptions {
        config: config.clone(),
        terrains,
        out: out.to_path_buf(),
        concurrency: Some(concurrency),
        quiet: true,
        check: true,
        reuse: Vec::new(),
    })
}

/// The games counted in run folder `dir`, in schedule order.
pub fn games_of(dir: &Path) -> Vec<GameLine> {
    let run = std::fs::read_to_string(dir.join("run.json")).expect("run.json");
    let config: RunConfig = serde_json::from_str(&run).expect("run settings");
    let mut games = read_games(&dir.join(GAMES_FILE), &config.run_id())
        .expect("games.jsonl")
        .games;
    games.sort_by_key(GameLine::key);
    games
}
