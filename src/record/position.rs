//! Position files (`toybattle-position/1`): a game state written by hand in JSON.
//!
//! A position names the terrain, whose turn it is, every stack, rack, discard and medal, and
//! what the game is waiting for. It is validated against the rules before it becomes a
//! [`State`]: every error names the field, node, region or tile at fault. The format and the
//! defaults are documented in `docs/positions.md`.

use crate::rules::tile::{ParseTileError, COPIES_PER_TROOP};
use crate::rules::{
    Chance, Colour, Game, Outcome, Phase, Setup, SetupError, State, Tile, Troop, TroopCounts,
    Variant, WinType,
};
use crate::terrain::{self, bits, NodeId, NodeIndex, Terrain, TerrainError};
use crate::vocabulary::ByColour;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The format tag every position file carries.
pub const POSITION_FORMAT: &str = "toybattle-position/1";

/// Why a position was refused: its JSON, or (as a [`SetupError`]) the rules.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum PositionError {
    /// The text is not JSON, or not of a position's shape (a missing or unknown field, a value
    /// of the wrong kind); the JSON reader's message.
    #[error("position is not valid JSON of the expected shape: {0}")]
    Json(String),
    /// The `format` field is not [`POSITION_FORMAT`].
    #[error("position format is '{found}', expected '{POSITION_FORMAT}'")]
    Format {
        /// The format tag the file gives.
        found: String,
    },
    /// The `terrain` field names none of the terrains it may refer to.
    #[error(transparent)]
    Terrain(#[from] TerrainError),
    /// A node id that the terrain does not have.
    #[error("{field}: node {node} is not on {terrain}")]
    UnknownNode {
        /// The field that names it, e.g. `stacks` or `phase.troop_effect.node`.
        field: &'static str,
        /// The node id, as in the terrain file.
        node: NodeId,
        /// The terrain's name.
        terrain: String,
    },
    /// A stack entry that is not a tile written `colour:troop`.
    #[error("stacks: node {node}: '{tile}' is not a tile: {reason}")]
    BadTile {
        /// The node id of the stack.
        node: NodeId,
        /// The entry as written.
        tile: String,
        /// Why it is not a tile.
        reason: ParseTileError,
    },
    /// A region id in `regions_taken` that the terrain does not have.
    #[error("regions_taken: region {region} is not on {terrain}")]
    UnknownRegion {
        /// The region id, as in the terrain file.
        region: u8,
        /// The terrain's name.
        terrain: String,
    },
    /// A region id listed twice in `regions_taken`.
    #[error("regions_taken: region {region} is listed twice")]
    RegionTwice {
        /// The region id, as in the terrain file.
        region: u8,
    },
    /// A troop list (rack, discard, reserve…) with more copies of a troop than a colour has.
    #[error(
        "{field}.{colour}: {count} {troop}; a colour has only {COPIES_PER_TROOP} of each troop"
    )]
    TooManyInList {
        /// The field of the list, e.g. `racks` or `discard`.
        field: &'static str,
        /// The colour whose list it is.
        colour: Colour,
        /// The troop listed too often.
        troop: Troop,
        /// How many times it is listed.
        count: usize,
    },
    /// A `queued` entry given as a bare node id whose stack is too low for its default level.
    #[error("queued: node {node}: no tile of {colour} at the queued level of this stack")]
    QueuedLevel {
        /// The node id of the entry.
        node: NodeId,
        /// The player to move.
        colour: Colour,
    },
    /// The position is well formed but cannot arise under the rules.
    #[error("{0}")]
    Setup(#[from] SetupError),
}

/// A position: the complete state of a game, as a person writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Always [`POSITION_FORMAT`].
    pub format: String,
    /// Terrain key or name, e.g. `castle_field` or `Castle Field`.
    pub terrain: String,
    /// `"normal"` (default) or `"beginner"` (special bases are plain bases, §13).
    #[serde(default)]
    pub variant: Variant,
    /// The active player, `"blue"` or `"red"`.
    pub to_move: Colour,
    /// The player who took turn 1. Default: the player to move on odd turns, the other one on
    /// even turns; if given it must agree with `turn` and `to_move`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_player: Option<Colour>,
    /// Turns begun so far, counting from 1. Default: the earliest turn at which the tiles on
    /// the board and the regions taken can have been placed, with the player to move playing
    /// first unless `first_player` says otherwise ([`Game::earliest_turn`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u16>,
    /// What the game waits for (default `"action"`).
    #[serde(default)]
    pub phase: PositionPhase,
    /// Special-base placements of this turn whose effect is still to come, in resolution order
    /// (after the effect of `phase`, if that is a special-base effect).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<QueuedSpecial>,
    /// Node id → tiles bottom to top, each `colour:troop`, e.g. `"blue:Jumbo"`.
    #[serde(default)]
    pub stacks: BTreeMap<NodeId, Vec<String>>,
    /// Each colour's rack, frozen tiles included, as troops: `{"blue": ["Capn", "Star"], …}`
    /// (default empty).
    #[serde(default, with = "crate::vocabulary::by_colour_named")]
    pub racks: ByColour<Vec<Troop>>,
    /// Rack tiles frozen by Battlefield; each must be on the rack.
    #[serde(
        default,
        with = "crate::vocabulary::by_colour_named",
        skip_serializing_if = "no_tiles"
    )]
    pub frozen: ByColour<Vec<Troop>>,
    /// Rack tiles whose identity the opponent knows (R11.1); each must be on the rack.
    #[serde(
        default,
        with = "crate::vocabulary::by_colour_named",
        skip_serializing_if = "no_tiles"
    )]
    pub public_rack: ByColour<Vec<Troop>>,
    /// Each colour's tiles in the discard, as troops (default empty).
    #[serde(default, with = "crate::vocabulary::by_colour_named")]
    pub discard: ByColour<Vec<Troop>>,
    /// Each colour's reserve, as troops (its order is not part of a position); when omitted,
    /// the colour's tiles placed nowhere else (board, rack, discard, `removed`).
    #[serde(default, with = "crate::vocabulary::by_colour_named")]
    pub reserves: ByColour<Option<Vec<Troop>>>,
    /// Each colour's tiles removed at setup, as troops; when omitted: none if the colour's
    /// reserve is omitted too, else the tiles placed nowhere else (docs/positions.md).
    #[serde(default, with = "crate::vocabulary::by_colour_named")]
    pub removed: ByColour<Option<Vec<Troop>>>,
    /// Medals each colour has taken: `{"blue": n, "red": n}` (default 0).
    #[serde(default, with = "crate::vocabulary::by_colour_named")]
    pub medals: ByColour<u8>,
    /// Ids of the regions whose medals have been taken.
    #[serde(default)]
    pub regions_taken: Vec<u8>,
}

/// Whether neither colour lists a tile (an optional field left out of the file).
fn no_tiles(v: &ByColour<Vec<Troop>>) -> bool {
    v.iter().all(|(_, l)| l.is_empty())
}

/// What the game is waiting for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionPhase {
    /// The player to move chooses DRAW or PLACE.
    #[default]
    Action,
    /// `troop`, just placed on `node` by the player to move, offers its effect.
    TroopEffect {
        /// The troop placed.
        troop: Troop,
        /// The node id it was placed on, as in the terrain file.
        node: NodeId,
    },
    /// The special base `node`, where the player to move placed a tile this turn, offers its
    /// effect.
    SpecialEffect {
        /// The special base's node id, as in the terrain file.
        node: NodeId,
    },
    /// A random event is pending.
    Chance(PositionChance),
    /// The game has ended.
    Over {
        /// The player who won.
        winner: Colour,
        /// How: `"hq"`, `"medals"` or `"blocked"`.
        win: WinType,
    },
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
    Node(NodeId),
    /// The level given: `{"node": N, "level": L}`, for a tile no longer where the default puts
    /// it (a tile moved onto it since).
    At {
        /// The special base's node id, as in the terrain file.
        node: NodeId,
        /// The stack level of the tile placed there, 0 = bottom.
        level: u8,
    },
}

impl QueuedSpecial {
    fn node(self) -> NodeId {
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

    /// The game and state of this position, checked against the rules
    /// ([`Game::state_from_setup`]). `terrains`: the terrains the name may refer to (`None` =
    /// the shipped terrains). An action-phase position whose player to move can neither draw
    /// nor place is ended at once (R10.3), as at the start of any turn.
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
        let state = game.state_from_setup(&self.to_setup(&game)?)?;
        Ok((game, state))
    }

    /// The setup this position writes, on `game`'s terrain: node and region ids become
    /// indices, omitted reserves and removed tiles are filled in (docs/positions.md). Only what
    /// the file's form can get wrong is checked here; the rules are checked by
    /// [`Game::state_from_setup`].
    pub fn to_setup(&self, game: &Game) -> Result<Setup, PositionError> {
        let t = game.terrain();
        let mut stacks = BTreeMap::new();
        for (&id, texts) in &self.stacks {
            let n = node_index(t, "stacks", id)?;
            let tiles = texts
                .iter()
                .map(|text| parse_tile(id, text))
                .collect::<Result<Vec<Tile>, _>>()?;
            stacks.insert(n, tiles);
        }
        let list = |field, v: &ByColour<Vec<Troop>>| -> Result<_, PositionError> {
            Ok(ByColour::new(
                counts(field, Colour::Blue, &v[Colour::Blue])?,
                counts(field, Colour::Red, &v[Colour::Red])?,
            ))
        };
        let mut setup = Setup {
            stacks,
            racks: list("racks", &self.racks)?,
            frozen: list("frozen", &self.frozen)?,
            public_rack: list("public_rack", &self.public_rack)?,
            discard: list("discard", &self.discard)?,
            reserves: ByColour::default(),
            removed: ByColour::default(),
            medals: self.medals,
            regions_taken: self.regions_taken(t)?,
            to_move: self.to_move,
            // Without a turn, the player to move is taken to have played first (an odd turn).
            first_player: self
                .first_player
                .unwrap_or(if self.turn.unwrap_or(1) % 2 == 1 {
                    self.to_move
                } else {
                    self.to_move.opponent()
                }),
            turn: self.turn.unwrap_or(1),
            phase: self.setup_phase(game)?,
            outcome: match self.phase {
                PositionPhase::Over { winner, win } => Some(Outcome { winner, win }),
                _ => None,
            },
            queued: Vec::new(),
        };
        for c in Colour::BOTH {
            let given = |v: &ByColour<Option<Vec<Troop>>>, field| {
                v[c].as_deref().map(|l| counts(field, c, l)).transpose()
            };
            let (reserve, removed) = (
                given(&self.reserves, "reserves")?,
                given(&self.removed, "removed")?,
            );
            let rest = unplaced(&setup, c, reserve, removed);
            (setup.reserves[c], setup.removed[c]) = match (reserve, removed) {
                (None, None) => (rest, TroopCounts::EMPTY),
                (Some(r), None) => (r, rest),
                (None, Some(m)) => (rest, m),
                (Some(r), Some(m)) => (r, m),
            };
        }
        if self.turn.is_none() {
            setup.turn = game.earliest_turn(&setup);
        }
        setup.queued = self.queued_levels(t, &setup)?;
        Ok(setup)
    }

    /// The position of `state`. Resolved and cancelled entries of the special-base queue are
    /// not part of a position; everything else round-trips through [`Position::to_game_state`].
    pub fn from_state(game: &Game, state: &State) -> Position {
        Position::from_setup(game, &state.to_setup())
    }

    /// The position of a valid setup on `game`'s terrain, every field written out.
    fn from_setup(game: &Game, setup: &Setup) -> Position {
        let t = game.terrain();
        let id = |n: NodeIndex| t.id_of(n);
        let lists = |v: &ByColour<TroopCounts>| v.map(|c| c.to_vec());
        let stacks = setup
            .stacks
            .iter()
            .filter(|(_, tiles)| !tiles.is_empty())
            .map(|(&n, tiles)| (id(n), tiles.iter().map(|x| x.to_string()).collect()))
            .collect();
        Position {
            format: POSITION_FORMAT.to_string(),
            terrain: t.key.clone(),
            variant: game.variant(),
            to_move: setup.to_move,
            first_player: Some(setup.first_player),
            turn: Some(setup.turn),
            phase: position_phase(setup, &id),
            queued: queued_entries(setup, &id),
            stacks,
            racks: lists(&setup.racks),
            frozen: lists(&setup.frozen),
            public_rack: lists(&setup.public_rack),
            discard: lists(&setup.discard),
            reserves: setup.reserves.map(|c| Some(c.to_vec())),
            removed: setup.removed.map(|c| Some(c.to_vec())),
            medals: setup.medals,
            regions_taken: bits(setup.regions_taken).map(|r| t.regions[r].id).collect(),
        }
    }

    /// The taken regions as a set of region indices.
    fn regions_taken(&self, t: &Terrain) -> Result<u32, PositionError> {
        let mut taken = 0u32;
        for &id in &self.regions_taken {
            let r = t.regions.iter().position(|r| r.id == id).ok_or_else(|| {
                PositionError::UnknownRegion {
                    region: id,
                    terrain: t.name.clone(),
                }
            })?;
            if taken & (1 << r) != 0 {
                return Err(PositionError::RegionTwice { region: id });
            }
            taken |= 1 << r;
        }
        Ok(taken)
    }

    /// The phase in the rules' words: node ids become indices, a special base its effect.
    fn setup_phase(&self, game: &Game) -> Result<Phase, PositionError> {
        let t = game.terrain();
        Ok(match self.phase {
            PositionPhase::Action => Phase::Action,
            PositionPhase::TroopEffect { troop, node } => Phase::TroopEffect {
                troop,
                node: node_index(t, "phase.troop_effect.node", node)?,
            },
            PositionPhase::SpecialEffect { node } => {
                let n = node_index(t, "phase.special_effect.node", node)?;
                let effect = game.queued_effect(n).ok_or(SetupError::NoSpecialEffect {
                    node,
                    variant: game.variant(),
                })?;
                Phase::SpecialEffect { effect, node: n }
            }
            PositionPhase::Chance(PositionChance::Draw(remaining)) => {
                Phase::Chance(Chance::Draw { remaining })
            }
            PositionPhase::Chance(PositionChance::RackDiscard) => {
                Phase::Chance(Chance::RackDiscard)
            }
            PositionPhase::Chance(PositionChance::Freeze) => Phase::Chance(Chance::Freeze),
            PositionPhase::Over { .. } => Phase::Over,
        })
    }

    /// The queue with every level made explicit: a bare node id is the top of its stack, one
    /// lower for every later entry of the same node.
    fn queued_levels(
        &self,
        t: &Terrain,
        setup: &Setup,
    ) -> Result<Vec<(NodeIndex, u8)>, PositionError> {
        let mut out = Vec::with_capacity(self.queued.len());
        for (k, q) in self.queued.iter().enumerate() {
            let id = q.node();
            let n = node_index(t, "queued", id)?;
            let level = match *q {
                QueuedSpecial::At { level, .. } => Some(level),
                QueuedSpecial::Node(_) => {
                    let later = self.queued[k + 1..]
                        .iter()
                        .filter(|x| x.node() == id)
                        .count();
                    let height = setup.stacks.get(&n).map_or(0, Vec::len);
                    height.checked_sub(1 + later).map(|l| l as u8)
                }
            };
            let level = level.ok_or(PositionError::QueuedLevel {
                node: id,
                colour: self.to_move,
            })?;
            out.push((n, level));
        }
        Ok(out)
    }
}

/// The tiles of `c` that the setup places nowhere, given the reserve and removed tiles that
/// the file lists: the default of whichever of the two is omitted.
fn unplaced(
    setup: &Setup,
    c: Colour,
    reserve: Option<TroopCounts>,
    removed: Option<TroopCounts>,
) -> TroopCounts {
    let mut rest = TroopCounts::FULL;
    let lists = [
        Some(setup.racks[c]),
        Some(setup.discard[c]),
        reserve,
        removed,
    ];
    let placed = setup
        .stacks
        .values()
        .flatten()
        .filter(|t| t.colour() == c)
        .map(|t| t.troop())
        .chain(lists.iter().flatten().flat_map(|l| l.to_vec()));
    for t in placed {
        rest.0[t.index()] = rest.0[t.index()].saturating_sub(1);
    }
    rest
}

/// The phase of a setup, in position words.
fn position_phase(s: &Setup, id: &dyn Fn(NodeIndex) -> NodeId) -> PositionPhase {
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

/// Queue entries, as node ids where the default level is right.
fn queued_entries(s: &Setup, id: &dyn Fn(NodeIndex) -> NodeId) -> Vec<QueuedSpecial> {
    s.queued
        .iter()
        .enumerate()
        .map(|(k, &(n, level))| {
            let later = s.queued[k + 1..].iter().filter(|e| e.0 == n).count();
            let height = s.stacks.get(&n).map_or(0, Vec::len);
            if height.checked_sub(1 + later) == Some(level as usize) {
                QueuedSpecial::Node(id(n))
            } else {
                QueuedSpecial::At { node: id(n), level }
            }
        })
        .collect()
}

/// The dense index of node `id`, or an error naming the field.
fn node_index(t: &Terrain, field: &'static str, id: NodeId) -> Result<NodeIndex, PositionError> {
    t.index_of(id).ok_or_else(|| PositionError::UnknownNode {
        field,
        node: id,
        terrain: t.name.clone(),
    })
}

fn parse_tile(node: NodeId, text: &str) -> Result<Tile, PositionError> {
    text.parse().map_err(|reason| PositionError::BadTile {
        node,
        tile: text.to_string(),
        reason,
    })
}

/// A list of troops as counts; no list may hold more of a troop than a colour has.
fn counts(
    field: &'static str,
    colour: Colour,
    list: &[Troop],
) -> Result<TroopCounts, PositionError> {
    for troop in Troop::ALL {
        let count = list.iter().filter(|&&t| t == troop).count();
        if count > COPIES_PER_TROOP as usize {
            return Err(PositionError::TooManyInList {
                field,
                colour,
                troop,
                count,
            });
        }
    }
    Ok(TroopCounts::from_troops(list.iter().copied()))
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
        assert!(
            matches!(err, PositionError::Setup(SetupError::WrongTurn { .. })),
            "{err}"
        );
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
                |e| {
                    matches!(
                        e,
                        PositionError::BadTile {
                            node: NodeId(13),
                            ..
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"30": ["blue:Roxy"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::UnknownNode {
                            node: NodeId(30),
                            ..
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"41": ["blue:Roxy"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::TileOnHq { node: NodeId(41) })
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"11": ["blue:Star"]}, "racks": {"blue": ["Star", "Star", "Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::TooManyOfTroop {
                            colour: Colour::Blue,
                            troop: Troop::Star,
                            count: 4,
                            ..
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"12": ["blue:X", "blue:X", "blue:X", "blue:X", "blue:X"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::TooManyOfTroop {
                            troop: Troop::Kwak,
                            count: 4,
                            ..
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "discard": {"red": ["Hook", "Hook", "Hook", "Hook"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::TooManyInList {
                            field: "discard",
                            colour: Colour::Red,
                            troop: Troop::Hook,
                            count: 4
                        }
                    )
                },
            ),
            (
                r#""to_move": "blue", "racks": {"blue": ["X","X","X","1","1","1","2","2","2"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::RackOverLimit { count: 9, .. })
                    )
                },
            ),
            (
                r#""to_move": "blue", "racks": {"blue": ["Star"]}, "frozen": {"blue": ["Roxy"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::NotOnRack {
                            what: "frozen tile",
                            troop: Troop::Roxy,
                            ..
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "racks": {"red": ["Star"]}, "frozen": {"red": ["Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::CannotFreeze {
                            colour: Colour::Red,
                            ..
                        })
                    )
                },
            ),
            (r#""to_move": "blue", "regions_taken": [9]"#, |e| {
                matches!(e, PositionError::UnknownRegion { region: 9, .. })
            }),
            (r#""to_move": "blue", "regions_taken": [1, 1]"#, |e| {
                matches!(e, PositionError::RegionTwice { region: 1 })
            }),
            (
                r#""to_move": "blue", "medals": {"blue": 2}, "regions_taken": [1]"#,
                |e| matches!(e, PositionError::Setup(SetupError::MedalsDoNotSplit { .. })),
            ),
            (
                r#""to_move": "blue", "stacks": {"13": ["blue:X"], "15": ["blue:X"], "17": ["blue:X"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::RegionNotTaken {
                            region: 2,
                            colour: Colour::Blue
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "phase": {"special_effect": {"node": 13}}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::NoSpecialEffect {
                            node: NodeId(13),
                            ..
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "stacks": {"13": ["blue:Roxy"]}, "phase": {"troop_effect": {"troop": "Jumbo", "node": 13}}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::TroopEffectNotOnTop {
                            node: NodeId(13),
                            ..
                        })
                    )
                },
            ),
            (
                r#""to_move": "blue", "reserves": {"blue": []}, "removed": {"blue": ["Star"]}"#,
                |e| {
                    matches!(
                        e,
                        PositionError::Setup(SetupError::TilesMissing {
                            colour: Colour::Blue,
                            troop: Troop::Kwak,
                            count: 0
                        })
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
