//! State and rules: the compact state, legal decisions, applying them, setup and chance.

pub mod board;
pub mod deal;
pub mod decision;
pub mod game;
pub mod invariants;
pub mod playout;
pub mod setup;
pub mod state;
pub mod tile;

pub use board::Board;
pub use deal::{sample_chance, Deal, DealError, Referee, Restricted, WhatIf, WhatIfError, WhatIfs};
pub use decision::{Decision, DecisionList, ParseDecisionError, MAX_DECISIONS};
pub use game::{ChanceOutcomes, Game, IllegalDecision, ParseVariantError, Variant};
pub use playout::{random_decision, random_playout};
pub use setup::{Setup, SetupError};
pub use state::{Chance, Outcome, Phase, State, WinType};
pub use tile::{Colour, ParseTileError, Tile, Troop, TroopCounts};
