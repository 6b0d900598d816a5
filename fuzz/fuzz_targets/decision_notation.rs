//! Reads any text as a decision on a shipped terrain: reading never panics; a decision read
//! writes back to text that reads the same; on a state some random steps into a game, a legal
//! one applies and keeps every invariant, an illegal one is refused and changes nothing.
//!
//! Input: a byte naming the game, a byte of deal seed, a byte of random steps, then the text.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toybattle::rules::Decision;

fuzz_target!(|data: &[u8]| {
    let [which, seed, steps, text @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let game = common::game(*which);
    let terrain = game.terrain();
    let Ok(d) = Decision::parse(text, terrain) else {
        return;
    };
    let written = d.notation(terrain);
    assert_eq!(
        Decision::parse(&written, terrain),
        Ok(d),
        "'{text}' reads as {d:?}, written '{written}'"
    );
    let s = common::random_state(game, *seed as u64, *steps % 64);
    if game.is_legal(&s, d) {
        let mut after = s;
        common::apply_legal(game, &mut after, d);
    } else {
        let mut after = s;
        assert!(
            game.apply(&mut after, d).is_err(),
            "illegal '{written}' accepted"
        );
        assert_eq!(after, s, "refused '{written}' changed the state");
    }
});
