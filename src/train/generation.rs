//! Generations of self-play learning (`toybattle train run`, feature `train`).
//!
//! A generation: (a) the current best search plays itself on every terrain and variant of the
//! run (a tournament folder per variant, which a cluster may shard); (b) a model is fitted to
//! the new games and those of a window of earlier generations: the value model to their
//! outcomes ([`Learn::Value`]), or the policy model to the share of each decision in the
//! self-play searches' root visits ([`Learn::Policy`]); (c) the candidate, the base search with
//! that model (at its playout cut, or as its tree's prior), meets the best in a paired gate
//! stopped by SPRT, and is kept only if the test accepts that it is stronger. Kept generations
//! then play the base search (generation 0) for the learning curve.
//!
//! The run folder holds `run.json` (the settings), `base.toml` (generation 0), and per
//! generation `gen-NNN/`: `best.toml`, `selfplay-<variant>/`, `fit.json`, `weights.bin` (value)
//! or `policy.json` (policy), `candidate.toml`, `gate/`, `reference/` and, once the generation
//! is complete, `result.json`.
//! Every file is written whole (temporary file, then rename) and every tournament resumes, so
//! rerunning the same command after a kill keeps what was done and redoes what was not;
//! `run.lock` refuses a second process on the folder.

use super::curve::{self, curve_svg, parse_curve_csv, CurveRow};
use super::gate::{gate, play_match, GateResult, MatchResult, MatchSettings};
use super::ledger::{CpuLedger, Step};
use super::policy::{fit_policy, score, PolicyData, PolicyTarget, Split};
use super::settings::open_settings;
pub use super::TrainError;
use super::{fit, positions_file, CutOptions, CutTarget, Dataset, FitOptions};
use crate::bot::preset::{self, BotConfig, Preset};
use crate::bot::search::SearchConfig;
use crate::model::{policy, weights, Hidden};
use crate::rules::Variant;
use crate::terrain::Terrain;
use crate::tournament::lock::RunLock;
use crate::tournament::stats::SprtParams;
use crate::tournament::store::{write_atomic, write_json_atomic};
use crate::vocabulary::hash::{fnv1a, splitmix64};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The format tag of a training run's `run.json`.
pub const TRAIN_FORMAT: &str = "toybattle-train/1";

/// Everything that decides a training run's games and weights (`run.json`): rerunning with
/// other settings on the same folder is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The format tag, [`TRAIN_FORMAT`].
    pub format: String,
    /// The base search (a preset spec): generation 0, and the settings of every candidate.
    pub base: String,
    /// The base preset's version when the run started.
    pub base_version: String,
    /// Terrain keys, in play order.
    pub terrains: Vec<String>,
    /// The variants of the self-play games.
    pub variants: Vec<Variant>,
    /// Self-play games per generation, terrain and variant; even.
    pub games: u32,
    /// Generations of self-play a model is fitted to: this one and the `window - 1` before.
    pub window: u32,
    /// Recorded games added to the training data of the first `window` generations.
    pub start_records: Vec<PathBuf>,
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per gradient step.
    pub batch: usize,
    /// AdamW's learning rate.
    pub learning_rate: f64,
    /// AdamW's weight decay.
    pub weight_decay: f64,
    /// λ of the fit's target, `λ · root value + (1 − λ) · outcome` (the root values of the
    /// self-play searches, `tournament::roots`); 0 = outcomes alone. Absent from the
    /// `run.json` of runs made before it existed, which trained on outcomes alone.
    #[serde(default)]
    pub target_mix: f64,
    /// What each generation learns. Absent from the `run.json` of runs made before it
    /// existed, which learned the value model.
    #[serde(default)]
    pub learn: Learn,
    /// With [`Learn::Value`]: fit the value model to the base search's own cut positions of
    /// the window's games (targets: means of full playouts from each cut, as `train fit
    /// --cuts`) instead of to the decisions' outcomes. Absent from the `run.json` of runs made
    /// before it existed, which fitted to outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuts: Option<CutSettings>,
    /// With [`Learn::Policy`]: the candidate's prior strength (search option `prior`); `None`
    /// keeps the base's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_strength: Option<f64>,
    /// One game in this many is held out of the fit to report its loss; 0 = none.
    pub validation_every: u32,
    /// Most gate games per terrain (even); the test usually stops earlier.
    pub gate_games: u32,
    /// The variant of the gate and reference games.
    pub gate_variant: Variant,
    /// The gate's sequential test.
    pub sprt: SprtParams,
    /// Games per terrain of each kept generation against the base (the learning curve); 0 = none.
    pub reference_games: u32,
    /// Self-play turn cap.
    pub max_turns: u16,
    /// The run seed: every game's deal and every fit derive from it.
    pub seed: u64,
}

/// How a training run makes the cut positions its value model is fitted to ([`TrainConfig::cuts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutSettings {
    /// Full playouts averaged into each cut position's target.
    pub playouts: u64,
    /// Cut positions made from each turn start, each by its own playout.
    pub per_start: u32,
    /// With it, each target is instead the root value of a search of this many iterations by
    /// the generation's best (its settings and model, its whole budget) at the cut
    /// ([`CutTarget::Search`]): targets that rise with the kept model. Absent from the
    /// `run.json` of runs made before it existed, whose targets were playouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_iterations: Option<u64>,
}

/// The search that gives cut positions their targets ([`CutSettings::search_iterations`]).
struct CutJudge {
    config: SearchConfig,
    /// The best's version ([`Preset::version`]): its cut positions are made again once another
    /// generation is kept.
    version: String,
}

/// The model a training run learns, and the candidate plays with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Learn {
    /// The value model (`model::value`), fitted to game outcomes, judging the candidate's cut
    /// playouts (`value_model`, `value_weights`); the base must cut its playouts.
    #[default]
    Value,
    /// The policy model (`model::policy`), fitted to the self-play searches' root visits
    /// (`train::policy`), as the candidate's tree prior (`policy_prior`, `policy_weights`);
    /// the base must be a tree search.
    Policy,
}

impl Learn {
    /// The file of a generation's fitted model, in its folder.
    fn model_file(self) -> &'static str {
        match self {
            Learn::Value => "weights.bin",
            Learn::Policy => "policy.json",
        }
    }
}

/// How to run: the settings plus what does not change results.
pub struct TrainOptions {
    /// The settings.
    pub config: TrainConfig,
    /// The terrains named by `config.terrains`, in the same order.
    pub terrains: Vec<Arc<Terrain>>,
    /// The run folder.
    pub dir: PathBuf,
    /// Complete generations to reach (those already complete count).
    pub generations: u32,
    /// Games played at once; `None` for one per core.
    pub concurrency: Option<usize>,
    /// No progress bars and no notes on standard error.
    pub quiet: bool,
    /// Stop before the self-play of the first incomplete generation and return its plan (to
    /// play it elsewhere, e.g. sharded on a cluster) instead of playing it.
    pub plan_only: bool,
}

/// The self-play tournaments of a generation, for playing them elsewhere: each is an ordinary
/// tournament run folder, so shards played with `toybattle tournament --shard` and merged with
/// `toybattle merge` into `dir` are taken as played when the training run resumes.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayPlan {
    /// The generation.
    pub generation: u32,
    /// The bot spec (the absolute path of the generation's `best.toml`).
    pub bot: String,
    /// Terrain keys.
    pub terrains: Vec<String>,
    /// Games per terrain.
    pub games: u32,
    /// Self-play turn cap.
    pub max_turns: u16,
    /// One tournament per variant.
    pub runs: Vec<PlannedRun>,
}

/// One self-play tournament of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    /// The run folder the training run reads.
    pub dir: PathBuf,
    /// Its variant.
    pub variant: Variant,
    /// Its seed.
    pub seed: u64,
}

/// Processor time spent on a generation's steps, in seconds: every thread of every process
/// that worked on it (a stopped run resumed counts both), kept in `gen-NNN/cpu.json` while it
/// runs and saved every ten seconds, so a kill loses at most the time since the last save.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSeconds {
    /// Self-play games.
    pub selfplay: f64,
    /// Fitting the model.
    pub fit: f64,
    /// The gate.
    pub gate: f64,
    /// The match against the base.
    pub reference: f64,
}

impl StepSeconds {
    /// All steps together.
    pub fn total(&self) -> f64 {
        self.selfplay + self.fit + self.gate + self.reference
    }
}

/// A complete generation (`gen-NNN/result.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationResult {
    /// The generation, from 1.
    pub generation: u32,
    /// The generation whose search played the self-play games and defended the gate (0 = the
    /// base search).
    pub best_before: u32,
    /// Self-play games this generation played.
    pub selfplay_games: u64,
    /// Games the model was fitted to.
    pub trained_games: u32,
    /// Positions the model was fitted to.
    pub trained_positions: u64,
    /// Held-out logistic loss after the last epoch (`None` without held-out games).
    pub validation_loss: Option<f64>,
    /// The gate against the best.
    pub gate: GateResult,
    /// Whether the candidate became the best.
    pub kept: bool,
    /// The kept candidate against the base search, for the learning curve.
    pub reference: Option<MatchResult>,
    /// Processor time per step.
    pub cpu_seconds: StepSeconds,
}

/// What a call did: the complete generations, and how many were completed now.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// Every complete generation, in order.
    pub generations: Vec<GenerationResult>,
    /// Generations completed by this call.
    pub completed_now: u32,
    /// Self-play games found already played at start, over the generations run now.
    pub selfplay_resumed: u64,
    /// Weights files found complete and reused instead of fitted again.
    pub fits_reused: u32,
    /// With `plan_only`: the self-play of the first incomplete generation (`None` when the
    /// generations asked for are complete).
    pub plan: Option<SelfPlayPlan>,
}

impl TrainConfig {
    /// Checks the settings that make no run; the message names the setting.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |m: &str| Err(TrainError::Invalid(m.to_string()));
        if self.games == 0 || !self.games.is_multiple_of(2) {
            return bad("--games must be even and at least 2 (every deal is played twice)");
        }
        if self.gate_games == 0 || !self.gate_games.is_multiple_of(2) {
            return bad("--gate-games must be even and at least 2");
        }
        if !self.reference_games.is_multiple_of(2) {
            return bad("--reference-games must be even");
        }
        if self.window == 0 {
            return bad("--window must be at least 1");
        }
        if self.epochs == 0 || self.batch == 0 {
            return bad("--epochs and --batch must be at least 1");
        }
        if let Some(p) = self.policy_strength {
            if self.learn != Learn::Policy {
                return bad("--policy-strength is for --learn policy");
            }
            if !(p > 0.0 && p <= 100.0) {
                return bad("--policy-strength must be above 0 and at most 100");
            }
        }
        if let Some(c) = self.cuts {
            if self.learn != Learn::Value {
                return bad("--cuts is for --learn value: cut positions train the value model");
            }
            if c.playouts == 0 || c.per_start == 0 || c.search_iterations == Some(0) {
                return bad(
                    "--cut-playouts, --cut-search-iterations and --cuts-per-start must be at least 1",
                );
            }
            if self.target_mix != 0.0 {
                return bad(
                    "--target-mix blends root values into decisions' outcomes; cut positions \
                     have playout means as targets and no root value (leave --target-mix at 0)",
                );
            }
        }
        if !(0.0..=1.0).contains(&self.target_mix) {
            return bad(
                "--target-mix must be between 0 (outcomes alone) and 1 (root values alone)",
            );
        }
        if self.variants.is_empty() || self.terrains.is_empty() {
            return bad("at least one terrain and one variant are needed");
        }
        self.sprt
            .validate()
            .map_err(|e| TrainError::Invalid(format!("--sprt: {e}")))
    }
}

/// The base preset of a training run that learns `learn`: for the value model, a search whose
/// playouts are cut (`eval_turns` > 0), so that a value model has positions to judge; for the
/// policy model, a tree search, whose prior it becomes.
pub fn base_preset(spec: &str, learn: Learn) -> Result<Preset, TrainError> {
    let base = |reason: String| TrainError::Base {
        spec: spec.to_string(),
        reason,
    };
    let preset = preset::resolve(spec).map_err(|e| base(e.to_string()))?;
    match (&preset.config, learn) {
        (BotConfig::Search { algorithm, .. }, Learn::Policy) => {
            match SearchConfig::applies_to("prior", *algorithm) {
                Some(true) => Ok(preset),
                _ => Err(base(format!(
                    "{} grows no tree, so it has no prior for a policy model",
                    preset.algorithm
                ))),
            }
        }
        (BotConfig::Search { config, .. }, Learn::Value) if config.eval_turns > 0 => Ok(preset),
        (BotConfig::Search { .. }, Learn::Value) => Err(base(
            "its playouts are not cut (eval_turns = 0), so no value model would be asked; \
             set eval_turns (e.g. 2)"
                .into(),
        )),
        _ => Err(base(
            "it does not search, so it has no model to learn".into(),
        )),
    }
}

/// A generation's fitted model, as its candidate plays with it.
#[derive(Clone, Copy)]
enum Fitted<'a> {
    /// The value model in this weights file.
    Value(&'a Path),
    /// The policy model in this weights file, with this prior strength (`None`: the base's).
    Policy(&'a Path, Option<f64>),
}

/// The text of a preset file playing as `preset`, with the fitted model when given.
fn preset_text(preset: &Preset, fitted: Option<Fitted>, description: &str) -> String {
    let BotConfig::Search { config, algorithm } = &preset.config else {
        unreachable!("base_preset accepts searches only")
    };
    let mut config = config.clone();
    match fitted {
        Some(Fitted::Value(w)) => {
            config.value_model = true;
            config.value_weights = w.display().to_string();
        }
        Some(Fitted::Policy(w, strength)) => {
            config.policy_prior = true;
            config.policy_weights = w.display().to_string();
            config.prior = strength.unwrap_or(config.prior);
        }
        None => {}
    }
    // A preset may write only the options of its algorithm.
    let mut search = toml::Table::try_from(&config).unwrap_or_default();
    search.retain(|name, _| SearchConfig::applies_to(name, *algorithm) == Some(true));
    let mut text = format!(
        "description = {}\nalgorithm = {}\n[budget]\n",
        toml::Value::String(description.to_string()),
        toml::Value::String(preset.algorithm.clone())
    );
    if let Some(n) = preset.budget.iterations {
        let _ = writeln!(text, "iterations = {n}");
    }
    if let Some(t) = preset.budget.time {
        let _ = writeln!(text, "time_ms = {}", t.as_millis());
    }
    text + "[search]\n" + &toml::to_string(&search).unwrap_or_default()
}

/// Runs (or resumes) the training run of `options` until `options.generations` generations
/// are complete.
pub fn run_generations(options: TrainOptions) -> Result<TrainReport, TrainError> {
    let config = &options.config;
    config.validate()?;
    if options
        .terrains
        .iter()
        .map(|t| &t.key)
        .ne(config.terrains.iter())
    {
        return Err(TrainError::Invalid(
            "the terrains given do not match the settings' terrain list".into(),
        ));
    }
    let io = |path: &Path, e: std::io::Error| TrainError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(&options.dir).map_err(|e| io(&options.dir, e))?;
    // Presets name their files by absolute path: the tournaments resolve them from any folder.
    let dir = options
        .dir
        .canonicalize()
        .map_err(|e| io(&options.dir, e))?;
    let _lock = RunLock::acquire(&dir)?;
    let base = base_preset(&config.base, config.learn)?;
    if base.version() != config.base_version {
        return Err(TrainError::Base {
            spec: config.base.clone(),
            reason: format!(
                "version {} differs from the {} the settings name",
                base.version(),
                config.base_version
            ),
        });
    }
    open_settings(&dir, config, &[], "a training run")?;
    let base_file = dir.join("base.toml");
    write_if_changed(
        &base_file,
        &preset_text(&base, None, "generation 0: the base search"),
    )?;
    let run = Run {
        dir: &dir,
        config,
        base: &base,
        base_file: &base_file,
        terrains: &options.terrains,
        concurrency: options.concurrency,
        quiet: options.quiet,
    };
    let mut report = TrainReport {
        generations: Vec::new(),
        completed_now: 0,
        selfplay_resumed: 0,
        fits_reused: 0,
        plan: None,
    };
    for g in 1..=options.generations {
        let result = match read_result(&run.gen_dir(g))? {
            Some(done) => done,
            None if options.plan_only => {
                let (_, _, bot) = run.prepare(g, &report.generations)?;
                report.plan = Some(run.selfplay_plan(g, &bot));
                return Ok(report);
            }
            None => {
                let result = run.generation(g, &mut report)?;
                report.completed_now += 1;
                result
            }
        };
        report.generations.push(result);
        write_curve(&dir, &report.generations)?;
    }
    Ok(report)
}

/// Everything the steps of a generation share.
struct Run<'a> {
    dir: &'a Path,
    config: &'a TrainConfig,
    base: &'a Preset,
    base_file: &'a Path,
    terrains: &'a [Arc<Terrain>],
    concurrency: Option<usize>,
    quiet: bool,
}

impl Run<'_> {
    fn gen_dir(&self, g: u32) -> PathBuf {
        self.dir.join(format!("gen-{g:03}"))
    }

    fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    /// The seed of step `step` of generation `g`: distinct for every step and generation.
    fn seed(&self, g: u32, step: u64) -> u64 {
        self.config
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(u64::from(g) * 16 + step)
    }

    fn settings(&self, games: u32, variant: Variant, seed: u64) -> MatchSettings {
        MatchSettings {
            terrains: self.terrains.to_vec(),
            games,
            variant,
            max_turns: self.config.max_turns,
            seed,
            concurrency: self.concurrency,
            quiet: self.quiet,
        }
    }

    /// Generation `g`'s folder and `best.toml`, the search of the last kept generation of
    /// `done` (or the base): returns the folder, that generation and the spec of `best.toml`.
    fn prepare(
        &self,
        g: u32,
        done: &[GenerationResult],
    ) -> Result<(PathBuf, u32, String), TrainError> {
        let gen_dir = self.gen_dir(g);
        let best_before = done
            .iter()
            .rev()
            .find(|r| r.kept)
            .map_or(0, |r| r.generation);
        let best_source = match best_before {
            0 => self.base_file.to_path_buf(),
            k => self.gen_dir(k).join("candidate.toml"),
        };
        let best_text = std::fs::read_to_string(&best_source).map_err(|e| TrainError::File {
            path: best_source.display().to_string(),
            reason: e.to_string(),
        })?;
        std::fs::create_dir_all(&gen_dir).map_err(|e| TrainError::File {
            path: gen_dir.display().to_string(),
            reason: e.to_string(),
        })?;
        let best = gen_dir.join("best.toml");
        write_if_changed(&best, &best_text)?;
        let best_spec = best.display().to_string();
        Ok((gen_dir, best_before, best_spec))
    }

    /// The self-play tournaments of generation `g`, as the settings of their run folders.
    fn selfplay_plan(&self, g: u32, bot: &str) -> SelfPlayPlan {
        let runs = (self.config.variants.iter().enumerate())
            .map(|(k, &variant)| PlannedRun {
                dir: self.selfplay_dir(g, variant),
                variant,
                seed: self.seed(g, k as u64),
            })
            .collect();
        SelfPlayPlan {
            generation: g,
            bot: bot.to_string(),
            terrains: self.config.terrains.clone(),
            games: self.config.games,
            max_turns: self.config.max_turns,
            runs,
        }
    }

    fn selfplay_dir(&self, g: u32, variant: Variant) -> PathBuf {
        self.gen_dir(g)
            .join(format!("selfplay-{}", variant_name(variant)))
    }

    /// Plays, fits and gates generation `g` after the complete generations of `report`,
    /// counting its processor time in its ledger.
    fn generation(&self, g: u32, report: &mut TrainReport) -> Result<GenerationResult, TrainError> {
        let (gen_dir, best_before, best_spec) = self.prepare(g, &report.generations)?;
        let (ledger, problem) = CpuLedger::open(&gen_dir.join(CPU_FILE));
        if let Some(problem) = problem {
            self.note(&problem);
        }
        ledger.saving_every(LEDGER_EVERY, || {
            self.generation_steps(g, (&gen_dir, best_before, &best_spec), &ledger, report)
        })?
    }

    /// The steps of [`Run::generation`], given the generation's folder, the best generation
    /// before it and that generation's preset file.
    fn generation_steps(
        &self,
        g: u32,
        (gen_dir, best_before, best_spec): (&Path, u32, &str),
        ledger: &CpuLedger,
        report: &mut TrainReport,
    ) -> Result<GenerationResult, TrainError> {
        ledger.start(Step::SelfPlay);
        let mut selfplay_games = 0;
        for run in self.selfplay_plan(g, best_spec).runs {
            self.note(&format!(
                "generation {g}: self-play of generation {best_before} ({}) in {}",
                variant_name(run.variant),
                run.dir.display()
            ));
            let settings = self.settings(self.config.games, run.variant, run.seed);
            let summary = super::gate::self_play(&run.dir, best_spec, &settings)?;
            report.selfplay_resumed += summary.1;
            selfplay_games += summary.0;
        }

        ledger.start(Step::Fit);
        let (trained_games, trained_positions, validation_loss, reused) = self.fit(g, gen_dir)?;
        report.fits_reused += u32::from(reused);

        let model_file = gen_dir.join(self.config.learn.model_file());
        let candidate = gen_dir.join("candidate.toml");
        let (fitted, what) = match self.config.learn {
            Learn::Value => (Fitted::Value(&model_file), "value model"),
            Learn::Policy => (
                Fitted::Policy(&model_file, self.config.policy_strength),
                "policy model (its tree's prior)",
            ),
        };
        let description = format!(
            "generation {g}: the base search with the {what} fitted in {}",
            gen_dir.display()
        );
        write_if_changed(
            &candidate,
            &preset_text(self.base, Some(fitted), &description),
        )?;
        let candidate_spec = candidate.display().to_string();

        ledger.start(Step::Gate);
        self.note(&format!(
            "generation {g}: gate against generation {best_before}"
        ));
        let gate_settings = self.settings(
            self.config.gate_games,
            self.config.gate_variant,
            self.seed(g, 8),
        );
        let gate_result = gate(
            &gen_dir.join("gate"),
            &candidate_spec,
            best_spec,
            &gate_settings,
            self.config.sprt,
        )?;

        ledger.start(Step::Reference);
        let reference = match (gate_result.kept, self.config.reference_games) {
            (false, _) | (true, 0) => None,
            (true, games) => {
                self.note(&format!("generation {g}: against the base search (curve)"));
                let settings = self.settings(games, self.config.gate_variant, self.seed(g, 9));
                let base_spec = self.base_file.display().to_string();
                Some(play_match(
                    &gen_dir.join("reference"),
                    &candidate_spec,
                    &base_spec,
                    &settings,
                )?)
            }
        };

        let result = GenerationResult {
            generation: g,
            best_before,
            selfplay_games,
            trained_games,
            trained_positions,
            validation_loss,
            kept: gate_result.kept,
            gate: gate_result,
            reference,
            cpu_seconds: ledger.spent(),
        };
        write_json_atomic(&gen_dir.join(RESULT_FILE), &result)?;
        self.note(&describe(&result));
        Ok(result)
    }

    /// Fits generation `g`'s model to its window of self-play (and the start records while
    /// they are in the window), unless a complete weights file is there already; returns games,
    /// positions, the held-out loss and whether the file was reused.
    fn fit(&self, g: u32, gen_dir: &Path) -> Result<(u32, u64, Option<f64>, bool), TrainError> {
        if self.config.learn == Learn::Policy {
            return self.fit_policy(g, gen_dir);
        }
        let weights_file = gen_dir.join("weights.bin");
        let fit_file = gen_dir.join("fit.json");
        let earlier: Option<FitSummary> = std::fs::read(&fit_file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let weights_ok = std::fs::read(&weights_file)
            .ok()
            .is_some_and(|b| weights::from_bytes(&b).is_ok());
        if let (Some(f), true) = (&earlier, weights_ok) {
            return Ok((f.games, f.positions, f.validation_loss, true));
        }
        let judge = self.cut_judge(gen_dir)?;
        let mut data = Dataset::new();
        let first = self.window_dirs(g, |key, dir| {
            match self.cut_options(key, judge.as_ref()) {
                Some(options) => {
                    data.append(self.cached_cuts(key, dir, &options, judge.as_ref())?)
                }
                None => {
                    data.add_records_under(dir)?;
                }
            }
            Ok(())
        })?;
        if data.is_empty() {
            return Err(TrainError::Invalid(format!(
                "generation {g}: the self-play records hold no position to learn from"
            )));
        }
        self.note(&format!(
            "generation {g}: fitting to {} positions of {} games (generations {first} to {g})",
            data.len(),
            data.games()
        ));
        let options = FitOptions {
            epochs: self.config.epochs,
            batch: self.config.batch,
            learning_rate: self.config.learning_rate,
            weight_decay: self.config.weight_decay,
            seed: self.seed(g, 7),
            validation_every: self.config.validation_every,
            target_mix: self.config.target_mix,
            hidden: Hidden::DEFAULT,
        };
        let (model, epochs) = fit(&data, &options, |r| {
            self.note(&format!(
                "  epoch {:>3}: training loss {:.4}, held-out loss {:.4}",
                r.epoch, r.train_loss, r.validation_loss
            ));
        })
        .map_err(|e| TrainError::Fit {
            generation: g,
            reason: e.to_string(),
        })?;
        let last = epochs.last().map(|r| r.validation_loss);
        let summary = FitSummary {
            games: data.games(),
            positions: data.len() as u64,
            validation_loss: last.filter(|l| l.is_finite()),
            train_losses: epochs.iter().map(|r| r.train_loss).collect(),
        };
        // fit.json first: the weights file is the mark of a complete fit.
        write_json_atomic(&fit_file, &summary)?;
        write_atomic(&weights_file, &weights::to_bytes(&model))?;
        Ok((
            summary.games,
            summary.positions,
            summary.validation_loss,
            false,
        ))
    }

    /// How the run makes the cut positions of the folder named `key`: the base search's
    /// playouts, cut where it cuts them (the candidate is the base with the model at that cut),
    /// seeded by the run's seed and `key` alone, so that every generation fits the same
    /// positions of a folder, their targets playouts or `judge`'s search; `None` when the run
    /// fits to outcomes.
    fn cut_options(&self, key: &str, judge: Option<&CutJudge>) -> Option<CutOptions> {
        let settings = self.config.cuts?;
        let BotConfig::Search { config, .. } = &self.base.config else {
            unreachable!("base_preset accepts searches only")
        };
        let target = match (judge, settings.search_iterations) {
            (Some(judge), Some(iterations)) => CutTarget::Search {
                config: judge.config.clone(),
                iterations,
            },
            _ => CutTarget::Playouts(settings.playouts),
        };
        Some(CutOptions {
            config: config.clone(),
            target,
            per_start: settings.per_start,
            seed: splitmix64(self.seed(0, 10) ^ fnv1a(key.as_bytes())),
        })
    }

    /// The judge of generation `g`'s search targets, when the run asks for them: the best
    /// search in `gen_dir/best.toml` (the base, or the last kept generation with its model),
    /// searching its whole budget, since a search stopped once decided gives a noisy value.
    fn cut_judge(&self, gen_dir: &Path) -> Result<Option<CutJudge>, TrainError> {
        if self.config.cuts.and_then(|c| c.search_iterations).is_none() {
            return Ok(None);
        }
        let spec = gen_dir.join("best.toml").display().to_string();
        let best = preset::resolve(&spec).map_err(|e| TrainError::Invalid(e.to_string()))?;
        let BotConfig::Search { config, .. } = &best.config else {
            unreachable!("the best is the base or a candidate made from it: a search")
        };
        Ok(Some(CutJudge {
            config: SearchConfig {
                stop_when_decided: false,
                ..config.clone()
            },
            version: best.version(),
        }))
    }

    /// The cut positions of the records under `dir` (the folder named `key`), made with
    /// `options` once and kept in `cuts/KEY.positions`: a folder's games stay in the window of
    /// several generations, and its cuts cost hundreds of playouts a position. A missing,
    /// unreadable or differently made file is made again.
    fn cached_cuts(
        &self,
        key: &str,
        dir: &Path,
        options: &CutOptions,
        judge: Option<&CutJudge>,
    ) -> Result<Dataset, TrainError> {
        let target = match (&options.target, judge) {
            (CutTarget::Search { iterations, .. }, Some(judge)) => format!(
                "judge {} searching {iterations} iterations a target",
                judge.version
            ),
            _ => format!(
                "{} playouts a target",
                self.config.cuts.map_or(0, |c| c.playouts)
            ),
        };
        let made = format!(
            "cut positions of {}: base {}, {target}, {} a turn start, seed {}",
            dir.display(),
            self.base.version(),
            options.per_start,
            options.seed
        );
        let folder = self.dir.join("cuts");
        let cache = folder.join(format!("{key}.positions"));
        match positions_file::load(&cache) {
            Ok((data, found)) if found == made => return Ok(data),
            Ok(_) => self.note(&format!(
                "{}: made otherwise; making it again",
                cache.display()
            )),
            Err(_) if !cache.exists() => {}
            Err(reason) => self.note(&format!("{reason}; making it again")),
        }
        self.note(&format!("cut positions of {}", dir.display()));
        let mut data = Dataset::new();
        data.add_cuts_under(dir, options)?;
        let io = |path: &Path, reason: String| TrainError::File {
            path: path.display().to_string(),
            reason,
        };
        std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e.to_string()))?;
        positions_file::save(&data, &made, &cache).map_err(|e| io(&cache, e))?;
        Ok(data)
    }

    /// Calls `add` with a name and the folder of every self-play run of generation `g`'s
    /// window, and of the start records while they are in it; returns the window's first
    /// generation.
    fn window_dirs(
        &self,
        g: u32,
        mut add: impl FnMut(&str, &Path) -> Result<(), TrainError>,
    ) -> Result<u32, TrainError> {
        let first = g.saturating_sub(self.config.window - 1).max(1);
        for k in first..=g {
            for &variant in &self.config.variants {
                let key = format!("gen-{k:03}-{}", variant_name(variant));
                add(&key, &self.selfplay_dir(k, variant))?;
            }
        }
        if g <= self.config.window {
            for (k, dir) in self.config.start_records.iter().enumerate() {
                add(&format!("start-{}", k + 1), dir)?;
            }
        }
        Ok(first)
    }

    /// [`Run::fit`] for the policy model: fitted to the root visits of the window's self-play
    /// (the decisions played in start records without root stats), ridge 1 as `train policy`;
    /// the held-out loss is the cross-entropy from those targets.
    fn fit_policy(
        &self,
        g: u32,
        gen_dir: &Path,
    ) -> Result<(u32, u64, Option<f64>, bool), TrainError> {
        let model_file = gen_dir.join(Learn::Policy.model_file());
        let fit_file = gen_dir.join("fit.json");
        let earlier: Option<FitSummary> = std::fs::read(&fit_file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        if let (Some(f), Ok(_)) = (&earlier, policy::load(&model_file)) {
            return Ok((f.games, f.positions, f.validation_loss, true));
        }
        let mut data = PolicyData::with_target(PolicyTarget::Visits);
        let first = self.window_dirs(g, |_, dir| {
            data.add_records_under(dir)?;
            Ok(())
        })?;
        if data.is_empty() {
            return Err(TrainError::Invalid(format!(
                "generation {g}: the self-play records hold no decision with a choice to learn from"
            )));
        }
        self.note(&format!(
            "generation {g}: fitting the policy to {} positions of {} games (generations {first} \
             to {g}), {} with root visits",
            data.len(),
            data.games(),
            data.from_visits()
        ));
        let every = self.config.validation_every;
        let model = fit_policy(&data, Split::Training { every }, POLICY_RIDGE);
        let held = score(&model, &data, Split::HeldOut { every });
        let summary = FitSummary {
            games: data.games(),
            positions: data.len() as u64,
            validation_loss: (held.positions > 0).then_some(held.loss),
            train_losses: vec![score(&model, &data, Split::Training { every }).loss],
        };
        write_json_atomic(&fit_file, &summary)?;
        write_atomic(&model_file, model.to_json().as_bytes())?;
        Ok((
            summary.games,
            summary.positions,
            summary.validation_loss,
            false,
        ))
    }
}

/// The ridge penalty of a generation's policy fit, `toybattle train policy`'s default.
const POLICY_RIDGE: f64 = 1.0;

/// What a fit was given and reached (`gen-NNN/fit.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct FitSummary {
    games: u32,
    positions: u64,
    validation_loss: Option<f64>,
    train_losses: Vec<f64>,
}

const RESULT_FILE: &str = "result.json";

/// A generation's processor-time ledger, in its folder.
const CPU_FILE: &str = "cpu.json";

/// How often a running generation saves its ledger.
const LEDGER_EVERY: Duration = Duration::from_secs(10);

/// The variant as written in folder names and settings.
fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::Normal => "normal",
        Variant::Beginner => "beginner",
    }
}

/// One line for people: the gate's verdict and the curve's point.
pub fn describe(r: &GenerationResult) -> String {
    let verdict = if r.kept { "kept" } else { "not kept" };
    let mut line = format!(
        "generation {}: {verdict}: gate {} games against generation {}, score {:.1}%, Elo {:+.0} [{:+.0}, {:+.0}], LLR {:.2} ({:?})",
        r.generation,
        r.gate.result.games,
        r.best_before,
        100.0 * r.gate.result.score,
        r.gate.result.elo,
        r.gate.result.elo_lo,
        r.gate.result.elo_hi,
        r.gate.llr,
        r.gate.decision
    );
    if let Some(m) = &r.reference {
        let _ = write!(
            line,
            "; against generation 0: {} games, Elo {:+.0} [{:+.0}, {:+.0}]",
            m.games, m.elo, m.elo_lo, m.elo_hi
        );
    }
    let _ = write!(line, "; {:.2} CPU-hours", r.cpu_seconds.total() / 3600.0);
    line
}

/// Writes `text` to `path` unless the file holds it already (a resumed run rewrites nothing).
fn write_if_changed(path: &Path, text: &str) -> Result<(), TrainError> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    Ok(write_atomic(path, text.as_bytes())?)
}

/// The result of a complete generation, `None` if it is not complete. A result file that does
/// not parse (it is written whole, so only a hand edit makes one) is refused.
fn read_result(gen_dir: &Path) -> Result<Option<GenerationResult>, TrainError> {
    let path = gen_dir.join(RESULT_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| TrainError::File {
                path: path.display().to_string(),
                reason: format!("not a generation's result: {e}"),
            }),
        Err(_) => Ok(None),
    }
}

/// The learning curve: `curve.csv` (every generation) and `curve.svg` (every generation's gate,
/// and each kept generation's Elo against generation 0; see `train::curve`).
fn write_curve(dir: &Path, results: &[GenerationResult]) -> Result<(), TrainError> {
    let mut hours = 0.0;
    let rows: Vec<CurveRow> = results
        .iter()
        .map(|r| {
            hours += r.cpu_seconds.total() / 3600.0;
            let g = &r.gate.result;
            CurveRow {
                generation: r.generation,
                kept: r.kept,
                best_before: r.best_before,
                gate_games: g.games,
                gate_elo: [g.elo, g.elo_lo, g.elo_hi],
                gate_llr: r.gate.llr,
                reference: r
                    .reference
                    .as_ref()
                    .map(|m| (m.games, [m.elo, m.elo_lo, m.elo_hi])),
                cpu_hours: hours,
            }
        })
        .collect();
    Ok(curve::write_files(dir, &rows)?)
}

/// Draws `DIR/curve.svg` again from `DIR/curve.csv` (e.g. after the plot changed); returns the
/// generations drawn.
pub fn redraw_curve(dir: &Path) -> Result<usize, TrainError> {
    let path = dir.join("curve.csv");
    let file = |reason: String| TrainError::File {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| file(e.to_string()))?;
    let rows = parse_curve_csv(&text).map_err(file)?;
    write_atomic(&dir.join("curve.svg"), curve_svg(&rows).as_bytes())?;
    Ok(rows.len())
}
