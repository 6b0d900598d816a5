//! The greedy rules' term weights tuned in gated generations (issue 29, `train::greedy_run`,
//! `toybattle train greedy --out DIR`): the gate keeps stronger weights and refuses weaker
//! ones, a run stopped between generations ends as one that never stopped, and a folder of
//! other settings or with a damaged file is refused by name. The command-line test needs the
//! `train` feature (`cargo test --features train --test greedy_generations`).

use std::path::PathBuf;
use toybattle::tournament::stats::{SprtDecision, SprtParams};
use toybattle::train::greedy_run::{
    best_of, greedy_gate, run_greedy_generations, GreedyRunConfig, TunedGeneration,
};
use toybattle::train::TrainError;
#[cfg(feature = "train")]
#[allow(dead_code)] // its record folders are not used here
mod train_support;
#[cfg(feature = "train")]
use train_support::train;

/// Weights tuned by `toybattle train greedy --steps 500 --deals 32 --seed 1`
/// (results/learning/greedy-tune/tune-s1.txt): about 78% against the hand-set ones.
const TUNED: [f64; 7] = [
    0.393211, 3.99196, 0.671409, 0.683095, 0.55807, 0.703543, 0.598948,
];

fn scratch(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toybattle-greedy-gen-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn tiny(generations: u32, seed: u64) -> GreedyRunConfig {
    GreedyRunConfig {
        generations,
        steps: 4,
        deals: 2,
        perturbation: 0.2,
        rate: 1.0,
        seed,
        sprt: SprtParams {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        },
        gate_deals: 10,
        gate_batches: 2,
        reference_deals: 10,
    }
}

/// The generations without the processor time each took, which no two runs share.
fn without_time(done: &[TunedGeneration]) -> Vec<TunedGeneration> {
    done.iter()
        .map(|g| TunedGeneration {
            cpu_seconds: 0.0,
            ..g.clone()
        })
        .collect()
}

/// The gate accepts weights that are much stronger than the best and refuses a planted weaker
/// generation: the hand-set weights against the tuned ones.
#[test]
fn the_gate_keeps_stronger_weights_and_refuses_weaker_ones() {
    let config = GreedyRunConfig {
        gate_deals: 50,
        gate_batches: 10,
        ..tiny(1, 3)
    };
    let (pairs, llr, decision) = greedy_gate(&config, 1, TUNED, [1.0; 7]);
    assert_eq!(decision, SprtDecision::H1, "llr {llr}, pairs {pairs:?}");
    assert!(pairs.mean_score() > 0.6);
    let (pairs, llr, decision) = greedy_gate(&config, 1, [1.0; 7], TUNED);
    assert_eq!(decision, SprtDecision::H0, "llr {llr}, pairs {pairs:?}");
    assert!(pairs.mean_score() < 0.4);
}

/// A run of two generations, and a run of one taken up again for a second, hold the same
/// generations; the folder has one curve row a generation, and the best is the last kept.
#[test]
fn a_run_taken_up_again_ends_as_one_that_never_stopped() {
    let whole = scratch("whole");
    let done = run_greedy_generations(&whole, &tiny(2, 7), |_| (), |_| ()).unwrap();
    assert_eq!(done.len(), 2);
    for g in &done {
        assert!(g.gate.pairs() > 0, "{g:?}");
        assert_eq!(g.reference.is_some(), g.kept, "{g:?}");
        assert!(g.cpu_seconds > 0.0);
    }
    let curve = std::fs::read_to_string(whole.join("curve.csv")).unwrap();
    assert_eq!(curve.lines().count(), 3, "{curve}");
    assert!(std::fs::read_to_string(whole.join("curve.svg"))
        .unwrap()
        .starts_with("<svg"));

    let stopped = scratch("stopped");
    let mut seen = 0;
    run_greedy_generations(&stopped, &tiny(1, 7), |_| (), |_| seen += 1).unwrap();
    let resumed = run_greedy_generations(&stopped, &tiny(2, 7), |_| (), |_| seen += 1).unwrap();
    assert_eq!(seen, 2, "each generation is played once");
    assert_eq!(without_time(&resumed), without_time(&done));
    let expected = done
        .iter()
        .rev()
        .find(|g| g.kept)
        .map_or(([1.0; 7], 0), |g| (g.weights, g.generation));
    assert_eq!(best_of(&done), expected);
    for dir in [whole, stopped] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A folder of other settings is refused with the setting named, and a damaged generations
/// file with the file named; the folder is left as it was.
#[test]
fn a_folder_of_other_settings_or_a_damaged_file_is_refused() {
    let dir = scratch("refused");
    run_greedy_generations(&dir, &tiny(1, 11), |_| (), |_| ()).unwrap();
    let held = std::fs::read(dir.join("generations.json")).unwrap();
    let err = run_greedy_generations(&dir, &tiny(2, 12), |_| (), |_| ()).unwrap_err();
    assert!(matches!(err, TrainError::Settings { .. }), "{err}");
    assert!(
        err.to_string().contains("seed: 12 now, 11 in run.json"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("generations.json")).unwrap(), held);

    std::fs::write(dir.join("generations.json"), &held[..held.len() / 2]).unwrap();
    let err = run_greedy_generations(&dir, &tiny(2, 11), |_| (), |_| ()).unwrap_err();
    assert!(err.to_string().contains("generations.json"), "{err}");
    assert!(
        err.to_string().contains("not a tuning run's generations"),
        "{err}"
    );

    let bad = GreedyRunConfig {
        gate_batches: 0,
        ..tiny(1, 11)
    };
    let err = run_greedy_generations(&scratch("bad"), &bad, |_| (), |_| ()).unwrap_err();
    assert!(err.to_string().contains("--gate-batches"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `toybattle train greedy --out DIR` prints a line a generation and the best weights, writes
/// the learning curve, and prints nothing new when run again on the finished folder.
#[cfg(feature = "train")]
#[test]
fn train_greedy_out_runs_gated_generations() {
    let dir = scratch("cli");
    let args = [
        "--out",
        dir.to_str().unwrap(),
        "--generations",
        "1",
        "--steps",
        "3",
        "--deals",
        "2",
        "--gate-deals",
        "10",
        "--gate-batches",
        "1",
        "--reference-deals",
        "5",
    ];
    let out = train("greedy", &args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("generation 1: "), "{stdout}");
    assert!(stdout.contains("playout_weights = ["), "{stdout}");
    assert!(dir.join("curve.svg").exists() && dir.join("curve.csv").exists());
    let again = train("greedy", &args);
    let stdout = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        again.status.success() && !stdout.contains("generation 1: "),
        "{stdout}"
    );
    let refused = train("greedy", &["--generations", "2"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--out"));
    let _ = std::fs::remove_dir_all(dir);
}
