//! Setup (§3) and the referee, who alone resolves chance events (R11.4).

use super::decision::Decision;
use super::game::Game;
use super::state::{Chance, Phase, State};
use super::tile::{Colour, Troop, TroopCounts, REMOVED_PER_COLOUR, TILES_PER_COLOUR};
use crate::vocabulary::ByColour;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// Tiles in a reserve after setup (R3.4).
pub const RESERVE_AT_SETUP: usize = (TILES_PER_COLOUR - REMOVED_PER_COLOUR) as usize;

/// Everything setup decides at random (R3.3–R3.5): the 4 tiles each colour removes, the order of
/// each reserve (drawn from the front), and the first player. A deal is fixed by its seed, so
/// two games on the same deal see the same tiles in the same order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub seed: u64,
    pub first: Colour,
    /// Removed tiles per colour.
    pub removed: ByColour<Vec<Troop>>,
    /// Reserve order per colour, first drawn first; the opening racks are its first 3 or 4.
    pub reserve: ByColour<Vec<Troop>>,
}

/// Why a deal is not a possible setup.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("{colour}: {removed} removed and {reserve} in reserve, expected {REMOVED_PER_COLOUR} and {RESERVE_AT_SETUP}")]
    Sizes {
        colour: Colour,
        removed: usize,
        reserve: usize,
    },
    #[error("{colour}: the deal does not hold exactly three of each troop")]
    NotThreeOfEach { colour: Colour },
}

impl Deal {
    /// The deal of a seed (xoshiro256++): each colour's 24 tiles shuffled, the first 4 removed.
    pub fn from_seed(seed: u64) -> Deal {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let shuffled = |rng: &mut Xoshiro256PlusPlus| {
            let mut tiles = TroopCounts::FULL.to_vec();
            for i in (1..tiles.len()).rev() {
                tiles.swap(i, rng.random_range(0..=i));
            }
            let reserve = tiles.split_off(REMOVED_PER_COLOUR as usize);
            (tiles, reserve)
        };
        let (blue_removed, blue_reserve) = shuffled(&mut rng);
        let (red_removed, red_reserve) = shuffled(&mut rng);
        let first = if rng.random::<bool>() {
            Colour::Blue
        } else {
            Colour::Red
        };
        Deal {
            seed,
            first,
            removed: ByColour::new(blue_removed, red_removed),
            reserve: ByColour::new(blue_reserve, red_reserve),
        }
    }

    /// The same deal with the colours' tiles and the first player swapped: used to play a deal
    /// with the seats exchanged.
    pub fn with_first(&self, first: Colour) -> Deal {
        Deal {
            first,
            ..self.clone()
        }
    }

    /// Checks that the deal is a possible setup: 4 removed and 20 in reserve per colour, three
    /// of each troop in all.
    pub fn validate(&self) -> Result<(), DealError> {
        for c in Colour::BOTH {
            let (removed, reserve) = (&self.removed[c], &self.reserve[c]);
            if removed.len() != REMOVED_PER_COLOUR as usize || reserve.len() != RESERVE_AT_SETUP {
                return Err(DealError::Sizes {
                    colour: c,
                    removed: removed.len(),
                    reserve: reserve.len(),
                });
            }
            let all = TroopCounts::from_troops(removed.iter().chain(reserve).copied());
            if all != TroopCounts::FULL {
                return Err(DealError::NotThreeOfEach { colour: c });
            }
        }
        Ok(())
    }

    /// Opening rack size of a colour (R3.5): 3 for the first player, 4 for the second.
    pub fn opening_draw(&self, c: Colour) -> usize {
        if c == self.first {
            3
        } else {
            4
        }
    }
}

impl Game {
    /// The state after setup (§3): tiles removed, opening racks drawn, first player to act.
    /// The deal must be valid ([`Deal::validate`]).
    pub fn initial_state(&self, deal: &Deal) -> State {
        let mut s = State::empty(deal.first);
        for c in Colour::BOTH {
            let opening = deal.opening_draw(c);
            s.removed[c] = TroopCounts::from_troops(deal.removed[c].iter().copied());
            s.rack[c] = TroopCounts::from_troops(deal.reserve[c][..opening].iter().copied());
            s.reserve[c] = TroopCounts::from_troops(deal.reserve[c][opening..].iter().copied());
            s.rack_len[c] = opening as u8;
            s.reserve_len[c] = (RESERVE_AT_SETUP - opening) as u8;
        }
        self.begin_turn(&mut s);
        s
    }
}

/// Resolves chance events for one game: draws come from the deal's reserve order; XB-42's and
/// Battlefield's targets from a random stream seeded by the deal's seed.
#[derive(Clone, Debug)]
pub struct Referee {
    deal: Deal,
    drawn: ByColour<usize>,
    rng: Xoshiro256PlusPlus,
}

impl Referee {
    pub fn new(deal: Deal) -> Referee {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(deal.seed);
        rng.jump(); // a stream independent of the one that made the deal
        let drawn = ByColour::from_fn(|c| deal.opening_draw(c));
        Referee { deal, drawn, rng }
    }

    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The outcome of the pending chance event of `s`.
    pub fn resolve(&mut self, game: &Game, s: &State) -> Decision {
        match s.phase() {
            Phase::Chance(Chance::Draw { .. }) => {
                let p = s.active();
                let t = self.deal.reserve[p][self.drawn[p]];
                self.drawn[p] += 1;
                Decision::Chance(t)
            }
            Phase::Chance(_) => sample_chance(game, s, &mut self.rng),
            _ => panic!("Referee::resolve called without a pending chance event"),
        }
    }
}

/// Samples a chance outcome with probability proportional to its weight.
pub fn sample_chance<R: Rng>(game: &Game, s: &State, rng: &mut R) -> Decision {
    let outcomes = game.chance_outcomes(s);
    let total: u32 = outcomes.iter().map(|&(_, w)| w as u32).sum();
    let mut k = rng.random_range(0..total);
    for &(t, w) in &outcomes {
        if k < w as u32 {
            return Decision::Chance(t);
        }
        k -= w as u32;
    }
    unreachable!("weights sum to total")
}
