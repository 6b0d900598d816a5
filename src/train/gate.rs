//! The gate of a generation: a paired tournament of the candidate against the current best,
//! stopped by a sequential test; the candidate is kept only if the test accepts that it is
//! stronger. Also the plain match that places a generation against a fixed reference.
//!
//! Both are ordinary tournament run folders (`tournament::run_tournament`), so they resume
//! after a kill, can be sharded and merged, and keep their records and summaries.

use crate::rules::Variant;
use crate::terrain::Terrain;
use crate::tournament::config::{Records, RUN_FORMAT};
use crate::tournament::stats::{SprtDecision, SprtParams};
use crate::tournament::{
    run_tournament, run_tournament_keeping_roots, RunConfig, RunOptions, RunReport, TournamentError,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// How a match between two bots is played.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// The terrains, in play order (every game of a deal is played on each).
    pub terrains: Vec<Arc<Terrain>>,
    /// Games per terrain; even (every deal is played twice, seats swapped).
    pub games: u32,
    /// Normal game or beginner variant.
    pub variant: Variant,
    /// Self-play turn cap (a game reaching it is a draw).
    pub max_turns: u16,
    /// The match's seed: deals and the bots' random choices derive from it.
    pub seed: u64,
    /// Games played at once; `None` for one per core.
    pub concurrency: Option<usize>,
    /// No progress bar.
    pub quiet: bool,
}

/// The result of a match from the side of its first bot (the candidate).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Games counted.
    pub games: u64,
    /// The candidate's score per game (a draw counts one half).
    pub score: f64,
    /// Elo of the candidate over its opponent, from the pentanomial counts of the pairs.
    pub elo: f64,
    /// Lower end of the Elo's 95% interval.
    pub elo_lo: f64,
    /// Upper end of the Elo's 95% interval.
    pub elo_hi: f64,
}

/// What the gate decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateResult {
    /// The games of the gate.
    pub result: MatchResult,
    /// The sequential test's log-likelihood ratio when it stopped.
    pub llr: f64,
    /// H1 (the candidate is stronger by `elo1`), H0, or no decision within the games allowed.
    pub decision: SprtDecision,
    /// Whether the candidate is kept: only when the test accepted H1.
    pub kept: bool,
}

/// The gate: `candidate` against `best` (bot specs) in the run folder `dir`, stopped as soon
/// as `sprt` decides or after `settings.games` games per terrain. The candidate is kept only if
/// the test accepts H1; no decision within the games allowed keeps the best.
pub fn gate(
    dir: &Path,
    candidate: &str,
    best: &str,
    settings: &MatchSettings,
    sprt: SprtParams,
) -> Result<GateResult, TournamentError> {
    let summary = play(dir, Some(candidate), best, settings, Some(sprt), false)?.summary;
    let sprt = summary
        .sprt
        .as_ref()
        .map_or((0.0, SprtDecision::Continue), |s| (s.llr, s.decision));
    Ok(GateResult {
        result: match_result(&summary),
        llr: sprt.0,
        decision: sprt.1,
        kept: sprt.1 == SprtDecision::H1,
    })
}

/// A plain match, every game played: `candidate` against `opponent` in the run folder `dir`.
pub fn play_match(
    dir: &Path,
    candidate: &str,
    opponent: &str,
    settings: &MatchSettings,
) -> Result<MatchResult, TournamentError> {
    let report = play(dir, Some(candidate), opponent, settings, None, false)?;
    Ok(match_result(&report.summary))
}

/// Self-play: `bot` against itself in the run folder `dir`, every game recorded with the root
/// stats of its searches (`tournament::roots`); returns the games counted and how many of them
/// were found already played.
pub fn self_play(
    dir: &Path,
    bot: &str,
    settings: &MatchSettings,
) -> Result<(u64, u64), TournamentError> {
    let report = play(dir, None, bot, settings, None, true)?;
    Ok((report.summary.games, report.resumed as u64))
}

/// The tournament of `gauntlet` against `opponent`, or of `opponent` against itself; with
/// `roots`, keeping the root stats of every decision.
fn play(
    dir: &Path,
    gauntlet: Option<&str>,
    opponent: &str,
    settings: &MatchSettings,
    sprt: Option<SprtParams>,
    roots: bool,
) -> Result<RunReport, TournamentError> {
    let config = RunConfig {
        format: RUN_FORMAT.into(),
        bots: vec![opponent.to_string()],
        gauntlet: gauntlet.map(str::to_string),
        terrains: settings.terrains.iter().map(|t| t.key.clone()).collect(),
        terrain_file_hash: None,
        games: settings.games,
        seed: settings.seed,
        variant: settings.variant,
        max_turns: settings.max_turns,
        sprt,
        ext_timeout_ms: 10_000,
        ext_startup_ms: crate::tournament::config::DEFAULT_EXT_STARTUP_MS,
        versions: BTreeMap::new(),
        shard: None,
        what_ifs: Default::default(),
        records: Records::All,
    };
    let options = RunOptions {
        config,
        terrains: settings.terrains.clone(),
        out: dir.to_path_buf(),
        concurrency: settings.concurrency,
        quiet: settings.quiet,
        check: false,
        reuse: Vec::new(),
    };
    match roots {
        true => run_tournament_keeping_roots(options),
        false => run_tournament(options),
    }
}

fn match_result(summary: &crate::tournament::Summary) -> MatchResult {
    let overall = summary.pairings.first().map(|p| &p.overall);
    MatchResult {
        games: overall.map_or(0, |o| o.games),
        score: overall.and_then(|o| o.score_a.rate).unwrap_or(0.5),
        elo: bounded(overall.map_or(0.0, |o| o.elo.elo)),
        elo_lo: bounded(overall.map_or(0.0, |o| o.elo.lo)),
        elo_hi: bounded(overall.map_or(0.0, |o| o.elo.hi)),
    }
}

/// An Elo brought within ±2400, as in the tournament's `summary.json`: an interval reaching a
/// score of 0% or 100% has no bound, and JSON has no infinity.
fn bounded(elo: f64) -> f64 {
    if elo.is_nan() {
        0.0
    } else {
        elo.clamp(-2400.0, 2400.0)
    }
}
