//! A fixed amount of rules work, for instruction counts that do not depend on the machine's
//! load (a virtual machine without hardware counters, shared with builds):
//!
//! ```sh
//! cargo build --release --example rules_fixed_work
//! valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!     target/release/examples/rules_fixed_work playout 2000
//! ```
//!
//! `playout N`: on each of the eight terrains (normal variant), N random playouts
//! (`rules::random_playout`, turn cap 1000) from the initial states of deals 0..N.
//! `apply N`: on each terrain, N random games; at every step, every legal decision is applied to
//! a copy of the state. Both print a checksum of the turns reached, so that two builds can be
//! shown to have done the same work. The difference between the counts of N and 2N is the cost
//! of N games per terrain without the start-up.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use toybattle::rules::{random_decision, random_playout, Deal, DecisionList, Game, Variant};
use toybattle::terrain::builtin_terrains;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let n: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let work = match mode.as_str() {
        "playout" => playouts,
        "apply" => applications,
        _ => {
            eprintln!("rules_fixed_work: expected `playout N` or `apply N`, got '{mode}'");
            std::process::exit(2);
        }
    };
    let mut checksum = 0u64;
    for terrain in builtin_terrains() {
        let game = Game::new(Arc::new(terrain.clone()), Variant::Normal);
        checksum = checksum.wrapping_add(work(&game, n));
    }
    println!("{checksum}");
}

/// N random playouts from deals 0..N; the sum of the turns they end on.
fn playouts(game: &Game, n: u64) -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut turns = 0u64;
    for seed in 0..n {
        let mut s = game.initial_state(&Deal::from_seed(seed));
        random_playout(game, &mut s, &mut rng, 1000);
        turns += u64::from(s.turn());
    }
    turns
}

/// N random games from deals 0..N, every legal decision of every step applied to a copy; the
/// sum of the turns of those copies.
fn applications(game: &Game, n: u64) -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut list = DecisionList::new();
    let mut turns = 0u64;
    for seed in 0..n {
        let mut s = game.initial_state(&Deal::from_seed(seed));
        while let Some(d) = random_decision(game, &s, &mut rng) {
            game.legal_decisions(&s, &mut list);
            for &e in &list {
                let mut copy = s;
                game.apply_legal(&mut copy, e);
                turns += u64::from(copy.turn());
            }
            game.apply_legal(&mut s, d);
        }
    }
    turns
}
