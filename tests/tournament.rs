//! The tournament runner end to end, with fast bots (random, greedy) and few games.

mod cli_support;

use cli_support::{games_of, python3, python_script, run_cli, run_tournament_in};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toybattle::record::{replay, GameRecord};
use toybattle::rules::{Colour, Game, Variant};
use toybattle::terrain;
use toybattle::tournament::config::{Records, RUN_FORMAT};
use toybattle::tournament::lock::RunLock;
use toybattle::tournament::stats::{
    sprt_decide, wilson_interval, Pentanomial, SprtDecision, SprtParams, Z95,
};
use toybattle::tournament::store::{GameLine, GAMES_FILE};
use toybattle::tournament::{
    compare_runs, merge_runs, pool_runs, run_tournament, BotError, CompareError, CompareSide,
    ConfigError, LockError, MergeError, MergeOptions, PoolError, RecordProblem, RunConfig,
    RunOptions, RunReport, Shard, StoreError, TournamentError,
};

const TERRAINS: [&str; 2] = ["castle_field", "tropical_pool"];

fn config(bots: &[&str], games: u32) -> RunConfig {
    RunConfig {
        format: RUN_FORMAT.into(),
        bots: bots.iter().map(|s| s.to_string()).collect(),
        gauntlet: None,
        terrains: TERRAINS.iter().map(|s| s.to_string()).collect(),
        terrain_file_hash: None,
        games,
        seed: 11,
        variant: Variant::Normal,
        max_turns: 300,
        sprt: None,
        ext_timeout_ms: 10_000,
        ext_startup_ms: 10_000,
        versions: BTreeMap::new(),
        shard: None,
        what_ifs: Default::default(),
        records: Default::default(),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toybattle-tournament-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&d);
    d
}

fn run(config: &RunConfig, out: &Path, concurrency: usize) -> Result<RunReport, TournamentError> {
    run_tournament_in(config, out, concurrency)
}

/// Game lines without the thinking times, which differ between runs.
fn timeless(mut games: Vec<GameLine>) -> Vec<GameLine> {
    for g in &mut games {
        g.think_ms = [0.0; 2];
    }
    games
}

fn summary_json(dir: &Path) -> String {
    fs::read_to_string(dir.join("summary.json")).unwrap()
}

#[test]
fn every_deal_is_played_twice_with_the_seats_swapped() {
    let out = temp_dir("pairs");
    let report = run(&config(&["random", "greedy"], 4), &out, 2).unwrap();
    assert_eq!((report.played, report.summary.games), (8, 8));
    let games = games_of(&out);
    for pair in games.chunks(2) {
        let (g0, g1) = (&pair[0], &pair[1]);
        assert_eq!((g0.position, g0.game, g1.game), (g1.position, 0, 1));
        assert_eq!(g0.deal_seed, g1.deal_seed);
        assert_eq!((g0.blue.as_str(), g0.red.as_str()), ("random", "greedy"));
        assert_eq!((g1.blue.as_str(), g1.red.as_str()), ("greedy", "random"));
        assert_eq!(g0.first, g1.first, "the deal fixes the first colour");
        assert_ne!(g0.first_bot, g1.first_bot, "each bot moves first once");
    }
    fs::remove_dir_all(out).unwrap();
}

#[test]
fn records_replay_and_match_their_game_lines() {
    let out = temp_dir("records");
    run(&config(&["random", "greedy"], 2), &out, 2).unwrap();
    for g in games_of(&out) {
        let record: GameRecord =
            serde_json::from_str(&fs::read_to_string(out.join(&g.record)).unwrap()).unwrap();
        let game = Game::builtin(&g.terrain, g.variant).unwrap();
        let replayed = replay(&game, &record).unwrap();
        assert_eq!(replayed.result.end, g.end);
        assert_eq!(replayed.result.turns, g.turns);
        assert_eq!(record.seed, g.deal_seed);
        let winner = g
            .winner_colour
            .map(|c| if c == Colour::Blue { &g.blue } else { &g.red });
        assert_eq!(winner, g.winner.as_ref());
    }
    fs::remove_dir_all(out).unwrap();
}

#[test]
fn same_seed_gives_the_same_games_whatever_the_concurrency() {
    let (one, two) = (temp_dir("det1"), temp_dir("det2"));
    let c = config(&["random", "greedy"], 4);
    run(&c, &one, 1).unwrap();
    run(&c, &two, 2).unwrap();
    assert_eq!(timeless(games_of(&one)), timeless(games_of(&two)));
    assert_eq!(summary_json(&one), summary_json(&two));
    let other = temp_dir("det3");
    run(&RunConfig { seed: 12, ..c }, &other, 2).unwrap();
    assert_ne!(timeless(games_of(&one)), timeless(games_of(&other)));
    for d in [one, two, other] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn resume_after_a_kill_loses_and_doubles_nothing() {
    let (whole, broken) = (temp_dir("whole"), temp_dir("broken"));
    let c = config(&["random", "greedy"], 6);
    run(&c, &whole, 2).unwrap();
    run(&c, &broken, 2).unwrap();
    // A kill -9 mid-write: the last two lines lost, the one before torn in the middle.
    let path = broken.join(GAMES_FILE);
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() - 3].join("\n") + "\n";
    let torn = &lines[lines.len() - 3][..40];
    fs::write(&path, format!("{kept}{torn}")).unwrap();
    fs::remove_file(broken.join("summary.json")).unwrap();
    let report = run(&c, &broken, 2).unwrap();
    assert_eq!(report.torn.map(|t| t.line), Some(lines.len() - 2));
    assert_eq!((report.resumed, report.played), (lines.len() - 3, 3));
    assert_eq!(timeless(games_of(&whole)), timeless(games_of(&broken)));
    assert_eq!(summary_json(&whole), summary_json(&broken));
    // A second rerun plays nothing.
    let again = run(&c, &broken, 2).unwrap();
    assert_eq!((again.played, again.torn), (0, None));
    for d in [whole, broken] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// A record deleted, one damaged and one replaced by another game's: the resume finds all
/// three, plays those games again from their deals, and ends with the games of an untouched
/// run (random and greedy are deterministic for a seed).
#[test]
fn resume_replays_games_whose_record_is_missing_damaged_or_another() {
    let (whole, broken) = (temp_dir("rec-whole"), temp_dir("rec-broken"));
    let c = config(&["random", "greedy"], 4);
    run(&c, &whole, 2).unwrap();
    run(&c, &broken, 2).unwrap();
    let games = games_of(&broken);
    fs::remove_file(broken.join(&games[1].record)).unwrap();
    let damaged = broken.join(&games[4].record);
    let text = fs::read_to_string(&damaged).unwrap();
    fs::write(&damaged, &text[..text.len() / 2]).unwrap();
    fs::copy(broken.join(&games[0].record), broken.join(&games[6].record)).unwrap();
    let report = run(&c, &broken, 2).unwrap();
    assert_eq!((report.resumed, report.played), (5, 3));
    assert!(report.summary.complete);
    assert_eq!(timeless(games_of(&whole)), timeless(games_of(&broken)));
    assert_eq!(summary_json(&whole), summary_json(&broken));
    for g in games_of(&broken) {
        let record: GameRecord =
            serde_json::from_str(&fs::read_to_string(broken.join(&g.record)).unwrap()).unwrap();
        assert_eq!((record.seed, &record.terrain), (g.deal_seed, &g.terrain));
        replay(&Game::builtin(&g.terrain, g.variant).unwrap(), &record).unwrap();
    }
    for d in [whole, broken] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// A run folder checked out without its `records/` (results/ commits none): the resume keeps
/// the counted games, rewrites their lines to name no record, plays only the rest (with
/// records), and a second resume, when `records/` holds the new games' records, keeps them all.
#[test]
fn resume_keeps_the_counted_games_of_a_folder_without_its_records() {
    let (whole, copy) = (temp_dir("norec-whole"), temp_dir("norec-copy"));
    let c = config(&["random", "greedy"], 4);
    run(&c, &whole, 2).unwrap();
    run(&c, &copy, 2).unwrap();
    let text = fs::read_to_string(copy.join("games.jsonl")).unwrap();
    let first: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    fs::write(copy.join("games.jsonl"), first).unwrap();
    fs::remove_dir_all(copy.join("records")).unwrap();
    let report = run(&c, &copy, 2).unwrap();
    assert_eq!((report.resumed, report.played), (5, 3));
    let games = games_of(&copy);
    let (unrecorded, recorded): (Vec<&GameLine>, Vec<&GameLine>) =
        games.iter().partition(|g| g.record.is_empty());
    assert_eq!((unrecorded.len(), recorded.len()), (5, 3));
    assert!(recorded.iter().all(|g| copy.join(&g.record).is_file()));
    let unlinked = |games: Vec<GameLine>| {
        let mut games = timeless(games);
        games.iter_mut().for_each(|g| g.record.clear());
        games.sort_by_key(GameLine::key);
        games
    };
    assert_eq!(unlinked(games_of(&whole)), unlinked(games));
    assert_eq!(summary_json(&whole), summary_json(&copy));
    let again = run(&c, &copy, 2).unwrap();
    assert_eq!((again.resumed, again.played), (8, 0));
    for d in [whole, copy] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn different_settings_in_the_same_folder_are_refused() {
    let out = temp_dir("settings");
    let c = config(&["random", "greedy"], 2);
    run(&c, &out, 2).unwrap();
    let e = run(
        &RunConfig {
            games: 4,
            seed: 5,
            ..c
        },
        &out,
        2,
    )
    .unwrap_err();
    assert!(
        matches!(&e, TournamentError::Store(StoreError::Settings { differences, .. }) if differences.len() == 2),
        "{e:?}"
    );
    let e = e.to_string();
    assert!(e.contains("games: 4 now, 2 in run.json"), "{e}");
    assert!(e.contains("seed: 5 now, 11 in run.json"), "{e}");
    let stray = temp_dir("stray");
    fs::create_dir_all(&stray).unwrap();
    fs::write(stray.join("notes.txt"), "mine").unwrap();
    let e = run(&config(&["random", "greedy"], 2), &stray, 1).unwrap_err();
    assert!(
        matches!(e, TournamentError::Store(StoreError::NotEmpty { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("not empty"), "{e}");
    for d in [out, stray] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_corrupt_line_in_the_middle_is_an_error_naming_it() {
    let out = temp_dir("corrupt");
    let c = config(&["random", "greedy"], 2);
    run(&c, &out, 2).unwrap();
    let path = out.join(GAMES_FILE);
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[1] = "{\"run\": 3}".into();
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let e = run(&c, &out, 2).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::Store(StoreError::NotAGameLine { line: 2, .. })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("games.jsonl line 2"), "{e}");
    fs::remove_dir_all(out).unwrap();
}

#[test]
fn merged_shards_give_the_single_run_summary() {
    let single = temp_dir("single");
    let c = config(&["random", "greedy"], 4);
    run(&c, &single, 2).unwrap();
    let shards: Vec<PathBuf> = (1..=3).map(|k| temp_dir(&format!("shard{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        let shard = Some(Shard {
            index: k as u32 + 1,
            count: 3,
        });
        run(&RunConfig { shard, ..c.clone() }, dir, 1).unwrap();
    }
    let merged = temp_dir("merged");
    let options = |inputs: Vec<PathBuf>, out: &Path| MergeOptions {
        inputs,
        out: out.to_path_buf(),
        allow_incomplete: false,
        terrain_file: None,
    };
    let report = merge_runs(&options(shards.clone(), &merged)).unwrap();
    assert!(report.missing.is_empty());
    assert_eq!(summary_json(&single), summary_json(&merged));
    assert_eq!(timeless(games_of(&single)), timeless(games_of(&merged)));
    // The merged folder is locked while a merge writes it.
    let held = RunLock::acquire(&merged).unwrap();
    let e = merge_runs(&options(shards.clone(), &merged)).unwrap_err();
    assert!(
        matches!(e, TournamentError::Lock(LockError::Held { .. })),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("in use by another toybattle run"),
        "{e}"
    );
    drop(held);
    // Coverage: a shard left out, or given twice.
    let e = merge_runs(&options(shards[..2].to_vec(), &temp_dir("m2"))).unwrap_err();
    assert!(
        matches!(&e, TournamentError::Merge(MergeError::Missing { missing }) if !missing.is_empty()),
        "{e:?}"
    );
    assert!(e.to_string().contains("in none of the inputs"), "{e}");
    let twice = vec![shards[0].clone(), shards[0].clone(), shards[1].clone()];
    let e = merge_runs(&options(twice, &temp_dir("m3"))).unwrap_err();
    assert!(
        matches!(&e, TournamentError::Merge(MergeError::Duplicates { duplicates }) if !duplicates.is_empty()),
        "{e:?}"
    );
    assert!(e.to_string().contains("appear twice"), "{e}");
    // No input, an input that is no run, the destination among the inputs.
    let e = merge_runs(&options(vec![], &temp_dir("m4"))).unwrap_err();
    assert!(
        matches!(e, TournamentError::Merge(MergeError::NoInput)),
        "{e:?}"
    );
    fs::create_dir_all(temp_dir("m4")).unwrap();
    let e = merge_runs(&options(vec![temp_dir("m4")], &temp_dir("m5"))).unwrap_err();
    assert!(
        matches!(e, TournamentError::Merge(MergeError::NotARun { .. })),
        "{e:?}"
    );
    let e = merge_runs(&options(shards.clone(), &shards[0])).unwrap_err();
    assert!(
        matches!(e, TournamentError::Merge(MergeError::OutIsInput { .. })),
        "{e:?}"
    );
    // A folder of another run.
    let other = temp_dir("other");
    run(&RunConfig { seed: 99, ..c }, &other, 2).unwrap();
    let e = merge_runs(&options(
        vec![shards[0].clone(), other.clone()],
        &temp_dir("m5"),
    ))
    .unwrap_err();
    assert!(
        matches!(&e, TournamentError::Merge(MergeError::OtherRun { differences, .. })
            if differences.iter().any(|d| d.starts_with("seed"))),
        "{e:?}"
    );
    assert!(e.to_string().contains("seed"), "{e}");
    // A damaged record, then another game's record, in a shard: refused, naming the shard and
    // the file, and nothing is written to the destination.
    let games = games_of(&shards[1]);
    let file = shards[1].join(&games[0].record);
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, &text[..text.len() / 2]).unwrap();
    let e = merge_runs(&options(shards.clone(), &temp_dir("m6"))).unwrap_err();
    assert!(
        matches!(
            &e,
            TournamentError::Merge(MergeError::BadRecord {
                problem: RecordProblem::Damaged { .. },
                ..
            })
        ),
        "{e:?}"
    );
    let e = e.to_string();
    assert!(e.contains(&shards[1].display().to_string()), "{e}");
    assert!(e.contains(&games[0].record), "{e}");
    assert!(e.contains("damaged"), "{e}");
    assert!(!temp_dir("m6").join("games.jsonl").exists());
    // Shard 1 holds one deal, so the other game comes from shard 0.
    let other_game = games_of(&shards[0])
        .into_iter()
        .find(|g| g.deal_seed != games[0].deal_seed)
        .unwrap();
    fs::copy(shards[0].join(&other_game.record), &file).unwrap();
    let e = merge_runs(&options(shards.clone(), &temp_dir("m6"))).unwrap_err();
    assert!(
        matches!(
            &e,
            TournamentError::Merge(MergeError::BadRecord {
                problem: RecordProblem::OtherGame { fields },
                ..
            }) if fields.contains(&"deal seed")
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("deal seed"), "{e}");
    fs::write(&file, text).unwrap();
    // A game line of a deal the run does not play.
    let games_file = shards[2].join(GAMES_FILE);
    let lines = fs::read_to_string(&games_file).unwrap();
    let mut stray = games_of(&shards[2])[0].clone();
    stray.position = 9999;
    fs::write(
        &games_file,
        format!("{lines}{}\n", serde_json::to_string(&stray).unwrap()),
    )
    .unwrap();
    let e = merge_runs(&options(shards.clone(), &temp_dir("m6"))).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::Merge(MergeError::NotScheduled { deal: 9999, .. })
        ),
        "{e:?}"
    );
    fs::write(&games_file, lines).unwrap();
    merge_runs(&options(shards.clone(), &temp_dir("m6"))).unwrap();
    for d in shards.into_iter().chain([single, merged, other]) {
        fs::remove_dir_all(d).unwrap();
    }
    for m in ["m2", "m3", "m4", "m5", "m6"] {
        let _ = fs::remove_dir_all(temp_dir(m));
    }
}

#[test]
fn summary_numbers_are_the_statistics_of_the_counted_games() {
    let out = temp_dir("stats");
    let report = run(&config(&["random", "greedy"], 6), &out, 2).unwrap();
    let games = games_of(&out);
    let s = &report.summary.pairings[0].overall;
    let score: f64 = games.iter().map(GameLine::score_a).sum();
    assert_eq!(s.score_a.count, score);
    assert_eq!(
        (s.score_a.lo, s.score_a.hi),
        wilson_interval(score, games.len() as f64, Z95)
    );
    let mut p = Pentanomial::default();
    for pair in games.chunks(2) {
        p.add_pair(pair[0].score_a(), pair[1].score_a());
    }
    assert_eq!(s.pentanomial, p);
    assert_eq!(s.elo, p.elo_estimate());
    let first = games
        .iter()
        .filter(|g| g.winner_colour == Some(g.first))
        .count();
    assert_eq!(s.sides.first_player_wins.count, first as f64);
    let turns: f64 = games.iter().map(|g| g.turns as f64).sum::<f64>() / games.len() as f64;
    assert_eq!(report.summary.overall.mean_turns, Some(turns));
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 3 + 3,
        "header, pairing rows, terrain rows"
    );
    fs::remove_dir_all(out).unwrap();
}

#[test]
fn sprt_stops_when_the_test_decides() {
    let out = temp_dir("sprt");
    let c = RunConfig {
        sprt: Some("0,100".parse::<SprtParams>().unwrap()),
        ..config(&["greedy", "random"], 100)
    };
    let report = run(&c, &out, 2).unwrap();
    let sprt = report.summary.sprt.clone().unwrap();
    assert_eq!(sprt.decision, SprtDecision::H1, "{}", sprt.describe());
    assert!(sprt.llr >= sprt.upper);
    assert!(report.summary.games < report.summary.expected_games);
    assert!(report.markdown.contains("H1 accepted"));
    let three = RunConfig {
        sprt: c.sprt,
        ..config(&["greedy", "random", "flat-mc"], 2)
    };
    let e = run(&three, &temp_dir("sprt4"), 1).unwrap_err();
    assert!(
        matches!(
            e,
            TournamentError::Config(ConfigError::SprtBots { count: 3 })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("exactly two bots"), "{e}");
    for d in ["sprt", "sprt4"] {
        let _ = fs::remove_dir_all(temp_dir(d));
    }
}

/// The run folder's summary and SPRT decision, as JSON.
fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// With two workers, greedy against random stops on H1; the decision is kept in `sprt.json`
/// and reported by the summary with the pairs it was taken on. Lost pairs are then added to
/// `games.jsonl` (as games in progress at the stop would be) until the LLR over all pairs is
/// back between the bounds: the resume says the run was already decided, plays nothing and
/// still reports H1, with the LLR over all pairs beside it, and so does a merge of the run.
/// Before, the summary said "no decision yet" and the resume played on.
#[test]
fn a_run_stopped_by_its_sprt_decision_keeps_it_and_a_resume_plays_no_further() {
    let out = temp_dir("sprt-kept");
    let dir = out.to_str().unwrap();
    let args = [
        "tournament",
        "--bots",
        "greedy,random",
        "--terrains",
        "castle_field,tropical_pool",
        "--games",
        "100",
        "--sprt",
        "0,100",
        "--concurrency",
        "2",
        "--no-records",
        "--out",
        dir,
    ];
    let (ok, stdout, stderr) = run_cli(&[&args[..], &["--quiet"]].concat());
    assert!(ok, "{stderr}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    let stop = json_of(&out.join("sprt.json"));
    assert_eq!(stop["stop"]["decision"], "H1", "{stop}");
    let pairs = stop["stop"]["pairs"].as_u64().unwrap();
    let summary = json_of(&out.join("summary.json"));
    assert_eq!(summary["sprt"]["decision"], "H1");
    assert_eq!(summary["sprt"]["pairs"].as_u64(), Some(pairs));
    assert_eq!(summary["sprt"]["llr"], stop["stop"]["llr"]);

    let mut games = games_of(&out);
    let params: SprtParams = "0,100".parse().unwrap();
    let penta = |games: &[GameLine]| {
        let mut p = Pentanomial::default();
        let mut by_deal: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for g in games {
            by_deal.entry(g.position).or_default().push(g.score_a());
        }
        for s in by_deal.values().filter(|s| s.len() == 2) {
            p.add_pair(s[0], s[1]);
        }
        p
    };
    let decision = |games: &[GameLine]| sprt_decide(&penta(games), &params).1;
    let mut position = 99;
    let mut text = fs::read_to_string(out.join(GAMES_FILE)).unwrap();
    while decision(&games) == SprtDecision::H1 {
        for game in 0..2 {
            let mut lost = games[0].clone();
            lost.position = position;
            lost.game = game;
            lost.winner = Some("random".into());
            text += &(serde_json::to_string(&lost).unwrap() + "\n");
            games.push(lost);
        }
        position -= 1;
    }
    assert_eq!(decision(&games), SprtDecision::Continue);
    fs::write(out.join(GAMES_FILE), text).unwrap();
    let (ok, stdout, stderr) = run_cli(&args);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("already stopped by its SPRT decision"),
        "{stderr}"
    );
    assert_eq!(
        games_of(&out).len(),
        games.len(),
        "no game is played past the decision"
    );
    let summary = json_of(&out.join("summary.json"));
    assert_eq!(summary["sprt"]["decision"], "H1", "{stdout}");
    assert_eq!(summary["sprt"]["pairs"].as_u64(), Some(pairs));
    assert_eq!(
        summary["sprt"]["all_pairs"]["pairs"].as_u64(),
        Some(penta(&games).pairs())
    );
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(
        stdout.contains("for information, the decision stands"),
        "{stdout}"
    );
    assert!(!stdout.contains("no decision yet"), "{stdout}");
    let merged = temp_dir("sprt-kept-merged");
    let (ok, _, stderr) = run_cli(&[
        "merge",
        dir,
        "--allow-incomplete",
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        json_of(&merged.join("sprt.json")),
        json_of(&out.join("sprt.json"))
    );
    assert_eq!(
        json_of(&merged.join("summary.json"))["sprt"],
        summary["sprt"]
    );
    for d in [out, merged] {
        fs::remove_dir_all(d).unwrap();
    }
}

// ----- External bots ---------------------------------------------------------------------------

/// The spec of an external bot: a Python script with `body`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    format!("ext:{}", python_script(dir, name, body).display())
}

#[test]
fn failing_external_bots_forfeit_and_the_tournament_goes_on() {
    if !python3() {
        return;
    }
    let dir = temp_dir("ext-scripts");
    let garbage = script(
        &dir,
        "garbage.py",
        "for line in sys.stdin:\n    if '\"decide\"' in line:\n        print('e2e4', flush=True)\n",
    );
    let exits = script(&dir, "exits.py", "sys.exit(3)\n");
    let slow = script(
        &dir,
        "slow.py",
        "for line in sys.stdin:\n    time.sleep(60)\n",
    );
    let illegal = script(&dir, "illegal.py", "for line in sys.stdin:\n    if '\"decide\"' in line:\n        print(json.dumps({'decision': 'use'}), flush=True)\n");
    let out = temp_dir("ext-run");
    let c = RunConfig {
        gauntlet: Some("random".into()),
        bots: vec![garbage, exits, slow, illegal],
        terrains: vec!["castle_field".into()],
        ext_timeout_ms: 3000,
        ..config(&[], 2)
    };
    let report = run(&c, &out, 2).unwrap();
    let games = games_of(&out);
    assert_eq!(games.len(), 8);
    for g in &games {
        assert_eq!(g.end, "forfeit", "{g:?}");
        assert_eq!(g.winner.as_deref(), Some("random"));
    }
    let reasons: Vec<&str> = games
        .iter()
        .filter_map(|g| g.forfeit_reason.as_deref())
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("not JSON")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("closed") || r.contains("cannot write")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("no answer within 3000 ms")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("not a legal decision")),
        "{reasons:?}"
    );
    assert_eq!(report.summary.bots[0].wins, 8);
    for d in [dir, out] {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn the_example_external_bot_plays_legal_games() {
    if !python3() {
        return;
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/example-external-bot.py");
    let out = temp_dir("ext-example");
    let c = RunConfig {
        bots: vec![format!("ext:{}", example.display()), "random".into()],
        terrains: vec!["castle_field".into()],
        ..config(&[], 2)
    };
    run(&c, &out, 2).unwrap();
    for g in games_of(&out) {
        assert_ne!(g.end, "forfeit", "{g:?}");
        let record: GameRecord =
            serde_json::from_str(&fs::read_to_string(out.join(&g.record)).unwrap()).unwrap();
        replay(&Game::builtin(&g.terrain, g.variant).unwrap(), &record).unwrap();
    }
    fs::remove_dir_all(out).unwrap();
}

/// `toybattle compare`: the games of two gauntlets on the same seed pair up deal by deal and
/// seat by seat, and the counts are those of the game lines.
#[test]
fn compare_pairs_the_games_of_two_gauntlets_deal_by_deal() {
    let root = temp_dir("compare");
    fs::create_dir_all(&root).unwrap();
    // Greedy against a second random player (the same algorithm under another name), both
    // against random.
    let other = root.join("other-random.toml");
    fs::write(&other, "description = \"random\"\nalgorithm = \"random\"\n").unwrap();
    let other = other.display().to_string();
    let gauntlet = |bot: &str, out: &Path| {
        let mut c = config(&["random"], 4);
        c.gauntlet = Some(bot.to_string());
        run(&c, out, 2).unwrap();
    };
    let (a_dir, b_dir) = (root.join("a"), root.join("b"));
    gauntlet("greedy", &a_dir);
    gauntlet(&other, &b_dir);
    let side = |dir: &Path| CompareSide {
        dir: dir.to_path_buf(),
        bot: None,
    };
    let c = compare_runs(&side(&a_dir), &side(&b_dir)).unwrap();
    assert_eq!((c.a.as_str(), c.b.as_str()), ("greedy", other.as_str()));
    let (a_games, b_games) = (games_of(&a_dir), games_of(&b_dir));
    let mut expected = [0u64; 4];
    for (ga, gb) in a_games.iter().zip(&b_games) {
        assert_eq!((ga.deal_seed, ga.game), (gb.deal_seed, gb.game));
        let (a_won, b_won) = (
            ga.winner.as_deref() == Some("greedy"),
            gb.winner == Some(other.clone()),
        );
        expected[usize::from(!a_won) * 2 + usize::from(!b_won)] += 1;
    }
    let all = &c.rows[0];
    assert_eq!(all.terrain, "all");
    assert_eq!(
        [
            all.counts.both_won,
            all.counts.only_a_won,
            all.counts.only_b_won,
            all.counts.neither_won
        ],
        expected
    );
    assert_eq!(all.counts.games, 8);
    assert!(
        expected[1] > 0,
        "greedy wins games the random player loses: {expected:?}"
    );
    let terrains: Vec<&str> = c.rows[1..].iter().map(|r| r.terrain.as_str()).collect();
    assert_eq!(terrains, TERRAINS);
    assert_eq!(
        all.sign_test_p,
        toybattle::tournament::stats::sign_test_p(expected[1], expected[2])
    );

    // Bad requests name what was wrong.
    let refused = |a: CompareSide, b: CompareSide| match compare_runs(&a, &b) {
        Err(TournamentError::Compare(e)) => (e.to_string(), e),
        other => panic!("not a comparison error: {other:?}"),
    };
    let named = |bot: &str| CompareSide {
        dir: a_dir.clone(),
        bot: Some(bot.to_string()),
    };
    let (err, kind) = refused(side(&a_dir), side(&a_dir));
    assert!(matches!(kind, CompareError::SameSide { .. }), "{kind:?}");
    assert!(err.contains("both sides are greedy"), "{err}");
    let (err, kind) = refused(named("nobody"), side(&b_dir));
    assert!(matches!(kind, CompareError::NoSuchBot { .. }), "{kind:?}");
    assert!(
        err.contains("no bot 'nobody'") && err.contains("random, greedy"),
        "{err}"
    );
    // In one run, greedy met random and random met greedy: no deal has the same opponent.
    let (err, kind) = refused(side(&a_dir), named("random"));
    assert!(
        matches!(kind, CompareError::NothingInCommon { .. }),
        "{kind:?}"
    );
    assert!(err.contains("no game in common"), "{err}");
    let (err, kind) = refused(side(&root), side(&b_dir));
    assert!(matches!(kind, CompareError::NotARun { .. }), "{kind:?}");
    assert!(err.contains("has no run.json"), "{err}");
    // A round robin has no gauntlet bot to take by default.
    let round_robin = root.join("rr");
    run(&config(&["random", "greedy"], 2), &round_robin, 2).unwrap();
    let (err, kind) = refused(side(&round_robin), side(&b_dir));
    assert!(matches!(kind, CompareError::BotNeeded { .. }), "{kind:?}");
    assert!(err.contains("name the bot to compare"), "{err}");
    fs::remove_dir_all(root).unwrap();
}

// ----- The command line: locks, resumes, ranges -----------------------------------------------

fn toybattle(args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"));
    c.args(args);
    c
}

fn lines_in(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// Waits until `games.jsonl` of `dir` holds at least `n` lines.
fn wait_for_games(dir: &Path, n: usize) {
    let start = std::time::Instant::now();
    while lines_in(&dir.join(GAMES_FILE)) < n {
        assert!(start.elapsed().as_secs() < 60, "no games after a minute");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Two runs started on one folder: the second is refused naming the first, which is then
/// killed with `kill -9`; its lock dies with it, so the resume finishes the run with no game
/// counted twice. The first run is stopped (SIGSTOP) once it has played a few games, so that
/// it is surely still running, however fast the machine, when the second starts.
#[test]
fn a_second_writer_is_refused_and_a_killed_runs_lock_does_not_block_the_resume() {
    let out = temp_dir("lock");
    let dir = out.to_str().unwrap();
    let args = [
        "tournament",
        "--bots",
        "random,greedy",
        "--terrains",
        "castle_field",
        "--games",
        "400",
        "--concurrency",
        "1",
        "--quiet",
        "--out",
        dir,
    ];
    let mut first = toybattle(&args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&out, 5);
    let pid = first.id().to_string();
    let stopped = std::process::Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .unwrap();
    assert!(stopped.success());
    let (ok, _, err) = run_cli(&args);
    assert!(!ok, "the second run was not refused");
    assert!(
        err.contains("is in use by another toybattle run")
            && err.contains(&format!("pid {}", first.id())),
        "{err}"
    );
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first run ended too soon"
    );
    first.kill().unwrap(); // SIGKILL: no clean-up runs
    first.wait().unwrap();
    let (ok, _, err) = run_cli(&args);
    assert!(ok, "the resume failed: {err}");
    let games = games_of(&out);
    assert_eq!(games.len(), 400, "read_games refuses a game counted twice");
    let summary: serde_json::Value = serde_json::from_str(&summary_json(&out)).unwrap();
    assert_eq!(summary["complete"], true);
    fs::remove_dir_all(out).unwrap();
}

/// A copy of the shipped terrain file with castle_field's first region holding one medal more.
fn modified_terrain_file(dir: &Path) -> PathBuf {
    let mut file: serde_json::Value =
        serde_json::from_str(include_str!("../src/terrain/terrains.json")).unwrap();
    let castle = file["terrains"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["id"] == "castle_field")
        .unwrap();
    let medals = castle["regions"][0]["medals"].as_u64().unwrap();
    castle["regions"][0]["medals"] = (medals + 1).into();
    let path = dir.join("modified-terrains.json");
    fs::write(&path, file.to_string()).unwrap();
    path
}

/// A record says which terrain data and variant it was played on; replayed against other
/// terrain data it is refused, naming both fingerprints and the way out. A record without a
/// fingerprint (made before records had one) still replays, with a note that its terrain data
/// was not checked.
#[test]
fn replay_refuses_a_record_played_on_other_terrain_data() {
    let dir = temp_dir("fingerprint");
    fs::create_dir_all(&dir).unwrap();
    let terrains = modified_terrain_file(&dir);
    let records = dir.join("records");
    let (t, r) = (terrains.to_str().unwrap(), records.to_str().unwrap());
    let args = [
        "random-games",
        "--terrain",
        "castle_field",
        "-n",
        "1",
        "--quiet",
    ];
    let (ok, _, err) = run_cli(&[&args[..], &["--terrain-file", t, "--records", r]].concat());
    assert!(ok, "{err}");
    let record_path = fs::read_dir(&records)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let record = record_path.to_str().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&record_path).unwrap()).unwrap();
    let recorded = json["terrain_fingerprint"].as_str().unwrap().to_string();
    let (ok, out, err) = run_cli(&["replay", record]);
    assert!(!ok, "replayed against the shipped terrain: {out}");
    assert!(
        err.contains(&recorded) && err.contains("--terrain-file"),
        "{err}"
    );
    let (ok, _, err) = run_cli(&["replay", record, "--terrain-file", t]);
    assert!(ok, "{err}");
    // The same deal on the shipped data, its fingerprint removed: replays as before.
    let shipped = dir.join("shipped");
    let s = shipped.to_str().unwrap();
    assert!(run_cli(&[&args[..], &["--records", s]].concat()).0);
    let path = fs::read_dir(&shipped)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut old: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_ne!(old["terrain_fingerprint"].as_str(), Some(recorded.as_str()));
    old.as_object_mut().unwrap().remove("terrain_fingerprint");
    fs::write(&path, old.to_string()).unwrap();
    let (ok, _, err) = run_cli(&["replay", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("note:") && err.contains("terrain data it was played on is not checked"),
        "{err}"
    );
    let (_, _, err) = run_cli(&["replay", record, "--terrain-file", t]);
    assert!(
        !err.contains("note:"),
        "a record with its fingerprint: {err}"
    );
    fs::remove_dir_all(dir).unwrap();
}

/// Bot specs that name no bot, terrains other than the settings', and a concurrency of 0 are
/// refused before anything is written, each by its kind.
#[test]
fn runs_that_cannot_start_are_refused_by_kind() {
    let out = temp_dir("cannot-start");
    let e = run(&config(&["random", "ext:/nonexistent/bot"], 2), &out, 1).unwrap_err();
    assert!(
        matches!(&e, TournamentError::Bot(BotError::Program { path, .. }) if path == "/nonexistent/bot"),
        "{e:?}"
    );
    let e = run(&config(&["random", "no-such-preset"], 2), &out, 1).unwrap_err();
    assert!(
        matches!(e, TournamentError::Bot(BotError::Preset(_))),
        "{e:?}"
    );
    let e = run(&config(&["random", "greedy"], 2), &out, 0).unwrap_err();
    assert!(
        matches!(e, TournamentError::Config(ConfigError::NoConcurrency)),
        "{e:?}"
    );
    let c = config(&["random", "greedy"], 2);
    let e = run_tournament(RunOptions {
        terrains: vec![Arc::new(terrain::builtin("battlefield").unwrap().clone())],
        config: c.clone(),
        out: out.clone(),
        concurrency: Some(1),
        quiet: true,
        check: false,
        reuse: Vec::new(),
    })
    .unwrap_err();
    assert!(
        matches!(&e, TournamentError::TerrainsMismatch { given, settings }
            if given == &["battlefield"] && settings == &c.terrains),
        "{e:?}"
    );
    assert!(!out.join("run.json").exists());
    let _ = fs::remove_dir_all(out);
}

/// Out-of-range settings are refused before anything is written, each with its reason.
#[test]
fn out_of_range_settings_are_refused_with_the_reason() {
    let out = temp_dir("ranges");
    let dir = out.to_str().unwrap();
    let base = [
        "tournament",
        "--bots",
        "random,greedy",
        "--terrains",
        "castle_field",
        "--quiet",
    ];
    let cases: [(&[&str], &str); 9] = [
        (&["--concurrency", "0"], "at least 1"),
        (&["--concurrency", "100000"], "at most 256"),
        (&["--max-turns", "0"], "at least 1"),
        (&["--games", "0"], "even and positive"),
        (&["--games", "3"], "try 4"),
        (&["--shard", "0/2"], "1 <= K <= N"),
        (&["--shard", "3/2"], "1 <= K <= N"),
        (&["--shard", "1/0"], "1 <= K <= N"),
        (&["--shard", "1-2"], "1 <= K <= N"),
    ];
    for (extra, reason) in cases {
        let (ok, _, err) = run_cli(&[&base[..], extra, &["--out", dir]].concat());
        assert!(!ok && err.contains(reason), "{extra:?}: {err}");
        assert!(
            !out.join("run.json").exists(),
            "{extra:?} wrote the run folder"
        );
    }
    let (ok, _, err) = run_cli(&[
        "random-games",
        "--terrain",
        "moon_base",
        "-n",
        "1",
        "--max-turns",
        "0",
    ]);
    assert!(!ok && err.contains("at least 1"), "{err}");
    let _ = fs::remove_dir_all(out);
}

/// Terrain ids become file names and are listed with commas, so the loader takes only
/// `[a-z0-9_]+`, never `all`: a terrain file naming a terrain `../../x` writes nothing
/// outside the records folder, and every command refuses it the same way.
#[test]
fn terrain_files_with_unsafe_ids_are_refused_by_every_command() {
    let dir = temp_dir("ids");
    let records = dir.join("deep").join("records");
    fs::create_dir_all(&records).unwrap();
    for id in ["../../x", "all", "a,b", "", "Castle"] {
        let mut file: serde_json::Value =
            serde_json::from_str(include_str!("../src/terrain/terrains.json")).unwrap();
        file["terrains"][0]["id"] = id.into();
        let path = dir.join("bad-terrains.json");
        fs::write(&path, file.to_string()).unwrap();
        let t = path.to_str().unwrap();
        let name = file["terrains"][0]["name"].as_str().unwrap().to_string();
        for args in [
            vec![
                "random-games",
                "--terrain",
                "all",
                "-n",
                "1",
                "-q",
                "--records",
            ],
            vec!["tournament", "--bots", "random,greedy", "--quiet", "--out"],
        ] {
            let target = records.to_str().unwrap();
            let (ok, _, err) = run_cli(&[&args[..], &[target, "--terrain-file", t]].concat());
            assert!(!ok, "{id:?} accepted by {}", args[0]);
            assert!(err.contains(&format!("terrain id '{id}'")), "{err}");
            assert!(err.contains("a-z"), "{err}");
        }
        let (ok, _, err) = run_cli(&["show", "--terrain", &name, "--terrain-file", t]);
        assert!(!ok && err.contains(&format!("terrain id '{id}'")), "{err}");
    }
    assert!(!dir.join("x-000000.json").exists() && !dir.join("x").exists());
    assert_eq!(fs::read_dir(&records).unwrap().count(), 0);
    fs::remove_dir_all(dir).unwrap();
}

/// The terminal gets a short summary (the ranking first, one line per terrain, where the full
/// tables are); the Markdown tables stay in summary.md.
#[test]
fn the_terminal_summary_is_short_and_points_to_the_files() {
    let out = temp_dir("terminal");
    let dir = out.to_str().unwrap();
    let (ok, stdout, err) = run_cli(&[
        "tournament",
        "--bots",
        "random,greedy,flat-mc",
        "--terrains",
        "castle_field,tropical_pool",
        "--games",
        "2",
        "--quiet",
        "--out",
        dir,
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() <= 12, "{} lines:\n{stdout}", lines.len());
    assert!(
        !stdout.contains("|---"),
        "Markdown on the terminal:\n{stdout}"
    );
    let ranking = lines.iter().position(|l| l.starts_with("Ranking")).unwrap();
    for (i, line) in lines[ranking + 1..ranking + 4].iter().enumerate() {
        assert!(
            line.trim_start().starts_with(&format!("{}.", i + 1)),
            "{line}"
        );
        assert!(line.contains('%') && line.contains("Elo"), "{line}");
    }
    for t in ["castle_field", "tropical_pool"] {
        assert_eq!(
            lines.iter().filter(|l| l.contains(t)).count(),
            1,
            "{stdout}"
        );
    }
    let md = out.join("summary.md");
    assert!(stdout.contains(md.to_str().unwrap()), "{stdout}");
    assert!(fs::read_to_string(md).unwrap().contains("## Pairings"));
    fs::remove_dir_all(out).unwrap();
}

/// A bot against itself (a balance study's self-play): the pairing's score is the first
/// player's, not "every game won", and the bot gets no standing from games against itself.
#[test]
fn self_play_scores_the_first_player_and_gives_no_standing() {
    let out = temp_dir("self-play");
    run(&config(&["greedy"], 4), &out, 2).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&summary_json(&out)).unwrap();
    let overall = &summary["pairings"][0]["overall"];
    assert_eq!(overall["games"], 8);
    assert_eq!(
        overall["score_a"]["count"], overall["sides"]["first_player_wins"]["count"],
        "{overall}"
    );
    assert!(overall["wins_a"].as_u64().unwrap() < 8, "{overall}");
    assert_eq!(summary["bots"][0]["games"], 0);
    let md = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.contains("2400"), "{md}");
    fs::remove_dir_all(out).unwrap();
}

// ----- Issue 32: runs of any size, records replayed, terrains and folders checked -------------

/// The record of `g` in run folder `dir`, read and written back after `edit`.
fn edit_record(dir: &Path, g: &GameLine, edit: impl FnOnce(&mut Vec<String>)) {
    let path = dir.join(&g.record);
    let mut record: GameRecord = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut record.steps);
    fs::write(&path, serde_json::to_string(&record).unwrap()).unwrap();
}

/// A player's placement turned into a chance outcome, which a player may never give: the
/// record stays that game's in every field a game line holds, only its steps are illegal.
/// Returns the step's index.
fn make_a_step_illegal(steps: &mut [String]) -> usize {
    let i = steps.iter().position(|s| s.starts_with("place")).unwrap();
    steps[i] = "chance Kwak".into();
    i
}

/// Point 9: a record edited to an illegal step, one with two steps swapped and one with its
/// last steps cut still name their game in every field; resume replays every record, finds the
/// three, and plays those games again, ending with the games of an untouched run.
#[test]
fn resume_plays_again_the_games_whose_record_does_not_replay() {
    let (whole, broken) = (temp_dir("replay-whole"), temp_dir("replay-broken"));
    let c = config(&["random", "greedy"], 4);
    run(&c, &whole, 2).unwrap();
    run(&c, &broken, 2).unwrap();
    let games = games_of(&broken);
    edit_record(&broken, &games[1], |steps| {
        make_a_step_illegal(steps);
    });
    edit_record(&broken, &games[4], |steps| {
        let i = (0..steps.len() - 1)
            .find(|&i| steps[i].starts_with("place") && steps[i + 1].starts_with("place"))
            .unwrap();
        steps.swap(i, i + 1);
    });
    edit_record(&broken, &games[6], |steps| {
        steps.truncate(steps.len() - 3);
    });
    let report = run(&c, &broken, 2).unwrap();
    assert_eq!((report.resumed, report.played), (5, 3));
    assert_eq!(timeless(games_of(&whole)), timeless(games_of(&broken)));
    assert_eq!(summary_json(&whole), summary_json(&broken));
    for d in [whole, broken] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// Point 9: a merge cannot play a game again, so a shard's record that does not replay is
/// refused, naming the shard, the record and the step.
#[test]
fn merge_refuses_a_record_that_does_not_replay_naming_the_step() {
    let c = config(&["random", "greedy"], 2);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| temp_dir(&format!("replay-shard{k}")))
        .collect();
    for (k, dir) in shards.iter().enumerate() {
        let shard = Some(Shard {
            index: k as u32 + 1,
            count: 2,
        });
        run(&RunConfig { shard, ..c.clone() }, dir, 1).unwrap();
    }
    let g = games_of(&shards[1])[1].clone();
    let mut step = 0;
    edit_record(&shards[1], &g, |steps| step = make_a_step_illegal(steps));
    let out = temp_dir("replay-merged");
    let e = merge_runs(&MergeOptions {
        inputs: shards.clone(),
        out: out.clone(),
        allow_incomplete: false,
        terrain_file: None,
    })
    .unwrap_err();
    assert!(
        matches!(
            &e,
            TournamentError::Merge(MergeError::BadRecord {
                problem: RecordProblem::DoesNotReplay { .. },
                ..
            })
        ),
        "{e:?}"
    );
    let e = e.to_string();
    for part in [
        shards[1].display().to_string(),
        g.record.clone(),
        format!("step {step} ('chance Kwak')"),
    ] {
        assert!(e.contains(&part), "'{part}' missing from: {e}");
    }
    assert!(!out.join(GAMES_FILE).exists(), "nothing merged");
    for d in shards {
        fs::remove_dir_all(d).unwrap();
    }
}

/// Point 9: records are replayed on the terrains the run was played on, so a run of a terrain
/// file merges only with that file given (checked by its hash).
#[test]
fn merge_replays_a_terrain_file_run_on_that_file() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/terrain/terrains.json");
    let hash = format!(
        "{:016x}",
        toybattle::tournament::config::fnv1a(&fs::read(&file).unwrap())
    );
    let c = RunConfig {
        terrain_file_hash: Some(hash.clone()),
        ..config(&["random", "greedy"], 2)
    };
    let shard = temp_dir("file-shard");
    run(&c, &shard, 1).unwrap();
    let options = |terrain_file: Option<PathBuf>, out: &str| MergeOptions {
        inputs: vec![shard.clone()],
        out: temp_dir(out),
        allow_incomplete: false,
        terrain_file,
    };
    let e = merge_runs(&options(None, "file-m1")).unwrap_err();
    assert!(
        matches!(&e, TournamentError::Merge(MergeError::TerrainFileNeeded { hash: h }) if *h == hash),
        "{e:?}"
    );
    assert!(e.to_string().contains("--terrain-file"), "{e}");
    let other = shard.join("other-terrains.json");
    fs::write(&other, fs::read_to_string(&file).unwrap() + "\n").unwrap();
    let e = merge_runs(&options(Some(other), "file-m2")).unwrap_err();
    assert!(
        matches!(
            &e,
            TournamentError::Merge(MergeError::OtherTerrainFile { .. })
        ),
        "{e:?}"
    );
    merge_runs(&options(Some(file), "file-m3")).unwrap();
    for d in ["file-shard", "file-m1", "file-m2", "file-m3"] {
        let _ = fs::remove_dir_all(temp_dir(d));
    }
}

/// The peak resident memory of process `pid` in KiB (`VmHWM`), `None` once it is gone.
fn peak_kib(pid: u32) -> Option<u64> {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Point 2: with the largest `--games` accepted (and 10^9 with `--sprt`), the schedule was
/// built whole before any game: 2.7 GB and an abort, no game played. Deals are now computed
/// one at a time: the run plays its first games at once and stays as small as a short run.
/// The run is stopped as soon as its memory passes the ceiling, so the test stays bounded.
#[test]
fn the_largest_games_plays_at_once_in_little_memory() {
    const CEILING_KIB: u64 = 64 * 1024;
    for (name, bots, games, sprt) in [
        ("largest-games", "random", "4294967294", None),
        ("sprt-games", "random,greedy", "1000000000", Some("0,5")),
    ] {
        let out = temp_dir(name);
        let out_str = out.to_str().unwrap().to_string();
        let mut args = vec![
            "tournament",
            "--bots",
            bots,
            "--games",
            games,
            "--terrains",
            "castle_field",
            "--concurrency",
            "1",
            "--quiet",
            "--out",
            &out_str,
        ];
        args.extend(sprt.map(|s| ["--sprt", s]).into_iter().flatten());
        let mut engine = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = engine.id();
        let played = || fs::read_to_string(out.join(GAMES_FILE)).map_or(0, |t| t.lines().count());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let mut peak = 0;
        while played() < 20 && std::time::Instant::now() < deadline {
            match peak_kib(pid) {
                Some(p) if p <= CEILING_KIB => peak = p,
                other => {
                    peak = other.unwrap_or(peak);
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        peak = peak.max(peak_kib(pid).unwrap_or(0));
        let _ = engine.kill();
        let status = engine.wait().unwrap();
        assert!(peak <= CEILING_KIB, "{name}: peak memory {peak} KiB");
        assert!(
            played() >= 20,
            "{name}: {} games played ({status})",
            played()
        );
        fs::remove_dir_all(out).unwrap();
    }
}

/// Point 10: a terrain named twice, by its key or by its key and its name, is refused by the
/// settings before anything is written (it was played and counted twice).
#[test]
fn a_terrain_named_twice_is_refused() {
    let c = RunConfig {
        terrains: vec!["castle_field".into(), "castle_field".into()],
        ..config(&["random", "greedy"], 2)
    };
    let out = temp_dir("terrain-twice");
    let e = run(&c, &out, 1).unwrap_err();
    assert!(
        matches!(&e, TournamentError::Config(ConfigError::TerrainTwice { terrain }) if terrain == "castle_field"),
        "{e:?}"
    );
    assert!(!out.join("run.json").exists());
    for command in [
        vec!["tournament", "--bots", "random,greedy"],
        vec!["balance", "--bots", "random", "--variants", "normal"],
    ] {
        let dir = temp_dir(&format!("terrain-twice-{}", command[0]));
        let mut args = command.clone();
        let out = dir.to_str().unwrap().to_string();
        args.extend([
            "--terrains",
            "castle_field,Castle Field",
            "--games",
            "2",
            "--quiet",
            "--out",
            &out,
        ]);
        let (ok, _, err) = run_cli(&args);
        assert!(!ok, "{command:?}");
        assert!(
            err.contains("terrain 'castle_field' is listed twice in --terrains"),
            "{command:?}: {err}"
        );
        assert!(!dir.join("run.json").exists() && !dir.join("runs").exists());
        let _ = fs::remove_dir_all(dir);
    }
}

/// Point 11: `balance --out` takes the lock of a run folder, as a tournament does, and refuses
/// a folder that holds other files, in both its modes (playing, and reporting `--from`).
#[test]
fn balance_out_is_locked_and_refuses_an_unrelated_folder() {
    let study = |out: &Path| {
        run_cli(&[
            "balance",
            "--bots",
            "random",
            "--variants",
            "normal",
            "--terrains",
            "castle_field",
            "--games",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    // Held by a running tournament (here, this process holds the lock it takes).
    let held = temp_dir("balance-held");
    fs::create_dir_all(&held).unwrap();
    let lock = RunLock::acquire(&held).unwrap();
    let (ok, _, err) = study(&held);
    assert!(!ok);
    assert!(err.contains("in use by another toybattle run"), "{err}");
    assert!(!held.join("runs").exists(), "nothing written");
    drop(lock);
    let (ok, _, err) = study(&held);
    assert!(ok, "{err}");
    // A folder of other files, played into or reported into.
    let stray = temp_dir("balance-stray");
    fs::create_dir_all(&stray).unwrap();
    fs::write(stray.join("notes.txt"), "mine").unwrap();
    let (ok, _, err) = study(&stray);
    assert!(!ok);
    assert!(
        err.contains("is not empty and holds no balance study"),
        "{err}"
    );
    let (ok, _, err) = run_cli(&[
        "balance",
        "--from",
        held.to_str().unwrap(),
        "--out",
        stray.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("is not empty and holds no balance study"),
        "{err}"
    );
    let left: Vec<String> = fs::read_dir(&stray)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "run.lock")
        .collect();
    assert_eq!(left, ["notes.txt"]);
    // A study folder and a report folder are the command's own: played and reported again.
    let report = temp_dir("balance-report");
    for _ in 0..2 {
        let (ok, _, err) = run_cli(&[
            "balance",
            "--from",
            held.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
    }
    let (ok, _, err) = study(&held);
    assert!(ok, "{err}");
    for d in [held, stray, report] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// The record files under a run folder.
fn record_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.join("records")];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.path().is_dir() {
                true => todo.push(e.path()),
                false => files.push(e.path()),
            }
        }
    }
    files
}

/// `--no-records`: every game is played and counted but no record is written, run.json says
/// so, and a run stopped midway resumes without playing its finished games again (their lines,
/// thinking times included, are kept as they were).
#[test]
fn a_run_without_records_writes_none_and_resumes_without_replaying() {
    let out = temp_dir("no-records");
    let c = RunConfig {
        records: Records::None,
        ..config(&["random", "greedy"], 4)
    };
    let report = run(&c, &out, 2).unwrap();
    assert_eq!(report.summary.games, 8);
    assert!(record_files(&out).is_empty(), "{:?}", record_files(&out));
    let run_json = fs::read_to_string(out.join("run.json")).unwrap();
    assert!(run_json.contains(r#""records": "none""#), "{run_json}");
    // Records change no result: the run id is the one of the same run with records.
    assert_eq!(c.run_id(), config(&["random", "greedy"], 4).run_id());
    // Stopped after five games (as by kill -9): the five are kept as they are.
    let games = fs::read_to_string(out.join(GAMES_FILE)).unwrap();
    let five: String = games.lines().take(5).map(|l| format!("{l}\n")).collect();
    fs::write(out.join(GAMES_FILE), &five).unwrap();
    let report = run(&c, &out, 2).unwrap();
    assert_eq!((report.resumed, report.played), (5, 3));
    let after = fs::read_to_string(out.join(GAMES_FILE)).unwrap();
    assert!(after.starts_with(&five), "finished games were played again");
    assert!(record_files(&out).is_empty());
    fs::remove_dir_all(out).unwrap();
}

/// `--records-sample 2` keeps the records of deals 0, 2, … of each pairing and terrain only,
/// and shards of a run without records merge (there is no record to check or copy).
#[test]
fn a_sampled_run_keeps_every_nth_deals_records_and_unrecorded_shards_merge() {
    let out = temp_dir("records-sample");
    let c = RunConfig {
        records: Records::Sample(2),
        ..config(&["random", "greedy"], 8)
    };
    run(&c, &out, 2).unwrap();
    let games = games_of(&out);
    assert_eq!(games.len(), 16);
    for g in &games {
        assert_eq!(g.record.is_empty(), g.pair % 2 == 1, "{g:?}");
        assert_eq!(out.join(&g.record).is_file(), g.pair % 2 == 0, "{g:?}");
    }
    assert_eq!(record_files(&out).len(), 8);
    // Resuming a sampled run keeps all its games: no game is missing a record it should have.
    let report = run(&c, &out, 2).unwrap();
    assert_eq!((report.resumed, report.played), (16, 0));
    let c = RunConfig {
        records: Records::None,
        ..config(&["random", "greedy"], 4)
    };
    let shards: Vec<PathBuf> = (1..=2).map(|k| temp_dir(&format!("nr-shard{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        let shard = Some(Shard {
            index: k as u32 + 1,
            count: 2,
        });
        run(&RunConfig { shard, ..c.clone() }, dir, 1).unwrap();
    }
    let merged = temp_dir("nr-merged");
    let report = merge_runs(&MergeOptions {
        inputs: shards.clone(),
        out: merged.clone(),
        allow_incomplete: false,
        terrain_file: None,
    })
    .unwrap();
    assert!(report.missing.is_empty());
    assert_eq!(games_of(&merged).len(), 8);
    assert!(record_files(&merged).is_empty());
    for d in shards.iter().chain([&out, &merged]) {
        fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn pooled_runs_keep_each_deal_its_own_pair() {
    let c = config(&["random", "greedy"], 4);
    let (one, two) = (temp_dir("pool-a"), temp_dir("pool-b"));
    let a = run(&c, &one, 2).unwrap().summary;
    let b = run(
        &RunConfig {
            seed: 12,
            games: 6,
            ..c.clone()
        },
        &two,
        2,
    )
    .unwrap()
    .summary;
    let out = temp_dir("pooled");
    let (pool, markdown) = pool_runs(&[one.clone(), two.clone()], &out).unwrap();
    let s = &pool.summary;
    assert_eq!((s.games, s.expected_games, s.config.games), (20, 20, 10));
    // Every pair of both runs counts, once, in the pairing and on each terrain.
    let counts = |s: &toybattle::tournament::Summary, t: Option<usize>| match t {
        None => s.pairings[0].overall.pentanomial.counts,
        Some(t) => s.pairings[0].terrains[t].stats.pentanomial.counts,
    };
    for t in [None, Some(0), Some(1)] {
        let sum: Vec<u64> = (0..5)
            .map(|i| counts(&a, t)[i] + counts(&b, t)[i])
            .collect();
        assert_eq!(counts(s, t).to_vec(), sum, "terrain {t:?}");
    }
    assert_eq!(
        s.pairings[0].overall.pentanomial.counts.iter().sum::<u64>(),
        10
    );
    let seeds: Vec<(u64, u64)> = pool.runs.iter().map(|r| (r.seed, r.played)).collect();
    assert_eq!(seeds, [(11, 8), (12, 12)]);
    assert!(markdown.contains("2 runs of one match"), "{markdown}");
    for file in ["pool.json", "summary.md", "summary.csv"] {
        assert!(out.join(file).is_file(), "{file}");
    }
    // The command line prints the pooled ranking.
    let cli_out = temp_dir("pooled-cli");
    let (ok, stdout, stderr) = run_cli(&[
        "pool",
        one.to_str().unwrap(),
        two.to_str().unwrap(),
        "--out",
        cli_out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("2 runs pooled: 20 of 20 games"), "{stdout}");
    assert_eq!(
        fs::read_to_string(cli_out.join("summary.md")).unwrap(),
        markdown
    );
    for d in [out, cli_out] {
        fs::remove_dir_all(d).unwrap();
    }
    refused_pools(&c, &one, &two);
    for d in [one, two] {
        fs::remove_dir_all(d).unwrap();
    }
}

/// The pools `pool_runs` refuses, each with the folders at fault named.
fn refused_pools(c: &RunConfig, one: &Path, two: &Path) {
    let pool = |inputs: &[&Path]| {
        let inputs: Vec<PathBuf> = inputs.iter().map(|p| p.to_path_buf()).collect();
        pool_runs(&inputs, &temp_dir("refused")).unwrap_err()
    };
    let e = pool(&[one]);
    assert!(
        matches!(e, TournamentError::Pool(PoolError::TooFewRuns)),
        "{e:?}"
    );
    let e = pool(&[one, one]);
    assert!(
        matches!(
            e,
            TournamentError::Pool(PoolError::SameSeed { seed: 11, .. })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("the same deals"), "{e}");
    let capped = temp_dir("pool-capped");
    let other = RunConfig {
        seed: 13,
        games: 2,
        max_turns: 299,
        ..c.clone()
    };
    run(&other, &capped, 2).unwrap();
    let e = pool(&[one, capped.as_path()]);
    assert!(
        matches!(&e, TournamentError::Pool(PoolError::OtherMatch { differences, .. }) if differences.len() == 1),
        "{e:?}"
    );
    assert!(e.to_string().contains("max_turns: 299 vs 300"), "{e}");
    let shard = temp_dir("pool-shard");
    let sharded = RunConfig {
        seed: 14,
        games: 2,
        shard: Some(Shard { index: 1, count: 2 }),
        ..c.clone()
    };
    run(&sharded, &shard, 2).unwrap();
    let e = pool(&[one, shard.as_path()]);
    assert!(e.to_string().contains("is shard 1 of 2"), "{e}");
    let e = pool_runs(&[one.to_path_buf(), two.to_path_buf()], two).unwrap_err();
    assert!(
        matches!(e, TournamentError::Pool(PoolError::OutIsARun { .. })),
        "{e:?}"
    );
    for d in [capped, shard] {
        fs::remove_dir_all(d).unwrap();
    }
}

fn run_reusing(
    config: &RunConfig,
    out: &Path,
    reuse: &[&Path],
) -> Result<RunReport, TournamentError> {
    run_tournament(RunOptions {
        config: config.clone(),
        terrains: TERRAINS
            .iter()
            .map(|k| Arc::new(terrain::builtin(k).unwrap().clone()))
            .collect(),
        out: out.to_path_buf(),
        concurrency: Some(2),
        quiet: true,
        check: true,
        reuse: reuse.iter().map(|p| p.to_path_buf()).collect(),
    })
}

/// A run enlarged from 4 to 8 games a terrain takes the 4 it has from the earlier run and
/// plays the other 4: its games and records are a fresh 8-game run's, and so is its summary.
#[test]
fn a_run_takes_the_games_an_earlier_run_played_of_its_deals() {
    let (small, large, fresh) = (
        temp_dir("reuse-4"),
        temp_dir("reuse-8"),
        temp_dir("reuse-f"),
    );
    run(&config(&["greedy", "random"], 4), &small, 2).unwrap();
    let report = run_reusing(&config(&["greedy", "random"], 8), &large, &[&small]).unwrap();
    assert_eq!((report.resumed, report.played), (8, 8));
    assert_eq!(report.reused.len(), 1);
    assert_eq!(
        (report.reused[0].dir.as_path(), report.reused[0].games),
        (small.as_path(), 8)
    );
    run(&config(&["greedy", "random"], 8), &fresh, 2).unwrap();
    assert_eq!(timeless(games_of(&large)), timeless(games_of(&fresh)));
    for g in games_of(&large) {
        let read = |dir: &Path| fs::read(dir.join(&g.record)).unwrap();
        assert_eq!(read(&large), read(&fresh), "{}", g.record);
    }
    assert_eq!(summary_json(&large), summary_json(&fresh));

    // An earlier run without records gives nothing to a run that keeps them: its games are played.
    let bare = temp_dir("reuse-bare");
    let no_records = RunConfig {
        records: Records::None,
        ..config(&["greedy", "random"], 4)
    };
    run(&no_records, &bare, 2).unwrap();
    let again = temp_dir("reuse-again");
    let report = run_reusing(&config(&["greedy", "random"], 8), &again, &[&bare]).unwrap();
    assert_eq!((report.played, report.reused[0].games), (16, 0));
}

#[test]
fn an_earlier_run_of_other_games_is_refused_before_any_game() {
    let small = temp_dir("reuse-other-4");
    run(&config(&["greedy", "random"], 4), &small, 2).unwrap();
    let out = temp_dir("reuse-other");
    let other_seed = RunConfig {
        seed: 12,
        ..config(&["greedy", "random"], 8)
    };
    let e = run_reusing(&other_seed, &out, &[&small])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("its games are not this run's: seed: 11 vs 12"),
        "{e}"
    );
    assert!(!out.join(GAMES_FILE).exists() || games_of(&out).is_empty());
    let out = temp_dir("reuse-itself");
    let e = run_reusing(&config(&["greedy", "random"], 8), &out, &[&out])
        .unwrap_err()
        .to_string();
    assert!(e.contains("the run's own folder"), "{e}");
    let out = temp_dir("reuse-no-run");
    let e = run_reusing(
        &config(&["greedy", "random"], 8),
        &out,
        &[&std::env::temp_dir()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not a run folder (no run.json)"), "{e}");
}
