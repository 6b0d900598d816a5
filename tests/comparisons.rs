//! `toybattle comparisons`: the comparisons of several balance reports corrected together.

use std::path::{Path, PathBuf};
use std::process::Command;

fn toybattle(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn restricted(terrain: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results/balance")
        .join(format!("strong-restricted-{terrain}"))
        .display()
        .to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toybattle-comparisons-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The figure results/balance/README.md states for restricted play at `strong`: over the 24
/// comparisons of the three terrains' folders none survives Holm, the smallest adjusted p
/// being Volcanic Jungle node 19's blue at 0.087 (0.014 in its own report of 4).
#[test]
fn restricted_play_at_strong_over_three_terrains_is_corrected_for_24_comparisons() {
    let dir = temp_dir("strong");
    let csv = dir.join("all.csv");
    let reports = ["station-metal-x", "tropical-pool", "volcanic-jungle"].map(restricted);
    let mut args = vec![
        "comparisons",
        "--family",
        "Restricted Play",
        "--preset",
        "strong",
    ];
    args.extend(reports.iter().map(String::as_str));
    args.extend(["--csv", csv.to_str().unwrap()]);
    let (ok, out, err) = toybattle(&args);
    assert!(ok, "{err}");
    // Prose is wrapped at 100 columns, and the reports' paths are long.
    let prose = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        prose.contains("Holm's step-down correction over all 24 comparisons"),
        "{out}"
    );
    assert!(
        prose.contains("24 comparisons; not shown: none survives Holm's correction"),
        "{out}"
    );
    let first_row = out.lines().find(|l| l.starts_with("| Volcanic")).unwrap();
    assert!(
        first_row.starts_with("| Volcanic Jungle node 19: blue |")
            && first_row.contains("| 0.0036 | 0.087 | 0.014 | no |"),
        "{first_row}"
    );
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 25, "a header and 24 comparisons");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .ends_with(",0.003621,0.014484,0.086901"),
        "{csv}"
    );
}

/// The error of `toybattle comparisons --family restricted REPORTS...`, which must fail.
fn refusal(reports: &[&str]) -> String {
    let mut args = vec!["comparisons", "--family", "restricted"];
    args.extend_from_slice(reports);
    let (ok, _, err) = toybattle(&args);
    assert!(!ok, "{reports:?} were combined");
    err
}

#[test]
fn what_cannot_be_combined_is_refused_with_its_reason() {
    let pool = restricted("tropical-pool");
    let err = refusal(&[&pool, &pool]);
    assert!(
        err.contains("given twice; its comparisons would be counted twice"),
        "{err}"
    );

    let (ok, _, err) = toybattle(&["comparisons", "--family", "medal objective", &pool]);
    assert!(
        !ok && err.contains("no family of these reports matches \"medal objective\""),
        "{err}"
    );
    assert!(
        err.contains("(restricted play, paired by deal)\" (strong)"),
        "{err}"
    );

    let empty = temp_dir("empty");
    let err = refusal(&[empty.to_str().unwrap()]);
    assert!(err.contains("no balance.json here"), "{err}");

    let cut = temp_dir("cut");
    let text = std::fs::read_to_string(Path::new(&pool).join("balance.json")).unwrap();
    std::fs::write(cut.join("balance.json"), &text[..text.len() / 2]).unwrap();
    let err = refusal(&[cut.to_str().unwrap()]);
    assert!(
        err.contains("balance.json: not a balance report: EOF while parsing"),
        "{err}"
    );

    let other = text.replace("toybattle-balance/1", "toybattle-balance/9");
    std::fs::write(cut.join("balance.json"), other).unwrap();
    let err = refusal(&[cut.to_str().unwrap()]);
    assert!(
        err.contains("a report of format \"toybattle-balance/9\""),
        "{err}"
    );
}
