//! Speed of the learned value model (issue 29): encoding an observation, and one evaluation of
//! the hand-written forward pass, on mid-game positions of three terrains.
//!
//! `cargo bench --bench model`; criterion's time is per call. The search pays both at every
//! cut playout with `value_model` on (plus building the mover's observation, timed as part of
//! `observe+encode`).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;
use toybattle::info::Observation;
use toybattle::model::{encode, Input, ValueModel};
use toybattle::rules::{random_decision, Deal, Game, State, Variant};

/// The position after `steps` random steps of the deal of seed 1 (stops at the game's end).
fn position(game: &Game, steps: usize) -> State {
    let mut s = game.initial_state(&Deal::from_seed(1));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..steps {
        match random_decision(game, &s, &mut rng) {
            Some(d) if !s.is_over() => game.apply_legal(&mut s, d),
            _ => break,
        }
    }
    s
}

fn bench_model(c: &mut Criterion) {
    let model = ValueModel::initial(1);
    let mut group = c.benchmark_group("value_model");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for key in ["castle_field", "battlefield", "volcanic_jungle"] {
        let game = Game::builtin(key, Variant::Normal).expect("shipped terrain");
        let s = position(&game, 30);
        assert!(!s.is_over(), "the bench position must be a live game");
        let mut input = Input::default();
        group.bench_function(format!("{key}/observe+encode"), |b| {
            b.iter(|| {
                let obs = Observation::new(black_box(&s), s.active());
                encode(&game, &obs, &mut input);
            })
        });
        encode(&game, &Observation::new(&s, s.active()), &mut input);
        group.bench_function(format!("{key}/forward"), |b| {
            b.iter(|| model.logit(black_box(&input)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_model);
criterion_main!(benches);
