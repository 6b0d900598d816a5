//! Deal by deal: two bots that played the same deals, from the same seats, against the same
//! opponent in two runs (`toybattle compare`).
//!
//! Two runs with the same seed play the same deals (`schedule::deal_seed` leaves the pairing out
//! on purpose). Comparing their scores alone wastes that: most deals are won or lost by both
//! bots, and what tells them apart are the games only one of them won. Those discordant games
//! are tested with the exact two-sided sign test (McNemar's test on paired outcomes): under
//! the hypothesis that both bots are equally strong, each discordant game is won by either with
//! probability one half.

use super::config::RunConfig;
use super::stats::sign_test_p;
use super::store::{read_games, read_run, GameLine, GAMES_FILE};
use super::summary::Rate;
use super::TournamentError;
use crate::rules::{Colour, Variant};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Why two runs cannot be compared deal by deal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// A side's folder is no run folder.
    #[error("{dir} is not a tournament run folder: it has no run.json")]
    NotARun {
        /// The folder.
        dir: String,
    },
    /// Both sides name one bot of one run.
    #[error("both sides are {bot} in {dir}: name two different bots or runs")]
    SameSide {
        /// The bot.
        bot: String,
        /// The run folder.
        dir: String,
    },
    /// A side names a bot its run does not have.
    #[error("{dir} has no bot '{bot}'; its bots are: {}", .bots.join(", "))]
    NoSuchBot {
        /// The run folder.
        dir: String,
        /// The bot named.
        bot: String,
        /// The run's bots.
        bots: Vec<String>,
    },
    /// A side of a round robin that names no bot.
    #[error("{dir} is a round robin between {}: name the bot to compare", .bots.join(", "))]
    BotNeeded {
        /// The run folder.
        dir: String,
        /// The run's bots.
        bots: Vec<String>,
    },
    /// The two bots met no opponent on the same deal from the same seat.
    #[error(
        "{a} and {b} played no game in common (same terrain, deal, seat and opponent): were the \
         runs made with the same --seed, terrains and opponents?"
    )]
    NothingInCommon {
        /// Bot A.
        a: String,
        /// Bot B.
        b: String,
    },
}

/// One side of a comparison: a run folder and the bot of that run to compare.
#[derive(Clone, Debug)]
pub struct CompareSide {
    /// The run folder.
    pub dir: PathBuf,
    /// The bot; `None` takes the run's gauntlet bot.
    pub bot: Option<String>,
}

/// Outcomes of the games both bots played, counted by who won.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PairedCounts {
    /// Games both bots played (same deal, seat and opponent).
    pub games: u64,
    /// Games both bots won.
    pub both_won: u64,
    /// Games only bot A won.
    pub only_a_won: u64,
    /// Games only bot B won.
    pub only_b_won: u64,
    /// Games neither won (lost or stopped by the turn cap).
    pub neither_won: u64,
}

impl PairedCounts {
    fn add(&mut self, a_won: bool, b_won: bool) {
        self.games += 1;
        match (a_won, b_won) {
            (true, true) => self.both_won += 1,
            (true, false) => self.only_a_won += 1,
            (false, true) => self.only_b_won += 1,
            (false, false) => self.neither_won += 1,
        }
    }

    /// Two-sided exact sign test on the discordant games.
    pub fn sign_test_p(&self) -> f64 {
        sign_test_p(self.only_a_won, self.only_b_won)
    }
}

/// One row of the report: the counts of a terrain, or of all terrains.
#[derive(Clone, Debug, Serialize)]
pub struct CompareRow {
    /// Terrain key, or "all".
    pub terrain: String,
    #[serde(flatten)]
    /// The outcome counts.
    pub counts: PairedCounts,
    /// Bot A's win rate on these games, with its 95% Wilson interval.
    pub a_wins: Rate,
    /// Bot B's win rate on these games, with its 95% Wilson interval.
    pub b_wins: Rate,
    /// Two-sided exact sign test on the games only one bot won.
    pub sign_test_p: f64,
}

/// The report of `toybattle compare`.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Bot A.
    pub a: String,
    /// Bot A's run folder.
    pub a_run: String,
    /// Bot B.
    pub b: String,
    /// Bot B's run folder.
    pub b_run: String,
    /// Games bot A played in its run.
    pub a_games: u64,
    /// Games bot B played in its run.
    pub b_games: u64,
    /// "all" first, then the terrains in the order of run A's settings.
    pub rows: Vec<CompareRow>,
}

/// What makes two games the same game for two different bots: the deal, the seat and the
/// opponent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GameSlot {
    terrain: String,
    variant: Variant,
    deal_seed: u64,
    colour: Colour,
    opponent: String,
}

/// The slot of `bot` in a game, or `None` when it did not play in it.
fn slot_of(game: &GameLine, bot: &str) -> Option<GameSlot> {
    let (colour, opponent) = if game.blue == bot {
        (Colour::Blue, &game.red)
    } else if game.red == bot {
        (Colour::Red, &game.blue)
    } else {
        return None;
    };
    Some(GameSlot {
        terrain: game.terrain.clone(),
        variant: game.variant,
        deal_seed: game.deal_seed,
        colour,
        opponent: opponent.clone(),
    })
}

/// Compares the bot of side `a` with the bot of side `b` on every game slot both played; two
/// bots with no game in common are an error.
pub fn compare_runs(a: &CompareSide, b: &CompareSide) -> Result<Comparison, TournamentError> {
    let (a_config, a_bot, a_games) = load_side(a)?;
    let (_, b_bot, b_games) = load_side(b)?;
    if a.dir == b.dir && a_bot == b_bot {
        return Err(CompareError::SameSide {
            bot: a_bot,
            dir: a.dir.display().to_string(),
        }
        .into());
    }
    let comparison = compare_games(
        (&a_bot, &a.dir, &a_games),
        (&b_bot, &b.dir, &b_games),
        &a_config.terrains,
    );
    if comparison.rows[0].counts.games == 0 {
        return Err(CompareError::NothingInCommon { a: a_bot, b: b_bot }.into());
    }
    Ok(comparison)
}

/// The settings and games of one side's run, with the bot to compare.
fn load_side(side: &CompareSide) -> Result<(RunConfig, String, Vec<GameLine>), TournamentError> {
    let config = read_run(&side.dir)?.ok_or_else(|| CompareError::NotARun {
        dir: side.dir.display().to_string(),
    })?;
    let bot = side_bot(side, &config)?;
    let games = read_games(&side.dir.join(GAMES_FILE), &config.run_id())?.games;
    Ok((config, bot, games))
}

/// The bot named for a side, checked against the run's bots, or the run's gauntlet bot.
fn side_bot(side: &CompareSide, config: &RunConfig) -> Result<String, CompareError> {
    let mut bots = config.bots.clone();
    bots.extend(config.gauntlet.clone());
    match (&side.bot, &config.gauntlet) {
        (Some(bot), _) if bots.contains(bot) => Ok(bot.clone()),
        (Some(bot), _) => Err(CompareError::NoSuchBot {
            dir: side.dir.display().to_string(),
            bot: bot.clone(),
            bots,
        }),
        (None, Some(gauntlet)) => Ok(gauntlet.clone()),
        (None, None) => Err(CompareError::BotNeeded {
            dir: side.dir.display().to_string(),
            bots,
        }),
    }
}

/// Pairs the games of two bots by slot and counts the outcomes, in all and by terrain (in the
/// order given, then any other terrain by name).
fn compare_games(
    (a_bot, a_dir, a_games): (&str, &Path, &[GameLine]),
    (b_bot, b_dir, b_games): (&str, &Path, &[GameLine]),
    terrain_order: &[String],
) -> Comparison {
    let b_won: HashMap<GameSlot, bool> = b_games
        .iter()
        .filter_map(|g| slot_of(g, b_bot).map(|s| (s, won(g, b_bot))))
        .collect();
    let mut by_terrain: BTreeMap<String, PairedCounts> = BTreeMap::new();
    let mut all = PairedCounts::default();
    let mut a_count = 0;
    for game in a_games {
        let Some(slot) = slot_of(game, a_bot) else {
            continue;
        };
        a_count += 1;
        let Some(&b) = b_won.get(&slot) else {
            continue;
        };
        let a = won(game, a_bot);
        all.add(a, b);
        by_terrain.entry(slot.terrain).or_default().add(a, b);
    }
    let rank = |t: &String| {
        terrain_order
            .iter()
            .position(|o| o == t)
            .unwrap_or(usize::MAX)
    };
    let mut terrains: Vec<&String> = by_terrain.keys().collect();
    terrains.sort_by_key(|t| rank(t));
    let mut rows = vec![row("all", all)];
    rows.extend(terrains.into_iter().map(|t| row(t, by_terrain[t])));
    Comparison {
        a: a_bot.to_string(),
        a_run: a_dir.display().to_string(),
        b: b_bot.to_string(),
        b_run: b_dir.display().to_string(),
        a_games: a_count,
        b_games: b_won.len() as u64,
        rows,
    }
}

/// Whether `bot` won the game (a game stopped by the turn cap is won by neither).
fn won(game: &GameLine, bot: &str) -> bool {
    game.winner.as_deref() == Some(bot)
}

fn row(terrain: &str, counts: PairedCounts) -> CompareRow {
    let rate = |wins: u64| Rate::new(wins as f64, counts.games);
    CompareRow {
        terrain: terrain.to_string(),
        counts,
        a_wins: rate(counts.both_won + counts.only_a_won),
        b_wins: rate(counts.both_won + counts.only_b_won),
        sign_test_p: counts.sign_test_p(),
    }
}

impl Comparison {
    /// The report as Markdown: the counts and rates by terrain, then how to read them.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "# Deal by deal: {} against {}\n\n\
             A = {} in `{}` ({} games); B = {} in `{}` ({} games). A game counts when both \
             bots played the same deal from the same seat against the same opponent.\n\n",
            self.a, self.b, self.a, self.a_run, self.a_games, self.b, self.b_run, self.b_games
        );
        out.push_str(
            "| terrain | games | both won | only A won | only B won | neither won \
             | A wins [95% CI] | B wins [95% CI] | sign test p |\n\
             |---|---:|---:|---:|---:|---:|---|---|---:|\n",
        );
        for r in &self.rows {
            let c = &r.counts;
            let name = if r.terrain == "all" {
                "**all**".to_string()
            } else {
                r.terrain.clone()
            };
            out.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                c.games,
                c.both_won,
                c.only_a_won,
                c.only_b_won,
                c.neither_won,
                r.a_wins.show(),
                r.b_wins.show(),
                p_value(r.sign_test_p)
            ));
        }
        out.push_str(
            "\nThe sign test (two-sided, exact) asks whether the games won by only one bot \
             split more unevenly than chance would make them if both were equally strong.\n",
        );
        out
    }
}

fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(
        terrain: &str,
        deal_seed: u64,
        blue: &str,
        red: &str,
        winner: Option<&str>,
    ) -> GameLine {
        GameLine {
            a: blue.into(),
            b: red.into(),
            terrain: terrain.into(),
            deal_seed,
            blue: blue.into(),
            red: red.into(),
            first_bot: blue.into(),
            winner: winner.map(str::to_string),
            ..crate::tournament::store::tests::line(0, 0)
        }
    }

    #[test]
    fn games_pair_by_deal_seat_and_opponent_only() {
        let a_games = vec![
            game("castle_field", 1, "new", "greedy", Some("new")),
            game("castle_field", 1, "greedy", "new", Some("new")),
            game("castle_field", 2, "new", "greedy", Some("greedy")),
            game("tropical_pool", 3, "new", "greedy", None),
            // No counterpart: another opponent, another deal.
            game("tropical_pool", 3, "new", "random", Some("new")),
            game("tropical_pool", 4, "new", "greedy", Some("new")),
        ];
        let b_games = vec![
            game("castle_field", 1, "old", "greedy", Some("old")),
            game("castle_field", 1, "greedy", "old", Some("greedy")),
            game("castle_field", 2, "old", "greedy", Some("old")),
            game("tropical_pool", 3, "old", "greedy", Some("greedy")),
        ];
        let c = compare_games(
            ("new", Path::new("a"), &a_games),
            ("old", Path::new("b"), &b_games),
            &["tropical_pool".to_string(), "castle_field".to_string()],
        );
        assert_eq!((c.a_games, c.b_games), (6, 4));
        let all = c.rows[0].counts;
        assert_eq!(
            all,
            PairedCounts {
                games: 4,
                both_won: 1,
                only_a_won: 1,
                only_b_won: 1,
                neither_won: 1
            }
        );
        assert_eq!(c.rows[1].terrain, "tropical_pool");
        assert_eq!(c.rows[1].counts.neither_won, 1);
        assert_eq!(c.rows[2].terrain, "castle_field");
        assert_eq!(c.rows[2].counts.games, 3);
        assert_eq!(c.rows[0].a_wins.rate, Some(0.5));
        let md = c.to_markdown();
        assert!(md.contains("| **all** | 4 | 1 | 1 | 1 | 1 |"), "{md}");
    }
}
