//! The report's files: `report.md`, a self-contained `report.html` (inline SVG plots, no
//! external resource), `balance.json` and one CSV per table. Tables are built once and
//! rendered to Markdown and HTML alike.

use super::analysis::{
    family_line, figure, p_text, pct, pp, PairedChange, Report, RestrictedRow, SeatRow,
    SkillChange, SpecialRow, WhatIfChange, ALL,
};
use super::design::{DesignRow, DesignSearch};
use super::estimate::Estimate;
use super::multiplicity::{games_needed, standard_error, Family};
use super::study::run_name;
use super::svg::{
    change_plot, dot_plot, escape, heat_map, shared_range, ChangeEntry, ChangeGroup, ChangePlot,
    DotPlot, HeatMap, Series,
};
use super::End;
use crate::rules::{Troop, Variant};
use crate::tournament::store::{write_atomic, write_json_atomic};
use crate::tournament::TournamentError;
use std::fmt::Write;
use std::path::Path;

const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

/// Width of the Markdown report's prose lines.
const MD_WIDTH: usize = 100;

/// What a table cell shows in place of an interval that cannot be estimated.
const NOT_ESTIMABLE: &str = "n/e";

/// A table with a caption.
pub struct Table {
    /// The caption above the table.
    pub caption: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Cells, row by row.
    pub rows: Vec<Vec<String>>,
}

/// A section of the report: text paragraphs, tables and plots (plots in HTML only).
pub struct Section {
    /// Section title.
    pub title: String,
    /// Paragraphs.
    pub text: Vec<String>,
    /// Tables.
    pub tables: Vec<Table>,
    /// SVG plots (HTML only).
    pub plots: Vec<String>,
    /// Plots written as files beside the report, as (file name, SVG): linked from report.md
    /// and report.html, and drawn in report.html.
    pub files: Vec<(String, String)>,
}

fn opt(e: &Option<Estimate>, f: fn(&Estimate) -> String) -> String {
    e.as_ref().map_or("-".into(), f)
}

/// A table cell: the figure with its interval, or the figure and "n/e" (explained once under
/// the table) when its interval cannot be estimated.
fn cell(e: &Option<Estimate>, f: fn(&Estimate) -> String) -> String {
    match e {
        Some(e) if !e.is_estimable() => format!("{:+.1} pp ({NOT_ESTIMABLE})", e.value * 100.0),
        _ => opt(e, f),
    }
}

/// "31.2 [30.1, 32.4]", or "31.2, not estimable (1 deal)".
fn num(e: &Estimate) -> String {
    if !e.is_estimable() {
        return format!("{:.1}, {}", e.value, e.not_estimable_note());
    }
    format!("{:.1} [{:.1}, {:.1}]", e.value, e.lo, e.hi)
}

fn signed(e: &Estimate) -> String {
    if !e.is_estimable() {
        return format!("{:+.1}, {}", e.value, e.not_estimable_note());
    }
    format!("{:+.1} [{:+.1}, {:+.1}]", e.value, e.lo, e.hi)
}

/// The note under a table with "n/e" cells.
const NOT_ESTIMABLE_NOTE: &str = "n/e: the interval is not estimable (one deal, or every deal \
                                  shows the same value).";

/// The sample-size line of a table: how many games a row of it would need to find an effect
/// of 5 pp and of 2 pp (at 5%, two-sided, with 80% power), scaled from the median row's own
/// games and standard error; `unit` names what a row's games are, e.g. "games per terrain".
fn sample_size_line<'a>(
    estimates: impl IntoIterator<Item = &'a Estimate>,
    unit: &str,
) -> Option<String> {
    let mut rows: Vec<(u64, f64, u64, u64)> = estimates
        .into_iter()
        .filter_map(|e| {
            let se = standard_error(e, e.value + 1.0)?;
            Some((e.n, se, games_needed(e, 0.05)?, games_needed(e, 0.02)?))
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (n, se, five, two) = rows[rows.len() / 2];
    Some(format!(
        "Sample size: the median row has {n} {unit} and a 95% interval of about ±{:.1} pp; to \
         find an effect of 5 pp (at 5%, two-sided, 80% power) a row needs about {} {unit}, of \
         2 pp about {} (a headline chosen among many rows needs more: see Holm's correction in \
         the summary).",
        100.0 * 1.96 * se,
        thousands(five),
        thousands(two)
    ))
}

/// 12345 as "12,345".
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The report as sections, in reading order.
pub fn sections(r: &Report, notes: &[String]) -> Vec<Section> {
    let mut out = Vec::new();
    if !r.incomplete.is_empty() {
        out.push(Section {
            title: "Incomplete study".into(),
            text: std::iter::once(
                "This report was written with --allow-incomplete from runs that do not cover \
                 the whole study; its figures rest on the games present only, and what is \
                 missing is:"
                    .to_string(),
            )
            .chain(r.incomplete.iter().map(|m| format!("- {m}")))
            .collect(),
            tables: Vec::new(),
            files: Vec::new(),
            plots: Vec::new(),
        });
    }
    out.push(Section {
        title: "Summary".into(),
        text: r
            .summary
            .iter()
            .cloned()
            .chain(r.forfeits.iter().map(|n| format!("Warning: {n}.")))
            .chain(notes.iter().map(|n| format!("Note: {n}")))
            .chain(r.troop_notes.iter().map(|n| format!("Note: {n}")))
            .chain(r.repeats.iter().map(|n| format!("Note: {n}")))
            .collect(),
        tables: Vec::new(),
        files: Vec::new(),
        plots: Vec::new(),
    });
    out.push(seats_section(r));
    if r.presets.len() > 1 {
        out.push(skill_section(r));
    }
    out.push(troops_section(r));
    if r.plays.iter().any(|p| p.placed_per_game.is_some()) {
        out.push(plays_section(r));
    }
    if !r.special_bases.is_empty() {
        out.push(special_section(r));
    }
    if !r.restricted_play.is_empty() {
        out.push(restricted_section(r));
    }
    if !r.what_if_changes.is_empty() {
        out.push(what_if_section(r));
    }
    if !r.families.is_empty() {
        out.push(families_section(r));
    }
    if let Some(search) = &r.design_search {
        let at = out
            .iter()
            .position(|s| s.title == "Summary")
            .map_or(0, |i| i + 1);
        out.insert(at, design_section(r, search));
    }
    out
}

/// The designer's search: the rules chosen per terrain, and every terrain's ranking.
fn design_section(r: &Report, s: &DesignSearch) -> Section {
    let mut text = vec![format!(
        "The printed rules and {} candidates, each changing one rules parameter ({}), all \
         played on the same deals. \
         Per terrain they are ranked by how close to even they bring the first player and the \
         side: by the larger of the first player's and blue's distances from 50%, then by their \
         sum (ties keep the printed rules first). The changes from the printed rules are paired \
         by deal, with 95% intervals; where the chosen rules' intervals overlap the printed \
         rules', the choice is a hint, not a finding (section Rule what-ifs against the printed \
         rules, and its family in the summary, say which changes survive Holm's correction). \
         The plot of each preset and variant, a file beside this report (linked below), draws \
         every candidate's paired change per terrain with its 95% interval, the printed rules \
         at 0 and the rules chosen marked, on one axis for every terrain.",
        s.candidates.len(),
        s.parameters
    )];
    text.extend(s.chosen.iter().map(|c| format!("- {c}")));
    let headers = [
        "terrain",
        "rank",
        "rules",
        "games",
        "first player's score",
        "blue's score",
        "change, first player, pp",
        "change, blue, pp",
    ]
    .map(String::from)
    .to_vec();
    let mut tables = Vec::new();
    let mut files = Vec::new();
    for preset in &r.presets {
        for &v in &r.variants {
            files.extend(design_plot(r, s, preset, v));
            let rows: Vec<Vec<String>> = s
                .rows
                .iter()
                .filter(|row| row.preset == *preset && row.variant == v)
                .map(|row| {
                    vec![
                        r.terrain_name(&row.terrain),
                        row.rank.to_string(),
                        row.rules.clone(),
                        row.games.to_string(),
                        opt(&row.first_player, pct),
                        opt(&row.blue, pct),
                        cell(&row.first_player_change, pp),
                        cell(&row.blue_change, pp),
                    ]
                })
                .collect();
            if !rows.is_empty() {
                tables.push(Table {
                    caption: format!("{preset}, {v} variant: rules ranked per terrain"),
                    headers: headers.clone(),
                    rows,
                });
            }
        }
    }
    Section {
        title: "Designer's search".into(),
        text,
        tables,
        files,
        plots: Vec::new(),
    }
}

/// The designer's search of one preset and variant as a plot file: per terrain (and all
/// terrains), every candidate's paired change in the first player's and blue's scores from the
/// printed rules (drawn at 0) with its 95% interval, the rules chosen marked; one x-axis for
/// every terrain and both panels. Rows keep the order the candidates were played in, so a
/// candidate sits at the same place under every terrain. `None` when the preset did not play
/// the variant.
fn design_plot(
    r: &Report,
    s: &DesignSearch,
    preset: &str,
    variant: Variant,
) -> Option<(String, String)> {
    let rows: Vec<&DesignRow> = s
        .rows
        .iter()
        .filter(|row| row.preset == preset && row.variant == variant)
        .collect();
    if rows.is_empty() {
        return None;
    }
    let order = |row: &DesignRow| {
        std::iter::once("printed")
            .chain(s.names.iter().map(String::as_str))
            .position(|n| n == row.candidate)
    };
    let groups = r
        .terrains
        .iter()
        .map(String::as_str)
        .chain([ALL])
        .filter_map(|terrain| {
            let mut here: Vec<&DesignRow> = rows
                .iter()
                .copied()
                .filter(|row| row.terrain == terrain)
                .collect();
            here.sort_by_key(|row| order(row));
            (!here.is_empty()).then(|| ChangeGroup {
                name: r.terrain_name(terrain),
                entries: here
                    .into_iter()
                    .map(|row| ChangeEntry {
                        label: row.rules.clone(),
                        changes: [row.first_player_change, row.blue_change],
                        baseline: row.candidate == "printed",
                        chosen: row.rank == 1,
                    })
                    .collect(),
            })
        })
        .collect();
    let svg = change_plot(&ChangePlot {
        title: format!("Designer's search: {preset}, {variant} variant"),
        panels: [
            "change in the first player's score".into(),
            "change in blue's score".into(),
        ],
        axis: "pp, paired by deal against the printed rules (the same deals)".into(),
        scale: 100.0,
        groups,
    });
    Some((
        format!("design_search-{}.svg", run_name(preset, variant)),
        svg,
    ))
}

/// End types that occur in some row: a column every row of which is 0 says nothing.
fn ends_seen(rows: &[&SeatRow]) -> Vec<End> {
    End::ALL
        .into_iter()
        .filter(|&end| {
            rows.iter().any(|s| {
                s.ends
                    .iter()
                    .any(|(e, share)| *e == end && share.is_some_and(|x| x.value > 0.0))
            })
        })
        .collect()
}

fn seats_section(r: &Report) -> Section {
    let mut tables = Vec::new();
    let mut plots = Vec::new();
    let mut estimates = Vec::new();
    for preset in &r.presets {
        for &v in &r.variants {
            let rows: Vec<&SeatRow> = r
                .seats
                .iter()
                .filter(|s| s.preset == *preset && s.variant == v)
                .collect();
            let ends = ends_seen(&rows);
            let mut headers: Vec<String> = [
                "terrain",
                "games",
                "first player's score",
                "blue's score",
                "balance",
                "completion",
                "turns (mean)",
                "turns (sd)",
                "turns (10/25/50/75/90%)",
                "branching",
                "lead changes",
                "drama",
                "decisiveness",
            ]
            .map(String::from)
            .to_vec();
            headers.extend(ends.iter().map(|e| e.name().to_string()));
            tables.push(Table {
                caption: format!("{preset}, {v} variant"),
                headers,
                rows: rows.iter().map(|s| seat_cells(r, s, &ends)).collect(),
            });
            estimates.extend(
                rows.iter()
                    .filter(|s| s.terrain != ALL)
                    .filter_map(|s| s.first_player),
            );
            let series = |name: &str, colour, f: fn(&SeatRow) -> Option<Estimate>| Series {
                name: name.into(),
                colour,
                points: rows
                    .iter()
                    .filter_map(|s| f(s).map(|e| (r.terrain_name(&s.terrain), e)))
                    .collect(),
            };
            plots.push(DotPlot {
                title: format!("Seat advantage per terrain: {preset}, {v} variant"),
                axis: "score (%), 50 = balanced".into(),
                reference: Some(0.5),
                scale: 100.0,
                range: None,
                series: vec![
                    series("first player", COLOURS[0], |s| s.first_player),
                    series("blue", COLOURS[1], |s| s.blue),
                ],
            });
        }
    }
    // One axis for every seat plot, so that a glance compares presets and variants.
    let range = shared_range(&plots);
    let plots = plots
        .into_iter()
        .map(|p| {
            dot_plot(&DotPlot {
                range: Some(range),
                ..p
            })
        })
        .collect();
    let mut text = vec![
        "Scores count a win 1 and a game stopped by the turn cap 1/2; 50% is balanced. \
         Balance is Ludii's 1 − |2·(first player's score) − 1| (100% = perfectly balanced); \
         completion is Ludii's completion, the share of games that end with a winner (not \
         stopped by the turn cap). Game length is given by its mean, its spread and its \
         percentiles; branching is Ludii's branching factor, the legal decisions a player \
         chooses among per decision (from the games whose record was read). Lead changes, \
         drama and decisiveness are Ludii's tension metrics from the fitted evaluation's win \
         estimate at each round start (records only; drama and decisiveness over games won): \
         lead changes per game, the winner's mean shortfall below the leader in points of win \
         probability (0 = the winner led throughout), and the share of the game before the winner's estimate passed the \
         loser's best (100% = decided only at the end). The end-type \
         columns give the share of games ending so \
         (types that never occur are left out). Intervals are 95%, with the two games of a \
         deal (one with each colour moving first) counted as one cluster."
            .into(),
    ];
    text.extend(sample_size_line(&estimates, "games per terrain"));
    text.extend(r.repeats.iter().cloned());
    Section {
        title: "First player and side".into(),
        text,
        tables,
        files: Vec::new(),
        plots,
    }
}

fn seat_cells(r: &Report, s: &SeatRow, ends: &[End]) -> Vec<String> {
    let p = |e: &Option<Estimate>| opt(e, pct);
    let mut cells = vec![
        r.terrain_name(&s.terrain),
        s.games.to_string(),
        p(&s.first_player),
        p(&s.blue),
        p(&s.balance),
        p(&s.decisiveness),
        opt(&s.turns_mean, num),
        opt(&s.turns_sd, num),
        s.turns_quantiles
            .map_or("-".into(), |q| q.map(|t| t.to_string()).join("/")),
        opt(&s.branching, num),
        opt(&s.lead_changes, num),
        p(&s.drama),
        p(&s.decisiveness_moves),
    ];
    cells.extend(
        s.ends
            .iter()
            .filter(|(e, _)| ends.contains(e))
            .map(|(_, e)| p(e)),
    );
    cells
}

fn skill_section(r: &Report) -> Section {
    let variant = r.variants.first().copied().unwrap_or_default();
    let seat = |preset: &str, terrain: &str| {
        r.seats
            .iter()
            .find(|s| s.preset == preset && s.variant == variant && s.terrain == terrain)
    };
    let mut headers = vec!["terrain".to_string()];
    headers.extend(r.presets.iter().cloned());
    let terrains = r.terrains.iter().map(String::as_str).chain([ALL]);
    let table = |what: &str, f: fn(&SeatRow) -> Option<Estimate>| Table {
        caption: format!("{what}'s score by preset, {variant} variant"),
        headers: headers.clone(),
        rows: terrains
            .clone()
            .map(|t| {
                std::iter::once(r.terrain_name(t))
                    .chain(r.presets.iter().map(|p| opt(&seat(p, t).and_then(f), pct)))
                    .collect()
            })
            .collect(),
    };
    let mut tables = vec![
        table("first player", |s| s.first_player),
        table("blue", |s| s.blue),
    ];
    let mut estimates = Vec::new();
    for &v in &r.variants {
        let changes: Vec<&SkillChange> =
            r.skill_changes.iter().filter(|c| c.variant == v).collect();
        estimates.extend(
            changes
                .iter()
                .filter(|c| c.terrain != ALL)
                .filter_map(|c| c.first_player),
        );
        tables.push(Table {
            caption: format!(
                "Change from one preset to the next, {v} variant (paired by deal, pp; turns)"
            ),
            headers: [
                "change",
                "terrain",
                "deals",
                "first player's score, pp",
                "blue's score, pp",
                "turns",
            ]
            .map(String::from)
            .to_vec(),
            rows: changes
                .iter()
                .map(|c| {
                    vec![
                        format!("{} minus {}", c.preset, c.against),
                        r.terrain_name(&c.terrain),
                        c.deals.to_string(),
                        cell(&c.first_player, pp),
                        cell(&c.blue, pp),
                        opt(&c.turns, signed),
                    ]
                })
                .collect(),
        });
    }
    let points = |f: fn(&SeatRow) -> Option<Estimate>| {
        r.presets
            .iter()
            .filter_map(|p| seat(p, ALL).and_then(f).map(|e| (p.clone(), e)))
            .collect()
    };
    let mut text = vec![
        "The presets in the order named (meant from weakest to strongest): does a bias grow \
         or shrink as players improve? Every preset plays the very same deals, so each change \
         below is paired deal by deal (each deal's mean under one preset minus its mean under \
         the preset before), with a 95% interval over deals; read a trend from the changes' \
         intervals, not from the scores side by side. The summary says which changes survive \
         Holm's correction."
            .to_string(),
    ];
    text.extend(sample_size_line(&estimates, "deals per terrain"));
    Section {
        title: "Balance by skill".into(),
        text,
        tables,
        files: Vec::new(),
        plots: vec![dot_plot(&DotPlot {
            title: format!("Advantage against skill, all terrains, {variant} variant"),
            axis: "score (%), 50 = balanced".into(),
            reference: Some(0.5),
            scale: 100.0,
            range: None,
            series: vec![
                Series {
                    name: "first player".into(),
                    colour: COLOURS[0],
                    points: points(|s| s.first_player),
                },
                Series {
                    name: "blue".into(),
                    colour: COLOURS[1],
                    points: points(|s| s.blue),
                },
            ],
        })],
    }
}

fn troops_section(r: &Report) -> Section {
    let presets: Vec<&String> = r
        .presets
        .iter()
        .filter(|p| {
            r.troop_cells.iter().any(|c| c.preset == **p)
                || r.troops.iter().any(|t| t.preset == **p)
        })
        .collect();
    let mut tables = Vec::new();
    let mut plots = Vec::new();
    let mut estimates = Vec::new();
    for preset in &presets {
        let homogeneity = |troop: Troop, across: &str, v: Option<Variant>| {
            r.troop_homogeneity
                .iter()
                .find(|h| {
                    h.preset == **preset && h.troop == troop && h.across == across && h.variant == v
                })
                .map_or("-".to_string(), |h| p_text(h.p))
        };
        let mut headers = vec!["troop".to_string(), "pooled: pp per copy".to_string()];
        headers.extend(
            r.variants
                .iter()
                .map(|v| format!("terrains differ, {v}: p")),
        );
        if r.variants.len() == 2 {
            headers.push("variants differ: p".into());
        }
        tables.push(Table {
            caption: format!(
                "{preset}: value of one copy of each troop, pooled over terrains{}",
                if r.variants.len() == 2 {
                    " and variants"
                } else {
                    ""
                }
            ),
            headers,
            rows: Troop::ALL
                .into_iter()
                .map(|t| {
                    let pooled = match r.pooled_troop(preset, t) {
                        Ok(e) => opt(&e, pp),
                        Err(h) => format!("not pooled: {} differ (p = {})", h.across, p_text(h.p)),
                    };
                    let mut row = vec![t.to_string(), pooled];
                    row.extend(
                        r.variants
                            .iter()
                            .map(|&v| homogeneity(t, "terrains", Some(v))),
                    );
                    if r.variants.len() == 2 {
                        row.push(homogeneity(t, "variants", None));
                    }
                    row
                })
                .collect(),
        });
        for &v in &r.variants {
            let columns: Vec<&str> = r
                .terrains
                .iter()
                .map(String::as_str)
                .chain([ALL])
                .filter(|k| {
                    r.troop_cells
                        .iter()
                        .any(|c| c.preset == **preset && c.variant == v && c.terrain == *k)
                })
                .collect();
            if columns.is_empty() {
                continue;
            }
            let value = |troop: Troop, terrain: &str| {
                r.troop_cells
                    .iter()
                    .find(|c| {
                        c.preset == **preset
                            && c.variant == v
                            && c.troop == troop
                            && c.terrain == terrain
                    })
                    .map(|c| c.value)
            };
            estimates.extend(
                r.troop_cells
                    .iter()
                    .filter(|c| c.preset == **preset && c.variant == v && c.terrain != ALL)
                    .map(|c| &c.value),
            );
            let mut headers = vec!["troop".to_string()];
            headers.extend(columns.iter().map(|k| r.terrain_name(k)));
            tables.push(Table {
                caption: format!("{preset}, {v} variant: pp per copy on each terrain"),
                headers,
                rows: Troop::ALL
                    .into_iter()
                    .map(|t| {
                        std::iter::once(t.to_string())
                            .chain(columns.iter().map(|k| cell(&value(t, k), pp)))
                            .collect()
                    })
                    .collect(),
            });
            plots.push(heat_map(&HeatMap {
                title: format!("Troop values per terrain: {preset}, {v} variant"),
                axis: "pp of win probability per copy, against the average troop; pale: the \
                       95% interval holds 0"
                    .into(),
                rows: Troop::ALL.iter().map(|t| t.to_string()).collect(),
                columns: columns.iter().map(|k| r.terrain_name(k)).collect(),
                cells: Troop::ALL
                    .into_iter()
                    .map(|t| columns.iter().map(|k| value(t, k)).collect())
                    .collect(),
                reference: 0.0,
                scale: 100.0,
                scale_to: 0.05,
            }));
        }
    }
    let mut text = vec![
        "Each player removes 4 random tiles, unseen, at setup, so how many copies of each \
         troop a player lacks is decided by chance alone: a natural experiment. A linear \
         probability model of blue's score on the difference in copies lost (red's minus \
         blue's) of each troop, with the first player (and, pooled, the variant and terrain) \
         as covariates, gives each troop's value in percentage points (pp) of win probability \
         per copy in the deck. Every player loses exactly 4 tiles, so only differences \
         between troops can be measured: values are relative to a copy of the average troop \
         (the eight sum to zero). Intervals are 95%, cluster-robust by deal. See \
         docs/balance.md."
            .to_string(),
        "Values are per preset (a troop is worth what a player makes of it) and never pooled \
         across presets. A pooled value is shown only where neither Cochran's Q test across \
         the terrains (each terrain's own fit; per variant) nor the test of the change between \
         the variants (one fit with a term per troop and variant, paired by deal) rejects \
         equal values at 5%, unadjusted (so pooling is refused readily)."
            .to_string(),
    ];
    text.extend(sample_size_line(estimates, "games per terrain"));
    Section {
        title: "Troop values".into(),
        text,
        tables,
        files: Vec::new(),
        plots,
    }
}

fn plays_section(r: &Report) -> Section {
    let tables = r
        .presets
        .iter()
        .flat_map(|p| r.variants.iter().map(move |v| (p, *v)))
        .map(|(preset, v): (&String, Variant)| Table {
            caption: format!("{preset}, {v} variant"),
            headers: [
                "troop",
                "tiles placed per player and game",
                "players who placed it",
                "their score",
            ]
            .map(String::from)
            .to_vec(),
            rows: r
                .plays
                .iter()
                .filter(|row| row.preset == *preset && row.variant == v)
                .filter(|row| row.placed_per_game.is_some())
                .map(|row| {
                    vec![
                        row.troop.to_string(),
                        opt(&row.placed_per_game, |e| {
                            if !e.is_estimable() {
                                return format!("{:.2}, {}", e.value, e.not_estimable_note());
                            }
                            format!("{:.2} [{:.2}, {:.2}]", e.value, e.lo, e.hi)
                        }),
                        opt(&row.played_share, pct),
                        opt(&row.score_when_played, pct),
                    ]
                })
                .collect(),
        })
        .filter(|t| !t.rows.is_empty())
        .collect();
    Section {
        title: "Troops played".into(),
        text: vec![
            "How often each troop reaches the board (from the records' steps), and the score of \
             the players who placed it at least once. A troop played mostly by players already \
             winning shows a high score without being strong: this table describes, the troop \
             values above measure."
                .into(),
        ],
        tables,
        files: Vec::new(),
        plots: Vec::new(),
    }
}

/// Every family of comparisons behind the summary: its comparisons, largest effect first,
/// with their p-values before and after Holm's correction.
fn families_section(r: &Report) -> Section {
    const SHOWN: usize = 12;
    let table = |f: &Family| Table {
        caption: format!(
            "{} ({}): {} comparisons{}",
            f.what,
            f.preset,
            f.comparisons,
            if f.comparisons > SHOWN {
                format!(", the {SHOWN} largest")
            } else {
                String::new()
            }
        ),
        headers: ["comparison", "figure", "p", "Holm p", "shown"]
            .map(String::from)
            .to_vec(),
        rows: f
            .tests
            .iter()
            .take(SHOWN)
            .map(|t| {
                vec![
                    t.label.clone(),
                    figure(t),
                    p_text(t.p),
                    p_text(t.holm),
                    if t.shown() { "yes" } else { "no" }.into(),
                ]
            })
            .collect(),
    };
    Section {
        title: "Comparisons behind the summary".into(),
        text: vec![
            "Each headline of the summary is chosen from a family of comparisons. The p-values \
             are read from the 95% intervals (t with deals − 1 degrees of freedom); Holm's \
             step-down correction multiplies the smallest p by the number of comparisons, the \
             next by one fewer, and so on, which keeps the chance that any shown comparison of \
             a family is a fluke under 5%, whatever the dependence between them. \"Shown\" \
             means the Holm-adjusted p is below 0.05."
                .into(),
        ]
        .into_iter()
        .chain(r.families.iter().map(family_line))
        .collect(),
        tables: r
            .families
            .iter()
            .filter(|f| f.comparisons > 0)
            .map(table)
            .collect(),
        files: Vec::new(),
        plots: Vec::new(),
    }
}

/// A row of the "Special bases" or "Restricted play" section: paired changes against the
/// games of a baseline, under the cells that name the row.
struct ChangeRow<'a> {
    preset: &'a str,
    /// The cells before the changes: terrain, (node,) games or deals.
    key: Vec<String>,
    /// The same cells for the CSV, with the terrain's key.
    csv_key: Vec<String>,
    /// The row's name on the plots.
    label: String,
    change: &'a PairedChange,
}

impl ChangeRow<'_> {
    /// Every change in the order of the columns, for the CSV.
    fn changes(&self) -> impl Iterator<Item = &Option<Estimate>> {
        let c = self.change;
        [&c.first_player, &c.blue, &c.turns]
            .into_iter()
            .chain(c.ends.iter().map(|(_, e)| e))
    }
}

impl<'a> ChangeRow<'a> {
    fn special(r: &Report, s: &'a SpecialRow) -> ChangeRow<'a> {
        ChangeRow {
            preset: &s.preset,
            key: vec![r.terrain_name(&s.terrain), s.deals.to_string()],
            csv_key: vec![s.terrain.clone(), s.deals.to_string()],
            label: r.terrain_name(&s.terrain),
            change: &s.change,
        }
    }

    fn restricted(r: &Report, row: &'a RestrictedRow) -> ChangeRow<'a> {
        let node = row.restricted.describe();
        let terrain = r.terrain_name(&row.terrain);
        ChangeRow {
            preset: &row.preset,
            label: format!("{terrain} {node}"),
            csv_key: vec![row.terrain.clone(), node.clone(), row.games.to_string()],
            key: vec![terrain, node, row.games.to_string()],
            change: &row.change,
        }
    }

    fn what_if(r: &Report, row: &'a WhatIfChange) -> ChangeRow<'a> {
        let tag = what_if_tag(r, &row.what_if);
        let terrain = r.terrain_name(&row.terrain);
        let (variant, deals) = (row.variant.to_string(), row.deals.to_string());
        ChangeRow {
            preset: &row.preset,
            label: format!("{tag} {variant} {terrain}"),
            // The what-if in words, its parts separated by semicolons: one CSV field.
            csv_key: vec![
                row.what_if.replace(", ", "; "),
                variant.clone(),
                row.terrain.clone(),
                deals.clone(),
            ],
            key: vec![tag, variant, terrain, deals],
            change: &row.change,
        }
    }
}

/// The what-ifs of a report in order, each once.
fn what_ifs_of(r: &Report) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &r.what_if_changes {
        if !out.contains(&c.what_if.as_str()) {
            out.push(&c.what_if);
        }
    }
    out
}

/// The short name of a what-if in the tables and plots, "W1", "W2"…, in report order (the
/// section's text says what each is): the what-ifs in words would make rows of 200 columns.
fn what_if_tag(r: &Report, what_if: &str) -> String {
    let k = what_ifs_of(r).iter().position(|w| *w == what_if);
    format!("W{}", k.map_or(0, |k| k + 1))
}

/// What tells the "Special bases", "Restricted play" and "Rule what-ifs" sections apart.
struct ChangeSection<'a> {
    title: &'a str,
    text: &'a str,
    /// The change measured, e.g. "normal minus beginner": in captions and on the plots' axis.
    change: &'a str,
    /// The headers of the cells that name a row.
    key_headers: &'a [&'a str],
    /// The titles of the plots of the first player's and blue's changes.
    plot_titles: [&'a str; 2],
    /// What a row's games are, for the sample-size line.
    unit: &'a str,
}

/// A section of paired changes: per preset (that has rows) a table of `rows`, and plots of
/// the first player's and blue's changes with a series per preset. End types whose change is
/// never estimable (e.g. no game reaches the turn cap) get no column.
fn change_section(r: &Report, spec: &ChangeSection, rows: &[ChangeRow]) -> Section {
    let ends: Vec<End> = End::ALL
        .into_iter()
        .filter(|e| *e != End::Forfeit)
        .filter(|&end| {
            rows.iter().any(|row| {
                row.change
                    .ends
                    .iter()
                    .any(|(e, c)| *e == end && c.is_some_and(|c| c.is_estimable()))
            })
        })
        .collect();
    let mut headers: Vec<String> = spec.key_headers.iter().map(|h| h.to_string()).collect();
    headers.extend(["first player's score, pp", "blue's score, pp", "turns"].map(String::from));
    headers.extend(ends.iter().map(|e| format!("{}, pp", e.name())));
    let presets: Vec<&String> = r
        .presets
        .iter()
        .filter(|p| rows.iter().any(|row| row.preset == p.as_str()))
        .collect();
    let tables = presets
        .iter()
        .map(|preset| Table {
            caption: format!("{preset}: {}", spec.change),
            headers: headers.clone(),
            rows: rows
                .iter()
                .filter(|row| row.preset == preset.as_str())
                .map(|row| {
                    let mut cells = row.key.clone();
                    cells.extend([
                        cell(&row.change.first_player, pp),
                        cell(&row.change.blue, pp),
                        match &row.change.turns {
                            Some(t) if !t.is_estimable() => {
                                format!("{:+.1} ({NOT_ESTIMABLE})", t.value)
                            }
                            t => opt(t, signed),
                        },
                    ]);
                    cells.extend(
                        row.change
                            .ends
                            .iter()
                            .filter(|(e, _)| ends.contains(e))
                            .map(|(_, e)| cell(e, pp)),
                    );
                    cells
                })
                .collect(),
        })
        .collect();
    let plot = |title: &str, f: fn(&ChangeRow) -> Option<Estimate>| {
        dot_plot(&DotPlot {
            title: title.into(),
            axis: format!("percentage points, {}", spec.change),
            reference: Some(0.0),
            scale: 100.0,
            range: None,
            series: presets
                .iter()
                .enumerate()
                .map(|(i, p)| Series {
                    name: p.to_string(),
                    colour: COLOURS[i % COLOURS.len()],
                    points: rows
                        .iter()
                        .filter(|row| row.preset == p.as_str())
                        .filter_map(|row| {
                            f(row).map(|e| (row.label.clone(), e.shown_as_share_change()))
                        })
                        .collect(),
                })
                .collect(),
        })
    };
    let mut text = vec![spec.text.to_string()];
    let estimates: Vec<Estimate> = rows
        .iter()
        .filter_map(|row| row.change.first_player)
        .collect();
    text.extend(sample_size_line(&estimates, spec.unit));
    text.push(NOT_ESTIMABLE_NOTE.into());
    Section {
        title: spec.title.into(),
        text,
        tables,
        files: Vec::new(),
        plots: vec![
            plot(spec.plot_titles[0], |row| row.change.first_player),
            plot(spec.plot_titles[1], |row| row.change.blue),
        ],
    }
}

fn special_section(r: &Report) -> Section {
    let spec = ChangeSection {
        title: "Special bases",
        text: "The beginner variant turns every special-base effect off; each deal is played \
               in both variants, so the differences below (normal minus beginner) are paired \
               deal by deal. A positive first-player change means the special bases favour \
               the first player.",
        change: "normal minus beginner",
        key_headers: &["terrain", "deals"],
        plot_titles: [
            "Special-base effect on the first player's score",
            "Special-base effect on blue's score",
        ],
        unit: "deals per terrain",
    };
    let rows: Vec<ChangeRow> = r
        .special_bases
        .iter()
        .map(|s| ChangeRow::special(r, s))
        .collect();
    change_section(r, &spec, &rows)
}

/// Restricted play: per preset, a row per terrain and restricted node, and a plot of the
/// change in the first player's and blue's scores.
fn restricted_section(r: &Report) -> Section {
    let spec = ChangeSection {
        title: "Restricted play",
        text: "Each special base (and each restricted HQ of Tropical Pool) in turn acts as a \
               plain node for both players: an optional effect is never used, a forced one \
               (Station Metal-X's cancelled troop effects, Tropical Pool's allowed values) no \
               longer applies. Each such run plays the deals of the normal games, so every \
               change below (effect never used minus normal) is paired deal by deal: each \
               restricted run is compared with the normal games of its own deals; a \
               negative first-player change means the base's effect helps the first player. \
               Node ids are those of docs/rules.md §15.",
        change: "effect never used minus normal",
        key_headers: &["terrain", "node", "games"],
        plot_titles: [
            "Restricted play: change in the first player's score",
            "Restricted play: change in blue's score",
        ],
        unit: "deals per node",
    };
    let rows: Vec<ChangeRow> = r
        .restricted_play
        .iter()
        .map(|x| ChangeRow::restricted(r, x))
        .collect();
    change_section(r, &spec, &rows)
}

/// Rule what-ifs against the printed rules: per preset, a row per what-if, variant and terrain,
/// and a plot of the change in the first player's and blue's scores.
fn what_if_section(r: &Report) -> Section {
    let spec = ChangeSection {
        title: "Rule what-ifs against the printed rules",
        text: "Runs of other rules were read with the study: each plays the deals of the \
               printed rules' games (the same seed, terrains, games and turn cap), so every \
               change below (the what-if minus the printed rules) is paired deal by deal: each \
               deal's mean under the what-if minus its mean under the printed rules, with a \
               95% interval over deals. A negative first-player change means the what-if \
               takes from the first player's edge. The summary says which changes survive \
               Holm's correction for the number of comparisons of their family.",
        change: "what-if minus printed rules",
        key_headers: &["what-if", "variant", "terrain", "deals"],
        plot_titles: [
            "Rule what-ifs: change in the first player's score",
            "Rule what-ifs: change in blue's score",
        ],
        unit: "deals per terrain",
    };
    let rows: Vec<ChangeRow> = r
        .what_if_changes
        .iter()
        .map(|c| ChangeRow::what_if(r, c))
        .collect();
    let mut section = change_section(r, &spec, &rows);
    section
        .text
        .push("The what-ifs, as the tables and plots name them:".into());
    section.text.extend(
        what_ifs_of(r)
            .into_iter()
            .map(|w| format!("- {}: {w}", what_if_tag(r, w))),
    );
    section
}

/// The rules the games were played under: "retail rules" or the what-ifs, and the rule
/// what-ifs compared with them.
fn rules(r: &Report) -> String {
    let own = match r.what_ifs.is_retail() {
        true => "retail rules".into(),
        false => format!("what-ifs: {}", r.what_ifs.describe()),
    };
    match what_ifs_of(r).len() {
        0 => own,
        n => format!(
            "{own}, compared with {n} rule what-if{} on the same deals (section Rule what-ifs \
             against the printed rules)",
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// Prose wrapped at `width` columns (words never split), each line after the first prefixed
/// with `indent`.
pub(crate) fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            out.push_str(indent);
            line = indent.len();
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

/// The report's header line: games, presets, terrains, variants, rules.
fn header(r: &Report) -> String {
    format!(
        "{} games: presets {}; terrains {}; variants {}; {}.",
        r.games,
        r.presets.join(", "),
        r.terrain_names.join(", "),
        r.variants
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        rules(r)
    )
}

/// `report.md`: prose wrapped at 100 columns (tables stay one row a line, as Markdown needs).
pub fn markdown(r: &Report, sections: &[Section]) -> String {
    let mut md = format!(
        "# Balance report\n\n{}\n\n",
        wrap(
            &format!("{} Plots are in report.html.", header(r)),
            MD_WIDTH,
            ""
        )
    );
    for s in sections {
        let _ = writeln!(md, "## {}\n", s.title);
        let list = s.title == "Summary";
        for t in &s.text {
            match (list, t.strip_prefix("- ")) {
                (true, _) => {
                    let _ = writeln!(md, "- {}", wrap(t, MD_WIDTH - 2, "  "));
                }
                (false, Some(item)) => {
                    let _ = writeln!(md, "- {}", wrap(item, MD_WIDTH - 2, "  "));
                }
                (false, None) => {
                    let _ = writeln!(md, "{}\n", wrap(t, MD_WIDTH, ""));
                }
            }
        }
        if list || s.text.last().is_some_and(|t| t.starts_with("- ")) {
            md.push('\n');
        }
        for (name, _) in &s.files {
            let _ = writeln!(md, "Plot: [{name}]({name})\n");
        }
        for t in &s.tables {
            let _ = writeln!(md, "**{}**\n", wrap(&t.caption, MD_WIDTH - 4, ""));
            let _ = writeln!(md, "| {} |", t.headers.join(" | "));
            let _ = writeln!(md, "|{}", "---|".repeat(t.headers.len()));
            for row in &t.rows {
                let _ = writeln!(md, "| {} |", row.join(" | "));
            }
            md.push('\n');
        }
    }
    md
}

/// `report.html`: one file, styles and plots inline.
pub fn html(r: &Report, sections: &[Section]) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Balance report</title>\
         <style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}\
         table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}\
         td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}\
         td:first-child,th:first-child{text-align:left}caption{text-align:left;font-weight:bold}\
         svg{display:block;margin:1em 0;max-width:100%;height:auto}\
         .incomplete{border:2px solid #d62728;padding:0 1em}</style></head><body>\n<h1>Balance report</h1>\n",
    );
    let _ = writeln!(h, "<p>{}</p>", escape(&header(r)));
    for s in sections {
        let incomplete = s.title == "Incomplete study";
        if incomplete {
            h.push_str("<div class=\"incomplete\">");
        }
        let _ = writeln!(h, "<h2>{}</h2>", escape(&s.title));
        if s.title == "Summary" {
            h.push_str("<ul>");
            for t in &s.text {
                let _ = write!(h, "<li>{}</li>", escape(t));
            }
            h.push_str("</ul>\n");
        } else {
            for t in &s.text {
                match t.strip_prefix("- ") {
                    Some(item) => {
                        let _ = writeln!(h, "<ul><li>{}</li></ul>", escape(item));
                    }
                    None => {
                        let _ = writeln!(h, "<p>{}</p>", escape(t));
                    }
                }
            }
        }
        if incomplete {
            h.push_str("</div>\n");
        }
        for p in &s.plots {
            h.push_str(p);
            h.push('\n');
        }
        for (name, svg) in &s.files {
            let name = escape(name);
            let _ = writeln!(h, "<p>Plot: <a href=\"{name}\">{name}</a></p>\n{svg}");
        }
        for t in &s.tables {
            let _ = write!(h, "<table><caption>{}</caption><tr>", escape(&t.caption));
            for c in &t.headers {
                let _ = write!(h, "<th>{}</th>", escape(c));
            }
            h.push_str("</tr>");
            for row in &t.rows {
                h.push_str("<tr>");
                for c in row {
                    let _ = write!(h, "<td>{}</td>", escape(c));
                }
                h.push_str("</tr>");
            }
            h.push_str("</table>\n");
        }
    }
    h.push_str("</body></html>\n");
    h
}

fn csv_estimate(e: &Option<Estimate>) -> String {
    match e {
        // An interval that is not estimable has empty ends, never infinite ones.
        Some(e) if !e.is_estimable() => format!("{:.6},,", e.value),
        Some(e) => format!("{:.6},{:.6},{:.6}", e.value, e.lo, e.hi),
        None => ",,".into(),
    }
}

fn csv_header(names: &[&str]) -> String {
    names
        .iter()
        .flat_map(|n| [n.to_string(), format!("{n}_lo"), format!("{n}_hi")])
        .collect::<Vec<_>>()
        .join(",")
}

/// The CSV tables, as (file name, content): every figure with its interval, proportions and
/// differences as fractions, lengths in turns.
pub fn csv_tables(r: &Report) -> Vec<(&'static str, String)> {
    let ends: Vec<&str> = End::ALL.iter().map(|e| e.name()).collect();
    let seats = format!(
        "preset,variant,terrain,games,{},{}\n",
        csv_header(&[
            "first_player",
            "blue",
            "balance",
            "completion",
            "turns_mean",
            "turns_sd",
            "branching",
            "lead_changes",
            "drama",
            "decisiveness_moves"
        ]),
        csv_header(&ends)
    );
    let seats_header = seats.trim_end().to_string();
    let mut seats =
        format!("{seats_header},turns_p10,turns_p25,turns_median,turns_p75,turns_p90\n");
    for s in &r.seats {
        let figures = [
            s.first_player,
            s.blue,
            s.balance,
            s.decisiveness,
            s.turns_mean,
            s.turns_sd,
            s.branching,
            s.lead_changes,
            s.drama,
            s.decisiveness_moves,
        ];
        let cells: Vec<String> = figures
            .iter()
            .chain(s.ends.iter().map(|(_, e)| e))
            .map(csv_estimate)
            .collect();
        let quantiles = s
            .turns_quantiles
            .map_or(",,,,".into(), |q| q.map(|t| t.to_string()).join(","));
        let _ = writeln!(
            seats,
            "{},{},{},{},{},{quantiles}",
            s.preset,
            s.variant,
            s.terrain,
            s.games,
            cells.join(",")
        );
    }
    let mut troops = String::from("preset,troop,games,value,value_lo,value_hi\n");
    for t in &r.troops {
        let _ = writeln!(
            troops,
            "{},{},{},{}",
            t.preset,
            t.troop,
            t.value.n,
            csv_estimate(&Some(t.value))
        );
    }
    let mut plays = format!(
        "preset,variant,troop,{}\n",
        csv_header(&["placed_per_game", "played_share", "score_when_played"])
    );
    for p in &r.plays {
        let _ = writeln!(
            plays,
            "{},{},{},{},{},{}",
            p.preset,
            p.variant,
            p.troop,
            csv_estimate(&p.placed_per_game),
            csv_estimate(&p.played_share),
            csv_estimate(&p.score_when_played)
        );
    }
    let shown: Vec<&str> = ends.iter().copied().filter(|e| *e != "forfeit").collect();
    let changes = |key_headers: &str, rows: Vec<ChangeRow>| {
        let mut csv = format!(
            "preset,{key_headers},{},{}\n",
            csv_header(&["first_player", "blue", "turns"]),
            csv_header(&shown)
        );
        for row in rows {
            let cells: Vec<String> = row.changes().map(csv_estimate).collect();
            // Several restricted nodes are separated by spaces: one CSV field.
            let key: Vec<String> = row.csv_key.iter().map(|k| k.replace(", ", " ")).collect();
            let _ = writeln!(csv, "{},{},{}", row.preset, key.join(","), cells.join(","));
        }
        csv
    };
    let special = changes(
        "terrain,deals",
        r.special_bases
            .iter()
            .map(|x| ChangeRow::special(r, x))
            .collect(),
    );
    let restricted = changes(
        "terrain,node,games",
        r.restricted_play
            .iter()
            .map(|x| ChangeRow::restricted(r, x))
            .collect(),
    );
    let what_if = changes(
        "what_if,variant,terrain,deals",
        r.what_if_changes
            .iter()
            .map(|c| ChangeRow::what_if(r, c))
            .collect(),
    );
    let e = csv_estimate;
    let mut design = format!(
        "preset,variant,terrain,rank,candidate,rules,games,{}\n",
        csv_header(&["first_player", "blue", "first_player_change", "blue_change"])
    );
    for row in r.design_search.iter().flat_map(|s| &s.rows) {
        let _ = writeln!(
            design,
            "{},{},{},{},{},{},{},{},{},{},{}",
            row.preset,
            row.variant,
            row.terrain,
            row.rank,
            row.candidate,
            row.rules.replace(", ", "; "),
            row.games,
            e(&row.first_player),
            e(&row.blue),
            e(&row.first_player_change),
            e(&row.blue_change)
        );
    }
    let mut troop_cells =
        String::from("preset,variant,terrain,troop,games,value,value_lo,value_hi\n");
    for c in &r.troop_cells {
        let _ = writeln!(
            troop_cells,
            "{},{},{},{},{},{}",
            c.preset,
            c.variant,
            c.terrain,
            c.troop,
            c.value.n,
            csv_estimate(&Some(c.value))
        );
    }
    let mut homogeneity = String::from("preset,troop,across,variant,statistic,df,p\n");
    for h in &r.troop_homogeneity {
        let _ = writeln!(
            homogeneity,
            "{},{},{},{},{:.6},{},{:.6}",
            h.preset,
            h.troop,
            h.across,
            h.variant.map_or(String::new(), |v| v.to_string()),
            h.statistic,
            h.df,
            h.p
        );
    }
    let mut skill = format!(
        "preset,against,variant,terrain,deals,{}\n",
        csv_header(&["first_player", "blue", "turns"])
    );
    for c in &r.skill_changes {
        let _ = writeln!(
            skill,
            "{},{},{},{},{},{},{},{}",
            c.preset,
            c.against,
            c.variant,
            c.terrain,
            c.deals,
            csv_estimate(&c.first_player),
            csv_estimate(&c.blue),
            csv_estimate(&c.turns)
        );
    }
    let mut comparisons =
        String::from("family,preset,comparisons,comparison,value,value_lo,value_hi,null,p,holm\n");
    for f in &r.families {
        for t in &f.tests {
            let _ = writeln!(
                comparisons,
                "\"{}\",{},{},\"{}\",{},{},{:.6},{:.6}",
                f.what.replace('"', "'"),
                f.preset.replace(',', ";"),
                f.comparisons,
                t.label.replace('"', "'"),
                csv_estimate(&Some(t.estimate)),
                t.null,
                t.p,
                t.holm
            );
        }
    }
    let mut tables = vec![
        ("seats.csv", seats),
        ("troops.csv", troops),
        ("troops_by_terrain.csv", troop_cells),
        ("troop_homogeneity.csv", homogeneity),
        ("comparisons.csv", comparisons),
        ("plays.csv", plays),
        ("special_bases.csv", special),
    ];
    if !r.restricted_play.is_empty() {
        tables.push(("restricted_play.csv", restricted));
    }
    if !r.skill_changes.is_empty() {
        tables.push(("skill_changes.csv", skill));
    }
    if !r.what_if_changes.is_empty() {
        tables.push(("what_if_changes.csv", what_if));
    }
    if r.design_search.is_some() {
        tables.push(("design_search.csv", design));
    }
    tables
}

/// Writes every file of the report into `dir`; returns the Markdown.
pub fn write_report(dir: &Path, r: &Report, notes: &[String]) -> Result<String, TournamentError> {
    std::fs::create_dir_all(dir).map_err(|e| TournamentError::io(dir, e))?;
    let sections = sections(r, notes);
    let md = markdown(r, &sections);
    write_atomic(&dir.join("report.md"), md.as_bytes())?;
    write_atomic(&dir.join("report.html"), html(r, &sections).as_bytes())?;
    write_json_atomic(&dir.join("balance.json"), r)?;
    for (name, svg) in sections.iter().flat_map(|s| &s.files) {
        write_atomic(&dir.join(name), svg.as_bytes())?;
    }
    for (name, text) in csv_tables(r) {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(md)
}
