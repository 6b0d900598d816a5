//! The options of a search bot, each defined once.
//!
//! [`search_options!`] below is the only place an option is written: its name, type, default,
//! valid range, the algorithms it applies to and its documentation. From that one table come the
//! [`SearchConfig`] struct (read from the `[search]` section of bot presets), its `Default`,
//! [`SearchConfig::validate`] (what presets are checked with), [`SearchConfig::clamped`] (what the
//! search runs with) and [`SearchConfig::applies_to`] (what presets may write for an
//! algorithm). The search reads the options from the config itself (`Settings::config`), so
//! adding an option means one row here and the code that uses it.
//!
//! The field order is the order of the serialized form, which a preset's version hashes
//! (`bot::preset::Preset::version`): append new options at the end, and give an option that
//! is off by default `skip_serializing_if`, so that presets written before it keep their
//! versions.

use super::{Algorithm, PlayoutPolicy};
use crate::bot::greedy::{term_weights, TermWeights, HAND_SET_WEIGHTS, TERMS};
use crate::model::{policy, rack, weights, PolicyModel, RackModel, ValueModel};
use serde::{Deserialize, Serialize};
use std::fmt::Display;
use std::path::Path;

/// A search option outside its valid range; the message names the option, the value written
/// and the range expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{field} = {value} is out of range: expected {expected}")]
pub struct OptionRangeError {
    /// The option's name as written in the `[search]` section, e.g. `threads`.
    pub field: &'static str,
    /// The value written, as text.
    pub value: String,
    /// The valid range, e.g. `1 to 256`.
    pub expected: String,
}

/// The valid values of an option: checked when a preset is read, enforced when a bot is made.
trait Domain<T> {
    /// Whether `value` is valid; the message names `field` and what is expected.
    fn check(&self, field: &'static str, value: &T) -> Result<(), OptionRangeError>;
    /// `value` brought into the domain, `fallback` where no nearest value exists (NaN).
    fn clamp(&self, value: T, fallback: T) -> T;
}

/// Every value of the option's type is valid (switches, policies, turn counts).
struct Any;

impl<T> Domain<T> for Any {
    fn check(&self, _: &'static str, _: &T) -> Result<(), OptionRangeError> {
        Ok(())
    }

    fn clamp(&self, value: T, _: T) -> T {
        value
    }
}

/// Whole numbers from `.0` to `.1`.
struct Whole<T>(T, T);

impl<T: Ord + Copy + Display> Domain<T> for Whole<T> {
    fn check(&self, field: &'static str, value: &T) -> Result<(), OptionRangeError> {
        if (self.0..=self.1).contains(value) {
            Ok(())
        } else {
            Err(OptionRangeError {
                field,
                value: value.to_string(),
                expected: format!("{} to {}", self.0, self.1),
            })
        }
    }

    fn clamp(&self, value: T, _: T) -> T {
        value.clamp(self.0, self.1)
    }
}

/// Finite real numbers from `.0` to `.1`.
struct Real(f64, f64);

impl Domain<f64> for Real {
    fn check(&self, field: &'static str, value: &f64) -> Result<(), OptionRangeError> {
        if value.is_finite() && (self.0..=self.1).contains(value) {
            Ok(())
        } else {
            Err(OptionRangeError {
                field,
                value: value.to_string(),
                expected: format!("a number from {} to {}", self.0, self.1),
            })
        }
    }

    fn clamp(&self, value: f64, fallback: f64) -> f64 {
        if value.is_finite() {
            value.clamp(self.0, self.1)
        } else {
            fallback
        }
    }
}

/// A weights file that its model's loader accepts, or empty for the shipped weights.
struct ModelFile {
    /// What the file must be, as the message says it.
    what: &'static str,
    /// Reads and checks the file (kept once read, so a search asking again reads nothing).
    load: fn(&Path) -> Result<(), String>,
}

/// A value-model weights file ([`weights::load`]).
const VALUE_FILE: ModelFile = ModelFile {
    what: "a value-model weights file",
    load: load_value,
};
/// A policy weights file ([`policy::load`]).
const POLICY_FILE: ModelFile = ModelFile {
    what: "a policy weights file",
    load: load_policy,
};
/// A rack weights file ([`rack::load`]).
const RACK_FILE: ModelFile = ModelFile {
    what: "a rack weights file",
    load: load_rack,
};

fn load_value(path: &Path) -> Result<(), String> {
    weights::load(path).map(|_| ()).map_err(|e| e.to_string())
}

fn load_policy(path: &Path) -> Result<(), String> {
    policy::load(path).map(|_| ())
}

fn load_rack(path: &Path) -> Result<(), String> {
    rack::load(path).map(|_| ())
}

impl Domain<String> for ModelFile {
    fn check(&self, field: &'static str, value: &String) -> Result<(), OptionRangeError> {
        if value.is_empty() {
            return Ok(());
        }
        (self.load)(Path::new(value)).map_err(|e| OptionRangeError {
            field,
            value: format!("{value:?}"),
            expected: format!("{}, but {e}", self.what),
        })
    }

    fn clamp(&self, value: String, fallback: String) -> String {
        match self.check("", &value) {
            Ok(()) => value,
            Err(_) => fallback,
        }
    }
}

/// The weights of the greedy playouts' evaluation terms: none (the hand-set sum), or one finite
/// number from −[`MAX_TERM_WEIGHT`] to [`MAX_TERM_WEIGHT`] per term of [`TERMS`].
struct PlayoutTerms;

/// Largest weight of a term in a greedy playout, either way: a few loss threats (100,000
/// points each) weighted more would pass for a win or a loss.
const MAX_TERM_WEIGHT: f64 = 4.0;

impl Domain<Vec<f64>> for PlayoutTerms {
    fn check(&self, field: &'static str, value: &Vec<f64>) -> Result<(), OptionRangeError> {
        let valid = |w: &f64| w.is_finite() && (-MAX_TERM_WEIGHT..=MAX_TERM_WEIGHT).contains(w);
        if value.is_empty() || (value.len() == TERMS.len() && value.iter().all(valid)) {
            return Ok(());
        }
        Err(OptionRangeError {
            field,
            value: format!("{value:?}"),
            expected: format!(
                "[] (the hand-set sum) or {} weights from -{MAX_TERM_WEIGHT} to {MAX_TERM_WEIGHT}, one per term: {}",
                TERMS.len(),
                TERMS.join(", ")
            ),
        })
    }

    fn clamp(&self, value: Vec<f64>, fallback: Vec<f64>) -> Vec<f64> {
        match self.check("", &value) {
            Ok(()) => value,
            Err(_) => fallback,
        }
    }
}

/// Every search algorithm.
const ALL: &[Algorithm] = &[
    Algorithm::FlatMc,
    Algorithm::Pimc,
    Algorithm::Ismcts,
    Algorithm::CheatUct,
];
/// The algorithms that search a tree (flat MC has only root statistics).
const TREES: &[Algorithm] = &[Algorithm::Pimc, Algorithm::Ismcts, Algorithm::CheatUct];
/// The fair algorithms, which deal the hidden tiles of their observation (cheat-UCT sees them).
const FAIR: &[Algorithm] = &[Algorithm::FlatMc, Algorithm::Pimc, Algorithm::Ismcts];

/// Defines [`SearchConfig`] and everything derived from its option table.
macro_rules! search_options {
    ($(
        $(#[doc = $doc:literal])*
        $(#[serde($($serde:tt)*)])?
        $name:ident: $ty:ty = $default:expr, in $domain:expr, for $algorithms:expr;
    )*) => {
        /// Settings of a search bot, as written in the `[search]` section of bot presets.
        #[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct SearchConfig {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])?
                pub $name: $ty,
            )*
        }

        impl SearchConfig {
    /// The policy model the tree's prior reads: none without `policy_prior`; else the weights
    /// of `policy_weights`, or the shipped ones when it is empty or (in a config that was not
    /// validated) cannot be used.
    pub fn policy_model(&self) -> Option<&'static PolicyModel> {
        self.policy_prior
            .then(|| match self.policy_weights.as_str() {
                "" => PolicyModel::shipped(),
                path => policy::load(Path::new(path)).unwrap_or_else(|_| PolicyModel::shipped()),
            })
    }

            /// Every option at its default.
            pub const DEFAULT: SearchConfig = SearchConfig { $($name: $default,)* };

            /// The option names, in the order of the table.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name),)*];

            /// Checks every option against its valid range; the message names the option and
            /// the range.
            pub fn validate(&self) -> Result<(), OptionRangeError> {
                $( $domain.check(stringify!($name), &self.$name)?; )*
                Ok(())
            }

            /// Every option brought into its valid range (a value that is not a number takes
            /// the default).
            pub fn clamped(&self) -> SearchConfig {
                SearchConfig {
                    $( $name: $domain.clamp(self.$name.clone(), Self::DEFAULT.$name), )*
                }
            }

            /// Whether the option `name` changes how `algorithm` plays (`None` for an unknown
            /// name).
            pub fn applies_to(name: &str, algorithm: Algorithm) -> Option<bool> {
                match name {
                    $( stringify!($name) => Some($algorithms.contains(&algorithm)), )*
                    _ => None,
                }
            }
        }
    };
}

search_options! {
    /// UCB exploration constant (rewards are in 0..1); beyond 100 UCB is a uniform sweep.
    exploration: f64 = 0.7, in Real(0.0, 100.0), for ALL;
    /// PIMC: determinizations (trees) per decision; the iterations are split among them.
    determinizations: u32 = 8, in Whole(1, 4096), for &[Algorithm::Pimc];
    /// Searches run at once, each on a thread of its own; 1 = sequential. Without `trees` (or
    /// `shared_tree`), one tree (or flat search) per thread: an iteration budget is split among
    /// them, a time budget applies to each.
    threads: usize = 1, in Whole(1, 256), for ALL;
    /// ISMCTS, flat MC and cheat-UCT: independent trees (or flat searches) per decision, their
    /// root statistics summed (an ensemble), run `threads` at a time; the iteration budget is
    /// split among them, and each thread's time budget among its trees in turn. 0 = one per
    /// thread.
    #[serde(skip_serializing_if = "is_zero")]
    trees: u32 = 0, in Whole(0, 4096),
        for &[Algorithm::FlatMc, Algorithm::Ismcts, Algorithm::CheatUct];
    /// How playouts choose decisions.
    playout: PlayoutPolicy = PlayoutPolicy::Heuristic, in Any, for ALL;
    /// Playouts (and tree descents) stop as a 0.5 reward once this many turns have begun after
    /// the decision's turn.
    max_playout_turns: u16 = 200, in Whole(1, u16::MAX), for ALL;
    /// Tree nodes where a legal decision wins at once (HQ capture, medal objective) follow only
    /// that decision, for either player (see `tree.rs`). Measured against `greedy` at 2,000
    /// iterations (results/search-strength.md): about 3 points on top of `prior`.
    decisive: bool = true, in Any, for TREES;
    /// Playouts stop after this many turns and score the position with the `greedy` bot's
    /// evaluation as a win probability (see `playout.rs`); 0 = play to the end of the game.
    eval_turns: u16 = 0, in Any, for ALL;
    /// Evaluation score points per logistic unit (one medal is 100 points).
    eval_scale: f64 = 200.0, in Real(1.0, 1e6), for ALL;
    /// Progressive bias: a tree child's UCB score gains `prior × w / (visits + 1)`, where `w` in
    /// 0..1 is its weight under the tactical playout policy, and untried children are expanded
    /// in proportion to that weight (see `tree.rs`); 0 = off (uniform expansion, plain UCB).
    /// Measured against `greedy` at 2,000 iterations: it lifts ISMCTS from 54% to 61%
    /// (results/search-strength.md).
    prior: f64 = 1.0, in Real(0.0, 100.0), for TREES;
    /// The prior's weights come from the shipped policy model
    /// ([`PolicyModel::shipped`](crate::model::PolicyModel::shipped), fitted to the search's
    /// own decisions in self-play by `toybattle train policy`), which weighs the troop placed
    /// too, instead of the hand-set tactical weights. Needs `prior`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    policy_prior: bool = false, in Any, for TREES;
    /// With `policy_prior`: the policy model's weights file (as `toybattle train policy`
    /// writes it, a path from the current folder) instead of the shipped weights; empty = the
    /// shipped ones. A preset naming a file that is missing, truncated or corrupt is refused
    /// with the reason.
    #[serde(skip_serializing_if = "String::is_empty")]
    policy_weights: String = String::new(), in POLICY_FILE, for TREES;
    /// Chance outcomes the searching player sees (its own draws, XB-42 discards, a freeze of
    /// its own tile) branch the tree, so that its later decisions are conditioned on them
    /// (see `tree.rs`); off = every chance outcome is merged, as in the paper.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    observed_chance: bool = false, in Any, for TREES;
    /// Determinizations deal the opponent's rack with [`KEPT_TROOPS`](super::KEPT_TROOPS), the
    /// odds measured in self-play that each troop is still on a rack, instead of uniformly.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rack_belief: bool = false, in Any, for FAIR;
    /// Determinizations trust what the opponent's play has shown (`info::RackEvidence`): the
    /// rack tiles they held when they could have won at once are dealt only from troops that
    /// would not have won. Sound against opponents that never miss an immediate win.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rack_evidence: bool = false, in Any, for FAIR;
    /// Cut playouts are scored with [`FITTED_EVAL`](super::FITTED_EVAL), weights fitted to game
    /// outcomes, instead of the hand-set sum of the evaluation's terms over `eval_scale`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fitted_eval: bool = false, in Any, for ALL;
    /// Cut playouts are scored by the combined evaluation: the log-odds of the fitted
    /// evaluation ([`FITTED_EVAL`](super::FITTED_EVAL)) plus the learned value model's
    /// correction, read from the observation of the player to move at the cut (`eval_scale`
    /// and `fitted_eval` unused; the weights are the shipped ones, [`ValueModel::shipped`], or
    /// `value_weights`). Needs `eval_turns`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    value_model: bool = false, in Any, for ALL;
    /// With `value_model`: the value model's weights file (as `toybattle train` writes it,
    /// a path from the current folder) instead of the shipped weights; empty = the shipped
    /// ones. A preset naming a file that is missing, truncated, corrupt, or from another
    /// format, encoding or model shape is refused with the reason.
    #[serde(skip_serializing_if = "String::is_empty")]
    value_weights: String = String::new(), in VALUE_FILE, for ALL;
    /// Determinizations deal the opponent's rack with the odds the rack model gives for the
    /// position (the shipped weights, [`RackModel::shipped`], fitted to the true racks of
    /// self-play games by `toybattle train rack`, or `rack_weights`) instead of
    /// [`KEPT_TROOPS`](super::KEPT_TROOPS); `rack_belief` is then unused.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rack_model: bool = false, in Any, for FAIR;
    /// With `rack_model`: the rack model's weights file (as `toybattle train rack` writes it, a
    /// path from the current folder) instead of the shipped weights; empty = the shipped ones.
    /// A preset naming a file that is missing, truncated, corrupt or from another encoding is
    /// refused with the reason.
    #[serde(skip_serializing_if = "String::is_empty")]
    rack_weights: String = String::new(), in RACK_FILE, for FAIR;
    /// Determinizations deal the tiles the opponent held through their latest turn with the
    /// odds their choice of action gives each troop, raised to this power
    /// ([`held_odds`](super::held_odds)): 0 = the choice is ignored; 0.9 fits `strong`'s
    /// records (`toybattle train rack`, results/learning.md).
    #[serde(skip_serializing_if = "is_zero_real")]
    rack_choice: f64 = 0.0, in Real(0.0, 4.0), for FAIR;
    /// ISMCTS and cheat-UCT: the `threads` work on one tree (tree parallelism: the descents
    /// are made in turn with a virtual loss and their playouts at once, see `tree.rs`) instead
    /// of one tree each; `trees` is then unused. The decision depends on the seed and the
    /// number of threads, as a single tree's does on the seed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    shared_tree: bool = false, in Any, for &[Algorithm::Ismcts, Algorithm::CheatUct];
    /// A search of one tree (ISMCTS, cheat-UCT, PIMC of one determinization; `shared_tree`
    /// counts as one) stops once its most visited root decision leads every other by more
    /// visits than the budget has iterations left: the search would choose it anyway, so
    /// under an iteration budget the decision is the one the whole budget gives, found
    /// sooner (a time budget's iterations left are estimated from the pace so far). The root
    /// statistics then hold the iterations run. Checked every 64 iterations.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stop_when_decided: bool = false, in Any, for TREES;
    /// With `stop_when_decided`: the iterations left are divided by this factor before the
    /// leader's lead is held against them (Leela Chess Zero's smart-pruning factor). 1 = the
    /// search stops only when no other decision could catch up, so it chooses what its whole
    /// budget would; above 1 it stops sooner, on a lead the rest of the budget could still,
    /// rarely, overturn, and saves more time for a larger budget.
    #[serde(skip_serializing_if = "is_one")]
    decided_factor: f64 = 1.0, in Real(1.0, 1000.0), for TREES;
    /// Cheat-UCT is shown only the opponent's rack (its tiles, and which are frozen), not
    /// the reserves' contents nor the tiles removed at setup: it deals those as a fair search
    /// does, in a fresh determinization per iteration. The reference that measures what
    /// knowing the rack alone is worth (`results/learning.md`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rack_only: bool = false, in Any, for &[Algorithm::CheatUct];
    /// Greedy playouts (`greedy`, `greedy-once`, `greedy-effects`) pick their decisions by the
    /// evaluation's terms (medals, rack, presence, regions, race, threats, exposure) weighted
    /// by these numbers, one per term, instead of their plain sum; empty = the plain sum (each
    /// weight 1). The cut's evaluation is unchanged (`fitted_eval`, `eval_scale`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    playout_weights: Vec<f64> = Vec::new(), in PlayoutTerms, for ALL;
}

impl SearchConfig {
    /// The rack model determinizations deal with: none without `rack_model`; else the weights
    /// of `rack_weights`, or the shipped ones when it is empty or (in a config that was not
    /// validated) cannot be used.
    pub fn rack_model(&self) -> Option<&'static RackModel> {
        self.rack_model.then(|| match self.rack_weights.as_str() {
            "" => RackModel::shipped(),
            path => rack::load(Path::new(path)).unwrap_or_else(|_| RackModel::shipped()),
        })
    }

    /// The weights greedy playouts judge with (`playout_weights`), in the judge's millionths.
    pub(crate) fn playout_term_weights(&self) -> TermWeights {
        match self.playout_weights.as_slice() {
            [] => HAND_SET_WEIGHTS,
            w => term_weights(&std::array::from_fn(|i| w.get(i).copied().unwrap_or(1.0))),
        }
    }

    /// The value model `value_model` asks: the weights of `value_weights`, or the shipped
    /// ones when it is empty or (in a config that was not validated) cannot be used.
    pub fn value_weights_model(&self) -> &'static ValueModel {
        match self.value_weights.as_str() {
            "" => ValueModel::shipped(),
            path => weights::load(Path::new(path)).unwrap_or_else(|_| ValueModel::shipped()),
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig::DEFAULT
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_real(x: &f64) -> bool {
    *x == 0.0
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's names are the serialized field names, so presets and messages agree.
    #[test]
    fn names_are_the_fields_of_the_serialized_form() {
        let all_on = SearchConfig {
            trees: 1,
            observed_chance: true,
            rack_belief: true,
            rack_evidence: true,
            fitted_eval: true,
            value_model: true,
            policy_prior: true,
            value_weights: "w".to_string(),
            policy_weights: "p".to_string(),
            rack_model: true,
            rack_weights: "r".to_string(),
            rack_choice: 0.9,
            shared_tree: true,
            rack_only: true,
            stop_when_decided: true,
            decided_factor: 1.5,
            playout_weights: vec![1.0; TERMS.len()],
            ..SearchConfig::DEFAULT
        };
        let table: toml::Table = toml::from_str(&toml::to_string(&all_on).unwrap()).unwrap();
        let keys: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut names = SearchConfig::NAMES.to_vec();
        names.sort_unstable();
        assert_eq!(keys, names);
        for name in SearchConfig::NAMES {
            assert!(SearchConfig::applies_to(name, Algorithm::Ismcts).is_some());
        }
        assert_eq!(SearchConfig::applies_to("explore", Algorithm::Ismcts), None);
    }

    #[test]
    fn clamping_brings_every_option_into_its_range() {
        let wild = SearchConfig {
            exploration: f64::NAN,
            determinizations: 0,
            threads: 10_000,
            trees: 5000,
            max_playout_turns: 0,
            eval_scale: 0.5,
            prior: -3.0,
            ..SearchConfig::DEFAULT
        };
        assert!(wild.validate().is_err());
        let tame = wild.clamped();
        assert_eq!(tame.validate(), Ok(()));
        assert_eq!(tame.exploration, SearchConfig::DEFAULT.exploration);
        assert_eq!((tame.determinizations, tame.threads), (1, 256));
        assert_eq!((tame.trees, tame.max_playout_turns), (4096, 1));
        assert_eq!((tame.eval_scale, tame.prior), (1.0, 0.0));
        assert_eq!(SearchConfig::DEFAULT.clamped(), SearchConfig::DEFAULT);
    }

    /// `playout_weights`: empty (the hand-set sum) or one weight from −4 to 4 per term; the
    /// message names the terms. The judge reads them in millionths.
    #[test]
    fn playout_weights_are_one_per_term_or_none() {
        let with = |w: Vec<f64>| SearchConfig {
            playout_weights: w,
            ..SearchConfig::DEFAULT
        };
        assert_eq!(
            SearchConfig::DEFAULT.playout_term_weights(),
            HAND_SET_WEIGHTS
        );
        let fitted = with(vec![0.633, 1.967, 4.0, 0.837, 0.805, 0.008, 1.099]);
        assert_eq!(fitted.validate(), Ok(()));
        assert_eq!(
            fitted.playout_term_weights(),
            [633_000, 1_967_000, 4_000_000, 837_000, 805_000, 8_000, 1_099_000]
        );
        for bad in [
            vec![1.0; 6],
            vec![1.0; 8],
            vec![-4.5; 7],
            vec![4.5; 7],
            vec![f64::NAN; 7],
        ] {
            let err = with(bad.clone()).validate().unwrap_err();
            assert_eq!(err.field, "playout_weights");
            assert!(err.expected.contains("medals, rack, presence"), "{err}");
            assert_eq!(with(bad).clamped().playout_weights, Vec::<f64>::new());
        }
    }

    #[test]
    fn options_apply_to_the_algorithms_that_read_them() {
        use Algorithm::*;
        let applies = |name, a| SearchConfig::applies_to(name, a) == Some(true);
        assert!(applies("determinizations", Pimc) && !applies("determinizations", Ismcts));
        assert!(!applies("trees", Pimc) && applies("trees", FlatMc));
        assert!(!applies("shared_tree", Pimc) && !applies("shared_tree", FlatMc));
        assert!(!applies("prior", FlatMc) && applies("prior", CheatUct));
        assert!(!applies("rack_belief", CheatUct) && applies("rack_belief", FlatMc));
        assert!(applies("rack_only", CheatUct) && !applies("rack_only", Ismcts));
        assert!(ALL.iter().all(|&a| applies("playout", a)));
    }
}
