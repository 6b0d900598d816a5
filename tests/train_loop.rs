//! The generation loop of `toybattle train run` and its gate (issue 29): small budgets, a few
//! seconds each. They need the `train` feature: `cargo test --features train --test train_loop`.
#![cfg(feature = "train")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use toybattle::model::{weights, ValueModel};
use toybattle::record::GameRecord;
use toybattle::rules::{Decision, Game, Variant};
use toybattle::terrain::{builtin_terrains, Terrain};
use toybattle::tournament::lock::RunLock;
use toybattle::tournament::roots::{read_roots, roots_path};
use toybattle::tournament::stats::{SprtDecision, SprtParams};
use toybattle::train::curve::{parse_curve_csv, CURVE_HEADER};
use toybattle::train::gate::{gate, MatchSettings};
use toybattle::train::generation::{
    base_preset, redraw_curve, run_generations, CutSettings, GenerationResult, Learn, StepSeconds,
    TrainConfig, TrainError, TrainOptions, TRAIN_FORMAT,
};
use toybattle::train::policy::score;
use toybattle::train::{
    fit, fit_policy, positions_file, Dataset, FitOptions, PolicyData, PolicyTarget, Split,
};

/// A fresh folder unique to this test process and `tag`.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toybattle-loop-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small ISMCTS preset in `dir` with `iterations` per decision and playouts cut after one
/// turn; `weights`, when given, is the value model it judges the cut with.
fn preset(dir: &Path, name: &str, iterations: u32, weights: Option<&Path>) -> String {
    let mut text = format!(
        "description = \"test\"\nalgorithm = \"ismcts\"\n[budget]\niterations = {iterations}\n\
         [search]\neval_turns = 1\nfitted_eval = true\nplayout = \"greedy\"\n"
    );
    if let Some(w) = weights {
        text += &format!("value_model = true\nvalue_weights = \"{}\"\n", w.display());
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn terrains(n: usize) -> Vec<Arc<Terrain>> {
    builtin_terrains()[..n]
        .iter()
        .cloned()
        .map(Arc::new)
        .collect()
}

fn config(base: &str, terrains: &[Arc<Terrain>], seed: u64) -> TrainConfig {
    TrainConfig {
        format: TRAIN_FORMAT.into(),
        base: base.into(),
        base_version: base_preset(base, Learn::Value).unwrap().version(),
        terrains: terrains.iter().map(|t| t.key.clone()).collect(),
        variants: vec![Variant::Normal, Variant::Beginner],
        games: 2,
        window: 2,
        start_records: Vec::new(),
        epochs: 2,
        batch: 64,
        learning_rate: 1e-3,
        weight_decay: 1e-4,
        validation_every: 0,
        target_mix: 0.0,
        learn: Learn::Value,
        cuts: None,
        policy_strength: None,
        gate_games: 2,
        gate_variant: Variant::Normal,
        sprt: "0,50".parse().unwrap(),
        reference_games: 2,
        max_turns: 300,
        seed,
    }
}

fn options(config: TrainConfig, terrains: &[Arc<Terrain>], dir: &Path) -> TrainOptions {
    TrainOptions {
        config,
        terrains: terrains.to_vec(),
        dir: dir.to_path_buf(),
        generations: 1,
        concurrency: Some(1),
        quiet: true,
        plan_only: false,
    }
}

/// A generation's result without its processor times, which vary from run to run.
fn timeless(mut r: GenerationResult) -> GenerationResult {
    r.cpu_seconds = StepSeconds::default();
    r
}

/// A one-generation run plays its self-play in both variants, fits, gates and writes its
/// folder; a second run from the same seed in another folder writes the same weights and
/// reaches the same result.
#[test]
fn a_one_generation_run_completes_and_is_reproducible_from_its_seed() {
    let root = scratch("repro");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(2);
    let mut results = Vec::new();
    for run in ["a", "b"] {
        let dir = root.join(run);
        let report = run_generations(options(config(&base, &ts, 7), &ts, &dir)).unwrap();
        assert_eq!(report.completed_now, 1);
        let r = report.generations[0].clone();
        assert_eq!(r.generation, 1);
        assert_eq!(r.best_before, 0);
        assert_eq!(
            r.selfplay_games,
            2 * 2 * 2,
            "2 games x 2 terrains x 2 variants"
        );
        assert_eq!(r.trained_games, 8);
        assert!(r.trained_positions > 0);
        assert!(r.gate.result.games > 0);
        assert_eq!(r.kept, r.gate.decision == SprtDecision::H1);
        for file in ["run.json", "base.toml", "curve.csv", "curve.svg"] {
            assert!(dir.join(file).is_file(), "{file}");
        }
        for file in [
            "best.toml",
            "candidate.toml",
            "weights.bin",
            "fit.json",
            "result.json",
        ] {
            assert!(dir.join("gen-001").join(file).is_file(), "{file}");
        }
        let w = std::fs::read(dir.join("gen-001/weights.bin")).unwrap();
        weights::from_bytes(&w).unwrap();
        results.push((timeless(r), w));
    }
    assert_eq!(results[0], results[1]);
}

/// A generation interrupted after its self-play (no gate, no result, a weights file cut
/// short) is finished by the rerun: the self-play games are kept, the cut weights are
/// fitted again to the same bytes, and the result is the one the uninterrupted run reached.
/// A complete generation is not run again, and other settings on the folder are refused.
#[test]
fn an_interrupted_generation_resumes_keeping_its_finished_work() {
    let root = scratch("resume");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let dir = root.join("run");
    let first = run_generations(options(config(&base, &ts, 3), &ts, &dir)).unwrap();
    let gen = dir.join("gen-001");
    let weights_before = std::fs::read(gen.join("weights.bin")).unwrap();

    // Killed during the gate: no result, the gate half there.
    std::fs::remove_file(gen.join("result.json")).unwrap();
    std::fs::remove_dir_all(gen.join("gate")).unwrap();
    let again = run_generations(options(config(&base, &ts, 3), &ts, &dir)).unwrap();
    assert_eq!(again.completed_now, 1);
    assert_eq!(again.selfplay_resumed, 4, "both variants' games kept");
    assert_eq!(again.fits_reused, 1, "the complete weights file is kept");
    assert_eq!(
        timeless(again.generations[0].clone()),
        timeless(first.generations[0].clone())
    );
    // The processor time of both processes is counted (gen-001/cpu.json): the first's
    // self-play, which the second only found played, and both gates.
    let (before, after) = (
        &first.generations[0].cpu_seconds,
        &again.generations[0].cpu_seconds,
    );
    assert!(
        after.selfplay >= before.selfplay,
        "{before:?} then {after:?}"
    );
    assert!(after.gate > before.gate, "{before:?} then {after:?}");

    // Killed while writing the weights: a file cut short is detected and fitted again.
    std::fs::remove_file(gen.join("result.json")).unwrap();
    std::fs::write(gen.join("weights.bin"), &weights_before[..1000]).unwrap();
    let again = run_generations(options(config(&base, &ts, 3), &ts, &dir)).unwrap();
    assert_eq!(again.fits_reused, 0);
    assert_eq!(again.selfplay_resumed, 4);
    assert_eq!(
        std::fs::read(gen.join("weights.bin")).unwrap(),
        weights_before
    );
    assert_eq!(
        timeless(again.generations[0].clone()),
        timeless(first.generations[0].clone())
    );

    let done = run_generations(options(config(&base, &ts, 3), &ts, &dir)).unwrap();
    assert_eq!(done.completed_now, 0);
    assert_eq!(done.generations.len(), 1);

    let other = run_generations(options(config(&base, &ts, 4), &ts, &dir));
    match other {
        Err(TrainError::Settings { differences, .. }) => {
            assert!(
                differences.iter().any(|d| d.starts_with("seed: 4 now")),
                "{differences:?}"
            );
        }
        other => panic!(
            "expected the other seed refused, got {:?}",
            other.map(|_| ())
        ),
    }
}

/// A second process on a run folder is refused, naming the folder.
#[test]
fn a_run_folder_in_use_is_refused() {
    let root = scratch("lock");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let dir = root.join("run");
    std::fs::create_dir_all(&dir).unwrap();
    let _held = RunLock::acquire(&dir.canonicalize().unwrap()).unwrap();
    match run_generations(options(config(&base, &ts, 1), &ts, &dir)) {
        Err(e @ TrainError::Lock(_)) => assert!(e.to_string().contains("in use"), "{e}"),
        other => panic!("expected the lock refused, got {:?}", other.map(|_| ())),
    }
    assert!(!dir.join("run.json").exists(), "nothing written");
}

fn gate_settings(games: u32) -> MatchSettings {
    MatchSettings {
        terrains: terrains(8),
        games,
        variant: Variant::Normal,
        max_turns: 300,
        seed: 11,
        concurrency: Some(2),
        quiet: true,
    }
}

/// The gate refuses a planted weaker generation: a candidate playing with weights of its own
/// (here the shipped ones from a file) but a fortieth of the best's iterations loses, and the
/// test accepts H0.
#[test]
fn the_gate_refuses_a_planted_weaker_generation() {
    let root = scratch("gate-weaker");
    let shipped = root.join("shipped.bin");
    std::fs::write(&shipped, weights::to_bytes(ValueModel::shipped())).unwrap();
    let best = preset(&root, "best", 400, Some(&shipped));
    let weaker = preset(&root, "weaker", 10, Some(&shipped));
    let sprt: SprtParams = "0,50".parse().unwrap();
    let r = gate(&root.join("gate"), &weaker, &best, &gate_settings(10), sprt).unwrap();
    assert!(!r.kept, "{r:?}");
    assert_eq!(r.decision, SprtDecision::H0, "{r:?}");
    assert!(r.result.score < 0.35, "{r:?}");
}

/// The gate keeps a clearly stronger candidate: the same search with many more iterations
/// per decision is accepted by the test.
#[test]
fn the_gate_keeps_a_clearly_stronger_candidate() {
    let root = scratch("gate-stronger");
    let best = preset(&root, "best", 10, None);
    let stronger = preset(&root, "stronger", 400, None);
    let sprt: SprtParams = "0,50".parse().unwrap();
    let r = gate(
        &root.join("gate"),
        &stronger,
        &best,
        &gate_settings(10),
        sprt,
    )
    .unwrap();
    assert_eq!(r.decision, SprtDecision::H1, "{r:?}");
    assert!(r.kept);
}

/// `toybattle train --help` explains the loop; the first form (`train --records ... --out`)
/// is still accepted.
#[test]
fn the_help_explains_the_loop_and_the_old_form_still_fits() {
    let bin = env!("CARGO_BIN_EXE_toybattle");
    let help = std::process::Command::new(bin)
        .args(["train", "run", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    for word in ["self-play", "gate", "SPRT", "resum", "kill -9", "--plan"] {
        assert!(text.contains(word), "'{word}' not in:\n{text}");
    }
    let top = std::process::Command::new(bin)
        .args(["train", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&top.stdout).contains("run"));

    let root = scratch("old-form");
    let records = "results/balance/study/runs/strong-normal/records/castle_field";
    let out = root.join("w.bin");
    let fit = std::process::Command::new(bin)
        .args(["train", "--records", records, "--out"])
        .arg(&out)
        .args(["--epochs", "1", "--validation-every", "0"])
        .output()
        .unwrap();
    assert!(
        fit.status.success(),
        "{}",
        String::from_utf8_lossy(&fit.stderr)
    );
    weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
}

/// `train fit --cut-search` takes each cut position's target from a search of the judge it
/// names (results/learning.md, twenty-seventh round), says so in the positions it saves, and
/// refuses a judge that does not search, a budget of no iterations and a playout count beside
/// it, writing nothing.
#[test]
fn fit_on_search_targets_names_its_judge_and_refuses_what_cannot_judge() {
    let bin = env!("CARGO_BIN_EXE_toybattle");
    let root = scratch("search-targets");
    let records = "results/balance/study/runs/strong-normal/records/castle_field";
    let out = root.join("search.bin");
    let saved = root.join("search.positions");
    let fit = |extra: &[&str]| {
        std::process::Command::new(bin)
            .args(["train", "fit", "--records", records, "--cuts", "strong"])
            .args(["--epochs", "1", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let done = fit(&[
        "--cut-search",
        "ismcts-fast",
        "--cut-search-iterations",
        "16",
        "--save-positions",
        saved.to_str().unwrap(),
    ]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let loaded = std::process::Command::new(bin)
        .args(["train", "fit", "--positions", saved.to_str().unwrap()])
        .args(["--epochs", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&loaded.stdout);
    assert!(
        text.contains("cut positions of strong (a search of 16 iterations a target by ismcts-fast"),
        "{text}"
    );
    std::fs::remove_file(&out).unwrap();
    let refused = |extra: &[&str], expected: &[&str]| {
        let run = fit(extra);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{extra:?} was accepted");
        for part in expected {
            assert!(err.contains(part), "{extra:?}: {err}");
        }
        assert!(!out.exists(), "{extra:?}: nothing written");
    };
    refused(
        &["--cut-search", "greedy"],
        &["--cut-search greedy", "does not search"],
    );
    refused(
        &[
            "--cut-search",
            "ismcts-fast",
            "--cut-search-iterations",
            "0",
        ],
        &["--cut-search-iterations", "at least 1"],
    );
    refused(
        &["--cut-search", "ismcts-fast", "--cut-playouts", "4"],
        &["--cut-playouts", "cannot be used with"],
    );
    refused(&["--cut-search", "no-such-bot"], &["no-such-bot"]);
}

/// `train fit --cuts` fits weights the search loads from a search's cut positions, and
/// refuses a preset without playouts to cut, naming it; `--save-positions` and `--positions`
/// fit the same positions again without making them, `--hidden` sizes the network.
#[test]
fn fit_on_cut_positions_writes_weights_and_refuses_a_preset_without_a_cut() {
    let bin = env!("CARGO_BIN_EXE_toybattle");
    let root = scratch("cuts");
    let records = "results/balance/study/runs/strong-normal/records/castle_field";
    let out = root.join("cuts.bin");
    let fit_with = |extra: &[&str]| {
        std::process::Command::new(bin)
            .args(["train", "fit", "--records", records])
            .args(["--cut-playouts", "2", "--epochs", "1", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let fit = |preset: &str| fit_with(&["--cuts", preset]);
    let done = fit("strong");
    let text = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(text.contains("held-out positions"), "{text}");
    let made = weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    // The same positions, saved once and fitted from the file, give the same weights; a wider
    // network from the same file loads with its sizes.
    let saved = root.join("cuts.positions");
    let again = fit_with(&[
        "--cuts",
        "strong",
        "--save-positions",
        saved.to_str().unwrap(),
    ]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap(),
        made
    );
    let from_file = |extra: &[&str]| {
        std::process::Command::new(bin)
            .args(["train", "fit", "--positions", saved.to_str().unwrap()])
            .args(["--epochs", "1", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let loaded = from_file(&[]);
    let text = String::from_utf8_lossy(&loaded.stdout);
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    assert!(
        text.contains("cut positions of strong (2 full playouts"),
        "{text}"
    );
    assert_eq!(
        weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap(),
        made
    );
    // The records they were made from are compared; other records are refused.
    assert!(from_file(&["--records", records]).status.success());
    let other = from_file(&[
        "--records",
        "results/balance/study/runs/strong-normal/records",
    ]);
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        !other.status.success() && err.contains("--records hold") && err.contains("come from"),
        "{err}"
    );
    assert!(from_file(&["--hidden", "24x8"]).status.success());
    let wider = weights::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!((wider.hidden().first, wider.hidden().second), (24, 8));
    let refused = from_file(&["--hidden", "24x0"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("'24x0'") && err.contains("1 to 256"), "{err}");
    let bytes = std::fs::read(&saved).unwrap();
    std::fs::write(&saved, &bytes[..bytes.len() / 2]).unwrap();
    let err = String::from_utf8_lossy(&from_file(&[]).stderr).to_string();
    assert!(
        err.contains("cuts.positions") && err.contains("truncated"),
        "{err}"
    );
    std::fs::remove_file(&out).unwrap();
    let refused = fit("greedy");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--cuts greedy") && err.contains("no playouts"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

/// The self-play of a generation, played with the commands `train run --plan` prints (two
/// shards and a merge, as on a cluster), is taken as played when the run resumes.
#[test]
fn a_planned_selfplay_played_in_shards_and_merged_is_taken_as_played() {
    let bin = env!("CARGO_BIN_EXE_toybattle");
    let root = scratch("shards");
    let base = preset(&root, "base", 30, None);
    let dir = root.join("run");
    let args = [
        "--base",
        &base,
        "--terrains",
        "castle_field",
        "--variants",
        "normal",
        "--games",
        "4",
        "--gate-games",
        "2",
        "--reference-games",
        "2",
        "--epochs",
        "1",
        "--validation-every",
        "0",
        "--quiet",
    ];
    let plan = std::process::Command::new(bin)
        .args(["train", "run"])
        .arg(&dir)
        .args(args)
        .arg("--plan")
        .current_dir(&root)
        .output()
        .unwrap();
    let plan = String::from_utf8(plan.stdout).unwrap();
    let line = |prefix: &str| {
        plan.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no '{prefix}' in:\n{plan}"))
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let shard_dirs: Vec<String> = (1..=2)
        .map(|k| {
            let words: Vec<String> = line("toybattle tournament")
                .into_iter()
                .map(|w| match w.as_str() {
                    "K/N" => format!("{k}/2"),
                    w if w.ends_with("/K") => format!("{}/{k}", &w[..w.len() - 2]),
                    w => w.to_string(),
                })
                .collect();
            let out = words.last().unwrap().clone();
            let played = std::process::Command::new(bin)
                .args(&words)
                .arg("--quiet")
                .current_dir(&root)
                .output()
                .unwrap();
            assert!(
                played.status.success(),
                "{}",
                String::from_utf8_lossy(&played.stderr)
            );
            out
        })
        .collect();
    let merge = line("toybattle merge");
    let merged = std::process::Command::new(bin)
        .arg("merge")
        .args(&shard_dirs)
        .args(&merge[merge.len() - 2..])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );

    let ts = terrains(1);
    let mut config = config(&base, &ts, 1);
    config.variants = vec![Variant::Normal];
    config.games = 4;
    config.epochs = 1;
    // The command line's defaults.
    (config.window, config.batch) = (4, 256);
    (config.learning_rate, config.weight_decay) = (3e-4, 0.3);
    let report = run_generations(options(config, &ts, &dir)).unwrap();
    assert_eq!(
        report.selfplay_resumed, 4,
        "every self-play game came from the shards"
    );
    assert_eq!(report.generations[0].selfplay_games, 4);
}

/// A preset whose `value_weights` file is missing or cut short is refused when it is read,
/// naming the option, the file and what is wrong; a whole file is accepted.
#[test]
fn a_preset_naming_a_bad_weights_file_is_refused_with_the_reason() {
    let root = scratch("bad-weights");
    let whole = weights::to_bytes(ValueModel::shipped());
    let cut = root.join("cut.bin");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let e = toybattle::bot::preset::resolve(&preset(&root, "cut", 30, Some(&cut)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("value_weights") && e.contains("cut.bin"), "{e}");
    assert!(e.contains("truncated"), "{e}");
    let missing = root.join("missing.bin");
    let e = toybattle::bot::preset::resolve(&preset(&root, "missing", 30, Some(&missing)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.bin"), "{e}");
    let fine = root.join("whole.bin");
    std::fs::write(&fine, &whole).unwrap();
    toybattle::bot::preset::resolve(&preset(&root, "whole", 30, Some(&fine))).unwrap();
}

/// Every record file of a self-play folder, relative to it (`records/...`), in sorted order.
fn record_files(run: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&run.join("records"), &mut files);
    files.sort();
    files
        .iter()
        .map(|p| p.strip_prefix(run).unwrap().display().to_string())
        .collect()
}

/// Checks the root stats of every game of self-play folder `run` against its record: one note
/// per player decision, on that decision's step and player; a searched decision's visits sum
/// to the search's iterations (`iterations` each, or 0 for a win taken without search) and its
/// root value is in [0, 1]; a forced decision has no search. Returns (searched, forced).
fn check_roots(run: &Path, iterations: u64) -> (usize, usize) {
    let (mut searched, mut forced) = (0, 0);
    for rel in record_files(run) {
        let record: GameRecord =
            serde_json::from_str(&std::fs::read_to_string(run.join(&rel)).unwrap()).unwrap();
        let roots = read_roots(run, &rel, &record)
            .unwrap()
            .unwrap_or_else(|| panic!("{rel}: no root stats"));
        let game = Game::builtin(&record.terrain, record.variant).unwrap();
        let mut state = game.initial_state(&record.deal);
        let mut notes = roots.decisions.iter();
        for (k, step) in record.steps.iter().enumerate() {
            if !state.is_chance() {
                let note = notes.next().unwrap_or_else(|| panic!("{rel}: step {k}"));
                assert_eq!((note.step, note.player), (k, state.active()), "{rel}");
                let visits: u64 = note.visits.iter().map(|v| v.1).sum();
                assert_eq!(visits, note.iterations, "{rel} step {k}: {note:?}");
                match note.value {
                    Some(v) => {
                        assert!((0.0..=1.0).contains(&v), "{rel} step {k}: {note:?}");
                        assert!([0, iterations].contains(&note.iterations), "{note:?}");
                        assert_eq!(note.visits[0].0, *step, "the played decision first");
                        searched += 1;
                    }
                    None => {
                        assert_eq!(note.iterations, 0, "{rel} step {k}");
                        forced += 1;
                    }
                }
            }
            let d = Decision::parse(step, game.terrain()).unwrap();
            game.apply(&mut state, d).unwrap();
        }
        assert!(
            notes.next().is_none(),
            "{rel}: a note past the last decision"
        );
    }
    (searched, forced)
}

/// A tiny generation keeps, beside every self-play record, the root stats of every decision:
/// visits summing to the search's iterations and a root value in [0, 1]; the fit's dataset
/// reads them.
#[test]
fn a_generation_keeps_the_root_stats_of_every_selfplay_decision() {
    let root = scratch("roots");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(2);
    let dir = root.join("run");
    run_generations(options(config(&base, &ts, 5), &ts, &dir)).unwrap();
    let mut total = 0;
    for variant in ["normal", "beginner"] {
        let run = dir.join("gen-001").join(format!("selfplay-{variant}"));
        let (searched, forced) = check_roots(&run, 30);
        assert!(searched > 50, "{variant}: {searched} searched decisions");
        let mut data = Dataset::new();
        data.add_records_under(&run).unwrap();
        assert_eq!(data.len(), searched + forced);
        let valued = (0..data.len()).filter(|&k| data.root_value(k).is_some());
        assert_eq!(valued.count(), searched);
        total += searched;
    }
    assert!(total > 100);
}

/// The policy fit to root visits (AlphaZero's target) reads the visits of every searched
/// decision with a choice from a run's root stats, and each fit is the better one at its own
/// target: fitting the played decisions and fitting the visit shares are different problems.
#[test]
fn the_policy_fits_the_root_visits_a_generation_kept() {
    let root = scratch("policy-visits");
    let base = preset(&root, "base", 60, None);
    let ts = terrains(2);
    let dir = root.join("run");
    let mut cfg = config(&base, &ts, 17);
    cfg.variants = vec![Variant::Normal];
    run_generations(options(cfg, &ts, &dir)).unwrap();
    let run = dir.join("gen-001/selfplay-normal");
    let read = |target| {
        let mut data = PolicyData::with_target(target);
        data.add_records_under(&run).unwrap();
        data
    };
    let (played, visits) = (read(PolicyTarget::Played), read(PolicyTarget::Visits));
    assert_eq!(played.from_visits(), 0);
    assert!(visits.len() > 50, "{} positions", visits.len());
    assert_eq!(visits.len(), played.len());
    // Every position with a choice was searched (no forced decision has two options).
    assert_eq!(visits.from_visits(), visits.len());
    let ridge = 1e-6;
    let by_played = fit_policy(&played, Split::All, ridge);
    let by_visits = fit_policy(&visits, Split::All, ridge);
    assert_ne!(by_played, by_visits);
    let loss = |m, d| score(m, d, Split::All).loss;
    assert!(loss(&by_visits, &visits) < loss(&by_played, &visits));
    assert!(loss(&by_played, &played) < loss(&by_visits, &played));
}

/// `--learn policy`: a generation fits the policy model to its self-play's root visits
/// (`policy.json`, a weights file the search loads), its candidate is the base search with that
/// model as its tree's prior at the strength asked, the gate is played, and a rerun reuses the
/// fit instead of fitting again.
#[test]
fn a_policy_generation_fits_the_prior_to_root_visits_and_gates_it() {
    let root = scratch("learn-policy");
    let base = preset(&root, "base", 40, None);
    let ts = terrains(2);
    let dir = root.join("run");
    let mut cfg = config(&base, &ts, 21);
    cfg.variants = vec![Variant::Normal];
    (cfg.learn, cfg.policy_strength) = (Learn::Policy, Some(0.5));
    let report = run_generations(options(cfg.clone(), &ts, &dir)).unwrap();
    let result = &report.generations[0];
    assert!(result.trained_positions > 50, "{result:?}");
    assert!(result.gate.result.games > 0);
    let gen = dir.join("gen-001");
    let policy = std::fs::read_to_string(gen.join("policy.json")).unwrap();
    let fitted = toybattle::model::PolicyModel::from_json(&policy).unwrap();
    assert_ne!(&fitted, toybattle::model::PolicyModel::shipped());
    assert!(!gen.join("weights.bin").exists());
    let candidate = std::fs::read_to_string(gen.join("candidate.toml")).unwrap();
    for line in ["policy_prior = true", "prior = 0.5", "policy.json"] {
        assert!(candidate.contains(line), "{line}: {candidate}");
    }
    assert!(!candidate.contains("value_model"), "{candidate}");
    // The fit is the one `train policy --target visits` makes of the same self-play.
    let mut data = PolicyData::with_target(PolicyTarget::Visits);
    data.add_records_under(&gen.join("selfplay-normal"))
        .unwrap();
    assert_eq!(fit_policy(&data, Split::All, 1.0), fitted);
    // A rerun asking one more generation finds the first complete and reuses nothing else.
    std::fs::remove_file(gen.join("result.json")).unwrap();
    let again = run_generations(options(cfg, &ts, &dir)).unwrap();
    assert_eq!(again.fits_reused, 1);
    assert_eq!(
        again.generations[0].trained_positions,
        result.trained_positions
    );
}

/// A policy run needs a tree search as its base, and a prior strength only means something
/// for a policy run: both are refused, saying why.
#[test]
fn a_policy_run_refuses_a_base_without_a_tree_and_a_strength_without_a_policy() {
    let root = scratch("learn-policy-refused");
    let flat = root.join("flat.toml");
    std::fs::write(
        &flat,
        "description = \"x\"\nalgorithm = \"flat-mc\"\n[budget]\niterations = 10\n",
    )
    .unwrap();
    let err = base_preset(flat.to_str().unwrap(), Learn::Policy)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no prior for a policy model"), "{err}");
    let base = preset(&root, "base", 20, None);
    let ts = terrains(1);
    let mut cfg = config(&base, &ts, 3);
    cfg.policy_strength = Some(0.5);
    let err = run_generations(options(cfg, &ts, &root.join("run")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--policy-strength is for --learn policy"),
        "{err}"
    );
}

/// A self-play interrupted mid-way resumes with root stats consistent with its games: a game
/// counted whose root stats file is missing, or holds another game's, is played again and gets
/// its own (with iteration budgets, the same file as before), and the games untouched keep
/// theirs.
#[test]
fn a_resumed_selfplay_keeps_its_root_stats_consistent_with_its_games() {
    let root = scratch("roots-resume");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let dir = root.join("run");
    let mut cfg = config(&base, &ts, 9);
    (cfg.variants, cfg.games) = (vec![Variant::Normal], 4);
    run_generations(options(cfg.clone(), &ts, &dir)).unwrap();
    let run = dir.join("gen-001/selfplay-normal");
    let files = record_files(&run);
    assert_eq!(files.len(), 4);
    let roots_of = |rel: &str| run.join(roots_path(rel));
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(roots_of(f)).unwrap())
        .collect();

    // One game's root stats lost, another's overwritten by a third game's.
    std::fs::remove_file(dir.join("gen-001/result.json")).unwrap();
    std::fs::remove_file(roots_of(&files[0])).unwrap();
    std::fs::copy(roots_of(&files[3]), roots_of(&files[1])).unwrap();
    let again = run_generations(options(cfg, &ts, &dir)).unwrap();
    assert_eq!(
        again.selfplay_resumed, 2,
        "the two games without their own stats replayed"
    );
    for (f, bytes) in files.iter().zip(&before) {
        assert_eq!(&std::fs::read(roots_of(f)).unwrap(), bytes, "{f}");
    }
    check_roots(&run, 30);
}

/// λ = 0 fits exactly what the fit on outcomes alone fits, bit for bit, even where root values
/// are at hand; λ > 0 uses them.
#[test]
fn a_target_mix_of_zero_fits_the_same_weights_as_outcomes_alone() {
    let root = scratch("mix");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let dir = root.join("run");
    let mut cfg = config(&base, &ts, 13);
    (cfg.variants, cfg.games) = (vec![Variant::Normal], 4);
    run_generations(options(cfg, &ts, &dir)).unwrap();
    let run = dir.join("gen-001/selfplay-normal");
    let mut with_roots = Dataset::new();
    with_roots.add_records_under(&run).unwrap();
    let mut outcomes = Dataset::new();
    outcomes.add_records_under(&run.join("records")).unwrap();
    assert!((0..outcomes.len()).all(|k| outcomes.root_value(k).is_none()));
    assert!((0..with_roots.len()).any(|k| with_roots.root_value(k).is_some()));
    let weights_of = |data: &Dataset, mix: f64| {
        let options = FitOptions {
            epochs: 2,
            batch: 32,
            seed: 3,
            validation_every: 0,
            target_mix: mix,
            ..FitOptions::default()
        };
        weights::to_bytes(&fit(data, &options, |_| {}).unwrap().0)
    };
    let plain = weights_of(&outcomes, 0.0);
    assert!(
        weights_of(&with_roots, 0.0) == plain,
        "λ = 0 changed the weights"
    );
    assert!(
        weights_of(&with_roots, 0.5) != plain,
        "λ = 0.5 ignored the root values"
    );
}

/// The learning curve draws every generation's gate, kept ones filled and the others hollow and
/// marked "not kept" in the legend, from `curve.csv` alone (`train curve DIR`); a damaged
/// `curve.csv` is refused with its line.
#[test]
fn the_curve_draws_every_generations_gate_from_the_csv() {
    let dir = scratch("curve");
    let csv = format!(
        "{CURVE_HEADER}\n\
         1,false,0,110,-38.0,-99.0,24.0,-2.950,,,,,0.0200\n\
         2,true,0,96,61.0,12.0,110.0,2.960,40,45.0,-20.0,110.0,0.0500\n\
         3,false,2,64,5.0,-80.0,90.0,-0.500,,,,,0.0700\n"
    );
    std::fs::write(dir.join("curve.csv"), &csv).unwrap();
    assert_eq!(redraw_curve(&dir).unwrap(), 3);
    let svg = std::fs::read_to_string(dir.join("curve.svg")).unwrap();
    assert_eq!(svg.matches("class=\"gate-kept\"").count(), 1, "{svg}");
    assert_eq!(svg.matches("class=\"gate-not-kept\"").count(), 2, "{svg}");
    assert_eq!(
        svg.matches("class=\"reference\"").count(),
        2,
        "generation 0 and 2"
    );
    for text in ["gate: not kept", "kept", "generation", "Elo (95% interval)"] {
        assert!(svg.contains(text), "'{text}' not in the plot");
    }
    assert_eq!(parse_curve_csv(&csv).unwrap().len(), 3);
    let e = parse_curve_csv(&csv.replace("0.0700", "x")).unwrap_err();
    assert!(e.contains("line 4") && e.contains("cpu_hours"), "{e}");
}

/// `train run --cuts`: a generation fits its value model to the base search's own cut
/// positions of its self-play (at most one a turn start with `per_start` 1, not one a
/// decision), reproducibly from the seed, and not to the outcomes a run without it fits on
/// the same games; settings that cannot go with cuts are refused, and so is resuming a run
/// with other cut settings.
#[test]
fn a_cut_generation_fits_the_base_searchs_cut_positions() {
    let root = scratch("cuts");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let cut_config = |cuts: Option<CutSettings>| {
        let mut cfg = config(&base, &ts, 21);
        (cfg.variants, cfg.cuts, cfg.reference_games) = (vec![Variant::Normal], cuts, 0);
        cfg
    };
    let cuts = Some(CutSettings {
        playouts: 4,
        per_start: 1,
        search_iterations: None,
    });
    let mut runs = Vec::new();
    for (name, settings) in [("a", cuts), ("b", cuts), ("outcomes", None)] {
        let dir = root.join(name);
        let report = run_generations(options(cut_config(settings), &ts, &dir)).unwrap();
        let r = timeless(report.generations[0].clone());
        let w = std::fs::read(dir.join("gen-001/weights.bin")).unwrap();
        runs.push((r, w, dir));
    }
    assert_eq!((&runs[0].0, &runs[0].1), (&runs[1].0, &runs[1].1));
    let run_json = std::fs::read_to_string(runs[0].2.join("run.json")).unwrap();
    assert!(run_json.contains("\"per_start\": 1"), "{run_json}");
    let (cut, outcome) = (&runs[0], &runs[2]);
    assert_eq!(cut.0.selfplay_games, outcome.0.selfplay_games);
    let selfplay = cut.2.join("gen-001/selfplay-normal");
    let turn_starts: usize = record_files(&selfplay)
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(selfplay.join(f)).unwrap();
            let record: GameRecord = serde_json::from_str(&text).unwrap();
            record.result.turns as usize
        })
        .sum();
    assert!(cut.0.trained_positions > 0);
    assert!(cut.0.trained_positions as usize <= turn_starts);
    assert!(cut.0.trained_positions < outcome.0.trained_positions);
    assert_ne!(cut.1, outcome.1, "the cut run fitted the outcomes");

    let refused = |cfg: TrainConfig, tag: &str| {
        run_generations(options(cfg, &ts, &root.join(tag)))
            .unwrap_err()
            .to_string()
    };
    let mut cfg = cut_config(cuts);
    cfg.target_mix = 0.5;
    assert!(refused(cfg, "mix").contains("--target-mix"));
    let mut cfg = cut_config(cuts);
    cfg.learn = Learn::Policy;
    assert!(refused(cfg, "policy").contains("--cuts is for --learn value"));
    let cfg = cut_config(Some(CutSettings {
        playouts: 0,
        per_start: 1,
        search_iterations: None,
    }));
    assert!(refused(cfg, "zero").contains("--cut-playouts"));
    let cfg = cut_config(Some(CutSettings {
        playouts: 4,
        per_start: 1,
        search_iterations: Some(0),
    }));
    assert!(refused(cfg, "no-iterations").contains("--cut-search-iterations"));
    let mut resumed = options(cut_config(None), &ts, &cut.2);
    resumed.generations = 2;
    let err = run_generations(resumed).unwrap_err().to_string();
    assert!(err.contains("cuts: nothing now"), "{err}");
}

/// `train run --cuts` makes a self-play folder's cut positions once (`cuts/KEY.positions`):
/// the next generation, whose window holds that folder again, reads them and leaves the file
/// as it was; a damaged file is made again, the same bytes, and the refit gives the same weights.
#[test]
fn a_folders_cut_positions_are_made_once_and_a_damaged_file_again() {
    let root = scratch("cut-cache");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let mut cfg = config(&base, &ts, 23);
    (cfg.variants, cfg.reference_games) = (vec![Variant::Normal], 0);
    cfg.cuts = Some(CutSettings {
        playouts: 4,
        per_start: 1,
        search_iterations: None,
    });
    let dir = root.join("run");
    let run = |generations: u32| {
        let mut o = options(cfg.clone(), &ts, &dir);
        o.generations = generations;
        run_generations(o).unwrap()
    };
    run(1);
    let first = dir.join("cuts/gen-001-normal.positions");
    let (bytes, modified) = (
        std::fs::read(&first).unwrap(),
        std::fs::metadata(&first).unwrap().modified().unwrap(),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = run(2);
    assert_eq!(
        report.generations[1].trained_games, 4,
        "the window is two generations"
    );
    assert_eq!(
        std::fs::metadata(&first).unwrap().modified().unwrap(),
        modified
    );
    assert!(dir.join("cuts/gen-002-normal.positions").is_file());
    let weights_file = dir.join("gen-002/weights.bin");
    let fitted = std::fs::read(&weights_file).unwrap();

    std::fs::write(&first, &bytes[..bytes.len() / 2]).unwrap();
    for f in ["weights.bin", "fit.json", "result.json"] {
        std::fs::remove_file(dir.join("gen-002").join(f)).unwrap();
    }
    run(2);
    assert_eq!(std::fs::read(&first).unwrap(), bytes);
    assert_eq!(std::fs::read(&weights_file).unwrap(), fitted);
}

/// `train run --cuts --cut-search-iterations N`: the cut positions are the playout run's, their
/// targets the root values of the best's search (named in the positions file with the best's
/// version), and once another generation is kept the folders' cut positions are judged again
/// by it, with its model.
#[test]
fn a_search_target_run_judges_its_cuts_by_the_best_and_again_once_another_is_kept() {
    let root = scratch("cut-search");
    let base = preset(&root, "base", 30, None);
    let ts = terrains(1);
    let with = |search_iterations| {
        let mut cfg = config(&base, &ts, 29);
        (cfg.variants, cfg.reference_games) = (vec![Variant::Normal], 0);
        cfg.cuts = Some(CutSettings {
            playouts: 4,
            per_start: 1,
            search_iterations,
        });
        cfg
    };
    let run = |cfg: TrainConfig, dir: &Path, generations: u32| {
        let mut o = options(cfg, &ts, dir);
        o.generations = generations;
        run_generations(o).unwrap()
    };
    let (by_playouts, by_search) = (root.join("playouts"), root.join("search"));
    run(with(None), &by_playouts, 1);
    run(with(Some(16)), &by_search, 1);
    let cuts =
        |dir: &Path| positions_file::load(&dir.join("cuts/gen-001-normal.positions")).unwrap();
    let ((p, p_made), (s, s_made)) = (cuts(&by_playouts), cuts(&by_search));
    assert!(p_made.contains("4 playouts a target"), "{p_made}");
    let base_version = base_preset(&base, Learn::Value).unwrap().version();
    assert!(
        s_made.contains(&format!(
            "judge {base_version} searching 16 iterations a target"
        )),
        "{s_made}"
    );
    assert!(!p.is_empty() && p.len() == s.len());
    assert!((0..p.len()).all(|k| p.entries(k) == s.entries(k) && p.offset(k) == s.offset(k)));
    assert!(
        (0..p.len()).any(|k| p.target(k) != s.target(k)),
        "same targets"
    );

    // Generation 1 kept (its gate is a coin at this size; set by hand): generation 2's best
    // is generation 1 with its model, and it judges the folder's cut positions again.
    let result = by_search.join("gen-001/result.json");
    let text = std::fs::read_to_string(&result).unwrap();
    std::fs::write(&result, text.replace("\"kept\": false", "\"kept\": true")).unwrap();
    run(with(Some(16)), &by_search, 2);
    let best = std::fs::read_to_string(by_search.join("gen-002/best.toml")).unwrap();
    assert!(best.contains("value_weights"), "{best}");
    let (again, again_made) = cuts(&by_search);
    assert!(
        again_made.contains("searching 16 iterations a target"),
        "{again_made}"
    );
    assert!(
        !again_made.contains(&format!("judge {base_version}")),
        "{again_made}"
    );
    assert!((0..s.len()).all(|k| again.entries(k) == s.entries(k)));
    assert!(
        (0..s.len()).any(|k| again.target(k) != s.target(k)),
        "judged as before"
    );
}
