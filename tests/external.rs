//! External bots (`toybattle-ext/1`, docs/tournament.md): a misbehaving program is bounded (a
//! line without end is a forfeit, not a memory leak; the processes it starts end with the game),
//! and the protocol gives a bot what it needs (game id, deal seed, terrain graph, its stderr in
//! a log file, a start-up wait of its own).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use toybattle::bot::external::ExternalBot;
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::random::RandomBot;
use toybattle::bot::Player;
use toybattle::record::GameRecord;
use toybattle::rules::{Deal, Game, Variant};

fn python3() -> bool {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        eprintln!("skipped: python3 is not installed");
    }
    found
}

/// A folder of its own for each test, in the temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toybattle-external-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An executable Python script with `body` after the imports.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/usr/bin/env python3\nimport json, os, subprocess, sys, time\n{body}"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Plays one game on Castle Field: `bot` as blue against a random bot; returns the record and
/// the reason of the external bot's forfeit, if any.
fn play_against_random(bot: ExternalBot, seed: u64) -> (GameRecord, Option<String>) {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let failure = bot.failure();
    let mut blue = Player::Fair(Box::new(bot));
    let mut red = Player::Fair(Box::new(RandomBot::new("random")));
    let record = play_game(
        &game,
        &Deal::from_seed(seed),
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    )
    .record;
    drop(blue);
    let reason = failure.lock().unwrap().clone();
    (record, reason)
}

/// Answers the first legal decision of every `decide`.
const PLAYS_FIRST_LEGAL: &str = "for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'decide':\n        print(json.dumps({'decision': m['legal'][0]}), flush=True)\n    elif m['type'] == 'quit':\n        break\n";

/// The peak resident memory of this process so far, in KiB (`VmHWM` of /proc/self/status).
fn peak_memory_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_line_without_end_is_a_forfeit_and_memory_stays_bounded() {
    if !python3() {
        return;
    }
    let dir = temp_dir("endless");
    let program = script(
        &dir,
        "endless.py",
        "chunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n",
    );
    let before = peak_memory_kib();
    let started = Instant::now();
    let bot = ExternalBot::new("endless", &program, Duration::from_secs(5));
    let (record, reason) = play_against_random(bot, 1);
    let grown = peak_memory_kib().saturating_sub(before);
    // The engine keeps at most one line of 64 KiB; allow for the threads and the pipes.
    assert!(grown < 16 * 1024, "peak memory grew by {grown} KiB");
    assert_eq!(record.result.end, "forfeit");
    let reason = reason.unwrap();
    assert!(reason.contains("longer than 64 KiB"), "{reason}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the forfeit comes with the long line, not with the timeout"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// True when process `pid` is gone (or a zombie, which holds no resources but its entry).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn processes_a_bot_starts_end_with_the_game() {
    if !python3() {
        return;
    }
    let dir = temp_dir("child");
    let pid_file = dir.join("child.pid");
    let program = script(
        &dir,
        "starts-a-child.py",
        &format!(
            "child = subprocess.Popen(['sleep', '1000'])\nopen({:?}, 'w').write(str(child.pid))\n{PLAYS_FIRST_LEGAL}",
            pid_file.display().to_string()
        ),
    );
    let bot = ExternalBot::new("parent", &program, Duration::from_secs(10));
    let (record, reason) = play_against_random(bot, 2);
    assert_eq!(reason, None, "{record:?}");
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !process_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let gone = process_gone(pid);
    if !gone {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    assert!(gone, "the bot's child {pid} outlived the game");
    std::fs::remove_dir_all(dir).unwrap();
}
