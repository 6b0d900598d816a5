//! Pooling whole runs of one match played on other deals (other seeds, other numbers of games)
//! into one summary. Each run's deals stay its own pairs, so the pooled Elo and its interval are
//! those of all the pairs together. `merge` joins the shards of one run; `pool` joins runs, for
//! a match carried on with another seed once its first run ended.

use super::config::RunConfig;
use super::merge::scheduled_games;
use super::schedule::Schedule;
use super::store::{read_run, read_sprt_stop, write_atomic, write_json_atomic, GameLine};
use super::summary::Summary;
use super::TournamentError;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The format tag of `pool.json`.
pub const POOL_FORMAT: &str = "toybattle-pool/1";

/// Why run folders do not pool into one summary; each message names the folders at fault.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// Fewer than two runs.
    #[error("pool needs at least two run folders (one run's summary is already in its folder)")]
    TooFewRuns,
    /// An input that is no run folder.
    #[error("{dir} holds no run.json: not a tournament folder")]
    NotARun {
        /// The input folder.
        dir: String,
    },
    /// A shard of a run, which `merge` joins first.
    #[error(
        "{dir} is shard {index} of {count} of a run: merge the run's shards first (`toybattle \
         merge`), then pool the merged folder"
    )]
    Shard {
        /// The input folder.
        dir: String,
        /// The shard's number, from 1.
        index: u32,
        /// The run's number of shards.
        count: u32,
    },
    /// Two runs of different matches (bots, versions, terrains, variant, rules or turn cap).
    #[error(
        "{dir} and {first} are not runs of the same match; differing settings: {}",
        .differences.join("; ")
    )]
    OtherMatch {
        /// The input that differs.
        dir: String,
        /// The first input, whose match the others must play.
        first: String,
        /// Each differing setting, as "name: value in `dir` vs value in `first`".
        differences: Vec<String>,
    },
    /// Two runs with one seed: they play the same deals.
    #[error(
        "{dir} and {first} both have seed {seed}: they play the same deals, which would count \
         twice; pool runs with different seeds"
    )]
    SameSeed {
        /// The later input.
        dir: String,
        /// The earlier input with that seed.
        first: String,
        /// The seed.
        seed: u64,
    },
    /// The destination is one of the inputs, or a run folder.
    #[error("--out {out} is a run folder (it holds run.json): pool into a new folder")]
    OutIsARun {
        /// The destination.
        out: String,
    },
}

/// One run of a pool, as `pool.json` lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PooledRun {
    /// The run folder, as given.
    pub dir: String,
    /// Its run id.
    pub run: String,
    /// Its seed.
    pub seed: u64,
    /// Its games per pairing and terrain.
    pub games_per_pairing_and_terrain: u32,
    /// Games it played.
    pub played: u64,
    /// Games its settings schedule.
    pub scheduled: u64,
    /// The SPRT decision that stopped it, if one did.
    pub stopped_by: Option<String>,
}

/// The pooled result: `pool.json`.
#[derive(Debug, Serialize)]
pub struct Pool {
    /// The format tag, [`POOL_FORMAT`].
    pub format: String,
    /// The runs, in the order given.
    pub runs: Vec<PooledRun>,
    /// The summary of all their games: its settings are the match's, with the games per pairing
    /// and terrain summed, seed 0 and no SPRT (a sequential test holds for the run it stopped).
    pub summary: Summary,
}

/// Pools the runs in `inputs` into `out`: `pool.json`, `summary.md` and `summary.csv`.
pub fn pool_runs(inputs: &[PathBuf], out: &Path) -> Result<(Pool, String), TournamentError> {
    if inputs.len() < 2 {
        return Err(PoolError::TooFewRuns.into());
    }
    if out.join("run.json").exists() {
        return Err(PoolError::OutIsARun {
            out: out.display().to_string(),
        }
        .into());
    }
    let configs = read_configs(inputs)?;
    let mut runs = Vec::new();
    let mut games = Vec::new();
    let mut offset = 0usize;
    for (dir, config) in inputs.iter().zip(&configs) {
        let (run, lines, deals) = pooled_games(dir, config, offset)?;
        offset += deals;
        runs.push(run);
        games.extend(lines);
    }
    let scheduled: u64 = runs.iter().map(|r| r.scheduled).sum();
    let summary = Summary::compute(&pooled_config(&configs), &games, scheduled, None);
    let markdown = pool_markdown(&runs, &summary, &games);
    let pool = Pool {
        format: POOL_FORMAT.into(),
        runs,
        summary,
    };
    std::fs::create_dir_all(out).map_err(|e| TournamentError::io(out, e))?;
    write_json_atomic(&out.join("pool.json"), &pool)?;
    write_atomic(&out.join("summary.csv"), pool.summary.to_csv().as_bytes())?;
    write_atomic(&out.join("summary.md"), markdown.as_bytes())?;
    Ok((pool, markdown))
}

/// What two runs of one match may differ in: the seed, the number of games, the SPRT.
fn the_match(config: &RunConfig) -> RunConfig {
    RunConfig {
        seed: 0,
        games: 0,
        sprt: None,
        records: Default::default(),
        ..config.unsharded()
    }
}

/// Every input's settings, checked to be whole runs of one match with different seeds.
fn read_configs(inputs: &[PathBuf]) -> Result<Vec<RunConfig>, TournamentError> {
    let mut configs: Vec<RunConfig> = Vec::new();
    for dir in inputs {
        let shown = dir.display().to_string();
        let config = read_run(dir)?.ok_or_else(|| PoolError::NotARun { dir: shown.clone() })?;
        if let Some(shard) = config.shard {
            return Err(PoolError::Shard {
                dir: shown,
                index: shard.index,
                count: shard.count,
            }
            .into());
        }
        if let Some(first) = configs.first() {
            let differences = the_match(&config).differences(&the_match(first));
            if !differences.is_empty() {
                return Err(PoolError::OtherMatch {
                    dir: shown,
                    first: inputs[0].display().to_string(),
                    differences,
                }
                .into());
            }
        }
        if let Some(k) = configs.iter().position(|c| c.seed == config.seed) {
            return Err(PoolError::SameSeed {
                dir: shown,
                first: inputs[k].display().to_string(),
                seed: config.seed,
            }
            .into());
        }
        configs.push(config);
    }
    Ok(configs)
}

/// A run's games with their deals numbered from `offset` (so that no two runs' deals share a
/// number, and each stays its own pair), its line in `pool.json`, and its number of deals.
fn pooled_games(
    dir: &Path,
    config: &RunConfig,
    offset: usize,
) -> Result<(PooledRun, Vec<GameLine>, usize), TournamentError> {
    let run_id = config.run_id();
    let deals = Schedule::new(config)?.len();
    let lines: Vec<GameLine> = scheduled_games(dir, config)?
        .into_iter()
        .map(|g| GameLine {
            position: offset + g.position,
            ..g
        })
        .collect();
    let run = PooledRun {
        dir: dir.display().to_string(),
        run: run_id.clone(),
        seed: config.seed,
        games_per_pairing_and_terrain: config.games,
        played: lines.len() as u64,
        scheduled: deals as u64 * 2,
        stopped_by: read_sprt_stop(dir, &run_id)?.map(|s| s.describe()),
    };
    Ok((run, lines, deals))
}

/// The settings the pooled summary reports: the match's, with the games summed.
fn pooled_config(configs: &[RunConfig]) -> RunConfig {
    RunConfig {
        games: configs.iter().map(|c| c.games).sum(),
        ..the_match(&configs[0])
    }
}

/// `summary.md` of a pool: the runs pooled, then the tables of a run's summary.
fn pool_markdown(runs: &[PooledRun], summary: &Summary, games: &[GameLine]) -> String {
    let mut md = String::from("# Pooled tournament summary\n\n");
    let _ = writeln!(
        md,
        "{} runs of one match on other deals, pooled: {} of {} games played. Each run's deals are \
         its own pairs; the scores, Elo and intervals below are those of all the pairs together. \
         No SPRT is reported: a sequential test holds for the run it stopped.\n",
        runs.len(),
        summary.games,
        summary.expected_games
    );
    md.push_str(
        "| run folder | run | seed | games per pairing and terrain | games played | stopped by |\n\
         |---|---|---:|---:|---|---|\n",
    );
    for r in runs {
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | {} of {} | {} |",
            r.dir,
            r.run,
            r.seed,
            r.games_per_pairing_and_terrain,
            r.played,
            r.scheduled,
            r.stopped_by.as_deref().unwrap_or("")
        );
    }
    md.push('\n');
    md + &summary.tables_markdown(games)
}
