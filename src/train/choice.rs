//! What a player's choice of action says about the tiles they kept, fitted to the true racks of
//! recorded games.
//!
//! At the start of a turn the board shows where a tile of each troop could go
//! (`Game::slots_of_every_troop`), and the policy model (`model::policy`) says how attractive
//! each of those placements is: `Z[Y]`, the sum of its placements' strengths for troop `Y`. A
//! player who placed troop `X` (or drew) chose among the placements of the troops they held; had
//! they also held `Y`, that choice would have had probability `Z0 / (Z0 + Z[Y])` of what it had
//! without, where `Z0` is what the chosen troop, the public rack tiles and drawing offered. So
//! the tiles held through the turn are of troop `Y` with odds `(Z0 / (Z0 + Z[Y]))^β`, and `β`
//! says how far the player follows the policy: 0 = the choice says nothing, 1 = as much as the
//! policy's odds. `β` is fitted by the probability of the true held tiles under the search's
//! fixed odds times those, over a grid, as `train::passed` fits the odds of passed troops.

use super::passed::{unfrozen_hidden, Held};
use super::positions::for_each_record;
use super::DatasetError;
use crate::bot::search::Tactics;
use crate::info::Observation;
use crate::model::{PolicyModel, Tactic};
use crate::record::{replay, GameRecord};
use crate::rules::{Decision, Game, State, TroopCounts};
use crate::terrain::NodeIndex;
use crate::vocabulary::Troop;
use std::path::Path;

/// The positions after a turn whose choice was read: the opponent's unseen tiles, the tiles
/// truly held through that turn, and the log-odds the choice gives each troop.
#[derive(Clone, Debug, Default)]
pub struct ChoiceData {
    held: Held,
    log_ratio: Vec<[f64; 8]>,
}

/// The exponent `β` that fits best, and how well it predicts the held tiles of a split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChoiceFit {
    /// The exponent that predicts the training positions best.
    pub beta: f64,
    /// Positions of the split scored.
    pub positions: usize,
    /// Mean log-probability gained per position of the split over `β` = 0, in nats.
    pub gain: f64,
}

impl ChoiceData {
    /// No positions.
    pub fn new() -> ChoiceData {
        ChoiceData::default()
    }

    /// Positions.
    pub fn len(&self) -> usize {
        self.log_ratio.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.log_ratio.is_empty()
    }

    /// Adds the positions of `record`, replayed on `game`: every decision after an opponent's
    /// turn that began with a choice of action, while tiles held through it are hidden.
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let policy = PolicyModel::shipped();
        let mut state = game.initial_state(&record.deal);
        let mut at_start = [TroopCounts::EMPTY; 2];
        // Per player: the odds their latest completed turn's choice gave, and the pending one.
        let mut shown: [Option<[f64; 8]>; 2] = [None, None];
        let mut pending: [Option<[f64; 8]>; 2] = [None, None];
        at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
        let mut turn_began = true;
        for step in &record.steps {
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            if !state.is_chance() && !state.is_over() {
                let them = state.active().opponent();
                if let Some(ratio) = shown[them.index()] {
                    let held = at_start[them.index()].common(&unfrozen_hidden(&state, them));
                    if held.total() > 0 {
                        let unseen = Observation::new(&state, state.active());
                        self.held
                            .push(unseen.unseen(them), held, self.held.game_count());
                        self.log_ratio.push(ratio);
                    }
                }
                if turn_began {
                    // Read through the other player's eyes, so that only public facts enter.
                    let public = Observation::new(&state, state.active().opponent());
                    let ratio = choice_log_ratio(game, policy, public.view(), d);
                    pending[state.active().index()] = Some(ratio);
                    turn_began = false;
                }
            }
            let before = state;
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
            if state.turn() != before.turn() {
                let previous = state.active().opponent().index();
                shown[previous] = pending[previous].take();
                at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
                turn_began = true;
            }
        }
        self.held.end_game();
        Ok(())
    }

    /// Adds every record under `dir`. Returns the number of records; at the first record
    /// refused, the error names it.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        for_each_record(dir, |game, record, _| self.add_record(game, record))
    }

    /// The exponent among 0, 0.05, …, 3 that predicts the training games of `every` best, and
    /// the gain it brings on the held-out ones (on all of them when `every` is 0).
    pub fn fit(&self, every: u32) -> ChoiceFit {
        let grid: Vec<f64> = (0..=60).map(|i| f64::from(i) / 20.0).collect();
        let (beta, positions, gain) = self
            .held
            .fit(every, &grid, 0.0, |k, beta, t| beta * self.log_ratio[k][t]);
        ChoiceFit {
            beta,
            positions,
            gain,
        }
    }
}

/// The log-odds, per troop, that the player to act in `s` (at the start of their turn, seen by
/// their opponent: their hidden tiles erased) holds a tile of that troop besides what `chosen`
/// used, given that they chose it: `ln(Z0 / (Z0 + Z[Y]))` (see the module doc); 0 for the
/// chosen troop and those the board gives no slot.
fn choice_log_ratio(game: &Game, policy: &PolicyModel, s: &State, chosen: Decision) -> [f64; 8] {
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
