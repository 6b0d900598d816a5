//! The policy model: a prior over the deciding player's legal decisions, for the search's tree.
//!
//! A decision is described by its [`Tactic`] (what it does on the board: take a region, cover
//! an enemy tile, defend an HQ, …) and, for a placement, the troop placed. The model gives each
//! a log-weight, and a decision's probability among its legal alternatives is proportional to
//! the exponential of the sum of its two: a conditional logit, the form of Coulom's
//! move-pattern ratings in go, small enough that the search reads a decision's strength as one
//! table lookup.
//!
//! The hand-set tactical weights of the search (`bot::search`, playouts and prior) are one such
//! model, [`PolicyModel::hand_set`]; `toybattle train policy` fits the log-weights to the
//! decisions the search chose in self-play (maximum likelihood), and the shipped model
//! ([`PolicyModel::shipped`], `src/model/policy.weights`) is such a fit.
//!
//! The weights file is JSON: `{"format": 1, "tactics": {name: log-weight, …}, "troops": {name:
//! log-weight, …}}`, every tactic and troop named once. A file of another format, with a name
//! missing or unknown, or a weight that is not a finite number is refused with the reason.

use super::loaded::Loaded;
use crate::vocabulary::Troop;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// What a decision does on the board, as the search's tactical policy classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tactic {
    /// Wins at once: a placement on an enemy HQ (R10.1) or one that reaches the medal
    /// objective (R8.5).
    Win,
    /// Covers, discards or moves an enemy tile from which the opponent could capture one of
    /// our HQs next turn.
    Defend,
    /// A placement that completes a region (R8.2).
    TakeRegion,
    /// A placement covering an enemy tile.
    CoverEnemy,
    /// A placement on an empty base.
    EmptyBase,
    /// A placement on one's own tile.
    OwnStack,
    /// Jumbo's discard of an enemy tile (R7.4).
    Discard,
    /// Every other decision: draw, decline, use, return, move.
    Other,
}

impl Tactic {
    /// Every tactic, in the order of the model's weights.
    pub const ALL: [Tactic; 8] = [
        Tactic::Win,
        Tactic::Defend,
        Tactic::TakeRegion,
        Tactic::CoverEnemy,
        Tactic::EmptyBase,
        Tactic::OwnStack,
        Tactic::Discard,
        Tactic::Other,
    ];

    /// The tactic's name in a weights file.
    pub fn name(self) -> &'static str {
        match self {
            Tactic::Win => "win",
            Tactic::Defend => "defend",
            Tactic::TakeRegion => "take_region",
            Tactic::CoverEnemy => "cover_enemy",
            Tactic::EmptyBase => "empty_base",
            Tactic::OwnStack => "own_stack",
            Tactic::Discard => "discard",
            Tactic::Other => "other",
        }
    }

    /// The tactic's place in [`Tactic::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The search's prior reads a weight over this as a bias in 0..1: the hand-set weights are
/// capped here, and a learned probability is scaled to it.
pub const PRIOR_CAP: u32 = 256;

/// The search's hand-set tactical weights (its tactical playouts always take a win; its prior
/// caps a win at [`PRIOR_CAP`], as here).
const HAND_SET: [(Tactic, u32); 8] = [
    (Tactic::Win, PRIOR_CAP),
    (Tactic::Defend, 256),
    (Tactic::TakeRegion, 64),
    (Tactic::CoverEnemy, 8),
    (Tactic::EmptyBase, 4),
    (Tactic::OwnStack, 1),
    (Tactic::Discard, 8),
    (Tactic::Other, 4),
];

/// The hand-set weight of `tactic`: a region take is worth 64 plain placements, a defence
/// of an HQ 256, covering or discarding an enemy tile 8, a plain decision 4 and a placement on
/// one's own tile 1 (it gains no ground). The tactical playouts sample by these weights.
#[inline]
pub fn hand_set_weight(tactic: Tactic) -> u32 {
    HAND_SET[tactic.index()].1
}

/// The policy model's log-weights (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyModel {
    tactics: [f64; 8],
    troops: [f64; 8],
    /// The strength (exponential of the log-weight) of each tactic and troop (index 8: no
    /// troop), divided by the largest, so in 0..=1.
    table: [[f64; 9]; 8],
}

/// A policy weights file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyWeightsError {
    /// Not JSON of the expected shape (or truncated).
    #[error("not a toybattle policy weights file: {0}")]
    NotWeights(String),
    /// Written in another version of the format.
    #[error("policy weights format {found}; this program reads format {POLICY_FORMAT}")]
    Format {
        /// The format in the file.
        found: u32,
    },
    /// A tactic or troop the file does not give, or one it gives that does not exist.
    #[error("policy weights: {0}")]
    Names(String),
    /// A weight that is not a finite number.
    #[error("policy weights: the weight of {0} is not a finite number")]
    NotFinite(String),
}

/// The version of the policy weights file written and read.
pub const POLICY_FORMAT: u32 = 1;

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightsFile {
    format: u32,
    tactics: BTreeMap<String, f64>,
    troops: BTreeMap<String, f64>,
}

impl PolicyModel {
    /// The model of the given log-weights, per tactic ([`Tactic::ALL`] order) and per troop
    /// ([`Troop::ALL`] order).
    pub fn new(tactics: [f64; 8], troops: [f64; 8]) -> PolicyModel {
        // The largest weight is a placement's (best tactic plus best troop) or, if larger,
        // that of a tactic without a troop.
        let best_troop = troops.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let top = tactics
            .iter()
            .map(|&t| t + best_troop.max(0.0))
            .fold(f64::NEG_INFINITY, f64::max);
        let mut table = [[0.0; 9]; 8];
        for (t, row) in table.iter_mut().enumerate() {
            for (k, w) in row.iter_mut().enumerate() {
                *w = (tactics[t] + troops.get(k).copied().unwrap_or(0.0) - top).exp();
            }
        }
        PolicyModel {
            tactics,
            troops,
            table,
        }
    }

    /// The search's hand-set tactical weights as a model: no troop matters, and each
    /// strength is the tactical weight over [`PRIOR_CAP`].
    pub fn hand_set() -> PolicyModel {
        let mut tactics = [0.0; 8];
        for (t, w) in HAND_SET {
            tactics[t.index()] = f64::from(w).ln();
        }
        PolicyModel::new(tactics, [0.0; 8])
    }

    /// The shipped model, `src/model/policy.weights`, read once.
    pub fn shipped() -> &'static PolicyModel {
        static SHIPPED: OnceLock<PolicyModel> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            PolicyModel::from_json(include_str!("policy.weights"))
                .expect("the shipped policy weights are checked by a test")
        })
    }

    /// The log-weight of a decision of `tactic` placing `troop` (`None`: not a placement).
    pub fn logit(&self, tactic: Tactic, troop: Option<Troop>) -> f64 {
        self.tactics[tactic.index()] + troop.map_or(0.0, |t| self.troops[t.index()])
    }

    /// The strength of a decision of `tactic` placing `troop`: the exponential of its
    /// log-weight, divided by the largest possible, so in 0..=1 (a table lookup). A decision's
    /// probability under the model is its strength over the sum of its legal alternatives'.
    #[inline]
    pub fn strength(&self, tactic: Tactic, troop: Option<Troop>) -> f64 {
        self.table[tactic.index()][troop.map_or(8, |t| t as usize)]
    }

    /// The log-weights per tactic, in [`Tactic::ALL`] order.
    pub fn tactics(&self) -> [f64; 8] {
        self.tactics
    }

    /// The log-weights per troop, in [`Troop::ALL`] order.
    pub fn troops(&self) -> [f64; 8] {
        self.troops
    }

    /// The model read from a weights file's text (see the module doc).
    pub fn from_json(text: &str) -> Result<PolicyModel, PolicyWeightsError> {
        let file: WeightsFile = serde_json::from_str(text)
            .map_err(|e| PolicyWeightsError::NotWeights(e.to_string()))?;
        if file.format != POLICY_FORMAT {
            return Err(PolicyWeightsError::Format { found: file.format });
        }
        let tactics = named(&file.tactics, Tactic::ALL.map(Tactic::name), "tactic")?;
        let troops = named(&file.troops, Troop::ALL.map(Troop::name), "troop")?;
        Ok(PolicyModel::new(tactics, troops))
    }

    /// The weights file's text of this model.
    pub fn to_json(&self) -> String {
        let file = WeightsFile {
            format: POLICY_FORMAT,
            tactics: Tactic::ALL
                .iter()
                .map(|t| (t.name().to_string(), self.tactics[t.index()]))
                .collect(),
            troops: Troop::ALL
                .iter()
                .map(|&t| (t.name().to_string(), self.troops[t.index()]))
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&file).expect("plain numbers serialize");
        text.push('\n');
        text
    }
}

/// The policy model of the weights file at `path`, read and checked once per path for the
/// life of the program (a search resolves it at every decision; `model::weights::load` does
/// the same for the value model). A file that cannot be used is not kept; the error names it.
pub fn load(path: &Path) -> Result<&'static PolicyModel, String> {
    static LOADED: Loaded<PolicyModel> = Loaded::new();
    LOADED.get_or_read(path, || {
        let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| named(&e))?;
        PolicyModel::from_json(&text).map_err(|e| named(&e))
    })
}

/// The eight weights of `map` in the order of `names`, each named exactly once.
fn named(
    map: &BTreeMap<String, f64>,
    names: [&str; 8],
    what: &str,
) -> Result<[f64; 8], PolicyWeightsError> {
    if let Some(unknown) = map.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(PolicyWeightsError::Names(format!(
            "no {what} is called {unknown:?} (expected {})",
            names.join(", ")
        )));
    }
    let mut out = [0.0; 8];
    for (slot, name) in out.iter_mut().zip(names) {
        let w = *map.get(name).ok_or_else(|| {
            PolicyWeightsError::Names(format!("the weight of the {what} {name:?} is missing"))
        })?;
        if !w.is_finite() {
            return Err(PolicyWeightsError::NotFinite(format!("{what} {name:?}")));
        }
        *slot = w;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_set_model_weighs_as_the_tactical_weights() {
        let m = PolicyModel::hand_set();
        for (t, w) in HAND_SET {
            for troop in Troop::ALL.map(Some).into_iter().chain([None]) {
                let expected = f64::from(w) / f64::from(PRIOR_CAP);
                assert!(
                    (m.strength(t, troop) - expected).abs() < 1e-12,
                    "{t:?} {troop:?}"
                );
            }
        }
    }

    #[test]
    fn strengths_follow_the_log_weights_the_largest_being_one() {
        let mut troops = [0.0; 8];
        troops[Troop::Roxy.index()] = 1.0;
        let m = PolicyModel::new([0.0, -1.0, 2.0, 0.0, 0.0, -20.0, 0.0, 0.0], troops);
        assert_eq!(m.strength(Tactic::TakeRegion, Some(Troop::Roxy)), 1.0);
        let kwak = m.strength(Tactic::TakeRegion, Some(Troop::Kwak));
        assert!((kwak - (-1f64).exp()).abs() < 1e-12);
        assert!(m.strength(Tactic::OwnStack, None) < 1e-9);
    }

    #[test]
    fn a_weights_file_reads_back_and_bad_ones_are_refused_with_the_reason() {
        let m = PolicyModel::new([0.5; 8], [0.25; 8]);
        assert_eq!(PolicyModel::from_json(&m.to_json()), Ok(m.clone()));
        let text = m.to_json();
        let refused = |t: &str| PolicyModel::from_json(t).unwrap_err().to_string();
        assert!(refused(&text[..text.len() / 2]).contains("not a toybattle policy weights"));
        assert!(refused(&text.replace("\"format\": 1", "\"format\": 9")).contains("format 9"));
        assert!(refused(&text.replace("\"defend\"", "\"defence\"")).contains("\"defence\""));
        assert!(refused(&text.replace("\"Kwak\"", "\"Kwik\"")).contains("troop"));
        assert!(PolicyModel::shipped().strength(Tactic::Win, None) > 0.0);
    }

    #[test]
    fn a_weights_file_loads_once_and_a_bad_one_is_refused_naming_it() {
        let dir =
            std::env::temp_dir().join(format!("toybattle-policy-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, bad) = (dir.join("good.json"), dir.join("bad.json"));
        let m = PolicyModel::new([0.5; 8], [0.25; 8]);
        std::fs::write(&good, m.to_json()).unwrap();
        std::fs::write(&bad, &m.to_json()[..20]).unwrap();
        let loaded = load(&good).unwrap();
        assert_eq!(loaded, &m);
        assert!(std::ptr::eq(loaded, load(&good).unwrap()), "read once");
        let refused = load(&bad).unwrap_err();
        assert!(refused.contains("bad.json") && refused.contains("not a toybattle policy"));
        assert!(load(&dir.join("missing.json"))
            .unwrap_err()
            .contains("missing.json"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
