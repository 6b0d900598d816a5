//! Helpers shared by the examples that read tournament records.

use std::path::{Path, PathBuf};
use toybattle::record::GameRecord;
use toybattle::rules::Game;

/// The `.json` files under `dir`, one level of sub-folders deep (records/TERRAIN/*.json).
pub fn record_files(dir: &Path) -> Vec<PathBuf> {
    let entries = |d: &Path| -> Vec<PathBuf> {
        match std::fs::read_dir(d) {
            Ok(it) => it.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                eprintln!("{}: {e}", d.display());
                Vec::new()
            }
        }
    };
    let mut files: Vec<PathBuf> = entries(dir)
        .into_iter()
        .flat_map(|p| if p.is_dir() { entries(&p) } else { vec![p] })
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A record and its game, or why it cannot be read.
pub fn load_record(path: &Path) -> Result<(GameRecord, Game), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let record: GameRecord = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let game = Game::builtin(&record.terrain, record.variant).map_err(|e| e.to_string())?;
    Ok((record, game))
}
