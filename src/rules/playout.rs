//! Random play: the uniform random policy and complete random playouts.
//!
//! A playout spends most of its time choosing the action, whose legal list holds up to a few
//! hundred placements. [`random_decision`] therefore never builds that list: it takes the slot
//! mask of every troop, counts the placements with popcount and picks the k-th one in the order
//! of [`Game::legal_decisions`]. With the same random number, it returns exactly the decision
//! the list would have given, so the policy stays uniform over the legal decisions. The
//! optional effects met most often are enumerated the same way ([`EffectStep`]).

use super::decision::{Decision, DecisionList};
use super::game::Game;
use super::state::{Phase, State};
use super::tile::Troop;
use crate::terrain::{bits, NodeMask, SpecialEffect};
use rand::Rng;

/// A uniformly random legal decision, or at a chance event an outcome drawn with its
/// probability. `None` when the game is over.
#[inline]
pub fn random_decision<R: Rng>(game: &Game, s: &State, rng: &mut R) -> Option<Decision> {
    match s.phase() {
        Phase::Over => None,
        Phase::Chance(_) => {
            // Every tile of the pool is equally likely: the k-th tile in troop order is exactly
            // the outcome `sample_chance` picks from the weighted list with the same k.
            let pool = game.chance_pool(s);
            let k = rng.random_range(0..pool.total() as u32);
            Some(Decision::Chance(pool.nth(k)))
        }
        _ => Some(if let Some(step) = PlacementStep::of(game, s) {
            step.nth(rng.random_range(0..step.len()))
        } else if let Some(step) = EffectStep::of(game, s) {
            step.nth(rng.random_range(0..step.len()))
        } else {
            // Volcanic Jungle's moves and Cursed Cemetery's recoveries: the list.
            let mut list = DecisionList::new();
            game.legal_decisions(s, &mut list);
            list[rng.random_range(0..list.len())]
        }),
    }
}

/// Plays random decisions until the game ends or `max_turns` turns have begun. Returns whether
/// the game ended.
pub fn random_playout<R: Rng>(game: &Game, s: &mut State, rng: &mut R, max_turns: u16) -> bool {
    while s.turn() <= max_turns {
        match random_decision(game, s, rng) {
            Some(d) => game.apply_legal(s, d),
            None => return true,
        }
    }
    false
}

/// The legal decisions of a step that places a tile, without the list: the action (R4.1: DRAW
/// when legal, then every placement) or Cap'n's extra placement (R7.3: `decline`, then every
/// placement). Placements come by troop, then by node, as in [`Game::legal_decisions`].
struct PlacementStep {
    first: Option<Decision>,
    slots: [NodeMask; 8],
    /// Placements per troop: the popcount of each slot mask.
    counts: [u32; 8],
    /// Troops with an unfrozen tile on the rack: the others have no slots, and the search for
    /// the k-th decision skips them.
    troops: u8,
}

impl PlacementStep {
    #[inline]
    fn of(game: &Game, s: &State) -> Option<PlacementStep> {
        let p = s.active();
        let first = match s.phase() {
            Phase::Action => game.can_draw(s, p).then_some(Decision::Draw),
            Phase::TroopEffect {
                troop: Troop::Capn, ..
            } => Some(Decision::Decline),
            _ => return None,
        };
        let slots = game.placement_slots(s, p);
        let counts = slots.map(NodeMask::count_ones);
        Some(PlacementStep {
            first,
            slots,
            counts,
            troops: s.placeable_troops(p),
        })
    }

    #[inline]
    fn len(&self) -> usize {
        let placements: u32 = self.counts.iter().sum();
        self.first.is_some() as usize + placements as usize
    }

    /// The k-th decision (k < `len()`).
    #[inline]
    fn nth(&self, k: usize) -> Decision {
        let mut k = k as u32;
        if let Some(d) = self.first {
            if k == 0 {
                return d;
            }
            k -= 1;
        }
        for t in bits(self.troops as u32) {
            let t = t & 7; // a troop index: lets the compiler drop the bounds checks
            let count = self.counts[t];
            if k < count {
                return Decision::Place {
                    troop: Troop::from_index(t),
                    node: nth_node(self.slots[t], k),
                };
            }
            k -= count;
        }
        unreachable!("k is below the number of legal decisions")
    }
}

/// The legal decisions of an optional effect whose options are `decline`, then one decision
/// (Skully's and Star's draw R7.2, R7.7; XB-42 R7.6; City of Clouds R9.3; Battlefield R9.8) or
/// one decision per target node in ascending order (Jumbo R7.4; Castle Field R9.1), as in
/// [`Game::legal_decisions`].
enum EffectStep {
    One(Decision),
    Nodes {
        targets: NodeMask,
        decision: fn(u8) -> Decision,
    },
}

impl EffectStep {
    #[inline]
    fn of(game: &Game, s: &State) -> Option<EffectStep> {
        use EffectStep::{Nodes, One};
        Some(match s.phase() {
            Phase::TroopEffect { troop, node } => match troop {
                Troop::Skully | Troop::Star => One(Decision::Draw),
                Troop::Xb42 => One(Decision::Use),
                Troop::Jumbo => Nodes {
                    targets: game.jumbo_targets(s, node),
                    decision: |node| Decision::Discard { node },
                },
                _ => return None,
            },
            Phase::SpecialEffect { effect, node } => match effect {
                SpecialEffect::DrawOne => One(Decision::Draw),
                SpecialEffect::FreezeOpponentRack => One(Decision::Use),
                SpecialEffect::ReturnOwnTroop => Nodes {
                    targets: game.return_targets(s, node),
                    decision: |node| Decision::Return { node },
                },
                _ => return None,
            },
            _ => return None,
        })
    }

    #[inline]
    fn len(&self) -> usize {
        1 + match self {
            EffectStep::One(_) => 1,
            EffectStep::Nodes { targets, .. } => targets.count_ones() as usize,
        }
    }

    /// The k-th decision (k < `len()`): `decline` first.
    #[inline]
    fn nth(&self, k: usize) -> Decision {
        match (k, self) {
            (0, _) => Decision::Decline,
            (_, EffectStep::One(d)) => *d,
            (k, EffectStep::Nodes { targets, decision }) => {
                decision(nth_node(*targets, k as u32 - 1))
            }
        }
    }
}

/// The k-th lowest node of `m` (k < popcount of `m`).
#[inline]
fn nth_node(mut m: NodeMask, k: u32) -> u8 {
    for _ in 0..k {
        m &= m - 1;
    }
    m.trailing_zeros() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{sample_chance, Deal, Variant};
    use crate::terrain::builtin_terrains;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::sync::Arc;

    /// The random policy as the specification states it: build the legal list, pick uniformly;
    /// chance outcomes by their weights.
    fn reference_decision(game: &Game, s: &State, rng: &mut Xoshiro256PlusPlus) -> Decision {
        if s.is_chance() {
            return sample_chance(game, s, rng);
        }
        let mut list = DecisionList::new();
        game.legal_decisions(s, &mut list);
        list[rng.random_range(0..list.len())]
    }

    /// Every state of a few random games of every terrain and variant.
    fn visit_states(games_per_terrain: u64, mut visit: impl FnMut(&Game, &State)) {
        for variant in [Variant::Normal, Variant::Beginner] {
            for terrain in builtin_terrains() {
                let game = Game::new(Arc::new(terrain.clone()), variant);
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
                for seed in 0..games_per_terrain {
                    let mut s = game.initial_state(&Deal::from_seed(seed));
                    while let Some(d) = random_decision(&game, &s, &mut rng) {
                        visit(&game, &s);
                        game.apply_legal(&mut s, d);
                    }
                }
            }
        }
    }

    /// At every visited state where `step_of` applies, the step counts and enumerates exactly
    /// the legal list, in order.
    fn assert_step_matches_legal_list<S>(
        what: &str,
        step_of: impl Fn(&Game, &State) -> Option<S>,
        len: impl Fn(&S) -> usize,
        nth: impl Fn(&S, usize) -> Decision,
    ) {
        let mut list = DecisionList::new();
        let mut checked = 0;
        visit_states(20, |game, s| {
            let Some(step) = step_of(game, s) else {
                return;
            };
            game.legal_decisions(s, &mut list);
            assert_eq!(len(&step), list.len(), "{what} count in {:?}", s.phase());
            for (k, &d) in list.iter().enumerate() {
                assert_eq!(nth(&step, k), d, "{what} decision {k} in {:?}", s.phase());
            }
            checked += 1;
        });
        assert!(checked > 1000, "only {checked} {what} steps visited");
    }

    #[test]
    fn placement_step_lists_exactly_the_legal_decisions_in_order() {
        assert_step_matches_legal_list(
            "placement",
            PlacementStep::of,
            PlacementStep::len,
            |s, k| s.nth(k),
        );
    }

    #[test]
    fn effect_step_lists_exactly_the_legal_decisions_in_order() {
        assert_step_matches_legal_list("effect", EffectStep::of, EffectStep::len, |s, k| s.nth(k));
    }

    #[test]
    fn random_decision_draws_what_the_legal_list_would_give() {
        visit_states(20, |game, s| {
            let seed = s.turn() as u64 * 31 + s.board().tile_count() as u64;
            let mut fast = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut reference = Xoshiro256PlusPlus::seed_from_u64(seed);
            assert_eq!(
                random_decision(game, s, &mut fast),
                Some(reference_decision(game, s, &mut reference)),
                "in {:?}",
                s.phase()
            );
        });
    }
}
