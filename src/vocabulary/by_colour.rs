//! One value per colour, indexed by [`Colour`].

use super::Colour;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::{Index, IndexMut};

/// One value per colour (blue, red), indexed by [`Colour`]: `medals[Colour::Red]`.
///
/// Stored as `[blue, red]`, so it is as compact as the array it replaces, and written in JSON as
/// that array (`[3, 1]`). Files that spell the colours out (`{"blue": 3, "red": 1}`) use
/// the serde module [`named`] (`#[serde(with = "toybattle::vocabulary::by_colour_named")]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct ByColour<T>([T; 2]);

impl<T> ByColour<T> {
    /// The values of blue and of red.
    #[inline]
    pub const fn new(blue: T, red: T) -> ByColour<T> {
        ByColour([blue, red])
    }

    /// The value of each colour, computed by `f`.
    #[inline]
    pub fn from_fn(mut f: impl FnMut(Colour) -> T) -> ByColour<T> {
        ByColour([f(Colour::Blue), f(Colour::Red)])
    }

    /// Both values put through `f`.
    #[inline]
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> ByColour<U> {
        ByColour(self.0.map(f))
    }

    /// (colour, value) pairs, blue first.
    pub fn iter(&self) -> impl Iterator<Item = (Colour, &T)> {
        Colour::BOTH.into_iter().zip(&self.0)
    }

    /// (colour, value) pairs, blue first, the values mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Colour, &mut T)> {
        Colour::BOTH.into_iter().zip(&mut self.0)
    }

    /// The values as `[blue, red]`.
    #[inline]
    pub fn as_array(&self) -> &[T; 2] {
        &self.0
    }

    /// The values as `[blue, red]`.
    #[inline]
    pub fn into_array(self) -> [T; 2] {
        self.0
    }
}

impl<T> From<[T; 2]> for ByColour<T> {
    /// From `[blue, red]`.
    fn from(a: [T; 2]) -> ByColour<T> {
        ByColour(a)
    }
}

impl<T> Index<Colour> for ByColour<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Colour) -> &T {
        &self.0[c as usize]
    }
}

impl<T> IndexMut<Colour> for ByColour<T> {
    #[inline]
    fn index_mut(&mut self, c: Colour) -> &mut T {
        &mut self.0[c as usize]
    }
}

impl<T> IntoIterator for ByColour<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 2>;
    /// The values, blue first.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Written as the array `[blue, red]`, exactly as the `[T; 2]` it replaces.
impl<T: Serialize> Serialize for ByColour<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByColour<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <[T; 2]>::deserialize(d).map(ByColour)
    }
}

/// Serde for a [`ByColour`] written with the colours spelt out, `{"blue": …, "red": …}`: a
/// colour left out takes its default value and any other key is an error. For fields marked
/// `#[serde(with = "toybattle::vocabulary::by_colour_named")]`.
pub mod named {
    use super::ByColour;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Named<T> {
        #[serde(default)]
        blue: T,
        #[serde(default)]
        red: T,
    }

    #[derive(Serialize)]
    struct NamedRef<'a, T> {
        blue: &'a T,
        red: &'a T,
    }

    /// Writes the pair as `{"blue": …, "red": …}`.
    pub fn serialize<T: Serialize, S: Serializer>(
        v: &ByColour<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let [blue, red] = v.as_array();
        NamedRef { blue, red }.serialize(s)
    }

    /// Reads `{"blue": …, "red": …}`; a colour left out gets its default value.
    pub fn deserialize<'de, T: Deserialize<'de> + Default, D: Deserializer<'de>>(
        d: D,
    ) -> Result<ByColour<T>, D::Error> {
        let n = Named::<T>::deserialize(d)?;
        Ok(ByColour::new(n.blue, n.red))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexed_by_colour_in_blue_red_order() {
        let mut m = ByColour::new(3u8, 1u8);
        m[Colour::Red] += 1;
        assert_eq!((m[Colour::Blue], m[Colour::Red]), (3, 2));
        assert_eq!(m.as_array(), &[3, 2]);
        assert_eq!(m.map(|x| x * 10), ByColour::new(30, 20));
        assert_eq!(
            ByColour::from_fn(|c| c),
            ByColour::new(Colour::Blue, Colour::Red)
        );
        let pairs: Vec<(Colour, u8)> = m.iter().map(|(c, &x)| (c, x)).collect();
        assert_eq!(pairs, vec![(Colour::Blue, 3), (Colour::Red, 2)]);
    }

    /// The JSON of a `ByColour` is the JSON of the `[T; 2]` it replaced, both ways.
    #[test]
    fn json_is_the_array_it_replaced() {
        let m = ByColour::new(vec![1u8], vec![2, 3]);
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(
            text,
            serde_json::to_string(&[vec![1u8], vec![2, 3]]).unwrap()
        );
        assert_eq!(serde_json::from_str::<ByColour<Vec<u8>>>(&text).unwrap(), m);
        assert!(serde_json::from_str::<ByColour<u8>>("[1, 2, 3]").is_err());
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Spelt {
        #[serde(with = "named")]
        medals: ByColour<u8>,
    }

    #[test]
    fn named_json_spells_the_colours_out() {
        let v = Spelt {
            medals: ByColour::new(2, 0),
        };
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(text, r#"{"medals":{"blue":2,"red":0}}"#);
        assert_eq!(serde_json::from_str::<Spelt>(&text).unwrap(), v);
        let red_only: Spelt = serde_json::from_str(r#"{"medals":{"red":4}}"#).unwrap();
        assert_eq!(red_only.medals, ByColour::new(0, 4));
        assert!(serde_json::from_str::<Spelt>(r#"{"medals":{"green":1}}"#).is_err());
    }
}
