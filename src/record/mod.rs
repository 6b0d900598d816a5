//! Game records and replay (JSON), and position files.
//!
//! A record holds everything needed to re-validate a game: terrain, variant, seed, the deal, and
//! every step (decision or chance outcome) in text notation. Replay re-applies the steps one by
//! one through the rules and reports the first step that is not legal, by index.

pub mod fingerprint;
pub mod notes;
pub mod position;
mod replay;

pub use fingerprint::{check_fingerprint, fingerprint, FingerprintMismatch};
pub use replay::{describe_rules, replay, ReplayError, ReplaySummary};

use crate::rules::{Colour, Deal, Variant, WhatIf, WinType};
use crate::vocabulary::ByColour;
use serde::{Deserialize, Serialize};

/// The format tag every record carries.
pub const RECORD_FORMAT: &str = "toybattle-record/1";

/// How a game ended, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordResult {
    /// `None` when the self-play turn cap stopped the game (not a game rule, R10.5).
    pub winner: Option<Colour>,
    /// "hq", "medals", "blocked", or "turn_cap"; "forfeit" when a player failed to answer.
    pub end: String,
    /// Turns begun.
    pub turns: u16,
    /// Medals of each colour, written `[blue, red]`.
    pub medals: ByColour<u8>,
}

/// A complete game. Unknown fields are refused: a misspelt or foreign field must not pass as
/// a valid record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    /// The record format's name and version (`RECORD_FORMAT`); other formats are refused.
    pub format: String,
    /// Terrain key, e.g. "castle_field".
    pub terrain: String,
    /// Normal or beginner game (R13).
    pub variant: Variant,
    /// The seed that dealt the game: removed tiles, reserve order and first player (R3).
    pub seed: u64,
    /// The deal itself, checked against the seed on replay.
    pub deal: Deal,
    /// Who played each colour (blue, red): a preset name or a description.
    pub players: [String; 2],
    /// Every step in order, in the notation of [`crate::rules::Decision`]: player decisions
    /// (`place Jumbo 13`) and chance outcomes (`chance Star`).
    pub steps: Vec<String>,
    /// How the game ended, as recorded.
    pub result: RecordResult,
    /// Present in a game against the computer: the human's seat, the level, undos and hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<notes::SessionNotes>,
    /// The terrain data and variant played on ([`fingerprint()`]); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrain_fingerprint: Option<String>,
    /// The rules parameters a designer changed (medal objective, tiles removed, opening
    /// racks); absent for the printed rules.
    #[serde(default, skip_serializing_if = "WhatIf::is_retail")]
    pub what_if: WhatIf,
}

impl RecordResult {
    /// The end type of a finished game.
    pub fn end_name(win: WinType) -> &'static str {
        match win {
            WinType::Hq => "hq",
            WinType::Medals => "medals",
            WinType::Blocked => "blocked",
        }
    }

    /// The result in words, e.g. "red won by medals on turn 23 (medals blue 3, red 7)".
    pub fn describe(&self) -> String {
        let how = match self.end.as_str() {
            "hq" => "by HQ capture",
            "medals" => "by medals",
            "blocked" => "because the opponent was blocked",
            "forfeit" => "by forfeit",
            "turn_cap" => "the turn cap stopped the game",
            other => other,
        };
        let [blue, red] = *self.medals.as_array();
        let outcome = match self.winner {
            Some(w) => format!("{w} won {how}"),
            None if self.end == "turn_cap" => format!("no winner: {how}"),
            None => format!("no winner ({how})"),
        };
        format!(
            "{outcome} on turn {} (medals blue {blue}, red {red})",
            self.turns
        )
    }
}
