//! `toybattle position`: the position at any step of a game record, as a position file
//! (`toybattle-position/1`, docs/positions.md), so that `legal` and `analyze` can be asked about
//! a moment of a real game without writing its JSON by hand.

use super::{load_record, print_json, CliResult};
use std::path::PathBuf;
use toybattle::record::position::Position;
use toybattle::record::{replay, GameRecord};
use toybattle::rules::{Decision, Game, State};

#[derive(clap::Args)]
pub struct Args {
    /// The record: JSON of a game record (format `toybattle-record/1`).
    #[arg(value_name = "RECORD")]
    record: PathBuf,
    /// The position after this many steps: 0 is the state after setup, before the first step;
    /// N is the state in which step N (numbered from 0, as `replay --verbose` lists them) is
    /// next. Default: the last position, after every step.
    #[arg(long, value_name = "N")]
    step: Option<usize>,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
}

pub fn run(args: Args) -> CliResult {
    let path = args.record.display().to_string();
    let (record, game) = load_record(&args.record, args.terrain_file.as_deref())?;
    // The whole record must replay, so that a position is never taken from a game the rules
    // refuse later on.
    replay(&game, &record).map_err(|e| format!("{path} does not replay: {e}"))?;
    let last = record.steps.len();
    let step = args.step.unwrap_or(last);
    if step > last {
        return Err(format!(
            "{path}: --step {step} is out of range: the record has {last} steps, so positions 0 \
             (after setup) to {last} (after the last step)"
        ));
    }
    let state = state_after(&game, &record, step)?;
    print_json(&Position::from_state(&game, &state))
}

/// The state after the first `count` steps of a record that replays.
fn state_after(game: &Game, record: &GameRecord, count: usize) -> Result<State, String> {
    let mut state = game.initial_state(&record.deal);
    for (index, step) in record.steps.iter().take(count).enumerate() {
        let d = Decision::parse(step, game.terrain())
            .map_err(|e| format!("step {index} ('{step}'): {e}"))?;
        game.apply(&mut state, d)
            .map_err(|e| format!("step {index} ('{step}'): {e}"))?;
    }
    Ok(state)
}
