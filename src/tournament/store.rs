//! The run folder on disk: `run.json`, the append-only `games.jsonl`, and the records.
//!
//! Crash safety: a finished game is first written as its record file (to a temporary name,
//! then renamed), then announced by one line of `games.jsonl`, written with a single `write`
//! and flushed to disk (`fsync`) before the next game is counted. A `kill -9` can therefore
//! leave at most a torn last line, which [`read_games`] detects, reports with its line number
//! and cuts off (the game is simply played again), and at most a record file without its line,
//! which the replayed game overwrites.

use super::config::{RunConfig, RUN_FORMAT};
use super::lock::LOCK_FILE;
use super::summary::SprtSummary;
use crate::record::GameRecord;
use crate::rules::{Colour, Variant};
use crate::terrain::input;
use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The settings file of a run folder.
pub const RUN_FILE: &str = "run.json";
/// The list of finished games of a run folder, one JSON line per game.
pub const GAMES_FILE: &str = "games.jsonl";
/// The folder of a run's game records.
pub const RECORDS_DIR: &str = "records";
/// The SPRT decision that stopped a run (`--sprt`), kept so that a resume reports that
/// decision and plays no game past it.
pub const SPRT_FILE: &str = "sprt.json";
/// The format tag of `sprt.json`.
pub const SPRT_FORMAT: &str = "toybattle-sprt-stop/1";

/// Why a run folder's files cannot be read, written or trusted; each message names the file
/// (and line) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A file or folder that cannot be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file or folder.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// A line of `games.jsonl` before the last that is no game line.
    #[error("{path} line {line}: not a game line ({reason}); the file was edited or damaged")]
    NotAGameLine {
        /// The games file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What the JSON reader found wrong.
        reason: String,
    },
    /// A game line of another run (other settings) in the folder's games file.
    #[error("{path} line {line}: game of run {found}, but this folder's run is {expected}")]
    OtherRun {
        /// The games file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// The run id on the line.
        found: String,
        /// The run id of the folder's settings.
        expected: String,
    },
    /// A game counted twice.
    #[error("{path} line {line}: game {game} of deal {deal} is already on line {first}")]
    CountedTwice {
        /// The games file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// The deal's position in the run.
        deal: usize,
        /// 0 or 1: which game of the deal's pair.
        game: u8,
        /// The line that counted it first.
        first: usize,
    },
    /// A `run.json` that is not the settings of a run.
    #[error("{path}: not the settings of a tournament run: {reason}")]
    NotRunSettings {
        /// The settings file.
        path: String,
        /// What the JSON reader found wrong.
        reason: String,
    },
    /// A `run.json` of another format.
    #[error("{path}: format '{found}', expected '{RUN_FORMAT}'")]
    RunFormat {
        /// The settings file.
        path: String,
        /// The format it names.
        found: String,
    },
    /// A folder holding a run with other settings.
    #[error(
        "{dir} holds a run with different settings ({}); use another --out folder or the same \
         settings",
        .differences.join("; ")
    )]
    Settings {
        /// The run folder.
        dir: String,
        /// Each differing setting, as "name: value now, value in run.json".
        differences: Vec<String>,
    },
    /// A `sprt.json` that is not the SPRT decision of this folder's run.
    #[error(
        "{path}: not the SPRT decision of this run ({reason}); the file was edited or damaged \
         (delete it to have the decision found again from games.jsonl)"
    )]
    NotSprtStop {
        /// The decision file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A folder with other files and no run settings.
    #[error(
        "{dir} is not empty and holds no {RUN_FILE}: refusing to mix a tournament with other \
         files; choose an empty or new --out folder"
    )]
    NotEmpty {
        /// The folder.
        dir: String,
    },
}

impl StoreError {
    /// A file or folder that could not be read or written.
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> StoreError {
        StoreError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        }
    }
}

/// One finished game, as one line of `games.jsonl`. Per-colour arrays are (blue, red).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// Run id: hash of the unsharded settings.
    pub run: String,
    /// Position of the deal in the run's global ordered list.
    pub position: usize,
    /// The pairing's bots; `a` is the one reported on.
    pub a: String,
    /// The opponent of `a`.
    pub b: String,
    /// The terrain's key.
    pub terrain: String,
    /// Normal game or beginner variant.
    pub variant: Variant,
    /// The seed of the deal both games of the pair are played on.
    pub deal_seed: u64,
    /// Deal index within pairing and terrain.
    pub pair: u32,
    /// 0: `a` plays blue; 1: `b` plays blue.
    pub game: u8,
    /// The bot playing blue.
    pub blue: String,
    /// The bot playing red.
    pub red: String,
    /// The colour moving first (fixed by the deal).
    pub first: Colour,
    /// The bot on that colour.
    pub first_bot: String,
    /// The winning bot; `None` when the turn cap stopped the game.
    pub winner: Option<String>,
    /// The winning colour; `None` when the turn cap stopped the game.
    pub winner_colour: Option<Colour>,
    /// "hq", "medals", "blocked", "turn_cap" or "forfeit".
    pub end: String,
    /// Why the loser forfeited, when known (external bot failures).
    pub forfeit_reason: Option<String>,
    /// Turns played.
    pub turns: u16,
    /// Medals at the end (blue, red).
    pub medals: [u8; 2],
    /// Decisions taken by each colour (blue, red).
    pub decisions: [u32; 2],
    /// Total thinking time in milliseconds.
    pub think_ms: [f64; 2],
    /// Bot versions.
    pub versions: [String; 2],
    /// The record file, relative to the run folder; empty (and left out of the line) for a
    /// game the run keeps no record of (`--no-records`, `--records-sample`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub record: String,
}

/// Identifies a game within a run.
pub type GameKey = (usize, u8);

impl GameLine {
    /// The game's place in the run: deal position and game of the pair.
    pub fn key(&self) -> GameKey {
        (self.position, self.game)
    }

    /// The score of bot `a`: 1 win, 0.5 turn cap, 0 loss. In self-play (`a` is `b`) the bot's
    /// score against itself would be every game won, so it is the score of the player moving
    /// first: the pairing then measures the first-player advantage.
    pub fn score_a(&self) -> f64 {
        match &self.winner {
            None => 0.5,
            Some(_) if self.a == self.b => {
                f64::from(u8::from(self.winner_colour == Some(self.first)))
            }
            Some(w) if *w == self.a => 1.0,
            Some(_) => 0.0,
        }
    }

    /// Whether a bot played itself (a balance study's self-play).
    pub fn is_self_play(&self) -> bool {
        self.a == self.b
    }
}

/// A torn last line that was cut off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornLine {
    /// Its line number, from 1.
    pub line: usize,
    /// Its length in bytes.
    pub bytes: usize,
}

/// The games of a `games.jsonl`, with its torn last line if any.
#[derive(Debug, Default)]
pub struct GamesFile {
    /// The game lines before any torn line.
    pub games: Vec<GameLine>,
    /// The torn last line, if the last write was interrupted.
    pub torn: Option<TornLine>,
    /// Length in bytes of the valid part (everything before a torn line).
    pub valid_len: u64,
}

/// The longest line [`each_game`] reads: a game line is about 520 bytes, so a longer one is
/// damage, and reading it whole would take memory without bound.
pub const MAX_GAME_LINE: usize = 1 << 20;

/// Reads `games.jsonl` one line at a time, handing each game and its line number (from 1) to
/// `visit`, so that memory does not grow with the games (a 640,000-game study is 330 MB of
/// lines). The checks are those of [`read_games`] but one: a torn last line is returned, not
/// visited; an unreadable line before the last, a line of another run, or a line longer than
/// [`MAX_GAME_LINE`] is an error naming the line. A game counted twice is left to the caller,
/// which knows the run's deals and so needs no table of every game read (the balance report
/// keeps one bit a game). A missing file has no games.
pub fn each_game(
    path: &Path,
    run_id: &str,
    mut visit: impl FnMut(usize, GameLine),
) -> Result<Option<TornLine>, StoreError> {
    use std::io::{BufRead, Read};
    let handle = match input::open(path, input::GAME_LIST) {
        Ok((handle, _)) => handle,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, handle);
    let mut line = Vec::new();
    let path_text = || path.display().to_string();
    for line_no in 1.. {
        line.clear();
        (&mut reader)
            .take(MAX_GAME_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| StoreError::io(path, e))?;
        if line.is_empty() {
            break;
        }
        let complete = line.ends_with(b"\n");
        if !complete && line.len() > MAX_GAME_LINE {
            return Err(StoreError::NotAGameLine {
                path: path_text(),
                line: line_no,
                reason: format!("longer than {MAX_GAME_LINE} bytes"),
            });
        }
        let last = reader
            .fill_buf()
            .map_err(|e| StoreError::io(path, e))?
            .is_empty();
        match parse_game_line(&line) {
            Ok(g) => {
                check_run(&g, run_id, path, line_no)?;
                visit(line_no, g);
            }
            Err(_) if last => {
                return Ok(Some(TornLine {
                    line: line_no,
                    bytes: line.len(),
                }))
            }
            Err(reason) => {
                return Err(StoreError::NotAGameLine {
                    path: path_text(),
                    line: line_no,
                    reason,
                })
            }
        }
    }
    Ok(None)
}

/// One line of `games.jsonl` (with its newline) as a game, or why it is not one.
fn parse_game_line(line: &[u8]) -> Result<GameLine, String> {
    let text = std::str::from_utf8(line).map_err(|e| e.to_string())?;
    let game = serde_json::from_str::<GameLine>(text.trim_end()).map_err(|e| e.to_string())?;
    match line.ends_with(b"\n") {
        true => Ok(game),
        false => Err("the line has no end".to_string()),
    }
}

/// A game line of another run is an error naming the line: two runs' games never mix.
fn check_run(game: &GameLine, run_id: &str, path: &Path, line: usize) -> Result<(), StoreError> {
    match game.run == run_id {
        true => Ok(()),
        false => Err(StoreError::OtherRun {
            path: path.display().to_string(),
            line,
            found: game.run.clone(),
            expected: run_id.into(),
        }),
    }
}

/// Reads `games.jsonl`. A last line that is incomplete (no final newline) or unreadable is
/// reported in `torn`; an unreadable line before the last, a line of another run or a game
/// counted twice is an error naming the line. A missing file has no games.
pub fn read_games(path: &Path, run_id: &str) -> Result<GamesFile, StoreError> {
    let text = match input::read_bytes(path, input::GAME_LIST) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return Ok(GamesFile::default()),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let mut out = GamesFile::default();
    let mut seen = std::collections::HashMap::new();
    let mut offset = 0usize;
    let chunks: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let line_no = i + 1;
        let path_text = || path.display().to_string();
        match parse_game_line(chunk) {
            Ok(g) => {
                check_run(&g, run_id, path, line_no)?;
                if let Some(first) = seen.insert(g.key(), line_no) {
                    return Err(StoreError::CountedTwice {
                        path: path_text(),
                        line: line_no,
                        deal: g.position,
                        game: g.game,
                        first,
                    });
                }
                out.games.push(g);
            }
            Err(_) if i + 1 == chunks.len() => {
                out.torn = Some(TornLine {
                    line: line_no,
                    bytes: chunk.len(),
                });
                break;
            }
            Err(reason) => {
                return Err(StoreError::NotAGameLine {
                    path: path_text(),
                    line: line_no,
                    reason,
                })
            }
        }
        offset += chunk.len();
    }
    out.valid_len = offset as u64;
    Ok(out)
}

/// Cuts a torn last line off `games.jsonl` so that appends start on a fresh line.
pub fn cut_torn_line(path: &Path, file: &GamesFile) -> Result<(), StoreError> {
    if file.torn.is_some() {
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| StoreError::io(path, e))?;
        f.set_len(file.valid_len)
            .and_then(|()| f.sync_all())
            .map_err(|e| StoreError::io(path, e))?;
    }
    Ok(())
}

/// Appends game lines, one `write` and one `fsync` per game.
pub struct GamesWriter {
    path: PathBuf,
    file: Mutex<File>,
}

impl GamesWriter {
    /// Opens (or creates) the games file for appending.
    pub fn open(path: &Path) -> Result<GamesWriter, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| StoreError::io(path, e))?;
        Ok(GamesWriter {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Appends one game's line and flushes it to disk before returning.
    pub fn append(&self, game: &GameLine) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(game).map_err(|e| StoreError::io(&self.path, e))?;
        line.push('\n');
        let mut f = self
            .file
            .lock()
            .map_err(|_| StoreError::io(&self.path, "a writer thread panicked"))?;
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| StoreError::io(&self.path, e))
    }
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename, so that a
/// reader never sees half a file.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| StoreError::io(path, e))?;
    write_atomic(path, text.as_bytes())
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a reader never sees half a file; creates the folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    }
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| StoreError::io(path, e))
}

/// The record path of a game, relative to the run folder:
/// `records/<terrain>/<a>-vs-<b>-<pair>-<game>.json` (names made file-safe).
pub fn record_path(terrain: &str, a: &str, b: &str, pair: u32, game: u8) -> String {
    format!(
        "{RECORDS_DIR}/{}/{}-vs-{}-{pair:04}-{game}.json",
        file_safe(terrain),
        file_safe(a),
        file_safe(b)
    )
}

/// The name a bot's records and logs carry: its file name without extension (for a preset or
/// an external program), made file-safe.
pub fn record_name(bot: &str) -> String {
    file_safe(bot)
}

fn file_safe(name: &str) -> String {
    let name = Path::new(name.trim_start_matches("ext:"))
        .file_stem()
        .map_or(name.to_string(), |s| s.to_string_lossy().into_owned());
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes a game's record at `rel` in run folder `dir`, atomically.
pub fn write_record(dir: &Path, rel: &str, record: &GameRecord) -> Result<(), StoreError> {
    write_json_atomic(&dir.join(rel), record)
}

/// `sprt.json`: the run it belongs to and the decision that stopped it.
#[derive(Serialize, Deserialize)]
struct SprtStopFile {
    format: String,
    run: String,
    stop: SprtSummary,
}

/// Reads the SPRT decision that stopped run `run` (its id) from its folder `dir`, or `None`
/// when the folder keeps none.
pub fn read_sprt_stop(dir: &Path, run: &str) -> Result<Option<SprtSummary>, StoreError> {
    let path = dir.join(SPRT_FILE);
    let text = match input::read_text(&path, input::RUN_SETTINGS) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(StoreError::io(&path, e)),
    };
    let bad = |reason: String| StoreError::NotSprtStop {
        path: path.display().to_string(),
        reason,
    };
    let file: SprtStopFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if file.format != SPRT_FORMAT {
        return Err(bad(format!(
            "format '{}', expected '{SPRT_FORMAT}'",
            file.format
        )));
    }
    if file.run != run {
        return Err(bad(format!(
            "decision of run {}, but this folder's run is {run}",
            file.run
        )));
    }
    Ok(Some(file.stop))
}

/// Keeps `stop`, the SPRT decision that stopped run `run`, in its folder `dir`.
pub fn write_sprt_stop(dir: &Path, run: &str, stop: &SprtSummary) -> Result<(), StoreError> {
    let file = SprtStopFile {
        format: SPRT_FORMAT.into(),
        run: run.into(),
        stop: stop.clone(),
    };
    write_json_atomic(&dir.join(SPRT_FILE), &file)
}

/// Reads `run.json`, or `None` when the folder has none.
pub fn read_run(dir: &Path) -> Result<Option<RunConfig>, StoreError> {
    let path = dir.join(RUN_FILE);
    let text = match input::read_text(&path, input::RUN_SETTINGS) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(StoreError::io(&path, e)),
    };
    let config: RunConfig =
        serde_json::from_str(&text).map_err(|e| StoreError::NotRunSettings {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    if config.format != RUN_FORMAT {
        return Err(StoreError::RunFormat {
            path: path.display().to_string(),
            found: config.format,
        });
    }
    Ok(Some(config))
}

/// Prepares the run folder: a new or empty folder gets `run.json`; a folder of the same run is
/// resumed; anything else is refused with the differing settings named.
pub fn open_run_dir(dir: &Path, config: &RunConfig) -> Result<(), StoreError> {
    match read_run(dir)? {
        Some(stored) if stored == *config => Ok(()),
        Some(stored) => Err(StoreError::Settings {
            dir: dir.display().to_string(),
            differences: config
                .differences(&stored)
                .into_iter()
                .map(|d| d.replacen(" vs ", " now, ", 1) + " in run.json")
                .collect(),
        }),
        None => {
            let non_empty = fs::read_dir(dir)
                .map(|d| d.flatten().any(|e| e.file_name() != LOCK_FILE))
                .unwrap_or(false);
            if non_empty {
                return Err(StoreError::NotEmpty {
                    dir: dir.display().to_string(),
                });
            }
            write_json_atomic(&dir.join(RUN_FILE), config)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A game line of bots `a` (blue, the winner) and `b` for other modules' tests too.
    pub(crate) fn line(position: usize, game: u8) -> GameLine {
        GameLine {
            run: "r".into(),
            position,
            a: "a".into(),
            b: "b".into(),
            terrain: "castle_field".into(),
            variant: Variant::Normal,
            deal_seed: 1,
            pair: 0,
            game,
            blue: "a".into(),
            red: "b".into(),
            first: Colour::Blue,
            first_bot: "a".into(),
            winner: Some("a".into()),
            winner_colour: Some(Colour::Blue),
            end: "hq".into(),
            forfeit_reason: None,
            turns: 20,
            medals: [0, 0],
            decisions: [10, 10],
            think_ms: [1.0, 1.0],
            versions: ["1".into(), "1".into()],
            record: "records/x.json".into(),
        }
    }

    fn file_with(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join(GAMES_FILE);
        fs::write(&p, text).unwrap();
        p
    }

    fn json(g: &GameLine) -> String {
        serde_json::to_string(g).unwrap() + "\n"
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("toybattle-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn torn_last_line_is_reported_and_cut() {
        let d = temp_dir("torn");
        let whole = json(&line(0, 0)) + &json(&line(0, 1));
        let p = file_with(&d, &format!("{whole}{}", &json(&line(1, 0))[..30]));
        let f = read_games(&p, "r").unwrap();
        assert_eq!(f.games.len(), 2);
        assert_eq!(f.torn, Some(TornLine { line: 3, bytes: 30 }));
        cut_torn_line(&p, &f).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), whole);
        fs::remove_dir_all(d).unwrap();
    }

    /// The streaming reader finds what `read_games` finds, one line at a time: the same games
    /// with their lines, the same torn last line and the same errors (but a game counted twice,
    /// left to its caller); and it refuses an endless line instead of reading it whole.
    #[test]
    fn each_game_streams_the_games_read_games_reads() {
        let d = temp_dir("each");
        let whole = json(&line(0, 0)) + &json(&line(0, 1));
        let p = file_with(&d, &format!("{whole}{}", &json(&line(1, 0))[..30]));
        let mut seen = Vec::new();
        let torn = each_game(&p, "r", |n, g| seen.push((n, g))).unwrap();
        let games = read_games(&p, "r").unwrap().games;
        assert_eq!(seen, vec![(1, games[0].clone()), (2, games[1].clone())]);
        assert_eq!(torn, Some(TornLine { line: 3, bytes: 30 }));
        let p = file_with(
            &d,
            &format!("{}garbage\n{}", json(&line(0, 0)), json(&line(0, 1))),
        );
        let e = each_game(&p, "r", |_, _| ()).unwrap_err();
        assert_eq!(e, read_games(&p, "r").unwrap_err());
        let e = each_game(&p, "other", |_, _| ()).unwrap_err();
        assert!(matches!(e, StoreError::OtherRun { line: 1, .. }), "{e:?}");
        let p = file_with(
            &d,
            &(json(&line(0, 0)) + &"x".repeat(MAX_GAME_LINE + 10) + "\n"),
        );
        let e = each_game(&p, "r", |_, _| ()).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 2: not a game line (longer than"),
            "{e}"
        );
        assert_eq!(each_game(&d.join("none"), "r", |_, _| ()).unwrap(), None);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn corrupt_middle_line_and_duplicates_are_errors_naming_the_line() {
        let d = temp_dir("corrupt");
        let p = file_with(
            &d,
            &format!("{}garbage\n{}", json(&line(0, 0)), json(&line(0, 1))),
        );
        let e = read_games(&p, "r").unwrap_err();
        assert!(
            matches!(e, StoreError::NotAGameLine { line: 2, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("line 2"), "{e}");
        let p = file_with(&d, &format!("{}{}", json(&line(0, 0)), json(&line(0, 0))));
        let e = read_games(&p, "r").unwrap_err();
        assert!(
            matches!(
                e,
                StoreError::CountedTwice {
                    line: 2,
                    first: 1,
                    deal: 0,
                    game: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("line 2") && e.contains("line 1"), "{e}");
        let e = read_games(&p, "other").unwrap_err();
        assert!(
            matches!(&e, StoreError::OtherRun { line: 1, found, expected, .. }
                if found == "r" && expected == "other"),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("line 1") && e.contains("run r"), "{e}");
        fs::remove_dir_all(d).unwrap();
    }

    /// The decision that stopped a run is read back as written; a `sprt.json` of another run,
    /// another format or no decision at all is refused naming the file and what is wrong.
    #[test]
    fn an_sprt_decision_is_kept_and_one_that_is_not_this_runs_is_refused() {
        let d = temp_dir("sprt-file");
        assert_eq!(read_sprt_stop(&d, "r").unwrap(), None);
        let params = "0,50".parse().unwrap();
        let mut p = crate::tournament::stats::Pentanomial::default();
        p.add_pair(1.0, 1.0);
        let stop = SprtSummary::of(params, &p);
        write_sprt_stop(&d, "r", &stop).unwrap();
        assert_eq!(read_sprt_stop(&d, "r").unwrap(), Some(stop));
        let e = read_sprt_stop(&d, "other").unwrap_err().to_string();
        assert!(
            e.contains(SPRT_FILE)
                && e.contains("decision of run r, but this folder's run is other"),
            "{e}"
        );
        let text = fs::read_to_string(d.join(SPRT_FILE)).unwrap();
        fs::write(
            d.join(SPRT_FILE),
            text.replace(SPRT_FORMAT, "toybattle-sprt-stop/9"),
        )
        .unwrap();
        let e = read_sprt_stop(&d, "r").unwrap_err().to_string();
        assert!(e.contains("format 'toybattle-sprt-stop/9'"), "{e}");
        fs::write(d.join(SPRT_FILE), "{}").unwrap();
        let e = read_sprt_stop(&d, "r").unwrap_err();
        assert!(matches!(e, StoreError::NotSprtStop { .. }), "{e:?}");
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn run_folders_that_cannot_be_trusted_are_refused_by_kind() {
        let d = temp_dir("run-file");
        let config = crate::tournament::config::tests::sample();
        // A folder with other files and no settings.
        fs::write(d.join("notes.txt"), "mine").unwrap();
        let e = open_run_dir(&d, &config).unwrap_err();
        assert!(matches!(e, StoreError::NotEmpty { .. }), "{e:?}");
        fs::remove_file(d.join("notes.txt")).unwrap();
        // Settings of another run.
        open_run_dir(&d, &config).unwrap();
        let other = RunConfig {
            seed: 2,
            ..config.clone()
        };
        let e = open_run_dir(&d, &other).unwrap_err();
        assert!(
            matches!(&e, StoreError::Settings { differences, .. }
                if differences == &["seed: 2 now, 1 in run.json"]),
            "{e:?}"
        );
        // A run.json that is not settings, or of another format.
        fs::write(d.join(RUN_FILE), "{}").unwrap();
        let e = read_run(&d).unwrap_err();
        assert!(matches!(e, StoreError::NotRunSettings { .. }), "{e:?}");
        let mut json = serde_json::to_value(&config).unwrap();
        json["format"] = "toybattle-tournament/9".into();
        fs::write(d.join(RUN_FILE), json.to_string()).unwrap();
        let e = read_run(&d).unwrap_err();
        assert!(
            matches!(&e, StoreError::RunFormat { found, .. } if found == "toybattle-tournament/9"),
            "{e:?}"
        );
        // A games file that is a folder.
        let e = read_games(&d, "r").unwrap_err();
        assert!(matches!(e, StoreError::Io { .. }), "{e:?}");
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn record_paths_are_file_safe() {
        assert_eq!(
            record_path("castle_field", "ext:/tmp/my bot.py", "ismcts-1s", 3, 1),
            "records/castle_field/my_bot-vs-ismcts-1s-0003-1.json"
        );
    }
}
