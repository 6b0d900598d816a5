//! Evidence from play (`info::RackEvidence`): the troops that would win, or take a region, at
//! once are computed right, the evidence about a player who takes every immediate win is always
//! true of their real rack, determinizations that trust it deal racks that agree with it, and
//! the odds of passed troops fitted to `greedy`'s games show that it takes the regions it can;
//! each turn's first decision is kept with the board its player's opponent saw, and its odds
//! shape the held tiles of a deal.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use toybattle::bot::greedy::GreedyBot;
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::Player;
use toybattle::info::{EvidenceTracker, Observation, RackBelief, RackEvidence};
use toybattle::rules::{
    random_decision, Colour, Deal, Decision, DecisionList, Game, Phase, State, Troop, TroopCounts,
    Variant, WhatIf, WinType,
};
use toybattle::terrain::builtin_terrains;
use toybattle::train::{ChoiceData, PassedData};

fn games() -> impl Iterator<Item = Game> {
    builtin_terrains()
        .iter()
        .map(|t| Game::builtin(&t.key, Variant::Normal).unwrap())
}

/// How some legal placement of `troop` wins the game at once for the active player (an HQ
/// capture or on medals), if one does.
fn placement_win(game: &Game, s: &State, troop: Troop) -> Option<WinType> {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    list.iter().find_map(|&d| {
        let mut after = *s;
        game.apply_legal(&mut after, d);
        let outcome = after.outcome()?;
        let wins = outcome.winner == s.active() && outcome.win != WinType::Blocked;
        (matches!(d, Decision::Place { troop: t, .. } if t == troop) && wins).then_some(outcome.win)
    })
}

/// Every terrain in both variants, and with a medal objective of 3 (a what-if) so that wins on
/// medals come often.
fn games_with_what_ifs() -> impl Iterator<Item = Game> {
    let low = WhatIf {
        objective: Some(3),
        ..WhatIf::RETAIL
    };
    builtin_terrains().iter().flat_map(move |t| {
        [Variant::Normal, Variant::Beginner]
            .into_iter()
            .map(|v| Game::builtin(&t.key, v).unwrap())
            .chain([Game::builtin(&t.key, Variant::Normal)
                .unwrap()
                .with_what_if(low)
                .unwrap()])
    })
}

/// On random positions of all eight terrains, in both variants and with a low medal objective,
/// a troop the active player holds unfrozen is among the winning troops exactly when one of its
/// legal placements wins at once (R10.1, R8.5). `Game::winning_troops` reads the winning nodes
/// off the board; this test plays every legal placement instead.
#[test]
fn winning_troops_are_those_whose_placement_wins_at_once() {
    let (mut hq, mut medals) = (0, 0);
    for game in games_with_what_ifs() {
        for seed in 0..30 {
            let mut s = game.initial_state(&Deal::from_seed(seed));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            while let Some(d) = random_decision(&game, &s, &mut rng) {
                if s.phase() == Phase::Action {
                    let winning = game.winning_troops(&s);
                    let placeable = s.rack(s.active()).minus(&s.frozen(s.active())).unwrap();
                    for t in Troop::ALL.into_iter().filter(|&t| placeable.get(t) > 0) {
                        let listed = winning >> t.index() & 1 == 1;
                        let win = placement_win(&game, &s, t);
                        assert_eq!(listed, win.is_some(), "{t} {s:?}");
                        hq += u32::from(win == Some(WinType::Hq));
                        medals += u32::from(win == Some(WinType::Medals));
                    }
                } else {
                    assert_eq!(game.winning_troops(&s), 0, "only for the action");
                }
                game.apply_legal(&mut s, d);
            }
        }
    }
    assert!(
        hq > 50 && medals > 50,
        "winning tiles held: {hq} by HQ, {medals} on medals"
    );
}

/// Whether some legal placement of `troop` takes a region (brings medals) or wins at once for
/// the active player.
fn placement_takes(game: &Game, s: &State, troop: Troop) -> bool {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    let p = s.active();
    list.iter().any(|&d| {
        let mut after = *s;
        game.apply_legal(&mut after, d);
        let wins = after
            .outcome()
            .is_some_and(|o| o.winner == p && o.win != WinType::Blocked);
        let takes = after.medals(p) > s.medals(p) || wins;
        matches!(d, Decision::Place { troop: t, .. } if t == troop) && takes
    })
}

/// On random positions of all eight terrains, in both variants and with a low medal objective,
/// a troop the active player holds unfrozen is among the region troops exactly when one of its
/// legal placements takes a region or an enemy HQ at once (R6.2, R8, R10.1); the winning
/// troops are among them.
#[test]
fn region_troops_are_those_whose_placement_takes_a_region_at_once() {
    let mut takes = 0;
    for game in games_with_what_ifs() {
        for seed in 0..20 {
            let mut s = game.initial_state(&Deal::from_seed(seed));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            while let Some(d) = random_decision(&game, &s, &mut rng) {
                let region = game.region_troops(&s);
                assert_eq!(game.winning_troops(&s) & !region, 0, "{s:?}");
                if s.phase() == Phase::Action {
                    let placeable = s.rack(s.active()).minus(&s.frozen(s.active())).unwrap();
                    for t in Troop::ALL.into_iter().filter(|&t| placeable.get(t) > 0) {
                        let listed = region >> t.index() & 1 == 1;
                        assert_eq!(listed, placement_takes(&game, &s, t), "{t} {s:?}");
                        takes += u32::from(listed);
                    }
                } else {
                    assert_eq!(region, 0, "only for the action");
                }
                game.apply_legal(&mut s, d);
            }
        }
    }
    assert!(takes > 100, "region-taking tiles held: {takes}");
}

/// Hidden rack tiles of `c` (rack less its public tiles) of troops outside `barred`.
fn unbarred_hidden(s: &State, c: Colour, barred: u8) -> u8 {
    let hidden = s.rack(c).minus(&s.public_rack(c)).unwrap();
    Troop::ALL
        .into_iter()
        .filter(|t| barred >> t.index() & 1 == 0)
        .map(|t| hidden.get(t))
        .sum()
}

/// Every state of a `greedy` against `greedy` game (greedy takes every immediate win), with
/// the evidence the tracker holds there.
fn greedy_game(game: &Game, seed: u64) -> Vec<(State, EvidenceTracker)> {
    let greedy = || Player::Fair(Box::new(GreedyBot::new("greedy")));
    let (mut blue, mut red) = (greedy(), greedy());
    let deal = Deal::from_seed(seed);
    let record = play_game(
        game,
        &deal,
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    )
    .record;
    let mut s = game.initial_state(&deal);
    let mut tracker = EvidenceTracker::new(game, &s);
    let mut out = vec![(s, tracker)];
    for step in &record.steps {
        let before = s;
        let d = Decision::parse(step, game.terrain()).unwrap();
        game.apply(&mut s, d).unwrap();
        tracker.step(game, &before, d, &s);
        out.push((s, tracker));
    }
    out
}

/// Against players that never miss an immediate win the evidence is always true: at least
/// `held` of a player's hidden rack tiles are of troops it does not bar.
#[test]
fn evidence_about_players_who_take_every_win_is_true() {
    let mut informative = 0;
    for game in games() {
        for seed in 0..4 {
            for (s, tracker) in greedy_game(&game, seed) {
                for c in Colour::BOTH {
                    let e = tracker.about(c);
                    assert!(
                        unbarred_hidden(&s, c, e.barred()) >= e.held(),
                        "{e:?} {s:?}"
                    );
                    informative += (e.barred() != 0 && e.held() > 0) as u32;
                }
            }
        }
    }
    assert!(informative > 5, "{informative} states with evidence");
}

/// Passed troops are shown only after a turn that took no medal, are never barred ones, and
/// show up in `greedy`'s games.
#[test]
fn passed_troops_are_shown_after_a_turn_without_medals() {
    let mut shown = 0;
    for game in games() {
        for seed in 0..4 {
            let states = greedy_game(&game, seed);
            let mut turn_start = states[0].0;
            for pair in states.windows(2) {
                let ((before, _), (after, tracker)) = (&pair[0], &pair[1]);
                if after.turn() == before.turn() {
                    continue;
                }
                let previous = after.active().opponent();
                let e = tracker.about(previous);
                assert_eq!(e.passed() & e.barred(), 0, "{e:?}");
                if after.phase() == Phase::Action && e.passed() != 0 {
                    assert_eq!(after.medals(previous), turn_start.medals(previous), "{e:?}");
                    assert_eq!(game.region_troops(&turn_start) & !e.barred(), e.passed());
                    shown += 1;
                }
                turn_start = *after;
            }
        }
    }
    assert!(shown > 5, "{shown} turns showed passed troops");
}

/// After every turn of random games on every terrain, the evidence about its player keeps the
/// turn's first decision and the turn's start as their opponent saw it; two deals that differ
/// only in that player's hidden tiles give the same evidence.
#[test]
fn each_turns_first_decision_is_kept_with_the_board_the_opponent_saw() {
    let mut kept = 0;
    for game in games() {
        for seed in 0..3 {
            let deal = Deal::from_seed(seed);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut s = game.initial_state(&deal);
            let mut referee = toybattle::rules::Referee::new(deal);
            let mut tracker = EvidenceTracker::new(&game, &s);
            let mut expected: Option<(Colour, Observation, Decision)> = None;
            let mut turn_start = Some(s);
            while !s.is_over() && s.turn() < 200 {
                let d = match s.is_chance() {
                    true => referee.resolve(&game, &s),
                    false => random_decision(&game, &s, &mut rng).unwrap(),
                };
                if let Some(start) = turn_start.take() {
                    let p = start.active();
                    let seen = Observation::new(&start, p.opponent());
                    // Another deal of p's hidden tiles, the same to the opponent's eyes, is
                    // tracked alike.
                    let other = seen.determinize(&mut rng);
                    assert_eq!(
                        EvidenceTracker::new(&game, &other),
                        EvidenceTracker::new(&game, &start)
                    );
                    expected = Some((p, seen, d));
                }
                let before = s;
                game.apply(&mut s, d).unwrap();
                tracker.step(&game, &before, d, &s);
                if s.turn() != before.turn() && s.phase() == Phase::Action {
                    let (p, seen, d) = expected.take().expect("a turn began");
                    let about = tracker.about(p);
                    let choice = about.choice().expect("a choice kept");
                    assert_eq!(choice.decision, d);
                    assert_eq!(Observation::new(&choice.view, p.opponent()), seen);
                    kept += 1;
                    turn_start = Some(s);
                }
            }
        }
    }
    assert!(kept > 100, "{kept} turns");
}

/// A belief with odds for the held tiles deals them accordingly: a troop at odds near 0 is
/// almost never among them, while the deals stay consistent with the observation; odds of 1
/// deal as the plain belief does.
#[test]
fn the_odds_of_held_tiles_shape_the_dealt_rack() {
    let game = Game::builtin("tropical_pool", Variant::Normal).unwrap();
    let (mut checked, mut rare, mut plain) = (0, 0u32, 0u32);
    for (s, tracker) in greedy_game(&game, 5) {
        if s.is_chance() || s.is_over() {
            continue;
        }
        let me = s.active();
        let e = tracker.about(me.opponent());
        if e.held() == 0 {
            continue;
        }
        let obs = Observation::new(&s, me).with_evidence(e);
        // The troop most unseen, so that a plain deal often holds it.
        let unseen = obs.unseen(me.opponent());
        let troop = Troop::ALL
            .into_iter()
            .max_by_key(|&t| unseen.get(t))
            .unwrap();
        let mut odds = [1.0; 8];
        odds[troop.index()] = 0.0;
        let (mut a, mut b) = (
            Xoshiro256PlusPlus::seed_from_u64(7),
            Xoshiro256PlusPlus::seed_from_u64(7),
        );
        for _ in 0..40 {
            let shaped = obs.determinize_with(&RackBelief::UNIFORM.with_held_odds(odds), &mut a);
            assert_eq!(Observation::new(&shaped, me).with_evidence(e), obs);
            rare += u32::from(shaped.rack(me.opponent()).get(troop));
            let uniform = RackBelief::UNIFORM.with_held_odds([1.0; 8]);
            let dealt = obs.determinize_with(&uniform, &mut b);
            plain += u32::from(dealt.rack(me.opponent()).get(troop));
        }
        checked += 1;
    }
    assert!(checked > 5, "{checked} positions");
    assert!(
        rare * 2 < plain,
        "troop dealt {rare} times at odds 0, {plain} at 1"
    );
}

/// `greedy` records of every terrain, from deals `0..seeds`, added to both evidence fits.
fn greedy_evidence(seeds: u64) -> (PassedData, ChoiceData) {
    let (mut passed, mut choice) = (PassedData::new(), ChoiceData::new());
    for game in games() {
        for seed in 0..seeds {
            let greedy = || Player::Fair(Box::new(GreedyBot::new("greedy")));
            let (mut blue, mut red) = (greedy(), greedy());
            let deal = Deal::from_seed(seed);
            let seats: &mut [&mut Player; 2] = &mut [&mut blue, &mut red];
            let record = play_game(&game, &deal, seats, &PlayConfig::default()).record;
            passed.add_record(&game, &record).unwrap();
            choice.add_record(&game, &record).unwrap();
        }
    }
    (passed, choice)
}

/// `greedy` takes the regions it can, and picks its placement much as the policy model
/// scores them: fitted to its games, the odds that a tile it held through a turn that passed
/// a region is of a troop that would have taken it are well below 1 (0.34 over these 320
/// games; `strong` holds them as often as other troops, results/learning.md), and the policy's
/// odds read from its choices (`train::choice`) predict the tiles it kept better than none.
#[test]
fn the_evidence_fits_find_how_greedy_chooses() {
    let (passed, choice) = greedy_evidence(40);
    let fit = passed.fit(0);
    assert!(passed.len() > 100, "{} positions", passed.len());
    assert!(fit.odds < 0.6 && fit.gain > 0.0, "{fit:?}");
    let fit = choice.fit(0);
    assert!(choice.len() > 1000, "{} positions", choice.len());
    assert!(fit.beta > 0.3 && fit.gain > 0.01, "{fit:?}");
}

/// A belief that trusts the evidence deals the held tiles from troops it does not bar, and
/// keeps everything the observer knows; one that does not trust it ignores it.
#[test]
fn trusted_evidence_shapes_the_opponents_dealt_rack() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let trusting = RackBelief::UNIFORM.trusting_evidence();
    let (mut checked, mut ignored) = (0, 0);
    for game in games() {
        for (s, tracker) in greedy_game(&game, 1) {
            if s.is_over() {
                continue;
            }
            let me = s.active();
            let e = tracker.about(me.opponent());
            let obs = Observation::new(&s, me).with_evidence(e);
            assert_eq!(obs.opponent_evidence(), e);
            for _ in 0..20 {
                let d = obs.determinize_with(&trusting, &mut rng);
                assert_eq!(Observation::new(&d, me).with_evidence(e), obs);
                assert_eq!(d.tile_census(me.opponent()), TroopCounts::FULL);
                assert!(unbarred_hidden(&d, me.opponent(), e.barred()) >= e.held());
                let u = obs.determinize(&mut rng);
                ignored += (unbarred_hidden(&u, me.opponent(), e.barred()) < e.held()) as u32;
            }
            checked += (e.held() > 0) as u32;
        }
    }
    assert!(checked > 5, "{checked} positions with evidence");
    assert!(ignored > 0, "the plain deal breaks the evidence sometimes");
}

/// No evidence changes nothing: a trusting belief deals as the plain one, sample for sample.
#[test]
fn without_evidence_a_trusting_belief_deals_as_before() {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let s = game.initial_state(&Deal::from_seed(2));
    let obs = Observation::new(&s, s.active());
    assert_eq!(obs.opponent_evidence(), RackEvidence::NONE);
    let mut a = Xoshiro256PlusPlus::seed_from_u64(4);
    let mut b = Xoshiro256PlusPlus::seed_from_u64(4);
    for _ in 0..50 {
        assert_eq!(
            obs.determinize(&mut a),
            obs.determinize_with(&RackBelief::UNIFORM.trusting_evidence(), &mut b)
        );
    }
}
