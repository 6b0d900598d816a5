//! The search's view at every decision of a recorded game (its "root stats"): what the
//! deciding player's search found at the root, kept beside the game's record as training
//! targets (`train`). A game's file is `roots/<terrain>/<record name>.json` in the run folder,
//! the record's path with `records/` changed to `roots/` (docs/training.md gives the format).
//!
//! Each decision's statistics come from the deciding player's own search on their observation,
//! so they are fair targets for that player's observation: nothing hidden from them went in.

use super::store::{write_atomic, StoreError, RECORDS_DIR};
use crate::bot::play::DecisionSearch;
use crate::record::GameRecord;
use crate::rules::{Colour, Game};
use crate::terrain::input;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format tag of a game's root stats file.
pub const ROOTS_FORMAT: &str = "toybattle-roots/1";

/// The folder of the root stats files in a run folder.
pub const ROOTS_DIR: &str = "roots";

/// What the searches found at every player decision of one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRoots {
    /// The format tag, [`ROOTS_FORMAT`].
    pub format: String,
    /// The game's record, relative to the run folder.
    pub record: String,
    /// The record's steps (chance outcomes included), so that a file of another game of other
    /// length is told.
    pub steps: usize,
    /// Every player decision of the game, in order.
    pub decisions: Vec<RootNote>,
}

/// The root of one decision's search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RootNote {
    /// The decision's index in the record's steps, from 0.
    pub step: usize,
    /// The deciding player.
    pub player: Colour,
    /// Search iterations run for the decision (0 when none ran).
    pub iterations: u64,
    /// The root value: the mean result of the played decision's subtree, the deciding player's
    /// estimated chance to win (0 to 1); 1 for a decision that wins at once, taken without
    /// search; `None` when the bot did not search (a forced decision).
    pub value: Option<f64>,
    /// Root visits per decision, in the game's notation, most visited first (the played one
    /// first); a legal decision not listed had no visit. They sum to `iterations`.
    pub visits: Vec<(String, u64)>,
}

impl GameRoots {
    /// What `pick` reads of each decision's note in `roots`, indexed by step over a record of
    /// `steps` steps: `None` at chance steps, forced decisions and where `roots` is `None`.
    pub fn per_step<'a, T>(
        roots: Option<&'a GameRoots>,
        steps: usize,
        pick: impl Fn(&'a RootNote) -> Option<T>,
    ) -> Vec<Option<T>> {
        let mut out: Vec<Option<T>> = (0..steps).map(|_| None).collect();
        for note in roots.map_or(&[][..], |r| &r.decisions) {
            if let Some(slot) = out.get_mut(note.step) {
                *slot = pick(note);
            }
        }
        out
    }

    /// The root stats of a game played with [`play_game`](crate::bot::play::play_game), whose
    /// record is `record` at `rel` in the run folder.
    pub fn of(game: &Game, rel: &str, record: &GameRecord, searches: &[DecisionSearch]) -> Self {
        let decisions = searches
            .iter()
            .map(|s| {
                let played = record.steps.get(s.step).map(String::as_str);
                let (iterations, visits, value) = match &s.analysis {
                    Some(a) => {
                        let visits: Vec<(String, u64)> = a
                            .candidates
                            .iter()
                            .map(|c| (c.decision.notation(game.terrain()), c.visits))
                            .collect();
                        let value = a
                            .candidates
                            .iter()
                            .zip(&visits)
                            .find(|(_, (d, _))| Some(d.as_str()) == played)
                            .map(|(c, _)| c.value);
                        (a.iterations, visits, value)
                    }
                    None => (0, Vec::new(), None),
                };
                RootNote {
                    step: s.step,
                    player: s.colour,
                    iterations,
                    value,
                    visits,
                }
            })
            .collect();
        GameRoots {
            format: ROOTS_FORMAT.to_string(),
            record: rel.to_string(),
            steps: record.steps.len(),
            decisions,
        }
    }

    /// Whether this file belongs to `record` (at `rel`): same record path and length, every
    /// decision on a step of the record whose most visited decision is the one played. A
    /// reason otherwise.
    pub fn check(&self, rel: &str, record: &GameRecord) -> Result<(), String> {
        if self.format != ROOTS_FORMAT {
            return Err(format!(
                "format '{}', expected '{ROOTS_FORMAT}'",
                self.format
            ));
        }
        if self.record != rel || self.steps != record.steps.len() {
            return Err(format!(
                "the root stats of {} ({} steps), not of this record ({} steps)",
                self.record,
                self.steps,
                record.steps.len()
            ));
        }
        for note in &self.decisions {
            let played = record.steps.get(note.step);
            let first = note.visits.first().map(|v| &v.0);
            if played.is_none() || first.is_some_and(|d| Some(d) != played) {
                return Err(format!(
                    "step {}: {} is not the decision the record played there",
                    note.step + 1,
                    first.map_or("the step", String::as_str)
                ));
            }
        }
        Ok(())
    }
}

/// The path of the root stats file of the record at `rel` (both relative to the run folder).
pub fn roots_path(rel: &str) -> String {
    match rel.strip_prefix(RECORDS_DIR) {
        Some(rest) => format!("{ROOTS_DIR}{rest}"),
        None => format!("{ROOTS_DIR}/{rel}"),
    }
}

/// Writes `roots` as the root stats of the record at `rel` in run folder `dir`, whole, as one
/// line of JSON (indented, the visit lists would make it ten times the size of the record).
pub fn write_roots(dir: &Path, rel: &str, roots: &GameRoots) -> Result<(), StoreError> {
    let path = dir.join(roots_path(rel));
    let text = serde_json::to_string(roots).map_err(|e| StoreError::io(&path, e))?;
    write_atomic(&path, text.as_bytes())
}

/// Reads the root stats of the record at `rel` in run folder `dir` and checks them against the
/// record; `Ok(None)` when the game has no root stats file, a reason when it is unreadable,
/// damaged or another game's.
pub fn read_roots(dir: &Path, rel: &str, record: &GameRecord) -> Result<Option<GameRoots>, String> {
    let path = dir.join(roots_path(rel));
    let text = match input::read_text(&path, input::RECORD) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let roots: GameRoots = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not root stats: {e}", path.display()))?;
    roots
        .check(rel, record)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(roots))
}
