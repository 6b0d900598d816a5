//! Tuning the greedy rules' term weights by self-play (SPSA).
//!
//! The `greedy` bot, and the greedy playouts of the search, pick the decision whose position
//! scores best under an evaluation of seven terms whose weights were set by hand. Here the
//! weights learn from the outcomes of the bot's own games: simultaneous perturbation
//! stochastic approximation (Spall's SPSA). At each step every log-weight is moved up or down
//! by the same small amount, at random; the bot with the weights moved one way plays the bot
//! with them moved the other way on paired deals of every terrain (each deal twice, the seats
//! swapped), and the log-weights step along the perturbation in proportion to how much the
//! first side scored above one half. A greedy game takes well under a millisecond, so
//! thousands of games a step cost seconds. Whether weights that make the greedy bot stronger
//! also make better playouts for the search is measured by a match (results/learning.md).

use crate::bot::greedy::{term_weights, GreedyBot, TERMS};
use crate::bot::play::{play_game, PlayConfig};
use crate::bot::{Budget, Player};
use crate::rules::{Colour, Deal, Game, Variant};
use crate::terrain::builtin_terrains;
use crate::tournament::stats::Pentanomial;
use crate::vocabulary::ByColour;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// Terms of the evaluation.
const K: usize = TERMS.len();
/// Smallest and largest log-weight of a term: weights from e⁻³ to 4, within what a search
/// preset's `playout_weights` takes.
const LOG_RANGE: (f64, f64) = (-3.0, 1.386);

/// The settings of a tuning run.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Steps of SPSA.
    pub steps: u32,
    /// Deals per terrain and step, each played twice with the seats swapped.
    pub deals: u32,
    /// Size of the perturbation of each log-weight at the first step (it shrinks slowly).
    pub perturbation: f64,
    /// Step size at the first step (it shrinks as the steps go).
    pub rate: f64,
    /// Seed of the perturbations and the deals.
    pub seed: u64,
    /// The variant played.
    pub variant: Variant,
}

/// One step of a tuning run, as it is reported.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneStep {
    /// The step, from 1.
    pub step: u32,
    /// Score of the weights moved up the perturbation against those moved down.
    pub score: f64,
    /// The weights after the step (multipliers of the hand-set terms).
    pub weights: [f64; K],
}

/// Runs `config`'s steps from the hand-set weights, reporting each, and returns the weights
/// (multipliers of the hand-set terms). Deterministic: the same config gives the same weights.
pub fn tune_greedy(config: &TuneConfig, mut report: impl FnMut(&TuneStep)) -> [f64; K] {
    let mut theta = [0.0; K];
    tune_steps(config, &mut theta, 0..config.steps, &mut report);
    theta_weights(&theta)
}

/// SPSA's steps `steps` (counted from 0 over a whole run) from the log-weights `theta`,
/// reporting each: a step depends only on the config, its number and `theta`, so a run taken
/// up again from a step's `theta` goes on as if it had never stopped.
pub(crate) fn tune_steps(
    config: &TuneConfig,
    theta: &mut [f64; K],
    steps: std::ops::Range<u32>,
    report: &mut impl FnMut(&TuneStep),
) {
    let games = games_of(config.variant);
    for k in steps {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            config.seed ^ u64::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        // Spall's gains: the step falls as k^0.602, the perturbation as k^0.101.
        let a = config.rate / (f64::from(k) + 10.0).powf(0.602);
        let c = config.perturbation / (f64::from(k) + 1.0).powf(0.101);
        let delta: [f64; K] =
            std::array::from_fn(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 });
        let plus = theta_weights(&std::array::from_fn(|i| theta[i] + c * delta[i]));
        let minus = theta_weights(&std::array::from_fn(|i| theta[i] - c * delta[i]));
        let score = match_score(&games, plus, minus, config.deals, rng.random());
        for i in 0..K {
            theta[i] =
                (theta[i] + a * (score - 0.5) / (c * delta[i])).clamp(LOG_RANGE.0, LOG_RANGE.1);
        }
        report(&TuneStep {
            step: k + 1,
            score,
            weights: theta_weights(theta),
        });
    }
}

/// The score of greedy with `a` against greedy with `b` (multipliers of the hand-set terms)
/// over `deals` deals of every terrain of `variant`, each played twice with the seats swapped;
/// the deals come from `seed`.
pub fn greedy_match(a: [f64; K], b: [f64; K], deals: u32, seed: u64, variant: Variant) -> f64 {
    match_score(&games_of(variant), a, b, deals, seed)
}

fn games_of(variant: Variant) -> Vec<Game> {
    builtin_terrains()
        .iter()
        .map(|t| Game::builtin(&t.key, variant).expect("a shipped terrain"))
        .collect()
}

pub(crate) fn theta_weights(theta: &[f64; K]) -> [f64; K] {
    theta.map(|t| (t.exp() * 1e6).round() / 1e6)
}

fn match_score(games: &[Game], a: [f64; K], b: [f64; K], deals: u32, seed: u64) -> f64 {
    let pairs = match_pairs(games, a, b, deals, seed);
    // Half-points counted exactly, as whole numbers: the same score on every machine.
    let half_points: u64 = (0..5).map(|i| i as u64 * pairs.counts[i]).sum();
    half_points as f64 / (4.0 * pairs.pairs() as f64)
}

/// The pairs of greedy with `a` against greedy with `b` over `deals` deals of every terrain of
/// `variant`, each deal played twice with the seats swapped; the deals come from `seed`.
pub fn greedy_pairs(
    a: [f64; K],
    b: [f64; K],
    deals: u32,
    seed: u64,
    variant: Variant,
) -> Pentanomial {
    match_pairs(&games_of(variant), a, b, deals, seed)
}

fn match_pairs(games: &[Game], a: [f64; K], b: [f64; K], deals: u32, seed: u64) -> Pentanomial {
    let jobs: Vec<(usize, u64)> = (0..games.len())
        .flat_map(|g| (0..u64::from(deals)).map(move |d| (g, d)))
        .collect();
    jobs.par_iter()
        .map(|&(g, d)| {
            let deal = Deal::from_seed(seed ^ (g as u64) << 40 ^ d);
            let [first, second] = pair_scores(&games[g], &deal, a, b);
            let mut pair = Pentanomial::default();
            pair.add_pair(first, second);
            pair
        })
        .reduce(Pentanomial::default, |mut x, y| {
            x.merge(&y);
            x
        })
}

/// The scores of `a` (1 a win, ½ a game stopped by the turn cap) in the two games of `deal`.
fn pair_scores(game: &Game, deal: &Deal, a: [f64; K], b: [f64; K]) -> [f64; 2] {
    let config = PlayConfig {
        max_turns: 300,
        budgets: ByColour::new(Budget::iterations(1), Budget::iterations(1)),
        check: false,
    };
    let bot = |w: [f64; K]| Player::Fair(Box::new(GreedyBot::weighted("greedy", term_weights(&w))));
    [false, true].map(|a_red| {
        let (mut first, mut second) = (bot(a), bot(b));
        let players = if a_red {
            [&mut second, &mut first]
        } else {
            [&mut first, &mut second]
        };
        let played = play_game(game, deal, &mut { players }, &config);
        let a_colour = if a_red { Colour::Red } else { Colour::Blue };
        match played.record.result.winner {
            Some(w) if w == a_colour => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    })
}
