//! Setup (§3) and the referee, who alone resolves chance events (R11.4).

use super::decision::Decision;
use super::game::Game;
use super::state::{Chance, Phase, State};
use super::tile::{Colour, Troop, TroopCounts, RACK_LIMIT, REMOVED_PER_COLOUR, TILES_PER_COLOUR};
use crate::terrain::{NodeId, NodeMask, Terrain};
use crate::vocabulary::ByColour;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Tiles in a reserve after setup under the retail rules (R3.4).
pub const RESERVE_AT_SETUP: usize = (TILES_PER_COLOUR - REMOVED_PER_COLOUR) as usize;

/// Opening racks of the first and the second player under the retail rules (R3.5).
pub const RETAIL_RACKS: [u8; 2] = [3, 4];

/// Special bases (and restricted HQs) whose effect is never used: restricted play, a study
/// option and not a rule of the game. Both players are bound by it, and a restricted node acts
/// as a plain one: its queued effect (R6.4) is never offered (as if always declined), a Station
/// Metal-X base no longer cancels troop effects (R9.7) and a Tropical Pool node accepts every
/// value (R5.4). A set of node ids (as terrain files name them), written as a list of ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<NodeId>", into = "Vec<NodeId>")]
pub struct Restricted([u64; 4]);

impl Restricted {
    /// No node restricted: the printed rules.
    pub const NONE: Restricted = Restricted([0; 4]);

    /// The set of these node ids.
    pub fn of(ids: impl IntoIterator<Item = NodeId>) -> Restricted {
        let mut r = Restricted::NONE;
        for id in ids {
            r.0[id.get() as usize / 64] |= 1 << (id.get() % 64);
        }
        r
    }

    /// Whether no node is restricted.
    pub fn is_empty(&self) -> bool {
        *self == Restricted::NONE
    }

    /// Whether node `id` is restricted.
    pub fn contains(&self, id: NodeId) -> bool {
        self.0[id.get() as usize / 64] & 1 << (id.get() % 64) != 0
    }

    /// The restricted node ids, ascending.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..=u8::MAX).map(NodeId).filter(|&id| self.contains(id))
    }

    /// The ids in words, e.g. "15, 20".
    pub fn describe(&self) -> String {
        self.ids()
            .map(|id| id.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl From<Vec<NodeId>> for Restricted {
    fn from(ids: Vec<NodeId>) -> Restricted {
        Restricted::of(ids)
    }
}

impl From<Restricted> for Vec<NodeId> {
    fn from(r: Restricted) -> Vec<NodeId> {
        r.ids().collect()
    }
}

/// The rules parameters a designer changes when fixing balance ("what-ifs"), for one game:
/// the medal objective (R2.4), the tiles each player removes at setup (R3.4), the opening
/// racks (R3.5), and the special bases whose effect is never used (restricted play).
/// [`WhatIf::RETAIL`] is the printed game. They are read at setup, where the objective is
/// compared, and folded into the game's tables of special bases when it is built, so the
/// retail rules cost nothing more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhatIf {
    /// Medals to win; `None` for the terrain's printed objective.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<u8>,
    /// Tiles each player removes unseen at setup (retail 4).
    #[serde(default = "retail_removed")]
    pub removed: u8,
    /// Opening rack sizes of the first and the second player (retail 3 and 4).
    #[serde(default = "retail_racks")]
    pub racks: [u8; 2],
    /// Special bases whose effect is never used (none in the printed rules).
    #[serde(default, skip_serializing_if = "Restricted::is_empty")]
    pub restricted: Restricted,
}

fn retail_removed() -> u8 {
    REMOVED_PER_COLOUR
}

fn retail_racks() -> [u8; 2] {
    RETAIL_RACKS
}

impl Default for WhatIf {
    fn default() -> WhatIf {
        WhatIf::RETAIL
    }
}

/// A what-if that makes the game impossible.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WhatIfError {
    /// The objective is 0 or more than the terrain's regions hold.
    #[error(
        "medal objective {objective} on {terrain}: it must be between 1 and the {available} \
         medals the terrain's regions hold"
    )]
    Objective {
        /// The terrain's key.
        terrain: String,
        /// The objective asked for.
        objective: u8,
        /// Medals in all the terrain's regions.
        available: u32,
    },
    /// More tiles removed than a reserve holds.
    #[error("{removed} tiles removed at setup, but a reserve holds only {TILES_PER_COLOUR} tiles")]
    Removed {
        /// Tiles removed per player.
        removed: u8,
    },
    /// An opening rack outside 1..=8 tiles.
    #[error("opening rack of {size} tiles for the {seat} player: it must hold 1 to {RACK_LIMIT} tiles (R4.4)")]
    RackSize {
        /// "first" or "second".
        seat: &'static str,
        /// The size asked for.
        size: u8,
    },
    /// The removed tiles and an opening rack need more tiles than a player has.
    #[error(
        "{removed} tiles removed and an opening rack of {rack} for the {seat} player need \
         {} tiles, but a player has only {TILES_PER_COLOUR}",
        *removed as u32 + *rack as u32
    )]
    TooFewTiles {
        /// Tiles removed per player.
        removed: u8,
        /// "first" or "second".
        seat: &'static str,
        /// The opening rack asked for.
        rack: u8,
    },
    /// A restricted node that the terrain lacks or that carries no effect.
    #[error(
        "restricted play on {terrain}: node {node} {problem}; the nodes with an effect are {effects}"
    )]
    Restricted {
        /// The terrain's key.
        terrain: String,
        /// The node id asked for.
        node: NodeId,
        /// "is not on the terrain" or "carries no special effect".
        problem: &'static str,
        /// The terrain's nodes that carry an effect, e.g. "15, 16, 20, 21" (or "none").
        effects: String,
    },
}

impl WhatIf {
    /// The printed rules: the terrain's objective, 4 tiles removed, racks of 3 and 4.
    pub const RETAIL: WhatIf = WhatIf {
        objective: None,
        removed: REMOVED_PER_COLOUR,
        racks: RETAIL_RACKS,
        restricted: Restricted::NONE,
    };

    /// Whether these are the printed rules (records and run settings then leave them out).
    pub fn is_retail(&self) -> bool {
        *self == WhatIf::RETAIL
    }

    /// Checks that a game on `terrain` under these parameters is possible.
    pub fn check(&self, terrain: &Terrain) -> Result<(), WhatIfError> {
        if let Some(objective) = self.objective {
            let available = terrain.total_medals();
            if objective == 0 || objective as u32 > available {
                return Err(WhatIfError::Objective {
                    terrain: terrain.key.clone(),
                    objective,
                    available,
                });
            }
        }
        if self.removed > TILES_PER_COLOUR {
            return Err(WhatIfError::Removed {
                removed: self.removed,
            });
        }
        for (seat, rack) in ["first", "second"].into_iter().zip(self.racks) {
            if rack == 0 || rack > RACK_LIMIT {
                return Err(WhatIfError::RackSize { seat, size: rack });
            }
            if self.removed as u32 + rack as u32 > TILES_PER_COLOUR as u32 {
                return Err(WhatIfError::TooFewTiles {
                    removed: self.removed,
                    seat,
                    rack,
                });
            }
        }
        self.check_restricted(terrain)
    }

    /// Every restricted node is on the terrain and carries an effect (R9).
    fn check_restricted(&self, terrain: &Terrain) -> Result<(), WhatIfError> {
        for node in self.restricted.ids() {
            let problem = match terrain.index_of(node) {
                None => "is not on the terrain",
                Some(i) if terrain.effect_at(i).is_none() => "carries no special effect",
                Some(_) => continue,
            };
            let effects: Vec<String> = terrain
                .nodes
                .iter()
                .filter(|n| n.effect.is_some())
                .map(|n| n.id.to_string())
                .collect();
            return Err(WhatIfError::Restricted {
                terrain: terrain.key.clone(),
                node,
                problem,
                effects: match effects.is_empty() {
                    true => "none".into(),
                    false => effects.join(", "),
                },
            });
        }
        Ok(())
    }

    /// The dense indices of the restricted nodes on `terrain` (checked by [`WhatIf::check`]).
    pub fn restricted_nodes(&self, terrain: &Terrain) -> NodeMask {
        self.restricted
            .ids()
            .filter_map(|id| terrain.index_of(id))
            .fold(0, |m, i| m | i.bit())
    }

    /// Opening rack size of colour `c` when `first` moves first.
    pub fn opening_rack(&self, first: Colour, c: Colour) -> usize {
        self.racks[(c != first) as usize] as usize
    }

    /// The changes from the printed rules in words, e.g. "objective 6, 2 tiles removed";
    /// empty for the retail rules.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(o) = self.objective {
            parts.push(format!("objective {o} medals"));
        }
        if self.removed != REMOVED_PER_COLOUR {
            parts.push(format!("{} tiles removed at setup", self.removed));
        }
        if self.racks != RETAIL_RACKS {
            parts.push(format!(
                "opening racks {} (first) and {} (second)",
                self.racks[0], self.racks[1]
            ));
        }
        if !self.restricted.is_empty() {
            parts.push(format!(
                "restricted play: no effect of node {}",
                self.restricted.describe()
            ));
        }
        parts.join(", ")
    }
}

/// The what-ifs of a run over several terrains: a medal objective per terrain key (terrains
/// not named keep their printed one) and the setup changes shared by every terrain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhatIfs {
    /// Medal objective per terrain key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub objectives: BTreeMap<String, u8>,
    /// Tiles each player removes unseen at setup (retail 4).
    #[serde(default = "retail_removed")]
    pub removed: u8,
    /// Opening rack sizes of the first and the second player (retail 3 and 4).
    #[serde(default = "retail_racks")]
    pub racks: [u8; 2],
    /// Restricted play: the nodes whose effect is never used, per terrain key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub restricted: BTreeMap<String, Restricted>,
}

impl Default for WhatIfs {
    fn default() -> WhatIfs {
        WhatIfs {
            objectives: BTreeMap::new(),
            removed: REMOVED_PER_COLOUR,
            racks: RETAIL_RACKS,
            restricted: BTreeMap::new(),
        }
    }
}

impl WhatIfs {
    /// Whether every terrain is played under the printed rules.
    pub fn is_retail(&self) -> bool {
        *self == WhatIfs::default()
    }

    /// The what-if of one terrain.
    pub fn for_terrain(&self, key: &str) -> WhatIf {
        WhatIf {
            objective: self.objectives.get(key).copied(),
            removed: self.removed,
            racks: self.racks,
            restricted: self.restricted.get(key).copied().unwrap_or_default(),
        }
    }

    /// The changes from the printed rules in words; empty for the retail rules.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .objectives
            .iter()
            .map(|(k, o)| format!("objective {o} medals on {k}"))
            .collect();
        parts.extend(
            self.restricted.iter().map(|(k, r)| {
                format!("restricted play on {k}: no effect of node {}", r.describe())
            }),
        );
        let setup = WhatIf {
            objective: None,
            restricted: Restricted::NONE,
            ..self.for_terrain("")
        }
        .describe();
        if !setup.is_empty() {
            parts.push(setup);
        }
        parts.join(", ")
    }
}

/// Everything setup decides at random (R3.3–R3.5): the 4 tiles each colour removes, the order of
/// each reserve (drawn from the front), and the first player. A deal is fixed by its seed, so
/// two games on the same deal see the same tiles in the same order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    /// The seed the deal was made from ([`Deal::from_seed`]).
    pub seed: u64,
    /// The player who moves first (R3.5).
    pub first: Colour,
    /// Removed tiles per colour.
    pub removed: ByColour<Vec<Troop>>,
    /// Reserve order per colour, first drawn first; the opening racks are its first 3 or 4.
    pub reserve: ByColour<Vec<Troop>>,
}

/// Why a deal is not a possible setup.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// A colour's removed tiles or reserve have the wrong size.
    #[error("{colour}: {removed} removed and {reserve} in reserve, expected {expected_removed} and {}", TILES_PER_COLOUR as usize - expected_removed)]
    Sizes {
        /// The colour whose tiles are miscounted.
        colour: Colour,
        /// Tiles removed in the deal.
        removed: usize,
        /// Tiles in the deal's reserve.
        reserve: usize,
        /// Tiles the rules remove (R3.4, or the what-if's number).
        expected_removed: usize,
    },
    /// A colour's tiles are not its 24 (three of each troop).
    #[error("{colour}: the deal does not hold exactly three of each troop")]
    NotThreeOfEach {
        /// The colour whose tiles are wrong.
        colour: Colour,
    },
}

impl Deal {
    /// The deal of a seed (xoshiro256++) under the retail rules: each colour's 24 tiles
    /// shuffled, the first 4 removed.
    pub fn from_seed(seed: u64) -> Deal {
        Deal::from_seed_removing(seed, REMOVED_PER_COLOUR)
    }

    /// The deal of a seed when each player removes `removed` tiles (a what-if; at most 24):
    /// the same shuffles as [`Deal::from_seed`], the first `removed` tiles put out of the game.
    pub fn from_seed_removing(seed: u64, removed: u8) -> Deal {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let shuffled = |rng: &mut Xoshiro256PlusPlus| {
            let mut tiles = TroopCounts::FULL.to_vec();
            for i in (1..tiles.len()).rev() {
                tiles.swap(i, rng.random_range(0..=i));
            }
            let reserve = tiles.split_off((removed as usize).min(tiles.len()));
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

    /// The same deal with `first` moving first: every colour keeps its tiles, removed tiles and
    /// reserve; only who plays first changes. Self-play uses it to play each deal once with
    /// each colour first.
    pub fn with_first(&self, first: Colour) -> Deal {
        Deal {
            first,
            ..self.clone()
        }
    }

    /// Checks that the deal is a possible setup: 4 removed and 20 in reserve per colour, three
    /// of each troop in all.
    pub fn validate(&self) -> Result<(), DealError> {
        self.validate_removing(REMOVED_PER_COLOUR)
    }

    /// [`Deal::validate`] when each player removes `removed` tiles (a what-if).
    pub fn validate_removing(&self, removed: u8) -> Result<(), DealError> {
        let expected_removed = removed as usize;
        for c in Colour::BOTH {
            let (removed, reserve) = (&self.removed[c], &self.reserve[c]);
            if removed.len() != expected_removed
                || removed.len() + reserve.len() != TILES_PER_COLOUR as usize
            {
                return Err(DealError::Sizes {
                    colour: c,
                    removed: removed.len(),
                    reserve: reserve.len(),
                    expected_removed,
                });
            }
            let all = TroopCounts::from_troops(removed.iter().chain(reserve).copied());
            if all != TroopCounts::FULL {
                return Err(DealError::NotThreeOfEach { colour: c });
            }
        }
        Ok(())
    }

    /// Opening rack size of a colour under the retail rules (R3.5): 3 for the first player, 4
    /// for the second. A game's own sizes, what-ifs included, are [`Game::opening_rack`].
    pub fn opening_draw(&self, c: Colour) -> usize {
        WhatIf::RETAIL.opening_rack(self.first, c)
    }
}

impl Game {
    /// The deal of a seed under this game's rules: [`Deal::from_seed`], with the what-if's
    /// number of tiles removed.
    pub fn deal(&self, seed: u64) -> Deal {
        Deal::from_seed_removing(seed, self.what_if().removed)
    }

    /// Checks that `deal` is a possible setup of this game ([`Deal::validate`], with the
    /// what-if's number of tiles removed).
    pub fn validate_deal(&self, deal: &Deal) -> Result<(), DealError> {
        deal.validate_removing(self.what_if().removed)
    }

    /// Opening rack size of colour `c` in a deal where `first` moves first (R3.5, or the
    /// what-if's racks).
    pub fn opening_rack(&self, first: Colour, c: Colour) -> usize {
        self.what_if().opening_rack(first, c)
    }

    /// The state after setup (§3): tiles removed, opening racks drawn, first player to act.
    /// The deal must be valid for this game ([`Game::validate_deal`]).
    pub fn initial_state(&self, deal: &Deal) -> State {
        let mut s = State::empty(deal.first);
        for c in Colour::BOTH {
            let reserve = &deal.reserve[c];
            let opening = self.opening_rack(deal.first, c).min(reserve.len());
            s.removed[c] = TroopCounts::from_troops(deal.removed[c].iter().copied());
            s.rack[c] = TroopCounts::from_troops(reserve[..opening].iter().copied());
            s.reserve[c] = TroopCounts::from_troops(reserve[opening..].iter().copied());
            s.rack_len[c] = opening as u8;
            s.reserve_len[c] = (reserve.len() - opening) as u8;
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
    /// Tiles each colour drew after its opening rack; the opening rack's size is the game's
    /// (it may be a what-if), so it is added when a draw is resolved.
    drawn: ByColour<usize>,
    rng: Xoshiro256PlusPlus,
}

impl Referee {
    /// The referee of a game on `deal`.
    pub fn new(deal: Deal) -> Referee {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(deal.seed);
        rng.jump(); // a stream independent of the one that made the deal
        Referee {
            deal,
            drawn: ByColour::new(0, 0),
            rng,
        }
    }

    /// The deal the referee draws from.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The outcome of the pending chance event of `s`.
    pub fn resolve(&mut self, game: &Game, s: &State) -> Decision {
        match s.phase() {
            Phase::Chance(Chance::Draw { .. }) => {
                let p = s.active();
                let next = game.opening_rack(self.deal.first, p) + self.drawn[p];
                let t = self.deal.reserve[p][next];
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

/// Plays a random game of `game` dealt from `seed` to its end (or turn 300), chance through
/// the referee, showing `visit` every state with the decision taken there; returns the last.
#[cfg(test)]
fn random_game(game: &Game, seed: u64, mut visit: impl FnMut(&State, Decision)) -> State {
    let deal = game.deal(seed);
    let mut s = game.initial_state(&deal);
    let mut referee = Referee::new(deal);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    while !s.is_over() && s.turn() < 300 {
        let d = match s.phase() {
            Phase::Chance(_) => referee.resolve(game, &s),
            _ => super::random_decision(game, &s, &mut rng).unwrap(),
        };
        visit(&s, d);
        game.apply(&mut s, d).unwrap();
    }
    s
}

#[cfg(test)]
mod restricted_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{invariants, Variant, WinType};

    fn castle(what_if: WhatIf) -> Result<Game, WhatIfError> {
        Game::builtin("castle_field", Variant::Normal)
            .unwrap()
            .with_what_if(what_if)
    }

    /// Plays a random game to its end through the referee, checking every invariant (the
    /// objective and the removed tiles are the game's) at every step.
    fn play_out(game: &Game, seed: u64) -> State {
        game.validate_deal(&game.deal(seed)).unwrap();
        let end = random_game(game, seed, |s, _| invariants::check(game, s).unwrap());
        invariants::check(game, &end).unwrap();
        end
    }

    #[test]
    fn the_retail_what_if_deals_and_plays_as_the_printed_rules() {
        let retail = Game::builtin("castle_field", Variant::Normal).unwrap();
        let same = castle(WhatIf::RETAIL).unwrap();
        for seed in 0..20 {
            assert_eq!(same.deal(seed), Deal::from_seed(seed));
            let deal = Deal::from_seed(seed);
            assert_eq!(same.initial_state(&deal), retail.initial_state(&deal));
        }
        assert_eq!(same.medals_to_win(), retail.terrain().medals_to_win);
    }

    #[test]
    fn removing_no_tiles_leaves_all_24_in_play() {
        let game = castle(WhatIf {
            removed: 0,
            ..WhatIf::RETAIL
        })
        .unwrap();
        let deal = game.deal(5);
        assert!(deal.validate().is_err(), "not a retail deal");
        let s = game.initial_state(&deal);
        for c in Colour::BOTH {
            assert_eq!(s.removed(c).total(), 0);
            assert_eq!(s.rack_len(c) + s.reserve_len(c), TILES_PER_COLOUR);
        }
        play_out(&game, 5);
    }

    #[test]
    fn opening_racks_have_the_what_if_sizes() {
        let game = castle(WhatIf {
            racks: [6, 2],
            ..WhatIf::RETAIL
        })
        .unwrap();
        for seed in 0..10 {
            let deal = game.deal(seed);
            let s = game.initial_state(&deal);
            assert_eq!(s.rack_len(deal.first), 6);
            assert_eq!(s.rack_len(deal.first.opponent()), 2);
            assert_eq!(s.reserve_len(deal.first), 14);
            play_out(&game, seed); // the referee draws from behind the opening racks
        }
    }

    #[test]
    fn an_objective_of_n_ends_games_at_n_medals() {
        let game = castle(WhatIf {
            objective: Some(2),
            ..WhatIf::RETAIL
        })
        .unwrap();
        assert_eq!(game.medals_to_win(), 2);
        let mut medal_wins = 0;
        for seed in 0..40 {
            let s = play_out(&game, seed);
            if let Some(o) = s.outcome().filter(|o| o.win == WinType::Medals) {
                medal_wins += 1;
                assert!(s.medals(o.winner) >= 2);
                assert!(
                    s.medals(o.winner) < game.terrain().medals_to_win,
                    "ends sooner"
                );
            }
        }
        assert!(medal_wins > 0, "some random games end by medals");
    }

    #[test]
    fn impossible_what_ifs_are_refused_naming_the_problem() {
        let total = crate::terrain::builtin("castle_field")
            .unwrap()
            .total_medals();
        let cases = [
            (
                WhatIf {
                    objective: Some(0),
                    ..WhatIf::RETAIL
                },
                "between 1 and",
            ),
            (
                WhatIf {
                    objective: Some(total as u8 + 1),
                    ..WhatIf::RETAIL
                },
                "medals the terrain's regions hold",
            ),
            (
                WhatIf {
                    removed: 25,
                    ..WhatIf::RETAIL
                },
                "a reserve holds only 24",
            ),
            (
                WhatIf {
                    racks: [0, 4],
                    ..WhatIf::RETAIL
                },
                "first player",
            ),
            (
                WhatIf {
                    racks: [3, 9],
                    ..WhatIf::RETAIL
                },
                "second player",
            ),
            (
                WhatIf {
                    removed: 20,
                    racks: [3, 5],
                    ..WhatIf::RETAIL
                },
                "need 25 tiles",
            ),
        ];
        for (w, words) in cases {
            let e = castle(w).unwrap_err().to_string();
            assert!(e.contains(words), "{w:?}: {e}");
        }
        let edge = WhatIf {
            objective: Some(total as u8),
            removed: 16,
            racks: [8, 8],
            restricted: Restricted::of([NodeId(15), NodeId(21)]),
        };
        assert!(
            castle(edge).is_ok(),
            "every medal, and no tile left in reserve, are possible"
        );
    }

    #[test]
    fn what_ifs_are_left_out_of_json_at_their_printed_values() {
        assert_eq!(
            serde_json::to_string(&WhatIfs::default()).unwrap(),
            r#"{"removed":4,"racks":[3,4]}"#
        );
        let w: WhatIf = serde_json::from_str(r#"{"objective":5}"#).unwrap();
        assert_eq!(
            w,
            WhatIf {
                objective: Some(5),
                ..WhatIf::RETAIL
            }
        );
    }
}
