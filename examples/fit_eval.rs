//! Fits the evaluation that search bots use to score the playouts they cut short
//! (`SearchConfig::eval_turns`) to the outcomes of recorded games: the source of the search's
//! `FITTED_EVAL` weights (`fitted_eval`).
//!
//! ```sh
//! cargo run --release --example fit_eval -- DIR/records [DIR/records ...]
//! ```
//!
//! At the start of every turn of every recorded game, the player who has just moved scores the
//! position with the terms of the `greedy` bot's evaluation (`bot::greedy::TERMS`); the sample's
//! label is whether that player went on to win (a draw counts a half). A logistic regression
//! with an intercept (Newton's method, a little ridge) fits one weight per term, plus a pairing
//! term (see [`strength_side`]) that the search leaves out. Games with an even index in the
//! file order train it, odd ones test it, so the test log-loss is out of sample. It prints the
//! log-loss of the hand-set evaluation as the search read it (the sum of the terms over 200,
//! the `eval_scale` of the shipped presets), of the fitted weights as the search reads them,
//! and, both with the pairing term, of the fitted weights and of the hand-set sum at its best
//! scale; then the fitted weights.

mod common;

use common::{load_record, record_files};
use std::path::Path;
use toybattle::bot::greedy::{evaluation_terms, TERMS};
use toybattle::info::Observation;
use toybattle::rules::{Colour, Decision, Phase};
use toybattle::vocabulary::linear::solve;

/// Intercept, one weight per term, and the nuisance term (see [`strength_side`]).
const K: usize = TERMS.len() + 2;
/// Evaluation points per feature unit (one medal is 100 points).
const POINTS: f64 = 100.0;
const RIDGE: f64 = 1e-3;

struct Sample {
    x: [f64; K],
    /// The evaluating player's result: 1 won, 0 lost, 0.5 drawn.
    y: f64,
}

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if dirs.is_empty() {
        eprintln!("usage: fit_eval RECORDS_DIR [RECORDS_DIR ...]");
        std::process::exit(2);
    }
    let files: Vec<_> = dirs
        .iter()
        .flat_map(|d| record_files(Path::new(d)))
        .collect();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, path) in files.iter().enumerate() {
        let set = if i % 2 == 0 { &mut train } else { &mut test };
        if let Err(e) = samples(path, set) {
            eprintln!("{}: skipped: {e}", path.display());
        }
    }
    if train.is_empty() || test.is_empty() {
        eprintln!("too few game records (*.json) in {dirs:?}: need two games with a turn each");
        std::process::exit(1);
    }
    let mut hand = [0.0; K];
    hand[1..K - 1].fill(POINTS / 200.0);
    let fitted = fit(&train);
    // The hand-set sum with its best intercept and scale, beside the pairing term.
    let summed = |set: &[Sample]| -> Vec<Sample> {
        set.iter()
            .map(|s| {
                let mut x = [0.0; K];
                x[0] = 1.0;
                x[1] = s.x[1..K - 1].iter().sum();
                x[2] = s.x[K - 1];
                Sample { x, y: s.y }
            })
            .collect()
    };
    let scaled = fit(&summed(&train));
    println!(
        "{} games; {} positions to train, {} to test",
        files.len(),
        train.len(),
        test.len()
    );
    let mut searched = fitted;
    searched[K - 1] = 0.0;
    let (summed_train, summed_test) = (summed(&train), summed(&test));
    println!("| evaluation | train log-loss | test log-loss |");
    println!("|---|---:|---:|");
    let rows = [
        (
            "hand-set sum / 200 (`eval_scale` 200)",
            &train,
            &test,
            &hand,
        ),
        (
            "fitted weights, as the search reads them",
            &train,
            &test,
            &searched,
        ),
        (
            "with the pairing term: fitted weights",
            &train,
            &test,
            &fitted,
        ),
        (
            "with the pairing term: hand-set sum, best scale",
            &summed_train,
            &summed_test,
            &scaled,
        ),
    ];
    for (name, train, test, w) in rows {
        println!(
            "| {name} | {:.4} | {:.4} |",
            log_loss(train, w),
            log_loss(test, w)
        );
    }
    println!(
        "(best scale of the hand-set sum: {:.0} points per logistic unit)",
        POINTS / scaled[1]
    );
    println!(
        "\nweights (logistic units per 100 points): intercept {:.4}",
        fitted[0]
    );
    for (name, w) in TERMS.iter().zip(&fitted[1..]) {
        println!("  {name}: {w:.4}");
    }
    println!("  (search bot against greedy: {:.4})", fitted[K - 1]);
    println!("as an array: {fitted:?}");
}

/// Adds a sample at the start of every turn of the game in `path`.
fn samples(path: &Path, out: &mut Vec<Sample>) -> Result<(), String> {
    let (record, game) = load_record(path)?;
    let mut s = game.initial_state(&record.deal);
    for step in &record.steps {
        let before = s.turn();
        let d = Decision::parse(step, game.terrain()).map_err(|e| format!("{step}: {e}"))?;
        game.apply(&mut s, d).map_err(|e| format!("{step}: {e}"))?;
        if s.phase() == Phase::Action && s.turn() != before {
            let me = s.active().opponent();
            let terms = evaluation_terms(&game, &Observation::new(&s, me), &s);
            let mut x = [1.0; K];
            for (xi, &t) in x[1..].iter_mut().zip(&terms) {
                *xi = f64::from(t) / POINTS;
            }
            x[K - 1] = strength_side(&record.players, me);
            let y = match record.result.winner {
                Some(w) if w == me => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            out.push(Sample { x, y });
        }
    }
    Ok(())
}

/// +1 when `me` is a search bot playing `greedy`, -1 the other way round, 0 otherwise: the
/// records mostly pit a search bot against `greedy`, and which side a player is on predicts the
/// result by itself. Fitted alongside the terms so that their weights are read within a
/// pairing; left out of the evaluation.
fn strength_side(players: &[String; 2], me: Colour) -> f64 {
    let greedy = |c: Colour| players[c.index()] == "greedy";
    match (greedy(me), greedy(me.opponent())) {
        (false, true) => 1.0,
        (true, false) => -1.0,
        _ => 0.0,
    }
}

fn predict(w: &[f64; K], x: &[f64; K]) -> f64 {
    let z: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
    1.0 / (1.0 + (-z).exp())
}

fn log_loss(samples: &[Sample], w: &[f64; K]) -> f64 {
    let eps = 1e-12;
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = predict(w, &s.x).clamp(eps, 1.0 - eps);
            -(s.y * p.ln() + (1.0 - s.y) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// Ridge-regularised logistic regression by Newton's method.
fn fit(samples: &[Sample]) -> [f64; K] {
    let mut w = [0.0; K];
    for _ in 0..50 {
        let mut grad = [0.0; K];
        let mut hess = [[0.0; K]; K];
        for s in samples {
            let p = predict(&w, &s.x);
            let v = p * (1.0 - p);
            for (i, row) in hess.iter_mut().enumerate() {
                grad[i] += (p - s.y) * s.x[i];
                for (h, xj) in row.iter_mut().zip(&s.x) {
                    *h += v * s.x[i] * xj;
                }
            }
        }
        let n = samples.len() as f64;
        for (i, row) in hess.iter_mut().enumerate() {
            grad[i] = grad[i] / n + RIDGE * w[i];
            for h in row.iter_mut() {
                *h /= n;
            }
            row[i] += RIDGE;
        }
        let step = solve(hess, grad);
        for i in 0..K {
            w[i] -= step[i];
        }
        if step.iter().map(|d| d.abs()).fold(0.0, f64::max) < 1e-9 {
            break;
        }
    }
    w
}
