//! Game review: the error and luck arithmetic on hand-built positions, a whole record reviewed,
//! cancelled and refused.

mod session_support;

use session_support::hidden_twin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::preset::resolve;
use toybattle::bot::Budget;
use toybattle::info::EvidenceTracker;
use toybattle::record::position::Position;
use toybattle::record::GameRecord;
use toybattle::review::{
    review, review_step, ErrorClass, ReviewError, ReviewOptions, StepReview, BLUNDER, INACCURACY,
    MISTAKE,
};
use toybattle::rules::{Colour, Deal, Decision, Game, State, Troop, Variant};
use toybattle::session::{Level, Session, ToMove};

/// Castle Field, turn 10, blue to move. Blue's chain 11-13-17-22-24 reaches red's HQ 41: placing
/// any tile there wins at once. Red's chain 25-23-19-14-12 reaches blue's HQ 1 the same way, so
/// a blue decision that does not win lets red win next turn.
const RACE: &str = r#"{
  "format": "toybattle-position/1",
  "terrain": "castle_field",
  "to_move": "blue",
  "turn": 10,
  "stacks": {
    "11": ["blue:Kwak"], "13": ["blue:Hook"], "17": ["blue:Jumbo"], "22": ["blue:Capn"],
    "24": ["blue:Skully"],
    "25": ["red:Kwak"], "23": ["red:Hook"], "19": ["red:Jumbo"], "14": ["red:Capn"],
    "12": ["red:Skully"]
  },
  "racks": { "blue": ["Roxy", "Star", "Kwak"], "red": ["Roxy", "Star", "Kwak"] }
}"#;

fn position(text: &str) -> (Game, State) {
    Position::parse(text).unwrap().to_game_state(None).unwrap()
}

fn options() -> ReviewOptions {
    ReviewOptions::default().with_iterations(1_000)
}

fn decision(game: &Game, state: &State, taken: &str) -> StepReview {
    let d = Decision::parse(taken, game.terrain()).unwrap();
    let evidence = EvidenceTracker::new(game, state);
    review_step(game, state, &evidence, d, (0, 0), &options()).unwrap()
}

#[test]
fn error_classes_follow_the_stated_thresholds() {
    assert_eq!(ErrorClass::of(0.0), None);
    assert_eq!(ErrorClass::of(INACCURACY - 1e-9), None);
    assert_eq!(ErrorClass::of(INACCURACY), Some(ErrorClass::Inaccuracy));
    assert_eq!(ErrorClass::of(MISTAKE), Some(ErrorClass::Mistake));
    assert_eq!(ErrorClass::of(BLUNDER - 1e-9), Some(ErrorClass::Mistake));
    assert_eq!(ErrorClass::of(BLUNDER), Some(ErrorClass::Blunder));
    assert_eq!(ErrorClass::of(1.0), Some(ErrorClass::Blunder));
}

#[test]
fn a_forced_win_missed_is_a_blunder() {
    let (game, state) = position(RACE);
    let StepReview::Decision(missed) = decision(&game, &state, "draw") else {
        panic!("blue had many decisions");
    };
    assert_eq!(missed.player, Colour::Blue);
    assert!(
        missed.best.ends_with(" 41"),
        "the best decision takes HQ 41: {missed:?}"
    );
    assert_eq!(missed.best_win, 1.0);
    // After the draw red takes blue's HQ at once in every line: the decision lost the game.
    assert!(missed.played_win < 0.05, "{missed:?}");
    assert!((missed.error - (missed.best_win - missed.played_win)).abs() < 1e-12);
    assert_eq!(missed.class, Some(ErrorClass::Blunder), "{missed:?}");
}

#[test]
fn the_winning_decision_has_no_error() {
    let (game, state) = position(RACE);
    let StepReview::Decision(won) = decision(&game, &state, "place Kwak 41") else {
        panic!("blue had many decisions");
    };
    assert_eq!(won.played_win, 1.0);
    assert_eq!(won.error, 0.0);
    assert_eq!(won.class, None);
}

/// The race position with blue drawing its second tile from a reserve of the given troops.
fn draw_position(reserve: &str) -> (Game, State) {
    let text = RACE.replace(
        r#""racks":"#,
        &format!(
            r#""phase": {{"chance": {{"draw": 1}}}}, "reserves": {{"blue": {reserve}}}, "racks":"#
        ),
    );
    position(&text)
}

fn chance(game: &Game, state: &State, troop: Troop) -> toybattle::review::ChanceReview {
    let evidence = EvidenceTracker::new(game, state);
    match review_step(
        game,
        state,
        &evidence,
        Decision::Chance(troop),
        (3, 0),
        &options(),
    )
    .unwrap()
    {
        StepReview::Chance(c) => c,
        other => panic!("a draw is a chance event: {other:?}"),
    }
}

#[test]
fn a_draw_with_only_one_possible_outcome_has_zero_luck() {
    let (game, state) = draw_position(r#"["Roxy", "Roxy"]"#);
    let c = chance(&game, &state, Troop::Roxy);
    assert_eq!(c.player, Colour::Blue);
    assert_eq!(c.outcomes, 1);
    assert_eq!(c.luck, 0.0, "{c:?}");
    assert_eq!(c.before, c.after);
}

#[test]
fn the_luck_of_a_draw_averages_zero_over_its_odds() {
    // Two Roxy and one Hook: the odds are 2/3 and 1/3.
    let (game, state) = draw_position(r#"["Roxy", "Roxy", "Hook"]"#);
    let roxy = chance(&game, &state, Troop::Roxy);
    let hook = chance(&game, &state, Troop::Hook);
    assert_eq!(roxy.outcomes, 2);
    assert_eq!(
        roxy.before, hook.before,
        "one estimate before, whatever came"
    );
    assert!((roxy.before - (2.0 * roxy.after + hook.after) / 3.0).abs() < 1e-12);
    assert!(
        (2.0 * roxy.luck + hook.luck).abs() < 1e-12,
        "{roxy:?} {hook:?}"
    );
    assert!((roxy.luck - (roxy.after - roxy.before)).abs() < 1e-15);
}

#[test]
fn a_step_the_rules_refuse_is_refused() {
    let (game, state) = position(RACE);
    let evidence = EvidenceTracker::new(&game, &state);
    let err = review_step(
        &game,
        &state,
        &evidence,
        Decision::Chance(Troop::Kwak),
        (0, 0),
        &options(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("chance Kwak"), "{err}");
}

/// A short game of two greedy bots, recorded.
fn greedy_game(seed: u64) -> (Game, GameRecord) {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let mut blue = resolve("greedy").unwrap().player();
    let mut red = resolve("greedy").unwrap().player();
    let played = play_game(
        &game,
        &Deal::from_seed(seed),
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    );
    (game, played.record)
}

#[test]
fn a_whole_game_is_reviewed_with_progress_and_totals() {
    let (game, record) = greedy_game(11);
    let calls = AtomicUsize::new(0);
    let last = AtomicUsize::new(0);
    let r = review(
        &game,
        &record,
        &ReviewOptions::default().with_iterations(300),
        &|p| {
            calls.fetch_add(1, Ordering::Relaxed);
            last.fetch_max(p.done, Ordering::Relaxed);
            assert!(p.done <= p.total);
        },
        None,
    )
    .unwrap();
    assert!(r.complete);
    assert_eq!(r.reviewed, r.total);
    assert_eq!(r.total, r.decisions.len() + r.chances.len());
    assert_eq!(calls.load(Ordering::Relaxed), r.total);
    assert_eq!(last.load(Ordering::Relaxed), r.total);
    assert!(!r.decisions.is_empty() && !r.chances.is_empty());
    for d in &r.decisions {
        assert!((d.error - (d.best_win - d.played_win).max(0.0)).abs() < 1e-12);
        assert_eq!(d.class, ErrorClass::of(d.error));
    }
    for (colour, t) in Colour::BOTH.into_iter().zip(&r.totals) {
        let mine: Vec<_> = r.decisions.iter().filter(|d| d.player == colour).collect();
        assert_eq!(t.decisions, mine.len());
        let error: f64 = mine.iter().map(|d| d.error).sum();
        assert!((t.error - error).abs() < 1e-9);
        assert_eq!(t.skill, -t.error);
        let luck: f64 = r
            .chances
            .iter()
            .filter(|c| c.player == colour)
            .map(|c| c.luck)
            .sum();
        assert!((t.luck - luck).abs() < 1e-9);
        assert!((0.0..=100.0).contains(&t.accuracy));
        assert!(
            t.verdict.starts_with(&format!("{colour} (greedy) lost ")),
            "{}",
            t.verdict
        );
    }
    // The steps in order, and the result at the end of the graph.
    assert!(r.graph.windows(2).all(|w| w[0].step <= w[1].step));
    let winner = record.result.winner.unwrap();
    let end = r.graph.last().unwrap();
    assert_eq!(end.blue, if winner == Colour::Blue { 1.0 } else { 0.0 });

    // The same options give the same review, whatever the threads did.
    let again = review(
        &game,
        &record,
        &ReviewOptions::default().with_iterations(300),
        &|_| {},
        None,
    )
    .unwrap();
    assert_eq!(again, r);
}

#[test]
fn a_cancelled_review_keeps_what_it_computed_and_says_so() {
    let (game, record) = greedy_game(12);
    let stop = AtomicBool::new(false);
    let r = review(
        &game,
        &record,
        &ReviewOptions::default().with_iterations(300),
        &|p| {
            if p.done >= 5 {
                stop.store(true, Ordering::Relaxed);
            }
        },
        Some(&stop),
    )
    .unwrap();
    assert!(!r.complete);
    assert!(
        r.reviewed >= 5 && r.reviewed < r.total,
        "{} of {}",
        r.reviewed,
        r.total
    );
    assert_eq!(r.reviewed, r.decisions.len() + r.chances.len());
    assert!(r.totals.iter().all(|t| t.verdict.ends_with("(so far)")));
}

#[test]
fn a_record_that_does_not_replay_is_refused_before_any_search() {
    let (game, mut record) = greedy_game(13);
    let searched = AtomicUsize::new(0);
    let count = |_: toybattle::review::Progress| {
        searched.fetch_add(1, Ordering::Relaxed);
    };
    let options = ReviewOptions::default().with_iterations(100);

    let mut truncated = record.clone();
    truncated.steps.truncate(10);
    let err = review(&game, &truncated, &options, &count, None).unwrap_err();
    assert!(matches!(err, ReviewError::Replay(_)));
    assert!(
        err.to_string().contains("steps end before the game does"),
        "{err}"
    );

    let mut illegal = record.clone();
    illegal.steps[4] = "place Roxy 41".into();
    let err = review(&game, &illegal, &options, &count, None).unwrap_err();
    assert!(
        err.to_string().starts_with("step 4 ('place Roxy 41')"),
        "{err}"
    );

    record.terrain_fingerprint = Some("0000000000000000".into());
    let err = review(&game, &record, &options, &count, None).unwrap_err();
    assert!(matches!(err, ReviewError::Terrain(_)), "{err}");
    assert_eq!(searched.load(Ordering::Relaxed), 0);
}

/// Lets the bot and chance move until the human decides, then takes the human's decision
/// picked by the number of steps so far (the same on twin games).
fn human_step(session: &mut Session) {
    let stop = AtomicBool::new(false);
    match session.to_move() {
        ToMove::Human => {
            let legal = session.legal_decisions();
            let n = session.view().log.len();
            session
                .apply_decision(legal[(n * 7) % legal.len()])
                .unwrap();
        }
        ToMove::Bot | ToMove::Chance => {
            session.advance(&stop).unwrap();
        }
        ToMove::Over => {}
    }
}

#[test]
fn during_a_game_the_review_shows_only_the_humans_own_decisions() {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let base = Deal::from_seed(21);
    // The twin differs only in tiles nobody has seen: the last tile of each reserve.
    let twin = hidden_twin(&base);
    let mut a = Session::on_deal(game.clone(), Level::Beginner, Colour::Blue, base).unwrap();
    let mut b = Session::on_deal(game, Level::Beginner, Colour::Blue, twin).unwrap();
    let options = ReviewOptions::default().with_iterations(300);
    let mut reviewed = 0;
    for _ in 0..12 {
        let view = a.view();
        if view.reserve.blue == 0 || view.reserve.red == 0 || a.is_over() {
            break; // the swapped tiles may be drawn from here on
        }
        let ra = a.review(&options, &|_| {}, None);
        let rb = b.review(&options, &|_| {}, None);
        // Nothing hidden reaches the review: twin games give the same one.
        assert_eq!(
            serde_json::to_string(&ra).unwrap(),
            serde_json::to_string(&rb).unwrap()
        );
        assert!(
            ra.chances.is_empty(),
            "no chance event while the game goes on"
        );
        assert!(ra.decisions.iter().all(|d| d.player == Colour::Blue));
        assert!(ra.graph.iter().all(|p| p.player == Some(Colour::Blue)));
        let red = &ra.totals[1];
        assert_eq!((red.decisions, red.forced, red.chance_events), (0, 0, 0));
        reviewed = reviewed.max(ra.decisions.len());
        human_step(&mut a);
        human_step(&mut b);
    }
    assert!(
        reviewed >= 2,
        "only {reviewed} decisions of the human reviewed"
    );

    // Once the game is over, the computer's decisions and every chance event are reviewed.
    while !a.is_over() {
        human_step(&mut a);
    }
    let end = a.review(&options, &|_| {}, None);
    assert!(end.decisions.iter().any(|d| d.player == Colour::Red));
    assert!(!end.chances.is_empty());
    assert!(end.complete);
}

#[test]
fn the_coach_judges_the_humans_last_decision_as_the_review_does() {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let deal = Deal::from_seed(33).with_first(Colour::Blue);
    let mut session = Session::on_deal(game, Level::Beginner, Colour::Blue, deal).unwrap();
    let options = ReviewOptions::default().with_iterations(300);
    assert_eq!(
        session.coach(&options),
        None,
        "no decision of the human yet"
    );
    let mut judged = 0;
    for _ in 0..6 {
        while !matches!(session.to_move(), ToMove::Human | ToMove::Over) {
            human_step(&mut session);
        }
        if session.is_over() {
            break;
        }
        human_step(&mut session);
        let review = session.review(&options, &|_| {}, None);
        match session.coach(&options) {
            Some(d) => {
                assert_eq!(d.player, Colour::Blue);
                assert_eq!(
                    Some(&d),
                    review.decisions.last(),
                    "the coach and the review agree"
                );
                judged += 1;
            }
            // A forced decision is not searched, so the review has none for that step.
            None => assert!(review.decisions.last().is_none_or(|d| d.step
                < session
                    .view()
                    .log
                    .iter()
                    .rposition(|e| e.actor == Some(Colour::Blue))
                    .unwrap())),
        }
    }
    assert!(judged >= 3, "only {judged} decisions judged");
    // Once the decision is taken back, the coach speaks of an earlier one, if any.
    if session.undo().is_ok() {
        let steps = session.view().log.len();
        assert!(session.coach(&options).is_none_or(|d| d.step < steps));
    }
}

/// One figure at one moment (issue 31): at the human's turn start the win history's point, the
/// hint's figure and the review's point for the human's decision are the same estimate.
#[test]
fn the_history_the_hint_and_the_review_show_one_figure_at_one_moment() {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let deal = Deal::from_seed(44).with_first(Colour::Red);
    let mut session = Session::on_deal(game, Level::Beginner, Colour::Blue, deal).unwrap();
    let stop = AtomicBool::new(false);
    session.advance(&stop).unwrap(); // red's first turn: the human decides next
    assert_eq!(session.to_move(), ToMove::Human);
    let steps = session.view().log.len();
    let point = *session.view().win_history.last().unwrap();
    assert_eq!(point.step, steps, "a point at the human's turn start");

    let hint = session.hint(Budget::iterations(200), &stop).unwrap();
    assert_eq!(
        hint.win,
        Some(point.human),
        "the hint's figure is the history's"
    );

    let first = session.legal_decisions()[0];
    session.apply_decision(first).unwrap();
    let r = session.review(
        &ReviewOptions::default().with_iterations(200),
        &|_| {},
        None,
    );
    let at = r.graph.iter().find(|p| p.step == steps).unwrap();
    assert_eq!(at.blue, point.human, "the review's point is the history's");
    // The hint's candidate taken has the figure the review gives the decision played.
    let notation = first.notation(session.game().terrain());
    let candidate = hint.candidates.iter().find(|c| c.decision == notation);
    let d = r.decisions.iter().find(|d| d.step == steps).unwrap();
    assert_eq!(candidate.map(|c| c.value), Some(d.played_win));
}

/// The review's work runs on its own pool, of the size asked, and gives the same review
/// whatever that size.
#[test]
fn a_review_runs_on_its_own_pool_of_the_threads_asked() {
    let (game, record) = greedy_game(14);
    let options = |threads| ReviewOptions {
        threads,
        ..ReviewOptions::default().with_iterations(100)
    };
    let names = std::sync::Mutex::new(Vec::new());
    let on_pool = |_: toybattle::review::Progress| {
        let name = std::thread::current().name().map(str::to_string);
        names.lock().unwrap().push(name);
    };
    let one = review(&game, &record, &options(1), &on_pool, None).unwrap();
    let three = review(&game, &record, &options(3), &on_pool, None).unwrap();
    assert_eq!((one.threads, three.threads), (1, 3));
    let names = names.into_inner().unwrap();
    assert!(
        names
            .iter()
            .all(|n| n.as_deref().is_some_and(|n| n.starts_with("review-"))),
        "reviewed off the review's pool: {names:?}"
    );
    assert_eq!(
        toybattle::review::Review {
            threads: 1,
            ..three
        },
        one
    );
}

/// A review searches as the `strong` level does, with its budget, but one thread a search:
/// it runs decisions side by side, one per core, and a level's second thread would only take
/// a core from another decision (and with one thread the shared tree is the plain tree).
#[test]
fn a_review_searches_as_the_strong_level_on_one_thread() {
    let options = ReviewOptions::default();
    let strong = toybattle::session::Level::Strong.preset();
    assert_eq!(options.config.threads, 1);
    assert_eq!(options.budget, strong.budget);
    match strong.config {
        toybattle::bot::preset::BotConfig::Search { config, .. } => {
            assert_eq!(config.threads, 2, "the level itself keeps both cores");
            assert_eq!(
                toybattle::bot::search::SearchConfig {
                    threads: 1,
                    ..config
                },
                options.config
            );
        }
        other => panic!("strong is a search, not {other:?}"),
    }
}
