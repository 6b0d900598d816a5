//! The greedy rules' term weights learned (issue 29): fitted to the search's own decisions
//! (expert iteration, `train::playout`, `toybattle train playout`) and tuned by the greedy
//! rules' self-play (SPSA, `train::tune`, `toybattle train greedy`). The command-line test needs the
//! `train` feature (`cargo test --features train --test playout_weights`).

use std::path::Path;
use toybattle::bot::search::SearchConfig;
use toybattle::rules::Variant;
use toybattle::train::playout::{as_playout_weights, fit_playout, score, PlayoutData};
use toybattle::train::tune::{greedy_match, tune_greedy, TuneConfig};
use toybattle::train::Split;
#[cfg(feature = "train")]
mod train_support;
#[cfg(feature = "train")]
use train_support::{some_records, train};

fn strong_normal() -> PlayoutData {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("results/balance/study/runs/strong-normal");
    let mut data = PlayoutData::new();
    assert_eq!(data.add_records_under(&dir).unwrap(), 1008);
    data
}

/// On the published strong games, weights fitted to nine games in ten pick the search's
/// decision on the tenth more often than the hand-set sum does, and the fit is the same from
/// the same records; the weights it gives are a valid `playout_weights`.
#[test]
fn fitted_playout_weights_imitate_the_search_better_than_the_hand_set_sum() {
    let data = strong_normal();
    assert!(data.len() > 25_000, "{} positions", data.len());
    let fitted = fit_playout(&data, Split::Training { every: 10 }, 0.01);
    assert_eq!(
        fitted,
        fit_playout(&strong_normal(), Split::Training { every: 10 }, 0.01)
    );
    let held = Split::HeldOut { every: 10 };
    let hand = score(&data, held, &[1.0; 7], false);
    let learned = score(&data, held, &fitted, true);
    assert!(hand.positions > 2000, "{hand:?}");
    assert!(
        learned.top1 > hand.top1 + 0.04,
        "{learned:?} against {hand:?}"
    );
    let weights = as_playout_weights(&fitted);
    assert!(weights.contains(&1.0), "{weights:?}");
    let config = SearchConfig {
        playout_weights: weights.to_vec(),
        ..SearchConfig::default()
    };
    assert_eq!(config.validate(), Ok(()));
}

/// A tiny fit, on the positions of a few games, lowers the loss of the decisions it was fitted
/// to below the uniform choice's (all weights 0), and more iterations of Newton's method have
/// nothing left to gain.
#[test]
fn a_tiny_fit_lowers_its_loss() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results/balance/study/runs/strong-normal/records/battlefield");
    let mut data = PlayoutData::new();
    data.add_records_under(&dir).unwrap();
    let fitted = fit_playout(&data, Split::Training { every: 2 }, 0.01);
    let train = Split::Training { every: 2 };
    let loss = |w: &[f64; 7]| score(&data, train, w, true).loss.unwrap();
    assert!(
        loss(&fitted) < loss(&[0.0; 7]) - 0.2,
        "{} {}",
        loss(&fitted),
        loss(&[0.0; 7])
    );
    for j in 0..7 {
        let mut nudged = fitted;
        nudged[j] *= 1.05;
        assert!(loss(&nudged) >= loss(&fitted) - 1e-6, "term {j}");
    }
}

/// `toybattle train playout` prints the held-out comparison and a `playout_weights` line a
/// preset accepts, the same from the same records.
#[cfg(feature = "train")]
#[test]
fn train_playout_prints_weights_a_preset_takes() {
    let records = some_records("playout", 40);
    let run = || {
        let out = train("playout", &["--records", records.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let stdout = run();
    assert!(stdout.contains("hand-set sum"), "{stdout}");
    assert!(stdout.contains("fitted weights"), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("playout_weights = ["))
        .unwrap_or_else(|| panic!("no weights line in {stdout}"));
    let config: SearchConfig = toml::from_str(line).unwrap();
    assert_eq!(config.playout_weights.len(), 7);
    assert_eq!(config.validate(), Ok(()));
    assert_eq!(stdout, run());
    let refused = train(
        "playout",
        &["--records", records.to_str().unwrap(), "--ridge", "0"],
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--ridge"));
}

/// A short SPSA run from the hand-set weights gives the same weights from the same seed, and
/// greedy with them beats greedy with the hand-set weights on deals the run never played.
#[test]
fn greedy_self_play_tunes_weights_that_beat_the_hand_set_ones() {
    let config = TuneConfig {
        steps: 40,
        deals: 8,
        perturbation: 0.2,
        rate: 1.0,
        seed: 5,
        variant: Variant::Normal,
    };
    let mut steps = 0;
    let tuned = tune_greedy(&config, |step| {
        steps += 1;
        assert_eq!(step.step, steps);
        assert!((0.0..=1.0).contains(&step.score));
    });
    assert_eq!(steps, 40);
    assert_eq!(tuned, tune_greedy(&config, |_| ()));
    assert_ne!(tuned, [1.0; 7]);
    let score = greedy_match(tuned, [1.0; 7], 50, 99, Variant::Normal);
    assert!(score > 0.6, "the tuned weights {tuned:?} scored {score}");
    let config = SearchConfig {
        playout_weights: tuned.to_vec(),
        ..SearchConfig::default()
    };
    assert_eq!(config.validate(), Ok(()));
}

/// `toybattle train greedy` reports its steps, checks the tuned weights against the hand-set
/// ones, and prints a `playout_weights` line a preset accepts; bad settings are refused.
#[cfg(feature = "train")]
#[test]
fn train_greedy_prints_weights_a_preset_takes() {
    let out = train(
        "greedy",
        &["--steps", "10", "--deals", "2", "--check-deals", "5"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("step   10: score"), "{stdout}");
    assert!(
        stdout.contains("against the hand-set weights, 80 games"),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("playout_weights = ["))
        .unwrap_or_else(|| panic!("no weights line in {stdout}"));
    let config: SearchConfig = toml::from_str(line).unwrap();
    assert_eq!(config.validate(), Ok(()));
    for bad in [["--rate", "0"], ["--deals", "0"], ["--perturbation", "nan"]] {
        let out = train("greedy", &bad);
        assert!(!out.status.success(), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(bad[0]),
            "{bad:?}"
        );
    }
}
