//! Merging the folders of a run's shards into one folder with the summary a single-machine run
//! gives: same settings checked, coverage checked (missing and duplicated games reported),
//! games and records gathered, summaries computed from the games alone.

use super::config::RunConfig;
use super::lock::RunLock;
use super::runner::{record_problem, write_summaries};
use super::schedule::{pairings, schedule};
use super::store::{
    open_run_dir, read_games, read_run, write_atomic, GameKey, GameLine, GAMES_FILE,
};
use super::summary::Summary;
use super::TournamentError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct MergeOptions {
    /// The shards' run folders.
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Write the summary even when games are missing (e.g. to look at a run in progress).
    pub allow_incomplete: bool,
}

#[derive(Debug)]
pub struct MergeReport {
    pub summary: Summary,
    pub markdown: String,
    /// Games of the run found in no input, described for people.
    pub missing: Vec<String>,
}

/// Merges shard folders into `options.out`.
pub fn merge_runs(options: &MergeOptions) -> Result<MergeReport, TournamentError> {
    let config = common_config(&options.inputs)?;
    if options.inputs.iter().any(|i| same_dir(i, &options.out)) {
        return Err(TournamentError::Usage(format!(
            "--out {} is one of the inputs: merge into a new folder",
            options.out.display()
        )));
    }
    let games = gather_games(&options.inputs, &config)?;
    let missing = missing_games(&config, &games);
    if !missing.is_empty() && !options.allow_incomplete {
        let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
        return Err(TournamentError::Merge(format!(
            "{} games of the run are in none of the inputs (a shard missing or unfinished?), \
             e.g. {}; rerun those shards, or pass --allow-incomplete",
            missing.len(),
            shown.join("; ")
        )));
    }
    let lines: Vec<(usize, GameLine)> = games.into_values().collect();
    check_records(&lines, &options.inputs)?;
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
    let expected = schedule(&config).len() as u64 * 2;
    let (summary, markdown) = write_summaries(out, &config, &lines, expected)?;
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
        let config = read_run(dir)?.ok_or_else(|| {
            TournamentError::Merge(format!(
                "{} holds no run.json: not a tournament folder",
                dir.display()
            ))
        })?;
        let config = config.unsharded();
        match &common {
            None => common = Some((config, dir)),
            Some((c, first)) if *c != config => {
                return Err(TournamentError::Merge(format!(
                    "{} and {} are not shards of the same run; differing settings: {}",
                    dir.display(),
                    first.display(),
                    config.differences(c).join("; ")
                )))
            }
            Some(_) => {}
        }
    }
    common
        .map(|(c, _)| c)
        .ok_or_else(|| TournamentError::Usage("merge needs at least one run folder".into()))
}

/// Every game of every input by key, with the input it came from; a game found twice is an
/// error naming both places.
fn gather_games(
    inputs: &[PathBuf],
    config: &RunConfig,
) -> Result<BTreeMap<GameKey, (usize, GameLine)>, TournamentError> {
    let run_id = config.run_id();
    let total = schedule(config).len();
    let mut games: BTreeMap<GameKey, (usize, GameLine)> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for (i, dir) in inputs.iter().enumerate() {
        let path = dir.join(GAMES_FILE);
        let file = read_games(&path, &run_id)?;
        if let Some(t) = file.torn {
            eprintln!(
                "note: {} line {} is incomplete (interrupted write): not counted",
                path.display(),
                t.line
            );
        }
        for g in file.games {
            if g.position >= total || g.game > 1 {
                return Err(TournamentError::Merge(format!(
                    "{}: game {} of deal {} is not part of the run's schedule",
                    path.display(),
                    g.game,
                    g.position
                )));
            }
            if let Some((j, _)) = games.get(&g.key()) {
                duplicates.push(format!(
                    "deal {} game {} in both {} and {}",
                    g.position,
                    g.game,
                    inputs[*j].display(),
                    dir.display()
                ));
                continue;
            }
            games.insert(g.key(), (i, g));
        }
    }
    if !duplicates.is_empty() {
        return Err(TournamentError::Merge(format!(
            "{} games appear twice (the same shard given twice?): {}",
            duplicates.len(),
            duplicates
                .into_iter()
                .take(10)
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    Ok(games)
}

fn missing_games(config: &RunConfig, games: &BTreeMap<GameKey, (usize, GameLine)>) -> Vec<String> {
    let pairings = pairings(config);
    schedule(config)
        .iter()
        .flat_map(|j| (0..2u8).map(move |g| (j, g)))
        .filter(|(j, g)| !games.contains_key(&(j.position, *g)))
        .map(|(j, g)| {
            format!(
                "{} on {} deal {} game {g}",
                pairings[j.pairing].label(),
                config.terrains[j.terrain],
                j.pair
            )
        })
        .collect()
}

/// Checks, before anything is written, that every game's record in the shard that counted it
/// parses and is that game's (terrain, variant, deal seed, result); a merge cannot replay a game,
/// so a bad record is refused with the shard folder, the file and what is wrong.
fn check_records(lines: &[(usize, GameLine)], inputs: &[PathBuf]) -> Result<(), TournamentError> {
    for (i, g) in lines {
        let dir = &inputs[*i];
        if let Some(problem) = record_problem(dir, g, None) {
            return Err(TournamentError::Merge(format!(
                "shard {}: record {} (deal {} game {}): {problem}; resume that shard \
                 (`toybattle tournament` with its --out) to play the game again, then merge",
                dir.display(),
                g.record,
                g.position,
                g.game
            )));
        }
    }
    Ok(())
}

fn copy_records(lines: &[GameLine], inputs: &[PathBuf], out: &Path) -> Result<(), TournamentError> {
    for g in lines {
        let from = inputs
            .iter()
            .map(|dir| dir.join(&g.record))
            .find(|p| p.exists())
            .ok_or_else(|| TournamentError::Merge(format!("record {} is in no input", g.record)))?;
        let to = out.join(&g.record);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| TournamentError::io(parent, e))?;
        }
        std::fs::copy(&from, &to).map_err(|e| TournamentError::io(&from, e))?;
    }
    Ok(())
}
