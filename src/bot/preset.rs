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
use super::search::{make_player, Algorithm, SearchConfig};
use super::{Budget, Player};
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

/// Algorithm names a preset may give, in the order of the documentation.
const ALGORITHMS: [&str; 6] = ["random", "greedy", "flat-mc", "pimc", "ismcts", "cheat-uct"];

/// The search algorithms, in the order of [`ALGORITHMS`].
const SEARCHES: [Algorithm; 4] = [
    Algorithm::FlatMc,
    Algorithm::Pimc,
    Algorithm::Ismcts,
    Algorithm::CheatUct,
];

/// What a preset plays with, parsed and validated.
#[derive(Clone, Debug, PartialEq)]
pub enum BotConfig {
    Random,
    Greedy,
    Search {
        algorithm: Algorithm,
        config: SearchConfig,
    },
}

/// A parsed, validated bot preset.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The shipped name, or the file name without `.toml`.
    pub name: String,
    pub description: String,
    /// The algorithm's name as written in presets, e.g. "ismcts".
    pub algorithm: String,
    /// Budget per decision; the default (none) for random and greedy, which do not search.
    pub budget: Budget,
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

/// The preset of a spec: a shipped preset's name, or a path to a `.toml` preset file.
pub fn resolve(spec: &str) -> Result<Preset, String> {
    if let Some((name, text)) = SHIPPED.iter().find(|(name, _)| *name == spec) {
        return parse(name, text, &format!("bots/{name}.toml (shipped)"));
    }
    let path = Path::new(spec);
    let is_file_spec = path.extension().is_some_and(|e| e == "toml") || path.exists();
    if !is_file_spec {
        return Err(format!(
            "unknown bot preset '{spec}': expected one of {} or a path to a .toml preset file",
            shipped_names().join(", ")
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read preset {spec}: {e}"))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| spec.to_string());
    parse(&name, &text, spec)
}

/// Parses and validates preset text; `origin` names the file in messages.
pub fn parse(name: &str, text: &str, origin: &str) -> Result<Preset, String> {
    let file: PresetFile = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
    let config = match file.algorithm.as_str() {
        "random" => BotConfig::Random,
        "greedy" => BotConfig::Greedy,
        other => {
            let algorithm = SEARCHES
                .into_iter()
                .find(|a| a.key() == other)
                .ok_or_else(|| {
                    format!(
                        "{origin}: algorithm = \"{other}\" is not known: expected one of {}",
                        ALGORITHMS.join(", ")
                    )
                })?;
            check_applicable(text, algorithm, origin)?;
            let config = file.search.clone().unwrap_or_default();
            config
                .validate()
                .map_err(|e| format!("{origin}: [search] {e}"))?;
            BotConfig::Search { algorithm, config }
        }
    };
    let budget = match &config {
        BotConfig::Random | BotConfig::Greedy => {
            if let Some(field) = written_search_fields(text).first() {
                return Err(format!(
                    "{origin}: [search] {field} does not apply to algorithm \"{}\": it does \
                     not search, so it takes no [search] section",
                    file.algorithm
                ));
            }
            if file.budget.is_some() || file.search.is_some() {
                return Err(format!(
                    "{origin}: algorithm \"{}\" does not search, so it takes no [budget] or \
                     [search] section",
                    file.algorithm
                ));
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

/// The option names written in the `[search]` section of preset text that parsed.
fn written_search_fields(text: &str) -> Vec<String> {
    let table: toml::Table = toml::from_str(text).unwrap_or_default();
    match table.get("search") {
        Some(toml::Value::Table(search)) => search.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Refuses a `[search]` option that does not change how `algorithm` plays (e.g. `trees` for
/// PIMC, `prior` for flat MC, `rack_belief` for the cheating search), so that a preset never
/// seems to set what it does not.
fn check_applicable(text: &str, algorithm: Algorithm, origin: &str) -> Result<(), String> {
    for field in written_search_fields(text) {
        if SearchConfig::applies_to(&field, algorithm) == Some(false) {
            let users: Vec<&str> = SEARCHES
                .into_iter()
                .filter(|&a| SearchConfig::applies_to(&field, a) == Some(true))
                .map(Algorithm::key)
                .collect();
            return Err(format!(
                "{origin}: [search] {field} does not apply to algorithm \"{}\": only to {}",
                algorithm.key(),
                users.join(", ")
            ));
        }
    }
    Ok(())
}

/// A search preset's budget: at least one of `time_ms` and `iterations`, each positive.
fn search_budget(budget: Option<&BudgetFile>, origin: &str) -> Result<Budget, String> {
    let missing = || {
        format!(
            "{origin}: a search algorithm needs a [budget] with time_ms (milliseconds per \
             decision) or iterations (per decision), or both"
        )
    };
    let b = budget.ok_or_else(missing)?;
    if b.time_ms.is_none() && b.iterations.is_none() {
        return Err(missing());
    }
    if b.time_ms == Some(0) || b.iterations == Some(0) {
        return Err(format!(
            "{origin}: [budget] time_ms and iterations must be at least 1"
        ));
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
    /// search parameter with defaults filled in. Comments, layout, name and description do not
    /// change it; any change of play does. Stable across builds (FNV-1a, not std's hasher).
    pub fn version(&self) -> String {
        let search = match &self.config {
            BotConfig::Search { config, .. } => {
                toml::to_string(config).expect("a search config serializes to TOML")
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
