//! The settings of a tournament run, as stored in `run.json`, and what makes two runs the same.

use super::stats::SprtParams;
use super::store::record_name;
use crate::rules::{Variant, WhatIfs};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The format tag of `run.json`.
pub const RUN_FORMAT: &str = "toybattle-tournament/1";

/// Which slice of a run one machine plays: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards the run is split into.
    pub count: u32,
}

impl Shard {
    /// Whether the pair with global position `position` belongs to this shard.
    pub fn holds(&self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ConfigError;
    /// "K/N" with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, ConfigError> {
        let bad = || ConfigError::BadShard { given: s.into() };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The most games a run plays at once: each needs a thread (and an external bot a process),
/// and more games at once than cores only slows every one of them.
pub const MAX_CONCURRENCY: usize = 256;

/// Checks a number of games played at once.
pub fn check_concurrency(k: usize) -> Result<usize, ConfigError> {
    match k {
        0 => Err(ConfigError::NoConcurrency),
        k if k > MAX_CONCURRENCY => Err(ConfigError::TooMuchConcurrency { given: k }),
        k => Ok(k),
    }
}

/// Settings (or flag values) that make no run; each message names the setting and what it
/// must be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// An odd or zero number of games per pairing and terrain.
    #[error(
        "--games is {games}, it must be even and positive: every deal is played twice with the \
         seats swapped (try {})",
        (.games + 1).max(2) / 2 * 2
    )]
    Games {
        /// The number given.
        games: u32,
    },
    /// A turn cap of 0.
    #[error("--max-turns is 0: the turn cap must be at least 1")]
    NoTurns,
    /// No bot, or a gauntlet bot without opponents.
    #[error("a tournament needs at least two bots, or one to play itself")]
    TooFewBots,
    /// One bot spec listed twice (as opponent, or as opponent and gauntlet bot).
    #[error("bot '{bot}' is listed twice")]
    BotTwice {
        /// The spec.
        bot: String,
    },
    /// Two different bots whose records and logs would have the same file name.
    #[error(
        "bots '{first}' and '{second}' would both write records named '{name}-vs-…': records and \
         logs are named by each bot's file name, so give one of them another file name"
    )]
    SameRecordName {
        /// The first bot spec.
        first: String,
        /// The second bot spec.
        second: String,
        /// The file-safe name they share.
        name: String,
    },
    /// An empty terrain list.
    #[error("no terrain selected")]
    NoTerrain,
    /// One terrain listed twice (by its key, its name, or both): its games would be played
    /// and counted twice, and two games at once would write the same record.
    #[error(
        "terrain '{terrain}' is listed twice in --terrains (by its key or its name): each \
         terrain is played once per run, raise --games for more games on it"
    )]
    TerrainTwice {
        /// The terrain's key.
        terrain: String,
    },
    /// A sequential test of other than two bots.
    #[error("--sprt compares exactly two bots, {count} are listed")]
    SprtBots {
        /// Bots listed.
        count: usize,
    },
    /// A sequential test of one shard.
    #[error(
        "--sprt cannot be combined with --shard: the test stops on results as they arrive, \
         and a shard sees only its own slice"
    )]
    SprtWithShard,
    /// No game played at a time.
    #[error("at least 1 game must be played at a time")]
    NoConcurrency,
    /// More games at once than [`MAX_CONCURRENCY`].
    #[error(
        "at most {MAX_CONCURRENCY} games are played at once (more games at once than cores only \
         slows each one; leave it out for one per core)"
    )]
    TooMuchConcurrency {
        /// The number given.
        given: usize,
    },
    /// More deals than can be numbered (pairs x pairings x terrains past `usize::MAX`).
    #[error("more deals than this machine can number (pairs x pairings x terrains): lower --games or the number of bots")]
    TooManyDeals,
    /// A shard that is not `K/N` with 1 ≤ K ≤ N.
    #[error("invalid shard '{given}': expected K/N with 1 <= K <= N, e.g. 1/4")]
    BadShard {
        /// The text given.
        given: String,
    },
}

/// Everything that decides which games a run plays and how: two runs with equal settings play
/// the same games on the same deals. Concurrency, output folder and progress display are not
/// settings: they do not change any result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The format tag, [`RUN_FORMAT`].
    pub format: String,
    /// Bot specs of a round robin; for a gauntlet, its opponents.
    pub bots: Vec<String>,
    /// The bot of a gauntlet, who meets each of `bots`; `None` for a round robin.
    pub gauntlet: Option<String>,
    /// Terrain keys, in play order.
    pub terrains: Vec<String>,
    /// Content hash of `--terrain-file`, when terrains come from one.
    pub terrain_file_hash: Option<String>,
    /// Games per pairing and terrain; even (every deal is played twice).
    pub games: u32,
    /// The run seed: every deal and every bot's random choices derive from it.
    pub seed: u64,
    /// Normal game or beginner variant (special bases are plain bases).
    pub variant: Variant,
    /// Self-play turn cap (R10.5: not a game rule).
    pub max_turns: u16,
    /// The sequential test that stops the run once decided, if any.
    pub sprt: Option<SprtParams>,
    /// Longest wait for an external bot's answer.
    pub ext_timeout_ms: u64,
    /// Extra wait for an external bot's first answer of a game (its start-up). Left out of
    /// `run.json` at its default, so folders written before it existed keep their run id.
    #[serde(
        default = "default_ext_startup_ms",
        skip_serializing_if = "is_default_ext_startup_ms"
    )]
    pub ext_startup_ms: u64,
    /// Version of every bot spec (preset version or program hash): results of a changed bot
    /// must not be mixed with the old ones.
    pub versions: BTreeMap<String, String>,
    /// The slice this run plays, `None` for the whole run.
    pub shard: Option<Shard>,
    /// Rules parameters changed from the printed game (balance what-ifs). Left out of
    /// `run.json` for the printed rules, so other runs keep their run id.
    #[serde(default, skip_serializing_if = "WhatIfs::is_retail")]
    pub what_ifs: WhatIfs,
    /// Which games get a record file. Not part of the run id (records change no result); left
    /// out of `run.json` when every game is recorded, so older folders keep their settings.
    #[serde(default, skip_serializing_if = "Records::is_all")]
    pub records: Records,
}

/// Which games of a run keep a record file under `records/`. Every game is counted in
/// `games.jsonl` either way; without records a large study costs CPU, not disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Records {
    /// Every game (the default).
    #[default]
    All,
    /// No game (`--no-records`).
    None,
    /// The two games of every `n`th deal of each pairing and terrain (`--records-sample n`).
    Sample(u32),
}

impl Records {
    /// Every game is recorded.
    pub fn is_all(&self) -> bool {
        *self == Records::All
    }

    /// Whether the games of deal `pair` (of their pairing and terrain) keep a record.
    pub fn keeps(&self, pair: u32) -> bool {
        match *self {
            Records::All => true,
            Records::None => false,
            Records::Sample(n) => n != 0 && pair.is_multiple_of(n),
        }
    }

    /// From the command line's `--no-records` and `--records-sample N`.
    pub fn from_flags(no_records: bool, sample: Option<u32>) -> Records {
        match (no_records, sample) {
            (true, _) => Records::None,
            (false, Some(n)) => Records::Sample(n),
            (false, None) => Records::All,
        }
    }
}

/// The default of `--ext-startup-ms`.
pub const DEFAULT_EXT_STARTUP_MS: u64 = 10_000;

fn default_ext_startup_ms() -> u64 {
    DEFAULT_EXT_STARTUP_MS
}

fn is_default_ext_startup_ms(ms: &u64) -> bool {
    *ms == DEFAULT_EXT_STARTUP_MS
}

impl RunConfig {
    /// Pairs (deals) per pairing and terrain.
    pub fn pairs(&self) -> u32 {
        self.games / 2
    }

    /// The same settings for the whole run (no shard): what shards of one run share.
    pub fn unsharded(&self) -> RunConfig {
        RunConfig {
            shard: None,
            ..self.clone()
        }
    }

    /// The run id: a hash of the unsharded settings, written into every game line.
    pub fn run_id(&self) -> String {
        // Records change no result: a study with and without them is the same run.
        let same_games = RunConfig {
            records: Records::All,
            ..self.unsharded()
        };
        let json = serde_json::to_string(&same_games).expect("settings serialise");
        format!("{:016x}", fnv1a(json.as_bytes()))
    }

    /// Checks the combinations the flags cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.games == 0 || self.games % 2 == 1 {
            return Err(ConfigError::Games { games: self.games });
        }
        if self.max_turns == 0 {
            return Err(ConfigError::NoTurns);
        }
        let mut names: Vec<&String> = self.bots.iter().chain(&self.gauntlet).collect();
        // One bot alone is a self-play run (balance studies): it meets itself.
        if names.is_empty() || (names.len() < 2 && self.gauntlet.is_some()) {
            return Err(ConfigError::TooFewBots);
        }
        names.sort();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(ConfigError::BotTwice { bot: w[0].clone() });
        }
        // Records are named by each bot's file name: two bots sharing one would overwrite each
        // other's records, and every resume would replay one of them.
        let mut by_record: Vec<(String, &String)> =
            names.iter().map(|n| (record_name(n), *n)).collect();
        by_record.sort();
        if let Some(w) = by_record.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(ConfigError::SameRecordName {
                first: w[0].1.clone(),
                second: w[1].1.clone(),
                name: w[0].0.clone(),
            });
        }
        if self.terrains.is_empty() {
            return Err(ConfigError::NoTerrain);
        }
        // Names are resolved to keys before the settings are made, so a terrain given once by
        // key and once by name is one key listed twice here.
        let mut keys: Vec<&String> = self.terrains.iter().collect();
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(ConfigError::TerrainTwice {
                terrain: w[0].clone(),
            });
        }
        if self.sprt.is_some() && names.len() != 2 {
            return Err(ConfigError::SprtBots { count: names.len() });
        }
        if self.sprt.is_some() && self.shard.is_some() {
            return Err(ConfigError::SprtWithShard);
        }
        Ok(())
    }

    /// The settings that differ from `other`, each as "name: this vs other".
    pub fn differences(&self, other: &RunConfig) -> Vec<String> {
        let (a, b) = (to_map(self), to_map(other));
        a.keys()
            .chain(b.keys().filter(|k| !a.contains_key(*k)))
            .filter(|k| a.get(*k) != b.get(*k))
            .map(|k| {
                let show = |m: &serde_json::Map<String, serde_json::Value>| {
                    m.get(k).map_or("(absent)".to_string(), |v| v.to_string())
                };
                format!("{k}: {} vs {}", show(&a), show(&b))
            })
            .collect()
    }
}

fn to_map(c: &RunConfig) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(c) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

/// FNV-1a, 64 bits: a stable hash for ids and seeds (the standard library's hasher may change
/// between Rust releases, which would change every deal of a run).
pub use crate::vocabulary::hash::fnv1a;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> RunConfig {
        RunConfig {
            format: RUN_FORMAT.into(),
            bots: vec!["random".into(), "greedy".into()],
            gauntlet: None,
            terrains: vec!["castle_field".into()],
            terrain_file_hash: None,
            games: 4,
            seed: 1,
            variant: Variant::Normal,
            max_turns: 300,
            sprt: None,
            ext_timeout_ms: 10_000,
            ext_startup_ms: DEFAULT_EXT_STARTUP_MS,
            versions: BTreeMap::new(),
            shard: None,
            what_ifs: Default::default(),
            records: Records::All,
        }
    }

    #[test]
    fn shards_parse_and_partition_positions() {
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
        for bad in ["0/3", "4/3", "x/3", "3", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for p in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.holds(p)).count(), 1);
        }
    }

    #[test]
    fn odd_games_are_refused_with_the_reason() {
        let c = RunConfig {
            games: 3,
            ..sample()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(e, ConfigError::Games { games: 3 });
        let e = e.to_string();
        assert!(e.contains("even") && e.contains("try 4"), "{e}");
    }

    #[test]
    fn ranges_are_checked_in_the_library_too() {
        let c = RunConfig {
            max_turns: 0,
            ..sample()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(e, ConfigError::NoTurns);
        assert!(e.to_string().contains("at least 1"));
        assert_eq!(check_concurrency(0), Err(ConfigError::NoConcurrency));
        assert_eq!(check_concurrency(MAX_CONCURRENCY), Ok(MAX_CONCURRENCY));
        assert_eq!(
            check_concurrency(MAX_CONCURRENCY + 1),
            Err(ConfigError::TooMuchConcurrency {
                given: MAX_CONCURRENCY + 1
            })
        );
    }

    /// Every combination of settings that makes no run, each with its own kind.
    #[test]
    fn settings_that_make_no_run_are_refused_by_kind() {
        let sprt = Some(SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        });
        let cases = [
            (
                RunConfig {
                    bots: vec![],
                    ..sample()
                },
                ConfigError::TooFewBots,
            ),
            (
                RunConfig {
                    bots: vec![],
                    gauntlet: Some("random".into()),
                    ..sample()
                },
                ConfigError::TooFewBots,
            ),
            (
                RunConfig {
                    bots: vec!["random".into(), "greedy".into()],
                    gauntlet: Some("greedy".into()),
                    ..sample()
                },
                ConfigError::BotTwice {
                    bot: "greedy".into(),
                },
            ),
            (
                RunConfig {
                    bots: vec!["d1/g.toml".into(), "d2/g.toml".into()],
                    ..sample()
                },
                ConfigError::SameRecordName {
                    first: "d1/g.toml".into(),
                    second: "d2/g.toml".into(),
                    name: "g".into(),
                },
            ),
            (
                RunConfig {
                    terrains: vec![],
                    ..sample()
                },
                ConfigError::NoTerrain,
            ),
            (
                RunConfig {
                    terrains: vec![
                        "castle_field".into(),
                        "tropical_pool".into(),
                        "castle_field".into(),
                    ],
                    ..sample()
                },
                ConfigError::TerrainTwice {
                    terrain: "castle_field".into(),
                },
            ),
            (
                RunConfig {
                    bots: vec!["random".into(), "greedy".into(), "flat-mc".into()],
                    sprt,
                    ..sample()
                },
                ConfigError::SprtBots { count: 3 },
            ),
            (
                RunConfig {
                    sprt,
                    shard: Some(Shard { index: 1, count: 2 }),
                    ..sample()
                },
                ConfigError::SprtWithShard,
            ),
        ];
        for (config, kind) in cases {
            assert_eq!(config.validate(), Err(kind));
        }
        assert_eq!(sample().validate(), Ok(()));
    }

    #[test]
    fn a_bad_shard_is_refused_quoting_it() {
        let e = "1-2".parse::<Shard>().unwrap_err();
        assert_eq!(
            e,
            ConfigError::BadShard {
                given: "1-2".into()
            }
        );
        assert!(e.to_string().contains("'1-2'") && e.to_string().contains("1 <= K <= N"));
    }

    #[test]
    fn run_id_ignores_the_shard_only() {
        let c = sample();
        let s = RunConfig {
            shard: Some(Shard { index: 1, count: 2 }),
            ..sample()
        };
        assert_eq!(c.run_id(), s.run_id());
        assert_ne!(
            c.run_id(),
            RunConfig {
                seed: 2,
                ..sample()
            }
            .run_id()
        );
    }

    #[test]
    fn differences_name_the_settings() {
        let d = sample().differences(&RunConfig {
            games: 6,
            seed: 9,
            ..sample()
        });
        assert_eq!(
            d,
            vec!["games: 4 vs 6".to_string(), "seed: 1 vs 9".to_string()]
        );
    }
}
