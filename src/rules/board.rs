//! The board: every stack of tiles (R5.8) in a fixed-size array, plus bitboards of the top tiles.
//!
//! All 48 tiles of the game fit in `cells`; stacks are stored contiguously in node order, so a
//! push or pop shifts at most a few dozen bytes and the whole board is a plain memcpy to clone.
//! The top tile of every base is also kept as a bitboard per colour and troop, which is what
//! placement legality (R5.2–R5.5) and region control (R8.1) read.

use super::tile::{Colour, Tile, Troop};
use crate::terrain::{NodeMask, MAX_NODES};

/// Every tile of both colours could in principle be on the board at once.
pub const MAX_BOARD_TILES: usize = 48;

/// Zeros then ones: any window of it is a byte mask that selects the positions from some index
/// on. Push and pop move every cell and stack start past the changed node with such masks
/// instead of loops or memmove, so that they run without branches.
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

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [u8; MAX_BOARD_TILES],
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
            cells: [0; MAX_BOARD_TILES],
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
    pub fn push(&mut self, n: usize, tile: Tile) {
        debug_assert!(
            (self.total as usize) < MAX_BOARD_TILES,
            "more than 48 tiles on the board"
        );
        let pos = (self.start[n] + self.height[n]) as usize;
        // cells[pos..] move up by one.
        let old = self.cells;
        let mut up = [0; MAX_BOARD_TILES];
        up[1..].copy_from_slice(&old[..MAX_BOARD_TILES - 1]);
        let moved = from_mask::<MAX_BOARD_TILES>(pos);
        for ((c, (&o, &u)), &m) in self.cells.iter_mut().zip(old.iter().zip(&up)).zip(&moved) {
            *c = (o & !m) | (u & m);
        }
        self.cells[pos] = tile.to_bits();
        self.shift_starts_after(n, 1);
        self.total += 1;
        if let Some(old) = self.top(n) {
            self.clear_top_bits(n, old);
        }
        self.height[n] += 1;
        self.set_top_bits(n, tile);
    }

    /// Takes the top tile off node `n`; the tile below (if any) becomes the top tile.
    #[inline]
    pub fn pop(&mut self, n: usize) -> Tile {
        debug_assert!(self.height[n] > 0, "pop from an empty node");
        let pos = (self.start[n] + self.height[n] - 1) as usize;
        let tile = Tile::from_bits(self.cells[pos]);
        // cells[pos + 1..] move down by one; the freed last cell reads the zero shifted in, so
        // equal boards compare and hash equal (derived Eq/Hash).
        let old = self.cells;
        let mut down = [0; MAX_BOARD_TILES];
        down[..MAX_BOARD_TILES - 1].copy_from_slice(&old[1..]);
        let moved = from_mask::<MAX_BOARD_TILES>(pos);
        for ((c, (&o, &d)), &m) in self.cells.iter_mut().zip(old.iter().zip(&down)).zip(&moved) {
            *c = (o & !m) | (d & m);
        }
        self.shift_starts_after(n, u8::MAX); // wrapping: minus one
        self.total -= 1;
        self.clear_top_bits(n, tile);
        self.height[n] -= 1;
        if let Some(below) = self.top(n) {
            self.set_top_bits(n, below);
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
        let (c, k) = (t.colour().index(), t.troop().index());
        self.tops[c][k] |= 1 << n;
        self.occupied[c] |= 1 << n;
    }

    #[inline]
    fn clear_top_bits(&mut self, n: usize, t: Tile) {
        let (c, k) = (t.colour().index(), t.troop().index());
        self.tops[c][k] &= !(1 << n);
        self.occupied[c] &= !(1 << n);
    }

    /// The visible tile of node `n`.
    #[inline]
    pub fn top(&self, n: usize) -> Option<Tile> {
        let h = self.height[n];
        (h > 0).then(|| Tile::from_bits(self.cells[(self.start[n] + h - 1) as usize]))
    }

    #[inline]
    pub fn height(&self, n: usize) -> usize {
        self.height[n] as usize
    }

    /// The stack of node `n`, bottom to top.
    pub fn stack(&self, n: usize) -> impl Iterator<Item = Tile> + '_ {
        let s = self.start[n] as usize;
        self.cells[s..s + self.height[n] as usize]
            .iter()
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
                    &self.stack(n).map(|t| t.to_string()).collect::<Vec<_>>(),
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
        b.push(3, bj);
        b.push(1, rr);
        b.push(3, rr);
        b.push(5, bk);
        assert_eq!(b.stack(3).collect::<Vec<_>>(), vec![bj, rr]);
        assert_eq!(b.top(1), Some(rr));
        assert_eq!(b.occupied(Colour::Red), (1 << 1) | (1 << 3));
        assert_eq!(b.occupied(Colour::Blue), 1 << 5);
        assert_eq!(b.pop(3), rr);
        assert_eq!(b.top(3), Some(bj));
        assert_eq!(b.tops(Colour::Blue, Troop::Jumbo), 1 << 3);
        assert_eq!(b.stack(5).collect::<Vec<_>>(), vec![bk]);
        assert_eq!(b.tile_count(), 3);
    }
}
