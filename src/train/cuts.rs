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
//!
//! Such a target is fixed by the playout policy: however strong the search that made the
//! games, the model learns what greedy playouts would say, so generations fitted to it cannot
//! rise above that (results/learning.md, twenty-seventh round). [`CutTarget::Search`] takes
//! instead the value a search with a value model gives the cut position: a target that can
//! grow with the model that judges its own cuts, as a self-play learner's should.

use super::positions::{fitted_offset, for_each_record, turn_starts, Dataset, DatasetError};
use crate::bot::search::{playout_cut, playout_mean, root_value, SearchConfig};
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
    /// What each cut position's target is.
    pub target: CutTarget,
    /// Cuts made from each turn start, each by its own playout (1 = one cut per turn start).
    pub per_start: u32,
    /// Seed of every playout.
    pub seed: u64,
}

/// The target of a cut position, for the player to move there.
#[derive(Clone, Debug)]
pub enum CutTarget {
    /// The mean of this many full playouts (no cut) of the cutting search's playout policy.
    Playouts(u64),
    /// The root value of a search under `config` of `iterations` for the player to move
    /// ([`root_value`]): the mean reward of all its iterations, or, with nothing to decide, the
    /// mean of its own playouts, cut and judged as it judges them.
    Search {
        /// The judging search: its evaluation, value model, cut and playout policy.
        config: SearchConfig,
        /// Its iterations a target.
        iterations: u64,
    },
}

impl CutTarget {
    /// At least one playout or iteration a target.
    pub fn is_valid(&self) -> bool {
        match self {
            CutTarget::Playouts(n) | CutTarget::Search { iterations: n, .. } => *n > 0,
        }
    }

    /// The target of `seen`, the observation of the player to move at a cut of `cutting`.
    fn of(&self, game: &Game, seen: &Observation, cutting: &SearchConfig, seed: u64) -> f64 {
        match self {
            CutTarget::Playouts(n) => {
                let full = SearchConfig {
                    eval_turns: 0,
                    ..cutting.clone()
                };
                playout_mean(game, seen, &full, Budget::iterations(*n), seed, None)
            }
            CutTarget::Search { config, iterations } => {
                root_value(game, seen, config, Budget::iterations(*iterations), seed)
            }
        }
    }
}

impl std::fmt::Display for CutTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CutTarget::Playouts(n) => write!(f, "{n} full playouts a target"),
            CutTarget::Search { iterations, .. } => {
                write!(f, "a search of {iterations} iterations a target")
            }
        }
    }
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
    let target = options
        .target
        .of(game, &seen, &options.config, splitmix64(seed));
    let mut input = Input::default();
    encode(game, &seen, &mut input);
    Some(Cut {
        entries: input.nonzero().map(|(i, v)| (i as u16, v)).collect(),
        target: target as f32,
        offset: fitted_offset(game, &cut) as f32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::search::{make_player, Algorithm};
    use crate::bot::{Player, Request};
    use crate::rules::{Deal, DecisionList, Referee, Variant};

    /// The first `n` player decision states of a game of arbitrary legal decisions.
    fn decision_states(game: &Game, n: usize) -> Vec<State> {
        let deal = Deal::from_seed(7);
        let mut s = game.initial_state(&deal);
        let mut referee = Referee::new(deal);
        let mut legal = DecisionList::new();
        let mut out = Vec::new();
        while out.len() < n && !s.is_over() {
            let d = if s.is_chance() {
                referee.resolve(game, &s)
            } else {
                out.push(s);
                game.legal_decisions(&s, &mut legal);
                legal[(out.len() * 7) % legal.len()]
            };
            game.apply_legal(&mut s, d);
        }
        out
    }

    /// A search target is the root value of the judging search for the player to move at the
    /// very cut a playout target is taken from: same position, same seed, other target.
    #[test]
    fn a_search_target_is_the_judges_root_value_at_the_same_cut() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let cutting = SearchConfig {
            eval_turns: 2,
            fitted_eval: true,
            ..SearchConfig::default()
        };
        let judge = SearchConfig {
            value_model: true,
            ..cutting.clone()
        };
        let with = |target| CutOptions {
            config: cutting.clone(),
            target,
            per_start: 1,
            seed: 3,
        };
        let playouts = with(CutTarget::Playouts(8));
        let search = with(CutTarget::Search {
            config: judge.clone(),
            iterations: 64,
        });
        let mut compared = 0;
        for (k, start) in decision_states(&game, 12).iter().enumerate() {
            let seed = k as u64;
            let by_search = cut_position(&game, start, &search, seed);
            let by_playouts = cut_position(&game, start, &playouts, seed);
            let (Some(a), Some(b)) = (by_search, by_playouts) else {
                continue;
            };
            assert_eq!((&a.entries, a.offset), (&b.entries, b.offset), "start {k}");
            let cut = playout_cut(
                &game,
                &Observation::new(start, start.active()),
                &cutting,
                seed,
            );
            let seen = Observation::new(&cut, cut.active());
            let budget = Budget::iterations(64);
            let expected = root_value(&game, &seen, &judge, budget, splitmix64(seed));
            assert_eq!(f64::from(a.target), expected as f32 as f64, "start {k}");
            assert!((0.0..=1.0).contains(&a.target));
            compared += 1;
        }
        assert!(compared >= 6, "only {compared} cuts compared");
        assert!(!CutTarget::Search {
            config: judge,
            iterations: 0
        }
        .is_valid());
    }

    /// The root value weighs every decision's mean by its visits: it lies between the worst and
    /// the best decision's value, below the chosen decision's where the search was unsure.
    #[test]
    fn the_root_value_is_the_visit_weighted_mean_of_the_decisions() {
        let game = Game::builtin("tropical_pool", Variant::Normal).unwrap();
        let config = SearchConfig {
            eval_turns: 2,
            fitted_eval: true,
            ..SearchConfig::default()
        };
        let budget = Budget::iterations(200);
        let mut below_best = 0;
        for (k, s) in decision_states(&game, 40).iter().enumerate() {
            let seen = Observation::new(s, s.active());
            let mut legal = DecisionList::new();
            seen.legal_decisions(&game, &mut legal);
            let value = root_value(&game, &seen, &config, budget, k as u64);
            if legal.len() < 2 {
                let mean = playout_mean(&game, &seen, &config, budget, k as u64, None);
                assert_eq!(value, mean, "state {k}: nothing to decide");
                continue;
            }
            let Player::Fair(mut bot) = make_player("judge", Algorithm::Ismcts, &config) else {
                unreachable!("ISMCTS is a fair player")
            };
            let request = Request {
                game: &game,
                observation: &seen,
                budget,
                seed: k as u64,
                cancel: None,
            };
            let candidates = bot.decide(&request).analysis.unwrap().candidates;
            let values = candidates.iter().map(|c| c.value);
            let (lo, hi) = values.fold((1.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
            let n: u64 = candidates.iter().map(|c| c.visits).sum();
            if n == 0 {
                assert_eq!(value, 1.0, "state {k}: a decision winning at once");
                continue;
            }
            let mean = candidates
                .iter()
                .map(|c| c.visits as f64 * c.value)
                .sum::<f64>()
                / n as f64;
            assert!(
                (value - mean).abs() < 1e-12,
                "state {k}: {value} against {mean}"
            );
            assert!(lo - 1e-12 <= value && value <= hi + 1e-12, "state {k}");
            below_best += usize::from(value < candidates[0].value - 1e-9);
        }
        assert!(below_best > 0, "never below the chosen decision's value");
    }
}
