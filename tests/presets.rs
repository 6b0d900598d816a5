//! Bot presets: versions pinned, and options refused where they do not apply.
//!
//! A preset's version (a hash of what it plays with) is stored in tournament runs and shown by
//! `analyze`. Changing the code that reads presets must not change the version of a preset whose
//! settings did not change, or resumed runs and recorded results would no longer match it.

use toybattle::bot::preset::{parse, resolve, shipped_names, PresetError};

/// The version of every preset file kept in the repository, by path.
const VERSIONS: &[(&str, &str)] = &[
    // The play levels: `strong` and `strongest` changed version when they took greedy-once
    // playouts, then greedy-effects playouts (results/search-strength.md, ninth round);
    // `strongest` again when its two threads came to share one tree (results/levels/README.md),
    // and when it took 120,000 iterations (results/learning.md, eighteenth round). `strong`
    // changed again when it took the value model at 17,000 iterations: it is the bot measured
    // as results/learning/more-games/cuts8640-17000.toml (the same settings and weights,
    // tests/model.rs), and the `strong` it was measured against keeps its version as a file
    // (results/learning.md, nineteenth round). `strongest` took the value model too, at
    // 100,000 iterations: it is the bot measured as
    // results/learning/strongest-model/strongest-model-100000.toml but for its `time_ms` safety
    // net, which a version covers; the `strongest` before it keeps its version as a file
    // (results/learning.md, twentieth round). `strong` took both cores on 2026-12-07: two
    // threads on one shared tree, up to 29,000 iterations; it is the bot measured as
    // results/learning/two-cores/strong-2t-29000.toml (pinned below, the same version), and the
    // one-core `strong` before it keeps its version as a file (twenty-fourth round).
    ("bots/beginner.toml", "b0071f06177c"),
    ("bots/casual.toml", "270398d07ee1"),
    ("bots/strong.toml", "f2675ec70ecf"),
    (
        "results/learning/two-cores/strong-7df526c4831b.toml",
        "7df526c4831b",
    ),
    (
        "results/learning/more-games/strong-904c5ed10dd9.toml",
        "904c5ed10dd9",
    ),
    ("bots/strongest.toml", "a88a09ba3fdf"),
    (
        "results/learning/strongest-model/strongest-model-100000.toml",
        "567271abea72",
    ),
    (
        "results/learning/strongest-model/strongest-e5efe305dcf1.toml",
        "e5efe305dcf1",
    ),
    // The frozen `strong` (the level of the day issue 29 was filed), and the `strong`
    // search on both cores measured against it (results/learning.md, twenty-third round): a
    // change to either is a change to the bots those figures are of.
    (
        "results/learning/rack-model/strong-linear-13500.toml",
        "23e37902baab",
    ),
    (
        "results/learning/two-cores/strong-2t-29000.toml",
        "f2675ec70ecf",
    ),
    ("bots/cheat-uct-fast.toml", "8ab0b23af762"),
    ("bots/cheat-uct.toml", "db4651df0a9a"),
    ("bots/flat-mc.toml", "c21706b773df"),
    ("bots/greedy.toml", "b0071f06177c"),
    ("bots/ismcts-fast.toml", "270398d07ee1"),
    ("bots/pimc.toml", "bf1f59b1de7d"),
    ("bots/random.toml", "575733bfdb74"),
    ("results/strength/presets/ismcts-100k.toml", "4b44f5d26b88"),
    (
        "results/strength/presets/ismcts-13500-greedy.toml",
        "709ab39cfd5b",
    ),
    ("results/strength/presets/ismcts-1s.toml", "577cad777d67"),
    ("results/strength/presets/ismcts-200k.toml", "b65da6fa0584"),
    (
        "results/strength/presets/ismcts-250k-fitted.toml",
        "51464ad1c464",
    ),
    ("results/strength/presets/ismcts-250k.toml", "b8bbc8fa8253"),
    ("results/strength/presets/ismcts-5s.toml", "cef6ce8695f5"),
    (
        "results/strength/presets/cheat-uct-10k.toml",
        "0a739ea41374",
    ),
    (
        "results/strength/presets/cheat-uct-200k.toml",
        "2b2fcb6d5ff3",
    ),
    ("results/strength/presets/ismcts-10k.toml", "25617e75a10c"),
    (
        "results/strength/presets/ismcts-20k-fitted.toml",
        "8f9d3f5b0375",
    ),
    (
        "results/strength/presets/ismcts-20x20k.toml",
        "70ca1bf4d5cd",
    ),
    (
        "results/strength/presets/ismcts-250k-belief.toml",
        "471940c7cbe6",
    ),
    (
        "results/strength/presets/ismcts-9500-greedy.toml",
        "ceb99376c331",
    ),
    ("results/strength/presets/pimc-10k.toml", "f40a32a12634"),
    ("results/strength/presets/pimc-13500.toml", "f3718ecb23e9"),
    (
        "results/strength/presets/pimc-14k-greedy.toml",
        "b5ee41fd8036",
    ),
    (
        "results/strength/presets/pimc-27k-fitted.toml",
        "5d9819416037",
    ),
    ("results/strength/presets/sweep/ev1.toml", "4f4932743a79"),
    (
        "results/strength/presets/sweep/ev2-60k.toml",
        "d5bc03792378",
    ),
    ("results/strength/presets/sweep/ev2.toml", "674857a4b35b"),
    ("results/strength/presets/sweep/fe-5k.toml", "ac08c8bcd93b"),
    ("results/strength/presets/sweep/fe-60k.toml", "f44b12cd15db"),
    ("results/strength/presets/sweep/fe-c25.toml", "6edc2f9ba694"),
    ("results/strength/presets/sweep/fe-r4.toml", "51283e9e2e92"),
    ("results/strength/presets/sweep/fe-t1.toml", "94b823dbf9a2"),
    ("results/strength/presets/sweep/fe-t4.toml", "b01732bab4c3"),
    ("results/strength/presets/sweep/fe-t6.toml", "05c162303fc6"),
    ("results/strength/presets/sweep/fe-tac.toml", "9360fbd38460"),
    ("results/strength/presets/sweep/fe.toml", "8f9d3f5b0375"),
    ("results/strength/presets/sweep/gp-5k.toml", "816a668e5f61"),
    ("results/strength/presets/sweep/oc-60k.toml", "bec4899e5f62"),
    ("results/strength/presets/sweep/oc.toml", "a3dff645a152"),
    ("results/strength/presets/sweep/rb-60k.toml", "912e294b334b"),
    ("results/strength/presets/sweep/rb.toml", "24d4ffc32c00"),
    ("results/strength/presets/sweep/re.toml", "db81b2d389e6"),
    ("results/strength/presets/sweep/sc100.toml", "9d2adcd16a31"),
    (
        "results/strength/presets/sweep/sc400-60k.toml",
        "9fdefec00563",
    ),
    ("results/strength/presets/sweep/sc400.toml", "c3b0a5f3cf8b"),
    (
        "results/strength/presets/sweep/sc400c25.toml",
        "5f94788e45df",
    ),
    ("results/strength/presets/sweep/sc800.toml", "6239eebbb4d1"),
    ("results/strength/presets/sweep/tac200.toml", "3c189005dbaa"),
    ("results/strength/presets/sweep/tac400.toml", "3e3baf63d53d"),
];

/// The three cheating research presets lost a `rack_belief = true` line that never applied to
/// the cheating search (it sees the opponent's rack) when such lines began to be refused; their
/// versions changed with it, and their recorded runs keep the old ones (named in each file).
const CHANGED_VERSIONS: &[(&str, &str)] = &[
    (
        "results/strength/presets/cheat-uct-13500-greedy.toml",
        "8a92dee99137",
    ),
    (
        "results/strength/presets/cheat-uct-20k-fitted.toml",
        "7ba2d94bdd31",
    ),
    (
        "results/strength/presets/cheat-uct-250k-fitted.toml",
        "37b6c72edee0",
    ),
];

/// Every `.toml` file under `dir`, sorted.
fn preset_files(dir: &str) -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    paths.sort();
    paths
}

#[test]
fn preset_versions_stay_as_recorded() {
    for dir in [
        "bots",
        "results/strength/presets",
        "results/strength/presets/sweep",
    ] {
        for path in preset_files(dir) {
            let known = VERSIONS.iter().chain(CHANGED_VERSIONS);
            assert!(
                known.map(|(p, _)| p).any(|p| *p == path),
                "{path} has no pinned version: add it to VERSIONS"
            );
        }
    }
    for (path, version) in VERSIONS.iter().chain(CHANGED_VERSIONS) {
        let preset = resolve(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(preset.version(), *version, "{path}");
    }
}

/// The play levels, compiled in by `session::Level` rather than listed as shipped presets.
fn is_play_level(path: &str) -> bool {
    ["beginner", "casual", "strong", "strongest"]
        .iter()
        .any(|level| path == format!("bots/{level}.toml"))
}

/// `bots/` holds exactly the shipped presets (compiled into the binary), and its README
/// describes each of them.
#[test]
fn bots_holds_the_shipped_presets_and_its_readme_describes_them() {
    let mut files: Vec<String> = preset_files("bots");
    files.retain(|f| !is_play_level(f)); // the levels are compiled in by `session::Level`
    let mut shipped: Vec<String> = shipped_names()
        .iter()
        .map(|name| format!("bots/{name}.toml"))
        .collect();
    shipped.sort();
    assert_eq!(files, shipped);
    let readme = std::fs::read_to_string("bots/README.md").unwrap();
    for name in shipped_names() {
        assert!(
            readme.contains(&format!("`{name}`")),
            "bots/README.md lacks {name}"
        );
    }
}

/// Every preset file of `bots/`, play levels included, is also a name that works from any
/// folder (bots/README.md says so), and the name plays exactly what the file says.
#[test]
fn every_preset_of_bots_resolves_by_its_name() {
    for path in preset_files("bots") {
        let name = path.trim_start_matches("bots/").trim_end_matches(".toml");
        let by_name = resolve(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let by_path = resolve(&path).unwrap();
        assert_eq!(by_name.name, name);
        assert_eq!(by_name.version(), by_path.version(), "{name}");
    }
    let message = resolve("no-such-preset").unwrap_err().to_string();
    assert!(message.contains("strongest"), "{message}");
}

/// A preset file in the temporary folder, unique to this test process.
fn preset_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!(
        "toybattle-presets-test-{}-{name}.toml",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// An option that does not change how the algorithm plays is refused, naming the option, the
/// file and the algorithm, instead of seeming to set something.
#[test]
fn options_that_do_not_apply_to_the_algorithm_are_refused() {
    let cases = [
        (
            "greedy-playout",
            "greedy",
            "",
            "playout = \"random\"",
            "playout",
        ),
        ("random-threads", "random", "", "threads = 2", "threads"),
        (
            "pimc-trees",
            "pimc",
            "iterations = 10",
            "trees = 4",
            "trees",
        ),
        (
            "flat-prior",
            "flat-mc",
            "iterations = 10",
            "prior = 0.5",
            "prior",
        ),
        (
            "ismcts-dets",
            "ismcts",
            "iterations = 10",
            "determinizations = 4",
            "determinizations",
        ),
        (
            "cheat-belief",
            "cheat-uct",
            "iterations = 10",
            "rack_belief = true",
            "rack_belief",
        ),
    ];
    for (name, algorithm, budget, option, field) in cases {
        let budget = if budget.is_empty() {
            String::new()
        } else {
            format!("[budget]\n{budget}\n")
        };
        let text = format!(
            "description = \"x\"\nalgorithm = \"{algorithm}\"\n{budget}[search]\n{option}\n"
        );
        let path = preset_file(name, &text);
        let e = resolve(&path).expect_err(name);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(e, PresetError::NotApplicable { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains(&path), "{e}");
        assert!(e.contains(&format!("{field} does not apply")), "{e}");
        assert!(e.contains(&format!("algorithm \"{algorithm}\"")), "{e}");
    }
    // The same options where they apply are accepted.
    let text = "description = \"x\"\nalgorithm = \"pimc\"\n[budget]\niterations = 10\n\
                [search]\ndeterminizations = 4\nprior = 0.5\nrack_belief = true\n";
    let path = preset_file("pimc-ok", text);
    let accepted = resolve(&path);
    std::fs::remove_file(&path).unwrap();
    accepted.unwrap_or_else(|e| panic!("{e}"));
}

/// The error of preset text read as file `p.toml`, and its message.
fn refusal(text: &str) -> (PresetError, String) {
    let e = parse("p", text, "p.toml").expect_err(text);
    let message = e.to_string();
    assert!(message.starts_with("p.toml: "), "{message}");
    (e, message)
}

const SEARCH_HEAD: &str =
    "description = \"x\"\nalgorithm = \"ismcts\"\n[budget]\niterations = 10\n";

#[test]
fn an_unknown_spec_names_the_shipped_presets() {
    let e = resolve("no-such-preset").expect_err("unknown");
    assert!(matches!(e, PresetError::UnknownPreset { .. }), "{e:?}");
    let message = e.to_string();
    assert!(
        message.contains("'no-such-preset'") && message.contains("greedy"),
        "{message}"
    );
}

#[test]
fn an_unreadable_preset_file_is_named() {
    let e = resolve("no/such/folder/p.toml").expect_err("missing file");
    assert!(matches!(e, PresetError::Unreadable { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("cannot read preset no/such/folder/p.toml"),
        "{e}"
    );
}

#[test]
fn malformed_toml_is_refused_with_its_place() {
    let (e, message) = refusal("description = \"x\"\nalgorithm = ");
    assert!(matches!(e, PresetError::Malformed { .. }), "{e:?}");
    assert!(message.contains("line 2"), "{message}");
    let (e, message) = refusal("description = \"x\"\nalgorithm = \"greedy\"\ncolour = 1\n");
    assert!(matches!(e, PresetError::Malformed { .. }), "{e:?}");
    assert!(message.contains("colour"), "{message}");
}

#[test]
fn an_unknown_algorithm_lists_the_known_ones() {
    let (e, message) = refusal("description = \"x\"\nalgorithm = \"alphazero\"\n");
    assert!(matches!(e, PresetError::UnknownAlgorithm { .. }), "{e:?}");
    assert!(
        message.contains("\"alphazero\"") && message.contains("ismcts"),
        "{message}"
    );
}

#[test]
fn an_unknown_search_option_lists_the_options() {
    let (e, message) = refusal(&format!("{SEARCH_HEAD}[search]\nexplore = 1.0\n"));
    assert!(matches!(e, PresetError::UnknownOption { .. }), "{e:?}");
    assert!(
        message.contains("[search] explore is not a search option"),
        "{message}"
    );
    assert!(message.contains("exploration"), "{message}");
}

#[test]
fn a_section_for_an_algorithm_that_does_not_search_is_refused() {
    let (e, message) =
        refusal("description = \"x\"\nalgorithm = \"random\"\n[budget]\niterations = 10\n");
    assert!(
        matches!(e, PresetError::SectionWithoutSearch { .. }),
        "{e:?}"
    );
    assert!(message.contains("\"random\" does not search"), "{message}");
}

#[test]
fn an_option_out_of_range_names_its_range() {
    let (e, message) = refusal(&format!("{SEARCH_HEAD}[search]\nthreads = 0\n"));
    assert!(
        matches!(&e, PresetError::OutOfRange { source, .. } if source.field == "threads"),
        "{e:?}"
    );
    assert!(
        message.contains("[search] threads = 0 is out of range: expected 1 to"),
        "{message}"
    );
}

#[test]
fn a_search_without_a_positive_budget_is_refused() {
    for budget in ["", "[budget]\n", "[budget]\ntime_ms = 0\n"] {
        let (e, message) = refusal(&format!(
            "description = \"x\"\nalgorithm = \"pimc\"\n{budget}"
        ));
        assert!(matches!(e, PresetError::NoBudget { .. }), "{e:?}");
        assert!(
            message.contains("time_ms") && message.contains("iterations"),
            "{message}"
        );
    }
}
