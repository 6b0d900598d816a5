//! Search bots: flat Monte Carlo, perfect-information Monte Carlo (PIMC), single-observer
//! information-set MCTS (ISMCTS, Cowling, Powley & Whitehouse 2012), and a cheating UCT that
//! sees the referee's true state.
//!
//! Rewards are 1 for a win, 0 for a loss and 0.5 when a playout reaches the turn cap, always for
//! the player who made the decision being scored; values in the [`Analysis`] are therefore the
//! estimated win probability of the deciding player.
//!
//! Every tree (one per root-parallel thread, one per PIMC determinization) gets its own random
//! stream derived from the request's seed and its index, and results are merged in index order,
//! so the same seed, iteration budget, observation and configuration give the same decision
//! whatever the thread scheduling.

mod flat_mc;
mod playout;
mod tree;

use playout::Evaluation;

#[cfg(test)]
mod tests;

use super::greedy::Judge;
use super::{Analysis, Bot, Budget, Candidate, CheatRequest, CheatingBot, Choice, Player, Request};
use crate::info::{Observation, RackBelief};
use crate::rules::{Colour, Decision, DecisionList, Game, State, WinType};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Iterations per decision when the request's budget sets neither iterations nor time.
pub const DEFAULT_ITERATIONS: u64 = 10_000;

/// The search algorithm of a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Flat Monte Carlo: UCB1 over the root decisions, a fresh determinization per playout.
    FlatMc,
    /// Perfect-information Monte Carlo: a UCT tree on each of several determinizations.
    Pimc,
    /// Single-observer information-set MCTS.
    Ismcts,
    /// UCT on the referee's true state: a cheating reference bot.
    CheatUct,
}

impl Algorithm {
    /// The name used in presets and tables, e.g. "ismcts".
    pub fn key(self) -> &'static str {
        match self {
            Algorithm::FlatMc => "flat-mc",
            Algorithm::Pimc => "pimc",
            Algorithm::Ismcts => "ismcts",
            Algorithm::CheatUct => "cheat-uct",
        }
    }
}

/// How playouts choose decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlayoutPolicy {
    /// Uniformly random legal decisions.
    Random,
    /// Random with weights: always take an enemy HQ, strongly prefer placements that take a
    /// region, then covering enemy tiles (see `playout.rs`).
    Heuristic,
    /// Heuristic, plus: always take a medal win, and defend an HQ the opponent can capture next
    /// turn (see `playout.rs`).
    Tactical,
    /// The `greedy` bot's rules for both players, each judging from its own side (see
    /// `playout.rs`); an iteration costs about 30 times as much as with the heuristic.
    Greedy,
}

/// Settings of a search bot, as written in bot presets.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// UCB exploration constant (rewards are in 0..1).
    pub exploration: f64,
    /// PIMC: determinizations (trees) per decision; the iterations are split among them.
    pub determinizations: u32,
    /// Searches run at once on rayon; 1 = sequential. Without `trees`, one tree (or flat
    /// search) per thread: an iteration budget is split among them, a time budget applies to
    /// each.
    pub threads: usize,
    /// ISMCTS, flat MC and cheat-UCT: independent trees (or flat searches) per decision, their
    /// root statistics summed (an ensemble), run `threads` at a time; the iteration budget is
    /// split among them, and each thread's time budget among its trees in turn. 0 = one per
    /// thread. Left out of the serialized form when 0, so that presets written before it keep
    /// their versions.
    #[serde(skip_serializing_if = "is_zero")]
    pub trees: u32,
    pub playout: PlayoutPolicy,
    /// Playouts (and tree descents) stop as a 0.5 reward once this many turns have begun after
    /// the decision's turn.
    pub max_playout_turns: u16,
    /// Tree nodes where a legal decision wins at once (HQ capture, medal objective) follow only
    /// that decision, for either player (see `tree.rs`).
    pub decisive: bool,
    /// Playouts stop after this many turns and score the position with the `greedy` bot's
    /// evaluation as a win probability (see `playout.rs`); 0 = play to the end of the game.
    pub eval_turns: u16,
    /// Evaluation score points per logistic unit (one medal is 100 points).
    pub eval_scale: f64,
    /// Progressive bias: a tree child's UCB score gains `prior × w / (visits + 1)`, where `w` in
    /// 0..1 is its weight under the tactical playout policy, and untried children are expanded
    /// in proportion to that weight (see `tree.rs`); 0 = off (uniform expansion, plain UCB).
    pub prior: f64,
    /// Chance outcomes the searching player sees (its own draws, XB-42 discards, a freeze of
    /// its own tile) branch the tree, so that its later decisions are conditioned on them
    /// (see `tree.rs`); off = every chance outcome is merged, as in the paper. Left out of the
    /// serialized form when off, so that presets written before it keep their versions.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub observed_chance: bool,
    /// Determinizations deal the opponent's rack with [`KEPT_TROOPS`], the odds measured in
    /// self-play that each troop is still on a rack, instead of uniformly; off = uniform.
    /// Left out of the serialized form when off, like `observed_chance`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rack_belief: bool,
    /// Determinizations trust what the opponent's play has shown (`info::RackEvidence`): the
    /// rack tiles they held when they could have won at once are dealt only from troops that
    /// would not have won. Sound against opponents that never miss an immediate win; off =
    /// ignored. Left out of the serialized form when off, like `observed_chance`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rack_evidence: bool,
    /// Cut playouts are scored with [`FITTED_EVAL`], weights fitted to game outcomes, instead
    /// of the hand-set sum of the evaluation's terms over `eval_scale` (which it then ignores).
    /// Left out of the serialized form when off, like `observed_chance`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fitted_eval: bool,
    /// ISMCTS and cheat-UCT: multiple-observer search, one tree per player, each decision
    /// selected in the tree of the player who makes it (see `tree.rs`); off = one tree, as in
    /// single-observer ISMCTS. Left out of the serialized form when off, like `observed_chance`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub multi_observer: bool,
    /// With `multi_observer`: the opponent's tree branches first on the rack the opponent holds
    /// in the determinization, so that its replies are chosen knowing its own tiles. Left out
    /// of the serialized form when off, like `observed_chance`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub opponent_rack: bool,
}

/// Weights of the evaluation with `fitted_eval`: an intercept, then logistic units per 100
/// points of each of the `greedy` evaluation's terms (`bot::greedy::TERMS`: medals, rack,
/// presence, regions, race, threats, exposure), all from the side of the player who has just
/// moved. Fitted by `examples/fit_eval.rs` to 125,000 turn starts of 4,405 recorded games
/// of search bots against `greedy` (results/search-strength.md, sixth round). Next to the
/// hand-set reading (every term at 0.5 per 100 points), it weighs the threats a hundred times
/// less and the bases held four times more.
pub const FITTED_EVAL: [f64; 8] = [-0.291, 0.331, 1.029, 2.092, 0.438, 0.421, 0.0042, 0.575];

/// How much likelier each troop (`Troop::index` order: Kwak, Skully, Cap'n, Jumbo, Hook, XB-42,
/// Star, Roxy) is to be among a player's rack tiles than a uniform deal of their unseen tiles
/// says, times 16: Kwak and Roxy are kept for the end, Cap'n and Skully are played early.
/// Measured over 6,785 decisions of the first 143 games of `ismcts-250k` against `greedy`,
/// both players pooled (each alone gives the same order: Kwak 1.45 and 1.63, Roxy 1.28 and
/// 1.33, Cap'n 0.61 and 0.49); results/search-strength.md, fifth round.
pub const KEPT_TROOPS: [u32; 8] = [25, 12, 9, 15, 16, 13, 15, 21];

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            exploration: 0.7,
            determinizations: 8,
            threads: 1,
            trees: 0,
            playout: PlayoutPolicy::Heuristic,
            max_playout_turns: 200,
            // Both measured against `greedy` at 2,000 iterations (results/search-strength.md):
            // the bias lifts ISMCTS from 54% to 61%, decisive nodes add about 3 points more.
            decisive: true,
            prior: 1.0,
            eval_turns: 0,
            eval_scale: 200.0,
            observed_chance: false,
            rack_belief: false,
            rack_evidence: false,
            fitted_eval: false,
            multi_observer: false,
            opponent_rack: false,
        }
    }
}

/// Largest accepted `exploration`: beyond it UCB is a uniform sweep.
pub const MAX_EXPLORATION: f64 = 100.0;
/// Largest accepted `prior`.
pub const MAX_PRIOR: f64 = 100.0;
/// Largest accepted `determinizations`.
pub const MAX_DETERMINIZATIONS: u32 = 4096;
/// Largest accepted `eval_scale`.
pub const MAX_EVAL_SCALE: f64 = 1e6;
/// Largest accepted `threads`.
pub const MAX_THREADS: usize = 256;
/// Largest accepted `trees`.
pub const MAX_TREES: u32 = 4096;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl SearchConfig {
    /// Checks every field against its valid range; the message names the field and the range.
    pub fn validate(&self) -> Result<(), String> {
        real_in_range("exploration", self.exploration, 0.0, MAX_EXPLORATION)?;
        real_in_range("prior", self.prior, 0.0, MAX_PRIOR)?;
        real_in_range("eval_scale", self.eval_scale, 1.0, MAX_EVAL_SCALE)?;
        if !(1..=MAX_DETERMINIZATIONS).contains(&self.determinizations) {
            return Err(format!(
                "determinizations = {} is out of range: expected 1 to {MAX_DETERMINIZATIONS}",
                self.determinizations
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(format!(
                "threads = {} is out of range: expected 1 to {MAX_THREADS}",
                self.threads
            ));
        }
        if self.trees > MAX_TREES {
            return Err(format!(
                "trees = {} is out of range: expected 0 (one per thread) to {MAX_TREES}",
                self.trees
            ));
        }
        if self.max_playout_turns == 0 {
            return Err(format!(
                "max_playout_turns = 0 is out of range: expected 1 to {}",
                u16::MAX
            ));
        }
        Ok(())
    }
}

/// Checks that a real-valued field is a finite number from `lo` to `hi`; the message names it.
fn real_in_range(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), String> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{field} = {value} is out of range: expected a number from {lo} to {hi}"
        ))
    }
}

/// `value` clamped into `lo..=hi`, or `fallback` when it is not a finite number.
fn clamp_real(value: f64, lo: f64, hi: f64, fallback: f64) -> f64 {
    if value.is_finite() {
        value.clamp(lo, hi)
    } else {
        fallback
    }
}

/// The search bot of `algorithm` as a table seat. `CheatUct` gives `Player::Cheating`, the others
/// `Player::Fair`. `config` should have passed [`SearchConfig::validate`]; out-of-range values
/// are clamped into range. A decision with a single legal option is returned without search, and
/// so is a decision that wins at once by HQ capture or medals (analysis: no iterations, that
/// decision with value 1).
pub fn make_player(name: &str, algorithm: Algorithm, config: &SearchConfig) -> Player {
    let bot = SearchBot {
        name: name.to_string(),
        algorithm,
        config: clamped(config),
    };
    match algorithm {
        Algorithm::CheatUct => Player::Cheating(Box::new(bot)),
        _ => Player::Fair(Box::new(bot)),
    }
}

fn clamped(c: &SearchConfig) -> SearchConfig {
    let default = SearchConfig::default();
    SearchConfig {
        exploration: clamp_real(c.exploration, 0.0, MAX_EXPLORATION, default.exploration),
        determinizations: c.determinizations.clamp(1, MAX_DETERMINIZATIONS),
        threads: c.threads.clamp(1, MAX_THREADS),
        trees: c.trees.min(MAX_TREES),
        playout: c.playout,
        max_playout_turns: c.max_playout_turns.max(1),
        decisive: c.decisive,
        eval_turns: c.eval_turns,
        eval_scale: clamp_real(c.eval_scale, 1.0, MAX_EVAL_SCALE, default.eval_scale),
        prior: clamp_real(c.prior, 0.0, MAX_PRIOR, 0.0),
        observed_chance: c.observed_chance,
        rack_belief: c.rack_belief,
        rack_evidence: c.rack_evidence,
        fitted_eval: c.fitted_eval,
        multi_observer: c.multi_observer,
        opponent_rack: c.opponent_rack,
    }
}

struct SearchBot {
    name: String,
    algorithm: Algorithm,
    config: SearchConfig,
}

impl Bot for SearchBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &Request) -> Choice {
        let belief = if self.config.rack_belief {
            RackBelief::new(KEPT_TROOPS).expect("weights in range")
        } else {
            RackBelief::UNIFORM
        };
        let belief = if self.config.rack_evidence {
            belief.trusting_evidence()
        } else {
            belief
        };
        let root = Root::Observation(request.observation, belief);
        search(
            request.game,
            root,
            self.algorithm,
            &self.config,
            request.budget,
            request.seed,
            request.cancel,
        )
    }
}

impl CheatingBot for SearchBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &CheatRequest) -> Choice {
        search(
            request.game,
            Root::State(request.state),
            self.algorithm,
            &self.config,
            request.budget,
            request.seed,
            None,
        )
    }
}

/// Where the states of a search come from.
#[derive(Clone, Copy)]
pub(crate) enum Root<'a> {
    /// A fresh determinization of the observation per sample, the opponent's rack dealt with
    /// the belief's odds.
    Observation(&'a Observation, RackBelief),
    /// Always this state (cheating, or one PIMC determinization).
    State(&'a State),
}

impl Root<'_> {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> State {
        match self {
            Root::Observation(o, belief) => o.determinize_with(belief, rng),
            Root::State(s) => **s,
        }
    }

    /// The player deciding at the root.
    fn active(&self) -> Colour {
        match self {
            Root::Observation(o, _) => o.active(),
            Root::State(s) => s.active(),
        }
    }

    fn legal_decisions(&self, game: &Game, out: &mut DecisionList) {
        match self {
            Root::Observation(o, _) => o.legal_decisions(game, out),
            Root::State(s) => game.legal_decisions(s, out),
        }
    }
}

/// Settings shared by every tree of one search.
#[derive(Clone, Copy)]
pub(crate) struct Settings<'a> {
    pub game: &'a Game,
    pub exploration: f64,
    pub playout: PlayoutPolicy,
    /// Playouts stop once `s.turn()` exceeds this.
    pub last_turn: u16,
    /// `SearchConfig::decisive`.
    pub decisive: bool,
    /// `SearchConfig::prior`.
    pub prior: f64,
    /// `SearchConfig::observed_chance`.
    pub observed_chance: bool,
    /// `SearchConfig::multi_observer`.
    pub multi_observer: bool,
    /// `SearchConfig::opponent_rack`.
    pub opponent_rack: bool,
    /// With `PlayoutPolicy::Greedy`: the greedy rules of each player, by `Colour::index`.
    pub greedy: Option<&'a [Judge<'a>; 2]>,
    /// `SearchConfig::eval_turns` and `eval_scale`, when on.
    pub evaluation: Option<Evaluation<'a>>,
}

#[cfg(test)]
impl<'a> Settings<'a> {
    /// Settings of a plain search for tests: the default exploration, heuristic playouts to
    /// the end, both tree guides, no option.
    pub(crate) fn plain(game: &'a Game) -> Settings<'a> {
        Settings {
            game,
            exploration: 0.7,
            playout: PlayoutPolicy::Heuristic,
            last_turn: u16::MAX,
            decisive: true,
            prior: 1.0,
            observed_chance: false,
            multi_observer: false,
            opponent_rack: false,
            greedy: None,
            evaluation: None,
        }
    }
}

/// When a tree stops: after `iterations`, at `deadline`, or once `cancel` is set, whichever comes
/// first. The first tree of a search is always given at least one iteration, so every search has
/// a result.
#[derive(Clone, Copy)]
pub(crate) struct Stop<'a> {
    pub iterations: u64,
    pub deadline: Option<Instant>,
    pub cancel: Option<&'a AtomicBool>,
}

impl Stop<'_> {
    /// Whether to stop before iteration `done` (0-based). The clock and the cancel flag are read
    /// every 16 iterations.
    #[inline]
    pub fn reached(&self, done: u64) -> bool {
        if done >= self.iterations {
            return true;
        }
        if done == 0 || !done.is_multiple_of(16) {
            return false;
        }
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Visits and summed reward of each root decision, aligned with the root's legal list.
#[derive(Clone, Debug)]
pub(crate) struct RootStats {
    pub iterations: u64,
    pub visits: Vec<u64>,
    pub reward: Vec<f64>,
}

impl RootStats {
    pub fn new(len: usize) -> RootStats {
        RootStats {
            iterations: 0,
            visits: vec![0; len],
            reward: vec![0.0; len],
        }
    }

    fn merge(&mut self, other: &RootStats) {
        self.iterations += other.iterations;
        for i in 0..self.visits.len() {
            self.visits[i] += other.visits[i];
            self.reward[i] += other.reward[i];
        }
    }
}

/// A well-mixed seed for tree `index` of a search seeded with `seed` (splitmix64).
fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn rng_for(seed: u64, index: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(derive_seed(seed, index))
}

/// Share `k` of `total` split into `parts` nearly equal parts.
fn share(total: u64, parts: u64, k: u64) -> u64 {
    total / parts + u64::from(k < total % parts)
}

/// Runs one search and returns the most visited root decision with the analysis.
pub(crate) fn search(
    game: &Game,
    root: Root,
    algorithm: Algorithm,
    config: &SearchConfig,
    budget: Budget,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Choice {
    let mut legal = DecisionList::new();
    root.legal_decisions(game, &mut legal);
    debug_assert!(!legal.is_empty(), "search asked with no decision to make");
    if legal.len() <= 1 {
        // Forced (or, against the Bot contract, nothing to decide): no search needed.
        return Choice::plain(legal.first().copied().unwrap_or(Decision::Decline));
    }
    if let Some(win) = winning_decision(game, root, &legal, seed) {
        return win;
    }
    let start = Instant::now();
    let total = budget.iterations.unwrap_or(match budget.time {
        Some(_) => u64::MAX,
        None => DEFAULT_ITERATIONS,
    });
    let deadline = budget.time.map(|t| start + t);
    let turn = match root {
        Root::Observation(o, _) => o.turn(),
        Root::State(s) => s.turn(),
    };
    // The evaluation's judge reads the searching player's observation; built only when used.
    let judge = (config.eval_turns > 0).then(|| match root {
        Root::Observation(o, _) => Judge::new(game, o),
        Root::State(s) => Judge::new(game, &Observation::new(s, s.active())),
    });
    let greedy = (config.playout == PlayoutPolicy::Greedy).then(|| greedy_judges(game, root, seed));
    let settings = Settings {
        game,
        exploration: config.exploration,
        playout: config.playout,
        last_turn: turn.saturating_add(config.max_playout_turns),
        decisive: config.decisive,
        prior: config.prior,
        observed_chance: config.observed_chance,
        multi_observer: config.multi_observer,
        opponent_rack: config.opponent_rack,
        greedy: greedy.as_ref(),
        evaluation: judge.as_ref().map(|judge| Evaluation {
            judge,
            turns: config.eval_turns,
            scale: config.eval_scale,
            fitted: config.fitted_eval,
        }),
    };
    let plan = Plan {
        total,
        deadline,
        seed,
        cancel,
    };
    let stats = match algorithm {
        Algorithm::Pimc => pimc(&settings, root, &legal, config, plan),
        _ => root_parallel(&settings, root, &legal, algorithm, config, plan),
    };
    choice(&legal, &stats)
}

/// The greedy rules of both players for greedy playouts. The searcher judges from its own
/// observation; the opponent from its view of one determinization of the root, since the
/// searcher cannot know what the opponent has seen of it.
fn greedy_judges<'a>(game: &'a Game, root: Root, seed: u64) -> [Judge<'a>; 2] {
    let s = root.sample(&mut rng_for(seed, u64::MAX - 1));
    let me = root.active();
    let own = match root {
        Root::Observation(o, _) => *o,
        Root::State(_) => Observation::new(&s, me),
    };
    Colour::BOTH.map(|c| {
        if c == me {
            Judge::new(game, &own)
        } else {
            Judge::new(game, &Observation::new(&s, c))
        }
    })
}

/// A decision that wins the game at once for the decider (an HQ capture, or medals reaching the
/// objective), taken without search: playouts score every line of a won position 1, so the
/// search alone would not prefer the immediate win. Such wins depend only on the board, the
/// medals and the decider's own rack, so any determinization tells. A win because the opponent is
/// blocked (R10.3) is left to the search: it depends on the opponent's hidden rack.
fn winning_decision(game: &Game, root: Root, legal: &[Decision], seed: u64) -> Option<Choice> {
    let s = root.sample(&mut rng_for(seed, u64::MAX));
    let me = s.active();
    let win = legal.iter().copied().find(|&d| {
        let mut after = s;
        game.apply_legal(&mut after, d);
        after
            .outcome()
            .is_some_and(|o| o.winner == me && o.win != WinType::Blocked)
    })?;
    Some(Choice {
        decision: win,
        analysis: Some(Analysis {
            iterations: 0,
            candidates: vec![Candidate {
                decision: win,
                visits: 0,
                value: 1.0,
            }],
        }),
    })
}

/// The budget of one search as the trees see it.
#[derive(Clone, Copy)]
struct Plan<'a> {
    /// Iterations over all trees (`u64::MAX` under a time budget).
    total: u64,
    deadline: Option<Instant>,
    seed: u64,
    cancel: Option<&'a AtomicBool>,
}

/// `config.trees` independent trees (or flat searches; one per thread when 0), their root
/// statistics summed.
fn root_parallel(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    algorithm: Algorithm,
    config: &SearchConfig,
    plan: Plan,
) -> RootStats {
    let trees = match config.trees {
        0 => config.threads as u64,
        n => u64::from(n),
    };
    ensemble(
        legal.len(),
        trees,
        config.threads as u64,
        plan,
        |k, stop| {
            let mut rng = rng_for(plan.seed, k);
            match algorithm {
                Algorithm::FlatMc => flat_mc::run(settings, root, legal, stop, &mut rng),
                _ => tree::run(settings, root, legal, stop, &mut rng),
            }
        },
    )
}

/// One UCT tree per determinization of the root; statistics summed in determinization order.
fn pimc(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    config: &SearchConfig,
    plan: Plan,
) -> RootStats {
    let dets = u64::from(config.determinizations);
    ensemble(legal.len(), dets, config.threads as u64, plan, |k, stop| {
        let mut rng = rng_for(plan.seed, k);
        let state = root.sample(&mut rng);
        tree::run(settings, Root::State(&state), legal, stop, &mut rng)
    })
}

/// Runs `units` independent searches (`one(k, stop)` for unit k) on up to `threads` rayon
/// workers and sums their root statistics in unit order, so the result does not depend on the
/// threads. Worker t runs units t, t + threads, … in turn; an iteration budget is shared out
/// among the units (unit 0 gets at least one), a time budget among each worker's units in equal
/// slices. A unit left without iterations is not run.
fn ensemble<F>(len: usize, units: u64, threads: u64, plan: Plan, one: F) -> RootStats
where
    F: Fn(u64, Stop) -> RootStats + Sync,
{
    let threads = threads.clamp(1, units.max(1));
    let start = Instant::now();
    let run = |k: u64, slice: Option<Instant>| {
        let stop = Stop {
            iterations: share(plan.total, units, k).max(u64::from(k == 0)),
            deadline: slice,
            cancel: plan.cancel,
        };
        if stop.iterations == 0 {
            return RootStats::new(len);
        }
        one(k, stop)
    };
    let worker = |t: u64| {
        let mine: Vec<u64> = (t..units).step_by(threads as usize).collect();
        let n = mine.len() as u32;
        mine.iter()
            .enumerate()
            .map(|(j, &k)| {
                let slice = plan
                    .deadline
                    .map(|d| start + d.saturating_duration_since(start) * (j as u32 + 1) / n);
                (k, run(k, slice))
            })
            .collect::<Vec<_>>()
    };
    let mut per_unit: Vec<(u64, RootStats)> = if threads == 1 {
        worker(0)
    } else {
        (0..threads).into_par_iter().flat_map(worker).collect()
    };
    per_unit.sort_by_key(|(k, _)| *k);
    let stats: Vec<RootStats> = per_unit.into_iter().map(|(_, s)| s).collect();
    merged(len, &stats)
}

fn merged(len: usize, parts: &[RootStats]) -> RootStats {
    let mut out = RootStats::new(len);
    for p in parts {
        out.merge(p);
    }
    out
}

/// The most visited root decision (ties: higher value, then earlier in the legal order) and the
/// visited candidates, best first.
fn choice(legal: &[Decision], stats: &RootStats) -> Choice {
    let mut candidates: Vec<(usize, Candidate)> = (0..legal.len())
        .filter(|&i| stats.visits[i] > 0)
        .map(|i| {
            let value = stats.reward[i] / stats.visits[i] as f64;
            (
                i,
                Candidate {
                    decision: legal[i],
                    visits: stats.visits[i],
                    value,
                },
            )
        })
        .collect();
    candidates.sort_by(|(i, a), (j, b)| {
        b.visits
            .cmp(&a.visits)
            .then(b.value.total_cmp(&a.value))
            .then(i.cmp(j))
    });
    let candidates: Vec<Candidate> = candidates.into_iter().map(|(_, c)| c).collect();
    let decision = candidates.first().map_or(legal[0], |c| c.decision);
    Choice {
        decision,
        analysis: Some(Analysis {
            iterations: stats.iterations,
            candidates,
        }),
    }
}
