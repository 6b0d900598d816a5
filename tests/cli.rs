//! The `toybattle` binary end to end: every rules-engine subcommand, its JSON output, and its
//! error messages on bad input.

mod cli_support;

use cli_support::{fails, ok, path_str, scratch, stderr, stdout, toybattle};
use serde_json::Value;
use std::path::{Path, PathBuf};
use toybattle::record::position::Position;
use toybattle::rules::DecisionList;

const KEYS: [&str; 8] = [
    "castle_field",
    "tropical_pool",
    "city_of_clouds",
    "volcanic_jungle",
    "cursed_cemetery",
    "caribbean_sea",
    "station_metal_x",
    "battlefield",
];

#[test]
fn terrains_table_names_every_terrain() {
    let out = ok(&["terrains"]);
    for key in KEYS {
        assert!(out.contains(key), "{key} missing from:\n{out}");
    }
    assert!(out.contains("15, 16, 20, 21   return one of your top tiles to your rack"));
}

/// The facts of RULES.md §15: nodes (HQ/base/special), edges, regions, medals, to win.
#[test]
fn terrains_json_matches_the_rules_summary() {
    let facts: Value = serde_json::from_str(&ok(&["terrains", "--json"])).expect("JSON");
    let expected: [(&str, [u64; 8]); 8] = [
        ("castle_field", [17, 2, 15, 4, 24, 8, 14, 7]),
        ("tropical_pool", [17, 4, 13, 5, 24, 8, 12, 6]),
        ("city_of_clouds", [16, 2, 14, 4, 28, 13, 16, 8]),
        ("volcanic_jungle", [15, 2, 13, 2, 22, 6, 14, 7]),
        ("cursed_cemetery", [17, 2, 15, 4, 28, 10, 14, 7]),
        ("caribbean_sea", [15, 3, 12, 0, 20, 6, 11, 5]),
        ("station_metal_x", [15, 2, 13, 3, 28, 14, 14, 7]),
        ("battlefield", [16, 2, 14, 4, 24, 9, 16, 8]),
    ];
    let list = facts.as_array().expect("an array of terrains");
    assert_eq!(list.len(), expected.len());
    let fields = [
        "nodes",
        "hqs",
        "bases",
        "special_bases",
        "edges",
        "regions",
        "total_medals",
        "medals_to_win",
    ];
    for (t, (key, numbers)) in list.iter().zip(expected) {
        assert_eq!(t["key"], key);
        for (field, n) in fields.iter().zip(numbers) {
            assert_eq!(t[field].as_u64(), Some(n), "{key}.{field}");
        }
    }
    assert_eq!(list[5]["blue_hqs"], serde_json::json!([1, 2]));
    assert_eq!(list[5]["red_hqs"], serde_json::json!([41]));
}

#[test]
fn show_draws_every_terrain_within_80_columns() {
    for key in KEYS {
        let out = ok(&["show", "--terrain", key]);
        for line in out.lines() {
            assert!(line.chars().count() <= 80, "{key}: line too wide: {line}");
        }
        assert!(out.contains("[1]") && out.contains("[41]"), "{key}: HQs");
        assert!(
            out.contains("Adjacency:") && out.contains("Regions ("),
            "{key}"
        );
    }
    let out = ok(&["show", "--terrain", "Castle Field"]);
    assert!(out.contains("R1   11, 12, 13, 14, 18 → 3 medals"));
    assert!(out.contains("15*"));
}

#[test]
fn random_games_json_adds_up_and_repeats_for_a_seed() {
    let args = [
        "random-games",
        "--terrain",
        "castle_field,caribbean_sea",
        "-n",
        "8",
        "--seed",
        "11",
        "--json",
    ];
    let out = ok(&args);
    assert_eq!(out, ok(&args), "same seed, same games");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let terrains = report["terrains"].as_array().expect("terrains");
    assert_eq!(terrains.len(), 2);
    for t in terrains {
        let n = |f: &str| t[f].as_u64().unwrap_or_else(|| panic!("{f} in {t}"));
        assert_eq!(n("games"), 8);
        assert_eq!(n("finished") + n("turn_cap"), n("games"));
        assert_eq!(
            n("hq") + n("medals") + n("blocked") + n("forfeit"),
            n("finished")
        );
        assert!(n("first_player_wins") <= n("finished") && n("blue_wins") <= n("finished"));
        let rate = t["first_player_win_rate"].as_f64().expect("rate");
        let (lo, hi) = (
            t["first_player_ci95"][0].as_f64().expect("low"),
            t["first_player_ci95"][1].as_f64().expect("high"),
        );
        assert!(lo <= rate && rate <= hi, "{rate} in [{lo}, {hi}]");
    }
}

/// Writes two games' records and returns their paths.
fn recorded_games(dir: &Path) -> Vec<PathBuf> {
    ok(&[
        "random-games",
        "--terrain",
        "volcanic_jungle",
        "-n",
        "2",
        "--quiet",
        "--records",
        path_str(dir),
    ]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("records directory")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2);
    files
}

#[test]
fn replay_accepts_recorded_games_and_names_a_corrupted_step() {
    let dir = scratch("replay");
    let files = recorded_games(&dir);
    for f in &files {
        let out = ok(&["replay", path_str(f)]);
        assert!(out.starts_with("record valid: volcanic_jungle"), "{out}");
        let verbose = ok(&["replay", "--verbose", path_str(f)]);
        assert!(verbose.lines().count() > out.lines().count());
    }
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).expect("record")).expect("JSON");
    let corrupted = |index: usize, step: &str| {
        let mut record = original.clone();
        record["steps"][index] = step.into();
        let path = dir.join(format!("corrupted-{index}.json"));
        std::fs::write(&path, record.to_string()).expect("write");
        path
    };
    // Red HQ 41 is far from blue's side at the first step; node 99 is on no terrain.
    let bad = corrupted(0, "place Roxy 41");
    let err = fails(&["replay", path_str(&bad)]);
    assert!(err.contains("step 0 ('place Roxy 41')"), "{err}");

    let bad = corrupted(3, "place Roxy 99");
    let o = toybattle(&["replay", "--json", path_str(&bad)]);
    assert!(!o.status.success());
    let verdict: Value = serde_json::from_str(&stdout(&o)).expect("JSON verdict");
    assert_eq!(verdict["ok"], false);
    assert_eq!(verdict["step"], 3);
    assert!(stderr(&o).contains("step 3 ('place Roxy 99')"));
}

#[test]
fn malformed_record_reports_line_and_column() {
    let dir = scratch("malformed");
    let file = dir.join("record.json");
    std::fs::write(&file, "{\n  \"format\": \"toybattle-record/1\",\n  oops\n}").expect("write");
    let err = fails(&["replay", path_str(&file)]);
    assert!(err.contains("line 3 column"), "{err}");
}

#[test]
fn missing_files_are_named() {
    let err = fails(&["replay", "no/such/record.json"]);
    assert!(
        err.contains("cannot read game record no/such/record.json"),
        "{err}"
    );
    let err = fails(&["legal", "--position", "no/such/position.json"]);
    assert!(
        err.contains("cannot read position no/such/position.json"),
        "{err}"
    );
    let err = fails(&["terrains", "--terrain-file", "no/such/terrains.json"]);
    assert!(err.contains("no/such/terrains.json"), "{err}");
}

#[test]
fn unknown_terrain_lists_the_valid_ones() {
    for args in [
        &["show", "--terrain", "moon_base"][..],
        &["random-games", "--terrain", "moon_base", "-n", "1"][..],
    ] {
        let err = fails(args);
        assert!(err.contains("unknown terrain 'moon_base'"), "{err}");
        for key in KEYS {
            assert!(err.contains(key), "{key} missing from: {err}");
        }
    }
}

#[test]
fn malformed_terrain_file_names_the_terrain_and_node() {
    let mut file: Value =
        serde_json::from_str(include_str!("../src/terrain/terrains.json")).expect("JSON");
    let castle = &mut file["terrains"][0];
    assert_eq!(castle["id"], "castle_field");
    assert_eq!(castle["nodes"][1]["id"], 11);
    castle["nodes"][1]["adjacent"] = serde_json::json!([1, 13, 99]);
    let path = scratch("terrain-file").join("terrains.json");
    std::fs::write(&path, file.to_string()).expect("write");
    for sub in ["terrains", "show"] {
        let mut args = vec![sub, "--terrain-file", path_str(&path)];
        if sub == "show" {
            args.extend(["--terrain", "castle_field"]);
        }
        let err = fails(&args);
        assert!(
            err.contains("terrain 'castle_field': node 11 lists unknown neighbour 99"),
            "{err}"
        );
    }
}

const POSITION: &str = r#"{
  "format": "toybattle-position/1",
  "terrain": "castle_field",
  "to_move": "blue",
  "turn": 3,
  "stacks": {"11": ["blue:Jumbo"], "24": ["red:Star"]},
  "racks": {"blue": ["Kwak", "Hook"], "red": ["Roxy", "Capn", "Skully"]}
}"#;

#[test]
fn legal_prints_the_engines_decisions_in_order() {
    let path = scratch("legal").join("position.json");
    std::fs::write(&path, POSITION).expect("write");
    let (game, state) = Position::parse(POSITION)
        .and_then(|p| p.to_game_state(None))
        .expect("a valid position");
    let mut list = DecisionList::new();
    game.legal_decisions(&state, &mut list);
    let expected: Vec<String> = list.iter().map(|d| d.notation(game.terrain())).collect();
    assert!(expected.contains(&"draw".to_string()));

    let json: Value =
        serde_json::from_str(&ok(&["legal", "--position", path_str(&path), "--json"]))
            .expect("JSON");
    assert_eq!(json["to_move"], "blue");
    assert_eq!(json["phase"], game.describe_phase(&state));
    assert_eq!(json["decisions"], serde_json::json!(expected));

    let text = ok(&["legal", "--position", path_str(&path)]);
    let listed: Vec<&str> = text.lines().skip(2).map(str::trim).collect();
    assert_eq!(listed, expected);
}

#[test]
fn legal_at_a_chance_event_gives_probabilities() {
    let position = POSITION.replace(
        "\"turn\": 3,",
        "\"turn\": 3, \"phase\": {\"chance\": {\"draw\": 2}},",
    );
    let path = scratch("legal-chance").join("position.json");
    std::fs::write(&path, position).expect("write");
    let json: Value =
        serde_json::from_str(&ok(&["legal", "--position", path_str(&path), "--json"]))
            .expect("JSON");
    let chances = json["chances"].as_array().expect("chance outcomes");
    assert_eq!(
        chances.len(),
        json["decisions"].as_array().expect("list").len()
    );
    let total: f64 = chances
        .iter()
        .map(|c| c["probability"].as_f64().expect("p"))
        .sum();
    assert!((total - 1.0).abs() < 1e-9, "probabilities sum to {total}");
}

#[test]
fn every_subcommand_has_help() {
    let top = ok(&["--help"]);
    for sub in [
        "terrains",
        "show",
        "legal",
        "random-games",
        "replay",
        "analyze",
        "tournament",
        "merge",
        "pool",
        "compare",
    ] {
        assert!(top.contains(sub), "{sub} missing from --help");
        let out = ok(&[sub, "--help"]);
        assert!(out.contains("Usage: toybattle"), "{sub} --help: {out}");
    }
}

/// `toybattle compare` on two gauntlets of the same seed: the JSON counts add up to the games
/// of the runs, and two bots with no opponent in common are refused with the reason.
#[test]
fn compare_reports_two_gauntlets_deal_by_deal_as_json() {
    let dir = scratch("compare");
    let run = |bot: &str, name: &str| {
        let out = dir.join(name);
        ok(&[
            "tournament",
            "--gauntlet",
            bot,
            "--vs",
            "random",
            "--terrains",
            "castle_field",
            "--games",
            "4",
            "--seed",
            "3",
            "--quiet",
            "--out",
            path_str(&out),
        ]);
        out
    };
    let (greedy, flat_mc) = (run("greedy", "greedy"), run("flat-mc", "flat-mc"));
    let report: Value = serde_json::from_str(&ok(&[
        "compare",
        path_str(&greedy),
        path_str(&flat_mc),
        "--json",
    ]))
    .expect("JSON");
    assert_eq!(
        (report["a"].as_str(), report["b"].as_str()),
        (Some("greedy"), Some("flat-mc"))
    );
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "all, then castle_field: {report}");
    let count = |k: &str| rows[0][k].as_u64().expect(k);
    assert_eq!(count("games"), 4);
    let outcomes = ["both_won", "only_a_won", "only_b_won", "neither_won"];
    assert_eq!(outcomes.iter().map(|k| count(k)).sum::<u64>(), 4);
    let err = fails(&[
        "compare",
        path_str(&greedy),
        path_str(&greedy),
        "--bot-b",
        "random",
    ]);
    assert!(err.contains("no game in common"), "{err}");
}

/// `toybattle review --threads N` runs the review on a pool of N threads (the review reports
/// its pool's size), not on every core.
#[test]
fn review_runs_on_the_threads_asked() {
    let dir = scratch("review-threads");
    let files = recorded_games(&dir);
    let json = dir.join("review.json");
    let out = ok(&[
        "review",
        path_str(&files[0]),
        "--iterations",
        "20",
        "--threads",
        "1",
        "--quiet",
        "--json",
        path_str(&json),
    ]);
    assert!(out.contains(", on 1 thread)"), "{out}");
    let review: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("review JSON")).expect("JSON");
    assert_eq!(review["threads"], 1);
    assert_eq!(review["complete"], true);
}
