//! toybattle: a rules engine, bots and tournament runner for the board game Toy Battle.
//!
//! Layers, each depending only on those above it in this list (`tests/layers.rs` checks it):
//! - [`vocabulary`]: colours, troops, multisets of tiles, per-colour values, stable hashes;
//! - [`terrain`]: the eight terrains as validated graph data and bitmask tables;
//! - [`rules`]: the compact state, legal decisions, applying them, setup and chance;
//! - [`info`]: what each player may know (observations) and sampling states from it;
//! - [`record`]: game records, replay and position files;
//! - [`bot`]: bots and search;
//! - [`tournament`]: self-play tournaments and their statistics;
//! - [`balance`]: balance studies of terrains, seats, troops and special bases;
//! - [`session`]: a game between a human and a bot, for the interfaces;
//! - [`web`]: the local web page to play against the computer (`toybattle serve`);
//! - `cli` (in the binary): the command line.

pub mod balance;
pub mod bot;
pub mod info;
pub mod record;
pub mod rules;
pub mod session;
pub mod terrain;
pub mod tournament;
pub mod vocabulary;
pub mod web;
