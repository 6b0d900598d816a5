//! Stable hashes for ids and seeds, written once. The standard library's hasher may change
//! between Rust releases, which would change every deal of a run and every preset version; these
//! never change between builds or platforms.

/// The golden-ratio increment of SplitMix64.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (Stafford's variant 13): a bijection of `u64` that spreads every
/// input bit over the whole output.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One SplitMix64 step from state `z`: the next output of a generator whose state was `z`.
#[inline]
pub fn splitmix64(z: u64) -> u64 {
    mix64(z.wrapping_add(GOLDEN_GAMMA))
}

/// The FNV-1a hash of no bytes: where [`fnv1a_continue`] starts.
pub const FNV1A_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_continue(FNV1A_START, bytes)
}

/// FNV-1a of the bytes hashed to `hash` followed by `bytes`: a file hashed a block at a time
/// has the hash of its whole contents.
pub fn fnv1a_continue(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published values: SplitMix64 seeded with 0 (its first two outputs, as in the reference
    /// implementation by Vigna) and the FNV-1a test vectors of the empty string and "a".
    #[test]
    fn known_values() {
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(GOLDEN_GAMMA), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
