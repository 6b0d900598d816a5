//! The greedy rules' term weights tuned in gated generations (`toybattle train greedy --out
//! DIR`): each generation takes SPSA's next steps (`train::tune`), and its weights are kept
//! only if they beat the best weights before them in a sequential test over paired greedy
//! games; each kept generation then plays the hand-set weights (generation 0) on the same
//! deals every time, which draws the learning curve (`curve.csv`, `curve.svg`).
//!
//! The folder is resumable: `generations.json` is rewritten whole after each generation, and a
//! step of SPSA depends only on the settings, its number and the log-weights before it, so a
//! run taken up again after a stop or kill -9 ends with the same weights as one that never
//! stopped. A second process on the folder is refused (`run.lock`).

use super::curve::{self, CurveRow};
use super::settings::open_settings;
use super::tune::{greedy_pairs, tune_steps, TuneConfig, TuneStep};
use super::{cpu_seconds, TrainError};
use crate::bot::greedy::TERMS;
use crate::rules::Variant;
use crate::tournament::lock::RunLock;
use crate::tournament::stats::{sprt_decide, Pentanomial, SprtDecision, SprtParams};
use crate::tournament::store::write_atomic;
use crate::tournament::StoreError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Terms of the evaluation.
const K: usize = TERMS.len();
/// The generations of a run folder, rewritten whole after each.
const GENERATIONS_FILE: &str = "generations.json";
/// Salts of the seeds of the gates' and the reference matches' deals, apart from SPSA's.
const GATE_SALT: u64 = 0x6A7E_0000_0000_0000;
const REFERENCE_SALT: u64 = 0x5EF0_0000_0000_0000;

/// The settings of a run in generations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GreedyRunConfig {
    /// Generations to have in the folder (a rerun with more goes on from the last).
    pub generations: u32,
    /// SPSA steps of one generation.
    pub steps: u32,
    /// Deals per terrain and SPSA step, each played twice with the seats swapped.
    pub deals: u32,
    /// Perturbation of each log-weight at the first step.
    pub perturbation: f64,
    /// Step size at the first step.
    pub rate: f64,
    /// The run's seed: SPSA's steps and every match's deals derive from it.
    pub seed: u64,
    /// The gate's sequential test.
    pub sprt: SprtParams,
    /// Deals per terrain of one batch of a gate; the test is checked after each batch.
    pub gate_deals: u32,
    /// Batches of a gate at most: no decision by then keeps the best.
    pub gate_batches: u32,
    /// Deals per terrain of a kept generation's match against the hand-set weights (the
    /// same deals for every generation).
    pub reference_deals: u32,
}

/// One generation of a run, as `generations.json` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedGeneration {
    /// The generation, from 1.
    pub generation: u32,
    /// SPSA's log-weights after the generation's steps: where the next generation goes on.
    pub theta: [f64; K],
    /// The generation's weights (multipliers of the hand-set terms).
    pub weights: [f64; K],
    /// The generation it met in its gate (0 = the hand-set weights).
    pub best_before: u32,
    /// The gate's pairs, from this generation's side.
    pub gate: Pentanomial,
    /// The gate's log-likelihood ratio when it stopped.
    pub llr: f64,
    /// Whether the gate's test accepted that this generation is stronger.
    pub kept: bool,
    /// A kept generation against the hand-set weights: its pairs.
    pub reference: Option<Pentanomial>,
    /// Processor seconds the generation took (every thread).
    pub cpu_seconds: f64,
}

impl GreedyRunConfig {
    /// Checks the settings that make no run; the message names the setting.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |m: &str| Err(TrainError::Invalid(m.to_string()));
        if self.steps == 0 || self.deals == 0 {
            return bad("--steps and --deals must be at least 1");
        }
        if self.gate_deals == 0 || self.gate_batches == 0 {
            return bad("--gate-deals and --gate-batches must be at least 1");
        }
        if self.gate_deals >= 1 << 20 {
            return bad(
                "--gate-deals must be below 1048576 (a batch's deals are numbered in 20 bits)",
            );
        }
        for (name, v) in [("--perturbation", self.perturbation), ("--rate", self.rate)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(TrainError::Invalid(format!(
                    "{name} must be a positive number, not {v}"
                )));
            }
        }
        self.sprt
            .validate()
            .map_err(|e| TrainError::Invalid(format!("--sprt: {e}")))
    }

    fn tune(&self) -> TuneConfig {
        TuneConfig {
            steps: self.steps,
            deals: self.deals,
            perturbation: self.perturbation,
            rate: self.rate,
            seed: self.seed,
            variant: Variant::Normal,
        }
    }
}

/// Runs the generations of `config` in `dir` that it does not hold yet, reporting each SPSA
/// step and each generation, and returns every generation of the folder.
pub fn run_greedy_generations(
    dir: &Path,
    config: &GreedyRunConfig,
    mut step: impl FnMut(&TuneStep),
    mut generation: impl FnMut(&TunedGeneration),
) -> Result<Vec<TunedGeneration>, TrainError> {
    config.validate()?;
    std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    let _lock = RunLock::acquire(dir)?;
    open_settings(dir, config, &["generations"], "a greedy tuning run")?;
    let mut done = read_generations(dir)?;
    write_curve(dir, &done)?;
    while (done.len() as u32) < config.generations {
        let started = cpu_seconds();
        let mut next = tune_generation(config, &done, &mut step);
        next.cpu_seconds = cpu_seconds() - started;
        done.push(next);
        let json = serde_json::to_vec_pretty(&done).expect("generations serialize");
        write_atomic(&dir.join(GENERATIONS_FILE), &json)?;
        write_curve(dir, &done)?;
        generation(done.last().expect("just pushed"));
    }
    Ok(done)
}

/// The weights of the last kept generation of `done`, and its number; the hand-set weights
/// (generation 0) when none was kept.
pub fn best_of(done: &[TunedGeneration]) -> ([f64; K], u32) {
    done.iter()
        .rev()
        .find(|g| g.kept)
        .map_or(([1.0; K], 0), |g| (g.weights, g.generation))
}

/// The generation after `done`: SPSA's next steps, the gate against the best before, and for
/// a kept generation the match against the hand-set weights.
fn tune_generation(
    config: &GreedyRunConfig,
    done: &[TunedGeneration],
    step: &mut impl FnMut(&TuneStep),
) -> TunedGeneration {
    let number = done.len() as u32 + 1;
    let mut theta = done.last().map_or([0.0; K], |g| g.theta);
    let first = (number - 1) * config.steps;
    tune_steps(
        &config.tune(),
        &mut theta,
        first..first + config.steps,
        step,
    );
    let weights = super::tune::theta_weights(&theta);
    let (best, best_before) = best_of(done);
    let (gate, llr, decision) = greedy_gate(config, number, weights, best);
    let kept = decision == SprtDecision::H1;
    let reference = kept.then(|| {
        let seed = config.seed ^ REFERENCE_SALT;
        greedy_pairs(
            weights,
            [1.0; K],
            config.reference_deals,
            seed,
            Variant::Normal,
        )
    });
    TunedGeneration {
        generation: number,
        theta,
        weights,
        best_before,
        gate,
        llr,
        kept,
        reference,
        cpu_seconds: 0.0,
    }
}

/// The gate of generation `generation`: batches of paired games of `weights` against `best`
/// until the test decides or the batches run out; the pairs, the log-likelihood ratio and the
/// decision (the weights are kept only on H1).
pub fn greedy_gate(
    config: &GreedyRunConfig,
    generation: u32,
    weights: [f64; K],
    best: [f64; K],
) -> (Pentanomial, f64, SprtDecision) {
    let mut pairs = Pentanomial::default();
    let mut verdict = (0.0, SprtDecision::Continue);
    for batch in 0..config.gate_batches {
        // Apart from the deal numbers of the low bits and the terrains of bits 40 to 42.
        let seed = config.seed ^ GATE_SALT ^ u64::from(generation) << 48 ^ u64::from(batch) << 20;
        pairs.merge(&greedy_pairs(
            weights,
            best,
            config.gate_deals,
            seed,
            Variant::Normal,
        ));
        verdict = sprt_decide(&pairs, &config.sprt);
        if verdict.1 != SprtDecision::Continue {
            break;
        }
    }
    (pairs, verdict.0, verdict.1)
}

/// The generations a folder holds (none in a new folder). The file is written whole, so a
/// file that does not parse was edited by hand: it is refused rather than played over.
fn read_generations(dir: &Path) -> Result<Vec<TunedGeneration>, TrainError> {
    let path = dir.join(GENERATIONS_FILE);
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(Vec::new());
    };
    let done: Vec<TunedGeneration> =
        serde_json::from_slice(&bytes).map_err(|e| TrainError::File {
            path: path.display().to_string(),
            reason: format!("not a tuning run's generations: {e}"),
        })?;
    let numbered = done
        .iter()
        .enumerate()
        .all(|(i, g)| g.generation == i as u32 + 1);
    if !numbered {
        return Err(TrainError::File {
            path: path.display().to_string(),
            reason: "the generations are not numbered 1, 2, 3, … in order".into(),
        });
    }
    Ok(done)
}

/// `curve.csv` and `curve.svg` of the generations `done` (see `train::curve`).
fn write_curve(dir: &Path, done: &[TunedGeneration]) -> Result<(), TrainError> {
    let mut hours = 0.0;
    let rows: Vec<CurveRow> = done
        .iter()
        .map(|g| {
            hours += g.cpu_seconds / 3600.0;
            let e = g.gate.elo_estimate();
            CurveRow {
                generation: g.generation,
                kept: g.kept,
                best_before: g.best_before,
                gate_games: 2 * g.gate.pairs(),
                gate_elo: [e.elo, e.lo, e.hi],
                gate_llr: g.llr,
                reference: g.reference.map(|r| {
                    let e = r.elo_estimate();
                    (2 * r.pairs(), [e.elo, e.lo, e.hi])
                }),
                cpu_hours: hours,
            }
        })
        .collect();
    Ok(curve::write_files(dir, &rows)?)
}
