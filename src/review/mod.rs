//! Game review: the error of every decision and the luck of every chance event, read from the
//! observation of the player concerned (what they knew then, never the true state).
//!
//! - **Decisions.** A fair search (the `strong` level's, with [`ReviewOptions::budget`]) from
//!   the deciding player's observation at that moment finds the best decision; the player's
//!   win probability after it and after the decision played are [`estimate`]s from their
//!   observation then (the one calibrated figure shown everywhere, both with the same seed);
//!   the difference is the decision's **error**, classed by [`ErrorClass::of`] (thresholds
//!   [`INACCURACY`], [`MISTAKE`], [`BLUNDER`]). A decision with one legal option is forced: it
//!   is counted, not searched.
//! - **Chance events.** For a draw, an XB-42 discard and a Battlefield freeze, the player whose
//!   tiles the event picks from (the drawer; the owner of the rack hit) is the one concerned.
//!   Their win probability after each possible outcome is the [`estimate`] from their
//!   observation after it; before the event it is the mean of
//!   those, weighted by the outcome's odds, and the event's **luck** is the estimate after the
//!   outcome that happened minus that mean (GNU Backgammon's luck analysis). An event with one
//!   possible outcome has zero luck, and the luck of every event averages zero over its odds.
//! - **Totals.** Per player: inaccuracies, mistakes and blunders, the error rate (mean error
//!   per searched decision), an accuracy (lichess's formula), the total luck, the skill (the
//!   win probability their decisions cost, as a negative figure) and a one-line verdict.
//!
//! Decisions and chance events are reviewed independently, on every core (rayon); a progress
//! callback is told of each one done; a cancelled review keeps what it computed and says so
//! ([`Review::complete`]).

mod analyse;
mod estimate;
mod svg;
mod totals;

pub(crate) use estimate::estimate_cancellable;
pub use estimate::{
    estimate, estimate_seed, playout_mean, Calibration, CALIBRATION, ESTIMATE_PLAYOUTS,
};
pub use svg::svg;
pub use totals::{table, PlayerTotals};

use crate::bot::preset::{self, BotConfig};
use crate::bot::search::{Algorithm, SearchConfig};
use crate::bot::Budget;
use crate::info::EvidenceTracker;
use crate::record::{check_fingerprint, replay, FingerprintMismatch, GameRecord, ReplayError};
use crate::rules::{Colour, Decision, DecisionList, Game, IllegalDecision, State};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// A decision that loses at least this much win probability (0 to 1) is an inaccuracy.
pub const INACCURACY: f64 = 0.05;
/// A decision that loses at least this much win probability is a mistake.
pub const MISTAKE: f64 = 0.10;
/// A decision that loses at least this much win probability is a blunder.
pub const BLUNDER: f64 = 0.20;
/// A chance event that moves its player's win probability by at least this much is marked on
/// the graph as lucky or unlucky.
pub const LUCK_MARK: f64 = 0.10;

/// How bad a decision was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorClass {
    /// At least [`INACCURACY`] of win probability lost.
    Inaccuracy,
    /// At least [`MISTAKE`] lost.
    Mistake,
    /// At least [`BLUNDER`] lost.
    Blunder,
}

impl ErrorClass {
    /// The class of a decision that lost `error` win probability; `None` below [`INACCURACY`].
    pub fn of(error: f64) -> Option<ErrorClass> {
        match error {
            e if e >= BLUNDER => Some(ErrorClass::Blunder),
            e if e >= MISTAKE => Some(ErrorClass::Mistake),
            e if e >= INACCURACY => Some(ErrorClass::Inaccuracy),
            _ => None,
        }
    }

    /// The class in words, e.g. "blunder".
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Inaccuracy => "inaccuracy",
            ErrorClass::Mistake => "mistake",
            ErrorClass::Blunder => "blunder",
        }
    }
}

/// What a review searches with, and what it covers.
#[derive(Clone, Debug)]
pub struct ReviewOptions {
    /// The options of every search, which is information-set MCTS as the `strong` level's (its
    /// options by default, but one thread each: the review itself runs decisions side by side,
    /// one per core, and a second thread a search would only take a core from another).
    pub config: SearchConfig,
    /// The budget of the search of one decision (which finds the best decision; the figures
    /// are [`estimate`]s, whose budget is fixed).
    pub budget: Budget,
    /// Seed of every search; each decision derives its own from it and its step, so the review
    /// does not depend on the order the threads take them in. (The estimates are seeded by
    /// [`estimate_seed`], as everywhere else.)
    pub seed: u64,
    /// Review only this player's decisions, and no chance event: what may be shown to a player
    /// while the game goes on (their own decisions, from their own observations).
    pub only: Option<Colour>,
    /// Threads of the review's own pool, each reviewing one decision or event at a time; 0
    /// for one per core. (Not rayon's global pool, so that a server's `--search-threads` or the
    /// command line's `--threads` bounds it.)
    pub threads: usize,
}

impl Default for ReviewOptions {
    /// The `strong` level's search and budget per decision.
    fn default() -> ReviewOptions {
        let (_, config, budget) = strong();
        ReviewOptions {
            config: SearchConfig {
                threads: 1,
                ..config
            },
            budget,
            seed: 0x7e71_e3a1,
            only: None,
            threads: 0,
        }
    }
}

impl ReviewOptions {
    /// These options with `iterations` per decision searched.
    pub fn with_iterations(mut self, iterations: u64) -> ReviewOptions {
        self.budget = Budget::iterations(iterations.max(1));
        self
    }
}

/// The `strong` level's algorithm, options and budget (bots/strong.toml).
fn strong() -> (Algorithm, SearchConfig, Budget) {
    let text = preset::level_text("strong").expect("the strong level is shipped");
    let strong = preset::parse("strong", text, "bots/strong.toml (shipped)")
        .expect("shipped presets are checked by the tests");
    match strong.config {
        BotConfig::Search { algorithm, config } => (algorithm, config, strong.budget),
        _ => unreachable!("the strong level searches"),
    }
}

/// One reviewed decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionReview {
    /// Index of the step in the record, from 0.
    pub step: usize,
    /// The turn it was taken in, from 1.
    pub turn: u16,
    /// Who decided.
    pub player: Colour,
    /// The decision played, in notation.
    pub played: String,
    /// The search's best decision, in notation (the played one when they agree).
    pub best: String,
    /// The player's win probability before the decision ([`estimate`]), 0 to 1.
    pub win: f64,
    /// The player's win probability after the decision played ([`estimate`]), 0 to 1.
    pub played_win: f64,
    /// The player's win probability after the best decision, 0 to 1.
    pub best_win: f64,
    /// Win probability lost: `best_win - played_win`, never below 0.
    pub error: f64,
    /// The error's class; `None` for a good decision.
    pub class: Option<ErrorClass>,
    /// Search iterations behind the best decision (0 when a decision that wins at once was
    /// found without search).
    pub iterations: u64,
}

/// What a chance event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChanceKind {
    /// A tile drawn from the player's reserve.
    Draw,
    /// XB-42: a random tile of the player's rack discarded.
    RackDiscard,
    /// Battlefield: a random tile of the player's rack frozen.
    Freeze,
}

/// One reviewed chance event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChanceReview {
    /// Index of the step in the record, from 0.
    pub step: usize,
    /// The turn it happened in, from 1.
    pub turn: u16,
    /// The player concerned: the drawer, or the owner of the rack hit.
    pub player: Colour,
    /// What kind of event it was.
    pub kind: ChanceKind,
    /// The outcome, in notation (`chance Star`).
    pub outcome: String,
    /// How many different troops could have come.
    pub outcomes: usize,
    /// The player's win probability before the event: the odds-weighted mean of the estimates
    /// after each possible outcome.
    pub before: f64,
    /// The player's win probability after the outcome that happened.
    pub after: f64,
    /// `after - before`: positive when the event favoured the player.
    pub luck: f64,
}

/// A mark on the win-probability graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// A decision of class mistake.
    Mistake,
    /// A decision of class blunder.
    Blunder,
    /// A chance event that gave its player at least [`LUCK_MARK`].
    Lucky,
    /// A chance event that cost its player at least [`LUCK_MARK`].
    Unlucky,
}

/// One point of the win-probability graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphPoint {
    /// The step the point stands before (the record's length for the final point).
    pub step: usize,
    /// The turn then.
    pub turn: u16,
    /// Blue's win probability, 0 to 1, as the player of the step estimated it from their own
    /// observation (red's estimate is turned into blue's).
    pub blue: f64,
    /// Who the mark concerns (the decider, or the player of a chance event).
    pub player: Option<Colour>,
    /// A mistake, blunder, lucky or unlucky event here.
    pub mark: Option<Mark>,
}

/// A game's review.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// Terrain key of the game.
    pub terrain: String,
    /// Who played blue and red.
    pub players: [String; 2],
    /// Steps of the record.
    pub steps: usize,
    /// The error thresholds used: inaccuracy, mistake, blunder (win probability, 0 to 1).
    pub thresholds: [f64; 3],
    /// Search iterations per decision.
    pub iterations: Option<u64>,
    /// The decisions reviewed (forced ones left out), in step order.
    pub decisions: Vec<DecisionReview>,
    /// The chance events reviewed, in step order.
    pub chances: Vec<ChanceReview>,
    /// The win-probability graph: a point before every reviewed step and one at the end.
    pub graph: Vec<GraphPoint>,
    /// Blue's totals, then red's.
    pub totals: Vec<PlayerTotals>,
    /// Decisions and chance events to review, and how many were reviewed.
    pub total: usize,
    /// How many of `total` were reviewed.
    pub reviewed: usize,
    /// Whether every one was reviewed (false after a cancel).
    pub complete: bool,
    /// Threads the review ran on (its pool's size).
    pub threads: usize,
}

/// How far a review has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// Decisions and chance events reviewed so far.
    pub done: usize,
    /// How many there are to review.
    pub total: usize,
}

/// Why a record cannot be reviewed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReviewError {
    /// The record does not replay under the rules (another format, a bad deal, an illegal or
    /// unreadable step, or a result it does not reach); the replay's message names the step.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The record was played on other terrain data than the game given.
    #[error(transparent)]
    Terrain(#[from] FingerprintMismatch),
}

/// Reviews `record`, played on `game`: see the module documentation. `progress` is told of
/// every decision or chance event done (from the worker threads); setting `cancel` stops the
/// review, which then returns what it computed with [`Review::complete`] false. Nothing is
/// searched unless the record replays.
pub fn review(
    game: &Game,
    record: &GameRecord,
    options: &ReviewOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: Option<&AtomicBool>,
) -> Result<Review, ReviewError> {
    check_fingerprint(record, game)?;
    replay(game, record)?;
    Ok(analyse::run(game, record, options, progress, cancel))
}

/// As [`review`], for a record of a game the caller refereed itself (a session's), whose steps
/// the rules took one by one: it is not replayed against its seed (a session may be dealt any
/// valid deal, not only a seed's).
pub(crate) fn review_refereed(
    game: &Game,
    record: &GameRecord,
    options: &ReviewOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: Option<&AtomicBool>,
) -> Review {
    analyse::run(game, record, options, progress, cancel)
}

/// What reviewing one step found.
#[derive(Clone, Debug, PartialEq)]
pub enum StepReview {
    /// A decision with more than one legal option, reviewed.
    Decision(DecisionReview),
    /// A decision with one legal option: nothing to choose, nothing searched.
    Forced,
    /// A chance event, reviewed.
    Chance(ChanceReview),
}

/// Reviews one step: `taken` in the referee's `state`, with the `evidence` both players' play
/// had shown before it (an [`EvidenceTracker`] over the game so far), as step `step` of the game
/// dealt from `deal_seed` (the seeds of its search and estimates derive from them, so a figure
/// equals the one the session noted at that moment). Only the observations of the player
/// concerned are searched. A step the rules refuse in `state` is refused with their reason.
pub fn review_step(
    game: &Game,
    state: &State,
    evidence: &EvidenceTracker,
    taken: Decision,
    (step, deal_seed): (usize, u64),
    options: &ReviewOptions,
) -> Result<StepReview, IllegalDecision> {
    let mut after = *state;
    game.apply(&mut after, taken)?;
    let mut legal = DecisionList::new();
    game.legal_decisions(state, &mut legal);
    if !state.is_chance() && legal.len() <= 1 {
        return Ok(StepReview::Forced);
    }
    let task = analyse::Task {
        step,
        deal_seed,
        state: *state,
        evidence: *evidence,
        taken,
    };
    Ok(match analyse::one(game, &task, options, None) {
        analyse::Found::Decision(d) => StepReview::Decision(d),
        analyse::Found::Chance(c) => StepReview::Chance(c),
    })
}
