//! `toybattle legal`: the legal decisions of a position file, in the engine's stable order; or
//! of many positions, one JSON object per line, in one process.

use super::{emit, load_position, print_json, CliResult};
use serde::Serialize;
use std::path::{Path, PathBuf};
use toybattle::record::position::Position;
use toybattle::rules::{DecisionList, Game, Outcome, State};
use toybattle::terrain::{self, input, Terrain};

#[derive(clap::Args)]
pub struct Args {
    /// The position: JSON in the format of docs/positions.md (`toybattle-position/1`).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "jsonl",
        conflicts_with = "jsonl"
    )]
    position: Option<PathBuf>,
    /// Many positions, one JSON object per line (JSON lines); prints one JSON line per position
    /// with its line number, or the error for that line, and fails at the end if any line did.
    /// Blank lines are skipped.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
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

/// One line of `--jsonl` output: the legal decisions of the position on input line `line`
/// (from 1), or why it was refused.
#[derive(Serialize)]
struct LineResult {
    line: usize,
    #[serde(flatten)]
    legal: Option<Legal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn run(args: Args) -> CliResult {
    if let Some(jsonl) = &args.jsonl {
        return run_lines(jsonl, args.terrain_file.as_deref());
    }
    let Some(position) = &args.position else {
        return Err("give --position FILE or --jsonl FILE".to_string());
    };
    let path = position.display().to_string();
    let (game, state) = load_position(position, args.terrain_file.as_deref())
        .map_err(|e| format!("{path}: {e}"))?;
    let legal = legal_of(&game, &state);
    if args.json {
        print_json(&legal)
    } else {
        emit(&text(&game, &legal))
    }
}

/// Refused line numbers listed in the final error; more are counted, not listed.
const LISTED_FAILURES: usize = 20;

/// `--jsonl`: every position of `path`, one result line each, written as it is read; the
/// terrains are read once. The file may be long: only one line (at most a position's size
/// cap) is held at a time.
fn run_lines(path: &Path, terrain_file: Option<&Path>) -> CliResult {
    let (file, _) = input::open(path, input::POSITION).map_err(|e| e.to_string())?;
    let terrains: Option<Vec<Terrain>> = match terrain_file {
        Some(f) => Some(terrain::load_terrain_file(f).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut reader = std::io::BufReader::new(file);
    let mut failed = Vec::new();
    let mut refused = 0usize;
    let mut number = 0usize;
    let cap = input::POSITION.cap;
    while let Some(line) = input::next_line(&mut reader, cap)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
    {
        number += 1;
        let parsed = match line {
            input::Line::Text(text) if text.trim().is_empty() => continue,
            input::Line::Text(text) => legal_of_line(&text, terrains.as_deref()),
            input::Line::TooLong => Err(format!(
                "the line is longer than the cap of a position ({})",
                input::describe_size(cap)
            )),
            input::Line::NotText => Err("the line is not UTF-8 text".to_string()),
        };
        let result = match parsed {
            Ok(legal) => LineResult {
                line: number,
                legal: Some(legal),
                error: None,
            },
            Err(e) => {
                refused += 1;
                if failed.len() < LISTED_FAILURES {
                    failed.push(number.to_string());
                }
                LineResult {
                    line: number,
                    legal: None,
                    error: Some(e),
                }
            }
        };
        let json = serde_json::to_string(&result).map_err(|e| format!("cannot write JSON: {e}"))?;
        emit(&(json + "\n"))?;
    }
    let more = match refused - failed.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    match refused {
        0 => Ok(()),
        n => Err(format!(
            "{}: {n} position(s) refused, on line(s) {}{more}",
            path.display(),
            failed.join(", ")
        )),
    }
}

/// The legal decisions of one position written as a JSON object.
fn legal_of_line(line: &str, terrains: Option<&[Terrain]>) -> Result<Legal, String> {
    let position = Position::parse(line).map_err(|e| e.to_string())?;
    let (game, state) = position
        .to_game_state(terrains)
        .map_err(|e| e.to_string())?;
    Ok(legal_of(&game, &state))
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
