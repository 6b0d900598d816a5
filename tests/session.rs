//! The game-session layer: a human (scripted here) against a level's bot.

use std::sync::atomic::AtomicBool;
use toybattle::rules::{Colour, Game, Variant};
use toybattle::session::{Level, Session, SessionConfig, ToMove};

fn config(terrain: &str, level: Level, human: Colour, seed: u64) -> SessionConfig {
    SessionConfig {
        game: Game::builtin(terrain, Variant::Normal).unwrap(),
        level,
        human,
        first: None,
        seed,
    }
}

/// Plays to the end, the human always taking their first legal decision.
fn play_out(session: &mut Session) {
    let stop = AtomicBool::new(false);
    while !session.is_over() {
        match session.to_move() {
            ToMove::Human => {
                let first = session.legal()[0].options[0].notation.clone();
                session.apply(&first).unwrap();
            }
            _ => {
                session.advance(&stop).unwrap();
            }
        }
    }
}

#[test]
fn a_game_against_beginner_reaches_its_end() {
    let mut s = Session::new(config("castle_field", Level::Beginner, Colour::Blue, 3)).unwrap();
    play_out(&mut s);
    let view = s.view();
    assert!(view.result.is_some());
    assert_eq!(view.to_move, ToMove::Over);
}
