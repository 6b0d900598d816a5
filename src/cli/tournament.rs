//! `toybattle tournament` and `toybattle merge` (being written).

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {}

#[derive(clap::Args)]
pub struct MergeArgs {}

pub fn run(_args: Args) -> CliResult {
    Err("this subcommand is not written yet".into())
}

pub fn merge(_args: MergeArgs) -> CliResult {
    Err("this subcommand is not written yet".into())
}
