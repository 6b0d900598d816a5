//! Game records: seeded games between random bots replay to the same result after a JSON round
//! trip, the same seed gives the same record, and every kind of corruption is caught by the
//! matching `ReplayError`, at the first offending step.

use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::random::RandomBot;
use toybattle::bot::{Bot, Choice, Player, Request};
use toybattle::record::{replay, GameRecord, ReplayError};
use toybattle::rules::{Chance, Colour, Deal, Decision, Game, Phase, State, Troop, Variant};
use toybattle::terrain::{builtin_terrains, nodes};

fn random_player(name: &str) -> Player {
    Player::Fair(Box::new(RandomBot::new(name)))
}

fn play(game: &Game, seed: u64, config: &PlayConfig) -> GameRecord {
    let (mut blue, mut red) = (random_player("random-a"), random_player("random-b"));
    play_game(
        game,
        &Deal::from_seed(seed),
        &mut [&mut blue, &mut red],
        config,
    )
    .record
}

fn castle_field() -> Game {
    Game::builtin("castle_field", Variant::Normal).unwrap()
}

/// A finished (not turn-capped) game on Castle Field.
fn finished_record(game: &Game) -> GameRecord {
    let record = play(game, 11, &PlayConfig::default());
    assert!(record.result.winner.is_some() && record.result.end != "turn_cap");
    record
}

/// The state before step `k` of a record that replays.
fn state_before(game: &Game, record: &GameRecord, k: usize) -> State {
    let mut s = game.initial_state(&record.deal);
    for step in &record.steps[..k] {
        game.apply(&mut s, Decision::parse(step, game.terrain()).unwrap())
            .unwrap();
    }
    s
}

/// The index of the first step whose state satisfies `pred`, at or after `from`.
fn first_step(
    game: &Game,
    record: &GameRecord,
    from: usize,
    pred: impl Fn(&State) -> bool,
) -> usize {
    (from..record.steps.len())
        .find(|&k| pred(&state_before(game, record, k)))
        .expect("the record has such a step")
}

fn step_error(err: ReplayError) -> (usize, String, String) {
    match err {
        ReplayError::Step {
            index,
            step,
            reason,
        } => (index, step, reason),
        other => panic!("expected a step error, got {other:?}"),
    }
}

#[test]
fn records_round_trip_through_json_and_replay_on_every_terrain() {
    for terrain in builtin_terrains() {
        for variant in [Variant::Normal, Variant::Beginner] {
            let game = Game::builtin(&terrain.key, variant).unwrap();
            for seed in 0..4 {
                let record = play(&game, seed, &PlayConfig::default());
                let json = serde_json::to_string_pretty(&record).unwrap();
                let back: GameRecord = serde_json::from_str(&json).unwrap();
                assert_eq!(back, record, "{} {variant} seed {seed}", terrain.key);
                let summary = replay(&game, &back)
                    .unwrap_or_else(|e| panic!("{} {variant} seed {seed}: {e}", terrain.key));
                assert_eq!(summary.result, record.result);
                assert_eq!(summary.steps, record.steps.len());
                assert_eq!(
                    summary.final_state.is_over(),
                    record.result.end != "turn_cap"
                );
            }
        }
    }
}

#[test]
fn same_seed_gives_the_same_record() {
    let game = Game::builtin("battlefield", Variant::Normal).unwrap();
    let config = PlayConfig::default();
    let a = play(&game, 5, &config);
    assert_eq!(a, play(&game, 5, &config));
    assert_ne!(a.steps, play(&game, 6, &config).steps);
}

#[test]
fn turn_capped_game_replays_with_its_recorded_end() {
    let game = castle_field();
    let config = PlayConfig {
        max_turns: 3,
        ..PlayConfig::default()
    };
    let record = play(&game, 2, &config);
    assert_eq!(record.result.end, "turn_cap");
    assert_eq!(record.result.winner, None);
    assert_eq!(replay(&game, &record).unwrap().result, record.result);
}

/// A bot that always answers `decline`, which is never legal as the action.
struct Decliner;

impl Bot for Decliner {
    fn name(&self) -> &str {
        "decliner"
    }
    fn decide(&mut self, _: &Request) -> Choice {
        Choice::plain(Decision::Decline)
    }
}

#[test]
fn illegal_answer_is_a_forfeit_that_replays() {
    let game = castle_field();
    let deal = Deal::from_seed(3);
    let (mut blue, mut red) = (Player::Fair(Box::new(Decliner)), random_player("random"));
    let record = play_game(
        &game,
        &deal,
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    )
    .record;
    assert_eq!(record.result.end, "forfeit");
    assert_eq!(record.result.winner, Some(Colour::Red));
    assert!(!record.steps.iter().any(|s| s == "decline"), "not recorded");
    assert_eq!(replay(&game, &record).unwrap().result, record.result);
}

#[test]
fn illegal_decision_is_reported_at_its_step() {
    let game = castle_field();
    let mut record = finished_record(&game);
    // R5.1: a tile is never placed on its own HQ.
    let k = first_step(&game, &record, 10, |s| s.phase() == Phase::Action);
    let s = state_before(&game, &record, k);
    let troop = Troop::ALL
        .into_iter()
        .find(|&t| s.rack(s.active()).get(t) > 0)
        .unwrap();
    let own_hq = nodes(game.terrain().hqs[s.active().index()])
        .next()
        .unwrap();
    let bad = Decision::Place {
        troop,
        node: own_hq,
    }
    .notation(game.terrain());
    record.steps[k] = bad.clone();
    let (index, step, reason) = step_error(replay(&game, &record).unwrap_err());
    assert_eq!((index, step), (k, bad));
    assert!(reason.contains("illegal"), "{reason}");
}

#[test]
fn unreadable_steps_are_reported_at_their_step() {
    let game = castle_field();
    let original = finished_record(&game);
    for (k, text) in [
        (0, "fly 13"),
        (4, "place Dragon 13"),
        (7, "place Jumbo 99"),
        (9, ""),
    ] {
        let mut record = original.clone();
        record.steps[k] = text.to_string();
        let (index, step, _) = step_error(replay(&game, &record).unwrap_err());
        assert_eq!((index, step.as_str()), (k, text));
    }
}

#[test]
fn draw_against_the_deal_order_is_reported_at_its_step() {
    let game = castle_field();
    let mut record = finished_record(&game);
    let is_draw = |s: &State| matches!(s.phase(), Phase::Chance(Chance::Draw { .. }));
    let k = first_step(&game, &record, 0, is_draw);
    let s = state_before(&game, &record, k);
    let drawn = Decision::parse(&record.steps[k], game.terrain()).unwrap();
    // Another troop the reserve holds: legal for the rules, but not what the deal deals next.
    let other = Troop::ALL
        .into_iter()
        .map(Decision::Chance)
        .find(|&d| d != drawn && game.is_legal(&s, d))
        .unwrap();
    record.steps[k] = other.notation(game.terrain());
    let (index, _, reason) = step_error(replay(&game, &record).unwrap_err());
    assert_eq!(index, k);
    assert!(reason.contains("deal"), "{reason}");
}

#[test]
fn truncated_steps_leave_the_game_unfinished() {
    let game = castle_field();
    let mut record = finished_record(&game);
    record.steps.truncate(record.steps.len() / 2);
    let err = replay(&game, &record).unwrap_err();
    assert!(matches!(err, ReplayError::Unfinished(_)), "{err:?}");
}

#[test]
fn step_after_the_end_is_reported() {
    let game = castle_field();
    let mut record = finished_record(&game);
    let k = record.steps.len();
    record.steps.push("draw".into());
    let (index, _, reason) = step_error(replay(&game, &record).unwrap_err());
    assert_eq!(index, k);
    assert!(reason.contains("over"), "{reason}");
}

#[test]
fn wrong_recorded_result_is_reported() {
    let game = castle_field();
    let original = finished_record(&game);
    let corruptions: [fn(&mut GameRecord); 4] = [
        |r| r.result.winner = r.result.winner.map(Colour::opponent),
        |r| r.result.turns += 1,
        |r| r.result.medals[Colour::Blue] += 1,
        |r| r.result.end = if r.result.end == "hq" { "medals" } else { "hq" }.into(),
    ];
    for corrupt in corruptions {
        let mut record = original.clone();
        corrupt(&mut record);
        let err = replay(&game, &record).unwrap_err();
        assert!(matches!(err, ReplayError::Result { .. }), "{err:?}");
    }
}

#[test]
fn wrong_header_is_reported() {
    let game = castle_field();
    let original = finished_record(&game);

    let mut record = original.clone();
    record.format = "toybattle-record/0".into();
    assert_eq!(
        replay(&game, &record).unwrap_err(),
        ReplayError::Format {
            found: "toybattle-record/0".into()
        }
    );

    let mut record = original.clone();
    record.terrain = "battlefield".into();
    let err = replay(&game, &record).unwrap_err();
    assert!(matches!(err, ReplayError::Terrain { .. }), "{err:?}");

    let mut record = original;
    record.deal.reserve[Colour::Red].pop();
    let err = replay(&game, &record).unwrap_err();
    assert!(matches!(err, ReplayError::Deal(_)), "{err:?}");
}

#[test]
fn records_with_missing_fields_do_not_parse() {
    let game = castle_field();
    let mut json = serde_json::to_value(finished_record(&game)).unwrap();
    json.as_object_mut().unwrap().remove("steps");
    assert!(serde_json::from_value::<GameRecord>(json).is_err());
}

#[test]
fn records_with_unknown_fields_are_refused_naming_the_field() {
    let game = castle_field();
    let record = serde_json::to_value(finished_record(&game)).unwrap();
    for (place, field) in [
        (None, "winner_name"),
        (Some("result"), "score"),
        (Some("deal"), "shuffle"),
    ] {
        let mut json = record.clone();
        let object = match place {
            None => &mut json,
            Some(p) => &mut json[p],
        };
        object
            .as_object_mut()
            .unwrap()
            .insert(field.into(), 1.into());
        let e = serde_json::from_value::<GameRecord>(json)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field") && e.contains(field), "{e}");
    }
}

#[test]
fn a_deal_that_is_not_the_deal_of_its_seed_is_refused_naming_the_seed() {
    let game = castle_field();
    let original = finished_record(&game);
    // Another seed for the same deal.
    let mut record = original.clone();
    record.seed += 1;
    let e = replay(&game, &record).unwrap_err();
    assert!(matches!(e, ReplayError::Seed { .. }), "{e:?}");
    assert!(e.to_string().contains(&record.seed.to_string()), "{e}");
    // The deal's own seed differs from the record's.
    let mut record = original.clone();
    record.deal.seed += 1;
    let e = replay(&game, &record).unwrap_err();
    assert!(matches!(e, ReplayError::Seed { .. }), "{e:?}");
    // A possible setup, but not the one the seed deals: two reserve tiles swapped, late enough
    // that the steps would still replay.
    let mut record = original;
    let reserve = &mut record.deal.reserve[Colour::Blue];
    let i = (0..19).rev().find(|&i| reserve[i] != reserve[19]).unwrap();
    reserve.swap(i, 19);
    assert!(record.deal.validate().is_ok());
    let e = replay(&game, &record).unwrap_err();
    assert!(matches!(e, ReplayError::Seed { .. }), "{e:?}");
    let message = e.to_string();
    assert!(
        message.contains(&record.seed.to_string()) && message.contains("reserve"),
        "{message}"
    );
}

// ----- What a user sees: the game's words, not Rust's --------------------------------------------

/// Runs the command line; returns its exit success and standard error.
fn toybattle(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A refused command's message holds no Rust notation.
fn assert_plain_words(message: &str) {
    for internal in [
        "Some(",
        "None",
        "{ ",
        "::",
        "Colour",
        "Draw(",
        "RecordResult",
    ] {
        assert!(!message.contains(internal), "'{internal}' in: {message}");
    }
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toybattle-replay-test-{}-{name}",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn replay_refusals_speak_the_games_words() {
    let game = castle_field();
    let original = finished_record(&game);
    let winner = original.result.winner.unwrap();
    let mut wrong_winner = original.clone();
    wrong_winner.result.winner = Some(winner.opponent());
    let mut wrong_seed = original.clone();
    wrong_seed.seed += 1;
    let mut unknown = serde_json::to_value(&original).unwrap();
    unknown["result"]["margin"] = 3.into();
    let cases = [
        (
            "result.json",
            serde_json::to_string(&wrong_winner).unwrap(),
            format!("the record says {} won", winner.opponent()),
        ),
        (
            "seed.json",
            serde_json::to_string(&wrong_seed).unwrap(),
            format!("seed {}", wrong_seed.seed),
        ),
        (
            "unknown.json",
            unknown.to_string(),
            "unknown field `margin`".to_string(),
        ),
    ];
    for (name, text, expected) in cases {
        let path = temp_file(name, &text);
        let (ok, message) = toybattle(&["replay", path.to_str().unwrap()]);
        std::fs::remove_file(&path).unwrap();
        assert!(!ok, "{name} replayed");
        assert!(message.contains(&expected), "{name}: {message}");
        assert_plain_words(&message);
    }
}

#[test]
fn position_refusals_name_the_phase_in_the_games_words() {
    let racks = r#""racks": {"blue": ["Capn", "Star", "Roxy"], "red": ["Kwak", "XB-42", "Hook"]}"#;
    let cases = [
        (
            "draw0.json",
            format!(
                r#"{{"format": "toybattle-position/1", "terrain": "castle_field", "to_move": "blue",
                "phase": {{"chance": {{"draw": 0}}}}, {racks}}}"#
            ),
            "chance draw 0",
        ),
        (
            "frozen.json",
            format!(
                r#"{{"format": "toybattle-position/1", "terrain": "castle_field", "to_move": "red",
                "turn": 2, "phase": {{"troop_effect": {{"troop": "Star", "node": 13}}}},
                "stacks": {{"13": ["red:Star"]}}, "frozen": {{"blue": ["Capn"]}}, {racks}}}"#
            ),
            "frozen",
        ),
    ];
    for (name, text, expected) in cases {
        let path = temp_file(name, &text);
        let (ok, message) = toybattle(&["legal", "--position", path.to_str().unwrap()]);
        std::fs::remove_file(&path).unwrap();
        assert!(!ok, "{name} accepted");
        assert!(message.contains(expected), "{name}: {message}");
        assert_plain_words(&message);
    }
}

/// A game whose first player is not the one the seed proposes (the second game of a self-play
/// deal, or a player's choice of who starts) is a fair game of the seed's tiles and replays.
#[test]
fn a_game_with_the_other_colour_first_replays() {
    let game = castle_field();
    for seed in 1..=8 {
        let deal = Deal::from_seed(seed);
        let swapped = deal.with_first(deal.first.opponent());
        let (mut blue, mut red) = (random_player("random-a"), random_player("random-b"));
        let record = play_game(
            &game,
            &swapped,
            &mut [&mut blue, &mut red],
            &PlayConfig::default(),
        )
        .record;
        assert_eq!(record.deal.first, deal.first.opponent());
        replay(&game, &record).expect("the other colour first replays");
    }
}

/// Records are read strictly (issue 32, point 12): a troop name with noise in it, a printed
/// value or a spelling the lenient reader takes (`xb42`), a node id with a sign or a leading
/// zero, or extra spaces are refused at their step, although each reads as the same legal
/// decision when typed by a person. Letter case alone is accepted.
#[test]
fn noisy_notation_in_a_record_is_refused_at_its_step() {
    let game = castle_field();
    let original = finished_record(&game);
    let with_troop = |verb: &str| {
        original
            .steps
            .iter()
            .position(|s| s.starts_with(verb))
            .expect("the game has such a step")
    };
    let place = with_troop("place ");
    let chance = with_troop("chance ");
    let noise = |step: &str| -> Vec<String> {
        let words: Vec<&str> = step.split(' ').collect();
        // `place TROOP NODE` and `chance TROOP`: the troop is the second word.
        let troop_at = 1;
        let name = words[troop_at];
        let troop: Troop = name.parse().unwrap();
        let with = |word: String| {
            let mut w = words.clone();
            w[troop_at] = &word;
            w.join(" ")
        };
        let (head, tail) = name.split_at(2);
        let mut out = vec![
            with(format!("{head}[[[[}}}}{{{{{tail}")),
            with(troop.value_label().to_string()),
            with(name.replace('-', "=") + "."),
            format!(" {step}"),
            step.replacen(' ', "  ", 1),
            format!("{step}\t"),
        ];
        if words[0] == "place" {
            out.push(format!("{} {} 0{}", words[0], name, words[2]));
            out.push(format!("{} {} +{}", words[0], name, words[2]));
        }
        out
    };
    for k in [place, chance] {
        for text in noise(&original.steps[k]) {
            assert_eq!(
                Decision::parse(&text, game.terrain()).ok(),
                Decision::parse(&original.steps[k], game.terrain()).ok(),
                "a person may type '{text}'"
            );
            let mut record = original.clone();
            record.steps[k] = text.clone();
            let err = replay(&game, &record).expect_err(&text);
            let message = err.to_string();
            let (index, step, _) = step_error(err);
            assert_eq!((index, step.as_str()), (k, text.as_str()));
            assert!(message.starts_with(&format!("step {k} (")), "{message}");
        }
        let mut record = original.clone();
        record.steps[k] = original.steps[k]
            .to_uppercase()
            .replacen("PLACE", "place", 1);
        record.steps[k] = record.steps[k].replacen("CHANCE", "chance", 1);
        replay(&game, &record).expect("letter case aside");
    }
}

/// The three steps of the issue, read as records and as a person types them.
#[test]
fn the_noise_of_the_issue_is_no_troop_in_a_record() {
    let game = castle_field();
    let terrain = game.terrain();
    for (text, word) in [
        ("place Kw[[[[}}{{ak 12", "Kw[[[[}}{{ak"),
        ("recover Hoo[[[[[[[[k", "Hoo[[[[[[[[k"),
        ("chance XB=42", "XB=42"),
    ] {
        let err = Decision::parse_record(text, terrain).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "'{word}' in '{text}' is not a troop's name as records write it: expected one of \
                 Kwak, Skully, Capn, Jumbo, Hook, XB-42, Star, Roxy (letter case aside)"
            )
        );
        assert!(
            Decision::parse(text, terrain).is_ok(),
            "lenient for a person"
        );
    }
}
