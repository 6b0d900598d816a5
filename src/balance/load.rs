//! Reading a study from run folders: the settings checked (every run must be a self-play run
//! of the same deals), shards of one run gathered, games read from `games.jsonl`, and each
//! game's record (when present) replayed to count the troops each player placed. Nothing is written: a
//! damaged folder is reported, never repaired, so no completed game is lost.

use super::tension::{Estimates, Tension};
use super::{BalanceError, End, PerTroop, RecordFacts, Study, StudyGame};
use crate::record::GameRecord;
use crate::rules::{
    DealError, Decision, DecisionList, Game, IllegalDecision, ParseDecisionError, Restricted,
    Troop, Variant, WhatIf, WhatIfs,
};
use crate::terrain::{input, Terrain};
use crate::tournament::schedule::Schedule;
use crate::tournament::store::{each_game, read_run, GameLine, GAMES_FILE, RUN_FILE};
use crate::tournament::{RunConfig, Shard};
use rayon::prelude::*;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The folder of a study that holds its runs, one per preset and variant.
pub const RUNS_DIR: &str = "runs";
/// The list of a study's run folders in report order.
pub const STUDY_FILE: &str = "study.json";

/// What reading found besides the games: notes for the user (e.g. an interrupted line that was
/// not counted).
pub struct Loaded {
    /// The games read.
    pub study: Study,
    /// Notes for the user, e.g. an interrupted line not counted.
    pub notes: Vec<String>,
    /// What the runs read do not cover of their study, one line per missing piece: shards not
    /// given, a preset without a run in a variant the others played, a terrain with fewer
    /// games than the run plays. Empty for a complete study; a report over an incomplete one
    /// is refused unless asked for (`--allow-incomplete`), and then says so at the top.
    pub missing: Vec<String>,
}

/// The run folders named by `paths`: a run folder itself, or a study folder whose `runs/`
/// subfolders are taken in the order of its `study.json` (alphabetical without one). Second,
/// the runs a study lists that have not started (no `run.json`: the study was stopped before
/// them), which a report counts as missing.
pub fn run_folders(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<PathBuf>), BalanceError> {
    let (mut out, mut not_started) = (Vec::new(), Vec::new());
    for p in paths {
        if p.join(RUN_FILE).is_file() {
            out.push(p.clone());
            continue;
        }
        let runs = p.join(RUNS_DIR);
        if !runs.is_dir() {
            return Err(BalanceError::Usage(format!(
                "{} is neither a tournament run (no {RUN_FILE}) nor a balance study (no {RUNS_DIR}/ folder)",
                p.display()
            )));
        }
        for run in study_order(p)?.into_iter().map(|name| runs.join(name)) {
            match run.join(RUN_FILE).is_file() {
                true => out.push(run),
                false => not_started.push(run),
            }
        }
    }
    Ok((out, not_started))
}

/// The run folder names of a study folder, in report order.
pub(super) fn study_order(dir: &Path) -> Result<Vec<String>, BalanceError> {
    let file = dir.join(STUDY_FILE);
    if let Ok(text) = input::read_text(&file, input::RUN_SETTINGS) {
        return serde_json::from_str(&text).map_err(|e| BalanceError::Settings {
            dir: file.display().to_string(),
            reason: format!("not a list of run folders: {e}"),
        });
    }
    let runs = dir.join(RUNS_DIR);
    let entries = std::fs::read_dir(&runs).map_err(|e| BalanceError::Settings {
        dir: runs.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join(RUN_FILE).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// Game lines reduced to games at once (their records replayed in parallel): enough to keep
/// both cores busy, few enough that the lines never weigh much.
const BATCH: usize = 4096;

/// The games of one run read so far, one bit per game of its deals (a run of 320,000 games
/// takes 40 kB, where a hash set of keys took 9 MB); a position beyond the run's deals, which
/// only a damaged file holds, goes to a set.
struct Counted {
    bits: Vec<u64>,
    beyond: HashSet<(usize, u8)>,
}

impl Counted {
    fn new(config: &RunConfig) -> Counted {
        // A run plays `games` games per terrain, two per deal, so its positions lie below this.
        let games = config.terrains.len() * config.games as usize;
        Counted {
            bits: vec![0; games.div_ceil(64) + 1],
            beyond: HashSet::new(),
        }
    }

    /// Counts game `game` (0 or 1) of deal `position`; false if it was counted already.
    fn insert(&mut self, position: usize, game: u8) -> bool {
        let bit = position
            .checked_mul(2)
            .and_then(|b| b.checked_add(game as usize));
        match bit.filter(|&b| b / 64 < self.bits.len()) {
            Some(b) => {
                let (word, mask) = (b / 64, 1u64 << (b % 64));
                let new = self.bits[word] & mask == 0;
                self.bits[word] |= mask;
                new
            }
            None => self.beyond.insert((position, game)),
        }
    }
}

/// One run (possibly spread over shard folders).
struct Run {
    config: RunConfig,
    preset: String,
    dirs: Vec<PathBuf>,
    /// The shard each folder of `dirs` holds (`None` for a whole run).
    shards: Vec<Option<Shard>>,
}

/// Reads the study made of the runs in `paths` (run or study folders; shards of one run may
/// be given together). `terrains` are the terrains the records may name.
pub fn load_study(paths: &[PathBuf], terrains: &[Arc<Terrain>]) -> Result<Loaded, BalanceError> {
    let (folders, not_started) = run_folders(paths)?;
    if let (None, Some(run)) = (folders.first(), not_started.first()) {
        return Err(BalanceError::Usage(format!(
            "no run of the study has started: {} holds no {RUN_FILE}",
            run.display()
        )));
    }
    let runs = gather_runs(&folders)?;
    let (what_ifs, compared) = rule_sets(&runs)?;
    // The study's terrains are those of its runs without restricted play.
    let first = runs
        .iter()
        .find(|r| r.config.what_ifs.restricted.is_empty())
        .unwrap_or(&runs[0]);
    let mut presets: Vec<String> = Vec::new();
    for r in &runs {
        if !presets.contains(&r.preset) {
            presets.push(r.preset.clone());
        }
    }
    let terrain_names = first.config.terrains.clone();
    let by_key: HashMap<&str, &Arc<Terrain>> =
        terrains.iter().map(|t| (t.key.as_str(), t)).collect();
    let terrain_display = |key: &str| by_key.get(key).map_or(key.to_string(), |t| t.name.clone());
    let mut rules: HashMap<(String, Variant, WhatIf), Game> = HashMap::new();
    for r in &runs {
        for t in &r.config.terrains {
            let what_if = r.config.what_ifs.for_terrain(t);
            let terrain = by_key
                .get(t.as_str())
                .ok_or_else(|| BalanceError::Settings {
                    dir: r.dirs[0].display().to_string(),
                    reason: format!(
                    "terrain '{t}' is not among the terrains given (pass the run's --terrain-file)"
                ),
                })?;
            let key = (t.clone(), r.config.variant, what_if);
            if let Entry::Vacant(slot) = rules.entry(key) {
                let game = Game::new(Arc::clone(terrain), r.config.variant)
                    .with_what_if(what_if)
                    .map_err(|e| BalanceError::Settings {
                        dir: r.dirs[0].display().to_string(),
                        reason: e.to_string(),
                    })?;
                slot.insert(game);
            }
        }
    }
    let mut notes = Vec::new();
    for r in runs
        .iter()
        .filter(|r| !r.config.what_ifs.restricted.is_empty())
    {
        let compared = runs.iter().any(|n| {
            n.preset == r.preset
                && n.config.variant == Variant::Normal
                && n.config.what_ifs.restricted.is_empty()
        });
        if !compared {
            notes.push(format!(
                "{} has no normal-variant run of {} without restrictions to be compared with: \
                 its restricted-play rows are empty (give that run's folder too)",
                r.dirs[0].display(),
                r.preset
            ));
        }
    }
    let terrain_index: HashMap<&str, u16> = terrain_names
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i as u16))
        .collect();
    // Each game names its restricted nodes by an index into this table (0 for none).
    let mut restrictions: Vec<Restricted> = Vec::new();
    for r in &runs {
        for restricted in r.config.what_ifs.restricted.values() {
            if !restrictions.contains(restricted) {
                restrictions.push(*restricted);
            }
        }
    }
    let restriction_index = |r: &Restricted| {
        restrictions
            .iter()
            .position(|x| x == r)
            .map_or(0, |i| i as u16 + 1)
    };
    // Lines are read one at a time and reduced to games a batch at a time (the batch's records
    // replayed in parallel), so memory holds the compact games, never the lines.
    let convert =
        |batch: &mut Vec<Pending>, games: &mut Vec<StudyGame>| -> Result<(), BalanceError> {
            let converted = batch
                .par_iter()
                .map(|(preset, dir, (what_if, rules_index), line)| {
                    let game = &rules[&(line.terrain.clone(), line.variant, *what_if)];
                    let terrain = terrain_index.get(line.terrain.as_str()).ok_or_else(|| {
                        BalanceError::Settings {
                            dir: dir.display().to_string(),
                            reason: format!(
                                "terrain '{}' is not among the study's terrains ({})",
                                line.terrain,
                                terrain_names.join(", ")
                            ),
                        }
                    })?;
                    let restricted = restriction_index(&what_if.restricted);
                    study_game(
                        (*preset, *rules_index, restricted),
                        *terrain,
                        dir,
                        line,
                        game,
                    )
                })
                .collect::<Result<Vec<StudyGame>, BalanceError>>()?;
            games.extend(converted);
            batch.clear();
            Ok(())
        };
    // Room for every game the folders hold when complete, taken once: grown by doubling, the
    // table could take up to twice its size. A failed reservation (settings naming absurdly
    // many games) only leaves the table to grow as it fills.
    let mut games: Vec<StudyGame> = Vec::new();
    let _ = games.try_reserve_exact(expected_games(&runs));
    let mut batch: Vec<Pending> = Vec::with_capacity(BATCH);
    let mut unrecorded = 0usize;
    let mut counted: Vec<HashMap<String, u32>> = Vec::new();
    for r in &runs {
        let preset = presets.iter().position(|p| *p == r.preset).unwrap_or(0) as u16;
        let rules_index = compared
            .iter()
            .position(|w| *w == rules_of(&r.config))
            .map_or(0, |k| k as u16 + 1);
        let mut per_terrain: HashMap<String, u32> = HashMap::new();
        let mut seen = Counted::new(&r.config);
        for dir in &r.dirs {
            let path = dir.join(GAMES_FILE);
            let mut twice = None;
            let mut failed = None;
            let torn = each_game(&path, &r.config.run_id(), |line_no, g| {
                if twice.is_some() || failed.is_some() {
                    return;
                }
                if !seen.insert(g.position, g.game) {
                    twice = Some((line_no, g.game, g.position));
                    return;
                }
                let what_if = r.config.what_ifs.for_terrain(&g.terrain);
                *per_terrain.entry(g.terrain.clone()).or_default() += 1;
                unrecorded += g.record.is_empty() as usize;
                batch.push((preset, dir.as_path(), (what_if, rules_index), g));
                if batch.len() == BATCH {
                    failed = convert(&mut batch, &mut games).err();
                }
            })
            .map_err(crate::tournament::TournamentError::from)?;
            if let Some(e) = failed {
                return Err(e);
            }
            if let Some((line_no, game, position)) = twice {
                return Err(BalanceError::Settings {
                    dir: path.display().to_string(),
                    reason: format!(
                        "line {line_no}: game {game} of deal {position} is counted twice in the \
                         run (on an earlier line or in another folder of the same run)"
                    ),
                });
            }
            if let Some(t) = torn {
                notes.push(format!(
                    "{} line {} is incomplete (the run was interrupted while writing it): not \
                     counted; resume the run to play that game again",
                    path.display(),
                    t.line
                ));
            }
        }
        counted.push(per_terrain);
    }
    convert(&mut batch, &mut games)?;
    let mut missing = missing_pieces(&runs, &counted, &presets, &what_ifs, &terrain_display);
    missing.extend(not_started.iter().map(|run| {
        format!(
            "run {} has not started (no {RUN_FILE} in it): the study was stopped before it",
            run.display()
        )
    }));
    let without = games.iter().filter(|g| g.record.is_none()).count();
    if let Some(note) = records_note(unrecorded, without - unrecorded, games.len()) {
        notes.push(note);
    }
    Ok(Loaded {
        study: Study {
            presets,
            terrain_names: terrain_names
                .iter()
                .map(|k| by_key.get(k.as_str()).map_or(k.clone(), |t| t.name.clone()))
                .collect(),
            terrains: terrain_names,
            games,
            what_ifs,
            compared,
            restrictions,
        },
        notes,
        missing,
    })
}

/// The games the folders of `runs` hold when every one is complete.
fn expected_games(runs: &[Run]) -> usize {
    runs.iter()
        .filter_map(|r| {
            let schedule = Schedule::new(&r.config).ok()?;
            let deals = r.shards.iter().map(|&s| schedule.shard_len(s));
            Some(deals.fold(0usize, |n, d| n.saturating_add(d.saturating_mul(2))))
        })
        .fold(0, usize::saturating_add)
}

/// What the runs do not cover (see [`Loaded::missing`]): per run, the shards of its split not
/// given and each terrain with fewer games than it plays; per preset, the variants the other
/// presets played under the study's rules `what_ifs` and it did not (runs of compared
/// what-ifs are compared where they have games).
fn missing_pieces(
    runs: &[Run],
    counted: &[HashMap<String, u32>],
    presets: &[String],
    what_ifs: &WhatIfs,
    terrain_name: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    let describe = |r: &Run| {
        format!(
            "{}, {} variant{}",
            r.preset,
            r.config.variant,
            restriction_words(&r.config)
        )
    };
    for (r, per_terrain) in runs.iter().zip(counted) {
        let counts: Vec<u32> = r.shards.iter().flatten().map(|s| s.count).collect();
        if r.shards.iter().all(Option::is_some) && counts.windows(2).all(|w| w[0] == w[1]) {
            let n = counts[0];
            let given: Vec<u32> = r.shards.iter().flatten().map(|s| s.index).collect();
            let absent: Vec<String> = (1..=n)
                .filter(|k| !given.contains(k))
                .map(|k| format!("{k}/{n}"))
                .collect();
            if !absent.is_empty() {
                out.push(format!(
                    "{}: shard{} {} not given (folders given: {})",
                    describe(r),
                    if absent.len() == 1 { "" } else { "s" },
                    absent.join(", "),
                    r.dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        for t in &r.config.terrains {
            let have = per_terrain.get(t).copied().unwrap_or(0);
            if have < r.config.games {
                out.push(format!(
                    "{}, {}: {have} of {} games",
                    describe(r),
                    terrain_name(t),
                    r.config.games
                ));
            }
        }
    }
    let unrestricted = || runs.iter().filter(|r| r.config.what_ifs == *what_ifs);
    let mut variants: Vec<Variant> = unrestricted().map(|r| r.config.variant).collect();
    variants.sort_by_key(|v| v.to_string());
    variants.dedup();
    for preset in presets {
        for v in &variants {
            if !unrestricted().any(|r| r.preset == *preset && r.config.variant == *v) {
                out.push(format!("{preset}, {v} variant: no run given"));
            }
        }
    }
    out
}

/// Reads the settings of every folder, checks that they form one study, and gathers the shard
/// folders of each run.
fn gather_runs(dirs: &[PathBuf]) -> Result<Vec<Run>, BalanceError> {
    let mut runs: Vec<Run> = Vec::new();
    for dir in dirs {
        let sharded = read_run(dir)
            .map_err(crate::tournament::TournamentError::from)?
            .ok_or_else(|| BalanceError::Usage(format!("{} holds no {RUN_FILE}", dir.display())))?;
        let shard = sharded.shard;
        let config = sharded.unsharded();
        let settings = |reason: String| BalanceError::Settings {
            dir: dir.display().to_string(),
            reason,
        };
        let preset = match (config.bots.as_slice(), &config.gauntlet) {
            ([bot], None) => bot.clone(),
            _ => {
                return Err(settings(format!(
                    "not a self-play run (bots: {}): a balance study reads runs of one preset \
                     against itself",
                    config.bots.join(", ")
                )))
            }
        };
        check_terrains(&config, &runs).map_err(settings)?;
        if let Some(first) = runs.first() {
            let differences: Vec<String> = study_settings(&config)
                .differences(&study_settings(&first.config))
                .into_iter()
                .map(|d| {
                    d.replacen(" vs ", " here, ", 1) + &format!(" in {}", first.dirs[0].display())
                })
                .collect();
            if !differences.is_empty() {
                return Err(settings(format!(
                    "its runs do not play the same deals as the others ({}); a study's runs, \
                     and runs of rule what-ifs compared with it deal by deal, must share seed, \
                     terrains, games and turn cap",
                    differences.join("; ")
                )));
            }
        }
        match runs.iter_mut().find(|r| r.config == config) {
            Some(r) => {
                r.dirs.push(dir.clone());
                r.shards.push(shard);
            }
            None => {
                if let Some(other) = runs.iter().find(|r| {
                    r.preset == preset
                        && r.config.variant == config.variant
                        && r.config.what_ifs == config.what_ifs
                }) {
                    return Err(settings(format!(
                        "a second run of {preset} in the {} variant{} with other settings than {} ({})",
                        config.variant,
                        restriction_words(&config),
                        other.dirs[0].display(),
                        config.differences(&other.config).join("; ")
                    )));
                }
                runs.push(Run {
                    config,
                    preset,
                    dirs: vec![dir.clone()],
                    shards: vec![shard],
                });
            }
        }
    }
    if runs.is_empty() {
        return Err(BalanceError::Usage("no run folder given".into()));
    }
    Ok(runs)
}

/// A game line waiting to be reduced: its preset's index, its run folder, the what-if of its
/// terrain and the index of its rules ([`StudyGame::rules`]).
type Pending<'a> = (u16, &'a Path, (WhatIf, u16), GameLine);

/// The rules of a run without its restricted play: one rule set of the study.
fn rules_of(c: &RunConfig) -> WhatIfs {
    WhatIfs {
        restricted: Default::default(),
        ..c.what_ifs.clone()
    }
}

/// The study's rules and the rule what-ifs compared with them. Runs of one rule set (restricted
/// play aside) are a study of those rules, compared with nothing. Runs of several are what-ifs
/// compared with the printed rules on the same deals: the printed rules must be among them,
/// the others are compared in the order read, and restricted play is read only under the
/// printed rules (its rows compare it with the study's normal games).
fn rule_sets(runs: &[Run]) -> Result<(WhatIfs, Vec<WhatIfs>), BalanceError> {
    let mut sets: Vec<(WhatIfs, &Path)> = Vec::new();
    for r in runs {
        let w = rules_of(&r.config);
        if !sets.iter().any(|(s, _)| *s == w) {
            sets.push((w, &r.dirs[0]));
        }
    }
    let printed = WhatIfs::default();
    if sets.len() == 1 {
        return Ok((sets.swap_remove(0).0, Vec::new()));
    }
    if !sets.iter().any(|(s, _)| *s == printed) {
        return Err(BalanceError::Usage(format!(
            "the runs read play {} different rule what-ifs and none plays the printed rules: \
             {}; what-ifs are compared with the printed rules on the same deals, so give the \
             folder of a study of the printed rules too (same seed, terrains, games and turn cap)",
            sets.len(),
            sets.iter()
                .map(|(s, dir)| format!("{} in {}", s.describe(), dir.display()))
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    if let Some(r) = runs
        .iter()
        .find(|r| !r.config.what_ifs.restricted.is_empty() && rules_of(&r.config) != printed)
    {
        return Err(BalanceError::Settings {
            dir: r.dirs[0].display().to_string(),
            reason: format!(
                "a restricted-play run under what-ifs ({}) read with runs of the printed rules: \
                 restricted play is compared with the normal games of its own rules, so report \
                 that what-if's study on its own",
                rules_of(&r.config).describe()
            ),
        });
    }
    let compared = sets
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| *s != printed)
        .collect();
    Ok((printed, compared))
}

/// " with restricted play on castle_field: no effect of node 15", or nothing.
fn restriction_words(c: &RunConfig) -> String {
    let r = &c.what_ifs.restricted;
    match r.is_empty() {
        true => String::new(),
        false => format!(
            " with {}",
            WhatIfs {
                restricted: r.clone(),
                ..WhatIfs::default()
            }
            .describe()
        ),
    }
}

/// Runs of a study play the same terrains, except restricted-play runs, which play exactly the
/// terrains they restrict (each one of the study's terrains, checked when the games are read).
fn check_terrains(c: &RunConfig, runs: &[Run]) -> Result<(), String> {
    let restricted = &c.what_ifs.restricted;
    if !restricted.is_empty() {
        return match restricted.keys().eq(c.terrains.iter()) {
            true => Ok(()),
            false => Err(format!(
                "a restricted-play run plays exactly the terrains it restricts: it plays {} \
                 and restricts {}",
                c.terrains.join(", "),
                restricted.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        };
    }
    let unrestricted = runs
        .iter()
        .find(|r| r.config.what_ifs.restricted.is_empty());
    match unrestricted {
        Some(r) if r.config.terrains != c.terrains => Err(format!(
            "its terrains ({}) are not those of {} ({}); a study's runs must share terrains",
            c.terrains.join(", "),
            r.dirs[0].display(),
            r.config.terrains.join(", ")
        )),
        _ => Ok(()),
    }
}

/// The settings every run of a study shares: those that fix the deals and the game lengths.
/// Terrains are checked by [`check_terrains`]; what-ifs may differ from run to run (restricted
/// play, and rule what-ifs compared with the printed rules: see [`rule_sets`]).
fn study_settings(c: &RunConfig) -> RunConfig {
    RunConfig {
        terrains: Vec::new(),
        what_ifs: WhatIfs::default(),
        bots: Vec::new(),
        gauntlet: None,
        variant: Variant::Normal,
        versions: BTreeMap::new(),
        ext_timeout_ms: 0,
        sprt: None,
        shard: None,
        ..c.clone()
    }
}

/// What the report cannot count for want of records, or `None` when every game has its record:
/// `unrecorded` games were played without one (`--no-records`, `--records-sample`), `lost`
/// name a record file that is not there (result folders keep games, not records).
fn records_note(unrecorded: usize, lost: usize, games: usize) -> Option<String> {
    let without = unrecorded + lost;
    if without == 0 {
        return None;
    }
    let why = match (unrecorded, lost) {
        (u, 0) => format!(
            "{u} of {games} games were played without a record (--no-records or --records-sample)"
        ),
        (0, l) => format!(
            "{l} of {games} games have no record file (result folders keep games, not records)"
        ),
        (u, l) => format!(
            "{u} of {games} games were played without a record (--no-records or --records-sample) \
             and {l} have no record file (result folders keep games, not records)"
        ),
    };
    let what = match without == games {
        true => {
            "the troops-played table, the branching factor and the tension metrics need the records \
             and are not computed"
                .to_string()
        }
        false => format!(
            "the troops-played table, the branching factor and the tension metrics count the {} \
             games with records only",
            games - without
        ),
    };
    Some(format!("{why}: {what}"))
}

/// The game of a line, with the tiles each colour lost (from the deal of its seed) and placed
/// (by replaying its record, when the record is there).
fn study_game(
    (preset, rules, restricted): (u16, u16, u16),
    terrain: u16,
    dir: &Path,
    line: &GameLine,
    game: &Game,
) -> Result<StudyGame, BalanceError> {
    let path = dir.join(&line.record);
    let bad = |reason: String| BalanceError::Record {
        path: path.display().to_string(),
        reason,
    };
    let end = End::parse(&line.end).ok_or_else(|| bad(format!("unknown end '{}'", line.end)))?;
    let deal = game.deal(line.deal_seed);
    // A game played without a record names none; its placements are not counted.
    let text = match line.record.is_empty() {
        true => None,
        false => Some(input::read_text(&path, input::RECORD)),
    };
    let placed = match text {
        None => None,
        Some(Err(e)) if e.is_not_found() => None,
        Some(Err(e)) => return Err(bad(e.to_string())),
        Some(Ok(text)) => {
            let record: GameRecord =
                serde_json::from_str(&text).map_err(|e| bad(format!("not a game record: {e}")))?;
            if record.deal.seed != line.deal_seed || record.deal.removed != deal.removed {
                return Err(bad(format!(
                    "the record's deal is not the one of deal {} in {GAMES_FILE}",
                    line.position
                )));
            }
            Some(placements(game, &record).map_err(|e| bad(e.to_string()))?)
        }
    };
    let record = placed.map(|r| {
        Box::new(RecordFacts {
            placed: r.placed,
            choices: Some((r.decisions, r.legal)),
            tension: r.tension,
        })
    });
    Ok(StudyGame {
        preset,
        terrain,
        variant: line.variant,
        restricted,
        rules,
        deal: line.deal_seed,
        first: line.first,
        winner: line.winner_colour,
        end,
        turns: line.turns,
        lost: deal
            .removed
            .as_array()
            .each_ref()
            .map(|r| count(r.iter().copied())),
        record,
    })
}

fn count(troops: impl Iterator<Item = Troop>) -> PerTroop {
    let mut c = PerTroop::default();
    for t in troops {
        c[t.index()] = c[t.index()].saturating_add(1);
    }
    c
}

/// Why a record's placements cannot be counted.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// The record's deal is not a deal of this game.
    #[error(transparent)]
    Deal(#[from] DealError),
    /// A step is not a decision on this terrain.
    #[error("step {step} ('{text}'): {error}")]
    Notation {
        /// Index of the step in the record.
        step: usize,
        /// The step as written.
        text: String,
        /// What is wrong with it.
        error: ParseDecisionError,
    },
    /// A step is a decision the rules do not allow there.
    #[error("step {step} ('{text}'): {error}")]
    Illegal {
        /// Index of the step in the record.
        step: usize,
        /// The step as written.
        text: String,
        /// Why the rules refuse it.
        error: IllegalDecision,
    },
}

/// What replaying a record tells besides its result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replayed {
    /// Tiles of each troop each colour placed.
    pub placed: [PerTroop; 2],
    /// Decisions the players made (chance outcomes left out).
    pub decisions: u32,
    /// Legal decisions summed over those decisions: divided by `decisions`, the game's
    /// branching factor.
    pub legal: u32,
    /// Ludii's tension metrics from the fitted evaluation at each turn start (`None` for a
    /// record without a turn).
    pub tension: Option<Tension>,
}

/// Tiles of each troop each colour placed, and the legal decisions at each player decision,
/// found by replaying the record's steps (the steps do not say who acts; the rules do).
pub fn placements(game: &Game, record: &GameRecord) -> Result<Replayed, PlacementError> {
    game.validate_deal(&record.deal)?;
    let mut state = game.initial_state(&record.deal);
    let mut placed = [PerTroop::default(); 2];
    let (mut decisions, mut legal) = (0u32, 0u32);
    let mut list = DecisionList::new();
    let mut estimates = Estimates::default();
    for (i, step) in record.steps.iter().enumerate() {
        estimates.read(game, &state);
        let d =
            Decision::parse(step, game.terrain()).map_err(|error| PlacementError::Notation {
                step: i,
                text: step.clone(),
                error,
            })?;
        if !d.is_chance() {
            game.legal_decisions(&state, &mut list);
            decisions += 1;
            legal += list.len() as u32;
        }
        if let Decision::Place { troop, .. } = d {
            let n = &mut placed[state.active().index()][troop.index()];
            *n = n.saturating_add(1);
        }
        game.apply(&mut state, d)
            .map_err(|error| PlacementError::Illegal {
                step: i,
                text: step.clone(),
                error,
            })?;
    }
    Ok(Replayed {
        placed,
        decisions,
        legal,
        tension: Tension::of(&estimates.blue, record.result.winner),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::play::{play_game, PlayConfig};
    use crate::bot::preset::resolve;

    /// A record of random against random on Castle Field, dealt from seed 3.
    fn record(game: &Game) -> GameRecord {
        let (mut a, mut b) = (
            resolve("random").unwrap().player(),
            resolve("random").unwrap().player(),
        );
        let deal = game.deal(3);
        play_game(game, &deal, &mut [&mut a, &mut b], &PlayConfig::default()).record
    }

    #[test]
    fn a_bad_step_is_an_error_naming_the_step_and_why() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let mut r = record(&game);
        let replayed = placements(&game, &r).unwrap();
        let placed = replayed.placed;
        assert!(replayed.decisions > 0 && replayed.legal >= replayed.decisions);
        let tiles = |p: &PerTroop| p.iter().map(|&n| n as u32).sum::<u32>();
        assert!(tiles(&placed[0]) > 0 && tiles(&placed[1]) > 0);
        let last = r.steps.len() - 1;
        r.steps[last] = "place Nobody 1".into();
        let e = placements(&game, &r).unwrap_err();
        assert!(matches!(e, PlacementError::Notation { step, .. } if step == last));
        assert!(
            e.to_string()
                .starts_with(&format!("step {last} ('place Nobody 1'): ")),
            "{e}"
        );
        // The first step twice: its tile is no longer where the rules need it.
        r.steps.truncate(1);
        r.steps.push(r.steps[0].clone());
        let e = placements(&game, &r).unwrap_err();
        assert!(matches!(e, PlacementError::Illegal { step: 1, .. }), "{e}");
    }
}
