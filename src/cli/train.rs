//! `toybattle train`: generations of self-play learning with a gate (`train run`), and fitting
//! the value model to recorded games (`train fit`, also the bare `train --records ... --out`);
//! `train policy`, `train rack` and `train playout` fit the other models (`train_policy.rs`,
//! `train_rack.rs`, `train_playout.rs`).

use super::{emit, select_terrains, CliResult};
use std::path::{Path, PathBuf};
use toybattle::bot::preset::{resolve, BotConfig};
use toybattle::bot::search::SearchConfig;
use toybattle::model::weights;
use toybattle::model::{Hidden, ValueModel};
use toybattle::rules::Variant;
use toybattle::tournament::config::check_concurrency;
use toybattle::tournament::stats::SprtParams;
use toybattle::train::generation::{
    base_preset, describe, redraw_curve, run_generations, CutSettings, Learn, SelfPlayPlan,
    TrainConfig, TrainOptions, TRAIN_FORMAT,
};
use toybattle::train::{
    compare_with_fitted, count_records, evaluate, fit, positions_file, CutOptions, CutTarget,
    Dataset, FitOptions,
};

/// `toybattle train`: `run` (the generation loop) or `fit`; without a subcommand, the options
/// of `fit` (the form of the first version).
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    fit: Option<FitArgs>,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Generations of self-play learning, each kept only if it wins its gate.
    ///
    /// One generation: (1) the current best search plays itself on every terrain and variant
    /// (a tournament folder per variant, gen-NNN/selfplay-VARIANT, keeping each decision's
    /// root stats in roots/); (2) the value model is fitted to those games and the games of
    /// the `--window - 1` generations before (targets: 1 for the winner's decisions, 0 for
    /// the loser's, blended with the search's root value by `--target-mix`; with `--cuts`, to
    /// the base search's own cut positions of those games instead), or with `--learn policy`
    /// the policy model to the share of each decision in the searches' root visits;
    /// (3) the candidate, the base search with that model judging its cut playouts (or as its
    /// tree's prior), meets the best in a
    /// paired tournament (gen-NNN/gate) stopped by an SPRT with elo0 = 0, elo1 from `--sprt`:
    /// it becomes the best only if the test accepts H1, otherwise the best stays. A kept
    /// generation then plays the base search (generation 0) for the learning curve
    /// (curve.csv, curve.svg). Both sides of a gate use the base preset's budget: equal
    /// iterations for an iteration budget, equal time for a time budget.
    ///
    /// Everything is seeded from --seed, and the folder is resumable: rerun the same command
    /// after a stop or kill -9 and finished games and generations are kept, interrupted ones
    /// redone; a second process on the folder is refused. `--plan` prints the commands to play
    /// the next self-play on a cluster with `toybattle tournament --shard` and `toybattle
    /// merge` (see docs/training.md).
    Run(RunArgs),
    /// Fit the value model to recorded games and write a weights file.
    Fit(FitArgs),
    /// Draw a run's learning curve (DIR/curve.svg) again from its DIR/curve.csv.
    Curve {
        /// The run folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Fit the policy model (the search's prior) to the decisions played in recorded games.
    Policy(super::train_policy::PolicyArgs),
    /// Fit the rack model (the odds of the opponent's hidden rack tiles) to recorded games.
    Rack(super::train_rack::RackArgs),
    /// Fit the weights greedy playouts pick by to the decisions played in recorded games.
    Playout(super::train_playout::PlayoutArgs),
    /// Tune the weights of the greedy rules' evaluation terms by self-play (SPSA).
    Greedy(super::train_greedy::GreedyArgs),
}

/// Fit the learned value model to recorded games.
///
/// Every decision of every record under the given folders becomes a position: the encoding of
/// the deciding player's observation, with the game's outcome for that player as the target.
/// One game in `--validation-every` is held out; each epoch prints the training loss and the
/// held-out loss and accuracy next to the loss of always answering the average outcome. The
/// weights file (format version, encoding fingerprint, hash) is written at the end; a search
/// with `value_model = true` plays with the shipped weights (`src/model/value.weights`).
#[derive(clap::Args)]
struct FitArgs {
    /// Folders of game records: run folders of `tournament` or `balance` (their `records`
    /// folder is read), or any folder of record files (read recursively).
    #[arg(long, value_name = "DIR", num_args = 1.., required_unless_present = "positions")]
    records: Vec<PathBuf>,
    /// Fit to the positions saved in this file by `--save-positions` instead of making them
    /// from records (cut positions cost hundreds of playouts each; the fit a few minutes).
    /// Records given as well serve only the held-out turn-start comparison.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["cuts", "save_positions"])]
    positions: Option<PathBuf>,
    /// The sizes of the value model's two hidden layers, as FIRSTxSECOND (1 to 256 units
    /// each). The search's time per evaluation grows with them.
    #[arg(long, value_name = "FIRSTxSECOND", default_value = "64x32", value_parser = parse_hidden)]
    hidden: Hidden,
    /// Also save the positions made from the records to this file, for `--positions`.
    #[arg(long, value_name = "FILE")]
    save_positions: Option<PathBuf>,
    /// Where to write the weights.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// AdamW learning rate.
    #[arg(long, default_value_t = 1e-3)]
    learning_rate: f64,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 1e-4)]
    weight_decay: f64,
    /// Seed of the initial weights and of the order of positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hold out one game in this many for validation (0 = none).
    #[arg(long, default_value_t = 10)]
    validation_every: u32,
    /// λ of the target λ·(root value) + (1 − λ)·(outcome), for records kept with their root
    /// stats (tournament --root-stats); 0 = outcomes alone. Held-out loss is always against
    /// the outcome.
    #[arg(long, value_name = "λ", default_value_t = 0.0, value_parser = parse_mix)]
    target_mix: f64,
    /// Train on the positions where a search of this preset (name or file) cuts its playouts,
    /// instead of the records' own decisions: each turn start of a record is played on by
    /// one playout of that search to its evaluation cut (`eval_turns`), and the target is
    /// the mean of --cut-playouts full playouts from there (results/learning.md, thirteenth
    /// round). The held-out turn-start comparison still reads the records' own positions.
    #[arg(long, value_name = "PRESET")]
    cuts: Option<String>,
    /// With --cuts: full playouts averaged into each cut position's target.
    #[arg(long, default_value_t = 32, requires = "cuts")]
    cut_playouts: u64,
    /// With --cuts: cut positions made from each turn start, each by its own playout (more
    /// positions from the same games; the positions of one game stay on one side of the
    /// held-out split).
    #[arg(long, default_value_t = 1, requires = "cuts")]
    cuts_per_start: u32,
    /// With --cuts: each target is the root value this search preset (name or file) gives
    /// the player to move at the cut, searching --cut-search-iterations from there,
    /// instead of a mean of full playouts: with a value model, a target that rises with the
    /// model (results/learning.md, twenty-seventh round).
    #[arg(
        long,
        value_name = "PRESET",
        requires = "cuts",
        conflicts_with = "cut_playouts"
    )]
    cut_search: Option<String>,
    /// With --cut-search: the search's iterations a target.
    #[arg(long, default_value_t = 512, requires = "cut_search")]
    cut_search_iterations: u64,
}

/// The hidden layer sizes of `--hidden`: two unit counts joined by `x`, each 1 to
/// [`Hidden::MAX`].
fn parse_hidden(text: &str) -> Result<Hidden, String> {
    let sizes = text.split_once('x').and_then(|(a, b)| {
        Some(Hidden {
            first: a.trim().parse().ok()?,
            second: b.trim().parse().ok()?,
        })
    });
    match sizes {
        Some(hidden) if hidden.is_valid() => Ok(hidden),
        _ => Err(format!(
            "'{text}': expected two unit counts of 1 to {} joined by x, as 64x32",
            Hidden::MAX
        )),
    }
}

/// The search settings of `preset` (name or file), named `flag` in errors.
fn search_of(flag: &str, preset: &str) -> Result<SearchConfig, String> {
    let preset = resolve(preset).map_err(|e| e.to_string())?;
    match preset.config {
        BotConfig::Search { config, .. } => Ok(config),
        _ => Err(format!(
            "{flag} {}: this preset does not search, so it has no playouts to cut or judge",
            preset.name
        )),
    }
}

/// The cut options `--cuts`, `--cut-playouts`, `--cut-search` and `--cuts-per-start` ask for:
/// the cutting preset must search with an evaluation cut.
fn cut_options(args: &FitArgs, preset: &str) -> Result<CutOptions, String> {
    let config = search_of("--cuts", preset)?;
    if config.eval_turns == 0 {
        return Err(format!(
            "--cuts {preset}: this preset plays its playouts to the end (eval_turns = 0); \
             there is no cut to train for"
        ));
    }
    let target = match &args.cut_search {
        Some(judge) => CutTarget::Search {
            config: search_of("--cut-search", judge)?,
            iterations: args.cut_search_iterations,
        },
        None => CutTarget::Playouts(args.cut_playouts),
    };
    if !target.is_valid() || args.cuts_per_start == 0 {
        return Err(
            "--cut-playouts, --cut-search-iterations and --cuts-per-start must be at least 1"
                .into(),
        );
    }
    Ok(CutOptions {
        config,
        target,
        per_start: args.cuts_per_start,
        seed: args.seed,
    })
}

/// Adds the records under each of `dirs` with `add`, telling how many each folder held; stops
/// at the first folder refused, with its reason.
pub(super) fn add_records<E: std::fmt::Display>(
    dirs: &[PathBuf],
    mut add: impl FnMut(&std::path::Path) -> Result<usize, E>,
) -> CliResult {
    for dir in dirs {
        let n = add(dir).map_err(|e| e.to_string())?;
        emit(&format!("{}: {n} records\n", dir.display()))?;
    }
    Ok(())
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Some(Command::Run(a)) => run_loop(a),
        Some(Command::Fit(a)) => run_fit(a),
        Some(Command::Curve { dir }) => {
            let n = redraw_curve(&dir).map_err(|e| e.to_string())?;
            emit(&format!(
                "{}: {n} generations drawn\n",
                dir.join("curve.svg").display()
            ))
        }
        Some(Command::Policy(a)) => super::train_policy::run(a),
        Some(Command::Rack(a)) => super::train_rack::run(a),
        Some(Command::Playout(a)) => super::train_playout::run(a),
        Some(Command::Greedy(a)) => super::train_greedy::run(a),
        None => match args.fit {
            Some(fit) => run_fit(fit),
            None => Err(
                "say what to do: `toybattle train run DIR` (the generation loop), or fit one \
                         model to records with `toybattle train fit`, `train policy`, \
                         `train rack` (--records DIR --out FILE) or `train playout`; see --help"
                    .into(),
            ),
        },
    }
}

fn run_fit(args: FitArgs) -> CliResult {
    if args.epochs == 0 || args.batch == 0 {
        return Err("--epochs and --batch must be at least 1".into());
    }
    let data = match &args.positions {
        Some(path) => {
            let (data, made) = positions_file::load(path)?;
            emit(&format!("{}: {made}\n", path.display()))?;
            check_same_games(&args.records, &data, path)?;
            data
        }
        None => positions_of_records(&args)?,
    };
    if data.is_empty() {
        return Err("the records hold no decision to learn from".into());
    }
    let mean = (0..data.len())
        .map(|k| f64::from(data.target(k)))
        .sum::<f64>()
        / data.len() as f64;
    let constant = -(mean * mean.ln() + (1.0 - mean) * (1.0 - mean).ln());
    emit(&format!(
        "{} positions from {} games; always answering {mean:.3} has loss {constant:.4}\n",
        data.len(),
        data.games()
    ))?;
    let options = FitOptions {
        epochs: args.epochs,
        batch: args.batch,
        learning_rate: args.learning_rate,
        weight_decay: args.weight_decay,
        seed: args.seed,
        validation_every: args.validation_every,
        target_mix: args.target_mix,
        hidden: args.hidden,
    };
    let (model, _) = fit(&data, &options, |r| {
        println!(
            "epoch {:>3}: training loss {:.4}, held-out loss {:.4}, accuracy {:.3}",
            r.epoch, r.train_loss, r.validation_loss, r.validation_accuracy
        );
    })
    .map_err(|e| format!("training failed: {e}"))?;
    let made_elsewhere = args.cuts.is_some() || args.positions.is_some();
    if made_elsewhere && args.validation_every > 0 {
        emit(&held_out_baseline(&data, args.validation_every, args.seed))?;
    }
    if args.validation_every > 0 && !args.records.is_empty() {
        let dirs: Vec<&Path> = args.records.iter().map(PathBuf::as_path).collect();
        let c =
            compare_with_fitted(&dirs, &model, args.validation_every).map_err(|e| e.to_string())?;
        emit(&format!(
            "held-out turn starts ({}): value model loss {:.4}, accuracy {:.3}; \
             fitted linear evaluation loss {:.4}, accuracy {:.3}\n",
            c.positions, c.value_loss, c.value_accuracy, c.fitted_loss, c.fitted_accuracy
        ))?;
    }
    let tmp = args.out.with_extension("tmp");
    std::fs::write(&tmp, weights::to_bytes(&model))
        .and_then(|()| std::fs::rename(&tmp, &args.out))
        .map_err(|e| format!("{}: {e}", args.out.display()))?;
    emit(&format!("weights written to {}\n", args.out.display()))
}

/// Refuses records other than the ones saved positions were made from (counted): their
/// held-out turn starts would not be the games the fit held out.
fn check_same_games(records: &[PathBuf], data: &Dataset, path: &Path) -> Result<(), String> {
    if records.is_empty() {
        return Ok(());
    }
    let dirs: Vec<&Path> = records.iter().map(PathBuf::as_path).collect();
    let found = count_records(&dirs).map_err(|e| e.to_string())?;
    if found != data.games() as usize {
        return Err(format!(
            "--records hold {found} games, but the positions in {} come from {}: give the \
             records they were made from (in the same order), or none",
            path.display(),
            data.games()
        ));
    }
    Ok(())
}

/// The positions the records under `args.records` give (their decisions, or with `--cuts` the
/// cut positions of their turn starts), saved to `--save-positions` if asked.
fn positions_of_records(args: &FitArgs) -> Result<Dataset, String> {
    let mut data = Dataset::new();
    let records: Vec<String> = args
        .records
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let made = match &args.cuts {
        Some(preset) => {
            let options = cut_options(args, preset)?;
            add_records(&args.records, |dir| data.add_cuts_under(dir, &options))?;
            let judge = match &args.cut_search {
                Some(judge) => format!(" by {judge}"),
                None => String::new(),
            };
            format!(
                "cut positions of {preset} ({}{judge}, {} a turn start, seed {}) from the \
                 records in {}",
                options.target,
                options.per_start,
                options.seed,
                records.join(", ")
            )
        }
        None => {
            add_records(&args.records, |dir| data.add_records_under(dir))?;
            format!("the decisions of the records in {}", records.join(", "))
        }
    };
    if let Some(path) = &args.save_positions {
        positions_file::save(&data, &made, path)?;
        emit(&format!("positions saved to {}\n", path.display()))?;
    }
    Ok(data)
}

/// What the held-out positions' loss is measured against: the fitted linear evaluation alone
/// (the model's untrained start adds nothing to it), and the mean entropy of the targets,
/// which no model goes below (cut positions' targets are playout means, not outcomes).
fn held_out_baseline(data: &Dataset, every: u32, seed: u64) -> String {
    let held: Vec<usize> = (0..data.len())
        .filter(|&k| data.game_of(k).is_multiple_of(every))
        .collect();
    let (fitted, _) = evaluate(&ValueModel::untrained(seed), data, &held);
    let entropy = held
        .iter()
        .map(|&k| {
            let t = f64::from(data.target(k)).clamp(1e-9, 1.0 - 1e-9);
            -(t * t.ln() + (1.0 - t) * (1.0 - t).ln())
        })
        .sum::<f64>()
        / held.len().max(1) as f64;
    format!(
        "held-out positions ({}): fitted linear evaluation alone loss {fitted:.4}; \
         the targets' own entropy (the least a model can reach) {entropy:.4}\n",
        held.len()
    )
}

/// The settings of `toybattle train run`.
#[derive(clap::Args)]
struct RunArgs {
    /// The run folder: settings, every generation's games, weights and gate; rerun to resume.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Complete generations to reach (a resumed run may ask for more).
    #[arg(long, default_value_t = 1)]
    generations: u32,
    /// The base search: generation 0, and the settings every candidate plays with (its
    /// playouts must be cut: eval_turns > 0). A shipped preset's name or a .toml file.
    #[arg(long, default_value = "strong")]
    base: String,
    /// "all", or a comma-separated list of terrain keys or names.
    #[arg(long, default_value = "all")]
    terrains: String,
    /// The variants of the self-play games: normal, beginner, or both comma-separated.
    #[arg(long, default_value = "normal,beginner", value_delimiter = ',')]
    variants: Vec<Variant>,
    /// Self-play games per generation, terrain and variant; even.
    #[arg(long, default_value_t = 16)]
    games: u32,
    /// The model is fitted to this generation's self-play and that of the window - 1 before.
    #[arg(long, default_value_t = 4)]
    window: u32,
    /// Recorded games added to the training data of the first --window generations
    /// (tournament or balance run folders, or folders of records).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    start_records: Vec<PathBuf>,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 3)]
    epochs: u32,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// AdamW learning rate.
    #[arg(long, default_value_t = 3e-4)]
    learning_rate: f64,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.3)]
    weight_decay: f64,
    /// Hold out one game in this many to report the fit's loss (0 = none).
    #[arg(long, default_value_t = 10)]
    validation_every: u32,
    /// What each generation learns: "value" (the value model at the playout cut; the base
    /// must cut its playouts) or "policy" (the policy model as the tree's prior, fitted to
    /// root visits; the base must be a tree search).
    #[arg(long, default_value = "value", value_parser = ["value", "policy"])]
    learn: String,
    /// With --learn policy: the candidate's prior strength (search option `prior`, above 0,
    /// at most 100) [default: the base's].
    #[arg(long, value_name = "X")]
    policy_strength: Option<f64>,
    /// λ of the fit's target λ·(root value) + (1 − λ)·(outcome): the root value is the
    /// self-play search's own estimate at each decision (gen-NNN/selfplay-*/roots/); 0 =
    /// outcomes alone. Positions without root stats (forced decisions, --start-records) keep
    /// the outcome.
    #[arg(long, value_name = "λ", default_value_t = DEFAULT_TARGET_MIX, value_parser = parse_mix)]
    target_mix: f64,
    /// With --learn value: fit each generation's value model to the base search's own cut
    /// positions of the window's games (each target the mean of --cut-playouts full playouts
    /// from the cut, as `train fit --cuts`) instead of to the decisions' outcomes. Slower to
    /// fit, and the targets the search's cut asks about (results/learning.md, thirteenth round).
    #[arg(long)]
    cuts: bool,
    /// With --cuts: full playouts averaged into each cut position's target.
    #[arg(long, default_value_t = 32, requires = "cuts")]
    cut_playouts: u64,
    /// With --cuts: cut positions made from each turn start, each by its own playout.
    #[arg(long, default_value_t = 1, requires = "cuts")]
    cuts_per_start: u32,
    /// With --cuts: each target is the root value of a search of this many iterations by the
    /// generation's best (its settings and model, its whole budget) at the cut, as `train fit
    /// --cut-search`, instead of a mean of full playouts: targets that rise with the kept
    /// model. Each folder's cut positions are made again once another generation is kept.
    #[arg(
        long,
        value_name = "N",
        requires = "cuts",
        conflicts_with = "cut_playouts"
    )]
    cut_search_iterations: Option<u64>,
    /// Most gate games per terrain (even); the SPRT usually stops earlier.
    #[arg(long, default_value_t = 50)]
    gate_games: u32,
    /// The variant of the gate and of the match against generation 0.
    #[arg(long, default_value = "normal")]
    gate_variant: Variant,
    /// The gate's sequential test: elo0,elo1[,alpha,beta].
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", default_value = "0,50")]
    sprt: SprtParams,
    /// Games per terrain of each kept generation against generation 0, for the learning
    /// curve (even; 0 = none).
    #[arg(long, default_value_t = 20)]
    reference_games: u32,
    /// Self-play cap on turns: a game reaching it is a draw.
    #[arg(long, default_value_t = 300, value_parser = super::parse_max_turns)]
    max_turns: u16,
    /// Run seed: every deal, every bot's random choices and every fit derive from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once, 1 to 256 [default: one per core].
    #[arg(long, value_name = "K", value_parser = parse_concurrency)]
    concurrency: Option<usize>,
    /// No progress bars and no notes.
    #[arg(long)]
    quiet: bool,
    /// Print the commands that play the next generation's self-play (to shard it on a
    /// cluster) and stop; rerun without --plan once the shards are merged into its folders.
    #[arg(long)]
    plan: bool,
}

/// The default λ of `train run --target-mix` (results/learning.md, "Root stats as targets").
const DEFAULT_TARGET_MIX: f64 = 0.0;

fn parse_mix(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "'{s}' is not a share between 0 (outcomes alone) and 1 (root values alone)"
        )),
    }
}

fn parse_concurrency(s: &str) -> Result<usize, String> {
    let k = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of games"))?;
    check_concurrency(k).map_err(|e| e.to_string())
}

fn run_loop(args: RunArgs) -> CliResult {
    let terrains = select_terrains(&args.terrains, None)?;
    let learn = match args.learn.as_str() {
        "policy" => Learn::Policy,
        _ => Learn::Value,
    };
    let base = base_preset(&args.base, learn).map_err(|e| e.to_string())?;
    let mut variants = args.variants.clone();
    variants.dedup();
    let config = TrainConfig {
        format: TRAIN_FORMAT.into(),
        base: args.base.clone(),
        base_version: base.version(),
        terrains: terrains.iter().map(|t| t.key.clone()).collect(),
        variants,
        games: args.games,
        window: args.window,
        start_records: args.start_records.clone(),
        epochs: args.epochs,
        batch: args.batch,
        learning_rate: args.learning_rate,
        weight_decay: args.weight_decay,
        target_mix: args.target_mix,
        learn,
        cuts: args.cuts.then_some(CutSettings {
            playouts: args.cut_playouts,
            per_start: args.cuts_per_start,
            search_iterations: args.cut_search_iterations,
        }),
        policy_strength: args.policy_strength,
        validation_every: args.validation_every,
        gate_games: args.gate_games,
        gate_variant: args.gate_variant,
        sprt: args.sprt,
        reference_games: args.reference_games,
        max_turns: args.max_turns,
        seed: args.seed,
    };
    let report = run_generations(TrainOptions {
        config,
        terrains,
        dir: args.dir.clone(),
        generations: args.generations,
        concurrency: args.concurrency,
        quiet: args.quiet,
        plan_only: args.plan,
    })
    .map_err(|e| e.to_string())?;
    if let Some(plan) = &report.plan {
        return emit(&plan_text(plan, &args.dir));
    }
    let mut text = String::new();
    for r in &report.generations {
        text += &describe(r);
        text.push('\n');
    }
    let best = (report.generations.iter().rev()).find(|r| r.kept).map_or(
        "generation 0 (the base search)".to_string(),
        |r| {
            format!(
                "generation {} ({}/gen-{:03}/weights.bin)",
                r.generation,
                args.dir.display(),
                r.generation
            )
        },
    );
    text += &format!(
        "best: {best}; learning curve in {}/curve.csv and curve.svg\n",
        args.dir.display()
    );
    emit(&text)
}

/// The commands that play a plan's self-play in shards and merge them where the run reads.
fn plan_text(plan: &SelfPlayPlan, dir: &std::path::Path) -> String {
    let mut text = format!(
        "generation {}: its self-play is {} tournament(s); play each in N shards (K = 1..N), \
         then merge, then rerun this command without --plan:\n",
        plan.generation,
        plan.runs.len()
    );
    for run in &plan.runs {
        let variant = match run.variant {
            Variant::Normal => "normal",
            Variant::Beginner => "beginner",
        };
        let shards = format!("{}/shards-{}-{variant}", dir.display(), plan.generation);
        text += &format!(
            "toybattle tournament --bots {} --terrains {} --games {} --variant {variant} \
             --seed {} --max-turns {} --root-stats --shard K/N --out {shards}/K\n\
             toybattle merge {shards}/* --out {}\n",
            plan.bot,
            plan.terrains.join(","),
            plan.games,
            run.seed,
            plan.max_turns,
            run.dir.display()
        );
    }
    text
}
