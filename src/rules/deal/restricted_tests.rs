//! Restricted play (`WhatIf::restricted`): a restricted node acts as a plain one for both
//! players. Optional effects are never offered, the same as declining them every time; forced
//! ones (Station Metal-X's suppression of troop effects, Tropical Pool's value restrictions)
//! are skipped: the placement stays legal and is resolved as on a plain base (docs/design.md).

use super::*;
use crate::rules::{Decision, DecisionList, Phase, Variant};
use crate::terrain::SpecialEffect;

fn game(key: &str, variant: Variant, restricted: &[u8]) -> Game {
    Game::builtin(key, variant)
        .unwrap()
        .with_what_if(WhatIf {
            restricted: Restricted::of(restricted.iter().map(|&id| NodeId(id))),
            ..WhatIf::RETAIL
        })
        .unwrap()
}

/// Every state of `games` random games on `game`, with the decision taken there.
fn random_steps(game: &Game, games: u64, mut visit: impl FnMut(&State, Decision)) {
    for seed in 0..games {
        random_game(game, seed, &mut visit);
    }
}

fn placements_on(game: &Game, s: &State, node: usize) -> Vec<Decision> {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    list.into_iter()
        .filter(|d| matches!(d, Decision::Place { node: n, .. } if n.usize() == node))
        .collect()
}

/// Property over random games on every shipped terrain, each node with an effect restricted
/// in turn: its effect is never offered, placing on it is legal exactly as on a plain base
/// (the beginner game's), and its placements resolve as there; the other special bases of the
/// terrain keep their effects.
#[test]
fn a_restricted_effect_is_never_applied_and_the_base_plays_as_a_plain_one() {
    for terrain in crate::terrain::builtin_terrains() {
        let beginner = Game::builtin(&terrain.key, Variant::Beginner).unwrap();
        for node in terrain.nodes.iter().filter(|n| n.effect.is_some()) {
            let restricted = game(&terrain.key, Variant::Normal, &[node.id.get()]);
            let x = terrain.index_of(node.id).unwrap().usize();
            let normal = Game::builtin(&terrain.key, Variant::Normal).unwrap();
            let (mut compared, mut others_offered, mut lifted) = (0, 0, 0);
            random_steps(&restricted, 40, |s, _| match s.phase() {
                Phase::SpecialEffect { node: n, .. } => {
                    assert_ne!(
                        n.usize(),
                        x,
                        "{}: restricted {} offered",
                        terrain.key,
                        node.id
                    );
                    others_offered += 1;
                }
                Phase::Action => {
                    let on_x = placements_on(&restricted, s, x);
                    assert_eq!(
                        on_x,
                        placements_on(&beginner, s, x),
                        "{} {}",
                        terrain.key,
                        node.id
                    );
                    for d in on_x {
                        lifted += !normal.is_legal(s, d) as u32;
                        let (mut a, mut b) = (*s, *s);
                        restricted.apply(&mut a, d).unwrap();
                        beginner.apply(&mut b, d).unwrap();
                        assert_eq!(a, b, "{} {}: {d:?}", terrain.key, node.id);
                        compared += 1;
                    }
                }
                _ => {}
            });
            assert!(compared > 0, "{} {}: never placed on", terrain.key, node.id);
            if node.effect == Some(SpecialEffect::ValueRestriction) {
                assert!(
                    lifted > 0,
                    "{} {}: every value may go there",
                    terrain.key,
                    node.id
                );
            }
            let queued_elsewhere = terrain
                .nodes
                .iter()
                .any(|n| n.id != node.id && n.effect.is_some_and(SpecialEffect::is_queued));
            if queued_elsewhere {
                assert!(
                    others_offered > 0,
                    "{}: the other bases still act",
                    terrain.key
                );
            }
        }
    }
}

/// The first Action state of random games on `game` with a placement on `node` for which
/// `wanted` holds, with that placement.
fn find_placement(
    game: &Game,
    node: u8,
    wanted: impl Fn(&State, Decision) -> bool,
) -> (State, Decision) {
    let x = game.terrain().index_of(NodeId(node)).unwrap().usize();
    let mut found = None;
    random_steps(game, 200, |s, _| {
        if found.is_none() && s.phase() == Phase::Action {
            found = placements_on(game, s, x)
                .into_iter()
                .find(|&d| wanted(s, d))
                .map(|d| (*s, d));
        }
    });
    found.expect("random games reach such a placement")
}

/// An optional effect: the restricted player always declines. Placing on restricted Castle
/// Field base 15 ends the turn exactly where placing there and declining the return does.
#[test]
fn ruling_a_restricted_optional_effect_is_declined() {
    let normal = Game::builtin("castle_field", Variant::Normal).unwrap();
    let restricted = game("castle_field", Variant::Normal, &[15]);
    let (s, place) = find_placement(&normal, 15, |s, d| {
        let mut after = *s;
        normal.apply(&mut after, d).unwrap();
        matches!(after.phase(), Phase::SpecialEffect { .. })
    });
    let mut declined = s;
    normal.apply(&mut declined, place).unwrap();
    normal.apply(&mut declined, Decision::Decline).unwrap();
    let mut skipped = s;
    restricted.apply(&mut skipped, place).unwrap();
    assert_eq!(skipped, declined);
    assert_eq!(skipped.phase(), Phase::Action, "the opponent's turn");
}

/// A forced effect: placing on a restricted Station Metal-X base stays legal and the base acts
/// as a plain one, not as a base that is never chosen: a tile placed there applies its troop
/// effect, and Hook may go there without connection (R9.7 and A4 no longer bind there).
#[test]
fn ruling_a_restricted_forced_effect_is_skipped_and_the_base_stays_playable() {
    let normal = Game::builtin("station_metal_x", Variant::Normal).unwrap();
    let restricted = game("station_metal_x", Variant::Normal, &[17]);
    let x = normal.terrain().index_of(NodeId(17)).unwrap();
    let (s, place) = find_placement(&restricted, 17, |s, d| {
        let mut after = *s;
        restricted.apply(&mut after, d).unwrap();
        matches!(after.phase(), Phase::TroopEffect { .. })
    });
    let mut suppressed = s;
    normal.apply(&mut suppressed, place).unwrap();
    assert!(
        !matches!(suppressed.phase(), Phase::TroopEffect { .. }),
        "in the printed rules the troop effect is cancelled there"
    );
    let hook = Decision::Place {
        troop: Troop::Hook,
        node: x,
    };
    let (s, _) = find_placement(&restricted, 17, |s, d| {
        d == hook && restricted.connected_nodes(s, s.active()) & x.bit() == 0
    });
    assert!(!normal.is_legal(&s, hook), "A4: only when connected");
    assert!(restricted.is_legal(&s, hook));
}

#[test]
fn restricting_a_node_without_effect_or_off_the_terrain_is_refused() {
    let castle = Game::builtin("castle_field", Variant::Normal).unwrap();
    for (id, words) in [
        (13, "carries no special effect"),
        (99, "is not on the terrain"),
    ] {
        let e = castle
            .clone()
            .with_what_if(WhatIf {
                restricted: Restricted::of([NodeId(id)]),
                ..WhatIf::RETAIL
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains(words) && e.contains("15, 16, 20, 21"), "{e}");
    }
}

#[test]
fn lifting_a_restriction_restores_the_printed_tables() {
    let printed = Game::builtin("castle_field", Variant::Normal).unwrap();
    let lifted = game("castle_field", Variant::Normal, &[15])
        .with_what_if(WhatIf::RETAIL)
        .unwrap();
    let n = printed.terrain().index_of(NodeId(15)).unwrap();
    assert!(lifted.queued_effect(n).is_some());
    assert_eq!(lifted.queued_effect(n), printed.queued_effect(n));
}

#[test]
fn restrictions_are_written_as_a_list_of_ids_and_only_when_used() {
    let w = WhatIf {
        restricted: Restricted::of([NodeId(20), NodeId(15)]),
        ..WhatIf::RETAIL
    };
    let json = serde_json::to_string(&w).unwrap();
    assert!(json.contains(r#""restricted":[15,20]"#), "{json}");
    assert_eq!(serde_json::from_str::<WhatIf>(&json).unwrap(), w);
    assert!(!serde_json::to_string(&WhatIf::RETAIL)
        .unwrap()
        .contains("restricted"));
    assert_eq!(w.describe(), "restricted play: no effect of node 15, 20");
}
