//! Playing a study: one tournament run per preset and variant, each the preset against itself,
//! in `DIR/runs/<preset>-<variant>/`, all with the same seed and terrains (hence the same
//! deals). Restricted play adds one run per preset and node with an effect, on that node's
//! terrain alone, in `DIR/runs/<preset>-normal-restricted-<terrain>-<node>/`: the same deals
//! again, since a deal's seed depends on the terrain, not on the other terrains of the run.
//! Each run resumes, shards and merges like any tournament.

use super::load::{study_order, RUNS_DIR, STUDY_FILE};
use super::BalanceError;
use crate::rules::{Restricted, Variant, WhatIfs};
use crate::terrain::{NodeId, Terrain};
use crate::tournament::bots::{BotEntry, ExternalTimeouts};
use crate::tournament::config::{Records, DEFAULT_EXT_STARTUP_MS, RUN_FORMAT};
use crate::tournament::lock::{RunLock, LOCK_FILE};
use crate::tournament::reuse::other_games;
use crate::tournament::store::{read_run, write_json_atomic, RUN_FILE};
use crate::tournament::{run_tournament, RunConfig, RunOptions, Shard, TournamentError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What to play.
pub struct StudyPlan {
    /// Preset specs, in report order (e.g. by skill).
    pub presets: Vec<String>,
    /// Variants to play.
    pub variants: Vec<Variant>,
    /// Terrains to play.
    pub terrains: Vec<Arc<Terrain>>,
    /// Content hash of the terrain file, when terrains come from one.
    pub terrain_file_hash: Option<String>,
    /// Games per preset, variant and terrain (even: each deal is played with each colour first).
    pub games: u32,
    /// Study seed: every deal derives from it.
    pub seed: u64,
    /// Self-play turn cap.
    pub max_turns: u16,
    /// The shard to play, `None` for all.
    pub shard: Option<Shard>,
    /// Games played at once; `None` for one per core.
    pub concurrency: Option<usize>,
    /// No progress bars and no notes.
    pub quiet: bool,
    /// Rules parameters changed from the printed game, the same in every run.
    pub what_ifs: WhatIfs,
    /// Restricted play: also play, in the normal variant, each node with an effect restricted
    /// (its effect never used by either player), one run per preset and node.
    pub restricted_play: bool,
    /// Which games keep a record file (`--no-records`, `--records-sample`).
    pub records: Records,
    /// Earlier study (or run) folders whose games of the same deals, presets and rules each run
    /// takes instead of playing them (`--reuse`, `tournament::reuse`).
    pub reuse: Vec<PathBuf>,
    /// The study folder.
    pub out: PathBuf,
}

/// The folder name of a preset's run in a variant: the preset made file-safe.
pub fn run_name(preset: &str, variant: Variant) -> String {
    let safe: String = preset
        .trim_start_matches("ext:")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}-{variant}")
}

/// One run of a study: a preset against itself in a variant, on the study's terrains, or on
/// one terrain with one node restricted.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyRun {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Restricted play: the terrain (an index into the plan's terrains) and its node whose
    /// effect is never used; `None` for the study's own rules on every terrain.
    pub restricted: Option<(usize, NodeId)>,
}

impl StudyRun {
    /// The run's folder name under `DIR/runs/`.
    pub fn folder(&self, plan: &StudyPlan) -> String {
        let name = run_name(&self.preset, self.variant);
        match self.restricted {
            None => name,
            Some((t, node)) => format!("{name}-restricted-{}-{node}", plan.terrains[t].key),
        }
    }
}

/// The runs of a plan in report order: every preset in every variant, then, with restricted
/// play, every preset with each node with an effect of each terrain restricted in turn.
pub fn study_runs(plan: &StudyPlan) -> Vec<StudyRun> {
    let mut runs: Vec<StudyRun> = plan
        .presets
        .iter()
        .flat_map(|p| {
            plan.variants.iter().map(move |&variant| StudyRun {
                preset: p.clone(),
                variant,
                restricted: None,
            })
        })
        .collect();
    if plan.restricted_play {
        for preset in &plan.presets {
            for (t, terrain) in plan.terrains.iter().enumerate() {
                for node in terrain.nodes.iter().filter(|n| n.effect.is_some()) {
                    runs.push(StudyRun {
                        preset: preset.clone(),
                        variant: Variant::Normal,
                        restricted: Some((t, node.id)),
                    });
                }
            }
        }
    }
    runs
}

/// The tournament settings of one run of the study.
pub fn run_config(plan: &StudyPlan, preset: &str, variant: Variant) -> RunConfig {
    run_config_of(
        plan,
        &StudyRun {
            preset: preset.to_string(),
            variant,
            restricted: None,
        },
    )
}

/// The tournament settings of a run of the study: a restricted run plays its terrain alone,
/// with the restriction added to the study's what-ifs.
fn run_config_of(plan: &StudyPlan, run: &StudyRun) -> RunConfig {
    let (preset, variant) = (run.preset.as_str(), run.variant);
    let mut what_ifs = plan.what_ifs.clone();
    let terrains = match run.restricted {
        None => plan.terrains.iter().map(|t| t.key.clone()).collect(),
        Some((t, node)) => {
            let key = plan.terrains[t].key.clone();
            what_ifs
                .restricted
                .insert(key.clone(), Restricted::of([node]));
            vec![key]
        }
    };
    RunConfig {
        format: RUN_FORMAT.into(),
        bots: vec![preset.to_string()],
        gauntlet: None,
        terrains,
        terrain_file_hash: plan.terrain_file_hash.clone(),
        games: plan.games,
        seed: plan.seed,
        variant,
        max_turns: plan.max_turns,
        sprt: None,
        ext_timeout_ms: 10_000,
        ext_startup_ms: DEFAULT_EXT_STARTUP_MS,
        versions: BTreeMap::new(),
        shard: plan.shard,
        what_ifs,
        records: plan.records,
    }
}

/// Plays (or resumes) every run of the plan; returns their folders in report order, followed
/// by the runs played earlier into the same study folder that the plan does not name (so
/// adding a preset to a study keeps its restricted-play runs). Every preset is resolved before
/// any game is played, so a misspelt one costs nothing.
pub fn run_study(plan: &StudyPlan) -> Result<Vec<PathBuf>, BalanceError> {
    check(plan)?;
    let runs = study_runs(plan);
    let mut folders: Vec<String> = runs.iter().map(|r| r.folder(plan)).collect();
    let earlier = earlier_runs(plan, &folders)?;
    if !plan.quiet && !earlier.is_empty() {
        eprintln!(
            "note: this study folder also holds {} run(s) played earlier and not named by this \
             command; they stay in its report: {}",
            earlier.len(),
            earlier.join(", ")
        );
    }
    folders.extend(earlier.iter().cloned());
    std::fs::create_dir_all(plan.out.join(RUNS_DIR))
        .map_err(|e| crate::tournament::TournamentError::io(&plan.out, e))?;
    write_json_atomic(&plan.out.join(STUDY_FILE), &folders)
        .map_err(crate::tournament::TournamentError::from)?;
    let reuse = reuse_by_run(plan, &runs)?;
    let mut dirs = Vec::new();
    for (i, (run, folder)) in runs.iter().zip(&folders).enumerate() {
        if !plan.quiet {
            let restricted = run.restricted.map_or(String::new(), |(t, node)| {
                format!(", {} node {node} restricted", plan.terrains[t].key)
            });
            eprintln!(
                "study run {}/{}: {} against itself, {} variant{restricted}",
                i + 1,
                runs.len(),
                run.preset,
                run.variant
            );
        }
        let out = plan.out.join(RUNS_DIR).join(folder);
        let terrains = match run.restricted {
            None => plan.terrains.clone(),
            Some((t, _)) => vec![plan.terrains[t].clone()],
        };
        let report = run_tournament(RunOptions {
            config: run_config_of(plan, run),
            terrains,
            out: out.clone(),
            concurrency: plan.concurrency,
            quiet: plan.quiet,
            check: false,
            reuse: reuse[i].clone(),
        })?;
        for r in report.reused.iter().filter(|_| !plan.quiet) {
            eprintln!("  {} games taken from {}", r.games, r.dir.display());
        }
        dirs.push(out);
    }
    dirs.extend(earlier.iter().map(|f| plan.out.join(RUNS_DIR).join(f)));
    Ok(dirs)
}

/// For each run of `runs`, the earlier runs of `plan.reuse` that play its games (a study
/// folder's runs, or a run folder given itself); a folder that serves no run is refused, with
/// what makes its first run's games others.
fn reuse_by_run(plan: &StudyPlan, runs: &[StudyRun]) -> Result<Vec<Vec<PathBuf>>, BalanceError> {
    let mut by_run = vec![Vec::new(); runs.len()];
    for dir in &plan.reuse {
        let candidates = earlier_run_folders(dir)?;
        let mut why = None;
        for candidate in &candidates {
            let Some(earlier) = read_run(candidate).map_err(TournamentError::from)? else {
                continue;
            };
            for (i, run) in runs.iter().enumerate() {
                let differences = other_games(&earlier, &run_config_of(plan, run), false);
                match differences.is_empty() {
                    true => by_run[i].push(candidate.clone()),
                    false => {
                        why.get_or_insert(differences);
                    }
                }
            }
        }
        if !by_run.iter().flatten().any(|c| c.starts_with(dir)) {
            return Err(BalanceError::Settings {
                dir: dir.display().to_string(),
                reason: format!(
                    "--reuse: none of its runs plays this study's games ({})",
                    why.map_or("it holds no run".into(), |d| d.join("; "))
                ),
            });
        }
    }
    Ok(by_run)
}

/// The run folders of `dir`: itself if it holds a run, else the runs of its `runs/` folder.
fn earlier_run_folders(dir: &Path) -> Result<Vec<PathBuf>, BalanceError> {
    if dir.join(RUN_FILE).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let runs = dir.join(RUNS_DIR);
    let entries = std::fs::read_dir(&runs).map_err(|e| BalanceError::Settings {
        dir: dir.display().to_string(),
        reason: format!(
            "--reuse: neither a run folder nor a study folder ({}: {e})",
            runs.display()
        ),
    })?;
    let mut folders: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join(RUN_FILE).is_file())
        .collect();
    folders.sort();
    Ok(folders)
}

/// The runs of the study folder, in its report order, that the plan does not name and that
/// hold a run: a study grows by adding runs, and a command naming fewer never drops any.
fn earlier_runs(plan: &StudyPlan, named: &[String]) -> Result<Vec<String>, BalanceError> {
    let runs = plan.out.join(RUNS_DIR);
    if !runs.is_dir() {
        return Ok(Vec::new());
    }
    Ok(study_order(&plan.out)?
        .into_iter()
        .filter(|f| !named.contains(f) && runs.join(f).join(RUN_FILE).is_file())
        .collect())
}

/// What only a balance folder holds: a study's list of runs and its runs, a report, a
/// designer's search's studies.
const STUDY_MARKS: [&str; 4] = [STUDY_FILE, RUNS_DIR, REPORT_FILE, DESIGNS_DIR];

/// The folder of a designer's search's studies: the printed rules' and one per candidate.
pub const DESIGNS_DIR: &str = "designs";

/// The report's data file, which marks a folder a balance report was written to.
const REPORT_FILE: &str = "balance.json";

/// Takes the lock of the folder a balance command writes to (`--out`, created if need be):
/// the very lock of a tournament run folder (`run.lock`), so that a tournament or another
/// balance command cannot write there at the same time. A folder that holds files but no
/// study, report or designer's search is refused: a study does not mix with other files.
pub fn lock_out_dir(dir: &Path) -> Result<RunLock, BalanceError> {
    std::fs::create_dir_all(dir).map_err(|e| TournamentError::io(dir, e))?;
    let lock = RunLock::acquire(dir).map_err(TournamentError::from)?;
    let entries: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| TournamentError::io(dir, e))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != LOCK_FILE)
        .collect();
    if !entries.is_empty() && !STUDY_MARKS.iter().any(|m| entries.iter().any(|e| e == m)) {
        return Err(BalanceError::Usage(format!(
            "{} is not empty and holds no balance study ({STUDY_FILE}, {RUNS_DIR}/) nor report \
             ({REPORT_FILE}): refusing to mix a study with other files; choose an empty or new \
             --out folder",
            dir.display()
        )));
    }
    Ok(lock)
}

fn check(plan: &StudyPlan) -> Result<(), BalanceError> {
    let usage = |m: String| Err(BalanceError::Usage(m));
    if plan.presets.is_empty() {
        return usage("no preset named: give --bots, e.g. --bots greedy".into());
    }
    if plan.variants.is_empty() {
        return usage("no variant named: give --variants normal,beginner".into());
    }
    if plan.restricted_play && !plan.variants.contains(&Variant::Normal) {
        return usage(
            "restricted play is compared with the normal variant on the same deals: add normal \
             to --variants"
                .into(),
        );
    }
    if !plan.what_ifs.restricted.is_empty() {
        return usage(
            "restrictions are played by restricted play (--restricted-play), one special base \
             at a time beside the study's own rules"
                .into(),
        );
    }
    for (what, list) in [
        ("preset", plan.presets.clone()),
        (
            "variant",
            plan.variants.iter().map(|v| v.to_string()).collect(),
        ),
    ] {
        let mut sorted = list.clone();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return usage(format!("{what} '{}' is listed twice", w[0]));
        }
    }
    for p in &plan.presets {
        BotEntry::resolve(
            p,
            ExternalTimeouts {
                answer: Duration::from_secs(10),
                startup: Duration::from_millis(DEFAULT_EXT_STARTUP_MS),
            },
        )
        .map_err(|e| BalanceError::Usage(e.to_string()))?;
    }
    // The tournament checks the rest (even games, terrains) with its own messages.
    run_config(plan, &plan.presets[0], plan.variants[0])
        .validate()
        .map_err(|e| BalanceError::from(crate::tournament::TournamentError::from(e)))
}
