//! What a player's choice of action says about the tiles they kept, fitted to the true racks of
//! recorded games.
//!
//! The search deals the tiles the opponent held through their latest turn with odds
//! `(Z0 / (Z0 + Z[Y]))^β` per troop `Y`, from how attractive that troop's placements were
//! against what the player chose (`bot::search::choice`). `β` says how far the player follows
//! the policy model: 0 = the choice says nothing. It is fitted here by the probability of the
//! true held tiles under the search's fixed odds times those, over a grid, as `train::passed`
//! fits the odds of passed troops.

use super::passed::{replay_with_evidence, unfrozen_hidden, Held};
use super::positions::for_each_record;
use super::DatasetError;
use crate::bot::search::choice_log_ratio;
use crate::info::Observation;
use crate::model::PolicyModel;
use crate::record::GameRecord;
use crate::rules::Game;
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
        let policy = PolicyModel::shipped();
        // The tracker keeps each player's latest turn's choice, as the search reads it.
        replay_with_evidence(game, record, |state, evidence, at_start| {
            let them = state.active().opponent();
            let about = evidence.about(them);
            let Some(choice) = about.choice() else {
                return;
            };
            let held = at_start[them.index()].common(&unfrozen_hidden(state, them));
            if held.total() > 0 {
                let unseen = Observation::new(state, state.active());
                self.held
                    .push(unseen.unseen(them), held, self.held.game_count());
                let ratio = choice_log_ratio(game, policy, &choice.view, choice.decision);
                self.log_ratio.push(ratio);
            }
        })?;
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
