//! The medal-objective search: a terrain's study played at each candidate objective around the
//! printed one, and the objective whose first-player (or side) score comes closest to 50%.

use super::analysis::{Report, SeatRow};
use super::estimate::Estimate;
use crate::rules::Variant;
use crate::terrain::Terrain;
use serde::Serialize;

/// The candidate objectives: the printed one and up to `spread` either side, each between 1
/// and the medals the terrain's regions hold.
pub fn candidates(terrain: &Terrain, spread: u8) -> Vec<u8> {
    let printed = terrain.medals_to_win as u32;
    let lo = printed.saturating_sub(spread as u32).max(1);
    let hi = (printed + spread as u32).min(terrain.total_medals());
    (lo..=hi).map(|n| n as u8).collect()
}

/// One candidate objective, for one preset and variant.
#[derive(Clone, Debug, Serialize)]
pub struct ObjectiveRow {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Medals to win.
    pub objective: u8,
    /// Games played at this objective.
    pub games: u64,
    /// Score of the first player; 0.5 is balanced.
    pub first_player: Option<Estimate>,
    /// Score of blue; 0.5 is balanced.
    pub blue: Option<Estimate>,
    /// Mean game length in turns.
    pub turns_mean: Option<Estimate>,
}

/// The search's result for one terrain: every candidate's row and the best objectives.
#[derive(Clone, Debug, Serialize)]
pub struct ObjectiveSearch {
    /// The terrain's key.
    pub terrain: String,
    /// The printed objective.
    pub printed: u8,
    /// Per preset, variant and objective (ascending).
    pub rows: Vec<ObjectiveRow>,
    /// Per preset and variant, the objective whose first player's score is closest to 50%.
    pub best_first_player: Vec<ObjectiveRow>,
    /// Per preset and variant, the objective whose blue score is closest to 50%.
    pub best_side: Vec<ObjectiveRow>,
}

/// The rows of one candidate objective: the terrain's seat rows of that candidate's report.
pub fn rows_of(report: &Report, terrain: &str, objective: u8) -> Vec<ObjectiveRow> {
    report
        .seats
        .iter()
        .filter(|s: &&SeatRow| s.terrain == terrain)
        .map(|s| ObjectiveRow {
            preset: s.preset.clone(),
            variant: s.variant,
            objective,
            games: s.games,
            first_player: s.first_player,
            blue: s.blue,
            turns_mean: s.turns_mean,
        })
        .collect()
}

/// The search from the rows of every candidate: the best objective of each preset and variant
/// by first-player score and by side, ties to the objective nearer the printed one.
pub fn search(terrain: &str, printed: u8, mut rows: Vec<ObjectiveRow>) -> ObjectiveSearch {
    rows.sort_by(|a, b| {
        (&a.preset, variant_order(a.variant), a.objective).cmp(&(
            &b.preset,
            variant_order(b.variant),
            b.objective,
        ))
    });
    let best = |f: fn(&ObjectiveRow) -> Option<Estimate>| {
        let mut out: Vec<ObjectiveRow> = Vec::new();
        for r in &rows {
            let Some(e) = f(r) else { continue };
            let distance = |r: &ObjectiveRow, e: &Estimate| {
                ((e.value - 0.5).abs(), r.objective.abs_diff(printed))
            };
            match out
                .iter_mut()
                .find(|b| b.preset == r.preset && b.variant == r.variant)
            {
                Some(b) => {
                    let current = f(b).map(|be| distance(b, &be));
                    if current.is_none_or(|c| distance(r, &e) < c) {
                        *b = r.clone();
                    }
                }
                None => out.push(r.clone()),
            }
        }
        out
    };
    ObjectiveSearch {
        terrain: terrain.to_string(),
        printed,
        best_first_player: best(|r| r.first_player),
        best_side: best(|r| r.blue),
        rows,
    }
}

fn variant_order(v: Variant) -> u8 {
    match v {
        Variant::Normal => 0,
        Variant::Beginner => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(objective: u8, first: f64, blue: f64) -> ObjectiveRow {
        let e = |v: f64| {
            Some(Estimate {
                value: v,
                lo: v - 0.05,
                hi: v + 0.05,
                n: 100,
                deals: 50,
            })
        };
        ObjectiveRow {
            preset: "greedy".into(),
            variant: Variant::Normal,
            objective,
            games: 100,
            first_player: e(first),
            blue: e(blue),
            turns_mean: None,
        }
    }

    #[test]
    fn the_objective_closest_to_even_is_chosen_for_each_measure() {
        let s = search(
            "castle_field",
            7,
            vec![row(8, 0.58, 0.47), row(6, 0.49, 0.40), row(7, 0.55, 0.52)],
        );
        assert_eq!(
            s.rows.iter().map(|r| r.objective).collect::<Vec<_>>(),
            [6, 7, 8]
        );
        assert_eq!(s.best_first_player[0].objective, 6);
        assert_eq!(s.best_side[0].objective, 7);
        // A tie goes to the objective nearer the printed one.
        let tie = search(
            "castle_field",
            7,
            vec![row(5, 0.25, 0.5), row(8, 0.75, 0.5)],
        );
        assert_eq!(tie.best_first_player[0].objective, 8);
    }

    #[test]
    fn candidates_stay_within_the_medals_available() {
        let t = crate::terrain::builtin("caribbean_sea").unwrap();
        let c = candidates(t, 2);
        assert_eq!(c.first().copied(), Some(t.medals_to_win - 2));
        assert!(c.iter().all(|&n| n >= 1 && n as u32 <= t.total_medals()));
        assert!(c.contains(&t.medals_to_win));
        assert_eq!(candidates(t, 200)[0], 1);
    }
}
