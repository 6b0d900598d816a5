//! Subcommands of the command line; each returns `Err(message)` for the user, never panics.

pub mod analyze;
pub mod legal;
pub mod random_games;
pub mod replay;
pub mod show;
pub mod terrains;
pub mod tournament;

/// What a subcommand returns: a message for the user on failure.
pub type CliResult = Result<(), String>;

use std::path::Path;
use std::sync::Arc;
use toybattle::rules::{Game, Variant};
use toybattle::terrain::{self, Terrain};

/// The terrains a user can name: the eight shipped ones, or those of `--terrain-file`.
pub fn available_terrains(terrain_file: Option<&Path>) -> Result<Vec<Arc<Terrain>>, String> {
    match terrain_file {
        Some(path) => Ok(terrain::load_terrain_file(path)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(Arc::new)
            .collect()),
        None => Ok(terrain::builtin_terrains()
            .iter()
            .cloned()
            .map(Arc::new)
            .collect()),
    }
}

/// Terrains from a spec: "all", or a comma-separated list of keys or names.
pub fn select_terrains(
    spec: &str,
    terrain_file: Option<&Path>,
) -> Result<Vec<Arc<Terrain>>, String> {
    let all = available_terrains(terrain_file)?;
    if spec.eq_ignore_ascii_case("all") {
        return Ok(all);
    }
    let plain: Vec<Terrain> = all.iter().map(|t| (**t).clone()).collect();
    spec.split(',')
        .map(|name| {
            terrain::find(&plain, name.trim())
                .map(|t| Arc::new(t.clone()))
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The game of one named terrain and a variant.
pub fn load_game(
    terrain: &str,
    terrain_file: Option<&Path>,
    variant: Variant,
) -> Result<Game, String> {
    let mut list = select_terrains(terrain, terrain_file)?;
    match list.len() {
        1 => Ok(Game::new(list.remove(0), variant)),
        _ => Err(format!("expected one terrain, got '{terrain}'")),
    }
}
