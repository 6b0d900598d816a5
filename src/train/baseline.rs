//! The combined evaluation (fitted linear evaluation plus the value model's correction) against
//! the fitted linear evaluation alone, on the same positions.
//!
//! The search scores a cut playout at the start of a turn, with the greedy evaluation's terms
//! weighed by [`FITTED_EVAL`](crate::bot::search::FITTED_EVAL) from the side of the player who has just moved. This module reads
//! both evaluations at exactly such positions (the first decision of every turn) of held-out
//! games and scores their win probabilities for the player to move against the outcome.

use super::positions::{fitted_offset, for_each_record, turn_starts};
use super::DatasetError;
use crate::info::Observation;
use crate::model::{encode, Input, ValueModel};
use std::path::Path;

/// Both evaluations' logistic loss and accuracy on the same turn-start positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Turn-start positions scored.
    pub positions: usize,
    /// Mean logistic loss of the combined evaluation (fitted plus the value model).
    pub value_loss: f64,
    /// Mean logistic loss of the fitted linear evaluation.
    pub fitted_loss: f64,
    /// Share of positions of decided games where the combined evaluation favours the winner.
    pub value_accuracy: f64,
    /// The same for the fitted linear evaluation.
    pub fitted_accuracy: f64,
}

/// Compares the fitted linear evaluation corrected by `model` with the fitted evaluation alone at the turn starts of the games under
/// `dirs` whose number (in [`Dataset`](super::Dataset) order over the same folders) is a
/// multiple of `every`: the games `fit` holds out with `validation_every = every`.
pub fn compare_with_fitted(
    dirs: &[&Path],
    model: &ValueModel,
    every: u32,
) -> Result<Comparison, DatasetError> {
    let mut sums = [0.0f64; 4];
    let (mut n, mut decided) = (0usize, 0usize);
    let mut index = 0u32;
    let mut input = Input::default();
    for dir in dirs {
        for_each_record(dir, |game, record, _| {
            let held_out = every > 0 && index.is_multiple_of(every);
            index += 1;
            if !held_out {
                return Ok(());
            }
            for s in turn_starts(game, record)? {
                let me = s.active();
                let fitted = fitted_offset(game, &s);
                encode(game, &Observation::new(&s, me), &mut input);
                let value = fitted + f64::from(model.logit(&input));
                let t = match record.result.winner {
                    Some(w) => f64::from(u8::from(w == me)),
                    None => 0.5,
                };
                sums[0] += loss(value, t);
                sums[1] += loss(fitted, t);
                if t != 0.5 {
                    decided += 1;
                    sums[2] += f64::from(u8::from((value > 0.0) == (t > 0.5)));
                    sums[3] += f64::from(u8::from((fitted > 0.0) == (t > 0.5)));
                }
                n += 1;
            }
            Ok(())
        })?;
    }
    let (n_f, d_f) = (n.max(1) as f64, decided.max(1) as f64);
    Ok(Comparison {
        positions: n,
        value_loss: sums[0] / n_f,
        fitted_loss: sums[1] / n_f,
        value_accuracy: sums[2] / d_f,
        fitted_accuracy: sums[3] / d_f,
    })
}

/// Logistic loss of log-odds `z` against target `t`.
fn loss(z: f64, t: f64) -> f64 {
    z.max(0.0) - t * z + (-z.abs()).exp().ln_1p()
}
