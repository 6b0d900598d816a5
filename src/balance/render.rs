//! The report's files: `report.md`, a self-contained `report.html` (inline SVG plots, no
//! external resource), `balance.json` and one CSV per table. Tables are built once and
//! rendered to Markdown and HTML alike.

use super::analysis::{pct, pp, Report, RestrictedRow, SeatRow, SpecialRow, ALL};
use super::estimate::Estimate;
use super::objective::{ObjectiveRow, ObjectiveSearch};
use super::svg::{dot_plot, escape, DotPlot, Series};
use super::End;
use crate::rules::{Troop, Variant};
use crate::tournament::store::{write_atomic, write_json_atomic};
use crate::tournament::TournamentError;
use std::fmt::Write;
use std::path::Path;

const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

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
}

fn opt(e: &Option<Estimate>, f: fn(&Estimate) -> String) -> String {
    e.as_ref().map_or("-".into(), f)
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

/// The report as sections, in reading order.
pub fn sections(r: &Report, notes: &[String]) -> Vec<Section> {
    let mut out = vec![Section {
        title: "Summary".into(),
        text: r
            .summary
            .iter()
            .cloned()
            .chain(r.forfeits.iter().map(|n| format!("Warning: {n}.")))
            .chain(notes.iter().map(|n| format!("Note: {n}")))
            .chain(r.troop_notes.iter().map(|n| format!("Note: {n}")))
            .collect(),
        tables: Vec::new(),
        plots: Vec::new(),
    }];
    out.push(seats_section(r));
    out.push(skill_section(r));
    out.push(troops_section(r));
    out.push(plays_section(r));
    if !r.special_bases.is_empty() {
        out.push(special_section(r));
    }
    if !r.restricted_play.is_empty() {
        out.push(restricted_section(r));
    }
    if let Some(search) = &r.objective_search {
        out.insert(1, objective_section(search));
    }
    out
}

/// The medal-objective search: every candidate's seat scores, and the best objectives.
fn objective_section(s: &ObjectiveSearch) -> Section {
    let cells = |r: &ObjectiveRow| {
        vec![
            r.preset.clone(),
            r.variant.to_string(),
            r.objective.to_string(),
            r.games.to_string(),
            opt(&r.first_player, pct),
            opt(&r.blue, pct),
            opt(&r.turns_mean, num),
        ]
    };
    let headers = [
        "preset",
        "variant",
        "objective",
        "games",
        "first player's score",
        "blue's score",
        "turns (mean)",
    ]
    .map(String::from)
    .to_vec();
    let mut text = vec![format!(
        "{} played at each candidate medal objective (printed: {}); the objective whose \
         score is closest to 50% is the most balanced by that measure.",
        s.terrain, s.printed
    )];
    for (measure, best, f) in [
        (
            "first player's score",
            &s.best_first_player,
            (|r: &ObjectiveRow| r.first_player) as fn(&ObjectiveRow) -> Option<Estimate>,
        ),
        ("blue's score", &s.best_side, |r: &ObjectiveRow| r.blue),
    ] {
        for b in best {
            text.push(format!(
                "{}, {} variant: by the {measure}, objective {} ({})",
                b.preset,
                b.variant,
                b.objective,
                opt(&f(b), pct)
            ));
        }
    }
    Section {
        title: format!("Medal objective search: {}", s.terrain),
        text,
        tables: vec![Table {
            caption: "Scores per candidate objective".into(),
            headers,
            rows: s.rows.iter().map(cells).collect(),
        }],
        plots: Vec::new(),
    }
}

fn seats_section(r: &Report) -> Section {
    let mut tables = Vec::new();
    let mut plots = Vec::new();
    for preset in &r.presets {
        for &v in &r.variants {
            let rows: Vec<&SeatRow> = r
                .seats
                .iter()
                .filter(|s| s.preset == *preset && s.variant == v)
                .collect();
            let mut headers: Vec<String> = [
                "terrain",
                "games",
                "first player's score",
                "blue's score",
                "balance",
                "decisive",
                "turns (mean)",
                "turns (sd)",
            ]
            .map(String::from)
            .to_vec();
            headers.extend(End::ALL.iter().map(|e| e.name().to_string()));
            tables.push(Table {
                caption: format!("{preset}, {v} variant"),
                headers,
                rows: rows.iter().map(|s| seat_cells(s)).collect(),
            });
            let series = |name: &str, colour, f: fn(&SeatRow) -> Option<Estimate>| Series {
                name: name.into(),
                colour,
                points: rows
                    .iter()
                    .filter_map(|s| f(s).map(|e| (s.terrain.clone(), e)))
                    .collect(),
            };
            plots.push(dot_plot(&DotPlot {
                title: format!("Seat advantage per terrain: {preset}, {v} variant"),
                axis: "score (%), 50 = balanced".into(),
                reference: Some(0.5),
                scale: 100.0,
                series: vec![
                    series("first player", COLOURS[0], |s| s.first_player),
                    series("blue", COLOURS[1], |s| s.blue),
                ],
            }));
        }
    }
    Section {
        title: "First player and side".into(),
        text: vec![
            "Scores count a win 1 and a game stopped by the turn cap 1/2; 50% is balanced. \
             Balance is Ludii's 1 − |2·(first player's score) − 1| (100% = perfectly balanced); \
             decisive is the share of games with a winner. Intervals are 95%, with the two games \
             of a deal (one with each colour moving first) counted as one cluster."
                .into(),
        ],
        tables,
        plots,
    }
}

fn seat_cells(s: &SeatRow) -> Vec<String> {
    let p = |e: &Option<Estimate>| opt(e, pct);
    let mut cells = vec![
        s.terrain.clone(),
        s.games.to_string(),
        p(&s.first_player),
        p(&s.blue),
        p(&s.balance),
        p(&s.decisiveness),
        opt(&s.turns_mean, num),
        opt(&s.turns_sd, num),
    ];
    cells.extend(s.ends.iter().map(|(_, e)| p(e)));
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
                std::iter::once(t.to_string())
                    .chain(r.presets.iter().map(|p| opt(&seat(p, t).and_then(f), pct)))
                    .collect()
            })
            .collect(),
    };
    let points = |f: fn(&SeatRow) -> Option<Estimate>| {
        r.presets
            .iter()
            .filter_map(|p| seat(p, ALL).and_then(f).map(|e| (p.clone(), e)))
            .collect()
    };
    Section {
        title: "Balance by skill".into(),
        text: vec![
            "The presets in the order named (meant from weakest to strongest): does a bias grow \
             or shrink as players improve?"
                .into(),
        ],
        tables: vec![
            table("first player", |s| s.first_player),
            table("blue", |s| s.blue),
        ],
        plots: vec![dot_plot(&DotPlot {
            title: format!("Advantage against skill, all terrains, {variant} variant"),
            axis: "score (%), 50 = balanced".into(),
            reference: Some(0.5),
            scale: 100.0,
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

fn troop_presets(r: &Report) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in &r.troops {
        if !names.contains(&t.preset) {
            names.push(t.preset.clone());
        }
    }
    names
}

fn troops_section(r: &Report) -> Section {
    let presets = troop_presets(r);
    let value = |preset: &str, troop: Troop| {
        r.troops
            .iter()
            .find(|t| t.preset == preset && t.troop == troop)
            .map(|t| t.value)
    };
    let mut headers = vec!["troop".to_string()];
    headers.extend(presets.iter().map(|p| format!("{p}: pp per copy")));
    let rows = Troop::ALL
        .iter()
        .map(|&t| {
            std::iter::once(t.to_string())
                .chain(presets.iter().map(|p| opt(&value(p, t), pp)))
                .collect()
        })
        .collect();
    let series = presets
        .iter()
        .enumerate()
        .map(|(i, p)| Series {
            name: p.clone(),
            colour: COLOURS[i % COLOURS.len()],
            points: Troop::ALL
                .iter()
                .filter_map(|&t| value(p, t).map(|e| (t.to_string(), e)))
                .collect(),
        })
        .collect();
    Section {
        title: "Troop values".into(),
        text: vec![
            "Each player removes 4 random tiles, unseen, at setup, so how many copies of each \
             troop a player lacks is decided by chance alone: a natural experiment. A linear \
             probability model of blue's score on the difference in copies lost (red's minus \
             blue's) of each troop, with the first player, variant, terrain and preset as \
             covariates, gives each troop's value in percentage points (pp) of win probability \
             per copy in the deck. Every player loses exactly 4 tiles, so only differences \
             between troops can be measured: values are relative to a copy of the average troop \
             (the eight sum to zero). Intervals are 95%, cluster-robust by deal. See \
             docs/balance.md."
                .into(),
        ],
        tables: vec![Table {
            caption: "Value of one copy of each troop".into(),
            headers,
            rows,
        }],
        plots: vec![dot_plot(&DotPlot {
            title: "Troop values (per copy, against the average troop)".into(),
            axis: "percentage points of win probability".into(),
            reference: Some(0.0),
            scale: 100.0,
            series,
        })],
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
        plots: Vec::new(),
    }
}

/// A row of the "Special bases" or "Restricted play" section: paired changes against the
/// games of a baseline, under the cells that name the row.
struct ChangeRow<'a> {
    preset: &'a str,
    /// The cells before the changes: terrain, (node,) games or deals.
    key: Vec<String>,
    /// The row's name on the plots.
    label: String,
    first_player: Option<Estimate>,
    blue: Option<Estimate>,
    turns: Option<Estimate>,
    ends: &'a [(End, Option<Estimate>)],
}

impl ChangeRow<'_> {
    /// Every change in the order of the columns, for the CSV.
    fn changes(&self) -> impl Iterator<Item = &Option<Estimate>> {
        [&self.first_player, &self.blue, &self.turns]
            .into_iter()
            .chain(self.ends.iter().map(|(_, e)| e))
    }
}

impl<'a> From<&'a SpecialRow> for ChangeRow<'a> {
    fn from(s: &'a SpecialRow) -> ChangeRow<'a> {
        ChangeRow {
            preset: &s.preset,
            key: vec![s.terrain.clone(), s.deals.to_string()],
            label: s.terrain.clone(),
            first_player: s.first_player,
            blue: s.blue,
            turns: s.turns,
            ends: &s.ends,
        }
    }
}

impl<'a> From<&'a RestrictedRow> for ChangeRow<'a> {
    fn from(row: &'a RestrictedRow) -> ChangeRow<'a> {
        let node = row.restricted.describe();
        ChangeRow {
            preset: &row.preset,
            label: format!("{} {node}", row.terrain),
            key: vec![row.terrain.clone(), node, row.games.to_string()],
            first_player: row.first_player,
            blue: row.blue,
            turns: row.turns,
            ends: &row.ends,
        }
    }
}

/// What tells the "Special bases" and "Restricted play" sections apart.
struct ChangeSection<'a> {
    title: &'a str,
    text: &'a str,
    /// The change measured, e.g. "normal minus beginner": in captions and on the plots' axis.
    change: &'a str,
    /// The headers of the cells that name a row.
    key_headers: &'a [&'a str],
    /// The titles of the plots of the first player's and blue's changes.
    plot_titles: [&'a str; 2],
}

/// A section of paired changes: per preset a table of `rows`, and plots of the first player's
/// and blue's changes with a series per preset.
fn change_section(r: &Report, spec: &ChangeSection, rows: &[ChangeRow]) -> Section {
    let mut headers: Vec<String> = spec.key_headers.iter().map(|h| h.to_string()).collect();
    headers.extend(["first player's score, pp", "blue's score, pp", "turns"].map(String::from));
    headers.extend(
        End::ALL
            .into_iter()
            .filter(|e| *e != End::Forfeit)
            .map(|e| format!("{}, pp", e.name())),
    );
    let tables = r
        .presets
        .iter()
        .map(|preset| Table {
            caption: format!("{preset}: {}", spec.change),
            headers: headers.clone(),
            rows: rows
                .iter()
                .filter(|row| row.preset == preset)
                .map(|row| {
                    let mut cells = row.key.clone();
                    cells.extend([
                        opt(&row.first_player, pp),
                        opt(&row.blue, pp),
                        opt(&row.turns, signed),
                    ]);
                    cells.extend(row.ends.iter().map(|(_, e)| opt(e, pp)));
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
            series: r
                .presets
                .iter()
                .enumerate()
                .map(|(i, p)| Series {
                    name: p.clone(),
                    colour: COLOURS[i % COLOURS.len()],
                    points: rows
                        .iter()
                        .filter(|row| row.preset == p)
                        .filter_map(|row| f(row).map(|e| (row.label.clone(), e)))
                        .collect(),
                })
                .collect(),
        })
    };
    Section {
        title: spec.title.into(),
        text: vec![spec.text.into()],
        tables,
        plots: vec![
            plot(spec.plot_titles[0], |row| row.first_player),
            plot(spec.plot_titles[1], |row| row.blue),
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
    };
    let rows: Vec<ChangeRow> = r.special_bases.iter().map(ChangeRow::from).collect();
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
               change below (effect never used minus normal) is paired deal by deal; a \
               negative first-player change means the base's effect helps the first player. \
               Node ids are those of docs/rules.md §15.",
        change: "effect never used minus normal",
        key_headers: &["terrain", "node", "games"],
        plot_titles: [
            "Restricted play: change in the first player's score",
            "Restricted play: change in blue's score",
        ],
    };
    let rows: Vec<ChangeRow> = r.restricted_play.iter().map(ChangeRow::from).collect();
    change_section(r, &spec, &rows)
}

/// The rules the games were played under: "retail rules" or the what-ifs.
fn rules(r: &Report) -> String {
    match r.what_ifs.is_retail() {
        true => "retail rules".into(),
        false => format!("what-ifs: {}", r.what_ifs.describe()),
    }
}

/// `report.md`.
pub fn markdown(r: &Report, sections: &[Section]) -> String {
    let mut md = format!(
        "# Balance report\n\n{} games: presets {}; terrains {}; variants {}; {}. Plots are in \
         report.html.\n\n",
        r.games,
        r.presets.join(", "),
        r.terrains.join(", "),
        r.variants
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        rules(r)
    );
    for s in sections {
        let _ = writeln!(md, "## {}\n", s.title);
        for t in &s.text {
            let bullet = if s.title == "Summary" { "- " } else { "" };
            let _ = writeln!(md, "{bullet}{t}");
            if bullet.is_empty() {
                md.push('\n');
            }
        }
        if s.title == "Summary" {
            md.push('\n');
        }
        for t in &s.tables {
            let _ = writeln!(md, "**{}**\n", t.caption);
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
         svg{display:block;margin:1em 0}</style></head><body>\n<h1>Balance report</h1>\n",
    );
    let _ = writeln!(
        h,
        "<p>{} games: presets {}; terrains {}; variants {}; {}.</p>",
        r.games,
        escape(&r.presets.join(", ")),
        escape(&r.terrains.join(", ")),
        r.variants
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        escape(&rules(r))
    );
    for s in sections {
        let _ = writeln!(h, "<h2>{}</h2>", escape(&s.title));
        if s.title == "Summary" {
            h.push_str("<ul>");
            for t in &s.text {
                let _ = write!(h, "<li>{}</li>", escape(t));
            }
            h.push_str("</ul>\n");
        } else {
            for t in &s.text {
                let _ = writeln!(h, "<p>{}</p>", escape(t));
            }
        }
        for p in &s.plots {
            h.push_str(p);
            h.push('\n');
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
    let mut seats = format!(
        "preset,variant,terrain,games,{},{}\n",
        csv_header(&[
            "first_player",
            "blue",
            "balance",
            "decisive",
            "turns_mean",
            "turns_sd"
        ]),
        csv_header(&ends)
    );
    for s in &r.seats {
        let figures = [
            s.first_player,
            s.blue,
            s.balance,
            s.decisiveness,
            s.turns_mean,
            s.turns_sd,
        ];
        let cells: Vec<String> = figures
            .iter()
            .chain(s.ends.iter().map(|(_, e)| e))
            .map(csv_estimate)
            .collect();
        let _ = writeln!(
            seats,
            "{},{},{},{},{}",
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
            let key: Vec<String> = row.key.iter().map(|k| k.replace(", ", " ")).collect();
            let _ = writeln!(csv, "{},{},{}", row.preset, key.join(","), cells.join(","));
        }
        csv
    };
    let special = changes(
        "terrain,deals",
        r.special_bases.iter().map(ChangeRow::from).collect(),
    );
    let restricted = changes(
        "terrain,node,games",
        r.restricted_play.iter().map(ChangeRow::from).collect(),
    );
    let mut search = String::from(
        "terrain,preset,variant,objective,games,first_player,first_player_lo,first_player_hi,\
         blue,blue_lo,blue_hi,turns_mean,turns_mean_lo,turns_mean_hi\n",
    );
    let e = csv_estimate;
    if let Some(s) = &r.objective_search {
        for row in &s.rows {
            let _ = writeln!(
                search,
                "{},{},{},{},{},{},{},{}",
                s.terrain,
                row.preset,
                row.variant,
                row.objective,
                row.games,
                e(&row.first_player),
                e(&row.blue),
                e(&row.turns_mean)
            );
        }
    }
    let mut tables = vec![
        ("seats.csv", seats),
        ("troops.csv", troops),
        ("plays.csv", plays),
        ("special_bases.csv", special),
    ];
    if !r.restricted_play.is_empty() {
        tables.push(("restricted_play.csv", restricted));
    }
    if r.objective_search.is_some() {
        tables.push(("objective_search.csv", search));
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
    for (name, text) in csv_tables(r) {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(md)
}
