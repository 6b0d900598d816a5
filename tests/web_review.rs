//! The page's game review over HTTP (`/api/games/{id}/review`, `/api/replay/review`,
//! `/api/reviews/{id}`): a finished game's review covers every decision and chance event, a
//! review during the game only the human's own decisions and nothing hidden, a cancelled review
//! keeps what it computed, and bad requests get errors in words. Small budgets keep it fast.

mod session_support;
mod web_support;

use serde_json::Value;
use session_support::hidden_twin;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use toybattle::record::GameRecord;
use toybattle::review::ReviewOptions;
use toybattle::rules::{Colour, Decision, Game, Variant};
use toybattle::session::{Level, Session, ToMove};
use toybattle::web::review::ReviewView;
use toybattle::web::GameView;
use web_support::{get, http, post, server};

/// Search iterations per decision in these tests: enough to rank, small enough to stay fast.
const ITERATIONS: u64 = 20;

/// The human's first legal decision in a game's answer.
fn first_option(game: &Value) -> String {
    game["legal"][0]["options"][0]["notation"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Polls a review until it stops; its last status.
fn wait(addr: SocketAddr, status: Value) -> Value {
    let id = status["id"].as_str().unwrap().to_string();
    let mut status = status;
    for _ in 0..20_000 {
        if status["running"] == false {
            return status;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        let reply = get(addr, &format!("/api/reviews/{id}"));
        assert_eq!(reply.status, 200, "{}", reply.body);
        status = reply.json();
        let (done, total) = (status["done"].as_u64(), status["total"].as_u64());
        assert!(
            done <= total || total == Some(0),
            "progress {done:?} of {total:?}"
        );
    }
    panic!("the review did not stop");
}

/// Starts a review with `call` and waits for it; the finished review.
fn reviewed(addr: SocketAddr, call: &str, body: &str) -> Value {
    let started = post(addr, call, body);
    assert_eq!(started.status, 200, "{}", started.body);
    let status = wait(addr, started.json());
    assert!(status["failure"].is_null(), "{status}");
    assert_eq!(status["cancelled"], false);
    status["review"].clone()
}

/// Plays a game against `beginner` through the API, the human taking the first legal decision;
/// after the human's third decision, `during` is called with the game's id.
fn play(addr: SocketAddr, terrain: &str, seed: u64, mut during: impl FnMut(&str)) -> String {
    let body = format!(r#"{{"terrain": "{terrain}", "level": "beginner", "seed": {seed}}}"#);
    let mut game = post(addr, "/api/games", &body).json();
    let id = game["id"].as_str().unwrap().to_string();
    let mut decided = 0;
    for _ in 0..5000 {
        let at = |call: &str| format!("/api/games/{id}/{call}");
        let reply = match game["view"]["to_move"].as_str().unwrap() {
            "over" => return id,
            _ if !game["thinking"].is_null() => {
                std::thread::sleep(std::time::Duration::from_millis(2));
                get(addr, &format!("/api/games/{id}"))
            }
            "bot" | "chance" => post(addr, &at("bot"), ""),
            "human" => {
                if decided == 3 {
                    during(&id);
                }
                decided += 1;
                let d = first_option(&game);
                post(addr, &at("decision"), &format!(r#"{{"decision": "{d}"}}"#))
            }
            other => panic!("unexpected to_move {other}"),
        };
        assert_eq!(reply.status, 200, "{}", reply.body);
        game = reply.json();
    }
    panic!("the game did not end");
}

/// The record's steps split into decisions and chance events, as the rules replay them.
fn count_steps(record: &GameRecord) -> (usize, usize) {
    let game = Game::builtin(&record.terrain, record.variant).unwrap();
    let mut state = game.initial_state(&record.deal);
    let (mut decisions, mut chances) = (0, 0);
    for step in &record.steps {
        match state.is_chance() {
            true => chances += 1,
            false => decisions += 1,
        }
        let d = Decision::parse(step, game.terrain()).unwrap();
        game.apply(&mut state, d).unwrap();
    }
    (decisions, chances)
}

/// A finished review covers every step: searched decisions plus forced ones are the record's
/// decisions, every chance event is there, and every decision is drawn with its nodes.
fn assert_whole(review: &Value, record: &GameRecord) {
    let (decisions, chances) = count_steps(record);
    let forced: u64 = review["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["forced"].as_u64().unwrap())
        .sum();
    let reviewed = review["decisions"].as_array().unwrap();
    assert_eq!(
        reviewed.len() + forced as usize,
        decisions,
        "every decision"
    );
    assert_eq!(review["chances"].as_array().unwrap().len(), chances);
    assert!(chances > 0, "a game has draws");
    assert_eq!(review["complete"], true);
    assert_eq!(review["reviewed"], review["total"]);
    assert_eq!(review["iterations"], ITERATIONS);
    let shown = review["shown"].as_array().unwrap();
    assert_eq!(shown.len(), reviewed.len());
    for (d, s) in reviewed.iter().zip(shown) {
        assert_eq!(d["step"], s["step"]);
        assert_eq!(d["played"], s["played"]["notation"]);
        assert_eq!(d["best"], s["best"]["notation"]);
        assert_eq!(
            record.steps[d["step"].as_u64().unwrap() as usize],
            d["played"]
        );
        assert_ne!(s["best"]["kind"], "unknown");
    }
    for who in ["blue", "red"] {
        assert!(
            review["decisions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["player"] == who),
            "{who}'s decisions are reviewed once the game is over"
        );
    }
    assert_eq!(
        review["graph"].as_array().unwrap().last().unwrap()["step"],
        record.steps.len()
    );
}

#[test]
fn a_finished_games_review_has_every_decision_and_chance_event_and_so_has_its_record() {
    let (addr, _) = server("review-finished", 8);
    let mut during = None;
    let id = play(addr, "castle_field", 11, |id| {
        let call = format!("/api/games/{id}/review?iterations={ITERATIONS}");
        during = Some(reviewed(addr, &call, ""));
    });
    // During the game: only the human's own decisions, no chance event.
    let during = during.expect("a review during the game");
    let human = during["decisions"][0]["player"].clone();
    assert!(human == "blue" || human == "red", "{during}");
    assert!(during["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["player"] == human));
    assert_eq!(during["chances"].as_array().unwrap().len(), 0);

    let review = reviewed(
        addr,
        &format!("/api/games/{id}/review?iterations={ITERATIONS}"),
        "",
    );
    let text = get(addr, &format!("/api/games/{id}/record")).body;
    let record: GameRecord = serde_json::from_str(&text).unwrap();
    assert_whole(&review, &record);

    // The same record opened in the replay viewer: the same coverage.
    let again = reviewed(
        addr,
        &format!("/api/replay/review?iterations={ITERATIONS}"),
        &text,
    );
    assert_whole(&again, &record);
}

/// Reviews of two games that differ only in tiles nobody has seen are the same answer while
/// the game goes on: the review searches the human's observations, never the computer's tiles.
#[test]
fn a_review_during_the_game_shows_only_the_humans_decisions_and_nothing_hidden() {
    let options = ReviewOptions::default().with_iterations(ITERATIONS);
    let stop = AtomicBool::new(false);
    let game = || Game::builtin("cursed_cemetery", Variant::Normal).unwrap();
    let base = game().deal(21);
    let other = hidden_twin(&base);
    let mut a = Session::on_deal(game(), Level::Beginner, Colour::Blue, base).unwrap();
    let mut b = Session::on_deal(game(), Level::Beginner, Colour::Blue, other).unwrap();
    let mut compared = 0;
    while !a.is_over() {
        let reserve = GameView::of("g", &a).view.reserve;
        if reserve.blue == 0 || reserve.red == 0 {
            break; // the swapped tiles are drawn: the games may part from here on
        }
        match a.to_move() {
            ToMove::Human => {
                let (ra, rb) = (
                    ReviewView::of_session(&a, &options),
                    ReviewView::of_session(&b, &options),
                );
                assert!(ra.review.decisions.iter().all(|d| d.player == Colour::Blue));
                assert!(ra.review.chances.is_empty());
                assert_eq!(
                    serde_json::to_string(&ra).unwrap(),
                    serde_json::to_string(&rb).unwrap(),
                    "after {compared} reviews"
                );
                compared += 1;
                let d = a.legal()[0].options[0].notation.clone();
                a.apply(&d).unwrap();
                b.apply(&d).unwrap();
            }
            _ => {
                a.advance(&stop).unwrap();
                b.advance(&stop).unwrap();
            }
        }
    }
    assert!(compared >= 5, "only {compared} reviews compared");
}

#[test]
fn a_cancelled_review_keeps_what_it_computed_and_says_so() {
    let (addr, _) = server("review-cancel", 8);
    let id = play(addr, "castle_field", 12, |_| {});
    let record = get(addr, &format!("/api/games/{id}/record")).body;
    let started = post(addr, "/api/replay/review?iterations=20000", &record);
    assert_eq!(started.status, 200, "{}", started.body);
    let rid = started.json()["id"].as_str().unwrap().to_string();
    let cancelled = post(addr, &format!("/api/reviews/{rid}/cancel"), "");
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    assert_eq!(cancelled.json()["cancelled"], true);
    let status = wait(addr, cancelled.json());
    let review = &status["review"];
    assert_eq!(review["complete"], false, "{status}");
    let reviewed = review["reviewed"].as_u64().unwrap();
    assert!(reviewed < review["total"].as_u64().unwrap());
    let kept =
        review["decisions"].as_array().unwrap().len() + review["chances"].as_array().unwrap().len();
    assert!(
        kept as u64 <= reviewed,
        "what it computed is kept: {kept} of {reviewed}"
    );
}

#[test]
fn bad_review_requests_are_refused_in_words() {
    let (addr, saves) = server("review-bad", 8);
    let created = post(
        addr,
        "/api/games",
        r#"{"terrain": "castle_field", "level": "beginner", "seed": 3}"#,
    );
    let id = created.json()["id"].as_str().unwrap().to_string();
    let refused = |method: &str, path: &str, body: &str, status: u16, words: &str| {
        let r = http(addr, method, path, Some(body));
        assert_eq!(r.status, status, "{path}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(error.contains(words), "{path}: {error}");
    };
    let call = format!("/api/games/{id}/review");
    refused(
        "POST",
        &format!("{call}?iterations=0"),
        "",
        400,
        "1 to 200000",
    );
    refused("POST", &format!("{call}?iterations=x"), "", 400, "'x'");
    refused(
        "POST",
        &format!("{call}?budget=3"),
        "",
        400,
        "unknown review option 'budget'",
    );
    refused(
        "POST",
        "/api/games/nope/review",
        "",
        404,
        "no game with id 'nope'",
    );
    refused(
        "GET",
        "/api/reviews/nope",
        "",
        404,
        "no review with id 'nope'",
    );
    refused(
        "POST",
        "/api/reviews/nope/cancel",
        "",
        404,
        "no review with id 'nope'",
    );
    refused("POST", "/api/replay/review", "{not json", 400, "not JSON");
    // A save of an unfinished game is not reviewed in the viewer: it would show the computer's
    // decisions of a game that can still be played.
    let saved = post(addr, &format!("/api/games/{id}/save"), "").json();
    let name = saved["name"].as_str().unwrap();
    let text = std::fs::read_to_string(saves.join(format!("{name}.json"))).unwrap();
    refused("POST", "/api/replay/review", &text, 400, "unfinished game");
}

/// A review on the server runs on a pool as large as `--search-threads` (the cores the games'
/// searches share), not on every core of the machine.
#[test]
fn a_review_on_the_server_runs_on_the_search_threads_it_is_given() {
    let data = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-review-threads");
    let _ = std::fs::remove_dir_all(&data);
    let config = toybattle::web::Config {
        saves: data.join("saves"),
        data: data.join("data"),
        search_threads: Some(1),
        ..toybattle::web::Config::default()
    };
    let addr = toybattle::web::spawn("127.0.0.1:0", config).unwrap().addr;
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let mut blue = toybattle::bot::preset::resolve("greedy").unwrap().player();
    let mut red = toybattle::bot::preset::resolve("greedy").unwrap().player();
    let played = toybattle::bot::play::play_game(
        &game,
        &toybattle::rules::Deal::from_seed(5),
        &mut [&mut blue, &mut red],
        &toybattle::bot::play::PlayConfig::default(),
    );
    let text = serde_json::to_string(&played.record).unwrap();
    let review = reviewed(
        addr,
        &format!("/api/replay/review?iterations={ITERATIONS}"),
        &text,
    );
    assert_eq!(review["threads"], 1, "{}", review["threads"]);
    assert_eq!(review["complete"], true);
}
