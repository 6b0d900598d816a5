//! R11 facts about observations and determinization: a determinization keeps everything the
//! observer knows, deals the unseen tiles uniformly, and a bot is never shown the opponent's
//! rack beyond its public tiles.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::{Arc, Mutex};
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::{Bot, Choice, Player, Request};
use toybattle::info::{EvidenceTracker, Observation};
use toybattle::rules::{
    random_decision, Colour, Deal, Decision, DecisionList, Game, State, Troop, TroopCounts, Variant,
};
use toybattle::terrain::{NodeIndex, MAX_NODES};

/// Samples per frequency check.
const SAMPLES: u32 = 4000;
/// Chi-square bound: the 0.1% quantile for 7 degrees of freedom is 24.3. Draws without
/// replacement spread less than the multinomial the statistic assumes, so this is tolerant.
const CHI_SQUARE_BOUND: f64 = 24.3;

/// Every state of a seeded random game (chance outcomes sampled).
fn random_game(game: &Game, seed: u64) -> Vec<State> {
    let mut s = game.initial_state(&Deal::from_seed(seed));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut states = vec![s];
    while let Some(d) = random_decision(game, &s, &mut rng) {
        game.apply_legal(&mut s, d);
        states.push(s);
    }
    states
}

/// States of random games on `key` that satisfy `pred`.
fn positions(key: &str, games: u64, pred: impl Fn(&State) -> bool) -> Vec<State> {
    let game = Game::builtin(key, Variant::Normal).unwrap();
    (0..games)
        .flat_map(|seed| random_game(&game, seed))
        .filter(|s| pred(s))
        .collect()
}

/// The parts of a state that an observation shows, for comparing a determinization with the
/// state it came from.
fn check_known_parts_kept(s: &State, d: &State, me: Colour) {
    let them = me.opponent();
    assert_eq!(d.board(), s.board());
    assert_eq!(d.rack(me), s.rack(me), "own rack");
    assert_eq!(d.frozen(me), s.frozen(me), "own frozen tiles");
    assert_eq!(
        d.public_rack(them),
        s.public_rack(them),
        "public rack tiles"
    );
    assert!(d.rack(them).contains(&s.public_rack(them)));
    for c in Colour::BOTH {
        assert_eq!(d.rack_len(c), s.rack_len(c));
        assert_eq!(d.reserve_len(c), s.reserve_len(c));
        assert_eq!(d.frozen_len(c), s.frozen_len(c));
        assert_eq!(d.discard(c), s.discard(c));
        assert_eq!(d.medals(c), s.medals(c));
        assert_eq!(d.tile_census(c), TroopCounts::FULL);
        assert_eq!(d.rack_len(c), d.rack(c).total());
        assert_eq!(d.reserve_len(c), d.reserve(c).total());
        assert_eq!(d.frozen_len(c), d.frozen(c).total());
        assert!(d.rack(c).contains(&d.frozen(c)));
    }
    assert_eq!(
        (
            d.phase(),
            d.active(),
            d.turn(),
            d.regions_taken(),
            d.outcome()
        ),
        (
            s.phase(),
            s.active(),
            s.turn(),
            s.regions_taken(),
            s.outcome()
        )
    );
}

#[test]
fn determinization_keeps_what_the_observer_knows() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    // Castle Field returns make rack tiles public; Battlefield freezes rack tiles.
    let mut with_public = 0;
    let mut with_frozen = 0;
    for key in ["castle_field", "battlefield", "cursed_cemetery"] {
        for s in positions(key, 12, |_| true) {
            for me in Colour::BOTH {
                let them = me.opponent();
                with_public += (s.public_rack(them).total() > 0) as u32;
                with_frozen += (s.frozen_len(them) > 0) as u32;
                let d = Observation::new(&s, me).determinize(&mut rng);
                check_known_parts_kept(&s, &d, me);
            }
        }
    }
    assert!(
        with_public > 0 && with_frozen > 0,
        "{with_public} {with_frozen}"
    );
}

/// Chi-square statistic of observed troop counts against expected ones (types with a positive
/// expectation only).
fn chi_square(observed: &[f64; 8], expected: &[f64; 8]) -> f64 {
    (0..8)
        .filter(|&t| expected[t] > 0.0)
        .map(|t| (observed[t] - expected[t]).powi(2) / expected[t])
        .sum()
}

/// Sums `place(sample)` over the samples and checks it against `share` of the unseen tiles.
fn check_uniform(
    obs: &Observation,
    pool: TroopCounts,
    size: u8,
    place: impl Fn(&State) -> TroopCounts,
) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    let mut observed = [0.0; 8];
    for _ in 0..SAMPLES {
        let d = obs.determinize(&mut rng);
        for t in Troop::ALL {
            observed[t.index()] += place(&d).get(t) as f64;
        }
    }
    let expected: [f64; 8] = std::array::from_fn(|t| {
        SAMPLES as f64 * size as f64 * pool.0[t] as f64 / pool.total() as f64
    });
    let x2 = chi_square(&observed, &expected);
    assert!(
        x2 < CHI_SQUARE_BOUND,
        "chi-square {x2:.1}: observed {observed:?}, expected {expected:?}"
    );
}

/// A mid-game state where the opponent has hidden rack tiles and both reserves are not empty.
fn midgame_position() -> State {
    positions("castle_field", 4, |s| {
        s.turn() >= 8
            && !s.is_over()
            && s.rack_len(Colour::Red) > s.public_rack(Colour::Red).total() + 1
            && s.reserve_len(Colour::Blue) > 2
            && s.reserve_len(Colour::Red) > 2
    })
    .into_iter()
    .next()
    .expect("random games reach such a position")
}

#[test]
fn determinization_deals_unseen_tiles_uniformly() {
    let s = midgame_position();
    let (me, them) = (Colour::Blue, Colour::Red);
    let obs = Observation::new(&s, me);
    // Own reserve and removed tiles: one pool of unseen own tiles (R11.3).
    let own = obs.unseen(me);
    check_uniform(&obs, own, s.reserve_len(me), |d| d.reserve(me));
    check_uniform(&obs, own, 4, |d| d.removed(me));
    // The opponent's hidden rack, reserve and removed tiles: one pool.
    let theirs = obs.unseen(them);
    let hidden = s.rack_len(them) - s.public_rack(them).total();
    check_uniform(&obs, theirs, hidden, |d| {
        d.rack(them).minus(&s.public_rack(them)).unwrap()
    });
    check_uniform(&obs, theirs, s.reserve_len(them), |d| d.reserve(them));
    check_uniform(&obs, theirs, 4, |d| d.removed(them));
}

#[test]
fn unseen_tiles_are_the_full_colour_less_what_is_visible() {
    for s in positions("castle_field", 3, |_| true) {
        for me in Colour::BOTH {
            let them = me.opponent();
            let obs = Observation::new(&s, me);
            let board = |c: Colour| {
                TroopCounts::from_troops(
                    (0..MAX_NODES)
                        .flat_map(|n| s.board().stack(NodeIndex::new(n)).collect::<Vec<_>>())
                        .filter(|t| t.colour() == c)
                        .map(|t| t.troop()),
                )
            };
            let own_seen = s.rack(me).plus(&board(me)).plus(&s.discard(me));
            let their_seen = s
                .public_rack(them)
                .plus(&board(them))
                .plus(&s.discard(them));
            assert_eq!(Some(obs.unseen(me)), TroopCounts::FULL.minus(&own_seen));
            assert_eq!(Some(obs.unseen(them)), TroopCounts::FULL.minus(&their_seen));
            assert_eq!(obs.unseen(me), s.reserve(me).plus(&s.removed(me)));
        }
    }
}

#[test]
fn opponent_frozen_tiles_are_dealt_uniformly_among_their_rack() {
    // The freezer does not know which tile is frozen (R9.8): among the sampled rack, uniform.
    let s = positions("battlefield", 40, |s| {
        let red = Colour::Red;
        s.frozen_len(red) > 0 && s.rack_len(red) > s.frozen_len(red) + 1
    })
    .into_iter()
    .next()
    .expect("random games freeze tiles on Battlefield");
    let obs = Observation::new(&s, Colour::Blue);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let (mut observed, mut expected) = ([0.0; 8], [0.0; 8]);
    for _ in 0..SAMPLES {
        let d = obs.determinize(&mut rng);
        let (rack, frozen) = (d.rack(Colour::Red), d.frozen(Colour::Red));
        for t in Troop::ALL {
            observed[t.index()] += frozen.get(t) as f64;
            expected[t.index()] += frozen.total() as f64 * rack.get(t) as f64 / rack.total() as f64;
        }
    }
    let x2 = chi_square(&observed, &expected);
    assert!(
        x2 < CHI_SQUARE_BOUND,
        "chi-square {x2:.1}: {observed:?} vs {expected:?}"
    );
}

/// A random bot that keeps every observation it is shown.
struct Recorder {
    seen: Arc<Mutex<Vec<Observation>>>,
}

impl Bot for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn decide(&mut self, request: &Request) -> Choice {
        self.seen.lock().unwrap().push(*request.observation);
        let mut list = DecisionList::new();
        request.observation.legal_decisions(request.game, &mut list);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
        Choice::plain(list[rng.random_range(0..list.len())])
    }
}

#[test]
fn bots_never_see_the_opponents_hidden_rack_tiles() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut hidden_differs = 0;
    for key in ["castle_field", "battlefield"] {
        let game = Game::builtin(key, Variant::Normal).unwrap();
        for seed in 0..4 {
            let seen = Arc::new(Mutex::new(Vec::new()));
            let recorder = || {
                Player::Fair(Box::new(Recorder {
                    seen: Arc::clone(&seen),
                }))
            };
            let (mut blue, mut red) = (recorder(), recorder());
            let deal = Deal::from_seed(seed);
            let config = PlayConfig::default();
            let record = play_game(&game, &deal, &mut [&mut blue, &mut red], &config).record;
            // The bots' decisions are the record's non-chance steps, in order.
            let mut s = game.initial_state(&deal);
            let mut evidence = EvidenceTracker::new(&game, &s);
            let mut shown = seen.lock().unwrap().clone().into_iter();
            for step in &record.steps {
                let d = Decision::parse(step, game.terrain()).unwrap();
                if !d.is_chance() {
                    let obs = shown.next().expect("one observation per decision");
                    let me = s.active();
                    // Besides the observation, only the public evidence about the opponent.
                    let opponent = evidence.about(me.opponent());
                    assert_eq!(obs, Observation::new(&s, me).with_evidence(opponent));
                    assert_eq!(obs.rack(), s.rack(me));
                    assert_eq!(obs.opponent_public_rack(), s.public_rack(me.opponent()));
                    // A state that differs in the opponent's hidden tiles looks the same.
                    let other = obs.determinize(&mut rng);
                    hidden_differs += (other.rack(me.opponent()) != s.rack(me.opponent())) as u32;
                    assert_eq!(Observation::new(&other, me).with_evidence(opponent), obs);
                }
                let before = s;
                game.apply(&mut s, d).unwrap();
                evidence.step(&game, &before, d, &s);
            }
            assert!(shown.next().is_none(), "no observation without a decision");
        }
    }
    assert!(
        hidden_differs > 0,
        "the check compared some differing racks"
    );
}

/// A rack belief changes only the odds: every determinization it deals keeps what the observer
/// knows, and a belief that favours one troop puts it on the opponent's rack more often than
/// the uniform deal does.
#[test]
fn rack_belief_keeps_what_the_observer_knows_and_shifts_the_odds() {
    use toybattle::info::RackBelief;
    let mut favour_kwak = [1; 8];
    favour_kwak[Troop::Kwak.index()] = RackBelief::MAX_WEIGHT;
    let belief = RackBelief::new(favour_kwak).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let (mut weighted, mut uniform, mut checked) = (0u32, 0u32, 0u32);
    for s in positions("castle_field", 6, |s| !s.is_over()) {
        for me in Colour::BOTH {
            let obs = Observation::new(&s, me);
            let d = obs.determinize_with(&belief, &mut rng);
            check_known_parts_kept(&s, &d, me);
            let them = me.opponent();
            let hidden = s.rack_len(them) - s.public_rack(them).total();
            if hidden > 0 && obs.unseen(them).get(Troop::Kwak) > 0 {
                checked += 1;
                weighted += u32::from(d.rack(them).get(Troop::Kwak));
                let u = obs.determinize(&mut rng);
                uniform += u32::from(u.rack(them).get(Troop::Kwak));
            }
        }
    }
    assert!(checked > 100, "{checked} positions");
    assert!(
        weighted > 2 * uniform,
        "Kwak on the rack: {weighted} weighted, {uniform} uniform"
    );
}

/// The uniform belief is the plain determinization, sample for sample; weights outside
/// 1..=1000 are refused with the troop named.
#[test]
fn uniform_rack_belief_is_the_plain_determinization() {
    use toybattle::info::RackBelief;
    for s in positions("battlefield", 2, |s| !s.is_over()) {
        let obs = Observation::new(&s, s.active());
        let mut a = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut b = Xoshiro256PlusPlus::seed_from_u64(3);
        assert_eq!(
            obs.determinize(&mut a),
            obs.determinize_with(&RackBelief::UNIFORM, &mut b)
        );
    }
    let mut zero = [1; 8];
    zero[Troop::Roxy.index()] = 0;
    let e = RackBelief::new(zero).unwrap_err().to_string();
    assert!(e.contains("Roxy") && e.contains("1 to 1000"), "{e}");
    assert!(RackBelief::new([1001; 8]).is_err());
}

/// A determinization knowing the opponent's rack (the cheating reference `rack_only`) keeps
/// what the observer knows, holds exactly that rack and its frozen tiles, and still deals the
/// reserves and removed tiles (they vary across samples where there is a choice); a rack or
/// a frozen count the observation does not allow is refused.
#[test]
fn knowing_the_rack_deals_only_the_rest() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut varied = 0u32;
    for key in ["battlefield", "castle_field"] {
        for s in positions(key, 4, |s| !s.is_over()) {
            let me = s.active();
            let them = me.opponent();
            let obs = Observation::new(&s, me);
            let (rack, frozen) = (s.rack(them), s.frozen(them));
            let a = obs
                .determinize_knowing_rack(rack, frozen, &mut rng)
                .unwrap();
            let b = obs
                .determinize_knowing_rack(rack, frozen, &mut rng)
                .unwrap();
            for d in [&a, &b] {
                check_known_parts_kept(&s, d, me);
                assert_eq!((d.rack(them), d.frozen(them)), (rack, frozen));
            }
            let reserves = |d: &State| [d.reserve(me), d.reserve(them)];
            varied += u32::from(reserves(&a) != reserves(&b));
            let mut longer = rack;
            longer.0[Troop::Kwak.index()] += 1;
            assert!(obs
                .determinize_knowing_rack(longer, frozen, &mut rng)
                .is_none());
            if let Some(t) = Troop::ALL
                .into_iter()
                .find(|&t| rack.get(t) > frozen.get(t))
            {
                let mut more_frozen = frozen;
                more_frozen.0[t.index()] += 1;
                assert!(obs
                    .determinize_knowing_rack(rack, more_frozen, &mut rng)
                    .is_none());
            }
        }
    }
    assert!(varied > 20, "reserves varied in {varied} positions");
}
