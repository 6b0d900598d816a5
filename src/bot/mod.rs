//! Bots and search. A bot sees a player's [`Observation`] only; the one exception is the
//! explicitly named [`CheatingBot`] kind, which sees the referee's state and exists only to
//! measure what hidden information costs.

pub mod external;
pub mod greedy;
pub mod play;
pub mod preset;
pub mod random;
pub mod search;

use crate::info::{Observation, RackEvidence};
use crate::rules::{Decision, Game, State};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How much a bot may think about one decision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Budget {
    /// Search iterations (playouts) per decision; exact and reproducible.
    pub iterations: Option<u64>,
    /// Wall-clock time per decision; not reproducible.
    pub time: Option<Duration>,
}

impl Budget {
    /// A budget of `n` search iterations per decision.
    pub fn iterations(n: u64) -> Budget {
        Budget {
            iterations: Some(n),
            time: None,
        }
    }
    /// A budget of wall-clock time `d` per decision.
    pub fn time(d: Duration) -> Budget {
        Budget {
            iterations: None,
            time: Some(d),
        }
    }
}

/// One candidate decision of a search, for analysis output.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The decision this candidate stands for.
    pub decision: Decision,
    /// How many search iterations went through it.
    pub visits: u64,
    /// Estimated win probability for the deciding player, 0 to 1.
    pub value: f64,
}

/// What a search found, best candidate first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// Search iterations run for this decision.
    pub iterations: u64,
    /// The candidates, most visited first.
    pub candidates: Vec<Candidate>,
}

/// A bot's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The decision to play.
    pub decision: Decision,
    /// What the search found, for bots that search; `None` for the others.
    pub analysis: Option<Analysis>,
}

impl Choice {
    /// A decision without analysis.
    pub fn plain(decision: Decision) -> Choice {
        Choice {
            decision,
            analysis: None,
        }
    }
}

/// Everything a fair bot is given for one decision. Same seed, iteration budget and observation
/// must give the same decision.
pub struct Request<'a> {
    /// The rules and terrain of the game.
    pub game: &'a Game,
    /// What the deciding player knows (R11): never the true state.
    pub observation: &'a Observation,
    /// How long the bot may think.
    pub budget: Budget,
    /// Seed of the bot's random choices; the same seed gives the same decision.
    pub seed: u64,
    /// Set from another thread to stop a search early (it then answers with what it has found);
    /// `None` for a search that always runs its whole budget.
    pub cancel: Option<&'a AtomicBool>,
}

/// A fair bot: it decides from an observation, never from the true state.
pub trait Bot: Send {
    /// A short name for tables, e.g. "ismcts-1s".
    fn name(&self) -> &str;
    /// A legal decision for the observer; called only when `observation.is_my_decision()`.
    fn decide(&mut self, request: &Request) -> Choice;
}

/// Everything a cheating bot is given: the referee's true state.
pub struct CheatRequest<'a> {
    /// The rules and terrain of the game.
    pub game: &'a Game,
    /// The referee's true state, hidden tiles included.
    pub state: &'a State,
    /// How long the bot may think.
    pub budget: Budget,
    /// Seed of the bot's random choices; the same seed gives the same decision.
    pub seed: u64,
}

/// A reference bot that sees the true state (the opponent's rack, both reserves and the removed
/// tiles). Refused anywhere a human plays; used to measure the cost of hidden information.
pub trait CheatingBot: Send {
    /// A short name for tables, e.g. "cheat-ismcts-1s".
    fn name(&self) -> &str;
    /// A legal decision for the active player of `request.state`.
    fn decide(&mut self, request: &CheatRequest) -> Choice;
}

/// A seat at the table: a fair bot, or a cheating reference bot.
pub enum Player {
    /// A fair bot, deciding from the player's observation.
    Fair(Box<dyn Bot>),
    /// A cheating reference bot, deciding from the true state.
    Cheating(Box<dyn CheatingBot>),
}

impl Player {
    /// The bot's short name.
    pub fn name(&self) -> &str {
        match self {
            Player::Fair(b) => b.name(),
            Player::Cheating(b) => b.name(),
        }
    }

    /// Whether this seat sees the true state (a cheating reference).
    pub fn is_cheating(&self) -> bool {
        matches!(self, Player::Cheating(_))
    }

    /// Asks the player for a decision. Only a cheating player sees `state`; a fair one gets the
    /// observation of the active player, with `evidence` about the opponent's rack (see
    /// [`EvidenceTracker`](crate::info::EvidenceTracker); [`RackEvidence::NONE`] when the game's
    /// history is unknown).
    pub fn decide(
        &mut self,
        game: &Game,
        state: &State,
        evidence: RackEvidence,
        budget: Budget,
        seed: u64,
    ) -> Choice {
        match self {
            Player::Fair(bot) => {
                let observation = Observation::new(state, state.active()).with_evidence(evidence);
                bot.decide(&Request {
                    game,
                    observation: &observation,
                    budget,
                    seed,
                    cancel: None,
                })
            }
            Player::Cheating(bot) => bot.decide(&CheatRequest {
                game,
                state,
                budget,
                seed,
            }),
        }
    }
}
