//! Why a training run (`train::generation`, `train::greedy_run`) cannot go on.

use super::DatasetError;
use crate::tournament::{LockError, StoreError, TournamentError};

/// Why a training run cannot go on; each message names the file or setting at fault.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A tournament (self-play, gate, reference) failed.
    #[error(transparent)]
    Tournament(#[from] TournamentError),
    /// The run folder is held by another process.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A file of the run folder that cannot be written or read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder holds a run of other settings.
    #[error("{dir} holds a training run of other settings: {}; use a new folder or the same settings", .differences.join("; "))]
    Settings {
        /// The run folder.
        dir: String,
        /// What differs, setting by setting.
        differences: Vec<String>,
    },
    /// A file of the run folder that is not what it should be.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The base preset cannot be the base of a training run.
    #[error("base preset '{spec}': {reason}")]
    Base {
        /// The spec as given.
        spec: String,
        /// Why.
        reason: String,
    },
    /// Settings that make no run.
    #[error("{0}")]
    Invalid(String),
    /// A self-play record that cannot be read for training.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The fit failed.
    #[error("generation {generation}: training failed: {reason}")]
    Fit {
        /// The generation.
        generation: u32,
        /// candle's reason.
        reason: String,
    },
}
