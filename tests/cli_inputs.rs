//! Every input file has a size cap and must be a regular file (issue 32, point 3): a device
//! that never ends (`/dev/zero`), a FIFO that would block, a directory and a file over its cap
//! are refused at once, with a message naming the file, and the cap and size when it is too
//! large. Each command runs with its memory and time bounded, so that a reader without the
//! bound fails the test instead of filling the machine or hanging it.

mod cli_support;

use cli_support::{path_str, scratch};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Address space given to each command: far more than refusing takes, far less than reading
/// `/dev/zero` whole.
const MEMORY_KIB: u64 = 1024 * 1024;
/// Time given to each command; a refusal takes milliseconds.
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs the binary with bounded memory and time: (success, standard error). A command still
/// running at the deadline is killed and the test fails.
fn bounded(args: &[&str]) -> (bool, String) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch(&format!(
        "inputs-run-{}",
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let err_path = dir.join("stderr");
    let err_file = std::fs::File::create(&err_path).expect("stderr file");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {DEADLINE:?}: it blocks or reads without end");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    (status.success(), err)
}

/// Runs a command that must be refused with every one of `words` in its message.
fn refused(args: &[&str], words: &[&str]) {
    let (success, err) = bounded(args);
    assert!(!success, "{args:?} accepted: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: '{w}' missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// A FIFO with no writer: reading it would block for ever.
fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("fifo");
    let made = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
    path
}

/// A file of `len` spaces: over a cap by one byte when `len` is the cap plus one.
fn spaces(dir: &Path, name: &str, len: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, vec![b' '; len as usize]).expect("write");
    path
}

const MIB: u64 = 1024 * 1024;

#[test]
fn records_are_refused_from_devices_fifos_folders_and_over_their_cap() {
    let dir = scratch("inputs-records");
    let fifo = fifo(&dir);
    let big = spaces(&dir, "big.json", 16 * MIB + 1);
    for command in ["replay", "position"] {
        refused(
            &[command, "/dev/zero"],
            &["game record /dev/zero", "a device, not a regular file"],
        );
        refused(
            &[command, path_str(&fifo)],
            &[path_str(&fifo), "a FIFO (named pipe), not a regular file"],
        );
        refused(
            &[command, path_str(&dir)],
            &[path_str(&dir), "a directory, not a regular file"],
        );
        refused(
            &[command, path_str(&big)],
            &[
                path_str(&big),
                "it holds 16,777,217 bytes, over the cap of 16 MiB for a game record",
            ],
        );
    }
}

#[test]
fn positions_are_refused_from_devices_fifos_and_over_their_cap() {
    let dir = scratch("inputs-positions");
    let fifo = fifo(&dir);
    let big = spaces(&dir, "big.json", MIB + 1);
    for option in ["--position", "--jsonl"] {
        refused(
            &["legal", option, "/dev/zero"],
            &["/dev/zero", "a device, not a regular file"],
        );
        refused(
            &["legal", option, path_str(&fifo)],
            &[path_str(&fifo), "a FIFO (named pipe)"],
        );
    }
    refused(
        &["legal", "--position", path_str(&big)],
        &[
            path_str(&big),
            "it holds 1,048,577 bytes, over the cap of 1 MiB for a position",
        ],
    );
    refused(
        &["analyze", "--position", "/dev/zero", "--bot", "random"],
        &["/dev/zero", "a device, not a regular file"],
    );
}

/// `--jsonl` holds one line at a time: a line over a position's cap is that line's error, and
/// the lines after it are still answered.
#[test]
fn jsonl_refuses_a_line_over_the_cap_and_reads_on() {
    let dir = scratch("inputs-jsonl");
    let position = r#"{"format": "toybattle-position/1", "terrain": "castle_field", "to_move": "blue", "racks": {"blue": ["Kwak"]}}"#;
    let mut text = vec![b'x'; (MIB + 1) as usize];
    text.push(b'\n');
    text.extend_from_slice(position.as_bytes());
    text.push(b'\n');
    let path = dir.join("lines.jsonl");
    std::fs::write(&path, text).expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["legal", "--jsonl", path_str(&path)])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(
        lines[0]["error"],
        "the line is longer than the cap of a position (1 MiB)"
    );
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["decisions"].is_array(), "{}", lines[1]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("1 position(s) refused, on line(s) 1"));
}

#[test]
fn terrain_files_presets_and_saved_games_are_refused_when_not_regular_or_over_their_cap() {
    let dir = scratch("inputs-others");
    let fifo = fifo(&dir);
    let terrains = spaces(&dir, "terrains.json", 4 * MIB + 1);
    let preset = spaces(&dir, "big.toml", 64 * 1024 + 1);
    let out = dir.join("run");
    let out = path_str(&out);
    for file in ["/dev/zero", path_str(&fifo)] {
        refused(
            &["terrains", "--terrain-file", file],
            &["cannot read terrain file", file, "not a regular file"],
        );
        refused(
            &["play", "--load", file],
            &["cannot read saved game", file, "not a regular file"],
        );
        let bots = format!("{file},random");
        refused(
            &["tournament", "--bots", &bots, "--games", "2", "--out", out],
            &["cannot read preset", file, "not a regular file"],
        );
    }
    refused(
        &["terrains", "--terrain-file", path_str(&terrains)],
        &["over the cap of 4 MiB for a terrain file"],
    );
    let bots = format!("{},random", path_str(&preset));
    refused(
        &["tournament", "--bots", &bots, "--games", "2", "--out", out],
        &["it holds 65,537 bytes, over the cap of 64 KiB for a preset"],
    );
}

/// A bot program is hashed to version the bot: a device or FIFO is refused, and a program over
/// the cap is refused from its length, before a byte of it is read (the file here is sparse).
#[test]
fn bot_programs_are_hashed_only_from_regular_files_under_the_cap() {
    let dir = scratch("inputs-programs");
    let fifo = fifo(&dir);
    let huge = dir.join("huge-bot");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len(1024 * MIB + 1))
        .expect("sparse file");
    let out = dir.join("run");
    for program in ["/dev/zero", path_str(&fifo)] {
        let bots = format!("ext:{program},random");
        refused(
            &[
                "tournament",
                "--bots",
                &bots,
                "--games",
                "2",
                "--out",
                path_str(&out),
            ],
            &["cannot read bot program", program, "not a regular file"],
        );
    }
    let bots = format!("ext:{},random", path_str(&huge));
    refused(
        &[
            "tournament",
            "--bots",
            &bots,
            "--games",
            "2",
            "--out",
            path_str(&out),
        ],
        &["it holds 1,073,741,825 bytes, over the cap of 1 GiB for a bot program"],
    );
}
