//! Golden files: text outputs compared byte for byte with files under `tests/golden/`, built from
//! fixed inputs (no random numbers), so that any change of a summary table or of `show` is seen
//! in review as a diff of those files.
//!
//! When a change of output is intended, rewrite the files and review their diff:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test golden
//! ```

use std::path::PathBuf;
use std::process::Command;
use toybattle::tournament::config::RunConfig;
use toybattle::tournament::store::GameLine;
use toybattle::tournament::summary::Summary;

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Compares `actual` with the golden file `name`, or rewrites the file with `UPDATE_GOLDEN` set.
fn check_golden(name: &str, actual: &str) {
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (UPDATE_GOLDEN=1 cargo test --test golden writes it)",
            path.display()
        )
    });
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "{} differs from the output, first at line {}:\n  golden: {:?}\n  output: {:?}\n\
             (if the change is intended: UPDATE_GOLDEN=1 cargo test --test golden)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

#[test]
fn show_castle_field() {
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(["show", "--terrain", "castle_field"])
        .output()
        .expect("the built binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_golden(
        "show-castle_field.txt",
        &String::from_utf8_lossy(&out.stdout),
    );
}

/// The summary tables of a small round robin whose games are written by hand in
/// `tests/golden/tournament/` (two bots, two terrains, two deals each: a pair won twice, split
/// pairs, a turn-cap draw and a pair lost twice).
#[test]
fn summary_of_a_fixed_tournament() {
    let dir = golden_path("tournament");
    let config: RunConfig =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let games: Vec<GameLine> = std::fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = Summary::compute(&config, &games, games.len() as u64, None);
    check_golden("tournament/summary.md", &summary.to_markdown(&games));
    check_golden("tournament/summary.csv", &summary.to_csv());
}

/// `strong`'s search on five fixed positions of five terrains: its decision and the visits and
/// values of its five best candidates, pinned. A speed-up of the search (fewer copies, a cheaper
/// playout step) must leave every one of these as it was; a change of what the search does
/// (an option, a preset's settings, the playout rules) shows here as a reviewed diff. The
/// level stops a decision once decided (`stop_when_decided`), so three of these clear draws
/// show about 10,500 iterations: the decisions and their order are those of the whole 20,000.
#[test]
fn strong_searches_fixed_positions_as_before() {
    let mut actual = String::new();
    for name in [
        "castle_field-18",
        "volcanic_jungle-18",
        "cursed_cemetery-18",
        "station_metal_x-18",
        "battlefield-20",
    ] {
        let position = golden_path(&format!("positions/{name}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
            .args([
                "analyze",
                "--bot",
                "strong",
                "--json",
                "--top",
                "5",
                "--position",
            ])
            .arg(&position)
            .output()
            .expect("the built binary runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut analysis: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("analyze --json prints JSON");
        // The time taken and the file's path are the only parts that differ between runs.
        let fields = analysis.as_object_mut().expect("an object");
        fields.remove("elapsed_ms");
        fields["position"]
            .as_object_mut()
            .expect("an object")
            .remove("file");
        actual.push_str(&format!("{name}\n{analysis}\n"));
    }
    check_golden("strong-search.txt", &actual);
}
