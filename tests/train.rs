//! Training data and training of the value model (issue 29). The fitting tests need the
//! `train` feature (`cargo test --features train --test train`).

use std::path::Path;
use toybattle::record::GameRecord;
use toybattle::rules::{Decision, Game};
use toybattle::train::Dataset;

/// Four strong self-play games of the published balance study (Castle Field).
const RECORDS: &str = "results/balance/study/runs/strong-normal/records/castle_field";

fn record(name: &str) -> GameRecord {
    let text = std::fs::read_to_string(Path::new(RECORDS).join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A folder with the first `n` records of [`RECORDS`], unique to this test process and `tag`.
fn some_records(tag: &str, n: usize) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toybattle-train-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<_> = std::fs::read_dir(RECORDS)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    for name in names.into_iter().take(n) {
        std::fs::copy(Path::new(RECORDS).join(&name), dir.join(&name)).unwrap();
    }
    dir
}

/// Every player decision of a record is one position, its target the outcome for the player
/// deciding it.
#[test]
fn a_record_gives_one_position_per_decision_with_its_outcome() {
    let rec = record("strong-vs-strong-0000-0.json");
    let game = Game::builtin(&rec.terrain, rec.variant).unwrap();
    let mut data = Dataset::new();
    data.add_record(&game, &rec).unwrap();
    let winner = rec.result.winner.expect("a decided game");
    let mut s = game.initial_state(&rec.deal);
    let mut k = 0;
    for step in &rec.steps {
        if !s.is_chance() {
            let expected = f32::from(u8::from(s.active() == winner));
            assert_eq!(data.target(k), expected, "position {k}");
            assert_eq!(data.game_of(k), 0);
            k += 1;
        }
        game.apply(&mut s, Decision::parse(step, game.terrain()).unwrap())
            .unwrap();
    }
    assert_eq!(data.len(), k);
    assert_eq!(data.games(), 1);
}

/// A record that does not replay is refused with its file named, and adds nothing.
#[test]
fn a_bad_record_is_refused_and_adds_nothing() {
    let dir = some_records("bad", 2);
    let mut rec = record("strong-vs-strong-0000-0.json");
    rec.steps.truncate(3);
    rec.steps.push("place Kwak 99".into());
    let bad = dir.join("zz-bad.json");
    std::fs::write(&bad, serde_json::to_string(&rec).unwrap()).unwrap();
    let mut data = Dataset::new();
    let err = data.add_records_under(&dir).unwrap_err().to_string();
    assert!(err.contains("zz-bad.json"), "{err}");
    assert_eq!(
        data.games(),
        2,
        "the two good records were kept, the bad one not"
    );
    let before = data.len();
    let game = Game::builtin(&rec.terrain, rec.variant).unwrap();
    assert!(data.add_record(&game, &rec).is_err());
    assert_eq!(data.len(), before);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The value model corrects the fitted linear evaluation: a model that adds nothing (where
/// training starts) scores held-out turn starts exactly as the fitted evaluation does.
#[test]
fn an_untrained_correction_scores_as_the_fitted_evaluation() {
    let dir = some_records("untrained", 4);
    let untrained = toybattle::model::ValueModel::untrained(3);
    let c = toybattle::train::compare_with_fitted(&[&dir], &untrained, 1).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    assert!(c.positions > 20, "{c:?}");
    assert_eq!(c.value_loss, c.fitted_loss);
    assert_eq!(c.value_accuracy, c.fitted_accuracy);
    let initial = toybattle::model::ValueModel::initial(3);
    let dir = some_records("initial", 4);
    let other = toybattle::train::compare_with_fitted(&[&dir], &initial, 1).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    assert_ne!(
        other.value_loss, other.fitted_loss,
        "a model that adds something"
    );
}

/// `strong`'s search options, whose playouts the cut tests follow.
fn strong_config() -> toybattle::bot::search::SearchConfig {
    match toybattle::bot::preset::resolve("strong").unwrap().config {
        toybattle::bot::preset::BotConfig::Search { config, .. } => config,
        _ => unreachable!("strong searches"),
    }
}

/// The state at each turn start of a record, with the game it is played in.
fn turn_starts(rec: &GameRecord) -> (Game, Vec<toybattle::rules::State>) {
    let game = Game::builtin(&rec.terrain, rec.variant).unwrap();
    let mut s = game.initial_state(&rec.deal);
    let mut starts = Vec::new();
    for step in &rec.steps {
        if !s.is_chance()
            && s.phase() == toybattle::rules::Phase::Action
            && starts
                .last()
                .is_none_or(|p: &toybattle::rules::State| p.turn() != s.turn())
        {
            starts.push(s);
        }
        game.apply(&mut s, Decision::parse(step, game.terrain()).unwrap())
            .unwrap();
    }
    (game, starts)
}

/// A playout to the cut stops where the search scores it with its evaluation: `eval_turns`
/// turns after the start with the searcher's opponent to move, or at the end of the game; the
/// same seed gives the same cut.
#[test]
fn a_playout_to_the_cut_stops_where_the_search_evaluates() {
    use toybattle::bot::search::playout_cut;
    use toybattle::info::Observation;
    let config = strong_config();
    let (game, starts) = turn_starts(&record("strong-vs-strong-0000-0.json"));
    assert!(starts.len() > 10);
    for (k, start) in starts.iter().enumerate() {
        let me = start.active();
        let seen = Observation::new(start, me);
        let cut = playout_cut(&game, &seen, &config, k as u64);
        assert_eq!(cut, playout_cut(&game, &seen, &config, k as u64));
        if !cut.is_over() {
            assert_eq!(cut.active(), me.opponent(), "turn start {k}");
            assert!(
                cut.turn() > start.turn() + config.eval_turns,
                "turn start {k}"
            );
            assert!(
                cut.turn() <= start.turn() + config.eval_turns + 2,
                "turn start {k}"
            );
        }
    }
}

/// Appending a dataset made apart gives the dataset made in one: its positions after, its
/// games numbered after (a validation split by game sees the same games).
#[test]
fn an_appended_dataset_is_the_dataset_made_in_one() {
    let records = [
        "strong-vs-strong-0000-0.json",
        "strong-vs-strong-0000-1.json",
    ]
    .map(record);
    let game = Game::builtin(&records[0].terrain, records[0].variant).unwrap();
    let mut whole = Dataset::new();
    let mut parts = [Dataset::new(), Dataset::new()];
    for (rec, part) in records.iter().zip(&mut parts) {
        whole.add_record(&game, rec).unwrap();
        part.add_record(&game, rec).unwrap();
    }
    let [mut first, second] = parts;
    let first_len = first.len();
    first.append(second);
    assert_eq!(first, whole);
    assert_eq!((first.games(), first.game_of(first_len)), (2, 1));
}

/// Cut positions for training: at most one per turn start (or as many as asked), each target
/// the mean of the asked number of full playouts, reproducible from the seed.
#[test]
fn cut_positions_are_reproducible_and_their_targets_are_playout_means() {
    use toybattle::train::{CutOptions, CutTarget};
    let dir = some_records("cuts", 2);
    let data_per_start = |seed, per_start| {
        let options = CutOptions {
            config: strong_config(),
            target: CutTarget::Playouts(4),
            per_start,
            seed,
        };
        let mut data = Dataset::new();
        data.add_cuts_under(&dir, &options).unwrap();
        data
    };
    let data = |seed| data_per_start(seed, 1);
    let (a, b, c) = (data(5), data(5), data(6));
    let triple = data_per_start(5, 3);
    std::fs::remove_dir_all(&dir).unwrap();
    let starts: usize = [
        "strong-vs-strong-0000-0.json",
        "strong-vs-strong-0000-1.json",
    ]
    .map(|name| turn_starts(&record(name)).1.len())
    .iter()
    .sum();
    assert_eq!(a.games(), 2);
    assert!(
        a.len() <= starts && a.len() > starts / 2,
        "{} of {starts}",
        a.len()
    );
    let same = |x: &Dataset, y: &Dataset| {
        x.len() == y.len()
            && (0..x.len()).all(|k| {
                x.target(k) == y.target(k)
                    && x.offset(k) == y.offset(k)
                    && x.entries(k) == y.entries(k)
            })
    };
    assert!(same(&a, &b), "same seed, same cut positions");
    assert!(!same(&a, &c), "another seed, other cuts");
    // Three cuts a turn start: more positions from the same two games, the first cut of each
    // turn start the one a single cut makes, in the same order.
    assert_eq!(triple.games(), 2);
    assert!(triple.len() > a.len() * 2 && triple.len() <= 3 * starts);
    let mut rest = 0..triple.len();
    for k in 0..a.len() {
        let found = rest.by_ref().any(|m| {
            triple.target(m) == a.target(k)
                && triple.offset(m) == a.offset(k)
                && triple.entries(m) == a.entries(k)
                && triple.game_of(m) == a.game_of(k)
        });
        assert!(found, "the single cut {k} is among the three");
    }
    for k in 0..a.len() {
        let t = a.target(k);
        // Each playout scores 1, 0, or ½ when the turn cap stops it: four make eighths.
        assert!(
            (0.0..=1.0).contains(&t) && (t * 8.0).fract() == 0.0,
            "target {t}"
        );
    }
    let spread = (0..a.len()).filter(|&k| a.target(k) != a.target(0)).count();
    assert!(spread > 0, "targets that tell positions apart");
}

#[cfg(feature = "train")]
mod fitting {
    use super::*;
    use toybattle::info::Observation;
    use toybattle::model::{encode, Hidden, Input, ValueModel};
    use toybattle::train::{candle_logits, evaluate, fit, FitOptions};

    fn tiny() -> Dataset {
        let dir = some_records("fit", 4);
        let mut data = Dataset::new();
        data.add_records_under(&dir).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        data
    }

    fn options() -> FitOptions {
        FitOptions {
            epochs: 8,
            batch: 32,
            learning_rate: 3e-3,
            weight_decay: 0.0,
            seed: 11,
            validation_every: 0,
            target_mix: 0.0,
            hidden: Hidden::DEFAULT,
        }
    }

    /// A short training run on a few hundred positions lowers its loss, and the same seed
    /// gives the same weights.
    #[test]
    fn a_tiny_training_run_lowers_its_loss_and_is_reproducible() {
        let data = tiny();
        assert!(
            (100..2000).contains(&data.len()),
            "{} positions",
            data.len()
        );
        let all: Vec<usize> = (0..data.len()).collect();
        let (before, _) = evaluate(&ValueModel::initial(11), &data, &all);
        let (model, reports) = fit(&data, &options(), |_| {}).unwrap();
        let (after, accuracy) = evaluate(&model, &data, &all);
        assert!(after < 0.8 * before, "loss {before} → {after}");
        assert!(after < 0.5, "loss {after}");
        assert!(accuracy > 0.7, "accuracy {accuracy}");
        assert!(reports.last().unwrap().train_loss < reports[0].train_loss);
        let (again, _) = fit(&data, &options(), |_| {}).unwrap();
        assert_eq!(model, again, "same seed, same weights");
        let other = FitOptions {
            seed: 12,
            ..options()
        };
        assert_ne!(model, fit(&data, &other, |_| {}).unwrap().0);
    }

    /// The candle network the trainer fits and the search's hand-written forward pass give
    /// the same log-odds.
    #[test]
    fn candle_and_the_hand_written_forward_pass_agree() {
        let rec = record("strong-vs-strong-0001-1.json");
        let game = Game::builtin(&rec.terrain, rec.variant).unwrap();
        let mut s = game.initial_state(&rec.deal);
        let mut inputs = Vec::new();
        for step in &rec.steps {
            if !s.is_chance() {
                let mut input = Input::default();
                encode(&game, &Observation::new(&s, s.active()), &mut input);
                inputs.push(input);
            }
            game.apply(&mut s, Decision::parse(step, game.terrain()).unwrap())
                .unwrap();
        }
        let wider = Hidden {
            first: 160,
            second: 24,
        };
        for model in [ValueModel::initial(5), ValueModel::initial_sized(5, wider)] {
            let by_candle = candle_logits(&model, &inputs).unwrap();
            assert_eq!(by_candle.len(), inputs.len());
            for (input, c) in inputs.iter().zip(by_candle) {
                let h = model.logit(input);
                assert!((h - c).abs() < 1e-4 * (1.0 + c.abs()), "{h} vs {c}");
            }
        }
    }
}

/// Positions saved to a file read back as the same dataset (root values, games without
/// positions and the description included); a file truncated, corrupt, of another format,
/// version or encoding, or with fields no dataset holds, is refused saying which.
mod positions_file {
    use super::*;
    use toybattle::tournament::roots::{GameRoots, RootNote};
    use toybattle::train::positions_file::{from_bytes, to_bytes, PositionsFileError as E};
    use toybattle::vocabulary::hash::fnv1a;

    /// Two games of positions, the first with a root value at every other decision.
    fn dataset() -> Dataset {
        let mut data = Dataset::new();
        for (n, name) in [
            "strong-vs-strong-0000-0.json",
            "strong-vs-strong-0001-1.json",
        ]
        .into_iter()
        .enumerate()
        {
            let rec = record(name);
            let game = Game::builtin(&rec.terrain, rec.variant).unwrap();
            let decisions = (0..rec.steps.len())
                .step_by(2)
                .map(|step| RootNote {
                    step,
                    player: rec.deal.first,
                    iterations: 1,
                    value: Some(step as f64 / rec.steps.len() as f64),
                    visits: Vec::new(),
                })
                .collect();
            let roots = GameRoots {
                format: String::new(),
                record: name.into(),
                steps: rec.steps.len(),
                decisions,
            };
            let roots = (n == 0).then_some(&roots);
            data.add_record_with_roots(&game, &rec, roots).unwrap();
        }
        data
    }

    /// `bytes` with its hash made right again, so a check after the hash is reached.
    fn rehashed(mut bytes: Vec<u8>) -> Vec<u8> {
        let body = bytes.len() - 8;
        let hash = fnv1a(&bytes[..body]);
        bytes[body..].copy_from_slice(&hash.to_le_bytes());
        bytes
    }

    #[test]
    fn positions_read_back_the_same_and_bad_files_are_refused() {
        let data = dataset();
        assert!((0..data.len()).any(|k| data.root_value(k).is_some()));
        assert!((0..data.len()).any(|k| data.root_value(k).is_none()));
        let bytes = to_bytes(&data, "two games, made here");
        let (back, made) = from_bytes(&bytes).unwrap();
        assert_eq!(back, data);
        assert_eq!(made, "two games, made here");

        let cut = &bytes[..bytes.len() - 10];
        assert!(
            matches!(from_bytes(cut), Err(E::Length { found, expected }) if found == cut.len() as u64 && expected == bytes.len() as u64)
        );
        assert_eq!(
            from_bytes(&bytes[..40]).unwrap_err(),
            E::Header { found: 40 }
        );
        let mut corrupt = bytes.clone();
        corrupt[bytes.len() / 2] ^= 4;
        assert_eq!(from_bytes(&corrupt).unwrap_err(), E::Corrupt);
        assert_eq!(
            from_bytes(b"TBVALUE\0 weights").unwrap_err(),
            E::NotPositions
        );
        let mut version = bytes.clone();
        version[8] = 7;
        assert_eq!(from_bytes(&version).unwrap_err(), E::Version { found: 7 });
        let mut encoding = bytes.clone();
        encoding[12] ^= 1;
        let err = from_bytes(&encoding).unwrap_err();
        assert!(matches!(err, E::Encoding { .. }), "{err}");

        // The first position's fields start after the header and the description.
        let first = 8 + 4 + 8 + 4 + "two games, made here".len() + 4 + 8 + 8;
        let mut game = bytes.clone();
        game[first..first + 4].copy_from_slice(&5u32.to_le_bytes());
        let err = from_bytes(&rehashed(game)).unwrap_err();
        assert!(err.to_string().starts_with("position 0: game 5"), "{err}");
        let mut target = bytes.clone();
        target[first + 4..first + 8].copy_from_slice(&1.5f32.to_le_bytes());
        let err = from_bytes(&rehashed(target)).unwrap_err();
        assert!(err.to_string().contains("target 1.5"), "{err}");
        // The first entry of the first position: an index past the encoding.
        let entries = first + 20 * data.len();
        let mut index = bytes.clone();
        index[entries..entries + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        let err = from_bytes(&rehashed(index)).unwrap_err();
        assert!(err.to_string().contains("entry 65535"), "{err}");
    }
}
