//! The positions where the search cuts its playouts, as training data for the value model.
//!
//! The value model trained on the positions players reach predicts their outcomes better than
//! the fitted linear evaluation, yet bought no strength in the search (results/learning.md,
//! second round): the search asks its evaluation about other positions, those two turns of
//! greedy playout after a leaf of its tree. Here every turn start of a record is played on
//! to such a cut by the search's own playout (`bot::search::playout_cut`, from a
//! determinization of the deciding player's observation), and the target is what playing on
//! from the cut gives: the mean of full playouts (no cut) from the observation of the player
//! to move there. A model fitted to it tells the search, at the cut, what the rest of its
//! playout would have said, without playing it.

use super::positions::{fitted_offset, for_each_record, turn_starts, Dataset, DatasetError};
use crate::bot::search::{playout_cut, playout_mean, SearchConfig};
use crate::bot::Budget;
use crate::info::Observation;
use crate::model::{encode, Input};
use crate::record::{replay, GameRecord};
use crate::rules::{Game, State};
use crate::vocabulary::hash::splitmix64;
use rayon::prelude::*;
use std::path::Path;

/// How to make cut positions.
#[derive(Clone, Debug)]
pub struct CutOptions {
    /// The search whose playouts are cut (its policy, cut and rack belief).
    pub config: SearchConfig,
    /// Full playouts averaged into each target.
    pub playouts: u64,
    /// Cuts made from each turn start, each by its own playout (1 = one cut per turn start).
    pub per_start: u32,
    /// Seed of every playout.
    pub seed: u64,
}

/// One cut position: the input entries, target and fitted log-odds of the player to move.
struct Cut {
    entries: Vec<(u16, f32)>,
    target: f32,
    offset: f32,
}

impl Dataset {
    /// Adds `options.per_start` cut positions for every turn start of `record` replayed on
    /// `game` (see the module documentation); playouts that end the game before their cut add
    /// nothing (the search scores those exactly). The record must be valid.
    pub fn add_record_cuts(
        &mut self,
        game: &Game,
        record: &GameRecord,
        options: &CutOptions,
    ) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let starts = turn_starts(game, record)?;
        let game_seed = splitmix64(options.seed ^ u64::from(self.games()).wrapping_mul(0x9E37));
        let per_start = options.per_start as usize;
        let cuts: Vec<Option<Cut>> = (0..starts.len() * per_start)
            .into_par_iter()
            .map(|n| {
                let (k, j) = (n / per_start, (n % per_start) as u64);
                // The first cut of a turn start keeps the seed it had before `per_start`.
                let seed = splitmix64(game_seed ^ k as u64 ^ (j << 40));
                cut_position(game, &starts[k], options, seed)
            })
            .collect();
        for cut in cuts.into_iter().flatten() {
            self.push_position(cut.entries, cut.target, cut.offset, None);
        }
        self.end_game();
        Ok(())
    }

    /// [`Dataset::add_record_cuts`] for every record under `dir`, read as
    /// [`Dataset::add_records_under`] reads them. Returns the number of records.
    pub fn add_cuts_under(
        &mut self,
        dir: &Path,
        options: &CutOptions,
    ) -> Result<usize, DatasetError> {
        for_each_record(dir, |game, record, _| {
            self.add_record_cuts(game, record, options)
        })
    }
}

/// The cut of one playout from `start` by its player's search, with its target.
fn cut_position(game: &Game, start: &State, options: &CutOptions, seed: u64) -> Option<Cut> {
    let searcher = start.active();
    let cut = playout_cut(
        game,
        &Observation::new(start, searcher),
        &options.config,
        seed,
    );
    if cut.is_over() || cut.is_chance() {
        return None;
    }
    let mover = cut.active();
    let seen = Observation::new(&cut, mover);
    let full = SearchConfig {
        eval_turns: 0,
        ..options.config.clone()
    };
    let budget = Budget::iterations(options.playouts);
    let target = playout_mean(game, &seen, &full, budget, splitmix64(seed), None);
    let mut input = Input::default();
    encode(game, &seen, &mut input);
    Some(Cut {
        entries: input.nonzero().map(|(i, v)| (i as u16, v)).collect(),
        target: target as f32,
        offset: fitted_offset(game, &cut) as f32,
    })
}
