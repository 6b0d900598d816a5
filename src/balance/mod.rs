//! Balance studies: self-play games of bot presets against themselves over terrains and
//! variants, and the report a designer reads — first-player and side advantage, game length and
//! how games end, the value of each troop, the effect of each terrain's special bases, and how
//! all of it changes with skill, every figure with a 95% interval. See docs/balance.md.
//!
//! A study is a set of tournament runs (one per preset and variant, each a self-pairing of the
//! preset), so it resumes, shards and merges like any tournament. Every run of a study uses the
//! same seed and terrains, hence the same deals: the normal and beginner variants, and the
//! presets, are compared on identical luck.

pub mod analysis;
pub mod combine;
pub mod design;
pub mod estimate;
pub mod load;
pub mod multiplicity;
pub mod regression;
pub mod render;
pub mod study;
pub mod svg;
pub mod synthetic;
pub mod tension;

pub use analysis::{analyse, Report};
pub use load::load_study;
pub use study::{run_study, StudyPlan};

use crate::rules::{Colour, Restricted, Troop, Variant, WhatIfs};
use serde::Serialize;

/// Why a study could not run or be read; each message names the folder, file or setting.
#[derive(Debug, thiserror::Error)]
pub enum BalanceError {
    #[error(transparent)]
    /// A tournament run could not be played or read.
    Tournament(#[from] crate::tournament::TournamentError),
    #[error("{0}")]
    /// Options that do not make a study.
    Usage(String),
    #[error("{dir}: {reason}")]
    /// Run folders whose settings do not form one study.
    Settings {
        /// The folder (or file) in question.
        dir: String,
        /// What is wrong with it.
        reason: String,
    },
    #[error("{path}: {reason}")]
    /// A game record that cannot be read.
    Record {
        /// The record file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// An HQ was captured (R10.1).
    Hq,
    /// A player reached the medal objective (R10.2).
    Medals,
    /// A player could not act (R10.3).
    Blocked,
    /// The self-play turn cap stopped the game.
    TurnCap,
    /// A player failed to answer.
    Forfeit,
}

impl End {
    /// Every end, in report order.
    pub const ALL: [End; 5] = [
        End::Hq,
        End::Medals,
        End::Blocked,
        End::TurnCap,
        End::Forfeit,
    ];

    /// The end's name in files, e.g. `turn_cap`.
    pub fn name(self) -> &'static str {
        match self {
            End::Hq => "hq",
            End::Medals => "medals",
            End::Blocked => "blocked",
            End::TurnCap => "turn_cap",
            End::Forfeit => "forfeit",
        }
    }

    /// The end of a name, `None` for an unknown one.
    pub fn parse(name: &str) -> Option<End> {
        End::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Copies (or placements) of each troop, indexed by [`Troop::index`].
pub type PerTroop = [u8; Troop::ALL.len()];

/// One game of a study, reduced to what the analysis needs. Per-colour arrays are (blue, red).
#[derive(Clone, Debug, PartialEq)]
pub struct StudyGame {
    /// Index into [`Study::presets`].
    pub preset: u16,
    /// Index into [`Study::terrains`].
    pub terrain: u16,
    /// The variant played.
    pub variant: Variant,
    /// Restricted play: 0 for the study's rules, `k` when the nodes
    /// [`Study::restrictions`]`[k − 1]` had their effect never used. An index, not the node set:
    /// a study holds every game, and the set takes 32 bytes.
    pub restricted: u16,
    /// The rules played: 0 for the study's own ([`Study::what_ifs`]), `k` for the rule
    /// what-if [`Study::compared`]`[k − 1]`, compared with the study's rules deal by deal.
    pub rules: u16,
    /// The deal seed: games on one deal share their tiles (one cluster in every interval).
    pub deal: u64,
    /// The player who moved first.
    pub first: Colour,
    /// `None` when the turn cap stopped the game.
    pub winner: Option<Colour>,
    /// How the game ended.
    pub end: End,
    /// Turns begun.
    pub turns: u16,
    /// Copies of each troop removed unseen at setup, per colour.
    pub lost: [PerTroop; 2],
    /// What the game's record tells beyond its line; `None` when the record is not at hand
    /// (result folders keep games, not records). Boxed: most games of a large study have no
    /// record, and a study holds every game, so each costs a pointer instead of the facts.
    pub record: Option<Box<RecordFacts>>,
}

/// What a game's replayed record tells that its line in `games.jsonl` does not.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordFacts {
    /// Tiles of each troop placed on the board during the game, per colour.
    pub placed: [PerTroop; 2],
    /// Player decisions made and legal decisions summed over them (the branching factor is
    /// their ratio).
    pub choices: Option<(u32, u32)>,
    /// Ludii's tension metrics from the win estimate along the game.
    pub tension: Option<tension::Tension>,
}

impl StudyGame {
    /// The score of `c`: 1 for a win, 1/2 for a turn cap, 0 for a loss.
    pub fn score(&self, c: Colour) -> f64 {
        match self.winner {
            None => 0.5,
            Some(w) if w == c => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// The games of a study with the names their indices refer to.
#[derive(Clone, Debug, Default)]
pub struct Study {
    /// Presets in report order (the order they were named).
    pub presets: Vec<String>,
    /// Terrain keys in report order.
    pub terrains: Vec<String>,
    /// Terrain names (as printed on the board), parallel to `terrains`; the keys stand in
    /// where empty.
    pub terrain_names: Vec<String>,
    /// Every game read.
    pub games: Vec<StudyGame>,
    /// Rules parameters changed from the printed game, shared by every run of the study
    /// (restricted play aside); the printed rules when runs of several what-ifs were read.
    pub what_ifs: WhatIfs,
    /// Rule what-ifs of other runs read with the study, each compared with the study's rules
    /// on the same deals (games with [`StudyGame::rules`] `k` play `compared[k − 1]`); empty
    /// when every run plays the study's rules.
    pub compared: Vec<WhatIfs>,
    /// The node sets of restricted play ([`StudyGame::restricted`] `k` played
    /// `restrictions[k − 1]`); empty without restricted play.
    pub restrictions: Vec<Restricted>,
}

impl Study {
    /// The nodes whose effect game `g` never used: none for the study's rules (or for an
    /// index the study has no set for).
    pub fn restriction_of(&self, g: &StudyGame) -> Restricted {
        let k = usize::from(g.restricted);
        k.checked_sub(1)
            .and_then(|i| self.restrictions.get(i))
            .copied()
            .unwrap_or(Restricted::NONE)
    }
}
