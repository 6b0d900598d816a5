//! Fitting the odds of passed troops (`info::RackEvidence::passed`) to the true racks of
//! recorded games.
//!
//! When a player's turn could have taken a region with some troop and took none, are the tiles
//! they held through it less often of that troop? If a determinization dealt those held tiles
//! with that troop's odds multiplied by one number, `f`, which `f` fits the player? The records
//! know which troops the held tiles really were, so `f` is fitted by their probability under the
//! search's fixed odds (`KEPT_TROOPS`) times `f` for the passed troops (`rack::likelihood`),
//! over a grid of `f`. Odds of 1 mean the evidence says nothing about that player's rack.

use super::policy::Split;
use super::positions::for_each_record;
use super::rack::likelihood;
use super::DatasetError;
use crate::bot::search::KEPT_TROOPS;
use crate::info::{EvidenceTracker, Observation};
use crate::record::{replay, GameRecord};
use crate::rules::{Colour, Decision, Game, State, TroopCounts};
use std::path::Path;

/// The positions where a player's evidence shows passed troops: the opponent's unseen tiles,
/// the held tiles' true troops and which troops were passed.
#[derive(Clone, Debug, Default)]
pub struct PassedData {
    unseen: Vec<[u8; 8]>,
    held: Vec<[u8; 8]>,
    passed: Vec<u8>,
    games: Vec<u32>,
    game_count: u32,
}

/// Odds of passed troops, and how well they predict the held tiles of a split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PassedFit {
    /// The odds that predict the training positions best.
    pub odds: f64,
    /// Positions of the split scored.
    pub positions: usize,
    /// Mean log-probability gained per position of the split over odds of 1, in nats.
    pub gain: f64,
}

impl PassedData {
    /// No positions.
    pub fn new() -> PassedData {
        PassedData::default()
    }

    /// Positions.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Adds the positions of `record`, replayed on `game`: every decision where the evidence
    /// about the opponent shows passed troops and held tiles.
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let mut state = game.initial_state(&record.deal);
        let mut evidence = EvidenceTracker::new(game, &state);
        let mut at_start = [TroopCounts::EMPTY; 2];
        at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
        for step in &record.steps {
            if !state.is_chance() && !state.is_over() {
                self.add_position(&state, &evidence, &at_start);
            }
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            let before = state;
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
            evidence.step(game, &before, &state);
            if state.turn() != before.turn() {
                at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
            }
        }
        self.game_count += 1;
        Ok(())
    }

    /// Adds every record under `dir`. Returns the number of records; at the first record
    /// refused, the error names it.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        for_each_record(dir, |game, record, _| self.add_record(game, record))
    }

    fn add_position(
        &mut self,
        state: &State,
        evidence: &EvidenceTracker,
        at_start: &[TroopCounts; 2],
    ) {
        let them = state.active().opponent();
        let e = evidence.about(them);
        if e.passed() == 0 || e.held() == 0 {
            return;
        }
        // The tiles held since that turn began: those of its hidden unfrozen tiles still on
        // the rack. A tile that left and came back as another of its troop counts too, rarely.
        let now = unfrozen_hidden(state, them);
        let mut held = [0; 8];
        for (h, (a, b)) in held
            .iter_mut()
            .zip(at_start[them.index()].0.iter().zip(&now.0))
        {
            *h = *a.min(b);
        }
        if held.iter().sum::<u8>() != e.held() {
            return;
        }
        self.unseen
            .push(Observation::new(state, state.active()).unseen(them).0);
        self.held.push(held);
        self.passed.push(e.passed());
        self.games.push(self.game_count);
    }

    /// The mean log-probability of the held tiles of `split` with passed odds `odds`.
    fn log_likelihood(&self, split: Split, odds: f64) -> (usize, f64) {
        let mut n = 0;
        let mut total = 0.0;
        for k in (0..self.len()).filter(|&k| split.takes(self.games[k])) {
            let log_odds: [f64; 8] = std::array::from_fn(|t| {
                let passed = self.passed[k] >> t & 1 == 1;
                f64::from(KEPT_TROOPS[t]).ln() + if passed { odds.ln() } else { 0.0 }
            });
            total += likelihood(&self.unseen[k], &self.held[k], &log_odds).0;
            n += 1;
        }
        (n, total / n.max(1) as f64)
    }

    /// The odds among 0.01, 0.02, …, 4 that predict the training games of `every` best, and
    /// the gain they bring on the held-out ones (on all of them when `every` is 0).
    pub fn fit(&self, every: u32) -> PassedFit {
        let grid = (1..=400).map(|i| f64::from(i) / 100.0);
        let training = Split::Training { every };
        let odds = grid
            .map(|f| (f, self.log_likelihood(training, f).1))
            .fold((1.0, f64::NEG_INFINITY), |best, x| {
                if x.1 > best.1 {
                    x
                } else {
                    best
                }
            })
            .0;
        let scored = if every == 0 {
            Split::All
        } else {
            Split::HeldOut { every }
        };
        let (positions, fitted) = self.log_likelihood(scored, odds);
        let (_, plain) = self.log_likelihood(scored, 1.0);
        PassedFit {
            odds,
            positions,
            gain: fitted - plain,
        }
    }
}

/// The rack tiles of `c` that are neither public nor frozen.
fn unfrozen_hidden(s: &State, c: Colour) -> TroopCounts {
    let hidden = s.rack(c).minus(&s.public_rack(c)).unwrap_or_default();
    hidden.minus(&s.frozen(c)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held tiles that never are of the passed troop are fitted with the smallest odds, and
    /// those that are as often as the fixed odds say with odds near 1.
    #[test]
    fn the_fit_finds_how_rarely_passed_troops_are_held() {
        let mut data = PassedData::new();
        let mut unseen = [0; 8];
        unseen[0] = 4;
        unseen[1] = 4;
        for (g, first) in [0u8, 1, 0, 1, 0, 1, 0, 1].into_iter().enumerate() {
            let mut held = [0; 8];
            held[usize::from(first)] = 1;
            data.unseen.push(unseen);
            data.held.push(held);
            data.passed.push(0b1);
            data.games.push(g as u32);
        }
        let mixed = data.fit(0);
        let never = PassedData {
            held: vec![[0, 1, 0, 0, 0, 0, 0, 0]; 8],
            ..data
        };
        let fit = never.fit(0);
        assert_eq!(fit.odds, 0.01, "{fit:?}");
        assert!(fit.gain > 0.0, "{fit:?}");
        let ratio = f64::from(KEPT_TROOPS[1]) / f64::from(KEPT_TROOPS[0]);
        assert!(
            (mixed.odds - ratio).abs() < 0.02 || mixed.odds == 1.0,
            "{mixed:?} vs {ratio}"
        );
    }
}
