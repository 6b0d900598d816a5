//! `toybattle play` driven through a pipe, as a script plays it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `toybattle play ARGS` with `input` on standard input.
fn play(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toybattle-play-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_scripted_game_against_beginner_plays_to_its_end_and_saves() {
    let record = temp("end.json");
    let mut script = "1\n".repeat(600);
    script += &format!("save {}\nquit\n", record.display());
    let out = play(
        &[
            "--terrain",
            "tropical_pool",
            "--level",
            "beginner",
            "--seed",
            "9",
        ],
        &script,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("You win (") || stdout.contains("beginner wins ("),
        "no result in:\n{stdout}"
    );
    assert!(stdout.contains("there is no decision of yours to take now"));
    assert!(
        !stdout.contains('\x1b'),
        "no colours when stdout is not a terminal"
    );
    let replay = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .arg("replay")
        .arg(&record)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert!(text(&replay.stdout).contains("blue human vs red beginner"));
}

#[test]
fn bad_input_gets_a_message_and_the_game_goes_on_until_end_of_input() {
    let script = "dance\n0\n9999\nplace Roxy 99\nsave\nundo\nhelp\n1\n";
    let out = play(
        &["--level", "beginner", "--seed", "4", "--first", "blue"],
        script,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for expected in [
        "unknown command 'dance'",
        "no decision 0: choose a number from 1 to",
        "no decision 9999",
        "node 99 in 'place Roxy 99' is not on Castle Field",
        "save needs a file name",
        "cannot undo: nothing to undo",
        "Commands:",
        "you: ",
        "end of input",
    ] {
        assert!(
            stdout.contains(expected),
            "'{expected}' missing in:\n{stdout}"
        );
    }
}

#[test]
fn a_saved_game_resumes_and_a_corrupt_file_is_refused() {
    let record = temp("mid.json");
    let script = format!("1\n1\nsave {}\nquit\n", record.display());
    let first = play(
        &["--level", "beginner", "--seed", "12", "--seat", "red"],
        &script,
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let resumed = play(&["--load", record.to_str().unwrap()], "board\nquit\n");
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let stdout = text(&resumed.stdout);
    assert!(stdout.contains("Resumed the game"), "{stdout}");
    assert!(
        stdout.contains("you: red against blue (beginner)"),
        "{stdout}"
    );

    let corrupt = temp("corrupt.json");
    std::fs::write(
        &corrupt,
        "{\"format\": \"toybattle-record/1\", \"steps\": [",
    )
    .unwrap();
    let out = play(&["--load", corrupt.to_str().unwrap()], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not a game record"), "{stderr}");
}

#[test]
fn help_lists_the_levels_and_never_the_cheating_bot() {
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["play", "--help"])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    for level in ["beginner", "casual", "strong", "strongest", "Ladder"] {
        assert!(stdout.contains(level), "{level} missing in:\n{stdout}");
    }
    assert!(!stdout.contains("cheat"));
}
