//! Training the learned models on recorded games (issue 29).
//!
//! [`Dataset`] turns game records (a tournament's or a balance study's `records/` folders)
//! into positions: at every decision of a player, the encoding of that player's observation,
//! with the game's outcome for them as the target (1 won, 0 lost, ½ when the turn cap stopped
//! the game). With the `train` feature, `fit` trains the value model on them with candle.
//! [`PolicyData`] turns them into the search's choices among legal decisions, to which
//! [`fit_policy`] fits the policy model (no feature needed: it has sixteen weights).
//! [`RackData`] keeps, at every decision, the opponent's true hidden rack, to which
//! [`fit_rack`] fits the rack model of the search's determinizations; [`PassedData`] keeps the
//! tiles held through a turn that passed a region, to which the odds of passed troops are
//! fitted.
//!
//! Training sits above `tournament`, beside `balance`: it reads the records that self-play
//! tournaments write, and its models are used by the search below it only through weights.

mod baseline;
pub mod choice;
pub mod curve;
mod cuts;
mod error;
#[cfg(feature = "train")]
mod fit;
pub mod gate;
#[cfg(feature = "train")]
pub mod generation;
pub mod greedy_run;
#[cfg(feature = "train")]
mod ledger;
pub mod passed;
pub mod playout;
pub mod policy;
mod positions;
pub mod positions_file;
pub mod rack;
mod settings;
pub mod tune;

pub use baseline::{compare_with_fitted, Comparison};
pub use choice::{ChoiceData, ChoiceFit};
pub use cuts::{CutOptions, CutTarget};
pub use error::TrainError;
#[cfg(feature = "train")]
pub use fit::{candle_logits, evaluate, fit, EpochReport, FitOptions};
pub use passed::{PassedData, PassedFit};
pub use policy::{fit_policy, PolicyData, PolicyScore, PolicyTarget, Split};
pub use positions::{count_records, Dataset, DatasetError};
pub use rack::{fit_rack, RackData, RackFit};

/// Processor time of this process so far (user and system, every thread), in seconds.
pub(crate) fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}
