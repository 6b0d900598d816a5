//! Flat Monte Carlo: UCB1 over the root decisions (each tried once first, in legal order), a
//! fresh determinization of the observation and one playout per iteration.

use super::playout::{play_out, Reward, Scratch};
use super::{Root, RootStats, Settings, Stop};
use crate::rules::Decision;
use rand_xoshiro::Xoshiro256PlusPlus;

pub(super) fn run(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    stop: Stop,
    rng: &mut Xoshiro256PlusPlus,
) -> RootStats {
    let mut stats = RootStats::new(legal.len());
    let mut scratch = Scratch::default();
    while !stop.reached(stats.iterations) {
        let i = ucb1(settings.config.exploration, &stats);
        let mut s = root.sample(rng);
        let me = s.active();
        settings.game.apply_legal(&mut s, legal[i]);
        play_out(settings, &mut s, &mut scratch, rng);
        stats.visits[i] += 1;
        stats.reward[i] += Reward::of_state(settings, &s).for_player(me);
        stats.iterations += 1;
    }
    stats
}

/// The first untried root decision, else the one with the highest UCB1 score.
fn ucb1(exploration: f64, stats: &RootStats) -> usize {
    if let Some(i) = stats.visits.iter().position(|&v| v == 0) {
        return i;
    }
    let log_n = (stats.iterations as f64).ln();
    let score = |i: usize| {
        let v = stats.visits[i] as f64;
        stats.reward[i] / v + exploration * (log_n / v).sqrt()
    };
    (1..stats.visits.len()).fold(0, |best, i| if score(i) > score(best) { i } else { best })
}
