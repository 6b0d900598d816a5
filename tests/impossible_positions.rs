//! Position files that cannot arise in a game are refused by `legal` and `analyze` with a
//! message in the game's words: what is wrong and where, and no internal detail.

use std::path::Path;
use std::process::Command;
use toybattle::record::position::{Position, PositionError};
use toybattle::rules::{Colour, SetupError};

/// Each file under tests/data/impossible/ and words its error must contain.
const CASES: [(&str, &[&str]); 9] = [
    (
        "hq-win-without-tile.json",
        &["blue won by HQ capture", "no blue tile stands on a red HQ"],
    ),
    (
        "medal-win-without-medals.json",
        &["blue won on medals with 0", "objective of 7"],
    ),
    (
        "frozen-without-battlefield.json",
        &["blue has frozen tiles", "Castle Field"],
    ),
    (
        "covered-by-stronger.json",
        &["node 11", "blue:Skully rests on red:Roxy"],
    ),
    (
        "blocked-while-able-to-draw.json",
        &[
            "ended with blue blocked",
            "blue can still draw (reserve 19, rack 2 of 8)",
            "R10.3",
        ],
    ),
    (
        "blocked-tie-won-by-the-blocked.json",
        &[
            "blue is said to have won when blue was blocked",
            "the winner is red",
            "R10.3",
        ],
    ),
    (
        "turn-1-five-tiles-and-a-medal.json",
        &[
            "blue has 5 tiles on the board on turn 1",
            "at most 4",
            "R7.3",
        ],
    ),
    (
        "regions-taken-too-soon.json",
        &[
            "regions taken (1, 8) cover 9 bases",
            "by turn 2 at most 8 tiles",
        ],
    ),
    (
        "xb42-discard-without-xb42.json",
        &["chance XB-42 discard: no XB-42 of blue", "R7.6"],
    ),
];

fn refused(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .expect("the built binary runs");
    assert!(
        !o.status.success(),
        "{args:?} accepted an impossible position"
    );
    assert!(o.stdout.is_empty(), "{args:?} printed a result");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn legal_and_analyze_refuse_positions_that_cannot_arise() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/impossible");
    for (file, words) in CASES {
        let path = dir.join(file);
        let path = path.to_str().expect("UTF-8 path");
        for args in [
            vec!["legal", "--position", path],
            vec!["analyze", "--position", path, "--bot", "greedy"],
        ] {
            let err = refused(&args);
            assert!(err.contains(file), "{args:?}: the file is not named: {err}");
            for w in words {
                assert!(err.contains(w), "{args:?}: '{w}' missing from: {err}");
            }
            // Rust's Debug notation of an error (`Setup(`, `{ winner:`) is no message.
            assert!(!err.contains("Setup(") && !err.contains(": Blue"), "{err}");
            assert_eq!(err.lines().count(), 1, "one line: {err}");
        }
    }
}

/// The refusal of a position file of tests/data/, as a typed error.
fn setup_error(file: &str) -> SetupError {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("test data");
    match Position::parse(&text).and_then(|p| p.to_game_state(None)) {
        Err(PositionError::Setup(e)) => e,
        Err(other) => panic!("{file}: refused before the rules: {other}"),
        Ok(_) => panic!("{file}: accepted"),
    }
}

/// R10.3: the player to move in a blocked ending is the blocked one; one who can still draw
/// (here with a reserve of 19) was not blocked.
#[test]
fn a_blocked_ending_needs_a_player_who_can_neither_draw_nor_place() {
    assert_eq!(
        setup_error("impossible/blocked-while-able-to-draw.json"),
        SetupError::NotBlocked {
            colour: Colour::Blue,
            can: "draw",
            reserve: 19,
            rack: 2,
        }
    );
}

/// R10.3: more medals win a blocked ending; on a tie the blocked player loses.
#[test]
fn a_blocked_player_loses_a_tie() {
    assert!(matches!(
        setup_error("impossible/blocked-tie-won-by-the-blocked.json"),
        SetupError::BlockedWinner {
            winner: Colour::Blue,
            expected: Colour::Red,
            ..
        }
    ));
}

/// R4.3, R7.3: a turn places at most four tiles (a PLACE and three chained Cap'n extras), and
/// only the first player has had a turn on turn 1.
#[test]
fn five_tiles_on_turn_one_are_more_than_one_turn_places() {
    assert_eq!(
        setup_error("impossible/turn-1-five-tiles-and-a-medal.json"),
        SetupError::MoreTilesThanTurns {
            colour: Colour::Blue,
            on_board: 5,
            turn: 1,
            turns: 1,
            most: 4,
        }
    );
}

/// R8.2: every base of a taken region was occupied by a placed tile; regions 1 and 8 of Castle
/// Field cover 9 bases, more than the 8 tiles two turns can place.
#[test]
fn regions_taken_need_as_many_placed_tiles_as_they_have_bases() {
    assert_eq!(
        setup_error("impossible/regions-taken-too-soon.json"),
        SetupError::RegionsTakenTooSoon {
            regions: vec![1, 8],
            bases: 9,
            turn: 2,
            most: 8,
        }
    );
}

/// R7.6: an XB-42 discard follows the XB-42 the player to move has just placed.
#[test]
fn an_xb42_discard_needs_the_xb42_just_placed() {
    assert_eq!(
        setup_error("impossible/xb42-discard-without-xb42.json"),
        SetupError::DiscardWithoutXb42 {
            colour: Colour::Blue
        }
    );
}

/// Positions the issue took for impossible that the rules allow: R5.2 lets a player place on
/// their own top tile, so a tile on a tile of its own colour is a position of a game; and R10.5
/// sets no turn limit, so turn 65535 (where the engine's count of turns stops, still
/// alternating players, as `r10_5_no_turn_limit` in tests/rulings.rs shows) is one too.
#[test]
fn a_tile_on_its_own_colour_and_turn_65535_are_allowed_by_r5_2_and_r10_5() {
    for file in ["own-tile-on-own-tile.json", "turn-65535.json"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/possible")
            .join(file);
        let text = std::fs::read_to_string(path).expect("test data");
        let position = Position::parse(&text).expect("a position");
        if let Err(e) = position.to_game_state(None) {
            panic!("{file} is a position of a game: {e}");
        }
    }
}

/// A position that gives no turn is at the earliest turn its board allows: five blue tiles
/// need two turns of blue's, so blue to move is on turn 3, not refused.
#[test]
fn a_position_without_a_turn_is_at_the_earliest_turn_its_board_allows() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/impossible/turn-1-five-tiles-and-a-medal.json");
    let text = std::fs::read_to_string(path).expect("test data");
    let text = text.replace("\"turn\": 1,", "");
    let (_, state) = Position::parse(&text)
        .and_then(|p| p.to_game_state(None))
        .expect("without a turn the position is at a turn its board allows");
    assert_eq!((state.turn(), state.first_player()), (3, Colour::Blue));
}
