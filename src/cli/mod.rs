//! Subcommands of the command line; each returns `Err(message)` for the user, never panics.

pub mod analyze;
pub mod balance;
pub mod comparisons;
pub mod legal;
pub mod play;
pub mod position;
pub mod random_games;
pub mod replay;
pub mod review;
pub mod serve;
pub mod show;
pub mod terrains;
pub mod tournament;
#[cfg(feature = "train")]
pub mod train;
#[cfg(feature = "train")]
mod train_greedy;
#[cfg(feature = "train")]
mod train_playout;
#[cfg(feature = "train")]
mod train_policy;
#[cfg(feature = "train")]
mod train_rack;

/// What a subcommand returns: a message for the user on failure.
pub type CliResult = Result<(), String>;

use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use toybattle::rules::{Game, Troop, Variant};
use toybattle::terrain::{self, input, NodeKind, SpecialEffect, Terrain};

/// Parses `--max-turns`: the self-play turn cap, at least 1 (one rule for every command).
pub fn parse_max_turns(s: &str) -> Result<u16, String> {
    match s.parse::<u16>() {
        Ok(0) => Err("the turn cap must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("expected a number of turns from 1 to {}", u16::MAX)),
    }
}

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

/// A game record file and the game it was played on: the record parsed, its terrain loaded
/// (from `terrain_file` when given) and the terrain data checked against the record's
/// fingerprint, so that no command reads a record against data it was not played on.
pub fn load_record(
    path: &Path,
    terrain_file: Option<&Path>,
) -> Result<(toybattle::record::GameRecord, Game), String> {
    let name = path.display();
    let record: toybattle::record::GameRecord =
        serde_json::from_str(&read_text(path, input::RECORD)?)
            .map_err(|e| format!("{name} is not a game record: {e}"))?;
    let game = load_game(&record.terrain, terrain_file, record.variant)
        .and_then(|g| g.with_what_if(record.what_if).map_err(|e| e.to_string()))
        .map_err(|e| format!("{name}: {e}"))?;
    toybattle::record::check_fingerprint(&record, &game)
        .map_err(|e| format!("{name} does not replay: {e}"))?;
    if record.terrain_fingerprint.is_none() {
        // Accepted, since records written before fingerprints existed have none; but a user
        // must know that the terrain data was not checked.
        eprintln!(
            "note: {name} has no terrain_fingerprint (written before records had one, or \
             edited): the terrain data it was played on is not checked"
        );
    }
    Ok((record, game))
}

/// Reads a whole text file of a kind with a size cap (`terrain::input`), naming the file in
/// the error; a FIFO, device or directory is refused.
pub fn read_text(path: &Path, file: input::InputFile) -> Result<String, String> {
    input::read_text(path, file).map_err(|e| e.to_string())
}

/// Writes text to standard output. A closed pipe (`toybattle terrains | head`) is not an
/// error: the reader has all it wanted.
pub fn emit(text: &str) -> CliResult {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Prints a value as pretty JSON on standard output.
pub fn print_json<T: Serialize>(value: &T) -> CliResult {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| format!("cannot write JSON: {e}"))?;
    emit(&(text + "\n"))
}

/// Node ids joined by ", ", e.g. "15, 16, 20".
pub fn id_list(ids: &[u8]) -> String {
    ids.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
}

/// Printed values of the troops allowed on a node, in value order with Kwak (X) last, as the
/// rulebook prints them: "1, 2, X".
pub fn allowed_labels(allowed: &[Troop]) -> Vec<&'static str> {
    let mut troops = allowed.to_vec();
    troops.sort_by_key(|t| (*t == Troop::Kwak, t.index()));
    troops.iter().map(|t| t.value_label()).collect()
}

/// A node with a special effect or a value restriction.
#[derive(Serialize)]
pub struct SpecialNode {
    pub node: u8,
    /// "special", or "hq" for a restricted HQ (Tropical Pool).
    pub kind: &'static str,
    pub effect: &'static str,
    pub description: String,
    /// Printed values that may be placed here, when restricted.
    pub allowed: Option<Vec<&'static str>>,
}

/// Every node of a terrain that carries an effect, in id order.
pub fn special_nodes(terrain: &Terrain) -> Vec<SpecialNode> {
    terrain
        .nodes
        .iter()
        .filter_map(|n| {
            let effect = n.effect?;
            let allowed = n.allowed.as_deref().map(allowed_labels);
            Some(SpecialNode {
                node: n.id.get(),
                kind: if matches!(n.kind, NodeKind::Hq(_)) {
                    "hq"
                } else {
                    "special"
                },
                effect: effect.key(),
                description: effect_description(effect, allowed.as_deref()),
                allowed,
            })
        })
        .collect()
}

fn effect_description(effect: SpecialEffect, allowed: Option<&[&str]>) -> String {
    match (effect, allowed) {
        (SpecialEffect::ValueRestriction, Some(values)) => {
            format!("only {} may be placed", values.join(", "))
        }
        _ => effect.describe().to_string(),
    }
}

/// Special nodes grouped by identical description, in order of first appearance, as
/// ("15, 16, 20, 21", "return one of your top tiles to your rack"); HQs are written "HQ 2".
pub fn special_groups(terrain: &Terrain) -> Vec<(String, String)> {
    let mut groups: Vec<(Vec<String>, String)> = Vec::new();
    for s in special_nodes(terrain) {
        let label = match s.kind {
            "hq" => format!("HQ {}", s.node),
            _ => s.node.to_string(),
        };
        match groups.iter_mut().find(|(_, d)| *d == s.description) {
            Some((labels, _)) => labels.push(label),
            None => groups.push((vec![label], s.description)),
        }
    }
    groups
        .into_iter()
        .map(|(labels, d)| (labels.join(", "), d))
        .collect()
}

/// The game and state of a position file (docs/positions.md), with the terrains of
/// `--terrain-file` when given.
pub fn load_position(
    path: &Path,
    terrain_file: Option<&Path>,
) -> Result<(Game, toybattle::rules::State), String> {
    let position = toybattle::record::position::Position::parse(&read_text(path, input::POSITION)?)
        .map_err(|e| e.to_string())?;
    let terrains = match terrain_file {
        Some(f) => Some(terrain::load_terrain_file(f).map_err(|e| e.to_string())?),
        None => None,
    };
    position
        .to_game_state(terrains.as_deref())
        .map_err(|e| e.to_string())
}
