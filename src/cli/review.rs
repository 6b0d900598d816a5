//! `toybattle review`: the error of every decision and the luck of every chance event of a game
//! record, as a short table, JSON and an SVG graph (the work is `toybattle::review`'s).

use super::{emit, load_record, CliResult};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use toybattle::review::{review, svg, table, Review, ReviewOptions};

#[derive(clap::Args)]
pub struct Args {
    /// The game record (format `toybattle-record/1`): a saved game, a tournament record, a
    /// finished page game.
    #[arg(value_name = "GAME")]
    file: PathBuf,
    /// Search iterations per decision (to find the best one; the win figures are the win
    /// estimate's, whose budget is fixed). Default: the strong level's 20,000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    iterations: Option<u64>,
    /// Threads the review runs on, each reviewing one decision or chance event at a time.
    /// Default: one per core.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Write the whole review as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the win-probability graph as SVG to this file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped
    /// ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Set by Ctrl-C: the review stops and reports what it has.
static STOP: AtomicBool = AtomicBool::new(false);

pub fn run(args: Args) -> CliResult {
    let name = args.file.display().to_string();
    let (record, game) = load_record(&args.file, args.terrain_file.as_deref())?;
    for path in [&args.json, &args.svg].into_iter().flatten() {
        writable(path)?;
    }
    let mut options = ReviewOptions::default();
    if let Some(n) = args.iterations {
        options = options.with_iterations(n);
    }
    options.threads = args.threads.map_or(0, |n| n as usize);
    // Without a handler Ctrl-C ends the program, as any other: only the partial review is lost.
    let _ = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst));
    let bar = progress_bar(args.quiet);
    let result = review(
        &game,
        &record,
        &options,
        &|p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        },
        Some(&STOP),
    );
    bar.finish_and_clear();
    let review = result.map_err(|e| format!("{name} does not replay: {e}"))?;
    if let Some(path) = &args.json {
        let text =
            serde_json::to_string_pretty(&review).map_err(|e| format!("cannot write JSON: {e}"))?;
        write(path, &(text + "\n"))?;
    }
    if let Some(path) = &args.svg {
        write(path, &svg(&review))?;
    }
    emit(&table(&review))?;
    cancelled(&review)
}

/// A cancelled review has printed and written what it computed; it still ends as a failure,
/// so that a script does not take it for a whole one.
fn cancelled(review: &Review) -> CliResult {
    match review.complete {
        true => Ok(()),
        false => Err(format!(
            "review cancelled: {} of {} decisions and chance events reviewed",
            review.reviewed, review.total
        )),
    }
}

/// Refuses, before the long work, an output file whose folder does not exist.
fn writable(path: &Path) -> CliResult {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(format!(
            "cannot write {}: folder {} does not exist",
            path.display(),
            dir.display()
        )),
        _ => Ok(()),
    }
}

fn write(path: &Path, text: &str) -> CliResult {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} decisions and chance events, {eta} left",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(0).with_style(style)
}
