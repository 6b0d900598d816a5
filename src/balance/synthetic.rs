//! Simulated studies with known effects, for the tests of the estimators and the benchmark of
//! the analysis: real deals (so the tiles lost at setup have their true distribution), and
//! winners drawn with a win probability built from planted effects.

use super::{End, PerTroop, RecordFacts, Study, StudyGame};
use crate::rules::{Colour, Deal, Troop, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The planted truth: blue's win probability is
/// `1/2 ± first + Σ_k troop[k]·(red's lost_k − blue's lost_k) + u` (plus `first` when blue
/// moves first), with `u` uniform in `[−deal_noise, deal_noise]`, one draw per deal (shared by
/// the games of the deal, as real luck of the deal would be).
#[derive(Clone, Debug)]
pub struct Planted {
    /// First player's advantage in win probability.
    pub first: f64,
    /// Change in win probability per copy of each troop in a player's deck.
    pub troop: [f64; Troop::ALL.len()],
    /// Spread of the luck shared by a deal's games.
    pub deal_noise: f64,
}

/// A study of `deals` deals per terrain on `terrains` terrains, each deal played twice (each
/// colour moving first once) in each of `variants`, by one preset.
pub fn synthetic_study(
    planted: &Planted,
    terrains: usize,
    deals: usize,
    variants: &[Variant],
    seed: u64,
) -> Study {
    synthetic_study_of_presets(planted, 1, terrains, deals, variants, seed)
}

/// The same with `presets` presets, each playing every deal (as in a real study, where the
/// presets share the deals, so their pooled games are clustered by deal).
pub fn synthetic_study_of_presets(
    planted: &Planted,
    presets: usize,
    terrains: usize,
    deals: usize,
    variants: &[Variant],
    seed: u64,
) -> Study {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut games = Vec::with_capacity(presets * terrains * deals * 2 * variants.len());
    for t in 0..terrains {
        for _ in 0..deals {
            let deal = Deal::from_seed(rng.random());
            let lost = deal.removed.as_array().each_ref().map(|r| {
                let mut c = PerTroop::default();
                r.iter().for_each(|t| c[t.index()] += 1);
                c
            });
            let edge: f64 = Troop::ALL
                .iter()
                .map(|t| {
                    planted.troop[t.index()]
                        * (lost[1][t.index()] as f64 - lost[0][t.index()] as f64)
                })
                .sum();
            let u = planted.deal_noise * (2.0 * rng.random::<f64>() - 1.0);
            for (preset, &variant) in
                (0..presets as u16).flat_map(|p| variants.iter().map(move |v| (p, v)))
            {
                for first in Colour::BOTH {
                    let seat = if first == Colour::Blue { 1.0 } else { -1.0 };
                    let p = (0.5 + planted.first * seat + edge + u).clamp(0.0, 1.0);
                    let winner = if rng.random::<f64>() < p {
                        Colour::Blue
                    } else {
                        Colour::Red
                    };
                    games.push(StudyGame {
                        preset,
                        terrain: t as u16,
                        variant,
                        restricted: 0,
                        rules: 0,
                        deal: deal.seed,
                        first,
                        winner: Some(winner),
                        end: if rng.random::<bool>() {
                            End::Hq
                        } else {
                            End::Medals
                        },
                        turns: rng.random_range(15..60),
                        lost,
                        record: Some(Box::new(RecordFacts {
                            placed: [[1; Troop::ALL.len()]; 2],
                            choices: None,
                            tension: None,
                        })),
                    });
                }
            }
        }
    }
    Study {
        presets: (0..presets).map(|p| format!("simulated{p}")).collect(),
        terrains: (0..terrains).map(|t| format!("terrain{t}")).collect(),
        terrain_names: Vec::new(),
        games,
        what_ifs: Default::default(),
        compared: Vec::new(),
        restrictions: Vec::new(),
    }
}
