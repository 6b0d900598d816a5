//! `toybattle legal`: the legal decisions of a position file, in the engine's stable order.

use super::{emit, load_position, print_json, CliResult};
use serde::Serialize;
use std::path::PathBuf;
use toybattle::rules::{DecisionList, Game, Outcome, State};

#[derive(clap::Args)]
pub struct Args {
    /// The position: JSON in the format of docs/positions.md (`toybattle-position/1`).
    #[arg(long, value_name = "FILE")]
    position: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Legal {
    /// The pending step in words.
    phase: String,
    /// The active player (at a chance event: the player the event belongs to).
    to_move: String,
    /// Legal decisions in notation; at a chance event, its possible outcomes.
    decisions: Vec<String>,
    /// At a chance event: each outcome with its probability.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    chances: Vec<ChanceOutcome>,
    /// When the game is over: who won and how.
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
}

#[derive(Serialize)]
struct ChanceOutcome {
    decision: String,
    /// Tiles of this troop where the event draws from (reserve or rack).
    tiles: u8,
    probability: f64,
}

pub fn run(args: Args) -> CliResult {
    let path = args.position.display().to_string();
    let (game, state) = load_position(&args.position, args.terrain_file.as_deref())
        .map_err(|e| format!("{path}: {e}"))?;
    let legal = legal_of(&game, &state);
    if args.json {
        print_json(&legal)
    } else {
        emit(&text(&game, &legal))
    }
}

fn legal_of(game: &Game, state: &State) -> Legal {
    let mut list = DecisionList::new();
    game.legal_decisions(state, &mut list);
    let terrain = game.terrain();
    let outcomes = game.chance_outcomes(state);
    let total: u32 = outcomes.iter().map(|&(_, w)| w as u32).sum();
    Legal {
        phase: game.describe_phase(state),
        to_move: state.active().name().to_string(),
        decisions: list.iter().map(|d| d.notation(terrain)).collect(),
        chances: outcomes
            .iter()
            .map(|&(troop, weight)| ChanceOutcome {
                decision: format!("chance {troop}"),
                tiles: weight,
                probability: weight as f64 / total as f64,
            })
            .collect(),
        outcome: state.outcome(),
    }
}

fn text(game: &Game, legal: &Legal) -> String {
    let mut out = format!("{}: {}\n", game.terrain().key, legal.phase);
    if let Some(o) = legal.outcome {
        let how = toybattle::record::RecordResult::end_name(o.win);
        return out + &format!("{} won ({how}); no decision is left\n", o.winner);
    }
    if !legal.chances.is_empty() {
        let total: u32 = legal.chances.iter().map(|c| c.tiles as u32).sum();
        out += &format!("{} possible outcomes:\n", legal.chances.len());
        for c in &legal.chances {
            out += &format!(
                "  {:<16} {:>2} of {total} tiles {:>6.1}%\n",
                c.decision,
                c.tiles,
                100.0 * c.probability
            );
        }
        return out;
    }
    out += &format!("{} legal decisions:\n", legal.decisions.len());
    for d in &legal.decisions {
        out += &format!("  {d}\n");
    }
    out
}
