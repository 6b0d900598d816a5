//! Invariants of the rules, checked after every step of random games on all eight terrains in
//! both variants: tile and medal conservation, sizes that agree with contents, bitboards that
//! agree with stacks, legal lists that agree with `is_legal`, illegal decisions refused without a
//! trace, and observations that never depend on hidden tiles.
//!
//! Each case is one game: a deal seed, and every step (chance outcomes included) chosen as an
//! index into that step's legal list; the game stops when the choices run out or it ends. A
//! failure therefore shrinks to a short game with early choices (proptest drops and lowers the
//! indices), and is kept: proptest writes its seed to `tests/proptest-regressions/properties.txt`,
//! which is committed, so every later run tries the failures found before first.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::info::Observation;
use toybattle::rules::{
    Chance, Colour, Deal, Decision, DecisionList, Game, Phase, State, Tile, Troop, TroopCounts,
    Variant, WinType,
};
use toybattle::terrain::{bits, SpecialEffect, Terrain, MAX_NODES};

/// Self-play safety cap (R10.5: the game itself has none).
const TURN_CAP: u16 = 400;
/// Decisions outside the legal list tried at every step.
const UNLISTED_SAMPLES: usize = 12;
/// Most steps (decisions and chance outcomes) of one case.
const MAX_STEPS: usize = 600;
/// Games per terrain (the variant is drawn per game).
const CASES: u32 = 256;

type Check = Result<(), TestCaseError>;

fn check_tiles(s: &State) -> Check {
    for c in Colour::BOTH {
        prop_assert_eq!(s.tile_census(c), TroopCounts::FULL, "{} tiles conserved", c);
        let (rack, frozen, public) = (s.rack(c), s.frozen(c), s.public_rack(c));
        prop_assert_eq!(s.rack_len(c), rack.total(), "{} rack_len", c);
        prop_assert_eq!(s.reserve_len(c), s.reserve(c).total(), "{} reserve_len", c);
        prop_assert_eq!(s.frozen_len(c), frozen.total(), "{} frozen_len", c);
        prop_assert!(rack.contains(&frozen), "{} frozen ⊆ rack", c);
        prop_assert!(rack.contains(&public), "{} public rack ⊆ rack", c);
        prop_assert!(rack.total() <= 8, "{} rack over 8 (R4.4)", c);
        prop_assert_eq!(s.removed(c).total(), 4, "{} removed tiles (R3.4)", c);
    }
    Ok(())
}

fn check_medals(t: &Terrain, s: &State) -> Check {
    let taken = s.regions_taken();
    prop_assert_eq!(
        taken >> t.regions.len(),
        0,
        "only existing regions are taken"
    );
    let taken_medals: u32 = bits(taken).map(|r| t.regions[r].medals as u32).sum();
    let (blue, red) = (s.medals(Colour::Blue), s.medals(Colour::Red));
    prop_assert_eq!(
        blue as u32 + red as u32,
        taken_medals,
        "medals conserved (R8.4)"
    );
    prop_assert!(blue as u32 <= t.total_medals() && red as u32 <= t.total_medals());
    if !s.is_over() {
        prop_assert!(
            blue < t.medals_to_win && red < t.medals_to_win,
            "objective ends the game"
        );
    }
    Ok(())
}

fn check_board(t: &Terrain, s: &State) -> Check {
    let b = s.board();
    let mut heights = 0;
    for n in 0..MAX_NODES {
        heights += b.height(n);
        prop_assert_eq!(b.stack(n).count(), b.height(n));
        prop_assert_eq!(b.stack(n).last(), b.top(n), "top is the last of the stack");
        if n >= t.node_count() {
            prop_assert_eq!(
                b.height(n),
                0,
                "tile on node index {} beyond the terrain",
                n
            );
        }
        for c in Colour::BOTH {
            let on_top = b.top(n).is_some_and(|tile| tile.colour() == c);
            prop_assert_eq!(
                b.occupied(c) & (1 << n) != 0,
                on_top,
                "occupied({}) at {}",
                c,
                n
            );
            for troop in Troop::ALL {
                let is = b
                    .top(n)
                    .is_some_and(|x| x.colour() == c && x.troop() == troop);
                prop_assert_eq!(b.tops(c, troop) & (1 << n) != 0, is, "tops at {}", n);
            }
        }
    }
    prop_assert_eq!(heights, b.tile_count());
    prop_assert_eq!(
        b.nonempty(),
        b.occupied(Colour::Blue) | b.occupied(Colour::Red)
    );
    for c in Colour::BOTH {
        for hq in bits(t.hqs[c.index()]) {
            prop_assert!(b.height(hq) <= 1, "a stack on HQ {}", t.id_of(hq));
            if let Some(tile) = b.top(hq) {
                // R5.1: never on an own HQ; R10.1: on an enemy HQ the game is won.
                prop_assert_eq!(
                    tile.colour(),
                    c.opponent(),
                    "tile on own HQ {}",
                    t.id_of(hq)
                );
                prop_assert_eq!(
                    s.outcome().map(|o| (o.winner, o.win)),
                    Some((c.opponent(), WinType::Hq))
                );
            }
        }
    }
    Ok(())
}

fn check_phase(t: &Terrain, s: &State) -> Check {
    prop_assert_eq!(s.is_over(), s.outcome().is_some(), "Over iff an outcome");
    if let Some(o) = s.outcome() {
        let hq_tiles = bits(t.hqs[o.winner.opponent().index()])
            .filter(|&n| s.board().top(n).is_some())
            .count();
        prop_assert_eq!(
            hq_tiles > 0,
            o.win == WinType::Hq,
            "HQ win iff a tile on an HQ"
        );
        if o.win == WinType::Medals {
            prop_assert!(s.medals(o.winner) >= t.medals_to_win);
        }
    }
    Ok(())
}

/// What each pending step implies about the rest of the state.
fn check_pending_step(game: &Game, s: &State) -> Check {
    let (t, p) = (game.terrain(), s.active());
    let beginner = game.variant() == Variant::Beginner;
    match s.phase() {
        Phase::TroopEffect { troop, node } => {
            // R6.5: the effect belongs to the tile just placed, still on top; R9.7: never on a
            // Station Metal-X special base.
            prop_assert_eq!(s.board().top(node as usize), Some(Tile::new(p, troop)));
            let suppressed = t.effect_at(node as usize) == Some(SpecialEffect::NoTroopEffect);
            prop_assert!(beginner || !suppressed, "troop effect on a no-effect base");
        }
        Phase::SpecialEffect { effect, node } => {
            prop_assert!(!beginner, "special effect in the beginner game (R13.1)");
            prop_assert_eq!(t.effect_at(node as usize), Some(effect));
        }
        Phase::Chance(Chance::Draw { remaining }) => {
            prop_assert!(remaining >= 1 && remaining <= s.reserve_len(p));
            prop_assert!(s.rack_len(p) + remaining <= 8, "draw beyond the rack limit");
        }
        Phase::Chance(Chance::RackDiscard) => prop_assert!(s.rack_len(p.opponent()) > 0),
        Phase::Chance(Chance::Freeze) => {
            prop_assert!(!beginner);
            prop_assert!(s.rack_len(p.opponent()) > s.frozen_len(p.opponent()));
        }
        Phase::Action | Phase::Over => {}
    }
    if beginner {
        prop_assert_eq!(s.frozen_len(Colour::Blue) + s.frozen_len(Colour::Red), 0);
    }
    Ok(())
}

/// A decision of any shape, nodes mostly on the terrain but sometimes any `u8`.
fn any_decision(rng: &mut impl Rng, nodes: usize) -> Decision {
    let mut node = || -> u8 {
        if rng.random_range(0..8) == 0 {
            rng.random()
        } else {
            rng.random_range(0..nodes as u8 + 2)
        }
    };
    let (a, b) = (node(), node());
    let troop = Troop::from_index(rng.random_range(0..8));
    match rng.random_range(0..9) {
        0 => Decision::Draw,
        1 => Decision::Decline,
        2 => Decision::Use,
        3 => Decision::Place { troop, node: a },
        4 => Decision::Discard { node: a },
        5 => Decision::Return { node: a },
        6 => Decision::Move { from: a, to: b },
        7 => Decision::Recover { troop },
        _ => Decision::Chance(troop),
    }
}

fn check_decisions(game: &Game, s: &State, rng: &mut impl Rng) -> Check {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    prop_assert_eq!(
        list.is_empty(),
        s.is_over(),
        "a live game always offers a decision"
    );
    for (i, &d) in list.iter().enumerate() {
        prop_assert!(game.is_legal(s, d), "listed but not legal: {:?}", d);
        prop_assert!(!list[..i].contains(&d), "listed twice: {:?}", d);
        let text = d.notation(game.terrain());
        prop_assert_eq!(
            Decision::parse(&text, game.terrain()),
            Ok(d),
            "notation '{}'",
            text
        );
    }
    if s.is_chance() {
        let outcomes = game.chance_outcomes(s);
        let listed: Vec<Decision> = outcomes.iter().map(|&(t, _)| Decision::Chance(t)).collect();
        prop_assert_eq!(&list[..], &listed[..]);
        prop_assert!(outcomes.iter().all(|&(_, w)| w > 0));
    }
    if !list.is_empty() {
        let d = list[rng.random_range(0..list.len())];
        let mut after = *s;
        prop_assert!(
            game.apply(&mut after, d).is_ok(),
            "listed decision refused: {:?}",
            d
        );
    }
    for _ in 0..UNLISTED_SAMPLES {
        let d = any_decision(rng, game.terrain().node_count());
        if list.contains(&d) {
            continue;
        }
        prop_assert!(!game.is_legal(s, d), "legal but not listed: {:?}", d);
        let mut after = *s;
        prop_assert!(
            game.apply(&mut after, d).is_err(),
            "illegal {:?} accepted",
            d
        );
        prop_assert_eq!(&after, s, "refused {:?} changed the state", d);
    }
    Ok(())
}

/// R11: an observation depends only on what its observer may know, and a determinization is a
/// state with that very observation.
fn check_observations(game: &Game, s: &State, rng: &mut impl Rng) -> Check {
    for observer in Colour::BOTH {
        let obs = Observation::new(s, observer);
        let sampled = obs.determinize(rng);
        prop_assert_eq!(
            Observation::new(&sampled, observer),
            obs,
            "{}'s observation",
            observer
        );
        check_tiles(&sampled)?;
        let other = obs.determinize(rng);
        prop_assert_eq!(Observation::new(&other, observer), obs);
        if obs.is_my_decision() {
            let (mut a, mut b, mut c) = (
                DecisionList::new(),
                DecisionList::new(),
                DecisionList::new(),
            );
            game.legal_decisions(s, &mut a);
            obs.legal_decisions(game, &mut b);
            game.legal_decisions(&sampled, &mut c);
            prop_assert_eq!(&a, &b, "observation's legal decisions");
            prop_assert_eq!(&a, &c, "a determinization's legal decisions");
        }
    }
    Ok(())
}

fn check_state(game: &Game, s: &State, rng: &mut impl Rng) -> Check {
    let t = game.terrain();
    check_tiles(s)?;
    check_medals(t, s)?;
    check_board(t, s)?;
    check_phase(t, s)?;
    check_pending_step(game, s)?;
    check_decisions(game, s, rng)?;
    check_observations(game, s, rng)
}

fn game_keeps_invariants(key: &str, variant: Variant, seed: u64, choices: &[Index]) -> Check {
    let game = Game::builtin(key, variant).expect("a shipped terrain");
    let mut s = game.initial_state(&Deal::from_seed(seed));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15);
    let mut legal = DecisionList::new();
    for choice in choices {
        if s.is_over() || s.turn() > TURN_CAP {
            break;
        }
        check_state(&game, &s, &mut rng)?;
        game.legal_decisions(&s, &mut legal);
        prop_assert!(!legal.is_empty(), "a game that is not over has a decision");
        let d = legal[choice.index(legal.len())];
        let before = s;
        if let Err(e) = game.apply(&mut s, d) {
            return Err(TestCaseError::fail(format!(
                "random legal {d:?} refused: {e}"
            )));
        }
        prop_assert_ne!(&s, &before, "{:?} changed nothing", d);
        if before.turn() != s.turn() {
            prop_assert_eq!(s.turn(), before.turn() + 1);
            prop_assert_eq!(s.active(), before.active().opponent(), "turns alternate");
            let ended = before.active();
            prop_assert_eq!(
                s.frozen_len(ended),
                0,
                "frozen tiles thaw at the end of the turn"
            );
            prop_assert!(
                s.is_over() || s.phase() == Phase::Action,
                "a turn starts with the action"
            );
        }
    }
    check_state(&game, &s, &mut rng)
}

/// Regression: describing a refused decision whose node index lies beyond the terrain panicked
/// in `Decision::notation` (index out of bounds) instead of returning the error.
#[test]
fn decision_naming_a_node_beyond_the_terrain_is_refused_not_a_panic() {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let s = game.initial_state(&Deal::from_seed(0));
    for node in [17, 31, 200] {
        let d = Decision::Place {
            troop: Troop::Hook,
            node,
        };
        let mut after = s;
        let err = game.apply(&mut after, d).unwrap_err();
        assert!(err.decision.contains(&format!("#{node}")), "{err}");
        assert_eq!(after, s);
    }
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![Just(Variant::Normal), Just(Variant::Beginner)]
}

/// The choices of one game: more than the steps of any game seen in self-play, so that most
/// cases play to the end.
fn choices() -> impl Strategy<Value = Vec<Index>> {
    prop::collection::vec(any::<Index>(), 0..MAX_STEPS)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/properties.txt"
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn castle_field(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("castle_field", v, seed, &steps)?;
    }

    #[test]
    fn tropical_pool(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("tropical_pool", v, seed, &steps)?;
    }

    #[test]
    fn city_of_clouds(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("city_of_clouds", v, seed, &steps)?;
    }

    #[test]
    fn volcanic_jungle(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("volcanic_jungle", v, seed, &steps)?;
    }

    #[test]
    fn cursed_cemetery(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("cursed_cemetery", v, seed, &steps)?;
    }

    #[test]
    fn caribbean_sea(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("caribbean_sea", v, seed, &steps)?;
    }

    #[test]
    fn station_metal_x(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("station_metal_x", v, seed, &steps)?;
    }

    #[test]
    fn battlefield(seed in any::<u64>(), v in variant(), steps in choices()) {
        game_keeps_invariants("battlefield", v, seed, &steps)?;
    }
}
