//! Random play: the uniform random policy and complete random playouts.

use super::deal::sample_chance;
use super::decision::{Decision, DecisionList};
use super::game::Game;
use super::state::State;
use rand::Rng;

/// A uniformly random legal decision, or at a chance event an outcome drawn with its
/// probability. `None` when the game is over.
#[inline]
pub fn random_decision<R: Rng>(game: &Game, s: &State, rng: &mut R) -> Option<Decision> {
    if s.is_over() {
        return None;
    }
    if s.is_chance() {
        return Some(sample_chance(game, s, rng));
    }
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    Some(list[rng.random_range(0..list.len())])
}

/// Plays random decisions until the game ends or `max_turns` turns have begun. Returns whether
/// the game ended.
pub fn random_playout<R: Rng>(game: &Game, s: &mut State, rng: &mut R, max_turns: u16) -> bool {
    while s.turn() <= max_turns {
        match random_decision(game, s, rng) {
            Some(d) => game.apply_legal(s, d),
            None => return true,
        }
    }
    false
}
