//! `toybattle balance`: play a balance study (or read existing runs) and write its report.
//! See docs/balance.md.

use super::{select_terrains, CliResult};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use toybattle::balance::design::{self, Parameters};
use toybattle::balance::render::write_report;
use toybattle::balance::study::{lock_out_dir, DESIGNS_DIR};
use toybattle::balance::{analyse, load_study, run_study, Report, StudyPlan};
use toybattle::rules::{Variant, WhatIfs};
use toybattle::terrain::{input, Terrain};
use toybattle::tournament::config::fnv1a;
use toybattle::tournament::Shard;

#[derive(clap::Args)]
pub struct Args {
    /// Presets, each playing itself, in report order (weakest first): shipped preset names,
    /// paths to .toml presets, or external engines (`ext:COMMAND`). A preset that forfeits
    /// games (a bot that crashes or answers nonsense) is warned about with the count.
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
    /// The designer's search of the medal objective alone, on these terrains ("all", or keys
    /// or names separated by commas; they replace --terrains): the study played under the
    /// printed rules and with every terrain's objective moved by 1 to --objective-spread
    /// either way, each in OUT/designs/NAME/, the objectives of every terrain ranked by how
    /// close to even they bring the first player and the side.
    #[arg(long, value_name = "TERRAINS", conflicts_with_all = ["from", "shard"])]
    objective_search: Option<String>,
    /// Candidates of --objective-search: the printed objective and this many either side.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 2,
        requires = "objective_search"
    )]
    objective_spread: u8,
    /// The designer's search: play the study under the printed rules and under each
    /// candidate within --design-spread of them (every terrain's medal objective, the tiles
    /// removed at setup, either opening rack; one at a time), each in OUT/designs/NAME/, and
    /// rank the rules of every terrain by how close to even they bring the first player and
    /// the side, each against the printed rules on the same deals.
    #[arg(long, conflicts_with_all = [
        "from", "shard", "objective_search", "restricted_play", "objective", "removed", "racks"
    ])]
    design_search: bool,
    /// Candidates of --design-search: each parameter this many steps either side of its
    /// printed value.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 1,
        requires = "design_search"
    )]
    design_spread: u8,
    /// Restricted play: also play, in the normal variant, every special base (and restricted
    /// HQ) of every terrain with its effect never used by either player, one run each on the
    /// same deals, and report each as a change against the normal games.
    #[arg(long, conflicts_with_all = ["from", "objective_search"])]
    restricted_play: bool,
    /// Earlier studies (or run folders) of the same presets, rules and seed: each run takes
    /// the games they played of its deals instead of playing them again (a study enlarged
    /// from 126 to 540 games begins with the 126 it has; restricted play's normal run is the
    /// study's normal run).
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with = "from")]
    reuse: Vec<PathBuf>,
    /// Write the report even when the runs read do not cover the whole study (shards, runs
    /// or games missing); the report then names what is missing at its top.
    #[arg(long)]
    allow_incomplete: bool,
    /// Study folder: runs/ (one tournament run per preset and variant) and the report.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// No progress bars and no notes.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    records: super::tournament::RecordsArgs,
}

fn list(spec: &str) -> Vec<String> {
    spec.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The designer's search: the study played under the printed rules in `OUT/designs/printed/`
/// and under every candidate in `OUT/designs/NAME/` (study folders, resumed like any), and the
/// report of the printed rules with every candidate's paired changes and the rankings. The
/// objective search is the same search of the medal objective alone.
fn design_search(
    args: &Args,
    plan: StudyPlan,
    start: Instant,
    parameters: Parameters,
) -> CliResult {
    let spread = match parameters {
        Parameters::All => args.design_spread,
        Parameters::Objective => args.objective_spread,
    };
    let candidates = design::candidates(&plan.terrains, spread, parameters);
    let mut studies = Vec::new();
    let names = std::iter::once(("printed".to_string(), "the printed rules".to_string()))
        .chain(candidates.iter().map(|c| (c.name.clone(), c.label.clone())));
    for (i, (name, label)) in names.enumerate() {
        let out = args.out.join(DESIGNS_DIR).join(&name);
        if !args.quiet {
            eprintln!(
                "design {}/{}: {label}: {}",
                i + 1,
                candidates.len() + 1,
                out.display()
            );
        }
        let what_ifs = match i {
            0 => WhatIfs::default(),
            _ => candidates[i - 1].what_ifs.clone(),
        };
        let candidate = StudyPlan {
            what_ifs,
            out: out.clone(),
            terrains: plan.terrains.clone(),
            presets: plan.presets.clone(),
            variants: plan.variants.clone(),
            terrain_file_hash: plan.terrain_file_hash.clone(),
            reuse: plan.reuse.clone(),
            ..plan
        };
        run_study(&candidate).map_err(|e| e.to_string())?;
        studies.push(out);
    }
    let loaded = load_study(&studies, &plan.terrains).map_err(|e| e.to_string())?;
    for n in &loaded.notes {
        eprintln!("note: {n}");
    }
    let mut report = analyse(&loaded.study);
    report.incomplete = complete(args, &loaded.missing)?;
    report.design_search = Some(design::rank(&report, &candidates, parameters));
    if !args.quiet {
        for line in report.design_search.iter().flat_map(|s| &s.chosen) {
            eprintln!("{line}");
        }
    }
    finish(args, &report, &loaded.notes, start)
}

/// Refuses the rules options beside `--objective-search`: its candidates are each compared
/// with the printed rules, so the objectives it tries, the tiles removed and the racks are
/// all as printed.
fn objective_search_alone(args: &Args, searched: &str) -> Result<(), String> {
    if let Some(spec) = args.objective.first() {
        return Err(format!(
            "--objective-search {searched} tries objectives itself, each against the printed \
             rules: leave out --objective {spec}"
        ));
    }
    for (given, flag) in [
        (args.removed.is_some(), "--removed"),
        (args.racks.is_some(), "--racks"),
    ] {
        if given {
            return Err(format!(
                "--objective-search compares each objective with the printed rules on the same \
                 deals: leave out {flag} (or search it with --design-search)"
            ));
        }
    }
    Ok(())
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
    // Held to the end: no tournament or other balance command writes to --out meanwhile.
    let _lock = lock_out_dir(&args.out).map_err(|e| e.to_string())?;
    let _reaper = super::tournament::Reaper::start()?;
    let terrains = match &args.bots {
        // An objective search plays the terrains it names.
        Some(_) => select_terrains(
            args.objective_search.as_deref().unwrap_or(&args.terrains),
            args.terrain_file.as_deref(),
        )?,
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
                    fnv1a(&super::read_text(path, input::TERRAIN_FILE)?.into_bytes())
                )),
                None => None,
            };
            if let Some(searched) = &args.objective_search {
                objective_search_alone(&args, searched)?;
            }
            let plan = StudyPlan {
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
                restricted_play: args.restricted_play,
                records: args.records.records(),
                reuse: args.reuse.clone(),
                out: args.out.clone(),
            };
            if args.objective_search.is_some() {
                return design_search(&args, plan, start, Parameters::Objective);
            }
            if args.design_search {
                return design_search(&args, plan, start, Parameters::All);
            }
            let dirs = run_study(&plan).map_err(|e| e.to_string())?;
            if let Some(s) = args.shard {
                if args.quiet {
                    return Ok(());
                }
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
    let incomplete = complete(&args, &loaded.missing)?;
    let mut report = analyse(&loaded.study);
    report.incomplete = incomplete;
    finish(&args, &report, &loaded.notes, start)
}

/// Refuses a study whose runs do not cover it (naming every missing piece) unless
/// `--allow-incomplete`; then returns the pieces for the top of the report.
fn complete(args: &Args, missing: &[String]) -> Result<Vec<String>, String> {
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    if !args.allow_incomplete {
        return Err(format!(
            "the runs read do not cover the whole study ({} missing piece{}):\n  {}\ngive the \
             missing shards or runs, resume the study to play the missing games, or pass \
             --allow-incomplete to report on the games present (the report then says so at \
             its top)",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            missing.join("\n  ")
        ));
    }
    eprintln!(
        "warning: incomplete study, reported with --allow-incomplete: {}",
        missing.join("; ")
    );
    Ok(missing.to_vec())
}

/// Writes the report and says where it is.
fn finish(args: &Args, report: &Report, notes: &[String], start: Instant) -> CliResult {
    write_report(&args.out, report, notes).map_err(|e| e.to_string())?;
    for w in &report.forfeits {
        eprintln!("warning: {w}");
    }
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
