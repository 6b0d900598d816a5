//! The value model's weights file.
//!
//! Little-endian binary, in this order: the tag `TBVALUE\0` (8 bytes); the format version
//! (u32); the fingerprint of the encoding the weights were trained on (u64, [`fingerprint`]);
//! the input and hidden sizes (three u32; a model's hidden layers may have any size up to
//! [`Hidden::MAX`]); the parameters (f32 each, [`ValueModel::params`]
//! order); and an FNV-1a hash of every byte before it (u64). A file from another encoding or
//! model shape, truncated, or with a wrong hash is refused with a message that says which.

use super::encoding::{fingerprint, INPUTS};
use super::loaded::Loaded;
use super::value::{Hidden, ValueModel};
use crate::vocabulary::hash::fnv1a;
use std::path::{Path, PathBuf};

/// The tag a weights file starts with.
const TAG: &[u8; 8] = b"TBVALUE\0";
/// The version of the file format written and read. Version 2: the network is a correction
/// of the fitted linear evaluation (version 1 networks were whole evaluations).
pub const FORMAT_VERSION: u32 = 2;
/// Bytes before the parameters: tag, version, fingerprint, three sizes.
const HEADER: usize = 8 + 4 + 8 + 3 * 4;

/// Bytes of the weights file of a model with hidden layers of `hidden` sizes.
pub const fn file_len(hidden: Hidden) -> usize {
    HEADER + 4 * hidden.params() + 8
}

/// A weights file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file does not start with the weights tag.
    #[error("not a toybattle value-model weights file (it does not start with TBVALUE)")]
    NotWeights,
    /// Written in another version of the format.
    #[error("weights file format version {found}; this program reads version {FORMAT_VERSION}")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// Trained on another encoding of observations.
    #[error(
        "the weights were trained on encoding {found:016x}, but this program encodes \
         observations as {expected:016x}: retrain them"
    )]
    Encoding {
        /// The fingerprint in the file.
        found: u64,
        /// This program's fingerprint.
        expected: u64,
    },
    /// A model of other sizes.
    #[error(
        "the weights are for a model of {found:?} (inputs, first and second hidden units); \
         this program's models read {expected} inputs and have 1 to {max} units a hidden layer",
        max = Hidden::MAX
    )]
    Shape {
        /// The sizes in the file.
        found: [u32; 3],
        /// This program's number of inputs.
        expected: u32,
    },
    /// Shorter or longer than a weights file of the model its header describes.
    #[error("the weights file has {found} bytes where {expected} were expected (truncated?)")]
    Length {
        /// The file's length.
        found: usize,
        /// The length of a file of the model its header describes.
        expected: usize,
    },
    /// The bytes do not match their hash.
    #[error("the weights file is corrupt: its hash does not match its contents")]
    Corrupt,
    /// A weight that is not a finite number.
    #[error("weight {index} of the file is not a finite number")]
    NotFinite {
        /// Its position in the parameter list.
        index: usize,
    },
}

/// The weights file of `model`.
pub fn to_bytes(model: &ValueModel) -> Vec<u8> {
    let hidden = model.hidden();
    let mut out = Vec::with_capacity(file_len(hidden));
    out.extend_from_slice(TAG);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&fingerprint().to_le_bytes());
    for n in [INPUTS, hidden.first, hidden.second].map(|n| n as u32) {
        out.extend_from_slice(&n.to_le_bytes());
    }
    for p in model.params() {
        out.extend_from_slice(&p.to_le_bytes());
    }
    let hash = fnv1a(&out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

/// The model of a weights file's bytes, or why they cannot be used (checked in the order:
/// tag, version, encoding, shape, length, hash, finite weights).
pub fn from_bytes(bytes: &[u8]) -> Result<ValueModel, WeightsError> {
    if bytes.len() < 8 || &bytes[..8] != TAG {
        return Err(WeightsError::NotWeights);
    }
    if bytes.len() < HEADER {
        return Err(WeightsError::Length {
            found: bytes.len(),
            expected: HEADER,
        });
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let found = u32_at(8);
    if found != FORMAT_VERSION {
        return Err(WeightsError::Version { found });
    }
    let (found, expected) = (u64_at(12), fingerprint());
    if found != expected {
        return Err(WeightsError::Encoding { found, expected });
    }
    let sizes = [u32_at(20), u32_at(24), u32_at(28)];
    let hidden = Hidden {
        first: sizes[1] as usize,
        second: sizes[2] as usize,
    };
    if sizes[0] as usize != INPUTS || !hidden.is_valid() {
        return Err(WeightsError::Shape {
            found: sizes,
            expected: INPUTS as u32,
        });
    }
    let expected = file_len(hidden);
    if bytes.len() != expected {
        return Err(WeightsError::Length {
            found: bytes.len(),
            expected,
        });
    }
    let body = &bytes[..expected - 8];
    if fnv1a(body) != u64_at(expected - 8) {
        return Err(WeightsError::Corrupt);
    }
    let params: Vec<f32> = body[HEADER..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    if let Some(index) = params.iter().position(|p| !p.is_finite()) {
        return Err(WeightsError::NotFinite { index });
    }
    Ok(ValueModel::from_params(hidden, &params).expect("the sizes and length were checked"))
}

/// A weights file that could not be read or used; the message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not usable weights.
    #[error("{path}: {source}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: WeightsError,
    },
}

/// The model of the weights file at `path`, read and checked once per path for the life of the
/// program (a search asks for it at every decision): each distinct file named is kept, so the
/// memory grows only with the number of files a user names. A file that cannot be used is not
/// kept, and is read again when asked for again.
pub fn load(path: &Path) -> Result<&'static ValueModel, LoadError> {
    static LOADED: Loaded<ValueModel> = Loaded::new();
    LOADED.get_or_read(path, || {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        from_bytes(&bytes).map_err(|source| LoadError::Weights {
            path: path.to_path_buf(),
            source,
        })
    })
}
