//! Hidden information (§11): what one player knows, and sampling full states consistent with it.

mod observation;

pub use observation::{Observation, RackBelief};
