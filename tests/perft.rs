//! Golden perft counts: the number of decision sequences (chance outcomes counted as branches)
//! of each length, from fixed positions on every terrain.
//!
//! The numbers below pin the rules as they are implemented now: any change to legal decisions,
//! effects or chance events changes some count, so a rules change is noticed here. When a change
//! is intended, check it against RULES.md, then regenerate the tables with
//!
//! ```text
//! cargo test --test perft -- --ignored --nocapture print_golden_counts
//! ```
//!
//! and paste the printed tables over the ones below.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::rules::{random_decision, Deal, Game, Phase, State, Variant};

/// Depths 1..=DEPTH are pinned.
const DEPTH: usize = 4;
/// The deal of every position below.
const DEAL_SEED: u64 = 2026;
/// Seed of the random decisions leading to the mid-game positions.
const MIDGAME_SEED: u64 = 7;
/// The mid-game position is the first action of this turn or later.
const MIDGAME_TURN: u16 = 9;

const TERRAINS: [&str; 8] = [
    "castle_field",
    "tropical_pool",
    "city_of_clouds",
    "volcanic_jungle",
    "cursed_cemetery",
    "caribbean_sea",
    "station_metal_x",
    "battlefield",
];

/// perft(1..=DEPTH) from the initial state of `Deal::from_seed(DEAL_SEED)`, normal game.
const INITIAL: [[u64; DEPTH]; 8] = [[0; DEPTH]; 8];

/// perft(1..=DEPTH) from the mid-game position of [`midgame`], normal game.
const MIDGAME: [[u64; DEPTH]; 8] = [[0; DEPTH]; 8];

/// perft(1..=DEPTH) from the same mid-game positions in the beginner game.
const MIDGAME_BEGINNER: [[u64; DEPTH]; 8] = [[0; DEPTH]; 8];

fn initial(game: &Game) -> State {
    game.initial_state(&Deal::from_seed(DEAL_SEED))
}

/// Random decisions from the initial state up to the first action of turn `MIDGAME_TURN`.
fn midgame(game: &Game) -> State {
    let mut s = initial(game);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(MIDGAME_SEED);
    while !(s.turn() >= MIDGAME_TURN && s.phase() == Phase::Action) {
        let d = random_decision(game, &s, &mut rng)
            .unwrap_or_else(|| panic!("{}: game over before the mid-game", game.terrain().key));
        game.apply_legal(&mut s, d);
    }
    s
}

fn counts(game: &Game, s: &State) -> [u64; DEPTH] {
    std::array::from_fn(|d| game.perft(s, d as u32 + 1))
}

fn check(variant: Variant, position: fn(&Game) -> State, golden: &[[u64; DEPTH]; 8]) {
    for (key, expected) in TERRAINS.iter().zip(golden) {
        let game = Game::builtin(key, variant).unwrap();
        assert_eq!(&counts(&game, &position(&game)), expected, "{key} ({variant})");
    }
}

#[test]
fn initial_positions() {
    check(Variant::Normal, initial, &INITIAL);
}

#[test]
fn midgame_positions() {
    check(Variant::Normal, midgame, &MIDGAME);
}

#[test]
fn midgame_positions_beginner() {
    check(Variant::Beginner, midgame, &MIDGAME_BEGINNER);
}

#[test]
fn perft_one_is_the_number_of_legal_decisions() {
    for key in TERRAINS {
        let game = Game::builtin(key, Variant::Normal).unwrap();
        let s = midgame(&game);
        let mut list = toybattle::rules::DecisionList::new();
        game.legal_decisions(&s, &mut list);
        assert_eq!(game.perft(&s, 1), list.len() as u64, "{key}");
        assert_eq!(game.perft(&s, 0), 1);
    }
}

#[test]
#[ignore = "prints the golden tables; run with --ignored --nocapture to regenerate them"]
fn print_golden_counts() {
    let tables: [(&str, Variant, fn(&Game) -> State); 3] = [
        ("INITIAL", Variant::Normal, initial),
        ("MIDGAME", Variant::Normal, midgame),
        ("MIDGAME_BEGINNER", Variant::Beginner, midgame),
    ];
    for (name, variant, position) in tables {
        println!("const {name}: [[u64; DEPTH]; 8] = [");
        for key in TERRAINS {
            let game = Game::builtin(key, variant).unwrap();
            let start = std::time::Instant::now();
            let c = counts(&game, &position(&game));
            println!("    {c:?}, // {key}, {:.2?}", start.elapsed());
        }
        println!("];");
    }
}
