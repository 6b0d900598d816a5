//! Speed of the learned value model (issue 29): encoding an observation, and one evaluation of
//! the hand-written forward pass with the shipped weights, on mid-game positions of three
//! terrains; and what it costs a search: one decision of 1,000 iterations at the `strong`
//! level's settings with the fitted evaluation at the playout cut, with the combined one
//! (`value_model`: fitted plus the model's correction), and with the fitted evaluation and the
//! learned policy as the tree's prior (`policy_prior`, whose cost is a table lookup per legal
//! decision at each tree node, where the hand-set prior compares tactical weights). Also the
//! rack model's belief (`rack_model`): encoding the root's observation and its per-troop odds,
//! paid once per decision, not per iteration; and the odds the opponent's latest choice gives
//! their held tiles (`rack_choice`, `held_odds`), paid once per decision as well. And the
//! forward pass at wider hidden layers (`value_model_sizes`), what a larger network would cost.
//!
//! `cargo bench --bench model`; criterion's time is per call. The search pays the encoding and
//! the forward pass at every cut playout with `value_model` on (plus building the mover's
//! observation, timed as part of `observe+encode`).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;
use toybattle::bot::search::{held_odds, make_player, Algorithm, PlayoutPolicy, SearchConfig};
use toybattle::bot::Budget;
use toybattle::info::{EvidenceTracker, Observation, RackEvidence};
use toybattle::model::{encode, Hidden, Input, RackModel, ValueModel};
use toybattle::rules::{random_decision, Deal, DecisionList, Game, State, Variant};

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

/// The evidence about the opponent of the player to act, from the first decision at or after
/// `steps` random steps of the deal of seed 1 where it holds a choice and a held tile.
fn evidence_at(game: &Game, steps: usize) -> RackEvidence {
    let mut s = game.initial_state(&Deal::from_seed(1));
    let mut tracker = EvidenceTracker::new(game, &s);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for step in 0.. {
        let evidence = tracker.about(s.active().opponent());
        if step >= steps && !s.is_chance() && held_odds(game, &evidence, 0.9).is_some() {
            return evidence;
        }
        let d = random_decision(game, &s, &mut rng).expect("a held tile before the game ends");
        let before = s;
        game.apply_legal(&mut s, d);
        tracker.step(game, &before, d, &s);
    }
    unreachable!("the loop returns")
}

/// The first position from [`position`]`(game, steps)` on where a player chooses among
/// several decisions, so that a search runs its whole budget.
fn decision_position(game: &Game, steps: usize) -> State {
    let mut s = position(game, steps);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut legal = DecisionList::new();
    loop {
        game.legal_decisions(&s, &mut legal);
        if !s.is_chance() && legal.len() > 1 {
            return s;
        }
        let d = random_decision(game, &s, &mut rng).expect("a live game");
        game.apply_legal(&mut s, d);
    }
}

fn bench_model(c: &mut Criterion) {
    let model = ValueModel::shipped();
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
        let obs = Observation::new(&s, s.active());
        group.bench_function(format!("{key}/rack_model_belief"), |b| {
            b.iter(|| RackModel::shipped().belief(&game, black_box(&obs)))
        });
        let evidence = evidence_at(&game, 30);
        group.bench_function(format!("{key}/choice_held_odds"), |b| {
            b.iter(|| held_odds(&game, black_box(&evidence), 0.9))
        });
    }
    group.finish();
}

/// The forward pass at the hidden sizes `train fit --hidden` was swept over: its cost grows
/// with the first layer (one column of it per non-zero input) and the second (a full product).
fn bench_sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("value_model_sizes");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let game = Game::builtin("castle_field", Variant::Normal).expect("shipped terrain");
    let s = position(&game, 30);
    let mut input = Input::default();
    encode(&game, &Observation::new(&s, s.active()), &mut input);
    for (first, second) in [(64, 32), (128, 32), (128, 64), (256, 32), (256, 64)] {
        let model = ValueModel::initial_sized(1, Hidden { first, second });
        group.bench_function(format!("forward/{first}x{second}"), |b| {
            b.iter(|| model.logit(black_box(&input)))
        });
    }
    group.finish();
}

/// Iterations of the searches compared.
const ITERATIONS: u64 = 1000;

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("strong_search_1000");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let game = Game::builtin("castle_field", Variant::Normal).expect("shipped terrain");
    let s = decision_position(&game, 30);
    // The weights `toybattle train greedy --steps 500 --deals 32 --seed 1` tuned
    // (results/learning.md, eighth round).
    let tuned = vec![
        0.393211, 3.99196, 0.671409, 0.683095, 0.55807, 0.703543, 0.598948,
    ];
    for (name, combined, policy, playout_weights) in [
        ("fitted", false, false, vec![]),
        ("combined", true, false, vec![]),
        ("fitted+policy_prior", false, true, vec![]),
        ("fitted+tuned_playout_weights", false, false, tuned),
    ] {
        // bots/strong.toml's [search] section, one evaluation or the other, one prior or the
        // other, the playouts' hand-set term weights or tuned ones.
        let config = SearchConfig {
            playout_weights,
            exploration: 0.4,
            eval_turns: 2,
            fitted_eval: !combined,
            value_model: combined,
            playout: PlayoutPolicy::GreedyEffects,
            observed_chance: true,
            rack_belief: true,
            policy_prior: policy,
            prior: if policy { 0.5 } else { 1.0 },
            ..SearchConfig::default()
        };
        let mut player = make_player(name, Algorithm::Ismcts, &config);
        let budget = Budget::iterations(ITERATIONS);
        let searched = player.decide(&game, &s, RackEvidence::NONE, budget, 7);
        let iterations = searched.analysis.map(|a| a.iterations);
        assert_eq!(iterations, Some(ITERATIONS), "the bench must search");
        group.bench_function(name, |b| {
            b.iter(|| player.decide(&game, &s, RackEvidence::NONE, budget, 7))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_model, bench_sizes, bench_search);
criterion_main!(benches);
