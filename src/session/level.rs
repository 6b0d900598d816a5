//! The levels a player chooses from: each a shipped preset of `bots/`, never the cheating
//! reference.

use crate::bot::preset::{level_text, parse, Preset};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The measured ladder of the levels against each other, as `results/levels/ladder.md` gives it
/// (written by `scripts/level-ladder.sh`): `toybattle play --help` and the page show it.
pub const LADDER: &str = include_str!("../../results/levels/ladder.md");

/// How strongly the computer plays. Each level is a preset file of `bots/` compiled into the
/// binary; every one is a fair bot (it sees its own observation only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `bots/beginner.toml`: the rule-based greedy bot.
    Beginner,
    /// `bots/casual.toml`: a quick search.
    Casual,
    /// `bots/strong.toml`: the settings of `ismcts-13500-greedy` with up to 29,000 iterations
    /// on two threads sharing one tree, stopping a decision once decided, its cut playouts
    /// scored with the learned value model.
    Strong,
    /// `bots/strongest.toml`: the same settings and value model with up to 100,000 iterations
    /// on two threads sharing one tree, stopping once decided; its time limit is only a safety
    /// net for slow machines.
    Strongest,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [
        Level::Beginner,
        Level::Casual,
        Level::Strong,
        Level::Strongest,
    ];

    /// The level's name, as typed on the command line and kept in records: `beginner`,
    /// `casual`, `strong`, `strongest`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Casual => "casual",
            Level::Strong => "strong",
            Level::Strongest => "strongest",
        }
    }

    /// The text of the level's preset file, compiled in by `bot::preset`.
    fn preset_text(self) -> &'static str {
        level_text(self.name()).expect("every level has its preset file in bots/")
    }

    /// The level's preset, named after the level.
    pub fn preset(self) -> Preset {
        let name = self.name();
        parse(
            name,
            self.preset_text(),
            &format!("bots/{name}.toml (level)"),
        )
        .expect("the level presets are checked by the tests")
    }

    /// The preset's description: what the bot does and how long it thinks.
    pub fn description(self) -> String {
        self.preset().description
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is none of the levels; its message lists them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level '{given}': expected one of {}", level_names())]
pub struct UnknownLevel {
    /// The name as given.
    pub given: String,
}

/// The levels' names, weakest first, comma-separated.
fn level_names() -> String {
    let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
    names.join(", ")
}

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownLevel {
                given: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_is_a_valid_fair_preset_named_after_it() {
        for level in Level::ALL {
            let preset = level.preset();
            assert_eq!(preset.name, level.name());
            assert!(!preset.is_cheating(), "{level} must never see hidden tiles");
            assert!(!preset.player().is_cheating());
            assert_eq!(level.name().parse::<Level>(), Ok(level));
        }
        let e = "cheat-uct".parse::<Level>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown level 'cheat-uct': expected one of beginner, casual, strong, strongest"
        );
    }

    /// The two strong levels play the same on every machine: an iteration budget on a fixed
    /// number of threads sharing one tree, whose decisions depend on the seed and that number
    /// only (docs/play.md says why not one thread per core).
    #[test]
    fn the_strong_levels_decide_from_their_seed_alone() {
        for (level, iterations) in [(Level::Strong, 29_000), (Level::Strongest, 100_000)] {
            let preset = level.preset();
            assert_eq!(preset.budget.iterations, Some(iterations), "{level}");
            match preset.config {
                crate::bot::preset::BotConfig::Search { config, .. } => {
                    assert_eq!((config.threads, config.shared_tree), (2, true), "{level}");
                }
                other => panic!("{level} is a search, not {other:?}"),
            }
        }
    }
}
