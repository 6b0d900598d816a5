//! toybattle: a rules engine, bots and tournament runner for the board game Toy Battle.
//!
//! Layers, each depending only on those above it in this list (`tests/layers.rs` checks it):
//! - [`vocabulary`]: colours, troops, multisets of tiles, per-colour values, stable hashes;
//! - [`terrain`]: the eight terrains as validated graph data and bitmask tables, and the
//!   bounded reading of every input file ([`terrain::input`]);
//! - [`rules`]: the compact state, legal decisions, applying them, setup and chance;
//! - [`info`]: what each player may know (observations) and sampling states from it;
//! - [`model`]: learned models that read an observation (its encoding, the value model);
//! - [`record`]: game records, replay and position files;
//! - [`bot`]: bots and search;
//! - [`tournament`]: self-play tournaments and their statistics;
//! - [`balance`]: balance studies of terrains, seats, troops and special bases;
//! - [`train`]: training the learned models on recorded games (fitting with the `train`
//!   feature);
//! - [`review`]: game review: the error of every decision, the luck of every chance event;
//! - [`session`]: a game between a human and a bot, for the interfaces;
//! - [`web`]: the local web page to play against the computer (`toybattle serve`);
//! - `cli` (in the binary): the command line.

//!
//! # Example
//!
//! Deal a game on a terrain from a seed, list the legal decisions, apply one, and ask a bot for
//! the next decision through the deciding player's observation (a bot never sees the true state):
//!
//! ```
//! use toybattle::bot::random::RandomBot;
//! use toybattle::bot::{Bot, Budget, Request};
//! use toybattle::info::Observation;
//! use toybattle::rules::{Deal, DecisionList, Game, Referee, Variant};
//!
//! let game = Game::builtin("Castle Field", Variant::Normal)?;
//! let deal = Deal::from_seed(7);
//! let mut referee = Referee::new(deal.clone());
//! let mut state = game.initial_state(&deal);
//!
//! // Chance events (draws, random targets) are the referee's to resolve, not a player's.
//! let settle = |state: &mut toybattle::rules::State, referee: &mut Referee| {
//!     while state.is_chance() {
//!         let outcome = referee.resolve(&game, state);
//!         game.apply(state, outcome).expect("the referee resolves legally");
//!     }
//! };
//! settle(&mut state, &mut referee);
//!
//! let mut legal = DecisionList::new();
//! game.legal_decisions(&state, &mut legal);
//! assert!(!legal.is_empty());
//! for d in &legal {
//!     println!("{}", d.notation(game.terrain()));
//! }
//!
//! // Apply the first legal decision; an illegal one would be refused with the state unchanged.
//! game.apply(&mut state, legal[0])?;
//! settle(&mut state, &mut referee);
//!
//! // The player to move sees only their own observation.
//! let observation = Observation::new(&state, state.active());
//! let mut bot = RandomBot::new("random");
//! let choice = bot.decide(&Request {
//!     game: &game,
//!     observation: &observation,
//!     budget: Budget::iterations(1),
//!     seed: 1,
//!     cancel: None,
//! });
//! assert!(game.is_legal(&state, choice.decision));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `cli` (default): the `toybattle` binary; turns on `progress` and `web`.
//! - `progress`: progress bars on standard error for tournaments and balance studies.
//! - `web`: the [`web`] module (the local web page).
//! - `train`: fitting the learned models with candle (`train::fit`); not in the default
//!   features, since candle is heavy to build and play does not need it.
//!
//! A library user who depends on toybattle with `default-features = false` compiles none of the
//! command line's, progress bars' or web server's crates.

// Every public item says what it is in the game's words; a new one without a doc fails the build.
#![deny(missing_docs)]

pub mod balance;
pub mod bot;
pub mod info;
pub mod model;
pub mod record;
pub mod review;
pub mod rules;
pub mod session;
pub mod terrain;
pub mod tournament;
pub mod train;
pub mod vocabulary;
#[cfg(feature = "web")]
pub mod web;
