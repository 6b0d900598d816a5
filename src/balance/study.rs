//! Playing a study: one tournament run per preset and variant, each the preset against itself,
//! in `DIR/runs/<preset>-<variant>/`, all with the same seed and terrains (hence the same
//! deals). Each run resumes, shards and merges like any tournament.

use super::load::{RUNS_DIR, STUDY_FILE};
use super::BalanceError;
use crate::rules::{Variant, WhatIfs};
use crate::terrain::Terrain;
use crate::tournament::bots::{BotEntry, ExternalTimeouts};
use crate::tournament::config::{DEFAULT_EXT_STARTUP_MS, RUN_FORMAT};
use crate::tournament::store::write_json_atomic;
use crate::tournament::{run_tournament, RunConfig, RunOptions, Shard};
use std::collections::BTreeMap;
use std::path::PathBuf;
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

/// The tournament settings of one run of the study.
pub fn run_config(plan: &StudyPlan, preset: &str, variant: Variant) -> RunConfig {
    RunConfig {
        format: RUN_FORMAT.into(),
        bots: vec![preset.to_string()],
        gauntlet: None,
        terrains: plan.terrains.iter().map(|t| t.key.clone()).collect(),
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
        what_ifs: plan.what_ifs.clone(),
    }
}

/// Plays (or resumes) every run of the plan; returns their folders in report order. Every
/// preset is resolved before any game is played, so a misspelt one costs nothing.
pub fn run_study(plan: &StudyPlan) -> Result<Vec<PathBuf>, BalanceError> {
    check(plan)?;
    let names: Vec<(String, Variant)> = plan
        .presets
        .iter()
        .flat_map(|p| plan.variants.iter().map(move |v| (p.clone(), *v)))
        .collect();
    std::fs::create_dir_all(plan.out.join(RUNS_DIR))
        .map_err(|e| crate::tournament::TournamentError::io(&plan.out, e))?;
    let folders: Vec<String> = names.iter().map(|(p, v)| run_name(p, *v)).collect();
    write_json_atomic(&plan.out.join(STUDY_FILE), &folders)
        .map_err(crate::tournament::TournamentError::from)?;
    let mut dirs = Vec::new();
    for (i, ((preset, variant), folder)) in names.iter().zip(&folders).enumerate() {
        if !plan.quiet {
            eprintln!(
                "study run {}/{}: {preset} against itself, {variant} variant",
                i + 1,
                names.len()
            );
        }
        let out = plan.out.join(RUNS_DIR).join(folder);
        run_tournament(RunOptions {
            config: run_config(plan, preset, *variant),
            terrains: plan.terrains.clone(),
            out: out.clone(),
            concurrency: plan.concurrency,
            quiet: plan.quiet,
            check: false,
        })?;
        dirs.push(out);
    }
    Ok(dirs)
}

fn check(plan: &StudyPlan) -> Result<(), BalanceError> {
    let usage = |m: String| Err(BalanceError::Usage(m));
    if plan.presets.is_empty() {
        return usage("no preset named: give --bots, e.g. --bots greedy".into());
    }
    if plan.variants.is_empty() {
        return usage("no variant named: give --variants normal,beginner".into());
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
