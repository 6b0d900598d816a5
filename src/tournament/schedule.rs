//! Which games a run plays: pairings, the global ordered list of deals, seats and deal seeds.
//!
//! Every deal is played twice with the seats swapped: in game 0 bot `a` plays blue and bot `b`
//! red; in game 1 `b` plays blue and `a` red, on the very same deal (same removed tiles, same
//! reserve orders, same first-player colour). So over a pair each bot holds each colour's tiles
//! once and, since the deal's first player colour stays, each bot moves first exactly once:
//! luck of the deal, colour and first-player advantage all cancel within the pair.

use super::config::{ConfigError, RunConfig, Shard};
use crate::rules::Colour;
use crate::vocabulary::hash::{fnv1a, splitmix64 as mix};

/// Two bots that meet: `a` is the one whose score, win rate and Elo are reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The bot reported on.
    pub a: String,
    /// Its opponent.
    pub b: String,
}

impl Pairing {
    /// "a vs b", as in tables.
    pub fn label(&self) -> String {
        format!("{} vs {}", self.a, self.b)
    }

    /// The bot on `colour` in game `game` (0 or 1) of a pair.
    pub fn seat(&self, game: u8, colour: Colour) -> &str {
        match (game, colour) {
            (0, Colour::Blue) | (1, Colour::Red) => &self.a,
            _ => &self.b,
        }
    }
}

/// The pairings of a run: every two bots of a round robin in listed order, the gauntlet bot
/// against each opponent, or a lone bot against itself (self-play, for balance studies).
pub fn pairings(config: &RunConfig) -> Vec<Pairing> {
    match &config.gauntlet {
        Some(x) => config
            .bots
            .iter()
            .map(|b| Pairing {
                a: x.clone(),
                b: b.clone(),
            })
            .collect(),
        None if config.bots.len() == 1 => vec![Pairing {
            a: config.bots[0].clone(),
            b: config.bots[0].clone(),
        }],
        None => {
            let bots = &config.bots;
            (0..bots.len())
                .flat_map(|i| {
                    (i + 1..bots.len()).map(move |j| Pairing {
                        a: bots[i].clone(),
                        b: bots[j].clone(),
                    })
                })
                .collect()
        }
    }
}

/// One deal of the run, to be played twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairJob {
    /// Position in the global ordered list of the run (shards split on it).
    pub position: usize,
    /// Index of the pairing in [`pairings`].
    pub pairing: usize,
    /// Index of the terrain in the settings' terrain list.
    pub terrain: usize,
    /// Index of the deal within its pairing and terrain.
    pub pair: u32,
    /// The deal's seed: see [`deal_seed`].
    pub deal_seed: u64,
}

/// The global ordered list of deals: pair index first, then pairing, then terrain, so that a
/// run stopped early (SPRT, interruption) has played every pairing and terrain about equally.
///
/// Each deal is computed from its position when it is wanted, never stored: a run of the
/// largest `--games` needs no more memory than a run of two games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    seed: u64,
    terrains: Vec<String>,
    pairings: usize,
    len: usize,
}

impl Schedule {
    /// The schedule of a run's settings; refused when its deals cannot be numbered (more than
    /// `usize::MAX`, which only an absurd number of bots reaches).
    pub fn new(config: &RunConfig) -> Result<Schedule, ConfigError> {
        let pairings = pairings(config).len();
        let len = (config.pairs() as usize)
            .checked_mul(pairings)
            .and_then(|n| n.checked_mul(config.terrains.len()))
            .ok_or(ConfigError::TooManyDeals)?;
        Ok(Schedule {
            seed: config.seed,
            terrains: config.terrains.clone(),
            pairings,
            len,
        })
    }

    /// How many deals the whole run plays (each twice).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the run plays no deal.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The deal at `position`, `None` past the end.
    pub fn job(&self, position: usize) -> Option<PairJob> {
        if position >= self.len {
            return None;
        }
        let per_pair = self.pairings * self.terrains.len();
        let (pair, rest) = (position / per_pair, position % per_pair);
        let terrain = rest % self.terrains.len();
        let pair = u32::try_from(pair).ok()?;
        Some(PairJob {
            position,
            pairing: rest / self.terrains.len(),
            terrain,
            pair,
            deal_seed: deal_seed(self.seed, &self.terrains[terrain], pair),
        })
    }

    /// The position of deal `pair` of `pairing` on `terrain` (indices into the run's lists),
    /// `None` past the run's deals.
    pub fn position_of(&self, terrain: usize, pairing: usize, pair: u32) -> Option<usize> {
        let per_pair = self.pairings * self.terrains.len();
        let position = (pair as usize)
            .checked_mul(per_pair)?
            .checked_add(pairing * self.terrains.len() + terrain)?;
        let inside = terrain < self.terrains.len() && pairing < self.pairings;
        (inside && position < self.len).then_some(position)
    }

    /// Every deal in order.
    pub fn iter(&self) -> impl Iterator<Item = PairJob> + '_ {
        (0..self.len).filter_map(|p| self.job(p))
    }

    /// How many deals `shard` holds (all of them for `None`).
    pub fn shard_len(&self, shard: Option<Shard>) -> usize {
        match shard {
            None => self.len,
            Some(s) => {
                let first = (s.index - 1) as usize;
                (self.len.saturating_sub(first)).div_ceil(s.count as usize)
            }
        }
    }

    /// The `k`-th deal (from 0) that `shard` holds, `None` past its last.
    pub fn shard_job(&self, shard: Option<Shard>, k: usize) -> Option<PairJob> {
        let position = match shard {
            None => k,
            Some(s) => k
                .checked_mul(s.count as usize)?
                .checked_add((s.index - 1) as usize)?,
        };
        self.job(position)
    }
}

/// The deal seed of (run seed, terrain, pair index): stable across releases (no standard-library
/// hashing), independent of the order terrains are listed in. The pairing is deliberately not
/// part of it: every pairing of a run plays the same deals, so results against different
/// opponents, or of differently named variants of one bot, are compared on identical luck.
pub fn deal_seed(seed: u64, terrain: &str, pair: u32) -> u64 {
    let h = mix(mix(seed) ^ fnv1a(terrain.as_bytes()));
    mix(h ^ pair as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::config::RUN_FORMAT;

    fn schedule(c: &RunConfig) -> Vec<PairJob> {
        Schedule::new(c).unwrap().iter().collect()
    }

    fn config(bots: &[&str], gauntlet: Option<&str>) -> RunConfig {
        RunConfig {
            format: RUN_FORMAT.into(),
            bots: bots.iter().map(|s| s.to_string()).collect(),
            gauntlet: gauntlet.map(str::to_string),
            terrains: vec!["castle_field".into(), "tropical_pool".into()],
            terrain_file_hash: None,
            games: 6,
            seed: 7,
            variant: Default::default(),
            max_turns: 300,
            sprt: None,
            ext_timeout_ms: 1000,
            ext_startup_ms: 1000,
            versions: Default::default(),
            shard: None,
            what_ifs: Default::default(),
            records: Default::default(),
        }
    }

    #[test]
    fn round_robin_and_gauntlet_pairings() {
        let rr = pairings(&config(&["a", "b", "c"], None));
        let labels: Vec<String> = rr.iter().map(Pairing::label).collect();
        assert_eq!(labels, ["a vs b", "a vs c", "b vs c"]);
        let g = pairings(&config(&["b", "c"], Some("x")));
        let labels: Vec<String> = g.iter().map(Pairing::label).collect();
        assert_eq!(labels, ["x vs b", "x vs c"]);
    }

    #[test]
    fn a_lone_bot_meets_itself() {
        let c = config(&["a"], None);
        assert!(c.validate().is_ok());
        let labels: Vec<String> = pairings(&c).iter().map(Pairing::label).collect();
        assert_eq!(labels, ["a vs a"]);
        assert_eq!(schedule(&c).len(), 2 * 3);
        assert!(
            config(&[], Some("x")).validate().is_err(),
            "a gauntlet needs opponents"
        );
    }

    #[test]
    fn seats_swap_within_a_pair() {
        let p = Pairing {
            a: "a".into(),
            b: "b".into(),
        };
        assert_eq!(
            (p.seat(0, Colour::Blue), p.seat(0, Colour::Red)),
            ("a", "b")
        );
        assert_eq!(
            (p.seat(1, Colour::Blue), p.seat(1, Colour::Red)),
            ("b", "a")
        );
    }

    #[test]
    fn schedule_covers_every_deal_once_and_pairings_share_deals() {
        let c = config(&["a", "b", "c"], None);
        let jobs = schedule(&c);
        assert_eq!(jobs.len(), 3 * 2 * 3);
        let mut seeds: Vec<u64> = jobs.iter().map(|j| j.deal_seed).collect();
        seeds.sort();
        seeds.dedup();
        // 2 terrains x 3 pairs per pairing: each (terrain, pair) is one deal, shared by the
        // three pairings.
        assert_eq!(seeds.len(), 2 * 3);
        let renamed = schedule(&config(&["x", "y", "z"], None));
        let seeds_of = |jobs: &[PairJob]| jobs.iter().map(|j| j.deal_seed).collect::<Vec<_>>();
        assert_eq!(
            seeds_of(&renamed),
            seeds_of(&jobs),
            "bot names do not change the deals"
        );
        assert!(jobs.iter().enumerate().all(|(i, j)| j.position == i));
        assert_eq!(schedule(&c), jobs, "deterministic");
    }

    /// The deals computed one by one are those of the nested loops the order promises.
    #[test]
    fn each_position_is_the_deal_of_the_nested_order() {
        let c = config(&["a", "b", "c"], None);
        let mut eager = Vec::new();
        for pair in 0..c.pairs() {
            for pairing in 0..3 {
                for (terrain, key) in c.terrains.iter().enumerate() {
                    eager.push(PairJob {
                        position: eager.len(),
                        pairing,
                        terrain,
                        pair,
                        deal_seed: deal_seed(c.seed, key, pair),
                    });
                }
            }
        }
        assert_eq!(schedule(&c), eager);
        assert_eq!(Schedule::new(&c).unwrap().job(eager.len()), None);
    }

    /// The largest `--games` makes a schedule of billions of deals that costs nothing to
    /// build: its last deal is computed directly.
    #[test]
    fn the_largest_games_is_scheduled_without_listing_it() {
        let c = RunConfig {
            games: u32::MAX - 1,
            ..config(&["a", "b", "c"], None)
        };
        assert!(c.validate().is_ok());
        let s = Schedule::new(&c).unwrap();
        let pairs = (u32::MAX / 2) as usize;
        assert_eq!(s.len(), pairs * 3 * 2);
        let last = s.job(s.len() - 1).unwrap();
        assert_eq!(
            (last.pair, last.pairing, last.terrain),
            (u32::MAX / 2 - 1, 2, 1)
        );
        assert_eq!(
            last.deal_seed,
            deal_seed(7, "tropical_pool", u32::MAX / 2 - 1)
        );
        let shard = Shard { index: 3, count: 4 };
        let k = s.shard_len(Some(shard)) - 1;
        let job = s.shard_job(Some(shard), k).unwrap();
        assert!(shard.holds(job.position));
        assert_eq!(s.shard_job(Some(shard), k + 1), None);
    }

    #[test]
    fn position_of_is_the_inverse_of_job() {
        let c = config(&["a", "b", "c"], None);
        let s = Schedule::new(&c).unwrap();
        for job in s.iter() {
            assert_eq!(
                s.position_of(job.terrain, job.pairing, job.pair),
                Some(job.position)
            );
        }
        assert_eq!(s.position_of(0, 0, c.pairs()), None, "past the last deal");
        assert_eq!(s.position_of(c.terrains.len(), 0, 0), None);
        assert_eq!(
            s.position_of(0, 3, 0),
            None,
            "three bots make three pairings"
        );
    }

    #[test]
    fn shards_split_the_schedule_disjointly() {
        let jobs = schedule(&config(&["a", "b"], None));
        let shards = [Shard { index: 1, count: 2 }, Shard { index: 2, count: 2 }];
        let sizes: Vec<usize> = shards
            .iter()
            .map(|s| jobs.iter().filter(|j| s.holds(j.position)).count())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), jobs.len());
        assert!(sizes.iter().all(|&n| n > 0));
        let s = Schedule::new(&config(&["a", "b"], None)).unwrap();
        for (shard, size) in shards.iter().zip(sizes) {
            assert_eq!(s.shard_len(Some(*shard)), size);
            let held: Vec<PairJob> = (0..size)
                .map(|k| s.shard_job(Some(*shard), k).unwrap())
                .collect();
            let expected: Vec<PairJob> = jobs
                .iter()
                .filter(|j| shard.holds(j.position))
                .cloned()
                .collect();
            assert_eq!(held, expected);
        }
    }
}
