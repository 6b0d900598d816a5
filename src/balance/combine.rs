//! Comparisons of several balance reports corrected together.
//!
//! A report corrects each family of comparisons for its own number (Holm). A designer who
//! studies one terrain per folder (restricted play at a slow level, terrain by terrain) and then
//! asks which of *all* those comparisons survive needs one correction over every one of them:
//! picking the smallest p of three folders, each corrected alone, is the multiplicity the
//! reports exist to prevent. This module reads the families back from each report's
//! `balance.json` and corrects the chosen ones as one family.

use super::analysis::{family_line, figure, p_text, REPORT_FORMAT};
use super::multiplicity::{holm, Family, Test};
use super::render::wrap;
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt::{self, Write};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest `balance.json` read: the report of the 640,000-game greedy study is about
/// 150 KB, so a file this large is not a report, and is not read into memory.
const MAX_REPORT_BYTES: u64 = 64 << 20;

/// Why comparisons could not be combined; each message names the report or the family.
#[derive(Debug, PartialEq)]
pub enum CombineError {
    /// The folder has no `balance.json`.
    NoReport(PathBuf),
    /// The file could not be read.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: String,
    },
    /// The file is larger than any report.
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// The file is not a balance report.
    Malformed {
        /// The file.
        path: PathBuf,
        /// The JSON error, with its line and column.
        error: String,
    },
    /// A report of another format.
    Format {
        /// The file.
        path: PathBuf,
        /// The format it declares.
        found: String,
    },
    /// The same report given twice.
    Twice(PathBuf),
    /// No family of the reports matches.
    NoMatch {
        /// The text asked for.
        matching: String,
        /// The preset asked for.
        preset: Option<String>,
        /// The reports' families, as "description (preset)".
        families: Vec<String>,
    },
    /// The same comparison in two reports.
    Repeated {
        /// The comparison.
        label: String,
        /// Its family.
        family: String,
        /// The report read first.
        first: String,
        /// The report that repeats it.
        second: String,
    },
}

impl fmt::Display for CombineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CombineError::NoReport(dir) => write!(
                f,
                "{}: no balance.json here; give the folder a balance report was written to \
                 (the --out of `toybattle balance`)",
                dir.display()
            ),
            CombineError::Unreadable { path, error } => {
                write!(f, "{}: cannot read it: {error}", path.display())
            }
            CombineError::TooLarge { path, bytes } => write!(
                f,
                "{}: {bytes} bytes, more than any balance report ({MAX_REPORT_BYTES} at most); \
                 not read",
                path.display()
            ),
            CombineError::Malformed { path, error } => write!(
                f,
                "{}: not a balance report: {error}; expected the balance.json that `toybattle \
                 balance` writes",
                path.display()
            ),
            CombineError::Format { path, found } => write!(
                f,
                "{}: a report of format \"{found}\"; this version reads \"{REPORT_FORMAT}\" \
                 (write the report again with `toybattle balance --from`)",
                path.display()
            ),
            CombineError::Twice(dir) => write!(
                f,
                "{}: given twice; its comparisons would be counted twice",
                dir.display()
            ),
            CombineError::NoMatch {
                matching,
                preset,
                families,
            } => write!(
                f,
                "no family of these reports matches \"{matching}\"{}; their families: {}",
                preset
                    .as_ref()
                    .map_or(String::new(), |p| format!(" at preset \"{p}\"")),
                families.join("; ")
            ),
            CombineError::Repeated {
                label,
                family,
                first,
                second,
            } => write!(
                f,
                "the comparison \"{label}\" of \"{family}\" is in both {first} and {second}: a \
                 comparison counted twice would make the correction too strict; give each \
                 study once"
            ),
        }
    }
}

impl std::error::Error for CombineError {}

/// A report's families, read back from its `balance.json`, with the name it is shown under.
#[derive(Clone, Debug)]
pub struct ReportFamilies {
    /// The folder as the user named it.
    pub report: String,
    /// Its families, as the report corrected them.
    pub families: Vec<Family>,
}

/// The part of `balance.json` read here; the rest of the report is not needed.
#[derive(Deserialize)]
struct ReportFile {
    format: String,
    families: Vec<Family>,
}

/// The families of the report written to `dir`.
pub fn read_families(dir: &Path) -> Result<ReportFamilies, CombineError> {
    let path = dir.join("balance.json");
    let file = std::fs::File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CombineError::NoReport(dir.to_path_buf()),
        _ => CombineError::Unreadable {
            path: path.clone(),
            error: e.to_string(),
        },
    })?;
    let unreadable = |e: std::io::Error| CombineError::Unreadable {
        path: path.clone(),
        error: e.to_string(),
    };
    let bytes = file.metadata().map_err(unreadable)?.len();
    if bytes > MAX_REPORT_BYTES {
        return Err(CombineError::TooLarge { path, bytes });
    }
    let mut text = String::new();
    file.take(MAX_REPORT_BYTES)
        .read_to_string(&mut text)
        .map_err(unreadable)?;
    let report: ReportFile = serde_json::from_str(&text).map_err(|e| CombineError::Malformed {
        path: path.clone(),
        error: e.to_string(),
    })?;
    if report.format != REPORT_FORMAT {
        return Err(CombineError::Format {
            path,
            found: report.format,
        });
    }
    Ok(ReportFamilies {
        report: dir.display().to_string(),
        families: report.families,
    })
}

/// The families of the reports written to `dirs`, each once (a folder named twice, under any
/// path, is refused).
pub fn read_all(dirs: &[PathBuf]) -> Result<Vec<ReportFamilies>, CombineError> {
    let mut seen = Vec::new();
    let mut reports = Vec::new();
    for dir in dirs {
        let report = read_families(dir)?;
        let same = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if seen.contains(&same) {
            return Err(CombineError::Twice(dir.clone()));
        }
        seen.push(same);
        reports.push(report);
    }
    Ok(reports)
}

/// One comparison of a combined family, with the report it comes from.
#[derive(Clone, Debug)]
pub struct Combined {
    /// The report (folder) it was read from.
    pub report: String,
    /// Its family and preset in that report.
    pub family: String,
    /// The preset (and variant) of its family.
    pub preset: String,
    /// Its Holm-adjusted p within its report's family alone.
    pub report_holm: f64,
    /// The comparison; its `holm` is over the whole combined family.
    pub test: Test,
}

/// The comparisons of every family whose description contains `matching` (case ignored) and,
/// with `preset`, whose preset begins with it, over all `reports`, corrected together by
/// Holm; returned as one family (for its summary line) and its comparisons with their
/// reports, largest effect first.
pub fn combine(
    reports: &[ReportFamilies],
    matching: &str,
    preset: Option<&str>,
) -> Result<(Family, Vec<Combined>), CombineError> {
    let wanted = |f: &Family| {
        f.what.to_lowercase().contains(&matching.to_lowercase())
            && preset.is_none_or(|p| f.preset.starts_with(p))
    };
    let mut chosen: Vec<(&ReportFamilies, &Family)> = Vec::new();
    for r in reports {
        chosen.extend(r.families.iter().filter(|f| wanted(f)).map(|f| (r, f)));
    }
    if chosen.is_empty() {
        return Err(no_match(reports, matching, preset));
    }
    let mut seen: HashMap<(&str, &str), &str> = HashMap::new();
    let mut combined = Vec::new();
    for (r, f) in &chosen {
        for t in &f.tests {
            if let Some(first) = seen.insert((&f.what, &t.label), &r.report) {
                return Err(CombineError::Repeated {
                    label: t.label.clone(),
                    family: f.what.clone(),
                    first: first.to_string(),
                    second: r.report.clone(),
                });
            }
            combined.push(Combined {
                report: r.report.clone(),
                family: f.what.clone(),
                preset: f.preset.clone(),
                report_holm: t.holm,
                test: t.clone(),
            });
        }
    }
    let adjusted = holm(&combined.iter().map(|c| c.test.p).collect::<Vec<_>>());
    for (c, a) in combined.iter_mut().zip(adjusted) {
        c.test.holm = a;
    }
    combined.sort_by(|a, b| {
        let size = |c: &Combined| (c.test.estimate.value - c.test.null).abs();
        size(b).total_cmp(&size(a))
    });
    let family = Family {
        what: one_of(chosen.iter().map(|(_, f)| f.what.as_str())),
        preset: one_of(chosen.iter().map(|(_, f)| f.preset.as_str())),
        comparisons: combined.len(),
        tests: combined.iter().map(|c| c.test.clone()).collect(),
        listed: None,
    };
    Ok((family, combined))
}

/// The combined family as Markdown: what was combined, the statement that survives the
/// correction (or "not shown"), and every comparison, largest effect first.
pub fn markdown(reports: &[ReportFamilies], family: &Family, combined: &[Combined]) -> String {
    let mut md = format!(
        "# Comparisons of {} reports, corrected together\n\n",
        reports.len()
    );
    let names: Vec<&str> = reports.iter().map(|r| r.report.as_str()).collect();
    let intro = format!(
        "Reports: {}. Holm's step-down correction over all {} comparisons of the families \
         chosen: a comparison is shown when its adjusted p is below 0.05, which keeps the \
         chance that any shown one is a fluke under 5%. \"Holm p, its report\" is the \
         correction each report made alone.",
        names.join(", "),
        combined.len()
    );
    let _ = writeln!(md, "{}\n", wrap(&intro, 100, ""));
    let _ = writeln!(md, "{}\n", wrap(&family_line(family), 100, ""));
    md.push_str(
        "| comparison | report | figure | p | Holm p, all | Holm p, its report | shown |\n",
    );
    md.push_str("|---|---|---|---|---|---|---|\n");
    for c in combined {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.test.label,
            c.report,
            figure(&c.test),
            p_text(c.test.p),
            p_text(c.test.holm),
            p_text(c.report_holm),
            if c.test.shown() { "yes" } else { "no" }
        );
    }
    md
}

/// The combined family as CSV, one comparison a row, largest effect first.
pub fn csv(combined: &[Combined]) -> String {
    let mut out = String::from(
        "report,family,preset,comparison,value,value_lo,value_hi,null,p,holm_report,holm_all\n",
    );
    for c in combined {
        let e = &c.test.estimate;
        let _ = writeln!(
            out,
            "\"{}\",\"{}\",\"{}\",\"{}\",{:.6},{:.6},{:.6},{},{:.6},{:.6},{:.6}",
            c.report.replace('"', "'"),
            c.family.replace('"', "'"),
            c.preset.replace('"', "'"),
            c.test.label.replace('"', "'"),
            e.value,
            e.lo,
            e.hi,
            c.test.null,
            c.test.p,
            c.report_holm,
            c.test.holm
        );
    }
    out
}

/// The distinct texts of `texts`, in order of first sight, joined.
fn one_of<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    distinct(texts).join("; ")
}

fn no_match(reports: &[ReportFamilies], matching: &str, preset: Option<&str>) -> CombineError {
    let names = reports
        .iter()
        .flat_map(|r| &r.families)
        .map(|f| format!("\"{}\" ({})", f.what, f.preset));
    CombineError::NoMatch {
        matching: matching.to_string(),
        preset: preset.map(str::to_string),
        families: distinct(names),
    }
}

/// The items in first-seen order, each once (a handful of names: a linear search is enough).
fn distinct<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut kept = Vec::new();
    for item in items {
        if !kept.contains(&item) {
            kept.push(item);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balance::estimate::Estimate;

    fn test(label: &str, p: f64, value: f64) -> Test {
        Test {
            label: label.into(),
            estimate: Estimate {
                value,
                lo: value - 0.1,
                hi: value + 0.1,
                n: 126,
                deals: 63,
            },
            null: 0.0,
            p,
            holm: 1.0,
        }
    }

    fn report(name: &str, what: &str, tests: Vec<Test>) -> ReportFamilies {
        ReportFamilies {
            report: name.into(),
            families: vec![Family {
                what: what.into(),
                preset: "strong".into(),
                comparisons: tests.len(),
                tests,
                listed: None,
            }],
        }
    }

    /// Two reports' families of two comparisons each become one of four: the smallest p is
    /// multiplied by 4, not by the 2 each report used.
    #[test]
    fn holm_counts_the_comparisons_of_every_report() {
        let reports = [
            report(
                "a",
                "restricted play",
                vec![test("A1", 0.01, -0.2), test("A2", 0.5, 0.01)],
            ),
            report(
                "b",
                "restricted play",
                vec![test("B1", 0.02, 0.1), test("B2", 0.9, 0.0)],
            ),
        ];
        let (family, combined) = combine(&reports, "Restricted", None).unwrap();
        assert_eq!(family.comparisons, 4);
        let holm_of = |l: &str| combined.iter().find(|c| c.test.label == l).unwrap();
        assert!((holm_of("A1").test.holm - 0.04).abs() < 1e-12);
        assert!((holm_of("B1").test.holm - 0.06).abs() < 1e-12);
        assert_eq!(holm_of("B1").report, "b");
        assert_eq!(combined[0].test.label, "A1", "largest effect first");
        assert_eq!(family.shown().count(), 1);
    }

    #[test]
    fn other_families_and_presets_are_left_out() {
        let mut a = report("a", "restricted play", vec![test("A1", 0.01, 0.1)]);
        a.families.push(Family {
            preset: "greedy".into(),
            ..a.families[0].clone()
        });
        a.families[1].tests[0].label = "G1".into();
        let b = report("b", "troop values", vec![test("T1", 0.001, 0.1)]);
        let (family, _) = combine(&[a.clone(), b.clone()], "restricted", Some("strong")).unwrap();
        assert_eq!(family.comparisons, 1);
        let (family, _) = combine(&[a.clone(), b.clone()], "restricted", None).unwrap();
        assert_eq!(family.comparisons, 2);
        let err = combine(&[a, b], "special bases", Some("strong")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("matches \"special bases\" at preset \"strong\""),
            "{text}"
        );
        assert!(text.contains("\"troop values\" (strong)"), "{text}");
    }

    #[test]
    fn a_comparison_in_two_reports_is_refused() {
        let a = report("a", "restricted play", vec![test("X", 0.01, 0.1)]);
        let b = report("b", "restricted play", vec![test("X", 0.01, 0.1)]);
        let err = combine(&[a, b], "restricted", None).unwrap_err();
        assert!(
            matches!(err, CombineError::Repeated { ref first, ref second, .. }
            if first == "a" && second == "b")
        );
    }
}
