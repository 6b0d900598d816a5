//! The game-session layer: a human (scripted here) against a level's bot.

mod session_support;

use session_support::hidden_twin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toybattle::bot::preset::resolve;
use toybattle::bot::Budget;
use toybattle::record::{replay, GameRecord};
use toybattle::rules::{Colour, Deal, Game, Variant};
use toybattle::session::{Level, Session, SessionConfig, SessionError, ToMove, UndoRefused};
use toybattle::terrain::builtin_terrains;

/// Longest game the tests play, in steps: far beyond any real game.
const MAX_STEPS: usize = 3000;

fn config(terrain: &str, level: Level, human: Colour, seed: u64) -> SessionConfig {
    SessionConfig {
        game: Game::builtin(terrain, Variant::Normal).unwrap(),
        level,
        human,
        first: None,
        seed,
        seed_chosen: true,
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

/// The view as JSON without the computer's candidates: a record does not keep them, so a loaded
/// game shows candidates only for the decisions made after loading.
fn without_thoughts(session: &Session) -> serde_json::Value {
    let mut view = serde_json::to_value(session.view()).unwrap();
    view.as_object_mut().unwrap().remove("bot_thoughts");
    view
}

/// The scripted human's choice: a decision picked by the number of steps so far, so that the
/// same view always gets the same answer.
fn choose(session: &Session) -> String {
    let view = session.view();
    let options: Vec<&str> = view
        .decisions
        .iter()
        .flat_map(|g| g.options.iter().map(|o| o.notation.as_str()))
        .collect();
    assert!(!options.is_empty(), "the human must have a decision");
    options[(view.log.len() * 7 + view.turn as usize) % options.len()].to_string()
}

/// One step of the game: the human's decision, or the bot and chance until the human decides.
fn step(session: &mut Session) {
    let stop = AtomicBool::new(false);
    match session.to_move() {
        ToMove::Human => {
            let d = choose(session);
            session.apply(&d).unwrap();
        }
        ToMove::Bot | ToMove::Chance => {
            session.advance(&stop).unwrap();
        }
        ToMove::Over => panic!("the game is over"),
    }
}

fn play_out(session: &mut Session) {
    let mut n = 0;
    while !session.is_over() {
        step(session);
        n += 1;
        assert!(n < MAX_STEPS, "the game does not end");
    }
}

/// A session on a given deal.
fn session_on(deal: Deal, config: SessionConfig) -> Session {
    Session::on_deal(config.game, config.level, config.human, deal).unwrap()
}

#[test]
fn a_game_against_beginner_reaches_its_end_and_replays() {
    let mut s = Session::new(config("castle_field", Level::Beginner, Colour::Blue, 3)).unwrap();
    play_out(&mut s);
    let view = s.view();
    assert_eq!(view.to_move, ToMove::Over);
    let result = view.result.expect("a result");
    let record = s.record();
    let summary = replay(s.game(), &record).expect("the record replays");
    assert_eq!(summary.result.winner, result.winner);
    assert_eq!(summary.result.end, result.end);
    let last = view.win_history.last().unwrap();
    assert_eq!(
        last.human,
        if result.winner == Some(view.human) {
            1.0
        } else {
            0.0
        }
    );
}

#[test]
fn illegal_or_untimely_decisions_are_refused_and_change_nothing() {
    let mut s = Session::new(SessionConfig {
        first: Some(Colour::Red),
        ..config("volcanic_jungle", Level::Beginner, Colour::Blue, 11)
    })
    .unwrap();
    let before = json(&s.view());
    // The bot (red) moves first.
    assert!(matches!(s.apply("draw"), Err(SessionError::NotYourTurn(_))));
    assert_eq!(json(&s.view()), before);
    s.advance(&AtomicBool::new(false)).unwrap();
    let before = json(&s.view());
    let record = s.record();
    for bad in [
        "place Roxy 99",
        "dance",
        "place Nobody 13",
        "chance Star",
        "move 14 17",
    ] {
        let err = s.apply(bad).unwrap_err();
        assert!(
            matches!(err, SessionError::Notation(_) | SessionError::Illegal(_)),
            "{bad}: {err}"
        );
        assert_eq!(json(&s.view()), before, "{bad} changed the view");
        assert_eq!(s.record(), record, "{bad} changed the game");
    }
    s.resign().unwrap();
    assert_eq!(s.apply("draw"), Err(SessionError::GameOver));
    assert_eq!(s.undo(), Err(UndoRefused::Resigned));
}

#[test]
fn a_cheating_bot_is_refused_and_no_level_cheats() {
    let cheat = resolve("cheat-uct").unwrap();
    let refused = Session::with_player(
        config("castle_field", Level::Strong, Colour::Blue, 1),
        cheat.player(),
        cheat.budget,
    );
    assert!(matches!(refused, Err(SessionError::CheatingBot(_))));
    for level in Level::ALL {
        assert!(!level.preset().is_cheating(), "{level}");
    }
}

/// Undo at every decision of a whole game: the view and the game come back exactly, the same
/// decision then gives the same continuation (the referee came back too), and undo is refused
/// exactly when it would take back a chance outcome the human has seen.
#[test]
fn undo_restores_the_exact_earlier_state_and_never_crosses_a_seen_chance() {
    let stop = AtomicBool::new(false);
    let (mut undone, mut refused) = (0, 0);
    for (terrain, seed) in [
        ("castle_field", 21),
        ("battlefield", 4),
        ("caribbean_sea", 9),
    ] {
        let mut s = Session::new(config(terrain, Level::Beginner, Colour::Blue, seed)).unwrap();
        assert_eq!(s.undo(), Err(UndoRefused::NothingToUndo));
        let mut n = 0;
        while !s.is_over() {
            n += 1;
            assert!(n < MAX_STEPS);
            if s.to_move() != ToMove::Human {
                s.advance(&stop).unwrap();
                continue;
            }
            let before = json(&s.view());
            let steps_before = s.record().steps;
            let d = choose(&s);
            s.apply(&d).unwrap();
            s.advance(&stop).unwrap();
            let after = s.view();
            let taken = &after.log[steps_before.len()..];
            let seen_chance = taken
                .iter()
                .position(|e| e.actor.is_none() && e.text != "chance ?");
            match (s.can_undo(), seen_chance) {
                (Ok(()), None) => {
                    s.undo().unwrap();
                    undone += 1;
                    assert_eq!(json(&s.view()), before, "undo on {terrain}");
                    assert_eq!(s.record().steps, steps_before);
                    s.apply(&d).unwrap();
                    s.advance(&stop).unwrap();
                    assert_eq!(
                        json(&s.view().log),
                        json(&after.log),
                        "replayed on {terrain}"
                    );
                }
                (Err(UndoRefused::SeenChance { step, .. }), Some(k)) => {
                    refused += 1;
                    assert!(
                        step >= steps_before.len() + k,
                        "refused at the seen outcome"
                    );
                    let log = json(&s.view());
                    assert_eq!(s.undo(), Err(s.can_undo().unwrap_err()));
                    assert_eq!(json(&s.view()), log, "a refused undo changes nothing");
                }
                // The decision ended the game: its end shows the deal, so it is final
                // (docs/play.md; tests/no_peeking.rs).
                (Err(UndoRefused::GameOver), _) if s.is_over() => refused += 1,
                (status, seen) => panic!("undo {status:?} with a seen chance at {seen:?}"),
            }
        }
    }
    assert!(
        undone > 10 && refused > 10,
        "{undone} undone, {refused} refused"
    );
}

#[test]
fn undo_after_the_humans_own_draw_is_refused_with_a_reason() {
    let stop = AtomicBool::new(false);
    let mut s = Session::new(SessionConfig {
        first: Some(Colour::Blue),
        ..config("castle_field", Level::Beginner, Colour::Blue, 8)
    })
    .unwrap();
    s.apply("draw").unwrap();
    s.advance(&stop).unwrap();
    let view = s.view();
    assert!(!view.undo.available);
    let reason = view.undo.reason.unwrap();
    assert!(reason.contains("blue draws"), "{reason}");
    assert!(matches!(s.undo(), Err(UndoRefused::SeenChance { .. })));
}

#[test]
fn a_saved_game_replays_and_loads_back_to_the_same_view() {
    let stop = AtomicBool::new(false);
    let mut s = Session::new(config("cursed_cemetery", Level::Casual, Colour::Red, 5)).unwrap();
    for _ in 0..12 {
        step(&mut s);
    }
    // An undo and a hint go into the record too.
    while s.to_move() != ToMove::Human {
        s.advance(&stop).unwrap();
    }
    let hint = s.hint(Budget::iterations(300), &stop).unwrap();
    let legal: Vec<String> = s
        .view()
        .decisions
        .iter()
        .flat_map(|g| g.options.iter().map(|o| o.notation.clone()))
        .collect();
    assert!(hint.candidates.iter().all(|c| legal.contains(&c.decision)));
    let d = choose(&s);
    s.apply(&d).unwrap();
    if s.can_undo().is_ok() {
        s.undo().unwrap();
    }
    let text = serde_json::to_string_pretty(&s.record()).unwrap();
    let record: GameRecord = serde_json::from_str(&text).unwrap();
    let notes = record.session.as_ref().unwrap();
    assert_eq!((notes.human, notes.level.as_str()), (Colour::Red, "casual"));
    assert_eq!(notes.hints.len(), 1);
    replay(s.game(), &record).expect("a saved game replays");
    let mut loaded = Session::load_json(&text).unwrap();
    assert_eq!(json(&loaded.view()), json(&s.view()));
    assert_eq!(loaded.record(), s.record());
    // Both go on the same way: the referee and the bot's seeds came back with the game.
    for _ in 0..20 {
        if s.is_over() {
            break;
        }
        step(&mut s);
        step(&mut loaded);
        assert_eq!(without_thoughts(&loaded), without_thoughts(&s));
    }
    // A resigned game replays as resigned.
    let mut s = Session::new(config("cursed_cemetery", Level::Beginner, Colour::Red, 5)).unwrap();
    for _ in 0..4 {
        step(&mut s);
    }
    s.resign().unwrap();
    let record = s.record();
    assert_eq!(record.result.end, "resign");
    assert_eq!(record.result.winner, Some(Colour::Blue));
    replay(s.game(), &record).unwrap();
    assert!(Session::load(&record).unwrap().is_over());
}

/// Undos and hints go into the saved record with the steps they were taken at, and
/// `toybattle replay` accepts the record.
#[test]
fn undos_and_hints_are_written_into_the_saved_record() {
    let stop = AtomicBool::new(false);
    let mut s = Session::new(SessionConfig {
        first: Some(Colour::Blue),
        ..config("tropical_pool", Level::Beginner, Colour::Blue, 5)
    })
    .unwrap();
    // Some rounds in, to a decision of the human that offers placements (not a draw: no
    // chance outcome the human sees comes before the bot's reply).
    let placements = |s: &Session| -> Vec<String> {
        s.legal()
            .iter()
            .flat_map(|g| g.options.iter().map(|o| o.notation.clone()))
            .filter(|d| d.starts_with("place "))
            .collect()
    };
    let mut n = 0;
    while n < 6 || s.to_move() != ToMove::Human || placements(&s).is_empty() {
        step(&mut s);
        n += 1;
        assert!(n < MAX_STEPS);
    }
    let at = s.record().steps.len();
    let hint = s.hint(Budget::iterations(200), &stop).unwrap();
    assert_eq!(hint.step, at);
    assert!(!hint.candidates.is_empty());
    // Each placement is taken back at once (only the human's own decision goes), until one
    // hands the turn to the bot.
    let mut tried = Vec::new();
    for p in placements(&s) {
        s.apply(&p).unwrap();
        let bot_next = s.to_move() != ToMove::Human;
        s.undo().expect("a decision just taken can be taken back");
        tried.push(p);
        if bot_next {
            break;
        }
    }
    let placement = tried.last().unwrap().clone();
    // Taken back after the bot's reply: the reply goes too.
    s.apply(&placement).unwrap();
    assert_ne!(s.to_move(), ToMove::Human, "no placement ends the turn");
    let reply = s.advance(&stop).unwrap();
    assert!(!reply.is_empty(), "the bot replies");
    s.undo()
        .expect("the bot's reply showed no chance outcome to the human");
    assert_eq!(s.record().steps.len(), at);
    let second = s.hint(Budget::iterations(200), &stop).unwrap();
    s.apply(&placement).unwrap();
    s.advance(&stop).unwrap();

    let path = std::env::temp_dir().join(format!(
        "toybattle-session-notes-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string_pretty(&s.record()).unwrap()).unwrap();
    let record: GameRecord =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let notes = record.session.as_ref().expect("session notes");
    assert_eq!(notes.hints.len(), 2);
    for (saved, asked) in notes.hints.iter().zip([&hint, &second]) {
        assert_eq!((saved.step, saved.iterations), (at, asked.iterations));
        for (a, b) in saved.candidates.iter().zip(&asked.candidates) {
            // JSON keeps the win probability to within a unit of its last digit.
            assert_eq!((&a.decision, a.visits), (&b.decision, b.visits));
            assert!((a.value - b.value).abs() < 1e-12);
        }
        assert_eq!(saved.candidates.len(), asked.candidates.len());
    }
    assert_eq!(notes.undos.len(), tried.len() + 1);
    for (note, p) in notes.undos.iter().zip(&tried) {
        assert_eq!((note.step, &note.taken_back), (at, &vec![p.clone()]));
    }
    let last = notes.undos.last().unwrap();
    assert_eq!((last.step, &last.taken_back[0]), (at, &placement));
    let taken: Vec<String> = reply.iter().map(|e| e.text.clone()).collect();
    assert_eq!(last.taken_back.len(), 1 + taken.len());
    for (note, seen) in last.taken_back[1..].iter().zip(&taken) {
        assert!(
            seen == "chance ?" || note == seen,
            "{note} taken back, {seen} seen"
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .arg("replay")
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let loaded = Session::load(&record).unwrap().record();
    assert_eq!(loaded.steps, s.record().steps);
    assert_eq!(loaded.session.unwrap().undos, notes.undos);
}

#[test]
fn a_corrupt_or_foreign_record_is_refused_with_a_clear_error() {
    let s = Session::new(config("castle_field", Level::Beginner, Colour::Blue, 2)).unwrap();
    let mut record = s.record();
    let err = Session::load_json("{ not json").err().unwrap();
    assert!(matches!(err, SessionError::Json(_)), "{err}");
    let err = Session::load_json("{\"format\": \"toybattle-position/1\"}")
        .err()
        .unwrap();
    assert!(err.to_string().contains("toybattle-position/1"), "{err}");
    record.steps.push("place Roxy 41".into());
    assert!(matches!(
        Session::load(&record),
        Err(SessionError::Record(_))
    ));
    record.steps.clear();
    record.session = None;
    let err = Session::load(&record).err().unwrap();
    assert!(matches!(err, SessionError::NotASession(_)), "{err}");
}

/// Two games whose deals differ only in tiles the human cannot see (the order deep in both
/// reserves, the removed tiles) show the human the same views, serialised byte for byte, until
/// one of those tiles is drawn; on all eight terrains, to the end of the game.
#[test]
fn views_never_show_hidden_tiles() {
    for (k, terrain) in builtin_terrains().iter().enumerate() {
        let seed = 100 + k as u64;
        let base = Deal::from_seed(seed);
        let other = hidden_twin(&base);
        let cfg = || config(&terrain.key, Level::Beginner, Colour::Blue, seed);
        let mut a = session_on(base, cfg());
        let mut b = session_on(other, cfg());
        let mut compared = 0;
        let mut n = 0;
        while !a.is_over() {
            let view = a.view();
            if view.reserve.blue == 0 || view.reserve.red == 0 {
                break; // the swapped tiles are drawn: the games may part from here on
            }
            assert_eq!(
                json(&view),
                json(&b.view()),
                "{} after {n} steps",
                terrain.key
            );
            assert_eq!(json(&a.legal()), json(&b.legal()));
            compared += 1;
            step(&mut a);
            step(&mut b);
            n += 1;
            assert!(n < MAX_STEPS);
        }
        assert!(
            compared > 5,
            "{}: only {compared} views compared",
            terrain.key
        );
        play_out(&mut a);
    }
}

/// A human who moves first sees the same view whatever the bot's opening rack holds.
#[test]
fn the_bots_rack_is_not_in_the_view() {
    let base = Deal::from_seed(77).with_first(Colour::Blue);
    let mut other = base.clone();
    let r = Colour::Red;
    let j = (0..4)
        .find(|&j| other.removed[r][j] != other.reserve[r][0])
        .unwrap();
    let removed = other.removed[r][j];
    other.removed[r][j] = std::mem::replace(&mut other.reserve[r][0], removed);
    let cfg = || config("station_metal_x", Level::Beginner, Colour::Blue, 77);
    let (a, b) = (session_on(base, cfg()), session_on(other, cfg()));
    assert_eq!(a.to_move(), ToMove::Human);
    assert_eq!(json(&a.view()), json(&b.view()));
}

#[test]
fn cancelling_stops_a_long_bot_search_quickly() {
    let strong = Level::Strong.preset();
    let mut s = Session::with_player(
        SessionConfig {
            first: Some(Colour::Blue),
            ..config("castle_field", Level::Strong, Colour::Red, 6)
        },
        strong.player(),
        Budget::iterations(1_000_000_000),
    )
    .unwrap();
    let before = json(&s.view());
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        });
        s.advance(&stop)
    });
    let took = start.elapsed();
    assert_eq!(result, Err(SessionError::Cancelled));
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(json(&s.view()), before, "the bot has not decided");
}

/// The groups list every legal decision once, in the rules' order, each under the group of its
/// kind and tile: on every terrain, at every decision of a game.
#[test]
fn decision_groups_hold_every_legal_decision_in_order() {
    for terrain in builtin_terrains() {
        let mut s = Session::new(config(&terrain.key, Level::Beginner, Colour::Red, 31)).unwrap();
        let mut n = 0;
        while !s.is_over() {
            if s.to_move() == ToMove::Human {
                let legal: Vec<String> = s
                    .legal_decisions()
                    .iter()
                    .map(|d| d.notation(s.game().terrain()))
                    .collect();
                let groups = s.legal();
                let grouped: Vec<String> = groups
                    .iter()
                    .flat_map(|g| g.options.iter().map(|o| o.notation.clone()))
                    .collect();
                assert_eq!(grouped, legal, "{}", terrain.key);
                for g in &groups {
                    for o in &g.options {
                        assert!(o.notation.starts_with(g.label.split(' ').next().unwrap()));
                        if let Some(t) = g.troop {
                            assert!(o.notation.starts_with(&format!("place {t} ")));
                        }
                    }
                }
            }
            step(&mut s);
            n += 1;
            assert!(n < MAX_STEPS);
        }
    }
}

#[test]
fn advance_hands_each_step_over_as_it_is_taken() {
    let mut s = Session::new(SessionConfig {
        first: Some(Colour::Red),
        ..config("battlefield", Level::Beginner, Colour::Blue, 13)
    })
    .unwrap();
    let mut seen = Vec::new();
    let steps = s
        .advance_with(&AtomicBool::new(false), &mut |e| seen.push(e.clone()))
        .unwrap();
    assert!(!steps.is_empty());
    assert_eq!(seen, steps);
    assert_eq!(s.to_move(), ToMove::Human);
}

/// Thinking time per decision of each search level, against `beginner`: one game on each of
/// three terrains, the level blue, red, blue: the figures of `results/levels/think-times.md`. Wall time
/// depends on the machine's load, so process CPU time per decision is measured alongside it
/// (on an idle machine a level's wall time is its CPU time divided by its threads). Run with
/// `cargo test --release --test session -- --ignored level_think_times --nocapture`.
#[test]
#[ignore = "a measurement of minutes, run by hand in release"]
fn level_think_times() {
    use toybattle::info::EvidenceTracker;
    use toybattle::rules::{DecisionList, Referee};
    let terrains = ["castle_field", "caribbean_sea", "battlefield"];
    println!("| level | decisions | wall median | wall p90 | CPU median | CPU p90 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for level in [Level::Casual, Level::Strong, Level::Strongest] {
        let preset = level.preset();
        let opponent = Level::Beginner.preset();
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for (t, terrain) in terrains.iter().enumerate() {
            let game = Game::builtin(terrain, Variant::Normal).unwrap();
            {
                let level_colour = Colour::BOTH[t % 2];
                let deal = Deal::from_seed(1000 + t as u64);
                let mut state = game.initial_state(&deal);
                let mut evidence = EvidenceTracker::new(&game, &state);
                let mut referee = Referee::new(deal.clone());
                let mut seats = [preset.player(), opponent.player()];
                let mut k = 0;
                while !state.is_over() && state.turn() <= 300 {
                    let d = if state.is_chance() {
                        referee.resolve(&game, &state)
                    } else {
                        let c = state.active();
                        let seat = usize::from(c != level_colour);
                        let mut legal = DecisionList::new();
                        game.legal_decisions(&state, &mut legal);
                        let (w0, c0) = (Instant::now(), process_cpu());
                        let choice = seats[seat].decide(
                            &game,
                            &state,
                            evidence.about(c.opponent()),
                            preset.budget,
                            k,
                        );
                        k += 1;
                        if seat == 0 && legal.len() > 1 {
                            wall.push(w0.elapsed());
                            cpu.push(process_cpu() - c0);
                        }
                        choice.decision
                    };
                    let before = state;
                    game.apply(&mut state, d).unwrap();
                    evidence.step(&game, &before, d, &state);
                }
            }
        }
        let q = |v: &mut Vec<Duration>, p: f64| {
            v.sort();
            v[((v.len() - 1) as f64 * p).round() as usize].as_secs_f64()
        };
        println!(
            "| {level} | {} | {:.3} s | {:.3} s | {:.3} s | {:.3} s |",
            wall.len(),
            q(&mut wall, 0.5),
            q(&mut wall, 0.9),
            q(&mut cpu, 0.5),
            q(&mut cpu, 0.9)
        );
    }
}

/// CPU time used by this process so far (user and system, all threads), from /proc.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    // After the command name: state is field 3, utime 14 and stime 15 (1-based, in clock ticks).
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10) // 100 ticks per second on Linux
}
