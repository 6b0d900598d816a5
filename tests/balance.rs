//! Balance studies: the estimators on simulated studies with planted effects (recovery and
//! coverage of the 95% intervals), the analysis at the scale of 100,000 games, a report
//! rendered from a small real study, and bad input.

use std::fs;
use std::path::Path;
use std::process::Command;

mod balance_support;
use balance_support::{balance, temp_dir};
use toybattle::balance::analysis::troop_fit;
use toybattle::balance::estimate::proportion;
use toybattle::balance::synthetic::{synthetic_study, synthetic_study_of_presets, Planted};
use toybattle::balance::{analyse, Study, StudyGame};
use toybattle::rules::{Colour, Troop, Variant};
use toybattle::tournament::store::GAMES_FILE;

fn planted(jumbo: f64, star: f64) -> Planted {
    let mut troop = [0.0; 8];
    troop[Troop::Jumbo.index()] = jumbo;
    troop[Troop::Star.index()] = star;
    Planted {
        first: 0.05,
        troop,
        deal_noise: 0.1,
    }
}

fn value_of(
    values: &[(Troop, toybattle::balance::estimate::Estimate)],
    t: Troop,
) -> toybattle::balance::estimate::Estimate {
    values
        .iter()
        .find(|(x, _)| *x == t)
        .map(|(_, e)| *e)
        .unwrap()
}

/// Planted values sum to zero over the eight troops, the only kind the deals can identify
/// (every player loses exactly four tiles).
#[test]
fn the_troop_value_estimator_recovers_a_planted_value_and_a_zero() {
    let study = synthetic_study(&planted(0.06, -0.06), 4, 3000, &[Variant::Normal], 1);
    let games: Vec<&StudyGame> = study.games.iter().collect();
    let values = troop_fit(&study, &games).unwrap();
    let jumbo = value_of(&values, Troop::Jumbo);
    assert!(jumbo.covers(0.06), "Jumbo {jumbo:?}");
    assert!(jumbo.lo > 0.0, "a 6-point effect is detected: {jumbo:?}");
    assert!(value_of(&values, Troop::Star).covers(-0.06));
    let hook = value_of(&values, Troop::Hook);
    assert!(hook.covers(0.0), "Hook has no effect: {hook:?}");
    let sum: f64 = values.iter().map(|(_, e)| e.value).sum();
    assert!(sum.abs() < 1e-9, "values are centred");
}

/// 500 simulated studies: the stated 95% intervals of a troop value and of the first player's
/// score (games of a deal correlated through its shared luck) hold the truth 92% to 98% of the
/// time.
#[test]
fn intervals_have_their_stated_coverage_on_simulated_studies() {
    let truth = planted(0.04, -0.04);
    let (mut troop_hits, mut first_hits) = (0, 0);
    let studies = 500;
    for s in 0..studies {
        let study = synthetic_study(&truth, 2, 300, &[Variant::Normal], 1000 + s);
        let games: Vec<&StudyGame> = study.games.iter().collect();
        let values = troop_fit(&study, &games).unwrap();
        troop_hits += value_of(&values, Troop::Jumbo).covers(0.04) as u32;
        let mut items: Vec<(u64, f64)> = study
            .games
            .iter()
            .map(|g| (g.deal, g.score(g.first)))
            .collect();
        first_hits += proportion(&mut items).unwrap().covers(0.55) as u32;
    }
    for (what, hits) in [("troop value", troop_hits), ("first player", first_hits)] {
        let coverage = hits as f64 / studies as f64;
        assert!(
            (0.92..=0.98).contains(&coverage),
            "{what}: coverage {coverage}"
        );
    }
}

/// Small studies, where the cluster-robust intervals of the troop values are most at risk: two
/// presets on two terrains in both variants, with 24 deals for the 11 coefficients of a
/// preset's fit (the fewest allowed is 22). Over 300 studies, the stated 95% intervals of all
/// eight troops hold the truth 93% to 99% of the time. Values are never pooled across presets
/// (a troop is worth what a player makes of it): there is no "all" row.
#[test]
fn troop_value_intervals_keep_their_coverage_in_small_studies() {
    let truth = planted(0.04, -0.04);
    let both = [Variant::Normal, Variant::Beginner];
    let (mut hits, studies) = (0, 300);
    for s in 0..studies {
        let study = synthetic_study_of_presets(&truth, 2, 2, 12, &both, 3000 + s);
        let report = analyse(&study);
        assert!(report.troops.iter().all(|t| t.preset != "all"));
        for row in report.troops.iter().filter(|t| t.preset == "simulated0") {
            hits += row.value.covers(truth.troop[row.troop.index()]) as u32;
        }
    }
    let coverage = hits as f64 / (8 * studies) as f64;
    assert!((0.93..=0.99).contains(&coverage), "coverage {coverage}");
}

/// With fewer deals than twice the coefficients, no troop value is given, and the note says
/// how many deals there were for how many coefficients.
#[test]
fn troop_values_are_not_estimable_from_too_few_deals() {
    let both = [Variant::Normal, Variant::Beginner];
    let study = synthetic_study_of_presets(&planted(0.04, -0.04), 2, 2, 5, &both, 9);
    let report = analyse(&study);
    assert!(report.troops.is_empty(), "{:?}", report.troops);
    assert!(report.troop_cells.is_empty(), "{:?}", report.troop_cells);
    let notes = report.troop_notes.join("\n");
    assert!(
        notes.contains("simulated0: troop values not estimable (10 deals for 11 coefficients"),
        "{notes}"
    );
    assert!(!notes.contains("all: troop values"), "{notes}");
}

/// Two simulated studies drawn from one seed play the same deals (every deal is drawn before
/// any outcome of the game); the games of `b` are relabelled as `preset` and `terrain`.
fn on_the_same_deals(mut a: Study, b: Study, preset: u16, terrain: u16) -> Study {
    a.games.extend(b.games.into_iter().map(|g| StudyGame {
        preset,
        terrain,
        ..g
    }));
    let grow = |names: &mut Vec<String>, i: u16, name: &str| {
        while names.len() <= i as usize {
            names.push(format!("{name}{}", names.len()));
        }
    };
    grow(&mut a.presets, preset, "simulated");
    grow(&mut a.terrains, terrain, "terrain");
    a
}

/// Every headline says how many comparisons it was chosen from and shows only what survives
/// Holm's correction: a planted first-player edge and troop values are shown, a study with
/// nothing planted shows nothing ("not shown"), on the same number of comparisons.
#[test]
fn the_summary_shows_only_claims_that_survive_holm_and_counts_their_comparisons() {
    let normal = [Variant::Normal];
    let strong = Planted {
        first: 0.1,
        ..planted(0.08, -0.08)
    };
    let report = analyse(&synthetic_study(&strong, 8, 600, &normal, 21));
    let summary = report.summary.join("\n");
    let seats = &report.families[0];
    assert_eq!(
        seats.comparisons, 18,
        "first player and blue on 8 terrains and all"
    );
    assert!(
        seats
            .shown()
            .any(|t| t.label == "all terrains: first player"),
        "{summary}"
    );
    assert!(summary.contains(": 18 comparisons;"), "{summary}");
    assert!(summary.contains("Holm"), "{summary}");
    let troops = &report.families[1];
    assert_eq!(troops.comparisons, 8);
    let shown: Vec<&str> = troops.shown().map(|t| t.label.as_str()).collect();
    assert!(
        shown.contains(&"Jumbo") && shown.contains(&"Star"),
        "{shown:?}"
    );
    assert!(!shown.contains(&"Hook"), "{shown:?}");
    // Nothing planted: the same families, nothing shown.
    let none = Planted {
        first: 0.0,
        ..planted(0.0, 0.0)
    };
    let report = analyse(&synthetic_study(&none, 8, 100, &normal, 22));
    let summary = report.summary.join("\n");
    assert_eq!(report.families[0].comparisons, 18);
    assert_eq!(report.families[0].shown().count(), 0, "{summary}");
    assert!(summary.contains("not shown: none survives"), "{summary}");
}

/// At scale most troop values per terrain survive Holm (56 of 64 in the 640,000-game greedy
/// study): the summary lists only the largest few, says how many survive of how many, and
/// points to the heat map and the CSV for the others.
#[test]
fn the_summary_lists_only_the_largest_troop_values_per_terrain_and_counts_the_survivors() {
    use toybattle::balance::analysis::{figure, TROOP_CELLS_LISTED};
    let normal = [Variant::Normal];
    let report = analyse(&synthetic_study(
        &planted(0.08, -0.08),
        8,
        1500,
        &normal,
        23,
    ));
    let family = report
        .families
        .iter()
        .find(|f| f.what.starts_with("each troop's value on each terrain"))
        .unwrap();
    let survive = family.shown().count();
    assert_eq!(family.comparisons, 64);
    assert!(survive > TROOP_CELLS_LISTED, "{survive} survive");
    let line = report
        .summary
        .iter()
        .find(|l| l.starts_with("Each troop's value on each terrain"))
        .unwrap();
    assert!(
        line.contains(&format!("{survive} of 64 survive Holm's correction")),
        "{line}"
    );
    let listed = family
        .tests
        .iter()
        .filter(|t| line.contains(&format!("{} ", t.label)))
        .count();
    assert_eq!(listed, TROOP_CELLS_LISTED, "{line}");
    // The largest in absolute value, each with its interval and Holm's p.
    for t in family.shown().take(TROOP_CELLS_LISTED) {
        assert!(
            line.contains(&format!("{} {} (Holm p", t.label, figure(t))),
            "{line}"
        );
    }
    assert!(
        line.contains("heat map") && line.contains("troops_by_terrain.csv"),
        "{line}"
    );
    // The other families list every comparison that survives.
    let seats = &report.summary[1];
    for t in report.families[0].shown() {
        assert!(seats.contains(&t.label), "{seats}");
    }
}

/// A troop worth +8 pp on one terrain and −8 pp on another: each terrain's value is found,
/// Cochran's test rejects equal values, and the pooled value (about 0, true nowhere) is not
/// shown; the heat map draws every cell.
#[test]
fn troop_values_are_given_per_terrain_and_pooled_only_where_the_terrains_agree() {
    let normal = [Variant::Normal];
    let up = synthetic_study(&planted(0.08, -0.08), 1, 1500, &normal, 31);
    let down = synthetic_study(&planted(-0.08, 0.08), 1, 1500, &normal, 32);
    let report = analyse(&on_the_same_deals(up, down, 0, 1));
    let cell = |terrain: &str, troop: Troop| {
        report
            .troop_cells
            .iter()
            .find(|c| c.terrain == terrain && c.troop == troop)
            .unwrap()
            .value
    };
    let (a, b) = (
        cell("terrain0", Troop::Jumbo),
        cell("terrain1", Troop::Jumbo),
    );
    assert!(a.covers(0.08) && a.lo > 0.0, "{a:?}");
    assert!(b.covers(-0.08) && b.hi < 0.0, "{b:?}");
    let jumbo = report.pooled_troop("simulated0", Troop::Jumbo);
    let h = jumbo.expect_err("terrains differ: not pooled");
    assert!(h.across == "terrains" && h.p < 1e-6, "{h:?}");
    assert!(report.pooled_troop("simulated0", Troop::Hook).is_ok());
    let sections = toybattle::balance::render::sections(&report, &[]);
    let md = toybattle::balance::render::markdown(&report, &sections);
    assert!(md.contains("| Jumbo | not pooled: terrains differ"), "{md}");
    let html = toybattle::balance::render::html(&report, &sections);
    assert!(html.contains("Troop values per terrain: simulated0, normal variant"));
    assert_eq!(
        html.matches("<rect").count(),
        8 * 3,
        "8 troops × (2 terrains + all)"
    );
}

/// Presets are compared on the same deals: a preset whose first player wins 10 points more
/// often shows a paired change of +10 pp whose interval excludes 0.
#[test]
fn skill_changes_are_paired_by_deal() {
    let normal = [Variant::Normal];
    let weak = synthetic_study(&planted(0.0, 0.0), 2, 400, &normal, 41);
    let sharp = Planted {
        first: 0.15,
        ..planted(0.0, 0.0)
    };
    let strong = synthetic_study(&sharp, 2, 400, &normal, 41);
    assert_eq!(weak.games[0].deal, strong.games[0].deal);
    let mut study = weak;
    let offset = study.games.len();
    study.games.extend(
        strong
            .games
            .into_iter()
            .map(|g| StudyGame { preset: 1, ..g }),
    );
    study.presets.push("simulated1".into());
    assert_eq!(study.games[offset].deal, study.games[0].deal);
    let report = analyse(&study);
    let all = report
        .skill_changes
        .iter()
        .find(|c| c.terrain == "all")
        .unwrap();
    assert_eq!(
        (all.preset.as_str(), all.against.as_str()),
        ("simulated1", "simulated0")
    );
    let change = all.first_player.unwrap();
    assert!(change.covers(0.1) && change.lo > 0.0, "{change:?}");
    assert_eq!(all.deals, 800);
    let family = report.families.last().unwrap();
    assert!(family
        .shown()
        .any(|t| t.label == "simulated1 minus simulated0, all terrains: first player"));
}

/// The analysis of 100,000 games runs (its speed is measured by `cargo bench --bench balance`).
#[test]
fn the_report_of_100000_games_is_computed() {
    let study = synthetic_study(
        &planted(0.03, -0.03),
        8,
        3125,
        &[Variant::Normal, Variant::Beginner],
        5,
    );
    assert_eq!(study.games.len(), 100_000);
    let report = analyse(&study);
    assert_eq!(report.games, 100_000);
    assert_eq!(report.troops.len(), 8);
    assert_eq!(
        report.troop_cells.len(),
        2 * 9 * 8,
        "per variant, terrain (and all), troop"
    );
    assert_eq!(report.special_bases.len(), 9, "eight terrains and all");
    let all = report.special_bases.last().unwrap();
    assert!(
        all.change.first_player.unwrap().covers(0.0),
        "no planted variant effect"
    );
}

// ----- Real runs through the command line ------------------------------------------------------

/// `DIR/report.md` with its prose unwrapped (one paragraph or list item a line), so that a
/// test finds a phrase wherever the 100-column wrapping broke it.
fn read_report(dir: &Path) -> String {
    let md = fs::read_to_string(dir.join("report.md")).unwrap();
    let mut out = String::new();
    for line in md.lines() {
        let continues = !line.is_empty()
            && !out.ends_with('\n')
            && !["|", "#", "- ", "**"].iter().any(|p| line.starts_with(p));
        if continues {
            out.push(' ');
            out.push_str(line.trim_start());
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
        }
        if line.is_empty()
            || line.starts_with('|')
            || line.starts_with('#')
            || line.starts_with("**")
        {
            out.push('\n');
        }
    }
    out
}

fn small_study(out: &Path, seed: &str) -> (bool, String) {
    balance(&[
        "--bots",
        "random",
        "--games",
        "2",
        "--terrains",
        "castle_field,tropical_pool",
        "--seed",
        seed,
        "--out",
        out.to_str().unwrap(),
    ])
}

/// A study whose bot forfeits every game (an external engine that echoes its input) is warned
/// about on the terminal and in the report, states no findings, and prints "not estimable"
/// where a single deal gives no interval, never an infinite one.
#[test]
fn an_all_forfeit_study_is_warned_about_and_prints_no_infinite_interval() {
    let out = temp_dir("forfeit");
    let (ok, stderr) = balance(&[
        "--bots",
        "ext:/bin/cat",
        "--terrains",
        "castle_field",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("warning: ext:/bin/cat forfeited 4 of 4 games"),
        "{stderr}"
    );
    let md = read_report(&out);
    assert!(
        md.contains("Warning: ext:/bin/cat forfeited 4 of 4 games"),
        "{md}"
    );
    assert!(md.contains("No findings for ext:/bin/cat"), "{md}");
    assert!(md.contains("not estimable (1 deal)"), "{md}");
    for file in ["report.md", "report.html", "seats.csv", "balance.json"] {
        let text = fs::read_to_string(out.join(file)).unwrap();
        for infinite in ["inf]", "inf,", "inf\n", "inf<", "infinity"] {
            assert!(!text.to_lowercase().contains(infinite), "{file}: {text}");
        }
    }
    let _ = fs::remove_dir_all(&out);
}

/// A study on one terrain with `extra` arguments (shard, output).
fn seeded_study(extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "--bots",
        "random",
        "--games",
        "4",
        "--terrains",
        "castle_field",
        "--seed",
        "3",
    ];
    args.extend_from_slice(extra);
    balance(&args)
}

fn same_tables(a: &Path, b: &Path) {
    for table in ["seats.csv", "troops.csv"] {
        let (x, y) = (
            fs::read(a.join(table)).unwrap(),
            fs::read(b.join(table)).unwrap(),
        );
        assert!(
            x == y,
            "{table} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// Every number of two reports' `balance.json` agrees to 1e-9 (relative above 1), every other
/// value is the same; `at` names the place of a difference.
fn same_figures(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{at}: {x} here, {y} before"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                same_figures(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(x), keys(y), "{at}: fields");
            // The summary is prose made from the figures compared here; its wording changes
            // with the report (e.g. how many troop values it lists), its figures do not.
            for (k, v) in x.iter().filter(|(k, _)| *k != "summary") {
                same_figures(v, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// The report streams its games (each line of `games.jsonl` read and reduced to a game at once,
/// the troop regressions' rows computed when the fit asks for them, never stored), and that
/// changes no figure: on the published study (13,104 games of three presets, both variants,
/// restricted play, the `strong` runs' records replayed) every figure equals, to 1e-9, the
/// `balance.json` the analysis holding every line and every row wrote there before
/// (results/balance/study/balance.json, commit 628161f; written again with the tension metrics'
/// columns added, every other figure unchanged).
#[test]
fn the_streamed_report_of_the_published_study_has_the_figures_of_the_one_in_memory() {
    let study = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/balance/study");
    let out = temp_dir("streamed");
    let (ok, err) = balance(&[
        "--from",
        study.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let read = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(d.join("balance.json")).unwrap()).unwrap()
    };
    same_figures(&read(&out), &read(&study), "balance.json");
    fs::remove_dir_all(out).unwrap();
}

/// Shards 1/2 and 2/2 read back with `--from` give the same tables as one unsharded run.
#[test]
fn shards_merged_with_from_give_the_unsharded_tables() {
    let dirs = ["whole", "shard1", "shard2", "merged"].map(temp_dir);
    let path = |i: usize| dirs[i].to_str().unwrap().to_string();
    for (i, shard) in [(0, None), (1, Some("1/2")), (2, Some("2/2"))] {
        let out = path(i);
        let mut extra = vec!["--out", out.as_str()];
        extra.extend(shard.map(|s| ["--shard", s]).into_iter().flatten());
        let (ok, stderr) = seeded_study(&extra);
        assert!(ok, "{stderr}");
        // A quiet shard (a cluster's job array) writes nothing to its log.
        assert!(shard.is_none() || stderr.is_empty(), "{stderr}");
    }
    let (ok, stderr) = balance(&["--from", &path(1), &path(2), "--out", &path(3)]);
    assert!(ok, "{stderr}");
    same_tables(&dirs[0], &dirs[3]);
    dirs.iter().for_each(|d| drop(fs::remove_dir_all(d)));
}

/// A study played several games at a time writes its games in the order they finish, which
/// changes from run to run; its report is the same, to the last bit, as the one of the study
/// played a game at a time.
#[test]
fn the_report_does_not_depend_on_how_many_games_are_played_at_once() {
    let dirs = ["one-at-a-time", "three-at-a-time"].map(temp_dir);
    for (dir, concurrency) in dirs.iter().zip(["1", "3"]) {
        let (ok, stderr) = balance(&[
            "--bots",
            "greedy",
            "--terrains",
            "castle_field,battlefield",
            "--games",
            "60",
            "--seed",
            "5",
            "--no-records",
            "--concurrency",
            concurrency,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(ok, "{stderr}");
    }
    for file in ["balance.json", "report.md", "seats.csv", "troops.csv"] {
        let [a, b] = dirs.each_ref().map(|d| fs::read(d.join(file)).unwrap());
        assert!(a == b, "{file} differs with three games at a time");
    }
    dirs.iter().for_each(|d| drop(fs::remove_dir_all(d)));
}

/// A study enlarged with `--reuse` (here from 10 to 20 games a cell, then as shards) takes
/// the games the smaller one played and reports what the study played afresh reports, to the
/// last bit; restricted play's normal run takes the study's normal run. A folder with no run
/// of the study's games is refused.
#[test]
fn a_study_enlarged_with_reuse_reports_what_a_fresh_study_reports() {
    let [small, shard1, shard2, enlarged, fresh, restricted, other] = [
        "reuse-10",
        "reuse-20-1",
        "reuse-20-2",
        "reuse-20",
        "reuse-fresh",
        "reuse-restricted",
        "reuse-other",
    ]
    .map(temp_dir);
    let study = |games: &str, out: &Path, extra: &[&str]| {
        let mut args = vec![
            "--bots",
            "greedy",
            "--terrains",
            "castle_field,volcanic_jungle",
        ];
        args.extend([
            "--games",
            games,
            "--seed",
            "7",
            "--out",
            out.to_str().unwrap(),
        ]);
        args.extend_from_slice(extra);
        let (ok, stderr) = balance(&args);
        assert!(ok, "{stderr}");
    };
    study("10", &small, &[]);
    let reuse = ["--reuse", small.to_str().unwrap()];
    for (shard, dir) in [("1/2", &shard1), ("2/2", &shard2)] {
        study("20", dir, &[&reuse[..], &["--shard", shard]].concat());
    }
    study("20", &fresh, &[]);
    let (ok, stderr) = balance(&[
        "--from",
        shard1.to_str().unwrap(),
        shard2.to_str().unwrap(),
        "--out",
        enlarged.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    for file in ["balance.json", "report.md", "seats.csv", "troops.csv"] {
        let [a, b] = [&enlarged, &fresh].map(|d| fs::read(d.join(file)).unwrap());
        assert!(a == b, "{file} differs from the fresh study's");
    }
    // A game taken keeps its line from the deal to the thinking times, which a game played
    // again would not (its thinking takes other microseconds).
    let lines =
        |dir: &Path| fs::read_to_string(dir.join("runs/greedy-normal/games.jsonl")).unwrap();
    let played =
        |l: &str| l[l.find("\"deal_seed\"").unwrap()..l.find("\"versions\"").unwrap()].to_string();
    let earlier: Vec<String> = lines(&small).lines().map(played).collect();
    let taken = |dir: &Path| {
        lines(dir)
            .lines()
            .filter(|l| earlier.contains(&played(l)))
            .count()
    };
    assert_eq!(earlier.len(), 20);
    assert_eq!(
        taken(&shard1) + taken(&shard2),
        20,
        "the small study's 10 games a terrain"
    );

    study(
        "20",
        &restricted,
        &[&reuse[..], &["--variants", "normal", "--restricted-play"]].concat(),
    );
    assert_eq!(taken(&restricted), 20);

    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args([
            "balance",
            "--bots",
            "random",
            "--terrains",
            "castle_field",
            "--games",
            "2",
        ])
        .args(["--seed", "7", "--reuse"])
        .arg(&small)
        .arg("--out")
        .arg(&other)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("--reuse: none of its runs plays this study's games (bots: [\"greedy\"] vs [\"random\"]"), "{stderr}");
    [small, shard1, shard2, enlarged, fresh, restricted, other]
        .iter()
        .for_each(|d| drop(fs::remove_dir_all(d)));
}

/// A shard played by hand says where it played and how to write the report once all are done.
#[test]
fn a_shard_names_the_command_that_reports_the_study() {
    let dir = temp_dir("shard-note");
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["balance", "--bots", "random", "--games", "2"])
        .args(["--terrains", "castle_field", "--shard", "2/3", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("shard 2/3 played into"), "{stderr}");
    assert!(
        stderr.contains("toybattle balance --from SHARD_DIR... --out REPORT_DIR"),
        "{stderr}"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A report read from some of a study's shards names every missing piece and refuses; with
/// `--allow-incomplete` it is written and says so at its top. Before, shard 1 of 2 alone gave a
/// report of half the games, silently.
#[test]
fn a_study_read_from_missing_shards_is_refused_naming_them_unless_allowed() {
    let dirs = ["part-shard1", "part-report"].map(temp_dir);
    let shard = dirs[0].to_str().unwrap();
    let (ok, stderr) = seeded_study(&["--out", shard, "--shard", "1/2"]);
    assert!(ok, "{stderr}");
    let out = dirs[1].to_str().unwrap();
    let (ok, err) = balance(&["--from", shard, "--out", out]);
    assert!(!ok, "{err}");
    for piece in [
        "random, normal variant: shard 2/2 not given",
        "random, beginner variant: shard 2/2 not given",
        "random, normal variant, Castle Field: 2 of 4 games",
    ] {
        assert!(err.contains(piece), "{piece}: {err}");
    }
    assert!(!dirs[1].join("report.md").exists(), "nothing written");
    let (ok, err) = balance(&["--from", shard, "--out", out, "--allow-incomplete"]);
    assert!(ok, "{err}");
    let md = read_report(&dirs[1]);
    let top = md.find("## Incomplete study").expect("said at the top");
    assert!(top < md.find("## Summary").unwrap(), "{md}");
    assert!(
        md.contains("- random, normal variant: shard 2/2 not given"),
        "{md}"
    );
    let html = fs::read_to_string(dirs[1].join("report.html")).unwrap();
    assert!(html.contains("<h2>Incomplete study</h2>") && well_formed(&html));
    dirs.iter().for_each(|d| drop(fs::remove_dir_all(d)));
}

/// A study stopped before one of its runs began (its folder absent, as `kill -9` leaves it)
/// is reported as incomplete, naming the run, rather than refused as a damaged folder: before,
/// even `--allow-incomplete` failed with "holds no run.json".
#[test]
fn a_study_stopped_before_a_run_began_names_the_run_as_missing() {
    let dirs = ["stopped-study", "stopped-report"].map(temp_dir);
    let study = dirs[0].to_str().unwrap();
    let (ok, stderr) = seeded_study(&["--out", study]);
    assert!(ok, "{stderr}");
    fs::remove_dir_all(dirs[0].join("runs/random-beginner")).unwrap();
    let out = dirs[1].to_str().unwrap();
    let (ok, err) = balance(&["--from", study, "--out", out]);
    assert!(!ok, "{err}");
    assert!(err.contains("random-beginner has not started"), "{err}");
    let (ok, err) = balance(&["--from", study, "--out", out, "--allow-incomplete"]);
    assert!(ok, "{err}");
    let md = read_report(&dirs[1]);
    let top = md.find("## Incomplete study").expect("said at the top");
    assert!(
        md[top..].contains("random-beginner has not started"),
        "{md}"
    );
    dirs.iter().for_each(|d| drop(fs::remove_dir_all(d)));
}

/// Caribbean Sea has no special-base effect, so its beginner games are its normal games
/// again: the report says so rather than show the same figures twice without a word.
#[test]
fn a_variant_that_repeats_the_games_is_noted() {
    let dir = temp_dir("repeats");
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--games",
        "2",
        "--terrains",
        "caribbean_sea,castle_field",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let md = read_report(&dir);
    assert!(
        md.contains(
            "On Caribbean Sea the beginner variant replays the normal games exactly (random)"
        ),
        "{md}"
    );
    assert!(!md.contains("On Castle Field the beginner"), "{md}");
    fs::remove_dir_all(dir).unwrap();
}

/// A study stopped midway (one games file cut back to three whole games, another cut inside
/// its last line, the report not yet written) resumes when run again and ends with the same
/// tables as a study that was never stopped.
#[test]
fn a_study_stopped_midway_resumes_to_the_same_result() {
    let (whole, stopped) = (temp_dir("unstopped"), temp_dir("stopped"));
    for d in [&whole, &stopped] {
        let (ok, stderr) = seeded_study(&["--out", d.to_str().unwrap()]);
        assert!(ok, "{stderr}");
    }
    let games = |variant: &str| {
        stopped
            .join("runs")
            .join(format!("random-{variant}"))
            .join(GAMES_FILE)
    };
    let normal = fs::read_to_string(games("normal")).unwrap();
    let three: String = normal.lines().take(3).map(|l| format!("{l}\n")).collect();
    fs::write(games("normal"), three).unwrap();
    let beginner = fs::read(games("beginner")).unwrap();
    fs::write(games("beginner"), &beginner[..beginner.len() - 40]).unwrap();
    for table in ["seats.csv", "troops.csv"] {
        fs::remove_file(stopped.join(table)).unwrap();
    }
    let (ok, stderr) = seeded_study(&["--out", stopped.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert_eq!(
        fs::read_to_string(games("normal")).unwrap().lines().count(),
        4
    );
    same_tables(&whole, &stopped);
    for d in [&whole, &stopped] {
        let _ = fs::remove_dir_all(d);
    }
}

/// Checks that an SVG or HTML fragment is a well-formed tree (tags balanced and nested).
fn well_formed(text: &str) -> bool {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start..].find('>') else {
            return false;
        };
        let tag = &rest[start + 1..start + len];
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop() != Some(name) {
                return false;
            }
        } else if !tag.ends_with('/') && !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap_or("");
            if !["meta", "br"].contains(&name) {
                stack.push(name);
            }
        }
        rest = &rest[start + len + 1..];
    }
    stack.is_empty()
}

#[test]
fn a_small_real_study_renders_its_report() {
    let dir = temp_dir("report");
    let (ok, err) = small_study(&dir, "3");
    assert!(ok, "{err}");
    let md = read_report(&dir);
    for section in [
        "## Summary",
        "## First player and side",
        "## Troop values",
        "## Troops played",
        "## Special bases",
        "## Comparisons behind the summary",
    ] {
        assert!(md.contains(section), "{section} missing:\n{md}");
    }
    assert!(
        !md.contains("## Balance by skill"),
        "one preset: no skill section"
    );
    assert!(md.contains("| Castle Field |") && !md.contains("| castle_field |"));
    assert!(
        md.contains("| completion |") && !md.contains("| decisive |"),
        "{md}"
    );
    assert!(md.contains("Sample size: the median row has"), "{md}");
    let raw = fs::read_to_string(dir.join("report.md")).unwrap();
    let widest = raw
        .lines()
        .filter(|l| !l.starts_with('|'))
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 100, "prose wrapped at 100 columns: {widest}");
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(well_formed(&html), "report.html is not well formed");
    let plots = html.matches("<svg").count();
    // Two seat plots and two special-base plots; one preset has no skill plot, and no troop
    // value is estimable from 8 games, so there is no heat map.
    assert!(plots >= 4, "{plots} plots");
    assert!(
        !html.contains("src=") && !html.contains("href="),
        "self-contained: no external resource"
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    assert_eq!(json["games"], 8);
    for csv in ["seats.csv", "troops.csv", "plays.csv", "special_bases.csv"] {
        let text = fs::read_to_string(dir.join(csv)).unwrap();
        let width = text.lines().next().unwrap().split(',').count();
        assert!(text.lines().all(|l| l.split(',').count() == width), "{csv}");
    }
    // Self-play: the second game of a deal has the other colour moving first, same tiles.
    let games = fs::read_to_string(dir.join("runs/random-normal").join(GAMES_FILE)).unwrap();
    let lines: Vec<serde_json::Value> = games
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for a in &lines {
        for b in &lines {
            if a["position"] == b["position"] && a["game"] != b["game"] {
                assert_ne!(a["first"], b["first"]);
                assert_eq!(a["deal_seed"], b["deal_seed"]);
            }
        }
    }
    // The same deals in both variants: the special-base comparison is paired.
    let beginner = fs::read_to_string(dir.join("runs/random-beginner").join(GAMES_FILE)).unwrap();
    let seeds = |text: &str| {
        let mut s: Vec<u64> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["deal_seed"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        s.sort();
        s
    };
    assert_eq!(seeds(&games), seeds(&beginner));
    // Reading the study again gives the same report.
    let again = temp_dir("report-again");
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        fs::read_to_string(again.join("balance.json")).unwrap(),
        fs::read_to_string(dir.join("balance.json")).unwrap()
    );
    // Without records (result folders keep games only) every figure but the troops played
    // is the same, and the report says why that table is empty.
    for run in ["random-normal", "random-beginner"] {
        fs::remove_dir_all(dir.join("runs").join(run).join("records")).unwrap();
    }
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let bare: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(again.join("balance.json")).unwrap()).unwrap();
    // Every seat figure but the branching factor and the tension metrics, which need the
    // records' steps.
    let without_branching = |v: &serde_json::Value| {
        let mut seats = v["seats"].clone();
        for row in seats.as_array_mut().unwrap() {
            for key in RECORD_FIGURES {
                row.as_object_mut().unwrap().remove(key);
            }
        }
        seats
    };
    assert_eq!(without_branching(&bare), without_branching(&json));
    assert!(bare["seats"][0]["branching"].is_null());
    assert!(json["seats"][0]["branching"]["value"].as_f64().unwrap() > 1.0);
    let bare_md = read_report(&again);
    assert!(bare_md
        .replace("\n  ", " ")
        .contains("8 of 8 games have no record file"));
    assert!(
        !bare_md.contains("## Troops played"),
        "no empty table without records"
    );
    fs::remove_dir_all(dir).unwrap();
    fs::remove_dir_all(again).unwrap();
}

#[test]
fn an_unknown_preset_is_named_before_anything_is_played() {
    let dir = temp_dir("unknown");
    let (ok, err) = balance(&[
        "--bots",
        "random,no-such-bot",
        "--games",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("no-such-bot"), "{err}");
    assert!(!dir.join("runs").exists(), "nothing played");
}

#[test]
fn runs_of_different_settings_are_refused_naming_the_setting() {
    let (a, b) = (temp_dir("settings-a"), temp_dir("settings-b"));
    assert!(small_study(&a, "3").0 && small_study(&b, "4").0);
    let report = temp_dir("settings-report");
    let (ok, err) = balance(&[
        "--from",
        a.join("runs/random-normal").to_str().unwrap(),
        b.join("runs/random-beginner").to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("seed") && err.contains("same deals"), "{err}");
    // Changing the games of an existing study is refused too, and its games are kept.
    let before = fs::read_to_string(a.join("runs/random-normal").join(GAMES_FILE)).unwrap();
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--games",
        "4",
        "--terrains",
        "castle_field,tropical_pool",
        "--seed",
        "3",
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("games: 4 now, 2 in run.json"), "{err}");
    assert_eq!(
        fs::read_to_string(a.join("runs/random-normal").join(GAMES_FILE)).unwrap(),
        before
    );
    for d in [a, b] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_truncated_games_file_is_reported_and_its_complete_games_kept() {
    let dir = temp_dir("torn");
    assert!(small_study(&dir, "3").0);
    let file = dir.join("runs/random-normal").join(GAMES_FILE);
    let whole = fs::read_to_string(&file).unwrap();
    let torn = &whole[..whole.len() - 40];
    fs::write(&file, torn).unwrap();
    let report = temp_dir("torn-report");
    // The torn game is missing from the study: refused, naming it, unless asked for.
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("random, normal variant, ") && err.contains(": 1 of 2 games"),
        "{err}"
    );
    assert!(err.contains("--allow-incomplete"), "{err}");
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
        "--allow-incomplete",
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(report.join("balance.json")).unwrap()).unwrap();
    assert_eq!(
        json["games"], 7,
        "the torn game is not counted, the others are"
    );
    let md = read_report(&report);
    assert!(md.contains("line 4 is incomplete"), "{md}");
    assert!(
        md.find("## Incomplete study") < md.find("## Summary"),
        "said at the top: {md}"
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        torn,
        "reading changes nothing"
    );
    // A damaged line before the last is an error naming it.
    fs::write(&file, format!("garbage\n{whole}")).unwrap();
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("line 1"), "{err}");
    // A game counted twice in one file is an error naming the second line (the report reads the
    // lines one at a time and keeps one bit per game of the run to find it).
    let first = whole.lines().next().unwrap();
    fs::write(&file, format!("{whole}{first}\n")).unwrap();
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("line 5: game ") && err.contains(" is counted twice"),
        "{err}"
    );
    // Resuming the study plays the torn game again.
    fs::write(&file, torn).unwrap();
    assert!(small_study(&dir, "3").0);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    assert_eq!(json["games"], 8);
    fs::remove_dir_all(dir).unwrap();
    fs::remove_dir_all(report).unwrap();
}

#[test]
fn a_tournament_between_two_bots_is_not_a_study() {
    let dir = temp_dir("not-self-play");
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args([
            "tournament",
            "--bots",
            "random,greedy",
            "--terrains",
            "castle_field",
            "--games",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let report = temp_dir("not-self-play-report");
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("not a self-play run"), "{err}");
    fs::remove_dir_all(dir).unwrap();
}

/// A study holds every game it reads, so a game's size is what the report's memory grows by:
/// 48 bytes, with restricted play's nodes an index into the study's table (80 bytes when each
/// game held the node set itself; results/balance/README.md, *Speed*).
#[test]
fn a_study_game_takes_48_bytes() {
    assert_eq!(std::mem::size_of::<StudyGame>(), 48);
}

#[test]
fn scores_count_a_turn_cap_half() {
    let g = StudyGame {
        preset: 0,
        terrain: 0,
        variant: Variant::Normal,
        restricted: Default::default(),
        rules: 0,
        deal: 1,
        first: Colour::Blue,
        winner: None,
        end: toybattle::balance::End::TurnCap,
        turns: 300,
        lost: [[0; 8]; 2],
        record: None,
    };
    assert_eq!(g.score(Colour::Red), 0.5);
    assert_eq!(g.score(Colour::Blue), 0.5);
}

fn what_if_study(out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "--bots",
        "random",
        "--games",
        "4",
        "--terrains",
        "castle_field",
        "--variants",
        "normal",
        "--seed",
        "5",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    balance(&args)
}

fn toybattle(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A study under what-ifs: the report names them, every game follows them (all 24 tiles in
/// play, the objective ends medal wins), its records replay with `toybattle replay` and only
/// under their what-ifs.
#[test]
fn a_what_if_study_plays_reports_and_replays_its_what_ifs() {
    let dir = temp_dir("what-if");
    let (ok, err) = what_if_study(
        &dir,
        &[
            "--objective",
            "castle_field=3",
            "--removed",
            "0",
            "--racks",
            "4,4",
        ],
    );
    assert!(ok, "{err}");
    let md = read_report(&dir);
    assert!(
        md.contains(
            "what-ifs: objective 3 medals on castle_field, 0 tiles removed at setup, \
             opening racks 4 (first) and 4 (second)"
        ),
        "{md}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    assert_eq!(json["what_ifs"]["removed"], 0);
    assert_eq!(json["what_ifs"]["objectives"]["castle_field"], 3);
    let run = dir.join("runs/random-normal");
    let lines: Vec<serde_json::Value> = fs::read_to_string(run.join(GAMES_FILE))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for line in &lines {
        let path = run.join(line["record"].as_str().unwrap());
        let mut record: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(record["what_if"]["objective"], 3);
        // Per colour, written [blue, red].
        assert_eq!(record["deal"]["removed"], serde_json::json!([[], []]));
        assert_eq!(record["deal"]["reserve"][0].as_array().unwrap().len(), 24);
        if record["result"]["end"] == "medals" {
            let winner = (record["result"]["winner"] == "red") as usize;
            assert!(record["result"]["medals"][winner].as_u64().unwrap() >= 3);
        }
        // Game 1 of a self-play deal swaps the first player, which `replay` refuses as not
        // the seed's deal whatever the rules; game 0 is the seed's deal.
        if line["game"] != 0 {
            continue;
        }
        let (ok, text) = toybattle(&["replay", path.to_str().unwrap()]);
        assert!(ok, "{text}");
        // The same game without its what-ifs is not a game of the printed rules.
        record.as_object_mut().unwrap().remove("what_if");
        let stripped = dir.join("stripped.json");
        fs::write(&stripped, record.to_string()).unwrap();
        let (ok, text) = toybattle(&["replay", stripped.to_str().unwrap()]);
        assert!(!ok && text.contains("fingerprint"), "{text}");
    }
    // Resuming the study with other what-ifs is refused, naming them; its games are kept.
    let before = fs::read_to_string(run.join(GAMES_FILE)).unwrap();
    let (ok, err) = what_if_study(&dir, &["--objective", "castle_field=4"]);
    assert!(!ok && err.contains("what_ifs"), "{err}");
    assert_eq!(fs::read_to_string(run.join(GAMES_FILE)).unwrap(), before);
    // Read with a study of the printed rules, it is not mixed in: the report is the printed
    // rules', and the what-if its paired change (tests/balance_whatif.rs).
    let retail = temp_dir("what-if-retail");
    assert!(what_if_study(&retail, &[]).0);
    let report = temp_dir("what-if-mixed");
    let (ok, err) = balance(&[
        "--from",
        run.to_str().unwrap(),
        retail.join("runs/random-normal").to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let md = read_report(&report);
    assert!(
        md.contains("retail rules, compared with 1 rule what-if on the same deals")
            && md.contains(
                "- W1: objective 3 medals on castle_field, 0 tiles removed at setup, opening \
                 racks 4 (first) and 4 (second)"
            ),
        "{md}"
    );
    let md = read_report(&retail);
    assert!(md.contains("retail rules"), "{md}");
    for d in [dir, retail, report] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// What-ifs that make the game impossible are refused before anything is played, each with a
/// message naming the option and what is wrong.
#[test]
fn impossible_what_ifs_are_refused_before_playing() {
    let dir = temp_dir("what-if-bad");
    for (extra, words) in [
        (
            &["--objective", "castle_field=99"][..],
            "medal objective 99 on castle_field",
        ),
        (&["--objective", "castle_field=0"][..], "between 1 and"),
        (&["--objective", "castle_field"][..], "expected TERRAIN=N"),
        (
            &["--objective", "tropical_pool=5"][..],
            "not among the study's terrains",
        ),
        (&["--removed", "30"][..], "a reserve holds only 24"),
        (&["--racks", "3"][..], "expected FIRST,SECOND"),
        (
            &["--racks", "0,4"][..],
            "opening rack of 0 tiles for the first player",
        ),
        (&["--removed", "20", "--racks", "3,8"][..], "need 28 tiles"),
    ] {
        let (ok, err) = what_if_study(&dir, extra);
        assert!(!ok && err.contains(words), "{extra:?}: {err}");
        assert!(!dir.join("runs").exists(), "{extra:?}: nothing played");
    }
}

/// The medal-objective search is the designer's search of the objective alone: it plays each
/// candidate around the printed objective on the same deals and reports the one closest to
/// even, in report.md, balance.json and a CSV, as the designer's search does.
#[test]
fn the_objective_search_reports_every_candidate_and_the_best() {
    let dir = temp_dir("objective-search");
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--games",
        "4",
        "--variants",
        "normal",
        "--objective-search",
        "caribbean_sea",
        "--objective-spread",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // Caribbean Sea's printed objective is 5 medals (R2.4).
    for name in ["objective-minus-1", "printed", "objective-plus-1"] {
        assert!(dir
            .join(format!("designs/{name}/runs/random-normal"))
            .is_dir());
    }
    assert_eq!(fs::read_dir(dir.join("designs")).unwrap().count(), 3);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    let search = &json["design_search"];
    assert_eq!(search["parameters"], "the medal objective");
    let rows: Vec<&serde_json::Value> = search["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["terrain"] == "caribbean_sea")
        .collect();
    let mut objectives: Vec<String> = rows
        .iter()
        .map(|r| r["rules"].as_str().unwrap().to_string())
        .collect();
    objectives.sort();
    assert_eq!(
        objectives,
        ["objective 4 medals", "objective 6 medals", "printed rules"]
    );
    assert_eq!(rows[0]["rank"], 1);
    let distance = |r: &serde_json::Value| {
        let d = |f: &str| (r[f]["value"].as_f64().unwrap() - 0.5).abs();
        d("first_player").max(d("blue"))
    };
    for r in &rows {
        assert!(distance(rows[0]) <= distance(r));
    }
    for seat in json["seats"].as_array().unwrap() {
        assert_eq!(
            seat["games"], 4,
            "the report's other figures are the printed objective's"
        );
    }
    let md = read_report(&dir);
    assert!(md.contains("## Designer's search"), "{md}");
    assert!(
        md.contains("printed rules come closest to even of 3 rules tried")
            || md.contains("comes closest to even of 3 rules tried"),
        "{md}"
    );
    let csv = fs::read_to_string(dir.join("design_search.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 2 * 3,
        "Caribbean Sea and all terrains"
    );
    for (extra, words) in [
        (["--objective", "caribbean_sea=4"], "leave out --objective"),
        (["--racks", "4,4"], "leave out --racks"),
    ] {
        let mut args = vec!["--bots", "random", "--objective-search", "caribbean_sea"];
        args.extend(extra);
        args.extend(["--out", dir.to_str().unwrap()]);
        let (ok, err) = balance(&args);
        assert!(!ok && err.contains(words), "{err}");
    }
    fs::remove_dir_all(dir).unwrap();
}

/// A normal-variant study of `bots` on Castle Field and Caribbean Sea, 2 games each, seed 9.
fn castle_and_sea_study(out: &Path, bots: &str, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "--bots",
        bots,
        "--games",
        "2",
        "--terrains",
        "castle_field,caribbean_sea",
        "--variants",
        "normal",
        "--seed",
        "9",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    balance(&args)
}

fn restricted_study(out: &Path) -> (bool, String) {
    castle_and_sea_study(out, "random", &["--restricted-play"])
}

/// Restricted play from the command line: one run per special base on the deals of the
/// normal games, a "Restricted play" section in every report file, records that carry their
/// restriction and replay only with it, and a run folder that refuses another restriction.
#[test]
fn a_restricted_play_study_reports_each_special_base_and_replays_its_records() {
    let dir = temp_dir("restricted");
    let (ok, err) = restricted_study(&dir);
    assert!(ok, "{err}");
    // Castle Field's four special bases; Caribbean Sea has none.
    let runs: Vec<String> =
        serde_json::from_str(&fs::read_to_string(dir.join("study.json")).unwrap()).unwrap();
    let restricted: Vec<&String> = runs.iter().filter(|r| r.contains("restricted")).collect();
    assert_eq!(
        restricted,
        ["15", "16", "20", "21"]
            .map(|n| format!("random-normal-restricted-castle_field-{n}"))
            .iter()
            .collect::<Vec<_>>()
    );
    let md = read_report(&dir);
    let section = &md[md.find("## Restricted play").expect("the section")..];
    for n in ["15", "16", "20", "21"] {
        assert!(
            section.contains(&format!("| Castle Field | {n} | 2 |")),
            "{section}"
        );
    }
    assert!(!section.contains("Caribbean Sea"), "{section}");
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<h2>Restricted play</h2>") && well_formed(&html));
    assert!(html.contains("Restricted play: change in the first player"));
    let csv = fs::read_to_string(dir.join("restricted_play.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    let rows = json["restricted_play"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["restricted"], serde_json::json!([15]));
    assert!(
        rows[0]["first_player"]["value"].is_number(),
        "paired with the normal games"
    );
    // The normal games' figures leave the restricted ones out: 2 games per terrain.
    assert!(md.contains("| Castle Field | 2 |"), "{md}");

    // Records carry the restriction and replay under it only.
    let run = dir.join("runs/random-normal-restricted-castle_field-20");
    let config: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(config["terrains"], serde_json::json!(["castle_field"]));
    assert_eq!(
        config["what_ifs"]["restricted"]["castle_field"],
        serde_json::json!([20])
    );
    let line: serde_json::Value = fs::read_to_string(run.join(GAMES_FILE))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["game"] == 0)
        .unwrap();
    let path = run.join(line["record"].as_str().unwrap());
    let mut record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(record["what_if"]["restricted"], serde_json::json!([20]));
    let (ok, text) = toybattle(&["replay", path.to_str().unwrap()]);
    assert!(ok, "{text}");
    record["what_if"]
        .as_object_mut()
        .unwrap()
        .remove("restricted");
    let stripped = dir.join("stripped.json");
    fs::write(&stripped, record.to_string()).unwrap();
    let (ok, text) = toybattle(&["replay", stripped.to_str().unwrap()]);
    assert!(!ok && text.contains("fingerprint"), "{text}");

    // The report is written again from the folders alone.
    let again = dir.join("again");
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        fs::read_to_string(again.join("restricted_play.csv")).unwrap(),
        csv
    );
    // Restricted runs alone have nothing to be compared with, and the report says so.
    let alone = dir.join("alone");
    let (ok, err) = balance(&[
        "--from",
        dir.join("runs/random-normal-restricted-castle_field-16")
            .to_str()
            .unwrap(),
        "--out",
        alone.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let md = read_report(&alone);
    assert!(md.contains("no normal-variant run of random"), "{md}");
    // A restricted run must play exactly the terrains it restricts.
    let fifteen = dir.join("runs/random-normal-restricted-castle_field-15/run.json");
    let original = fs::read_to_string(&fifteen).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&original).unwrap();
    config["terrains"] = serde_json::json!(["castle_field", "caribbean_sea"]);
    fs::write(&fifteen, config.to_string()).unwrap();
    let (ok, err) = balance(&[
        "--from",
        dir.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("plays exactly the terrains it restricts"),
        "{err}"
    );
    fs::write(&fifteen, original).unwrap();

    // A run folder of one restriction refuses to resume as another; its games are kept.
    let other = dir.join("runs/random-normal-restricted-castle_field-21");
    let kept = fs::read_to_string(other.join(GAMES_FILE)).unwrap();
    fs::remove_dir_all(&other).unwrap();
    copy_dir(&run, &other);
    let (ok, err) = restricted_study(&dir);
    assert!(
        !ok && err.contains("what_ifs") && err.contains("[20]"),
        "{err}"
    );
    assert_ne!(fs::read_to_string(other.join(GAMES_FILE)).unwrap(), kept);
    assert_eq!(
        fs::read_to_string(other.join(GAMES_FILE)).unwrap(),
        fs::read_to_string(run.join(GAMES_FILE)).unwrap(),
        "the folder's games are kept"
    );
    fs::remove_dir_all(dir).unwrap();
}

/// Adding a preset to a study folder, with a command that does not ask for restricted play,
/// plays the new preset's runs and keeps the restricted-play runs already there, in
/// `study.json` and in the report.
#[test]
fn a_study_resumed_with_another_preset_keeps_its_earlier_runs() {
    let dir = temp_dir("grown");
    let (ok, err) = restricted_study(&dir);
    assert!(ok, "{err}");
    let before: Vec<String> =
        serde_json::from_str(&fs::read_to_string(dir.join("study.json")).unwrap()).unwrap();
    let (ok, err) = castle_and_sea_study(&dir, "random,greedy", &[]);
    assert!(ok, "{err}");
    let after: Vec<String> =
        serde_json::from_str(&fs::read_to_string(dir.join("study.json")).unwrap()).unwrap();
    let mut expected = vec!["random-normal".to_string(), "greedy-normal".to_string()];
    expected.extend(before.iter().filter(|r| r.contains("restricted")).cloned());
    assert_eq!(after, expected);
    let md = read_report(&dir);
    assert!(md.contains("## Restricted play"), "{md}");
    assert!(md.contains("| Castle Field | 20 | 2 |"), "{md}");
    assert!(md.contains("greedy"), "{md}");
    fs::remove_dir_all(dir).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Restricted play needs the normal games it is compared with.
#[test]
fn restricted_play_without_the_normal_variant_is_refused() {
    let dir = temp_dir("restricted-beginner");
    let (ok, err) = balance(&[
        "--bots",
        "random",
        "--variants",
        "beginner",
        "--restricted-play",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("add normal to --variants"), "{err}");
    assert!(!dir.join("runs").exists(), "nothing played");
}

/// Restricted play's figures on a constructed study: blue wins every normal game, the first
/// player every restricted one, 3 turns later, on the same deals; the row says +50 pp for the
/// first player, −50 pp for blue and +3 turns, and the normal figures leave the restricted
/// games out.
#[test]
fn restricted_play_is_the_paired_change_against_the_normal_games() {
    use toybattle::balance::{End, Study};
    use toybattle::rules::Restricted;
    use toybattle::terrain::NodeId;
    let game = |deal: u64, first: Colour, first_wins: bool, restricted: u16, turns| StudyGame {
        preset: 0,
        terrain: 0,
        variant: Variant::Normal,
        restricted,
        rules: 0,
        deal,
        first,
        winner: Some(if first_wins { first } else { first.opponent() }),
        end: End::Medals,
        turns,
        lost: [[0; 8]; 2],
        record: None,
    };
    let fifteen = Restricted::of([NodeId(15)]);
    // Restricted games name their nodes by index: 1 is `restrictions[0]`, node 15.
    let mut games = Vec::new();
    for deal in 0..30 {
        for first in Colour::BOTH {
            games.push(game(deal, first, first == Colour::Blue, 0, 20));
            games.push(game(deal, first, true, 1, 23));
        }
    }
    let study = Study {
        presets: vec!["greedy".into()],
        terrains: vec!["castle_field".into()],
        terrain_names: vec!["Castle Field".into()],
        games,
        what_ifs: Default::default(),
        compared: Vec::new(),
        restrictions: vec![fifteen],
    };
    let report = analyse(&study);
    let [row] = report.restricted_play.as_slice() else {
        panic!("one restricted node: {:?}", report.restricted_play)
    };
    assert_eq!(
        (row.terrain.as_str(), row.restricted, row.games),
        ("castle_field", fifteen, 60)
    );
    let first = row.change.first_player.unwrap();
    assert!(
        (first.value - 0.5).abs() < 1e-12 && first.n == 30,
        "{first:?}"
    );
    assert!((row.change.turns.unwrap().value - 3.0).abs() < 1e-12);
    // Blue wins every normal game (as first player, and when red moves first and loses) and
    // half of the restricted ones.
    assert!((row.change.blue.unwrap().value + 0.5).abs() < 1e-12);
    let normal = report
        .seats
        .iter()
        .find(|s| s.terrain == "castle_field")
        .unwrap();
    assert_eq!(normal.games, 60, "restricted games are not pooled in");
    assert!((normal.first_player.unwrap().value - 0.5).abs() < 1e-12);
}

/// The seat figures read from the records' steps (absent without the records).
const RECORD_FIGURES: [&str; 4] = ["branching", "lead_changes", "drama", "decisiveness_moves"];

/// A CSV table of a study folder without the columns named `without` (figures that need the
/// records).
fn table_without(dir: &Path, table: &str, without: &[&str]) -> Vec<Vec<String>> {
    let text = fs::read_to_string(dir.join(table)).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let keep: Vec<usize> = (0..rows[0].len())
        .filter(|&i| !without.iter().any(|w| rows[0][i].starts_with(w)))
        .collect();
    rows.iter()
        .map(|r| keep.iter().map(|&i| r[i].to_string()).collect())
        .collect()
}

/// A study played with `--no-records` writes no record file, resumes after being stopped
/// midway without playing its finished games again, and reports every figure that does not
/// need the records exactly as the same study with records; the report says what it cannot
/// compute.
#[test]
fn a_study_without_records_resumes_and_reports_the_figures_of_the_study_with_them() {
    let (with, without) = (temp_dir("with-records"), temp_dir("without-records"));
    let (ok, stderr) = seeded_study(&["--out", with.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let (ok, stderr) = seeded_study(&["--no-records", "--out", without.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let run = |variant: &str| without.join("runs").join(format!("random-{variant}"));
    for variant in ["normal", "beginner"] {
        assert!(!run(variant).join("records").exists(), "{variant}");
    }
    // Stopped after three games (as by kill -9, the report not yet written).
    let games = fs::read_to_string(run("normal").join(GAMES_FILE)).unwrap();
    let three: String = games.lines().take(3).map(|l| format!("{l}\n")).collect();
    fs::write(run("normal").join(GAMES_FILE), &three).unwrap();
    fs::remove_file(without.join("seats.csv")).unwrap();
    let (ok, stderr) = seeded_study(&["--no-records", "--out", without.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let after = fs::read_to_string(run("normal").join(GAMES_FILE)).unwrap();
    assert_eq!(after.lines().count(), 4);
    assert!(
        after.starts_with(&three),
        "finished games were played again"
    );
    // Every table equal but the figures read from the records' steps.
    for table in [
        "seats.csv",
        "troops.csv",
        "troops_by_terrain.csv",
        "troop_homogeneity.csv",
        "special_bases.csv",
        "comparisons.csv",
    ] {
        assert_eq!(
            table_without(&with, table, &RECORD_FIGURES),
            table_without(&without, table, &RECORD_FIGURES),
            "{table}"
        );
    }
    let md = read_report(&without);
    assert!(
        md.contains(
            "8 of 8 games were played without a record (--no-records or --records-sample): the \
             troops-played table, the branching factor and the tension metrics need the records \
             and are not computed"
        ),
        "{md}"
    );
    for d in [&with, &without] {
        let _ = fs::remove_dir_all(d);
    }
}

/// Ludii's lead change counts the turns whose leader differs from the turn before's; either
/// player's estimates give the same count.
#[test]
fn lead_changes_count_every_change_of_the_expected_winner() {
    use toybattle::balance::tension::lead_changes;
    assert_eq!(lead_changes(&[0.6, 0.4, 0.6]), 2);
    assert_eq!(lead_changes(&[0.4, 0.6, 0.4]), 2);
    assert_eq!(lead_changes(&[0.6, 0.7, 0.9, 0.55]), 0);
    // A tie at exactly 1/2 is a leader of its own (both players), as in Ludii.
    assert_eq!(lead_changes(&[0.6, 0.5, 0.6]), 2);
    assert_eq!(lead_changes(&[0.7]), 0);
    assert_eq!(lead_changes(&[]), 0);
}

/// Ludii's drama (average): the eventual winner's mean shortfall below the leader.
#[test]
fn drama_is_zero_when_the_winner_led_throughout_and_grows_with_the_time_spent_behind() {
    use toybattle::balance::tension::drama;
    assert_eq!(drama(&[0.55, 0.7, 0.9, 0.99]), 0.0);
    assert!((drama(&[0.25, 0.25]) - 0.5).abs() < 1e-12);
    // Behind by 0.2 (0.4 against 0.6) one turn in two.
    assert!((drama(&[0.4, 0.6]) - 0.1).abs() < 1e-12);
    assert!(drama(&[0.1, 0.6]) > drama(&[0.4, 0.6]));
}

/// Ludii's decisiveness: the share of the game before the winner's estimate first exceeds the
/// best estimate the loser ever had.
#[test]
fn decisiveness_is_the_share_of_the_game_before_the_winner_passed_the_losers_best() {
    use toybattle::balance::tension::decisiveness;
    // Decided at its last turn: the loser's best (0.7) is never passed before the end.
    assert_eq!(decisiveness(&[0.5, 0.4, 0.3, 0.45, 0.4]), 1.0);
    // The winner passes the loser's best only at the last of ten turns: ~1.
    let mut late = vec![0.45; 9];
    late.push(0.6);
    assert!((decisiveness(&late) - 0.9).abs() < 1e-12);
    // Ahead beyond anything the loser reaches from the first turn: decided at once.
    assert_eq!(decisiveness(&[0.8, 0.9, 0.95]), 0.0);
    // Loser's best 0.6 (at the second turn), passed at the third of four.
    assert_eq!(decisiveness(&[0.5, 0.4, 0.7, 0.8]), 0.5);
}

/// A game's metrics read blue's estimates from the side of the eventual winner; a game stopped
/// by the turn cap has lead changes but no drama or decisiveness.
#[test]
fn tension_reads_the_estimates_from_the_winners_side() {
    use toybattle::balance::tension::Tension;
    let blue = [0.7, 0.6, 0.4, 0.2];
    let red_won = Tension::of(&blue, Some(Colour::Red)).unwrap();
    assert_eq!(red_won.lead_changes, 1);
    // Red's estimates 0.3, 0.4, 0.6, 0.8: behind by 0.4 and 0.2 over four turns.
    assert!((red_won.drama.unwrap() - 0.15).abs() < 1e-12);
    // Blue's best 0.7 is passed by red at the fourth turn (0.8).
    assert_eq!(red_won.decisiveness, Some(0.75));
    let blue_won = Tension::of(&blue, Some(Colour::Blue)).unwrap();
    assert_eq!(blue_won.decisiveness, Some(1.0));
    let capped = Tension::of(&blue, None).unwrap();
    assert_eq!((capped.lead_changes, capped.drama), (1, None));
    assert_eq!(capped.decisiveness, None);
    assert_eq!(Tension::of(&[], Some(Colour::Blue)), None);
}

/// A tiny real study: every game's record is replayed with one win estimate per turn, and the
/// report gives the tension metrics per terrain and variant (JSON, CSV, Markdown) within their
/// ranges; without records they are absent.
#[test]
fn a_recorded_study_reports_the_tension_metrics_from_one_estimate_per_round() {
    use toybattle::balance::load::placements;
    use toybattle::balance::tension::{Estimates, Tension};
    use toybattle::record::GameRecord;
    use toybattle::rules::Game;
    let dir = temp_dir("tension");
    let (ok, stderr) = seeded_study(&["--out", dir.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let records = dir
        .join("runs")
        .join("random-normal")
        .join("records")
        .join("castle_field");
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let mut read = 0;
    for entry in fs::read_dir(&records).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        let record: GameRecord = serde_json::from_str(&text).unwrap();
        // One estimate per round: per turn of the first player in which a decision was made (a
        // player blocked at the start of the last turn ends the game without one), each a
        // probability.
        let mut s = game.initial_state(&record.deal);
        let mut estimates = Estimates::default();
        for step in &record.steps {
            estimates.read(&game, &s);
            let d = toybattle::rules::Decision::parse(step, game.terrain()).unwrap();
            game.apply(&mut s, d).unwrap();
        }
        let rounds = usize::from(s.turn()).div_ceil(2);
        let read_rounds = estimates.blue.len();
        assert!(
            read_rounds == rounds || read_rounds + 1 == rounds,
            "{read_rounds} of {rounds}"
        );
        assert!(estimates.blue.iter().all(|p| (0.0..=1.0).contains(p)));
        assert!(
            estimates.blue.windows(2).any(|w| w[0] != w[1]),
            "a moving estimate"
        );
        let tension = placements(&game, &record).unwrap().tension;
        assert_eq!(
            tension,
            Tension::of(&estimates.blue, record.result.winner),
            "{text}"
        );
        // Read from the right side: at the last round's start the estimate favours the eventual
        // winner (0.81 to 0.97 in these four games).
        let last = *estimates.blue.last().unwrap();
        let winners = record.result.winner.map(|w| match w {
            Colour::Blue => last,
            Colour::Red => 1.0 - last,
        });
        assert!(winners.is_none_or(|p| p > 0.75), "{last} {text}");
        read += 1;
    }
    assert_eq!(read, 4);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("balance.json")).unwrap()).unwrap();
    for row in json["seats"].as_array().unwrap() {
        let value = |key: &str| row[key]["value"].as_f64().unwrap();
        assert!(value("lead_changes") >= 0.0, "{row}");
        for key in ["drama", "decisiveness_moves"] {
            assert!((0.0..=1.0).contains(&value(key)), "{key}: {row}");
        }
    }
    let seats = fs::read_to_string(dir.join("seats.csv")).unwrap();
    assert!(
        seats.lines().next().unwrap().contains("lead_changes_lo"),
        "{seats}"
    );
    let md = read_report(&dir);
    assert!(
        md.contains("| lead changes | drama | decisiveness |"),
        "{md}"
    );
    let bare = temp_dir("tension-bare");
    let (ok, stderr) = seeded_study(&["--no-records", "--out", bare.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(bare.join("balance.json")).unwrap()).unwrap();
    for key in ["lead_changes", "drama", "decisiveness_moves"] {
        assert!(json["seats"][0][key].is_null(), "{key}");
    }
    for d in [&dir, &bare] {
        let _ = fs::remove_dir_all(d);
    }
}
