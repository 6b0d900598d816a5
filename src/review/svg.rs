//! The win-probability graph of a review as a standalone SVG image.

use super::{Mark, Review};
use std::fmt::Write;

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 320.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 60.0;

/// Colour and words of each mark.
fn style(mark: Mark) -> (&'static str, &'static str) {
    match mark {
        Mark::Blunder => ("#c62828", "blunder"),
        Mark::Mistake => ("#ef8f00", "mistake"),
        Mark::Lucky => ("#2e7d32", "lucky draw"),
        Mark::Unlucky => ("#6a1b9a", "unlucky draw"),
    }
}

/// Blue's win probability along the game (steps across, 0 to 100% up), with the axes, a label
/// at the start of turns, and the mistakes, blunders and lucky or unlucky chance events marked
/// (each with a tooltip).
pub fn svg(review: &Review) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let last = review.steps.max(1) as f64;
    let x = |step: usize| LEFT + plot_w * step as f64 / last;
    let y = |p: f64| TOP + plot_h * (1.0 - p.clamp(0.0, 1.0));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\n<text x=\"{LEFT}\" y=\"20\" \
         font-size=\"14\">Blue's win probability: {} (blue) against {} (red), {}</text>",
        escape(&review.players[0]),
        escape(&review.players[1]),
        escape(&review.terrain)
    );
    // The probability axis, with a line every 25 points.
    for k in 0..=4 {
        let p = f64::from(k) / 4.0;
        let _ = writeln!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}%</text>",
            WIDTH - RIGHT,
            y(p),
            y(p),
            LEFT - 6.0,
            y(p) + 4.0,
            k * 25
        );
    }
    let _ = writeln!(
        out,
        "<text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">blue wins</text>",
        TOP + plot_h / 2.0
    );
    turn_labels(&mut out, review, &x, TOP + plot_h);
    let line: Vec<String> = review
        .graph
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.step), y(p.blue)))
        .collect();
    let _ = writeln!(
        out,
        "<polyline fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" points=\"{}\"/>",
        line.join(" ")
    );
    for p in &review.graph {
        let Some(mark) = p.mark else { continue };
        let (colour, words) = style(mark);
        let who = p.player.map_or(String::new(), |c| format!("{c}'s "));
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{colour}\"><title>step {}, turn {}: \
             {who}{words}</title></circle>",
            x(p.step),
            y(p.blue),
            p.step,
            p.turn
        );
    }
    legend(&mut out);
    out.push_str("</svg>\n");
    out
}

/// The step axis: a tick and label at the first point of every few turns (about twelve labels).
fn turn_labels(out: &mut String, review: &Review, x: &dyn Fn(usize) -> f64, base: f64) {
    let _ = writeln!(
        out,
        "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{base:.1}\" y2=\"{base:.1}\" stroke=\"#444\"/>",
        WIDTH - RIGHT
    );
    let turns = review.graph.last().map_or(1, |p| p.turn.max(1));
    let every = turns.div_ceil(12).max(1);
    let mut shown = 0;
    for p in &review.graph {
        if p.turn > shown && (p.turn - 1) % every == 0 {
            shown = p.turn;
            let _ = writeln!(
                out,
                "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{base:.1}\" y2=\"{1:.1}\" stroke=\"#444\"/>\
                 <text x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
                x(p.step),
                base + 5.0,
                base + 17.0,
                p.turn
            );
        }
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">turn</text>",
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        base + 32.0
    );
}

fn legend(out: &mut String) {
    let y = HEIGHT - 10.0;
    let mut at = LEFT;
    for mark in [Mark::Blunder, Mark::Mistake, Mark::Lucky, Mark::Unlucky] {
        let (colour, words) = style(mark);
        let _ = writeln!(
            out,
            "<circle cx=\"{at:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{y:.1}\">{words}</text>",
            y - 4.0,
            at + 9.0
        );
        at += 110.0;
    }
}

/// Text safe inside SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
