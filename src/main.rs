//! The `toybattle` command line.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Self-play AI engine and balance-testing tool for the board game Toy Battle.
#[derive(Parser)]
#[command(name = "toybattle", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the terrains with their facts.
    Terrains(cli::terrains::Args),
    /// Draw a terrain's graph and regions as text.
    Show(cli::show::Args),
    /// List the legal decisions of a position file.
    Legal(cli::legal::Args),
    /// Write the position at a step of a game record as a position file.
    Position(cli::position::Args),
    /// Play random games and report win types, lengths and first-player rate.
    RandomGames(cli::random_games::Args),
    /// Re-validate a game record decision by decision.
    Replay(cli::replay::Args),
    /// Review a game record: each decision's error, each chance event's luck, a win graph.
    Review(cli::review::Args),
    /// Let a bot analyse a position: chosen decision and top candidates.
    Analyze(cli::analyze::Args),
    /// Play a game against the computer in the terminal.
    Play(cli::play::Args),
    /// Run a self-play tournament between bots across terrains.
    Tournament(cli::tournament::Args),
    /// Merge the outputs of tournament shards into one summary.
    Merge(cli::tournament::MergeArgs),
    /// Pool runs of one match played with other seeds into one summary.
    Pool(cli::tournament::PoolArgs),
    /// Compare two bots game by game on the deals both played against the same opponent.
    Compare(cli::tournament::CompareArgs),
    /// Balance study: presets in self-play over terrains and variants, with a report.
    Balance(cli::balance::Args),
    /// Correct the comparisons of several balance reports together (Holm), e.g. restricted
    /// play studied one terrain per folder.
    Comparisons(cli::comparisons::Args),
    /// Serve the local web page to play against the computer and watch records again.
    Serve(cli::serve::Args),
    /// Self-play learning: generations of self-play, training and an SPRT gate (`train run`);
    /// fitting a model to recorded games (`train fit`: the value model, `train policy`: the
    /// tree's prior, `train rack`: the odds of the opponent's rack). Feature `train`.
    #[cfg(feature = "train")]
    Train(Box<cli::train::Args>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Terrains(a) => cli::terrains::run(a),
        Command::Show(a) => cli::show::run(a),
        Command::Legal(a) => cli::legal::run(a),
        Command::Position(a) => cli::position::run(a),
        Command::RandomGames(a) => cli::random_games::run(a),
        Command::Replay(a) => cli::replay::run(a),
        Command::Review(a) => cli::review::run(a),
        Command::Analyze(a) => cli::analyze::run(a),
        Command::Play(a) => cli::play::run(a),
        Command::Tournament(a) => cli::tournament::run(a),
        Command::Merge(a) => cli::tournament::merge(a),
        Command::Pool(a) => cli::tournament::pool(a),
        Command::Compare(a) => cli::tournament::compare(a),
        Command::Balance(a) => cli::balance::run(a),
        Command::Comparisons(a) => cli::comparisons::run(a),
        Command::Serve(a) => cli::serve::run(a),
        #[cfg(feature = "train")]
        Command::Train(a) => cli::train::run(*a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
