//! Hidden information (§11): what one player knows, what the opponent's play shows about their
//! rack, and sampling full states consistent with both.

mod evidence;
mod observation;

pub use evidence::{EvidenceTracker, RackEvidence, TurnChoice};
pub use observation::{Observation, RackBelief, RackWeightError};
