//! Speed of the rules engine on every terrain (normal game, all effects on): state clone,
//! legal-decision generation and apply at a mid-game position, complete random playouts, and
//! determinization of an observation. Run with `cargo bench --bench rules`; the figures are
//! recorded in results/benchmarks.md.

use criterion::measurement::WallTime;
use criterion::{
    black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use std::time::Duration;
use toybattle::info::Observation;
use toybattle::rules::{
    random_decision, random_playout, Deal, DecisionList, Game, Phase, State, Variant,
};
use toybattle::terrain::builtin_terrains;

/// The turn of the mid-game position: random games on the shipped terrains last about 45–50
/// turns.
const MID_GAME_TURN: u16 = 20;
/// Fewest legal decisions of the mid-game position.
const MIN_MID_GAME_DECISIONS: usize = 10;
/// Deals the playout benchmark cycles through, so that it measures an average game.
const PLAYOUT_DEALS: u64 = 64;
/// A playout that has not ended after this many turns is cut (none does in practice).
const MAX_TURNS: u16 = 1000;

/// The first action of a random game at or after `MID_GAME_TURN` with at least
/// `MIN_MID_GAME_DECISIONS` legal decisions (an empty or frozen rack would make legal-decision
/// generation look cheaper than it is), from the first deal whose random game has one.
fn mid_game_position(game: &Game) -> State {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut list = DecisionList::new();
    for seed in 0.. {
        let mut s = game.initial_state(&Deal::from_seed(seed));
        while let Some(d) = random_decision(game, &s, &mut rng) {
            if s.turn() >= MID_GAME_TURN && s.phase() == Phase::Action {
                game.legal_decisions(&s, &mut list);
                if list.len() >= MIN_MID_GAME_DECISIONS {
                    return s;
                }
            }
            game.apply_legal(&mut s, d);
        }
    }
    unreachable!("some random game reaches the middle of the game")
}

/// The source and destination of the `clone` benchmark, at a fixed distance and alignment.
#[repr(C, align(64))]
struct StatePair {
    from: State,
    to: State,
}

fn bench_terrain(group: &mut BenchmarkGroup<WallTime>, game: &Game) {
    let mid = mid_game_position(game);
    let mut list = DecisionList::new();
    game.legal_decisions(&mid, &mut list);
    eprintln!(
        "{}: mid-game position at turn {} with {} legal decisions",
        game.terrain().key,
        mid.turn(),
        list.len()
    );

    // One copy of the state into another, behind `black_box` so that the copy happens. The two
    // sit side by side in one allocation: as two locals, their placement depended on how the
    // compiler laid out this function, and the same copy measured 3 ns with one layout and 15 ns
    // with another (results/benchmarks.md).
    let mut pair = Box::new(StatePair { from: mid, to: mid });
    group.bench_function("clone", |b| {
        b.iter(|| {
            let pair = black_box(&mut *pair);
            pair.to = pair.from;
        })
    });

    group.bench_function("legal_decisions", |b| {
        b.iter(|| {
            game.legal_decisions(black_box(&mid), &mut list);
            list.len()
        })
    });

    // Every legal decision of the position in turn, each applied to a fresh copy (the copy is
    // part of the time: see `clone`).
    game.legal_decisions(&mid, &mut list);
    let decisions = list.clone();
    let mut next = 0;
    group.bench_function("apply", |b| {
        b.iter(|| {
            let mut s = *black_box(&mid);
            game.apply_legal(&mut s, decisions[next]);
            next = (next + 1) % decisions.len();
            s
        })
    });

    let initial: Vec<State> = (0..PLAYOUT_DEALS)
        .map(|seed| game.initial_state(&Deal::from_seed(seed)))
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut deal = 0;
    group.throughput(Throughput::Elements(1));
    group.bench_function("playout", |b| {
        b.iter(|| {
            let mut s = initial[deal];
            deal = (deal + 1) % initial.len();
            random_playout(game, &mut s, &mut rng, MAX_TURNS);
            s
        })
    });

    let obs = Observation::new(&mid, mid.active());
    group.bench_function("determinize", |b| {
        b.iter(|| black_box(&obs).determinize(&mut rng))
    });
}

fn rules(c: &mut Criterion) {
    for terrain in builtin_terrains() {
        let game = Game::new(Arc::new(terrain.clone()), Variant::Normal);
        let mut group = c.benchmark_group(terrain.key.as_str());
        group
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(30);
        bench_terrain(&mut group, &game);
        group.finish();
    }
}

criterion_group!(benches, rules);
criterion_main!(benches);
