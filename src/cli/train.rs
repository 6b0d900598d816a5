//! `toybattle train`: fits the value model to recorded games and writes its weights file.

use super::{emit, CliResult};
use std::path::PathBuf;
use toybattle::model::weights;
use toybattle::train::{compare_with_fitted, fit, Dataset, FitOptions};

/// Fit the learned value model to recorded games.
///
/// Every decision of every record under the given folders becomes a position: the encoding of
/// the deciding player's observation, with the game's outcome for that player as the target.
/// One game in `--validation-every` is held out; each epoch prints the training loss and the
/// held-out loss and accuracy next to the loss of always answering the average outcome. The
/// weights file (format version, encoding fingerprint, hash) is written at the end; a search
/// with `value_model = true` plays with the shipped weights (`src/model/value.weights`).
#[derive(clap::Args)]
pub struct Args {
    /// Folders of game records: run folders of `tournament` or `balance` (their `records`
    /// folder is read), or any folder of record files (read recursively).
    #[arg(long, value_name = "DIR", num_args = 1.., required = true)]
    records: Vec<PathBuf>,
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
}

pub fn run(args: Args) -> CliResult {
    if args.epochs == 0 || args.batch == 0 {
        return Err("--epochs and --batch must be at least 1".into());
    }
    let mut data = Dataset::new();
    for dir in &args.records {
        let n = data.add_records_under(dir).map_err(|e| e.to_string())?;
        emit(&format!("{}: {n} records\n", dir.display()))?;
    }
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
    };
    let (model, _) = fit(&data, &options, |r| {
        println!(
            "epoch {:>3}: training loss {:.4}, held-out loss {:.4}, accuracy {:.3}",
            r.epoch, r.train_loss, r.validation_loss, r.validation_accuracy
        );
    })
    .map_err(|e| format!("training failed: {e}"))?;
    if args.validation_every > 0 {
        let dirs: Vec<&std::path::Path> = args.records.iter().map(PathBuf::as_path).collect();
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
