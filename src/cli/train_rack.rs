//! `toybattle train rack`: fitting the rack model (the odds, per troop, that an unseen tile of
//! the opponent is on their rack) to the true racks of recorded games.

use super::{emit, CliResult};
use std::path::PathBuf;
use toybattle::bot::search::KEPT_TROOPS;
use toybattle::model::RackModel;
use toybattle::train::rack::{score, RackScore};
use toybattle::train::{fit_rack, ChoiceData, PassedData, RackData, RackFit, Split};
use toybattle::vocabulary::Troop;

/// Fit the rack model, the odds the search deals the opponent's hidden rack with, to recorded
/// games.
///
/// At every decision the deciding player knows how many of the opponent's rack tiles are
/// hidden and which of the opponent's tiles are unseen; the record knows which troops the
/// hidden tiles really were. The model gives log-odds per troop from the observation's
/// game-wide facts (terrain, turn, medals, rack and reserve sizes, discards, unseen tiles) and
/// is fitted by the probability of the true rack under those odds. One game in
/// `--validation-every` is held out, and the command prints how well uniform odds, the
/// search's fixed odds (`rack_belief`) and the fitted model predict its racks, in nats per
/// position. A search plays with the shipped model (`src/model/rack.weights`) with
/// `rack_model = true`.
///
/// It also fits the odds of passed troops (`info::RackEvidence::passed`): when a turn could
/// have taken a region and took none, how likely the tiles held through it are of the troops
/// that would have taken it, relative to the fixed odds (1 = the evidence says nothing about
/// these players' racks); and it prints how much better those odds predict the held-out
/// games' held tiles than odds of 1. And it fits how far the choice of action says what was
/// kept (`train::choice`): the exponent on the policy model's odds that the tiles held through
/// a turn are of a troop whose placements the player passed over (0 = nothing).
#[derive(clap::Args)]
pub struct RackArgs {
    /// Folders of game records: run folders of `tournament` or `balance` (their `records`
    /// folder is read), or any folder of record files (read recursively).
    #[arg(long, value_name = "DIR", num_args = 1.., required = true)]
    records: Vec<PathBuf>,
    /// Where to write the weights (JSON).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Hold out one game in this many for validation (0 = none); the weights written are fitted
    /// to the other games.
    #[arg(long, default_value_t = 10)]
    validation_every: u32,
    /// Ridge penalty on the squared weights (not the per-troop biases).
    #[arg(long, default_value_t = 1e-3)]
    ridge: f64,
    /// Full passes of the optimizer over the training positions.
    #[arg(long, default_value_t = 300)]
    epochs: u32,
}

/// Runs `toybattle train rack`.
pub fn run(args: RackArgs) -> CliResult {
    if !(args.ridge.is_finite() && args.ridge >= 0.0) {
        return Err(format!("--ridge must be a number ≥ 0, not {}", args.ridge));
    }
    if args.epochs == 0 {
        return Err("--epochs must be at least 1".into());
    }
    let mut data = RackData::new();
    let mut passed = PassedData::new();
    let mut choice = ChoiceData::new();
    super::train::add_records(&args.records, |dir| {
        passed.add_records_under(dir)?;
        choice.add_records_under(dir)?;
        data.add_records_under(dir)
    })?;
    if data.is_empty() {
        return Err("the records hold no decision with a hidden opponent's rack tile".into());
    }
    emit(&format!(
        "{} positions from {} games\n",
        data.len(),
        data.games()
    ))?;
    let every = args.validation_every;
    let fit = RackFit {
        ridge: args.ridge,
        epochs: args.epochs,
        ..RackFit::default()
    };
    let model = fit_rack(&data, Split::Training { every }, fit);
    if every > 0 {
        let held = Split::HeldOut { every };
        let line = |name: &str, s: RackScore| format!("  {name:<26} {:.4} nats\n", s.loss);
        let uniform = score(&RackModel::fixed([0.0; 8]), &data, held);
        emit(&format!(
            "held-out positions ({}), mean −log P(true hidden rack):\n",
            uniform.positions
        ))?;
        emit(&line("uniform odds", uniform))?;
        let kept = RackModel::fixed(KEPT_TROOPS.map(|k| f64::from(k).ln()));
        emit(&line("fixed odds (rack_belief)", score(&kept, &data, held)))?;
        emit(&line(
            "shipped rack model",
            score(RackModel::shipped(), &data, held),
        ))?;
        emit(&line("fitted rack model", score(&model, &data, held)))?;
    }
    let fit = passed.fit(every);
    emit(&format!(
        "odds of passed troops: {:.2}, fitted on the training games ({} positions in all); on {} {} \
         positions they gain {:+.4} nats a position over odds of 1\n",
        fit.odds,
        passed.len(),
        fit.positions,
        if every > 0 { "held-out" } else { "training" },
        fit.gain
    ))?;
    let fit = choice.fit(every);
    emit(&format!(
        "policy exponent of the choice: {:.2}, fitted on the training games ({} positions in \
         all); on {} {} positions it gains {:+.4} nats a position over 0\n",
        fit.beta,
        choice.len(),
        fit.positions,
        if every > 0 { "held-out" } else { "training" },
        fit.gain
    ))?;
    let mut text = String::from("bias (log-odds at all-zero inputs):\n");
    for (t, b) in Troop::ALL.iter().zip(model.bias()) {
        text.push_str(&format!("  {:<8} {b:+.3}\n", t.name()));
    }
    emit(&text)?;
    let tmp = args.out.with_extension("tmp");
    std::fs::write(&tmp, model.to_json())
        .and_then(|()| std::fs::rename(&tmp, &args.out))
        .map_err(|e| format!("{}: {e}", args.out.display()))?;
    emit(&format!("weights written to {}\n", args.out.display()))
}
