//! Building a state from its parts: [`Setup`], a plain description with public fields, and
//! [`Game::state_from_setup`], the one validating constructor. It checks the facts that hold in
//! every position of a game (tile counts, rack limit, medals and regions, turn order, HQs,
//! covering, freezes, the pending phase and queue) and refuses a setup that breaks one with a
//! [`SetupError`] naming what is wrong. It does not replay a game, so a setup may pass that no
//! line of play reaches.
//!
//! Node numbers in a setup are dense indices (as in [`Decision`](super::Decision) and
//! [`Phase`]); errors name the node ids a person reads (an index beyond the terrain, which has
//! no id, is named as an index).

use super::game::Game;
use super::state::{Chance, Outcome, Phase, State, WinType};
use super::tile::{Colour, Tile, Troop, TroopCounts, COPIES_PER_TROOP, RACK_LIMIT};
use crate::terrain::{bits, NodeId, NodeIndex, RegionMask, SpecialEffect, MAX_NODES};
use crate::vocabulary::ByColour;
use std::collections::BTreeMap;

/// Everything a state holds, as plain data. Sizes (rack, reserve and frozen counts) are not
/// given: they are the sizes of the multisets.
///
/// Nodes are dense indices ([`NodeIndex`]), never bare numbers or the node ids people read:
/// ```
/// # use toybattle::rules::{Colour, Setup, Tile, Troop};
/// # use toybattle::terrain::NodeIndex;
/// # fn put(setup: &mut Setup) {
/// setup.stacks.insert(NodeIndex::new(3), vec![Tile::new(Colour::Blue, Troop::Kwak)]);
/// # }
/// ```
/// A bare number is refused at compile time:
/// ```compile_fail
/// # use toybattle::rules::{Colour, Setup, Tile, Troop};
/// # fn put(setup: &mut Setup) {
/// setup.stacks.insert(3u8, vec![Tile::new(Colour::Blue, Troop::Kwak)]);
/// # }
/// ```
/// and so is a node id, which names a node only through its terrain ([`crate::terrain::Terrain::index_of`]):
/// ```compile_fail
/// # use toybattle::rules::{Colour, Setup, Tile, Troop};
/// # use toybattle::terrain::NodeId;
/// # fn put(setup: &mut Setup) {
/// setup.stacks.insert(NodeId(13), vec![Tile::new(Colour::Blue, Troop::Kwak)]);
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Each node's tiles, bottom to top; nodes left out are empty.
    pub stacks: BTreeMap<NodeIndex, Vec<Tile>>,
    /// Each colour's rack, frozen tiles included; at most eight tiles (R4.4).
    pub racks: ByColour<TroopCounts>,
    /// Rack tiles frozen by Battlefield (R9.8); each must be on the rack.
    pub frozen: ByColour<TroopCounts>,
    /// Rack tiles whose identity the opponent knows (R11.1); each must be on the rack.
    pub public_rack: ByColour<TroopCounts>,
    /// Each colour's tiles in the discard (face up, public).
    pub discard: ByColour<TroopCounts>,
    /// Each colour's reserve, as contents: the order of draws is the deal's, not the state's.
    pub reserves: ByColour<TroopCounts>,
    /// Tiles removed unseen at setup (R3.4).
    pub removed: ByColour<TroopCounts>,
    /// Medals each colour has taken; together they must be the medals of `regions_taken`.
    pub medals: ByColour<u8>,
    /// Regions whose medals have been taken (bit = region index).
    pub regions_taken: RegionMask,
    /// The player whose turn it is: the first player on odd turns, the other on even ones.
    pub to_move: Colour,
    /// The player who took turn 1 (R3.5).
    pub first_player: Colour,
    /// Turns begun so far, counting from 1.
    pub turn: u16,
    /// What the game waits for; `Phase::Over` goes with an `outcome`.
    pub phase: Phase,
    /// How the game ended; given exactly when `phase` is `Phase::Over`.
    pub outcome: Option<Outcome>,
    /// Special-base placements of this turn whose effect is still to come, in resolution order:
    /// (node index, stack level of the tile placed there, 0 = bottom).
    pub queued: Vec<(NodeIndex, u8)>,
}

/// Most tiles a player places in one turn: the PLACE action and one extra placement for each of
/// their three Cap'ns placed in a chain (R4.3, R7.3).
pub const MAX_PLACEMENTS_PER_TURN: u16 = 1 + COPIES_PER_TROOP as u16;

/// Why a setup cannot be a position of a game. Nodes and regions are named by their ids.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A node index (a key of `stacks`, a phase's or a queue entry's node) beyond the terrain's
    /// nodes.
    #[error("node index {} is not on {terrain} (it has {count} nodes)", .index.get())]
    UnknownNode {
        /// The dense node index given.
        index: NodeIndex,
        /// The terrain's name.
        terrain: String,
        /// How many nodes the terrain has.
        count: usize,
    },
    /// A bit of `regions_taken` beyond the terrain's regions.
    #[error("region index {index} is not on {terrain}")]
    UnknownRegion {
        /// The region index (bit number) given.
        index: u8,
        /// The terrain's name.
        terrain: String,
    },
    /// Tiles on an HQ other than the single tile that captured it and ended the game.
    #[error("node {node} is an HQ; a tile stands on an HQ only once it has captured it and ended the game (R10.1)")]
    TileOnHq {
        /// The HQ's node id.
        node: NodeId,
    },
    /// A win by HQ capture with no tile of the winner on an HQ of the loser.
    #[error("{winner} won by HQ capture, but no {winner} tile stands on a {loser} HQ")]
    HqWinWithoutTile {
        /// The player said to have won.
        winner: Colour,
        /// The player said to have lost.
        loser: Colour,
    },
    /// A win on medals by a player short of the medal objective.
    #[error("{winner} won on medals with {medals}, fewer than the objective of {objective}")]
    MedalWinTooFew {
        /// The player said to have won.
        winner: Colour,
        /// The medals the winner has.
        medals: u8,
        /// The medals the terrain needs for a win (R2.4).
        objective: u8,
    },
    /// A game still going on in which a player has reached the medal objective.
    #[error("{colour} has {medals} medals, the objective is {objective}: the game would be over")]
    ObjectiveReached {
        /// The player at or over the objective.
        colour: Colour,
        /// The medals that player has.
        medals: u8,
        /// The medals the terrain needs for a win (R2.4).
        objective: u8,
    },
    /// A tile resting on an enemy tile it may not cover, on a terrain where no effect moves tiles.
    #[error("node {node}: {upper} rests on {lower}, which it may not cover, and no effect on this terrain moves tiles (R5.2, R5.3)")]
    CoversStronger {
        /// The base's node id.
        node: NodeId,
        /// The tile on top.
        upper: Tile,
        /// The enemy tile directly under it.
        lower: Tile,
    },
    /// More than three tiles of one troop for a colour, over all places.
    #[error("{colour} has {count} {troop} in all ({places}); a colour has exactly {COPIES_PER_TROOP} of each troop")]
    TooManyOfTroop {
        /// The colour with too many.
        colour: Colour,
        /// The troop there are too many of.
        troop: Troop,
        /// How many were counted.
        count: u8,
        /// Where they were counted, for a person: "board 2, rack 1, …", or, when the board alone
        /// holds too many, the node where the count went over.
        places: String,
    },
    /// Fewer than three tiles of one troop for a colour, over all places.
    #[error("{colour} has {count} {troop} in all (board, rack, discard, reserve and removed); a colour has exactly {COPIES_PER_TROOP} of each troop")]
    TilesMissing {
        /// The colour short of tiles.
        colour: Colour,
        /// The troop short.
        troop: Troop,
        /// How many were counted.
        count: u8,
    },
    /// A rack of more than eight tiles (R4.4).
    #[error("{colour}'s rack holds {count} tiles, at most {RACK_LIMIT} fit (R4.4)")]
    RackOverLimit {
        /// Whose rack.
        colour: Colour,
        /// The tiles on it.
        count: u8,
    },
    /// A frozen or public rack tile that the rack does not hold.
    #[error(
        "{colour}'s {what} {troop} is not on {colour}'s rack (or more copies than the rack holds)"
    )]
    NotOnRack {
        /// Which list names it: "frozen tile" or "public tile".
        what: &'static str,
        /// Whose rack.
        colour: Colour,
        /// The troop missing from the rack.
        troop: Troop,
    },
    /// Frozen tiles on a terrain and variant where no special base freezes (R9.8).
    #[error("{colour} has frozen tiles, but no special base of {terrain} freezes tiles in the {variant} game (R9.8)")]
    CannotFreeze {
        /// The colour with frozen tiles.
        colour: Colour,
        /// The terrain's name.
        terrain: String,
        /// Normal or beginner game.
        variant: super::Variant,
    },
    /// Frozen tiles of the player not to move at a point where no freeze can be in force: a
    /// freeze is made by a special-base effect and ends with the frozen player's next turn.
    #[error("{colour} has frozen tiles while {to_move} is to move in {phase}; a freeze ends with the frozen player's turn and is made only by a special-base effect (R4.5, R9.8)")]
    FrozenOutOfTurn {
        /// The colour with frozen tiles.
        colour: Colour,
        /// The player to move.
        to_move: Colour,
        /// The phase, described for a person.
        phase: String,
    },
    /// Medals that are not a split of the taken regions' medals between the two colours.
    #[error("medals blue {blue} and red {red} cannot be split from the medals of the regions taken ({})", regions_held(regions, held))]
    MedalsDoNotSplit {
        /// Blue's medals.
        blue: u8,
        /// Red's medals.
        red: u8,
        /// The region ids taken, as in the terrain file.
        regions: Vec<u8>,
        /// The medals of each taken region, in the order of `regions`.
        held: Vec<u8>,
    },
    /// A region a colour controls whose medals are not taken, in a game still going on.
    #[error("region {region} is controlled by {colour} but its medals are not taken; the region check would already have given them (R8.2)")]
    RegionNotTaken {
        /// The region id, as in the terrain file.
        region: u8,
        /// The colour occupying all its bases.
        colour: Colour,
    },
    /// Turn 0: turns count from 1.
    #[error("turns count from 1")]
    TurnZero,
    /// More of a colour's tiles on the board than it can have placed in the turns it has had.
    #[error("{colour} has {on_board} tiles on the board on turn {turn}, but in its {turns} turn(s) so far it can have placed at most {most} (a PLACE and an extra placement per Cap'n each turn, R4.3, R7.3)")]
    MoreTilesThanTurns {
        /// The colour with too many tiles on the board.
        colour: Colour,
        /// Its tiles on the board.
        on_board: u16,
        /// The turn given.
        turn: u16,
        /// The turns that colour has begun.
        turns: u16,
        /// The most tiles it can have placed in them.
        most: u16,
    },
    /// Taken regions that cover more bases than tiles can have been placed by this turn: each
    /// base of a taken region had to be occupied by a placed tile (R8.2).
    #[error("the regions taken ({}) cover {bases} bases, each of which a placed tile had to occupy, but by turn {turn} at most {most} tiles can have been placed (R4.3, R7.3, R8.2)", ids(regions))]
    RegionsTakenTooSoon {
        /// The region ids taken, as in the terrain file.
        regions: Vec<u8>,
        /// The bases they cover together.
        bases: u16,
        /// The turn given.
        turn: u16,
        /// The most tiles both players can have placed by then.
        most: u16,
    },
    /// A game said to be won because the player to move was blocked, while that player can
    /// still draw or place (R10.3).
    #[error("the game is said to have ended with {colour} blocked, but {colour} can still {can} (reserve {reserve}, rack {rack} of {RACK_LIMIT}); in a blocked ending the player to move is the one who could neither draw nor place (R10.3)")]
    NotBlocked {
        /// The player to move, said to be blocked.
        colour: Colour,
        /// What that player can still do: "draw" or "place a tile".
        can: &'static str,
        /// Tiles in that player's reserve.
        reserve: u8,
        /// Tiles on that player's rack.
        rack: u8,
    },
    /// A blocked ending whose winner is not the one R10.3 gives: more medals, the blocked player
    /// losing a tie.
    #[error("{winner} is said to have won when {blocked} was blocked, but with medals {blocked} {blocked_medals}, {other} {other_medals} the winner is {expected} (more medals win; on a tie the blocked player loses, R10.3)")]
    BlockedWinner {
        /// The winner given.
        winner: Colour,
        /// The blocked player (the player to move).
        blocked: Colour,
        /// The blocked player's medals.
        blocked_medals: u8,
        /// The other player.
        other: Colour,
        /// The other player's medals.
        other_medals: u8,
        /// The winner by R10.3.
        expected: Colour,
    },
    /// An XB-42 discard pending while no XB-42 of the player to move tops a stack where its
    /// effect applies: the discard follows the XB-42 just placed (R7.6).
    #[error("chance XB-42 discard: no XB-42 of {colour} tops a stack where troop effects apply; the discard follows the XB-42 {colour} has just placed (R7.6, R9.7)")]
    DiscardWithoutXb42 {
        /// The player to move.
        colour: Colour,
    },
    /// A player to move who is not the one whose turn it is, given the first player.
    #[error("turn {turn} is {expected}'s turn when {first} plays first, but {to_move} is to move")]
    WrongTurn {
        /// The turn number given.
        turn: u16,
        /// The first player given.
        first: Colour,
        /// The player whose turn it is.
        expected: Colour,
        /// The player to move given.
        to_move: Colour,
    },
    /// An outcome without the game being over, or a game over without an outcome.
    #[error("the phase is over but the outcome is not given, or an outcome is given before the game is over")]
    OutcomeWithoutOver,
    /// A troop-effect phase whose node's top tile is not the mover's tile of that troop.
    #[error("troop effect: the top tile of node {node} is not {colour}'s {troop}")]
    TroopEffectNotOnTop {
        /// The node id of the phase.
        node: NodeId,
        /// The player to move.
        colour: Colour,
        /// The troop of the phase.
        troop: Troop,
    },
    /// A troop-effect phase on a Station Metal-X special base, where troops have no effect (R9.7).
    #[error("troop effect: node {node} is a special base where troops have no effect (R9.7)")]
    TroopEffectCancelled {
        /// The special base's node id.
        node: NodeId,
    },
    /// A troop-effect phase for a troop that has no effect or nothing to act on there.
    #[error("troop effect: {troop} on node {node} has no effect to offer here")]
    TroopEffectUnavailable {
        /// The node id of the phase.
        node: NodeId,
        /// The troop of the phase.
        troop: Troop,
    },
    /// A special-effect phase on a node that has not that effect in this variant.
    #[error("special effect: node {node} has no such special-base effect in the {variant} game")]
    NoSpecialEffect {
        /// The node id of the phase.
        node: NodeId,
        /// Normal or beginner game.
        variant: super::Variant,
    },
    /// A special-effect phase whose effect has nothing to act on in this position.
    #[error("special effect: node {node} ({effect}) has no effect to offer here")]
    SpecialEffectUnavailable {
        /// The special base's node id.
        node: NodeId,
        /// The effect, described for a person.
        effect: String,
    },
    /// A pending chance event that cannot happen: a draw of no tile or of more than the reserve
    /// and rack allow, an XB-42 discard from an empty rack, a freeze with no unfrozen tile or on
    /// a terrain without a freezing special base.
    #[error("chance {chance}: impossible with {to_move}'s reserve of {reserve} and {opponent}'s rack of {rack} ({frozen} frozen)")]
    ImpossibleChance {
        /// The event, described for a person ("draw 2", "XB-42 discard", "Battlefield freeze").
        chance: String,
        /// The player to move.
        to_move: Colour,
        /// Tiles in the reserve of the player to move.
        reserve: u8,
        /// The other player.
        opponent: Colour,
        /// Tiles on the other player's rack.
        rack: u8,
        /// How many of them are frozen.
        frozen: u8,
    },
    /// A special-base queue entry that cannot be: queued outside a placement, more than four,
    /// on a node without an effect, or with no tile of the player to move at its level.
    #[error("queued special base {node}: {problem}")]
    Queued {
        /// The node id of the entry.
        node: NodeId,
        /// What is wrong with it, for a person.
        problem: String,
    },
}

impl Game {
    /// The state a setup describes, after checking it against the facts of every position of
    /// a game of these rules (see the module documentation).
    /// An action-phase setup whose player to move can neither draw nor place is ended at once
    /// (R10.3), as at the start of any turn.
    pub fn state_from_setup(&self, setup: &Setup) -> Result<State, SetupError> {
        let mut s = State::empty(setup.first_player);
        s.active = setup.to_move;
        s.turn = setup.turn;
        self.check_turn(setup)?;
        self.set_board(setup, &mut s)?;
        self.set_tiles(setup, &mut s)?;
        self.set_medals(setup, &mut s)?;
        self.set_phase(setup, &mut s)?;
        if s.phase == Phase::Action {
            self.begin_turn(&mut s);
        }
        Ok(s)
    }

    /// The node id of a dense index, for errors.
    fn id(&self, n: NodeIndex) -> NodeId {
        self.terrain().id_of(n)
    }

    fn check_turn(&self, setup: &Setup) -> Result<(), SetupError> {
        if setup.turn == 0 {
            return Err(SetupError::TurnZero);
        }
        let first = setup.first_player;
        let expected = if setup.turn % 2 == 1 {
            first
        } else {
            first.opponent()
        };
        if expected != setup.to_move {
            return Err(SetupError::WrongTurn {
                turn: setup.turn,
                first,
                expected,
                to_move: setup.to_move,
            });
        }
        Ok(())
    }

    /// Stacks: known nodes, tiles on HQs only after an HQ capture, no tile on an enemy tile it
    /// may not cover unless a Volcanic Jungle move could have put it there, at most three of a
    /// troop per colour.
    fn set_board(&self, setup: &Setup, s: &mut State) -> Result<(), SetupError> {
        let t = self.terrain();
        let moves_tiles = self.queued_effect_nodes(SpecialEffect::MoveAdjacentEnemy) != 0;
        let mut on_board = ByColour::<TroopCounts>::default();
        for (&n, tiles) in &setup.stacks {
            if n.usize() >= t.node_count() {
                return Err(SetupError::UnknownNode {
                    index: n,
                    terrain: t.name.clone(),
                    count: t.node_count(),
                });
            }
            if t.bases & n.bit() == 0 && !tiles.is_empty() {
                self.check_hq_stack(setup, n, tiles)?;
            }
            for pair in tiles.windows(2) {
                let (lower, upper) = (pair[0], pair[1]);
                if !moves_tiles
                    && lower.colour() != upper.colour()
                    && !upper.troop().covers(lower.troop())
                {
                    return Err(SetupError::CoversStronger {
                        node: self.id(n),
                        upper,
                        lower,
                    });
                }
            }
            for &tile in tiles {
                let (c, troop) = (tile.colour(), tile.troop());
                on_board[c].add(troop);
                // Checked before pushing: the board holds at most the 48 tiles of the game.
                let count = on_board[c].get(troop);
                if count > COPIES_PER_TROOP {
                    return Err(SetupError::TooManyOfTroop {
                        colour: c,
                        troop,
                        count,
                        places: format!("board {count} so far, at node {}", self.id(n)),
                    });
                }
                s.board.push(n, tile);
            }
        }
        self.check_tiles_placed(setup)?;
        self.check_hq_win(setup, s)
    }

    /// The earliest turn at which the setup's tiles on the board and regions taken can have been
    /// placed, of the parity that gives the turn to `to_move` (odd turns are the first
    /// player's); `setup.turn` is not read. A position that gives no turn is at this turn.
    pub fn earliest_turn(&self, setup: &Setup) -> u16 {
        let mut trial = setup.clone();
        trial.turn = if setup.first_player == setup.to_move {
            1
        } else {
            2
        };
        // At most 48 tiles and 32 bases: a few dozen turns always fit.
        while trial.turn < u16::MAX - 1
            && (self.check_tiles_placed(&trial).is_err()
                || self.check_regions_reached(&trial).is_err())
        {
            trial.turn += 2;
        }
        trial.turn
    }

    /// The turns `c` has begun by the setup's turn: odd turns are the first player's.
    fn turns_of(setup: &Setup, c: Colour) -> u16 {
        match c == setup.first_player {
            true => setup.turn.div_ceil(2),
            false => setup.turn / 2,
        }
    }

    /// A colour's tiles on the board were all placed by it (moves and returns only shift or
    /// remove them), at most [`MAX_PLACEMENTS_PER_TURN`] a turn.
    fn check_tiles_placed(&self, setup: &Setup) -> Result<(), SetupError> {
        let mut on_board = ByColour::<u16>::default();
        for tile in setup.stacks.values().flatten() {
            on_board[tile.colour()] += 1;
        }
        for colour in Colour::BOTH {
            let turns = Game::turns_of(setup, colour);
            let most = turns.saturating_mul(MAX_PLACEMENTS_PER_TURN);
            let tiles = on_board[colour];
            if tiles > most {
                return Err(SetupError::MoreTilesThanTurns {
                    colour,
                    on_board: tiles,
                    turn: setup.turn,
                    turns,
                    most,
                });
            }
        }
        Ok(())
    }

    /// A tile on HQ `n`: only the winner's single tile on the loser's HQ, once an HQ capture
    /// ended the game (R10.1).
    fn check_hq_stack(
        &self,
        setup: &Setup,
        n: NodeIndex,
        tiles: &[Tile],
    ) -> Result<(), SetupError> {
        let captured = match setup.outcome {
            Some(Outcome {
                winner,
                win: WinType::Hq,
            }) if setup.phase == Phase::Over => {
                tiles.len() == 1
                    && tiles[0].colour() == winner
                    && self.terrain().hqs[winner.opponent().index()] & n.bit() != 0
            }
            _ => false,
        };
        if captured {
            Ok(())
        } else {
            Err(SetupError::TileOnHq { node: self.id(n) })
        }
    }

    fn check_hq_win(&self, setup: &Setup, s: &State) -> Result<(), SetupError> {
        if let Some(Outcome {
            winner,
            win: WinType::Hq,
        }) = setup.outcome
        {
            let loser = winner.opponent();
            if s.board.occupied(winner) & self.terrain().hqs[loser.index()] == 0 {
                return Err(SetupError::HqWinWithoutTile { winner, loser });
            }
        }
        Ok(())
    }

    /// Racks, frozen and public tiles, discards, reserves and removed tiles, with the tile count
    /// of every colour checked: exactly three of each troop.
    fn set_tiles(&self, setup: &Setup, s: &mut State) -> Result<(), SetupError> {
        for c in Colour::BOTH {
            let rack = setup.racks[c];
            if rack.total() > RACK_LIMIT {
                return Err(SetupError::RackOverLimit {
                    colour: c,
                    count: rack.total(),
                });
            }
            rack_subset("frozen tile", c, &rack, &setup.frozen[c])?;
            rack_subset("public tile", c, &rack, &setup.public_rack[c])?;
            if setup.frozen[c].total() > 0
                && self.queued_effect_nodes(SpecialEffect::FreezeOpponentRack) == 0
            {
                return Err(SetupError::CannotFreeze {
                    colour: c,
                    terrain: self.terrain().name.clone(),
                    variant: self.variant(),
                });
            }
            s.rack[c] = rack;
            s.rack_len[c] = rack.total();
            s.frozen[c] = setup.frozen[c];
            s.frozen_len[c] = setup.frozen[c].total();
            s.public_rack[c] = setup.public_rack[c];
            s.discard[c] = setup.discard[c];
            s.reserve[c] = setup.reserves[c];
            s.reserve_len[c] = setup.reserves[c].total();
            s.removed[c] = setup.removed[c];
            check_census(s, c)?;
        }
        Ok(())
    }

    /// Medals and taken regions: the taken regions' medals split between the colours as given;
    /// nobody has reached the objective before the game is over, and a medal win has reached
    /// it; every region a colour controls has been taken (its region check would have run).
    fn set_medals(&self, setup: &Setup, s: &mut State) -> Result<(), SetupError> {
        let t = self.terrain();
        if let Some(r) = bits(setup.regions_taken).find(|&r| r >= t.regions.len()) {
            return Err(SetupError::UnknownRegion {
                index: r as u8,
                terrain: t.name.clone(),
            });
        }
        let taken: Vec<usize> = bits(setup.regions_taken).collect();
        let held: Vec<u8> = taken.iter().map(|&r| t.regions[r].medals).collect();
        let (blue, red) = (setup.medals[Colour::Blue], setup.medals[Colour::Red]);
        if !splits(&held, blue, red) {
            return Err(SetupError::MedalsDoNotSplit {
                blue,
                red,
                regions: taken.iter().map(|&r| t.regions[r].id).collect(),
                held,
            });
        }
        self.check_regions_reached(setup)?;
        s.regions_taken = setup.regions_taken;
        s.medals = setup.medals;
        let over = setup.phase == Phase::Over;
        let objective = t.medals_to_win;
        if let Some(Outcome {
            winner,
            win: WinType::Medals,
        }) = setup.outcome
        {
            if s.medals[winner] < objective {
                return Err(SetupError::MedalWinTooFew {
                    winner,
                    medals: s.medals[winner],
                    objective,
                });
            }
        }
        for c in Colour::BOTH {
            if over {
                continue;
            }
            if s.medals[c] >= objective {
                return Err(SetupError::ObjectiveReached {
                    colour: c,
                    medals: s.medals[c],
                    objective,
                });
            }
            let occupied = s.board.occupied(c);
            let untaken =
                t.regions.iter().enumerate().find(|&(r, reg)| {
                    s.regions_taken & (1 << r) == 0 && reg.bases & !occupied == 0
                });
            if let Some((_, reg)) = untaken {
                return Err(SetupError::RegionNotTaken {
                    region: reg.id,
                    colour: c,
                });
            }
        }
        Ok(())
    }

    /// Each base of a taken region was occupied by a placed tile when the region was taken, so
    /// the taken regions cover no more bases than tiles can have been placed by this turn.
    /// A Volcanic Jungle move occupies a base without a placement: not checked where tiles move.
    fn check_regions_reached(&self, setup: &Setup) -> Result<(), SetupError> {
        if self.queued_effect_nodes(SpecialEffect::MoveAdjacentEnemy) != 0 {
            return Ok(());
        }
        let t = self.terrain();
        let taken = || bits(setup.regions_taken).filter_map(|r| t.regions.get(r));
        let covered = taken().fold(0, |m, region| m | region.bases);
        let bases = covered.count_ones() as u16;
        let most = setup.turn.saturating_mul(MAX_PLACEMENTS_PER_TURN);
        if bases <= most {
            return Ok(());
        }
        Err(SetupError::RegionsTakenTooSoon {
            regions: taken().map(|region| region.id).collect(),
            bases,
            turn: setup.turn,
            most,
        })
    }

    /// The phase, the outcome and the special-base queue, checked against the board.
    fn set_phase(&self, setup: &Setup, s: &mut State) -> Result<(), SetupError> {
        if (setup.phase == Phase::Over) != setup.outcome.is_some() {
            return Err(SetupError::OutcomeWithoutOver);
        }
        let p = setup.to_move;
        match setup.phase {
            Phase::Action => {}
            Phase::Over => self.check_blocked(setup, s)?,
            Phase::TroopEffect { troop, node } => self.check_troop_effect(s, troop, node)?,
            Phase::SpecialEffect { effect, node } => {
                let id = self.node_id_checked(node)?;
                if self.queued_effect(node) != Some(effect) {
                    return Err(SetupError::NoSpecialEffect {
                        node: id,
                        variant: self.variant(),
                    });
                }
                if !self.special_effect_available(s, effect, node) {
                    return Err(SetupError::SpecialEffectUnavailable {
                        node: id,
                        effect: effect.describe().to_string(),
                    });
                }
            }
            Phase::Chance(chance) => self.check_chance(s, chance)?,
        }
        s.phase = setup.phase;
        s.outcome = setup.outcome;
        let other = p.opponent();
        let may_be_frozen = matches!(
            setup.phase,
            Phase::SpecialEffect { .. }
                | Phase::Chance(Chance::Draw { .. } | Chance::Freeze)
                | Phase::Over
        );
        if s.frozen_len[other] > 0 && !may_be_frozen {
            return Err(SetupError::FrozenOutOfTurn {
                colour: other,
                to_move: p,
                phase: self.describe_phase(s),
            });
        }
        self.set_queue(setup, s)
    }

    /// A blocked ending (R10.3): the player to move is the one blocked at the start of their
    /// turn, who can neither draw nor place; the winner is whoever has more medals, the blocked
    /// player losing a tie.
    fn check_blocked(&self, setup: &Setup, s: &State) -> Result<(), SetupError> {
        let Some(Outcome {
            winner,
            win: WinType::Blocked,
        }) = setup.outcome
        else {
            return Ok(());
        };
        let blocked = setup.to_move;
        let other = blocked.opponent();
        let can = if self.can_draw(s, blocked) {
            Some("draw")
        } else if self.has_placement(s, blocked) {
            Some("place a tile")
        } else {
            None
        };
        if let Some(can) = can {
            return Err(SetupError::NotBlocked {
                colour: blocked,
                can,
                reserve: s.reserve_len[blocked],
                rack: s.rack_len[blocked],
            });
        }
        let expected = match s.medals[blocked] > s.medals[other] {
            true => blocked,
            false => other,
        };
        if winner != expected {
            return Err(SetupError::BlockedWinner {
                winner,
                blocked,
                blocked_medals: s.medals[blocked],
                other,
                other_medals: s.medals[other],
                expected,
            });
        }
        Ok(())
    }

    fn node_id_checked(&self, node: NodeIndex) -> Result<NodeId, SetupError> {
        let t = self.terrain();
        if node.usize() < t.node_count() {
            Ok(self.id(node))
        } else {
            Err(SetupError::UnknownNode {
                index: node,
                terrain: t.name.clone(),
                count: t.node_count(),
            })
        }
    }

    fn check_troop_effect(&self, s: &State, troop: Troop, n: NodeIndex) -> Result<(), SetupError> {
        let id = self.node_id_checked(n)?;
        let p = s.active;
        if s.board.top(n) != Some(Tile::new(p, troop)) {
            return Err(SetupError::TroopEffectNotOnTop {
                node: id,
                colour: p,
                troop,
            });
        }
        if self.cancels_troop_effects(n) {
            return Err(SetupError::TroopEffectCancelled { node: id });
        }
        if !self.troop_effect_available(s, troop, n) {
            return Err(SetupError::TroopEffectUnavailable { node: id, troop });
        }
        Ok(())
    }

    fn check_chance(&self, s: &State, chance: Chance) -> Result<(), SetupError> {
        let p = s.active;
        let e = p.opponent();
        let possible = match chance {
            Chance::Draw { remaining } => remaining >= 1 && remaining <= s.draw_count(p, 2),
            Chance::RackDiscard => {
                self.check_xb42_placed(s)?;
                s.rack_len[e] > 0
            }
            Chance::Freeze => {
                self.queued_effect_nodes(SpecialEffect::FreezeOpponentRack) != 0
                    && s.rack_len[e] > s.frozen_len[e]
            }
        };
        if possible {
            return Ok(());
        }
        Err(SetupError::ImpossibleChance {
            chance: match chance {
                Chance::Draw { remaining } => format!("draw {remaining}"),
                Chance::RackDiscard => "XB-42 discard".into(),
                Chance::Freeze => "Battlefield freeze".into(),
            },
            to_move: p,
            reserve: s.reserve_len[p],
            opponent: e,
            rack: s.rack_len[e],
            frozen: s.frozen_len[e],
        })
    }

    /// An XB-42 discard follows the XB-42 the player to move has just placed: it tops its stack,
    /// on a node where troop effects apply (R7.6, R9.7).
    fn check_xb42_placed(&self, s: &State) -> Result<(), SetupError> {
        let p = s.active;
        let placed = bits(s.board.tops(p, Troop::Xb42))
            .any(|n| !self.cancels_troop_effects(NodeIndex::new(n)));
        match placed {
            true => Ok(()),
            false => Err(SetupError::DiscardWithoutXb42 { colour: p }),
        }
    }

    fn set_queue(&self, setup: &Setup, s: &mut State) -> Result<(), SetupError> {
        let Some(&(first, _)) = setup.queued.first() else {
            return Ok(());
        };
        let err = |node: NodeId, problem: &str| SetupError::Queued {
            node,
            problem: problem.to_string(),
        };
        if matches!(setup.phase, Phase::Action | Phase::Over) {
            return Err(err(
                self.node_id_checked(first)?,
                "special-base effects are queued only during a turn's placement",
            ));
        }
        if setup.queued.len() > 4 {
            let (fifth, _) = setup.queued[4];
            return Err(err(
                self.node_id_checked(fifth)?,
                "a turn has at most four placements",
            ));
        }
        for &(node, level) in &setup.queued {
            let id = self.node_id_checked(node)?;
            if self.queued_effect(node).is_none() {
                return Err(SetupError::Queued {
                    node: id,
                    problem: format!("no special-base effect in the {} game", self.variant()),
                });
            }
            match s.board.stack(node).nth(level as usize) {
                Some(tile) if tile.colour() == setup.to_move => s.queue.push(node, level),
                _ => {
                    return Err(SetupError::Queued {
                        node: id,
                        problem: format!(
                            "no tile of {} at level {level} of this stack",
                            setup.to_move
                        ),
                    })
                }
            }
        }
        Ok(())
    }
}

impl State {
    /// The setup of this state; [`Game::state_from_setup`] gives the state back. Resolved and
    /// cancelled entries of the special-base queue are not part of it.
    pub fn to_setup(&self) -> Setup {
        let stacks = (0..MAX_NODES)
            .map(NodeIndex::new)
            .filter(|&n| self.board.height(n) > 0)
            .map(|n| (n, self.board.stack(n).collect()))
            .collect();
        Setup {
            stacks,
            racks: self.rack,
            frozen: self.frozen,
            public_rack: self.public_rack,
            discard: self.discard,
            reserves: self.reserve,
            removed: self.removed,
            medals: self.medals,
            regions_taken: self.regions_taken,
            to_move: self.active,
            first_player: self.first,
            turn: self.turn,
            phase: self.phase,
            outcome: self.outcome,
            queued: match self.phase {
                Phase::Action | Phase::Over => Vec::new(),
                _ => self.pending_specials().collect(),
            },
        }
    }
}

/// `list`, each tile of which must be on `rack`.
fn rack_subset(
    what: &'static str,
    colour: Colour,
    rack: &TroopCounts,
    list: &TroopCounts,
) -> Result<(), SetupError> {
    match Troop::ALL.into_iter().find(|&t| list.get(t) > rack.get(t)) {
        Some(troop) => Err(SetupError::NotOnRack {
            what,
            colour,
            troop,
        }),
        None => Ok(()),
    }
}

/// Every colour has exactly three tiles of each troop, wherever they are (R1.1).
fn check_census(s: &State, c: Colour) -> Result<(), SetupError> {
    let census = s.tile_census(c);
    for troop in Troop::ALL {
        let count = census.get(troop);
        if count > COPIES_PER_TROOP {
            let on_board = TroopCounts::from_troops(
                (0..MAX_NODES)
                    .flat_map(|n| s.board.stack(NodeIndex::new(n)))
                    .filter(|t| t.colour() == c)
                    .map(|t| t.troop()),
            );
            let places = [
                ("board", on_board),
                ("rack", s.rack[c]),
                ("discard", s.discard[c]),
                ("reserve", s.reserve[c]),
                ("removed", s.removed[c]),
            ]
            .iter()
            .filter(|(_, k)| k.get(troop) > 0)
            .map(|(name, k)| format!("{name} {}", k.get(troop)))
            .collect::<Vec<_>>()
            .join(", ");
            return Err(SetupError::TooManyOfTroop {
                colour: c,
                troop,
                count,
                places,
            });
        }
        if count < COPIES_PER_TROOP {
            return Err(SetupError::TilesMissing {
                colour: c,
                troop,
                count,
            });
        }
    }
    Ok(())
}

/// Region ids for a person: "1, 8".
fn ids(regions: &[u8]) -> String {
    let each: Vec<String> = regions.iter().map(u8::to_string).collect();
    each.join(", ")
}

/// Whether the medals of `regions` split into `a` for one colour and `b` for the other.
/// The taken regions and their medals in words, e.g. "region 1 holds 2, region 4 holds 3".
fn regions_held(regions: &[u8], held: &[u8]) -> String {
    if regions.is_empty() {
        return "none taken".to_string();
    }
    let each: Vec<String> = regions
        .iter()
        .zip(held)
        .map(|(r, m)| format!("region {r} holds {m}"))
        .collect();
    each.join(", ")
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medals_that_do_not_split_are_named_region_by_region() {
        let e = SetupError::MedalsDoNotSplit {
            blue: 2,
            red: 0,
            regions: vec![1, 4],
            held: vec![3, 1],
        };
        assert_eq!(
            e.to_string(),
            "medals blue 2 and red 0 cannot be split from the medals of the regions taken \
             (region 1 holds 3, region 4 holds 1)"
        );
    }
    use crate::rules::{Deal, Variant};

    fn game(key: &str) -> Game {
        Game::builtin(key, Variant::Normal).unwrap()
    }

    /// The opening of a deal with blue to act, as a setup.
    fn opening(game: &Game) -> Setup {
        game.initial_state(&Deal::from_seed(1).with_first(Colour::Blue))
            .to_setup()
    }

    use crate::terrain::NodeId;

    fn index(game: &Game, id: u8) -> NodeIndex {
        game.terrain().index_of(NodeId(id)).unwrap()
    }

    /// Takes one `troop` of `c` from wherever the setup keeps it off the board.
    fn take(setup: &mut Setup, c: Colour, troop: Troop) {
        for place in [&mut setup.reserves, &mut setup.removed, &mut setup.racks] {
            if place[c].get(troop) > 0 {
                place[c].remove(troop);
                return;
            }
        }
        panic!("no {c} {troop} off the board");
    }

    /// Puts `c`'s `troop` on top of node `id`, taken from off the board.
    fn put(game: &Game, setup: &mut Setup, id: u8, c: Colour, troop: Troop) {
        take(setup, c, troop);
        let n = index(game, id);
        setup.stacks.entry(n).or_default().push(Tile::new(c, troop));
    }

    #[test]
    fn a_state_round_trips_through_its_setup() {
        let g = game("castle_field");
        let setup = opening(&g);
        let s = g.state_from_setup(&setup).unwrap();
        assert_eq!(
            s,
            g.initial_state(&Deal::from_seed(1).with_first(Colour::Blue))
        );
        assert_eq!(s.to_setup(), setup);
    }

    /// Every kind of error, each from one change to a valid setup.
    #[test]
    fn every_error_kind_names_what_is_wrong() {
        use Colour::{Blue, Red};
        type Change = fn(&Game, &mut Setup);
        fn over(s: &mut Setup, win: WinType) {
            s.phase = Phase::Over;
            s.outcome = Some(Outcome { winner: Blue, win });
        }
        let cases: Vec<(&str, Change, &str)> = vec![
            (
                "castle_field",
                |_, s| {
                    s.stacks
                        .insert(NodeIndex::raw(40), vec![Tile::new(Blue, Troop::Kwak)]);
                },
                "node index 40 is not on Castle Field",
            ),
            (
                "castle_field",
                |_, s| s.regions_taken = 1 << 31,
                "region index 31",
            ),
            (
                "castle_field",
                |g, s| put(g, s, 41, Blue, Troop::Roxy),
                "node 41 is an HQ",
            ),
            (
                "castle_field",
                |_, s| over(s, WinType::Hq),
                "no blue tile stands on a red HQ",
            ),
            (
                "castle_field",
                |_, s| over(s, WinType::Medals),
                "blue won on medals with 0",
            ),
            (
                "castle_field",
                |g, s| {
                    s.regions_taken = (1 << g.terrain().regions.len()) - 1;
                    s.medals = ByColour::new(g.terrain().total_medals() as u8, 0);
                    s.turn = 99;
                },
                "the game would be over",
            ),
            (
                "castle_field",
                |g, s| {
                    s.regions_taken = (1 << g.terrain().regions.len()) - 1;
                    s.medals = ByColour::new(g.terrain().total_medals() as u8, 0);
                },
                "the regions taken (1, 2, 3, 4, 5, 6, 7, 8) cover 15 bases",
            ),
            (
                "castle_field",
                |g, s| put(g, s, 24, Red, Troop::Kwak),
                "red has 1 tiles on the board on turn 1, but in its 0 turn(s)",
            ),
            (
                "castle_field",
                |_, s| {
                    s.phase = Phase::Over;
                    s.outcome = Some(Outcome {
                        winner: Red,
                        win: WinType::Blocked,
                    });
                },
                "ended with blue blocked, but blue can still draw",
            ),
            (
                "castle_field",
                |_, s| {
                    s.removed[Blue] = s.removed[Blue].plus(&s.reserves[Blue]).plus(&s.racks[Blue]);
                    (s.reserves[Blue], s.racks[Blue]) = (TroopCounts::EMPTY, TroopCounts::EMPTY);
                    over(s, WinType::Blocked);
                },
                "with medals blue 0, red 0 the winner is red",
            ),
            (
                "castle_field",
                |_, s| s.phase = Phase::Chance(Chance::RackDiscard),
                "chance XB-42 discard: no XB-42 of blue",
            ),
            (
                "castle_field",
                |g, s| {
                    put(g, s, 11, Red, Troop::Roxy);
                    put(g, s, 11, Blue, Troop::Skully);
                },
                "node 11: blue:Skully rests on red:Roxy",
            ),
            (
                "castle_field",
                |_, s| s.discard[Blue] = TroopCounts::FULL,
                "blue has 6 Kwak in all",
            ),
            (
                "castle_field",
                |_, s| s.reserves[Red] = TroopCounts::EMPTY,
                "Kwak in all (board, rack, discard, reserve and removed)",
            ),
            (
                "castle_field",
                |_, s| s.racks[Blue] = TroopCounts([2; 8]),
                "holds 16 tiles, at most 8",
            ),
            (
                "castle_field",
                |_, s| s.public_rack[Blue] = TroopCounts::FULL,
                "blue's public tile Kwak is not on blue's rack",
            ),
            (
                "castle_field",
                |_, s| s.frozen[Blue] = s.racks[Blue],
                "no special base of Castle Field freezes tiles",
            ),
            (
                "battlefield",
                |_, s| s.frozen[Red].add(s.racks[Red].nth(0)),
                "red has frozen tiles while blue is to move",
            ),
            (
                "castle_field",
                |_, s| s.medals[Blue] = 1,
                "medals blue 1 and red 0 cannot be",
            ),
            (
                "castle_field",
                |g, s| {
                    for id in [13, 15, 17] {
                        put(g, s, id, Blue, Troop::Kwak);
                    }
                },
                "region 2 is controlled by blue but its medals are not taken",
            ),
            ("castle_field", |_, s| s.turn = 0, "turns count from 1"),
            (
                "castle_field",
                |_, s| s.turn = 2,
                "turn 2 is red's turn when blue plays first",
            ),
            (
                "castle_field",
                |_, s| {
                    s.outcome = Some(Outcome {
                        winner: Red,
                        win: WinType::Blocked,
                    })
                },
                "an outcome is given before the game is over",
            ),
            (
                "castle_field",
                |g, s| {
                    s.phase = Phase::TroopEffect {
                        troop: Troop::Jumbo,
                        node: index(g, 11),
                    }
                },
                "the top tile of node 11 is not blue's Jumbo",
            ),
            (
                "castle_field",
                |g, s| {
                    put(g, s, 11, Blue, Troop::Roxy);
                    s.phase = Phase::TroopEffect {
                        troop: Troop::Roxy,
                        node: index(g, 11),
                    };
                },
                "Roxy on node 11 has no effect to offer",
            ),
            (
                "station_metal_x",
                |g, s| {
                    let n = bits(g.terrain().nodes_with(SpecialEffect::NoTroopEffect))
                        .next()
                        .unwrap();
                    let n = NodeIndex::new(n);
                    put(g, s, g.terrain().id_of(n).get(), Blue, Troop::Skully);
                    s.phase = Phase::TroopEffect {
                        troop: Troop::Skully,
                        node: n,
                    };
                },
                "where troops have no effect",
            ),
            (
                "castle_field",
                |g, s| {
                    s.phase = Phase::SpecialEffect {
                        effect: SpecialEffect::DrawOne,
                        node: index(g, 11),
                    }
                },
                "node 11 has no such special-base effect",
            ),
            (
                "castle_field",
                |g, s| {
                    let n = bits(g.queued_effect_nodes(SpecialEffect::ReturnOwnTroop))
                        .next()
                        .unwrap();
                    s.phase = Phase::SpecialEffect {
                        effect: SpecialEffect::ReturnOwnTroop,
                        node: NodeIndex::new(n),
                    };
                },
                "has no effect to offer here",
            ),
            (
                "castle_field",
                |_, s| s.phase = Phase::Chance(Chance::Freeze),
                "chance Battlefield freeze: impossible",
            ),
            (
                "castle_field",
                |g, s| s.queued = vec![(index(g, 11), 0)],
                "queued special base 11",
            ),
        ];
        for (terrain, change, words) in cases {
            let g = game(terrain);
            let mut setup = opening(&g);
            g.state_from_setup(&setup).expect("the opening is valid");
            change(&g, &mut setup);
            let err = g.state_from_setup(&setup).expect_err(words).to_string();
            assert!(err.contains(words), "expected '{words}' in: {err}");
        }
    }

    /// A tile may rest on a stronger enemy tile where Volcanic Jungle moves tiles (R9.4), and
    /// Kwak covers and is covered by anything (R5.3).
    #[test]
    fn covering_is_checked_only_where_no_effect_moves_tiles() {
        let g = game("volcanic_jungle");
        let mut setup = opening(&g);
        // Turn 3: red has had a turn to place its tile.
        setup.turn = 3;
        put(&g, &mut setup, 11, Colour::Red, Troop::Roxy);
        put(&g, &mut setup, 11, Colour::Blue, Troop::Skully);
        g.state_from_setup(&setup)
            .expect("a move may have put it there");

        let g = game("castle_field");
        let mut setup = opening(&g);
        setup.turn = 3;
        put(&g, &mut setup, 11, Colour::Red, Troop::Roxy);
        put(&g, &mut setup, 11, Colour::Blue, Troop::Kwak);
        put(&g, &mut setup, 11, Colour::Red, Troop::Skully);
        g.state_from_setup(&setup)
            .expect("Kwak covers and is covered");
    }
}
