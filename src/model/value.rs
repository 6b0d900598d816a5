//! The value model: a small multilayer perceptron that reads an encoded observation
//! ([`Input`]) and gives a correction, in log-odds, to the fitted linear evaluation of the
//! observer's chance to win. The search adds it to that evaluation (`bot::search`, the
//! `value_model` option) and training fits it to the residual (`train`): the combined
//! evaluation keeps the linear one's reading of threats and races and learns what it misses.
//!
//! Two hidden layers of rectified units ([`Hidden`]: 64 and 32 in the shipped model), then one
//! logistic output.
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

/// The sizes of the two hidden layers of a value model. A weights file records them, so models
/// of other sizes load without a new build; the forward pass keeps its intermediates in arrays
/// of [`Hidden::MAX`] units on the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// Units of the first hidden layer.
    pub first: usize,
    /// Units of the second hidden layer.
    pub second: usize,
}

impl Hidden {
    /// The sizes of the shipped model and of a fit that names none.
    pub const DEFAULT: Hidden = Hidden {
        first: 64,
        second: 32,
    };
    /// The most units a hidden layer may have.
    pub const MAX: usize = 256;

    /// Whether both layers have between 1 and [`Hidden::MAX`] units.
    pub fn is_valid(self) -> bool {
        (1..=Hidden::MAX).contains(&self.first) && (1..=Hidden::MAX).contains(&self.second)
    }

    /// Parameters of a model of these sizes: both hidden layers' and the output's weights and
    /// biases.
    pub const fn params(self) -> usize {
        let (h1, h2) = (self.first, self.second);
        INPUTS * h1 + h1 + h1 * h2 + h2 + h2 + 1
    }
}

impl std::fmt::Display for Hidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.first, self.second)
    }
}

/// A parameter list that does not make a value model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// Hidden layers of no units or more than [`Hidden::MAX`].
    #[error("hidden layers of {0} units: each layer has 1 to {max} units", max = Hidden::MAX)]
    Sizes(Hidden),
    /// Not the number of parameters of a model of the sizes given.
    #[error("a value model of hidden layers {hidden} has {} parameters, not {found}", hidden.params())]
    Count {
        /// The sizes given.
        hidden: Hidden,
        /// The number of parameters given.
        found: usize,
    },
}

/// The value model's weights (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueModel {
    hidden: Hidden,
    /// First layer, input-major: the weights from input `i` are `w1[i * first..][..first]`.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// Second layer, input-major: from first-layer unit `j`, `w2[j * second..][..second]`.
    w2: Vec<f32>,
    b2: Vec<f32>,
    w3: Vec<f32>,
    b3: f32,
}

impl ValueModel {
    /// A model of [`Hidden::DEFAULT`] sizes with small random weights drawn from `seed`
    /// (uniform, scaled by each layer's fan-in), biases zero: the start of a training run.
    pub fn initial(seed: u64) -> ValueModel {
        ValueModel::initial_sized(seed, Hidden::DEFAULT)
    }

    /// [`ValueModel::initial`] with hidden layers of `hidden` sizes (which must be valid).
    pub fn initial_sized(seed: u64, hidden: Hidden) -> ValueModel {
        assert!(hidden.is_valid(), "hidden layers {hidden}");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut layer = |n: usize, fan_in: usize| -> Vec<f32> {
            let bound = (6.0 / fan_in as f32).sqrt();
            (0..n).map(|_| rng.random_range(-bound..bound)).collect()
        };
        let Hidden { first, second } = hidden;
        // An observation sets few of its entries (one-hot sections): scale the first layer
        // to a tenth of them rather than to all.
        let w1 = layer(INPUTS * first, INPUTS / 10);
        let w2 = layer(first * second, first);
        let w3 = layer(second, second);
        ValueModel {
            hidden,
            w1,
            b1: vec![0.0; first],
            w2,
            b2: vec![0.0; second],
            w3,
            b3: 0.0,
        }
    }

    /// [`ValueModel::initial`] with the output layer zero: a model that adds nothing to the
    /// fitted evaluation, where training starts.
    pub fn untrained(seed: u64) -> ValueModel {
        ValueModel::untrained_sized(seed, Hidden::DEFAULT)
    }

    /// [`ValueModel::untrained`] with hidden layers of `hidden` sizes (which must be valid).
    pub fn untrained_sized(seed: u64, hidden: Hidden) -> ValueModel {
        ValueModel {
            w3: vec![0.0; hidden.second],
            b3: 0.0,
            ..ValueModel::initial_sized(seed, hidden)
        }
    }

    /// The model of hidden layers of `hidden` sizes from a flat parameter list in
    /// [`ValueModel::params`] order.
    pub fn from_params(hidden: Hidden, params: &[f32]) -> Result<ValueModel, ParamsError> {
        if !hidden.is_valid() {
            return Err(ParamsError::Sizes(hidden));
        }
        if params.len() != hidden.params() {
            return Err(ParamsError::Count {
                hidden,
                found: params.len(),
            });
        }
        let Hidden { first, second } = hidden;
        let (w1, rest) = params.split_at(INPUTS * first);
        let (b1, rest) = rest.split_at(first);
        let (w2, rest) = rest.split_at(first * second);
        let (b2, rest) = rest.split_at(second);
        let (w3, b3) = rest.split_at(second);
        Ok(ValueModel {
            hidden,
            w1: w1.to_vec(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2: b2.to_vec(),
            w3: w3.to_vec(),
            b3: b3[0],
        })
    }

    /// The sizes of the hidden layers.
    pub fn hidden(&self) -> Hidden {
        self.hidden
    }

    /// Every parameter, flat: first-layer weights (input-major), biases, second-layer weights
    /// (input-major), biases, output weights, output bias.
    pub fn params(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.hidden.params());
        for part in [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3] {
            out.extend_from_slice(part);
        }
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
        let Hidden { first, second } = self.hidden;
        let mut h1 = [0f32; Hidden::MAX];
        let h1 = &mut h1[..first];
        h1.copy_from_slice(&self.b1);
        for (i, x) in input.nonzero() {
            let row = &self.w1[i * first..][..first];
            for (h, w) in h1.iter_mut().zip(row) {
                *h += x * w;
            }
        }
        let mut h2 = [0f32; Hidden::MAX];
        let h2 = &mut h2[..second];
        h2.copy_from_slice(&self.b2);
        for (j, &a) in h1.iter().enumerate() {
            if a > 0.0 {
                let row = &self.w2[j * second..][..second];
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
