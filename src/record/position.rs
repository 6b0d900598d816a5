//! Position files (`toybattle-position/1`): a game state written by hand in JSON.
//!
//! A position names the terrain, whose turn it is, every stack, rack, discard and medal, and
//! what the game is waiting for. It is validated against the rules before it becomes a
//! [`State`]: every error names the field, node, region or tile at fault. The format and the
//! defaults are documented in `docs/positions.md`.

use crate::rules::tile::{COPIES_PER_TROOP, RACK_LIMIT, TILES_PER_COLOUR};
use crate::rules::{
    Chance, Colour, Game, Outcome, Phase, State, Tile, Troop, TroopCounts, Variant, WinType,
};
use crate::terrain::{self, bits, SpecialEffect, Terrain, TerrainError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The format tag every position file carries.
pub const POSITION_FORMAT: &str = "toybattle-position/1";

/// Why a position was refused.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum PositionError {
    #[error("position is not valid JSON of the expected shape: {0}")]
    Json(String),
    #[error("position format is '{found}', expected '{POSITION_FORMAT}'")]
    Format { found: String },
    #[error(transparent)]
    Terrain(#[from] TerrainError),
    #[error("{field}: node {node} is not on {terrain}")]
    UnknownNode {
        field: &'static str,
        node: u8,
        terrain: String,
    },
    #[error("stacks: node {node}: '{tile}' is not a tile: {reason}")]
    BadTile {
        node: u8,
        tile: String,
        reason: String,
    },
    #[error("stacks: node {node} is an HQ; tiles stand on HQs only once an HQ capture has ended the game")]
    TileOnHq { node: u8 },
    #[error("{colour} has {count} {troop} in all ({places}); a colour has only 3 of each troop")]
    TooManyOfTroop {
        colour: Colour,
        troop: Troop,
        count: u8,
        places: String,
    },
    #[error("{colour}: reserves and removed are both given but account for {count} {troop} in all, expected exactly 3 (24 tiles per colour)")]
    TilesMissing {
        colour: Colour,
        troop: Troop,
        count: u8,
    },
    #[error("racks.{colour}: {count} tiles, a rack holds at most {RACK_LIMIT}")]
    RackOverLimit { colour: Colour, count: usize },
    #[error(
        "{field}.{colour}: {troop} is not on {colour}'s rack (or more copies than the rack holds)"
    )]
    NotOnRack {
        field: &'static str,
        colour: Colour,
        troop: Troop,
    },
    #[error("frozen.{colour}: {colour} is not to move and the phase is {phase}; a freeze ends with the frozen player's turn and is made only by special-base effects")]
    FrozenOutOfTurn { colour: Colour, phase: String },
    #[error("regions_taken: region {region} is not on {terrain}")]
    UnknownRegion { region: u8, terrain: String },
    #[error("regions_taken: region {region} is listed twice")]
    RegionTwice { region: u8 },
    #[error("medals: {problem}")]
    Medals { problem: String },
    #[error("region {region} is controlled by {colour} but not in regions_taken; the region check would already have given its medals")]
    RegionNotTaken { region: u8, colour: Colour },
    #[error("turn: {problem}")]
    Turn { problem: String },
    #[error("phase: {problem}")]
    Phase { problem: String },
    #[error("queued: node {node}: {problem}")]
    Queued { node: u8, problem: String },
}

/// A position: the complete state of a game, as a person writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Always [`POSITION_FORMAT`].
    pub format: String,
    /// Terrain key or name, e.g. `castle_field` or `Castle Field`.
    pub terrain: String,
    #[serde(default)]
    pub variant: Variant,
    /// The active player.
    pub to_move: Colour,
    /// Default: the player to move on odd turns, the other one on even turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_player: Option<Colour>,
    #[serde(default = "first_turn")]
    pub turn: u16,
    #[serde(default)]
    pub phase: PositionPhase,
    /// Special-base placements of this turn whose effect is still to come, in resolution order
    /// (after the effect of `phase`, if that is a special-base effect).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<QueuedSpecial>,
    /// Node id → tiles bottom to top, each `colour:troop`, e.g. `"blue:Jumbo"`.
    #[serde(default)]
    pub stacks: BTreeMap<u8, Vec<String>>,
    #[serde(default)]
    pub racks: PerColour<Vec<Troop>>,
    /// Rack tiles frozen by Battlefield; each must be on the rack.
    #[serde(default, skip_serializing_if = "PerColour::is_empty")]
    pub frozen: PerColour<Vec<Troop>>,
    /// Rack tiles whose identity the opponent knows (R11.1); each must be on the rack.
    #[serde(default, skip_serializing_if = "PerColour::is_empty")]
    pub public_rack: PerColour<Vec<Troop>>,
    #[serde(default)]
    pub discard: PerColour<Vec<Troop>>,
    /// A colour's reserve; when omitted, see `docs/positions.md` (tiles not placed anywhere).
    #[serde(default)]
    pub reserves: PerColour<Option<Vec<Troop>>>,
    /// A colour's tiles removed at setup; when omitted, the tiles not placed anywhere else.
    #[serde(default)]
    pub removed: PerColour<Option<Vec<Troop>>>,
    #[serde(default)]
    pub medals: PerColour<u8>,
    /// Ids of the regions whose medals have been taken.
    #[serde(default)]
    pub regions_taken: Vec<u8>,
}

fn first_turn() -> u16 {
    1
}

/// One value per colour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerColour<T> {
    #[serde(default)]
    pub blue: T,
    #[serde(default)]
    pub red: T,
}

impl<T> PerColour<T> {
    pub fn get(&self, c: Colour) -> &T {
        match c {
            Colour::Blue => &self.blue,
            Colour::Red => &self.red,
        }
    }

    fn from_fn(f: impl Fn(Colour) -> T) -> PerColour<T> {
        PerColour {
            blue: f(Colour::Blue),
            red: f(Colour::Red),
        }
    }
}

impl PerColour<Vec<Troop>> {
    fn is_empty(&self) -> bool {
        self.blue.is_empty() && self.red.is_empty()
    }
}

/// What the game is waiting for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionPhase {
    /// The player to move chooses DRAW or PLACE.
    #[default]
    Action,
    /// `troop`, just placed on `node` by the player to move, offers its effect.
    TroopEffect { troop: Troop, node: u8 },
    /// The special base `node`, where the player to move placed a tile this turn, offers its
    /// effect.
    SpecialEffect { node: u8 },
    /// A random event is pending.
    Chance(PositionChance),
    /// The game has ended.
    Over { winner: Colour, win: WinType },
}

/// A pending random event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionChance {
    /// The player to move draws this many more tiles.
    Draw(u8),
    /// XB-42 discards a random tile of the opponent's rack.
    RackDiscard,
    /// Battlefield freezes a random unfrozen tile of the opponent's rack.
    Freeze,
}

/// A queued special-base placement: a node id, or a node id with the stack level (0 = bottom)
/// of the tile placed there when the default level would be wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QueuedSpecial {
    /// Default level: the top of the stack, one lower for every later entry of the same node.
    Node(u8),
    At {
        node: u8,
        level: u8,
    },
}

impl QueuedSpecial {
    fn node(self) -> u8 {
        match self {
            QueuedSpecial::Node(n) | QueuedSpecial::At { node: n, .. } => n,
        }
    }
}

impl Position {
    /// Reads a position: JSON shape, format tag and tile spelling. The rules are checked by
    /// [`Position::to_game_state`], which needs the terrain.
    pub fn parse(text: &str) -> Result<Position, PositionError> {
        let p: Position =
            serde_json::from_str(text).map_err(|e| PositionError::Json(e.to_string()))?;
        if p.format != POSITION_FORMAT {
            return Err(PositionError::Format {
                found: p.format.clone(),
            });
        }
        for (&node, tiles) in &p.stacks {
            for text in tiles {
                parse_tile(node, text)?;
            }
        }
        Ok(p)
    }

    /// The game and state of this position, checked against the rules. `terrains`: the
    /// terrains the name may refer to (`None` = the shipped terrains). An action-phase position
    /// whose player to move can neither draw nor place is ended at once (R10.3), as at the start
    /// of any turn.
    pub fn to_game_state(
        &self,
        terrains: Option<&[Terrain]>,
    ) -> Result<(Game, State), PositionError> {
        if self.format != POSITION_FORMAT {
            return Err(PositionError::Format {
                found: self.format.clone(),
            });
        }
        let list = terrains.unwrap_or_else(|| terrain::builtin_terrains());
        let game = Game::new(
            Arc::new(terrain::find(list, &self.terrain)?.clone()),
            self.variant,
        );
        let mut s = State::empty(self.first_player()?);
        s.active = self.to_move;
        s.turn = self.turn;
        self.set_board(&game, &mut s)?;
        self.set_tiles(&mut s)?;
        self.set_medals(&game, &mut s)?;
        self.set_phase(&game, &mut s)?;
        if s.phase == Phase::Action {
            game.begin_turn(&mut s);
        }
        Ok((game, s))
    }

    /// The position of `state`. Resolved and cancelled entries of the special-base queue are
    /// not part of a position; everything else round-trips through [`Position::to_game_state`].
    pub fn from_state(game: &Game, state: &State) -> Position {
        let t = game.terrain();
        let id = |n: u8| t.id_of(n as usize);
        let lists = |f: &dyn Fn(Colour) -> TroopCounts| PerColour::from_fn(|c| f(c).to_vec());
        let stacks = (0..t.node_count())
            .filter(|&n| state.board.height(n) > 0)
            .map(|n| {
                let tiles = state.board.stack(n).map(|x| x.to_string()).collect();
                (t.id_of(n), tiles)
            })
            .collect();
        Position {
            format: POSITION_FORMAT.to_string(),
            terrain: t.key.clone(),
            variant: game.variant(),
            to_move: state.active,
            first_player: Some(state.first),
            turn: state.turn,
            phase: position_phase(state, &id),
            queued: match state.phase {
                Phase::Action | Phase::Over => Vec::new(),
                _ => queued_entries(state, &id),
            },
            stacks,
            racks: lists(&|c| state.rack(c)),
            frozen: lists(&|c| state.frozen(c)),
            public_rack: lists(&|c| state.public_rack(c)),
            discard: lists(&|c| state.discard(c)),
            reserves: PerColour::from_fn(|c| Some(state.reserve(c).to_vec())),
            removed: PerColour::from_fn(|c| Some(state.removed(c).to_vec())),
            medals: PerColour::from_fn(|c| state.medals(c)),
            regions_taken: bits(state.regions_taken).map(|r| t.regions[r].id).collect(),
        }
    }

    /// The first player: given, or deduced from the turn number (odd turns are the first
    /// player's).
    fn first_player(&self) -> Result<Colour, PositionError> {
        if self.turn == 0 {
            return Err(PositionError::Turn {
                problem: "turns count from 1".into(),
            });
        }
        let deduced = if self.turn % 2 == 1 {
            self.to_move
        } else {
            self.to_move.opponent()
        };
        match self.first_player {
            Some(f) if f != deduced => Err(PositionError::Turn {
                problem: format!(
                    "turn {} is {}'s turn when {f} plays first, but to_move is {}",
                    self.turn,
                    self.to_move.opponent(),
                    self.to_move
                ),
            }),
            _ => Ok(deduced),
        }
    }

    fn set_board(&self, game: &Game, s: &mut State) -> Result<(), PositionError> {
        let t = game.terrain();
        let mut on_board = [TroopCounts::EMPTY; 2];
        for (&id, tiles) in &self.stacks {
            let n = node_index(t, "stacks", id)?;
            if t.bases & (1 << n) == 0 && !tiles.is_empty() && !self.allows_tile_on_hq() {
                return Err(PositionError::TileOnHq { node: id });
            }
            for text in tiles {
                let tile = parse_tile(id, text)?;
                on_board[tile.colour().index()].add(tile.troop());
                // Checked before pushing: the board holds at most the 48 tiles of the game.
                let count = on_board[tile.colour().index()].get(tile.troop());
                if count > COPIES_PER_TROOP {
                    return Err(PositionError::TooManyOfTroop {
                        colour: tile.colour(),
                        troop: tile.troop(),
                        count,
                        places: format!("board {count} so far, at node {id}"),
                    });
                }
                s.board.push(n, tile);
            }
        }
        Ok(())
    }

    fn allows_tile_on_hq(&self) -> bool {
        matches!(
            self.phase,
            PositionPhase::Over {
                win: WinType::Hq,
                ..
            }
        )
    }

    /// Racks, frozen and public tiles, discards, reserves and removed tiles, with the tile
    /// count of every colour checked.
    fn set_tiles(&self, s: &mut State) -> Result<(), PositionError> {
        for c in Colour::BOTH {
            let i = c.index();
            let rack = self.racks.get(c);
            if rack.len() > RACK_LIMIT as usize {
                return Err(PositionError::RackOverLimit {
                    colour: c,
                    count: rack.len(),
                });
            }
            s.rack[i] = counts(rack);
            s.rack_len[i] = rack.len() as u8;
            s.frozen[i] = rack_subset("frozen", c, &s.rack[i], self.frozen.get(c))?;
            s.frozen_len[i] = s.frozen[i].total();
            s.public_rack[i] = rack_subset("public_rack", c, &s.rack[i], self.public_rack.get(c))?;
            s.discard[i] = counts(self.discard.get(c));
            let (reserve, removed) = self.hidden_tiles(s, c)?;
            s.reserve[i] = reserve;
            s.reserve_len[i] = reserve.total();
            s.removed[i] = removed;
        }
        Ok(())
    }

    /// Reserve and removed tiles of `c`. Every colour has exactly 24 tiles: the tiles of `c`
    /// that are neither on the board, on the rack nor in the discard fill what is omitted — the
    /// reserve when both are omitted, else whichever one is omitted.
    fn hidden_tiles(
        &self,
        s: &State,
        c: Colour,
    ) -> Result<(TroopCounts, TroopCounts), PositionError> {
        let i = c.index();
        let on_board = TroopCounts::from_troops(
            (0..terrain::MAX_NODES)
                .flat_map(|n| s.board.stack(n))
                .filter(|t| t.colour() == c)
                .map(|t| t.troop()),
        );
        let reserve = self.reserves.get(c).as_deref().map(counts);
        let removed = self.removed.get(c).as_deref().map(counts);
        let visible = on_board.plus(&s.rack[i]).plus(&s.discard[i]);
        let given = visible
            .plus(&reserve.unwrap_or_default())
            .plus(&removed.unwrap_or_default());
        for t in Troop::ALL {
            if given.get(t) > COPIES_PER_TROOP {
                return Err(PositionError::TooManyOfTroop {
                    colour: c,
                    troop: t,
                    count: given.get(t),
                    places: describe_places(
                        t,
                        &[
                            ("board", on_board),
                            ("rack", s.rack[i]),
                            ("discard", s.discard[i]),
                            ("reserve", reserve.unwrap_or_default()),
                            ("removed", removed.unwrap_or_default()),
                        ],
                    ),
                });
            }
        }
        let rest = TroopCounts::FULL.minus(&given).unwrap_or_default();
        debug_assert_eq!(given.total() + rest.total(), TILES_PER_COLOUR);
        match (reserve, removed) {
            (None, None) => Ok((rest, TroopCounts::EMPTY)),
            (Some(r), None) => Ok((r, rest)),
            (None, Some(m)) => Ok((rest, m)),
            (Some(r), Some(m)) => match Troop::ALL.into_iter().find(|&t| rest.get(t) > 0) {
                Some(t) => Err(PositionError::TilesMissing {
                    colour: c,
                    troop: t,
                    count: given.get(t),
                }),
                None => Ok((r, m)),
            },
        }
    }

    /// Medals and taken regions: the taken regions' medals must split between the colours as
    /// given, nobody may have reached the objective before the game is over, and every region
    /// a colour controls must have been taken (its region check would have run).
    fn set_medals(&self, game: &Game, s: &mut State) -> Result<(), PositionError> {
        let t = game.terrain();
        let mut taken_medals = Vec::new();
        for &id in &self.regions_taken {
            let r = t.regions.iter().position(|r| r.id == id).ok_or_else(|| {
                PositionError::UnknownRegion {
                    region: id,
                    terrain: t.name.clone(),
                }
            })?;
            if s.regions_taken & (1 << r) != 0 {
                return Err(PositionError::RegionTwice { region: id });
            }
            s.regions_taken |= 1 << r;
            taken_medals.push(t.regions[r].medals);
        }
        let (blue, red) = (self.medals.blue, self.medals.red);
        if !splits(&taken_medals, blue, red) {
            return Err(PositionError::Medals {
                problem: format!(
                    "blue {blue} and red {red} cannot be the medals of the regions taken {:?} \
                     (they hold {:?})",
                    self.regions_taken, taken_medals
                ),
            });
        }
        s.medals = [blue, red];
        let over = matches!(self.phase, PositionPhase::Over { .. });
        for c in Colour::BOTH {
            if !over && s.medals(c) >= t.medals_to_win {
                return Err(PositionError::Medals {
                    problem: format!(
                        "{c} has {} medals, the objective of {} is {}: the game would be over",
                        s.medals(c),
                        t.name,
                        t.medals_to_win
                    ),
                });
            }
            let occupied = s.board.occupied(c);
            let untaken =
                t.regions.iter().enumerate().find(|&(r, reg)| {
                    s.regions_taken & (1 << r) == 0 && reg.bases & !occupied == 0
                });
            match untaken {
                Some((_, reg)) if !over => {
                    return Err(PositionError::RegionNotTaken {
                        region: reg.id,
                        colour: c,
                    })
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The phase and the special-base queue, checked against the board and the rules.
    fn set_phase(&self, game: &Game, s: &mut State) -> Result<(), PositionError> {
        let t = game.terrain();
        let p = self.to_move;
        let phase_error = |problem: String| PositionError::Phase { problem };
        s.phase = match self.phase {
            PositionPhase::Action => Phase::Action,
            PositionPhase::TroopEffect { troop, node } => {
                let n = node_index(t, "phase.troop_effect.node", node)?;
                if s.board.top(n) != Some(Tile::new(p, troop)) {
                    return Err(phase_error(format!(
                        "troop_effect: the top tile of node {node} is not {p}'s {troop}"
                    )));
                }
                if t.effect_at(n) == Some(SpecialEffect::NoTroopEffect)
                    && game.variant() == Variant::Normal
                {
                    return Err(phase_error(format!(
                        "troop_effect: node {node} is a special base where troops have no effect"
                    )));
                }
                if !game.troop_effect_available(s, troop, n) {
                    return Err(phase_error(format!(
                        "troop_effect: {troop} on node {node} has no effect to offer here"
                    )));
                }
                Phase::TroopEffect {
                    troop,
                    node: n as u8,
                }
            }
            PositionPhase::SpecialEffect { node } => {
                let n = node_index(t, "phase.special_effect.node", node)?;
                let effect = queued_effect(game, n).ok_or_else(|| {
                    phase_error(format!(
                        "special_effect: node {node} has no special-base effect in the {} game",
                        game.variant()
                    ))
                })?;
                if !game.special_effect_available(s, effect, n as u8) {
                    return Err(phase_error(format!(
                        "special_effect: node {node} ({}) has no effect to offer here",
                        effect.describe()
                    )));
                }
                Phase::SpecialEffect {
                    effect,
                    node: n as u8,
                }
            }
            PositionPhase::Chance(chance) => self.chance_phase(s, chance)?,
            PositionPhase::Over { winner, win } => {
                s.outcome = Some(Outcome { winner, win });
                Phase::Over
            }
        };
        self.check_frozen_turn(s)?;
        self.set_queue(game, s)
    }

    fn chance_phase(&self, s: &State, chance: PositionChance) -> Result<Phase, PositionError> {
        let p = self.to_move;
        let e = p.opponent();
        let (phase, possible) = match chance {
            PositionChance::Draw(k) => (
                Phase::Chance(Chance::Draw { remaining: k }),
                k >= 1 && k <= s.draw_count(p, 2),
            ),
            PositionChance::RackDiscard => (Phase::Chance(Chance::RackDiscard), s.rack_len(e) > 0),
            PositionChance::Freeze => (
                Phase::Chance(Chance::Freeze),
                s.rack_len(e) > s.frozen_len(e),
            ),
        };
        if possible {
            Ok(phase)
        } else {
            Err(PositionError::Phase {
                problem: format!(
                    "{}: impossible with {p}'s reserve of {} and racks of {} \
                     (blue) and {} (red), {} frozen on {e}'s",
                    file_notation(&PositionPhase::Chance(chance)),
                    s.reserve_len(p),
                    s.rack_len(Colour::Blue),
                    s.rack_len(Colour::Red),
                    s.frozen_len(e)
                ),
            })
        }
    }

    /// Freezes happen at special-base effects and end with the frozen player's turn: the player
    /// not to move can have frozen tiles only from a special-base effect onwards.
    fn check_frozen_turn(&self, s: &State) -> Result<(), PositionError> {
        let other = self.to_move.opponent();
        let may_be_frozen = matches!(
            s.phase,
            Phase::SpecialEffect { .. }
                | Phase::Chance(Chance::Draw { .. } | Chance::Freeze)
                | Phase::Over
        );
        if s.frozen_len(other) > 0 && !may_be_frozen {
            return Err(PositionError::FrozenOutOfTurn {
                colour: other,
                phase: file_notation(&self.phase),
            });
        }
        Ok(())
    }

    fn set_queue(&self, game: &Game, s: &mut State) -> Result<(), PositionError> {
        let t = game.terrain();
        if self.queued.is_empty() {
            return Ok(());
        }
        if matches!(s.phase, Phase::Action | Phase::Over) {
            return Err(PositionError::Queued {
                node: self.queued[0].node(),
                problem: "special-base effects are queued only during a turn's placement".into(),
            });
        }
        if self.queued.len() > 4 {
            return Err(PositionError::Queued {
                node: self.queued[4].node(),
                problem: "a turn has at most four placements".into(),
            });
        }
        for (k, q) in self.queued.iter().enumerate() {
            let id = q.node();
            let err = |problem: String| PositionError::Queued { node: id, problem };
            let n = node_index(t, "queued", id)?;
            if queued_effect(game, n).is_none() {
                return Err(err(format!(
                    "no special-base effect in the {} game",
                    game.variant()
                )));
            }
            let later = self.queued[k + 1..]
                .iter()
                .filter(|x| x.node() == id)
                .count();
            let level = match *q {
                QueuedSpecial::At { level, .. } => Some(level as usize),
                QueuedSpecial::Node(_) => (s.board.height(n)).checked_sub(1 + later),
            };
            let tile = level.and_then(|l| s.board.stack(n).nth(l));
            match (level, tile) {
                (Some(l), Some(tile)) if tile.colour() == self.to_move => {
                    s.queue.push(n as u8, l as u8)
                }
                _ => {
                    return Err(err(format!(
                        "no tile of {} at the queued level of this stack",
                        self.to_move
                    )))
                }
            }
        }
        Ok(())
    }
}

/// The phase of a state, in position words.
fn position_phase(s: &State, id: &dyn Fn(u8) -> u8) -> PositionPhase {
    match s.phase {
        Phase::Action => PositionPhase::Action,
        Phase::TroopEffect { troop, node } => PositionPhase::TroopEffect {
            troop,
            node: id(node),
        },
        Phase::SpecialEffect { node, .. } => PositionPhase::SpecialEffect { node: id(node) },
        Phase::Chance(Chance::Draw { remaining }) => {
            PositionPhase::Chance(PositionChance::Draw(remaining))
        }
        Phase::Chance(Chance::RackDiscard) => PositionPhase::Chance(PositionChance::RackDiscard),
        Phase::Chance(Chance::Freeze) => PositionPhase::Chance(PositionChance::Freeze),
        Phase::Over => {
            let o = s.outcome.expect("a finished game has an outcome");
            PositionPhase::Over {
                winner: o.winner,
                win: o.win,
            }
        }
    }
}

/// Pending queue entries, as node ids where the default level is right.
fn queued_entries(s: &State, id: &dyn Fn(u8) -> u8) -> Vec<QueuedSpecial> {
    let pending: Vec<(u8, u8)> = s.pending_specials().collect();
    pending
        .iter()
        .enumerate()
        .map(|(k, &(n, level))| {
            let later = pending[k + 1..].iter().filter(|e| e.0 == n).count();
            let default = s.board.height(n as usize).checked_sub(1 + later);
            if default == Some(level as usize) {
                QueuedSpecial::Node(id(n))
            } else {
                QueuedSpecial::At { node: id(n), level }
            }
        })
        .collect()
}

/// The special-base effect queued after a placement on node `n`, if any (R6.4; none in the
/// beginner game, R13.1).
fn queued_effect(game: &Game, n: usize) -> Option<SpecialEffect> {
    game.terrain()
        .effect_at(n)
        .filter(|e| e.is_queued() && game.variant() == Variant::Normal)
}

fn node_index(t: &Terrain, field: &'static str, id: u8) -> Result<usize, PositionError> {
    t.index_of(id).ok_or_else(|| PositionError::UnknownNode {
        field,
        node: id,
        terrain: t.name.clone(),
    })
}

fn parse_tile(node: u8, text: &str) -> Result<Tile, PositionError> {
    text.parse().map_err(|reason| PositionError::BadTile {
        node,
        tile: text.to_string(),
        reason,
    })
}

fn counts(list: &[Troop]) -> TroopCounts {
    TroopCounts::from_troops(list.iter().copied())
}

/// `list` as counts, each tile of which must be on `rack`.
fn rack_subset(
    field: &'static str,
    colour: Colour,
    rack: &TroopCounts,
    list: &[Troop],
) -> Result<TroopCounts, PositionError> {
    let sub = counts(list);
    match Troop::ALL.into_iter().find(|&t| sub.get(t) > rack.get(t)) {
        Some(troop) => Err(PositionError::NotOnRack {
            field,
            colour,
            troop,
        }),
        None => Ok(sub),
    }
}

fn describe_places(t: Troop, places: &[(&str, TroopCounts)]) -> String {
    places
        .iter()
        .filter(|(_, c)| c.get(t) > 0)
        .map(|(name, c)| format!("{name} {}", c.get(t)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the medals of `regions` split into `a` for one colour and `b` for the other.
fn splits(regions: &[u8], a: u8, b: u8) -> bool {
    let total: u32 = regions.iter().map(|&m| m as u32).sum();
    if total != a as u32 + b as u32 {
        return false;
    }
    // Subset sums: bit k set when some regions hold exactly k medals together.
    let reachable = regions.iter().fold(1u128, |acc, &m| {
        acc | acc.checked_shl(m as u32).unwrap_or(0)
    });
    a < 128 && reachable & (1 << a) != 0
}

/// A value as the position file writes it (`{"chance":{"draw":0}}`), for messages.
fn file_notation(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Deal;

    fn parse(json: &str) -> Result<(Game, State), PositionError> {
        Position::parse(json)?.to_game_state(None)
    }

    const HEADER: &str = r#""format": "toybattle-position/1", "terrain": "castle_field""#;

    #[test]
    fn minimal_position_defaults() {
        let (game, s) = parse(&format!(
            r#"{{ {HEADER}, "to_move": "red", "racks": {{"red": ["Roxy"]}} }}"#
        ))
        .unwrap();
        assert_eq!(game.terrain().key, "castle_field");
        assert_eq!(
            (s.active(), s.first_player(), s.turn()),
            (Colour::Red, Colour::Red, 1)
        );
        assert_eq!(s.phase(), Phase::Action);
        assert_eq!(s.reserve_len(Colour::Red), 23);
        assert_eq!(s.reserve_len(Colour::Blue), 24);
        assert_eq!(s.removed(Colour::Blue), TroopCounts::EMPTY);
        for c in Colour::BOTH {
            assert_eq!(s.tile_census(c), TroopCounts::FULL);
        }
    }

    #[test]
    fn even_turn_makes_the_other_player_first() {
        let (_, s) = parse(&format!(r#"{{ {HEADER}, "to_move": "red", "turn": 4 }}"#)).unwrap();
        assert_eq!(s.first_player(), Colour::Blue);
        let err = parse(&format!(
            r#"{{ {HEADER}, "to_move": "red", "turn": 4, "first_player": "red" }}"#
        ))
        .unwrap_err();
        assert!(matches!(err, PositionError::Turn { .. }), "{err}");
    }

    #[test]
    fn omitted_removed_takes_the_tiles_left_over() {
        let (_, s) = parse(&format!(
            r#"{{ {HEADER}, "to_move": "blue", "reserves": {{"blue": ["Star"]}} }}"#
        ))
        .unwrap();
        assert_eq!(
            s.reserve(Colour::Blue),
            TroopCounts::from_troops([Troop::Star])
        );
        assert_eq!(s.removed(Colour::Blue).total(), 23);
    }

    /// Whether an error is the one a case expects.
    type ErrorCheck = fn(&PositionError) -> bool;

    fn expect_err(body: &str) -> PositionError {
        parse(&format!(r#"{{ {HEADER}, {body} }}"#)).unwrap_err()
    }

    #[test]
    fn errors_name_what_is_at_fault() {
        let cases: Vec<(&str, ErrorCheck)> = vec![
            (r#""to_move": "green""#, |e| {
                matches!(e, PositionError::Json(_))
            }),
            (
                r#""to_move": "blue", "stacks": {"13": ["blue:Dragon"]}"#,
                |e| matches!(e, PositionError::BadTile { node: 13, .. }),
            ),
            (
                r#""to_move": "blue", "stacks": {"30": ["blue:Roxy"]}"#,
                |e| matches!(e, PositionError::UnknownNode { node: 30, .. }),
            ),
            (
                r#""to_move": "blue", "stacks": {"41": ["blue:Roxy"]}"#,
                |e| matches!(e, PositionError::TileOnHq { node: 41 }),
            ),
            (
                r#""to_move": "blue", "stacks": {"11": ["blue:Star"]}, "racks": {"blue": ["Star", "Star", "Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::TooManyOfTroop {
                            colour: Colour::Blue,
                            troop: Troop::Star,
                            count: 4,
                            ..
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"12": ["blue:X", "blue:X", "blue:X", "blue:X", "blue:X"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::TooManyOfTroop {
                            troop: Troop::Kwak,
                            count: 4,
                            ..
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "racks": {"blue": ["X","X","X","1","1","1","2","2","2"]}"#,
                |e| matches!(e, PositionError::RackOverLimit { count: 9, .. }),
            ),
            (
                r#""to_move": "blue", "racks": {"blue": ["Star"]}, "frozen": {"blue": ["Roxy"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::NotOnRack {
                            field: "frozen",
                            troop: Troop::Roxy,
                            ..
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "racks": {"red": ["Star"]}, "frozen": {"red": ["Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::FrozenOutOfTurn {
                            colour: Colour::Red,
                            ..
                        }
                    )
                },
            ),
            (r#""to_move": "blue", "regions_taken": [9]"#, |e| {
                matches!(e, PositionError::UnknownRegion { region: 9, .. })
            }),
            (
                r#""to_move": "blue", "medals": {"blue": 2}, "regions_taken": [1]"#,
                |e| matches!(e, PositionError::Medals { .. }),
            ),
            (
                r#""to_move": "blue", "stacks": {"13": ["blue:X"], "15": ["blue:X"], "17": ["blue:X"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::RegionNotTaken {
                            region: 2,
                            colour: Colour::Blue
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "phase": {"special_effect": {"node": 13}}"#,
                |e| matches!(e, PositionError::Phase { .. }),
            ),
            (
                r#""to_move": "blue", "stacks": {"13": ["blue:Roxy"]}, "phase": {"troop_effect": {"troop": "Jumbo", "node": 13}}"#,
                |e| matches!(e, PositionError::Phase { .. }),
            ),
            (
                r#""to_move": "blue", "reserves": {"blue": []}, "removed": {"blue": ["Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::TilesMissing {
                            colour: Colour::Blue,
                            troop: Troop::Kwak,
                            count: 0
                        }
                    )
                },
            ),
        ];
        for (body, ok) in cases {
            let e = expect_err(body);
            assert!(ok(&e), "{body}: unexpected error {e}");
            assert!(!e.to_string().is_empty());
        }
    }

    /// The example of docs/positions.md is a valid position.
    #[test]
    fn documented_example_is_valid() {
        let doc = include_str!("../../docs/positions.md");
        let start = doc.find("```json\n").expect("a JSON example") + 8;
        let len = doc[start..].find("```").expect("the example ends");
        let (_, s) = Position::parse(&doc[start..start + len])
            .and_then(|p| p.to_game_state(None))
            .unwrap();
        assert_eq!(
            (s.active(), s.turn(), s.medals(Colour::Red)),
            (Colour::Blue, 5, 1)
        );
    }

    #[test]
    fn format_tag_is_checked() {
        let e = Position::parse(r#"{"format": "x", "terrain": "castle_field", "to_move": "blue"}"#)
            .unwrap_err();
        assert_eq!(e, PositionError::Format { found: "x".into() });
    }

    /// Every state of a few random games survives the trip to a position and back.
    #[test]
    fn states_of_random_games_round_trip() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for t in crate::terrain::builtin_terrains() {
            let game = Game::builtin(&t.key, Variant::Normal).unwrap();
            for seed in 0..3 {
                let mut s = game.initial_state(&Deal::from_seed(seed));
                loop {
                    let p = Position::from_state(&game, &s);
                    let text = serde_json::to_string(&p).unwrap();
                    let back = Position::parse(&text).unwrap();
                    assert_eq!(back, p);
                    let (_, t) = back
                        .to_game_state(None)
                        .unwrap_or_else(|e| panic!("{e}: {text}"));
                    assert_eq!(Position::from_state(&game, &t), p);
                    if s.phase() == Phase::Action {
                        assert_eq!(t, s, "{text}");
                    }
                    if s.is_over() || s.turn() > 150 {
                        break;
                    }
                    let d = crate::rules::random_decision(&game, &s, &mut rng).unwrap();
                    game.apply_legal(&mut s, d);
                }
            }
        }
    }
}
