//! `toybattle play` driven through a pipe, as a script plays it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `toybattle play ARGS` with `input` on standard input.
fn play(args: &[&str], input: &str) -> Output {
    let mut child = command()
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

/// The binary, run in the test's folder with its own data folder (saves, shown deals).
fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toybattle"));
    command
        .current_dir(temp(""))
        .env("TOYBATTLE_DATA", temp("data"));
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toybattle-play-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const SEED_9: [&str; 6] = [
    "--terrain",
    "tropical_pool",
    "--level",
    "beginner",
    "--seed",
    "9",
];

/// Where the result line starts in a game's output.
fn result_at(stdout: &str) -> usize {
    stdout
        .find("You win (")
        .or(stdout.find("beginner wins ("))
        .unwrap_or_else(|| panic!("no result in:\n{stdout}"))
}

#[test]
fn a_scripted_game_against_beginner_plays_to_its_end_and_saves() {
    // A script that answers 1 to everything: the program ends at its first line after the end.
    let out = play(&SEED_9, &("review\n".to_string() + &"1\n".repeat(600)));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let end = result_at(&stdout);
    assert!(
        stdout[end..].contains("The game is over: leaving"),
        "{}",
        &stdout[end..]
    );
    assert!(!stdout[end..].contains("there is no decision"));
    // The lines the game read: one per prompt before the result.
    let read = stdout[..end].matches("> ").count();

    // The same game with review and save after the end.
    let record = temp("end.json");
    let mut script = "review\n".to_string() + &"1\n".repeat(read - 1);
    script += &format!("review\nsave {}\nquit\n", record.display());
    let out = play(&SEED_9, &script);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before_end = result_at(&stdout);
    // The computer's candidates only after the end: beginner does not search.
    assert!(stdout[..before_end].contains("shown once the game is over"));
    assert!(stdout[before_end..].contains("The computer's decisions and what it weighed"));
    assert!(stdout[before_end..].contains("(no search)"));
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

/// `yes 1 | toybattle play`: endless input ends with the game (it printed forever, 7.8 GB in 11
/// minutes).
#[test]
fn endless_piped_input_ends_when_the_game_is_over() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["play", "--level", "beginner", "--seed", "3"])
        .current_dir(temp(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // Writes until the program stops reading (a broken pipe).
    std::thread::spawn(move || while stdin.write_all(&[b'1', b'\n'].repeat(512)).is_ok() {});
    let lines = lines_of(child.stdout.take().unwrap());
    let mut seen = String::new();
    wait_for(&lines, &mut seen, "The game is over: leaving");
    let status = child.wait().unwrap();
    assert!(status.success(), "{seen}");
}

/// The board of the whole game: a legend once, the taker of every region, one picture a turn.
#[test]
fn the_board_has_a_legend_names_region_takers_and_is_drawn_once_a_turn() {
    let args = [
        "--terrain",
        "tropical_pool",
        "--level",
        "beginner",
        "--seed",
        "3",
    ];
    let out = play(&args, &"1\n".repeat(600));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(stdout.matches("Legend: ").count(), 1, "{stdout}");
    for words in [
        "[41] [42] red HQs",
        "R6=1 = region 6",
        "n:B5 = a blue tile",
        "12*, 22*: special base: only 1, 2, X may be placed here",
    ] {
        assert!(stdout.contains(words), "'{words}' missing");
    }
    let taken = stdout
        .lines()
        .rfind(|l| l.starts_with("Medals ") && !l.ends_with("regions taken: none"))
        .unwrap_or_else(|| panic!("no region taken in:\n{stdout}"));
    assert!(
        taken.contains(" by you (blue, ") || taken.contains(" by the computer (red, "),
        "{taken}"
    );
    assert!(
        taken.contains(" medal") && taken.contains(", turn "),
        "{taken}"
    );
    // Each board starts with its turn's heading; the picture (with the red HQs' line) comes
    // once a turn, later decisions of the same turn get the short board.
    let mut pictures = std::collections::HashMap::new();
    for board in stdout.split("\n— Tropical Pool (normal), turn ").skip(1) {
        let turn: u16 = board.split(' ').next().unwrap().parse().unwrap();
        if board.lines().take(4).any(|l| l.contains("[41]")) {
            *pictures.entry(turn).or_insert(0) += 1;
        }
    }
    assert!(pictures.len() > 3);
    assert!(pictures.values().all(|&n| n == 1), "{pictures:?}");
}

/// A hint's candidates are lettered: a letter takes the hint's decision, a number stays the
/// decision list's.
#[test]
fn a_hint_is_taken_by_its_letter_and_a_number_is_still_a_decision() {
    let args = [
        "--terrain",
        "castle_field",
        "--level",
        "beginner",
        "--seed",
        "5",
        "--first",
        "blue",
    ];
    let out = play(&args, "hint\na\nquit\n");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hint = &stdout[stdout.find("Hint (").expect("a hint")..];
    let first = hint
        .lines()
        .find_map(|l| l.strip_prefix("  a) "))
        .unwrap_or_else(|| panic!("no candidate a in:\n{hint}"));
    let decision = first.split("  ").next().unwrap().trim();
    assert!(
        hint.contains(&format!("you: {decision}\n")),
        "{decision} not taken:\n{hint}"
    );
    assert!(!hint.contains(" 1. "), "hint numbers are gone");

    let out = play(&args, "hint\n1\nquit\n");
    let stdout = text(&out.stdout);
    let board = &stdout[..stdout.find("Hint (").unwrap()];
    let number_1 = board
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("1  "))
        .unwrap()
        .trim();
    assert!(stdout.contains(&format!("you: {number_1}\n")), "{stdout}");
}

#[test]
fn undo_says_what_it_took_back() {
    let args = [
        "--terrain",
        "volcanic_jungle",
        "--level",
        "beginner",
        "--first",
        "blue",
        "--seed",
        "14",
    ];
    let out = play(&args, "place Jumbo 13\nundo\nquit\n");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Taken back: your place Jumbo 13 and the computer's replies ("),
        "{stdout}"
    );
}

/// A scripted game with a hint (its candidates printed with the human's chances) and an undo
/// that takes back the human's first decision and the computer's reply, played on to the end;
/// the saved record keeps the hint and the undo.
#[test]
fn a_scripted_game_with_a_hint_and_an_undo_plays_to_its_end() {
    let record = temp("hint-undo.json");
    // A placement, taken by notation: unlike a draw, it shows no chance outcome before the reply.
    // Saved once the first decision is taken again: a script's lines after the end are not read.
    let script =
        format!("hint\nplace Jumbo 13\nundo\n1\nsave {}\n", record.display()) + &"1\n".repeat(600);
    let out = play(
        &[
            "--terrain",
            "volcanic_jungle",
            "--level",
            "beginner",
            "--seat",
            "blue",
            "--first",
            "blue",
            "--seed",
            "14",
        ],
        &script,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hint = stdout.find("Hint (").expect("a hint");
    let first = &stdout[hint..];
    assert!(
        first.contains("  a) ") && first.contains("your chances"),
        "no candidates in:\n{first}"
    );
    let undo = stdout
        .find("Taken back: your place Jumbo 13")
        .unwrap_or_else(|| panic!("no undo in:\n{stdout}"));
    assert!(hint < undo);
    assert!(!stdout.contains("cannot undo"), "{stdout}");
    assert!(
        stdout[undo..].contains("You win (") || stdout[undo..].contains("beginner wins ("),
        "no result after the undo in:\n{stdout}"
    );
    let saved: toybattle::record::GameRecord =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let notes = saved.session.unwrap();
    assert_eq!(notes.hints.len(), 1);
    assert_eq!(notes.hints[0].step, 0);
    assert_eq!(notes.undos.len(), 1);
    assert_eq!(notes.undos[0].step, 0);
    assert!(
        notes.undos[0].taken_back.len() > 1,
        "the reply is taken back too"
    );
    assert_eq!(notes.undos[0].taken_back[0], "place Jumbo 13");
    assert_eq!(saved.steps[0], "draw", "decision 1 after the undo");
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
        "end of input: leaving the game, saved to ",
    ] {
        assert!(
            stdout.contains(expected),
            "'{expected}' missing in:\n{stdout}"
        );
    }
    assert!(saved_path(&stdout).exists());
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

    // Another format: a position file.
    let position = temp("position.json");
    std::fs::write(&position, "{\"format\": \"toybattle-position/1\"}").unwrap();
    let out = play(&["--load", position.to_str().unwrap()], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("toybattle-position/1"), "{stderr}");

    // A game played on other terrain data (a changed terrain file): refused, not resumed.
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    saved["terrain_fingerprint"] = serde_json::json!("0123456789abcdef");
    let other = temp("other-terrain.json");
    std::fs::write(&other, saved.to_string()).unwrap();
    let out = play(&["--load", other.to_str().unwrap()], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("other terrain data than this program's Castle Field"),
        "{stderr}"
    );
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

/// Reads the child's standard output on a thread, line by line, into a channel.
fn lines_of(out: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(out)).map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Waits for a line of the child's output that contains `what`, and returns all lines so far.
fn wait_for(lines: &std::sync::mpsc::Receiver<String>, seen: &mut String, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !seen.contains(what) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => *seen += &(line + "\n"),
            Err(_) => panic!("'{what}' never came; the output so far:\n{seen}"),
        }
    }
}

fn interrupt(child: &std::process::Child) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill only sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
}

/// A real SIGINT while the computer thinks stops its search and the game goes on at the prompt;
/// a second one at the prompt leaves the game, saved to a file that loads again.
#[test]
fn ctrl_c_stops_the_computers_thinking_then_leaves_the_game_saved() {
    let mut child = command()
        .args([
            "play",
            "--level",
            "strongest",
            "--seat",
            "red",
            "--first",
            "blue",
        ])
        .args(["--seed", "31"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let _keep_open = child.stdin.take();
    let lines = lines_of(child.stdout.take().unwrap());
    let mut seen = String::new();
    wait_for(&lines, &mut seen, "is thinking");
    interrupt(&child);
    wait_for(&lines, &mut seen, "Stopped the computer's thinking");
    std::thread::sleep(std::time::Duration::from_millis(200)); // the prompt is up
    interrupt(&child);
    let status = child.wait().unwrap();
    wait_for(&lines, &mut seen, "saved to ");
    assert_eq!(status.code(), Some(130), "{seen}");
    let saved = std::fs::read_to_string(saved_path(&seen)).unwrap();
    let session = toybattle::session::Session::load_json(&saved).expect("the saved game loads");
    assert!(!session.is_over());
}

/// The file a "saved to FILE:" line names.
fn saved_path(output: &str) -> std::path::PathBuf {
    let after = output.split("saved to ").nth(1).expect("a 'saved to' line");
    let path = after.split(": resume").next().unwrap().trim();
    assert!(
        path.starts_with(temp("data").join("saves").to_str().unwrap()),
        "saved in the data folder's saves: {path}"
    );
    std::path::PathBuf::from(path)
}

/// A finished game cannot be taken back into play: its end shows the deal (docs/play.md).
#[test]
fn undo_after_the_game_is_over_is_refused_in_the_terminal() {
    // As many 1s as the game reads (a script's further lines after the end end the program).
    let out = play(&SEED_9, &"1\n".repeat(600));
    let stdout = text(&out.stdout);
    let read = stdout[..result_at(&stdout)].matches("> ").count();
    let script = "1\n".repeat(read) + "undo\nquit\n";
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
    let end = stdout
        .find(" wins (")
        .or_else(|| stdout.find("You win ("))
        .expect("an end");
    assert!(
        stdout[end..].contains("cannot undo: the game is over"),
        "{}",
        &stdout[end..]
    );
    assert!(!stdout[end..].contains("Taken back"));
}

/// Save, load the save in a second terminal while the first goes on, resign there: the first
/// game ends without a winner, and the save no longer resumes.
#[test]
fn a_loaded_copy_resigned_elsewhere_ends_the_game_in_the_terminal() {
    let file = temp("copied.json");
    let first = play(
        &["--level", "beginner", "--first", "red"],
        &format!("save {}\nquit\n", file.display()),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let mut original = command()
        .args(["play", "--load", file.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = original.stdin.take().unwrap();
    let lines = lines_of(original.stdout.take().unwrap());
    let mut seen = String::new();
    wait_for(&lines, &mut seen, "Resumed the game");

    let copy = play(&["--load", file.to_str().unwrap()], "resign\nquit\n");
    assert!(copy.status.success(), "{}", text(&copy.stderr));
    assert!(text(&copy.stdout).contains("beginner wins (resigned)"));

    input.write_all(b"1\n").unwrap();
    wait_for(&lines, &mut seen, "The game ended without a winner");
    assert!(seen.contains("a copy of this game ended and showed its deal"));
    input.write_all(b"undo\n").unwrap();
    wait_for(&lines, &mut seen, "cannot undo: the game is over");
    drop(input);
    assert!(original.wait().unwrap().success());

    let again = play(&["--load", file.to_str().unwrap()], "");
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("deal was shown when a copy of it ended"),
        "{}",
        text(&again.stderr)
    );
}

/// A seed the program drew is not printed (nor put in a file name) before the game is over; a
/// chosen seed is printed, since the player knows it.
#[test]
fn a_drawn_seed_is_shown_only_once_the_game_is_over() {
    let out = play(&["--level", "beginner"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("a deal drawn at random"), "{stdout}");
    let saved = std::fs::read_to_string(saved_path(&stdout)).unwrap();
    let record: toybattle::record::GameRecord = serde_json::from_str(&saved).unwrap();
    let seed = record.seed.to_string();
    assert!(
        !stdout.contains(&seed),
        "the seed {seed} is printed:\n{stdout}"
    );

    let out = play(&["--level", "beginner"], "resign\nquit\n");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("The deal's seed was "), "{stdout}");

    let chosen = play(&["--level", "beginner", "--seed", "5"], "quit\n");
    assert!(text(&chosen.stdout).contains("New game: seed 5;"));
}

/// `--coach` (issue 31): a decision that loses at least a mistake's worth of win probability is
/// named at once, with the better decision and its chances, and `undo` is offered and takes it
/// back. The losing decision is found with the library's coach on the same deal, so the test
/// does not depend on the estimate's figures of the day.
#[test]
fn the_coach_names_a_losing_decision_with_the_better_one_and_offers_undo() {
    use std::sync::atomic::AtomicBool;
    use toybattle::review::{ReviewOptions, ESTIMATE_PLAYOUTS, MISTAKE};
    use toybattle::rules::{Colour, Game, Variant};
    use toybattle::session::{Level, Session, SessionConfig};

    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let mut session = Session::new(SessionConfig {
        game: game.clone(),
        level: Level::Beginner,
        human: Colour::Blue,
        first: Some(Colour::Blue),
        seed: 5,
        seed_chosen: true,
    })
    .unwrap();
    // The terminal's coach: the review's options at the terminal's budget.
    let options = ReviewOptions::default().with_iterations(ESTIMATE_PLAYOUTS);
    let stop = AtomicBool::new(false);
    let mut script = String::new();
    let (bad, judged) = 'search: {
        for _ in 0..8 {
            session.advance(&stop).unwrap();
            assert!(
                !session.is_over(),
                "no losing decision found before the end"
            );
            for d in session.legal_decisions() {
                session.apply_decision(d).unwrap();
                let judged = session.coach(&options);
                session.undo().unwrap();
                if let Some(j) = judged.filter(|j| j.error >= MISTAKE) {
                    break 'search (d.notation(game.terrain()), j);
                }
            }
            let first = session.legal_decisions()[0];
            script += &format!("{}\n", first.notation(game.terrain()));
            session.apply_decision(first).unwrap();
        }
        panic!("no decision losing a mistake's worth in the human's first eight");
    };
    script += &format!("{bad}\nundo\nquit\n");
    let out = play(
        &[
            "--terrain",
            "castle_field",
            "--level",
            "beginner",
            "--seat",
            "blue",
            "--first",
            "blue",
            "--seed",
            "5",
            "--coach",
        ],
        &script,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let at = stdout
        .find(&format!("you: {bad}\nCoach: that was a "))
        .unwrap_or_else(|| panic!("no coach after {bad}:\n{stdout}"));
    let coach = stdout[at..].lines().nth(1).unwrap();
    assert!(
        coach.contains(&format!(
            "{}: {} keeps {:.0}%, yours {:.0}%.",
            "points of win probability)",
            judged.best,
            judged.best_win * 100.0,
            judged.played_win * 100.0
        )) && coach.ends_with("Type `undo` to take it back."),
        "{coach}"
    );
    assert!(
        stdout[at..].contains(&format!("Taken back: your {bad}")),
        "{stdout}"
    );
}
