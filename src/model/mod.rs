//! Learned models of the game (issue 29): an encoding of a player's observation into a
//! fixed-size input, a value model that reads it, and a policy model that weighs the
//! deciding player's legal decisions for the search's prior, and a rack model that gives the odds of
//! each troop being on the opponent's rack for the search's determinizations.
//!
//! The models see what one player may know and nothing else: their input is built from an
//! [`Observation`](crate::info::Observation) only. The search (`bot`) evaluates positions with
//! them; training (in the binary's `train` command) fits them to self-play games.

pub mod encoding;
mod loaded;
pub mod policy;
pub mod rack;
pub mod value;
pub mod weights;

pub use encoding::{encode, fingerprint, Input, INPUTS};
pub use policy::{PolicyModel, PolicyWeightsError, Tactic};
pub use rack::{RackModel, RackWeightsError};
pub use value::{Hidden, ParamsError, ValueModel};
pub use weights::WeightsError;
