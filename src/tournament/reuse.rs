//! Games of earlier runs reused: a run that is to play deals another run already played, with
//! the same bots, versions, seed and rules, takes those games (their lines and records) instead
//! of playing them again.
//!
//! Every game is a function of its deal, seats and bots: the deal seed comes from the run seed,
//! the terrain and the deal's index (`schedule::deal_seed`), not from the number of games, so a
//! study enlarged from 126 to 540 games a cell begins with the 126 games it already has. With
//! iteration budgets the game taken is the game that would be played; with time budgets it is a
//! game of the same bots on the same deal and seats, as a resumed run's games are. The copied
//! records are checked like a resumed run's (the record is the game's and replays).

use super::config::{RunConfig, Shard};
use super::schedule::{deal_seed, Pairing, Schedule};
use super::store::{each_game, read_run, record_path, write_atomic, GameLine, GamesWriter};
use super::store::{StoreError, GAMES_FILE};
use super::TournamentError;
use crate::terrain::input;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Why an earlier run's games cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum ReuseError {
    /// The folder holds no run.
    #[error("--reuse {dir}: not a run folder (no run.json); give the folder of an earlier run (a study's runs are in its runs/ folder)")]
    NotRun {
        /// The folder.
        dir: String,
    },
    /// The run plays other games.
    #[error("--reuse {dir}: its games are not this run's: {}; only the number of games, the shard, the SPRT and the records may differ", .differences.join("; "))]
    OtherGames {
        /// The folder.
        dir: String,
        /// Each differing setting, "name: theirs vs ours".
        differences: Vec<String>,
    },
    /// The run is the one being played.
    #[error("--reuse {dir}: the run's own folder; its games are resumed anyway")]
    Itself {
        /// The folder.
        dir: String,
    },
}

/// The settings of `earlier` that make its games other games than `run`'s, as "name: theirs
/// vs ours": everything but the number of games, the terrains listed (a terrain's deals do not
/// depend on the others), the shard, the SPRT and which games keep records. With `versions`
/// false the bots' versions are left out too (a study's plan knows them only when its runs
/// start).
pub fn other_games(earlier: &RunConfig, run: &RunConfig, versions: bool) -> Vec<String> {
    let same = |c: &RunConfig| RunConfig {
        games: 2,
        terrains: Vec::new(),
        shard: None,
        sprt: None,
        records: Default::default(),
        versions: match versions {
            true => c.versions.clone(),
            false => Default::default(),
        },
        ..c.clone()
    };
    same(earlier).differences(&same(run))
}

/// What one run folder gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Reused {
    /// The earlier run's folder.
    pub dir: PathBuf,
    /// Games taken from it.
    pub games: usize,
}

/// The run being played, as the reuse sees it.
pub(super) struct Target<'a> {
    /// Its settings, versions resolved.
    pub config: &'a RunConfig,
    /// Its folder.
    pub out: &'a Path,
    /// Its schedule of deals.
    pub schedule: &'a Schedule,
    /// Its pairings, in schedule order.
    pub pairings: &'a [Pairing],
    /// Games it has already: (position, game).
    pub done: &'a HashSet<(usize, u8)>,
}

/// Takes from each run of `dirs`, in order, every game `target` still has to play: copies its
/// record (when the target keeps one for it) and appends its line, renumbered for the target,
/// to the target's `games.jsonl`. Returns the lines added and what each folder gave.
pub(super) fn take_games(
    target: &Target,
    dirs: &[PathBuf],
) -> Result<(Vec<GameLine>, Vec<Reused>), TournamentError> {
    let writer = GamesWriter::open(&target.out.join(GAMES_FILE))?;
    let mut taken: HashSet<(usize, u8)> = HashSet::new();
    let (mut lines, mut reused) = (Vec::new(), Vec::new());
    for dir in dirs {
        let earlier = check_earlier(target, dir)?;
        let mut games = 0;
        let mut failure = None;
        each_game(&dir.join(GAMES_FILE), &earlier.run_id(), |_, line| {
            if failure.is_some() {
                return;
            }
            let Some(key) = place_in(target, &line).filter(|k| !taken.contains(k)) else {
                return;
            };
            match take(target, dir, line, key.0, &writer) {
                Ok(Some(line)) => {
                    taken.insert(key);
                    lines.push(line);
                    games += 1;
                }
                Ok(None) => {}
                Err(e) => failure = Some(e),
            }
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        reused.push(Reused {
            dir: dir.clone(),
            games,
        });
    }
    Ok((lines, reused))
}

/// The settings of the earlier run in `dir`, once they are known to play the target's games.
fn check_earlier(target: &Target, dir: &Path) -> Result<RunConfig, TournamentError> {
    let text = || dir.display().to_string();
    let same_dir = match (dir.canonicalize(), target.out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same_dir {
        return Err(ReuseError::Itself { dir: text() }.into());
    }
    let earlier = read_run(dir)?.ok_or_else(|| ReuseError::NotRun { dir: text() })?;
    let differences = other_games(&earlier, target.config, true);
    if !differences.is_empty() {
        return Err(ReuseError::OtherGames {
            dir: text(),
            differences,
        }
        .into());
    }
    Ok(earlier)
}

/// Where the earlier game `line` falls in the target, (position, game), if the target's shard
/// still has to play it.
fn place_in(target: &Target, line: &GameLine) -> Option<(usize, u8)> {
    let config = target.config;
    let terrain = config.terrains.iter().position(|t| *t == line.terrain)?;
    let pairing = target
        .pairings
        .iter()
        .position(|p| p.a == line.a && p.b == line.b)?;
    let position = target.schedule.position_of(terrain, pairing, line.pair)?;
    let key = (position, line.game);
    let wanted = line.game < 2
        && line.deal_seed == deal_seed(config.seed, &line.terrain, line.pair)
        && in_shard(config.shard, position)
        && !target.done.contains(&key);
    wanted.then_some(key)
}

fn in_shard(shard: Option<Shard>, position: usize) -> bool {
    shard.is_none_or(|s| position % s.count as usize == (s.index - 1) as usize)
}

/// The earlier game `line`, copied into the target at `position`: its record first (so that a
/// counted game always has one), then its line. `None` when the target keeps a record of it and
/// the earlier run kept none: that game is played.
fn take(
    target: &Target,
    dir: &Path,
    line: GameLine,
    position: usize,
    writer: &GamesWriter,
) -> Result<Option<GameLine>, TournamentError> {
    let record = match target.config.records.keeps(line.pair) {
        true if line.record.is_empty() => return Ok(None),
        true => {
            let rel = record_path(&line.terrain, &line.a, &line.b, line.pair, line.game);
            let from = dir.join(&line.record);
            let text = input::read_text(&from, input::RECORD)
                .map_err(|e| TournamentError::Store(StoreError::io(&from, e)))?;
            write_atomic(&target.out.join(&rel), text.as_bytes())?;
            rel
        }
        false => String::new(),
    };
    let line = GameLine {
        run: target.config.run_id(),
        position,
        record,
        ..line
    };
    writer.append(&line)?;
    Ok(Some(line))
}
