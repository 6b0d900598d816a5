//! The summary of a run, computed from its game lines alone, so that a merge of shards gives
//! exactly the summary of a single-machine run: per pairing (overall and per terrain), per
//! terrain over all pairings, overall, per bot, and the SPRT.
//!
//! Conventions: a game stopped by the turn cap is a draw (half a point to each bot); win rates
//! count wins only, with Wilson 95% intervals; the score of the pairing's bot `a` counts draws
//! half; Elo comes from the pentanomial counts of complete pairs (both games of a deal played),
//! but when every pair was lost (or won) its interval is the Wilson interval of those games.
//! In `summary.json` and `summary.csv` Elo is clamped to about ±2400: an end there means no
//! bound (a score interval reaching 0% or 100%), which the tables print as ∞.
//! Thinking times vary between runs, so they appear in `summary.md` only, never in
//! `summary.json`.

use super::config::RunConfig;
use super::schedule::pairings;
use super::stats::{
    elo_from_score, elo_text, mean_and_ci95, sprt_bounds, sprt_decide, wilson_interval,
    EloEstimate, Pentanomial, SprtDecision, SprtParams, Z95,
};
use super::store::GameLine;
use crate::rules::Colour;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The format tag of `summary.json`.
pub const SUMMARY_FORMAT: &str = "toybattle-summary/1";

/// The end types, in table order.
pub const END_TYPES: [&str; 5] = ["hq", "medals", "blocked", "turn_cap", "forfeit"];

/// A proportion with its Wilson 95% interval; `rate` is `None` without games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Successes (a draw counts one half in a score).
    pub count: f64,
    /// Games counted.
    pub games: u64,
    /// The proportion; `None` without games.
    pub rate: Option<f64>,
    /// Lower bound of the 95% Wilson interval.
    pub lo: f64,
    /// Upper bound of the 95% Wilson interval.
    pub hi: f64,
}

impl Rate {
    /// The proportion of `count` in `games`, with its interval.
    pub fn new(count: f64, games: u64) -> Rate {
        let (lo, hi) = wilson_interval(count, games as f64, Z95);
        Rate {
            count,
            games,
            rate: (games > 0).then(|| count / games as f64),
            lo,
            hi,
        }
    }

    /// "91.8% [88.6, 94.1]", or "-" without games.
    pub(crate) fn show(&self) -> String {
        match self.rate {
            Some(r) => format!(
                "{:.1}% [{:.1}, {:.1}]",
                100.0 * r,
                100.0 * self.lo,
                100.0 * self.hi
            ),
            None => "-".into(),
        }
    }
}

/// Seat balance and shape of a set of games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideStats {
    /// Games counted.
    pub games: u64,
    /// Games won by the player moving first.
    pub first_player_wins: Rate,
    /// Games won by blue.
    pub blue_wins: Rate,
    /// Games won by red.
    pub red_wins: Rate,
    /// Games per end type (every type of [`END_TYPES`] present, zeros included).
    pub ends: BTreeMap<String, u64>,
    /// Mean game length in turns; `None` without games.
    pub mean_turns: Option<f64>,
    /// 95% half-width of the mean length; `None` with fewer than two games.
    pub turns_ci95: Option<f64>,
}

impl SideStats {
    /// The seat statistics of `games`.
    pub fn of(games: &[&GameLine]) -> SideStats {
        let n = games.len() as u64;
        let count = |f: &dyn Fn(&GameLine) -> bool| games.iter().filter(|g| f(g)).count() as f64;
        let mut ends: BTreeMap<String, u64> =
            END_TYPES.iter().map(|e| (e.to_string(), 0)).collect();
        for g in games {
            *ends.entry(g.end.clone()).or_default() += 1;
        }
        let turns: Vec<f64> = games.iter().map(|g| g.turns as f64).collect();
        let (mean, ci) = mean_and_ci95(&turns);
        SideStats {
            games: n,
            first_player_wins: Rate::new(count(&|g| g.winner_colour == Some(g.first)), n),
            blue_wins: Rate::new(count(&|g| g.winner_colour == Some(Colour::Blue)), n),
            red_wins: Rate::new(count(&|g| g.winner_colour == Some(Colour::Red)), n),
            ends,
            mean_turns: (n > 0).then_some(mean),
            turns_ci95: ci.is_finite().then_some(ci),
        }
    }
}

/// Results of one pairing over a set of games, from the side of bot `a`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchStats {
    /// Games counted.
    pub games: u64,
    /// Games won by `a`.
    pub wins_a: u64,
    /// Games won by `b`.
    pub wins_b: u64,
    /// Games stopped by the turn cap.
    pub draws: u64,
    /// Score of `a` (wins + draws / 2) per game.
    pub score_a: Rate,
    /// Complete pairs by score of `a` (LL, LD, WL/DD, WD, WW).
    pub pentanomial: Pentanomial,
    /// Elo of `a` over `b` from the pentanomial.
    pub elo: EloEstimate,
    /// Seat balance and shape of these games.
    pub sides: SideStats,
}

impl MatchStats {
    /// The statistics of `games`, all of one pairing.
    pub fn of(games: &[&GameLine]) -> MatchStats {
        let n = games.len() as u64;
        let wins_a = games.iter().filter(|g| g.score_a() == 1.0).count() as u64;
        let draws = games.iter().filter(|g| g.winner.is_none()).count() as u64;
        let pentanomial = pentanomial(games);
        MatchStats {
            games: n,
            wins_a,
            wins_b: n - wins_a - draws,
            draws,
            score_a: Rate::new(wins_a as f64 + 0.5 * draws as f64, n),
            elo: pentanomial.elo_estimate(),
            pentanomial,
            sides: SideStats::of(games),
        }
    }
}

/// Pentanomial counts of the complete pairs (both games of a deal) among `games`.
pub fn pentanomial(games: &[&GameLine]) -> Pentanomial {
    let mut by_deal: BTreeMap<usize, [Option<f64>; 2]> = BTreeMap::new();
    for g in games {
        if let Some(slot) = by_deal
            .entry(g.position)
            .or_default()
            .get_mut(g.game as usize)
        {
            *slot = Some(g.score_a());
        }
    }
    let mut p = Pentanomial::default();
    for pair in by_deal.values() {
        if let [Some(first), Some(second)] = pair {
            p.add_pair(*first, *second);
        }
    }
    p
}

/// One pairing's results on one terrain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TerrainMatch {
    /// The terrain's key.
    pub terrain: String,
    /// The results there.
    pub stats: MatchStats,
}

/// One pairing's results, overall and by terrain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairingSummary {
    /// The bot reported on.
    pub a: String,
    /// Its opponent.
    pub b: String,
    /// Results over every terrain.
    pub overall: MatchStats,
    /// Results on each terrain, in the settings' order.
    pub terrains: Vec<TerrainMatch>,
}

/// Seat balance and shape of the games on one terrain, all pairings together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TerrainSummary {
    /// The terrain's key.
    pub terrain: String,
    /// Its statistics.
    pub stats: SideStats,
}

/// A bot's results against everyone.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotStanding {
    /// The bot's spec.
    pub bot: String,
    /// Games against other bots (games against itself do not count).
    pub games: u64,
    /// Games it won.
    pub wins: u64,
    /// Games stopped by the turn cap.
    pub draws: u64,
    /// Games it lost by forfeit.
    pub forfeits: u64,
    /// Its score (wins + draws / 2) per game.
    pub score: Rate,
}

/// Where the sequential test stands. When the run was stopped by a decision, that decision is
/// final: it is reported with the pairs and LLR it was taken on, and `all_pairs` adds the LLR
/// over every pair counted since (games in progress at the stop finish and are counted, and
/// may bring the LLR back between the bounds: they do not reopen the test).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    /// The test's Elo bounds and error rates.
    pub params: SprtParams,
    /// Complete pairs counted (when the run was stopped, those the decision was taken on).
    pub pairs: u64,
    /// The log-likelihood ratio so far (when the run was stopped, at the decision).
    pub llr: f64,
    /// The bound at or below which H0 is accepted.
    pub lower: f64,
    /// The bound at or above which H1 is accepted.
    pub upper: f64,
    /// H0, H1, or no decision yet.
    pub decision: SprtDecision,
    /// After a decision stopped the run, the test over every complete pair counted, when more
    /// pairs were completed after it; for information only, the decision stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_pairs: Option<SprtAllPairs>,
}

/// The LLR over every complete pair of a run stopped by a decision taken on fewer pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtAllPairs {
    /// Complete pairs counted.
    pub pairs: u64,
    /// The log-likelihood ratio over them.
    pub llr: f64,
}

impl SprtSummary {
    /// The test's state after the pairs counted in `p`.
    pub fn of(params: SprtParams, p: &Pentanomial) -> SprtSummary {
        let (llr, decision) = sprt_decide(p, &params);
        let (lower, upper) = sprt_bounds(params.alpha, params.beta);
        SprtSummary {
            params,
            pairs: p.pairs(),
            llr,
            lower,
            upper,
            decision,
            all_pairs: None,
        }
    }

    /// What a run reports: the decision that stopped it (`stop`), with the LLR over the pairs
    /// of `all` beside it when there are more; without a decision, the test over `all`.
    pub fn reported(
        params: SprtParams,
        stop: Option<&SprtSummary>,
        all: &Pentanomial,
    ) -> SprtSummary {
        let now = SprtSummary::of(params, all);
        match stop {
            Some(stop) if stop.decision != SprtDecision::Continue => SprtSummary {
                all_pairs: (now.pairs != stop.pairs).then_some(SprtAllPairs {
                    pairs: now.pairs,
                    llr: now.llr,
                }),
                ..stop.clone()
            },
            _ => now,
        }
    }

    /// One line for people: bounds, LLR and verdict, then the LLR over all pairs when games
    /// finished after the decision.
    pub fn describe(&self) -> String {
        let verdict = match self.decision {
            SprtDecision::H0 => format!("H0 accepted (Elo <= {})", self.params.elo0),
            SprtDecision::H1 => format!("H1 accepted (Elo >= {})", self.params.elo1),
            SprtDecision::Continue => "no decision yet".into(),
        };
        let mut text = format!(
            "SPRT {}: LLR {:.3} in [{:.3}, {:.3}] after {} pairs: {verdict}",
            self.params, self.llr, self.lower, self.upper, self.pairs
        );
        if let Some(all) = &self.all_pairs {
            let _ = write!(
                text,
                "; this decision stopped the run, and the games then in progress were counted: \
                 over all {} pairs the LLR is {:.3} (for information, the decision stands)",
                all.pairs, all.llr
            );
        }
        text
    }
}

/// The sequential test as the games of a run come in: the first decision stops the run and is
/// final.
#[derive(Clone, Debug)]
pub struct SprtWatch {
    params: SprtParams,
    stop: Option<SprtSummary>,
}

impl SprtWatch {
    /// The test of `params`, already stopped by `stop` when the run folder keeps a decision.
    pub fn new(params: SprtParams, stop: Option<SprtSummary>) -> SprtWatch {
        SprtWatch {
            params,
            stop: stop.filter(|s| s.decision != SprtDecision::Continue),
        }
    }

    /// The test replayed over `games` in the order they were counted (`games.jsonl`'s order):
    /// the decision of the first prefix whose complete pairs leave the bounds, if any.
    pub fn replay(params: SprtParams, games: &[GameLine]) -> SprtWatch {
        let mut watch = SprtWatch::new(params, None);
        let mut by_deal: BTreeMap<usize, [Option<f64>; 2]> = BTreeMap::new();
        let mut p = Pentanomial::default();
        for g in games {
            let pair = by_deal.entry(g.position).or_default();
            let had_both = pair.iter().all(Option::is_some);
            if let Some(slot) = pair.get_mut(g.game as usize) {
                *slot = Some(g.score_a());
            }
            if let ([Some(first), Some(second)], false) = (*pair, had_both) {
                p.add_pair(first, second);
                if watch.observe(&p).is_some() {
                    break;
                }
            }
        }
        watch
    }

    /// Looks at the complete pairs `p` counted now; returns the decision when this look takes
    /// it (it is then final), `None` before a decision and after it.
    pub fn observe(&mut self, p: &Pentanomial) -> Option<&SprtSummary> {
        if self.stop.is_some() {
            return None;
        }
        let now = SprtSummary::of(self.params, p);
        if now.decision == SprtDecision::Continue {
            return None;
        }
        self.stop = Some(now);
        self.stop.as_ref()
    }

    /// The decision that stopped the run, if one did.
    pub fn stop(&self) -> Option<&SprtSummary> {
        self.stop.as_ref()
    }

    /// What the summary reports once the pairs of `all` are counted.
    pub fn report(&self, all: &Pentanomial) -> SprtSummary {
        SprtSummary::reported(self.params, self.stop(), all)
    }
}

/// Everything `summary.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The format tag, [`SUMMARY_FORMAT`].
    pub format: String,
    /// The run id (hash of the unsharded settings).
    pub run: String,
    /// The run's settings.
    pub config: RunConfig,
    /// Games this run (or shard) is to play.
    pub expected_games: u64,
    /// Games counted.
    pub games: u64,
    /// Whether every game the run (or shard) is to play was counted.
    pub complete: bool,
    /// Every bot's standing: the gauntlet bot first, then in the settings' order.
    pub bots: Vec<BotStanding>,
    /// Each pairing's results.
    pub pairings: Vec<PairingSummary>,
    /// Each terrain's seat balance, all pairings together.
    pub terrains: Vec<TerrainSummary>,
    /// Seat balance and shape over all games.
    pub overall: SideStats,
    /// The sequential test, when the run has one.
    pub sprt: Option<SprtSummary>,
}

impl Summary {
    /// The summary of `games` (in any order) played under `config`; `sprt_stop` is the SPRT
    /// decision that stopped the run, if one did (the run folder's `sprt.json`).
    pub fn compute(
        config: &RunConfig,
        games: &[GameLine],
        expected_games: u64,
        sprt_stop: Option<&SprtSummary>,
    ) -> Summary {
        let mut sorted: Vec<&GameLine> = games.iter().collect();
        sorted.sort_by_key(|g| g.key());
        let pairings = pairings(config);
        let pairing_summaries: Vec<PairingSummary> = pairings
            .iter()
            .map(|p| {
                let of_pairing: Vec<&GameLine> = sorted
                    .iter()
                    .copied()
                    .filter(|g| g.a == p.a && g.b == p.b)
                    .collect();
                PairingSummary {
                    a: p.a.clone(),
                    b: p.b.clone(),
                    overall: MatchStats::of(&of_pairing),
                    terrains: config
                        .terrains
                        .iter()
                        .map(|t| TerrainMatch {
                            terrain: t.clone(),
                            stats: MatchStats::of(&filter_terrain(&of_pairing, t)),
                        })
                        .collect(),
                }
            })
            .collect();
        let sprt = config.sprt.map(|params| {
            SprtSummary::reported(params, sprt_stop, &pairing_summaries[0].overall.pentanomial)
        });
        Summary {
            format: SUMMARY_FORMAT.into(),
            run: config.run_id(),
            config: config.clone(),
            expected_games,
            games: sorted.len() as u64,
            complete: sorted.len() as u64 == expected_games,
            bots: standings(config, &sorted),
            pairings: pairing_summaries,
            terrains: config
                .terrains
                .iter()
                .map(|t| TerrainSummary {
                    terrain: t.clone(),
                    stats: SideStats::of(&filter_terrain(&sorted, t)),
                })
                .collect(),
            overall: SideStats::of(&sorted),
            sprt,
        }
    }
}

fn filter_terrain<'a>(games: &[&'a GameLine], terrain: &str) -> Vec<&'a GameLine> {
    games
        .iter()
        .copied()
        .filter(|g| g.terrain == terrain)
        .collect()
}

fn standings(config: &RunConfig, games: &[&GameLine]) -> Vec<BotStanding> {
    let names = config.gauntlet.iter().chain(&config.bots);
    names
        .map(|bot| {
            // A game against itself says nothing about a bot's strength: it is left out.
            let mine: Vec<&&GameLine> = games
                .iter()
                .filter(|g| (g.a == *bot || g.b == *bot) && !g.is_self_play())
                .collect();
            let wins = mine
                .iter()
                .filter(|g| g.winner.as_ref() == Some(bot))
                .count() as u64;
            let draws = mine.iter().filter(|g| g.winner.is_none()).count() as u64;
            let forfeits = mine
                .iter()
                .filter(|g| g.end == "forfeit" && g.winner.as_ref() != Some(bot))
                .count() as u64;
            BotStanding {
                bot: bot.clone(),
                games: mine.len() as u64,
                wins,
                draws,
                forfeits,
                score: Rate::new(wins as f64 + 0.5 * draws as f64, mine.len() as u64),
            }
        })
        .collect()
}

// ----- Rendering ---------------------------------------------------------------------------------

fn elo_cell(s: &MatchStats) -> String {
    if s.pentanomial.pairs() == 0 {
        return "-".into();
    }
    elo_text(&s.elo, 2 * s.pentanomial.pairs())
}

fn penta_cell(p: &Pentanomial) -> String {
    p.counts.map(|c| c.to_string()).join("/")
}

fn turns_cell(s: &SideStats) -> String {
    match (s.mean_turns, s.turns_ci95) {
        (Some(m), Some(ci)) => format!("{m:.1} ± {ci:.1}"),
        (Some(m), None) => format!("{m:.1}"),
        _ => "-".into(),
    }
}

fn ends_cells(s: &SideStats) -> String {
    END_TYPES
        .iter()
        .map(|e| s.ends.get(*e).copied().unwrap_or(0).to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Mean thinking time per decision of each bot, from the game lines.
fn thinking_times(games: &[GameLine]) -> BTreeMap<String, (u64, f64)> {
    let mut out: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    for g in games {
        for c in Colour::BOTH {
            let bot = if c == Colour::Blue { &g.blue } else { &g.red };
            let e = out.entry(bot.clone()).or_default();
            e.0 += g.decisions[c.index()] as u64;
            e.1 += g.think_ms[c.index()];
        }
    }
    out
}

impl Summary {
    /// `summary.md`: the tables for people. `games` adds the thinking-time table.
    pub fn to_markdown(&self, games: &[GameLine]) -> String {
        let mut md = String::new();
        let c = &self.config;
        let _ = writeln!(md, "# Tournament summary\n");
        let _ = writeln!(
            md,
            "Run `{}`: {} of {} games played{}. Variant {}, {} games per pairing and terrain \
             (each deal twice, seats swapped), seed {}, turn cap {}.\n",
            self.run,
            self.games,
            self.expected_games,
            if self.complete { "" } else { " (incomplete)" },
            c.variant,
            c.games,
            c.seed,
            c.max_turns
        );
        if let Some(s) = &self.sprt {
            let _ = writeln!(md, "**{}**\n", s.describe());
        }
        md + &self.tables_markdown(games)
    }

    /// The tables of `summary.md` without its heading and settings line: bots, pairings,
    /// terrains and thinking time.
    pub fn tables_markdown(&self, games: &[GameLine]) -> String {
        let mut md = self.standings_table();
        md.push_str(&self.pairings_table());
        md.push_str(&self.terrains_table());
        md.push_str(&thinking_table(games));
        md
    }

    fn standings_table(&self) -> String {
        let mut md = String::from(
            "## Bots\n\n| bot | games | wins | draws | lost by forfeit | score [95% CI] |\n|---|---:|---:|---:|---:|---|\n",
        );
        for b in self.ranking() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                b.bot,
                b.games,
                b.wins,
                b.draws,
                b.forfeits,
                b.score.show()
            );
        }
        md + "\n"
    }

    fn pairings_table(&self) -> String {
        let mut md = String::from(
            "## Pairings\n\nScore, wins and Elo are those of the first bot named; for a bot against itself, those of the player moving first. Every deal is played twice, seats swapped; \
             the pairs column counts the deals played both times by the first bot's result over the two games: \
             lost both / lost one and drew one / won one and lost one, or drew both / won one and drew one / won both. \
             Elo and its interval come from these pairs; ∞ marks an end without bound.\n\n\
             | pairing | terrain | games | wins | losses | draws | score [95% CI] | Elo [95% CI] | pairs | first player wins |\n\
             |---|---|---:|---:|---:|---:|---|---|---|---|\n",
        );
        for p in &self.pairings {
            let rows = std::iter::once(("**all**", &p.overall))
                .chain(p.terrains.iter().map(|t| (t.terrain.as_str(), &t.stats)));
            for (terrain, s) in rows {
                let _ = writeln!(
                    md,
                    "| {} vs {} | {terrain} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    p.a,
                    p.b,
                    s.games,
                    s.wins_a,
                    s.wins_b,
                    s.draws,
                    s.score_a.show(),
                    elo_cell(s),
                    penta_cell(&s.pentanomial),
                    s.sides.first_player_wins.show()
                );
            }
        }
        md + "\n"
    }

    /// Each terrain's figures over all pairings, then those over all terrains named `all`.
    fn terrain_rows<'a>(
        &'a self,
        all: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a SideStats)> + 'a {
        self.terrains
            .iter()
            .map(|t| (t.terrain.as_str(), &t.stats))
            .chain(std::iter::once((all, &self.overall)))
    }

    fn terrains_table(&self) -> String {
        let mut md = String::from(
            "## Terrains (all pairings)\n\n\
             | terrain | games | first player wins | blue wins | red wins | hq | medals | blocked | turn_cap | forfeit | mean turns ± 95% |\n\
             |---|---:|---|---|---|---:|---:|---:|---:|---:|---|\n",
        );
        for (terrain, s) in self.terrain_rows("**all**") {
            let _ = writeln!(
                md,
                "| {terrain} | {} | {} | {} | {} | {} | {} |",
                s.games,
                s.first_player_wins.show(),
                s.blue_wins.show(),
                s.red_wins.show(),
                ends_cells(s),
                turns_cell(s)
            );
        }
        md + "\n"
    }

    /// `summary.csv`: one row per pairing and terrain (terrain "all" for the pairing overall),
    /// then one row per terrain over all pairings (pairing "all"), then the overall row.
    pub fn to_csv(&self) -> String {
        let mut csv = String::from(
            "pairing,a,b,terrain,games,wins_a,wins_b,draws,score_a,score_a_lo,score_a_hi,elo,elo_lo,elo_hi,\
             pairs,pairs_ll,pairs_ld,pairs_wl_dd,pairs_wd,pairs_ww,first_player_win_rate,first_lo,first_hi,\
             blue_win_rate,blue_lo,blue_hi,red_win_rate,red_lo,red_hi,hq,medals,blocked,turn_cap,forfeit,mean_turns\n",
        );
        let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.6}"));
        let side = |s: &SideStats| {
            let r = |r: &Rate| format!("{},{:.6},{:.6}", opt(r.rate), r.lo, r.hi);
            let ends = END_TYPES.map(|e| s.ends.get(e).copied().unwrap_or(0).to_string());
            format!(
                "{},{},{},{},{}",
                r(&s.first_player_wins),
                r(&s.blue_wins),
                r(&s.red_wins),
                ends.join(","),
                opt(s.mean_turns)
            )
        };
        for p in &self.pairings {
            let rows = std::iter::once(("all", &p.overall))
                .chain(p.terrains.iter().map(|t| (t.terrain.as_str(), &t.stats)));
            for (terrain, s) in rows {
                let counts = s.pentanomial.counts.map(|c| c.to_string()).join(",");
                let _ = writeln!(
                    csv,
                    "{} vs {},{},{},{terrain},{},{},{},{},{},{:.6},{:.6},{:.3},{:.3},{:.3},{},{counts},{}",
                    p.a, p.b, p.a, p.b, s.games, s.wins_a, s.wins_b, s.draws,
                    opt(s.score_a.rate), s.score_a.lo, s.score_a.hi,
                    s.elo.elo, s.elo.lo, s.elo.hi, s.pentanomial.pairs(), side(&s.sides)
                );
            }
        }
        for (terrain, s) in self.terrain_rows("all") {
            let _ = writeln!(
                csv,
                "all,,,{terrain},{},,,,,,,,,,,,,,,,{}",
                s.games,
                side(s)
            );
        }
        csv
    }
}

impl Summary {
    /// The short summary for the terminal: the ranking (score and Elo against the bots met,
    /// each with its 95% interval), the SPRT verdict, one line per terrain, and where the full
    /// tables are (`out` is the run folder).
    pub fn to_terminal(&self, out: &std::path::Path) -> String {
        let mut text = format!(
            "{} of {} games played{} ({} variant, seed {}, {} games per pairing and terrain)\n",
            self.games,
            self.expected_games,
            if self.complete { "" } else { ", incomplete" },
            self.config.variant,
            self.config.seed,
            self.config.games
        );
        if let Some(s) = &self.sprt {
            let _ = writeln!(text, "{}", s.describe());
        }
        text += &self.terminal_tables();
        let records = match self.config.records {
            super::config::Records::None => "no records (--no-records)".to_string(),
            _ => format!(
                "records in {}",
                out.join(super::store::RECORDS_DIR).display()
            ),
        };
        let _ = writeln!(
            text,
            "Full tables: {} (also summary.csv, summary.json); {records}",
            out.join("summary.md").display(),
        );
        text
    }

    /// The ranking and the terrains of the terminal summary.
    pub fn terminal_tables(&self) -> String {
        let mut text =
            String::from("Ranking (score and Elo against the bots met, with 95% intervals):\n");
        let width = self.bots.iter().map(|b| b.bot.len()).max().unwrap_or(0);
        for (i, b) in self.ranking().into_iter().enumerate() {
            if b.games == 0 {
                let _ = writeln!(
                    text,
                    "{:>3}. {:<width$}  played only itself: its pairing measures the first player",
                    i + 1,
                    b.bot
                );
                continue;
            }
            let _ = writeln!(
                text,
                "{:>3}. {:<width$}  {:>5} games  score {:<22}  {}",
                i + 1,
                b.bot,
                b.games,
                b.score.show(),
                standing_elo(b)
            );
        }
        text += "Terrains (first player wins, mean length):\n";
        let width = self
            .terrains
            .iter()
            .map(|t| t.terrain.len())
            .max()
            .unwrap_or(0);
        for t in &self.terrains {
            let _ = writeln!(
                text,
                "     {:<width$}  {:>5} games  first player {:<22}  {} turns",
                t.terrain,
                t.stats.games,
                t.stats.first_player_wins.show(),
                turns_cell(&t.stats)
            );
        }
        text
    }

    /// The bots, best score first.
    fn ranking(&self) -> Vec<&BotStanding> {
        let mut bots: Vec<&BotStanding> = self.bots.iter().collect();
        bots.sort_by(|x, y| {
            y.score
                .rate
                .partial_cmp(&x.score.rate)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        bots
    }
}

/// A bot's Elo against the bots it met, from its score and the score's Wilson interval.
fn standing_elo(b: &BotStanding) -> String {
    let Some(score) = b.score.rate else {
        return "-".into();
    };
    let elo = EloEstimate {
        elo: elo_from_score(score),
        lo: elo_from_score(b.score.lo),
        hi: elo_from_score(b.score.hi),
        score,
        score_lo: b.score.lo,
        score_hi: b.score.hi,
    };
    let text = elo_text(&elo, b.games);
    match text.starts_with(['+', '-']) {
        true => format!("Elo {text}"),
        false => text,
    }
}

fn thinking_table(games: &[GameLine]) -> String {
    let mut md = String::from(
        "## Thinking time\n\nMeasured on this machine; not part of summary.json (it differs between runs).\n\n\
         | bot | decisions | mean ms per decision |\n|---|---:|---:|\n",
    );
    for (bot, (n, ms)) in thinking_times(games) {
        let mean = if n > 0 { ms / n as f64 } else { 0.0 };
        let _ = writeln!(md, "| {bot} | {n} | {mean:.3} |");
    }
    md
}

/// Live score for the progress bar: each bot's score so far, best first.
pub fn live_score(config: &RunConfig, games: &[GameLine]) -> String {
    let list: Vec<&GameLine> = games.iter().collect();
    let mut s = standings(config, &list);
    s.sort_by(|x, y| {
        y.score
            .rate
            .partial_cmp(&x.score.rate)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    s.iter()
        .filter_map(|b| b.score.rate.map(|r| format!("{} {:.0}%", b.bot, 100.0 * r)))
        .collect::<Vec<_>>()
        .join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Game `game` of deal `position`, lost by bot `a` ("random") to "greedy".
    fn lost_by_a(position: usize, game: u8) -> GameLine {
        let (blue, red) = if game == 0 {
            ("random", "greedy")
        } else {
            ("greedy", "random")
        };
        let json = format!(
            r#"{{"run":"r","position":{position},"a":"random","b":"greedy","terrain":"castle_field",
            "variant":"normal","deal_seed":1,"pair":{position},"game":{game},"blue":"{blue}",
            "red":"{red}","first":"red","first_bot":"{red}","winner":"greedy",
            "winner_colour":"{}","end":"hq","forfeit_reason":null,"turns":15,"medals":[0,0],
            "decisions":[10,11],"think_ms":[0.1,0.1],"versions":["x","y"],"record":"r.json"}}"#,
            if game == 0 { "red" } else { "blue" }
        );
        serde_json::from_str(&json).unwrap()
    }

    fn sprt_0_100() -> SprtParams {
        "0,100".parse().unwrap()
    }

    /// Deal `position` won twice by bot `a` (`won`) or lost twice, as two game lines.
    fn pair_of_games(position: usize, won: bool) -> [GameLine; 2] {
        [0, 1].map(|game| {
            let mut g = crate::tournament::store::tests::line(position, game);
            g.winner = Some(if won { "a" } else { "b" }.into());
            g
        })
    }

    /// With two workers the run stops when the test decides, but the games then in progress
    /// finish and are counted: here they bring the LLR back between the bounds. The summary
    /// keeps the decision that stopped the run, with its pairs and LLR, and shows the LLR over
    /// all pairs beside it; it once said "no decision yet".
    #[test]
    fn the_sprt_decision_that_stopped_the_run_is_reported_after_later_pairs_return_inside() {
        let mut watch = SprtWatch::new(sprt_0_100(), None);
        let mut p = Pentanomial::default();
        let mut decided = None;
        while decided.is_none() {
            p.add_pair(1.0, 1.0);
            decided = watch.observe(&p).cloned();
        }
        let decided = decided.unwrap();
        assert_eq!(decided.decision, SprtDecision::H1);
        while SprtSummary::of(sprt_0_100(), &p).decision != SprtDecision::Continue {
            p.add_pair(0.0, 0.0);
            assert!(watch.observe(&p).is_none(), "a decision is taken once");
        }
        let all = SprtSummary::of(sprt_0_100(), &p);
        let reported = watch.report(&p);
        assert_eq!(
            reported.decision,
            SprtDecision::H1,
            "{}",
            reported.describe()
        );
        assert_eq!((reported.pairs, reported.llr), (decided.pairs, decided.llr));
        assert!(reported.llr >= reported.upper);
        assert_eq!(
            reported.all_pairs,
            Some(SprtAllPairs {
                pairs: all.pairs,
                llr: all.llr
            })
        );
        let text = reported.describe();
        assert!(text.contains("H1 accepted"), "{text}");
        assert!(
            text.contains(&format!("after {} pairs", decided.pairs)),
            "{text}"
        );
        assert!(
            text.contains(&format!("over all {} pairs the LLR is", all.pairs)),
            "{text}"
        );
        assert!(!text.contains("no decision yet"), "{text}");
    }

    /// A run folder written before decisions were kept: the decision is found again by
    /// replaying its games in the order they were counted, at the first pair that crossed.
    #[test]
    fn the_sprt_decision_of_an_older_run_folder_is_found_in_the_order_the_games_were_counted() {
        let mut games = Vec::new();
        let mut position = 0;
        let mut p = Pentanomial::default();
        while SprtSummary::of(sprt_0_100(), &p).decision == SprtDecision::Continue {
            games.extend(pair_of_games(position, true));
            p.add_pair(1.0, 1.0);
            position += 1;
        }
        let crossed = SprtSummary::of(sprt_0_100(), &p);
        let won = position;
        for lost in won..2 * won {
            games.extend(pair_of_games(lost, false));
        }
        let refs: Vec<&GameLine> = games.iter().collect();
        let all = SprtSummary::of(sprt_0_100(), &pentanomial(&refs));
        assert_eq!(all.decision, SprtDecision::Continue, "{}", all.describe());
        let watch = SprtWatch::replay(sprt_0_100(), &games);
        assert_eq!(watch.stop(), Some(&crossed));
        let config = RunConfig {
            format: crate::tournament::config::RUN_FORMAT.into(),
            bots: vec!["a".into(), "b".into()],
            gauntlet: None,
            terrains: vec!["castle_field".into()],
            terrain_file_hash: None,
            games: 100,
            seed: 1,
            variant: Default::default(),
            max_turns: 300,
            sprt: Some(sprt_0_100()),
            ext_timeout_ms: 1000,
            ext_startup_ms: 1000,
            versions: Default::default(),
            shard: None,
            what_ifs: Default::default(),
            records: Default::default(),
        };
        let summary = Summary::compute(&config, &games, 100, watch.stop());
        let sprt = summary.sprt.unwrap();
        assert_eq!(sprt.decision, SprtDecision::H1);
        assert_eq!(sprt.pairs, crossed.pairs);
        assert_eq!(sprt.all_pairs.map(|a| a.pairs), Some(all.pairs));
    }

    /// A pairing row and the ranking give a bot that lost every game the same bound, on the
    /// losing side of even: the row once printed "lost all 4 games: Elo ≤ +124".
    #[test]
    fn a_bot_that_lost_every_game_has_one_bound_everywhere() {
        let games: Vec<GameLine> = (0..2)
            .flat_map(|p| [lost_by_a(p, 0), lost_by_a(p, 1)])
            .collect();
        let refs: Vec<&GameLine> = games.iter().collect();
        let row = MatchStats::of(&refs);
        assert_eq!(row.score_a.show(), "0.0% [0.0, 49.0]");
        assert_eq!(elo_cell(&row), "lost all 4 games: Elo ≤ -7");
        let standing = BotStanding {
            bot: "random".into(),
            games: 4,
            wins: 0,
            draws: 0,
            forfeits: 0,
            score: row.score_a.clone(),
        };
        assert_eq!(standing_elo(&standing), elo_cell(&row));
        assert_eq!(
            (row.elo.score_lo, row.elo.score_hi),
            (row.score_a.lo, row.score_a.hi)
        );
    }
}
