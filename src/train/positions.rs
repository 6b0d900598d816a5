//! Positions for training, read from game records.

use crate::bot::greedy::Judge;
use crate::bot::search::fitted_logit;
use crate::info::Observation;
use crate::model::{encode, Input, INPUTS};
use crate::record::{replay, GameRecord};
use crate::rules::{Colour, Decision, Game, Phase, State};
use crate::tournament::roots::{read_roots, GameRoots};
use std::path::{Path, PathBuf};

/// A record that could not be read or replayed; the message names the file.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file or folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a game record.
    #[error("{path}: not a game record: {reason}")]
    NotRecord {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        reason: String,
    },
    /// The record does not replay under the rules (or names an unknown terrain).
    #[error("{path}: {reason}")]
    Replay {
        /// The file.
        path: PathBuf,
        /// What the replay refused.
        reason: String,
    },
}

/// Encoded positions with their targets, kept sparse: position `k`'s non-zero entries are
/// `entries[start[k]..start[k + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    entries: Vec<(u16, f32)>,
    start: Vec<usize>,
    targets: Vec<f32>,
    /// The fitted linear evaluation's log-odds for the player to decide, which the value
    /// model corrects.
    offsets: Vec<f32>,
    /// The root value of the deciding player's search at each position (its estimated chance
    /// to win, 0 to 1), when the game's root stats were kept and the player searched.
    roots: Vec<Option<f32>>,
    /// The game each position comes from, counting from 0 in the order games were added: a
    /// validation split by game keeps a game's positions together.
    games: Vec<u32>,
    game_count: u32,
}

impl Dataset {
    /// An empty dataset.
    pub fn new() -> Dataset {
        Dataset {
            start: vec![0],
            ..Dataset::default()
        }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Games added.
    pub fn games(&self) -> u32 {
        self.game_count
    }

    /// The game of position `k` (see [`Dataset::add_record`]).
    pub fn game_of(&self, k: usize) -> u32 {
        self.games[k]
    }

    /// The target of position `k`: 1 if the player to decide won, 0 if they lost, ½ for no
    /// winner.
    pub fn target(&self, k: usize) -> f32 {
        self.targets[k]
    }

    /// The root value of the deciding player's search at position `k` (see
    /// `tournament::roots`), `None` when the game kept no root stats or the decision was not
    /// searched (forced).
    pub fn root_value(&self, k: usize) -> Option<f32> {
        self.roots[k]
    }

    /// The training target of position `k` with the root value blended in:
    /// `mix · root value + (1 − mix) · outcome`, or the outcome ([`Dataset::target`]) where the
    /// position has no root value, and always when `mix` is 0.
    pub fn mixed_target(&self, k: usize, mix: f32) -> f32 {
        match self.roots[k] {
            Some(v) if mix != 0.0 => mix * v + (1.0 - mix) * self.targets[k],
            _ => self.targets[k],
        }
    }

    /// The fitted linear evaluation's log-odds that the player to decide at position `k` wins
    /// ([`FITTED_EVAL`](crate::bot::search::FITTED_EVAL), read from the side of their opponent,
    /// who has just moved, as the search reads a cut playout): the value model learns what to
    /// add to it.
    pub fn offset(&self, k: usize) -> f32 {
        self.offsets[k]
    }

    /// The non-zero input entries of position `k`, as (entry, value).
    pub fn entries(&self, k: usize) -> &[(u16, f32)] {
        &self.entries[self.start[k]..self.start[k + 1]]
    }

    /// Writes position `k`'s dense input into `out` (`INPUTS` entries; the rest untouched
    /// must be zero).
    pub fn write_dense(&self, k: usize, out: &mut [f32]) {
        debug_assert_eq!(out.len(), INPUTS);
        for &(i, v) in self.entries(k) {
            out[i as usize] = v;
        }
    }

    /// Adds every decision of `record`, replayed on `game`: the deciding player's observation,
    /// the fitted evaluation's log-odds for them ([`Dataset::offset`]) and whether they won.
    /// The record must be valid (see `record::replay`).
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        self.add_record_with_roots(game, record, None)
    }

    /// [`Dataset::add_record`], with each decision's root value from the game's root stats
    /// (which must be this record's: `tournament::roots::read_roots` checks them).
    pub fn add_record_with_roots(
        &mut self,
        game: &Game,
        record: &GameRecord,
        roots: Option<&GameRoots>,
    ) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let root_values = GameRoots::per_step(roots, record.steps.len(), |note| {
            note.value.map(|x| x as f32)
        });
        let winner = record.result.winner;
        let target = |c: Colour| match winner {
            Some(w) => f32::from(u8::from(w == c)),
            None => 0.5,
        };
        let mut state = game.initial_state(&record.deal);
        let mut input = Input::default();
        for (step, root) in record.steps.iter().zip(root_values) {
            if !state.is_chance() && !state.is_over() {
                let me = state.active();
                encode(game, &Observation::new(&state, me), &mut input);
                self.push(&input, target(me), fitted_offset(game, &state) as f32, root);
            }
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
        }
        self.end_game();
        Ok(())
    }

    fn push(&mut self, input: &Input, target: f32, offset: f32, root: Option<f32>) {
        self.entries
            .extend(input.nonzero().map(|(i, v)| (i as u16, v)));
        self.end_position(target, offset, root);
    }

    /// Adds a position of the current game from its non-zero input entries (see
    /// [`Dataset::entries`]), with its root value if it has one.
    pub(super) fn push_position(
        &mut self,
        entries: Vec<(u16, f32)>,
        target: f32,
        offset: f32,
        root: Option<f32>,
    ) {
        self.entries.extend(entries);
        self.end_position(target, offset, root);
    }

    /// Adds every position of `other` after this dataset's, its games numbered after this
    /// dataset's games.
    pub fn append(&mut self, other: Dataset) {
        let (entries_before, games_before) = (self.entries.len(), self.game_count);
        self.entries.extend(other.entries);
        (self.start).extend(other.start[1..].iter().map(|s| s + entries_before));
        self.targets.extend(other.targets);
        self.offsets.extend(other.offsets);
        self.roots.extend(other.roots);
        (self.games).extend(other.games.iter().map(|g| g + games_before));
        self.game_count += other.game_count;
    }

    /// Closes the current game: later positions belong to the next one.
    pub(super) fn end_game(&mut self) {
        self.game_count += 1;
    }

    fn end_position(&mut self, target: f32, offset: f32, root: Option<f32>) {
        self.start.push(self.entries.len());
        self.targets.push(target);
        self.offsets.push(offset);
        self.roots.push(root);
        self.games.push(self.game_count);
    }

    /// Adds every record (`*.json`) found under `dir`, in sorted path order, each replayed on
    /// the shipped terrain and variant it names; for a run folder (one with a `records`
    /// folder), the records under that, with their root stats where the run kept them
    /// (`roots/`). Returns the number of records added; at the first record refused, the error
    /// names it and the records before it stay added.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        let run = dir.join("records").is_dir().then_some(dir);
        for_each_record(dir, |game, record, path| {
            let roots = match run {
                Some(run) => {
                    let rel = path.strip_prefix(run).unwrap_or(path);
                    read_roots(run, &rel.to_string_lossy(), record)?
                }
                None => None,
            };
            self.add_record_with_roots(game, record, roots.as_ref())
        })
    }
}

/// The fitted linear evaluation's log-odds that the player to move in `s` wins, read as the
/// search reads a cut playout: from the side of their opponent, who has just moved.
pub(super) fn fitted_offset(game: &Game, s: &State) -> f64 {
    let judge = Judge::new(game, &Observation::new(s, s.active().opponent()));
    -fitted_logit(&judge, s)
}

/// The state at the first decision of every turn of `record` (where the search scores a cut
/// playout), replayed on `game`.
pub(super) fn turn_starts(game: &Game, record: &GameRecord) -> Result<Vec<State>, String> {
    let mut state = game.initial_state(&record.deal);
    let mut starts = Vec::new();
    let mut last_turn = 0;
    for step in &record.steps {
        if !state.is_chance() && state.phase() == Phase::Action && state.turn() != last_turn {
            last_turn = state.turn();
            starts.push(state);
        }
        let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
        game.apply(&mut state, d).map_err(|e| e.to_string())?;
    }
    Ok(starts)
}

/// Calls `f` on every record under `dir` (as [`Dataset::add_records_under`] reads them) with
/// the game it was played in and its file; stops at the first record that cannot be read or
/// that `f` refuses, with an error that names its file. Returns the number of records.
pub(super) fn for_each_record(
    dir: &Path,
    mut f: impl FnMut(&Game, &GameRecord, &Path) -> Result<(), String>,
) -> Result<usize, DatasetError> {
    let files = record_files(dir)?;
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|source| DatasetError::Io {
            path: path.clone(),
            source,
        })?;
        let record: GameRecord =
            serde_json::from_str(&text).map_err(|e| DatasetError::NotRecord {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        let replay_err = |reason: String| DatasetError::Replay {
            path: path.clone(),
            reason,
        };
        let game = Game::builtin(&record.terrain, record.variant)
            .map_err(|e| replay_err(e.to_string()))?
            .with_what_if(record.what_if)
            .map_err(|e| replay_err(e.to_string()))?;
        f(&game, &record, path).map_err(replay_err)?;
    }
    Ok(files.len())
}

/// The number of records under `dirs` (found as [`Dataset::add_records_under`] finds them,
/// without replaying them): a quick check that saved positions come from the same games.
pub fn count_records(dirs: &[&Path]) -> Result<usize, DatasetError> {
    dirs.iter()
        .try_fold(0, |n, dir| Ok(n + record_files(dir)?.len()))
}

/// The record files under `dir`, in name order: those of its `records` folder when it is a
/// run folder, else every `.json` file under it.
fn record_files(dir: &Path) -> Result<Vec<PathBuf>, DatasetError> {
    let records = dir.join("records");
    let mut files = Vec::new();
    collect_json(if records.is_dir() { &records } else { dir }, &mut files)?;
    files.sort();
    Ok(files)
}

/// Every `.json` file under `dir`, recursively.
fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), DatasetError> {
    let io = |source| DatasetError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}
