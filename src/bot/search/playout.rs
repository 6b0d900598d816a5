//! Playouts: finishing a game from a state with a cheap policy, without touching the heap.
//!
//! The heuristic policy weighs each legal decision and samples in proportion:
//! - a placement on an enemy HQ wins (R10.1) and is always taken;
//! - a placement that takes a region (R8.2) weighs 64;
//! - a placement covering an enemy tile, and Jumbo's discard of an enemy tile, weigh 8;
//! - a placement on an empty base, and every other decision (draw, decline, …), weigh 4;
//! - a placement on one's own tile weighs 1 (it gains no ground).
//!
//! It costs two passes over the legal list with a few bit operations per decision.

use super::{PlayoutPolicy, Settings};
use crate::rules::{sample_chance, Colour, Decision, DecisionList, Game, State};
use crate::terrain::{bits, NodeMask, Terrain};
use rand::Rng;

/// Plays `s` on until the game ends or `settings.last_turn` is passed.
pub(super) fn play_out<R: Rng>(settings: &Settings, s: &mut State, rng: &mut R) {
    let game = settings.game;
    let mut list = DecisionList::new();
    while !s.is_over() && s.turn() <= settings.last_turn {
        let d = if s.is_chance() {
            sample_chance(game, s, rng)
        } else {
            game.legal_decisions(s, &mut list);
            match settings.playout {
                PlayoutPolicy::Random => list[rng.random_range(0..list.len())],
                PlayoutPolicy::Heuristic => heuristic(game, s, &list, rng),
            }
        };
        game.apply_legal(s, d);
    }
}

/// The reward of `c` in a state where the playout stopped: 1 win, 0 loss, 0.5 unfinished.
#[inline]
pub(super) fn reward(s: &State, c: Colour) -> f64 {
    match s.outcome() {
        Some(o) if o.winner == c => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

const WIN: u32 = u32::MAX;
const W_REGION: u32 = 64;
const W_ATTACK: u32 = 8;
const W_PLAIN: u32 = 4;
const W_OWN_STACK: u32 = 1;

/// What the heuristic needs to know about the position, read once per decision.
struct Context {
    mine: NodeMask,
    theirs: NodeMask,
    enemy_hqs: NodeMask,
    /// Bases whose occupation completes a region not yet taken (R8.2).
    takes_region: NodeMask,
}

impl Context {
    fn new(terrain: &Terrain, s: &State) -> Context {
        let p = s.active();
        let mine = s.board().occupied(p);
        let mut takes_region = 0;
        for r in bits(!s.regions_taken() & region_mask(terrain)) {
            let missing = terrain.regions[r].bases & !mine;
            if missing.count_ones() == 1 {
                takes_region |= missing;
            }
        }
        Context {
            mine,
            theirs: s.board().occupied(p.opponent()),
            enemy_hqs: terrain.hqs[p.opponent().index()],
            takes_region,
        }
    }

    #[inline]
    fn weight(&self, d: Decision) -> u32 {
        match d {
            Decision::Place { node, .. } => self.placement_weight(1 << node),
            Decision::Discard { .. } => W_ATTACK,
            _ => W_PLAIN,
        }
    }

    #[inline]
    fn placement_weight(&self, bit: NodeMask) -> u32 {
        if self.enemy_hqs & bit != 0 {
            WIN
        } else if self.takes_region & bit != 0 {
            W_REGION
        } else if self.theirs & bit != 0 {
            W_ATTACK
        } else if self.mine & bit != 0 {
            W_OWN_STACK
        } else {
            W_PLAIN
        }
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

/// A decision of `list` sampled with the heuristic weights (see the module doc).
fn heuristic<R: Rng>(game: &Game, s: &State, list: &DecisionList, rng: &mut R) -> Decision {
    let ctx = Context::new(game.terrain(), s);
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
