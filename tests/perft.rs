//! Golden perft counts: the number of decision sequences (chance outcomes counted as branches)
//! of each length from fixed positions, read from the files of `tests/perft/`.
//!
//! The counts pin the rules as they are implemented: any change to legal decisions, effects or
//! chance events changes some count, so a rules change is noticed here. The positions are
//! stored as position files (docs/positions.md), not rebuilt from seeds, so the counts do not
//! depend on how a random-number crate turns seeds into numbers.
//!
//! Format of a `.perft` file (after shakmaty's `tests/*.perft`): blocks separated by blank
//! lines, each
//!
//! ```text
//! id castle_field-midgame
//! position {"format":"toybattle-position/1", …}   (one line of JSON)
//! perft 1 9
//! perft 2 23
//! ```
//!
//! Lines starting with `#` are comments. `initial.perft` holds the initial state of one deal on
//! every terrain, `midgame.perft` a position at turn 9 of a game on each, and
//! `midgame-beginner.perft` the same in the beginner game. When a rules change is intended,
//! check it against docs/rules.md, then rewrite the counts from the positions with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test perft
//! ```
//!
//! and review the diff of `tests/perft/`.

use std::fmt::Write as _;
use std::path::Path;
use toybattle::record::position::Position;
use toybattle::rules::{DecisionList, Game, State};

const FILES: [&str; 3] = ["initial", "midgame", "midgame-beginner"];

/// One block of a `.perft` file.
struct Case {
    id: String,
    position: String,
    /// (depth, expected count)
    counts: Vec<(u32, u64)>,
}

fn path_of(name: &str) -> String {
    format!("{}/tests/perft/{name}.perft", env!("CARGO_MANIFEST_DIR"))
}

/// The cases of a `.perft` file; a malformed line names the file and line.
fn read_cases(path: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut cases: Vec<Case> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{path}:{}", n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{}: expected 'KEY VALUE'", at()));
        match key {
            "id" => cases.push(Case {
                id: rest.to_string(),
                position: String::new(),
                counts: Vec::new(),
            }),
            "position" | "perft" => {
                let case = cases
                    .last_mut()
                    .unwrap_or_else(|| panic!("{}: '{key}' before any 'id'", at()));
                if key == "position" {
                    case.position = rest.to_string();
                } else {
                    let parsed = rest
                        .split_once(' ')
                        .and_then(|(d, c)| Some((d.parse().ok()?, c.parse().ok()?)));
                    let count =
                        parsed.unwrap_or_else(|| panic!("{}: expected 'perft DEPTH COUNT'", at()));
                    case.counts.push(count);
                }
            }
            other => panic!("{}: unknown key '{other}'", at()),
        }
    }
    cases
}

fn game_state(case: &Case) -> (Game, State) {
    let position = Position::parse(&case.position).unwrap_or_else(|e| panic!("{}: {e}", case.id));
    position
        .to_game_state(None)
        .unwrap_or_else(|e| panic!("{}: {e}", case.id))
}

/// The file with every count recomputed from its position, its opening comment kept.
fn regenerated(text: &str, cases: &[Case]) -> String {
    let mut out: String = text
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    for case in cases {
        let (game, s) = game_state(case);
        writeln!(out, "id {}\nposition {}", case.id, case.position).unwrap();
        for &(depth, _) in &case.counts {
            writeln!(out, "perft {depth} {}", game.perft(&s, depth)).unwrap();
        }
        out.push('\n');
    }
    out
}

fn check(name: &str) {
    let path = path_of(name);
    let cases = read_cases(&path);
    assert!(!cases.is_empty(), "{path} has no case");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, regenerated(&text, &cases)).unwrap();
        return;
    }
    for case in &cases {
        let (game, s) = game_state(case);
        assert!(!case.counts.is_empty(), "{}: no perft line", case.id);
        for &(depth, expected) in &case.counts {
            assert_eq!(game.perft(&s, depth), expected, "{} depth {depth}", case.id);
        }
    }
}

#[test]
fn initial_positions() {
    check(FILES[0]);
}

#[test]
fn midgame_positions() {
    check(FILES[1]);
}

#[test]
fn midgame_positions_beginner() {
    check(FILES[2]);
}

/// Every file holds one case of each shipped terrain.
#[test]
fn every_terrain_has_its_case() {
    for name in FILES {
        let path = path_of(name);
        assert!(Path::new(&path).exists(), "{path}");
        let cases = read_cases(&path);
        let mut terrains: Vec<String> = cases
            .iter()
            .map(|c| game_state(c).0.terrain().key.clone())
            .collect();
        terrains.sort();
        terrains.dedup();
        assert_eq!(terrains.len(), 8, "{path}");
    }
}

#[test]
fn perft_one_is_the_number_of_legal_decisions() {
    for case in read_cases(&path_of("midgame")) {
        let (game, s) = game_state(&case);
        let mut list = DecisionList::new();
        game.legal_decisions(&s, &mut list);
        assert_eq!(game.perft(&s, 1), list.len() as u64, "{}", case.id);
        assert_eq!(game.perft(&s, 0), 1);
    }
}
