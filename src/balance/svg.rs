//! Plots as inline SVG, written directly: dot plots with 95% error bars (rows of labels, one
//! dot per series, a reference line for "no effect"), one heat map (troop × terrain, each
//! cell's value and interval written in it) and the change plot of a search (paired changes
//! against a baseline, grouped by terrain, in two panels on one axis), which a few small
//! functions draw and the tests check. A plotting crate would bring fonts,
//! backends and far more code for this one shape.

use super::estimate::Estimate;
use std::fmt::Write;

/// One set of points drawn in one colour.
pub struct Series {
    /// Legend name.
    pub name: String,
    /// CSS colour of the series.
    pub colour: &'static str,
    /// (row label, figure); rows are shared by label between series.
    pub points: Vec<(String, Estimate)>,
}

/// A dot plot with error bars.
pub struct DotPlot {
    /// Plot title.
    pub title: String,
    /// Axis label, e.g. "first player's score (%)".
    pub axis: String,
    /// Where "no effect" lies (drawn as a dashed line), in data units.
    pub reference: Option<f64>,
    /// Factor from data units to the units shown (100 for percent).
    pub scale: f64,
    /// The data range of the axis, when several plots must share one (see [`shared_range`]);
    /// `None` to fit this plot's intervals.
    pub range: Option<(f64, f64)>,
    /// The series plotted.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 680.0;
const LEFT: f64 = 170.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 48.0;
const ROW: f64 = 24.0;
const BOTTOM: f64 = 44.0;

/// Escapes text for SVG and HTML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The data range shown: the plot's own, or every finite interval end and the reference,
/// padded by 5%.
fn range(plot: &DotPlot) -> (f64, f64) {
    plot.range
        .unwrap_or_else(|| shared_range(std::slice::from_ref(plot)))
}

/// One data range for several plots (so that their axes can be compared at a glance): every
/// finite interval end, value and reference of all of them, padded by 5%.
pub fn shared_range(plots: &[DotPlot]) -> (f64, f64) {
    let ends = plots
        .iter()
        .flat_map(|p| {
            p.series
                .iter()
                .flat_map(|s| s.points.iter().flat_map(|(_, e)| [e.lo, e.hi, e.value]))
                .chain(p.reference)
        })
        .filter(|x| x.is_finite());
    let (lo, hi) = ends.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(1e-6);
    (lo - pad, hi + pad)
}

/// About five round tick values covering `[lo, hi]` (in shown units).
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The plot as one `<svg>` element.
pub fn dot_plot(plot: &DotPlot) -> String {
    let mut rows: Vec<&str> = Vec::new();
    for s in &plot.series {
        for (label, _) in &s.points {
            if !rows.contains(&label.as_str()) {
                rows.push(label);
            }
        }
    }
    let height = TOP + ROW * rows.len().max(1) as f64 + BOTTOM;
    let (lo, hi) = range(plot);
    let x = |v: f64| LEFT + (v.clamp(lo, hi) - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT);
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(
        svg,
        r#"<text x="{}" y="18" font-size="14" font-weight="bold">{}</text>"#,
        LEFT,
        escape(&plot.title)
    );
    legend(&mut svg, plot);
    let bottom = height - BOTTOM;
    for t in ticks(lo * plot.scale, hi * plot.scale) {
        let tx = x(t / plot.scale);
        let _ = write!(
            svg,
            r##"<line x1="{tx:.1}" y1="{TOP}" x2="{tx:.1}" y2="{bottom}" stroke="#ddd"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            bottom + 14.0,
            trim(t)
        );
    }
    if let Some(r) = plot.reference {
        let rx = x(r);
        let _ = write!(
            svg,
            r##"<line x1="{rx:.1}" y1="{TOP}" x2="{rx:.1}" y2="{bottom}" stroke="#555" stroke-dasharray="4 3"/>"##
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        (LEFT + WIDTH - RIGHT) / 2.0,
        height - 8.0,
        escape(&plot.axis)
    );
    let offsets = plot.series.len() as f64;
    for (r, label) in rows.iter().enumerate() {
        let y0 = TOP + ROW * r as f64;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y0 + ROW / 2.0 + 4.0,
            escape(label)
        );
        for (i, s) in plot.series.iter().enumerate() {
            let Some((_, e)) = s.points.iter().find(|(l, _)| l == label) else {
                continue;
            };
            let y = y0 + ROW * (i as f64 + 1.0) / (offsets + 1.0);
            let interval = if e.is_estimable() {
                format!("[{}, {}]", trim(e.lo * plot.scale), trim(e.hi * plot.scale))
            } else {
                e.not_estimable_note()
            };
            let _ = write!(
                svg,
                r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="2"/><circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="{c}"><title>{}: {} {} {}</title></circle>"#,
                // No bar for an interval that is not estimable: just the dot.
                x(if e.is_estimable() { e.lo } else { e.value }),
                x(if e.is_estimable() { e.hi } else { e.value }),
                x(e.value),
                escape(label),
                escape(&s.name),
                trim(e.value * plot.scale),
                interval,
                c = s.colour
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The legend: one entry per series that has points (an empty series is left out).
fn legend(svg: &mut String, plot: &DotPlot) {
    let mut lx = LEFT;
    for s in plot.series.iter().filter(|s| !s.points.is_empty()) {
        let _ = write!(
            svg,
            r#"<circle cx="{:.1}" cy="32" r="4" fill="{}"/><text x="{:.1}" y="36">{}</text>"#,
            lx + 4.0,
            s.colour,
            lx + 12.0,
            escape(&s.name)
        );
        lx += 24.0 + 7.0 * s.name.len() as f64;
    }
}

/// A number with at most one decimal, without a trailing ".0"; "∞" for unbounded ends.
fn trim(v: f64) -> String {
    if !v.is_finite() {
        return if v > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// A heat map: rows × columns of cells, each coloured by its value (blue below `reference`,
/// red above, white at it, full colour at `scale_to` away) and labelled with its value and
/// interval; a cell whose interval holds the reference is drawn pale, with its text grey.
pub struct HeatMap {
    /// Plot title.
    pub title: String,
    /// What a value is, under the map, e.g. "pp of win probability per copy".
    pub axis: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// `cells[row][column]`, `None` where nothing was estimated.
    pub cells: Vec<Vec<Option<Estimate>>>,
    /// Where "no effect" lies, in data units.
    pub reference: f64,
    /// Factor from data units to the units shown (100 for percentage points).
    pub scale: f64,
    /// The distance from `reference` shown in full colour, in data units.
    pub scale_to: f64,
}

const CELL_W: f64 = 112.0;
const CELL_H: f64 = 34.0;

/// The heat map as one `<svg>` element.
pub fn heat_map(map: &HeatMap) -> String {
    let left = 110.0;
    let top = 80.0;
    // As wide as the cells, or as the title and the axis line, whichever is wider: with one
    // terrain the cells alone cut the title off.
    let text = |s: &str, per_char: f64| left + per_char * s.chars().count() as f64;
    let width = (left + CELL_W * map.columns.len() as f64)
        .max(text(&map.title, 8.5))
        .max(text(&map.axis, 6.5))
        + 10.0;
    let height = top + CELL_H * map.rows.len() as f64 + 30.0;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        svg,
        r#"<text x="{left}" y="18" font-size="14" font-weight="bold">{}</text>"#,
        escape(&map.title)
    );
    for (c, label) in map.columns.iter().enumerate() {
        let cx = left + CELL_W * (c as f64 + 0.5);
        let _ = write!(
            svg,
            r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-weight="bold" font-size="10">{}</text>"#,
            top - 8.0,
            escape(label)
        );
    }
    for (r, label) in map.rows.iter().enumerate() {
        let y = top + CELL_H * r as f64;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-weight="bold">{}</text>"#,
            left - 8.0,
            y + CELL_H / 2.0 + 4.0,
            escape(label)
        );
        for c in 0..map.columns.len() {
            let x = left + CELL_W * c as f64;
            let cell = map
                .cells
                .get(r)
                .and_then(|row| row.get(c))
                .copied()
                .flatten();
            let (fill, text, ink) = match cell {
                None => ("#f4f4f4".to_string(), "-".to_string(), "#999"),
                Some(e) => {
                    let weak = !e.is_estimable() || e.covers(map.reference);
                    let t = ((e.value - map.reference) / map.scale_to).clamp(-1.0, 1.0);
                    let t = if weak { t * 0.35 } else { t };
                    let ink = if weak { "#777" } else { "#000" };
                    (shade(t), cell_text(&e, map.scale), ink)
                }
            };
            let _ = write!(
                svg,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{CELL_W}" height="{CELL_H}" fill="{fill}" stroke="#fff"/>"##
            );
            let mut lines = text.splitn(2, ' ');
            for (i, line) in [lines.next(), lines.next()]
                .into_iter()
                .flatten()
                .enumerate()
            {
                let _ = write!(
                    svg,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{ink}">{}</text>"#,
                    x + CELL_W / 2.0,
                    y + 14.0 + 13.0 * i as f64,
                    escape(line)
                );
            }
        }
    }
    let _ = write!(
        svg,
        r#"<text x="{left}" y="{:.1}">{}</text>"#,
        height - 10.0,
        escape(&map.axis)
    );
    svg.push_str("</svg>");
    svg
}

/// "+1.2 [−0.4, +2.8]" (two lines in a cell: value, then interval).
fn cell_text(e: &Estimate, scale: f64) -> String {
    if !e.is_estimable() {
        return format!("{:+.1} (n/e)", e.value * scale);
    }
    format!(
        "{:+.1} [{:+.1},{:+.1}]",
        e.value * scale,
        e.lo * scale,
        e.hi * scale
    )
}

/// White at 0, towards red (`t` = 1) or blue (`t` = −1).
fn shade(t: f64) -> String {
    let (r, g, b) = if t >= 0.0 {
        (255.0, 255.0 - 155.0 * t, 255.0 - 155.0 * t)
    } else {
        (255.0 + 155.0 * t, 255.0 + 155.0 * t * 0.6, 255.0)
    };
    format!("rgb({:.0},{:.0},{:.0})", r, g, b)
}

/// Paired changes of a search's entries against a baseline drawn at 0, in two panels side by
/// side on one x-axis (e.g. the first player's and blue's changes): per group (a terrain) a
/// heading and one row per entry, each entry one `<g class="entry">` (the baseline's row
/// `<g class="baseline">`), the chosen entry of each group marked.
pub struct ChangePlot {
    /// Plot title.
    pub title: String,
    /// The two panels' titles, left then right.
    pub panels: [String; 2],
    /// Axis label under both panels.
    pub axis: String,
    /// Factor from data units to the units shown (100 for percentage points).
    pub scale: f64,
    /// The groups, top to bottom.
    pub groups: Vec<ChangeGroup>,
}

/// One group of a [`ChangePlot`]: a heading and its entries.
pub struct ChangeGroup {
    /// The heading, e.g. a terrain's name.
    pub name: String,
    /// The entries, top to bottom.
    pub entries: Vec<ChangeEntry>,
}

/// One row of a [`ChangePlot`].
pub struct ChangeEntry {
    /// The row's label, e.g. "objective 8 medals".
    pub label: String,
    /// Its change in each panel; `None` for the baseline (drawn at 0) or a missing figure.
    pub changes: [Option<Estimate>; 2],
    /// The baseline every change is measured from.
    pub baseline: bool,
    /// The entry chosen in its group.
    pub chosen: bool,
}

const CHANGE_WIDTH: f64 = 960.0;
const CHANGE_LEFT: f64 = 300.0;
const CHANGE_GAP: f64 = 30.0;
const CHANGE_ROW: f64 = 17.0;
const CHANGE_TOP: f64 = 78.0;

/// The data range of a change plot: every finite interval end and 0, padded by 5%.
fn change_range(plot: &ChangePlot) -> (f64, f64) {
    let points = plot
        .groups
        .iter()
        .flat_map(|g| &g.entries)
        .flat_map(|e| e.changes.iter().flatten())
        .map(|e| (String::new(), *e))
        .collect();
    shared_range(&[DotPlot {
        title: String::new(),
        axis: String::new(),
        reference: Some(0.0),
        scale: plot.scale,
        range: None,
        series: vec![Series {
            name: String::new(),
            colour: "",
            points,
        }],
    }])
}

/// The change plot as one `<svg>` element.
pub fn change_plot(plot: &ChangePlot) -> String {
    let rows: usize = plot.groups.iter().map(|g| g.entries.len() + 1).sum();
    let height = CHANGE_TOP + CHANGE_ROW * rows as f64 + 40.0;
    let panel = (CHANGE_WIDTH - CHANGE_LEFT - 20.0 - CHANGE_GAP) / 2.0;
    let (lo, hi) = change_range(plot);
    let x = |p: usize, v: f64| {
        CHANGE_LEFT + p as f64 * (panel + CHANGE_GAP) + (v.clamp(lo, hi) - lo) / (hi - lo) * panel
    };
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{CHANGE_WIDTH}" height="{height}" viewBox="0 0 {CHANGE_WIDTH} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        svg,
        r##"<text x="10" y="18" font-size="14" font-weight="bold">{}</text><circle cx="14" cy="34" r="3.5" fill="#1f77b4"/><text x="22" y="38">a candidate's paired change, 95% interval</text><circle cx="290" cy="34" r="5" fill="#d62728" stroke="#000"/><text x="300" y="38">the rules chosen (closest to even)</text><path d="M 520 30 l 4 4 l -4 4 l -4 -4 z" fill="#555"/><text x="530" y="38">the printed rules (0)</text>"##,
        escape(&plot.title)
    );
    let bottom = height - 40.0;
    for (p, name) in plot.panels.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
            x(p, lo) + panel / 2.0,
            CHANGE_TOP - 12.0,
            escape(name)
        );
        for t in ticks(lo * plot.scale, hi * plot.scale) {
            let tx = x(p, t / plot.scale);
            let _ = write!(
                svg,
                r##"<line x1="{tx:.1}" y1="{CHANGE_TOP}" x2="{tx:.1}" y2="{bottom}" stroke="#ddd"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                bottom + 14.0,
                trim(t)
            );
        }
        let zero = x(p, 0.0);
        let _ = write!(
            svg,
            r##"<line x1="{zero:.1}" y1="{CHANGE_TOP}" x2="{zero:.1}" y2="{bottom}" stroke="#555" stroke-dasharray="4 3"/>"##
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        CHANGE_LEFT + panel + CHANGE_GAP / 2.0,
        height - 8.0,
        escape(&plot.axis)
    );
    let mut y = CHANGE_TOP;
    for g in &plot.groups {
        let _ = write!(
            svg,
            r##"<rect x="4" y="{y:.1}" width="{:.1}" height="{CHANGE_ROW}" fill="#f2f2f2"/><text x="8" y="{:.1}" font-weight="bold">{}</text>"##,
            CHANGE_WIDTH - 8.0,
            y + CHANGE_ROW - 5.0,
            escape(&g.name)
        );
        y += CHANGE_ROW;
        for e in &g.entries {
            change_row(&mut svg, plot, e, y, &x);
            y += CHANGE_ROW;
        }
    }
    svg.push_str("</svg>");
    svg
}

/// One entry's row: its label, and in each panel its interval and dot (the baseline: a
/// diamond at 0).
fn change_row(
    svg: &mut String,
    plot: &ChangePlot,
    e: &ChangeEntry,
    y: f64,
    x: &dyn Fn(usize, f64) -> f64,
) {
    let class = if e.baseline { "baseline" } else { "entry" };
    let cy = y + CHANGE_ROW / 2.0;
    let weight = if e.chosen { "bold" } else { "normal" };
    let mark = if e.chosen { "chosen: " } else { "" };
    let _ = write!(
        svg,
        r#"<g class="{class}"><text x="{:.1}" y="{:.1}" text-anchor="end" font-weight="{weight}">{mark}{}</text>"#,
        CHANGE_LEFT - 8.0,
        cy + 4.0,
        escape(&e.label)
    );
    for (p, change) in e.changes.iter().enumerate() {
        if e.baseline {
            let zx = x(p, 0.0);
            let _ = write!(
                svg,
                r##"<path d="M {zx:.1} {:.1} l 4 4 l -4 4 l -4 -4 z" fill="#555"/>"##,
                cy - 4.0
            );
            continue;
        }
        let Some(c) = change else { continue };
        let (colour, r, ring) = match e.chosen {
            true => ("#d62728", 5.0, r##" stroke="#000""##),
            false => ("#1f77b4", 3.5, ""),
        };
        let interval = if c.is_estimable() {
            format!("[{}, {}]", trim(c.lo * plot.scale), trim(c.hi * plot.scale))
        } else {
            c.not_estimable_note()
        };
        let _ = write!(
            svg,
            r#"<line x1="{:.1}" y1="{cy:.1}" x2="{:.1}" y2="{cy:.1}" stroke="{colour}" stroke-width="2"/><circle cx="{:.1}" cy="{cy:.1}" r="{r}" fill="{colour}"{ring}><title>{}: {}: {:+.1} {}</title></circle>"#,
            x(p, if c.is_estimable() { c.lo } else { c.value }),
            x(p, if c.is_estimable() { c.hi } else { c.value }),
            x(p, c.value),
            escape(&e.label),
            escape(&plot.panels[p]),
            c.value * plot.scale,
            interval
        );
    }
    svg.push_str("</g>");
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks that `svg` is one well-formed element tree (tags balanced and properly nested,
    /// attributes quoted), the shape every browser accepts.
    pub(crate) fn well_formed(svg: &str) -> Result<(), String> {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
            let tag = &rest[start + 1..end];
            if tag.matches('"').count() % 2 == 1 {
                return Err(format!("unbalanced quotes in <{tag}>"));
            }
            if let Some(name) = tag.strip_prefix('/') {
                match stack.pop() {
                    Some(open) if open == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().ok_or("empty tag")?;
                stack.push(name.to_string());
            }
            rest = &rest[end + 1..];
            if stack.is_empty() && !rest.trim().is_empty() {
                return Err("text after the root element".into());
            }
        }
        match stack.is_empty() {
            true => Ok(()),
            false => Err(format!("unclosed elements {stack:?}")),
        }
    }

    fn e(value: f64, lo: f64, hi: f64) -> Estimate {
        Estimate {
            value,
            lo,
            hi,
            n: 10,
            deals: 5,
        }
    }

    #[test]
    fn a_dot_plot_is_well_formed_with_every_row_and_escaped_text() {
        let plot = DotPlot {
            title: "A & B <test>".into(),
            axis: "score (%)".into(),
            reference: Some(0.5),
            scale: 100.0,
            range: None,
            series: vec![
                Series {
                    name: "first player".into(),
                    colour: "#1f77b4",
                    points: vec![("castle_field".into(), e(0.55, 0.5, 0.6))],
                },
                Series {
                    name: "blue".into(),
                    colour: "#d62728",
                    points: vec![
                        ("castle_field".into(), e(0.45, 0.4, 0.5)),
                        ("tropical_pool".into(), e(0.5, 0.3, f64::INFINITY)),
                    ],
                },
            ],
        };
        let svg = dot_plot(&plot);
        well_formed(&svg).unwrap();
        assert!(svg.contains("A &amp; B &lt;test&gt;"));
        assert!(svg.contains(">castle_field<") && svg.contains(">tropical_pool<"));
        assert_eq!(
            svg.matches("<circle").count(),
            2 + 3,
            "legend dots and data dots"
        );
        assert!(svg.contains("stroke-dasharray"), "the reference line");
        assert!(well_formed("<svg><g></svg></g>").is_err());
        assert!(well_formed("<svg><g>").is_err());
    }

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(ticks(41.0, 59.0), vec![45.0, 50.0, 55.0]);
        let t = ticks(-3.2, 7.9);
        assert_eq!(t, vec![0.0, 5.0]);
        assert!(ticks(0.0, 1e-15).len() <= 2);
    }

    #[test]
    fn an_empty_plot_still_renders() {
        let svg = dot_plot(&DotPlot {
            title: "empty".into(),
            axis: "x".into(),
            reference: None,
            scale: 1.0,
            range: None,
            series: Vec::new(),
        });
        well_formed(&svg).unwrap();
    }

    /// A series with no points (e.g. a preset that played no restricted games) has no legend
    /// entry; before, the legend named it with nothing plotted.
    #[test]
    fn an_empty_series_has_no_legend_entry() {
        let series = |name: &str, points| Series {
            name: name.into(),
            colour: "#000",
            points,
        };
        let svg = dot_plot(&DotPlot {
            title: "t".into(),
            axis: "x".into(),
            reference: None,
            scale: 1.0,
            range: None,
            series: vec![
                series("greedy", vec![("a".into(), e(0.1, 0.0, 0.2))]),
                series("strong", Vec::new()),
            ],
        });
        assert!(
            svg.contains(">greedy<") && !svg.contains(">strong<"),
            "{svg}"
        );
    }

    /// Plots given one shared range draw the same ticks whatever their own data.
    #[test]
    fn plots_sharing_a_range_share_their_axis() {
        let plot = |v: f64| DotPlot {
            title: "t".into(),
            axis: "x".into(),
            reference: Some(0.5),
            scale: 100.0,
            range: None,
            series: vec![Series {
                name: "s".into(),
                colour: "#000",
                points: vec![("a".into(), e(v, v - 0.05, v + 0.05))],
            }],
        };
        let mut plots = vec![plot(0.3), plot(0.6)];
        let shared = shared_range(&plots);
        assert!(shared.0 < 0.25 && shared.1 > 0.65, "{shared:?}");
        let ticks_of = |svg: &str| svg.matches("stroke=\"#ddd\"").count();
        assert_ne!(ticks_of(&dot_plot(&plots[0])), 0);
        plots.iter_mut().for_each(|p| p.range = Some(shared));
        let (a, b) = (dot_plot(&plots[0]), dot_plot(&plots[1]));
        let axis = |svg: &str| {
            svg.split("<text")
                .filter(|t| t.contains("text-anchor=\"middle\">"))
                .map(|t| t.rsplit('>').next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(axis(&a), axis(&b));
    }

    /// A map of one column is still as wide as its title (before, the cells alone set the
    /// width and a one-terrain study's title was cut off).
    #[test]
    fn a_heat_map_is_as_wide_as_its_title() {
        let title = "Troop values per terrain: strong, normal variant";
        let svg = heat_map(&HeatMap {
            title: title.into(),
            axis: "pp".into(),
            rows: vec!["Kwak".into()],
            columns: vec!["Tropical Pool".into()],
            cells: vec![vec![None]],
            reference: 0.0,
            scale: 100.0,
            scale_to: 0.05,
        });
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|w| w.parse().ok())
            .expect("the svg states its width");
        assert!(width >= 110.0 + 8.5 * title.len() as f64, "{width}");
    }

    #[test]
    fn a_heat_map_writes_each_cell_and_is_well_formed() {
        let svg = heat_map(&HeatMap {
            title: "Troop values & terrains".into(),
            axis: "pp".into(),
            rows: vec!["Kwak".into(), "Jumbo".into()],
            columns: vec!["Castle Field".into(), "all terrains".into()],
            cells: vec![
                vec![Some(e(0.012, -0.004, 0.028)), None],
                vec![Some(e(-0.05, -0.07, -0.03)), Some(e(0.0, -0.01, 0.01))],
            ],
            reference: 0.0,
            scale: 100.0,
            scale_to: 0.05,
        });
        well_formed(&svg).unwrap();
        assert!(svg.contains("Troop values &amp; terrains"));
        assert!(
            svg.contains(">+1.2<") && svg.contains(">[-0.4,+2.8]<"),
            "{svg}"
        );
        assert_eq!(svg.matches("<rect").count(), 4);
        assert!(
            svg.contains("rgb(100,162,255)"),
            "a clear −5 pp is full blue: {svg}"
        );
    }
}
