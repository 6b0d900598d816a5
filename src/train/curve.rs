//! The learning curve of a training run: `curve.csv` (one row per complete generation) and
//! `curve.svg`, drawn from those rows alone, so that a plot can be drawn again from the CSV
//! (`toybattle train curve DIR`).
//!
//! The plot shows every generation's gate (its Elo against the best before it, with the 95%
//! interval; filled when the generation was kept, hollow when it was not) and each kept
//! generation's Elo against generation 0 (the learning curve proper).

use crate::tournament::store::write_atomic;
use crate::tournament::StoreError;
use std::fmt::Write as _;
use std::path::Path;

/// The header of `curve.csv`.
pub const CURVE_HEADER: &str = "generation,kept,best_before,gate_games,gate_elo,gate_elo_lo,\
                                gate_elo_hi,gate_llr,reference_games,reference_elo,\
                                reference_elo_lo,reference_elo_hi,cpu_hours";

/// One complete generation, as a row of `curve.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveRow {
    /// The generation, from 1.
    pub generation: u32,
    /// Whether it passed its gate.
    pub kept: bool,
    /// The generation it met in its gate (0 = the base search).
    pub best_before: u32,
    /// Games of the gate.
    pub gate_games: u64,
    /// The gate's Elo against the best before, and its 95% interval.
    pub gate_elo: [f64; 3],
    /// The gate's log-likelihood ratio when it stopped.
    pub gate_llr: f64,
    /// A kept generation against generation 0: games, Elo and its 95% interval.
    pub reference: Option<(u64, [f64; 3])>,
    /// Processor hours spent by the run up to the end of this generation.
    pub cpu_hours: f64,
}

impl CurveRow {
    /// The row as a line of `curve.csv` (no line end).
    pub fn to_csv(&self) -> String {
        let [e, lo, hi] = self.gate_elo;
        let mut line = format!(
            "{},{},{},{},{e:.1},{lo:.1},{hi:.1},{:.3},",
            self.generation, self.kept, self.best_before, self.gate_games, self.gate_llr
        );
        match self.reference {
            Some((games, [e, lo, hi])) => {
                let _ = write!(line, "{games},{e:.1},{lo:.1},{hi:.1}");
            }
            None => line.push_str(",,,"),
        }
        let _ = write!(line, ",{:.4}", self.cpu_hours);
        line
    }
}

/// Writes `curve.csv` and `curve.svg` for `rows` into the run folder `dir`, each whole.
pub fn write_files(dir: &Path, rows: &[CurveRow]) -> Result<(), StoreError> {
    write_atomic(&dir.join("curve.csv"), curve_csv(rows).as_bytes())?;
    write_atomic(&dir.join("curve.svg"), curve_svg(rows).as_bytes())
}

/// The text of `curve.csv` for `rows`.
pub fn curve_csv(rows: &[CurveRow]) -> String {
    let mut text = format!("{CURVE_HEADER}\n");
    for row in rows {
        text += &row.to_csv();
        text.push('\n');
    }
    text
}

/// Reads the rows of a `curve.csv`; the error names the line and the column at fault.
pub fn parse_curve_csv(text: &str) -> Result<Vec<CurveRow>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.trim() == CURVE_HEADER => {}
        _ => return Err(format!("line 1: expected the header '{CURVE_HEADER}'")),
    }
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| parse_row(line).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

fn parse_row(line: &str) -> Result<CurveRow, String> {
    let cells: Vec<&str> = line.split(',').map(str::trim).collect();
    if cells.len() != 13 {
        return Err(format!("{} columns, expected 13", cells.len()));
    }
    fn cell<T: std::str::FromStr>(cells: &[&str], k: usize) -> Result<T, String> {
        let name = CURVE_HEADER.split(',').nth(k).unwrap_or("?");
        cells[k]
            .parse()
            .map_err(|_| format!("{name} '{}' is not a number", cells[k]))
    }
    let kept = match cells[1] {
        "true" => true,
        "false" => false,
        other => return Err(format!("kept '{other}', expected true or false")),
    };
    let reference = match cells[8] {
        "" => None,
        _ => Some((
            cell(&cells, 8)?,
            [cell(&cells, 9)?, cell(&cells, 10)?, cell(&cells, 11)?],
        )),
    };
    Ok(CurveRow {
        generation: cell(&cells, 0)?,
        kept,
        best_before: cell(&cells, 2)?,
        gate_games: cell(&cells, 3)?,
        gate_elo: [cell(&cells, 4)?, cell(&cells, 5)?, cell(&cells, 6)?],
        gate_llr: cell(&cells, 7)?,
        reference,
        cpu_hours: cell(&cells, 12)?,
    })
}

/// Plot geometry: the SVG's size and the plot area's margins.
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 64.0;
/// Elo beyond this is drawn at the edge: a gate decided in a few games has an interval of
/// hundreds of Elo, which would flatten every other mark.
const ELO_LIMIT: f64 = 400.0;
const KEPT: &str = "#274";
const NOT_KEPT: &str = "#c33";
const REFERENCE: &str = "#36c";

/// The plot of `rows` as an SVG document: x the generation, y the Elo. Each generation's gate
/// is a circle with its interval bar (filled when kept, hollow and red when not), each kept
/// generation's match against generation 0 a square on the line from generation 0; a legend
/// says which is which, and each generation's cumulative CPU-hours are under its number.
pub fn curve_svg(rows: &[CurveRow]) -> String {
    let last = rows.iter().map(|r| r.generation).max().unwrap_or(0).max(1);
    let elos = rows.iter().flat_map(|r| {
        let reference = r.reference.map(|(_, e)| e).unwrap_or([0.0; 3]);
        [r.gate_elo[1], r.gate_elo[2], reference[1], reference[2]]
    });
    let (lo, hi) = elos.fold((-50.0f64, 50.0f64), |(lo, hi), e| (lo.min(e), hi.max(e)));
    let step = tick_step(hi.min(ELO_LIMIT) - lo.max(-ELO_LIMIT));
    let lo = (lo.max(-ELO_LIMIT) / step).floor() * step;
    let hi = (hi.min(ELO_LIMIT) / step).ceil() * step;
    let x = |g: u32| LEFT + 12.0 + (WIDTH - LEFT - RIGHT - 24.0) * f64::from(g) / f64::from(last);
    let y = |e: f64| TOP + (HEIGHT - TOP - BOTTOM) * (hi - e.clamp(lo, hi)) / (hi - lo);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"18\" font-size=\"14\">Learning curve: every generation's gate, \
         and kept generations against generation 0</text>\n"
    );
    axes(&mut s, lo, hi, step, last, &x, &y);
    legend(&mut s);
    // The curve: generation 0 at 0 Elo, then each kept generation against it.
    let mut path = format!("M{:.1},{:.1}", x(0) + 5.0, y(0.0));
    let _ = writeln!(
        s,
        "<rect class=\"reference\" x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{REFERENCE}\">\
         <title>generation 0: the base search</title></rect>",
        x(0) + 1.0,
        y(0.0) - 4.0
    );
    let every = last.div_ceil(20).max(1);
    for r in rows {
        gate_mark(&mut s, r, r.generation % every == 0, &x, &y);
        if let Some((games, [e, elo_lo, elo_hi])) = r.reference {
            let px = x(r.generation) + 5.0;
            let _ = writeln!(
                s,
                "<line x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"{REFERENCE}\"/>\n\
                 <rect class=\"reference\" x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{REFERENCE}\">\
                 <title>generation {} against generation 0: Elo {e:+.0} [{elo_lo:+.0}, {elo_hi:+.0}], {games} games</title></rect>",
                y(elo_lo),
                y(elo_hi),
                px - 4.0,
                y(e) - 4.0,
                r.generation
            );
            let _ = write!(path, " L{px:.1},{:.1}", y(e));
        }
    }
    let _ = writeln!(
        s,
        "<path d=\"{path}\" fill=\"none\" stroke=\"{REFERENCE}\"/>\n</svg>"
    );
    s
}

/// A round step for about five Elo ticks over `span`.
fn tick_step(span: f64) -> f64 {
    [25.0, 50.0, 100.0, 200.0]
        .into_iter()
        .find(|&step| span / step <= 8.0)
        .unwrap_or(400.0)
}

/// The axes with their ticks, grid and labels.
fn axes(
    s: &mut String,
    lo: f64,
    hi: f64,
    step: f64,
    last: u32,
    x: &dyn Fn(u32) -> f64,
    y: &dyn Fn(f64) -> f64,
) {
    let bottom = HEIGHT - BOTTOM;
    let mut e = lo;
    while e <= hi + 1e-9 {
        let colour = if e == 0.0 { "#888" } else { "#e4e4e4" };
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"{colour}\"/>\n\
             <text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{e:+.0}</text>",
            y(e),
            WIDTH - RIGHT,
            LEFT - 6.0,
            y(e) + 4.0
        );
        e += step;
    }
    let every = last.div_ceil(20).max(1);
    for g in (0..=last).filter(|g| g % every == 0) {
        let _ = writeln!(
            s,
            "<text x=\"{0:.1}\" y=\"{1}\" text-anchor=\"middle\">{g}</text>",
            x(g),
            bottom + 16.0
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\" stroke=\"black\"/>\n\
         <line x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{0}\" y2=\"{bottom}\" stroke=\"black\"/>\n\
         <text x=\"{1}\" y=\"{2}\" text-anchor=\"middle\">generation (grey: CPU-hours spent so far)</text>\n\
         <text transform=\"translate(16,{3}) rotate(-90)\" text-anchor=\"middle\">Elo (95% interval)</text>",
        WIDTH - RIGHT,
        (WIDTH + LEFT) / 2.0,
        HEIGHT - 10.0,
        (TOP + bottom) / 2.0
    );
}

/// The legend, above the plot.
fn legend(s: &mut String) {
    let y = 42.0;
    let _ = writeln!(
        s,
        "<circle cx=\"{0}\" cy=\"{y}\" r=\"5\" fill=\"{KEPT}\" stroke=\"{KEPT}\"/>\
         <text x=\"{1}\" y=\"{2}\">gate against the best: kept</text>\n\
         <circle cx=\"{3}\" cy=\"{y}\" r=\"5\" fill=\"white\" stroke=\"{NOT_KEPT}\" stroke-width=\"2\"/>\
         <text x=\"{4}\" y=\"{2}\">gate: not kept</text>\n\
         <rect x=\"{5}\" y=\"{6}\" width=\"8\" height=\"8\" fill=\"{REFERENCE}\"/>\
         <text x=\"{7}\" y=\"{2}\">kept generation against generation 0</text>",
        LEFT + 5.0,
        LEFT + 14.0,
        y + 4.0,
        LEFT + 215.0,
        LEFT + 224.0,
        LEFT + 331.0,
        y - 4.0,
        LEFT + 344.0
    );
}

/// A generation's gate: its interval bar and a circle, filled when kept, hollow when not; with
/// `hours`, its CPU-hours under its number.
fn gate_mark(
    s: &mut String,
    r: &CurveRow,
    hours: bool,
    x: &dyn Fn(u32) -> f64,
    y: &dyn Fn(f64) -> f64,
) {
    let [e, elo_lo, elo_hi] = r.gate_elo;
    let px = x(r.generation) - 5.0;
    let (class, colour, fill, verdict) = match r.kept {
        true => ("gate-kept", KEPT, KEPT, "kept"),
        false => ("gate-not-kept", NOT_KEPT, "white", "not kept"),
    };
    let _ = writeln!(
        s,
        "<line x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"{colour}\"/>\n\
         <circle class=\"{class}\" cx=\"{px:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\">\
         <title>generation {}: {verdict}; gate against generation {}: Elo {e:+.0} [{elo_lo:+.0}, {elo_hi:+.0}], {} games, LLR {:.2}</title></circle>",
        y(elo_lo),
        y(elo_hi),
        y(e),
        r.generation,
        r.best_before,
        r.gate_games,
        r.gate_llr,
    );
    if hours {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#777\" font-size=\"10\">{:.2} h</text>",
            px + 5.0,
            HEIGHT - BOTTOM + 30.0,
            r.cpu_hours
        );
    }
}
