//! `toybattle analyze`: a bot preset analyses a position file and shows its decision and its
//! best candidates (visits and estimated win probability), as a table or as JSON.

use super::{emit, load_position, print_json, CliResult};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;
use toybattle::bot::preset::{resolve, Preset};
use toybattle::bot::{Budget, Choice};
use toybattle::info::RackEvidence;
use toybattle::record::RecordResult;
use toybattle::rules::{Colour, Game, State};

#[derive(clap::Args)]
pub struct Args {
    /// The position: JSON in the format of docs/positions.md (`toybattle-position/1`).
    #[arg(long, value_name = "FILE")]
    position: PathBuf,
    /// A shipped preset name (e.g. ismcts-1s) or a path to a preset .toml file.
    #[arg(long, value_name = "PRESET")]
    bot: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Seed of the bot's decision: the same seed and an iteration budget give the same output.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many candidates to show.
    #[arg(long, value_name = "K", default_value_t = 10)]
    top: usize,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// Let a cheating preset (cheat-uct) analyse: it reads the whole position, including the
    /// opponent's rack and both reserves, which the player to move cannot see.
    #[arg(long)]
    allow_cheating: bool,
}

/// What `analyze` reports; `--json` prints it as is.
#[derive(Serialize)]
struct Report {
    position: PositionSummary,
    bot: BotSummary,
    /// The chosen decision in notation.
    decision: String,
    /// Search iterations run; absent for bots that do not search.
    #[serde(skip_serializing_if = "Option::is_none")]
    iterations: Option<u64>,
    /// Best candidates first; empty for bots that do not search.
    candidates: Vec<CandidateRow>,
    elapsed_ms: f64,
}

#[derive(Serialize)]
struct PositionSummary {
    file: String,
    terrain: String,
    variant: String,
    turn: u16,
    to_move: Colour,
    /// The pending step in words.
    phase: String,
    /// Medals (blue, red).
    medals: [u8; 2],
    medals_to_win: u8,
    /// The rack of the player to move, in notation.
    rack: Vec<String>,
    /// Rack sizes (blue, red).
    rack_sizes: [u8; 2],
    /// Reserve sizes (blue, red).
    reserve_sizes: [u8; 2],
}

#[derive(Serialize)]
struct BotSummary {
    preset: String,
    version: String,
    algorithm: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    iterations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<u128>,
    seed: u64,
}

#[derive(Serialize)]
struct CandidateRow {
    decision: String,
    visits: u64,
    /// Estimated win probability of the player to move, 0 to 1.
    value: f64,
}

pub fn run(args: Args) -> CliResult {
    let preset = resolve(&args.bot).map_err(|e| e.to_string())?;
    if preset.is_cheating() && !args.allow_cheating {
        return Err(format!(
            "preset '{}' is a cheating reference bot: it searches the true state, including the \
             opponent's rack and both reserves, which the player to move cannot see. A position \
             file holds that whole state, so its analysis would use hidden information; pass \
             --allow-cheating to run it anyway",
            preset.name
        ));
    }
    let path = args.position.display().to_string();
    let (game, state) = load_position(&args.position, args.terrain_file.as_deref())
        .map_err(|e| format!("{path}: {e}"))?;
    check_decision_pending(&game, &state).map_err(|e| format!("{path}: {e}"))?;
    let mut player = preset.player();
    let start = Instant::now();
    // A position file holds no history, so nothing is known of what the opponent's play showed.
    let evidence = RackEvidence::NONE;
    let choice = player.decide(&game, &state, evidence, preset.budget, args.seed);
    let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    let report = report(&args, &preset, &game, &state, &choice, elapsed_ms);
    if args.json {
        print_json(&report)
    } else {
        emit(&text(&report))
    }
}

/// A bot can only analyse a position where a player decides.
fn check_decision_pending(game: &Game, state: &State) -> Result<(), String> {
    if let Some(o) = state.outcome() {
        return Err(format!(
            "the game is over ({} won by {}); there is no decision to analyse",
            o.winner,
            RecordResult::end_name(o.win)
        ));
    }
    if state.is_chance() {
        return Err(format!(
            "the position waits for a chance event ({}), which the referee resolves; analysis \
             needs a position where a player decides",
            game.describe_phase(state)
        ));
    }
    Ok(())
}

fn report(
    args: &Args,
    preset: &Preset,
    game: &Game,
    state: &State,
    choice: &Choice,
    elapsed_ms: f64,
) -> Report {
    let terrain = game.terrain();
    let both = |f: &dyn Fn(Colour) -> u8| [f(Colour::Blue), f(Colour::Red)];
    let analysis = choice.analysis.as_ref();
    Report {
        position: PositionSummary {
            file: args.position.display().to_string(),
            terrain: terrain.name.clone(),
            variant: game.variant().to_string(),
            turn: state.turn(),
            to_move: state.active(),
            phase: game.describe_phase(state),
            medals: both(&|c| state.medals(c)),
            medals_to_win: terrain.medals_to_win,
            rack: state
                .rack(state.active())
                .to_vec()
                .iter()
                .map(|t| t.to_string())
                .collect(),
            rack_sizes: both(&|c| state.rack_len(c)),
            reserve_sizes: both(&|c| state.reserve_len(c)),
        },
        bot: bot_summary(preset, args.seed),
        decision: choice.decision.notation(terrain),
        iterations: analysis.map(|a| a.iterations),
        candidates: analysis
            .map(|a| {
                a.candidates
                    .iter()
                    .take(args.top)
                    .map(|c| CandidateRow {
                        decision: c.decision.notation(terrain),
                        visits: c.visits,
                        value: c.value,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        elapsed_ms,
    }
}

fn bot_summary(preset: &Preset, seed: u64) -> BotSummary {
    let Budget { iterations, time } = preset.budget;
    BotSummary {
        preset: preset.name.clone(),
        version: preset.version(),
        algorithm: preset.algorithm.clone(),
        iterations,
        time_ms: time.map(|t| t.as_millis()),
        seed,
    }
}

fn text(r: &Report) -> String {
    let p = &r.position;
    let b = &r.bot;
    let budget = match (b.iterations, b.time_ms) {
        (Some(n), Some(ms)) => format!("{n} iterations or {ms} ms per decision"),
        (Some(n), None) => format!("{n} iterations per decision"),
        (None, Some(ms)) => format!("{ms} ms per decision"),
        (None, None) => "no search".to_string(),
    };
    let rack = if p.rack.is_empty() {
        "empty".to_string()
    } else {
        p.rack.join(", ")
    };
    let mut out = format!(
        "Position   {} — {} ({}), turn {}\n\
         To move    {}: {}\n\
         Medals     blue {}, red {} ({} to win)\n\
         Rack       {} ({} tiles); racks blue {}, red {}; reserves blue {}, red {}\n\
         Bot        {} ({}, version {}, {budget}, seed {})\n\
         Decision   {}   ({:.1} ms)\n",
        p.file,
        p.terrain,
        p.variant,
        p.turn,
        p.to_move,
        p.phase,
        p.medals[0],
        p.medals[1],
        p.medals_to_win,
        rack,
        p.rack.len(),
        p.rack_sizes[0],
        p.rack_sizes[1],
        p.reserve_sizes[0],
        p.reserve_sizes[1],
        b.preset,
        b.algorithm,
        b.version,
        b.seed,
        r.decision,
        r.elapsed_ms,
    );
    match r.iterations {
        None => out.push_str(&format!(
            "Candidates none: {} does not search\n",
            b.algorithm
        )),
        Some(n) => {
            out.push_str(&format!("\nTop candidates after {n} iterations:\n"));
            out.push_str(&candidate_table(&r.candidates));
        }
    }
    out
}

/// The candidates as an aligned table; value = estimated win probability of the player to move.
fn candidate_table(rows: &[CandidateRow]) -> String {
    let width = rows
        .iter()
        .map(|c| c.decision.len())
        .max()
        .unwrap_or(0)
        .max("decision".len());
    let mut out = format!(
        "  rank  {:width$}  {:>9}  {:>9}\n",
        "decision", "visits", "win prob"
    );
    for (i, c) in rows.iter().enumerate() {
        out.push_str(&format!(
            "  {:>4}  {:width$}  {:>9}  {:>9.3}\n",
            i + 1,
            c.decision,
            c.visits,
            c.value
        ));
    }
    out
}
