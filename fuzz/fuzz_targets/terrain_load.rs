//! Reads any text as a terrain file: reading never panics, and on every terrain accepted a
//! short game of random decisions in both variants keeps every invariant.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use toybattle::rules::{Game, Variant};
use toybattle::terrain::parse_terrains;

/// Decisions played on each terrain accepted: enough to place, take regions and use effects.
const STEPS: u8 = 60;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(terrains) = parse_terrains(text) else {
        return;
    };
    for terrain in terrains {
        let terrain = Arc::new(terrain);
        for variant in [Variant::Normal, Variant::Beginner] {
            let game = Game::new(Arc::clone(&terrain), variant);
            common::random_state(&game, data.len() as u64, STEPS);
        }
    }
});
