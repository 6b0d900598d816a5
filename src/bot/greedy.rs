//! `greedy`: a rule-based player with a one-turn lookahead, fair (it sees its observation only)
//! and deterministic given the seed.
//!
//! The bot samples one state consistent with its observation ([`Observation::determinize`]) and
//! plays every candidate decision on it to the end of its own turn, taking the later decisions
//! of that turn by these same rules and sampling the chance events (draws, XB-42, Battlefield).
//! The resulting position, with the opponent to move, is scored; the best score wins and ties
//! are broken by the seed. The hidden tiles sampled by the determinization only decide chance
//! outcomes: the score itself reads public information and the bot's own rack.
//!
//! The score encodes the rules in priority order, through weights an order of magnitude apart:
//! 1. take an available HQ capture (a win, ranked above a medal win);
//! 2. take a placement that wins on medals;
//! 3. complete a region, the most valuable first (100 per medal gained);
//! 4. deny the opponent's threats for their next turn: a loss threat (the opponent connected to
//!    our HQ, or a Cap'n away from it, or one base from the medal objective) costs 100 000, so
//!    blocking or covering it outranks everything but a win; a region the opponent lacks one
//!    base of costs 60 per medal, scaled by the chance the opponent holds a tile able to take
//!    that base;
//! 5. otherwise a simple evaluation: bases occupied, progress in regions nobody contests, the
//!    race to the enemy HQ (placements still needed by each side), our own one-base-away
//!    regions, the rack (more tiles with diminishing value) and the exposure of our top tiles
//!    to being covered.
//!
//! Choices inside a turn:
//! - Skully, Star, City of Clouds: draw while the rack holds at most 5 tiles, so that room is
//!   kept for a later DRAW action;
//! - Jumbo: always discard, the enemy tile whose removal scores best (the most valuable one);
//! - XB-42 and Battlefield: always used;
//! - Cap'n extra placement, Castle Field return and Volcanic Jungle move: scored like any
//!   decision and taken only when they score strictly better than declining (a move that pulls
//!   an enemy tile out of a region the enemy is completing removes a region threat);
//! - Cursed Cemetery: recover the strongest tile (highest printed value; Kwak, which has no
//!   strength (R1.3), last).
//!
//! The weights are hand-set round numbers. `toybattle train greedy` tunes the seven terms'
//! weights by self-play (`train::tune`): the tuned ones beat these by about 200 Elo
//! (results/learning.md, eighth round), but the bot, the `beginner` level, keeps these.
//!
//! A decision costs well under a millisecond: every candidate is one simulated turn plus, for
//! a Cap'n, one evaluation per extra placement. The evaluations of one decision's candidates reuse what they share: the
//! connections, races, region progress and region threats of the position the decision is
//! taken in, recomputed only where a candidate changed what they depend on, and the whole
//! evaluation of an earlier candidate that reached a position with the same inputs (another
//! troop on the same node, where no term asks which troop it is).

use super::{Bot, Choice, Request};
use crate::info::Observation;
use crate::rules::{
    sample_chance, Colour, Decision, DecisionList, Game, Phase, State, Troop, TroopCounts, WinType,
    MAX_DECISIONS,
};
use crate::terrain::{
    bits, NodeIndex, NodeMask, RegionMask, SpecialEffect, Terrain, MAX_NODES, MAX_REGIONS,
};
use crate::vocabulary::hash::{mix64, GOLDEN_GAMMA};
use arrayvec::ArrayVec;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A won game; an HQ capture is preferred to a medal win (rule 1 before rule 2), and both to
/// an opponent blocked at the start of their turn, which on a sampled state may be an artefact
/// of the opponent's sampled rack.
const WIN: i32 = 1_000_000;
const HQ_WIN_BONUS: i32 = 2_000;
const MEDAL_WIN_BONUS: i32 = 1_000;
const BLOCKED_WIN: i32 = WIN / 2;
/// A position where the opponent probably wins on their next turn.
const LOSS_THREAT: f64 = 100_000.0;
/// A Cap'n one placement from our HQ is a loss threat only if the opponent holds a Cap'n and
/// another tile; counted at a quarter.
const CAPN_THREAT_SHARE: f64 = 0.25;
const MEDAL: i32 = 100;
const REGION_THREAT_PER_MEDAL: f64 = 60.0;
/// Our own regions one base from complete: the opponent moves first and may block them.
const ONE_AWAY_PER_MEDAL: i32 = 15;
/// We are connected to the enemy HQ: the opponent must block it.
const HQ_ATTACK: i32 = 300;
const PRESENCE: i32 = 10;
const PROGRESS_PER_MEDAL: i32 = 40;
/// Per placement of difference in the race to the enemy HQ.
const STEP: i32 = 15;
const MAX_STEPS: i32 = 8;
/// Worth of a rack by its size: the first tiles matter most.
const RACK_WORTH: [i32; 9] = [0, 60, 100, 130, 150, 160, 165, 168, 170];
/// Worth of one of our exposed top tiles, plus this per medal of the open regions around it.
const EXPOSED_STAKE_PER_MEDAL: f64 = 10.0;
/// Largest rack on which an optional draw is accepted.
const SMALL_RACK: u8 = 5;

/// The terms of the evaluation (rule 5 with the threats of rule 4), each from the evaluating
/// player's side: medals held, rack sizes, bases occupied, region progress, the race to the
/// enemy HQ, the opponent's threats and the exposure of our top tiles.
pub const TERMS: [&str; 7] = [
    "medals", "rack", "presence", "regions", "race", "threats", "exposure",
];

/// The rack term's place in [`TERMS`].
const RACK_TERM: usize = 1;

/// Weights of the evaluation's terms, in millionths: the score of a position is
/// `Σ term × weight / 1,000,000`. The hand-set evaluation is the plain sum.
pub type TermWeights = [i32; TERMS.len()];

/// The hand-set evaluation's weights: every term counts once.
pub const HAND_SET_WEIGHTS: TermWeights = [1_000_000; TERMS.len()];

/// `multipliers` of each term (1 = the hand-set sum) as the judge's millionths.
pub fn term_weights(multipliers: &[f64; TERMS.len()]) -> TermWeights {
    multipliers.map(|w| (w * 1e6).round() as i32)
}

/// The terms of `observation`'s player's evaluation of `state` (an unfinished game, normally
/// with the opponent to move), in [`TERMS`] order: for fitting evaluation weights to game
/// outcomes (`examples/fit_eval.rs`).
pub fn evaluation_terms(
    game: &Game,
    observation: &Observation,
    state: &State,
) -> [i32; TERMS.len()] {
    Judge::new(game, observation).terms(state)
}

/// The greedy player; see the module documentation for its rules.
pub struct GreedyBot {
    name: String,
    weights: TermWeights,
}

impl GreedyBot {
    /// A greedy player called `name`.
    pub fn new(name: impl Into<String>) -> GreedyBot {
        GreedyBot::weighted(name, HAND_SET_WEIGHTS)
    }

    /// A greedy player called `name` whose evaluation weighs its terms with `weights`
    /// (`train::tune` tunes them by self-play).
    pub fn weighted(name: impl Into<String>, weights: TermWeights) -> GreedyBot {
        GreedyBot {
            name: name.into(),
            weights,
        }
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &Request) -> Choice {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
        let state = request.observation.determinize(&mut rng);
        let judge = Judge::new(request.game, request.observation).weighted(self.weights);
        Choice::plain(judge.pick(&state, Horizon::Turn, &mut rng))
    }
}

/// How far a candidate decision is played before it is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Horizon {
    /// To the end of the turn, its later decisions scored [`Horizon::Once`]: the `greedy` bot.
    Turn,
    /// Right after it is applied: the later decisions of the turn are judged when they come.
    Once,
    /// Once, except where that misjudges a troop most: a placement whose troop effect is a
    /// fixed rule or a discard (Skully, Star, XB-42, Jumbo) is played to the end of its turn,
    /// and a Cap'n placement gains the best gain of one more placement from the position
    /// before, read off the other candidates' scores, instead of playing its extra placement
    /// (whose candidates cost most of a turn's work).
    Effects,
}

impl Horizon {
    /// The horizon at which candidate `d` itself is scored.
    fn of(self, d: Decision) -> Horizon {
        match (self, d) {
            (
                Horizon::Effects,
                Decision::Place {
                    troop: Troop::Skully | Troop::Star | Troop::Xb42 | Troop::Jumbo,
                    ..
                },
            ) => Horizon::Turn,
            (Horizon::Effects, _) => Horizon::Once,
            (h, _) => h,
        }
    }
}

/// The rules and the evaluation for one decision of one player. The search bots borrow its
/// evaluation to score playouts they cut short (`SearchConfig::eval_turns`).
pub(crate) struct Judge<'a> {
    game: &'a Game,
    me: Colour,
    /// Tiles the opponent may hold: their unseen tiles and their publicly known rack tiles.
    opponent_pool: TroopCounts,
    /// Bases where Hook may ignore the connection rule (R5.6, A4).
    hook_free: NodeMask,
    /// Troop types (bit per troop) allowed on each node (R5.4), read by [`Judge::fit`].
    allowed: [u8; MAX_NODES],
    /// Troop types (bit per troop) able to cover each troop (R5.2, R5.3).
    covered_by: [u8; 8],
    /// Tiles of the opponent's pool of the types of each set of types (bit per troop).
    fitting: [u8; 256],
    /// [`Judge::holds_fit`] computed once per pair of (tiles of the opponent's pool that fit,
    /// opponent's rack size): row `fitting`, column `rack`.
    holds: Vec<[f64; RACKS]>,
    /// The terrain's regions with their progress worth precomputed.
    regions: Vec<RegionWorth>,
    /// One bit per region of the terrain.
    all_regions: RegionMask,
    /// Medals of all the regions around each node, taken or not.
    node_medals: [u32; MAX_NODES],
    /// Bases next to our HQs, from which a Cap'n's extra placement reaches them.
    capn_steps: NodeMask,
    /// For each colour, `within[c][k]`: the nodes from which at most `k` placements reach an
    /// HQ of `c` ([`steps_layers`]).
    within: [[NodeMask; MAX_STEPS as usize]; 2],
    /// What each term counts for ([`HAND_SET_WEIGHTS`] unless [`Judge::weighted`] set others).
    weights: TermWeights,
}

/// Rack sizes the evaluation tells apart (`RACK_WORTH`).
const RACKS: usize = RACK_WORTH.len();

/// A region as the evaluation reads it.
struct RegionWorth {
    bases: NodeMask,
    /// Bases in the region.
    size: u32,
    medals: i32,
    /// `progress[k]`: the worth of `k` of the region's bases held by a side alone,
    /// `PROGRESS_PER_MEDAL * medals * k² / size²` rounded toward zero.
    progress: [i32; MAX_NODES + 1],
}

/// What the evaluation reads of the position a decision is taken in, computed once and reused
/// for each candidate's position as long as the parts it depends on are unchanged (a placement
/// of ours changes neither the opponent's connection nor their regions unless it covers one of
/// their tiles). Every field is the exact value for its key, so reuse changes no score.
struct Base {
    /// Our bases, the key of our connection.
    mine: NodeMask,
    /// Our chain of bases from our HQs: the start of the flood fill of any later position where
    /// we still hold all of it.
    my_chain: NodeMask,
    my_connected: NodeMask,
    /// Steps of our race to the enemy HQ from `my_connected`.
    my_steps: i32,
    /// The opponent's bases, the key of their connection, race and region threats.
    theirs: NodeMask,
    their_chain: NodeMask,
    their_connected: NodeMask,
    their_steps: i32,
    /// Regions taken, the other key of the opponent's region threats.
    taken: RegionMask,
    /// The opponent's region threats.
    their_one_away: OneAway,
    /// Our region term.
    regions: RegionTerm,
}

/// The opponent's bases that would complete regions for them, and the medals gained at each.
#[derive(Clone, Copy)]
struct OneAway {
    mask: NodeMask,
    gain_at: [i32; MAX_NODES],
}

/// The region term of a position region by region, so that a later position recomputes only
/// the regions around the nodes that changed.
#[derive(Clone, Copy)]
struct RegionTerm {
    /// Nodes occupied by us, then by the opponent.
    tops: [NodeMask; 2],
    taken: RegionMask,
    /// The progress of all open regions, and of each.
    progress: i32,
    part: [i32; MAX_REGIONS],
    /// For each open region we lack one base of, that base; else 0.
    missing: [NodeMask; MAX_REGIONS],
    /// Medals of our one-away regions by missing base, and the bases with any.
    gain_at: [i32; MAX_NODES],
    one_away: NodeMask,
}

/// The connections, races and the opponent's region threats of a position: the parts of its
/// evaluation that take flood fills and region scans.
struct View<'b> {
    my_connected: NodeMask,
    my_steps: i32,
    their_connected: NodeMask,
    their_steps: i32,
    their_one_away: &'b OneAway,
}

/// Everything [`Judge::terms`] reads of an unfinished position besides the [`View`] it derives:
/// two positions with equal keys have equal terms. The troops of our tiles are kept only
/// where the opponent can reach or needs a base, the only places where the terms ask which
/// tiles could cover them.
#[derive(Clone, Copy, PartialEq, Eq)]
struct EvalKey {
    /// Nodes occupied by us, then by the opponent.
    occupied: [NodeMask; 2],
    /// Our top tiles by troop on the nodes the opponent reaches or lacks for a region.
    tops: [NodeMask; 8],
    /// Medals, ours then the opponent's.
    medals: [u8; 2],
    /// The opponent's rack size. Ours is not in the key: it enters the evaluation only as
    /// its own term, which the cache leaves out, so that a Skully's or a Star's draw, which
    /// changes only our rack size, still finds the entry of another troop on the node.
    their_rack_len: u8,
    taken: RegionMask,
}

/// Entries of an [`EvalCache`] built for one decision (the `greedy` bot's): its candidates.
const DECISION_CACHE_BITS: u32 = 8;

/// The evaluations of positions one judge has met, by [`EvalKey`]: the weighted sum of the
/// terms, in millionths, less our rack's weighted worth, which is added back. For a given
/// judge, the evaluation of an unfinished position depends only on its key, so an entry holds
/// for every decision the judge makes: the
/// candidates of one decision that place another troop on the same node, and the positions a
/// search's playouts keep meeting (a search gives each thread one cache per judge). Each key
/// has one slot, by its hash; a new key takes the slot over.
pub(crate) struct EvalCache {
    entries: Vec<Option<(EvalKey, i64)>>,
    /// The judge whose evaluations the entries are: its player, its game, the opponent's pool
    /// and its weights. Another judge empties the cache first.
    owner: Option<(Colour, usize, TroopCounts, TermWeights)>,
}

impl EvalCache {
    /// An empty cache of `2^bits` entries.
    pub(crate) fn new(bits: u32) -> EvalCache {
        EvalCache {
            entries: vec![None; 1 << bits],
            owner: None,
        }
    }

    /// Empties the cache unless its entries are `judge`'s.
    fn serve(&mut self, judge: &Judge) {
        let owner = (
            judge.me,
            judge.game as *const Game as usize,
            judge.opponent_pool,
            judge.weights,
        );
        if self.owner != Some(owner) {
            self.entries.fill(None);
            self.owner = Some(owner);
        }
    }

    /// The slot of `key`.
    fn slot(&self, key: &EvalKey) -> usize {
        let pair = |a: NodeMask, b: NodeMask| u64::from(a) | u64::from(b) << 32;
        let rest = u64::from(key.taken)
            | u64::from(key.medals[0]) << 32
            | u64::from(key.medals[1]) << 40
            | u64::from(key.their_rack_len) << 48;
        let words = [
            pair(key.occupied[0], key.occupied[1]),
            pair(key.tops[0], key.tops[1]),
            pair(key.tops[2], key.tops[3]),
            pair(key.tops[4], key.tops[5]),
            pair(key.tops[6], key.tops[7]),
            rest,
        ];
        let h = words.iter().fold(0u64, |h, &w| {
            (h ^ w).wrapping_mul(GOLDEN_GAMMA).rotate_left(29)
        });
        mix64(h) as usize & (self.entries.len() - 1)
    }
}

impl<'a> Judge<'a> {
    /// The rules of `observation`'s player in `game`, with the tables its evaluation reads.
    pub(crate) fn new(game: &'a Game, observation: &Observation) -> Judge<'a> {
        let me = observation.observer();
        let terrain = game.terrain();
        let opponent_pool = observation
            .unseen(me.opponent())
            .plus(&observation.opponent_public_rack());
        // The game's own tables, so that restricted play (a study's what-if) is seen as played.
        let allowed = std::array::from_fn(|n| game.troops_allowed_on(n));
        let covered_by = std::array::from_fn(|top| {
            Troop::ALL
                .iter()
                .filter(|t| t.covers(Troop::ALL[top]))
                .fold(0u8, |m, t| m | 1 << t.index())
        });
        let fitting = std::array::from_fn(|types| {
            bits(types as u32)
                .map(|t| opponent_pool.0[t] as u32)
                .sum::<u32>() as u8
        });
        let pool = opponent_pool.total() as u32;
        let holds = (0..=pool)
            .map(|fitting| std::array::from_fn(|rack| chance_to_hold(pool, fitting, rack as u32)))
            .collect();
        let regions = terrain
            .regions
            .iter()
            .map(|region| {
                let (size, medals) = (region.bases.count_ones(), region.medals as i32);
                let n = size as i32;
                RegionWorth {
                    bases: region.bases,
                    size,
                    medals,
                    progress: std::array::from_fn(|k| {
                        let k = k as i32;
                        PROGRESS_PER_MEDAL * medals * k * k / (n * n).max(1)
                    }),
                }
            })
            .collect();
        let node_medals = std::array::from_fn(|n| {
            bits(terrain.node_regions[n])
                .map(|r| terrain.regions[r].medals as u32)
                .sum()
        });
        Judge {
            game,
            me,
            opponent_pool,
            hook_free: game.hook_unconnected_bases(),
            allowed,
            covered_by,
            fitting,
            holds,
            regions,
            all_regions: match terrain.regions.len() {
                32.. => RegionMask::MAX,
                n => (1 << n) - 1,
            },
            node_medals,
            capn_steps: terrain.neighbours_of(terrain.hqs[me.index()]) & terrain.bases,
            within: [Colour::Blue, Colour::Red].map(|c| steps_layers(terrain, c)),
            weights: HAND_SET_WEIGHTS,
        }
    }

    /// This judge, scoring positions with `weights` instead of the hand-set sum: search
    /// playouts may pick their decisions by weights learned from self-play
    /// (`SearchConfig::playout_weights`).
    pub(crate) fn weighted(self, weights: TermWeights) -> Judge<'a> {
        Judge { weights, ..self }
    }

    /// `terms` weighted, in millionths of a point.
    fn micro(&self, terms: &[i32; TERMS.len()]) -> i64 {
        terms
            .iter()
            .zip(&self.weights)
            .map(|(&t, &w)| i64::from(t) * i64::from(w))
            .sum()
    }

    /// The decision of these rules in `s`, where `me` decides, its candidates scored at
    /// `horizon`: the `greedy` bot plays each to the end of its turn. The search bots' greedy
    /// playouts call it too (`PlayoutPolicy::Greedy`, `GreedyOnce`, `GreedyEffects`).
    pub(crate) fn pick<R: Rng>(&self, s: &State, horizon: Horizon, rng: &mut R) -> Decision {
        self.pick_with(s, horizon, &mut EvalCache::new(DECISION_CACHE_BITS), rng)
    }

    /// [`Judge::pick`], reading and filling `cache`: the same decision, sooner where the
    /// cache holds positions this judge met before.
    pub(crate) fn pick_with<R: Rng>(
        &self,
        s: &State,
        horizon: Horizon,
        cache: &mut EvalCache,
        rng: &mut R,
    ) -> Decision {
        cache.serve(self);
        self.pick_scored(s, horizon, None, cache, rng).0
    }

    /// [`Judge::pick`], with the chosen candidate's score where its candidates were scored.
    /// `turn_base`, when `s` is a later decision in the turn of a candidate being scored, is the
    /// [`Base`] of that candidate's decision: it holds for every position that follows in the
    /// turn, and a base of `s` would cost more than its few candidates save with it.
    fn pick_scored<R: Rng>(
        &self,
        s: &State,
        horizon: Horizon,
        turn_base: Option<&Base>,
        cache: &mut EvalCache,
        rng: &mut R,
    ) -> (Decision, Option<i32>) {
        let mut list = DecisionList::new();
        self.game.legal_decisions(s, &mut list);
        if list.len() == 1 {
            return (list[0], None);
        }
        match fixed_rule(self.me, s, &mut list) {
            Some(fixed) => (fixed, None),
            None => self.best(s, &list, horizon, turn_base, cache, rng),
        }
    }

    /// The best scored decision of `list`, with its score; `decline` only when nothing scores
    /// strictly better, other ties broken by the seed. `turn_base` as in [`Judge::pick_scored`].
    fn best<R: Rng>(
        &self,
        s: &State,
        list: &DecisionList,
        horizon: Horizon,
        turn_base: Option<&Base>,
        cache: &mut EvalCache,
        rng: &mut R,
    ) -> (Decision, Option<i32>) {
        let own;
        let base = match turn_base {
            Some(base) => base,
            None => {
                own = self.base(s);
                &own
            }
        };
        // Pushed in place: collecting would build the array aside and copy all of it.
        let mut scores = ArrayVec::<i32, MAX_DECISIONS>::new();
        for &d in list {
            scores.push(self.score(s, base, cache, d, horizon.of(d), rng));
        }
        if horizon == Horizon::Effects {
            self.add_capn_gain(s, base, list, &mut scores);
        }
        let top = scores.iter().copied().max().unwrap_or(i32::MIN);
        let decline_ties = list
            .iter()
            .zip(&scores)
            .any(|(&d, &v)| d == Decision::Decline && v == top);
        if decline_ties {
            return (Decision::Decline, Some(top));
        }
        let ties = scores.iter().filter(|&&v| v == top).count();
        let k = rng.random_range(0..ties);
        let chosen = list
            .iter()
            .zip(&scores)
            .filter(|&(_, &v)| v == top)
            .nth(k)
            .map(|(&d, _)| d);
        (chosen.unwrap_or(list[0]), chosen.map(|_| top))
    }

    /// Takes `next` from the position where `me` decides to the one `d` reaches at `horizon`
    /// ([`Judge::score`]); returns the later decisions of the turn it took, and the score of
    /// that position where the last decision's own candidates scored it: a later decision
    /// scored once, with no chance after it, reached what it was scored on. The caller's copy
    /// is played on in place: returning the position copied the state once more per candidate,
    /// a tenth of a search's instructions (results/search-speed.md).
    fn reach<R: Rng>(
        &self,
        next: &mut State,
        base: &Base,
        cache: &mut EvalCache,
        d: Decision,
        horizon: Horizon,
        rng: &mut R,
    ) -> (i32, Option<i32>) {
        self.game.apply_legal(next, d);
        let (mut steps, mut known) = (0, None);
        while !next.is_over() && next.active() == self.me {
            if next.is_chance() {
                let outcome = sample_chance(self.game, next, rng);
                self.game.apply_legal(next, outcome);
                known = None;
            } else if horizon == Horizon::Turn {
                let (later, score) = self.pick_scored(next, Horizon::Once, Some(base), cache, rng);
                self.game.apply_legal(next, later);
                steps += 1;
                known = score;
            } else {
                break;
            }
        }
        (steps, known)
    }

    /// The terms of the position each decision of `list` (the legal decisions of `s`, where
    /// `me` decides) reaches as greedy playouts at `horizon` play it, for fitting playout
    /// weights to the decisions a search chose (`train::playout`). `None` where these rules
    /// take no scored choice (a single decision, or a fixed rule: draws, XB-42, recoveries) or
    /// where a decision ends the game (these rules take a win, and no weight changes that).
    /// Jumbo's decline is dropped from `list`, as the rules always discard.
    pub(crate) fn candidate_terms<R: Rng>(
        &self,
        s: &State,
        list: &mut DecisionList,
        horizon: Horizon,
        rng: &mut R,
    ) -> Option<Vec<[i32; TERMS.len()]>> {
        if list.len() < 2 || fixed_rule(self.me, s, list).is_some() {
            return None;
        }
        let base = self.base(s);
        let mut cache = EvalCache::new(DECISION_CACHE_BITS);
        cache.serve(self);
        list.iter()
            .map(|&d| {
                let mut next = *s;
                self.reach(&mut next, &base, &mut cache, d, horizon.of(d), rng);
                (!next.is_over()).then(|| self.terms_from(&next, &base))
            })
            .collect()
    }

    /// [`Horizon::Effects`] for a Cap'n placement scored once: its extra placement (R7.3) is
    /// worth about what the best other placement gains over the position before, if anything;
    /// it stays below a win now.
    fn add_capn_gain(&self, s: &State, base: &Base, list: &DecisionList, scores: &mut [i32]) {
        let is_capn =
            |d: &Decision| matches!(d, Decision::Place { troop, .. } if *troop == Troop::Capn);
        let other = list
            .iter()
            .zip(scores.iter())
            .filter(|(d, _)| matches!(d, Decision::Place { .. }) && !is_capn(d))
            .map(|(_, &v)| v)
            .max();
        // The position's own evaluation is needed only when a Cap'n is among the candidates.
        let Some(other) = other.filter(|_| list.iter().any(is_capn)) else {
            return;
        };
        let gain = other
            .saturating_sub(self.evaluate_from(s, base, None))
            .max(0);
        for (d, v) in list.iter().zip(scores.iter_mut()) {
            if is_capn(d) && *v < BLOCKED_WIN {
                *v = v.saturating_add(gain).min(BLOCKED_WIN - 1);
            }
        }
    }

    /// The score after `d`: with [`Horizon::Turn`], after the rest of the turn played by these
    /// rules. `base` and `cache` are what the evaluation reuses of `s` and of the positions
    /// met before.
    fn score<R: Rng>(
        &self,
        s: &State,
        base: &Base,
        cache: &mut EvalCache,
        d: Decision,
        horizon: Horizon,
        rng: &mut R,
    ) -> i32 {
        let mut next = *s;
        let (steps, known) = self.reach(&mut next, base, cache, d, horizon, rng);
        let value = known.unwrap_or_else(|| self.evaluate_from(&next, base, Some(cache)));
        match value {
            // A win now beats the same win later in the turn (rules 1 and 2 are about now).
            v if v >= BLOCKED_WIN => v - steps,
            v => v,
        }
    }

    /// The player whose worth [`Judge::evaluate`] measures.
    pub(crate) fn me(&self) -> Colour {
        self.me
    }

    /// The position's worth for `me`, normally with the opponent to move.
    pub(crate) fn evaluate(&self, s: &State) -> i32 {
        self.evaluate_from(s, &self.base(s), None)
    }

    /// [`Judge::evaluate`], reusing what `base` knows of an earlier position of the turn, and
    /// with a `cache`, what it holds of an earlier position with the same key.
    fn evaluate_from(&self, s: &State, base: &Base, cache: Option<&mut EvalCache>) -> i32 {
        if let Some(o) = s.outcome() {
            return match (o.winner == self.me, o.win) {
                (true, WinType::Hq) => WIN + HQ_WIN_BONUS,
                (true, WinType::Medals) => WIN + MEDAL_WIN_BONUS,
                (true, WinType::Blocked) => BLOCKED_WIN,
                (false, _) => -WIN,
            };
        }
        let mut scratch = None;
        let view = self.view(s, base, &mut scratch);
        let Some(cache) = cache else {
            return points(self.micro(&self.terms_of(s, &view, base)));
        };
        let key = self.key(s, &view);
        let our_rack = i64::from(RACK_WORTH[s.rack_len(self.me) as usize])
            * i64::from(self.weights[RACK_TERM]);
        let slot = cache.slot(&key);
        if let Some((held, v)) = &cache.entries[slot] {
            if *held == key {
                return points(v + our_rack);
            }
        }
        let v = self.micro(&self.terms_of(s, &view, base));
        cache.entries[slot] = Some((key, v - our_rack));
        points(v)
    }

    /// The terms of [`Judge::evaluate`] for an unfinished game, in [`TERMS`] order; the
    /// evaluation is their weighted sum.
    pub(crate) fn terms(&self, s: &State) -> [i32; TERMS.len()] {
        self.terms_from(s, &self.base(s))
    }

    /// What the evaluation of `s` and of the positions that follow it in the turn can reuse.
    fn base(&self, s: &State) -> Base {
        let (me, them) = (self.me, self.me.opponent());
        let bases = self.game.terrain().bases;
        let (my_connected, my_chain) = self.game.connection(s, me, 0);
        let (their_connected, their_chain) = self.game.connection(s, them, 0);
        let one_away = self.one_away(s);
        Base {
            mine: s.board().occupied(me) & bases,
            my_chain,
            my_connected,
            my_steps: self.steps_to_hq(my_connected, them),
            theirs: s.board().occupied(them) & bases,
            their_chain,
            their_connected,
            their_steps: self.steps_to_hq(their_connected, me),
            taken: s.regions_taken(),
            their_one_away: one_away,
            regions: self.region_term(s),
        }
    }

    /// The terms of `s`, reusing `base` where its keys match `s`.
    fn terms_from(&self, s: &State, base: &Base) -> [i32; TERMS.len()] {
        self.terms_of(s, &self.view(s, base, &mut None), base)
    }

    /// The view of `s`, reusing `base` where its keys match `s`.
    /// `scratch` holds the opponent's region threats when they cannot be reused.
    fn view<'b>(&self, s: &State, base: &'b Base, scratch: &'b mut Option<OneAway>) -> View<'b> {
        let (me, them) = (self.me, self.me.opponent());
        let bases = self.game.terrain().bases;
        let board = s.board();
        let (mine, theirs) = (board.occupied(me) & bases, board.occupied(them) & bases);
        // A connection depends only on the player's bases; a known chain starts the fill.
        let my_connected = if mine == base.mine {
            base.my_connected
        } else {
            self.game.connection(s, me, base.my_chain).0
        };
        let my_steps = if my_connected == base.my_connected {
            base.my_steps
        } else {
            self.steps_to_hq(my_connected, them)
        };
        let (their_connected, their_steps) = if theirs == base.theirs {
            (base.their_connected, base.their_steps)
        } else {
            let connected = self.game.connection(s, them, base.their_chain).0;
            (connected, self.steps_to_hq(connected, me))
        };
        let their_one_away = if theirs == base.theirs && s.regions_taken() == base.taken {
            &base.their_one_away
        } else {
            scratch.insert(self.one_away(s))
        };
        View {
            my_connected,
            my_steps,
            their_connected,
            their_steps,
            their_one_away,
        }
    }

    /// The key of the unfinished position `s` whose view is `view`.
    fn key(&self, s: &State, view: &View) -> EvalKey {
        let (me, them) = (self.me, self.me.opponent());
        let board = s.board();
        let asked = view.their_connected | view.their_one_away.mask;
        let tops = board.tops_by_troop(me);
        EvalKey {
            occupied: [board.occupied(me), board.occupied(them)],
            tops: std::array::from_fn(|t| tops[t] & asked),
            medals: [s.medals(me), s.medals(them)],
            their_rack_len: s.rack_len(them),
            taken: s.regions_taken(),
        }
    }

    /// The terms of the unfinished position `s` whose view is `view`, reusing `base`.
    fn terms_of(&self, s: &State, view: &View, base: &Base) -> [i32; TERMS.len()] {
        let (me, them) = (self.me, self.me.opponent());
        let bases = self.game.terrain().bases;
        let board = s.board();
        let presence = (board.occupied(me) & bases).count_ones() as i32
            - (board.occupied(them) & bases).count_ones() as i32;
        let attack = if view.my_steps == 0 { HQ_ATTACK } else { 0 };
        let race = STEP * (view.their_steps - view.my_steps) + attack;
        let one_away = view.their_one_away;
        let threats = self.threats(s, view.their_connected, one_away.mask, &one_away.gain_at);
        [
            MEDAL * (s.medals(me) as i32 - s.medals(them) as i32),
            RACK_WORTH[s.rack_len(me) as usize] - RACK_WORTH[s.rack_len(them) as usize],
            PRESENCE * presence,
            self.regions(s, view.my_connected, &base.regions),
            race,
            -threats,
            -self.exposure(s, view.their_connected),
        ]
    }

    /// The region term of `s`, region by region.
    fn region_term(&self, s: &State) -> RegionTerm {
        let board = s.board();
        let tops = [board.occupied(self.me), board.occupied(self.me.opponent())];
        let mut term = RegionTerm {
            tops,
            taken: s.regions_taken(),
            progress: 0,
            part: [0; MAX_REGIONS],
            missing: [0; MAX_REGIONS],
            gain_at: [0; MAX_NODES],
            one_away: 0,
        };
        for r in bits(self.all_regions & !s.regions_taken()) {
            let (part, missing) = self.region_part(r, tops);
            term.progress += part;
            term.part[r] = part;
            term.missing[r] = missing;
            if missing != 0 {
                term.gain_at[missing.trailing_zeros() as usize] += self.regions[r].medals;
                term.one_away |= missing;
            }
        }
        term
    }

    /// Progress of open region `r` with our and the opponent's top tiles `tops` (uncontested
    /// regions count for their holder), and its one missing base if we lack only one (else 0).
    fn region_part(&self, r: usize, [mine_top, theirs_top]: [NodeMask; 2]) -> (i32, NodeMask) {
        let region = &self.regions[r];
        let mine = (region.bases & mine_top).count_ones();
        let theirs = (region.bases & theirs_top).count_ones();
        let mut v = 0;
        if theirs == 0 {
            v += region.progress[mine as usize];
        }
        if mine == 0 {
            v -= region.progress[theirs as usize];
        }
        let missing = if mine + 1 == region.size {
            region.bases & !mine_top
        } else {
            0
        };
        (v, missing)
    }

    /// Progress in uncontested regions, and our own regions one base from complete; `known`
    /// is the region term of an earlier position, of which only the regions around the nodes
    /// that changed and the regions taken since are recomputed.
    fn regions(&self, s: &State, my_connected: NodeMask, known: &RegionTerm) -> i32 {
        let me = self.me;
        let terrain = self.game.terrain();
        let board = s.board();
        let tops = [board.occupied(me), board.occupied(me.opponent())];
        let taken = s.regions_taken();
        let changed = (tops[0] ^ known.tops[0]) | (tops[1] ^ known.tops[1]);
        let mut affected = taken ^ known.taken;
        for n in bits(changed) {
            affected |= terrain.node_regions[n];
        }
        let mut v = known.progress;
        let mut gain_at = known.gain_at;
        let mut one_away = known.one_away;
        for r in bits(affected & self.all_regions) {
            let medals = self.regions[r].medals;
            v -= known.part[r];
            if known.missing[r] != 0 {
                gain_at[known.missing[r].trailing_zeros() as usize] -= medals;
            }
            if taken & (1 << r) == 0 {
                let (part, missing) = self.region_part(r, tops);
                v += part;
                if missing != 0 {
                    gain_at[missing.trailing_zeros() as usize] += medals;
                    one_away |= missing;
                }
            }
        }
        let to_win = self.game.medals_to_win() as i32;
        // Other nodes have no gain and score 0, the default of an empty maximum.
        let best = bits(my_connected & one_away)
            .map(|b| match gain_at[b] {
                0 => 0,
                g if s.medals(me) as i32 + g >= to_win => HQ_ATTACK,
                g => ONE_AWAY_PER_MEDAL * g,
            })
            .max()
            .unwrap_or(0);
        v + best
    }

    /// Placements a player whose placeable nodes are `reach` needs before an HQ of `target`
    /// is among them (each placement on a base opens its neighbours); capped at `MAX_STEPS`.
    /// The layers of `within` grow with the steps, so the steps are the layers `reach` misses.
    fn steps_to_hq(&self, reach: NodeMask, target: Colour) -> i32 {
        self.within[target.index()]
            .iter()
            .map(|&layer| i32::from(reach & layer == 0))
            .sum()
    }

    /// The regions the opponent lacks exactly one base of.
    fn one_away(&self, s: &State) -> OneAway {
        let theirs_top = s.board().occupied(self.me.opponent());
        let mut gain_at = [0i32; MAX_NODES];
        let mut mask = 0;
        for r in bits(self.all_regions & !s.regions_taken()) {
            let region = &self.regions[r];
            let missing = region.bases & !theirs_top;
            if missing != 0 && missing & (missing - 1) == 0 {
                gain_at[missing.trailing_zeros() as usize] += region.medals;
                mask |= missing;
            }
        }
        OneAway { mask, gain_at }
    }

    /// What the opponent, connected to `reach`, threatens on their next turn: the worst of an
    /// HQ capture (directly or through a Cap'n), and taking the last missing base of regions
    /// (`one_away`, with the medals `gain_at` each).
    fn threats(
        &self,
        s: &State,
        reach: NodeMask,
        one_away: NodeMask,
        gain_at: &[i32; MAX_NODES],
    ) -> i32 {
        let (me, them) = (self.me, self.me.opponent());
        let terrain = self.game.terrain();
        let my_hqs = terrain.hqs[me.index()];
        let mut worst = 0.0f64;
        for hq in bits(my_hqs & reach) {
            worst = worst.max(LOSS_THREAT * self.holds_fit(s, self.fit(s, hq)));
        }
        if self.opponent_pool.get(Troop::Capn) > 0 {
            let capn = 1u8 << Troop::Capn.index();
            if bits(self.capn_steps & reach).any(|b| self.fit(s, b) & capn != 0) {
                worst = worst.max(LOSS_THREAT * CAPN_THREAT_SHARE);
            }
        }
        let to_win = self.game.medals_to_win() as i32;
        for b in bits(one_away) {
            let gain = gain_at[b];
            let mut fit = self.fit(s, b);
            if reach & (1 << b) == 0 {
                // Unconnected: only a Hook may go there.
                fit &= if self.hook_free & (1 << b) != 0 {
                    1 << Troop::Hook.index()
                } else {
                    0
                };
            }
            let weight = if s.medals(them) as i32 + gain >= to_win {
                LOSS_THREAT
            } else {
                REGION_THREAT_PER_MEDAL * gain as f64
            };
            worst = worst.max(weight * self.holds_fit(s, fit));
        }
        worst as i32
    }

    /// Our top tiles the opponent can reach and cover, weighted by what they hold.
    fn exposure(&self, s: &State, reach: NodeMask) -> i32 {
        let terrain = self.game.terrain();
        let taken = s.regions_taken();
        let mut total = 0.0;
        for b in bits(s.board().occupied(self.me) & terrain.bases & reach) {
            let taken_medals: u32 = bits(terrain.node_regions[b] & taken)
                .map(|r| self.regions[r].medals as u32)
                .sum();
            let open_medals = self.node_medals[b] - taken_medals;
            let stake = PRESENCE as f64 + EXPOSED_STAKE_PER_MEDAL * open_medals as f64;
            total += stake * self.holds_fit(s, self.fit(s, b));
        }
        total as i32
    }

    /// Troop types (bit per troop) the opponent could place on node `n` if connected: allowed
    /// there (R5.4) and, over one of our tiles, able to cover it (R5.2, R5.3).
    fn fit(&self, s: &State, n: usize) -> u8 {
        let coverable = match s.board().top(NodeIndex::new(n)) {
            Some(top) if top.colour() == self.me => self.covered_by[top.troop().index()],
            _ => u8::MAX,
        };
        self.allowed[n] & coverable
    }

    /// Chance that the opponent's rack holds a tile of one of the `types`, as if their rack were
    /// drawn at random from the tiles they may hold.
    fn holds_fit(&self, s: &State, types: u8) -> f64 {
        let fitting = self.fitting[types as usize];
        let rack = (s.rack_len(self.me.opponent()) as usize).min(RACKS - 1);
        self.holds[fitting as usize][rack]
    }
}

/// `layers[k]`: the nodes from which `k` placements or fewer reach an HQ of `target`: the HQs,
/// then the bases next to the layer before (a placement on a base opens its neighbours).
fn steps_layers(terrain: &Terrain, target: Colour) -> [NodeMask; MAX_STEPS as usize] {
    let mut layer = terrain.hqs[target.index()];
    std::array::from_fn(|_| {
        let this = layer;
        layer |= bits(terrain.bases)
            .filter(|&b| terrain.neighbours[b] & layer != 0)
            .fold(0, |m, b| m | 1 << b);
        this
    })
}

/// A weighted sum in millionths as points (toward zero; the hand-set weights give the plain
/// sum exactly).
fn points(micro: i64) -> i32 {
    (micro / 1_000_000).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// Chance that a rack of `rack` tiles drawn at random from a pool of `pool` tiles holds one of
/// the pool's `fitting` tiles.
fn chance_to_hold(pool: u32, fitting: u32, rack: u32) -> f64 {
    let mut none = 1.0;
    for i in 0..rack.min(pool) {
        if fitting + i >= pool {
            return 1.0; // every tile left to deal fits
        }
        none *= (pool - fitting - i) as f64 / (pool - i) as f64;
    }
    1.0 - none
}

/// The decision a fixed rule of the greedy rules takes in `s` for `me` (draws, XB-42,
/// recoveries), or `None` where the candidates of `list` are scored; Jumbo's discard drops
/// the decline from `list` (it always discards). The oracle keeps these rules too.
fn fixed_rule(me: Colour, s: &State, list: &mut DecisionList) -> Option<Decision> {
    let fixed = match s.phase() {
        Phase::TroopEffect {
            troop: Troop::Skully | Troop::Star,
            ..
        }
        | Phase::SpecialEffect {
            effect: SpecialEffect::DrawOne,
            ..
        } => {
            if s.rack_len(me) <= SMALL_RACK {
                Decision::Draw
            } else {
                Decision::Decline
            }
        }
        Phase::TroopEffect {
            troop: Troop::Xb42, ..
        }
        | Phase::SpecialEffect {
            effect: SpecialEffect::FreezeOpponentRack,
            ..
        } => Decision::Use,
        // Legal recoveries come by troop in canonical order: the last is the strongest.
        Phase::SpecialEffect {
            effect: SpecialEffect::RecoverFromDiscard,
            ..
        } => list[list.len() - 1],
        Phase::TroopEffect {
            troop: Troop::Jumbo,
            ..
        } => {
            list.retain(|d| *d != Decision::Decline);
            return None;
        }
        _ => return None,
    };
    Some(fixed)
}

#[cfg(test)]
mod oracle;

#[cfg(test)]
mod tests {
    use super::oracle::OldJudge;
    use super::*;
    use crate::rules::{random_decision, Variant};
    use crate::terrain::builtin_terrains;
    use rand::RngCore;
    use std::sync::Arc;

    /// Positions of random games on every shipped terrain in both variants: the faster judge
    /// makes the decision the oracle makes and consumes the same random numbers, for both
    /// players' judges and at both depths; its terms and evaluations agree everywhere, also
    /// where it reuses what it knows of the position before each legal decision and of the
    /// candidates before, at every horizon.
    #[test]
    fn picks_what_the_oracle_picks() {
        let mut positions = 0;
        for terrain in builtin_terrains() {
            for variant in [Variant::Normal, Variant::Beginner] {
                let game = Game::new(Arc::new(terrain.clone()), variant);
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(positions);
                for deal_seed in 0..6 {
                    let deal = crate::rules::Deal::from_seed(deal_seed);
                    let mut s = game.initial_state(&deal);
                    while !s.is_over() {
                        if !s.is_chance() {
                            positions += 1;
                            agree(&game, &s, positions);
                        }
                        let d = if s.is_chance() {
                            sample_chance(&game, &s, &mut rng)
                        } else {
                            random_decision(&game, &s, &mut rng).expect("a live game")
                        };
                        game.apply_legal(&mut s, d);
                    }
                }
            }
        }
        assert!(positions > 3000, "only {positions} positions compared");
    }

    /// Restricted play: the judge reads the rules as played. On a restricted node (each node
    /// with an effect of every shipped terrain in turn) its tables of allowed troops (R5.4)
    /// and of Hook's bases without connection (A4) are the beginner game's, where the node is
    /// plain; on every other node they are the printed rules', which read the terrain.
    #[test]
    fn the_judge_sees_a_restricted_base_as_a_plain_one() {
        use crate::rules::{Restricted, WhatIf};
        let tables = |game: &Game| {
            let s = game.initial_state(&crate::rules::Deal::from_seed(1));
            let judge = Judge::new(game, &Observation::new(&s, Colour::Blue));
            (judge.allowed, judge.hook_free)
        };
        for terrain in builtin_terrains() {
            let arc = Arc::new(terrain.clone());
            let normal = Game::new(Arc::clone(&arc), Variant::Normal);
            let beginner = tables(&Game::new(Arc::clone(&arc), Variant::Beginner));
            let printed = tables(&normal);
            let cancelling = terrain.nodes_with(SpecialEffect::NoTroopEffect);
            assert_eq!(printed.1, terrain.bases & !cancelling, "{}", terrain.key);
            for n in 0..terrain.node_count() {
                let kwak = 1 << Troop::Kwak.index();
                assert_eq!(
                    printed.0[n],
                    terrain.allowed_troops[n] | kwak,
                    "{}",
                    terrain.key
                );
            }
            for node in terrain.nodes.iter().filter(|n| n.effect.is_some()) {
                let what_if = WhatIf {
                    restricted: Restricted::of([node.id]),
                    ..WhatIf::RETAIL
                };
                let restricted = tables(&normal.clone().with_what_if(what_if).unwrap());
                let x = terrain.index_of(node.id).unwrap().usize();
                for n in 0..terrain.node_count() {
                    let want = if n == x { beginner } else { printed };
                    let bit = 1 << n;
                    assert_eq!(
                        (restricted.0[n], restricted.1 & bit),
                        (want.0[n], want.1 & bit),
                        "{} restricted {}: node index {n}",
                        terrain.key,
                        node.id
                    );
                }
            }
        }
    }

    /// A judge with other term weights (`SearchConfig::playout_weights`) scores a position as
    /// the weighted sum of its terms, also where its cache answers for an earlier position
    /// (our rack's worth is weighted apart from the cached rest) and where candidates share the
    /// cache at every horizon; and the weights change what it picks.
    #[test]
    fn a_weighted_judge_scores_the_weighted_terms_and_picks_otherwise() {
        let weights = [
            633_000, 1_967_000, 4_000_000, 837_000, 805_000, 8_000, 1_099_000,
        ];
        let (mut positions, mut differ) = (0, 0);
        for terrain in builtin_terrains() {
            let game = Game::new(Arc::new(terrain.clone()), Variant::Normal);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
            let mut s = game.initial_state(&crate::rules::Deal::from_seed(41));
            while !s.is_over() {
                if !s.is_chance() {
                    positions += 1;
                    let observation = Observation::new(&s, s.active());
                    let plain = Judge::new(&game, &observation);
                    let judge = Judge::new(&game, &observation).weighted(weights);
                    weighted_scores_agree(&game, &judge, &s, positions);
                    let mut a = Xoshiro256PlusPlus::seed_from_u64(positions);
                    let mut b = a.clone();
                    let pick =
                        |j: &Judge, r: &mut Xoshiro256PlusPlus| j.pick(&s, Horizon::Effects, r);
                    differ += u64::from(pick(&judge, &mut a) != pick(&plain, &mut b));
                }
                let d = if s.is_chance() {
                    sample_chance(&game, &s, &mut rng)
                } else {
                    random_decision(&game, &s, &mut rng).expect("a live game")
                };
                game.apply_legal(&mut s, d);
            }
        }
        assert!(
            differ * 20 > positions,
            "the weights changed {differ} of {positions} picks"
        );
    }

    fn weighted_scores_agree(game: &Game, judge: &Judge, s: &State, seed: u64) {
        let base = judge.base(s);
        let mut list = DecisionList::new();
        game.legal_decisions(s, &mut list);
        let mut cache = EvalCache::new(DECISION_CACHE_BITS);
        cache.serve(judge);
        for &d in &list {
            let mut next = *s;
            game.apply_legal(&mut next, d);
            if next.is_over() {
                continue;
            }
            let want = points(judge.micro(&judge.terms(&next)));
            for _ in 0..2 {
                assert_eq!(judge.evaluate_from(&next, &base, Some(&mut cache)), want);
            }
        }
        for horizon in [Horizon::Turn, Horizon::Once, Horizon::Effects] {
            let mut shared = EvalCache::new(DECISION_CACHE_BITS);
            shared.serve(judge);
            for (k, &d) in list.iter().enumerate() {
                let h = horizon.of(d);
                let rng = || Xoshiro256PlusPlus::seed_from_u64(seed ^ k as u64);
                let mut fresh = EvalCache::new(DECISION_CACHE_BITS);
                fresh.serve(judge);
                assert_eq!(
                    judge.score(s, &base, &mut shared, d, h, &mut rng()),
                    judge.score(s, &base, &mut fresh, d, h, &mut rng()),
                    "score of {d:?} at {horizon:?} in {s:?}"
                );
            }
        }
    }

    fn agree(game: &Game, s: &State, seed: u64) {
        for observer in [Colour::Blue, Colour::Red] {
            let observation = Observation::new(s, observer);
            let (new, old) = (
                Judge::new(game, &observation),
                OldJudge::new(game, &observation),
            );
            assert_eq!(
                new.terms(s),
                old.terms(s),
                "terms for {observer:?} at {s:?}"
            );
            if s.active() != observer {
                continue;
            }
            // Each candidate's position, reusing what the evaluation knows of `s` and of the
            // candidates before it.
            let base = new.base(s);
            let mut cache = EvalCache::new(DECISION_CACHE_BITS);
            cache.serve(&new);
            let mut list = DecisionList::new();
            game.legal_decisions(s, &mut list);
            for &d in &list {
                let mut next = *s;
                game.apply_legal(&mut next, d);
                if !next.is_over() {
                    assert_eq!(
                        new.terms_from(&next, &base),
                        old.terms(&next),
                        "terms for {observer:?} after {d:?} in {s:?}"
                    );
                }
                assert_eq!(
                    new.evaluate_from(&next, &base, Some(&mut cache)),
                    old.evaluate(&next),
                    "evaluation for {observer:?} after {d:?} in {s:?}"
                );
            }
            // Sharing evaluations along the candidate list changes no score at any horizon,
            // also where a candidate is played on past its placement (a draw, a discard).
            for horizon in [Horizon::Turn, Horizon::Once, Horizon::Effects] {
                let mut shared = EvalCache::new(DECISION_CACHE_BITS);
                shared.serve(&new);
                for (k, &d) in list.iter().enumerate() {
                    let h = horizon.of(d);
                    let rng = || Xoshiro256PlusPlus::seed_from_u64(seed ^ k as u64);
                    let mut fresh = EvalCache::new(DECISION_CACHE_BITS);
                    fresh.serve(&new);
                    assert_eq!(
                        new.score(s, &base, &mut shared, d, h, &mut rng()),
                        new.score(s, &base, &mut fresh, d, h, &mut rng()),
                        "score of {d:?} at {horizon:?} in {s:?}"
                    );
                }
            }
            for (depth, horizon) in [(0, Horizon::Turn), (1, Horizon::Once)] {
                let mut a = Xoshiro256PlusPlus::seed_from_u64(seed);
                let mut b = a.clone();
                let (dn, dold) = (new.pick(s, horizon, &mut a), old.pick(s, depth, &mut b));
                assert_eq!(dn, dold, "decision at depth {depth} in {s:?}");
                assert_eq!(a.next_u64(), b.next_u64(), "random draws at {s:?}");
            }
        }
    }
}
