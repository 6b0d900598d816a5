//! `toybattle balance`: play a balance study (or read existing runs) and write its report.
//! See docs/balance.md.

use super::{select_terrains, CliResult};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use toybattle::balance::render::write_report;
use toybattle::balance::{analyse, load_study, run_study, StudyPlan};
use toybattle::rules::{Variant, WhatIfs};
use toybattle::terrain::Terrain;
use toybattle::tournament::config::fnv1a;
use toybattle::tournament::Shard;

#[derive(clap::Args)]
pub struct Args {
    /// Presets, each playing itself, in report order (weakest first): shipped preset names or
    /// paths to .toml presets.
    #[arg(
        long,
        value_name = "LIST",
        required_unless_present = "from",
        conflicts_with = "from"
    )]
    bots: Option<String>,
    /// Report on existing runs instead of playing: self-play tournament run folders or study
    /// folders (shards of one run may be given together).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    from: Vec<PathBuf>,
    /// "all", or a comma-separated list of terrain keys or names.
    #[arg(long, default_value = "all")]
    terrains: String,
    /// Read the terrains from this file (format `toybattle-terrains/1`).
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// Variants to play; normal and beginner together measure the special bases.
    #[arg(long, value_name = "LIST", default_value = "normal,beginner")]
    variants: String,
    /// Games per preset, variant and terrain; even: each deal is played once with each colour
    /// moving first.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Study seed: every deal derives from it, the same in every run of the study.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once [default: one per core].
    #[arg(long, value_name = "K")]
    concurrency: Option<usize>,
    /// Self-play cap on turns: a game reaching it is a draw.
    #[arg(long, default_value_t = 300)]
    max_turns: u16,
    /// Play only shard K of N of every run; report later with --from over all shard folders.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// What-if: the medal objective of a terrain, e.g. `castle_field=6` (repeat the option
    /// or separate by commas for several terrains); the others keep their printed objective.
    #[arg(
        long,
        value_name = "TERRAIN=N",
        value_delimiter = ',',
        conflicts_with = "from"
    )]
    objective: Vec<String>,
    /// What-if: tiles each player removes unseen at setup [printed rules: 4].
    #[arg(long, value_name = "N", conflicts_with = "from")]
    removed: Option<u8>,
    /// What-if: opening rack sizes of the first and the second player [printed rules: 3,4].
    #[arg(long, value_name = "FIRST,SECOND", conflicts_with = "from")]
    racks: Option<String>,
    /// Study folder: runs/ (one tournament run per preset and variant) and the report.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// No progress bars and no notes.
    #[arg(long)]
    quiet: bool,
}

fn list(spec: &str) -> Vec<String> {
    spec.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The what-ifs of the options, checked against every terrain of the study before any game
/// is played.
fn what_ifs(args: &Args, terrains: &[Arc<Terrain>]) -> Result<WhatIfs, String> {
    let mut w = WhatIfs::default();
    for spec in &args.objective {
        let bad = || format!("--objective '{spec}': expected TERRAIN=N, e.g. castle_field=6");
        let (name, n) = spec.split_once('=').ok_or_else(bad)?;
        let n: u8 = n.trim().parse().map_err(|_| bad())?;
        let terrain = select_terrains(name.trim(), args.terrain_file.as_deref())?;
        let [t] = terrain.as_slice() else {
            return Err(format!("--objective '{spec}': name one terrain"));
        };
        if !terrains.iter().any(|s| s.key == t.key) {
            return Err(format!(
                "--objective '{spec}': {} is not among the study's terrains",
                t.key
            ));
        }
        if w.objectives.insert(t.key.clone(), n).is_some() {
            return Err(format!("--objective: {} is given twice", t.key));
        }
    }
    if let Some(r) = args.removed {
        w.removed = r;
    }
    if let Some(spec) = &args.racks {
        let bad = || format!("--racks '{spec}': expected FIRST,SECOND, e.g. 3,4");
        let (a, b) = spec.split_once(',').ok_or_else(bad)?;
        w.racks = [
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        ];
    }
    for t in terrains {
        w.for_terrain(&t.key).check(t).map_err(|e| e.to_string())?;
    }
    Ok(w)
}

pub fn run(args: Args) -> CliResult {
    let start = Instant::now();
    let terrains = match &args.bots {
        Some(_) => select_terrains(&args.terrains, args.terrain_file.as_deref())?,
        None => super::available_terrains(args.terrain_file.as_deref())?,
    };
    let runs = match &args.bots {
        None => args.from.clone(),
        Some(bots) => {
            let variants = list(&args.variants)
                .iter()
                .map(|v| v.parse::<Variant>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            let terrain_file_hash = match &args.terrain_file {
                Some(path) => Some(format!(
                    "{:016x}",
                    fnv1a(&super::read_text(path)?.into_bytes())
                )),
                None => None,
            };
            let dirs = run_study(&StudyPlan {
                presets: list(bots),
                variants,
                terrains: terrains.clone(),
                terrain_file_hash,
                games: args.games,
                seed: args.seed,
                max_turns: args.max_turns,
                shard: args.shard,
                concurrency: args.concurrency,
                quiet: args.quiet,
                what_ifs: what_ifs(&args, &terrains)?,
                out: args.out.clone(),
            })
            .map_err(|e| e.to_string())?;
            if let Some(s) = args.shard {
                eprintln!(
                    "shard {s} played into {}; when every shard is done, write the report with \
                     `toybattle balance --from SHARD_DIR... --out REPORT_DIR`",
                    args.out.display()
                );
                return Ok(());
            }
            dirs
        }
    };
    let loaded = load_study(&runs, &terrains).map_err(|e| e.to_string())?;
    for n in &loaded.notes {
        eprintln!("note: {n}");
    }
    let report = analyse(&loaded.study);
    write_report(&args.out, &report, &loaded.notes).map_err(|e| e.to_string())?;
    if !args.quiet {
        for line in &report.summary {
            eprintln!("{line}");
        }
        eprintln!(
            "report of {} games written to {} ({:.1} s in all)",
            report.games,
            args.out.join("report.html").display(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
