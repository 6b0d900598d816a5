//! `toybattle train policy`: fitting the policy model (the search's prior) to the decisions
//! the search chose in recorded games.

use super::{emit, CliResult};
use std::path::PathBuf;
use toybattle::model::PolicyModel;
use toybattle::train::policy::{score, score_with, PolicyScore};
use toybattle::train::{fit_policy, PolicyData, PolicyTarget, Split};

/// Fit the policy model, the prior of the search's tree, to recorded games.
///
/// Every decision of a player who had a choice and no decision winning at once becomes a
/// position: what each legal decision does on the board (take a region, cover an enemy tile,
/// defend an HQ, …) and the troop it places, and which one was played. The model's sixteen
/// log-weights (one per tactic, one per troop) are fitted to the played decisions by maximum
/// likelihood or, with `--target visits`, to the share of the search's root visits each
/// decision got, where the run kept root stats (`tournament --root-stats`, `train run`). One
/// game in `--validation-every` is held out, and the command prints how well a uniform prior,
/// the hand-set tactical weights, the shipped policy model and the fitted model predict its
/// targets.
/// A search plays with the shipped model (`src/model/policy.weights`) with `policy_prior =
/// true`.
#[derive(clap::Args)]
pub struct PolicyArgs {
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
    /// Ridge penalty on the squared log-weights.
    #[arg(long, default_value_t = 1.0)]
    ridge: f64,
    /// What the model learns to predict: the decision played, or the share of the root's
    /// visits of each decision (where the run kept root stats; the played decision elsewhere).
    #[arg(long, default_value = "played", value_parser = ["played", "visits"])]
    target: String,
}

/// Runs `toybattle train policy`.
pub fn run(args: PolicyArgs) -> CliResult {
    if !(args.ridge.is_finite() && args.ridge > 0.0) {
        return Err(format!(
            "--ridge must be a positive number, not {}",
            args.ridge
        ));
    }
    let target = match args.target.as_str() {
        "visits" => PolicyTarget::Visits,
        _ => PolicyTarget::Played,
    };
    let mut data = PolicyData::with_target(target);
    super::train::add_records(&args.records, |dir| data.add_records_under(dir))?;
    if data.is_empty() {
        return Err("the records hold no decision with a choice to learn from".into());
    }
    emit(&format!(
        "{} positions from {} games, {} with root visits as their target\n",
        data.len(),
        data.games(),
        data.from_visits()
    ))?;
    if target == PolicyTarget::Visits && data.from_visits() == 0 {
        return Err(
            "--target visits: none of these runs kept root stats (roots/); \
             play them with `tournament --root-stats`"
                .into(),
        );
    }
    let every = args.validation_every;
    let model = fit_policy(&data, Split::Training { every }, args.ridge);
    if every > 0 {
        let held = Split::HeldOut { every };
        let hand = PolicyModel::hand_set();
        let line = |name: &str, s: PolicyScore| {
            format!(
                "  {name:<26} loss {:.4} nats, played decision ranked first {:.1}%\n",
                s.loss,
                100.0 * s.top1
            )
        };
        let uniform = score_with(&data, held, |_, _| 1.0);
        emit(&format!("held-out decisions ({}):\n", uniform.positions))?;
        emit(&line("uniform", uniform))?;
        emit(&line(
            "hand-set tactical weights",
            score(&hand, &data, held),
        ))?;
        emit(&line(
            "shipped policy model",
            score(PolicyModel::shipped(), &data, held),
        ))?;
        emit(&line("fitted policy model", score(&model, &data, held)))?;
    }
    emit(&weights_table(&model))?;
    let tmp = args.out.with_extension("tmp");
    std::fs::write(&tmp, model.to_json())
        .and_then(|()| std::fs::rename(&tmp, &args.out))
        .map_err(|e| format!("{}: {e}", args.out.display()))?;
    emit(&format!("weights written to {}\n", args.out.display()))
}

/// The fitted log-weights, as a short table.
fn weights_table(model: &PolicyModel) -> String {
    use toybattle::model::Tactic;
    use toybattle::vocabulary::Troop;
    let mut text = String::from("log-weights:\n");
    for (t, w) in Tactic::ALL.iter().zip(model.tactics()) {
        text.push_str(&format!("  {:<12} {w:+.3}\n", t.name()));
    }
    for (t, w) in Troop::ALL.iter().zip(model.troops()) {
        text.push_str(&format!("  {:<12} {w:+.3}\n", t.name()));
    }
    text
}
