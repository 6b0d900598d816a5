//! `--check` on the command line: random games on all eight terrains in both variants, and a
//! small tournament, verify every invariant after each decision and pass. (A planted violation
//! is caught by the unit tests of `rules::invariants`; its report names the game's deal seed and
//! step, as the unit test of `random-games` shows.)

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_toybattle");

fn run(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "toybattle {args:?} failed: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn checked_random_games_pass_on_every_terrain_and_variant() {
    for variant in ["normal", "beginner"] {
        let json = run(&[
            "random-games",
            "--terrain",
            "all",
            "-n",
            "40",
            "--seed",
            "9",
            "--variant",
            variant,
            "--check",
            "--json",
            "--quiet",
        ]);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        let terrains = report["terrains"].as_array().unwrap();
        assert_eq!(terrains.len(), 8);
        for t in terrains {
            assert_eq!(t["games"], 40, "{t}");
        }
    }
}

#[test]
fn checked_tournament_passes_and_agrees_with_the_unchecked_one() {
    let dir = std::env::temp_dir().join(format!("toybattle-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let summary = |name: &str, check: bool| {
        let out = dir.join(name);
        let mut args = vec![
            "tournament",
            "--bots",
            "random,greedy",
            "--terrains",
            "volcanic_jungle,cursed_cemetery",
            "--games",
            "4",
            "--seed",
            "3",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ];
        if check {
            args.push("--check");
        }
        run(&args);
        // summary.json holds no timings: equal games give equal files.
        std::fs::read_to_string(out.join("summary.json")).unwrap()
    };
    assert_eq!(summary("checked", true), summary("plain", false));
    std::fs::remove_dir_all(&dir).unwrap();
}
