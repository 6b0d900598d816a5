//! The rack model: how likely each troop is to be on the opponent's rack, given what the
//! deciding player sees.
//!
//! A determinization deals the opponent's hidden rack tiles from their unseen tiles with
//! per-troop odds (`info::RackBelief`). The search's fixed odds (`KEPT_TROOPS`) are averages
//! over whole games; this model reads the observation's game-wide facts (the encoding's entries
//! from [`BOARD_END`]: terrain, turn, medals, rack and reserve sizes, discards, unseen tiles)
//! and gives log-odds per troop for this position: `bias[t] + Σ weights[i][t] · input[i]`.
//! Training (`toybattle train rack`) fits them to the true racks of self-play games, where the
//! truth is known, by the likelihood of the rack under those odds.
//!
//! The weights file is JSON: the format version, the encoding's fingerprint, the bias per troop
//! (by name) and one row of eight weights per game-wide input. A file from another encoding or
//! format, truncated or corrupt is refused with the reason.

use super::encoding::{encode, fingerprint, Input, BOARD_END, INPUTS};
use super::loaded::Loaded;
use crate::info::{Observation, RackBelief};
use crate::rules::Game;
use crate::vocabulary::Troop;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// The game-wide inputs the model reads: the encoding's entries from [`BOARD_END`] on.
pub const RACK_INPUTS: usize = INPUTS - BOARD_END;

/// The version of the rack weights file written and read.
pub const RACK_FORMAT: u32 = 1;

/// Per-troop log-odds of the rack model (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct RackModel {
    bias: [f64; 8],
    /// One row per game-wide input, eight weights each (`Troop::index` order).
    weights: Vec<[f64; 8]>,
}

/// A rack weights file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RackWeightsError {
    /// Not JSON of the expected shape (or truncated).
    #[error("not a toybattle rack weights file: {0}")]
    NotWeights(String),
    /// Written in another version of the format.
    #[error("rack weights format {found}; this program reads format {RACK_FORMAT}")]
    Format {
        /// The format in the file.
        found: u32,
    },
    /// Trained on another encoding of observations.
    #[error(
        "the rack weights were trained on encoding {found}, but this program encodes \
         observations as {expected:016x}: retrain them"
    )]
    Encoding {
        /// The fingerprint in the file.
        found: String,
        /// This program's fingerprint.
        expected: u64,
    },
    /// A troop missing or unknown, rows of the wrong count, or a weight that is not finite.
    #[error("rack weights: {0}")]
    Shape(String),
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightsFile {
    format: u32,
    encoding: String,
    bias: BTreeMap<String, f64>,
    weights: Vec<[f64; 8]>,
}

impl RackModel {
    /// The model of fixed odds: `log_odds` per troop whatever the position.
    pub fn fixed(log_odds: [f64; 8]) -> RackModel {
        RackModel {
            bias: log_odds,
            weights: vec![[0.0; 8]; RACK_INPUTS],
        }
    }

    /// The model of these biases and rows (one per game-wide input), or the reason it cannot
    /// be one.
    pub fn new(bias: [f64; 8], weights: Vec<[f64; 8]>) -> Result<RackModel, RackWeightsError> {
        if weights.len() != RACK_INPUTS {
            return Err(RackWeightsError::Shape(format!(
                "{} rows of weights where the encoding has {RACK_INPUTS} game-wide inputs",
                weights.len()
            )));
        }
        let finite = |w: &[f64; 8]| w.iter().all(|x| x.is_finite());
        if !finite(&bias) || !weights.iter().all(finite) {
            return Err(RackWeightsError::Shape(
                "a weight is not a finite number".into(),
            ));
        }
        Ok(RackModel { bias, weights })
    }

    /// The shipped model, `src/model/rack.weights`, read once.
    pub fn shipped() -> &'static RackModel {
        static SHIPPED: OnceLock<RackModel> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            RackModel::from_json(include_str!("rack.weights"))
                .expect("the shipped rack weights are checked by a test")
        })
    }

    /// The bias per troop.
    pub fn bias(&self) -> [f64; 8] {
        self.bias
    }

    /// The rows of weights, one per game-wide input.
    pub fn weights(&self) -> &[[f64; 8]] {
        &self.weights
    }

    /// Log-odds per troop (`Troop::index` order) for an encoded observation.
    pub fn log_odds(&self, input: &Input) -> [f64; 8] {
        let mut out = self.bias;
        for (i, x) in input.nonzero().filter(|&(i, _)| i >= BOARD_END) {
            let row = &self.weights[i - BOARD_END];
            for (o, w) in out.iter_mut().zip(row) {
                *o += w * f64::from(x);
            }
        }
        out
    }

    /// The belief a determinization of `obs` deals the opponent's rack with: this position's
    /// odds, scaled so that the likeliest troop weighs [`RackBelief::MAX_WEIGHT`] (odds more
    /// than that many times smaller are rounded up to 1).
    pub fn belief(&self, game: &Game, obs: &Observation) -> RackBelief {
        let mut input = Input::default();
        encode(game, obs, &mut input);
        belief_of(self.log_odds(&input))
    }

    /// The model read from a weights file's text (see the module doc).
    pub fn from_json(text: &str) -> Result<RackModel, RackWeightsError> {
        let file: WeightsFile =
            serde_json::from_str(text).map_err(|e| RackWeightsError::NotWeights(e.to_string()))?;
        if file.format != RACK_FORMAT {
            return Err(RackWeightsError::Format { found: file.format });
        }
        let expected = fingerprint();
        if file.encoding != format!("{expected:016x}") {
            return Err(RackWeightsError::Encoding {
                found: file.encoding,
                expected,
            });
        }
        let names = Troop::ALL.map(Troop::name);
        if let Some(unknown) = file.bias.keys().find(|k| !names.contains(&k.as_str())) {
            return Err(RackWeightsError::Shape(format!(
                "no troop is called {unknown:?} (expected {})",
                names.join(", ")
            )));
        }
        let mut bias = [0.0; 8];
        for (b, name) in bias.iter_mut().zip(names) {
            *b = *file.bias.get(name).ok_or_else(|| {
                RackWeightsError::Shape(format!("the bias of the troop {name:?} is missing"))
            })?;
        }
        RackModel::new(bias, file.weights)
    }

    /// The weights file's text of this model.
    pub fn to_json(&self) -> String {
        let file = WeightsFile {
            format: RACK_FORMAT,
            encoding: format!("{:016x}", fingerprint()),
            bias: Troop::ALL
                .iter()
                .map(|&t| (t.name().to_string(), self.bias[t.index()]))
                .collect(),
            weights: self.weights.clone(),
        };
        let mut text = serde_json::to_string(&file).expect("plain numbers serialize");
        text.push('\n');
        text
    }
}

/// The belief of per-troop `log_odds`: the likeliest troop at [`RackBelief::MAX_WEIGHT`].
fn belief_of(log_odds: [f64; 8]) -> RackBelief {
    let top = log_odds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let max = f64::from(RackBelief::MAX_WEIGHT);
    let weights = log_odds.map(|l| ((l - top).exp() * max).round().clamp(1.0, max) as u32);
    RackBelief::new(weights).expect("weights are clamped into range")
}

/// The rack model of the weights file at `path`, read and checked once per path for the life
/// of the program (`loaded.rs`). A file that cannot be used is not kept; the error names it.
pub fn load(path: &Path) -> Result<&'static RackModel, String> {
    static LOADED: Loaded<RackModel> = Loaded::new();
    LOADED.get_or_read(path, || {
        let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| named(&e))?;
        RackModel::from_json(&text).map_err(|e| named(&e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_rack_weights_load() {
        assert_eq!(RackModel::shipped().weights().len(), RACK_INPUTS);
    }

    #[test]
    fn a_rack_weights_file_reads_back_and_bad_ones_are_refused_with_the_reason() {
        let mut rows = vec![[0.0; 8]; RACK_INPUTS];
        rows[3][5] = -0.25;
        let model = RackModel::new([0.5, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 2.0], rows).unwrap();
        let text = model.to_json();
        assert_eq!(RackModel::from_json(&text).unwrap(), model);

        let cut = &text[..text.len() / 2];
        assert!(matches!(
            RackModel::from_json(cut),
            Err(RackWeightsError::NotWeights(_))
        ));
        let other = text.replace(&format!("{:016x}", fingerprint()), "0000000000000000");
        let e = RackModel::from_json(&other).unwrap_err();
        assert!(e.to_string().contains("retrain"), "{e}");
        let later = text.replace("\"format\":1", "\"format\":9");
        assert_eq!(
            RackModel::from_json(&later),
            Err(RackWeightsError::Format { found: 9 })
        );
        let renamed = text.replace("\"Roxy\"", "\"Roxie\"");
        assert!(RackModel::from_json(&renamed)
            .unwrap_err()
            .to_string()
            .contains("Roxie"));
        let short = RackModel::new([0.0; 8], vec![[0.0; 8]; 3]).unwrap_err();
        assert!(short.to_string().contains("3 rows"), "{short}");
    }

    #[test]
    fn the_belief_puts_the_likeliest_troop_at_the_largest_weight() {
        let model = RackModel::fixed([0.0, 2.0_f64.ln(), -20.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let belief = belief_of(model.log_odds(&Input::default()));
        let max = RackBelief::MAX_WEIGHT;
        let expected = [max / 2, max, 1, max / 2, max / 2, max / 2, max / 2, max / 2];
        assert_eq!(belief, RackBelief::new(expected).unwrap());
    }
}
