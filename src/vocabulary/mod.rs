//! The game's vocabulary, below every other module: colours, troop types and multisets of
//! tiles (R1.1–R1.3), values kept per colour, and the stable hashes that ids and seeds are made
//! of. It depends on nothing else in the crate, so that terrains and rules can both speak it.

mod by_colour;
pub mod hash;
pub mod linear;

pub use by_colour::{named as by_colour_named, ByColour};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A player's colour. Blue sits at the bottom of the board picture, red at the top (R2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// The player at the bottom of the board picture.
    Blue = 0,
    /// The player at the top of the board picture.
    Red = 1,
}

impl Colour {
    /// Both colours, blue first.
    pub const BOTH: [Colour; 2] = [Colour::Blue, Colour::Red];

    /// 0 for blue, 1 for red: the index of per-colour arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The other player's colour.
    #[inline]
    pub fn opponent(self) -> Colour {
        match self {
            Colour::Blue => Colour::Red,
            Colour::Red => Colour::Blue,
        }
    }

    /// The colour in lower case, as in files and notation.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Blue => "blue",
            Colour::Red => "red",
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A word that names no colour.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour '{0}': expected 'blue' or 'red'")]
pub struct ParseColourError(pub String);

impl FromStr for Colour {
    type Err = ParseColourError;
    fn from_str(s: &str) -> Result<Self, ParseColourError> {
        match s.to_ascii_lowercase().as_str() {
            "blue" => Ok(Colour::Blue),
            "red" => Ok(Colour::Red),
            _ => Err(ParseColourError(s.to_string())),
        }
    }
}

/// The eight troop types (R1.2). The discriminant is the printed value; Kwak (the joker, X) is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Troop {
    /// X, the joker: no strength, may cover and be covered by any tile (R5.3, R7.1).
    Kwak = 0,
    /// 1: may draw up to two tiles (R7.2).
    Skully = 1,
    /// 2 (Cap'n): may place one extra tile (R7.3).
    Capn = 2,
    /// 3: may discard an adjacent enemy top tile (R7.4).
    Jumbo = 3,
    /// 4: may be placed without connection to an HQ (R5.6).
    Hook = 4,
    /// 5 (XB-42): may discard a random tile of the opponent's rack (R7.6).
    Xb42 = 5,
    /// 6: may draw one tile (R7.7).
    Star = 6,
    /// 7: the strongest troop; no effect (R7.8).
    Roxy = 7,
}

impl Troop {
    /// All troops in the engine's canonical order (Kwak, then values 1 to 7).
    pub const ALL: [Troop; 8] = [
        Troop::Kwak,
        Troop::Skully,
        Troop::Capn,
        Troop::Jumbo,
        Troop::Hook,
        Troop::Xb42,
        Troop::Star,
        Troop::Roxy,
    ];

    /// The troop's position in `Troop::ALL`, equal to its printed value (Kwak 0).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The troop at position `i` of `Troop::ALL`.
    #[inline]
    pub fn from_index(i: usize) -> Troop {
        Troop::ALL[i]
    }

    /// The troop's name as written in notation and files.
    pub fn name(self) -> &'static str {
        match self {
            Troop::Kwak => "Kwak",
            Troop::Skully => "Skully",
            Troop::Capn => "Capn",
            Troop::Jumbo => "Jumbo",
            Troop::Hook => "Hook",
            Troop::Xb42 => "XB-42",
            Troop::Star => "Star",
            Troop::Roxy => "Roxy",
        }
    }

    /// The printed value as a string: "X" for Kwak, "1".."7" otherwise.
    pub fn value_label(self) -> &'static str {
        ["X", "1", "2", "3", "4", "5", "6", "7"][self.index()]
    }

    /// Whether a tile of type `self` may cover an enemy top tile of type `enemy` (R5.2, R5.3).
    /// Kwak has no strength: it covers anything and anything covers it (A1).
    #[inline]
    pub fn covers(self, enemy: Troop) -> bool {
        self == Troop::Kwak || enemy == Troop::Kwak || (self as u8) > (enemy as u8)
    }
}

impl fmt::Display for Troop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A word that names no troop.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown troop '{0}': expected one of Kwak, Skully, Capn, Jumbo, Hook, XB-42, Star, Roxy (or X, 1-7)")]
pub struct ParseTroopError(pub String);

impl FromStr for Troop {
    type Err = ParseTroopError;
    /// Accepts the name ("Jumbo", "capn", "Cap'n", "XB-42", "xb42") or the printed value ("3", "X").
    fn from_str(s: &str) -> Result<Self, ParseTroopError> {
        let key: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let troop = match key.as_str() {
            "kwak" | "x" => Troop::Kwak,
            "skully" | "1" => Troop::Skully,
            "capn" | "2" => Troop::Capn,
            "jumbo" | "3" => Troop::Jumbo,
            "hook" | "4" => Troop::Hook,
            "xb42" | "5" => Troop::Xb42,
            "star" | "6" => Troop::Star,
            "roxy" | "7" => Troop::Roxy,
            _ => return Err(ParseTroopError(s.to_string())),
        };
        Ok(troop)
    }
}

impl Serialize for Troop {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Troop {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Copies of each troop type per colour (R1.1).
pub const COPIES_PER_TROOP: u8 = 3;
/// Tiles per colour (R1.1).
pub const TILES_PER_COLOUR: u8 = 24;

/// A multiset of troop types of one colour: how many of each type (rack, reserve, discard...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TroopCounts(pub [u8; 8]);

impl TroopCounts {
    /// A full colour: three of each type (R1.1).
    pub const FULL: TroopCounts = TroopCounts([COPIES_PER_TROOP; 8]);
    /// No tiles.
    pub const EMPTY: TroopCounts = TroopCounts([0; 8]);

    /// The tiles both multisets hold: per troop, the smaller count.
    pub fn common(&self, o: &TroopCounts) -> TroopCounts {
        TroopCounts(std::array::from_fn(|t| self.0[t].min(o.0[t])))
    }

    /// How many tiles of troop `t`.
    #[inline]
    pub fn get(&self, t: Troop) -> u8 {
        self.0[t.index()]
    }
    /// Adds one tile of troop `t`.
    #[inline]
    pub fn add(&mut self, t: Troop) {
        self.0[t.index()] += 1;
    }
    /// Removes one tile of troop `t`, which must be present.
    #[inline]
    pub fn remove(&mut self, t: Troop) {
        debug_assert!(self.0[t.index()] > 0, "removing absent {t}");
        self.0[t.index()] -= 1;
    }
    /// How many tiles in all.
    #[inline]
    pub fn total(&self) -> u8 {
        self.0.iter().sum()
    }
    /// Bit i set when troop i is present.
    #[inline]
    pub fn presence_mask(&self) -> u8 {
        let mut m = 0u8;
        for (i, &c) in self.0.iter().enumerate() {
            m |= ((c > 0) as u8) << i;
        }
        m
    }
    /// Element-wise sum.
    pub fn plus(&self, o: &TroopCounts) -> TroopCounts {
        let mut r = *self;
        for i in 0..8 {
            r.0[i] += o.0[i];
        }
        r
    }
    /// Element-wise difference, or `None` when `o` holds more of some type than `self`.
    pub fn minus(&self, o: &TroopCounts) -> Option<TroopCounts> {
        let mut r = *self;
        for i in 0..8 {
            r.0[i] = r.0[i].checked_sub(o.0[i])?;
        }
        Some(r)
    }
    /// Whether every count of `o` is at most the matching count of `self`.
    pub fn contains(&self, o: &TroopCounts) -> bool {
        self.minus(o).is_some()
    }
    /// The troop at position `k` when the multiset is laid out in canonical order.
    pub fn nth(&self, mut k: u32) -> Troop {
        for (i, &c) in self.0.iter().enumerate() {
            if k < c as u32 {
                return Troop::from_index(i);
            }
            k -= c as u32;
        }
        unreachable!("nth beyond the multiset's size")
    }
    /// The tiles as a list in canonical order.
    pub fn to_vec(&self) -> Vec<Troop> {
        Troop::ALL
            .iter()
            .flat_map(|&t| std::iter::repeat_n(t, self.get(t) as usize))
            .collect()
    }
    /// The multiset of the given troops.
    pub fn from_troops<I: IntoIterator<Item = Troop>>(it: I) -> TroopCounts {
        let mut c = TroopCounts::EMPTY;
        for t in it {
            c.0[t.index()] = c.0[t.index()].saturating_add(1);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn troop_parsing_accepts_names_and_values() {
        assert_eq!("Cap'n".parse::<Troop>(), Ok(Troop::Capn));
        assert_eq!("XB-42".parse::<Troop>(), Ok(Troop::Xb42));
        assert_eq!("x".parse::<Troop>(), Ok(Troop::Kwak));
        assert_eq!("7".parse::<Troop>(), Ok(Troop::Roxy));
        let e = "Dragon".parse::<Troop>().unwrap_err().to_string();
        assert!(
            e.contains("unknown troop 'Dragon'") && e.contains("XB-42"),
            "{e}"
        );
        let e = "green".parse::<Colour>().unwrap_err().to_string();
        assert_eq!(e, "unknown colour 'green': expected 'blue' or 'red'");
    }

    #[test]
    fn nth_walks_the_multiset_in_order() {
        let c = TroopCounts([1, 0, 2, 0, 0, 0, 0, 1]);
        let v: Vec<Troop> = (0..4).map(|k| c.nth(k)).collect();
        assert_eq!(v, vec![Troop::Kwak, Troop::Capn, Troop::Capn, Troop::Roxy]);
        assert_eq!(c.to_vec(), v);
    }
}
