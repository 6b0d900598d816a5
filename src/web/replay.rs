//! The replay viewer's data: a record re-checked by the rules, then its public positions step by
//! step.

use super::view::{DecisionView, PositionView, TerrainView};
use crate::info::Observation;
use crate::record::{
    check_fingerprint, describe_rules, replay, GameRecord, RecordResult, RECORD_FORMAT,
};
use crate::rules::{Colour, Decision, Game, Phase};
use serde::Serialize;
use std::sync::Arc;

/// Why an uploaded file cannot be watched, in words for the page.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// The file is not JSON; the reader's message.
    #[error("this file is not JSON: {0}")]
    NotJson(String),
    /// JSON without a `format` field, or not of a record's shape; what is wrong.
    #[error("this JSON is not a game record ({RECORD_FORMAT}): {0}")]
    NotRecord(String),
    /// A file of another toybattle format; its format tag.
    #[error("this file is a '{0}', not a game record ({RECORD_FORMAT})")]
    OtherFormat(String),
    /// The record's terrain key is none of the server's terrains; the key, quoted.
    #[error("the record's terrain is not known: {0}")]
    Terrain(String),
    /// The record's rules parameters (what-ifs) cannot be played on its terrain; why.
    #[error("the record's rules cannot be played: {0}")]
    WhatIf(String),
    /// The record's deal or a step is refused by the rules; the replay's message.
    #[error("the record does not replay: {0}")]
    Replay(String),
}

/// One step of a replay: who took it and what it was, in words everyone may read.
#[derive(Serialize)]
pub struct ReplayStep {
    /// "blue", "red", or "chance".
    pub by: &'static str,
    /// The step's notation; a draw's tile is named, as the record (held by the viewer) names it.
    pub text: String,
    /// Node ids the step acted on, to highlight: a placement's, discard's or return's node,
    /// a move's origin and destination.
    pub nodes: Vec<u8>,
}

/// A record ready to watch: the positions before the first step and after every step.
#[derive(Serialize)]
pub struct Replay {
    /// The terrain, to draw.
    pub terrain: TerrainView,
    /// "normal" or "beginner".
    pub variant: String,
    /// The rules parameters the game was played under, in words: "retail rules", or the
    /// what-ifs of a balance study (medal objective, tiles removed, racks, restricted bases).
    pub rules: String,
    /// The seed that dealt the game, as recorded, in decimal: as text, since a JavaScript
    /// number keeps only 53 of its 64 bits.
    pub seed: String,
    /// Who played blue and red, as recorded: a preset name or a description.
    pub players: [String; 2],
    /// How the game ended, as recorded.
    pub result: RecordResult,
    /// Every step of the record, in order.
    pub steps: Vec<ReplayStep>,
    /// `positions[0]` is the start; `positions[i + 1]` follows `steps[i]`.
    pub positions: Vec<PositionView>,
}

/// Reads a record file's text and re-checks it as `toybattle replay` does: its game (terrain,
/// variant and what-ifs) and the record, which replays under the rules.
pub fn read_record(
    text: &str,
    terrains: &[Arc<crate::terrain::Terrain>],
) -> Result<(Game, GameRecord), ViewerError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ViewerError::NotJson(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(RECORD_FORMAT) => {}
        Some(other) => return Err(ViewerError::OtherFormat(other.to_string())),
        None => return Err(ViewerError::NotRecord("it has no \"format\" field".into())),
    }
    let record: GameRecord =
        serde_json::from_value(value).map_err(|e| ViewerError::NotRecord(e.to_string()))?;
    let terrain = terrains
        .iter()
        .find(|t| t.key == record.terrain)
        .ok_or_else(|| ViewerError::Terrain(format!("'{}'", record.terrain)))?;
    let game = Game::new(terrain.clone(), record.variant)
        .with_what_if(record.what_if)
        .map_err(|e| ViewerError::WhatIf(e.to_string()))?;
    check_fingerprint(&record, &game).map_err(|e| ViewerError::Replay(e.to_string()))?;
    replay(&game, &record).map_err(|e| ViewerError::Replay(e.to_string()))?;
    Ok((game, record))
}

/// Reads and re-checks a record file's text and lays out its public positions.
pub fn replay_record(
    text: &str,
    terrains: &[Arc<crate::terrain::Terrain>],
) -> Result<Replay, ViewerError> {
    let (game, record) = read_record(text, terrains)?;
    let mut state = game.initial_state(&record.deal);
    let public =
        |s: &crate::rules::State| PositionView::public(&game, &Observation::new(s, Colour::Blue));
    let mut positions = vec![public(&state)];
    let mut steps = Vec::with_capacity(record.steps.len());
    for step in &record.steps {
        // The record replayed above, so every step parses and is legal.
        let d = Decision::parse(step, game.terrain())
            .map_err(|e| ViewerError::Replay(e.to_string()))?;
        let by = match state.phase() {
            Phase::Chance(_) => "chance",
            _ => state.active().name(),
        };
        let shown = DecisionView::of(d, game.terrain());
        steps.push(ReplayStep {
            by,
            text: step.clone(),
            nodes: shown.node.into_iter().chain(shown.to).collect(),
        });
        game.apply(&mut state, d)
            .map_err(|e| ViewerError::Replay(e.to_string()))?;
        positions.push(public(&state));
    }
    // The medal bars read the objective from the terrain: a what-if may have changed it.
    let terrain = TerrainView {
        medals_to_win: game.medals_to_win(),
        ..TerrainView::of(game.terrain())
    };
    Ok(Replay {
        terrain,
        variant: record.variant.to_string(),
        rules: describe_rules(game.what_if()),
        seed: record.seed.to_string(),
        players: record.players,
        result: record.result,
        steps,
        positions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terrains() -> Vec<Arc<crate::terrain::Terrain>> {
        crate::terrain::builtin_terrains()
            .iter()
            .cloned()
            .map(Arc::new)
            .collect()
    }

    /// The record of greedy (blue) against random on `game`, dealt from `seed` by its rules.
    fn record_of(game: &Game, seed: u64) -> GameRecord {
        use crate::bot::play::{play_game, PlayConfig};
        use crate::bot::preset::resolve;
        let (mut a, mut b) = (
            resolve("greedy").unwrap().player(),
            resolve("random").unwrap().player(),
        );
        let deal = game.deal(seed);
        play_game(game, &deal, &mut [&mut a, &mut b], &PlayConfig::default()).record
    }

    /// Every position shows only public tiles: no rack shows more than the public ones, and
    /// the opening racks are unseen.
    fn assert_public(r: &Replay) {
        for p in &r.positions {
            assert!(p.sides.iter().all(|s| s.rack.len() <= s.rack_len as usize));
        }
        assert_eq!(r.positions[0].sides[0].rack, Vec::new());
        assert_eq!(r.positions[0].sides[1].rack, Vec::new());
    }

    #[test]
    fn a_record_of_two_bots_as_tournaments_write_it_steps_through_public_positions() {
        let game = Game::builtin("cursed_cemetery", crate::rules::Variant::Normal).unwrap();
        let record = record_of(&game, 4);
        let text = serde_json::to_string(&record).unwrap();
        let r = replay_record(&text, &terrains()).unwrap();
        assert_eq!(r.steps.len(), record.steps.len());
        assert_eq!(r.positions.len(), r.steps.len() + 1);
        assert_eq!(r.players, ["greedy".to_string(), "random".to_string()]);
        assert_eq!(r.rules, "retail rules");
        assert_eq!(r.terrain.medals_to_win, game.terrain().medals_to_win);
        assert_public(&r);
        assert!(r.positions.last().unwrap().winner.is_some());
    }

    /// A balance study's record, played under what-ifs, replays in its own rules: the objective
    /// decides the end, the opening racks and restricted base are the record's, and the rules
    /// are named in words.
    #[test]
    fn a_what_if_record_replays_under_its_own_rules() {
        use crate::rules::{Restricted, WhatIf};
        let what_if = WhatIf {
            objective: Some(3),
            removed: 2,
            racks: [2, 5],
            restricted: Restricted::of([crate::terrain::NodeId(15)]),
        };
        let game = Game::builtin("castle_field", crate::rules::Variant::Normal)
            .unwrap()
            .with_what_if(what_if)
            .unwrap();
        let record = record_of(&game, 9);
        let r = replay_record(&serde_json::to_string(&record).unwrap(), &terrains()).unwrap();
        assert_eq!(r.steps.len(), record.steps.len());
        assert_eq!(r.positions.len(), r.steps.len() + 1);
        assert_eq!(r.rules, what_if.describe());
        assert!(r.rules.contains("objective 3 medals"), "{}", r.rules);
        assert_eq!(r.terrain.medals_to_win, 3, "the medal bars' objective");
        assert!(r.rules.contains("no effect of node 15"), "{}", r.rules);
        let racks: Vec<u8> = r.positions[0].sides.iter().map(|s| s.rack_len).collect();
        let first = record.deal.first;
        assert_eq!(
            (racks[first.index()], racks[first.opponent().index()]),
            (2, 5)
        );
        assert_public(&r);
        assert_eq!(r.result, record.result);
    }

    #[test]
    fn a_what_if_the_terrain_cannot_take_is_refused_in_words() {
        let game = Game::builtin("castle_field", crate::rules::Variant::Normal).unwrap();
        let mut record = record_of(&game, 2);
        record.what_if.objective = Some(99);
        let e = replay_record(&serde_json::to_string(&record).unwrap(), &terrains())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("rules cannot be played") && e.contains("99"),
            "{e}"
        );
    }

    #[test]
    fn corrupt_and_foreign_files_get_errors_in_words() {
        let t = terrains();
        let err = |text: &str| replay_record(text, &t).err().unwrap().to_string();
        assert!(err("{not json").contains("not JSON"));
        assert!(err(r#"{"format": "toybattle-position/1"}"#).contains("'toybattle-position/1'"));
        assert!(err(r#"{"a": 1}"#).contains("no \"format\""));
        assert!(
            err(r#"{"format": "toybattle-record/1", "terrain": 3}"#).contains("not a game record")
        );
    }
}
