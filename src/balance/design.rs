//! The designer's search: the printed rules against candidate values of each rules parameter a
//! designer changes to fix balance (the medal objective, the tiles removed at setup, the
//! opening racks), each candidate a study of the same deals compared with the printed rules
//! deal by deal, and per terrain the candidates ranked by how close to even they bring the
//! first player and the side. See docs/balance.md, *Designer's search*.

use super::analysis::{pct, pp, Report, SeatRow, WhatIfChange, ALL};
use super::estimate::Estimate;
use crate::rules::{Variant, WhatIfs};
use crate::terrain::Terrain;
use serde::Serialize;
use std::cmp::Ordering;
use std::sync::Arc;

/// One candidate of the search: the printed rules with one parameter changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// File-safe name, the candidate's study folder, e.g. `objective-plus-1`.
    pub name: String,
    /// The candidate in words over every terrain, e.g. "objective +1 on every terrain".
    pub label: String,
    /// The rules played.
    pub what_ifs: WhatIfs,
}

/// The rules parameters a search changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameters {
    /// Every parameter a designer changes to fix balance: the medal objective, the tiles
    /// removed at setup and the opening racks (`--design-search`).
    All,
    /// The medal objective alone (`--objective-search`).
    Objective,
}

impl Parameters {
    /// The parameters in words, e.g. "the medal objective".
    pub fn describe(self) -> &'static str {
        match self {
            Parameters::All => "the medal objective, the tiles removed at setup, an opening rack",
            Parameters::Objective => "the medal objective",
        }
    }
}

/// The candidates within `spread` of the printed rules, one parameter at a time: the objective
/// of every terrain moved by ±1…±spread (each terrain within 1 and the medals its regions
/// hold) and, searching all parameters, the tiles removed at setup ±1…±spread and either
/// opening rack ±1…±spread. A candidate that some terrain cannot play (e.g. more tiles removed
/// than a player has) is left out.
pub fn candidates(terrains: &[Arc<Terrain>], spread: u8, parameters: Parameters) -> Vec<Candidate> {
    let printed = WhatIfs::default();
    let mut out = Vec::new();
    for d in 1..=spread as i32 {
        for sign in [-1, 1] {
            let shift = sign * d;
            let objectives = terrains
                .iter()
                .filter_map(|t| {
                    let n = t.medals_to_win as i32 + shift;
                    (n >= 1 && n as u32 <= t.total_medals()).then(|| (t.key.clone(), n as u8))
                })
                .collect();
            let word = if sign < 0 { "minus" } else { "plus" };
            out.push(Candidate {
                name: format!("objective-{word}-{d}"),
                label: format!("objective {shift:+} on every terrain"),
                what_ifs: WhatIfs {
                    objectives,
                    ..printed.clone()
                },
            });
        }
        if parameters == Parameters::Objective {
            continue;
        }
        for sign in [-1, 1] {
            let Some(removed) = shifted(printed.removed, sign * d) else {
                continue;
            };
            let what_ifs = WhatIfs {
                removed,
                ..printed.clone()
            };
            out.push(Candidate {
                name: format!("removed-{removed}"),
                label: what_ifs.describe(),
                what_ifs,
            });
        }
        for seat in 0..2 {
            for sign in [-1, 1] {
                let mut racks = printed.racks;
                let Some(rack) = shifted(racks[seat], sign * d) else {
                    continue;
                };
                racks[seat] = rack;
                let what_ifs = WhatIfs {
                    racks,
                    ..printed.clone()
                };
                out.push(Candidate {
                    name: format!("racks-{}-{}", racks[0], racks[1]),
                    label: what_ifs.describe(),
                    what_ifs,
                });
            }
        }
    }
    out.retain(|c| {
        !c.what_ifs.is_retail()
            && terrains
                .iter()
                .all(|t| c.what_ifs.for_terrain(&t.key).check(t).is_ok())
    });
    out
}

fn shifted(n: u8, by: i32) -> Option<u8> {
    u8::try_from(n as i32 + by).ok()
}

/// One entry of a terrain's ranking: the printed rules or a candidate.
#[derive(Clone, Debug, Serialize)]
pub struct DesignRow {
    /// The preset playing itself.
    pub preset: String,
    /// The variant played.
    pub variant: Variant,
    /// Terrain key, or `all`.
    pub terrain: String,
    /// 1 for the entry closest to even.
    pub rank: usize,
    /// The candidate's name (its study folder), `printed` for the printed rules.
    pub candidate: String,
    /// The rules on this terrain in words, e.g. "objective 8 medals" ("printed rules").
    pub rules: String,
    /// Games played.
    pub games: u64,
    /// Score of the first player; 0.5 is even.
    pub first_player: Option<Estimate>,
    /// Score of blue; 0.5 is even.
    pub blue: Option<Estimate>,
    /// Change in the first player's score from the printed rules, paired by deal (`None` for
    /// the printed rules).
    pub first_player_change: Option<Estimate>,
    /// Change in blue's score from the printed rules, paired by deal.
    pub blue_change: Option<Estimate>,
}

impl DesignRow {
    /// How far from even: the larger of the first player's and blue's distances from 50%, then
    /// their sum (a row without a figure is as far as can be).
    fn distance(&self) -> (f64, f64) {
        let d = |e: &Option<Estimate>| e.map_or(0.5, |e| (e.value - 0.5).abs());
        let (a, b) = (d(&self.first_player), d(&self.blue));
        (a.max(b), a + b)
    }
}

/// The search's result: every terrain's ranking and, per preset, variant and terrain, the
/// entry chosen and what it was compared against.
#[derive(Clone, Debug, Serialize)]
pub struct DesignSearch {
    /// The rules parameters searched, in words, e.g. "the medal objective".
    pub parameters: String,
    /// The candidates, in words, in the order played.
    pub candidates: Vec<String>,
    /// The candidates' names (their study folders), in the order played.
    pub names: Vec<String>,
    /// Per preset, variant and terrain (and all terrains), the printed rules and every
    /// candidate that changes that terrain's rules, best first.
    pub rows: Vec<DesignRow>,
    /// One sentence per preset, variant and terrain: the rules chosen, with the printed rules'
    /// figures and the paired change.
    pub chosen: Vec<String>,
}

/// Ranks, for every seat row of the report (the printed rules), the printed rules and each
/// candidate played by that preset in that variant; a candidate that leaves a terrain's rules
/// as printed (its objective at a bound) is not ranked there. Ties keep the printed rules
/// first, then the candidates' order.
pub fn rank(report: &Report, candidates: &[Candidate], parameters: Parameters) -> DesignSearch {
    let mut rows = Vec::new();
    let mut chosen = Vec::new();
    for seat in &report.seats {
        let mut ranking = vec![printed_row(seat)];
        for change in report.what_if_changes.iter().filter(|c| {
            c.preset == seat.preset && c.variant == seat.variant && c.terrain == seat.terrain
        }) {
            if let Some(c) = candidates.iter().find(|c| c.what_ifs == change.what_ifs) {
                ranking.extend(candidate_row(change, c));
            }
        }
        ranking.sort_by(|a, b| {
            let (a, b) = (a.distance(), b.distance());
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        });
        for (i, row) in ranking.iter_mut().enumerate() {
            row.rank = i + 1;
        }
        chosen.push(chosen_sentence(report, &ranking));
        rows.extend(ranking);
    }
    DesignSearch {
        parameters: parameters.describe().into(),
        candidates: candidates.iter().map(|c| c.label.clone()).collect(),
        names: candidates.iter().map(|c| c.name.clone()).collect(),
        rows,
        chosen,
    }
}

fn printed_row(seat: &SeatRow) -> DesignRow {
    DesignRow {
        preset: seat.preset.clone(),
        variant: seat.variant,
        terrain: seat.terrain.clone(),
        rank: 0,
        candidate: "printed".into(),
        rules: "printed rules".into(),
        games: seat.games,
        first_player: seat.first_player,
        blue: seat.blue,
        first_player_change: None,
        blue_change: None,
    }
}

/// The candidate's row on the change's terrain; `None` when it plays that terrain as printed.
fn candidate_row(change: &WhatIfChange, c: &Candidate) -> Option<DesignRow> {
    let rules = match change.terrain == ALL {
        true => c.label.clone(),
        false => c.what_ifs.for_terrain(&change.terrain).describe(),
    };
    (!rules.is_empty()).then(|| DesignRow {
        preset: change.preset.clone(),
        variant: change.variant,
        terrain: change.terrain.clone(),
        rank: 0,
        candidate: c.name.clone(),
        rules,
        games: change.games,
        first_player: change.score_first_player,
        blue: change.score_blue,
        first_player_change: change.change.first_player,
        blue_change: change.change.blue,
    })
}

/// "greedy, normal variant, Castle Field: objective 8 medals comes closest to even (first
/// player 49.6% [..], blue 50.0% [..]) of 9 rules tried, against the printed rules' …".
fn chosen_sentence(report: &Report, ranking: &[DesignRow]) -> String {
    let (best, printed) = (
        &ranking[0],
        ranking.iter().find(|r| r.candidate == "printed"),
    );
    let scores = |r: &DesignRow| {
        format!(
            "first player {}, blue {}",
            r.first_player.map_or("-".into(), |e| pct(&e)),
            r.blue.map_or("-".into(), |e| pct(&e))
        )
    };
    let head = format!(
        "{}, {} variant, {}",
        best.preset,
        best.variant,
        report.terrain_name(&best.terrain)
    );
    let tried = ranking.len();
    match printed {
        Some(p) if p.candidate != best.candidate => {
            format!(
            "{head}: {} comes closest to even of {tried} rules tried ({}), against the printed \
             rules' {}; paired change {} and {}",
            best.rules,
            scores(best),
            scores(p),
            best.first_player_change
                .map_or("-".into(), |e| format!("{} (first player)", pp(&e))),
            best.blue_change
                .map_or("-".into(), |e| format!("{} (blue)", pp(&e))),
        )
        }
        _ => format!(
            "{head}: the printed rules come closest to even of {tried} rules tried ({})",
            scores(best)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terrains(keys: &[&str]) -> Vec<Arc<Terrain>> {
        keys.iter()
            .map(|k| Arc::new(crate::terrain::builtin(k).unwrap().clone()))
            .collect()
    }

    #[test]
    fn candidates_change_one_parameter_each_and_every_terrain_can_play_them() {
        let t = terrains(&["castle_field", "caribbean_sea"]);
        let names: Vec<String> = candidates(&t, 1, Parameters::All)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(
            names,
            [
                "objective-minus-1",
                "objective-plus-1",
                "removed-3",
                "removed-5",
                "racks-2-4",
                "racks-4-4",
                "racks-3-3",
                "racks-3-5"
            ]
        );
        let printed = WhatIfs::default();
        for c in candidates(&t, 30, Parameters::All) {
            let w = &c.what_ifs;
            let changed = [
                !w.objectives.is_empty(),
                w.removed != printed.removed,
                w.racks != printed.racks,
            ];
            assert_eq!(changed.iter().filter(|&&x| x).count(), 1, "{c:?}");
            for terrain in &t {
                assert!(w.for_terrain(&terrain.key).check(terrain).is_ok(), "{c:?}");
            }
        }
        // Tiles removed from 0 to 20: with the second player's 4 in the opening rack, a
        // player holds 24.
        let removed: Vec<u8> = candidates(&t, 30, Parameters::All)
            .iter()
            .filter(|c| c.name.starts_with("removed-"))
            .map(|c| c.what_ifs.removed)
            .collect();
        assert_eq!(removed.len(), 20);
        assert!(removed.iter().all(|&r| r <= 20 && r != 4));
    }

    /// The objective search is the designer's search of the objective alone: the printed
    /// objective and `spread` either side, within 1 and the medals the regions hold.
    #[test]
    fn the_objective_search_changes_the_objective_alone_within_the_medals_available() {
        let t = terrains(&["caribbean_sea"]);
        let sea = &t[0];
        let objectives = |spread| -> Vec<u8> {
            candidates(&t, spread, Parameters::Objective)
                .iter()
                .map(|c| {
                    let w = &c.what_ifs;
                    assert!(w.removed == 4 && w.racks == [3, 4], "{c:?}");
                    w.objectives[&sea.key]
                })
                .collect()
        };
        let n = sea.medals_to_win;
        assert_eq!(objectives(2), [n - 1, n + 1, n - 2, n + 2]);
        let all = objectives(200);
        assert!(all
            .iter()
            .all(|&o| o >= 1 && o as u32 <= sea.total_medals()));
        assert_eq!(
            all.len() as u32,
            sea.total_medals() - 1,
            "every other objective"
        );
    }
}
