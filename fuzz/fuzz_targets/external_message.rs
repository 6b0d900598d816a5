//! Reads any line as an external bot's answer: never a panic; an answer naming a decision the
//! rules list applies and keeps every invariant.
//!
//! Input: a byte naming the game, a byte of deal seed, a byte of random steps, then the line.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toybattle::bot::external::parse_answer;
use toybattle::rules::{Decision, DecisionList};

fuzz_target!(|data: &[u8]| {
    let [which, seed, steps, line @ ..] = data else {
        return;
    };
    let Ok(line) = std::str::from_utf8(line) else {
        return;
    };
    let Ok(text) = parse_answer(line) else {
        return;
    };
    let game = common::game(*which);
    let Ok(d) = Decision::parse(&text, game.terrain()) else {
        return;
    };
    let mut s = common::random_state(game, *seed as u64, *steps % 64);
    let mut legal = DecisionList::new();
    game.legal_decisions(&s, &mut legal);
    if legal.contains(&d) {
        common::apply_legal(game, &mut s, d);
    }
});
