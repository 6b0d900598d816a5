//! Reads any text as a game record and replays it on its shipped terrain: never a panic, only
//! a record accepted or an error.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toybattle::record::{replay, GameRecord};

fuzz_target!(|data: &[u8]| {
    let Ok(record) = serde_json::from_slice::<GameRecord>(data) else {
        return;
    };
    let Some(game) = common::game_named(&record.terrain, record.variant) else {
        return;
    };
    let _ = replay(game, &record);
});
