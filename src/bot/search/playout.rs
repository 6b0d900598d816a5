//! Playouts: finishing a game from a state with a cheap policy, without touching the heap.
//!
//! The heuristic policy weighs each legal decision and samples in proportion:
//! - a placement on an enemy HQ wins (R10.1) and is always taken;
//! - a placement that takes a region (R8.2) weighs 64;
//! - a placement covering an enemy tile, and Jumbo's discard of an enemy tile, weigh 8;
//! - a placement on an empty base, and every other decision (draw, decline, …), weigh 4;
//! - a placement on one's own tile weighs 1 (it gains no ground).
//!
//! The tactical policy adds the two decisive patterns the heuristic misses, which the `greedy`
//! bot always plays and random-ish playouts therefore misjudge:
//! - a placement whose regions reach the medal objective (R8.5) wins and is always taken;
//! - when the opponent threatens to capture one of our HQs next turn (one of their connected
//!   tiles is adjacent to it, R5.5), covering, discarding (Jumbo) or moving (Volcanic Jungle)
//!   such a tile weighs 256: the playout defends instead of losing at once.
//!
//! The greedy policy plays the `greedy` bot's rules (`bot::greedy::Judge::pick`) for both
//! players, each judging from its own side: the searcher from its observation, the opponent from
//! its view of one determinization of the root. Each of its decisions plays every candidate to
//! the end of the turn and scores it, so an iteration costs many heuristic ones (figures in
//! results/search-speed.md); at an equal number of iterations it plays much better
//! (results/search-strength.md, eighth round). Candidates that reach positions the evaluation
//! cannot tell apart share one evaluation, and each evaluation reuses what it knows of the
//! position the decision is taken in (`bot::greedy`).
//!
//! The greedy-once policy plays the same rules but scores each candidate once, right after it
//! is applied (`Judge::pick` at depth 1), instead of after the rest of its turn; the later
//! decisions of the turn are judged when they come. A placement is then judged without its
//! troop's effect, which the next decision of the playout chooses. An iteration costs about a
//! third of a greedy one (results/search-speed.md). At equal iterations it was as strong at
//! 2,000 iterations but weaker at 13,500, 44.7% [40.0, 49.5] over 416 games
//! (results/search-strength.md, ninth round).
//!
//! The greedy-effects policy scores each candidate once too, except where that misjudges a
//! troop most (`bot::greedy::Horizon::Effects`): a Skully, Star, XB-42 or Jumbo placement is
//! played to the end of its turn, as greedy does (its follow-up is a fixed rule or a short list
//! of discards), and a Cap'n placement, whose extra placement's candidates are most of a greedy
//! turn's work, gains what the best other placement gains over the position before. On the
//! action decisions of random games it picks a move that greedy's own scores rank lower five
//! times less often than greedy-once (results/greedy-once/README.md); an iteration costs
//! about half of a greedy one (results/search-speed.md), and at equal iterations it was not
//! measurably weaker at 13,500 (results/search-strength.md, ninth round). The play levels use
//! it.
//!
//! The heuristic costs two passes over the legal list with a few bit operations per decision
//! (plus, for the tactical policy, one connection flood fill of the opponent per decision).
//!
//! With `SearchConfig::eval_turns`, playouts are cut short and scored by the `greedy` bot's
//! evaluation read as a win probability ([`Evaluation`]): a cut playout costs a few turns instead
//! of the rest of the game, so a search runs about three times the iterations per second.
//!
//! The tactical weights are what the tree's `decisive` and `prior` options read. As a playout
//! policy they did not beat the heuristic against `greedy` (results/search-strength.md), so the
//! heuristic stays the default policy.

use super::{fitted_logit, PlayoutPolicy, SearchConfig, Settings};
use crate::bot::greedy::{EvalCache, Horizon, Judge};
use crate::info::Observation;
use crate::model::policy::hand_set_weight;
use crate::model::{encode, Input, Tactic, ValueModel};
use crate::rules::{random_decision, sample_chance, Colour, Decision, DecisionList, Game, State};
use crate::terrain::{bits, NodeMask, Terrain, MAX_NODES};
use rand::Rng;

/// Entries of each judge's [`EvalCache`] in one search thread, as a power of two: 256 (16 KB a
/// judge) stay in the core's first-level cache. A table of 4,096 holds more of the positions the
/// playouts meet again, but its misses to memory cost more than the evaluations it saves: whole
/// `strong` games take 10 to 13% less CPU with 256 (results/search-speed.md, 2026-12-01).
const SEARCH_CACHE_BITS: u32 = 8;

/// What one search thread's playouts keep from one iteration to the next: with greedy
/// playouts, each judge's cache of the positions it evaluated, made at the first greedy
/// decision.
#[derive(Default)]
pub(super) struct Scratch {
    caches: Option<[EvalCache; 2]>,
}

/// Plays `s` on until the game ends, `settings.last_turn` is passed or, with an evaluation,
/// `turns` turns have begun after the start and the evaluated player's opponent is to move
/// (the greedy evaluation assumes the opponent moves next).
pub(super) fn play_out<R: Rng>(
    settings: &Settings,
    s: &mut State,
    scratch: &mut Scratch,
    rng: &mut R,
) {
    let game = settings.game;
    let cut = settings
        .evaluation
        .map(|e| (s.turn().saturating_add(e.turns), e.judge.me().opponent()));
    let mut list = DecisionList::new();
    while !s.is_over() && s.turn() <= settings.last_turn {
        if let Some((turn, mover)) = cut {
            if s.turn() > turn && s.active() == mover {
                break;
            }
        }
        let d = if s.is_chance() {
            sample_chance(game, s, rng)
        } else {
            match (settings.config.playout, settings.greedy) {
                // The random policy draws the decision the list would give for the same number
                // without building the list (`rules::random_decision`).
                (PlayoutPolicy::Random, _) => random_decision(game, s, rng)
                    .expect("the loop runs only while the game goes on"),
                // The judge builds its own list of candidates.
                (
                    policy @ (PlayoutPolicy::Greedy
                    | PlayoutPolicy::GreedyOnce
                    | PlayoutPolicy::GreedyEffects),
                    Some(judges),
                ) => {
                    let c = s.active().index();
                    let caches = scratch
                        .caches
                        .get_or_insert_with(|| [(); 2].map(|_| EvalCache::new(SEARCH_CACHE_BITS)));
                    judges[c].pick_with(s, greedy_horizon(policy), &mut caches[c], rng)
                }
                // Heuristic and tactical weigh every legal decision; greedy without judges
                // plays as heuristic.
                (policy, _) => {
                    game.legal_decisions(s, &mut list);
                    let tactical = policy == PlayoutPolicy::Tactical;
                    weighted(&Context::new(game, s, tactical), &list, rng)
                }
            }
        };
        game.apply_legal(s, d);
    }
}

/// How far a greedy policy's judge plays each candidate before it scores it.
fn greedy_horizon(policy: PlayoutPolicy) -> Horizon {
    match policy {
        PlayoutPolicy::GreedyOnce => Horizon::Once,
        PlayoutPolicy::GreedyEffects => Horizon::Effects,
        _ => Horizon::Turn,
    }
}

/// The reward of a state where an iteration stopped, computed once and read for either player.
#[derive(Clone, Copy)]
pub(super) struct Reward {
    blue: f64,
}

impl Reward {
    /// 1 for a win and 0 for a loss; an unfinished game scores the evaluation's win probability
    /// (see [`Evaluation`]), or 0.5 without one.
    pub(super) fn of_state(settings: &Settings, s: &State) -> Reward {
        let blue = match (s.outcome(), settings.evaluation) {
            (Some(o), _) => f64::from(u8::from(o.winner == Colour::Blue)),
            (None, Some(e)) => e.blue_win_probability(s),
            (None, None) => 0.5,
        };
        Reward { blue }
    }

    #[inline]
    pub(super) fn for_player(self, c: Colour) -> f64 {
        match c {
            Colour::Blue => self.blue,
            Colour::Red => 1.0 - self.blue,
        }
    }
}

/// A position evaluation that ends playouts early: the `greedy` bot's hand-set evaluation for
/// the searching player, read as a win probability through a logistic curve,
/// `1 / (1 + exp(-score / scale))` (one medal is worth 100 points of score).
#[derive(Clone, Copy)]
pub(crate) struct Evaluation<'a> {
    /// The game played, which the value model's encoding reads.
    pub game: &'a Game,
    /// The searching player's greedy rules, whose evaluation scores a cut playout.
    pub judge: &'a Judge<'a>,
    /// Turns a playout plays before it is cut and evaluated.
    pub turns: u16,
    /// Score points per logistic unit.
    pub scale: f64,
    /// Weigh the terms with [`FITTED_EVAL`] instead (`scale` unused).
    pub fitted: bool,
    /// Add the learned value model's correction to the fitted evaluation (`scale` and
    /// `fitted` unused).
    pub value: Option<&'a ValueModel>,
}

impl<'a> Evaluation<'a> {
    /// The evaluation `config` asks for (`eval_turns`, `eval_scale`, `fitted_eval`,
    /// `value_model`), judged by `judge`.
    pub(crate) fn of_config(
        game: &'a Game,
        judge: &'a Judge<'a>,
        config: &SearchConfig,
    ) -> Evaluation<'a> {
        Evaluation {
            game,
            judge,
            turns: config.eval_turns,
            scale: config.eval_scale,
            fitted: config.fitted_eval,
            value: config.value_model.then(|| config.value_weights_model()),
        }
    }

    fn blue_win_probability(&self, s: &State) -> f64 {
        let logit = match self.value {
            Some(model) => return combined_blue(self.game, self.judge, model, s),
            None if self.fitted => fitted_logit(self.judge, s),
            None => f64::from(self.judge.evaluate(s)) / self.scale,
        };
        let mine = 1.0 / (1.0 + (-logit).exp());
        match self.judge.me() {
            Colour::Blue => mine,
            Colour::Red => 1.0 - mine,
        }
    }
}

/// The combined evaluation's probability that blue wins `s`: the log-odds of the player to
/// move are the fitted linear evaluation's ([`fitted_logit`], read by `judge`, mirrored to the
/// mover's side) plus the value model's correction, read from the mover's observation of the
/// cut position. The model was trained on exactly that residual (`train::fit`), so a model
/// whose output is zero plays as `fitted_eval`. The input lives on the stack: no heap per
/// evaluation.
fn combined_blue(game: &Game, judge: &Judge, model: &ValueModel, s: &State) -> f64 {
    let mover = s.active();
    let fitted = fitted_logit(judge, s);
    let fitted_for_mover = if judge.me() == mover { fitted } else { -fitted };
    let mut input = Input::default();
    encode(game, &Observation::new(s, mover), &mut input);
    let logit = fitted_for_mover + f64::from(model.logit(&input));
    let p = 1.0 / (1.0 + (-logit).exp());
    match mover {
        Colour::Blue => p,
        Colour::Red => 1.0 - p,
    }
}

/// The weight of a decision that wins at once: playouts always take it.
pub(super) const WIN: u32 = u32::MAX;

/// What the policies need to know about the position, read once per decision.
pub(super) struct Context {
    mine: NodeMask,
    theirs: NodeMask,
    enemy_hqs: NodeMask,
    /// Bases whose occupation completes a region not yet taken (R8.2).
    takes_region: NodeMask,
    /// Tactical only: bases whose occupation reaches the medal objective (R8.5).
    wins_medals: NodeMask,
    /// Tactical only: enemy tiles from which the opponent can capture one of our HQs.
    threats: NodeMask,
}

impl Context {
    pub(super) fn new(game: &Game, s: &State, tactical: bool) -> Context {
        let terrain = game.terrain();
        let p = s.active();
        let mine = s.board().occupied(p);
        let theirs = s.board().occupied(p.opponent());
        let mut takes_region = 0;
        let mut gain_at = [0u8; MAX_NODES];
        for r in bits(!s.regions_taken() & region_mask(terrain)) {
            let missing = terrain.regions[r].bases & !mine;
            if missing.count_ones() == 1 {
                takes_region |= missing;
                gain_at[missing.trailing_zeros() as usize] += terrain.regions[r].medals;
            }
        }
        let (mut wins_medals, mut threats) = (0, 0);
        if tactical {
            let needed = game.medals_to_win().saturating_sub(s.medals(p));
            wins_medals = bits(takes_region)
                .filter(|&b| gain_at[b] >= needed)
                .fold(0, |m, b| m | 1 << b);
            let my_hqs = terrain.hqs[p.index()];
            let reach = game.connected_nodes(s, p.opponent());
            if reach & my_hqs != 0 {
                threats = terrain.neighbours_of(my_hqs) & terrain.bases & theirs & reach;
            }
        }
        Context {
            mine,
            theirs,
            enemy_hqs: terrain.hqs[p.opponent().index()],
            takes_region,
            wins_medals,
            threats,
        }
    }

    /// The policy weight of `d` ([`hand_set_weight`] of its tactic); [`WIN`] for a decision
    /// that wins at once.
    #[inline]
    pub(super) fn weight(&self, d: Decision) -> u32 {
        match self.tactic(d) {
            Tactic::Win => WIN,
            t => hand_set_weight(t),
        }
    }

    /// What `d` does on the board (see [`Tactic`]).
    #[inline]
    pub(super) fn tactic(&self, d: Decision) -> Tactic {
        match d {
            Decision::Place { node, .. } => self.placement_tactic(node.bit()),
            Decision::Discard { node } | Decision::Move { from: node, .. }
                if self.threats & node.bit() != 0 =>
            {
                Tactic::Defend
            }
            Decision::Discard { .. } => Tactic::Discard,
            _ => Tactic::Other,
        }
    }

    #[inline]
    fn placement_tactic(&self, bit: NodeMask) -> Tactic {
        if (self.enemy_hqs | self.wins_medals) & bit != 0 {
            Tactic::Win
        } else if self.threats & bit != 0 {
            Tactic::Defend
        } else if self.takes_region & bit != 0 {
            Tactic::TakeRegion
        } else if self.theirs & bit != 0 {
            Tactic::CoverEnemy
        } else if self.mine & bit != 0 {
            Tactic::OwnStack
        } else {
            Tactic::EmptyBase
        }
    }
}

/// What each decision of the player to decide does on the board, as the tree's prior reads it
/// (the tactical reading of the playouts' context): training fits the policy model to it.
pub struct Tactics(Context);

impl Tactics {
    /// The reading of state `s` of `game`, for the player to decide.
    pub fn new(game: &Game, s: &State) -> Tactics {
        Tactics(Context::new(game, s, true))
    }

    /// What `d`, a legal decision in that state, does.
    pub fn of(&self, d: Decision) -> Tactic {
        self.0.tactic(d)
    }
}

/// One bit per region of the terrain.
#[inline]
fn region_mask(terrain: &Terrain) -> u32 {
    match terrain.regions.len() {
        32.. => u32::MAX,
        n => (1 << n) - 1,
    }
}

/// A decision of `list` sampled with the weights of `ctx` (see the module doc).
fn weighted<R: Rng>(ctx: &Context, list: &DecisionList, rng: &mut R) -> Decision {
    let mut total = 0u32;
    for &d in list {
        let w = ctx.weight(d);
        if w == WIN {
            return d;
        }
        total += w;
    }
    let mut k = rng.random_range(0..total);
    for &d in list {
        let w = ctx.weight(d);
        if k < w {
            return d;
        }
        k -= w;
    }
    list[list.len() - 1]
}
