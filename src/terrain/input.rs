//! Reading input files with a bound: every file the engine reads (terrain files, records,
//! saved games, positions, presets, run folders, bot programs) goes through here, so that no
//! file can make it hang or grow without limit.
//!
//! Each kind of file has a documented size cap ([`InputFile`]; the list is in docs/records.md,
//! "Size caps"). A file over its cap is refused with its size and the cap, and so is anything
//! that is not a regular file (a directory, a FIFO that would block, a device such as
//! `/dev/zero` that never ends). It lives in the lowest layer that reads a file (terrain files)
//! and holds no game logic.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, ErrorKind, Read};
use std::path::Path;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;

/// A kind of input file: its name in messages and the most bytes it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// What the file is, in messages: "game record", "position file".
    pub what: &'static str,
    /// The largest size accepted, in bytes.
    pub cap: u64,
}

/// A terrain file (`--terrain-file`): the shipped one, with all eight terrains, is 19 KiB.
pub const TERRAIN_FILE: InputFile = InputFile {
    what: "terrain file",
    cap: 4 * MIB,
};
/// A game record (`replay`, `position`, a run folder's records). Records the engine writes
/// are small: 3,714 bytes at most over 200 random games on Castle Field.
pub const RECORD: InputFile = InputFile {
    what: "game record",
    cap: 16 * MIB,
};
/// A saved game against the computer (`play --load`, the page's Load): a record with notes.
pub const SAVED_GAME: InputFile = InputFile {
    what: "saved game",
    cap: 16 * MIB,
};
/// A position file (`legal --position`, `analyze --position`), and each line of
/// `legal --jsonl`; a whole position is about 1 KiB.
pub const POSITION: InputFile = InputFile {
    what: "position",
    cap: MIB,
};
/// A bot preset file (`bots/*.toml` or a path): the shipped ones are under 2 KiB.
pub const PRESET: InputFile = InputFile {
    what: "preset",
    cap: 64 * KIB,
};
/// A run folder's settings (`run.json`) or a study's list of runs (`study.json`).
pub const RUN_SETTINGS: InputFile = InputFile {
    what: "run settings file",
    cap: MIB,
};
/// A run folder's list of games (`games.jsonl`), about 520 bytes a game: some two million games.
pub const GAME_LIST: InputFile = InputFile {
    what: "list of games (games.jsonl)",
    cap: GIB,
};
/// An external bot's program, hashed (never held whole) to give the bot its version.
pub const BOT_PROGRAM: InputFile = InputFile {
    what: "bot program",
    cap: GIB,
};

/// Why an input file was not read. Nothing is read past the cap.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The file system refused: no such file, no permission.
    #[error("cannot read {what} {path}: {reason}")]
    Unreadable {
        /// The kind of file.
        what: &'static str,
        /// The path as given.
        path: String,
        /// What the file system reported.
        reason: String,
        /// Its kind, so that a caller may treat a missing file as empty.
        kind: ErrorKind,
    },
    /// A directory, FIFO, device or socket where a regular file is expected.
    #[error("cannot read {what} {path}: it is {found}, not a regular file")]
    NotRegular {
        /// The kind of file.
        what: &'static str,
        /// The path as given.
        path: String,
        /// What it is: "a directory", "a FIFO (named pipe)"…
        found: &'static str,
    },
    /// A file over the cap of its kind.
    #[error("cannot read {} {path}: it holds {}, over the cap of {} for a {} (see docs/records.md, \"Size caps\")", .file.what, Bytes(*.size, *.more), Bytes(.file.cap, false), .file.what)]
    TooLarge {
        /// The kind of file and its cap.
        file: InputFile,
        /// The path as given.
        path: String,
        /// The size found: the file's length, or the bytes read when it grew while read.
        size: u64,
        /// Whether the file holds more than `size` (it grew while it was read).
        more: bool,
    },
    /// Bytes that are not UTF-8 text.
    #[error("cannot read {what} {path}: byte {at} is not UTF-8 text")]
    NotText {
        /// The kind of file.
        what: &'static str,
        /// The path as given.
        path: String,
        /// The offset of the first bad byte.
        at: usize,
    },
}

impl InputError {
    /// Whether the file does not exist (some folders may lack an optional file).
    pub fn is_not_found(&self) -> bool {
        matches!(self, InputError::Unreadable { kind, .. } if *kind == ErrorKind::NotFound)
    }
}

/// A size for a person: "16 MiB" when exact, else the bytes with separators.
pub fn describe_size(bytes: u64) -> String {
    Bytes(bytes, false).to_string()
}

/// A size for a person, "more than" it when the flag is set.
struct Bytes(u64, bool);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Bytes(n, more) = *self;
        if more {
            f.write_str("more than ")?;
        }
        for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
            if n >= unit && n % unit == 0 {
                return write!(f, "{} {name}", n / unit);
            }
        }
        let digits = n.to_string();
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str(" bytes")
    }
}

/// Opens a regular file for reading and gives its length. Anything else is refused before a
/// byte is read; it is opened without blocking, so a FIFO put in its place cannot hang it.
pub fn open(path: &Path, file: InputFile) -> Result<(File, u64), InputError> {
    let unreadable = |e: std::io::Error| InputError::Unreadable {
        what: file.what,
        path: path.display().to_string(),
        reason: e.to_string(),
        kind: e.kind(),
    };
    // stat first: opening a FIFO for reading blocks until a writer comes.
    check_regular(path, file, &std::fs::metadata(path).map_err(unreadable)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let handle = options.open(path).map_err(unreadable)?;
    // The file may have been swapped between the stat and the open.
    let meta = handle.metadata().map_err(unreadable)?;
    check_regular(path, file, &meta)?;
    Ok((handle, meta.len()))
}

fn check_regular(path: &Path, file: InputFile, meta: &std::fs::Metadata) -> Result<(), InputError> {
    if meta.is_file() {
        return Ok(());
    }
    Err(InputError::NotRegular {
        what: file.what,
        path: path.display().to_string(),
        found: kind_of(meta),
    })
}

/// What a non-regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The whole of a regular file as bytes, refused when over the cap of its kind.
pub fn read_bytes(path: &Path, file: InputFile) -> Result<Vec<u8>, InputError> {
    let (handle, len) = open(path, file)?;
    let too_large = |size, more| InputError::TooLarge {
        file,
        path: path.display().to_string(),
        size,
        more,
    };
    if len > file.cap {
        return Err(too_large(len, false));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // One byte past the cap tells a file that grew while it was read.
    handle
        .take(file.cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::Unreadable {
            what: file.what,
            path: path.display().to_string(),
            reason: e.to_string(),
            kind: e.kind(),
        })?;
    if bytes.len() as u64 > file.cap {
        return Err(too_large(file.cap, true));
    }
    Ok(bytes)
}

/// The whole of a regular file as UTF-8 text, refused when over the cap of its kind.
pub fn read_text(path: &Path, file: InputFile) -> Result<String, InputError> {
    String::from_utf8(read_bytes(path, file)?).map_err(|e| InputError::NotText {
        what: file.what,
        path: path.display().to_string(),
        at: e.utf8_error().valid_up_to(),
    })
}

/// Hashes a regular file with FNV-1a ([`crate::vocabulary::hash::fnv1a`]) a block at a time,
/// so that memory does not depend on its size; refused when over the cap of its kind.
pub fn fnv1a_file(path: &Path, file: InputFile) -> Result<u64, InputError> {
    let (handle, len) = open(path, file)?;
    if len > file.cap {
        return Err(InputError::TooLarge {
            file,
            path: path.display().to_string(),
            size: len,
            more: false,
        });
    }
    let mut reader = std::io::BufReader::new(handle.take(file.cap + 1));
    let mut hash = crate::vocabulary::hash::FNV1A_START;
    let mut read = 0u64;
    loop {
        let block = reader.fill_buf().map_err(|e| InputError::Unreadable {
            what: file.what,
            path: path.display().to_string(),
            reason: e.to_string(),
            kind: e.kind(),
        })?;
        if block.is_empty() {
            break;
        }
        hash = crate::vocabulary::hash::fnv1a_continue(hash, block);
        read += block.len() as u64;
        let n = block.len();
        reader.consume(n);
    }
    if read > file.cap {
        return Err(InputError::TooLarge {
            file,
            path: path.display().to_string(),
            size: file.cap,
            more: true,
        });
    }
    Ok(hash)
}

/// One line of a file read line by line, each line under a cap.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its line ending.
    Text(String),
    /// A line longer than the cap: its bytes were skipped up to the next line.
    TooLong,
    /// A line that is not UTF-8 text.
    NotText,
}

/// The next line of `reader`, at most `cap` bytes kept; `None` at the end. A longer line is
/// skipped to its end without being held, so memory stays under the cap whatever the file.
pub fn next_line(reader: &mut impl BufRead, cap: u64) -> std::io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(cap + 1)
        .read_until(b'\n', &mut bytes)?;
    if read == 0 {
        return Ok(None);
    }
    let ended = bytes.last() == Some(&b'\n');
    if ended {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    if bytes.len() as u64 > cap {
        if !ended {
            skip_line(reader)?;
        }
        return Ok(Some(Line::TooLong));
    }
    Ok(Some(
        String::from_utf8(bytes).map_or(Line::NotText, Line::Text),
    ))
}

/// Skips the rest of a line, a buffer at a time.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            return Ok(());
        }
        match block.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = block.len();
                reader.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_for_a_person() {
        assert_eq!(Bytes(16 * MIB, false).to_string(), "16 MiB");
        assert_eq!(Bytes(1_234_567, false).to_string(), "1,234,567 bytes");
        assert_eq!(Bytes(999, true).to_string(), "more than 999 bytes");
    }

    #[test]
    fn lines_over_the_cap_are_skipped_whole() {
        let mut bytes = format!("short\r\n{}\nnext\n", "y".repeat(100)).into_bytes();
        bytes.push(0xff);
        let mut reader = std::io::BufReader::with_capacity(7, bytes.as_slice());
        let mut lines = Vec::new();
        while let Some(line) = next_line(&mut reader, 10).unwrap() {
            lines.push(line);
        }
        assert_eq!(
            lines,
            [
                Line::Text("short".into()),
                Line::TooLong,
                Line::Text("next".into()),
                Line::NotText
            ]
        );
    }

    #[test]
    fn streamed_hash_is_the_hash_of_the_bytes() {
        let path = std::env::temp_dir().join(format!("toybattle-input-{}", std::process::id()));
        let bytes: Vec<u8> = (0..20_000u32).map(|i| (i * 7) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = InputFile {
            what: "test file",
            cap: 20_000,
        };
        let hashed = fnv1a_file(&path, file);
        let over = fnv1a_file(
            &path,
            InputFile {
                cap: 19_999,
                ..file
            },
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(hashed, Ok(crate::vocabulary::hash::fnv1a(&bytes)));
        assert!(matches!(
            over,
            Err(InputError::TooLarge { size: 20_000, .. })
        ));
    }
}
