//! `random`: uniform over the legal decisions.

use super::{Bot, Choice, Request};
use crate::rules::{random_decision, Decision, Game, State};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The bot that picks uniformly among its legal decisions, from the request's seed alone.
pub struct RandomBot {
    name: String,
}

impl RandomBot {
    /// A random bot that answers to `name`.
    pub fn new(name: impl Into<String>) -> RandomBot {
        RandomBot { name: name.into() }
    }
}

/// The random bot's decision for a player whose own view is `view`: `rules::random_decision`
/// with a generator seeded by the request's `seed`. It picks what the legal list would give for
/// the same number without building the list, and a self-play loop that knows the true state
/// gets the same decision from it (the hidden tiles do not change the mover's legal decisions).
pub fn random_choice(game: &Game, view: &State, seed: u64) -> Decision {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    random_decision(game, view, &mut rng).expect("a decision is asked only while the game goes on")
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &Request) -> Choice {
        Choice::plain(random_choice(
            request.game,
            request.observation.view(),
            request.seed,
        ))
    }
}
