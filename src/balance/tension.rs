//! Ludii's tension metrics of one finished game, read from a win estimate taken at the start of
//! every round (the first player's turns): lead changes, drama and decisiveness (Browne's definitions as Ludii's
//! `LeadChange`, `Drama` (average) and `DecisivenessMoves` implement them; docs/balance.md).
//!
//! The estimate is the fitted linear evaluation's win probability ([`FITTED_EVAL`]) of the
//! player to move, read from the full state: the metrics are a designer's analysis of a
//! finished game, not a player's view, and the evaluation costs no search.
//!
//! [`FITTED_EVAL`]: crate::bot::search::FITTED_EVAL

use crate::bot::greedy::Judge;
use crate::bot::search::fitted_logit;
use crate::info::Observation;
use crate::rules::{Colour, Game, Phase, State};
use serde::Serialize;

/// The tension metrics of one game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tension {
    /// How many times the expected winner changed between consecutive rounds.
    pub lead_changes: u32,
    /// Mean shortfall of the eventual winner's estimate below the leader's; `None` when the
    /// turn cap stopped the game (no winner to measure from).
    pub drama: Option<f64>,
    /// Share of the game played before the winner's estimate first exceeded the best estimate
    /// the loser ever had; `None` without a winner.
    pub decisiveness: Option<f64>,
}

impl Tension {
    /// The metrics of a game whose blue estimates at each round start were `blue`, won by
    /// `winner` (`None`: stopped by the turn cap); `None` for a game without a turn.
    pub fn of(blue: &[f64], winner: Option<Colour>) -> Option<Tension> {
        if blue.is_empty() {
            return None;
        }
        let of_winner = |w: Colour| -> Vec<f64> {
            match w {
                Colour::Blue => blue.to_vec(),
                Colour::Red => blue.iter().map(|p| 1.0 - p).collect(),
            }
        };
        let winner = winner.map(of_winner);
        Some(Tension {
            lead_changes: lead_changes(blue),
            drama: winner.as_deref().map(drama),
            decisiveness: winner.as_deref().map(decisiveness),
        })
    }
}

/// Ludii's lead change count: how many times the leader (the player whose win estimate is
/// higher, or both at exactly 1/2) differs from the leader at the turn before. `estimates`
/// are one player's win probabilities; the other's is the complement, so either player's
/// sequence gives the same count. Ludii divides by the number of moves; the report keeps the
/// count, which a designer reads directly ("2.3 lead changes per game").
pub fn lead_changes(estimates: &[f64]) -> u32 {
    let leader = |p: &f64| p.partial_cmp(&0.5);
    estimates
        .windows(2)
        .filter(|w| leader(&w[0]) != leader(&w[1]))
        .count() as u32
}

/// Ludii's drama (its average form): the mean over turns of how far the eventual winner's win
/// estimate falls below the highest estimate of any player, `max(0, 1 − 2p)` with two players.
/// 0 for a game the winner led throughout; 1/2 for one the winner spent entirely at 1/4.
/// `winner` holds the eventual winner's estimates; 0 when empty.
pub fn drama(winner: &[f64]) -> f64 {
    if winner.is_empty() {
        return 0.0;
    }
    let behind: f64 = winner.iter().map(|p| (1.0 - 2.0 * p).max(0.0)).sum();
    behind / winner.len() as f64
}

/// Ludii's decisiveness (`DecisivenessMoves`, with its threshold `DecisivenessThreshold`):
/// the threshold is the highest win estimate the loser ever had; the figure is the share of
/// the turns played before the winner's estimate first exceeds it, 1 when it never does (the
/// game was decided only by its end). Low values: the game was settled early. `winner` holds
/// the eventual winner's estimates; 1 when empty.
pub fn decisiveness(winner: &[f64]) -> f64 {
    let threshold = winner.iter().map(|p| 1.0 - p).fold(f64::MIN, f64::max);
    let turns = winner.len();
    let decided = winner.iter().position(|&p| p > threshold).unwrap_or(turns);
    match turns {
        0 => 1.0,
        n => decided as f64 / n as f64,
    }
}

/// Blue's win estimate at the start of each round (the first player's turns), to be called with
/// every state the replay of a game passes through (before each step); keeps the turn it last
/// read and who moved first.
///
/// Once a round, not at every turn start: the fitted evaluation reads the player to move about
/// 5 points better than halfway between the turn starts around it, so readings alternating
/// between the two players swing around 1/2 and would count that swing as lead changes.
#[derive(Debug, Default)]
pub struct Estimates {
    /// Blue's win probability at each round start read so far.
    pub blue: Vec<f64>,
    last_turn: u16,
    first: Option<Colour>,
}

impl Estimates {
    /// Reads `s` when it is the start of a turn of the first player not read yet (that player
    /// to act in the action phase, no chance event pending).
    pub fn read(&mut self, game: &Game, s: &State) {
        if s.is_chance() || s.phase() != Phase::Action || s.turn() == self.last_turn {
            return;
        }
        self.last_turn = s.turn();
        let mover = s.active();
        if *self.first.get_or_insert(mover) != mover {
            return;
        }
        // The fitted evaluation reads the position from the side of the player who has just
        // moved: judge from the opponent of the player to move, and negate for the mover.
        let judge = Judge::new(game, &Observation::new(s, mover.opponent()));
        let p_mover = 1.0 / (1.0 + fitted_logit(&judge, s).exp());
        self.blue.push(match mover {
            Colour::Blue => p_mover,
            Colour::Red => 1.0 - p_mover,
        });
    }
}
