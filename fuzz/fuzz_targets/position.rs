//! Reads any text as a position file: reading and setting up never panic, and a position
//! accepted offers decisions that apply (or are refused) without a panic, and writes back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toybattle::record::position::Position;
use toybattle::rules::DecisionList;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(position) = Position::parse(text) else {
        return;
    };
    let Ok((game, s)) = position.to_game_state(None) else {
        return;
    };
    let mut list = DecisionList::new();
    game.legal_decisions(&s, &mut list);
    for &d in &list {
        let mut after = s;
        let _ = game.apply(&mut after, d);
    }
    let written = Position::from_state(&game, &s);
    let _ = serde_json::to_string(&written).expect("a position serialises");
});
