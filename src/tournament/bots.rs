//! The bots of a tournament, from their specs: a shipped preset name, a path to a `.toml`
//! preset, or `ext:PATH` for an external program.

use crate::bot::external::{ExternalBot, FailureCell};
use crate::bot::preset::{self, Preset};
use crate::bot::{Budget, Player};
use crate::vocabulary::hash::fnv1a;
use std::path::PathBuf;
use std::time::Duration;

/// The prefix of an external bot's spec.
pub const EXTERNAL_PREFIX: &str = "ext:";

/// A resolved bot spec, from which a fresh player is made for every game.
#[derive(Clone, Debug)]
pub struct BotEntry {
    /// The spec as written on the command line: the bot's name in every table.
    pub spec: String,
    pub version: String,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Preset(Box<Preset>),
    External { program: PathBuf, timeout: Duration },
}

/// A seat for one game, with the budget per decision and, for an external bot, where the
/// reason of a forfeit will be found.
pub struct Seat {
    pub player: Player,
    pub budget: Budget,
    pub failure: Option<FailureCell>,
}

impl BotEntry {
    /// Resolves a spec; `ext_timeout` bounds each answer of an external program.
    pub fn resolve(spec: &str, ext_timeout: Duration) -> Result<BotEntry, String> {
        if let Some(path) = spec.strip_prefix(EXTERNAL_PREFIX) {
            let program = PathBuf::from(path);
            let bytes = std::fs::read(&program)
                .map_err(|e| format!("external bot '{spec}': cannot read program '{path}': {e}"))?;
            return Ok(BotEntry {
                spec: spec.to_string(),
                version: format!("ext-{:012x}", fnv1a(&bytes) >> 16),
                kind: Kind::External {
                    program,
                    timeout: ext_timeout,
                },
            });
        }
        let preset = preset::resolve(spec)?;
        Ok(BotEntry {
            spec: spec.to_string(),
            version: preset.version(),
            kind: Kind::Preset(Box::new(preset)),
        })
    }

    /// A fresh seat: every game starts from a new bot (no memory across games).
    pub fn seat(&self) -> Seat {
        match &self.kind {
            Kind::Preset(p) => Seat {
                player: p.player(),
                budget: p.budget,
                failure: None,
            },
            Kind::External { program, timeout } => {
                let bot = ExternalBot::new(self.spec.clone(), program.clone(), *timeout);
                let failure = Some(bot.failure());
                Seat {
                    player: Player::Fair(Box::new(bot)),
                    budget: Budget::default(),
                    failure,
                }
            }
        }
    }
}
