//! Self-play tournaments: scheduling paired games, playing them in parallel, resumable storage,
//! shards and their merge, runs of one match pooled, the summary statistics, and the
//! deal-by-deal comparison of two runs.
//!
//! A run's folder holds `run.json` (the settings), `games.jsonl` (one line per finished game,
//! append-only), `records/` (every game as a replayable record) and the summaries
//! (`summary.md`, `summary.csv`, `summary.json`), and `run.lock`, locked by the one process that
//! writes to the folder; with root stats kept (`--root-stats`), `roots/` beside `records/`.
//! See docs/tournament.md.

pub mod bots;
pub mod compare;
pub mod config;
pub mod lock;
pub mod merge;
pub mod pool;
pub mod reuse;
pub mod roots;
pub mod runner;
pub mod schedule;
pub mod stats;
pub mod store;
pub mod summary;

pub use bots::BotError;
pub use compare::{compare_runs, CompareError, CompareSide, Comparison};
pub use config::{ConfigError, RunConfig, Shard};
pub use lock::LockError;
pub use merge::{merge_runs, MergeError, MergeOptions};
pub use pool::{pool_runs, Pool, PoolError};
pub use reuse::{ReuseError, Reused};
pub use runner::{
    run_tournament, run_tournament_keeping_roots, RecordProblem, RunOptions, RunReport,
};
pub use stats::{SprtError, SprtParamsError};
pub use store::StoreError;
pub use summary::Summary;

use crate::rules::invariants::InvariantViolation;
use crate::rules::WhatIfError;

/// Why a tournament could not run, merge or compare; every message names the file, line or
/// setting at fault.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// Settings that make no run.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A bot spec that names no bot that can play.
    #[error(transparent)]
    Bot(#[from] BotError),
    /// A file of the run folder that cannot be read, written or trusted.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The run folder is held by another writer.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Shard folders that do not merge into one run.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// Runs that do not pool into one summary.
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// Two runs that cannot be compared deal by deal.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// An earlier run whose games cannot be taken.
    #[error(transparent)]
    Reuse(#[from] reuse::ReuseError),
    /// A rules what-if that does not apply to one of the run's terrains.
    #[error(transparent)]
    WhatIf(#[from] WhatIfError),
    /// The terrains handed to the run are not those its settings name.
    #[error("the terrains given ({}) do not match the settings' terrain list ({})", .given.join(", "), .settings.join(", "))]
    TerrainsMismatch {
        /// Keys of the terrains given.
        given: Vec<String>,
        /// Keys the settings name.
        settings: Vec<String>,
    },
    /// The threads that play the games could not be started.
    #[error("cannot start the thread pool: {reason}")]
    ThreadPool {
        /// The system's reason.
        reason: String,
    },
    /// A thread playing a game panicked; the games counted before are saved.
    #[error("a game thread panicked; results so far are saved")]
    Panicked,
    /// A rules invariant broke during a game of a run played with the invariant check.
    #[error("{terrain} deal seed {deal_seed} game {game}, step {step}: {violation}")]
    Invariant {
        /// The terrain's key.
        terrain: String,
        /// The deal's seed.
        deal_seed: u64,
        /// 0 or 1: which game of the deal's pair.
        game: u8,
        /// The decision after which the check failed, from 0.
        step: usize,
        /// What the check found.
        violation: InvariantViolation,
    },
}

impl TournamentError {
    /// A file of the run folder that could not be read or written.
    pub(crate) fn io(path: &std::path::Path, e: impl std::fmt::Display) -> TournamentError {
        TournamentError::Store(StoreError::io(path, e))
    }
}
