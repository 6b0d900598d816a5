//! Fitting the rack model (`model::rack`) to the true racks of recorded games.
//!
//! At every decision, the deciding player sees how many of the opponent's rack tiles are
//! hidden (`H`) and which of the opponent's tiles are unseen (`u[t]` per troop: the hidden rack,
//! the reserve and the removed tiles); the record knows how many of each troop the hidden rack
//! really held (`h[t]`). A determinization deals the `H` tiles from the unseen ones with odds
//! `w[t]` per troop, so the model is scored and fitted by the probability of `h` under those
//! odds, Fisher's noncentral hypergeometric distribution:
//! `P(h) = Π C(u[t], h[t]) w[t]^h[t] / Σ over every h' of H tiles of the same product`.
//! Its log is concave in the log-odds, whose gradient is `h[t] − E[h[t]]`; both are computed by
//! multiplying the troops' small generating polynomials, cut at degree `H`.

use super::policy::Split;
use super::positions::for_each_record;
use super::DatasetError;
use crate::info::Observation;
use crate::model::encoding::{encode, Input, BOARD_END};
use crate::model::rack::{RackModel, RACK_INPUTS};
use crate::record::{replay, GameRecord};
use crate::rules::{Decision, Game, State, TroopCounts};
use crate::vocabulary::Troop;
use std::path::Path;

/// Most tiles a rack holds (R4.4), so the highest degree a polynomial keeps.
const MAX_HELD: usize = 8;

/// Positions for the rack model: at each decision, the deciding player's game-wide inputs and
/// the opponent's unseen and truly hidden rack tiles per troop.
#[derive(Clone, Debug, Default)]
pub struct RackData {
    /// The game-wide inputs of every position, one after the other (index from `BOARD_END`).
    entries: Vec<(u8, f32)>,
    /// Where each position's entries end.
    end: Vec<usize>,
    unseen: Vec<[u8; 8]>,
    held: Vec<[u8; 8]>,
    games: Vec<u32>,
    game_count: u32,
}

impl RackData {
    /// No positions.
    pub fn new() -> RackData {
        RackData::default()
    }

    /// Positions.
    pub fn len(&self) -> usize {
        self.end.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }

    /// Games added.
    pub fn games(&self) -> u32 {
        self.game_count
    }

    /// Adds the positions of `record`, replayed on `game`: every decision where some of the
    /// opponent's rack is hidden and could have been other tiles.
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let mut state = game.initial_state(&record.deal);
        let mut input = Input::default();
        for step in &record.steps {
            if !state.is_chance() && !state.is_over() {
                self.add_position(game, &state, &mut input);
            }
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
        }
        self.game_count += 1;
        Ok(())
    }

    /// Adds every record under `dir` (as `Dataset::add_records_under` reads them). Returns the
    /// number of records; at the first record refused, the error names it.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        for_each_record(dir, |game, record, _| self.add_record(game, record))
    }

    fn add_position(&mut self, game: &Game, state: &State, input: &mut Input) {
        let me = state.active();
        let them = me.opponent();
        let obs = Observation::new(state, me);
        let unseen = obs.unseen(them);
        let hidden = state
            .rack(them)
            .minus(&state.public_rack(them))
            .unwrap_or_default();
        if hidden.total() == 0 || unseen.total() <= hidden.total() {
            return;
        }
        encode(game, &obs, input);
        self.entries.extend(
            input
                .nonzero()
                .filter(|&(i, _)| i >= BOARD_END)
                .map(|(i, v)| ((i - BOARD_END) as u8, v)),
        );
        self.end.push(self.entries.len());
        self.unseen.push(counts(unseen));
        self.held.push(counts(hidden));
        self.games.push(self.game_count);
    }

    fn entries(&self, k: usize) -> &[(u8, f32)] {
        let start = if k == 0 { 0 } else { self.end[k - 1] };
        &self.entries[start..self.end[k]]
    }
}

fn counts(c: TroopCounts) -> [u8; 8] {
    Troop::ALL.map(|t| c.get(t))
}

/// A polynomial in the number of hidden tiles, cut at degree [`MAX_HELD`].
type Poly = [f64; MAX_HELD + 1];

/// `Σ_k C(u, k) (e^l)^k x^k`, the ways troop `t` contributes k hidden tiles.
fn troop_poly(u: u8, l: f64) -> Poly {
    let mut p = [0.0; MAX_HELD + 1];
    let mut c = 1.0;
    for (k, slot) in p.iter_mut().enumerate().take(usize::from(u) + 1) {
        *slot = c * (l * k as f64).exp();
        c = c * f64::from(u - k as u8) / (k as f64 + 1.0);
    }
    p
}

fn times(a: &Poly, b: &Poly) -> Poly {
    let mut out = [0.0; MAX_HELD + 1];
    for (i, x) in a.iter().enumerate().filter(|(_, x)| **x != 0.0) {
        for (j, y) in b.iter().enumerate().take(MAX_HELD + 1 - i) {
            out[i + j] += x * y;
        }
    }
    out
}

/// The log-probability of the hidden rack `held` dealt from `unseen` with `log_odds`, and the
/// expected count of each troop in such a deal (the gradient is `held − expected`).
pub fn likelihood(unseen: &[u8; 8], held: &[u8; 8], log_odds: &[f64; 8]) -> (f64, [f64; 8]) {
    let n = held.iter().map(|&h| usize::from(h)).sum::<usize>();
    // The odds matter only relative to each other; the largest at 1 keeps the terms in range.
    let top = log_odds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let polys: [Poly; 8] = std::array::from_fn(|t| troop_poly(unseen[t], log_odds[t] - top));
    let mut one = [0.0; MAX_HELD + 1];
    one[0] = 1.0;
    let mut prefix = [one; 9];
    for t in 0..8 {
        prefix[t + 1] = times(&prefix[t], &polys[t]);
    }
    let mut suffix = one;
    let z = prefix[8][n];
    let mut expected = [0.0; 8];
    for t in (0..8).rev() {
        // The other troops' polynomial, and the weight of t giving k of the n tiles.
        let others = times(&prefix[t], &suffix);
        expected[t] = (1..=usize::from(unseen[t]).min(n))
            .map(|k| k as f64 * polys[t][k] * others[n - k])
            .sum::<f64>()
            / z;
        suffix = times(&suffix, &polys[t]);
    }
    let mut log_p = -z.ln();
    for t in 0..8 {
        log_p += polys[t][usize::from(held[t])].ln();
    }
    (log_p, expected)
}

/// How well some odds predict the hidden racks of a split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RackScore {
    /// Positions scored.
    pub positions: usize,
    /// Mean negative log-probability of the true hidden rack, in nats.
    pub loss: f64,
}

/// How `log_odds(k)` (per troop, for position k) predicts the racks of `split`.
pub fn score_with(
    data: &RackData,
    split: Split,
    log_odds: impl Fn(usize) -> [f64; 8],
) -> RackScore {
    let ks: Vec<usize> = (0..data.len())
        .filter(|&k| split.takes(data.games[k]))
        .collect();
    let total: f64 = ks
        .iter()
        .map(|&k| -likelihood(&data.unseen[k], &data.held[k], &log_odds(k)).0)
        .sum();
    RackScore {
        positions: ks.len(),
        loss: total / ks.len().max(1) as f64,
    }
}

/// How `model` predicts the racks of `split`.
pub fn score(model: &RackModel, data: &RackData, split: Split) -> RackScore {
    score_with(data, split, |k| log_odds(model, data.entries(k)))
}

fn log_odds(model: &RackModel, entries: &[(u8, f32)]) -> [f64; 8] {
    let mut out = model.bias();
    for &(i, x) in entries {
        for (o, w) in out.iter_mut().zip(&model.weights()[usize::from(i)]) {
            *o += w * f64::from(x);
        }
    }
    out
}

/// How [`fit_rack`] trains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RackFit {
    /// Ridge penalty on the squared weights (not the biases), per position.
    pub ridge: f64,
    /// Full passes over the training positions.
    pub epochs: u32,
    /// Adam's step size.
    pub step: f64,
}

impl Default for RackFit {
    fn default() -> Self {
        RackFit {
            ridge: 1e-3,
            epochs: 300,
            step: 0.05,
        }
    }
}

/// The model that fits the racks of `split` best (largest mean log-likelihood less the ridge
/// penalty), by full-batch Adam from zero weights. Deterministic: the same data give the same
/// model.
pub fn fit_rack(data: &RackData, split: Split, fit: RackFit) -> RackModel {
    let ks: Vec<usize> = (0..data.len())
        .filter(|&k| split.takes(data.games[k]))
        .collect();
    let params = 8 * (RACK_INPUTS + 1);
    let mut theta = vec![0.0; params];
    let (mut m, mut v) = (vec![0.0; params], vec![0.0; params]);
    let (b1, b2) = (0.9_f64, 0.999_f64);
    for epoch in 1..=fit.epochs {
        let model = model_of(&theta);
        let mut gradient = vec![0.0; params];
        for &k in &ks {
            let entries = data.entries(k);
            let (_, expected) =
                likelihood(&data.unseen[k], &data.held[k], &log_odds(&model, entries));
            for t in 0..8 {
                let g = f64::from(data.held[k][t]) - expected[t];
                gradient[t] += g;
                for &(i, x) in entries {
                    gradient[8 * (usize::from(i) + 1) + t] += g * f64::from(x);
                }
            }
        }
        let n = ks.len().max(1) as f64;
        for (j, g) in gradient.iter_mut().enumerate() {
            // Ascent on the mean log-likelihood; the ridge spares the biases (j < 8).
            *g = *g / n - if j < 8 { 0.0 } else { fit.ridge * theta[j] };
            m[j] = b1 * m[j] + (1.0 - b1) * *g;
            v[j] = b2 * v[j] + (1.0 - b2) * *g * *g;
            let m_hat = m[j] / (1.0 - b1.powi(epoch as i32));
            let v_hat = v[j] / (1.0 - b2.powi(epoch as i32));
            theta[j] += fit.step * m_hat / (v_hat.sqrt() + 1e-8);
        }
    }
    model_of(&theta)
}

fn model_of(theta: &[f64]) -> RackModel {
    let bias: [f64; 8] = theta[..8].try_into().expect("eight biases");
    let rows = theta[8..]
        .chunks_exact(8)
        .map(|r| r.try_into().expect("rows of eight"))
        .collect();
    RackModel::new(bias, rows).expect("a fit keeps finite weights of the encoding's shape")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probability of a hidden rack, counted by hand: 2 tiles from unseen {A, A, B}.
    #[test]
    fn the_likelihood_is_fishers_noncentral_hypergeometric() {
        let mut unseen = [0; 8];
        unseen[0] = 2;
        unseen[1] = 1;
        // Odds: B three times as likely as A. Racks: AA (1 way, weight 1), AB (2 ways, 3 each).
        let mut odds = [0.0; 8];
        odds[1] = 3.0_f64.ln();
        let mut aa = [0; 8];
        aa[0] = 2;
        let (log_p, expected) = likelihood(&unseen, &aa, &odds);
        assert!((log_p.exp() - 1.0 / 7.0).abs() < 1e-12, "{}", log_p.exp());
        // E[A] = (2·1 + 1·6) / 7, E[B] = 6 / 7.
        assert!((expected[0] - 8.0 / 7.0).abs() < 1e-12);
        assert!((expected[1] - 6.0 / 7.0).abs() < 1e-12);
    }

    /// Sampled racks with known odds: the fit finds them back (up to a common shift).
    #[test]
    fn the_fit_finds_back_the_odds_the_racks_were_dealt_with() {
        use rand::{Rng, SeedableRng};
        let truth: [f64; 8] = [0.0, -1.0, 0.5, 0.0, 1.0, 0.0, -0.5, 0.0];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut data = RackData::new();
        for _ in 0..4000 {
            let unseen = [3u8; 8];
            // Sequential weighted draws of 4 tiles (close to, not exactly, Fisher's odds).
            let mut left = unseen.map(f64::from);
            let mut held = [0u8; 8];
            for _ in 0..4 {
                let w: Vec<f64> = (0..8).map(|t| left[t] * truth[t].exp()).collect();
                let mut r = rng.random::<f64>() * w.iter().sum::<f64>();
                let t = (0..8).find(|&t| {
                    r -= w[t];
                    r < 0.0
                });
                let t = t.unwrap_or(7);
                left[t] -= 1.0;
                held[t] += 1;
            }
            data.end.push(data.entries.len());
            data.unseen.push(unseen);
            data.held.push(held);
            data.games.push(data.game_count);
            data.game_count += 1;
        }
        let model = fit_rack(&data, Split::All, RackFit::default());
        let b = model.bias();
        for t in 0..8 {
            let found = b[t] - b[0];
            assert!(
                (found - truth[t]).abs() < 0.2,
                "troop {t}: {found} for {}",
                truth[t]
            );
        }
        let fixed = score(&RackModel::fixed(truth), &data, Split::All).loss;
        let uniform = score(&RackModel::fixed([0.0; 8]), &data, Split::All).loss;
        assert!(score(&model, &data, Split::All).loss <= fixed + 1e-3);
        assert!(fixed < uniform);
    }
}
