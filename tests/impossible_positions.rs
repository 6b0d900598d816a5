//! Position files that cannot arise in a game are refused by `legal` and `analyze` with a
//! message in the game's words: what is wrong and where, and no internal detail.

use std::path::Path;
use std::process::Command;

/// Each file under tests/data/impossible/ and words its error must contain.
const CASES: [(&str, &[&str]); 4] = [
    (
        "hq-win-without-tile.json",
        &["blue won by HQ capture", "no blue tile stands on a red HQ"],
    ),
    (
        "medal-win-without-medals.json",
        &["blue won on medals with 0", "objective of 7"],
    ),
    (
        "frozen-without-battlefield.json",
        &["blue has frozen tiles", "Castle Field"],
    ),
    (
        "covered-by-stronger.json",
        &["node 11", "blue:Skully rests on red:Roxy"],
    ),
];

fn refused(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .expect("the built binary runs");
    assert!(
        !o.status.success(),
        "{args:?} accepted an impossible position"
    );
    assert!(o.stdout.is_empty(), "{args:?} printed a result");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn legal_and_analyze_refuse_positions_that_cannot_arise() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/impossible");
    for (file, words) in CASES {
        let path = dir.join(file);
        let path = path.to_str().expect("UTF-8 path");
        for args in [
            vec!["legal", "--position", path],
            vec!["analyze", "--position", path, "--bot", "greedy"],
        ] {
            let err = refused(&args);
            assert!(err.contains(file), "{args:?}: the file is not named: {err}");
            for w in words {
                assert!(err.contains(w), "{args:?}: '{w}' missing from: {err}");
            }
            // Rust's Debug notation of an error (`Setup(`, `{ winner:`) is no message.
            assert!(!err.contains("Setup(") && !err.contains(": Blue"), "{err}");
            assert_eq!(err.lines().count(), 1, "one line: {err}");
        }
    }
}
