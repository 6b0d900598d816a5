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
//! and paste the printed tables over the ones below (the printed times are for keeping each
//! terrain well under a second; leave them out).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::rules::{Deal, DecisionList, Game, Phase, State, Variant};

/// Depths 1..=DEPTH are pinned.
const DEPTH: usize = 7;
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
const INITIAL: [[u64; DEPTH]; 8] = [
    [7, 56, 425, 3036, 27939, 173705, 1192956], // castle_field
    [7, 46, 347, 2383, 20250, 124640, 872691],  // tropical_pool
    [7, 54, 411, 2967, 24030, 154588, 1103614], // city_of_clouds
    [7, 52, 416, 2855, 25572, 162993, 1177893], // volcanic_jungle
    [7, 56, 487, 3294, 30561, 202977, 1517434], // cursed_cemetery
    [10, 71, 656, 3900, 37533, 251434, 1929733], // caribbean_sea
    [7, 46, 377, 2479, 21306, 138498, 1015892], // station_metal_x
    [7, 54, 367, 2721, 21878, 134172, 933422],  // battlefield
];

/// perft(1..=DEPTH) from the mid-game position of [`midgame`], normal game.
const MIDGAME: [[u64; DEPTH]; 8] = [
    [9, 23, 194, 1772, 13512, 88376, 648949],   // castle_field
    [9, 20, 129, 585, 2282, 11128, 118060],     // tropical_pool
    [14, 29, 175, 819, 3926, 17720, 191814],    // city_of_clouds
    [15, 31, 177, 935, 4843, 20595, 220499],    // volcanic_jungle
    [16, 30, 188, 1040, 5627, 22884, 259999],   // cursed_cemetery
    [12, 24, 154, 778, 3521, 15708, 176671],    // caribbean_sea
    [17, 29, 194, 1088, 7861, 45844, 318177],   // station_metal_x
    [13, 59, 506, 2946, 20930, 147291, 982281], // battlefield
];

/// perft(1..=DEPTH) from the same mid-game positions in the beginner game.
const MIDGAME_BEGINNER: [[u64; DEPTH]; 8] = [
    [9, 23, 194, 1772, 13512, 93840, 700794], // castle_field
    [18, 33, 205, 1171, 6866, 27030, 297117], // tropical_pool
    [14, 27, 171, 909, 4574, 19172, 212240],  // city_of_clouds
    [15, 29, 180, 978, 5131, 21210, 236337],  // volcanic_jungle
    [16, 30, 188, 1040, 5627, 22884, 259999], // cursed_cemetery
    [12, 24, 154, 778, 3521, 15708, 176671],  // caribbean_sea
    [13, 26, 163, 847, 4202, 17870, 194575],  // station_metal_x
    [14, 27, 171, 909, 4698, 19544, 209933],  // battlefield
];

/// A way to reach a position on a terrain.
type Position = fn(&Game) -> State;

fn initial(game: &Game) -> State {
    game.initial_state(&Deal::from_seed(DEAL_SEED))
}

/// Decisions drawn uniformly from the legal list (chance outcomes too, ignoring their weights:
/// this only has to reach some position, and depends on nothing but the list's documented order)
/// from the initial state up to the first action of turn `MIDGAME_TURN`.
fn midgame(game: &Game) -> State {
    let mut s = initial(game);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(MIDGAME_SEED);
    let mut list = DecisionList::new();
    while !(s.turn() >= MIDGAME_TURN && s.phase() == Phase::Action) {
        game.legal_decisions(&s, &mut list);
        assert!(
            !list.is_empty(),
            "{}: game over before the mid-game",
            game.terrain().key
        );
        game.apply_legal(&mut s, list[rng.random_range(0..list.len())]);
    }
    s
}

fn counts(game: &Game, s: &State) -> [u64; DEPTH] {
    std::array::from_fn(|d| game.perft(s, d as u32 + 1))
}

fn check(variant: Variant, position: Position, golden: &[[u64; DEPTH]; 8]) {
    for (key, expected) in TERRAINS.iter().zip(golden) {
        let game = Game::builtin(key, variant).unwrap();
        assert_eq!(
            &counts(&game, &position(&game)),
            expected,
            "{key} ({variant})"
        );
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
        let mut list = DecisionList::new();
        game.legal_decisions(&s, &mut list);
        assert_eq!(game.perft(&s, 1), list.len() as u64, "{key}");
        assert_eq!(game.perft(&s, 0), 1);
    }
}

#[test]
#[ignore = "prints the golden tables; run with --ignored --nocapture to regenerate them"]
fn print_golden_counts() {
    let tables: [(&str, Variant, Position); 3] = [
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
