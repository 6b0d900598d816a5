//! Bot presets: a TOML file naming an algorithm, a budget and search parameters.
//!
//! ```toml
//! description = "Information-set MCTS, 1 second per decision, 2 threads"
//! algorithm = "ismcts"      # random | greedy | flat-mc | pimc | ismcts | cheat-uct
//! [budget]                  # search algorithms only
//! time_ms = 1000            # and/or iterations = 20000 (whichever ends first)
//! [search]                  # SearchConfig fields, search algorithms only
//! threads = 2
//! exploration = 0.7
//! ```
//!
//! The presets of `bots/` are compiled into the binary, so it works from any directory. A spec
//! is a shipped preset's name (its file name without `.toml`) or a path to a preset file.

use super::greedy::GreedyBot;
use super::random::RandomBot;
use super::search::{make_player, Algorithm, OptionRangeError, SearchConfig};
use super::{Budget, Player};
use crate::model::weights;
use crate::terrain::input;
use crate::vocabulary::hash::fnv1a;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// The presets of `bots/`, by name: the baselines, then the cheating references.
const SHIPPED: &[(&str, &str)] = &[
    ("random", include_str!("../../bots/random.toml")),
    ("greedy", include_str!("../../bots/greedy.toml")),
    ("flat-mc", include_str!("../../bots/flat-mc.toml")),
    ("pimc", include_str!("../../bots/pimc.toml")),
    ("ismcts-fast", include_str!("../../bots/ismcts-fast.toml")),
    ("cheat-uct", include_str!("../../bots/cheat-uct.toml")),
    (
        "cheat-uct-fast",
        include_str!("../../bots/cheat-uct-fast.toml"),
    ),
];

/// The play levels of `bots/` (offered by `session::Level`), weakest first: shipped presets
/// too, listed apart because `beginner` and `casual` play as `greedy` and `ismcts-fast` do.
const LEVELS: &[(&str, &str)] = &[
    ("beginner", include_str!("../../bots/beginner.toml")),
    ("casual", include_str!("../../bots/casual.toml")),
    ("strong", include_str!("../../bots/strong.toml")),
    ("strongest", include_str!("../../bots/strongest.toml")),
];

/// The text of a play level's preset file (`bots/NAME.toml`), by the level's name.
pub fn level_text(name: &str) -> Option<&'static str> {
    LEVELS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Algorithm names a preset may give, in the order of the documentation.
const ALGORITHMS: [&str; 6] = ["random", "greedy", "flat-mc", "pimc", "ismcts", "cheat-uct"];

/// The search algorithms, in the order of [`ALGORITHMS`].
const SEARCHES: [Algorithm; 4] = [
    Algorithm::FlatMc,
    Algorithm::Pimc,
    Algorithm::Ismcts,
    Algorithm::CheatUct,
];

/// Why a preset spec or file was refused; every message names the preset file (or spec), the
/// field at fault and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// The spec is neither a shipped preset's name nor a path to a preset file.
    #[error(
        "unknown bot preset '{spec}': expected one of {shipped} or a path to a .toml preset file"
    )]
    UnknownPreset {
        /// The spec as given.
        spec: String,
        /// The shipped presets' names, comma-separated.
        shipped: String,
    },
    /// The preset file could not be read: missing, not a regular file, or over its size cap.
    #[error(transparent)]
    Unreadable(#[from] crate::terrain::input::InputError),
    /// The file is not valid TOML, or a field has the wrong type or is not a preset field.
    #[error("{origin}: {source}")]
    Malformed {
        /// The preset file.
        origin: String,
        /// The TOML reader's message, with line and column.
        source: toml::de::Error,
    },
    /// `algorithm` names no algorithm.
    #[error("{origin}: algorithm = \"{algorithm}\" is not known: expected one of {expected}")]
    UnknownAlgorithm {
        /// The preset file.
        origin: String,
        /// The algorithm as written.
        algorithm: String,
        /// The algorithm names a preset may give, comma-separated.
        expected: String,
    },
    /// The `[search]` section names an option that does not exist.
    #[error("{origin}: [search] {field} is not a search option: expected one of {expected}")]
    UnknownOption {
        /// The preset file.
        origin: String,
        /// The option as written.
        field: String,
        /// The search options' names, comma-separated.
        expected: String,
    },
    /// A `[search]` option that the preset's algorithm does not read.
    #[error("{origin}: [search] {field} does not apply to algorithm \"{algorithm}\": {users}")]
    NotApplicable {
        /// The preset file.
        origin: String,
        /// The option as written.
        field: String,
        /// The preset's algorithm.
        algorithm: String,
        /// Which algorithms read the option (or that this one does not search).
        users: String,
    },
    /// A random or greedy preset with a `[budget]` or `[search]` section.
    #[error(
        "{origin}: algorithm \"{algorithm}\" does not search, so it takes no [budget] or \
         [search] section"
    )]
    SectionWithoutSearch {
        /// The preset file.
        origin: String,
        /// The preset's algorithm.
        algorithm: String,
    },
    /// A search option outside its valid range.
    #[error("{origin}: [search] {source}")]
    OutOfRange {
        /// The preset file.
        origin: String,
        /// The option, its value and its range.
        source: OptionRangeError,
    },
    /// A search preset without `time_ms` or `iterations`, or with one of them 0.
    #[error(
        "{origin}: a search algorithm needs a [budget] with time_ms (milliseconds per \
         decision) or iterations (per decision), or both, each at least 1"
    )]
    NoBudget {
        /// The preset file.
        origin: String,
    },
}

/// What a preset plays with, parsed and validated.
#[derive(Clone, Debug, PartialEq)]
pub enum BotConfig {
    /// Plays a uniformly random legal decision.
    Random,
    /// Plays the decision with the best immediate outcome.
    Greedy,
    /// Searches with `algorithm` under the options of the `[search]` section.
    Search {
        /// The search algorithm.
        algorithm: Algorithm,
        /// The validated `[search]` options.
        config: SearchConfig,
    },
}

/// A parsed, validated bot preset.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The shipped name, or the file name without `.toml`.
    pub name: String,
    /// What the preset is for, as written in the file.
    pub description: String,
    /// The algorithm's name as written in presets, e.g. "ismcts".
    pub algorithm: String,
    /// Budget per decision; the default (none) for random and greedy, which do not search.
    pub budget: Budget,
    /// What the bot plays with.
    pub config: BotConfig,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetFile {
    description: String,
    algorithm: String,
    budget: Option<BudgetFile>,
    search: Option<SearchConfig>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetFile {
    time_ms: Option<u64>,
    iterations: Option<u64>,
}

/// Every shipped preset, in the order of `bots/README.md`: baselines first, then search.
pub fn shipped_presets() -> Vec<Preset> {
    SHIPPED
        .iter()
        .map(|(name, text)| {
            parse(name, text, &format!("bots/{name}.toml (shipped)"))
                .expect("shipped presets are checked by the tests")
        })
        .collect()
}

/// Names of the shipped presets.
pub fn shipped_names() -> Vec<&'static str> {
    SHIPPED.iter().map(|(name, _)| *name).collect()
}

/// The preset of a spec: a shipped preset's or play level's name, or a path to a `.toml` preset
/// file.
pub fn resolve(spec: &str) -> Result<Preset, PresetError> {
    let named = SHIPPED.iter().chain(LEVELS).find(|(name, _)| *name == spec);
    if let Some((name, text)) = named {
        return parse(name, text, &format!("bots/{name}.toml (shipped)"));
    }
    let path = Path::new(spec);
    let is_file_spec = path.extension().is_some_and(|e| e == "toml") || path.exists();
    if !is_file_spec {
        return Err(PresetError::UnknownPreset {
            spec: spec.to_string(),
            shipped: shipped_names()
                .into_iter()
                .chain(LEVELS.iter().map(|(name, _)| *name))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let text = input::read_text(path, input::PRESET)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| spec.to_string());
    parse(&name, &text, spec)
}

/// Parses and validates preset text; `origin` names the file in messages.
pub fn parse(name: &str, text: &str, origin: &str) -> Result<Preset, PresetError> {
    let malformed = |source| PresetError::Malformed {
        origin: origin.to_string(),
        source,
    };
    let table: toml::Table = toml::from_str(text).map_err(malformed)?;
    let written = written_search_fields(&table);
    if let Some(field) = written
        .iter()
        .find(|f| !SearchConfig::NAMES.contains(&f.as_str()))
    {
        return Err(PresetError::UnknownOption {
            origin: origin.to_string(),
            field: field.clone(),
            expected: SearchConfig::NAMES.join(", "),
        });
    }
    let file: PresetFile = toml::from_str(text).map_err(malformed)?;
    let config = match file.algorithm.as_str() {
        "random" => BotConfig::Random,
        "greedy" => BotConfig::Greedy,
        other => {
            let algorithm = SEARCHES
                .into_iter()
                .find(|a| a.key() == other)
                .ok_or_else(|| PresetError::UnknownAlgorithm {
                    origin: origin.to_string(),
                    algorithm: other.to_string(),
                    expected: ALGORITHMS.join(", "),
                })?;
            check_applicable(&written, algorithm, origin)?;
            let config = file.search.clone().unwrap_or_default();
            config
                .validate()
                .map_err(|source| PresetError::OutOfRange {
                    origin: origin.to_string(),
                    source,
                })?;
            BotConfig::Search { algorithm, config }
        }
    };
    let budget = match &config {
        BotConfig::Random | BotConfig::Greedy => {
            if let Some(field) = written.first() {
                return Err(PresetError::NotApplicable {
                    origin: origin.to_string(),
                    field: field.clone(),
                    algorithm: file.algorithm,
                    users: "it does not search, so it takes no [search] section".to_string(),
                });
            }
            if file.budget.is_some() || file.search.is_some() {
                return Err(PresetError::SectionWithoutSearch {
                    origin: origin.to_string(),
                    algorithm: file.algorithm,
                });
            }
            Budget::default()
        }
        BotConfig::Search { .. } => search_budget(file.budget.as_ref(), origin)?,
    };
    Ok(Preset {
        name: name.to_string(),
        description: file.description,
        algorithm: file.algorithm,
        budget,
        config,
    })
}

/// The option names written in the `[search]` section of a preset's table.
fn written_search_fields(table: &toml::Table) -> Vec<String> {
    match table.get("search") {
        Some(toml::Value::Table(search)) => search.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Refuses a `[search]` option that does not change how `algorithm` plays (e.g. `trees` for
/// PIMC, `prior` for flat MC, `rack_belief` for the cheating search), so that a preset never
/// seems to set what it does not.
fn check_applicable(
    written: &[String],
    algorithm: Algorithm,
    origin: &str,
) -> Result<(), PresetError> {
    for field in written {
        if SearchConfig::applies_to(field, algorithm) == Some(false) {
            let users: Vec<&str> = SEARCHES
                .into_iter()
                .filter(|&a| SearchConfig::applies_to(field, a) == Some(true))
                .map(Algorithm::key)
                .collect();
            return Err(PresetError::NotApplicable {
                origin: origin.to_string(),
                field: field.clone(),
                algorithm: algorithm.key().to_string(),
                users: format!("only to {}", users.join(", ")),
            });
        }
    }
    Ok(())
}

/// A search preset's budget: at least one of `time_ms` and `iterations`, each positive.
fn search_budget(budget: Option<&BudgetFile>, origin: &str) -> Result<Budget, PresetError> {
    let refused = || PresetError::NoBudget {
        origin: origin.to_string(),
    };
    let b = budget.ok_or_else(refused)?;
    let none_given = b.time_ms.is_none() && b.iterations.is_none();
    if none_given || b.time_ms == Some(0) || b.iterations == Some(0) {
        return Err(refused());
    }
    Ok(Budget {
        iterations: b.iterations,
        time: b.time_ms.map(Duration::from_millis),
    })
}

impl Preset {
    /// A fresh seat playing this preset, named after it.
    pub fn player(&self) -> Player {
        match &self.config {
            BotConfig::Random => Player::Fair(Box::new(RandomBot::new(&self.name))),
            BotConfig::Greedy => Player::Fair(Box::new(GreedyBot::new(&self.name))),
            BotConfig::Search { algorithm, config } => make_player(&self.name, *algorithm, config),
        }
    }

    /// Whether the preset's bot sees the referee's true state.
    pub fn is_cheating(&self) -> bool {
        matches!(
            self.config,
            BotConfig::Search {
                algorithm: Algorithm::CheatUct,
                ..
            }
        )
    }

    /// A short hash (12 hex digits) of what the preset plays with: algorithm, budget and every
    /// search parameter with defaults filled in, and the value and policy models' weights when it
    /// plays with them. Comments, layout, name and description do not change it; any change of play does.
    /// `stop_when_decided` under an iteration budget does not: the decisions are the whole
    /// budget's (a search only stops sooner), so a study's games are the same games.
    /// Stable across builds (FNV-1a, not std's hasher).
    pub fn version(&self) -> String {
        let search = match &self.config {
            BotConfig::Search { config, .. } => {
                // The weights a value model plays with, not the name of their file: a resumed
                // run whose weights file was rewritten, or a build shipping other weights,
                // plays another bot; the same weights under another name play the same one.
                let mut named = config.clone();
                named.value_weights = String::new();
                named.policy_weights = String::new();
                named.rack_weights = String::new();
                // Stopping when decided plays the whole budget's games under an iteration
                // budget, unless a factor above 1 stops it sooner; off, the factor is unused.
                if self.budget.iterations.is_some() && named.decided_factor == 1.0 {
                    named.stop_when_decided = false;
                }
                if !named.stop_when_decided {
                    named.decided_factor = 1.0;
                }
                let mut text = toml::to_string(&named).expect("a search config serializes to TOML");
                if config.value_model {
                    let weights = weights::to_bytes(config.value_weights_model());
                    text.push_str(&format!("weights={:016x}\n", fnv1a(&weights)));
                }
                if let Some(policy) = config.policy_model() {
                    let policy = policy.to_json();
                    text.push_str(&format!("policy={:016x}\n", fnv1a(policy.as_bytes())));
                }
                if let Some(rack) = config.rack_model() {
                    let rack = rack.to_json();
                    text.push_str(&format!("rack={:016x}\n", fnv1a(rack.as_bytes())));
                }
                text
            }
            BotConfig::Random | BotConfig::Greedy => String::new(),
        };
        let canonical = format!(
            "algorithm={}\niterations={:?}\ntime_ms={:?}\n{search}",
            self.algorithm,
            self.budget.iterations,
            self.budget.time.map(|t| t.as_millis()),
        );
        format!("{:012x}", fnv1a(canonical.as_bytes()) >> 16)
    }
}
