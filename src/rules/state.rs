//! The referee's full state of a game: fixed size, `Copy`, no heap.

use super::board::Board;
use super::tile::{Colour, Troop, TroopCounts, RACK_LIMIT};
use crate::terrain::{NodeIndex, SpecialEffect, MAX_NODES};
use crate::vocabulary::ByColour;
use serde::{Deserialize, Serialize};

/// How a game was won (R10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WinType {
    /// A tile placed on an enemy HQ (R10.1).
    Hq,
    /// The medal objective reached (R10.2).
    Medals,
    /// The opponent could neither draw nor place at the start of their turn (R10.3).
    Blocked,
}

impl std::fmt::Display for WinType {
    /// How the game was won, in the rules' words: "HQ capture", "medals" or "blocked".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WinType::Hq => "HQ capture",
            WinType::Medals => "medals",
            WinType::Blocked => "blocked opponent",
        })
    }
}

/// The end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The player who won.
    pub winner: Colour,
    /// How they won (§10).
    pub win: WinType,
}

/// A random event, resolved by the referee (or by a search's sampler), never by a player (R11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chance {
    /// The active player draws `remaining` more tiles from their reserve, one chance event each.
    Draw {
        /// Tiles still to draw in this draw, this one included.
        remaining: u8,
    },
    /// XB-42 (R7.6): a uniformly random tile of the opponent's rack goes to the discard.
    RackDiscard,
    /// Battlefield (R9.8): a uniformly random unfrozen tile of the opponent's rack is frozen.
    Freeze,
}

/// What the game is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The active player chooses DRAW or PLACE (R4.1).
    Action,
    /// The troop just placed on `node` offers its optional effect (R6.5, §7).
    TroopEffect {
        /// The troop placed.
        troop: Troop,
        /// Where it was placed.
        node: NodeIndex,
    },
    /// The queued special base `node` offers its optional effect (R6.6, §9).
    SpecialEffect {
        /// The special base's effect (§9).
        effect: SpecialEffect,
        /// The special base.
        node: NodeIndex,
    },
    /// A random event must be resolved.
    Chance(Chance),
    /// The game has ended.
    Over,
}

/// Special-base placements of this turn whose effect is still to come (R6.4, R6.6).
///
/// A turn has at most four placements (one action and one per Cap'n effect, with three Cap'ns
/// per colour), so four entries always suffice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpecialQueue {
    /// (node, stack level of the placed tile); level `CANCELLED` once dropped (R6.6, R9.1).
    entries: [(NodeIndex, u8); 4],
    len: u8,
    next: u8,
}

const CANCELLED: u8 = u8::MAX;

impl SpecialQueue {
    #[inline]
    pub(crate) fn push(&mut self, node: NodeIndex, level: u8) {
        debug_assert!(self.len < 4, "more than four placements in one turn");
        self.entries[self.len as usize] = (node, level);
        self.len += 1;
    }

    /// The next entry still to resolve, skipping cancelled ones.
    #[inline]
    pub(crate) fn pop_next(&mut self) -> Option<NodeIndex> {
        while self.next < self.len {
            let (node, level) = self.entries[self.next as usize];
            self.next += 1;
            if level != CANCELLED {
                return Some(node);
            }
        }
        None
    }

    /// Whether every entry has been resolved (or none was queued).
    #[inline]
    pub(crate) fn is_drained(&self) -> bool {
        self.next >= self.len
    }

    /// Drops the pending entry of the tile at (node, level), if it is still to resolve: that tile
    /// has been returned to its rack (R6.6, R9.1).
    #[inline]
    pub(crate) fn cancel(&mut self, node: NodeIndex, level: u8) {
        for e in &mut self.entries[self.next as usize..self.len as usize] {
            if *e == (node, level) {
                e.1 = CANCELLED;
            }
        }
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
        *self = SpecialQueue::default();
    }

    /// Pending entries in resolution order, as (node index, stack level of the placed tile),
    /// for display and position files.
    pub fn pending(&self) -> impl Iterator<Item = (NodeIndex, u8)> + '_ {
        self.entries[self.next as usize..self.len as usize]
            .iter()
            .copied()
            .filter(|e| e.1 != CANCELLED)
    }
}

/// The complete state of a game, as the referee knows it.
///
/// Players never see it: bots receive an [`crate::info::Observation`]. The order of the reserves
/// is not part of the state: the referee's [`super::Deal`] holds it, and every draw is a chance
/// event, so a search can sample draws from the reserve's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub(super) board: Board,
    pub(super) rack: ByColour<TroopCounts>,
    /// Rack tiles frozen by Battlefield (R9.8); a subset of `rack`.
    pub(super) frozen: ByColour<TroopCounts>,
    /// Rack tiles whose identity is public: they entered the rack from the board or the discard
    /// (R11.1). A lower bound: it shrinks whenever a tile of that type leaves the rack.
    pub(super) public_rack: ByColour<TroopCounts>,
    pub(super) reserve: ByColour<TroopCounts>,
    pub(super) removed: ByColour<TroopCounts>,
    pub(super) discard: ByColour<TroopCounts>,
    /// Sizes kept apart from the contents so that an observation can hide contents, not sizes.
    pub(super) rack_len: ByColour<u8>,
    pub(super) reserve_len: ByColour<u8>,
    pub(super) frozen_len: ByColour<u8>,
    pub(super) medals: ByColour<u8>,
    /// Regions whose medals have been taken (R8.4).
    pub(super) regions_taken: u32,
    pub(super) active: Colour,
    pub(super) first: Colour,
    /// Turns begun so far, counting from 1.
    pub(super) turn: u16,
    pub(super) phase: Phase,
    pub(super) queue: SpecialQueue,
    pub(super) outcome: Option<Outcome>,
}

impl State {
    /// What the game is waiting for.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The player whose turn it is.
    pub fn active(&self) -> Colour {
        self.active
    }
    /// The player who took the first turn (R3.5).
    pub fn first_player(&self) -> Colour {
        self.first
    }
    /// Turns begun so far, counting from 1.
    pub fn turn(&self) -> u16 {
        self.turn
    }
    /// How the game ended; `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }
    /// Whether a random event waits for the referee (R11.4).
    pub fn is_chance(&self) -> bool {
        matches!(self.phase, Phase::Chance(_))
    }
    /// The tiles on the terrain.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The rack of `c`, frozen tiles included (R4.4).
    pub fn rack(&self, c: Colour) -> TroopCounts {
        self.rack[c]
    }
    /// Rack tiles of `c` frozen by Battlefield (R9.8).
    pub fn frozen(&self, c: Colour) -> TroopCounts {
        self.frozen[c]
    }
    /// Rack tiles of `c` whose identity is public: they came to the rack from the board or the
    /// discard (R11.1).
    pub fn public_rack(&self, c: Colour) -> TroopCounts {
        self.public_rack[c]
    }
    /// The reserve of `c`: face-down tiles still to draw (R3.3).
    pub fn reserve(&self, c: Colour) -> TroopCounts {
        self.reserve[c]
    }
    /// The tiles of `c` put out of the game at setup, unseen by anyone (R3.4).
    pub fn removed(&self, c: Colour) -> TroopCounts {
        self.removed[c]
    }
    /// The discard of `c`: face-up tiles out of play.
    pub fn discard(&self, c: Colour) -> TroopCounts {
        self.discard[c]
    }
    /// How many tiles are on the rack of `c`.
    pub fn rack_len(&self, c: Colour) -> u8 {
        self.rack_len[c]
    }
    /// How many tiles are in the reserve of `c`.
    pub fn reserve_len(&self, c: Colour) -> u8 {
        self.reserve_len[c]
    }
    /// How many rack tiles of `c` are frozen.
    pub fn frozen_len(&self, c: Colour) -> u8 {
        self.frozen_len[c]
    }
    /// Medals taken by `c` (R8.2).
    pub fn medals(&self, c: Colour) -> u8 {
        self.medals[c]
    }
    /// Regions whose medals have been taken, one bit per region (R8.4).
    pub fn regions_taken(&self) -> u32 {
        self.regions_taken
    }
    /// This turn's special-base placements whose effect is still to come, in resolution order
    /// (R6.4, R6.6), as (node, stack level of the placed tile).
    pub fn pending_specials(&self) -> impl Iterator<Item = (NodeIndex, u8)> + '_ {
        self.queue.pending()
    }

    /// Rack tiles of `c` that may be placed now (not frozen).
    #[inline]
    pub(crate) fn placeable(&self, c: Colour) -> TroopCounts {
        let (r, f) = (&self.rack[c], &self.frozen[c]);
        let mut out = *r;
        for i in 0..8 {
            out.0[i] -= f.0[i];
        }
        out
    }

    /// Troops of which `c` has an unfrozen tile on the rack, as a bit set (bit t = troop t).
    #[inline]
    pub(crate) fn placeable_troops(&self, c: Colour) -> u8 {
        // The eight counts as the bytes of one word. Frozen tiles are a subset of the rack, so
        // the bytes subtract without borrows; a count is at most 8, so adding 0x7f sets a
        // byte's high bit exactly when the count is not zero.
        debug_assert!(self.rack[c].contains(&self.frozen[c]));
        let rack = u64::from_le_bytes(self.rack[c].0);
        let frozen = u64::from_le_bytes(self.frozen[c].0);
        let nonzero = ((rack - frozen) + 0x7f7f_7f7f_7f7f_7f7f) & 0x8080_8080_8080_8080;
        // Gathers bit 7 of byte t into bit 56 + t (no two partial products meet).
        ((nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
    }

    /// Tiles a draw would bring now: min(2, reserve, room on the rack) (R4.2, R7.2).
    #[inline]
    pub(crate) fn draw_count(&self, c: Colour, want: u8) -> u8 {
        want.min(self.reserve_len[c])
            .min(RACK_LIMIT - self.rack_len[c])
    }

    /// Every tile of colour `c` by place: rack + reserve + removed + board + discard. Equal to
    /// three of each type in every consistent state (tile conservation).
    pub fn tile_census(&self, c: Colour) -> TroopCounts {
        let mut total = self.rack[c]
            .plus(&self.reserve[c])
            .plus(&self.removed[c])
            .plus(&self.discard[c]);
        for n in 0..MAX_NODES {
            for t in self.board.stack(NodeIndex::new(n)) {
                if t.colour() == c {
                    total.add(t.troop());
                }
            }
        }
        total
    }

    /// What `observer` may see of this state (R11): the opponent's rack reduced to its public
    /// tiles, the opponent's frozen tiles erased (R9.8: the freezer does not learn which tile),
    /// both reserves and both sets of removed tiles erased (R11.3). Every size is kept.
    pub(crate) fn hidden_from(&self, observer: Colour) -> State {
        let them = observer.opponent();
        let mut view = *self;
        view.rack[them] = self.public_rack[them];
        view.frozen[them] = TroopCounts::EMPTY;
        view.reserve = ByColour::default();
        view.removed = ByColour::default();
        view
    }

    /// Fills the places of colour `c` that [`State::hidden_from`] may have erased: rack, frozen
    /// tiles, reserve and removed tiles. Each must have the size the state keeps for it.
    pub(crate) fn fill_hidden(
        &mut self,
        c: Colour,
        rack: TroopCounts,
        frozen: TroopCounts,
        reserve: TroopCounts,
        removed: TroopCounts,
    ) {
        debug_assert_eq!(rack.total(), self.rack_len[c], "{c}'s rack size");
        debug_assert_eq!(frozen.total(), self.frozen_len[c], "{c}'s frozen tiles");
        debug_assert_eq!(reserve.total(), self.reserve_len[c], "{c}'s reserve size");
        debug_assert!(rack.contains(&frozen) && rack.contains(&self.public_rack[c]));
        self.rack[c] = rack;
        self.frozen[c] = frozen;
        self.reserve[c] = reserve;
        self.removed[c] = removed;
    }

    /// A fresh state before any tile is dealt: used by position files and tests.
    pub(crate) fn empty(first: Colour) -> State {
        State {
            board: Board::default(),
            rack: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            frozen: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            public_rack: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            reserve: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            removed: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            discard: ByColour::new(TroopCounts::EMPTY, TroopCounts::EMPTY),
            rack_len: ByColour::new(0, 0),
            reserve_len: ByColour::new(0, 0),
            frozen_len: ByColour::new(0, 0),
            medals: ByColour::new(0, 0),
            regions_taken: 0,
            active: first,
            first,
            turn: 1,
            phase: Phase::Action,
            queue: SpecialQueue::default(),
            outcome: None,
        }
    }
}
