//! Invariants of the rules, checked after every step of random games on all eight terrains in
//! both variants: every invariant of `rules::invariants::check` (tile and medal conservation,
//! sizes, bitboards, regions, connection, phase, legal lists), plus what needs randomness or
//! text: notation that reads back, illegal decisions refused without a trace, and observations
//! (and their determinizations) that never depend on hidden tiles.
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
    invariants, Colour, Deal, Decision, DecisionList, Game, Phase, State, Troop, Variant,
};
use toybattle::terrain::NodeIndex;

/// Self-play safety cap (R10.5: the game itself has none).
const TURN_CAP: u16 = 400;
/// Decisions outside the legal list tried at every step.
const UNLISTED_SAMPLES: usize = 12;
/// Most steps (decisions and chance outcomes) of one case.
const MAX_STEPS: usize = 600;
/// Games per terrain (the variant is drawn per game).
const CASES: u32 = 256;

type Check = Result<(), TestCaseError>;

/// Every invariant of the state, written once in `rules::invariants`.
fn check_invariants(game: &Game, s: &State) -> Check {
    invariants::check(game, s).map_err(|v| TestCaseError::fail(v.to_string()))
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
    let (a, b) = (NodeIndex::raw(node()), NodeIndex::raw(node()));
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

/// What `invariants::check` leaves out because it needs randomness or text: notation that
/// reads back, a listed decision that applies, and decisions outside the list refused without
/// a trace.
fn check_decisions(game: &Game, s: &State, rng: &mut impl Rng) -> Check {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    for &d in &list {
        let text = d.notation(game.terrain());
        prop_assert_eq!(
            Decision::parse(&text, game.terrain()),
            Ok(d),
            "notation '{}'",
            text
        );
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
/// state with that very observation, whose tiles add up.
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
        // The one who decides gets a determinization that is a state of the game in every
        // respect. The other's may give the player to move a rack with which the game could not
        // have gone on (blocked, or a Cap'n effect with nothing to place): a determinization does
        // not condition on the opponent's past, and no bot searches from it.
        if obs.is_my_decision() {
            check_invariants(game, &sampled)?;
        } else {
            invariants::check_tiles(&sampled).map_err(|v| TestCaseError::fail(v.to_string()))?;
        }
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
    check_invariants(game, s)?;
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
            node: NodeIndex::raw(node),
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
