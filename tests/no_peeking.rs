//! No sequence of ordinary actions (undo, save, load, resign, a known seed) shows a hidden tile of
//! a game that can still be played (docs/play.md, "What a player can learn, and when"). These are
//! the session layer's tests; tests/web_api.rs and tests/play_cli.rs drive the same sequences
//! through the page's API and the terminal game.

use std::sync::atomic::AtomicBool;
use toybattle::rules::{Colour, Game, Variant};
use toybattle::session::{
    Level, Session, SessionConfig, SessionError, ShownDeals, ToMove, UndoRefused,
};

/// Longest game the tests play, in steps: far beyond any real game.
const MAX_STEPS: usize = 3000;

/// A game against `beginner` on Castle Field; `seed_chosen` as the player would have it.
fn game(seed: u64, seed_chosen: bool, shown: &ShownDeals) -> Session {
    let mut session = Session::new(SessionConfig {
        game: Game::builtin("castle_field", Variant::Normal).unwrap(),
        level: Level::Beginner,
        human: Colour::Blue,
        first: None,
        seed,
        seed_chosen,
    })
    .unwrap();
    session.guard_deal(shown.clone()).unwrap();
    session
}

/// Lets the bot and chance move until the human decides.
fn settle(session: &mut Session) {
    session.advance(&AtomicBool::new(false)).unwrap();
}

/// The human's first legal decision, then the bot's answer: one round.
fn round(session: &mut Session) {
    let d = session.legal_decisions()[0];
    session.apply_decision(d).unwrap();
    settle(session);
}

/// A copy of the game as a save would make it: the record, loaded again.
fn copy(session: &Session, shown: &ShownDeals) -> Result<Session, SessionError> {
    let text = serde_json::to_string(&session.record()).unwrap();
    let mut copy = Session::load_json(&text)?;
    copy.guard_deal(shown.clone())?;
    Ok(copy)
}

/// Undo after the end: the end shows the deal (the record, the computer's candidates), so a
/// finished game cannot be taken back into play. The choice is written in docs/play.md.
#[test]
fn undo_after_the_game_is_over_is_refused_and_changes_nothing() {
    let shown = ShownDeals::in_memory();
    let mut s = game(3, false, &shown);
    settle(&mut s);
    let mut n = 0;
    while !s.is_over() {
        match s.to_move() {
            ToMove::Human => round(&mut s),
            _ => settle(&mut s),
        }
        n += 1;
        assert!(n < MAX_STEPS, "the game does not end");
    }
    let before = serde_json::to_string(&s.view()).unwrap();
    assert_eq!(s.can_undo(), Err(UndoRefused::GameOver));
    assert_eq!(s.undo(), Err(UndoRefused::GameOver));
    assert_eq!(serde_json::to_string(&s.view()).unwrap(), before);
    assert!(!s.view().undo.available);
}

/// Save, load the save (a second live game), resign the copy: the copy's end shows the deal, so
/// the original ends without a winner and no copy of it can be resumed.
#[test]
fn a_copy_that_ends_voids_the_original_and_every_other_copy() {
    let shown = ShownDeals::in_memory();
    let mut original = game(1234, false, &shown);
    settle(&mut original);
    round(&mut original);
    let mut resigned = copy(&original, &shown).unwrap();
    let second_save = serde_json::to_string(&original.record()).unwrap();
    let d = original.legal_decisions()[0];

    resigned.resign().unwrap();
    assert!(resigned.is_over());
    assert!(shown.contains(&resigned.record().deal).unwrap());

    // The original can no longer be played, shows it at once, and says why.
    assert_eq!(original.to_move(), ToMove::Over);
    assert!(original.legal_decisions().is_empty());
    assert_eq!(original.apply_decision(d), Err(SessionError::DealShown));
    assert_eq!(original.to_move(), ToMove::Over);
    let result = original.view().result.unwrap();
    assert_eq!((result.winner, result.end.as_str()), (None, "void"));
    assert_eq!(original.undo(), Err(UndoRefused::GameOver));
    assert!(matches!(
        original.hint(Session::hint_budget(), &AtomicBool::new(false)),
        Err(SessionError::DealShown | SessionError::GameOver)
    ));
    // Its record replays as unfinished, and no save of it resumes.
    assert_eq!(original.record().result.end, "unfinished");
    let mut again = Session::load_json(&second_save).unwrap();
    assert_eq!(
        again.guard_deal(shown.clone()),
        Err(SessionError::DealShown)
    );
}

/// Two saves of one position: ending one (by the rules, not only by resigning) shows the deal,
/// and the other refuses to resume.
#[test]
fn two_saves_of_one_position_cannot_both_be_played() {
    let shown = ShownDeals::in_memory();
    let mut original = game(77, false, &shown);
    settle(&mut original);
    let mut first = copy(&original, &shown).unwrap();
    let second = serde_json::to_string(&original.record()).unwrap();
    let mut n = 0;
    while !first.is_over() {
        match first.to_move() {
            ToMove::Human => round(&mut first),
            _ => settle(&mut first),
        }
        n += 1;
        assert!(n < MAX_STEPS, "the game does not end");
    }
    let mut second = Session::load_json(&second).unwrap();
    assert_eq!(
        second.guard_deal(shown.clone()),
        Err(SessionError::DealShown)
    );
}

/// The list lives in the data folder, so copies in two processes (the page and the terminal, two
/// terminals) see each other's ends: here two lists on one folder stand for two processes.
#[test]
fn copies_in_other_processes_see_the_end_through_the_data_folder() {
    let folder = std::env::temp_dir().join(format!("toybattle-no-peeking-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let here = ShownDeals::in_folder(&folder).unwrap();
    let there = ShownDeals::in_folder(&folder).unwrap();
    let mut original = game(4321, false, &here);
    settle(&mut original);
    let mut copy = copy(&original, &there).unwrap();
    copy.resign().unwrap();
    assert_eq!(
        original.advance(&AtomicBool::new(false)),
        Err(SessionError::DealShown)
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// A seed the program drew is not shown before the end; a seed the player chose is (replaying a
/// known deal is a feature), and such a game is not voided by a copy's end.
#[test]
fn a_drawn_seed_is_shown_only_at_the_end_and_a_chosen_one_is_a_known_deal() {
    let shown = ShownDeals::in_memory();
    let mut drawn = game(99, false, &shown);
    settle(&mut drawn);
    assert_eq!(drawn.seed(), None);
    drawn.resign().unwrap();
    assert_eq!(drawn.seed(), Some(99));

    let mut chosen = game(99, true, &shown);
    assert_eq!(chosen.seed(), Some(99));
    settle(&mut chosen);
    round(&mut chosen);
    assert!(!chosen.is_over(), "a chosen seed replays a known deal");
    // The choice survives a save: the loaded game still knows its seed was chosen.
    let loaded = copy(&chosen, &shown).unwrap();
    assert_eq!(loaded.seed(), Some(99));
}
