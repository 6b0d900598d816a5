//! Self-play tournaments: scheduling paired games, playing them in parallel, resumable storage,
//! shards and their merge, the summary statistics, and the deal-by-deal comparison of two runs.
//!
//! A run's folder holds `run.json` (the settings), `games.jsonl` (one line per finished game,
//! append-only), `records/` (every game as a replayable record) and the summaries
//! (`summary.md`, `summary.csv`, `summary.json`), and `run.lock`, locked by the one process that
//! writes to the folder. See docs/tournament.md.

pub mod bots;
pub mod compare;
pub mod config;
pub mod lock;
pub mod merge;
pub mod runner;
pub mod schedule;
pub mod stats;
pub mod store;
pub mod summary;

pub use compare::{compare_runs, CompareSide, Comparison};
pub use config::{RunConfig, Shard};
pub use merge::{merge_runs, MergeOptions};
pub use runner::{run_tournament, RunOptions, RunReport};
pub use summary::Summary;

/// Why a tournament could not run or merge; every message names the file, line or setting.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path} line {line}: {reason}")]
    Corrupt {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{dir} holds a run with different settings ({}); use another --out folder or the same settings", .differences.join("; "))]
    Settings {
        dir: String,
        differences: Vec<String>,
    },
    #[error("{0}")]
    Merge(String),
    #[error("{0}")]
    Invariant(String),
}

impl TournamentError {
    pub(crate) fn io(path: &std::path::Path, e: impl std::fmt::Display) -> TournamentError {
        TournamentError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        }
    }
}
