//! Each player's totals, their verdict, and the review as a short table.

use super::{ChanceReview, DecisionReview, ErrorClass, Review};
use crate::record::GameRecord;
use crate::rules::Colour;
use crate::vocabulary::ByColour;
use serde::Serialize;
use std::fmt::Write;

/// One player's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerTotals {
    /// The player's colour.
    pub colour: Colour,
    /// Who played it, as the record names them.
    pub name: String,
    /// Decisions searched (forced ones excluded).
    pub decisions: usize,
    /// Decisions with one legal option, counted but not searched.
    pub forced: u32,
    /// Decisions of class inaccuracy.
    pub inaccuracies: usize,
    /// Decisions of class mistake.
    pub mistakes: usize,
    /// Decisions of class blunder.
    pub blunders: usize,
    /// Win probability the player's decisions lost, summed (0 to 1 per decision).
    pub error: f64,
    /// Mean error per searched decision (GNU Backgammon's error rate, in win probability).
    pub error_rate: f64,
    /// Mean accuracy of the searched decisions, 0 to 100 (lichess's formula on the error in
    /// percentage points: `103.1668 · exp(−0.04354 · error) − 3.1669`, within 0 and 100).
    pub accuracy: f64,
    /// Chance events that concerned the player.
    pub chance_events: usize,
    /// The luck of those events, summed: positive when the draws favoured the player.
    pub luck: f64,
    /// What the player's decisions cost, as a negative figure (minus `error`): beside `luck`,
    /// the two parts of how the game went for them beyond the start.
    pub skill: f64,
    /// In words, e.g. "blue (human) lost 18 points of win probability to mistakes and 9 to
    /// the draws".
    pub verdict: String,
}

/// lichess's accuracy of one decision that lost `error` win probability.
fn accuracy(error: f64) -> f64 {
    (103.1668 * (-0.04354 * error * 100.0).exp() - 3.1669).clamp(0.0, 100.0)
}

/// Blue's totals, then red's.
pub(super) fn totals(
    record: &GameRecord,
    decisions: &[DecisionReview],
    chances: &[ChanceReview],
    forced: &ByColour<u32>,
    complete: bool,
) -> Vec<PlayerTotals> {
    Colour::BOTH
        .into_iter()
        .map(|colour| {
            let mine: Vec<&DecisionReview> =
                decisions.iter().filter(|d| d.player == colour).collect();
            let luck: Vec<f64> = chances
                .iter()
                .filter(|c| c.player == colour)
                .map(|c| c.luck)
                .collect();
            let count = |class| mine.iter().filter(|d| d.class == Some(class)).count();
            let error: f64 = mine.iter().map(|d| d.error).sum();
            let n = mine.len().max(1) as f64;
            let name = record.players[colour.index()].clone();
            let mut totals = PlayerTotals {
                colour,
                name,
                decisions: mine.len(),
                forced: forced[colour],
                inaccuracies: count(ErrorClass::Inaccuracy),
                mistakes: count(ErrorClass::Mistake),
                blunders: count(ErrorClass::Blunder),
                error,
                error_rate: error / n,
                accuracy: match mine.is_empty() {
                    true => 100.0,
                    false => mine.iter().map(|d| accuracy(d.error)).sum::<f64>() / n,
                },
                chance_events: luck.len(),
                luck: luck.iter().sum(),
                skill: -error,
                verdict: String::new(),
            };
            totals.verdict = verdict(&totals, complete);
            totals
        })
        .collect()
}

/// Win probability as whole percentage points, e.g. 0.184 → "18".
fn points(p: f64) -> String {
    format!("{:.0}", (p * 100.0).abs())
}

/// "blue (human) lost 18 points of win probability to mistakes and 9 to the draws".
fn verdict(t: &PlayerTotals, complete: bool) -> String {
    let luck = match t.chance_events {
        0 => String::new(),
        _ if t.luck >= 0.0 => format!(" and gained {} from the draws", points(t.luck)),
        _ => format!(" and {} to the draws", points(t.luck)),
    };
    let so_far = if complete { "" } else { " (so far)" };
    format!(
        "{} ({}) lost {} points of win probability to mistakes{luck}{so_far}",
        t.colour,
        t.name,
        points(t.error)
    )
}

/// The review as a short table: each player's totals and verdict, then the costliest
/// decisions and the chance events that moved the most.
pub fn table(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Review of {} ({} steps, on {}): best decisions from {} iterations of search \
         a decision; inaccuracy {}, mistake {}, blunder {} points of win probability",
        review.terrain,
        review.steps,
        match review.threads {
            1 => "1 thread".to_string(),
            n => format!("{n} threads"),
        },
        review
            .iterations
            .map_or("a time budget of".into(), |n| n.to_string()),
        points(review.thresholds[0]),
        points(review.thresholds[1]),
        points(review.thresholds[2]),
    );
    if !review.complete {
        let _ = writeln!(
            out,
            "Cancelled: {} of {} decisions and chance events reviewed; the figures cover those.",
            review.reviewed, review.total
        );
    }
    let _ = writeln!(
        out,
        "\n{:<22} {:>9} {:>6} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6}",
        "player",
        "decisions",
        "forced",
        "inaccur.",
        "mistakes",
        "blunders",
        "accuracy",
        "error",
        "luck"
    );
    for t in &review.totals {
        let who = format!("{} ({})", t.colour, t.name);
        let _ = writeln!(
            out,
            "{:<22} {:>9} {:>6} {:>8} {:>8} {:>8} {:>7.1}% {:>6} {:>+6.0}",
            who,
            t.decisions,
            t.forced,
            t.inaccuracies,
            t.mistakes,
            t.blunders,
            t.accuracy,
            points(t.error),
            t.luck * 100.0
        );
    }
    out.push('\n');
    for t in &review.totals {
        let _ = writeln!(out, "{}.", t.verdict);
    }
    let mut costly: Vec<&DecisionReview> = review
        .decisions
        .iter()
        .filter(|d| d.class.is_some())
        .collect();
    costly.sort_by(|a, b| b.error.total_cmp(&a.error).then(a.step.cmp(&b.step)));
    if !costly.is_empty() {
        let _ = writeln!(out, "\nCostliest decisions:");
        for d in costly.iter().take(8) {
            let _ = writeln!(
                out,
                "  step {:>3} turn {:>2} {:<4} {:<10} played {:<18} {:>3}%  better {:<18} {:>3}%",
                d.step,
                d.turn,
                d.player,
                d.class.map_or("", ErrorClass::name),
                d.played,
                points(d.played_win),
                d.best,
                points(d.best_win),
            );
        }
    }
    let mut luckiest: Vec<&ChanceReview> = review
        .chances
        .iter()
        .filter(|c| c.luck.abs() >= super::LUCK_MARK)
        .collect();
    luckiest.sort_by(|a, b| {
        b.luck
            .abs()
            .total_cmp(&a.luck.abs())
            .then(a.step.cmp(&b.step))
    });
    if !luckiest.is_empty() {
        let _ = writeln!(out, "\nChance events that moved the most:");
        for c in luckiest.iter().take(8) {
            let _ = writeln!(
                out,
                "  step {:>3} turn {:>2} {:<4} {:<13} {:>3}% -> {:>3}%  luck {:>+4.0}",
                c.step,
                c.turn,
                c.player,
                c.outcome,
                points(c.before),
                points(c.after),
                c.luck * 100.0,
            );
        }
    }
    out
}
