//! The replay viewer's data: a record re-checked by the rules, then its public positions step by
//! step.

use super::view::{DecisionView, PositionView, TerrainView};
use crate::info::Observation;
use crate::record::notes::SessionNotes;
use crate::record::{
    check_fingerprint, describe_rules, replay, GameRecord, RecordResult, RECORD_FORMAT,
};
use crate::rules::{Colour, Decision, Game, Phase, State};
use crate::session::{note_taken_regions, Level, Session, TakenRegion};
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
    /// The record was played on other terrain data (a `--terrain-file`) under the same key:
    /// the terrain and the fingerprints.
    #[error(
        "the record was played on other terrain data than this program's {0}; watch it with \
         `toybattle replay --terrain-file` and the file it was played on"
    )]
    OtherTerrainData(String),
    /// "Play from here" is not possible from this record or step; why.
    #[error("cannot play from here: {0}")]
    FromHere(String),
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
    /// Whether the racks are shown face up: only for a finished game (its record says how it
    /// ended), whose deal is no longer a secret; an unfinished game's record shows the public
    /// positions only, so watching a saved game cannot spoil it.
    pub face_up: bool,
}

/// A record file's text as a record, or what is wrong with it.
fn read_record(text: &str) -> Result<GameRecord, ViewerError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ViewerError::NotJson(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(RECORD_FORMAT) => {}
        Some(other) => return Err(ViewerError::OtherFormat(other.to_string())),
        None => return Err(ViewerError::NotRecord("it has no \"format\" field".into())),
    }
    serde_json::from_value(value).map_err(|e| ViewerError::NotRecord(e.to_string()))
}

/// A new game against `level` from the position after the first `step` steps of a finished
/// record, the human playing `human`: "play from here" in the replay viewer. Only a finished
/// game's record is taken: its deal is no secret any more (the viewer shows its racks), while an
/// unfinished one's deal belongs to a game that may still be played. The new game keeps the
/// record's deal, so the human knows what the computer holds: it is practice, and the page says so.
pub fn from_here(
    text: &str,
    step: usize,
    level: Level,
    human: Colour,
) -> Result<Session, ViewerError> {
    let mut record = read_record(text)?;
    if record.result.end == "unfinished" {
        return Err(ViewerError::FromHere(
            "this game is not finished: only a finished game can be played from one of its \
             steps (an unfinished game's deal is still a secret)"
                .into(),
        ));
    }
    if step > record.steps.len() {
        return Err(ViewerError::FromHere(format!(
            "step {step} is past the record's end: it has {} steps",
            record.steps.len()
        )));
    }
    let game = Game::builtin(&record.terrain, record.variant)
        .map_err(|e| ViewerError::Terrain(e.to_string()))?;
    if *game.what_if() != record.what_if {
        return Err(ViewerError::FromHere(
            "this game was played under what-if rules: a game against the computer is played \
             under the retail rules only"
                .into(),
        ));
    }
    record.steps.truncate(step);
    let mut state = game.initial_state(&record.deal);
    for notation in &record.steps {
        let d = Decision::parse(notation, game.terrain())
            .map_err(|e| ViewerError::Replay(e.to_string()))?;
        game.apply(&mut state, d)
            .map_err(|e| ViewerError::Replay(e.to_string()))?;
    }
    if state.is_over() {
        return Err(ViewerError::FromHere(format!(
            "the game is over after step {step}: choose an earlier step"
        )));
    }
    record.result = RecordResult {
        winner: None,
        end: "unfinished".into(),
        turns: state.turn(),
        medals: crate::vocabulary::ByColour::from_fn(|c| state.medals(c)),
    };
    record.session = Some(SessionNotes {
        human,
        level: level.name().to_string(),
        // The deal is known, as a chosen seed's is: no copy of it can spoil anything.
        seed_chosen: true,
        undos: Vec::new(),
        hints: Vec::new(),
    });
    Session::load(&record).map_err(|e| ViewerError::FromHere(e.to_string()))
}

/// Reads a record file's text and re-checks it as `toybattle replay` does: its game (terrain,
/// variant and what-ifs) and the record, which replays under the rules.
pub fn read_checked(
    text: &str,
    terrains: &[Arc<crate::terrain::Terrain>],
) -> Result<(Game, GameRecord), ViewerError> {
    let record = read_record(text)?;
    let terrain = terrains
        .iter()
        .find(|t| t.key == record.terrain)
        .ok_or_else(|| ViewerError::Terrain(format!("'{}'", record.terrain)))?;
    // The game the record was played in, what-ifs included, checked as `toybattle replay` does.
    let game = Game::new(terrain.clone(), record.variant)
        .with_what_if(record.what_if)
        .map_err(|e| ViewerError::WhatIf(e.to_string()))?;
    check_fingerprint(&record, &game).map_err(|e| {
        ViewerError::OtherTerrainData(format!(
            "{} ({} variant): fingerprint {} instead of {}",
            game.terrain().name,
            e.variant,
            e.recorded,
            e.given
        ))
    })?;
    replay(&game, &record).map_err(|e| ViewerError::Replay(e.to_string()))?;
    Ok((game, record))
}

/// Reads and re-checks a record file's text and lays out its positions (face up once the game
/// is over).
pub fn replay_record(
    text: &str,
    terrains: &[Arc<crate::terrain::Terrain>],
) -> Result<Replay, ViewerError> {
    let (game, record) = read_checked(text, terrains)?;
    let face_up = record.result.end != "unfinished";
    let mut taken = Vec::new();
    let mut state = game.initial_state(&record.deal);
    let position = |s: &State, taken: &[TakenRegion]| {
        let mut p = PositionView::public(&game, &Observation::new(s, Colour::Blue));
        p.taken_regions = taken.to_vec();
        if face_up {
            for side in &mut p.sides {
                side.rack = s.rack(side.colour).to_vec();
                side.frozen = s.frozen(side.colour).to_vec();
            }
        }
        p
    };
    let mut positions = vec![position(&state, &taken)];
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
        let before = state;
        game.apply(&mut state, d)
            .map_err(|e| ViewerError::Replay(e.to_string()))?;
        note_taken_regions(&game, &before, &state, &mut taken);
        positions.push(position(&state, &taken));
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
        face_up,
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
        assert!(r.face_up, "a finished game's racks are shown");
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
        assert!(r.face_up);
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

    /// A game of the session against beginner, the human taking their first legal decision
    /// each time, played for `steps` steps or to its end.
    fn session_record(seed: u64, steps: usize) -> GameRecord {
        use crate::session::{SessionConfig, ToMove};
        let game = Game::builtin("castle_field", crate::rules::Variant::Normal).unwrap();
        let mut s = Session::new(SessionConfig {
            game,
            level: Level::Beginner,
            human: Colour::Blue,
            first: None,
            seed,
            seed_chosen: true,
        })
        .unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        while !s.is_over() && s.view().log.len() < steps {
            match s.to_move() {
                ToMove::Human => s.apply_decision(s.legal_decisions()[0]).unwrap(),
                _ => drop(s.advance(&stop).unwrap()),
            }
        }
        s.record()
    }

    #[test]
    fn a_finished_game_is_shown_face_up_with_the_takers_of_its_regions() {
        let record = session_record(5, usize::MAX);
        let r = replay_record(&serde_json::to_string(&record).unwrap(), &terrains()).unwrap();
        assert!(r.face_up);
        for p in &r.positions {
            for s in &p.sides {
                assert_eq!(s.rack.len(), s.rack_len as usize, "the whole rack, face up");
                assert_eq!(s.frozen.len(), s.frozen_len as usize);
            }
            assert_eq!(p.taken_regions.len(), p.regions_taken.len());
        }
        let last = r.positions.last().unwrap();
        assert!(
            !last.taken_regions.is_empty(),
            "no region taken in the game"
        );
        for side in &last.sides {
            let medals: u8 = last
                .taken_regions
                .iter()
                .filter(|t| t.by == side.colour)
                .map(|t| t.medals)
                .sum();
            assert_eq!(medals, side.medals, "{:?}", side.colour);
        }
    }

    #[test]
    fn an_unfinished_game_stays_face_down_and_cannot_be_played_from_a_step() {
        let record = session_record(5, 12);
        assert_eq!(record.result.end, "unfinished");
        let text = serde_json::to_string(&record).unwrap();
        let r = replay_record(&text, &terrains()).unwrap();
        assert!(!r.face_up);
        assert_public(&r);
        let e = from_here(&text, 3, Level::Casual, Colour::Red)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not finished"), "{e}");
    }

    #[test]
    fn play_from_here_starts_a_game_at_the_step_against_the_chosen_level() {
        let record = session_record(5, usize::MAX);
        let text = serde_json::to_string(&record).unwrap();
        let session = from_here(&text, 6, Level::Strong, Colour::Red).unwrap();
        let view = session.view();
        assert_eq!(view.log.len(), 6);
        assert_eq!((view.human, view.level), (Colour::Red, Level::Strong));
        assert!(view.result.is_none());
        let end = record.steps.len();
        let err = |step| {
            from_here(&text, step, Level::Beginner, Colour::Blue)
                .err()
                .unwrap()
                .to_string()
        };
        assert!(
            err(end).contains("the game is over after step"),
            "{}",
            err(end)
        );
        assert!(
            err(end + 1).contains("past the record's end"),
            "{}",
            err(end + 1)
        );
        assert!(err_of("{not json").contains("not JSON"));
    }

    fn err_of(text: &str) -> String {
        from_here(text, 0, Level::Beginner, Colour::Blue)
            .err()
            .unwrap()
            .to_string()
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
        // A record of other terrain data under the same key: its fingerprint tells.
        let game = Game::builtin("castle_field", crate::rules::Variant::Normal).unwrap();
        let mut record = record_of(&game, 2);
        record.terrain_fingerprint = Some("0123456789abcdef".into());
        let text = serde_json::to_string(&record).unwrap();
        let e = err(&text);
        assert!(
            e.contains("other terrain data than this program's Castle Field"),
            "{e}"
        );
    }
}
