//! Tiles on the board (R1.1–R1.3) and the counts that setup and the rack obey. Colours, troop
//! types and multisets of troops are the game's vocabulary ([`crate::vocabulary`]), re-exported
//! here under their old paths.

pub use crate::vocabulary::{
    Colour, ParseColourError, ParseTroopError, Troop, TroopCounts, COPIES_PER_TROOP,
    TILES_PER_COLOUR,
};
use std::fmt;
use std::str::FromStr;

/// Tiles each player removes unseen at setup (R3.4).
pub const REMOVED_PER_COLOUR: u8 = 4;
/// Largest rack (R4.4).
pub const RACK_LIMIT: u8 = 8;

/// A tile: a colour and a troop type, packed in one byte (bit 3 = red).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile(u8);

impl Tile {
    /// The tile of `troop` in `colour`.
    #[inline]
    pub fn new(colour: Colour, troop: Troop) -> Tile {
        Tile(((colour as u8) << 3) | troop as u8)
    }
    /// The tile's colour: whose tile it is.
    #[inline]
    pub fn colour(self) -> Colour {
        if self.0 & 8 == 0 {
            Colour::Blue
        } else {
            Colour::Red
        }
    }
    /// The tile's troop type.
    #[inline]
    pub fn troop(self) -> Troop {
        Troop::from_index((self.0 & 7) as usize)
    }
    #[inline]
    pub(crate) fn to_bits(self) -> u8 {
        self.0
    }
    #[inline]
    pub(crate) fn from_bits(bits: u8) -> Tile {
        Tile(bits & 15)
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.colour(), self.troop())
    }
}

/// Text that is not a tile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseTileError {
    /// Not of the form `colour:troop`.
    #[error("bad tile '{0}': expected colour:troop, e.g. 'blue:Jumbo'")]
    Shape(String),
    /// The colour is not `blue` or `red`.
    #[error(transparent)]
    Colour(#[from] ParseColourError),
    /// The troop is not one of the eight types.
    #[error(transparent)]
    Troop(#[from] ParseTroopError),
}

impl FromStr for Tile {
    type Err = ParseTileError;
    /// "blue:Jumbo", "red:X".
    fn from_str(s: &str) -> Result<Self, ParseTileError> {
        let (c, t) = s
            .split_once(':')
            .ok_or_else(|| ParseTileError::Shape(s.to_string()))?;
        Ok(Tile::new(c.trim().parse()?, t.trim().parse()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_round_trips_through_bits_and_text() {
        for c in Colour::BOTH {
            for t in Troop::ALL {
                let tile = Tile::new(c, t);
                assert_eq!(Tile::from_bits(tile.to_bits()), tile);
                assert_eq!(tile.to_string().parse::<Tile>(), Ok(tile));
            }
        }
    }
}
