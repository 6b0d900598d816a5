//! `toybattle replay`: re-validates a game record step by step and prints its result, or the
//! first step the rules refuse.

use super::{emit, load_record, print_json, CliResult};
use serde::Serialize;
use std::path::PathBuf;
use toybattle::record::{replay, GameRecord, RecordResult, ReplayError};
use toybattle::rules::{Colour, Decision, Game};

#[derive(clap::Args)]
pub struct Args {
    /// The record: JSON of a game record (format `toybattle-record/1`), e.g. one written by
    /// `random-games --records DIR`.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Print every step with who took it.
    #[arg(long, short)]
    verbose: bool,
}

/// The verdict, as printed with `--json`.
#[derive(Serialize)]
struct Verdict<'a> {
    ok: bool,
    terrain: &'a str,
    variant: String,
    seed: u64,
    players: &'a [String; 2],
    steps: usize,
    /// The replayed result when the record is valid.
    result: Option<RecordResult>,
    /// Why the record is refused.
    error: Option<String>,
    /// Index (from 0) of the first refused step, when a step is at fault.
    step: Option<usize>,
}

pub fn run(args: Args) -> CliResult {
    let path = args.file.display().to_string();
    let (record, game) = load_record(&args.file, args.terrain_file.as_deref())?;
    let verdict = replay(&game, &record);
    if args.verbose {
        emit(&steps_text(
            &game,
            &record,
            walkable_steps(&record, &verdict),
        ))?;
    }
    if args.json {
        print_json(&Verdict {
            ok: verdict.is_ok(),
            terrain: &record.terrain,
            variant: record.variant.to_string(),
            seed: record.seed,
            players: &record.players,
            steps: record.steps.len(),
            result: verdict.as_ref().ok().map(|s| s.result.clone()),
            error: verdict.as_ref().err().map(ToString::to_string),
            step: match &verdict {
                Err(ReplayError::Step { index, .. }) => Some(*index),
                _ => None,
            },
        })?;
    }
    match verdict {
        Ok(summary) if !args.json => emit(&summary_text(&record, &summary.result)),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("{path} does not replay: {e}")),
    }
}

fn summary_text(record: &GameRecord, result: &RecordResult) -> String {
    let outcome = match (result.winner, result.end.as_str()) {
        (Some(w), end) => format!("{w} wins ({end})"),
        (None, end) => format!("no winner ({end})"),
    };
    format!(
        "record valid: {} ({} variant), seed {}, blue {} vs red {}\n\
         {outcome} after {} turns; medals blue {}, red {}; {} steps\n",
        record.terrain,
        record.variant,
        record.seed,
        record.players[0],
        record.players[1],
        result.turns,
        result.medals[Colour::Blue],
        result.medals[Colour::Red],
        record.steps.len()
    )
}

/// How many steps can be walked for `--verbose`: those before the first refused step, none
/// without a valid deal (there is no starting state).
fn walkable_steps<T>(record: &GameRecord, verdict: &Result<T, ReplayError>) -> usize {
    match verdict {
        Err(
            ReplayError::Format { .. }
            | ReplayError::Terrain { .. }
            | ReplayError::Deal(_)
            | ReplayError::Seed { .. },
        ) => 0,
        Err(ReplayError::Step { index, .. }) => *index,
        _ => record.steps.len(),
    }
}

/// The first `count` steps, numbered from 0, with who took each: a colour, or `chance` for an
/// event the referee resolved (with what it was).
fn steps_text(game: &Game, record: &GameRecord, count: usize) -> String {
    if count == 0 {
        return String::new();
    }
    let mut state = game.initial_state(&record.deal);
    let mut out = String::new();
    for (index, step) in record.steps.iter().take(count).enumerate() {
        out += &if state.is_chance() {
            format!(
                "{index:>5}  chance  {step:<16} {}\n",
                game.describe_phase(&state)
            )
        } else {
            format!("{index:>5}  {:<6}  {step}\n", state.active().name())
        };
        // These steps passed the replay, so they parse and apply.
        if let Ok(d) = Decision::parse(step, game.terrain()) {
            game.apply_legal(&mut state, d);
        }
    }
    out
}
