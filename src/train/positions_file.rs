//! A [`Dataset`] saved to a file, so that its positions are made once and fitted many times:
//! cut positions cost hundreds of playouts each (`cuts.rs`), the fit itself a few minutes.
//!
//! Little-endian binary, in this order: the tag `TBPOSNS\0` (8 bytes); the format version
//! (u32); the fingerprint of the encoding the positions were written in (u64); the length of
//! the description of how they were made (u32) and its UTF-8 bytes; the counts of games (u32),
//! positions (u64) and non-zero entries (u64); for every position its game (u32), target,
//! fitted log-odds and root value (f32 each, the root value NaN where there is none) and its
//! number of entries (u32); every entry as its index (u16) and value (f32); and an FNV-1a hash
//! of every byte before it (u64). A file from another encoding, truncated, corrupt or
//! inconsistent is refused with a message that says what and where.

use super::positions::Dataset;
use crate::model::{fingerprint, INPUTS};
use crate::vocabulary::hash::fnv1a;
use std::path::Path;

/// The tag a positions file starts with.
const TAG: &[u8; 8] = b"TBPOSNS\0";
/// The version of the format written and read.
pub const POSITIONS_FORMAT: u32 = 1;
/// Bytes of a position's fixed fields: game, target, offset, root, entry count.
const POSITION_BYTES: u64 = 5 * 4;
/// Bytes of one entry: index and value.
const ENTRY_BYTES: u64 = 2 + 4;

/// A positions file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionsFileError {
    /// The file does not start with the positions tag.
    #[error("not a toybattle positions file (it does not start with TBPOSNS)")]
    NotPositions,
    /// Written in another version of the format.
    #[error(
        "positions file format version {found}; this program reads version {POSITIONS_FORMAT}"
    )]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// Encoded with another encoding of observations.
    #[error(
        "the positions were encoded as {found:016x}, but this program encodes observations as \
         {expected:016x}: make them again from the records"
    )]
    Encoding {
        /// The fingerprint in the file.
        found: u64,
        /// This program's fingerprint.
        expected: u64,
    },
    /// Too short to hold its header.
    #[error("the positions file ends inside its header, after {found} bytes (truncated?)")]
    Header {
        /// The file's length.
        found: u64,
    },
    /// Shorter or longer than its counts say.
    #[error("the positions file has {found} bytes where its counts give {expected} (truncated?)")]
    Length {
        /// The file's length.
        found: u64,
        /// The length its header gives.
        expected: u64,
    },
    /// The bytes do not match their hash.
    #[error("the positions file is corrupt: its hash does not match its contents")]
    Corrupt,
    /// A field that is not what a dataset holds.
    #[error("position {position}: {reason}")]
    Invalid {
        /// The position, from 0.
        position: u64,
        /// What is wrong.
        reason: String,
    },
}

/// The bytes of a positions file of `data`, described by `made` (how the positions were made,
/// shown again when they are read).
pub fn to_bytes(data: &Dataset, made: &str) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(TAG);
    out.extend_from_slice(&POSITIONS_FORMAT.to_le_bytes());
    out.extend_from_slice(&fingerprint().to_le_bytes());
    out.extend_from_slice(&(made.len() as u32).to_le_bytes());
    out.extend_from_slice(made.as_bytes());
    out.extend_from_slice(&data.games().to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let entries: usize = (0..data.len()).map(|k| data.entries(k).len()).sum();
    out.extend_from_slice(&(entries as u64).to_le_bytes());
    for k in 0..data.len() {
        let root = data.root_value(k).unwrap_or(f32::NAN);
        out.extend_from_slice(&data.game_of(k).to_le_bytes());
        for v in [data.target(k), data.offset(k), root] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(data.entries(k).len() as u32).to_le_bytes());
    }
    for k in 0..data.len() {
        for &(i, v) in data.entries(k) {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let hash = fnv1a(&out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

/// Reads little-endian fields in order, refusing to read past the end.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Fields<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let field = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(field)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// The dataset of a positions file's bytes and the description of how its positions were made,
/// or why they cannot be used (checked in the order: tag, version, encoding, length, hash,
/// each position's fields).
pub fn from_bytes(bytes: &[u8]) -> Result<(Dataset, String), PositionsFileError> {
    use PositionsFileError as E;
    if bytes.len() < TAG.len() || &bytes[..TAG.len()] != TAG {
        return Err(E::NotPositions);
    }
    let short = || E::Header {
        found: bytes.len() as u64,
    };
    let mut f = Fields { bytes, at: 8 };
    let found = f.u32().ok_or_else(short)?;
    if found != POSITIONS_FORMAT {
        return Err(E::Version { found });
    }
    let (found, expected) = (f.u64().ok_or_else(short)?, fingerprint());
    if found != expected {
        return Err(E::Encoding { found, expected });
    }
    let made_len = f.u32().ok_or_else(short)? as usize;
    let made = f.take(made_len).ok_or_else(short)?;
    let made = String::from_utf8_lossy(made).into_owned();
    let games = f.u32().ok_or_else(short)?;
    let positions = f.u64().ok_or_else(short)?;
    let entries = f.u64().ok_or_else(short)?;
    let expected = positions
        .checked_mul(POSITION_BYTES)
        .zip(entries.checked_mul(ENTRY_BYTES))
        .and_then(|(p, e)| (f.at as u64).checked_add(p)?.checked_add(e)?.checked_add(8))
        .unwrap_or(u64::MAX);
    if bytes.len() as u64 != expected {
        return Err(E::Length {
            found: bytes.len() as u64,
            expected,
        });
    }
    let body = &bytes[..bytes.len() - 8];
    let hash = u64::from_le_bytes(bytes[body.len()..].try_into().expect("8 bytes"));
    if fnv1a(body) != hash {
        return Err(E::Corrupt);
    }
    let data = read_positions(&mut f, games, positions, entries)?;
    Ok((data, made))
}

/// The positions and entries after the header, each checked: games in order and counted,
/// targets and root values between 0 and 1, finite numbers, entry indices inside the
/// encoding and increasing.
fn read_positions(
    f: &mut Fields,
    games: u32,
    positions: u64,
    entries: u64,
) -> Result<Dataset, PositionsFileError> {
    let invalid = |position: u64, reason: String| PositionsFileError::Invalid { position, reason };
    let mut heads = Vec::with_capacity(positions as usize);
    let mut total = 0u64;
    for k in 0..positions {
        let fields = (f.u32(), f.f32(), f.f32(), f.f32(), f.u32());
        let (Some(game), Some(target), Some(offset), Some(root), Some(n)) = fields else {
            return Err(invalid(k, "the file ends inside it".into()));
        };
        let root = (!root.is_nan()).then_some(root);
        let previous = heads
            .last()
            .map_or(0, |h: &(u32, f32, f32, Option<f32>, u32)| h.0);
        if game >= games || game < previous {
            return Err(invalid(
                k,
                format!("game {game} where games run in order from {previous} below {games}"),
            ));
        }
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        if !unit(target) || !offset.is_finite() || root.is_some_and(|r| !unit(r)) {
            return Err(invalid(
                k,
                format!(
                    "target {target}, fitted log-odds {offset}, root value {root:?}: \
                     targets and root values lie between 0 and 1, log-odds are finite"
                ),
            ));
        }
        total += u64::from(n);
        heads.push((game, target, offset, root, n));
    }
    if total != entries {
        return Err(invalid(
            positions,
            format!("the positions hold {total} entries where the header says {entries}"),
        ));
    }
    let mut data = Dataset::new();
    let mut game_now = 0;
    for (k, &(game, target, offset, root, n)) in heads.iter().enumerate() {
        while game_now < game {
            data.end_game();
            game_now += 1;
        }
        let mut list = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let (i, v) = (
                f.u16().expect("length checked"),
                f.f32().expect("length checked"),
            );
            let after = list.last().is_none_or(|&(last, _)| i > last);
            if usize::from(i) >= INPUTS || !after || !v.is_finite() {
                return Err(invalid(
                    k as u64,
                    format!(
                        "entry {i} = {v}: entries are finite, below {INPUTS} and in increasing order"
                    ),
                ));
            }
            list.push((i, v));
        }
        data.push_position(list, target, offset, root);
    }
    while game_now < games {
        data.end_game();
        game_now += 1;
    }
    Ok(data)
}

/// Writes `data` to `path` (through a temporary file, so a stopped write leaves no half file).
pub fn save(data: &Dataset, made: &str, path: &Path) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, to_bytes(data, made))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The dataset in the positions file at `path` and how its positions were made; the message
/// of a refusal names the file.
pub fn load(path: &Path) -> Result<(Dataset, String), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
