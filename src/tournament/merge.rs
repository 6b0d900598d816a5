//! Merging the folders of a run's shards into one folder with the summary a single-machine run
//! gives: same settings checked, coverage checked (missing and duplicated games reported),
//! games and records gathered, summaries computed from the games alone.

use super::config::fnv1a;
use super::config::RunConfig;
use super::lock::RunLock;
use super::roots::roots_path;
use super::runner::{record_problem, run_games, write_summaries, RecordProblem};
use super::schedule::{pairings, Schedule};
use super::store::{
    open_run_dir, read_games, read_run, read_sprt_stop, write_atomic, write_sprt_stop, GameKey,
    GameLine, GAMES_FILE,
};
use super::summary::Summary;
use super::TournamentError;
use crate::rules::Game;
use crate::terrain::{self, Terrain};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many games a message lists before it stops.
const SHOWN: usize = 10;

/// Why shard folders do not merge into one run; each message names the folders, files and
/// games at fault and what to do.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No folder to merge.
    #[error("merge needs at least one run folder")]
    NoInput,
    /// An input that is no run folder.
    #[error("{dir} holds no run.json: not a tournament folder")]
    NotARun {
        /// The input folder.
        dir: String,
    },
    /// Two inputs of different runs.
    #[error(
        "{dir} and {first} are not shards of the same run; differing settings: {}",
        .differences.join("; ")
    )]
    OtherRun {
        /// The input that differs.
        dir: String,
        /// The first input, whose settings the others must share.
        first: String,
        /// Each differing setting, as "name: value in `dir` vs value in `first`".
        differences: Vec<String>,
    },
    /// The destination is one of the inputs.
    #[error("--out {out} is one of the inputs: merge into a new folder")]
    OutIsInput {
        /// The destination.
        out: String,
    },
    /// A game line of a deal the run does not play.
    #[error("{path}: game {game} of deal {deal} is not part of the run's schedule")]
    NotScheduled {
        /// The games file.
        path: String,
        /// The deal's position.
        deal: usize,
        /// The game of the pair.
        game: u8,
    },
    /// Games found in two inputs.
    #[error(
        "{} games appear twice (the same shard given twice?): {}",
        .duplicates.len(),
        first_few(.duplicates)
    )]
    Duplicates {
        /// Every game found twice.
        duplicates: Vec<DuplicateGame>,
    },
    /// Games of the run found in no input.
    #[error(
        "{} games of the run are in none of the inputs (a shard missing or unfinished?), e.g. \
         {}; rerun those shards, or pass --allow-incomplete",
        .missing.len(),
        first_few(.missing)
    )]
    Missing {
        /// Every game missing.
        missing: Vec<MissingGame>,
    },
    /// A counted game whose record is missing, damaged or another game's.
    #[error(
        "shard {shard}: record {record} (deal {deal} game {game}): {problem}; resume that shard \
         (`toybattle tournament` with its --out) to play the game again, then merge"
    )]
    BadRecord {
        /// The shard folder.
        shard: String,
        /// The record file, relative to the shard folder.
        record: String,
        /// The deal's position.
        deal: usize,
        /// The game of the pair.
        game: u8,
        /// What is wrong with the record.
        problem: RecordProblem,
    },
    /// A run played on a terrain file merged without it: its records cannot be replayed.
    #[error(
        "the run was played on terrains from a file (hash {hash} in run.json): give that file \
         with --terrain-file so that the records can be replayed"
    )]
    TerrainFileNeeded {
        /// The file's hash in the settings.
        hash: String,
    },
    /// A terrain file other than the run's.
    #[error(
        "{path} is not the terrain file the run was played on (its hash is {found}, run.json \
         has {expected})"
    )]
    OtherTerrainFile {
        /// The file given.
        path: String,
        /// Its hash.
        found: String,
        /// The hash in the settings.
        expected: String,
    },
    /// The terrain file given cannot be read or is no terrain file.
    #[error("--terrain-file {path}: {reason}")]
    TerrainFile {
        /// The file given.
        path: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// A terrain of the run that is not among the terrains given.
    #[error("terrain '{terrain}' of the run cannot be replayed: {reason}")]
    Terrain {
        /// The terrain's key.
        terrain: String,
        /// Why.
        reason: String,
    },
    /// A record that disappeared from its shard while merging.
    #[error("record {record} is in no input")]
    RecordInNoInput {
        /// The record file, relative to a run folder.
        record: String,
    },
}

/// The first few items of a list, for a message.
fn first_few<T: fmt::Display>(items: &[T]) -> String {
    let shown: Vec<String> = items.iter().take(SHOWN).map(T::to_string).collect();
    shown.join("; ")
}

/// A game of the run found in no input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingGame {
    /// The pairing, as "a vs b".
    pub pairing: String,
    /// The terrain's key.
    pub terrain: String,
    /// The deal's index within its pairing and terrain.
    pub pair: u32,
    /// 0 or 1: which game of the pair.
    pub game: u8,
}

impl fmt::Display for MissingGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} on {} deal {} game {}",
            self.pairing, self.terrain, self.pair, self.game
        )
    }
}

/// A game found in two inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateGame {
    /// The deal's position.
    pub deal: usize,
    /// 0 or 1: which game of the pair.
    pub game: u8,
    /// The input that held it first.
    pub first: String,
    /// The input that holds it again.
    pub again: String,
}

impl fmt::Display for DuplicateGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deal {} game {} in both {} and {}",
            self.deal, self.game, self.first, self.again
        )
    }
}

/// What to merge, and where.
pub struct MergeOptions {
    /// The shards' run folders.
    pub inputs: Vec<PathBuf>,
    /// The merged run folder (new or empty).
    pub out: PathBuf,
    /// Write the summary even when games are missing (e.g. to look at a run in progress).
    pub allow_incomplete: bool,
    /// The terrain file the run was played on (`--terrain-file`), needed to replay its
    /// records when the settings name one; `None` for the shipped terrains.
    pub terrain_file: Option<PathBuf>,
}

/// What a merge wrote.
#[derive(Debug)]
pub struct MergeReport {
    /// The merged run's summary.
    pub summary: Summary,
    /// `summary.md` of the merged run.
    pub markdown: String,
    /// Games of the run found in no input (only with `allow_incomplete`).
    pub missing: Vec<MissingGame>,
}

/// Merges shard folders into `options.out`.
pub fn merge_runs(options: &MergeOptions) -> Result<MergeReport, TournamentError> {
    let config = common_config(&options.inputs)?;
    if options.inputs.iter().any(|i| same_dir(i, &options.out)) {
        return Err(MergeError::OutIsInput {
            out: options.out.display().to_string(),
        }
        .into());
    }
    let games = gather_games(&options.inputs, &config)?;
    let missing = missing_games(&config, &games)?;
    if !missing.is_empty() && !options.allow_incomplete {
        return Err(MergeError::Missing { missing }.into());
    }
    let lines: Vec<(usize, GameLine)> = games.into_values().collect();
    let terrains = run_terrains(&config, options.terrain_file.as_deref())?;
    check_records(&lines, &options.inputs, &run_games(&config, &terrains)?)?;
    let lines: Vec<GameLine> = lines.into_iter().map(|(_, g)| g).collect();
    let out = options.out.as_path();
    std::fs::create_dir_all(out).map_err(|e| TournamentError::io(out, e))?;
    let _lock = RunLock::acquire(out)?;
    open_run_dir(out, &config)?;
    copy_records(&lines, &options.inputs, out)?;
    let mut text = String::new();
    for g in &lines {
        text.push_str(&serde_json::to_string(g).map_err(|e| TournamentError::io(out, e))?);
        text.push('\n');
    }
    write_atomic(&out.join(GAMES_FILE), text.as_bytes())?;
    let expected = Schedule::new(&config)?.len() as u64 * 2;
    // Shards cannot run an SPRT; a whole run merged alone keeps the decision that stopped it.
    let run = config.run_id();
    let mut stop = None;
    for dir in &options.inputs {
        stop = stop.or(read_sprt_stop(dir, &run)?);
    }
    if let Some(stop) = &stop {
        write_sprt_stop(out, &run, stop)?;
    }
    let (summary, markdown) = write_summaries(out, &config, &lines, expected, stop.as_ref())?;
    Ok(MergeReport {
        summary,
        markdown,
        missing,
    })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The unsharded settings every input shares; an input of another run is refused with the
/// differing settings named.
fn common_config(inputs: &[PathBuf]) -> Result<RunConfig, TournamentError> {
    let mut common: Option<(RunConfig, &Path)> = None;
    for dir in inputs {
        let config = read_run(dir)?.ok_or_else(|| MergeError::NotARun {
            dir: dir.display().to_string(),
        })?;
        let config = config.unsharded();
        match &common {
            None => common = Some((config, dir)),
            Some((c, first)) if *c != config => {
                return Err(MergeError::OtherRun {
                    dir: dir.display().to_string(),
                    first: first.display().to_string(),
                    differences: config.differences(c),
                }
                .into())
            }
            Some(_) => {}
        }
    }
    Ok(common.ok_or(MergeError::NoInput)?.0)
}

/// Every game of every input by key, with the input it came from; a game found twice is an
/// error naming both places.
fn gather_games(
    inputs: &[PathBuf],
    config: &RunConfig,
) -> Result<BTreeMap<GameKey, (usize, GameLine)>, TournamentError> {
    let mut games: BTreeMap<GameKey, (usize, GameLine)> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for (i, dir) in inputs.iter().enumerate() {
        for g in scheduled_games(dir, config)? {
            if let Some((j, _)) = games.get(&g.key()) {
                duplicates.push(DuplicateGame {
                    deal: g.position,
                    game: g.game,
                    first: inputs[*j].display().to_string(),
                    again: dir.display().to_string(),
                });
                continue;
            }
            games.insert(g.key(), (i, g));
        }
    }
    if !duplicates.is_empty() {
        return Err(MergeError::Duplicates { duplicates }.into());
    }
    Ok(games)
}

/// The games of a run folder (`config`'s run), each checked to be one the run's schedule plays;
/// a torn last line (an interrupted write) is noted and not counted.
pub(super) fn scheduled_games(
    dir: &Path,
    config: &RunConfig,
) -> Result<Vec<GameLine>, TournamentError> {
    let path = dir.join(GAMES_FILE);
    let file = read_games(&path, &config.run_id())?;
    if let Some(t) = file.torn {
        eprintln!(
            "note: {} line {} is incomplete (interrupted write): not counted",
            path.display(),
            t.line
        );
    }
    let total = Schedule::new(config)?.len();
    if let Some(g) = file
        .games
        .iter()
        .find(|g| g.position >= total || g.game > 1)
    {
        return Err(MergeError::NotScheduled {
            path: path.display().to_string(),
            deal: g.position,
            game: g.game,
        }
        .into());
    }
    Ok(file.games)
}

fn missing_games(
    config: &RunConfig,
    games: &BTreeMap<GameKey, (usize, GameLine)>,
) -> Result<Vec<MissingGame>, TournamentError> {
    let pairings = pairings(config);
    let schedule = Schedule::new(config)?;
    Ok(schedule
        .iter()
        .flat_map(|j| (0..2u8).map(move |g| (j.clone(), g)))
        .filter(|(j, g)| !games.contains_key(&(j.position, *g)))
        .map(|(j, game)| MissingGame {
            pairing: pairings[j.pairing].label(),
            terrain: config.terrains[j.terrain].clone(),
            pair: j.pair,
            game,
        })
        .collect())
}

/// The terrains of the run's settings: the shipped ones, or those of the terrain file the run
/// was played on (checked by its hash).
fn run_terrains(
    config: &RunConfig,
    terrain_file: Option<&Path>,
) -> Result<Vec<Arc<Terrain>>, MergeError> {
    let loaded = match (&config.terrain_file_hash, terrain_file) {
        (None, _) => terrain::builtin_terrains().to_vec(),
        (Some(hash), None) => return Err(MergeError::TerrainFileNeeded { hash: hash.clone() }),
        (Some(expected), Some(path)) => {
            let unusable = |reason: String| MergeError::TerrainFile {
                path: path.display().to_string(),
                reason,
            };
            let bytes = std::fs::read(path).map_err(|e| unusable(e.to_string()))?;
            let found = format!("{:016x}", fnv1a(&bytes));
            if found != *expected {
                return Err(MergeError::OtherTerrainFile {
                    path: path.display().to_string(),
                    found,
                    expected: expected.clone(),
                });
            }
            terrain::load_terrain_file(path).map_err(|e| unusable(e.to_string()))?
        }
    };
    config
        .terrains
        .iter()
        .map(|key| match loaded.iter().find(|t| t.key == *key) {
            Some(t) => Ok(Arc::new(t.clone())),
            None => Err(MergeError::Terrain {
                terrain: key.clone(),
                reason: "the terrains given have no terrain of that key".into(),
            }),
        })
        .collect()
}

/// Checks, before anything is written, that every game's record in the shard that counted it
/// parses, is that game's (terrain, variant, deal seed, result) and replays under the rules; a
/// merge cannot play a game again, so a bad record is refused with the shard folder, the file
/// and what is wrong (for a record that does not replay, the step). A game played without a
/// record (`--no-records`) has nothing to check.
fn check_records(
    lines: &[(usize, GameLine)],
    inputs: &[PathBuf],
    games: &[Game],
) -> Result<(), MergeError> {
    for (i, g) in lines.iter().filter(|(_, g)| !g.record.is_empty()) {
        let dir = &inputs[*i];
        if let Some(problem) = record_problem(dir, g, None, games) {
            return Err(MergeError::BadRecord {
                shard: dir.display().to_string(),
                record: g.record.clone(),
                deal: g.position,
                game: g.game,
                problem,
            });
        }
    }
    Ok(())
}

fn copy_records(lines: &[GameLine], inputs: &[PathBuf], out: &Path) -> Result<(), TournamentError> {
    for g in lines.iter().filter(|g| !g.record.is_empty()) {
        let shard = inputs
            .iter()
            .find(|dir| dir.join(&g.record).exists())
            .ok_or_else(|| MergeError::RecordInNoInput {
                record: g.record.clone(),
            })?;
        copy_file(&shard.join(&g.record), &out.join(&g.record))?;
        // The root stats beside the record, when the shard kept them (`--root-stats`).
        let roots = roots_path(&g.record);
        if shard.join(&roots).exists() {
            copy_file(&shard.join(&roots), &out.join(&roots))?;
        }
    }
    Ok(())
}

fn copy_file(from: &Path, to: &Path) -> Result<(), TournamentError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| TournamentError::io(parent, e))?;
    }
    std::fs::copy(from, to).map_err(|e| TournamentError::io(from, e))?;
    Ok(())
}
