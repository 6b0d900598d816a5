//! The one win estimate a player is shown: the history graph, the hint, the terminal's
//! "Estimate" and the review all read their figures from [`estimate`].
//!
//! It is the same kind of figure at every moment of the game, whoever is to move: the mean
//! reward of [`ESTIMATE_PLAYOUTS`] playouts of the `strong` level's policy (evaluation cut, rack
//! belief) from determinizations of the observer's observation, then mapped through the
//! [`CALIBRATION`] fitted on strong self-play games (results/review.md). A search value would
//! only exist when the observer decides (no tree of their decisions grows from their
//! observation while the opponent decides), and mixing the two kinds made the win history
//! zig-zag every half-turn.

use super::strong;
use crate::bot::play::decision_seed;
use crate::bot::search;
use crate::bot::Budget;
use crate::info::Observation;
use crate::rules::{Colour, Game};
use std::sync::atomic::AtomicBool;

/// Playouts of one win estimate: enough for a standard error under 1.2 points of win
/// probability, cheap enough to note one at every turn start without the human waiting.
pub const ESTIMATE_PLAYOUTS: u64 = 2_000;

/// A monotone correction of the playout mean: Platt scaling on the logit,
/// `p' = σ(slope · logit(p) + intercept)`, increasing whenever `slope > 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// Multiplies the logit of the playout mean: above 1 the estimate is made bolder.
    pub slope: f64,
    /// Added to the logit: above 0 every estimate moves up.
    pub intercept: f64,
}

/// The correction applied by [`estimate`]: fitted by `examples/calibrate_estimate.rs` on half
/// of 512 strong self-play games of results/balance/study (1,578 positions); the playout mean is
/// too bold (a slope under 1) and a little kind to the observer (a negative intercept). The
/// tables before and after it on the other half are in results/review.md.
pub const CALIBRATION: Calibration = Calibration {
    slope: 0.6913,
    intercept: -0.2194,
};

// A correction must keep the order of the estimates: a positive slope.
const _: () = assert!(CALIBRATION.slope > 0.0);

impl Calibration {
    /// No correction.
    pub const IDENTITY: Calibration = Calibration {
        slope: 1.0,
        intercept: 0.0,
    };

    /// The calibrated figure of a playout mean `p` (0 to 1). A mean of 0 or 1 (every playout
    /// lost or won, while the game is not over) is read as half a playout from it, so that it
    /// keeps a finite logit and the correction stays strictly increasing.
    pub fn apply(&self, p: f64) -> f64 {
        let edge = 0.5 / ESTIMATE_PLAYOUTS as f64;
        let p = p.clamp(edge, 1.0 - edge);
        let logit = (p / (1.0 - p)).ln();
        1.0 / (1.0 + (-(self.slope * logit + self.intercept)).exp())
    }
}

/// The seed of `observer`'s estimate after `step` steps of the game dealt from `deal_seed`:
/// the same moment of the same game always gets the same figure, wherever it is shown.
pub fn estimate_seed(deal_seed: u64, observer: Colour, step: usize) -> u64 {
    decision_seed(deal_seed, observer, step as u32)
}

/// The observer's chance to win now, from their observation alone: 1 or 0 once the game is
/// over, otherwise [`CALIBRATION`] applied to [`playout_mean`]. Seed it with
/// [`estimate_seed`].
pub fn estimate(game: &Game, observation: &Observation, seed: u64) -> f64 {
    estimate_cancellable(game, observation, seed, None)
}

/// [`estimate`], stopping early (on what it has read) once `cancel` is set.
pub(crate) fn estimate_cancellable(
    game: &Game,
    observation: &Observation,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> f64 {
    if let Some(o) = observation.view().outcome() {
        return f64::from(u8::from(o.winner == observation.observer()));
    }
    CALIBRATION.apply(playout_mean(game, observation, seed, cancel))
}

/// The uncorrected figure behind [`estimate`]: the observer's mean reward over
/// [`ESTIMATE_PLAYOUTS`] playouts of the `strong` level's policy from determinizations of
/// their observation (what the calibration is fitted on).
pub fn playout_mean(
    game: &Game,
    observation: &Observation,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> f64 {
    let (_, config, _) = strong();
    search::playout_mean(
        game,
        observation,
        &config,
        Budget::iterations(ESTIMATE_PLAYOUTS),
        seed,
        cancel,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped correction is strictly increasing, keeps the middle near the middle and
    /// maps a few points as fitted (results/review.md).
    #[test]
    fn the_shipped_correction_is_monotone_and_maps_as_fitted() {
        let points: Vec<f64> = (0..=1000).map(|i| f64::from(i) / 1000.0).collect();
        let mapped: Vec<f64> = points.iter().map(|&p| CALIBRATION.apply(p)).collect();
        for w in mapped.windows(2) {
            assert!(w[1] >= w[0], "{w:?}");
        }
        for (p, want) in [(0.1, 0.1495), (0.2, 0.2355), (0.5, 0.4454), (0.8, 0.6768)] {
            let got = CALIBRATION.apply(p);
            assert!((got - want).abs() < 0.0005, "{p} → {got}, fitted {want}");
        }
    }

    #[test]
    fn the_identity_changes_nothing_and_the_ends_stay_finite() {
        for p in [0.1, 0.37, 0.5, 0.9] {
            assert!((Calibration::IDENTITY.apply(p) - p).abs() < 1e-12);
        }
        let low = CALIBRATION.apply(0.0);
        let high = CALIBRATION.apply(1.0);
        assert!(low > 0.0 && high < 1.0 && low < high);
    }
}
