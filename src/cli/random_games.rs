//! `toybattle random-games`: random self-play per terrain, reporting how games end, how long
//! they last, and how often the first player and blue win.
//!
//! Game `i` of every terrain plays the deal of seed `deal_seed(seed, i)`: results are
//! deterministic for a seed whatever the number of threads.
//!
//! With `--records` or `--check`, every game is two `RandomBot`s under the referee via
//! `bot::play::play_game`, which writes the record and, with `--check`, verifies every invariant
//! of `rules::invariants` after each decision (the first violation ends the run with an error
//! naming the terrain, the deal seed and the step). Otherwise the games are played by
//! [`play_fast`], without observations, evidence or notation: it draws the same random numbers
//! as the referee and the bots, so a seed gives the same games either way (see its tests).

use super::{emit, print_json, select_terrains, CliResult};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use toybattle::bot::play::decision_seed;
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::random::{random_choice, RandomBot};
use toybattle::bot::Player;
use toybattle::record::GameRecord;
use toybattle::rules::invariants::InvariantViolation;
use toybattle::rules::{Colour, Deal, Decision, Game, Referee, State, Variant, WinType};
use toybattle::tournament::stats::{mean_and_ci95, wilson_interval, Z95};
use toybattle::vocabulary::hash::{mix64, GOLDEN_GAMMA};
use toybattle::vocabulary::ByColour;

#[derive(clap::Args)]
pub struct Args {
    /// Terrain key or name, a comma-separated list, or `all`.
    #[arg(long, value_name = "TERRAIN|all")]
    terrain: String,
    /// Games per terrain.
    #[arg(short = 'n', long = "games", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    /// Seed of the deals; the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `normal`, or `beginner` (special bases are plain bases).
    #[arg(long, default_value_t = Variant::Normal)]
    variant: Variant,
    /// Self-play cap on turns (not a game rule); a game reaching it has no winner.
    #[arg(long, default_value_t = PlayConfig::default().max_turns, value_parser = super::parse_max_turns)]
    max_turns: u16,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Write each game's record (JSON, replayable) into this directory.
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Check every invariant of the rules after each decision; the first violation stops the
    /// run with an error naming the game's deal seed and step.
    #[arg(long)]
    check: bool,
}

/// What one game contributes to the figures.
#[derive(Debug, PartialEq)]
struct GameResult {
    end: End,
    turns: u16,
    winner: Option<Colour>,
    first: Colour,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum End {
    Hq,
    Medals,
    Blocked,
    TurnCap,
    Forfeit,
}

/// Figures of one terrain, as printed with `--json`.
#[derive(Serialize)]
struct TerrainReport {
    terrain: String,
    games: u64,
    /// Games that ended by a rule (not stopped by the turn cap).
    finished: u64,
    /// Finished games by how they were won.
    hq: u64,
    medals: u64,
    blocked: u64,
    /// A bot answered with an illegal decision (never expected of a random bot).
    forfeit: u64,
    /// Games stopped by `--max-turns`, counted apart: no winner.
    turn_cap: u64,
    /// Mean length of finished games in turns, and its 95% half-width (`null` if unknown).
    mean_turns: f64,
    mean_turns_ci95: Option<f64>,
    first_player_wins: u64,
    /// Share of finished games won by the first player, with a Wilson 95% interval.
    first_player_win_rate: f64,
    first_player_ci95: (f64, f64),
    blue_wins: u64,
    blue_win_rate: f64,
    blue_ci95: (f64, f64),
}

#[derive(Serialize)]
struct Report {
    variant: Variant,
    seed: u64,
    games_per_terrain: u64,
    max_turns: u16,
    terrains: Vec<TerrainReport>,
}

pub fn run(args: Args) -> CliResult {
    let terrains = select_terrains(&args.terrain, args.terrain_file.as_deref())?;
    if let Some(dir) = &args.records {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create records directory {}: {e}", dir.display()))?;
    }
    let games: Vec<Game> = terrains
        .into_iter()
        .map(|t| Game::new(t, args.variant))
        .collect();
    let progress = progress_bar(args.games.saturating_mul(games.len() as u64), args.quiet);
    let config = PlayConfig {
        max_turns: args.max_turns,
        check: args.check,
        ..PlayConfig::default()
    };
    let mut reports = Vec::with_capacity(games.len());
    for game in &games {
        let results: Vec<GameResult> = (0..args.games)
            .into_par_iter()
            .map(|i| {
                let r = play_one(
                    game,
                    deal_seed(args.seed, i),
                    i,
                    &config,
                    args.records.as_deref(),
                );
                progress.inc(1);
                r
            })
            .collect::<Result<_, String>>()?;
        reports.push(summarise(&game.terrain().key, &results));
    }
    progress.finish_and_clear();
    let report = Report {
        variant: args.variant,
        seed: args.seed,
        games_per_terrain: args.games,
        max_turns: args.max_turns,
        terrains: reports,
    };
    if args.json {
        print_json(&report)
    } else {
        emit(&table(&report))
    }
}

/// The seed of game `i`: a SplitMix64 step, so neighbouring games get unrelated deals.
fn deal_seed(seed: u64, i: u64) -> u64 {
    mix64(
        seed.wrapping_mul(GOLDEN_GAMMA)
            .wrapping_add(i.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03)),
    )
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} games, {eta} left")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(total).with_style(style)
}

fn play_one(
    game: &Game,
    seed: u64,
    index: u64,
    config: &PlayConfig,
    records: Option<&Path>,
) -> Result<GameResult, String> {
    let deal = Deal::from_seed(seed);
    if records.is_none() && !config.check {
        return Ok(play_fast(game, &deal, config.max_turns, |_, _| {}));
    }
    let mut blue = Player::Fair(Box::new(RandomBot::new("random")));
    let mut red = Player::Fair(Box::new(RandomBot::new("random")));
    let played = play_game(game, &deal, &mut [&mut blue, &mut red], config);
    if let Some((step, v)) = &played.violation {
        return Err(violation_message(game, index, seed, *step, v));
    }
    let record = played.record;
    if let Some(dir) = records {
        write_record(dir, index, &record)?;
    }
    let end = match record.result.end.as_str() {
        "hq" => End::Hq,
        "medals" => End::Medals,
        "blocked" => End::Blocked,
        "turn_cap" => End::TurnCap,
        _ => End::Forfeit,
    };
    Ok(GameResult {
        end,
        turns: record.result.turns,
        winner: record.result.winner,
        first: deal.first,
    })
}

/// The game `play_game` plays between two random bots, played on the true state: chance events
/// from a `Referee` of the deal, each player's decisions from `random_choice` with the seed
/// `decision_seed` gives the bot. The bot decides on its observation's view, whose legal
/// decisions are those of the true state, so both pick the same decision. `step` sees each state
/// and the decision taken in it.
fn play_fast(
    game: &Game,
    deal: &Deal,
    max_turns: u16,
    mut step: impl FnMut(&State, Decision),
) -> GameResult {
    let mut state = game.initial_state(deal);
    let mut referee = Referee::new(deal.clone());
    let mut decisions = ByColour::new(0u32, 0);
    while !state.is_over() && state.turn() <= max_turns {
        let d = if state.is_chance() {
            referee.resolve(game, &state)
        } else {
            let c = state.active();
            let seed = decision_seed(deal.seed, c, decisions[c]);
            decisions[c] += 1;
            random_choice(game, &state, seed)
        };
        step(&state, d);
        game.apply_legal(&mut state, d);
    }
    let (end, winner) = match state.outcome() {
        Some(o) => (
            match o.win {
                WinType::Hq => End::Hq,
                WinType::Medals => End::Medals,
                WinType::Blocked => End::Blocked,
            },
            Some(o.winner),
        ),
        None => (End::TurnCap, None),
    };
    GameResult {
        end,
        turns: state.turn(),
        winner,
        first: deal.first,
    }
}

/// Where a checked game broke an invariant. The deal seed fixes the whole game (the random bots'
/// choices derive from it), so the same command reproduces the violation.
fn violation_message(
    game: &Game,
    index: u64,
    seed: u64,
    step: usize,
    v: &InvariantViolation,
) -> String {
    format!(
        "{} ({} variant) game {index}, deal seed {seed}, after step {step}: {v}",
        game.terrain().key,
        game.variant()
    )
}

/// Writes `DIR/<terrain>-<index>.json`.
fn write_record(dir: &Path, index: u64, record: &GameRecord) -> Result<(), String> {
    let path = dir.join(format!("{}-{index:06}.json", record.terrain));
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| format!("cannot write record {}: {e}", path.display()))?;
    std::fs::write(&path, text + "\n")
        .map_err(|e| format!("cannot write record {}: {e}", path.display()))
}

fn summarise(terrain: &str, results: &[GameResult]) -> TerrainReport {
    let count = |end: End| results.iter().filter(|r| r.end == end).count() as u64;
    let finished: Vec<&GameResult> = results.iter().filter(|r| r.end != End::TurnCap).collect();
    let n = finished.len() as u64;
    let lengths: Vec<f64> = finished.iter().map(|r| r.turns as f64).collect();
    let (mean_turns, half_width) = mean_and_ci95(&lengths);
    let first_player_wins = finished
        .iter()
        .filter(|r| r.winner == Some(r.first))
        .count() as u64;
    let blue_wins = finished
        .iter()
        .filter(|r| r.winner == Some(Colour::Blue))
        .count() as u64;
    let rate = |wins: u64| if n == 0 { 0.0 } else { wins as f64 / n as f64 };
    TerrainReport {
        terrain: terrain.to_string(),
        games: results.len() as u64,
        finished: n,
        hq: count(End::Hq),
        medals: count(End::Medals),
        blocked: count(End::Blocked),
        forfeit: count(End::Forfeit),
        turn_cap: count(End::TurnCap),
        mean_turns,
        mean_turns_ci95: half_width.is_finite().then_some(half_width),
        first_player_wins,
        first_player_win_rate: rate(first_player_wins),
        first_player_ci95: wilson_interval(first_player_wins as f64, n as f64, Z95),
        blue_wins,
        blue_win_rate: rate(blue_wins),
        blue_ci95: wilson_interval(blue_wins as f64, n as f64, Z95),
    }
}

fn table(report: &Report) -> String {
    let mut out = format!(
        "{} random games per terrain, {} variant, seed {}, turn cap {}\n\
         hq/medals/blocked: % of finished games; cap: games stopped by the turn cap;\n\
         turns: mean length of finished games; first, blue: % wins with 95% interval\n\n",
        report.games_per_terrain, report.variant, report.seed, report.max_turns
    );
    out += &format!(
        "{:<15} {:>6} {:>4} {:>4} {:>4} {:>4} {:>10} {:>16} {:>16}\n",
        "terrain", "games", "hq", "med", "blk", "cap", "turns", "first", "blue"
    );
    for t in &report.terrains {
        let pct = |k: u64| percent(k, t.finished);
        let turns = match t.mean_turns_ci95 {
            Some(h) => format!("{:.1}±{:.1}", t.mean_turns, h),
            None => format!("{:.1}", t.mean_turns),
        };
        out += &format!(
            "{:<15} {:>6} {:>4} {:>4} {:>4} {:>4} {:>10} {:>16} {:>16}\n",
            t.terrain,
            t.games,
            pct(t.hq),
            pct(t.medals),
            pct(t.blocked),
            t.turn_cap,
            turns,
            rate_text(t.first_player_win_rate, t.first_player_ci95),
            rate_text(t.blue_win_rate, t.blue_ci95),
        );
        if t.forfeit > 0 {
            out += &format!("  {} games ended by a forfeit\n", t.forfeit);
        }
    }
    out
}

fn percent(k: u64, n: u64) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.0}", 100.0 * k as f64 / n as f64)
    }
}

/// "51.2 [48.3-54.0]": a rate and its interval, in percent.
fn rate_text(rate: f64, (lo, hi): (f64, f64)) -> String {
    toybattle::tournament::stats::percent_text(rate, lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toybattle::rules::invariants::Invariant;

    /// The fast loop plays, decision for decision, the game of two random bots under the
    /// referee, on every terrain and both variants, also when the turn cap stops it.
    #[test]
    fn the_fast_path_plays_the_games_of_the_referee_and_the_bots() {
        for variant in [Variant::Normal, Variant::Beginner] {
            for terrain in toybattle::terrain::builtin_terrains() {
                let game = Game::new(std::sync::Arc::new(terrain.clone()), variant);
                for (i, max_turns) in (0..60).zip([500, 500, 500, 12].into_iter().cycle()) {
                    let seed = deal_seed(7, i);
                    let config = PlayConfig {
                        max_turns,
                        ..PlayConfig::default()
                    };
                    let dir = None;
                    let reference = play_one(
                        &game,
                        seed,
                        i,
                        &PlayConfig {
                            check: true,
                            ..config
                        },
                        dir,
                    )
                    .expect("random games keep the invariants");
                    let deal = Deal::from_seed(seed);
                    let mut steps = Vec::new();
                    let fast = play_fast(&game, &deal, max_turns, |_, d| {
                        steps.push(d.notation(game.terrain()))
                    });
                    let what = format!("{} {variant} deal {seed}", terrain.key);
                    assert_eq!(fast, reference, "{what}");
                    let mut blue = Player::Fair(Box::new(RandomBot::new("random")));
                    let mut red = Player::Fair(Box::new(RandomBot::new("random")));
                    let record =
                        play_game(&game, &deal, &mut [&mut blue, &mut red], &config).record;
                    assert_eq!(steps, record.steps, "{what}");
                    assert_eq!(
                        fast.end == End::TurnCap,
                        record.result.end == "turn_cap",
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_violation_is_reported_with_terrain_game_seed_and_step() {
        let game = Game::builtin("castle_field", Variant::Beginner).unwrap();
        let v = InvariantViolation {
            invariant: Invariant::TileConservation,
            colour: Some(Colour::Red),
            troop: None,
            node: None,
            detail: "4 tiles in all".into(),
        };
        let text = violation_message(&game, 7, 12345, 31, &v);
        assert_eq!(
            text,
            "castle_field (beginner variant) game 7, deal seed 12345, after step 31: \
             invariant broken: tile conservation (red): 4 tiles in all"
        );
    }
}
