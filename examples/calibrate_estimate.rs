//! Calibration of the win estimate (`toybattle::review::estimate`): self-play games of the
//! `casual` level on all eight terrains; at the start of every turn, each player's estimate
//! from their own observation; then, per band of estimates, how often that player won.
//!
//! ```sh
//! nice -n 19 cargo run --profile test --example calibrate_estimate -- GAMES SEED
//! ```
//!
//! Games are played side by side (rayon); the table is printed at the end as Markdown.

use rayon::prelude::*;
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::preset::resolve;
use toybattle::info::{EvidenceTracker, Observation};
use toybattle::review::estimate;
use toybattle::rules::{Colour, Deal, Decision, Game, Variant};
use toybattle::terrain::builtin_terrains;
use toybattle::vocabulary::hash::splitmix64;

/// Bands of estimates: tenths of the 0–1 range.
const BANDS: usize = 10;

/// (estimate, won) for each turn start of one game and each player.
fn one_game(index: u64, seed: u64) -> Vec<(f64, bool)> {
    let terrains = builtin_terrains();
    let terrain = &terrains[index as usize % terrains.len()];
    let game = Game::builtin(&terrain.key, Variant::Normal).expect("a shipped terrain");
    let deal = Deal::from_seed(splitmix64(seed ^ index));
    let mut blue = resolve("casual").expect("a shipped level").player();
    let mut red = resolve("casual").expect("a shipped level").player();
    let played = play_game(
        &game,
        &deal,
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    );
    let Some(winner) = played.record.result.winner else {
        return Vec::new(); // a game stopped by the turn cap says nothing of who wins
    };
    let mut state = game.initial_state(&played.record.deal);
    let mut evidence = EvidenceTracker::new(&game, &state);
    let mut out = Vec::new();
    for (step, text) in played.record.steps.iter().enumerate() {
        let d = Decision::parse(text, game.terrain()).expect("a recorded step");
        let before = state;
        game.apply(&mut state, d).expect("a replayed step");
        evidence.step(&game, &before, &state);
        if state.is_over() || state.is_chance() || state.turn() == before.turn() {
            continue;
        }
        for c in Colour::BOTH {
            let obs = Observation::new(&state, c).with_evidence(evidence.about(c.opponent()));
            let p = estimate(&game, &obs, splitmix64(index << 20 ^ step as u64));
            out.push((p, c == winner));
        }
    }
    out
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("GAMES and SEED are whole numbers"))
        .collect();
    let [games, seed] = args[..] else {
        eprintln!("usage: calibrate_estimate GAMES SEED");
        std::process::exit(2);
    };
    let points: Vec<(f64, bool)> = (0..games)
        .into_par_iter()
        .flat_map(|i| one_game(i, seed))
        .collect();
    let mut bands = [(0usize, 0.0f64, 0usize); BANDS];
    for &(p, won) in &points {
        let b = ((p * BANDS as f64) as usize).min(BANDS - 1);
        bands[b].0 += 1;
        bands[b].1 += p;
        bands[b].2 += usize::from(won);
    }
    println!("| estimate | positions | mean estimate | won | 95% interval of won |");
    println!("|---|---|---|---|---|");
    for (b, &(n, sum, won)) in bands.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let rate = won as f64 / n as f64;
        let half = 1.96 * (rate * (1.0 - rate) / n as f64).sqrt();
        println!(
            "| {}–{}% | {n} | {:.1}% | {:.1}% | {:.1}–{:.1}% |",
            b * 10,
            b * 10 + 10,
            100.0 * sum / n as f64,
            100.0 * rate,
            100.0 * (rate - half).max(0.0),
            100.0 * (rate + half).min(1.0)
        );
    }
    let brier: f64 = points
        .iter()
        .map(|&(p, won)| (p - f64::from(u8::from(won))).powi(2))
        .sum::<f64>()
        / points.len().max(1) as f64;
    println!(
        "\n{} positions (two per turn start, one per player) from {games} games, seed {seed}; \
         Brier score {brier:.4}",
        points.len()
    );
}
