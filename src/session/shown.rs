//! The deals whose hidden tiles have been shown, kept in the player's data folder so that no copy
//! of a game (a second save, a loaded save, the same seed drawn twice) can be played on with a
//! deal that a finished copy has shown (docs/play.md, "What you see, and what you do not").
//!
//! A game's end shows its deal: the page offers the record and the computer's candidates, the
//! terminal its `review`. Before that happens the session writes the deal's key here; every
//! other copy of the game then refuses to go on, in any process that reads the same folder (the
//! page's server and the terminal game alike).

use crate::rules::Deal;
use crate::vocabulary::hash::fnv1a;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file of shown deals inside the data folder: one deal key a line, 16 hex digits.
pub const SHOWN_DEALS_FILE: &str = "shown-deals.txt";

/// The environment variable that moves the data folder (tests, a portable install).
pub const DATA_FOLDER_VARIABLE: &str = "TOYBATTLE_DATA";

/// The player's data folder: `$TOYBATTLE_DATA`, else `$XDG_DATA_HOME/toybattle`, else
/// `$HOME/.local/share/toybattle`, else `toybattle-data` in the current folder. Saved games and
/// the shown deals live there.
pub fn data_folder() -> PathBuf {
    let from = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = from(DATA_FOLDER_VARIABLE) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = from("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("toybattle");
    }
    match from("HOME") {
        Some(home) => PathBuf::from(home).join(".local/share/toybattle"),
        None => PathBuf::from("toybattle-data"),
    }
}

/// A deal's identity: its removed tiles and both reserves' order, not its seed or who moves
/// first, since two games dealt the same tiles hide the same tiles whatever their terrain.
pub fn deal_key(deal: &Deal) -> u64 {
    let mut bytes = Vec::with_capacity(64);
    for colour in crate::rules::Colour::BOTH {
        for tiles in [&deal.removed[colour], &deal.reserve[colour]] {
            bytes.extend(tiles.iter().map(|t| t.index() as u8));
            bytes.push(0xff);
        }
    }
    fnv1a(&bytes)
}

/// Why the shown deals cannot be read or written; the file and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the list of shown deals {path} cannot be {action}: {reason}")]
pub struct ShownDealsError {
    /// The file.
    pub path: String,
    /// "read" or "written".
    pub action: &'static str,
    /// The system's reason.
    pub reason: String,
}

/// The shown deals: in a file of the data folder, shared by every process that names it, or in
/// memory (one process, for tests). Cloning shares the same list.
#[derive(Clone, Debug)]
pub struct ShownDeals {
    file: Option<PathBuf>,
    memory: Arc<Mutex<Known>>,
}

/// The keys known in this process, and how much of the file they include.
#[derive(Debug, Default)]
struct Known {
    keys: HashSet<u64>,
    /// The file's length when it was last read: it is read again only when it has grown, so
    /// that asking costs one `stat`.
    file_len: u64,
}

/// The most a shown-deals file is read: 17 bytes a game, about four million games.
const MAX_FILE_BYTES: u64 = 64 << 20;

impl ShownDeals {
    /// The list kept in `folder` (created when missing); checks now that it can be written, so
    /// that a game whose end could not be noted is never started.
    pub fn in_folder(folder: &Path) -> Result<ShownDeals, ShownDealsError> {
        let file = folder.join(SHOWN_DEALS_FILE);
        let shown = ShownDeals {
            file: Some(file.clone()),
            memory: Arc::default(),
        };
        std::fs::create_dir_all(folder)
            .and_then(|()| shown.open_for_append().map(drop))
            .map_err(|e| shown.error("written", e))?;
        Ok(shown)
    }

    /// A list held in this process only.
    pub fn in_memory() -> ShownDeals {
        ShownDeals {
            file: None,
            memory: Arc::default(),
        }
    }

    /// Whether `deal` has been shown (by this process or, for a file, by any).
    pub fn contains(&self, deal: &Deal) -> Result<bool, ShownDealsError> {
        let key = deal_key(deal);
        let mut known = self.lock();
        if known.keys.contains(&key) {
            return Ok(true);
        }
        self.read_new_lines(&mut known)?;
        Ok(known.keys.contains(&key))
    }

    /// Notes that `deal` is shown (idempotent).
    pub fn add(&self, deal: &Deal) -> Result<(), ShownDealsError> {
        let key = deal_key(deal);
        let mut known = self.lock();
        if !known.keys.insert(key) || self.file.is_none() {
            return Ok(());
        }
        let written = self
            .open_for_append()
            .and_then(|mut f| f.write_all(format!("{key:016x}\n").as_bytes()))
            .map_err(|e| self.error("written", e));
        if written.is_err() {
            known.keys.remove(&key);
        }
        written
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.memory.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One line a write, appended: lines of several processes never interleave.
    fn open_for_append(&self) -> std::io::Result<std::fs::File> {
        let path = self.file.as_ref().expect("only a file-backed list appends");
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    }

    /// Adds the file's keys to `known` when the file has changed length since it was read
    /// (nothing for a list in memory or a file not yet written).
    fn read_new_lines(&self, known: &mut Known) -> Result<(), ShownDealsError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let len = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(self.error("read", e)),
            Ok(m) => m.len(),
        };
        if len == known.file_len {
            return Ok(());
        }
        if len > MAX_FILE_BYTES {
            return Err(self.error(
                "read",
                format!("it has {len} bytes, more than {MAX_FILE_BYTES}"),
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| self.error("read", e))?;
        // A line cut by a crash or written by hand is ignored: it names no deal.
        known.keys.extend(
            text.lines()
                .filter_map(|l| u64::from_str_radix(l.trim(), 16).ok()),
        );
        known.file_len = text.len() as u64;
        Ok(())
    }

    fn error(&self, action: &'static str, reason: impl ToString) -> ShownDealsError {
        ShownDealsError {
            path: self
                .file
                .as_ref()
                .map_or("(in memory)".into(), |p| p.display().to_string()),
            action,
            reason: reason.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deal_shown_in_one_list_is_seen_by_another_on_the_same_folder() {
        let dir = std::env::temp_dir().join(format!("toybattle-shown-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = ShownDeals::in_folder(&dir).unwrap();
        let b = ShownDeals::in_folder(&dir).unwrap();
        let deal = Deal::from_seed(5);
        assert!(!b.contains(&deal).unwrap());
        a.add(&deal).unwrap();
        a.add(&deal).unwrap();
        assert!(b.contains(&deal).unwrap());
        assert!(!b.contains(&Deal::from_seed(6)).unwrap());
        let text = std::fs::read_to_string(dir.join(SHOWN_DEALS_FILE)).unwrap();
        assert_eq!(text.lines().count(), 1, "a deal is noted once");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn who_moves_first_does_not_change_a_deals_key() {
        let deal = Deal::from_seed(9);
        let other_first = deal.with_first(deal.first.opponent());
        assert_eq!(deal_key(&deal), deal_key(&other_first));
        assert_ne!(deal_key(&deal), deal_key(&Deal::from_seed(10)));
    }
}
