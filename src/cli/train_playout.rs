//! `toybattle train playout`: fitting the greedy playouts' term weights to the decisions the
//! search chose in recorded games.

use super::{emit, CliResult};
use std::path::PathBuf;
use toybattle::bot::greedy::TERMS;
use toybattle::train::playout::{
    as_playout_weights, fit_playout, score, PlayoutData, PlayoutScore,
};
use toybattle::train::Split;

/// Fit the weights greedy playouts pick their decisions by to recorded games.
///
/// A greedy playout picks, for either player, the decision whose position scores best under
/// the `greedy` bot's evaluation, the plain sum of its seven terms. At every recorded decision
/// where those rules compare candidates, each legal decision is played as a greedy-effects
/// playout plays it, and the terms of the position it reaches are kept with the decision the
/// search played. The weights of greatest likelihood of the played decisions (a conditional
/// logit, ridge-penalised) make the playout imitate the search (expert iteration). One game
/// in `--validation-every` is held out: the command prints how often the hand-set sum and the
/// fitted weights pick what the search played there, and the `playout_weights` line to put in
/// a preset's `[search]` section.
#[derive(clap::Args)]
pub struct PlayoutArgs {
    /// Folders of game records: run folders of `tournament` or `balance` (their `records`
    /// folder is read), or any folder of record files (read recursively).
    #[arg(long, value_name = "DIR", num_args = 1.., required = true)]
    records: Vec<PathBuf>,
    /// Hold out one game in this many for validation (0 = none); the weights are fitted to
    /// the other games.
    #[arg(long, default_value_t = 10)]
    validation_every: u32,
    /// Ridge penalty on the squared weights (per medal's worth of each term).
    #[arg(long, default_value_t = 0.01)]
    ridge: f64,
}

/// Runs `toybattle train playout`.
pub fn run(args: PlayoutArgs) -> CliResult {
    if !(args.ridge.is_finite() && args.ridge > 0.0) {
        return Err(format!(
            "--ridge must be a positive number, not {}",
            args.ridge
        ));
    }
    let mut data = PlayoutData::new();
    super::train::add_records(&args.records, |dir| data.add_records_under(dir))?;
    if data.is_empty() {
        return Err("the records hold no decision where greedy playouts compare candidates".into());
    }
    emit(&format!(
        "{} positions from {} games\n",
        data.len(),
        data.games()
    ))?;
    let every = args.validation_every;
    let theta = fit_playout(&data, Split::Training { every }, args.ridge);
    if every > 0 {
        let held = Split::HeldOut { every };
        let line = |name: &str, s: PlayoutScore| {
            let loss = s
                .loss
                .map_or(String::new(), |l| format!(", loss {l:.4} nats"));
            format!(
                "  {name:<22} plays the search's decision {:.1}%{loss}\n",
                100.0 * s.top1
            )
        };
        let hand = score(&data, held, &[1.0; TERMS.len()], false);
        emit(&format!("held-out decisions ({}):\n", hand.positions))?;
        emit(&line("hand-set sum", hand))?;
        emit(&line("fitted weights", score(&data, held, &theta, true)))?;
    }
    emit("fitted weights (log-odds per medal's worth of each term):\n")?;
    for (name, w) in TERMS.iter().zip(theta) {
        emit(&format!("  {name:<10} {w:+.4}\n"))?;
    }
    let weights = as_playout_weights(&theta)
        .map(|w| format!("{w}"))
        .join(", ");
    emit(&format!(
        "for a preset's [search] section:\nplayout_weights = [{weights}]\n"
    ))
}
