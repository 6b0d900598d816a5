//! Running a tournament: resume from the run folder, play the missing games in parallel, stop
//! early on an SPRT decision, write the summaries.

use super::bots::BotEntry;
use super::config::{check_concurrency, RunConfig};
use super::lock::RunLock;
use super::reuse::{take_games, Reused, Target};
use super::roots::{read_roots, roots_path, write_roots, GameRoots};
use super::schedule::{pairings, PairJob, Pairing, Schedule};
use super::store::StoreError;
use super::store::{
    cut_torn_line, open_run_dir, read_games, read_sprt_stop, record_path, write_atomic,
    write_json_atomic, write_record, write_sprt_stop, GameLine, GamesFile, GamesWriter, TornLine,
    GAMES_FILE, RECORDS_DIR,
};
use super::summary::{live_score, pentanomial, SprtSummary, SprtWatch, Summary};
use super::TournamentError;
use crate::bot::play::{play_game, PlayConfig};
use crate::record::GameRecord;
use crate::record::{replay, ReplayError};
use crate::rules::{Colour, Deal, Game};
use crate::terrain::{input, Terrain};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How to run: the settings plus what does not change results.
pub struct RunOptions {
    /// The settings; `versions` is filled in from the resolved bots.
    pub config: RunConfig,
    /// The terrains named by `config.terrains`, in the same order.
    pub terrains: Vec<Arc<Terrain>>,
    /// The run folder.
    pub out: PathBuf,
    /// Games played at once; `None` for one per core.
    pub concurrency: Option<usize>,
    /// No progress bar and no notes on standard error.
    pub quiet: bool,
    /// Check every invariant after each decision (`rules::invariants`); a violation stops the run.
    pub check: bool,
    /// Folders of earlier runs of the same games (only their number, shard, SPRT or records
    /// differ) whose games this run takes instead of playing them (`reuse`).
    pub reuse: Vec<PathBuf>,
}

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    /// The run's summary over every game counted.
    pub summary: Summary,
    /// `summary.md`, to print.
    pub markdown: String,
    /// Games found in `games.jsonl` at start.
    pub resumed: usize,
    /// Games played now.
    pub played: usize,
    /// A torn last line found (and cut off) at start.
    pub torn: Option<TornLine>,
    /// The run was found already stopped by its SPRT decision: no game was played.
    pub already_decided: bool,
    /// Games taken from each earlier run of `RunOptions::reuse`.
    pub reused: Vec<Reused>,
}

/// Everything the workers share.
struct Shared<'a> {
    config: &'a RunConfig,
    run_id: String,
    out: &'a Path,
    pairings: Vec<Pairing>,
    games: Vec<Game>,
    bots: BTreeMap<String, BotEntry>,
    writer: GamesWriter,
    done: Mutex<Vec<GameLine>>,
    /// The games counted before this run started: only those can be found done.
    done_before: HashSet<(usize, u8)>,
    stop: AtomicBool,
    /// The sequential test (`--sprt`), whose first decision stops the run.
    sprt: Option<Mutex<SprtWatch>>,
    error: Mutex<Option<TournamentError>>,
    progress: Progress,
    check: bool,
    /// Keep each recorded game's root stats (`roots/`).
    roots: bool,
}

/// Runs (or resumes) the tournament of `options` and writes its summaries.
pub fn run_tournament(options: RunOptions) -> Result<RunReport, TournamentError> {
    run(options, false)
}

/// [`run_tournament`], also keeping beside every record the root stats of each decision's search
/// (`tournament::roots`, the targets of `train`). Root stats change no result, so they are not a
/// setting: a recorded game found without its root stats file (or with one that is not its
/// own) is played again, as a game without its record is.
pub fn run_tournament_keeping_roots(options: RunOptions) -> Result<RunReport, TournamentError> {
    run(options, true)
}

fn run(options: RunOptions, roots: bool) -> Result<RunReport, TournamentError> {
    let mut config = options.config;
    config.validate()?;
    if let Some(k) = options.concurrency {
        check_concurrency(k)?;
    }
    let bots = resolve_bots(&mut config)?;
    if options
        .terrains
        .iter()
        .map(|t| &t.key)
        .ne(config.terrains.iter())
    {
        return Err(TournamentError::TerrainsMismatch {
            given: options.terrains.iter().map(|t| t.key.clone()).collect(),
            settings: config.terrains.clone(),
        });
    }
    let out = options.out.as_path();
    std::fs::create_dir_all(out).map_err(|e| TournamentError::io(out, e))?;
    // Held to the end of the run: no second writer while games are appended.
    let _lock = RunLock::acquire(out)?;
    open_run_dir(out, &config)?;
    let games_path = out.join(GAMES_FILE);
    let mut existing = read_games(&games_path, &config.run_id())?;
    if let Some(t) = &existing.torn {
        eprintln!(
            "note: {} line {} is incomplete ({} bytes; the run was interrupted while writing it): \
             it is not counted, the file is cut back to line {}, and that game is played again",
            games_path.display(),
            t.line,
            t.bytes,
            t.line - 1
        );
    }
    cut_torn_line(&games_path, &existing)?;
    let schedule = Schedule::new(&config)?;
    let reused = match options.reuse.is_empty() {
        true => Vec::new(),
        false => {
            let done: HashSet<(usize, u8)> = existing.games.iter().map(GameLine::key).collect();
            let target = Target {
                config: &config,
                out,
                schedule: &schedule,
                pairings: &pairings(&config),
                done: &done,
            };
            let (lines, reused) = take_games(&target, &options.reuse)?;
            existing.games.extend(lines);
            reused
        }
    };
    let games = run_games(&config, &options.terrains)?;
    let existing = drop_games_without_records(
        out,
        &games_path,
        existing,
        &bots,
        &games,
        roots,
        options.quiet,
    )?;
    // The deals are computed one at a time as the workers take them: memory does not grow
    // with --games.
    let expected = schedule.shard_len(config.shard) as u64 * 2;
    let resumed = existing.games.len();
    let done_before: HashSet<(usize, u8)> = existing.games.iter().map(GameLine::key).collect();
    if resumed > 0 && !options.quiet {
        let taken: usize = reused.iter().map(|r| r.games).sum();
        let note = match taken {
            0 => String::new(),
            n => format!(" ({n} of them taken from earlier runs)"),
        };
        eprintln!(
            "resuming {}: {resumed} of {expected} games already played{note}",
            out.display()
        );
        for (spec, entry) in bots.iter().filter(|(_, e)| e.is_external()) {
            eprintln!(
                "  {spec} plays as version {}, the version of the games already played",
                entry.version
            );
        }
    }
    let shared = Shared {
        run_id: config.run_id(),
        config: &config,
        out,
        pairings: pairings(&config),
        games,
        bots,
        writer: GamesWriter::open(&games_path)?,
        sprt: sprt_watch(out, &config, &existing.games)?.map(Mutex::new),
        done: Mutex::new(existing.games),
        done_before,
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
        progress: Progress::new(expected, resumed as u64, options.quiet),
        check: options.check,
        roots,
    };
    let already_decided = sprt_stop(&shared).is_some();
    if already_decided && !options.quiet {
        if let Some(stop) = sprt_stop(&shared) {
            eprintln!(
                "{}: the run was already stopped by its SPRT decision, no game is played: {}",
                out.display(),
                stop.describe()
            );
        }
    }
    shared.stop.store(already_decided, Ordering::SeqCst);
    play_all(&shared, &schedule, options.concurrency)?;
    shared.progress.finish();
    if let Some(e) = shared.error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    let stop = sprt_stop(&shared);
    let games = shared.done.into_inner().unwrap_or_default();
    let played = games.len() - resumed;
    let (summary, markdown) = write_summaries(out, &config, &games, expected, stop.as_ref())?;
    Ok(RunReport {
        summary,
        markdown,
        resumed,
        played,
        torn: existing.torn,
        already_decided,
        reused,
    })
}

/// The game of each terrain of a run: its variant and what-ifs on the terrain, in the order of
/// the settings' terrain list.
pub(super) fn run_games(
    config: &RunConfig,
    terrains: &[Arc<Terrain>],
) -> Result<Vec<Game>, TournamentError> {
    terrains
        .iter()
        .map(|t| {
            Game::new(Arc::clone(t), config.variant)
                .with_what_if(config.what_ifs.for_terrain(&t.key))
                .map_err(TournamentError::from)
        })
        .collect()
}

/// Checks that every counted game has its record, that the record is that game's and that it
/// replays under the rules; a game whose record is missing, unreadable, another game's or does
/// not replay is taken out of `games.jsonl` (which is rewritten atomically) so that it is
/// played again from its deal. With bots of fixed
/// iteration budgets the replayed game is the lost one; with time budgets it is a new game on
/// the same deal and seats, and its line replaces the old one. A game whose line names no record
/// (the run keeps none of it, `run.json`'s `records`, or it was kept as below) is kept as it
/// is. With `roots`, a recorded game whose root stats file is missing or not its own is played
/// again too.
///
/// A folder without its whole `records/` was copied or checked out without them (results/
/// commits none): its counted games are kept, since a crash cannot lose the folder (a record is
/// written before its line) and playing them all again would only spend their time once more.
/// Their lines are rewritten to name no record, so that a later resume, when `records/` holds
/// the new games' records, keeps them too.
fn drop_games_without_records(
    out: &Path,
    games_path: &Path,
    mut existing: GamesFile,
    bots: &BTreeMap<String, BotEntry>,
    games: &[Game],
    roots: bool,
    quiet: bool,
) -> Result<GamesFile, TournamentError> {
    let names: BTreeMap<&String, String> = bots
        .iter()
        .map(|(spec, entry)| (spec, entry.seat().player.name().to_string()))
        .collect();
    let problem = |g: &GameLine| {
        record_problem(out, g, Some(&names), games)
            .map(|p| p.to_string())
            .or_else(|| roots.then(|| roots_problem(out, g)).flatten())
    };
    let records_absent = !out.join(RECORDS_DIR).exists();
    let unlinked = existing
        .games
        .iter()
        .filter(|g| !g.record.is_empty())
        .count();
    if records_absent && unlinked > 0 {
        for g in &mut existing.games {
            g.record.clear();
        }
        if !quiet {
            eprintln!(
                "note: {} is absent: the {unlinked} games counted in {GAMES_FILE} are kept \
                 without records, and their lines now name none",
                out.join(RECORDS_DIR).display()
            );
        }
    }
    let (kept, lost): (Vec<GameLine>, Vec<GameLine>) = existing
        .games
        .into_iter()
        .partition(|g| g.record.is_empty() || problem(g).is_none());
    if !lost.is_empty() || (records_absent && unlinked > 0) {
        let mut text = String::new();
        for g in &kept {
            text += &serde_json::to_string(g).map_err(|e| StoreError::io(games_path, e))?;
            text.push('\n');
        }
        write_atomic(games_path, text.as_bytes())?;
    }
    if !quiet {
        for g in &lost {
            eprintln!(
                "note: {}: {}; deal {} game {} is played again",
                out.join(&g.record).display(),
                problem(g).unwrap_or_default(),
                g.position,
                g.game
            );
        }
    }
    existing.games = kept;
    Ok(existing)
}

/// What is wrong with a counted game's record file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordProblem {
    /// There is no record file.
    #[error("missing")]
    Missing,
    /// The game's line names no record: it was played without one (`--no-records`).
    #[error("played without a record")]
    NotRecorded,
    /// The file cannot be read.
    #[error("unreadable ({reason})")]
    Unreadable {
        /// The system's reason.
        reason: String,
    },
    /// The file is no game record (cut short, or edited).
    #[error("damaged, not a game record ({reason})")]
    Damaged {
        /// What the JSON reader found wrong.
        reason: String,
    },
    /// The record is of another game.
    #[error("the record is not this game's ({} differ from games.jsonl)", .fields.join(", "))]
    OtherGame {
        /// What differs: terrain, variant, deal seed, players, winner, end, turns.
        fields: Vec<&'static str>,
    },
    /// The record is this game's but its steps break the rules: a step edited to an illegal
    /// one, two steps swapped, the last steps cut.
    #[error("does not replay: {error}")]
    DoesNotReplay {
        /// Where and why the replay stops (boxed: it is far larger than the other problems).
        error: Box<ReplayError>,
    },
}

/// What is wrong with the record of game `g` in run folder `out`, or `None` when it is there, is
/// that game's and replays on its terrain's game of `games` (the run's games, one per
/// terrain). The players' names are checked only when `names` maps bot specs to them.
pub(super) fn record_problem(
    out: &Path,
    g: &GameLine,
    names: Option<&BTreeMap<&String, String>>,
    games: &[Game],
) -> Option<RecordProblem> {
    if g.record.is_empty() {
        return Some(RecordProblem::NotRecorded);
    }
    let text = match input::read_text(&out.join(&g.record), input::RECORD) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return Some(RecordProblem::Missing),
        Err(e) => {
            return Some(RecordProblem::Unreadable {
                reason: e.to_string(),
            })
        }
    };
    let record: GameRecord = match serde_json::from_str(&text) {
        Ok(r) => r,
        Err(e) => {
            return Some(RecordProblem::Damaged {
                reason: e.to_string(),
            })
        }
    };
    let players_differ = names.is_some_and(|names| {
        let name = |spec: &String| names.get(spec).cloned().unwrap_or_else(|| spec.clone());
        record.players != [name(&g.blue), name(&g.red)]
    });
    let differs = [
        ("terrain", record.terrain != g.terrain),
        ("variant", record.variant != g.variant),
        ("deal seed", record.seed != g.deal_seed),
        ("players", players_differ),
        ("winner", record.result.winner != g.winner_colour),
        ("end", record.result.end != g.end),
        ("turns", record.result.turns != g.turns),
    ];
    let fields: Vec<&'static str> = differs.iter().filter(|d| d.1).map(|d| d.0).collect();
    if !fields.is_empty() {
        return Some(RecordProblem::OtherGame { fields });
    }
    // The fields above agree with the game line whatever the steps say: only a replay shows
    // that the steps are a game the rules allow and that they reach the recorded result.
    let Some(game) = games
        .iter()
        .find(|x| x.terrain().key == g.terrain && x.variant() == g.variant)
    else {
        return Some(RecordProblem::OtherGame {
            fields: vec!["terrain"],
        });
    };
    replay(game, &record)
        .err()
        .map(|error| RecordProblem::DoesNotReplay {
            error: Box::new(error),
        })
}

/// What is wrong with the root stats of game `g`, whose record is sound: missing, unreadable
/// or another game's.
fn roots_problem(out: &Path, g: &GameLine) -> Option<String> {
    let text = input::read_text(&out.join(&g.record), input::RECORD).ok()?;
    let record: GameRecord = serde_json::from_str(&text).ok()?;
    match read_roots(out, &g.record, &record) {
        Ok(Some(_)) => None,
        Ok(None) => Some(format!("no root stats ({})", roots_path(&g.record))),
        Err(e) => Some(e),
    }
}

/// Resolves every bot spec and records its version in the settings.
fn resolve_bots(config: &mut RunConfig) -> Result<BTreeMap<String, BotEntry>, TournamentError> {
    let timeout = super::bots::ExternalTimeouts {
        answer: Duration::from_millis(config.ext_timeout_ms),
        startup: Duration::from_millis(config.ext_startup_ms),
    };
    let mut bots = BTreeMap::new();
    for spec in config.bots.iter().chain(&config.gauntlet) {
        let entry = BotEntry::resolve(spec, timeout)?;
        config.versions.insert(spec.clone(), entry.version.clone());
        bots.insert(spec.clone(), entry);
    }
    Ok(bots)
}

/// Writes `summary.json`, `summary.csv` and `summary.md` for `games`; `sprt_stop` is the SPRT
/// decision that stopped the run, if one did.
pub fn write_summaries(
    out: &Path,
    config: &RunConfig,
    games: &[GameLine],
    expected: u64,
    sprt_stop: Option<&SprtSummary>,
) -> Result<(Summary, String), TournamentError> {
    let summary = Summary::compute(config, games, expected, sprt_stop);
    let markdown = summary.to_markdown(games);
    write_json_atomic(&out.join("summary.json"), &summary)?;
    write_atomic(&out.join("summary.csv"), summary.to_csv().as_bytes())?;
    write_atomic(&out.join("summary.md"), markdown.as_bytes())?;
    Ok((summary, markdown))
}

/// The run's progress display on standard error: a bar with the live score when the `progress`
/// feature is on (the command line turns it on), nothing otherwise, so that a library user need
/// not compile a terminal crate.
struct Progress {
    #[cfg(feature = "progress")]
    bar: indicatif::ProgressBar,
}

impl Progress {
    #[cfg(feature = "progress")]
    fn new(len: u64, done: u64, quiet: bool) -> Progress {
        use indicatif::{ProgressBar, ProgressState, ProgressStyle};
        if quiet {
            return Progress {
                bar: ProgressBar::hidden(),
            };
        }
        let bar = ProgressBar::new(len).with_position(done);
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games {rate} ETA {eta} | {wide_msg}",
        )
        .map(|s| {
            s.progress_chars("=> ").with_key(
                "rate",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1}/s", state.per_sec());
                },
            )
        });
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar.reset_eta();
        Progress { bar }
    }

    #[cfg(not(feature = "progress"))]
    fn new(_len: u64, _done: u64, _quiet: bool) -> Progress {
        Progress {}
    }

    /// One more game played; `message` is the live score.
    fn game_played(&self, message: String) {
        #[cfg(feature = "progress")]
        {
            self.bar.inc(1);
            self.bar.set_message(message);
        }
        #[cfg(not(feature = "progress"))]
        let _ = message;
    }

    fn finish(&self) {
        #[cfg(feature = "progress")]
        self.bar.finish_and_clear();
    }
}

/// Plays the deals of the run's shard not yet played on a pool of `concurrency` threads;
/// workers take deals in schedule order from a shared counter, so results arrive roughly in
/// order.
fn play_all(
    shared: &Shared,
    schedule: &Schedule,
    concurrency: Option<usize>,
) -> Result<(), TournamentError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency.unwrap_or(0))
        .build()
        .map_err(|e| TournamentError::ThreadPool {
            reason: e.to_string(),
        })?;
    let next = AtomicUsize::new(0);
    pool.scope(|scope| {
        for _ in 0..pool.current_num_threads() {
            scope.spawn(|_| {
                while !shared.stop.load(Ordering::SeqCst) {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = schedule.shard_job(shared.config.shard, k) else {
                        break;
                    };
                    if (0..2).all(|g| shared.done_before.contains(&(job.position, g))) {
                        continue;
                    }
                    if let Err(e) = play_pair(shared, &job) {
                        shared.stop.store(true, Ordering::SeqCst);
                        if let Ok(mut slot) = shared.error.lock() {
                            slot.get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    Ok(())
}

/// Plays the missing games of one deal, recording each as soon as it ends.
fn play_pair(shared: &Shared, job: &PairJob) -> Result<(), TournamentError> {
    let deal = shared.games[job.terrain].deal(job.deal_seed);
    for g in 0..2u8 {
        if shared.done_before.contains(&(job.position, g)) {
            continue;
        }
        let line = play_one(shared, job, &seat_deal(shared, job, &deal, g), g)?;
        shared.writer.append(&line)?;
        let (message, sprt) = {
            let mut done = shared.done.lock().map_err(|_| poisoned())?;
            done.push(line);
            (live_score(shared.config, &done), sprt_look(shared, &done)?)
        };
        let sprt_note = sprt.map_or(String::new(), |s| {
            format!(" | LLR {:.2} [{:.2}, {:.2}]", s.llr, s.lower, s.upper)
        });
        shared.progress.game_played(message + &sprt_note);
    }
    Ok(())
}

/// The deal of game `g`. A bot meeting itself gains nothing from swapped seats (the two games
/// would be the same game), so in self-play game 1 swaps the first player instead: each deal
/// is played once with each colour moving first.
fn seat_deal(shared: &Shared, job: &PairJob, deal: &Deal, g: u8) -> Deal {
    let pairing = &shared.pairings[job.pairing];
    match g == 1 && pairing.a == pairing.b {
        true => deal.with_first(deal.first.opponent()),
        false => deal.clone(),
    }
}

fn poisoned() -> TournamentError {
    TournamentError::Panicked
}

/// The run's sequential test at start: the decision its folder keeps (`sprt.json`); in a
/// folder written before decisions were kept, the first decision found by replaying the games
/// in the order they were counted, then kept.
fn sprt_watch(
    out: &Path,
    config: &RunConfig,
    games: &[GameLine],
) -> Result<Option<SprtWatch>, TournamentError> {
    let Some(params) = config.sprt else {
        return Ok(None);
    };
    let run = config.run_id();
    if let Some(stop) = read_sprt_stop(out, &run)? {
        return Ok(Some(SprtWatch::new(params, Some(stop))));
    }
    let watch = SprtWatch::replay(params, games);
    if let Some(stop) = watch.stop() {
        write_sprt_stop(out, &run, stop)?;
    }
    Ok(Some(watch))
}

/// Looks at the test after a game was counted (`done`, held locked so that decisions follow
/// the count): the first decision is kept in the run folder and stops the run. Returns the
/// test over every pair counted, for the progress display.
fn sprt_look(shared: &Shared, done: &[GameLine]) -> Result<Option<SprtSummary>, TournamentError> {
    let (Some(watch), Some(params)) = (&shared.sprt, shared.config.sprt) else {
        return Ok(None);
    };
    let all: Vec<&GameLine> = done.iter().collect();
    let p = pentanomial(&all);
    let mut watch = watch.lock().map_err(|_| poisoned())?;
    if let Some(stop) = watch.observe(&p) {
        write_sprt_stop(shared.out, &shared.run_id, stop)?;
        shared.stop.store(true, Ordering::SeqCst);
    }
    Ok(Some(SprtSummary::of(params, &p)))
}

/// The SPRT decision that stopped the run, if one did.
fn sprt_stop(shared: &Shared) -> Option<SprtSummary> {
    let watch = shared.sprt.as_ref()?.lock().ok()?;
    watch.stop().cloned()
}

/// Plays game `g` of a deal and writes its record.
fn play_one(
    shared: &Shared,
    job: &PairJob,
    deal: &Deal,
    g: u8,
) -> Result<GameLine, TournamentError> {
    let pairing = &shared.pairings[job.pairing];
    let game = &shared.games[job.terrain];
    let bot = |c: Colour| &shared.bots[pairing.seat(g, c)];
    let terrain = &game.terrain().key;
    let rel = record_path(terrain, &pairing.a, &pairing.b, job.pair, g);
    let seat = |c: Colour| bot(c).seat_in(seat_game(shared, job, g, &rel, c));
    let (mut blue, mut red) = (seat(Colour::Blue), seat(Colour::Red));
    let config = PlayConfig {
        max_turns: shared.config.max_turns,
        budgets: [blue.budget, red.budget].into(),
        check: shared.check,
    };
    let played = play_game(
        game,
        deal,
        &mut [&mut blue.player, &mut red.player],
        &config,
    );
    if let Some((step, violation)) = &played.violation {
        return Err(TournamentError::Invariant {
            terrain: game.terrain().key.clone(),
            deal_seed: job.deal_seed,
            game: g,
            step: *step,
            violation: violation.clone(),
        });
    }
    let result = &played.record.result;
    let failure = |c: Colour| {
        let cell = if c == Colour::Blue {
            &blue.failure
        } else {
            &red.failure
        };
        cell.as_ref()
            .and_then(|f| f.lock().ok().and_then(|f| f.clone()))
    };
    let forfeit_reason = match (result.end.as_str(), result.winner) {
        ("forfeit", Some(w)) => {
            Some(failure(w.opponent()).unwrap_or_else(|| "illegal decision".into()))
        }
        _ => None,
    };
    // Without a record the line names none: a resume then knows the game needs none.
    let record = match shared.config.records.keeps(job.pair) {
        true => {
            // The root stats first: a record found on resume has them.
            if shared.roots {
                let roots = GameRoots::of(game, &rel, &played.record, &played.searches);
                write_roots(shared.out, &rel, &roots)?;
            }
            write_record(shared.out, &rel, &played.record)?;
            rel
        }
        false => String::new(),
    };
    let first = deal.first;
    Ok(GameLine {
        run: shared.run_id.clone(),
        position: job.position,
        a: pairing.a.clone(),
        b: pairing.b.clone(),
        terrain: terrain.clone(),
        variant: shared.config.variant,
        deal_seed: job.deal_seed,
        pair: job.pair,
        game: g,
        blue: pairing.seat(g, Colour::Blue).to_string(),
        red: pairing.seat(g, Colour::Red).to_string(),
        first,
        first_bot: pairing.seat(g, first).to_string(),
        winner: result.winner.map(|w| pairing.seat(g, w).to_string()),
        winner_colour: result.winner,
        end: result.end.clone(),
        forfeit_reason,
        turns: result.turns,
        medals: result.medals.into_array(),
        decisions: played.decisions.into_array(),
        think_ms: played
            .think_time
            .map(|t| t.as_secs_f64() * 1000.0)
            .into_array(),
        versions: Colour::BOTH.map(|c| bot(c).version.clone()),
        record,
    })
}

/// What an external bot of game `g` is told, and where its standard error is kept: beside the
/// record, `logs/<terrain>/<record name>.<colour>.stderr.log` in the run folder.
fn seat_game(
    shared: &Shared,
    job: &PairJob,
    g: u8,
    record: &str,
    c: Colour,
) -> super::bots::SeatGame {
    let stem = record
        .strip_prefix("records/")
        .unwrap_or(record)
        .trim_end_matches(".json");
    super::bots::SeatGame {
        info: crate::bot::external::GameInfo {
            run: shared.run_id.clone(),
            position: job.position,
            game: g,
            deal_seed: job.deal_seed,
            record: record.to_string(),
        },
        stderr_log: shared.out.join(format!("logs/{stem}.{c}.stderr.log")),
    }
}
