//! The figures of a balance report, computed from a study's games alone (pure functions, one
//! pass to group the games, then a few passes per figure). Proportions and their differences
//! are fractions here (0.05 is 5 percentage points); the renderers show percent.

use super::estimate::{balance_of, mean, paired_difference, proportion, std_dev, Estimate};
use super::objective::ObjectiveSearch;
use super::regression::{fit, Design, FitError};
use super::{End, Study, StudyGame};
use crate::rules::{Colour, Restricted, Troop, Variant, WhatIfs};
use serde::Serialize;

/// Format tag of `balance.json`.
pub const REPORT_FORMAT: &str = "toybattle-balance/1";

/// The name of the row that pools all terrains (or all presets).
pub const ALL: &str = "all";

/// Every figure of a report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The format tag, [`REPORT_FORMAT`].
    pub format: String,
    /// Presets in report order.
    pub presets: Vec<String>,
    /// Terrain keys in report order.
    pub terrains: Vec<String>,
    /// Variants played.
    pub variants: Vec<Variant>,
    /// Games analysed.
    pub games: u64,
    /// Rules parameters changed from the printed game (none for the retail rules).
    pub what_ifs: WhatIfs,
    /// Per preset, variant and terrain (and all terrains): seats, length, ends.
    pub seats: Vec<SeatRow>,
    /// Per preset (and all presets pooled, when several) and troop.
    pub troops: Vec<TroopRow>,
    /// Troop-value fits that could not be made, with the reason.
    pub troop_notes: Vec<String>,
    /// Per preset, variant and troop: how often it is placed and how its players fare.
    pub plays: Vec<PlayRow>,
    /// Per preset and terrain (and all terrains): normal minus beginner, on the same deals.
    pub special_bases: Vec<SpecialRow>,
    /// Restricted play, per preset, terrain and restricted node: restricted minus normal, on
    /// the same deals.
    pub restricted_play: Vec<RestrictedRow>,
    /// One warning per preset that forfeited games: how many of how many.
    pub forfeits: Vec<String>,
    /// The plain-language summary, computed from the figures above.
    pub summary: Vec<String>,
    /// The medal-objective search, when the study was one (`--objective-search`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective_search: Option<ObjectiveSearch>,
}

#[derive(Clone, Debug, Serialize)]
/// Seat advantage, length and ends of one preset, variant and terrain.
pub struct SeatRow {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Terrain key, or `all` for every terrain pooled.
    pub terrain: String,
    /// Games in this row.
    pub games: u64,
    /// Score of the first player (a turn cap counts half); 0.5 is balanced.
    pub first_player: Option<Estimate>,
    /// Score of blue; 0.5 is balanced.
    pub blue: Option<Estimate>,
    /// Ludii's balance of the two seats, `1 − |2·first_player − 1|`.
    pub balance: Option<Estimate>,
    /// Share of games with a winner.
    pub decisiveness: Option<Estimate>,
    /// Mean game length in turns.
    pub turns_mean: Option<Estimate>,
    /// Spread (standard deviation) of the game length in turns.
    pub turns_sd: Option<Estimate>,
    /// Share of games per end type, in [`End::ALL`] order.
    pub ends: Vec<(End, Option<Estimate>)>,
}

#[derive(Clone, Debug, Serialize)]
/// The value of one troop for one preset.
pub struct TroopRow {
    /// The preset (or the pooled presets).
    pub preset: String,
    /// The troop type.
    pub troop: Troop,
    /// Change in win probability per copy of this troop in a player's deck, relative to a copy
    /// of the average troop (the values of the eight troops sum to zero).
    pub value: Estimate,
}

#[derive(Clone, Debug, Serialize)]
/// How one troop is played by one preset in one variant.
pub struct PlayRow {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// The troop type.
    pub troop: Troop,
    /// Tiles of this troop a player places per game.
    pub placed_per_game: Option<Estimate>,
    /// Share of players (one per colour and game) who placed it at least once.
    pub played_share: Option<Estimate>,
    /// Score of the players who placed it at least once.
    pub score_when_played: Option<Estimate>,
}

#[derive(Clone, Debug, Serialize)]
/// The effect of a terrain's special bases: normal minus beginner on the same deals.
pub struct SpecialRow {
    /// The preset playing itself.
    pub preset: String,
    /// Terrain key, or `all`.
    pub terrain: String,
    /// Deals played in both variants.
    pub deals: u64,
    /// Normal minus beginner, each paired by deal.
    pub first_player: Option<Estimate>,
    /// Change in blue's score.
    pub blue: Option<Estimate>,
    /// Change in mean length (turns).
    pub turns: Option<Estimate>,
    /// Change in the share of each end type.
    pub ends: Vec<(End, Option<Estimate>)>,
}

#[derive(Clone, Debug, Serialize)]
/// The value of one special base for the game (Jaffe's restricted play): the games with its
/// effect never used, by either player, minus the normal games on the same deals.
pub struct RestrictedRow {
    /// The preset playing itself.
    pub preset: String,
    /// Terrain key.
    pub terrain: String,
    /// The node ids whose effect was never used (one special base in a study's runs).
    pub restricted: Restricted,
    /// Games played with the restriction.
    pub games: u64,
    /// Restricted minus normal, each paired by deal: the first player's score.
    pub first_player: Option<Estimate>,
    /// Change in blue's score.
    pub blue: Option<Estimate>,
    /// Change in mean length (turns).
    pub turns: Option<Estimate>,
    /// Change in the share of each end type.
    pub ends: Vec<(End, Option<Estimate>)>,
}

/// Games as `(deal, value)` pairs, the input of every estimate.
fn items(games: &[&StudyGame], f: impl Fn(&StudyGame) -> f64) -> Vec<(u64, f64)> {
    games.iter().map(|g| (g.deal, f(g))).collect()
}

fn first_score(g: &StudyGame) -> f64 {
    g.score(g.first)
}

fn blue_score(g: &StudyGame) -> f64 {
    g.score(Colour::Blue)
}

fn variant_index(v: Variant) -> usize {
    match v {
        Variant::Normal => 0,
        Variant::Beginner => 1,
    }
}

const VARIANTS: [Variant; 2] = [Variant::Normal, Variant::Beginner];

/// The games of a study grouped by (preset, variant, terrain); terrain index `terrains.len()`
/// holds all terrains.
struct Cells<'a> {
    terrains: usize,
    cells: Vec<Vec<&'a StudyGame>>,
}

impl<'a> Cells<'a> {
    fn new(study: &'a Study) -> Cells<'a> {
        let t = study.terrains.len() + 1;
        let mut cells = vec![Vec::new(); study.presets.len() * 2 * t];
        // Restricted-play games are other rules: compared with these, never pooled in.
        for g in study.games.iter().filter(|g| g.restricted.is_empty()) {
            let base = (g.preset as usize * 2 + variant_index(g.variant)) * t;
            cells[base + g.terrain as usize].push(g);
            cells[base + t - 1].push(g);
        }
        Cells { terrains: t, cells }
    }

    /// `terrain` = `None` for all terrains.
    fn get(&self, preset: usize, variant: Variant, terrain: Option<usize>) -> &[&'a StudyGame] {
        let t = terrain.unwrap_or(self.terrains - 1);
        &self.cells[(preset * 2 + variant_index(variant)) * self.terrains + t]
    }
}

/// Computes every figure of the report.
pub fn analyse(study: &Study) -> Report {
    let cells = Cells::new(study);
    let variants: Vec<Variant> = VARIANTS
        .into_iter()
        .filter(|v| study.games.iter().any(|g| g.variant == *v))
        .collect();
    let terrain_choices = || {
        (0..study.terrains.len())
            .map(Some)
            .chain(std::iter::once(None))
    };
    let terrain_name = |t: Option<usize>| t.map_or(ALL.to_string(), |t| study.terrains[t].clone());
    let mut seats = Vec::new();
    let mut plays = Vec::new();
    let mut special_bases = Vec::new();
    for (p, preset) in study.presets.iter().enumerate() {
        for &v in &variants {
            for t in terrain_choices() {
                seats.push(seat_row(preset, v, &terrain_name(t), cells.get(p, v, t)));
            }
            plays.extend(play_rows(preset, v, cells.get(p, v, None)));
        }
        if variants.len() == 2 {
            for t in terrain_choices() {
                special_bases.push(special_row(
                    preset,
                    &terrain_name(t),
                    cells.get(p, Variant::Normal, t),
                    cells.get(p, Variant::Beginner, t),
                ));
            }
        }
    }
    let restricted_play = restricted_rows(study, &cells);
    let (troops, troop_notes) = troop_values(study);
    let mut report = Report {
        format: REPORT_FORMAT.into(),
        presets: study.presets.clone(),
        terrains: study.terrains.clone(),
        variants,
        games: study.games.len() as u64,
        what_ifs: study.what_ifs.clone(),
        seats,
        troops,
        troop_notes,
        plays,
        special_bases,
        restricted_play,
        forfeits: forfeit_warnings(study),
        summary: Vec::new(),
        objective_search: None,
    };
    report.summary = summarise(&report);
    report
}

fn seat_row(preset: &str, variant: Variant, terrain: &str, games: &[&StudyGame]) -> SeatRow {
    let first_player = proportion(&mut items(games, first_score));
    let turns: Vec<f64> = games.iter().map(|g| g.turns as f64).collect();
    SeatRow {
        preset: preset.to_string(),
        variant,
        terrain: terrain.to_string(),
        games: games.len() as u64,
        first_player,
        blue: proportion(&mut items(games, blue_score)),
        balance: first_player.as_ref().map(balance_of),
        decisiveness: proportion(&mut items(games, |g| g.winner.is_some() as u8 as f64)),
        turns_mean: mean(&mut items(games, |g| g.turns as f64)),
        turns_sd: std_dev(&turns, first_player.map_or(0, |e| e.deals)),
        ends: End::ALL
            .into_iter()
            .map(|e| {
                (
                    e,
                    proportion(&mut items(games, |g| (g.end == e) as u8 as f64)),
                )
            })
            .collect(),
    }
}

fn special_row(
    preset: &str,
    terrain: &str,
    normal: &[&StudyGame],
    beginner: &[&StudyGame],
) -> SpecialRow {
    let diff = |f: &dyn Fn(&StudyGame) -> f64| {
        paired_difference(&mut items(normal, f), &mut items(beginner, f))
    };
    let first_player = diff(&first_score);
    SpecialRow {
        preset: preset.to_string(),
        terrain: terrain.to_string(),
        deals: first_player.map_or(0, |e| e.n),
        first_player,
        blue: diff(&blue_score),
        turns: diff(&|g| g.turns as f64),
        ends: End::ALL
            .into_iter()
            .filter(|e| *e != End::Forfeit)
            .map(|e| (e, diff(&|g| (g.end == e) as u8 as f64)))
            .collect(),
    }
}

/// Restricted play: each (preset, terrain, restriction) of the restricted games against the
/// normal games of its preset and terrain, in the order the study names them.
fn restricted_rows(study: &Study, cells: &Cells) -> Vec<RestrictedRow> {
    // (preset, terrain, restricted nodes) and the games played so.
    type Group<'a> = ((u16, u16, Restricted), Vec<&'a StudyGame>);
    let mut groups: Vec<Group> = Vec::new();
    for g in study.games.iter().filter(|g| !g.restricted.is_empty()) {
        let key = (g.preset, g.terrain, g.restricted);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, games)) => games.push(g),
            None => groups.push((key, vec![g])),
        }
    }
    groups.sort_by_key(|((p, t, r), _)| (*p, *t, r.ids().next()));
    groups
        .into_iter()
        .map(|((p, t, restricted), games)| {
            let normal = cells.get(p as usize, Variant::Normal, Some(t as usize));
            let diff = |f: &dyn Fn(&StudyGame) -> f64| {
                paired_difference(&mut items(&games, f), &mut items(normal, f))
            };
            RestrictedRow {
                preset: study.presets[p as usize].clone(),
                terrain: study.terrains[t as usize].clone(),
                restricted,
                games: games.len() as u64,
                first_player: diff(&first_score),
                blue: diff(&blue_score),
                turns: diff(&|g| g.turns as f64),
                ends: End::ALL
                    .into_iter()
                    .filter(|e| *e != End::Forfeit)
                    .map(|e| (e, diff(&|g| (g.end == e) as u8 as f64)))
                    .collect(),
            }
        })
        .collect()
}

fn play_rows(preset: &str, variant: Variant, games: &[&StudyGame]) -> Vec<PlayRow> {
    Troop::ALL
        .into_iter()
        .map(|troop| {
            let k = troop.index();
            // Players of games whose record was read, with the tiles of this troop placed.
            let per_player = |f: &dyn Fn(&StudyGame, Colour, u8) -> Option<f64>| {
                let mut v = Vec::with_capacity(games.len() * 2);
                for g in games {
                    let Some(placed) = &g.placed else { continue };
                    for c in Colour::BOTH {
                        if let Some(x) = f(g, c, placed[c.index()][k]) {
                            v.push((g.deal, x));
                        }
                    }
                }
                v
            };
            PlayRow {
                preset: preset.to_string(),
                variant,
                troop,
                placed_per_game: mean(&mut per_player(&|_, _, n| Some(n as f64))),
                played_share: proportion(&mut per_player(&|_, _, n| Some((n > 0) as u8 as f64))),
                score_when_played: proportion(&mut per_player(&|g, c, n| {
                    (n > 0).then(|| g.score(c))
                })),
            }
        })
        .collect()
}

/// Troop values for each preset, and for all presets pooled when there are several.
fn troop_values(study: &Study) -> (Vec<TroopRow>, Vec<String>) {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut groups: Vec<(String, Vec<&StudyGame>)> = study
        .presets
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let games = study
                .games
                .iter()
                .filter(|g| g.preset as usize == p && g.restricted.is_empty());
            (name.clone(), games.collect())
        })
        .collect();
    if study.presets.len() > 1 {
        let unrestricted = study.games.iter().filter(|g| g.restricted.is_empty());
        groups.push((ALL.to_string(), unrestricted.collect()));
    }
    for (name, games) in groups {
        match troop_fit(study, &games) {
            Ok(values) => rows.extend(values.into_iter().map(|(troop, value)| TroopRow {
                preset: name.clone(),
                troop,
                value,
            })),
            Err(reason) => notes.push(format!("{name}: troop values not estimable ({reason})")),
        }
    }
    (rows, notes)
}

/// The linear probability model of blue's score against the difference in copies lost at setup
/// (red's minus blue's) of each troop but Kwak, with the first player, the variant, the
/// terrain and (pooled) the preset as covariates; the values are then centred so that the
/// eight troops sum to zero, because every player loses exactly four tiles: only the value of
/// one troop relative to another can be told from the deals.
pub fn troop_fit(study: &Study, games: &[&StudyGame]) -> Result<Vec<(Troop, Estimate)>, FitError> {
    let has = |f: &dyn Fn(&&StudyGame) -> bool| games.iter().any(f);
    let both_variants =
        has(&|g| g.variant == Variant::Normal) && has(&|g| g.variant == Variant::Beginner);
    let terrains: Vec<u16> = (0..study.terrains.len() as u16)
        .filter(|t| has(&|g| g.terrain == *t))
        .collect();
    let presets: Vec<u16> = (0..study.presets.len() as u16)
        .filter(|p| has(&|g| g.preset == *p))
        .collect();
    let mut names = vec!["intercept".to_string(), "blue moves first".to_string()];
    if both_variants {
        names.push("beginner variant".into());
    }
    names.extend(
        terrains
            .iter()
            .skip(1)
            .map(|&t| format!("terrain {}", study.terrains[t as usize])),
    );
    names.extend(
        presets
            .iter()
            .skip(1)
            .map(|&p| format!("preset {}", study.presets[p as usize])),
    );
    let troop_start = names.len();
    names.extend(
        Troop::ALL[1..]
            .iter()
            .map(|t| format!("copies of {t} lost")),
    );
    let mut design = Design::new(names);
    let mut row = Vec::with_capacity(design.columns());
    for g in games {
        row.clear();
        row.push(1.0);
        row.push((g.first == Colour::Blue) as u8 as f64);
        if both_variants {
            row.push((g.variant == Variant::Beginner) as u8 as f64);
        }
        row.extend(
            terrains
                .iter()
                .skip(1)
                .map(|&t| (g.terrain == t) as u8 as f64),
        );
        row.extend(
            presets
                .iter()
                .skip(1)
                .map(|&p| (g.preset == p) as u8 as f64),
        );
        row.extend((1..Troop::ALL.len()).map(|k| g.lost[1][k] as f64 - g.lost[0][k] as f64));
        design.push(&row, g.score(Colour::Blue), g.deal);
    }
    let f = fit(&design)?;
    Ok(centred_troop_values(&f, troop_start))
}

/// Values relative to the average troop: `v'_k = v_k − mean(v)` with `v_Kwak = 0`, and their
/// variances through the same linear map.
fn centred_troop_values(f: &super::regression::Fit, start: usize) -> Vec<(Troop, Estimate)> {
    let k = Troop::ALL.len();
    let p = f.coef.len();
    // Coefficient and covariance of troop j (0 = Kwak, the reference, fixed at 0).
    let coef = |j: usize| if j == 0 { 0.0 } else { f.coef[start + j - 1] };
    let cov = |i: usize, j: usize| {
        if i == 0 || j == 0 {
            0.0
        } else {
            f.cov[(start + i - 1) * p + start + j - 1]
        }
    };
    let avg = (0..k).map(coef).sum::<f64>() / k as f64;
    let weight = |t: usize, j: usize| (t == j) as u8 as f64 - 1.0 / k as f64;
    Troop::ALL
        .into_iter()
        .map(|troop| {
            let t = troop.index();
            let var: f64 = (0..k)
                .flat_map(|i| (0..k).map(move |j| (i, j)))
                .map(|(i, j)| weight(t, i) * weight(t, j) * cov(i, j))
                .sum();
            let value = coef(t) - avg;
            let half = f.quantile() * var.max(0.0).sqrt();
            (
                troop,
                Estimate {
                    value,
                    lo: value - half,
                    hi: value + half,
                    n: f.n,
                    deals: f.clusters,
                },
            )
        })
        .collect()
}

/// "ext:x forfeited 2 of 2 games", for each preset with forfeits: a forfeit is a bot that
/// failed (crashed, answered nonsense, ran out of time), so its games say nothing of balance.
fn forfeit_warnings(study: &Study) -> Vec<String> {
    study
        .presets
        .iter()
        .enumerate()
        .filter_map(|(p, preset)| {
            let games = study.games.iter().filter(|g| g.preset as usize == p);
            let (total, forfeits) = games.fold((0u64, 0u64), |(t, f), g| {
                (t + 1, f + (g.end == End::Forfeit) as u64)
            });
            (forfeits > 0).then(|| {
                format!(
                    "{preset} forfeited {forfeits} of {total} games; forfeits are bot failures, not play, and the figures of {preset} include them \
                     (each game's record says why it was forfeited)"
                )
            })
        })
        .collect()
}

/// Plain-language findings for the top of the report, with a caution where the leading
/// figure's interval overlaps the runner-up's (or holds "no effect").
fn summarise(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let Some(preset) = r.presets.last() else {
        return out;
    };
    let variant = r.variants.first().copied().unwrap_or_default();
    let played = r
        .seats
        .iter()
        .find(|s| s.preset == *preset && s.variant == variant && s.terrain == ALL)
        .and_then(|s| s.ends.iter().find(|(e, _)| *e == End::Forfeit))
        .and_then(|(_, share)| *share)
        .is_none_or(|share| share.value < 1.0);
    if !played {
        out.push(format!(
            "No findings for {preset}: every game of it in the {variant} variant was forfeited."
        ));
        return out;
    }
    out.push(format!(
        "Findings for {preset} (the last preset named) in the {variant} variant; every figure \
         below is in the tables with its 95% interval."
    ));
    // Least balanced terrain: largest distance of the first player's or blue's score from 50%.
    let mut by_terrain: Vec<(f64, &SeatRow, &str, Estimate)> = r
        .seats
        .iter()
        .filter(|s| s.preset == *preset && s.variant == variant && s.terrain != ALL)
        .flat_map(|s| {
            [("the first player", s.first_player), ("blue", s.blue)]
                .into_iter()
                .filter_map(move |(what, e)| e.map(|e| ((e.value - 0.5).abs(), s, what, e)))
        })
        .collect();
    by_terrain.sort_by(|a, b| b.0.total_cmp(&a.0));
    if let Some((_, s, what, e)) = by_terrain.first() {
        let runner = by_terrain.iter().find(|x| x.1.terrain != s.terrain);
        let mut line = format!(
            "Least balanced terrain: {} ({what} scores {}).",
            s.terrain,
            pct(e)
        );
        if e.covers(0.5) {
            line += " Caution: its interval holds 50%, so even this terrain is not shown to be unbalanced.";
        } else if let Some((_, s2, what2, e2)) = runner {
            if sizes_overlap(e, e2, 0.5) {
                line += &format!(
                    " Caution: {} ({what2}: {}) is not clearly better balanced; the intervals overlap.",
                    s2.terrain,
                    pct(e2)
                );
            }
        }
        out.push(line);
    }
    let mut troops: Vec<&TroopRow> = r.troops.iter().filter(|t| t.preset == *preset).collect();
    troops.sort_by(|a, b| b.value.value.total_cmp(&a.value.value));
    if let [best, second, ..] = troops.as_slice() {
        let mut line = format!(
            "Most valuable troop: {} ({} per copy against the average troop).",
            best.troop,
            pp(&best.value)
        );
        if best.value.overlaps(&second.value) {
            line += &format!(
                " Caution: {} ({}) overlaps it; the order is not established.",
                second.troop,
                pp(&second.value)
            );
        }
        out.push(line);
    }
    let mut specials: Vec<&SpecialRow> = r
        .special_bases
        .iter()
        .filter(|s| s.preset == *preset && s.terrain != ALL && s.first_player.is_some())
        .collect();
    specials.sort_by(|a, b| {
        let size = |s: &SpecialRow| s.first_player.map_or(0.0, |e| e.value.abs());
        size(b).total_cmp(&size(a))
    });
    if let Some(best) = specials.first() {
        let e = best
            .first_player
            .unwrap_or(Estimate::not_estimable(0.0, 0, 0));
        let mut line = format!(
            "Special bases that matter most: {} (they change the first player's score by {}).",
            best.terrain,
            pp(&e)
        );
        if e.covers(0.0) {
            line += " Caution: the interval holds 0: no effect is shown.";
        } else if let Some(e2) = specials.get(1).and_then(|s| s.first_player) {
            if sizes_overlap(&e, &e2, 0.0) {
                line += &format!(
                    " Caution: {} ({}) is not clearly smaller; the intervals overlap.",
                    specials[1].terrain,
                    pp(&e2)
                );
            }
        }
        out.push(line);
    }
    if let Some(line) = restricted_summary(r, preset) {
        out.push(line);
    }
    out
}

/// The special base whose restriction moves the first player's score most.
fn restricted_summary(r: &Report, preset: &str) -> Option<String> {
    let size = |row: &RestrictedRow| row.first_player.map_or(0.0, |e| e.value.abs());
    let mut rows: Vec<&RestrictedRow> = r
        .restricted_play
        .iter()
        .filter(|row| row.preset == preset && row.first_player.is_some())
        .collect();
    rows.sort_by(|a, b| size(b).total_cmp(&size(a)));
    let best = rows.first()?;
    let e = best.first_player?;
    let mut line = format!(
        "Special base that matters most in restricted play: {} node {} (never using its effect \
         changes the first player's score by {}).",
        best.terrain,
        best.restricted.describe(),
        pp(&e)
    );
    if e.covers(0.0) {
        line += " Caution: the interval holds 0: no effect is shown.";
    } else if let Some(e2) = rows.get(1).and_then(|row| row.first_player) {
        if sizes_overlap(&e, &e2, 0.0) {
            line += &format!(
                " Caution: {} node {} ({}) is not clearly smaller; the intervals overlap.",
                rows[1].terrain,
                rows[1].restricted.describe(),
                pp(&e2)
            );
        }
    }
    Some(line)
}

/// Whether two effects' sizes (distances from `neutral`, the figure of no effect) cannot be
/// told apart: the ranges of distance their intervals allow overlap.
fn sizes_overlap(a: &Estimate, b: &Estimate, neutral: f64) -> bool {
    let size = |e: &Estimate| {
        let (x, y) = ((e.lo - neutral).abs(), (e.hi - neutral).abs());
        let least = if e.covers(neutral) { 0.0 } else { x.min(y) };
        (least, x.max(y))
    };
    let ((a_lo, a_hi), (b_lo, b_hi)) = (size(a), size(b));
    a_lo <= b_hi && b_lo <= a_hi
}

/// "54.2% [51.0, 57.3]", or "50.0%, not estimable (1 deal)".
pub fn pct(e: &Estimate) -> String {
    if !e.is_estimable() {
        return format!("{:.1}%, {}", 100.0 * e.value, e.not_estimable_note());
    }
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * e.value,
        100.0 * e.lo,
        100.0 * e.hi
    )
}

/// "+3.1 pp [+0.4, +5.8]", or "+0.0 pp, not estimable (2 deals)".
pub fn pp(e: &Estimate) -> String {
    if !e.is_estimable() {
        return format!("{:+.1} pp, {}", 100.0 * e.value, e.not_estimable_note());
    }
    format!(
        "{:+.1} pp [{:+.1}, {:+.1}]",
        100.0 * e.value,
        100.0 * e.lo,
        100.0 * e.hi
    )
}
