//! How much likelier each troop is to be on a player's rack than a uniform deal of that
//! player's unseen tiles says, measured on tournament records: the source of the search's
//! `KEPT_TROOPS` odds (`rack_belief`).
//!
//! ```sh
//! cargo run --release --example rack_odds -- DIR/records PLAYER
//! ```
//!
//! For every decision of the opponent of PLAYER (a preset name as recorded, e.g. `greedy`),
//! it compares PLAYER's hidden rack tiles with what a uniform deal of PLAYER's unseen tiles
//! (as the opponent sees them) gives on average, per troop. Ratios above 1: the troop stays on
//! the rack longer than chance.

mod common;

use common::{load_record, record_files};
use std::path::Path;
use toybattle::info::Observation;
use toybattle::rules::{Decision, Phase, Troop};

/// Hidden rack tiles per troop: (found, expected under a uniform deal).
type Tally = [(f64, f64); 8];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, player] = args.as_slice() else {
        eprintln!("usage: rack_odds RECORDS_DIR PLAYER");
        std::process::exit(2);
    };
    let files = record_files(Path::new(dir));
    if files.is_empty() {
        eprintln!("no game records (*.json) found in {dir} or its sub-folders");
        std::process::exit(1);
    }
    let mut tally = [(0.0, 0.0); 8];
    let mut decisions = 0;
    for path in files {
        match count_game(&path, player, &mut tally) {
            Ok(n) => decisions += n,
            Err(e) => eprintln!("{}: skipped: {e}", path.display()),
        }
    }
    if decisions == 0 {
        eprintln!("no decision of an opponent of {player} in these records (players are named as recorded, e.g. greedy)");
        std::process::exit(1);
    }
    println!("{decisions} decisions of {player}'s opponent");
    println!("| troop | on the rack | uniform deal | ratio |");
    println!("|---|---:|---:|---:|");
    for t in Troop::ALL {
        let (found, expected) = tally[t.index()];
        println!(
            "| {t} | {found:.0} | {expected:.0} | {:.2} |",
            found / expected
        );
    }
}

/// Replays one record and adds, at every action decision of `player`'s opponent, `player`'s
/// hidden rack tiles and their uniform expectation to `tally`; returns the decisions counted.
fn count_game(path: &Path, player: &str, tally: &mut Tally) -> Result<u32, String> {
    let (record, game) = load_record(path)?;
    let mut s = game.initial_state(&record.deal);
    let mut counted = 0;
    for step in &record.steps {
        let observer = s.active();
        let held = observer.opponent();
        if matches!(s.phase(), Phase::Action) && record.players[held.index()] == player {
            let unseen = Observation::new(&s, observer).unseen(held);
            let hidden = s.rack(held).minus(&s.public_rack(held)).unwrap_or_default();
            if unseen.total() > 0 {
                let share = f64::from(hidden.total()) / f64::from(unseen.total());
                for t in Troop::ALL {
                    tally[t.index()].0 += f64::from(hidden.get(t));
                    tally[t.index()].1 += share * f64::from(unseen.get(t));
                }
                counted += 1;
            }
        }
        let d = Decision::parse(step, game.terrain()).map_err(|e| format!("{step}: {e}"))?;
        game.apply(&mut s, d).map_err(|e| format!("{step}: {e}"))?;
    }
    Ok(counted)
}
