//! The learned models' encoding and value model (issue 29): the encoding leaks no hidden tile,
//! the hand-written forward pass is deterministic and allocation-free in shape, and weights
//! files are written, read back and refused when they are not for this program.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::info::Observation;
use toybattle::model::{encode, weights, Hidden, Input, ValueModel, WeightsError, INPUTS};
use toybattle::rules::{random_decision, Colour, Deal, Game, State, Troop, TroopCounts, Variant};
use toybattle::terrain::builtin_terrains;

/// The state after `plies` random steps (decisions and chance) of the game dealt by `seed`,
/// or earlier if the game ends.
fn random_state(game: &Game, seed: u64, plies: usize) -> State {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut s = game.initial_state(&Deal::from_seed(seed));
    for _ in 0..plies {
        if s.is_over() {
            break;
        }
        let d = random_decision(game, &s, &mut rng).expect("the game goes on");
        game.apply_legal(&mut s, d);
    }
    s
}

/// A troop of `a` and a different troop of `b`, if any.
fn distinct_pair(a: TroopCounts, b: TroopCounts) -> Option<(Troop, Troop)> {
    let (a, b) = (a.to_vec(), b.to_vec());
    a.iter()
        .flat_map(|&x| b.iter().map(move |&y| (x, y)))
        .find(|(x, y)| x != y)
}

/// Moves `out` from `from` to `to` and `back` from `to` to `from`.
fn swap(from: &mut TroopCounts, to: &mut TroopCounts, (out, back): (Troop, Troop)) {
    from.remove(out);
    to.add(out);
    to.remove(back);
    from.add(back);
}

fn encoded(game: &Game, s: &State, observer: Colour) -> Input {
    let mut input = Input::default();
    encode(game, &Observation::new(s, observer), &mut input);
    input
}

/// A state that differs from `s` only in tiles `observer` cannot see: one tile of the
/// opponent's hidden rack swapped with one of their reserve, and one of the observer's reserve
/// with one of their removed tiles. None when no such swap exists.
fn hidden_twin(game: &Game, s: &State, observer: Colour) -> Option<State> {
    let them = observer.opponent();
    let mut setup = s.to_setup();
    let hidden_rack = setup.racks[them].minus(&setup.public_rack[them])?;
    let hidden_rack = hidden_rack.minus(&setup.frozen[them])?;
    let pair = distinct_pair(hidden_rack, setup.reserves[them])?;
    let (rack, reserve) = (&mut setup.racks[them], &mut setup.reserves[them]);
    swap(rack, reserve, pair);
    if let Some(pair) = distinct_pair(setup.reserves[observer], setup.removed[observer]) {
        let (reserve, removed) = (&mut setup.reserves[observer], &mut setup.removed[observer]);
        swap(reserve, removed, pair);
    }
    game.state_from_setup(&setup).ok()
}

/// Issue 29, point 1: two states that differ only in hidden tiles encode identically, on
/// every terrain and both variants, at many points of random games; and the encoding is not
/// blind: the opponent, who sees its own rack, gets a different encoding of the two.
#[test]
fn states_differing_only_in_hidden_tiles_encode_identically() {
    let mut checked = 0;
    for terrain in builtin_terrains() {
        for variant in [Variant::Normal, Variant::Beginner] {
            let game = Game::builtin(&terrain.key, variant).unwrap();
            for seed in 0..12u64 {
                let s = random_state(&game, seed, 4 + 3 * seed as usize);
                if s.is_over() {
                    continue;
                }
                let observer = s.active();
                let Some(twin) = hidden_twin(&game, &s, observer) else {
                    continue;
                };
                assert_ne!(s, twin);
                let (a, b) = (
                    encoded(&game, &s, observer),
                    encoded(&game, &twin, observer),
                );
                assert_eq!(a.values(), b.values(), "{} seed {seed}", terrain.key);
                let them = observer.opponent();
                let (c, d) = (encoded(&game, &s, them), encoded(&game, &twin, them));
                assert_ne!(c.values(), d.values(), "the opponent sees its rack");
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} positions had a hidden twin");
}

/// The non-zero list is exactly the non-zero entries, in order (the encoding writes them in
/// layout order and does not sort), on every terrain and both variants; and a reused input is
/// cleared: encoding B after A gives what encoding B alone gives.
#[test]
fn an_input_lists_its_nonzero_entries_and_is_reused_cleanly() {
    for terrain in builtin_terrains() {
        for variant in [Variant::Normal, Variant::Beginner] {
            let game = Game::builtin(&terrain.key, variant).unwrap();
            let mut reused = Input::default();
            for (seed, plies) in [(1, 30), (2, 3), (3, 60), (4, 0)] {
                let b = random_state(&game, seed, plies);
                encode(&game, &Observation::new(&b, b.active()), &mut reused);
                let fresh = encoded(&game, &b, b.active());
                assert_eq!(reused.values(), fresh.values());
                let listed: Vec<(usize, f32)> = reused.nonzero().collect();
                let dense: Vec<(usize, f32)> = (0..INPUTS)
                    .map(|i| (i, fresh.values()[i]))
                    .filter(|&(_, v)| v != 0.0)
                    .collect();
                assert_eq!(listed, dense, "{} {variant:?}, seed {seed}", terrain.key);
                assert!(listed.len() > 20, "a position sets more than a few entries");
            }
        }
    }
}

/// The sparse forward pass equals a plain dense one computed here from the parameters, for the
/// shipped sizes and for others.
#[test]
fn the_forward_pass_is_the_dense_network() {
    let game = Game::builtin("volcanic_jungle", Variant::Normal).unwrap();
    let sizes = [
        Hidden::DEFAULT,
        Hidden {
            first: 128,
            second: 16,
        },
        Hidden {
            first: 3,
            second: Hidden::MAX,
        },
    ];
    for (n, hidden) in sizes.into_iter().enumerate() {
        let model = ValueModel::initial_sized(7 + n as u64, hidden);
        assert_eq!(model.hidden(), hidden);
        let p = model.params();
        assert_eq!(p.len(), hidden.params());
        let Hidden { first, second } = hidden;
        for seed in 0..5 {
            let s = random_state(&game, seed, 20);
            let x = encoded(&game, &s, s.active());
            let (w1, rest) = p.split_at(INPUTS * first);
            let (b1, rest) = rest.split_at(first);
            let (w2, rest) = rest.split_at(first * second);
            let (b2, rest) = rest.split_at(second);
            let (w3, b3) = rest.split_at(second);
            let h1: Vec<f64> = (0..first)
                .map(|j| {
                    let z: f64 = (0..INPUTS)
                        .map(|i| f64::from(x.values()[i]) * f64::from(w1[i * first + j]))
                        .sum();
                    (z + f64::from(b1[j])).max(0.0)
                })
                .collect();
            let h2: Vec<f64> = (0..second)
                .map(|k| {
                    let z: f64 = (0..first)
                        .map(|j| h1[j] * f64::from(w2[j * second + k]))
                        .sum();
                    (z + f64::from(b2[k])).max(0.0)
                })
                .collect();
            let out: f64 =
                (0..second).map(|k| h2[k] * f64::from(w3[k])).sum::<f64>() + f64::from(b3[0]);
            let got = f64::from(model.logit(&x));
            assert!(
                (got - out).abs() < 1e-4 * (1.0 + out.abs()),
                "{hidden}: {got} vs {out}"
            );
        }
    }
}

/// A weights file reads back to the same model; a truncated, corrupt, foreign, other-version
/// or other-encoding file is refused with the matching error.
#[test]
fn weights_files_load_and_bad_ones_are_refused() {
    let model = ValueModel::initial(3);
    let bytes = weights::to_bytes(&model);
    assert_eq!(bytes.len(), weights::file_len(Hidden::DEFAULT));
    assert_eq!(weights::from_bytes(&bytes), Ok(model));
    let wider = ValueModel::initial_sized(
        3,
        Hidden {
            first: 96,
            second: 48,
        },
    );
    assert_eq!(weights::from_bytes(&weights::to_bytes(&wider)), Ok(wider));

    let truncated = &bytes[..bytes.len() - 100];
    assert_eq!(
        weights::from_bytes(truncated),
        Err(WeightsError::Length {
            found: truncated.len(),
            expected: bytes.len(),
        })
    );
    // A hidden layer of no units, or wider than the search's arrays, or another input count.
    for (at, size) in [
        (24, 0u32),
        (28, Hidden::MAX as u32 + 1),
        (20, INPUTS as u32 + 1),
    ] {
        let mut shape = bytes.clone();
        shape[at..at + 4].copy_from_slice(&size.to_le_bytes());
        let err = weights::from_bytes(&shape).unwrap_err();
        assert!(matches!(err, WeightsError::Shape { .. }), "{err}");
        assert!(err.to_string().contains("1 to 256 units"), "{err}");
    }
    let mut corrupt = bytes.clone();
    corrupt[1000] ^= 0x40;
    assert_eq!(weights::from_bytes(&corrupt), Err(WeightsError::Corrupt));
    assert_eq!(
        weights::from_bytes(b"{\"not\": \"weights\"}"),
        Err(WeightsError::NotWeights)
    );
    let mut version = bytes.clone();
    version[8] = 9;
    assert_eq!(
        weights::from_bytes(&version),
        Err(WeightsError::Version { found: 9 })
    );
    let mut other = bytes.clone();
    other[12] ^= 1;
    let err = weights::from_bytes(&other).unwrap_err();
    assert!(matches!(err, WeightsError::Encoding { .. }), "{err}");
    assert!(err.to_string().contains("retrain"), "{err}");
}

/// The weights shipped in the binary were trained on this encoding: they load, so a change of
/// the encoding without retraining fails here (their strength is measured in
/// results/learning.md, not here).
#[test]
fn the_shipped_weights_fit_this_encoding() {
    let bytes = include_bytes!("../src/model/value.weights");
    let model = weights::from_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&model, ValueModel::shipped());
}

/// The `strong` and `strongest` levels play with the shipped weights; they are the weights their
/// matches measured (results/learning/more-games/ and strongest-model/, results/learning.md,
/// nineteenth and twentieth rounds), so a retrained model cannot replace them without its own
/// measurement and this test's path moving to it.
#[test]
fn the_shipped_weights_are_the_measured_ones() {
    let shipped = include_bytes!("../src/model/value.weights");
    let measured = include_bytes!("../results/learning/more-games/value-8640-64x32.weights");
    assert!(
        shipped == measured,
        "src/model/value.weights is not the measured model"
    );
}

/// `toybattle analyze` with a preset of the combined evaluation whose `value_weights` names
/// `weights` (bytes written to a file), on a mid-game Castle Field position.
/// No file is written for `None`.
fn analyze_with_weights(name: &str, weights: Option<&[u8]>, extra: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("toybattle-model-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("value.weights");
    if let Some(bytes) = weights {
        std::fs::write(&file, bytes).unwrap();
    }
    let preset = dir.join("bot.toml");
    let text = format!(
        "description = \"x\"\nalgorithm = \"ismcts\"\n[budget]\niterations = 300\n[search]\n\
         eval_turns = 2\n{extra}"
    );
    std::fs::write(
        &preset,
        text.replace("FILE", &format!("{:?}", file.to_str().unwrap())),
    )
    .unwrap();
    let position = dir.join("position.json");
    std::fs::write(&position, POSITION).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["analyze", "--json", "--top", "3", "--position"])
        .arg(&position)
        .arg("--bot")
        .arg(&preset)
        .output()
        .expect("the binary runs");
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

const POSITION: &str = r#"{
  "format": "toybattle-position/1",
  "terrain": "castle_field",
  "to_move": "blue",
  "turn": 7,
  "stacks": { "11": ["blue:Roxy"], "13": ["blue:Star"], "18": ["red:Hook"], "22": ["red:Jumbo"] },
  "racks": { "blue": ["Kwak", "Capn", "Jumbo", "Star"], "red": ["Roxy", "XB-42", "Hook"] }
}"#;

/// The search option `value_weights` plays with another weights file: a model that adds
/// nothing searches exactly as the fitted evaluation; a missing, truncated, corrupt or foreign
/// file is refused through the command line with the weights loader's reason, naming the file.
#[test]
fn value_weights_load_another_file_and_bad_ones_are_refused_by_the_cli() {
    // The search's result: the decision and its candidates (the report also names the preset
    // and the time taken).
    let searched = |out: &std::process::Output| {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let candidates = report["candidates"].as_array().unwrap().clone();
        assert!(!candidates.is_empty());
        let rows: Vec<(String, u64, f64)> = candidates
            .iter()
            .map(|c| {
                let decision = c["decision"].as_str().unwrap().to_string();
                (
                    decision,
                    c["visits"].as_u64().unwrap(),
                    c["value"].as_f64().unwrap(),
                )
            })
            .collect();
        rows
    };
    // Same decisions and visits; values equal up to rounding (the two read the same log-odds
    // from opposite sides).
    let same = |a: &[(String, u64, f64)], b: &[(String, u64, f64)]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.0 == y.0 && x.1 == y.1 && (x.2 - y.2).abs() < 1e-12)
    };
    let untrained = weights::to_bytes(&ValueModel::untrained(2));
    let combined = "value_model = true\nvalue_weights = FILE\n";
    let zero = searched(&analyze_with_weights("zero", Some(&untrained), combined));
    let fitted = searched(&analyze_with_weights(
        "fitted",
        None,
        "fitted_eval = true\n",
    ));
    assert!(same(&zero, &fitted), "{zero:?}\n{fitted:?}");
    let shipped = weights::to_bytes(ValueModel::shipped());
    let other = searched(&analyze_with_weights("shipped", Some(&shipped), combined));
    assert!(!same(&other, &zero), "the weights file is read: {other:?}");

    let mut corrupt = shipped.clone();
    corrupt[1000] ^= 0x40;
    let bad: [(&str, Option<&[u8]>, &str); 4] = [
        ("truncated", Some(&shipped[..5000]), "truncated?"),
        ("corrupt", Some(&corrupt), "is corrupt"),
        (
            "foreign",
            Some(b"{\"not\": \"weights\"}"),
            "not a toybattle value-model weights",
        ),
        ("missing", None, "value.weights: "),
    ];
    for (name, bytes, reason) in bad {
        let out = analyze_with_weights(name, bytes, combined);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {err}");
        assert!(
            err.contains("value_weights") && err.contains(reason),
            "{name}: {err}"
        );
        assert!(err.contains("value.weights"), "{name}: {err}");
    }
}
