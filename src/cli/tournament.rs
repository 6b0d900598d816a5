//! `toybattle tournament`, `toybattle merge`, `toybattle pool` and `toybattle compare`: see
//! docs/tournament.md.

use super::{emit, parse_max_turns, print_json, select_terrains, CliResult};
use std::collections::BTreeMap;
use std::path::PathBuf;
use toybattle::rules::Variant;
use toybattle::terrain::input;
use toybattle::tournament::config::{check_concurrency, fnv1a, Records, RUN_FORMAT};
use toybattle::tournament::stats::SprtParams;
use toybattle::tournament::{
    compare_runs, merge_runs, pool_runs, run_tournament, run_tournament_keeping_roots, CompareSide,
    MergeOptions, RunConfig, RunOptions, Shard,
};

/// The bots of the default tournament: the fast shipped presets.
const DEFAULT_BOTS: &str = "random,greedy,flat-mc,ismcts-fast";

#[derive(clap::Args)]
pub struct Args {
    /// Round robin between these bots: shipped preset names, paths to .toml presets, or
    /// ext:PATH for an external program [default: random,greedy,flat-mc,ismcts-fast].
    #[arg(long, value_name = "LIST", conflicts_with = "gauntlet")]
    bots: Option<String>,
    /// Gauntlet: this bot plays each bot of --vs (and they do not play each other).
    #[arg(long, value_name = "BOT", requires = "vs")]
    gauntlet: Option<String>,
    /// The gauntlet's opponents.
    #[arg(long, value_name = "LIST", requires = "gauntlet")]
    vs: Option<String>,
    /// "all", or a comma-separated list of terrain keys or names.
    #[arg(long, default_value = "all")]
    terrains: String,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// Games per pairing and terrain; must be even: every deal is played twice, seats swapped.
    #[arg(long, default_value_t = 4)]
    games: u32,
    /// Games played at once, 1 to 256 [default: one per core].
    #[arg(long, value_name = "K", value_parser = parse_concurrency)]
    concurrency: Option<usize>,
    /// Run seed: every deal and every bot's random choices derive from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run folder: settings, games, records and summaries; rerun to resume.
    #[arg(long, value_name = "DIR", default_value = "tournament-out")]
    out: PathBuf,
    /// normal or beginner (special bases are plain bases).
    #[arg(long, default_value = "normal")]
    variant: Variant,
    /// Self-play cap on turns (not a game rule, R10.5): a game reaching it is a draw.
    #[arg(long, default_value_t = 300, value_parser = parse_max_turns)]
    max_turns: u16,
    /// No progress bar and no notes.
    #[arg(long)]
    quiet: bool,
    /// Check every invariant of the rules after each decision; a violation stops the run.
    #[arg(long)]
    check: bool,
    /// Earlier runs of the same games (only --games, --shard, --sprt or the records differ):
    /// the deals they played are taken from them, not played again. A study enlarged from 126
    /// to 540 games begins with the 126 it has.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    reuse: Vec<PathBuf>,
    /// Sequential test between two bots: elo0,elo1[,alpha,beta]; stops when decided.
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<SprtParams>,
    /// Play only shard K of N (deals whose position mod N is K-1); merge with `toybattle merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Longest wait for an external bot's answer; a bot that exceeds it forfeits the game.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    ext_timeout_ms: u64,
    /// Extra wait for an external bot's first answer of each game, for its start-up.
    #[arg(long, value_name = "MS", default_value_t = toybattle::tournament::config::DEFAULT_EXT_STARTUP_MS)]
    ext_startup_ms: u64,
    #[command(flatten)]
    records: RecordsArgs,
    /// Keep beside every record the root stats of each decision's search (roots/: iterations,
    /// root value, visits per decision), the targets of `train`; a recorded game found
    /// without them on resume is played again.
    #[arg(long)]
    root_stats: bool,
}

/// Which games keep a record file: shared by `tournament` and `balance`.
#[derive(clap::Args)]
pub struct RecordsArgs {
    /// Write no record files: every game is still played and counted in games.jsonl, and
    /// run.json says so, so a resume does not play the games again for want of records.
    #[arg(long)]
    no_records: bool,
    /// Keep the records of every Nth deal only (both games of deals 0, N, 2N, … of each
    /// pairing and terrain).
    #[arg(long, value_name = "N", conflicts_with = "no_records",
          value_parser = clap::value_parser!(u32).range(1..))]
    records_sample: Option<u32>,
}

impl RecordsArgs {
    /// The setting the flags ask for.
    pub fn records(&self) -> Records {
        Records::from_flags(self.no_records, self.records_sample)
    }
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' run folders.
    #[arg(value_name = "DIR", required = true)]
    inputs: Vec<PathBuf>,
    /// The merged run folder (new or empty).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write the summary even if some games are in no input.
    #[arg(long)]
    allow_incomplete: bool,
    /// The terrain file the run was played on, when it was played with one: the records are
    /// replayed on its terrains.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct PoolArgs {
    /// Whole runs of one match (the same bots, versions, terrains and variant) played with
    /// different seeds; a sharded run is merged first.
    #[arg(value_name = "DIR", required = true, num_args = 2..)]
    inputs: Vec<PathBuf>,
    /// The folder for the pooled summary (pool.json, summary.md, summary.csv).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Run folder of bot A.
    #[arg(value_name = "RUN_A")]
    run_a: PathBuf,
    /// Run folder of bot B (may be RUN_A, to compare two bots of one run).
    #[arg(value_name = "RUN_B")]
    run_b: PathBuf,
    /// Bot A as named in RUN_A [default: RUN_A's gauntlet bot].
    #[arg(long, value_name = "BOT")]
    bot_a: Option<String>,
    /// Bot B as named in RUN_B [default: RUN_B's gauntlet bot].
    #[arg(long, value_name = "BOT")]
    bot_b: Option<String>,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

fn parse_concurrency(s: &str) -> Result<usize, String> {
    let k = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of games"))?;
    check_concurrency(k).map_err(|e| e.to_string())
}

/// While it lives, this process is the reaper of its external bots' processes
/// (`bot::external::become_reaper`); when it is dropped, whatever they left is killed.
pub(super) struct Reaper(());

impl Reaper {
    pub(super) fn start() -> Result<Reaper, String> {
        toybattle::bot::external::become_reaper()?;
        Ok(Reaper(()))
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        toybattle::bot::external::reap_orphans();
    }
}

fn list(spec: &str) -> Vec<String> {
    spec.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

pub fn run(args: Args) -> CliResult {
    let _reaper = Reaper::start()?;
    let terrains = select_terrains(&args.terrains, args.terrain_file.as_deref())?;
    let terrain_file_hash = match &args.terrain_file {
        Some(path) => {
            let bytes = input::read_bytes(path, input::TERRAIN_FILE).map_err(|e| e.to_string())?;
            Some(format!("{:016x}", fnv1a(&bytes)))
        }
        None => None,
    };
    let (bots, gauntlet) = match (&args.gauntlet, &args.vs) {
        (Some(x), Some(vs)) => (list(vs), Some(x.trim().to_string())),
        _ => (list(args.bots.as_deref().unwrap_or(DEFAULT_BOTS)), None),
    };
    let config = RunConfig {
        format: RUN_FORMAT.into(),
        bots,
        gauntlet,
        terrains: terrains.iter().map(|t| t.key.clone()).collect(),
        terrain_file_hash,
        games: args.games,
        seed: args.seed,
        variant: args.variant,
        max_turns: args.max_turns,
        sprt: args.sprt,
        ext_timeout_ms: args.ext_timeout_ms,
        ext_startup_ms: args.ext_startup_ms,
        versions: BTreeMap::new(),
        shard: args.shard,
        what_ifs: Default::default(),
        records: args.records.records(),
    };
    let options = RunOptions {
        config,
        terrains,
        out: args.out.clone(),
        concurrency: args.concurrency,
        quiet: args.quiet,
        check: args.check,
        reuse: args.reuse.clone(),
    };
    let report = match args.root_stats {
        true => run_tournament_keeping_roots(options),
        false => run_tournament(options),
    }
    .map_err(|e| e.to_string())?;
    emit(&report.summary.to_terminal(&args.out))?;
    for r in report.reused.iter().filter(|_| !args.quiet) {
        eprintln!("{} games taken from {}", r.games, r.dir.display());
    }
    if !args.quiet {
        eprintln!(
            "{} games played now, {} resumed; results in {}",
            report.played,
            report.resumed,
            args.out.display()
        );
    }
    Ok(())
}

pub fn merge(args: MergeArgs) -> CliResult {
    let report = merge_runs(&MergeOptions {
        inputs: args.inputs,
        out: args.out.clone(),
        allow_incomplete: args.allow_incomplete,
        terrain_file: args.terrain_file,
    })
    .map_err(|e| e.to_string())?;
    emit(&report.summary.to_terminal(&args.out))?;
    if !report.missing.is_empty() {
        eprintln!(
            "warning: {} games are missing; the summary is marked incomplete",
            report.missing.len()
        );
    }
    eprintln!("merged into {}", args.out.display());
    Ok(())
}

pub fn pool(args: PoolArgs) -> CliResult {
    let (pool, _) = pool_runs(&args.inputs, &args.out).map_err(|e| e.to_string())?;
    let s = &pool.summary;
    let mut text = format!(
        "{} runs pooled: {} of {} games played ({} variant, {} games per pairing and terrain)\n",
        pool.runs.len(),
        s.games,
        s.expected_games,
        s.config.variant,
        s.config.games
    );
    text += &s.terminal_tables();
    text += &format!(
        "Full tables: {} (also summary.csv, pool.json)\n",
        args.out.join("summary.md").display()
    );
    emit(&text)
}

pub fn compare(args: CompareArgs) -> CliResult {
    let side = |dir: PathBuf, bot: Option<String>| CompareSide { dir, bot };
    let comparison = compare_runs(&side(args.run_a, args.bot_a), &side(args.run_b, args.bot_b))
        .map_err(|e| e.to_string())?;
    if args.json {
        print_json(&comparison)
    } else {
        emit(&comparison.to_markdown())
    }
}
