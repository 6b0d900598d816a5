//! What a game against the computer adds to its record: who the human was, the level they
//! played against, the decisions they took back and the hints they asked for.

use crate::rules::Colour;
use serde::{Deserialize, Serialize};

/// The notes of a human-versus-bot game (the optional `session` field of a record).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionNotes {
    /// The human's colour.
    pub human: Colour,
    /// The level the bot played at, e.g. "strong".
    pub level: String,
    /// Every undo, in the order taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undos: Vec<UndoNote>,
    /// Every hint, in the order asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<HintNote>,
    /// Whether the human chose the deal's seed (so knows the deal). Absent means drawn by the
    /// program: the deal is then secret until the game ends (docs/play.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seed_chosen: bool,
}

/// One undo: the steps taken back from the line of play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoNote {
    /// Steps in the line of play after the undo (the index the first taken-back step had).
    pub step: usize,
    /// The steps taken back, in notation, in the order they were played.
    pub taken_back: Vec<String>,
}

/// One hint: a search's best candidates for the human's decision at a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HintNote {
    /// Steps in the line of play when the hint was asked (the hint is for the next one).
    pub step: usize,
    /// Search iterations the hint ran.
    pub iterations: u64,
    /// The human's estimated win probability when the hint was asked, 0 to 1 (the figure
    /// the win history shows at that moment); absent from records written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win: Option<f64>,
    /// Best candidates first.
    pub candidates: Vec<HintCandidate>,
}

/// A candidate of a hint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HintCandidate {
    /// The decision in notation.
    pub decision: String,
    /// How many search iterations went through the candidate.
    pub visits: u64,
    /// The human's estimated win probability after the candidate, 0 to 1.
    pub value: f64,
}
