//! Rule what-ifs read with a study of the printed rules (`balance --from PRINTED WHATIF`): each
//! what-if is reported as its paired change from the printed rules on the same deals.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

mod balance_support;
use balance_support::{balance, temp_dir};

/// A small study of random play on two terrains, normal variant, with `extra` what-ifs.
fn study(out: &Path, seed: &str, extra: &[&str]) {
    let mut args = vec![
        "--bots",
        "random",
        "--games",
        "8",
        "--terrains",
        "castle_field,tropical_pool",
        "--variants",
        "normal",
        "--seed",
        seed,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (ok, err) = balance(&args);
    assert!(ok, "{err}");
}

fn report_from(dirs: &[&Path], out: &Path) -> (bool, String) {
    let mut args: Vec<&str> = vec!["--from"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    balance(&args)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Per terrain, each deal's mean of `score` over the games of a study's normal run.
fn deal_means(
    dir: &Path,
    score: fn(&serde_json::Value) -> f64,
) -> BTreeMap<String, BTreeMap<u64, f64>> {
    let mut sums: BTreeMap<String, BTreeMap<u64, (f64, f64)>> = BTreeMap::new();
    let games = fs::read_to_string(dir.join("runs/random-normal/games.jsonl")).unwrap();
    for line in games.lines() {
        let g: serde_json::Value = serde_json::from_str(line).unwrap();
        let terrain = g["terrain"].as_str().unwrap().to_string();
        let deal = g["deal_seed"].as_u64().unwrap();
        let s = sums.entry(terrain).or_default().entry(deal).or_default();
        *s = (s.0 + score(&g), s.1 + 1.0);
    }
    sums.into_iter()
        .map(|(t, deals)| (t, deals.into_iter().map(|(d, (s, n))| (d, s / n)).collect()))
        .collect()
}

/// 1 for a win, 1/2 for a turn cap, 0 for a loss, of the colour `of(game)`.
fn score_of(g: &serde_json::Value, colour: &str) -> f64 {
    match g["winner_colour"].as_str() {
        None => 0.5,
        Some(w) => (w == colour) as u8 as f64,
    }
}

fn first_score(g: &serde_json::Value) -> f64 {
    score_of(g, g["first"].as_str().unwrap())
}

fn blue_score(g: &serde_json::Value) -> f64 {
    score_of(g, "blue")
}

/// The what-if minus the printed rules, by hand: per deal the difference of the two means,
/// then their mean over the deals of a terrain (`Some`) or of every terrain (`None`).
fn by_hand(
    what_if: &Path,
    printed: &Path,
    score: fn(&serde_json::Value) -> f64,
    terrain: Option<&str>,
) -> (f64, usize) {
    let (a, b) = (deal_means(what_if, score), deal_means(printed, score));
    let mut diffs = Vec::new();
    for (t, deals) in &a {
        if terrain.is_some_and(|want| want != t) {
            continue;
        }
        for (deal, x) in deals {
            diffs.push(x - b[t][deal]);
        }
    }
    (diffs.iter().sum::<f64>() / diffs.len() as f64, diffs.len())
}

/// The report's what-if rows, by terrain key (`all` for every terrain).
fn rows(report: &Path) -> BTreeMap<String, serde_json::Value> {
    let j = json(&report.join("balance.json"));
    j["what_if_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["terrain"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

/// A study of the printed rules and one with other opening racks on the same seed, read
/// together: the report's figures are those of the printed rules alone, and the what-if's rows
/// are the per-deal differences computed here by hand, per terrain and over all terrains, in
/// balance.json, report.md and what_if_changes.csv, with a family of comparisons in the summary.
#[test]
fn a_what_if_is_reported_as_its_paired_change_from_the_printed_rules_on_the_same_deals() {
    let (printed, racks, report) = (
        temp_dir("paired-printed"),
        temp_dir("paired-racks"),
        temp_dir("paired-report"),
    );
    study(&printed, "7", &[]);
    study(&racks, "7", &["--racks", "4,4"]);
    let (ok, err) = report_from(&[&printed, &racks], &report);
    assert!(ok, "{err}");
    let rows = rows(&report);
    assert_eq!(
        rows.keys().collect::<Vec<_>>(),
        ["all", "castle_field", "tropical_pool"]
    );
    for (terrain, row) in &rows {
        assert_eq!(
            row["what_if"], "opening racks 4 (first) and 4 (second)",
            "{row}"
        );
        let t = (terrain != "all").then_some(terrain.as_str());
        for (field, score) in [
            ("first_player", first_score as fn(&serde_json::Value) -> f64),
            ("blue", blue_score),
        ] {
            let (want, deals) = by_hand(&racks, &printed, score, t);
            let got = row[field]["value"].as_f64().unwrap();
            assert!(
                (got - want).abs() < 1e-12,
                "{terrain} {field}: {got} vs {want}"
            );
            assert_eq!(row["deals"], deals as u64, "{row}");
        }
    }
    assert_eq!(rows["all"]["deals"], 8);
    // The report's own figures are the printed rules' alone: the what-if's games are not
    // pooled in.
    let (own, alone) = (
        json(&report.join("balance.json")),
        json(&printed.join("balance.json")),
    );
    assert_eq!(own["seats"], alone["seats"]);
    assert_eq!(own["what_ifs"], alone["what_ifs"]);
    let family = own["families"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["what"].as_str().unwrap().contains("rule what-if"))
        .expect("a family of the what-ifs' comparisons");
    assert_eq!(
        family["comparisons"].as_u64().unwrap() as usize,
        family["tests"].as_array().unwrap().len()
    );
    assert!(family["tests"].as_array().unwrap().iter().any(
        |t| t["label"] == "opening racks 4 (first) and 4 (second), Castle Field: first player"
    ));
    let md = fs::read_to_string(report.join("report.md")).unwrap();
    for phrase in [
        "## Rule what-ifs against the printed rules",
        "- W1: opening racks 4 (first) and 4 (second)",
        "| W1 | normal | Castle Field | 4 |",
    ] {
        assert!(md.contains(phrase), "{phrase} not in:\n{md}");
    }
    assert!(md
        .lines()
        .all(|l| l.starts_with('|') || l.chars().count() <= 100));
    let csv = fs::read_to_string(report.join("what_if_changes.csv")).unwrap();
    assert!(csv.starts_with("preset,what_if,variant,terrain,deals,first_player,"));
    assert!(csv.contains("\nrandom,opening racks 4 (first) and 4 (second),normal,all,8,"));
    for d in [printed, racks, report] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// A what-if study on another seed plays other deals: it is refused, naming both folders and
/// the seeds. Two what-ifs without the printed rules are refused too, naming each.
#[test]
fn what_if_studies_of_other_deals_or_without_the_printed_rules_are_refused() {
    let (printed, other, objective, report) = (
        temp_dir("refused-printed"),
        temp_dir("refused-other-seed"),
        temp_dir("refused-objective"),
        temp_dir("refused-report"),
    );
    study(&printed, "7", &[]);
    study(&other, "8", &["--racks", "4,4"]);
    study(&objective, "8", &["--objective", "castle_field=5"]);
    let (ok, err) = report_from(&[&printed, &other], &report);
    assert!(!ok, "{err}");
    for part in [
        printed.to_str().unwrap(),
        other.to_str().unwrap(),
        "same deals",
        "seed: 8 here, 7 in",
    ] {
        assert!(err.contains(part), "{part} not in: {err}");
    }
    let (ok, err) = report_from(&[&other, &objective], &report);
    assert!(!ok, "{err}");
    for part in [
        other.to_str().unwrap(),
        objective.to_str().unwrap(),
        "none plays the printed rules",
        "objective 5 medals on castle_field",
    ] {
        assert!(err.contains(part), "{part} not in: {err}");
    }
    assert!(!report.join("balance.json").exists());
    // Restricted play is compared with the normal games of its own rules: a what-if study's
    // restricted runs are not read with the printed rules.
    let restricted = temp_dir("refused-restricted");
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--games",
        "8",
        "--terrains",
        "castle_field,tropical_pool",
        "--variants",
        "normal",
        "--seed",
        "7",
        "--racks",
        "4,4",
        "--restricted-play",
        "--out",
        restricted.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let (ok, err) = report_from(&[&printed, &restricted], &report);
    assert!(!ok, "{err}");
    for part in [
        restricted.to_str().unwrap(),
        "a restricted-play run under what-ifs (opening racks 4 (first) and 4 (second))",
    ] {
        assert!(err.contains(part), "{part} not in: {err}");
    }
    for d in [printed, other, objective, restricted] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// The printed objective given explicitly is a what-if that changes nothing: every change,
/// per terrain and over all terrains, is exactly 0.
#[test]
fn a_what_if_that_changes_nothing_changes_every_figure_by_exactly_zero() {
    let (printed, same, report) = (
        temp_dir("zero-printed"),
        temp_dir("zero-same"),
        temp_dir("zero-report"),
    );
    study(&printed, "7", &[]);
    study(&same, "7", &["--objective", "castle_field=7"]);
    let (ok, err) = report_from(&[&printed, &same], &report);
    assert!(ok, "{err}");
    let rows = rows(&report);
    assert_eq!(rows.len(), 3);
    for (terrain, row) in &rows {
        assert_eq!(row["what_if"], "objective 7 medals on castle_field");
        for field in ["first_player", "blue", "turns"] {
            assert_eq!(row[field]["value"].as_f64(), Some(0.0), "{terrain} {field}");
        }
        assert!(row["deals"].as_u64().unwrap() >= 4);
    }
    for d in [printed, same, report] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// Runs `--design-search` with random bots, 4 games, on Castle Field and Caribbean Sea
/// (normal variant) from `seed` into `dir`, and checks that it succeeds.
fn design_search(dir: &std::path::Path, seed: &str) {
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--games",
        "4",
        "--terrains",
        "castle_field,caribbean_sea",
        "--variants",
        "normal",
        "--seed",
        seed,
        "--design-search",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
}

/// `--design-search` plays the printed rules and every candidate one step away (each terrain's
/// objective −1 and +1, 3 and 5 tiles removed, racks 2,4 4,4 3,3 3,5) on the same deals, and
/// ranks, per terrain and over all terrains, the printed rules and each candidate by how close
/// to even they bring the first player and blue; each candidate's change is its paired change
/// from the printed rules, and each ranking states the rules chosen against the printed ones.
#[test]
fn the_designers_search_ranks_every_candidate_against_the_printed_rules_on_every_terrain() {
    let dir = temp_dir("design");
    design_search(&dir, "3");
    let mut folders: Vec<String> = fs::read_dir(dir.join("designs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        [
            "objective-minus-1",
            "objective-plus-1",
            "printed",
            "racks-2-4",
            "racks-3-3",
            "racks-3-5",
            "racks-4-4",
            "removed-3",
            "removed-5"
        ]
    );
    let j = json(&dir.join("balance.json"));
    let search = &j["design_search"];
    assert_eq!(search["candidates"].as_array().unwrap().len(), 8);
    let rows = search["rows"].as_array().unwrap();
    let distance = |r: &serde_json::Value| {
        let d = |f: &str| (r[f]["value"].as_f64().unwrap() - 0.5).abs();
        let (a, b) = (d("first_player"), d("blue"));
        (a.max(b), a + b)
    };
    for terrain in ["castle_field", "caribbean_sea", "all"] {
        let ranking: Vec<&serde_json::Value> =
            rows.iter().filter(|r| r["terrain"] == terrain).collect();
        assert_eq!(ranking.len(), 9, "{terrain}");
        for (i, r) in ranking.iter().enumerate() {
            assert_eq!(r["rank"], i as u64 + 1);
        }
        assert!(ranking.windows(2).all(|w| distance(w[0]) <= distance(w[1])));
        // The printed rules' row is the report's seat row; each candidate's change is its
        // row of the what-if changes.
        let seat = j["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["terrain"] == terrain)
            .unwrap();
        let printed = ranking
            .iter()
            .find(|r| r["candidate"] == "printed")
            .unwrap();
        assert_eq!(printed["first_player"], seat["first_player"]);
        assert_eq!(printed["rules"], "printed rules");
        let racks = ranking
            .iter()
            .find(|r| r["candidate"] == "racks-4-4")
            .unwrap();
        let change = j["what_if_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["terrain"] == terrain && c["what_ifs"]["racks"] == serde_json::json!([4, 4])
            })
            .unwrap();
        assert_eq!(racks["first_player_change"], change["first_player"]);
        assert_eq!(racks["first_player"], change["score_first_player"]);
    }
    let castle_objectives: Vec<&str> = rows
        .iter()
        .filter(|r| {
            r["terrain"] == "castle_field"
                && r["candidate"].as_str().unwrap().starts_with("objective")
        })
        .map(|r| r["rules"].as_str().unwrap())
        .collect();
    assert_eq!(castle_objectives.len(), 2);
    assert!(castle_objectives.contains(&"objective 6 medals"));
    assert!(castle_objectives.contains(&"objective 8 medals"));
    let chosen: Vec<&str> = search["chosen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(chosen.len(), 3);
    assert!(chosen
        .iter()
        .all(|c| c.starts_with("random, normal variant, ")
            && c.contains("of 9 rules tried")
            && (c.contains("against the printed rules' first player")
                || c.contains("the printed rules come closest to even"))));
    let md = fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("## Designer's search"), "{md}");
    let csv = fs::read_to_string(dir.join("design_search.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 27);
    fs::remove_dir_all(dir).unwrap();
}

/// The designer's search is plotted, one SVG file per preset and variant beside the report and
/// linked from report.md and report.html: for every terrain (by name) and all terrains, one
/// group per candidate with its paired changes, the printed rules at 0, the rules chosen marked
/// once per terrain. The file parses as XML.
#[test]
fn the_designers_search_is_plotted_with_every_candidate_on_every_terrain() {
    let dir = temp_dir("design-plot");
    design_search(&dir, "5");
    let name = "design_search-random-normal.svg";
    let text = fs::read_to_string(dir.join(name)).unwrap();
    let svg = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let class = |c: &str| {
        svg.descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some(c))
            .collect::<Vec<_>>()
    };
    let texts: Vec<&str> = svg
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    let groups = ["Castle Field", "Caribbean Sea", "all terrains"];
    for terrain in groups {
        assert!(texts.contains(&terrain), "{terrain}: {texts:?}");
    }
    assert!(!texts.contains(&"castle_field"), "names, not keys");
    // 8 candidates (objective −1 and +1, 3 and 5 removed, four racks) under each terrain,
    // each one group with a dot per panel; the printed rules once per terrain.
    let candidates = class("entry");
    assert_eq!(candidates.len(), 8 * groups.len());
    for g in &candidates {
        assert_eq!(
            g.descendants().filter(|n| n.has_tag_name("circle")).count(),
            2
        );
    }
    assert_eq!(class("baseline").len(), groups.len());
    let chosen = texts.iter().filter(|t| t.starts_with("chosen: ")).count();
    assert_eq!(chosen, groups.len(), "the rules chosen, once per terrain");
    let md = fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains(&format!("[{name}]({name})")), "{md}");
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(&format!("<a href=\"{name}\">")), "linked");
    fs::remove_dir_all(dir).unwrap();
}

/// The summary's line of a what-if on one terrain names what it changes there ("objective 8
/// medals"), not the objectives of every terrain; over all terrains it names the what-if in full.
#[test]
fn the_summary_names_a_what_if_by_what_it_changes_on_each_terrain() {
    use toybattle::balance::{analyse, End, Study, StudyGame};
    use toybattle::rules::{Colour, Variant, WhatIfs};
    let game = |deal: u64, first: Colour, first_wins: bool, rules: u16| StudyGame {
        preset: 0,
        terrain: 0,
        variant: Variant::Normal,
        restricted: Default::default(),
        rules,
        deal,
        first,
        winner: Some(if first_wins { first } else { first.opponent() }),
        end: End::Medals,
        turns: 20,
        lost: [[0; 8]; 2],
        record: None,
    };
    let mut games = Vec::new();
    for deal in 0..40 {
        for first in Colour::BOTH {
            games.push(game(deal, first, deal % 3 == 0, 0));
            games.push(game(deal, first, deal % 2 == 0, 1));
        }
    }
    let what_if = WhatIfs {
        objectives: [
            ("castle_field".to_string(), 8),
            ("caribbean_sea".to_string(), 6),
        ]
        .into(),
        ..WhatIfs::default()
    };
    let report = analyse(&Study {
        presets: vec!["greedy".into()],
        terrains: vec!["castle_field".into(), "caribbean_sea".into()],
        terrain_names: vec!["Castle Field".into(), "Caribbean Sea".into()],
        games,
        what_ifs: WhatIfs::default(),
        compared: vec![what_if],
        restrictions: Vec::new(),
    });
    let family = report
        .families
        .iter()
        .find(|f| f.what.contains("rule what-if"))
        .unwrap();
    let labels: Vec<&str> = family.tests.iter().map(|t| t.label.as_str()).collect();
    assert!(
        labels.contains(&"objective 8 medals, Castle Field: first player"),
        "{labels:?}"
    );
    assert!(
        labels.contains(
            &"objective 6 medals on caribbean_sea, objective 8 medals on castle_field, all \
              terrains: first player"
        ),
        "{labels:?}"
    );
    // Each deal's change is its mean under the what-if minus its mean under the printed rules.
    let row = report
        .what_if_changes
        .iter()
        .find(|c| c.terrain == "castle_field")
        .unwrap();
    let by_hand = (0..40)
        .map(|d| (d % 2 == 0) as u8 as f64 - (d % 3 == 0) as u8 as f64)
        .sum::<f64>()
        / 40.0;
    assert!((row.change.first_player.unwrap().value - by_hand).abs() < 1e-12);
    assert_eq!(row.deals, 40);
}
