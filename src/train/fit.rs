//! Fitting the value model to a [`Dataset`] with candle (feature `train`).
//!
//! The network is the one of `model::value`, trained as a correction of the fitted linear
//! evaluation (its output is added to [`Dataset::offset`]). Its parameters are candle variables
//! in the same layout (input-major weight matrices), so the trained model is read back without
//! reshaping.
//! The loss is the logistic loss of the predicted win probability against the game's outcome
//! (blended with the search's root value by `FitOptions::target_mix`), computed in a
//! numerically stable form; AdamW updates the weights. Every random choice
//! (initial weights, order of the positions in each epoch) comes from the seed.

use super::Dataset;
use crate::model::{Hidden, Input, ValueModel, INPUTS};
use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// How to fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per gradient step.
    pub batch: usize,
    /// AdamW's learning rate.
    pub learning_rate: f64,
    /// AdamW's weight decay.
    pub weight_decay: f64,
    /// Seed of the initial weights and of the order of the positions.
    pub seed: u64,
    /// One game in this many (by its number in the dataset) is held out for validation; 0 =
    /// none.
    pub validation_every: u32,
    /// λ of the training target `λ · root value + (1 − λ) · outcome` (see
    /// [`Dataset::mixed_target`]); 0 trains on outcomes alone. Held-out positions are always
    /// judged against the outcome.
    pub target_mix: f64,
    /// The sizes of the model's hidden layers.
    pub hidden: Hidden,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            epochs: 10,
            batch: 256,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            seed: 1,
            validation_every: 10,
            target_mix: 0.0,
            hidden: Hidden::DEFAULT,
        }
    }
}

/// What one epoch reached.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch, from 1.
    pub epoch: u32,
    /// Mean logistic loss over the training positions during the epoch.
    pub train_loss: f64,
    /// Mean logistic loss of the model after the epoch on the held-out positions (NaN when
    /// none are held out).
    pub validation_loss: f64,
    /// Share of held-out positions of decided games whose winner the model favours.
    pub validation_accuracy: f64,
}

/// The parameters as candle variables, in `ValueModel::params` order.
struct Net {
    hidden: Hidden,
    w1: Var,
    b1: Var,
    w2: Var,
    b2: Var,
    w3: Var,
    b3: Var,
}

impl Net {
    fn new(model: &ValueModel, dev: &Device) -> candle_core::Result<Net> {
        let p = model.params();
        let hidden = model.hidden();
        let Hidden { first, second } = hidden;
        let (w1, rest) = p.split_at(INPUTS * first);
        let (b1, rest) = rest.split_at(first);
        let (w2, rest) = rest.split_at(first * second);
        let (b2, rest) = rest.split_at(second);
        let (w3, b3) = rest.split_at(second);
        let var = |v: &[f32], shape: (usize, usize)| {
            Var::from_tensor(&Tensor::from_slice(v, shape, dev)?)
        };
        Ok(Net {
            hidden,
            w1: var(w1, (INPUTS, first))?,
            b1: var(b1, (1, first))?,
            w2: var(w2, (first, second))?,
            b2: var(b2, (1, second))?,
            w3: var(w3, (second, 1))?,
            b3: var(b3, (1, 1))?,
        })
    }

    fn vars(&self) -> Vec<Var> {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3]
            .map(|v| v.clone())
            .to_vec()
    }

    /// Log-odds of each row of `x` (batch × INPUTS), as a batch × 1 tensor.
    fn logits(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let h1 = x.matmul(&self.w1)?.broadcast_add(&self.b1)?.relu()?;
        let h2 = h1.matmul(&self.w2)?.broadcast_add(&self.b2)?.relu()?;
        h2.matmul(&self.w3)?.broadcast_add(&self.b3)
    }

    fn model(&self) -> candle_core::Result<ValueModel> {
        let mut p = Vec::new();
        for v in self.vars() {
            p.extend(v.as_tensor().flatten_all()?.to_vec1::<f32>()?);
        }
        Ok(ValueModel::from_params(self.hidden, &p).expect("the network has the model's shape"))
    }
}

/// Mean logistic loss of log-odds `z` against targets `t` (same shape), stably:
/// `max(z, 0) − t·z + ln(1 + e^−|z|)`.
fn logistic_loss(z: &Tensor, t: &Tensor) -> candle_core::Result<Tensor> {
    let soft = (z.abs()?.neg()?.exp()? + 1.0)?.log()?;
    (z.relu()? - (t * z)?)?.add(&soft)?.mean_all()
}

/// The batch × INPUTS dense inputs, batch × 1 fitted-evaluation log-odds and batch × 1 targets
/// (root values blended in by `mix`) of positions `ks`.
fn batch(
    data: &Dataset,
    ks: &[usize],
    mix: f32,
    dev: &Device,
) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
    let mut x = vec![0f32; ks.len() * INPUTS];
    for (row, &k) in ks.iter().enumerate() {
        data.write_dense(k, &mut x[row * INPUTS..][..INPUTS]);
    }
    let offsets: Vec<f32> = ks.iter().map(|&k| data.offset(k)).collect();
    let t: Vec<f32> = ks.iter().map(|&k| data.mixed_target(k, mix)).collect();
    Ok((
        Tensor::from_vec(x, (ks.len(), INPUTS), dev)?,
        Tensor::from_vec(offsets, (ks.len(), 1), dev)?,
        Tensor::from_vec(t, (ks.len(), 1), dev)?,
    ))
}

/// The candle network's log-odds for `inputs`: the same network as
/// [`ValueModel::logit`], computed densely (for the test that both agree).
pub fn candle_logits(model: &ValueModel, inputs: &[Input]) -> candle_core::Result<Vec<f32>> {
    let dev = Device::Cpu;
    let net = Net::new(model, &dev)?;
    let mut x = Vec::with_capacity(inputs.len() * INPUTS);
    for input in inputs {
        x.extend_from_slice(input.values());
    }
    let x = Tensor::from_vec(x, (inputs.len(), INPUTS), &dev)?;
    net.logits(&x)?.flatten_all()?.to_vec1()
}

/// Trains a value model on `data` to correct the fitted linear evaluation: the predicted
/// log-odds of a position are its [`Dataset::offset`] plus the model's output. It starts from
/// [`ValueModel::untrained_sized`] of `options.seed` and `options.hidden`, which adds nothing, trains on outcomes blended with
/// the searches' root values by `options.target_mix`, and calls
/// `progress` after each epoch; returns the model after the last epoch and every epoch's
/// report.
pub fn fit(
    data: &Dataset,
    options: &FitOptions,
    mut progress: impl FnMut(&EpochReport),
) -> candle_core::Result<(ValueModel, Vec<EpochReport>)> {
    let dev = Device::Cpu;
    let net = Net::new(
        &ValueModel::untrained_sized(options.seed, options.hidden),
        &dev,
    )?;
    let params = ParamsAdamW {
        lr: options.learning_rate,
        weight_decay: options.weight_decay,
        ..ParamsAdamW::default()
    };
    let mut opt = AdamW::new(net.vars(), params)?;
    let held_out = |k: usize| {
        options.validation_every > 0 && data.game_of(k).is_multiple_of(options.validation_every)
    };
    let (validation, mut train): (Vec<usize>, Vec<usize>) =
        (0..data.len()).partition(|&k| held_out(k));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed);
    let mut reports = Vec::new();
    for epoch in 1..=options.epochs {
        train.shuffle(&mut rng);
        let (mut sum, mut n) = (0.0, 0usize);
        for ks in train.chunks(options.batch.max(1)) {
            let (x, offsets, t) = batch(data, ks, options.target_mix as f32, &dev)?;
            let loss = logistic_loss(&(net.logits(&x)? + offsets)?, &t)?;
            opt.backward_step(&loss)?;
            sum += f64::from(loss.to_scalar::<f32>()?) * ks.len() as f64;
            n += ks.len();
        }
        let model = net.model()?;
        let (validation_loss, validation_accuracy) = evaluate(&model, data, &validation);
        let report = EpochReport {
            epoch,
            train_loss: sum / n.max(1) as f64,
            validation_loss,
            validation_accuracy,
        };
        progress(&report);
        reports.push(report);
    }
    Ok((net.model()?, reports))
}

/// Mean logistic loss of the fitted evaluation corrected by `model` over positions `ks`, and the
/// share of decided positions whose winner it favours; computed with the hand-written forward
/// pass the search uses.
pub fn evaluate(model: &ValueModel, data: &Dataset, ks: &[usize]) -> (f64, f64) {
    if ks.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut input = Input::default();
    let (mut loss, mut right, mut decided) = (0.0, 0usize, 0usize);
    for &k in ks {
        input.set_entries(data.entries(k));
        let z = f64::from(data.offset(k)) + f64::from(model.logit(&input));
        let t = f64::from(data.target(k));
        loss += z.max(0.0) - t * z + (-z.abs()).exp().ln_1p();
        if t != 0.5 {
            decided += 1;
            right += usize::from((z > 0.0) == (t > 0.5));
        }
    }
    (
        loss / ks.len().max(1) as f64,
        right as f64 / decided.max(1) as f64,
    )
}
