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

/// Tiles held through a player's latest turn, at the positions that followed: the opponent's
/// unseen tiles and the held tiles' true troops, per game. `train::choice` scores them too.
#[derive(Clone, Debug, Default)]
pub(super) struct Held {
    unseen: Vec<[u8; 8]>,
    held: Vec<[u8; 8]>,
    games: Vec<u32>,
    game_count: u32,
}

impl Held {
    pub(super) fn push(&mut self, unseen: TroopCounts, held: TroopCounts, game: u32) {
        self.unseen.push(unseen.0);
        self.held.push(held.0);
        self.games.push(game);
    }

    pub(super) fn game_count(&self) -> u32 {
        self.game_count
    }

    pub(super) fn end_game(&mut self) {
        self.game_count += 1;
    }

    fn len(&self) -> usize {
        self.held.len()
    }

    /// The mean log-probability of the held tiles of `split` under the fixed odds plus
    /// `extra(k, x, t)` for position `k`, parameter `x` and troop index `t`.
    fn log_likelihood(
        &self,
        split: Split,
        x: f64,
        extra: &impl Fn(usize, f64, usize) -> f64,
    ) -> (usize, f64) {
        let mut n = 0;
        let mut total = 0.0;
        for k in (0..self.len()).filter(|&k| split.takes(self.games[k])) {
            let log_odds: [f64; 8] =
                std::array::from_fn(|t| f64::from(KEPT_TROOPS[t]).ln() + extra(k, x, t));
            total += likelihood(&self.unseen[k], &self.held[k], &log_odds).0;
            n += 1;
        }
        (n, total / n.max(1) as f64)
    }

    /// The parameter of `grid` that predicts the training games of `every` best, the positions
    /// scored and the gain it brings there over `plain` on the held-out games (on all of them
    /// when `every` is 0).
    pub(super) fn fit(
        &self,
        every: u32,
        grid: &[f64],
        plain: f64,
        extra: impl Fn(usize, f64, usize) -> f64,
    ) -> (f64, usize, f64) {
        let training = Split::Training { every };
        let best = grid
            .iter()
            .map(|&x| (x, self.log_likelihood(training, x, &extra).1))
            .fold(
                (plain, f64::NEG_INFINITY),
                |b, x| if x.1 > b.1 { x } else { b },
            )
            .0;
        let scored = if every == 0 {
            Split::All
        } else {
            Split::HeldOut { every }
        };
        let (positions, fitted) = self.log_likelihood(scored, best, &extra);
        let (_, base) = self.log_likelihood(scored, plain, &extra);
        (best, positions, fitted - base)
    }
}

/// The positions where a player's evidence shows passed troops: the held tiles and which
/// troops were passed.
#[derive(Clone, Debug, Default)]
pub struct PassedData {
    held: Held,
    passed: Vec<u8>,
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
        self.passed.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.passed.is_empty()
    }

    /// Adds the positions of `record`, replayed on `game`: every decision where the evidence
    /// about the opponent shows passed troops and held tiles.
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        replay_with_evidence(game, record, |state, evidence, at_start| {
            self.add_position(state, evidence, at_start)
        })?;
        self.held.end_game();
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
        let held = at_start[them.index()].common(&unfrozen_hidden(state, them));
        if held.total() != e.held() {
            return;
        }
        let unseen = Observation::new(state, state.active()).unseen(them);
        self.held.push(unseen, held, self.held.game_count());
        self.passed.push(e.passed());
    }

    /// The odds among 0.01, 0.02, …, 4 that predict the training games of `every` best, and
    /// the gain they bring on the held-out ones (on all of them when `every` is 0).
    pub fn fit(&self, every: u32) -> PassedFit {
        let grid: Vec<f64> = (1..=400).map(|i| f64::from(i) / 100.0).collect();
        let (odds, positions, gain) = self.held.fit(every, &grid, 1.0, |k, f, t| {
            if self.passed[k] >> t & 1 == 1 {
                f.ln()
            } else {
                0.0
            }
        });
        PassedFit {
            odds,
            positions,
            gain,
        }
    }
}

/// Replays `record` on `game` (it must be valid: see `record::replay`), calling `visit` before
/// each decision of a player with the state, what the evidence tracker has read so far, and
/// each player's hidden unfrozen tiles at the start of their latest turn.
pub(super) fn replay_with_evidence(
    game: &Game,
    record: &GameRecord,
    mut visit: impl FnMut(&State, &EvidenceTracker, &[TroopCounts; 2]),
) -> Result<(), String> {
    replay(game, record).map_err(|e| e.to_string())?;
    let mut state = game.initial_state(&record.deal);
    let mut evidence = EvidenceTracker::new(game, &state);
    let mut at_start = [TroopCounts::EMPTY; 2];
    at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
    for step in &record.steps {
        if !state.is_chance() && !state.is_over() {
            visit(&state, &evidence, &at_start);
        }
        let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
        let before = state;
        game.apply(&mut state, d).map_err(|e| e.to_string())?;
        evidence.step(game, &before, d, &state);
        if state.turn() != before.turn() {
            at_start[state.active().index()] = unfrozen_hidden(&state, state.active());
        }
    }
    Ok(())
}

/// The rack tiles of `c` that are neither public nor frozen.
pub(super) fn unfrozen_hidden(s: &State, c: Colour) -> TroopCounts {
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
        let mut never = PassedData::new();
        for (g, first) in [0u8, 1, 0, 1, 0, 1, 0, 1].into_iter().enumerate() {
            let mut held = [0; 8];
            held[usize::from(first)] = 1;
            data.held
                .push(TroopCounts(unseen), TroopCounts(held), g as u32);
            data.passed.push(0b1);
            never.held.push(
                TroopCounts(unseen),
                TroopCounts([0, 1, 0, 0, 0, 0, 0, 0]),
                g as u32,
            );
            never.passed.push(0b1);
        }
        let mixed = data.fit(0);
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
