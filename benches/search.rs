//! Search speed: iterations per second of each search bot on a Castle Field mid-game position,
//! and the root-parallel speed-up of ISMCTS on 1 and 2 threads.
//!
//! `cargo bench --bench search`; criterion's "thrpt" line is iterations per second.
//!
//! The `strong_threads` group runs the shipped `strong` preset's search settings with 4,000
//! iterations on one thread, on two threads with two trees (root parallelism), and on two
//! threads sharing one tree (`shared_tree`, what `strongest` does), timed by the wall clock: the
//! speed-up a second core gives a decision (`cargo bench --bench search -- strong_threads`).
//!
//! The `strongest` group runs the search settings of the shipped `strongest` preset (ISMCTS with
//! greedy playouts cut after two turns) on one thread and one tree, at a fixed iteration count,
//! on mid-game positions of three terrains: `cargo bench --bench search -- strongest`. It times
//! the process's CPU time instead of the wall clock, so that its "thrpt" line is iterations per
//! CPU second, which other processes on a shared machine do not lower.
//!
//! The `strong_game` group runs the shipped `strong` preset's search on every choice of one
//! game of each of two terrains, with and without `stop_when_decided`, in process CPU time:
//! what stopping a clear decision early saves over a game's mix of decisions.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;
use toybattle::bot::preset::{self, BotConfig};
use toybattle::bot::search::{make_player, Algorithm, PlayoutPolicy, SearchConfig};
use toybattle::bot::{Budget, Player};
use toybattle::info::RackEvidence;
use toybattle::rules::{random_decision, Deal, Game, Referee, State, Variant};

const ITERATIONS: u64 = 4000;

/// The position after `decisions` random player decisions of the deal of seed 1.
fn position(game: &Game, decisions: usize) -> State {
    let deal = Deal::from_seed(1);
    let mut s = game.initial_state(&deal);
    let mut referee = Referee::new(deal);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut made = 0;
    while !s.is_over() {
        if s.is_chance() {
            let d = referee.resolve(game, &s);
            game.apply_legal(&mut s, d);
        } else if made == decisions {
            break;
        } else if let Some(d) = random_decision(game, &s, &mut rng) {
            game.apply_legal(&mut s, d);
            made += 1;
        }
    }
    s
}

/// The search player of `config`, checked to search `s` for all of `iterations` (a position
/// with a forced or winning decision would time nothing).
fn searching_player(
    name: &str,
    algorithm: Algorithm,
    config: &SearchConfig,
    game: &Game,
    s: &State,
    iterations: u64,
) -> Player {
    let mut player = make_player(name, algorithm, config);
    let budget = Budget::iterations(iterations);
    let searched = player.decide(game, s, RackEvidence::NONE, budget, 7);
    assert_eq!(
        searched.analysis.map(|a| a.iterations),
        Some(iterations),
        "the bench position must need a search"
    );
    player
}

fn bench_search(c: &mut Criterion) {
    let game = Game::builtin("castle_field", Variant::Normal).expect("shipped terrain");
    let s = position(&game, 8);
    assert!(!s.is_over(), "the bench position must be a live game");
    let mut group = c.benchmark_group("castle_field");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(ITERATIONS));
    let runs = [
        (Algorithm::Ismcts, 1, PlayoutPolicy::Heuristic),
        (Algorithm::Ismcts, 2, PlayoutPolicy::Heuristic),
        (Algorithm::Ismcts, 1, PlayoutPolicy::Random),
        (Algorithm::Pimc, 1, PlayoutPolicy::Heuristic),
        (Algorithm::Pimc, 2, PlayoutPolicy::Heuristic),
        (Algorithm::FlatMc, 1, PlayoutPolicy::Heuristic),
        (Algorithm::CheatUct, 1, PlayoutPolicy::Heuristic),
    ];
    for (algorithm, threads, playout) in runs {
        let config = SearchConfig {
            threads,
            playout,
            ..SearchConfig::default()
        };
        let mut player =
            searching_player(algorithm.key(), algorithm, &config, &game, &s, ITERATIONS);
        let id = BenchmarkId::new(algorithm.key(), format!("{threads}-thread-{playout:?}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                player.decide(
                    &game,
                    &s,
                    RackEvidence::NONE,
                    Budget::iterations(ITERATIONS),
                    7,
                )
            })
        });
    }
    group.finish();
}

/// Iterations per decision in the `strongest` group: a tenth of a second or so per run.
const STRONGEST_ITERATIONS: u64 = 1000;

/// The search settings of a shipped preset, given by its name and text.
fn preset_config(name: &str, text: &str) -> (Algorithm, SearchConfig) {
    let preset = preset::parse(name, text, name).expect("a valid preset");
    match preset.config {
        BotConfig::Search { algorithm, config } => (algorithm, config),
        _ => panic!("the {name} preset is a search"),
    }
}

/// The shipped `strongest` preset's search settings on one thread and one tree.
fn strongest_config() -> (Algorithm, SearchConfig) {
    let (algorithm, config) = preset_config("strongest", include_str!("../bots/strongest.toml"));
    // Iterations a second: every decision runs its whole budget.
    let one = SearchConfig {
        threads: 1,
        trees: 1,
        stop_when_decided: false,
        ..config
    };
    (algorithm, one)
}

/// Iterations per decision in the `strong_threads` group.
const THREADS_ITERATIONS: u64 = 4000;

fn bench_strong_threads(c: &mut Criterion) {
    let (algorithm, strong) = preset_config("strong", include_str!("../bots/strong.toml"));
    let game = Game::builtin("castle_field", Variant::Normal).expect("shipped terrain");
    let s = position(&game, 12);
    assert!(!s.is_over(), "the bench position must be a live game");
    let mut group = c.benchmark_group("strong_threads");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(THREADS_ITERATIONS));
    let runs = [
        ("1-thread", 1, false),
        ("2-threads-2-trees", 2, false),
        ("2-threads-shared-tree", 2, true),
    ];
    for (name, threads, shared_tree) in runs {
        let config = SearchConfig {
            threads,
            shared_tree,
            stop_when_decided: false,
            ..strong.clone()
        };
        let budget = Budget::iterations(THREADS_ITERATIONS);
        let mut player =
            searching_player("strong", algorithm, &config, &game, &s, THREADS_ITERATIONS);
        group.bench_function(name, |b| {
            b.iter(|| player.decide(&game, &s, RackEvidence::NONE, budget, 7))
        });
    }
    group.finish();
}

/// Criterion measurement of the process's CPU time (all threads, user and system), in
/// nanoseconds: unlike wall time, it does not grow when other processes take the cores.
struct ProcessCpu;

/// Wall time's formatter: both measurements are nanoseconds.
static NANOSECONDS: WallTime = WallTime;

impl Measurement for ProcessCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        cpu_nanoseconds()
    }
    fn end(&self, start: u64) -> u64 {
        cpu_nanoseconds() - start
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        NANOSECONDS.formatter()
    }
}

/// CPU time used so far by this process.
fn cpu_nanoseconds() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(status, 0, "the process CPU-time clock must be readable");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn bench_strongest(c: &mut Criterion<ProcessCpu>) {
    let (algorithm, config) = strongest_config();
    let mut group = c.benchmark_group("strongest");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(STRONGEST_ITERATIONS));
    for (terrain, decisions) in [
        ("castle_field", 12),
        ("volcanic_jungle", 12),
        ("cursed_cemetery", 16),
    ] {
        let game = Game::builtin(terrain, Variant::Normal).expect("shipped terrain");
        let s = position(&game, decisions);
        assert!(!s.is_over(), "the bench position must be a live game");
        let budget = Budget::iterations(STRONGEST_ITERATIONS);
        let mut player = searching_player(
            "strongest",
            algorithm,
            &config,
            &game,
            &s,
            STRONGEST_ITERATIONS,
        );
        group.bench_function(BenchmarkId::new(terrain, decisions), |b| {
            b.iter(|| player.decide(&game, &s, RackEvidence::NONE, budget, 7))
        });
    }
    group.finish();
}

/// The states where a player of the deal of seed 3 on `game` had a choice, in a game the
/// search of `config` played at 300 iterations a decision (a game's real mix of decisions:
/// placements, draws after a Skully or a Star, an XB-42's use, recoveries).
fn decisions_of_a_game(game: &Game, algorithm: Algorithm, config: &SearchConfig) -> Vec<State> {
    let deal = Deal::from_seed(3);
    let mut s = game.initial_state(&deal);
    let mut referee = Referee::new(deal);
    let mut player = make_player("strong", algorithm, config);
    let mut out = Vec::new();
    let mut legal = toybattle::rules::DecisionList::new();
    while !s.is_over() {
        let d = if s.is_chance() {
            referee.resolve(game, &s)
        } else {
            game.legal_decisions(&s, &mut legal);
            if legal.len() > 1 {
                out.push(s);
            }
            let budget = Budget::iterations(300);
            player
                .decide(game, &s, RackEvidence::NONE, budget, out.len() as u64)
                .decision
        };
        game.apply_legal(&mut s, d);
    }
    out
}

/// The shipped `strong` level deciding every choice of one game of each of two terrains at its
/// own budget, with and without `stop_when_decided` (same decisions, fewer iterations where a
/// decision is clear early), in process CPU time: `cargo bench --bench search -- strong_game`.
/// A sample is a whole game's decisions, about ten seconds.
fn bench_strong_game(c: &mut Criterion<ProcessCpu>) {
    let text = include_str!("../bots/strong.toml");
    let (algorithm, strong) = preset_config("strong", text);
    let budget = preset::parse("strong", text, "strong")
        .expect("a valid preset")
        .budget;
    let mut group = c.benchmark_group("strong_game");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(60));
    for terrain in ["castle_field", "cursed_cemetery"] {
        let game = Game::builtin(terrain, Variant::Normal).expect("shipped terrain");
        let states = decisions_of_a_game(&game, algorithm, &strong);
        for stop_when_decided in [false, true] {
            let config = SearchConfig {
                stop_when_decided,
                ..strong.clone()
            };
            let mut player = make_player("strong", algorithm, &config);
            let name = if stop_when_decided {
                "decided"
            } else {
                "whole"
            };
            group.bench_function(BenchmarkId::new(terrain, name), |b| {
                b.iter(|| {
                    for s in &states {
                        player.decide(&game, s, RackEvidence::NONE, budget, 7);
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_search, bench_strong_threads);
criterion_group! {
    name = strongest;
    config = Criterion::default().with_measurement(ProcessCpu);
    targets = bench_strongest, bench_strong_game
}
criterion_main!(benches, strongest);
