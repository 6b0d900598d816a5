//! Random play: the uniform random policy and complete random playouts.
//!
//! A playout spends most of its time choosing the action, whose legal list holds up to a few
//! hundred placements. [`random_decision`] therefore never builds that list: it takes the slot
//! mask of every troop, counts the placements with popcount and picks the k-th one in the order
//! of [`Game::legal_decisions`]. With the same random number, it returns exactly the decision
//! the list would have given, so the policy stays uniform over the legal decisions. The
//! optional effects met most often are enumerated the same way (`EffectStep`).
//!
//! The choices of a random playout are random by nature, so a branch on them is mispredicted
//! about as often as not: the k-th troop, node and tile are found with bit arithmetic instead of
//! loops (`nth_node`, `nth_tile`).

use super::decision::{Decision, DecisionList};
use super::game::Game;
use super::state::{Phase, State};
use super::tile::{Troop, TroopCounts};
use crate::terrain::{NodeIndex, NodeMask, SpecialEffect};
use rand::Rng;

/// A uniformly random legal decision, or at a chance event an outcome drawn with its
/// probability. `None` when the game is over.
#[inline]
pub fn random_decision<R: Rng>(game: &Game, s: &State, rng: &mut R) -> Option<Decision> {
    decide(game, s, rng)
}

/// [`random_decision`], always inlined: the playout loop has two copies (see
/// [`random_playout`]), and each must inline the whole step to use its instructions.
#[inline(always)]
fn decide<R: Rng>(game: &Game, s: &State, rng: &mut R) -> Option<Decision> {
    match s.phase() {
        Phase::Over => None,
        Phase::Chance(_) => {
            // Every tile of the pool is equally likely: the k-th tile in troop order is exactly
            // the outcome `sample_chance` picks from the weighted list with the same k.
            let pool = game.chance_pool(s);
            let k = below(rng, pool.total() as u32);
            Some(Decision::Chance(nth_tile(pool, k)))
        }
        _ => Some(if let Some(step) = PlacementStep::of(game, s, &mut 0) {
            step.nth(below(rng, step.len() as u32) as usize)
        } else if let Some(step) = EffectStep::of(game, s) {
            step.nth(below(rng, step.len() as u32) as usize)
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
///
/// The default x86-64 target has no POPCNT, TZCNT or BLSR, and a playout counts and walks bit
/// sets at every step: on a CPU that has them, a copy of the loop compiled for them runs.
pub fn random_playout<R: Rng>(game: &Game, s: &mut State, rng: &mut R, max_turns: u16) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
    {
        // SAFETY: the CPU has every feature `playout_bit_instructions` is compiled for (checked
        // just above).
        return unsafe { playout_bit_instructions(game, s, rng, max_turns) };
    }
    playout_loop(game, s, rng, max_turns)
}

/// [`playout_loop`] compiled for the bit-manipulation instructions; the rules' `#[inline]`
/// functions are inlined into it and so use them too.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
fn playout_bit_instructions<R: Rng>(
    game: &Game,
    s: &mut State,
    rng: &mut R,
    max_turns: u16,
) -> bool {
    playout_loop(game, s, rng, max_turns)
}

/// The loop of [`random_playout`]: the decisions of [`random_decision`], from the same random
/// numbers.
#[inline(always)]
fn playout_loop<R: Rng>(game: &Game, s: &mut State, rng: &mut R, max_turns: u16) -> bool {
    // Each colour's connecting chain at its last placement step (see `Game::connection`).
    let mut chains = [0; 2];
    while s.turn() <= max_turns {
        // The decision is applied where it is chosen: a `Decision` built and then matched again
        // by `apply_legal` would be a second jump on the same random choice.
        match s.phase() {
            Phase::Over => return true,
            Phase::Chance(_) => {
                let pool = game.chance_pool(s);
                let k = below(rng, pool.total() as u32);
                game.resolve_chance(s, nth_tile(pool, k));
            }
            _ => {
                let chain = &mut chains[s.active().index()];
                if let Some(step) = PlacementStep::of(game, s, chain) {
                    match step.nth(below(rng, step.len() as u32) as usize) {
                        Decision::Place { troop, node } => game.place(s, troop, node),
                        // Only the action step offers DRAW first. Its chance events are
                        // resolved here, from the random numbers their phases would take.
                        Decision::Draw => game.draw_action(s, |reserve| {
                            nth_tile(reserve, below(rng, reserve.total() as u32))
                        }),
                        first => game.apply_step(s, first),
                    }
                } else if let Some(d) = decide(game, s, rng) {
                    game.apply_step(s, d);
                }
            }
        }
    }
    false
}

/// A uniform random number in `0..n` (n > 0): the number `rng.random_range(0..n)` gives with
/// rand 0.9's sampler for `usize` and `u32` ranges below 2^32 (a widening multiply, with a second
/// draw when the first may be biased), always inlined into the playout loop's copies.
#[inline(always)]
fn below<R: Rng>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0, "cannot sample an empty range");
    let wide = rng.next_u32() as u64 * n as u64;
    let (high, low) = ((wide >> 32) as u32, wide as u32);
    if low > n.wrapping_neg() {
        let next_high = ((rng.next_u32() as u64 * n as u64) >> 32) as u32;
        return high + low.checked_add(next_high).is_none() as u32;
    }
    high
}

/// The legal decisions of a step that places a tile, without the list: the action (R4.1: DRAW
/// when legal, then every placement) or Cap'n's extra placement (R7.3: `decline`, then every
/// placement). Placements come by troop, then by node, as in [`Game::legal_decisions`].
struct PlacementStep {
    first: Option<Decision>,
    slots: [NodeMask; 8],
    /// Placements per troop (the popcount of each slot mask) in 16-bit lanes: troops 0–3, 4–7.
    counts: [u64; 2],
}

impl PlacementStep {
    /// The step, if `s` waits for one; `chain` as in [`Game::placement_slots_from`].
    #[inline(always)]
    fn of(game: &Game, s: &State, chain: &mut NodeMask) -> Option<PlacementStep> {
        let p = s.active();
        let first = match s.phase() {
            Phase::Action => game.can_draw(s, p).then_some(Decision::Draw),
            Phase::TroopEffect {
                troop: Troop::Capn, ..
            } => Some(Decision::Decline),
            _ => return None,
        };
        let slots = game.placement_slots_from(s, p, chain);
        let count = |t: usize| slots[t].count_ones() as u64;
        let lanes =
            |t: usize| count(t) | count(t + 1) << 16 | count(t + 2) << 32 | count(t + 3) << 48;
        let counts = [lanes(0), lanes(4)];
        Some(PlacementStep {
            first,
            slots,
            counts,
        })
    }

    #[inline(always)]
    fn len(&self) -> usize {
        let placements = (self.counts[0] + self.counts[1]).wrapping_mul(LANES) >> 48;
        self.first.is_some() as usize + placements as usize
    }

    /// The k-th decision (k < `len()`).
    #[inline(always)]
    fn nth(&self, k: usize) -> Decision {
        let mut k = k as u32;
        if let Some(d) = self.first {
            if k == 0 {
                return d;
            }
            k -= 1;
        }
        // The troop is the number of troops whose placements all come before the k-th, and k
        // then counts within its slots: found without branches, since the troop is random, with
        // the eight counts as 16-bit lanes. A multiplication by `LANES` sums each lane with
        // those below it; all sums are below 2^15 (at most 8 × 32 placements).
        let [low, high] = self.counts;
        let end_low = low.wrapping_mul(LANES);
        let end_high = high.wrapping_mul(LANES) + (end_low >> 48).wrapping_mul(LANES);
        // One in every lane whose troop's placements end at or before k (no lane borrows).
        let key = LANES * (0x8000 | k as u64);
        let passed_low = ((key - end_low) >> 15) & LANES;
        let passed_high = ((key - end_high) >> 15) & LANES;
        let troop = ((passed_low + passed_high).wrapping_mul(LANES) >> 48) as usize & 7;
        let before_lanes = (low & (passed_low * 0xffff)) + (high & (passed_high * 0xffff));
        let before = (before_lanes.wrapping_mul(LANES) >> 48) as u32;
        Decision::Place {
            troop: Troop::from_index(troop),
            node: nth_node(self.slots[troop], k - before),
        }
    }
}

/// One in each 16-bit lane of a `u64`.
const LANES: u64 = 0x0001_0001_0001_0001;

/// The legal decisions of an optional effect whose options are `decline`, then one decision
/// (Skully's and Star's draw R7.2, R7.7; XB-42 R7.6; City of Clouds R9.3; Battlefield R9.8) or
/// one decision per target node in ascending order (Jumbo R7.4; Castle Field R9.1), as in
/// [`Game::legal_decisions`].
enum EffectStep {
    One(Decision),
    Nodes {
        targets: NodeMask,
        decision: fn(NodeIndex) -> Decision,
    },
}

impl EffectStep {
    #[inline(always)]
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

    #[inline(always)]
    fn len(&self) -> usize {
        1 + match self {
            EffectStep::One(_) => 1,
            EffectStep::Nodes { targets, .. } => targets.count_ones() as usize,
        }
    }

    /// The k-th decision (k < `len()`): `decline` first.
    #[inline(always)]
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

/// The k-th lowest node of `m` (k < popcount of `m`), without branches: k is random, and a loop
/// of k steps ends with a mispredicted branch. The byte holding the node is found from the
/// prefix sums of the bytes' popcounts (as [`nth_tile`] finds a troop), the node within it from
/// a table.
#[inline(always)]
fn nth_node(m: NodeMask, k: u32) -> NodeIndex {
    debug_assert!(k < m.count_ones());
    const ONES: u32 = 0x0101_0101;
    // The popcount of each byte in that byte (the classic bit-parallel count, no POPCNT).
    let pairs = m - ((m >> 1) & 0x5555_5555);
    let nibbles = (pairs & 0x3333_3333) + ((pairs >> 2) & 0x3333_3333);
    let counts = (nibbles + (nibbles >> 4)) & 0x0f0f_0f0f;
    // Byte i of `ends`: the set bits in bytes 0..=i, at most 32.
    let ends = counts.wrapping_mul(ONES);
    // High bit of byte i set exactly when k >= ends i (no byte borrows from the next).
    let passed = ((ONES * (0x80 | k)) - ends) & (ONES << 7);
    let byte = (passed >> 7).wrapping_mul(ONES) >> 24; // bytes wholly before the node: 0..=3
    let before = ((ends as u64) << 8 >> (8 * byte)) as u8; // set bits in those bytes
    let bits = (m >> (8 * byte)) as u8;
    NodeIndex::new(
        (8 * byte as u8 + NTH_IN_BYTE[bits as usize][(k as u8 - before) as usize & 7]) as usize,
    )
}

/// `NTH_IN_BYTE[b][j]`: the position of the j-th lowest set bit of `b` (0 past the last one).
static NTH_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut j) = (0, 0);
        while bit < 8 {
            if b & (1 << bit) != 0 {
                table[b][j] = bit as u8;
                j += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

/// The k-th tile (k < total) of a multiset of one colour's tiles (at most three of a troop,
/// R1.1), in troop order, without branches: the prefix sums of the eight counts are the bytes
/// of one multiplication, and the troop is the number of them at most k.
#[inline(always)]
fn nth_tile(pool: TroopCounts, k: u32) -> Troop {
    debug_assert!(k < pool.total() as u32 && pool.total() < 128);
    const ONES: u64 = 0x0101_0101_0101_0101;
    let prefix = u64::from_le_bytes(pool.0).wrapping_mul(ONES);
    // Byte i of `ge` has its high bit set exactly when k >= prefix i (both below 128: no
    // byte borrows from the next).
    let ge = ((ONES * (0x80 | k as u64)) - prefix) & (ONES << 7);
    let below_k = ((ge >> 7).wrapping_mul(ONES) >> 56) as usize;
    Troop::from_index(below_k & 7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{sample_chance, Deal, Variant};
    use crate::terrain::builtin_terrains;
    use rand::{RngCore, SeedableRng};
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
            |game, s| PlacementStep::of(game, s, &mut 0),
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

    #[test]
    fn random_playout_plays_the_games_random_decision_plays() {
        for variant in [Variant::Normal, Variant::Beginner] {
            for terrain in builtin_terrains() {
                let game = Game::new(Arc::new(terrain.clone()), variant);
                for seed in 0..8 {
                    let initial = game.initial_state(&Deal::from_seed(seed));
                    let mut played = initial;
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    let ended = random_playout(&game, &mut played, &mut rng, 1000);
                    // The loop without the bit instructions must play the same game too.
                    let mut baseline = initial;
                    let mut baseline_rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    playout_loop(&game, &mut baseline, &mut baseline_rng, 1000);
                    let mut stepped = initial;
                    let mut step_rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    while let Some(d) = random_decision(&game, &stepped, &mut step_rng) {
                        game.apply_legal(&mut stepped, d);
                    }
                    let what = format!("{} {variant} deal {seed}", terrain.key);
                    assert!(ended, "{what}");
                    assert_eq!(played, stepped, "{what}");
                    assert_eq!(baseline, stepped, "{what}");
                    // The same random numbers were used up.
                    let next = step_rng.next_u64();
                    assert_eq!(rng.next_u64(), next, "{what}");
                    assert_eq!(baseline_rng.next_u64(), next, "{what}");
                }
            }
        }
    }

    #[test]
    fn nth_node_finds_the_kth_lowest_node() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let masks = (0..2000).map(|_| rng.next_u32() & rng.next_u32());
        for m in masks.chain([u32::MAX, 1, 1 << 31, 0x8000_0001, 0x00ff_ff00]) {
            let nodes: Vec<NodeIndex> = crate::terrain::nodes(m).collect();
            for (k, &node) in nodes.iter().enumerate() {
                assert_eq!(nth_node(m, k as u32), node, "mask {m:#x}, k {k}");
            }
        }
    }

    #[test]
    fn nth_tile_walks_the_multiset_like_troop_counts_nth() {
        // Every multiset with at most three of a troop.
        for code in 0..1u32 << 16 {
            let pool = TroopCounts(std::array::from_fn(|t| (code >> (2 * t)) as u8 & 3));
            for k in 0..pool.total() as u32 {
                assert_eq!(nth_tile(pool, k), pool.nth(k), "{pool:?}, k {k}");
            }
        }
    }

    #[test]
    fn below_draws_the_numbers_random_range_draws() {
        let mut fast = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut reference = Xoshiro256PlusPlus::seed_from_u64(9);
        // Small ranges as in play, and large ones, where the second draw of the sampler is
        // frequent.
        let ranges = (1..300).chain([3_000_000_000, u32::MAX - 1, u32::MAX]);
        for n in ranges {
            for _ in 0..50 {
                let k = below(&mut fast, n);
                assert_eq!(
                    k as usize,
                    reference.random_range(0..n as usize),
                    "range {n}"
                );
                assert_eq!(
                    below(&mut fast, n),
                    reference.random_range(0..n),
                    "range {n}"
                );
            }
        }
    }
}
