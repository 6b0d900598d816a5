//! Plays fuzzer-chosen decisions on every shipped terrain and variant: every decision the rules
//! list must apply, and every state reached must keep every invariant.
//!
//! Input: a byte naming the game, eight bytes of deal seed, then one byte per step (two when
//! more than 256 decisions are listed) choosing among the legal decisions, or at a chance event
//! among its possible outcomes.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toybattle::rules::{invariants, Deal, Decision, DecisionList};

/// The next choice among `len`, or `None` once the input is used up.
fn pick(bytes: &mut &[u8], len: usize) -> Option<usize> {
    let width = if len > 256 { 2 } else { 1 };
    let (head, rest) = bytes.split_at_checked(width)?;
    *bytes = rest;
    let value = head.iter().fold(0usize, |v, &b| v << 8 | b as usize);
    Some(value % len)
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Some((seed, mut choices)) = rest.split_first_chunk::<8>() else {
        return;
    };
    let game = common::game(which);
    let mut s = game.initial_state(&Deal::from_seed(u64::from_le_bytes(*seed)));
    if let Err(v) = invariants::check(game, &s) {
        panic!("initial state: {v}\n{s:?}");
    }
    let mut list = DecisionList::new();
    while !s.is_over() {
        game.legal_decisions(&s, &mut list);
        for &d in &list {
            let mut after = s;
            if let Err(e) = game.apply(&mut after, d) {
                panic!("listed decision refused: {e}\nin {s:?}");
            }
        }
        let d = if s.is_chance() {
            let outcomes = game.chance_outcomes(&s);
            let Some(k) = pick(&mut choices, outcomes.len()) else {
                break;
            };
            Decision::Chance(outcomes[k].0)
        } else {
            let Some(k) = pick(&mut choices, list.len()) else {
                break;
            };
            list[k]
        };
        common::apply_legal(game, &mut s, d);
    }
});
