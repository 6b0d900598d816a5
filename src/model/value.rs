//! The value model: a small multilayer perceptron that reads an encoded observation
//! ([`Input`]) and gives a correction, in log-odds, to the fitted linear evaluation of the
//! observer's chance to win. The search adds it to that evaluation (`bot::search`, the
//! `value_model` option) and training fits it to the residual (`train`): the combined
//! evaluation keeps the linear one's reading of threats and races and learns what it misses.
//!
//! Two hidden layers of [`HIDDEN1`] and [`HIDDEN2`] rectified units, then one logistic output.
//! The forward pass is written by hand for the search: the first layer adds only the weight rows
//! of the input's non-zero entries (an encoded observation is mostly zeros), and every
//! intermediate lives in fixed arrays on the stack, so an evaluation touches no heap.
//!
//! Weights are kept as one flat list of parameters in [`ValueModel::params`] order, which is
//! also the order of a weights file (`weights.rs`).

use super::encoding::{Input, INPUTS};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::OnceLock;

/// Units of the first hidden layer.
pub const HIDDEN1: usize = 64;
/// Units of the second hidden layer.
pub const HIDDEN2: usize = 32;
/// Parameters of the model: both hidden layers' and the output's weights and biases.
pub const PARAMS: usize = INPUTS * HIDDEN1 + HIDDEN1 + HIDDEN1 * HIDDEN2 + HIDDEN2 + HIDDEN2 + 1;

/// A parameter list of the wrong length for [`ValueModel::from_params`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a value model has {PARAMS} parameters, not {found}")]
pub struct ParamCountError {
    /// The number of parameters given.
    pub found: usize,
}

/// The value model's weights (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueModel {
    /// First layer, input-major: the weights from input `i` are `w1[i * HIDDEN1..][..HIDDEN1]`.
    w1: Vec<f32>,
    b1: [f32; HIDDEN1],
    /// Second layer, input-major: from first-layer unit `j`, `w2[j * HIDDEN2..][..HIDDEN2]`.
    w2: Vec<f32>,
    b2: [f32; HIDDEN2],
    w3: [f32; HIDDEN2],
    b3: f32,
}

impl ValueModel {
    /// A model with small random weights drawn from `seed` (uniform, scaled by each layer's
    /// fan-in), biases zero: the start of a training run.
    pub fn initial(seed: u64) -> ValueModel {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut layer = |n: usize, fan_in: usize| -> Vec<f32> {
            let bound = (6.0 / fan_in as f32).sqrt();
            (0..n).map(|_| rng.random_range(-bound..bound)).collect()
        };
        // An observation sets few of its entries (one-hot sections): scale the first layer
        // to a tenth of them rather than to all.
        let w1 = layer(INPUTS * HIDDEN1, INPUTS / 10);
        let w2 = layer(HIDDEN1 * HIDDEN2, HIDDEN1);
        let w3 = layer(HIDDEN2, HIDDEN2);
        ValueModel {
            w1,
            b1: [0.0; HIDDEN1],
            w2,
            b2: [0.0; HIDDEN2],
            w3: w3.try_into().expect("HIDDEN2 weights"),
            b3: 0.0,
        }
    }

    /// [`ValueModel::initial`] with the output layer zero: a model that adds nothing to the
    /// fitted evaluation, where training starts.
    pub fn untrained(seed: u64) -> ValueModel {
        ValueModel {
            w3: [0.0; HIDDEN2],
            b3: 0.0,
            ..ValueModel::initial(seed)
        }
    }

    /// The model of a flat parameter list in [`ValueModel::params`] order.
    pub fn from_params(params: &[f32]) -> Result<ValueModel, ParamCountError> {
        if params.len() != PARAMS {
            return Err(ParamCountError {
                found: params.len(),
            });
        }
        let (w1, rest) = params.split_at(INPUTS * HIDDEN1);
        let (b1, rest) = rest.split_at(HIDDEN1);
        let (w2, rest) = rest.split_at(HIDDEN1 * HIDDEN2);
        let (b2, rest) = rest.split_at(HIDDEN2);
        let (w3, b3) = rest.split_at(HIDDEN2);
        Ok(ValueModel {
            w1: w1.to_vec(),
            b1: b1.try_into().expect("split to size"),
            w2: w2.to_vec(),
            b2: b2.try_into().expect("split to size"),
            w3: w3.try_into().expect("split to size"),
            b3: b3[0],
        })
    }

    /// Every parameter, flat: first-layer weights (input-major), biases, second-layer weights
    /// (input-major), biases, output weights, output bias.
    pub fn params(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(PARAMS);
        out.extend_from_slice(&self.w1);
        out.extend_from_slice(&self.b1);
        out.extend_from_slice(&self.w2);
        out.extend_from_slice(&self.b2);
        out.extend_from_slice(&self.w3);
        out.push(self.b3);
        out
    }

    /// The model shipped in the binary (`src/model/value.weights`, trained as
    /// `results/learning.md` tells), read once.
    pub fn shipped() -> &'static ValueModel {
        static SHIPPED: OnceLock<ValueModel> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            super::weights::from_bytes(include_bytes!("value.weights"))
                .expect("the shipped weights fit this encoding (tested)")
        })
    }

    /// The model's correction to the log-odds that the observer of `input` wins (what it adds
    /// to the fitted evaluation's log-odds).
    pub fn logit(&self, input: &Input) -> f32 {
        let mut h1 = self.b1;
        for (i, x) in input.nonzero() {
            let row = &self.w1[i * HIDDEN1..][..HIDDEN1];
            for (h, w) in h1.iter_mut().zip(row) {
                *h += x * w;
            }
        }
        let mut h2 = self.b2;
        for (j, &a) in h1.iter().enumerate() {
            if a > 0.0 {
                let row = &self.w2[j * HIDDEN2..][..HIDDEN2];
                for (h, w) in h2.iter_mut().zip(row) {
                    *h += a * w;
                }
            }
        }
        let mut out = self.b3;
        for (&a, w) in h2.iter().zip(&self.w3) {
            out += a.max(0.0) * w;
        }
        out
    }
}
