//! The page's API cannot be used to peek at a hidden tile of a game that can still be played
//! (docs/play.md, "What a player can learn, and when"): undo after the end, copies of a saved
//! game, and a seed the server drew. The same sequences through the session alone are in
//! tests/no_peeking.rs, through the terminal game in tests/play_cli.rs.

mod web_support;

use serde_json::Value;
use std::io::{Read, Write};
use std::net::SocketAddr;
use web_support::{get, http, post, server};

/// A new game against `beginner` with a seed the server draws; the game as answered.
fn new_game(addr: SocketAddr) -> Value {
    let r = post(
        addr,
        "/api/games",
        r#"{"terrain": "castle_field", "level": "beginner", "first": "bot"}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

fn id(game: &Value) -> String {
    game["id"].as_str().unwrap().to_string()
}

/// Lets the computer move, then waits (2 minutes at most) until the human decides or the game
/// is over.
fn bot_moves(addr: SocketAddr, id: &str) -> Value {
    let asked = post(addr, &format!("/api/games/{id}/bot"), "");
    assert_eq!(asked.status, 200, "{}", asked.body);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let game = get(addr, &format!("/api/games/{id}")).json();
        if game["thinking"].is_null() {
            return game;
        }
        assert!(std::time::Instant::now() < until, "still thinking: {game}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The human's first legal decision, in notation.
fn first_option(game: &Value) -> String {
    game["legal"][0]["options"][0]["notation"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Plays the game to its end, the human always taking the first legal decision.
fn play_to_end(addr: SocketAddr, mut game: Value) -> Value {
    let id = id(&game);
    for _ in 0..3000 {
        game = match game["view"]["to_move"].as_str().unwrap() {
            "over" => return game,
            "human" => {
                let d = first_option(&game);
                let r = post(
                    addr,
                    &format!("/api/games/{id}/decision"),
                    &format!(r#"{{"decision": "{d}"}}"#),
                );
                assert_eq!(r.status, 200, "{}", r.body);
                r.json()
            }
            _ => bot_moves(addr, &id),
        };
    }
    panic!("the game does not end: {game}");
}

#[test]
fn undo_after_the_game_is_over_is_refused() {
    let (addr, _) = server("no-peeking-undo", 4);
    let over = play_to_end(addr, new_game(addr));
    let id = id(&over);
    assert_eq!(over["view"]["undo"]["available"], false);
    let undo = post(addr, &format!("/api/games/{id}/undo"), "");
    assert_eq!(undo.status, 409, "{}", undo.body);
    assert!(undo.body.contains("the game is over"), "{}", undo.body);
    // Still over, and its record (with the deal) is offered as before.
    let game = get(addr, &format!("/api/games/{id}")).json();
    assert_eq!(game["view"]["to_move"], "over");
    assert_eq!(get(addr, &format!("/api/games/{id}/record")).status, 200);
}

#[test]
fn a_loaded_copy_that_is_resigned_ends_the_original_and_every_save_of_it() {
    let (addr, _) = server("no-peeking-copies", 8);
    let original = bot_moves(addr, &id(&new_game(addr)));
    let original_id = id(&original);
    let saves: Vec<String> = (0..2)
        .map(|_| {
            let r = post(addr, &format!("/api/games/{original_id}/save"), "");
            assert_eq!(r.status, 200, "{}", r.body);
            r.json()["name"].as_str().unwrap().to_string()
        })
        .collect();
    assert_ne!(saves[0], saves[1], "two saves get two names");

    // A second live game at the same position, resigned, and its record downloaded.
    let copy = post(addr, &format!("/api/saves/{}/load", saves[0]), "");
    assert_eq!(copy.status, 200, "{}", copy.body);
    let copy_id = id(&copy.json());
    let resigned = post(addr, &format!("/api/games/{copy_id}/resign"), "");
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    assert_eq!(
        get(addr, &format!("/api/games/{copy_id}/record")).status,
        200
    );

    // The original is over at once, without a winner, and refuses every step.
    let seen = get(addr, &format!("/api/games/{original_id}")).json();
    assert_eq!(seen["view"]["to_move"], "over", "{seen}");
    assert_eq!(seen["view"]["result"]["end"], "void");
    assert!(seen["view"]["result"]["winner"].is_null());
    assert!(seen["legal"].as_array().unwrap().is_empty());
    let d = first_option(&original);
    let refused = post(
        addr,
        &format!("/api/games/{original_id}/decision"),
        &format!(r#"{{"decision": "{d}"}}"#),
    );
    assert_eq!(refused.status, 409, "{}", refused.body);
    let undo = post(addr, &format!("/api/games/{original_id}/undo"), "");
    assert_eq!(undo.status, 409, "{}", undo.body);

    // Neither save resumes, and the list says why.
    for name in &saves {
        let load = post(addr, &format!("/api/saves/{name}/load"), "");
        assert_eq!(load.status, 409, "{}", load.body);
        assert!(load.body.contains("deal was shown"), "{}", load.body);
    }
    let list = get(addr, "/api/saves").json();
    for entry in list.as_array().unwrap() {
        assert_eq!(entry["playable"], false, "{entry}");
        assert!(entry["description"]
            .as_str()
            .unwrap()
            .contains("Castle Field"));
    }
}

#[test]
fn a_drawn_seed_is_never_sent_while_the_game_is_played() {
    let (addr, _) = server("no-peeking-seed", 4);
    let game = bot_moves(addr, &id(&new_game(addr)));
    let text = get(addr, &format!("/api/games/{}", id(&game))).body;
    assert!(!text.contains("seed"), "{text}");
}

#[test]
fn saves_are_named_after_the_game_and_can_be_deleted() {
    let (addr, saves) = server("no-peeking-names", 4);
    let game = bot_moves(addr, &id(&new_game(addr)));
    let game_id = id(&game);
    let name = post(addr, &format!("/api/games/{game_id}/save"), "").json()["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        name.starts_with("castle-field-20") && name.contains("-beginner-turn"),
        "{name}"
    );
    let deleted = http(addr, "DELETE", &format!("/api/saves/{name}"), None);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert!(!saves.join(format!("{name}.json")).exists());
    assert_eq!(deleted.json().as_array().unwrap().len(), 0);
    let again = http(addr, "DELETE", &format!("/api/saves/{name}"), None);
    assert_eq!(again.status, 404, "{}", again.body);

    // A finished game's download is named after the game too.
    post(addr, &format!("/api/games/{game_id}/resign"), "");
    let head = response_head(addr, &format!("/api/games/{game_id}/record"));
    assert!(
        head.contains("content-disposition: attachment; filename=\"toybattle-castle-field-20"),
        "{head}"
    );
}

/// The status line and headers of a GET, lower-cased.
fn response_head(addr: SocketAddr, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    text.split("\r\n\r\n").next().unwrap_or("").to_string()
}
