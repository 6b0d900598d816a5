//! `toybattle comparisons`: the comparisons of several balance reports, corrected together for
//! their number. See docs/balance.md.

use super::{emit, CliResult};
use std::path::PathBuf;
use toybattle::balance::combine::{combine, csv, markdown, read_all};

#[derive(clap::Args)]
pub struct Args {
    /// Folders balance reports were written to (the --out of `toybattle balance`), e.g. one
    /// study of restricted play per terrain.
    #[arg(value_name = "REPORT", required = true, num_args = 1..)]
    reports: Vec<PathBuf>,
    /// The families to combine: those whose description contains this text (case ignored),
    /// e.g. "restricted play", "special bases", "on each terrain", "against 50%". An unknown
    /// text lists the reports' families.
    #[arg(long, value_name = "TEXT")]
    family: String,
    /// Only the families of this preset (a report names a family's preset as "strong" or
    /// "strong, normal variant"; this matches their beginning).
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// Also write every comparison to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
}

pub fn run(a: Args) -> CliResult {
    let reports = read_all(&a.reports).map_err(|e| e.to_string())?;
    let (family, combined) =
        combine(&reports, &a.family, a.preset.as_deref()).map_err(|e| e.to_string())?;
    if let Some(path) = &a.csv {
        std::fs::write(path, csv(&combined))
            .map_err(|e| format!("{}: cannot write the CSV: {e}", path.display()))?;
    }
    emit(&markdown(&reports, &family, &combined))
}
