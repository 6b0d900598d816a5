use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::rules::*;
use toybattle::terrain::builtin_terrains;
fn main() {
    for t in builtin_terrains() {
        let game = Game::new(std::sync::Arc::new(t.clone()), Variant::Normal);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let (mut turns, mut ended, mut first_wins, mut wt) = (0u64, 0, 0, [0; 3]);
        let n = 20000;
        let start = std::time::Instant::now();
        for seed in 0..n {
            let deal = Deal::from_seed(seed);
            let mut s = game.initial_state(&deal);
            if random_playout(&game, &mut s, &mut rng, 1000) {
                ended += 1;
            }
            turns += s.turn() as u64;
            for c in Colour::BOTH {
                assert_eq!(s.tile_census(c), TroopCounts::FULL);
            }
            if let Some(o) = s.outcome() {
                if o.winner == deal.first {
                    first_wins += 1;
                }
                wt[o.win as usize] += 1;
            }
        }
        let el = start.elapsed().as_secs_f64();
        println!("{:16} ended {ended}/{n} mean turns {:.1} first-wins {:.3} hq/medals/blocked {:?} {:.0} playouts/s", t.key, turns as f64 / n as f64, first_wins as f64 / n as f64, wt, n as f64 / el);
    }
}
