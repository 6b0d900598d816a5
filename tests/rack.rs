//! The rack model (issue 29): the odds, per troop, that an unseen tile of the opponent is on
//! their rack, fitted to the true racks of self-play games and read by the search's
//! determinizations with `rack_model`. The command-line tests need the `train` feature
//! (`cargo test --features train --test rack`).

use std::path::{Path, PathBuf};
use toybattle::bot::search::KEPT_TROOPS;
use toybattle::model::RackModel;
use toybattle::train::rack::score;
use toybattle::train::{RackData, Split};
mod weights_support;
use weights_support::check_preset_plays_the_weights_it_names;
#[cfg(feature = "train")]
mod train_support;
#[cfg(feature = "train")]
use train_support::{some_records, train};

/// The strong self-play records the shipped weights were fitted to, in the order of the
/// command in results/learning.md ("Fifth round"), which the held-out split follows.
const STRONG: [&str; 3] = [
    "results/learning/selfplay-strong-s29",
    "results/balance/study/runs/strong-normal",
    "results/balance/study/runs/strong-beginner",
];

fn root(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

/// On the games held out of its fit, the shipped model predicts the opponent's hidden rack
/// better than the search's fixed odds (`rack_belief`), which predict it better than a uniform
/// deal.
#[test]
fn the_shipped_rack_model_predicts_held_out_racks_better_than_fixed_odds() {
    let mut data = RackData::new();
    for dir in STRONG {
        data.add_records_under(&root(dir)).unwrap();
    }
    assert_eq!(data.games(), 2382);
    let held = Split::HeldOut { every: 10 };
    let uniform = score(&RackModel::fixed([0.0; 8]), &data, held);
    let fixed = score(
        &RackModel::fixed(KEPT_TROOPS.map(|k| f64::from(k).ln())),
        &data,
        held,
    );
    let shipped = score(RackModel::shipped(), &data, held);
    assert!(shipped.positions > 5000, "{shipped:?}");
    assert!(fixed.loss < uniform.loss - 0.05, "{fixed:?} {uniform:?}");
    assert!(shipped.loss < fixed.loss - 0.2, "{shipped:?} {fixed:?}");
}

/// The model reads the position: early and late in a recorded game it gives other odds, and
/// both are made from the deciding player's observation only.
#[test]
fn the_shipped_rack_model_gives_other_odds_in_other_positions() {
    use toybattle::info::Observation;
    use toybattle::record::GameRecord;
    use toybattle::rules::{Decision, Game};
    let dir = root(STRONG[1]).join("records/castle_field");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let record: GameRecord =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let game = Game::builtin(&record.terrain, record.variant).unwrap();
    let mut state = game.initial_state(&record.deal);
    let model = RackModel::shipped();
    let first = model.belief(&game, &Observation::new(&state, state.active()));
    for step in record.steps.iter().take(30) {
        let d = Decision::parse(step, game.terrain()).unwrap();
        game.apply(&mut state, d).unwrap();
    }
    assert!(!state.is_over());
    let later = model.belief(&game, &Observation::new(&state, state.active()));
    assert_ne!(first, later);
}

/// `toybattle train rack` prints the held-out comparison, writes weights that load, and writes
/// the same weights from the same records; its fit beats uniform odds on its training games.
#[cfg(feature = "train")]
#[test]
fn train_rack_writes_weights_that_load_and_are_reproducible() {
    let records = some_records("cli", 30);
    let outs = ["a.json", "b.json"].map(|f| records.with_extension(f));
    for out in &outs {
        let o = train(
            "rack",
            &[
                "--records",
                records.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--epochs",
                "60",
                "--validation-every",
                "5",
            ],
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for line in [
            "uniform odds",
            "fixed odds (rack_belief)",
            "fitted rack model",
        ] {
            assert!(stdout.contains(line), "{stdout}");
        }
    }
    let [a, b] = outs.clone().map(|p| std::fs::read_to_string(p).unwrap());
    assert_eq!(a, b, "the same records give the same weights");
    let model = RackModel::from_json(&a).unwrap();
    let mut data = RackData::new();
    data.add_records_under(&records).unwrap();
    let training = Split::Training { every: 5 };
    let fitted = score(&model, &data, training);
    let uniform = score(&RackModel::fixed([0.0; 8]), &data, training);
    assert!(fitted.loss < uniform.loss, "{fitted:?} {uniform:?}");
    let _ = std::fs::remove_dir_all(&records);
    outs.iter().for_each(|p| {
        let _ = std::fs::remove_file(p);
    });
}

/// A broken record is refused with its file named, and nothing is written.
#[cfg(feature = "train")]
#[test]
fn train_rack_refuses_a_broken_record_naming_it() {
    let records = some_records("broken", 2);
    std::fs::write(records.join("zz-broken.json"), "{\"format\":").unwrap();
    let out = records.with_extension("w.json");
    let o = train(
        "rack",
        &[
            "--records",
            records.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("zz-broken.json"), "{stderr}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&records);
}

/// A preset's version follows the rack weights it plays with, not their file's name; a cut or
/// missing weights file is refused naming `rack_weights` and the file.
#[test]
fn a_preset_plays_with_the_rack_weights_it_names() {
    check_preset_plays_the_weights_it_names(
        "rack",
        "rack_model = true\n",
        "rack_weights",
        (
            &RackModel::shipped().to_json(),
            &RackModel::fixed([0.0; 8]).to_json(),
        ),
        "not a toybattle rack weights file",
    );
}
