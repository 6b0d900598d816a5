//! The analysis of a balance study at scale: every figure of the report from 100,000 stored
//! games (eight terrains, two variants), held in memory. Reading the games from disk is not
//! included: it is measured by the demonstration study (results/balance/README.md).

use criterion::{criterion_group, criterion_main, Criterion};
use toybattle::balance::analyse;
use toybattle::balance::synthetic::{synthetic_study, Planted};
use toybattle::rules::Variant;

fn bench_analysis(c: &mut Criterion) {
    let mut troop = [0.0; 8];
    troop[3] = 0.03;
    troop[6] = -0.03;
    let planted = Planted {
        first: 0.05,
        troop,
        deal_noise: 0.1,
    };
    let study = synthetic_study(&planted, 8, 3125, &[Variant::Normal, Variant::Beginner], 1);
    assert_eq!(study.games.len(), 100_000);
    let mut group = c.benchmark_group("balance");
    group.sample_size(10);
    group.bench_function("analyse_100k_games", |b| b.iter(|| analyse(&study)));
    group.finish();
}

criterion_group!(benches, bench_analysis);
criterion_main!(benches);
