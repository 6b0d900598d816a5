//! What the opponent's choice of action says about the tiles they kept: the odds with which
//! determinizations deal the tiles held through their latest turn (`rack_choice`).
//!
//! At the start of a turn the board shows where a tile of each troop could go
//! (`Game::slots_of_every_troop`), and the policy model (`model::policy`) says how attractive
//! each of those placements is: `Z[Y]`, the sum of its placements' strengths for troop `Y`. A
//! player who placed troop `X` (or drew) chose among the placements of the troops they held; had
//! they also held `Y`, that choice would have had probability `Z0 / (Z0 + Z[Y])` of what it had
//! without, where `Z0` is what the chosen troop, the public rack tiles and drawing offered. So
//! a tile held through the turn is of troop `Y` with odds `(Z0 / (Z0 + Z[Y]))^β`; `β` says how
//! far the player follows the policy (0 = the choice says nothing), and `train::choice` fits it
//! to the true racks of recorded games: 0.9 for `strong` (results/learning.md).

use super::Tactics;
use crate::info::RackEvidence;
use crate::model::{PolicyModel, Tactic};
use crate::rules::{Decision, Game, State};
use crate::terrain::NodeIndex;
use crate::vocabulary::Troop;

/// The odds, per troop (0 to 1), of a tile held through the opponent's latest turn, from the
/// choice `evidence` keeps, raised to `beta`; `None` when there is no choice or no held tile.
pub fn held_odds(game: &Game, evidence: &RackEvidence, beta: f64) -> Option<[f64; 8]> {
    let choice = evidence.choice().filter(|_| evidence.held() > 0)?;
    let ratio = choice_log_ratio(game, PolicyModel::shipped(), &choice.view, choice.decision);
    Some(ratio.map(|r| (beta * r).exp()))
}

/// The log-odds, per troop, that the player to act in `s` (at the start of their turn, seen by
/// their opponent: their hidden tiles erased) holds a tile of that troop besides what `chosen`
/// used, given that they chose it: `ln(Z0 / (Z0 + Z[Y]))` (see the module doc); 0 for the
/// chosen troop and those the board gives no slot.
pub fn choice_log_ratio(
    game: &Game,
    policy: &PolicyModel,
    s: &State,
    chosen: Decision,
) -> [f64; 8] {
    let tactics = Tactics::new(game, s);
    let slots = game.slots_of_every_troop(s);
    let offer: [f64; 8] = std::array::from_fn(|t| {
        let troop = Troop::from_index(t);
        (0..32)
            .filter(|&n| slots[t] >> n & 1 == 1)
            .map(|n| {
                let d = Decision::Place {
                    troop,
                    node: NodeIndex::new(n),
                };
                policy.strength(tactics.of(d), Some(troop))
            })
            .sum()
    });
    let p = s.active();
    let chosen_troop = match chosen {
        Decision::Place { troop, .. } => Some(troop),
        _ => None,
    };
    let public = s.public_rack(p);
    let mut z0 = if s.reserve_len(p) > 0 && s.rack_len(p) < 8 {
        policy.strength(Tactic::Other, None)
    } else {
        0.0
    };
    for t in Troop::ALL {
        if Some(t) == chosen_troop || public.get(t) > 0 {
            z0 += offer[t.index()];
        }
    }
    std::array::from_fn(|t| {
        let troop = Troop::from_index(t);
        if Some(troop) == chosen_troop || z0 <= 0.0 {
            0.0
        } else {
            (z0 / (z0 + offer[t])).ln()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Deal, Variant};

    /// At the first turn of every terrain, the chosen troop and the troops without a slot get
    /// no odds; a troop with slots gets odds below 1, lower the more its placements offer.
    #[test]
    fn passing_over_a_troops_placements_lowers_its_odds() {
        let policy = PolicyModel::shipped();
        for key in crate::terrain::builtin_terrains().iter().map(|t| &t.key) {
            let game = Game::builtin(key, Variant::Normal).unwrap();
            let s = game.initial_state(&Deal::from_seed(3));
            let mut legal = crate::rules::DecisionList::new();
            game.legal_decisions(&s, &mut legal);
            let chosen = legal
                .iter()
                .copied()
                .find(|d| matches!(d, Decision::Place { .. }))
                .expect("a placement at the first turn");
            let Decision::Place { troop, .. } = chosen else {
                unreachable!()
            };
            let ratio = choice_log_ratio(&game, policy, &s, chosen);
            let slots = game.slots_of_every_troop(&s);
            for t in Troop::ALL {
                let r = ratio[t.index()];
                if t == troop || slots[t.index()] == 0 {
                    assert_eq!(r, 0.0, "{key} {t}");
                } else {
                    assert!(r < 0.0 && r.is_finite(), "{key} {t} {r}");
                }
            }
        }
    }
}
