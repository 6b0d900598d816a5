//! The policy model (issue 29): fitted to the decisions the search chose in self-play, shipped
//! as the fit of the published strong games, and read by the search with `policy_prior`. The
//! command-line tests need the `train` feature (`cargo test --features train --test policy`).

use std::path::Path;
use toybattle::model::{PolicyModel, Tactic};
use toybattle::train::policy::{score, score_with};
use toybattle::train::{fit_policy, PolicyData, Split};
mod weights_support;
use weights_support::check_preset_plays_the_weights_it_names;
#[cfg(feature = "train")]
mod train_support;
#[cfg(feature = "train")]
use train_support::{some_records, train};

/// The published study's strong self-play records, both variants: what the shipped weights
/// were fitted to (results/learning.md, "The policy model").
const STRONG: [&str; 2] = [
    "results/balance/study/runs/strong-normal",
    "results/balance/study/runs/strong-beginner",
];

fn strong_games() -> PolicyData {
    let mut data = PolicyData::new();
    for dir in STRONG {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        assert_eq!(data.add_records_under(&dir).unwrap(), 1008);
    }
    data
}

/// The shipped weights are exactly the fit that `toybattle train policy` makes of the
/// committed strong games (one game in ten held out), so anyone can make them again; and on
/// the held-out games the fit predicts the search's decisions better than the hand-set
/// tactical weights, which predict them better than a uniform guess.
#[test]
fn the_shipped_policy_is_the_fit_of_the_published_strong_games_and_predicts_them_best() {
    let data = strong_games();
    assert_eq!(data.games(), 2016);
    let fitted = fit_policy(&data, Split::Training { every: 10 }, 1.0);
    let shipped = PolicyModel::shipped();
    for (a, b) in fitted.tactics().iter().zip(shipped.tactics()) {
        assert!((a - b).abs() < 1e-9, "{a} {b}");
    }
    for (a, b) in fitted.troops().iter().zip(shipped.troops()) {
        assert!((a - b).abs() < 1e-9, "{a} {b}");
    }
    let held = Split::HeldOut { every: 10 };
    let learned = score(shipped, &data, held);
    let hand = score(&PolicyModel::hand_set(), &data, held);
    let uniform = score_with(&data, held, |_, _| 1.0);
    assert!(learned.positions > 5000, "{learned:?}");
    assert!(learned.loss < hand.loss - 0.3, "{learned:?} {hand:?}");
    assert!(hand.loss < uniform.loss, "{hand:?} {uniform:?}");
    assert!(learned.top1 > hand.top1 + 0.1, "{learned:?} {hand:?}");
    // A defence of an HQ is preferred to a plain placement, as the hand-set weights have it.
    assert!(shipped.logit(Tactic::Defend, None) > shipped.logit(Tactic::EmptyBase, None));
}

/// `toybattle train policy` prints the held-out comparison, writes weights that load, and
/// writes the same weights from the same records.
#[cfg(feature = "train")]
#[test]
fn train_policy_writes_weights_that_load_and_are_reproducible() {
    let records = some_records("cli", 40);
    let outs = ["a.json", "b.json"].map(|f| records.with_extension(f));
    for out in &outs {
        let run = train(
            "policy",
            &[
                "--records",
                records.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        for line in [
            "uniform",
            "hand-set tactical weights",
            "fitted policy model",
        ] {
            assert!(stdout.contains(line), "{stdout}");
        }
    }
    let [a, b] = [&outs[0], &outs[1]].map(|o| std::fs::read_to_string(o).unwrap());
    assert_eq!(a, b);
    PolicyModel::from_json(&a).unwrap();
    let _ = std::fs::remove_dir_all(&records);
    outs.iter().for_each(|o| drop(std::fs::remove_file(o)));
}

/// A record that does not parse is refused naming its file, and no weights are written.
#[cfg(feature = "train")]
#[test]
fn train_policy_refuses_a_broken_record_naming_it() {
    let records = some_records("bad", 3);
    std::fs::write(records.join("zz-broken.json"), "{\"terrain\": ").unwrap();
    let out = records.with_extension("w.json");
    let run = train(
        "policy",
        &[
            "--records",
            records.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("zz-broken.json"), "{stderr}");
    assert!(stderr.contains("not a game record"), "{stderr}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&records);
}

/// `--target visits` over records of runs that kept no root stats is refused, saying why, and
/// no weights are written.
#[cfg(feature = "train")]
#[test]
fn train_policy_refuses_visit_targets_without_root_stats() {
    let records = some_records("novisits", 3);
    let out = records.with_extension("v.json");
    let run = train(
        "policy",
        &[
            "--records",
            records.to_str().unwrap(),
            "--target",
            "visits",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("kept root stats"), "{stderr}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&records);
}

/// A preset's `policy_weights` names the policy model its prior reads: the same weights under
/// another name are the same bot, other weights another bot (its version changes), and a file
/// that is missing or cut short is refused when the preset is read, naming it.
#[test]
fn a_preset_plays_with_the_policy_weights_it_names() {
    check_preset_plays_the_weights_it_names(
        "policy",
        "prior = 1.0\npolicy_prior = true\n",
        "policy_weights",
        (
            &PolicyModel::shipped().to_json(),
            &PolicyModel::new([0.0; 8], [0.0; 8]).to_json(),
        ),
        "not a toybattle policy weights file",
    );
}
