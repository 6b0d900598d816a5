//! `toybattle train greedy`: tuning the greedy rules' term weights by self-play (SPSA).

use super::{emit, CliResult};
use std::path::{Path, PathBuf};
use toybattle::bot::greedy::TERMS;
use toybattle::rules::Variant;
use toybattle::tournament::stats::{elo_from_score, elo_text, SprtParams};
use toybattle::train::greedy_run::{
    best_of, run_greedy_generations, GreedyRunConfig, TunedGeneration,
};
use toybattle::train::tune::{greedy_match, tune_greedy, TuneConfig};

/// Tune the weights of the greedy rules' evaluation terms by self-play.
///
/// The `greedy` bot (and the search's greedy playouts) picks the decision whose position
/// scores best under seven terms (medals, rack, presence, regions, race, threats, exposure),
/// summed with hand-set weights. Each step of SPSA moves every log-weight up or down by a small
/// amount at random, plays greedy with the weights moved one way against greedy with them
/// moved the other way (`--deals` deals of every terrain, each twice with the seats swapped),
/// and steps toward the side that scored more. At the end the tuned weights play the hand-set
/// ones on `--check-deals` other deals of every terrain, and the command prints the
/// `playout_weights` line for a search preset's `[search]` section. Seeded: the same
/// arguments give the same weights.
#[derive(clap::Args)]
pub struct GreedyArgs {
    /// Steps of SPSA.
    #[arg(long, default_value_t = 300)]
    steps: u32,
    /// Deals per terrain and step, each played twice.
    #[arg(long, default_value_t = 8)]
    deals: u32,
    /// Perturbation of each log-weight at the first step.
    #[arg(long, default_value_t = 0.2)]
    perturbation: f64,
    /// Step size at the first step.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Deals per terrain of the final check against the hand-set weights (0 = none).
    #[arg(long, default_value_t = 250)]
    check_deals: u32,
    /// Seed of the perturbations and the deals.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run folder of a run in gated generations (see above); without it, one run of --steps.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// With --out: generations to have in the folder, each of --steps steps.
    #[arg(long, default_value_t = 10, requires = "out")]
    generations: u32,
    /// With --out: the gate's sequential test, elo0,elo1[,alpha,beta].
    #[arg(
        long,
        value_name = "ELO0,ELO1[,ALPHA,BETA]",
        default_value = "0,10",
        requires = "out"
    )]
    sprt: SprtParams,
    /// With --out: deals per terrain of one batch of a gate (each played twice).
    #[arg(long, default_value_t = 250, requires = "out")]
    gate_deals: u32,
    /// With --out: batches of a gate at most; no decision by then keeps the best.
    #[arg(long, default_value_t = 20, requires = "out")]
    gate_batches: u32,
    /// With --out: deals per terrain of a kept generation's match against the hand-set weights.
    #[arg(long, default_value_t = 500, requires = "out")]
    reference_deals: u32,
}

/// Runs `toybattle train greedy`.
pub fn run(args: GreedyArgs) -> CliResult {
    for (name, v) in [("--perturbation", args.perturbation), ("--rate", args.rate)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("{name} must be a positive number, not {v}"));
        }
    }
    if args.deals == 0 {
        return Err("--deals must be at least 1".into());
    }
    if let Some(dir) = &args.out {
        return run_generations(dir, &args);
    }
    let config = TuneConfig {
        steps: args.steps,
        deals: args.deals,
        perturbation: args.perturbation,
        rate: args.rate,
        seed: args.seed,
        variant: Variant::Normal,
    };
    let every = (args.steps / 20).max(1);
    let weights = tune_greedy(&config, |step| {
        if step.step % every == 0 || step.step == args.steps {
            let _ = emit(&format!(
                "step {:>4}: score {:.3}, weights {}\n",
                step.step,
                step.score,
                listed(&step.weights)
            ));
        }
    });
    emit("tuned weights (multiples of the hand-set terms):\n")?;
    for (name, w) in TERMS.iter().zip(weights) {
        emit(&format!("  {name:<10} {w:.4}\n"))?;
    }
    if args.check_deals > 0 {
        let games = 2 * args.check_deals * 8;
        let score = greedy_match(
            weights,
            [1.0; 7],
            args.check_deals,
            !args.seed,
            Variant::Normal,
        );
        emit(&format!(
            "against the hand-set weights, {games} games on other deals: score {:.1}%, Elo {:+.0}\n",
            100.0 * score,
            elo_from_score(score)
        ))?;
    }
    emit(&format!(
        "for a preset's [search] section:\nplayout_weights = [{}]\n",
        listed(&weights)
    ))
}

fn listed(weights: &[f64; 7]) -> String {
    weights.map(|w| format!("{w}")).join(", ")
}

/// `train greedy --out DIR`: the run in gated generations, a line per generation, then the
/// best weights.
fn run_generations(dir: &Path, args: &GreedyArgs) -> CliResult {
    let config = GreedyRunConfig {
        generations: args.generations,
        steps: args.steps,
        deals: args.deals,
        perturbation: args.perturbation,
        rate: args.rate,
        seed: args.seed,
        sprt: args.sprt,
        gate_deals: args.gate_deals,
        gate_batches: args.gate_batches,
        reference_deals: args.reference_deals,
    };
    let done = run_greedy_generations(
        dir,
        &config,
        |_| (),
        |g| {
            let _ = emit(&generation_line(g));
        },
    )
    .map_err(|e| e.to_string())?;
    let (weights, generation) = best_of(&done);
    emit(&format!(
        "{} generations in {}; the best is generation {generation} (0 = the hand-set weights); \
         learning curve: {}\nfor a preset's [search] section:\nplayout_weights = [{}]\n",
        done.len(),
        dir.display(),
        dir.join("curve.svg").display(),
        listed(&weights)
    ))
}

/// A generation in one line: its gate, and for a kept one its Elo against the hand-set weights.
fn generation_line(g: &TunedGeneration) -> String {
    let games = 2 * g.gate.pairs();
    let verdict = if g.kept { "kept" } else { "not kept" };
    let mut line = format!(
        "generation {}: {verdict}; against generation {}: {} over {games} games (LLR {:.2})",
        g.generation,
        g.best_before,
        elo_text(&g.gate.elo_estimate(), games),
        g.llr
    );
    if let Some(r) = g.reference {
        let games = 2 * r.pairs();
        line += &format!(
            "; against the hand-set weights: {} over {games} games",
            elo_text(&r.elo_estimate(), games)
        );
    }
    line + &format!(" ({:.1} CPU-s)\n", g.cpu_seconds)
}
