//! `random`: uniform over the legal decisions.

use super::{Bot, Choice, Request};
use crate::rules::DecisionList;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct RandomBot {
    name: String,
}

impl RandomBot {
    pub fn new(name: impl Into<String>) -> RandomBot {
        RandomBot { name: name.into() }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &Request) -> Choice {
        let mut list = DecisionList::new();
        request.observation.legal_decisions(request.game, &mut list);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
        Choice::plain(list[rng.random_range(0..list.len())])
    }
}
