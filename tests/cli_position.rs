//! `toybattle position` (the position at a step of a game record) and `toybattle legal --jsonl`
//! (many positions in one process), end to end through the built binary.

mod cli_support;

use cli_support::{fails, ok, path_str, scratch, stderr, stdout, toybattle};
use serde_json::Value;
use std::path::{Path, PathBuf};
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::preset::resolve;
use toybattle::record::GameRecord;
use toybattle::rules::{Deal, Game, Variant};

/// A game of `greedy` against `random` on `terrain`, written as a record file in `dir`.
fn record_file(dir: &Path, terrain: &str, seed: u64) -> (PathBuf, GameRecord) {
    let game = Game::builtin(terrain, Variant::Normal).unwrap();
    let (mut blue, mut red) = (
        resolve("greedy").unwrap().player(),
        resolve("random").unwrap().player(),
    );
    let played = play_game(
        &game,
        &Deal::from_seed(seed),
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    );
    let path = dir.join(format!("{terrain}-{seed}.json"));
    std::fs::write(&path, serde_json::to_string(&played.record).unwrap()).unwrap();
    (path, played.record)
}

/// The position after `step` steps, as one line of JSON.
fn position_line(record: &Path, step: Option<usize>) -> String {
    let step = step.map(|s| s.to_string());
    let mut args = vec!["position", path_str(record)];
    if let Some(s) = &step {
        args.extend(["--step", s]);
    }
    let json: Value = serde_json::from_str(&ok(&args)).expect("position prints JSON");
    assert_eq!(json["format"], "toybattle-position/1");
    json.to_string()
}

/// Every position of a record, fed to `legal --jsonl`, offers the step the game took next; the
/// last one is the recorded end; `--step` defaults to the last.
#[test]
fn every_position_of_a_record_offers_the_step_taken_next() {
    let dir = scratch("position-every-step");
    for (terrain, seed) in [("castle_field", 3), ("battlefield", 5)] {
        let (path, record) = record_file(&dir, terrain, seed);
        let steps = record.steps.len();
        let lines: Vec<String> = (0..=steps).map(|k| position_line(&path, Some(k))).collect();
        assert_eq!(position_line(&path, None), lines[steps]);
        let jsonl = dir.join(format!("{terrain}.jsonl"));
        std::fs::write(&jsonl, lines.join("\n") + "\n").unwrap();
        let out = ok(&["legal", "--jsonl", path_str(&jsonl)]);
        let results: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
            .collect();
        assert_eq!(results.len(), steps + 1);
        for (k, result) in results.iter().enumerate() {
            assert_eq!(result["line"], k + 1);
            assert!(
                result.get("error").is_none(),
                "{terrain} step {k}: {result}"
            );
            if k < steps {
                let offered = result["decisions"].as_array().unwrap();
                assert!(
                    offered.iter().any(|d| d == record.steps[k].as_str()),
                    "{terrain} step {k}: '{}' not in {offered:?}",
                    record.steps[k]
                );
            }
        }
        let end = &results[steps]["outcome"];
        let winner = record
            .result
            .winner
            .expect("greedy against random ends the game");
        assert_eq!(end["winner"], winner.name(), "{terrain}");
    }
}

/// Position 0 is the state after setup: turn 1, the first player to move, an empty board.
#[test]
fn step_zero_is_the_state_after_setup() {
    let dir = scratch("position-zero");
    let (path, _) = record_file(&dir, "tropical_pool", 8);
    let json: Value = serde_json::from_str(&position_line(&path, Some(0))).unwrap();
    assert_eq!(json["turn"], 1);
    assert_eq!(json["stacks"], serde_json::json!({}));
    assert_eq!(json["terrain"], "tropical_pool");
    let file = dir.join("zero.json");
    std::fs::write(&file, json.to_string()).unwrap();
    let legal = ok(&["legal", "--position", path_str(&file)]);
    assert!(legal.contains("legal decisions"), "{legal}");
}

#[test]
fn a_step_beyond_the_record_is_refused_with_the_range() {
    let dir = scratch("position-range");
    let (path, record) = record_file(&dir, "castle_field", 4);
    let steps = record.steps.len();
    let beyond = (steps + 1).to_string();
    let e = fails(&["position", path_str(&path), "--step", &beyond]);
    assert!(
        e.contains(&format!("--step {beyond} is out of range")),
        "{e}"
    );
    assert!(e.contains(&format!("{steps} steps")), "{e}");
    assert!(e.contains(path_str(&path)), "{e}");
    assert!(fails(&["position", path_str(&path), "--step", "-1"]).contains("-1"));
}

/// A record whose steps the rules refuse, or a file that is not a record, gives no position.
#[test]
fn a_bad_record_is_refused_naming_the_step() {
    let dir = scratch("position-bad");
    let (_, mut record) = record_file(&dir, "castle_field", 6);
    record.steps[3] = "place Roxy 99".to_string();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string(&record).unwrap()).unwrap();
    let e = fails(&["position", path_str(&bad), "--step", "1"]);
    assert!(e.contains("does not replay") && e.contains("step 3"), "{e}");
    let not_a_record = dir.join("not.json");
    std::fs::write(&not_a_record, "{\"format\": \"toybattle-position/1\"}").unwrap();
    let e = fails(&["position", path_str(&not_a_record)]);
    assert!(e.contains("is not a game record"), "{e}");
    let e = fails(&["position", path_str(&dir.join("missing.json"))]);
    assert!(e.contains("cannot read"), "{e}");
}

/// A bad line gets an error line naming its number; the good lines around it are answered; the
/// command fails at the end, naming the bad lines.
#[test]
fn legal_jsonl_answers_every_line_and_fails_on_a_bad_one() {
    let dir = scratch("position-jsonl");
    let (path, _) = record_file(&dir, "city_of_clouds", 2);
    let good = position_line(&path, Some(0));
    let jsonl = dir.join("mixed.jsonl");
    let text = format!("{good}\n{{\"format\": \"toybattle-position/1\"}}\n\n{good}\nnot json\n");
    std::fs::write(&jsonl, text).unwrap();
    let o = toybattle(&["legal", "--jsonl", path_str(&jsonl)]);
    assert!(!o.status.success());
    let results: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<u64> = results
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 2, 4, 5], "blank line 3 is skipped");
    for r in [&results[0], &results[2]] {
        assert!(
            r["decisions"].as_array().is_some_and(|d| !d.is_empty()),
            "{r}"
        );
        assert!(r.get("error").is_none());
    }
    for r in [&results[1], &results[3]] {
        assert!(r["error"].as_str().is_some_and(|e| !e.is_empty()), "{r}");
        assert!(r.get("decisions").is_none());
    }
    let e = stderr(&o);
    assert!(e.contains("2 position(s) refused, on line(s) 2, 5"), "{e}");
}

#[test]
fn legal_takes_one_position_or_a_jsonl_file() {
    let e = fails(&["legal"]);
    assert!(e.contains("--position"), "{e}");
    let e = fails(&["legal", "--position", "a.json", "--jsonl", "b.jsonl"]);
    assert!(e.contains("cannot be used with"), "{e}");
}
