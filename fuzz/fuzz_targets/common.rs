//! What the fuzz targets share: the sixteen shipped games (terrain × variant) and a checked
//! apply that turns any broken rule into a crash libFuzzer keeps.

#![allow(dead_code)] // each target uses part of it

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::{Arc, OnceLock};
use toybattle::rules::{invariants, random_decision, Deal, Decision, Game, State, Variant};
use toybattle::terrain::builtin_terrains;

/// Every shipped terrain in both variants, built once.
pub fn games() -> &'static [Game] {
    static GAMES: OnceLock<Vec<Game>> = OnceLock::new();
    GAMES.get_or_init(|| {
        builtin_terrains()
            .iter()
            .flat_map(|t| {
                [Variant::Normal, Variant::Beginner].map(|v| Game::new(Arc::new(t.clone()), v))
            })
            .collect()
    })
}

/// The game a byte names: any byte names one of the sixteen.
pub fn game(byte: u8) -> &'static Game {
    let all = games();
    &all[byte as usize % all.len()]
}

/// The shipped game of a terrain key and variant, if there is one.
pub fn game_named(key: &str, variant: Variant) -> Option<&'static Game> {
    games()
        .iter()
        .find(|g| g.terrain().key == key && g.variant() == variant)
}

/// Applies a decision the rules call legal: it must be accepted, and the state after it must
/// keep every invariant.
pub fn apply_legal(game: &Game, s: &mut State, d: Decision) {
    let before = *s;
    if let Err(e) = game.apply(s, d) {
        panic!("legal decision refused: {e}\nin {before:?}");
    }
    checked(game, s, &before, d);
}

/// Panics with both states if `s` breaks an invariant.
pub fn checked(game: &Game, s: &State, before: &State, d: Decision) {
    if let Err(v) = invariants::check(game, s) {
        panic!(
            "{v}\nafter '{}' on {}\nbefore: {before:?}\nafter: {s:?}",
            d.notation(game.terrain()),
            game.terrain().key
        );
    }
}

/// The state after up to `steps` random decisions from the deal of `seed`: varied states to try
/// decisions on, each step applied and checked.
pub fn random_state(game: &Game, seed: u64, steps: u8) -> State {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut s = game.initial_state(&Deal::from_seed(seed));
    for _ in 0..steps {
        let Some(d) = random_decision(game, &s, &mut rng) else {
            break;
        };
        apply_legal(game, &mut s, d);
    }
    s
}
