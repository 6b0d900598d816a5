//! Fitting the greedy playouts' term weights to the decisions the search chose in self-play.
//!
//! A greedy playout (`playout = "greedy-effects"`) picks, for either player, the decision whose
//! position scores best under the `greedy` bot's evaluation: the plain sum of seven terms
//! (medals, rack, presence, regions, race, threats, exposure). The search that these playouts
//! serve chooses better than the playouts do. Expert iteration makes the cheap policy imitate
//! the expensive one: at every recorded decision where the greedy rules compare candidates,
//! each legal decision is played as a greedy-effects playout plays it and the terms of the
//! position it reaches are kept, with the decision the search played. The weights are those of
//! a conditional logit (the probability of a decision proportional to `exp(Σ weight × term)`)
//! of greatest likelihood, with a small ridge penalty, by Newton's method; a search reads them
//! as `playout_weights`, which only their ratios matter to (the playout takes the best score).

use super::policy::Split;
use super::positions::{for_each_record, DatasetError};
use crate::bot::greedy::{Horizon, Judge, TERMS};
use crate::info::Observation;
use crate::record::GameRecord;
use crate::rules::{Decision, DecisionList, Game};
use crate::vocabulary::linear::solve;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;

/// Terms of the evaluation, the model's features.
const K: usize = TERMS.len();

/// Positions for the playout weights: at each, the terms every candidate reaches and which one
/// the search played.
#[derive(Clone, Debug, Default)]
pub struct PlayoutData {
    /// Terms of the candidates of position `k`: `terms[start[k]..start[k + 1]]`.
    terms: Vec<[f64; K]>,
    start: Vec<usize>,
    /// The played candidate of each position, counted within it.
    played: Vec<u16>,
    /// The game of each position, counting from 0 in the order games were added.
    games: Vec<u32>,
    game_count: u32,
}

impl PlayoutData {
    /// No positions.
    pub fn new() -> PlayoutData {
        PlayoutData {
            start: vec![0],
            ..PlayoutData::default()
        }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.played.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.played.is_empty()
    }

    /// Games added.
    pub fn games(&self) -> u32 {
        self.game_count
    }

    /// Adds the positions of `record`, replayed on `game`: each decision where the greedy
    /// rules compare candidates (`Judge::candidate_terms`), judged from the decider's
    /// observation; the chance of Skully's and Star's turns is sampled from a seed of the
    /// game's number among those added, so the same records give the same data.
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        let mut state = game.initial_state(&record.deal);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(u64::from(self.game_count));
        for step in &record.steps {
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            if !state.is_chance() && !state.is_over() {
                let judge = Judge::new(game, &Observation::new(&state, state.active()));
                let mut list = DecisionList::new();
                game.legal_decisions(&state, &mut list);
                if let Some(terms) =
                    judge.candidate_terms(&state, &mut list, Horizon::Effects, &mut rng)
                {
                    if let Some(at) = list.iter().position(|&l| l == d) {
                        self.add_position(&terms, at);
                    }
                }
            }
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
        }
        self.game_count += 1;
        Ok(())
    }

    fn add_position(&mut self, terms: &[[i32; K]], played: usize) {
        self.terms
            .extend(terms.iter().map(|t| t.map(|v| f64::from(v) / TERM_UNIT)));
        self.start.push(self.terms.len());
        self.played.push(played as u16);
        self.games.push(self.game_count);
    }

    /// Adds the positions of every record under `dir` (a run folder's `records`, or any folder
    /// of records, read recursively, in sorted order). Returns the number of records; at the
    /// first record refused, the error names it and the records before it stay added.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        for_each_record(dir, |game, record, _| self.add_record(game, record))
    }

    fn candidates(&self, k: usize) -> &[[f64; K]] {
        &self.terms[self.start[k]..self.start[k + 1]]
    }
}

/// Evaluation points per feature unit: one medal is 100 points, so a weight of 1 per medal is
/// a modest log-odds, and the ridge penalty is on that scale.
const TERM_UNIT: f64 = 100.0;

/// How well weights predict the played decisions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutScore {
    /// Positions scored.
    pub positions: usize,
    /// Mean negative log-likelihood of the played decision under the conditional logit, in nats
    /// (for weights read as a playout reads them, `None`: the playout takes the best score).
    pub loss: Option<f64>,
    /// Share of positions where the played decision scores best (ties share it): how often a
    /// playout with these weights plays what the search played.
    pub top1: f64,
}

/// How `weights` (per term, as `playout_weights` writes them) predict the played decisions of
/// `split`: the top-1 share always, the loss where `logit` (the weights are a fitted model's
/// log-odds, not only ratios).
pub fn score(data: &PlayoutData, split: Split, weights: &[f64; K], logit: bool) -> PlayoutScore {
    let (mut positions, mut loss, mut top1) = (0usize, 0.0, 0.0);
    for k in (0..data.len()).filter(|&k| split.takes(data.games[k])) {
        let z: Vec<f64> = data.candidates(k).iter().map(|t| dot(weights, t)).collect();
        let chosen = z[usize::from(data.played[k])];
        let best = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // Scores equal up to rounding tie, as the playout's integer points would.
        let ties = z.iter().filter(|&&v| (v - best).abs() < 1e-9).count();
        if (chosen - best).abs() < 1e-9 {
            top1 += 1.0 / ties as f64;
        }
        loss += log_sum_exp(&z) - chosen;
        positions += 1;
    }
    let n = positions.max(1) as f64;
    PlayoutScore {
        positions,
        loss: logit.then_some(loss / n),
        top1: top1 / n,
    }
}

fn dot(w: &[f64; K], t: &[f64; K]) -> f64 {
    w.iter().zip(t).map(|(a, b)| a * b).sum()
}

fn log_sum_exp(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

/// The weights (per term, on the evaluation's points) of greatest likelihood of the played
/// decisions of `split`, less `ridge` × their squared size (per medal's worth, 100 points),
/// by Newton's method from zero. Deterministic: the same data give the same weights.
pub fn fit_playout(data: &PlayoutData, split: Split, ridge: f64) -> [f64; K] {
    let mut theta = [0.0; K];
    for _ in 0..100 {
        let (gradient, mut hessian) = derivatives(data, split, &theta, ridge);
        for (i, row) in hessian.iter_mut().enumerate() {
            for (j, h) in row.iter_mut().enumerate() {
                *h = -*h + if i == j { 1e-12 } else { 0.0 };
            }
        }
        let step = solve(hessian, gradient);
        // A damped step: the loss threats' terms are large, so a full step can overshoot.
        let size = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        let damp = if size > 1.0 { 1.0 / size } else { 1.0 };
        theta.iter_mut().zip(step).for_each(|(t, s)| *t += damp * s);
        if size < 1e-9 {
            break;
        }
    }
    theta
}

/// The gradient and Hessian of the penalised log-likelihood at `theta`.
fn derivatives(
    data: &PlayoutData,
    split: Split,
    theta: &[f64; K],
    ridge: f64,
) -> ([f64; K], [[f64; K]; K]) {
    let mut g = theta.map(|t| -2.0 * ridge * t);
    let mut h = [[0.0; K]; K];
    for (i, row) in h.iter_mut().enumerate() {
        row[i] = -2.0 * ridge;
    }
    for k in (0..data.len()).filter(|&k| split.takes(data.games[k])) {
        let candidates = data.candidates(k);
        let z: Vec<f64> = candidates.iter().map(|t| dot(theta, t)).collect();
        let norm = log_sum_exp(&z);
        let p: Vec<f64> = z.iter().map(|v| (v - norm).exp()).collect();
        let mut mean = [0.0; K];
        for (pi, t) in p.iter().zip(candidates) {
            for j in 0..K {
                mean[j] += pi * t[j];
            }
        }
        let played = &candidates[usize::from(data.played[k])];
        for j in 0..K {
            g[j] += played[j] - mean[j];
        }
        for (pi, t) in p.iter().zip(candidates) {
            for a in 0..K {
                for b in 0..K {
                    h[a][b] -= pi * (t[a] - mean[a]) * (t[b] - mean[b]);
                }
            }
        }
    }
    (g, h)
}

/// `theta` as `playout_weights`: only the ratios matter to a playout, so the weights are
/// scaled to put the largest in size at 1, rounded to the judge's millionths.
pub fn as_playout_weights(theta: &[f64; K]) -> [f64; K] {
    let top = theta.iter().map(|t| t.abs()).fold(0.0, f64::max);
    theta.map(|t| {
        if top > 0.0 {
            (t / top * 1e6).round() / 1e6
        } else {
            1.0
        }
    })
}
