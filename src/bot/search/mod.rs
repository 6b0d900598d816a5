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
//! whatever the thread scheduling. With `shared_tree` the threads play out the leaves of one
//! tree, each leaf with a random stream of its own, and back them up in a fixed order
//! (`tree::run_shared`), so the same holds.

mod choice;
mod estimate;
mod flat_mc;
mod options;
mod playout;
mod tree;

pub use choice::{choice_log_ratio, held_odds};
pub use estimate::{playout_cut, playout_mean, root_value, win_probability};
pub use options::{OptionRangeError, SearchConfig};
pub use playout::Tactics;

use playout::Evaluation;

#[cfg(test)]
mod tests;

use super::greedy::Judge;
use super::{Analysis, Bot, Budget, Candidate, CheatRequest, CheatingBot, Choice, Player, Request};
use crate::info::{Observation, RackBelief};
use crate::rules::{Colour, Decision, DecisionList, Game, State, WinType};
use crate::vocabulary::TroopCounts;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
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
    /// The `greedy` bot's rules with each candidate scored once, right after it is applied,
    /// instead of after the rest of its turn (see `playout.rs`); about a third of the cost
    /// of `Greedy` per iteration.
    GreedyOnce,
    /// The `greedy` bot's rules with each candidate scored once, except the troops that
    /// greedy-once misjudges most (see `playout.rs`).
    GreedyEffects,
}

/// Weights of the evaluation with `fitted_eval`: an intercept, then logistic units per 100
/// points of each of the `greedy` evaluation's terms (`bot::greedy::TERMS`: medals, rack,
/// presence, regions, race, threats, exposure), all from the side of the player who has just
/// moved. Fitted by `examples/fit_eval.rs` to 125,000 turn starts of 4,405 recorded games
/// of search bots against `greedy` (results/search-strength.md, sixth round). Next to the
/// hand-set reading (every term at 0.5 per 100 points), it weighs the threats a hundred times
/// less and the bases held four times more.
pub const FITTED_EVAL: [f64; 8] = [-0.291, 0.331, 1.029, 2.092, 0.438, 0.421, 0.0042, 0.575];

/// The log-odds that `judge`'s player wins `s` under [`FITTED_EVAL`], which reads the position
/// from the side of the player who has just moved (`judge`'s opponent to move).
pub(crate) fn fitted_logit(judge: &Judge, s: &State) -> f64 {
    let terms = judge.terms(s);
    let sum: f64 = (terms.iter().zip(&FITTED_EVAL[1..]))
        .map(|(&t, w)| f64::from(t) * w)
        .sum();
    FITTED_EVAL[0] + sum / 100.0
}

/// How much likelier each troop (`Troop::index` order: Kwak, Skully, Cap'n, Jumbo, Hook, XB-42,
/// Star, Roxy) is to be among a player's rack tiles than a uniform deal of their unseen tiles
/// says, times 16: Kwak and Roxy are kept for the end, Cap'n and Skully are played early.
/// Measured over 6,785 decisions of the first 143 games of `ismcts-250k` against `greedy`,
/// both players pooled (each alone gives the same order: Kwak 1.45 and 1.63, Roxy 1.28 and
/// 1.33, Cap'n 0.61 and 0.49); results/search-strength.md, fifth round.
pub const KEPT_TROOPS: [u32; 8] = [25, 12, 9, 15, 16, 13, 15, 21];

/// The search bot of `algorithm` as a table seat. `CheatUct` gives `Player::Cheating`, the others
/// `Player::Fair`. `config` should have passed [`SearchConfig::validate`]; out-of-range values
/// are clamped into range. A decision with a single legal option is returned without search, and
/// so is a decision that wins at once by HQ capture or medals (analysis: no iterations, that
/// decision with value 1).
pub fn make_player(name: &str, algorithm: Algorithm, config: &SearchConfig) -> Player {
    let bot = SearchBot {
        name: name.to_string(),
        algorithm,
        config: config.clamped(),
    };
    match algorithm {
        Algorithm::CheatUct => Player::Cheating(Box::new(bot)),
        _ => Player::Fair(Box::new(bot)),
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
        let belief = estimate::belief(&self.config, request.game, request.observation);
        let root = Root::Observation(request.observation, RackDeal::Belief(belief));
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
        let state = request.state;
        let observation = Observation::new(state, state.active());
        let them = state.active().opponent();
        let (rack, frozen) = (state.rack(them), state.frozen(them));
        // The true rack is always one its observation allows; the check keeps that a fact.
        let shown = self.config.rack_only
            && observation
                .determinize_knowing_rack(rack, frozen, &mut rng_for(request.seed, 0))
                .is_some();
        let root = match shown {
            true => Root::Observation(&observation, RackDeal::Known { rack, frozen }),
            false => Root::State(state),
        };
        search(
            request.game,
            root,
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
    /// A fresh determinization of the observation per sample, the opponent's rack dealt as
    /// the [`RackDeal`] says.
    Observation(&'a Observation, RackDeal),
    /// Always this state (cheating, or one PIMC determinization).
    State(&'a State),
}

/// How the determinizations of a [`Root::Observation`] deal the opponent's rack.
#[derive(Clone, Copy)]
pub(crate) enum RackDeal {
    /// From their unseen tiles with the belief's odds: every fair search.
    Belief(RackBelief),
    /// Exactly this rack, these of its tiles frozen: cheat-UCT with `rack_only`, which is
    /// shown the rack and nothing else hidden. The root is made only with a rack its
    /// observation allows.
    Known {
        rack: TroopCounts,
        frozen: TroopCounts,
    },
}

impl Root<'_> {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> State {
        match self {
            Root::Observation(o, RackDeal::Belief(belief)) => o.determinize_with(belief, rng),
            Root::Observation(o, RackDeal::Known { rack, frozen }) => o
                .determinize_knowing_rack(*rack, *frozen, rng)
                .expect("a rack its observation allows (checked when the root was made)"),
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

/// What every tree of one search reads: the options, and what the search derived from them.
#[derive(Clone, Copy)]
pub(crate) struct Settings<'a> {
    pub game: &'a Game,
    /// The options, clamped into range (`make_player`).
    pub config: &'a SearchConfig,
    /// Playouts stop once `s.turn()` exceeds this (`SearchConfig::max_playout_turns` after the
    /// decision's turn).
    pub last_turn: u16,
    /// With a greedy playout policy: the greedy rules of each player, by `Colour::index`.
    pub greedy: Option<&'a [Judge<'a>; 2]>,
    /// `SearchConfig::eval_turns`, `eval_scale`, `fitted_eval` and `value_model`, when on.
    pub evaluation: Option<Evaluation<'a>>,
}

#[cfg(test)]
impl<'a> Settings<'a> {
    /// Settings of a search for tests: `config`, playouts to the end, no greedy rules.
    pub(crate) fn plain(game: &'a Game, config: &'a SearchConfig) -> Settings<'a> {
        Settings {
            game,
            config,
            last_turn: u16::MAX,
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
    /// `SearchConfig::stop_when_decided` with its `decided_factor`, where the stop applies to
    /// the whole search's one tree (an ensemble's trees are summed, so no single tree is
    /// decided alone); `None` = the search runs its whole budget.
    pub until_decided: Option<f64>,
}

impl Stop<'_> {
    /// Whether to stop before iteration `done` (0-based): the one termination test of every
    /// search loop (`tree::run`, `flat_mc::run`). The clock and the cancel flag are read every
    /// 16 iterations.
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

    /// The iterations left after `done`, begun at `started`: the budget's rest, or under a
    /// deadline at most what the pace so far would fit before it.
    pub fn left(&self, done: u64, started: Instant) -> u64 {
        let rest = self.iterations.saturating_sub(done);
        match self.deadline {
            None => rest,
            Some(d) => {
                let now = Instant::now();
                let spent = now.saturating_duration_since(started).as_secs_f64();
                let remaining = d.saturating_duration_since(now).as_secs_f64();
                let paced = done as f64 * remaining / spent.max(1e-9);
                rest.min(paced.ceil() as u64)
            }
        }
    }

    /// Whether a search stopping when decided checks its tree after `done` iterations: every
    /// [`DECIDED_CHECK`], so that an iteration budget's decision does not depend on timing.
    #[inline]
    pub fn check_decided(&self, done: u64) -> bool {
        self.until_decided.is_some() && done.is_multiple_of(DECIDED_CHECK)
    }

    /// The visits the runner-up of a search stopping when decided may still gain after
    /// `done` iterations, begun at `started`: the iterations left, divided by the
    /// `decided_factor` (1 = every one of them, so a stopped search chooses what the whole
    /// budget would).
    pub fn catch_up(&self, done: u64, started: Instant) -> u64 {
        let left = self.left(done, started);
        match self.until_decided {
            Some(factor) if factor > 1.0 => (left as f64 / factor).ceil() as u64,
            _ => left,
        }
    }
}

/// Iterations between two checks of `SearchConfig::stop_when_decided`: a check scans the
/// root's children, a few hundred nanoseconds, against about 20 µs an iteration.
const DECIDED_CHECK: u64 = 64;

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
    crate::vocabulary::hash::splitmix64(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
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
    let greedy = matches!(
        config.playout,
        PlayoutPolicy::Greedy | PlayoutPolicy::GreedyOnce | PlayoutPolicy::GreedyEffects
    )
    .then(|| greedy_judges(game, root, seed).map(|j| j.weighted(config.playout_term_weights())));
    let settings = Settings {
        game,
        config,
        last_turn: turn.saturating_add(config.max_playout_turns),
        greedy: greedy.as_ref(),
        evaluation: judge
            .as_ref()
            .map(|judge| Evaluation::of_config(game, judge, config)),
    };
    let plan = Plan {
        total,
        deadline,
        seed,
        cancel,
        until_decided: (config.stop_when_decided && algorithm != Algorithm::FlatMc)
            .then_some(config.decided_factor),
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
    /// `SearchConfig::stop_when_decided` with its `decided_factor`, for algorithms that grow
    /// trees.
    until_decided: Option<f64>,
}

/// `config.trees` independent trees (or flat searches; one per thread when 0), their root
/// statistics summed; or, with `shared_tree`, one tree all the threads work on.
fn root_parallel(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    algorithm: Algorithm,
    config: &SearchConfig,
    plan: Plan,
) -> RootStats {
    if config.shared_tree && config.threads > 1 && algorithm != Algorithm::FlatMc {
        let stop = Stop {
            iterations: plan.total,
            deadline: plan.deadline,
            cancel: plan.cancel,
            until_decided: config.stop_when_decided.then_some(config.decided_factor),
        };
        return tree::run_shared(settings, root, legal, stop, plan.seed, config.threads);
    }
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

/// Runs `units` independent searches (`one(k, stop)` for unit k) on up to `threads` threads
/// ([`on_threads`]) and sums their root statistics in unit order, so the result does not
/// depend on the threads. Worker t runs units t, t + threads, … in turn; an iteration budget
/// is shared out among the units (unit 0 gets at least one), a time budget among each worker's
/// units in equal slices. A unit left without iterations is not run.
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
            until_decided: plan.until_decided.filter(|_| units == 1),
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
    let mut per_unit: Vec<(u64, RootStats)> = on_threads(threads as usize, |t| worker(t as u64))
        .into_iter()
        .flatten()
        .collect();
    per_unit.sort_by_key(|(k, _)| *k);
    let stats: Vec<RootStats> = per_unit.into_iter().map(|(_, s)| s).collect();
    merged(len, &stats)
}

/// Runs `work(t)` for every t below `n` at once, each on a thread of its own (t = 0 on the
/// caller's), and returns the results in t order. A search's threads are its own rather than
/// the caller's rayon pool: a tournament plays its games on a pool as wide as its concurrency,
/// and a search sharing that pool ran its threads one after the other (under a time budget the
/// later ones found their deadline passed and did almost nothing). A thread the system refuses
/// to start is run on the caller's thread after the others.
fn on_threads<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if n <= 1 {
        return vec![work(0)];
    }
    let work = &work;
    std::thread::scope(|scope| {
        let spawned: Vec<_> = (1..n)
            .map(|t| {
                let name = format!("search-{t}");
                let thread = std::thread::Builder::new().name(name);
                (t, thread.spawn_scoped(scope, move || work(t)).ok())
            })
            .collect();
        let mut out = vec![work(0)];
        for (t, handle) in spawned {
            out.push(match handle {
                Some(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                None => work(t),
            });
        }
        out
    })
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
