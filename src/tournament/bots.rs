//! The bots of a tournament, from their specs: a shipped preset name, a path to a `.toml`
//! preset, or `ext:PATH[@VERSION]` for an external program.

use crate::bot::external::{ExternalBot, FailureCell};
use crate::bot::preset::{self, Preset, PresetError};
use crate::bot::{Budget, Player};
use crate::terrain::input;
use std::path::PathBuf;
use std::time::Duration;

/// The prefix of an external bot's spec.
pub const EXTERNAL_PREFIX: &str = "ext:";

/// Why a bot spec names no bot that can play.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// An external bot whose program file cannot be read.
    #[error("external bot '{spec}': cannot read program '{path}': {reason}")]
    Program {
        /// The spec as written.
        spec: String,
        /// The program's path.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// A preset name or file that is refused.
    #[error(transparent)]
    Preset(#[from] PresetError),
}

/// A resolved bot spec, from which a fresh player is made for every game.
#[derive(Clone, Debug)]
pub struct BotEntry {
    /// The spec as written on the command line: the bot's name in every table.
    pub spec: String,
    /// Preset version, or for an external program `ext-` and a hash of its file: results of a changed bot are not mixed with the old ones.
    pub version: String,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Preset(Box<Preset>),
    External {
        program: PathBuf,
        timeout: Duration,
        startup: Duration,
    },
}

/// How long an external program may take: for each answer, and on top of it for the first
/// answer of a game (its start-up).
#[derive(Clone, Copy, Debug)]
pub struct ExternalTimeouts {
    /// Longest wait for each answer; a bot that exceeds it forfeits.
    pub answer: Duration,
    /// Extra wait for the first answer of a game, for the program's start-up.
    pub startup: Duration,
}

/// Where a game is, for an external bot: the game it is told in `hello`, and its log file of
/// standard error.
pub struct SeatGame {
    /// What `hello` tells the program: run, deal, seed and record of the game.
    pub info: crate::bot::external::GameInfo,
    /// The file that keeps the program's standard error.
    pub stderr_log: PathBuf,
}

/// A seat for one game, with the budget per decision and, for an external bot, where the
/// reason of a forfeit will be found.
pub struct Seat {
    /// The bot that plays the seat.
    pub player: Player,
    /// Its thinking budget per decision.
    pub budget: Budget,
    /// Where an external bot leaves the reason of its forfeit; `None` for a preset.
    pub failure: Option<FailureCell>,
}

impl BotEntry {
    /// Resolves a spec; `ext` bounds the answers of an external program. An external bot's
    /// version is `ext-` and a hash of the program file, followed by `@VERSION` when the spec
    /// gives one: the program file alone does not show a rebuilt binary behind a wrapper.
    pub fn resolve(spec: &str, ext: ExternalTimeouts) -> Result<BotEntry, BotError> {
        if let Some(rest) = spec.strip_prefix(EXTERNAL_PREFIX) {
            let (path, given) = match rest.rsplit_once('@') {
                Some((path, version)) if !version.is_empty() && !version.contains('/') => {
                    (path, Some(version))
                }
                _ => (rest, None),
            };
            let program = PathBuf::from(path);
            let hashed = input::fnv1a_file(&program, input::BOT_PROGRAM);
            let hash = hashed.map_err(|e| BotError::Program {
                spec: spec.into(),
                path: path.into(),
                reason: e.to_string(),
            })?;
            let hash = format!("ext-{:012x}", hash >> 16);
            return Ok(BotEntry {
                spec: spec.to_string(),
                version: given.map_or(hash.clone(), |v| format!("{hash}@{v}")),
                kind: Kind::External {
                    program,
                    timeout: ext.answer,
                    startup: ext.startup,
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

    /// Whether this is an external program.
    pub fn is_external(&self) -> bool {
        matches!(self.kind, Kind::External { .. })
    }

    /// A fresh seat: every game starts from a new bot (no memory across games).
    pub fn seat(&self) -> Seat {
        self.new_seat(None)
    }

    /// A fresh seat for a game of a run: an external bot is told which game it plays and logs
    /// its standard error where `game` says.
    pub fn seat_in(&self, game: SeatGame) -> Seat {
        self.new_seat(Some(game))
    }

    fn new_seat(&self, game: Option<SeatGame>) -> Seat {
        match &self.kind {
            Kind::Preset(p) => Seat {
                player: p.player(),
                budget: p.budget,
                failure: None,
            },
            Kind::External {
                program,
                timeout,
                startup,
            } => {
                let mut bot = ExternalBot::new(self.spec.clone(), program.clone(), *timeout)
                    .with_startup_timeout(*startup);
                if let Some(g) = game {
                    bot = bot.with_game(g.info).with_stderr_log(g.stderr_log);
                }
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
