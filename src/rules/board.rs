//! The board: every stack of tiles (R5.8) in fixed-size arrays, plus bitboards of the top tiles.
//!
//! The top tile of each node has its own byte; the tiles under them (all 48 tiles of the game
//! fit) are stored contiguously in node order, so that covering or uncovering a tile shifts at
//! most a few dozen bytes, a tile put on an empty node (most placements) shifts nothing, and
//! the whole board is a plain memcpy to clone. The top tile of every base is also kept as a
//! bitboard per colour and troop, which is what placement legality (R5.2–R5.5) and region
//! control (R8.1) read.

use super::tile::{Colour, Tile, Troop};
use crate::terrain::{NodeIndex, NodeMask, MAX_NODES};

/// Every tile of both colours could in principle be on the board at once.
pub const MAX_BOARD_TILES: usize = 48;

/// Zeros then ones: any window of it is a byte mask that selects the positions from some index
/// on. Covering and uncovering move every buried tile and stack start past the changed node
/// with such masks instead of loops or memmove, so that they run without branches.
const RAMP: [u8; 2 * MAX_BOARD_TILES] = {
    let mut a = [0; 2 * MAX_BOARD_TILES];
    let mut j = MAX_BOARD_TILES;
    while j < a.len() {
        a[j] = u8::MAX;
        j += 1;
    }
    a
};

/// `L` bytes, all ones exactly at the positions from `i` on (`i <= MAX_BOARD_TILES`).
#[inline]
fn from_mask<const L: usize>(i: usize) -> [u8; L] {
    RAMP[MAX_BOARD_TILES - i..][..L]
        .try_into()
        .expect("a window of L bytes")
}

/// The colour and troop indices of a tile, read straight off its bits (bit 3 = red, bits 0–2 =
/// troop): the bitboards are updated on every push and pop, and `Tile::troop` goes through a
/// lookup table.
#[inline]
fn colour_and_troop(t: Tile) -> (usize, usize) {
    let b = t.to_bits() as usize;
    ((b >> 3) & 1, b & 7)
}

/// The tiles on the terrain: every node's stack (R5.8), with the top tiles also kept as
/// per-colour, per-troop node masks for fast rules queries.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    /// The top tile of every node; zero on empty nodes, so that equal boards compare and hash
    /// equal (derived Eq/Hash).
    top: [u8; MAX_NODES],
    /// The tiles under the top tiles, bottom to top, node after node: node n's are
    /// `buried[start[n]..start[n] + height[n] - 1]`. Zero past the last one.
    buried: [u8; MAX_BOARD_TILES],
    start: [u8; MAX_NODES],
    height: [u8; MAX_NODES],
    total: u8,
    /// `tops[c][t]`: nodes whose top tile is colour c, troop t.
    tops: [[NodeMask; 8]; 2],
    /// `occupied[c]`: nodes whose top tile is colour c (R0.2 "occupy").
    occupied: [NodeMask; 2],
}

impl Default for Board {
    fn default() -> Self {
        Board {
            top: [0; MAX_NODES],
            buried: [0; MAX_BOARD_TILES],
            start: [0; MAX_NODES],
            height: [0; MAX_NODES],
            total: 0,
            tops: [[0; 8]; 2],
            occupied: [0; 2],
        }
    }
}

impl Board {
    /// Puts `tile` on top of node `n` (R6.1).
    #[inline]
    pub fn push(&mut self, n: NodeIndex, tile: Tile) {
        let n = n.usize();
        debug_assert!(
            (self.total as usize) < MAX_BOARD_TILES,
            "more than 48 tiles on the board"
        );
        let h = self.height[n];
        if h > 0 {
            // The covered tile goes to the end of n's buried tiles.
            let covered = Tile::from_bits(self.top[n]);
            self.clear_top_bits(n, covered);
            self.bury((self.start[n] + h - 1) as usize, covered);
            self.shift_starts_after(n, 1);
        }
        self.top[n] = tile.to_bits();
        self.height[n] = h + 1;
        self.total += 1;
        self.set_top_bits(n, tile);
    }

    /// Takes the top tile off node `n`; the tile below (if any) becomes the top tile.
    #[inline]
    pub fn pop(&mut self, n: NodeIndex) -> Tile {
        let n = n.usize();
        debug_assert!(self.height[n] > 0, "pop from an empty node");
        let h = self.height[n];
        let tile = Tile::from_bits(self.top[n]);
        self.clear_top_bits(n, tile);
        if h > 1 {
            let below = self.unbury((self.start[n] + h - 2) as usize);
            self.shift_starts_after(n, u8::MAX); // wrapping: minus one
            self.top[n] = below.to_bits();
            self.set_top_bits(n, below);
        } else {
            self.top[n] = 0;
        }
        self.height[n] = h - 1;
        self.total -= 1;
        tile
    }

    /// Inserts `tile` at `pos` of the buried tiles; those from `pos` on move up by one.
    #[inline]
    fn bury(&mut self, pos: usize, tile: Tile) {
        let old = self.buried;
        let mut up = [0; MAX_BOARD_TILES];
        up[1..].copy_from_slice(&old[..MAX_BOARD_TILES - 1]);
        let moved = from_mask::<MAX_BOARD_TILES>(pos);
        for ((c, (&o, &u)), &m) in self.buried.iter_mut().zip(old.iter().zip(&up)).zip(&moved) {
            *c = (o & !m) | (u & m);
        }
        self.buried[pos] = tile.to_bits();
    }

    /// Removes the buried tile at `pos`; those after it move down by one, and the freed last
    /// cell reads the zero shifted in.
    #[inline]
    fn unbury(&mut self, pos: usize) -> Tile {
        let tile = Tile::from_bits(self.buried[pos]);
        let old = self.buried;
        let mut down = [0; MAX_BOARD_TILES];
        down[..MAX_BOARD_TILES - 1].copy_from_slice(&old[1..]);
        let moved = from_mask::<MAX_BOARD_TILES>(pos);
        for ((c, (&o, &d)), &m) in self
            .buried
            .iter_mut()
            .zip(old.iter().zip(&down))
            .zip(&moved)
        {
            *c = (o & !m) | (d & m);
        }
        tile
    }

    /// Adds `delta` (wrapping) to the start of every stack after node `n`.
    #[inline]
    fn shift_starts_after(&mut self, n: usize, delta: u8) {
        let after = from_mask::<MAX_NODES>(n + 1);
        for (s, &a) in self.start.iter_mut().zip(&after) {
            *s = s.wrapping_add(a & delta);
        }
    }

    #[inline]
    fn set_top_bits(&mut self, n: usize, t: Tile) {
        let (c, k) = colour_and_troop(t);
        self.tops[c][k] |= 1 << n;
        self.occupied[c] |= 1 << n;
    }

    #[inline]
    fn clear_top_bits(&mut self, n: usize, t: Tile) {
        let (c, k) = colour_and_troop(t);
        self.tops[c][k] &= !(1 << n);
        self.occupied[c] &= !(1 << n);
    }

    /// The visible tile of node `n`.
    #[inline]
    pub fn top(&self, n: NodeIndex) -> Option<Tile> {
        let n = n.usize();
        (self.height[n] > 0).then(|| Tile::from_bits(self.top[n]))
    }

    /// How many tiles are stacked on node `n` (R5.8); 0 when it is empty.
    #[inline]
    pub fn height(&self, n: NodeIndex) -> usize {
        self.height[n.usize()] as usize
    }

    /// The stack of node `n`, bottom to top.
    pub fn stack(&self, n: NodeIndex) -> impl Iterator<Item = Tile> + '_ {
        let i = n.usize();
        let (s, h) = (self.start[i] as usize, self.height[i] as usize);
        self.buried[s..s + h.saturating_sub(1)]
            .iter()
            .chain(self.top(n).map(|_| &self.top[i]))
            .map(|&b| Tile::from_bits(b))
    }

    /// Nodes whose top tile is `c`'s.
    #[inline]
    pub fn occupied(&self, c: Colour) -> NodeMask {
        self.occupied[c.index()]
    }

    /// Nodes whose top tile is `c`'s tile of type `t`.
    #[inline]
    pub fn tops(&self, c: Colour, t: Troop) -> NodeMask {
        self.tops[c.index()][t.index()]
    }

    /// `c`'s top tiles of every troop, indexed by troop.
    #[inline]
    pub(crate) fn tops_by_troop(&self, c: Colour) -> &[NodeMask; 8] {
        &self.tops[c.index()]
    }

    /// Nodes with any tile.
    #[inline]
    pub fn nonempty(&self) -> NodeMask {
        self.occupied[0] | self.occupied[1]
    }

    /// Tiles on the board in total.
    #[inline]
    pub fn tile_count(&self) -> usize {
        self.total as usize
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for n in 0..MAX_NODES {
            if self.height[n] > 0 {
                m.entry(
                    &n,
                    &self
                        .stack(NodeIndex::new(n))
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>(),
                );
            }
        }
        m.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_and_pop_keep_stacks_and_bitboards_in_step() {
        let mut b = Board::default();
        let bj = Tile::new(Colour::Blue, Troop::Jumbo);
        let rr = Tile::new(Colour::Red, Troop::Roxy);
        let bk = Tile::new(Colour::Blue, Troop::Kwak);
        b.push(NodeIndex::new(3), bj);
        b.push(NodeIndex::new(1), rr);
        b.push(NodeIndex::new(3), rr);
        b.push(NodeIndex::new(5), bk);
        assert_eq!(b.stack(NodeIndex::new(3)).collect::<Vec<_>>(), vec![bj, rr]);
        assert_eq!(b.top(NodeIndex::new(1)), Some(rr));
        assert_eq!(b.occupied(Colour::Red), (1 << 1) | (1 << 3));
        assert_eq!(b.occupied(Colour::Blue), 1 << 5);
        assert_eq!(b.pop(NodeIndex::new(3)), rr);
        assert_eq!(b.top(NodeIndex::new(3)), Some(bj));
        assert_eq!(b.tops(Colour::Blue, Troop::Jumbo), 1 << 3);
        assert_eq!(b.stack(NodeIndex::new(5)).collect::<Vec<_>>(), vec![bk]);
        assert_eq!(b.tile_count(), 3);
    }

    #[test]
    fn buried_tiles_come_back_in_order_and_leave_an_equal_board() {
        let mut b = Board::default();
        let tiles: Vec<Tile> = Troop::ALL
            .iter()
            .flat_map(|&t| Colour::BOTH.map(|c| Tile::new(c, t)))
            .collect();
        // Three stacks of different heights, pushed in an interleaved order.
        let nodes = [4, 0, 4, 31, 4, 0, 4, 31, 9].map(NodeIndex::new);
        for (&n, &t) in nodes.iter().zip(&tiles) {
            b.push(n, t);
        }
        let expected = [tiles[0], tiles[2], tiles[4], tiles[6]];
        assert_eq!(b.stack(NodeIndex::new(4)).collect::<Vec<_>>(), expected);
        assert_eq!(
            b.stack(NodeIndex::new(31)).collect::<Vec<_>>(),
            vec![tiles[3], tiles[7]]
        );
        assert_eq!(
            b.stack(NodeIndex::new(9)).collect::<Vec<_>>(),
            vec![tiles[8]]
        );
        for (&n, &t) in nodes.iter().zip(&tiles).rev() {
            assert_eq!(b.pop(n), t);
        }
        assert_eq!(b, Board::default());
    }
}
