//! The figures of a balance report, computed from a study's games alone (pure functions, one
//! pass to group the games, then a few passes per figure). Proportions and their differences
//! are fractions here (0.05 is 5 percentage points); the renderers show percent.

use super::design::DesignSearch;
use super::estimate::{balance_of, mean, paired_difference, proportion, std_dev, Estimate};
use super::multiplicity::{cochran_q, p_value, Family, Test, ALPHA};
use super::regression::{fit, FitError, Observations};
use super::tension::Tension;
use super::{End, Study, StudyGame};
use crate::rules::{Colour, Restricted, Troop, Variant, WhatIfs};
use serde::Serialize;
use std::ops::Range;

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
    /// Terrain names, parallel to `terrains` (what the report shows).
    pub terrain_names: Vec<String>,
    /// What is missing from an incomplete study (shards, terrains, variants or presets not
    /// read), said at the top of the report; empty for a complete study.
    pub incomplete: Vec<String>,
    /// Variants played.
    pub variants: Vec<Variant>,
    /// Games analysed.
    pub games: u64,
    /// Rules parameters changed from the printed game (none for the retail rules).
    pub what_ifs: WhatIfs,
    /// Per preset, variant and terrain (and all terrains): seats, length, ends.
    pub seats: Vec<SeatRow>,
    /// Per preset and troop, every terrain and variant pooled (never pooled across presets);
    /// the report shows a pooled value only where `troop_homogeneity` does not reject it.
    pub troops: Vec<TroopRow>,
    /// Per preset, variant, terrain (and all terrains) and troop.
    pub troop_cells: Vec<TroopCell>,
    /// Per preset and troop: whether its value is the same on every terrain (per variant) and
    /// in both variants.
    pub troop_homogeneity: Vec<Homogeneity>,
    /// Troop-value fits that could not be made, with the reason.
    pub troop_notes: Vec<String>,
    /// Per preset, variant and troop: how often it is placed and how its players fare.
    pub plays: Vec<PlayRow>,
    /// Per preset and terrain (and all terrains): normal minus beginner, on the same deals.
    pub special_bases: Vec<SpecialRow>,
    /// Restricted play, per preset, terrain and restricted node: restricted minus normal, on
    /// the same deals.
    pub restricted_play: Vec<RestrictedRow>,
    /// Notes where the beginner variant plays the very same games as the normal one (a
    /// terrain without special-base effects), so its rows repeat the normal rows.
    pub repeats: Vec<String>,
    /// Per preset after the first, variant and terrain (and all terrains): the change from the
    /// preset named before it, paired by deal.
    pub skill_changes: Vec<SkillChange>,
    /// Per rule what-if compared with the study's (printed) rules, preset, variant and terrain
    /// (and all terrains): the what-if minus the printed rules, paired by deal; empty when
    /// every run played the study's rules (and then left out of `balance.json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub what_if_changes: Vec<WhatIfChange>,
    /// The families of comparisons the summary's headlines are chosen from, each with Holm's
    /// correction for its number of comparisons.
    pub families: Vec<Family>,
    /// One warning per preset that forfeited games: how many of how many.
    pub forfeits: Vec<String>,
    /// The plain-language summary, computed from the figures above.
    pub summary: Vec<String>,
    /// The designer's search, when the study was one (`--design-search`, or
    /// `--objective-search`: the designer's search of the medal objective alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design_search: Option<DesignSearch>,
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
    /// Ludii's completion: the share of games that end with a winner.
    pub decisiveness: Option<Estimate>,
    /// Game length in turns at the 10th, 25th, 50th, 75th and 90th percentiles (nearest
    /// rank): the length distribution's shape beside its mean and spread.
    pub turns_quantiles: Option<[u16; 5]>,
    /// Ludii's branching factor: legal decisions per player decision, the mean over games of
    /// each game's mean (from the games whose record was read).
    pub branching: Option<Estimate>,
    /// Ludii's lead change: times the expected winner changed between turns, mean per game
    /// (from the games whose record was read; `balance::tension`).
    pub lead_changes: Option<Estimate>,
    /// Ludii's drama (average): mean shortfall of the eventual winner's win estimate below the
    /// leader's, mean per game won (from the records).
    pub drama: Option<Estimate>,
    /// Ludii's decisiveness (`DecisivenessMoves`): share of the game before the winner's
    /// estimate exceeds the loser's best, mean per game won (from the records).
    pub decisiveness_moves: Option<Estimate>,
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
/// The value of one troop for one preset in one variant on one terrain (or all terrains).
pub struct TroopCell {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Terrain key, or `all`.
    pub terrain: String,
    /// The troop type.
    pub troop: Troop,
    /// As [`TroopRow::value`], from this cell's games alone.
    pub value: Estimate,
}

#[derive(Clone, Debug, Serialize)]
/// A test of whether a troop's value is the same everywhere it is pooled over.
pub struct Homogeneity {
    /// The preset playing itself.
    pub preset: String,
    /// The troop type.
    pub troop: Troop,
    /// What the value is compared across: `terrains` (within `variant`) or `variants`.
    pub across: String,
    /// The variant, for a test across terrains.
    pub variant: Option<Variant>,
    /// Cochran's Q across terrains, or the squared t statistic of the change between the
    /// variants (paired by deal in one fit).
    pub statistic: f64,
    /// Degrees of freedom of the statistic.
    pub df: u32,
    /// Its p-value: below 0.05 the values differ, and they are not pooled.
    pub p: f64,
}

impl Homogeneity {
    /// Whether the values differ at 5% (unadjusted: pooling is refused more readily so).
    pub fn rejected(&self) -> bool {
        self.p < ALPHA
    }
}

#[derive(Clone, Debug, Serialize)]
/// How a preset's figures change from the preset named before it, on the same deals.
pub struct SkillChange {
    /// The preset.
    pub preset: String,
    /// The preset it is compared with (named just before it).
    pub against: String,
    /// The variant played.
    pub variant: Variant,
    /// Terrain key, or `all`.
    pub terrain: String,
    /// Deals played by both presets.
    pub deals: u64,
    /// Change in the first player's score (`preset` minus `against`).
    pub first_player: Option<Estimate>,
    /// Change in blue's score.
    pub blue: Option<Estimate>,
    /// Change in mean length (turns).
    pub turns: Option<Estimate>,
}

#[derive(Clone, Debug, Serialize)]
/// How a rule what-if changes a preset's games from the printed rules, on the same deals.
pub struct WhatIfChange {
    /// The what-if in words, e.g. "objective 6 medals on castle_field".
    pub what_if: String,
    /// The what-if's rules parameters.
    pub what_ifs: WhatIfs,
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Terrain key, or `all`.
    pub terrain: String,
    /// Games played under the what-if.
    pub games: u64,
    /// The first player's score under the what-if (0.5 is even).
    pub score_first_player: Option<Estimate>,
    /// Blue's score under the what-if.
    pub score_blue: Option<Estimate>,
    /// Deals played under both rules.
    pub deals: u64,
    /// The what-if minus the printed rules.
    #[serde(flatten)]
    pub change: PairedChange,
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
    /// Normal minus beginner.
    #[serde(flatten)]
    pub change: PairedChange,
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
    /// Restricted minus normal.
    #[serde(flatten)]
    pub change: PairedChange,
}

#[derive(Clone, Debug, Serialize)]
/// One set of games minus another played on the same deals, each figure paired by deal: a
/// deal's mean in the first set minus its mean in the second, with a t interval over deals.
pub struct PairedChange {
    /// Change in the first player's score.
    pub first_player: Option<Estimate>,
    /// Change in blue's score.
    pub blue: Option<Estimate>,
    /// Change in mean length (turns).
    pub turns: Option<Estimate>,
    /// Change in the share of each end type.
    pub ends: Vec<(End, Option<Estimate>)>,
}

impl PairedChange {
    /// `games` minus `base` (both on the same deals).
    fn between(games: &[&StudyGame], base: &[&StudyGame]) -> PairedChange {
        let diff = |f: &dyn Fn(&StudyGame) -> f64| {
            paired_difference(&mut items(games, f), &mut items(base, f))
        };
        PairedChange {
            first_player: diff(&first_score),
            blue: diff(&blue_score),
            turns: diff(&|g| g.turns as f64),
            ends: End::ALL
                .into_iter()
                .filter(|e| *e != End::Forfeit)
                .map(|e| (e, diff(&|g| (g.end == e) as u8 as f64)))
                .collect(),
        }
    }

    /// The deals both sets played.
    fn deals(&self) -> u64 {
        self.first_player.map_or(0, |e| e.n)
    }
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

/// The games of a study by cell (rules, preset, variant, terrain), gathered when asked for, in
/// the study's order. No per-game index is kept: each (rules, preset, variant) keeps only the
/// span of the study's games its games lie in (one run's block in a study read from its
/// folders), so a cell costs one pass over that span while it is analysed.
struct Cells<'a> {
    games: &'a [StudyGame],
    presets: usize,
    /// Per (rules, preset, variant): the indices of the first and past the last of its games.
    spans: Vec<Range<usize>>,
}

impl<'a> Cells<'a> {
    fn new(study: &'a Study) -> Cells<'a> {
        let presets = study.presets.len();
        let mut spans = vec![0..0; (study.compared.len() + 1) * presets * 2];
        // Restricted-play games are other rules: compared with these, never pooled in.
        for (i, g) in study.games.iter().enumerate() {
            let at =
                (g.rules as usize * presets + g.preset as usize) * 2 + variant_index(g.variant);
            match spans.get_mut(at) {
                Some(span) if g.restricted == 0 && span.end == span.start => *span = i..i + 1,
                Some(span) if g.restricted == 0 => span.end = i + 1,
                _ => {}
            }
        }
        Cells {
            games: &study.games,
            presets,
            spans,
        }
    }

    /// Whether any game was played under rules `rules` by `preset` in `variant`.
    fn played(&self, rules: usize, preset: usize, variant: Variant) -> bool {
        let at = (rules * self.presets + preset) * 2 + variant_index(variant);
        self.spans.get(at).is_some_and(|span| span.start < span.end)
    }

    /// The games of the study's own rules; `terrain` = `None` for all terrains.
    fn get(&self, preset: usize, variant: Variant, terrain: Option<usize>) -> Vec<&'a StudyGame> {
        self.under(0, preset, variant, terrain)
    }

    /// The games of rules `rules` ([`StudyGame::rules`]).
    fn under(
        &self,
        rules: usize,
        preset: usize,
        variant: Variant,
        terrain: Option<usize>,
    ) -> Vec<&'a StudyGame> {
        self.gather(&[(rules, preset, variant, terrain)])
    }

    /// The study's own games of `preset` in each of `variants`, on every terrain.
    fn all_variants(&self, preset: usize, variants: &[Variant]) -> Vec<&'a StudyGame> {
        let cells: Vec<_> = variants.iter().map(|&v| (0, preset, v, None)).collect();
        self.gather(&cells)
    }

    /// The games of the cells `(rules, preset, variant, terrain)` one after the other,
    /// counted first so that the list is allocated once at its size.
    fn gather(&self, cells: &[(usize, usize, Variant, Option<usize>)]) -> Vec<&'a StudyGame> {
        let count: usize = cells.iter().map(|&c| self.iter(c).count()).sum();
        let mut games = Vec::with_capacity(count);
        for &c in cells {
            games.extend(self.iter(c));
        }
        games
    }

    /// The games of one cell, in the study's order.
    fn iter(
        &self,
        (rules, preset, variant, terrain): (usize, usize, Variant, Option<usize>),
    ) -> impl Iterator<Item = &'a StudyGame> + 'a {
        let at = (rules * self.presets + preset) * 2 + variant_index(variant);
        let span = self.spans.get(at).cloned().unwrap_or(0..0);
        self.games[span].iter().filter(move |g| {
            g.restricted == 0
                && g.rules as usize == rules
                && g.preset as usize == preset
                && g.variant == variant
                && terrain.is_none_or(|t| g.terrain as usize == t)
        })
    }
}

/// Computes every figure of the report.
pub fn analyse(study: &Study) -> Report {
    let cells = Cells::new(study);
    let variants: Vec<Variant> = VARIANTS
        .into_iter()
        .filter(|v| study.games.iter().any(|g| g.variant == *v && g.rules == 0))
        .collect();
    let terrain_choices = || {
        (0..study.terrains.len())
            .map(Some)
            .chain(std::iter::once(None))
    };
    let terrain_name = |t: Option<usize>| terrain_key(study, t);
    let mut seats = Vec::new();
    let mut plays = Vec::new();
    let mut special_bases = Vec::new();
    for (p, preset) in study.presets.iter().enumerate() {
        for &v in &variants {
            for t in terrain_choices() {
                seats.push(seat_row(preset, v, &terrain_name(t), &cells.get(p, v, t)));
            }
            plays.extend(play_rows(preset, v, &cells.get(p, v, None)));
        }
        if variants.len() == 2 {
            for t in terrain_choices() {
                special_bases.push(special_row(
                    preset,
                    &terrain_name(t),
                    &cells.get(p, Variant::Normal, t),
                    &cells.get(p, Variant::Beginner, t),
                ));
            }
        }
    }
    let restricted_play = restricted_rows(study, &cells);
    let troops = troop_values(study, &cells, &variants);
    let mut report = Report {
        format: REPORT_FORMAT.into(),
        presets: study.presets.clone(),
        terrains: study.terrains.clone(),
        terrain_names: (0..study.terrains.len())
            .map(|t| terrain_name_of(study, t))
            .collect(),
        incomplete: Vec::new(),
        variants: variants.clone(),
        games: study.games.len() as u64,
        what_ifs: study.what_ifs.clone(),
        seats,
        troops: troops.pooled,
        troop_cells: troops.cells,
        troop_homogeneity: troops.homogeneity,
        troop_notes: troops.notes,
        plays,
        special_bases,
        restricted_play,
        repeats: repeated_games(study, &cells, &variants),
        skill_changes: skill_changes(study, &cells, &variants),
        what_if_changes: what_if_changes(study, &cells, &variants),
        families: Vec::new(),
        forfeits: forfeit_warnings(study),
        summary: Vec::new(),
        design_search: None,
    };
    report.families = families(&report);
    report.summary = summarise(&report);
    report
}

fn seat_row(preset: &str, variant: Variant, terrain: &str, games: &[&StudyGame]) -> SeatRow {
    let first_player = proportion(&mut items(games, first_score));
    let mut turns: Vec<f64> = games.iter().map(|g| g.turns as f64).collect();
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
        turns_sd: std_dev(&mut turns, first_player.map_or(0, |e| e.deals)),
        turns_quantiles: quantiles(games.iter().map(|g| g.turns).collect()),
        branching: mean(
            &mut games
                .iter()
                .filter_map(|g| {
                    let (decisions, legal) = g.record.as_ref()?.choices?;
                    (decisions > 0).then(|| (g.deal, legal as f64 / decisions as f64))
                })
                .collect::<Vec<_>>(),
        ),
        lead_changes: tension_mean(games, |t| Some(t.lead_changes as f64)),
        drama: tension_mean(games, |t| t.drama),
        decisiveness_moves: tension_mean(games, |t| t.decisiveness),
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

/// The mean over the games with a record (and the figure) of one tension metric.
fn tension_mean(games: &[&StudyGame], f: impl Fn(&Tension) -> Option<f64>) -> Option<Estimate> {
    mean(
        &mut games
            .iter()
            .filter_map(|g| Some((g.deal, f(g.record.as_ref()?.tension.as_ref()?)?)))
            .collect::<Vec<_>>(),
    )
}

/// The 10th, 25th, 50th, 75th and 90th percentiles (nearest rank), `None` without values.
fn quantiles(mut values: Vec<u16>) -> Option<[u16; 5]> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let n = values.len();
    let at = |q: f64| values[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    Some([at(0.1), at(0.25), at(0.5), at(0.75), at(0.9)])
}

fn special_row(
    preset: &str,
    terrain: &str,
    normal: &[&StudyGame],
    beginner: &[&StudyGame],
) -> SpecialRow {
    let change = PairedChange::between(normal, beginner);
    SpecialRow {
        preset: preset.to_string(),
        terrain: terrain.to_string(),
        deals: change.deals(),
        change,
    }
}

/// Restricted play: each (preset, terrain, restriction) of the restricted games against the
/// normal games of its preset and terrain, in the order the study names them.
fn restricted_rows(study: &Study, cells: &Cells) -> Vec<RestrictedRow> {
    // (preset, terrain, restricted nodes) and the games played so.
    type Group<'a> = ((u16, u16, Restricted), Vec<&'a StudyGame>);
    let mut groups: Vec<Group> = Vec::new();
    for g in study
        .games
        .iter()
        .filter(|g| g.restricted != 0 && g.rules == 0)
    {
        let restricted = study.restriction_of(g);
        let key = (g.preset, g.terrain, restricted);
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
            RestrictedRow {
                preset: study.presets[p as usize].clone(),
                terrain: study.terrains[t as usize].clone(),
                restricted,
                games: games.len() as u64,
                change: PairedChange::between(&games, &normal),
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
                    let Some(record) = &g.record else { continue };
                    let placed = &record.placed;
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

/// The troop values of a study: pooled per preset, per cell, the homogeneity tests, notes.
struct TroopValues {
    pooled: Vec<TroopRow>,
    cells: Vec<TroopCell>,
    homogeneity: Vec<Homogeneity>,
    notes: Vec<String>,
}

/// Troop values for each preset (never pooled across presets: a troop is worth what a player
/// makes of it): over every terrain and variant, per variant and terrain, per variant over all
/// terrains; and the tests of whether the terrains (Cochran's Q over their separate fits,
/// independent since each terrain has its own deals) and the variants (the change in one fit
/// with variant interactions, paired by deal) agree.
fn troop_values(study: &Study, cells: &Cells, variants: &[Variant]) -> TroopValues {
    let mut out = TroopValues {
        pooled: Vec::new(),
        cells: Vec::new(),
        homogeneity: Vec::new(),
        notes: Vec::new(),
    };
    for (p, name) in study.presets.iter().enumerate() {
        let games = cells.all_variants(p, variants);
        match troop_fit(study, &games) {
            Ok(values) => out
                .pooled
                .extend(values.into_iter().map(|(troop, value)| TroopRow {
                    preset: name.clone(),
                    troop,
                    value,
                })),
            Err(reason) => out
                .notes
                .push(format!("{name}: troop values not estimable ({reason})")),
        }
        for &v in variants {
            let mut per_terrain: Vec<Vec<(Troop, Estimate)>> = Vec::new();
            let mut failed: Vec<String> = Vec::new();
            for t in (0..study.terrains.len()).map(Some).chain([None]) {
                let key = t.map_or(ALL.to_string(), |t| study.terrains[t].clone());
                match troop_fit(study, &cells.get(p, v, t)) {
                    Ok(values) => {
                        out.cells
                            .extend(values.iter().map(|&(troop, value)| TroopCell {
                                preset: name.clone(),
                                variant: v,
                                terrain: key.clone(),
                                troop,
                                value,
                            }));
                        if t.is_some() {
                            per_terrain.push(values);
                        }
                    }
                    Err(reason) => failed.push(format!("{key}: {reason}")),
                }
            }
            if !failed.is_empty() {
                out.notes.push(format!(
                    "{name}, {v} variant: troop values not estimable on {} ({})",
                    if failed.len() == 1 {
                        "one cell"
                    } else {
                        "some cells"
                    },
                    failed.join("; ")
                ));
            }
            for troop in Troop::ALL {
                let values: Vec<Estimate> = per_terrain
                    .iter()
                    .filter_map(|vs| vs.iter().find(|(t, _)| *t == troop).map(|(_, e)| *e))
                    .collect();
                if let Some((q, df, p)) = cochran_q(&values) {
                    out.homogeneity.push(Homogeneity {
                        preset: name.clone(),
                        troop,
                        across: "terrains".into(),
                        variant: Some(v),
                        statistic: q,
                        df,
                        p,
                    });
                }
            }
        }
        if variants.len() == 2 {
            if let Ok(changes) = troop_variant_change(study, &games) {
                for (troop, change) in changes {
                    let Some(p) = p_value(&change, 0.0) else {
                        continue;
                    };
                    let se = super::multiplicity::standard_error(&change, 0.0).unwrap_or(1.0);
                    out.homogeneity.push(Homogeneity {
                        preset: name.clone(),
                        troop,
                        across: "variants".into(),
                        variant: None,
                        statistic: (change.value / se).powi(2),
                        df: 1,
                        p,
                    });
                }
            }
        }
    }
    out
}

/// How a preset's figures change from the preset named before it, on the same deals (every
/// preset plays the very same deals), per variant and terrain and over all terrains.
fn skill_changes(study: &Study, cells: &Cells, variants: &[Variant]) -> Vec<SkillChange> {
    let mut out = Vec::new();
    for p in 1..study.presets.len() {
        for &v in variants {
            for t in (0..study.terrains.len()).map(Some).chain([None]) {
                let (now, before) = (cells.get(p, v, t), cells.get(p - 1, v, t));
                let diff = |f: &dyn Fn(&StudyGame) -> f64| {
                    paired_difference(&mut items(&now, f), &mut items(&before, f))
                };
                let first_player = diff(&first_score);
                out.push(SkillChange {
                    preset: study.presets[p].clone(),
                    against: study.presets[p - 1].clone(),
                    variant: v,
                    terrain: t.map_or(ALL.to_string(), |t| study.terrains[t].clone()),
                    deals: first_player.map_or(0, |e| e.n),
                    first_player,
                    blue: diff(&blue_score),
                    turns: diff(&|g| g.turns as f64),
                });
            }
        }
    }
    out
}

/// How each rule what-if changes each preset's figures from the printed rules, per variant
/// and terrain and over all terrains: the what-if's mean on each deal minus the printed
/// rules' mean on the same deal, with a t interval over deals (as [`special_row`]). A preset
/// or variant the what-if was not played in has no rows.
fn what_if_changes(study: &Study, cells: &Cells, variants: &[Variant]) -> Vec<WhatIfChange> {
    let mut out = Vec::new();
    for (k, what_ifs) in study.compared.iter().enumerate() {
        for p in 0..study.presets.len() {
            for &v in variants {
                if !cells.played(k + 1, p, v) {
                    continue;
                }
                for t in (0..study.terrains.len()).map(Some).chain([None]) {
                    let under = cells.under(k + 1, p, v, t);
                    let change = PairedChange::between(&under, &cells.get(p, v, t));
                    out.push(WhatIfChange {
                        what_if: what_ifs.describe(),
                        what_ifs: what_ifs.clone(),
                        preset: study.presets[p].clone(),
                        variant: v,
                        terrain: terrain_key(study, t),
                        games: under.len() as u64,
                        score_first_player: proportion(&mut items(&under, first_score)),
                        score_blue: proportion(&mut items(&under, blue_score)),
                        deals: change.deals(),
                        change,
                    });
                }
            }
        }
    }
    out
}

/// A terrain's key, or `all` for `None`.
fn terrain_key(study: &Study, t: Option<usize>) -> String {
    t.map_or(ALL.to_string(), |t| study.terrains[t].clone())
}

/// Per terrain, the presets whose beginner games are exactly their normal games (same deal,
/// first player, winner, end and length): a terrain whose special bases have no effect to
/// turn off plays the same games twice, and its beginner rows say nothing new.
fn repeated_games(study: &Study, cells: &Cells, variants: &[Variant]) -> Vec<String> {
    if variants.len() < 2 {
        return Vec::new();
    }
    let outcome = |g: &&StudyGame| (g.deal, g.first, g.winner, g.end, g.turns);
    let mut out = Vec::new();
    for t in 0..study.terrains.len() {
        let presets: Vec<&str> = (0..study.presets.len())
            .filter(|&p| {
                let mut a: Vec<_> = cells
                    .get(p, Variant::Normal, Some(t))
                    .iter()
                    .map(outcome)
                    .collect();
                let mut b: Vec<_> = cells
                    .get(p, Variant::Beginner, Some(t))
                    .iter()
                    .map(outcome)
                    .collect();
                a.sort();
                b.sort();
                !a.is_empty() && a == b
            })
            .map(|p| study.presets[p].as_str())
            .collect();
        if !presets.is_empty() {
            out.push(format!(
                "On {} the beginner variant replays the normal games exactly ({}): the terrain \
                 has no special-base effect to turn off, so its beginner rows repeat its normal \
                 rows and its special-base changes are 0.",
                terrain_name_of(study, t),
                presets.join(", ")
            ));
        }
    }
    out
}

fn terrain_name_of(study: &Study, t: usize) -> String {
    study
        .terrain_names
        .get(t)
        .filter(|n| !n.is_empty())
        .unwrap_or(&study.terrains[t])
        .clone()
}

impl Report {
    /// The name of a terrain key (`all terrains` for [`ALL`]), as the report shows it.
    pub fn terrain_name(&self, key: &str) -> String {
        if key == ALL {
            return "all terrains".into();
        }
        self.terrains
            .iter()
            .position(|k| k == key)
            .and_then(|i| self.terrain_names.get(i))
            .cloned()
            .unwrap_or_else(|| key.to_string())
    }

    /// The pooled value of a troop for a preset, or why it is not pooled: the first test
    /// that rejects homogeneity.
    pub fn pooled_troop(
        &self,
        preset: &str,
        troop: Troop,
    ) -> Result<Option<Estimate>, &Homogeneity> {
        if let Some(h) = self
            .troop_homogeneity
            .iter()
            .filter(|h| h.preset == preset && h.troop == troop && h.rejected())
            .min_by(|a, b| a.p.total_cmp(&b.p))
        {
            return Err(h);
        }
        Ok(self
            .troops
            .iter()
            .find(|t| t.preset == preset && t.troop == troop)
            .map(|t| t.value))
    }
}

/// The linear probability model of blue's score against the difference in copies lost at setup
/// (red's minus blue's) of each troop but Kwak, with the first player, the variant, the
/// terrain and (pooled) the preset as covariates; the values are then centred so that the
/// eight troops sum to zero, because every player loses exactly four tiles: only the value of
/// one troop relative to another can be told from the deals.
pub fn troop_fit(study: &Study, games: &[&StudyGame]) -> Result<Vec<(Troop, Estimate)>, FitError> {
    let (f, start) = fit_troops(study, games, false)?;
    Ok(centred_troop_values(&f, start))
}

/// The change of each troop's value from the normal to the beginner variant (beginner minus
/// normal, centred like the values): the model of [`troop_fit`] over both variants with a
/// term per troop for its copies lost in the beginner variant. One fit over deals played in
/// both variants, so the change is paired by deal.
pub fn troop_variant_change(
    study: &Study,
    games: &[&StudyGame],
) -> Result<Vec<(Troop, Estimate)>, FitError> {
    let (f, start) = fit_troops(study, games, true)?;
    Ok(centred_troop_values(&f, start))
}

/// The fit behind [`troop_fit`] and, with `by_variant`, [`troop_variant_change`]; returns it
/// with the first column of the troop terms reported (the changes, with `by_variant`).
fn fit_troops(
    study: &Study,
    games: &[&StudyGame],
    by_variant: bool,
) -> Result<(super::regression::Fit, usize), FitError> {
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
    let interactions = by_variant && both_variants;
    if interactions {
        names.extend(
            Troop::ALL[1..]
                .iter()
                .map(|t| format!("copies of {t} lost, beginner variant")),
        );
    }
    let rows = TroopRows {
        games,
        names,
        terrains,
        presets,
        both_variants,
        interactions,
    };
    let f = fit(&rows)?;
    let start = match interactions {
        true => troop_start + Troop::ALL.len() - 1,
        false => troop_start,
    };
    Ok((f, start))
}

/// The rows of the troop-value regression, each computed from its game when the fit asks for
/// it: columns intercept, blue moves first, beginner variant (with both variants), one per
/// terrain and preset but the first, then the copies of each troop but Kwak that blue lost
/// minus those red lost (and the same times beginner, with `interactions`).
struct TroopRows<'a> {
    games: &'a [&'a StudyGame],
    names: Vec<String>,
    terrains: Vec<u16>,
    presets: Vec<u16>,
    both_variants: bool,
    interactions: bool,
}

impl Observations for TroopRows<'_> {
    fn names(&self) -> &[String] {
        &self.names
    }

    fn rows(&self) -> usize {
        self.games.len()
    }

    fn row(&self, i: usize, out: &mut [f64]) {
        let g = self.games[i];
        let mut values = out.iter_mut();
        let mut put = |x: f64| {
            if let Some(v) = values.next() {
                *v = x;
            }
        };
        put(1.0);
        put((g.first == Colour::Blue) as u8 as f64);
        if self.both_variants {
            put((g.variant == Variant::Beginner) as u8 as f64);
        }
        for &t in self.terrains.iter().skip(1) {
            put((g.terrain == t) as u8 as f64);
        }
        for &p in self.presets.iter().skip(1) {
            put((g.preset == p) as u8 as f64);
        }
        let lost = |k: usize| g.lost[1][k] as f64 - g.lost[0][k] as f64;
        for k in 1..Troop::ALL.len() {
            put(lost(k));
        }
        if self.interactions {
            let beginner = (g.variant == Variant::Beginner) as u8 as f64;
            for k in 1..Troop::ALL.len() {
                put(beginner * lost(k));
            }
        }
    }

    fn y(&self, i: usize) -> f64 {
        self.games[i].score(Colour::Blue)
    }

    fn cluster(&self, i: usize) -> u64 {
        self.games[i].deal
    }
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

/// The most troop values per terrain the summary lists: at scale most of the 64 survive, and
/// a designer reads the largest in the summary and the others in the heat map.
pub const TROOP_CELLS_LISTED: usize = 5;

/// The families of comparisons the headlines are chosen from, for the last preset named (the
/// most skilled, when named weakest first) in the first variant: each terrain's first player
/// and blue against 50%; each troop's value against the average troop, over all terrains
/// (where the terrains agree) and per terrain; each terrain's special bases; each restricted
/// base; and each change from the preset named before.
fn families(r: &Report) -> Vec<Family> {
    let Some(preset) = r.presets.last() else {
        return Vec::new();
    };
    let variant = r.variants.first().copied().unwrap_or_default();
    let tag = format!("{preset}, {variant} variant");
    let name = |key: &str| r.terrain_name(key);
    let both = |key: &str, first: Option<Estimate>, blue: Option<Estimate>| {
        let terrain = name(key);
        [("first player", first), ("blue", blue)]
            .into_iter()
            .filter_map(move |(who, e)| Some((format!("{terrain}: {who}"), e?)))
    };
    let mut out = vec![Family::new(
        "the first player's and blue's scores against 50%, per terrain and over all terrains",
        tag.clone(),
        0.5,
        r.seats
            .iter()
            .filter(|s| s.preset == *preset && s.variant == variant)
            .flat_map(|s| both(&s.terrain, s.first_player, s.blue))
            .collect::<Vec<_>>(),
    )];
    out.push(Family::new(
        "each troop's value pooled over terrains and variants against the average troop, for \
         the troops whose value the terrains and variants do not show to differ",
        preset.clone(),
        0.0,
        Troop::ALL
            .into_iter()
            .filter_map(|t| Some((t.to_string(), r.pooled_troop(preset, t).ok()??)))
            .collect::<Vec<_>>(),
    ));
    out.push(
        Family::new(
            "each troop's value on each terrain against the average troop",
            tag.clone(),
            0.0,
            r.troop_cells
                .iter()
                .filter(|c| c.preset == *preset && c.variant == variant && c.terrain != ALL)
                .map(|c| (format!("{} on {}", c.troop, name(&c.terrain)), c.value))
                .collect::<Vec<_>>(),
        )
        .listing_at_most(
            TROOP_CELLS_LISTED,
            format!(
                "the troop × terrain heat map of report.html and the table of report.md \
                 (section Troop values, {preset}, {variant} variant), and in \
                 troops_by_terrain.csv"
            ),
        ),
    );
    if !r.special_bases.is_empty() {
        out.push(Family::new(
            "the change in the first player's and blue's scores made by each terrain's special \
             bases (normal minus beginner, paired by deal)",
            preset.clone(),
            0.0,
            r.special_bases
                .iter()
                .filter(|s| s.preset == *preset && s.terrain != ALL)
                .flat_map(|s| both(&s.terrain, s.change.first_player, s.change.blue))
                .collect::<Vec<_>>(),
        ));
    }
    if let Some(restricted_preset) = r.restricted_play.iter().map(|x| &x.preset).next_back() {
        out.push(Family::new(
            "the change in the first player's and blue's scores when one special base's effect \
             is never used (restricted play, paired by deal)",
            restricted_preset.clone(),
            0.0,
            r.restricted_play
                .iter()
                .filter(|x| x.preset == *restricted_preset)
                .flat_map(|x| {
                    let node = format!("{} node {}", name(&x.terrain), x.restricted.describe());
                    [
                        ("first player", x.change.first_player),
                        ("blue", x.change.blue),
                    ]
                    .into_iter()
                    .filter_map(move |(who, e)| Some((format!("{node}: {who}"), e?)))
                })
                .collect::<Vec<_>>(),
        ));
    }
    if let Some(change) = r.what_if_changes.last() {
        // The last preset the what-ifs were played by, in the first variant they were played in.
        let (preset, variant) = (&change.preset, change.variant);
        let variant = r
            .variants
            .iter()
            .copied()
            .find(|v| {
                r.what_if_changes
                    .iter()
                    .any(|c| c.preset == *preset && c.variant == *v)
            })
            .unwrap_or(variant);
        out.push(Family::new(
            "the change in the first player's and blue's scores under each rule what-if against \
             the printed rules (paired by deal), per terrain and over all terrains",
            format!("{preset}, {variant} variant"),
            0.0,
            r.what_if_changes
                .iter()
                .filter(|c| c.preset == *preset && c.variant == variant)
                .flat_map(|c| {
                    let what_if = what_if_on(c);
                    both(&c.terrain, c.change.first_player, c.change.blue)
                        .map(move |(label, e)| (format!("{what_if}, {label}"), e))
                })
                .collect::<Vec<_>>(),
        ));
    }
    if r.presets.len() > 1 {
        out.push(Family::new(
            "the change in the first player's and blue's scores from each preset to the next \
             (paired by deal), per terrain and over all terrains",
            format!("{variant} variant"),
            0.0,
            r.skill_changes
                .iter()
                .filter(|c| c.variant == variant)
                .flat_map(|c| {
                    both(&c.terrain, c.first_player, c.blue).map(move |(label, e)| {
                        (format!("{} minus {}, {label}", c.preset, c.against), e)
                    })
                })
                .collect::<Vec<_>>(),
        ));
    }
    out
}

/// A what-if as it changes the rules of its row's terrain ("objective 8 medals"), or in full
/// over all terrains and where it leaves the terrain as printed: an objective what-if of every
/// terrain would otherwise name all eight objectives on each terrain's line.
fn what_if_on(c: &WhatIfChange) -> String {
    let here = c.what_ifs.for_terrain(&c.terrain).describe();
    match c.terrain == ALL || here.is_empty() {
        true => c.what_if.clone(),
        false => here,
    }
}

/// Plain-language findings for the top of the report: per family, the comparisons that
/// survive Holm's correction for the number it was chosen from, or "not shown".
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
        "Findings for {preset} (the last preset named) in the {variant} variant. Each line is \
         one family of comparisons; a figure is shown only when it survives Holm's correction \
         for the number of comparisons of its family at 5% (the chance that any shown figure \
         of a family is a fluke stays under 5%). Every figure is in the tables with its 95% \
         interval."
    ));
    for f in &r.families {
        out.push(family_line(f));
    }
    out
}

/// "…: 18 comparisons; 6 of 18 survive Holm's correction: …", only the largest few of a
/// family listed at most (and where the others are), or "not shown: none survives …".
pub fn family_line(f: &Family) -> String {
    let head = format!(
        "{} ({}): {} comparisons",
        capitalise(&f.what),
        f.preset,
        f.comparisons
    );
    if f.comparisons == 0 {
        return format!("{head}: none estimable.");
    }
    let survive = f.shown().count();
    let listed = f
        .listed
        .as_ref()
        .map_or(survive, |l| l.at_most.min(survive));
    let shown: Vec<String> = f
        .shown()
        .take(listed)
        .map(|t| format!("{} {} (Holm p {})", t.label, figure(t), p_is(t.holm)))
        .collect();
    if shown.is_empty() {
        let largest = &f.tests[0];
        return format!(
            "{head}; not shown: none survives Holm's correction (the largest, {} {}, has \
             p {} before and {} after it).",
            largest.label,
            figure(largest),
            p_is(largest.p),
            p_text(largest.holm)
        );
    }
    let of = format!(
        "{survive} of {} {} Holm's correction",
        f.comparisons,
        if survive == 1 { "survives" } else { "survive" }
    );
    match f.listed.as_ref().filter(|_| listed < survive) {
        Some(l) => format!(
            "{head}; {of}; the {listed} largest: {}; the other {} and those that do not survive \
             are in {}.",
            shown.join("; "),
            survive - listed,
            l.rest_in
        ),
        None => format!("{head}; {of}: {}.", shown.join("; ")),
    }
}

/// A comparison's figure: a score in percent, a change or value in percentage points.
pub fn figure(t: &Test) -> String {
    match t.null == 0.5 {
        true => pct(&t.estimate),
        false => pp(&t.estimate),
    }
}

/// "= 0.016" or "< 0.0001", to follow "p".
fn p_is(p: f64) -> String {
    match p_text(p) {
        t if t.starts_with('<') => t,
        t => format!("= {t}"),
    }
}

/// A p-value as the report prints it: two significant digits, "< 0.0001" below that.
pub fn p_text(p: f64) -> String {
    if p < 1e-4 {
        return "< 0.0001".into();
    }
    if p >= 0.1 {
        return format!("{p:.2}");
    }
    let digits = (-p.log10()).ceil() as usize + 1;
    format!("{p:.digits$}")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
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

/// "+3.1 pp [+0.4, +5.8]", or "+0.0 pp, not estimable (2 deals)"; the interval is shown within
/// ±100 pp (see [`Estimate::shown_as_share_change`]).
pub fn pp(e: &Estimate) -> String {
    let e = e.shown_as_share_change();
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
