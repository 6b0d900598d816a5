use super::*;
use crate::bot::greedy::Horizon;
use crate::bot::play::{play_game, PlayConfig};
use crate::info::RackEvidence;
use crate::rules::{random_decision, sample_chance, Colour, Deal, Referee, Variant, WinType};
use crate::terrain::builtin_terrains;

const ALL: [Algorithm; 4] = [
    Algorithm::FlatMc,
    Algorithm::Pimc,
    Algorithm::Ismcts,
    Algorithm::CheatUct,
];

fn small() -> SearchConfig {
    SearchConfig {
        determinizations: 4,
        ..SearchConfig::default()
    }
}

fn game_of(key: &str) -> Game {
    Game::builtin(key, Variant::Normal).unwrap_or_else(|e| panic!("{e}"))
}

/// The referee's states at every player decision of a game of uniformly random decisions on the
/// deal of `seed`.
fn random_game_positions(game: &Game, seed: u64) -> Vec<State> {
    let deal = Deal::from_seed(seed);
    let mut s = game.initial_state(&deal);
    let mut referee = Referee::new(deal);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    while !s.is_over() && s.turn() < 300 {
        let d = if s.is_chance() {
            referee.resolve(game, &s)
        } else {
            out.push(s);
            match random_decision(game, &s, &mut rng) {
                Some(d) => d,
                None => break,
            }
        };
        game.apply_legal(&mut s, d);
    }
    out
}

fn decide(game: &Game, s: &State, algorithm: Algorithm, config: &SearchConfig, n: u64) -> Choice {
    let mut player = make_player("test", algorithm, config);
    player.decide(game, s, RackEvidence::NONE, Budget::iterations(n), 42)
}

fn legal_of(game: &Game, s: &State) -> DecisionList {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    list
}

/// Whether `d` wins the game at once for the player making it.
fn wins_now(game: &Game, s: &State, d: Decision) -> Option<WinType> {
    let mut after = *s;
    game.apply_legal(&mut after, d);
    after
        .outcome()
        .filter(|o| o.winner == s.active())
        .map(|o| o.win)
}

/// Checks a choice: legal, consistent with its analysis, no chance outcome among candidates.
fn check_choice(game: &Game, s: &State, choice: &Choice, iterations: u64) {
    assert!(game.is_legal(s, choice.decision), "{:?}", choice.decision);
    if legal_of(game, s).len() == 1 {
        return; // forced: no search
    }
    let analysis = choice
        .analysis
        .as_ref()
        .expect("a search reports its analysis");
    if matches!(
        wins_now(game, s, choice.decision),
        Some(WinType::Hq | WinType::Medals)
    ) {
        return; // a win at once is taken without search
    }
    assert_eq!(analysis.iterations, iterations);
    assert_eq!(analysis.candidates[0].decision, choice.decision);
    let visits: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
    assert!(visits <= iterations && visits > 0);
    for pair in analysis.candidates.windows(2) {
        assert!(pair[0].visits >= pair[1].visits);
    }
    for c in &analysis.candidates {
        assert!(!c.decision.is_chance(), "chance outcome among candidates");
        assert!(game.is_legal(s, c.decision));
        assert!((0.0..=1.0).contains(&c.value));
    }
}

#[test]
fn every_algorithm_decides_legally_on_every_terrain() {
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, 7);
        for &k in &[0, positions.len() / 3, positions.len() * 2 / 3] {
            let s = positions[k];
            for algorithm in ALL {
                let choice = decide(&game, &s, algorithm, &small(), 120);
                check_choice(&game, &s, &choice, 120);
            }
        }
    }
}

#[test]
fn same_seed_same_decision_with_one_and_two_threads() {
    let game = game_of("castle_field");
    let positions = random_game_positions(&game, 3);
    let s = positions[positions.len() / 2];
    for threads in [1, 2] {
        let config = SearchConfig { threads, ..small() };
        for algorithm in ALL {
            let a = decide(&game, &s, algorithm, &config, 300);
            let b = decide(&game, &s, algorithm, &config, 300);
            assert_eq!(a, b, "{algorithm:?} with {threads} threads");
            check_choice(&game, &s, &a, 300);
        }
    }
}

#[test]
fn same_observation_same_decision() {
    let game = game_of("city_of_clouds");
    let positions = random_game_positions(&game, 11);
    let s1 = positions[positions.len() / 2];
    let me = s1.active();
    let observation = Observation::new(&s1, me);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let s2 = (0..100)
        .map(|_| observation.determinize(&mut rng))
        .find(|s2| *s2 != s1)
        .expect("hidden tiles allow another true state");
    assert_eq!(Observation::new(&s2, me), observation);
    for algorithm in [Algorithm::FlatMc, Algorithm::Pimc, Algorithm::Ismcts] {
        let a = decide(&game, &s1, algorithm, &small(), 200);
        let b = decide(&game, &s2, algorithm, &small(), 200);
        assert_eq!(a, b, "{algorithm:?}");
    }
}

/// The first position of random games on `terrain` where `pick` holds.
fn find_position(terrain: &str, pick: impl Fn(&Game, &State) -> bool) -> (Game, State) {
    let game = game_of(terrain);
    for seed in 0..500 {
        if let Some(s) = random_game_positions(&game, seed)
            .into_iter()
            .find(|s| pick(&game, s))
        {
            return (game, s);
        }
    }
    panic!("no such position in 500 random games on {terrain}");
}

/// A Tropical Pool position whose only immediate wins are on medals.
fn medal_win_position() -> (Game, State) {
    find_position("tropical_pool", |g, s| {
        has_win(g, s, WinType::Medals)
            && !has_win(g, s, WinType::Hq)
            && !has_win(g, s, WinType::Blocked)
    })
}

fn has_win(game: &Game, s: &State, win: WinType) -> bool {
    legal_of(game, s)
        .iter()
        .any(|&d| wins_now(game, s, d) == Some(win))
}

#[test]
fn an_available_hq_capture_is_taken() {
    let (game, s) = find_position("castle_field", |g, s| has_win(g, s, WinType::Hq));
    for algorithm in ALL {
        let choice = decide(&game, &s, algorithm, &small(), 1000);
        assert!(
            wins_now(&game, &s, choice.decision).is_some(),
            "{algorithm:?} chose {:?}",
            choice.decision
        );
    }
}

#[test]
fn a_region_that_wins_on_medals_is_taken() {
    let (game, s) = medal_win_position();
    for algorithm in ALL {
        let choice = decide(&game, &s, algorithm, &small(), 1000);
        assert_eq!(
            wins_now(&game, &s, choice.decision),
            Some(WinType::Medals),
            "{algorithm:?} chose {:?}",
            choice.decision
        );
    }
}

#[test]
fn a_time_budget_stops_the_search() {
    let game = game_of("castle_field");
    let s = random_game_positions(&game, 1)[4];
    for algorithm in ALL {
        let config = SearchConfig {
            threads: 2,
            ..small()
        };
        let mut player = make_player("timed", algorithm, &config);
        let start = Instant::now();
        let choice = player.decide(
            &game,
            &s,
            RackEvidence::NONE,
            Budget::time(std::time::Duration::from_millis(20)),
            1,
        );
        assert!(start.elapsed().as_millis() < 1000);
        let iterations = choice.analysis.as_ref().map_or(0, |a| a.iterations);
        check_choice(&game, &s, &choice, iterations);
    }
}

/// Score of `algorithm` at `iterations` per decision against the uniformly random bot over
/// `pairs` deals on Castle Field, each played with both seatings.
fn score_against_random(algorithm: Algorithm, iterations: u64, pairs: u64) -> f64 {
    let game = game_of("castle_field");
    let config = PlayConfig {
        max_turns: 300,
        budgets: [Budget::iterations(iterations); 2].into(),
        ..PlayConfig::default()
    };
    let mut score = 0.0;
    for seed in 0..pairs {
        let deal = Deal::from_seed(seed);
        for search_seat in [Colour::Blue, Colour::Red] {
            let mut search = make_player("search", algorithm, &small());
            let mut random = Player::Fair(Box::new(crate::bot::random::RandomBot::new("random")));
            let mut players = match search_seat {
                Colour::Blue => [&mut search, &mut random],
                Colour::Red => [&mut random, &mut search],
            };
            score += match play_game(&game, &deal, &mut players, &config)
                .record
                .result
                .winner
            {
                Some(w) if w == search_seat => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
        }
    }
    score
}

#[test]
fn every_algorithm_beats_the_random_bot() {
    for algorithm in ALL {
        let score = score_against_random(algorithm, 100, 3);
        assert!(
            score >= 5.0,
            "{algorithm:?} scored {score} of 6 against random"
        );
    }
}

#[test]
fn cheat_uct_is_the_only_cheating_player() {
    for algorithm in ALL {
        let player = make_player(algorithm.key(), algorithm, &SearchConfig::default());
        assert_eq!(player.is_cheating(), algorithm == Algorithm::CheatUct);
        assert_eq!(player.name(), algorithm.key());
    }
}

/// Cheat-UCT with `rack_only` is still a cheating player. Its determinizations hold the
/// opponent's true rack but deal the reserves and removed tiles afresh, so an iteration does
/// not see the true state; and it decides legally.
#[test]
fn rack_only_cheat_uct_sees_the_rack_and_deals_the_rest() {
    let game = game_of("battlefield");
    let positions = random_game_positions(&game, 5);
    let s = positions[positions.len() / 3];
    let (me, them) = (s.active(), s.active().opponent());
    assert!(s.reserve_len(them) > 0 && !s.is_chance());
    let config = SearchConfig {
        rack_only: true,
        ..small()
    };
    assert!(make_player("r", Algorithm::CheatUct, &config).is_cheating());
    let seen = Observation::new(&s, me);
    let (rack, frozen) = (s.rack(them), s.frozen(them));
    let root = Root::Observation(&seen, RackDeal::Known { rack, frozen });
    let mut rng = rng_for(1, 0);
    let samples: Vec<State> = (0..20).map(|_| root.sample(&mut rng)).collect();
    assert!(samples
        .iter()
        .all(|d| (d.rack(them), d.frozen(them)) == (rack, frozen)));
    assert!(samples.iter().any(|d| d.reserve(them) != s.reserve(them)));
    let choice = decide(&game, &s, Algorithm::CheatUct, &config, 120);
    check_choice(&game, &s, &choice, 120);
}

/// Every optional search feature switched on.
fn guided() -> SearchConfig {
    SearchConfig {
        playout: PlayoutPolicy::Tactical,
        decisive: true,
        prior: 2.0,
        observed_chance: true,
        rack_belief: true,
        ..small()
    }
}

/// Every algorithm with `config` decides legally in a mid-game position of every terrain (deals
/// of `seed`), and ISMCTS on 2 threads repeats its decision on a Volcanic Jungle position.
fn legal_everywhere_and_deterministic(config: &SearchConfig, seed: u64) {
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, seed);
        let s = positions[positions.len() / 2];
        for algorithm in ALL {
            let choice = decide(&game, &s, algorithm, config, 120);
            check_choice(&game, &s, &choice, 120);
        }
    }
    let game = game_of("volcanic_jungle");
    let positions = random_game_positions(&game, 3);
    let s = positions[positions.len() / 2];
    let config = SearchConfig {
        threads: 2,
        ..config.clone()
    };
    let a = decide(&game, &s, Algorithm::Ismcts, &config, 300);
    assert_eq!(a, decide(&game, &s, Algorithm::Ismcts, &config, 300));
}

#[test]
fn guided_search_is_legal_on_every_terrain_and_deterministic() {
    legal_everywhere_and_deterministic(&guided(), 5);
}

#[test]
fn evaluated_search_is_legal_on_every_terrain_and_deterministic() {
    let evaluated = SearchConfig {
        eval_turns: 2,
        ..small()
    };
    legal_everywhere_and_deterministic(&evaluated, 6);
    let fitted = SearchConfig {
        fitted_eval: true,
        rack_evidence: true,
        ..evaluated
    };
    legal_everywhere_and_deterministic(&fitted, 7);
}

/// Playout weights written out as the hand-set ones (each term once) play exactly as no
/// weights; other weights are legal and deterministic on every terrain.
#[test]
fn playout_weights_of_one_play_as_the_hand_set_sum() {
    let greedy = SearchConfig {
        eval_turns: 2,
        fitted_eval: true,
        playout: PlayoutPolicy::GreedyEffects,
        ..small()
    };
    let ones = SearchConfig {
        playout_weights: vec![1.0; 7],
        ..greedy.clone()
    };
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, 17);
        let s = positions[positions.len() / 2];
        assert_eq!(
            decide(&game, &s, Algorithm::Ismcts, &ones, 200),
            decide(&game, &s, Algorithm::Ismcts, &greedy, 200),
            "{}",
            terrain.key
        );
    }
    let weighted = SearchConfig {
        playout_weights: vec![0.633, 1.967, 4.0, 0.837, 0.805, 0.008, 1.099],
        ..greedy
    };
    legal_everywhere_and_deterministic(&weighted, 18);
}

/// With `policy_prior`, a small search spends its visits where the policy model looks: over
/// mid-game positions of every terrain, the root's visits go to decisions of higher model
/// probability than with the hand-set prior, which is blind to the troop placed.
#[test]
fn the_policy_prior_leads_the_tree_to_the_models_decisions() {
    use crate::model::PolicyModel;
    let model = PolicyModel::shipped();
    let mean_log_probability = |config: &SearchConfig| {
        let (mut sum, mut visits) = (0.0, 0.0);
        for terrain in builtin_terrains() {
            let game = game_of(&terrain.key);
            for s in random_game_positions(&game, 11).iter().step_by(9) {
                let legal = legal_of(&game, s);
                if legal.len() < 2 {
                    continue;
                }
                let tactics = playout::Tactics::new(&game, s);
                let strength = |d: Decision| model.strength(tactics.of(d), d.troop());
                let total: f64 = legal.iter().map(|&d| strength(d)).sum();
                let choice = decide(&game, s, Algorithm::Ismcts, config, 40);
                for c in choice.analysis.expect("a search reports").candidates {
                    sum += c.visits as f64 * (strength(c.decision) / total).ln();
                    visits += c.visits as f64;
                }
            }
        }
        sum / visits
    };
    let hand_set = SearchConfig {
        prior: 2.0,
        ..small()
    };
    let learned = SearchConfig {
        policy_prior: true,
        ..hand_set.clone()
    };
    let (with, without) = (
        mean_log_probability(&learned),
        mean_log_probability(&hand_set),
    );
    assert!(with > without + 0.05, "{with} against {without}");
    legal_everywhere_and_deterministic(&learned, 12);
}

/// ISMCTS with the learned models (the combined evaluation at the playout cut, `value_model`,
/// the policy model as the tree's prior, `policy_prior`, and the rack model dealing the
/// opponent's rack, `rack_model`; the shipped weights) plays whole
/// games on every terrain in both variants: every decision legal (the record replays), every
/// invariant kept, and the same seeds give the same game.
#[test]
fn learned_search_plays_legal_deterministic_games_on_every_terrain_and_variant() {
    let config = SearchConfig {
        eval_turns: 2,
        value_model: true,
        policy_prior: true,
        rack_model: true,
        playout: PlayoutPolicy::GreedyEffects,
        ..small()
    };
    let play = PlayConfig {
        max_turns: 300,
        budgets: [Budget::iterations(40); 2].into(),
        check: true,
    };
    for terrain in builtin_terrains() {
        for variant in [Variant::Normal, Variant::Beginner] {
            let game = Game::builtin(&terrain.key, variant).unwrap();
            let deal = Deal::from_seed(29);
            let game_once = || {
                let mut blue = make_player("blue", Algorithm::Ismcts, &config);
                let mut red = make_player("red", Algorithm::Ismcts, &config);
                play_game(&game, &deal, &mut [&mut blue, &mut red], &play)
            };
            let played = game_once();
            let at = format!("{} {variant:?}", terrain.key);
            assert_eq!(played.violation, None, "{at}");
            crate::record::replay(&game, &played.record).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(played.record.steps, game_once().record.steps, "{at}");
        }
    }
}

/// With `rack_model`, the search deals the opponent's rack with the odds the rack model gives
/// for the root's observation (not the fixed `rack_belief` odds, which it then ignores), and
/// a flat-MC estimate from that observation uses the same belief.
#[test]
fn the_rack_model_sets_the_belief_of_each_decision() {
    use crate::info::Observation;
    use crate::model::RackModel;
    let game = game_of("castle_field");
    let positions = random_game_positions(&game, 13);
    let config = SearchConfig {
        rack_model: true,
        rack_belief: true,
        ..small()
    };
    let beliefs: Vec<_> = [positions[2], positions[positions.len() / 2]]
        .iter()
        .map(|s| {
            let obs = Observation::new(s, s.active());
            let belief = estimate::belief(&config, &game, &obs);
            assert_eq!(belief, RackModel::shipped().belief(&game, &obs));
            belief
        })
        .collect();
    assert_ne!(beliefs[0], beliefs[1]);
    let fixed = SearchConfig {
        rack_model: false,
        ..config
    };
    let obs = Observation::new(&positions[2], positions[2].active());
    assert_eq!(
        estimate::belief(&fixed, &game, &obs),
        RackBelief::new(KEPT_TROOPS).unwrap()
    );
}

/// With `rack_choice`, the held tiles of the opponent are dealt with the odds their latest
/// turn's choice gives, to that power, on top of the fixed odds; without it, or without a held
/// tile, the belief is the fixed one.
#[test]
fn the_opponents_choice_sets_the_odds_of_their_held_tiles() {
    use crate::info::{EvidenceTracker, Observation};
    let game = game_of("battlefield");
    let deal = Deal::from_seed(21);
    let mut s = game.initial_state(&deal);
    let mut referee = Referee::new(deal);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    let mut tracker = EvidenceTracker::new(&game, &s);
    let config = SearchConfig {
        rack_belief: true,
        rack_choice: 0.9,
        ..small()
    };
    let fixed = RackBelief::new(KEPT_TROOPS).unwrap();
    let mut shaped = 0;
    while !s.is_over() && s.turn() < 40 {
        let d = match s.is_chance() {
            true => referee.resolve(&game, &s),
            false => {
                let e = tracker.about(s.active().opponent());
                let obs = Observation::new(&s, s.active()).with_evidence(e);
                let belief = estimate::belief(&config, &game, &obs);
                match held_odds(&game, &e, 0.9) {
                    Some(odds) => {
                        assert!(odds.iter().all(|&o| o > 0.0 && o <= 1.0), "{odds:?}");
                        assert!(odds.iter().any(|&o| o < 1.0), "{odds:?}");
                        assert_eq!(belief, fixed.with_held_odds(odds));
                        shaped += 1;
                    }
                    None => assert_eq!(belief, fixed),
                }
                let off = SearchConfig {
                    rack_choice: 0.0,
                    ..config.clone()
                };
                assert_eq!(estimate::belief(&off, &game, &obs), fixed);
                random_decision(&game, &s, &mut rng).unwrap()
            }
        };
        let before = s;
        game.apply(&mut s, d).unwrap();
        tracker.step(&game, &before, d, &s);
    }
    assert!(shaped > 10, "{shaped} decisions with odds");
}

/// Greedy playouts play the `greedy` rules for each player from that player's side: each judge
/// judges for its own colour, the searcher's from its own observation, and a playout from a
/// position with a medal win takes it at once every time (rule 2), which the heuristic policy,
/// blind to medal wins, does not always do.
#[test]
fn greedy_playouts_play_the_greedy_rules_of_each_player() {
    let (game, s) = medal_win_position();
    let me = s.active();
    let seen = Observation::new(&s, me);
    let judges = greedy_judges(
        &game,
        Root::Observation(&seen, RackDeal::Belief(RackBelief::UNIFORM)),
        4,
    );
    for c in Colour::BOTH {
        assert_eq!(judges[c.index()].me(), c);
    }
    let own = Judge::new(&game, &seen);
    for t in random_game_positions(&game, 2).iter().step_by(7) {
        assert_eq!(judges[me.index()].evaluate(t), own.evaluate(t));
    }
    let ends = |playout: PlayoutPolicy| {
        let config = SearchConfig {
            playout,
            ..SearchConfig::DEFAULT
        };
        let settings = Settings {
            greedy: Some(&judges),
            ..Settings::plain(&game, &config)
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut scratch = playout::Scratch::default();
        (0..40)
            .filter(|_| {
                let mut end = s;
                playout::play_out(&settings, &mut end, &mut scratch, &mut rng);
                end.turn() == s.turn() && end.outcome().map(|o| o.win) == Some(WinType::Medals)
            })
            .count()
    };
    assert_eq!(ends(PlayoutPolicy::Greedy), 40);
    assert_eq!(ends(PlayoutPolicy::GreedyOnce), 40);
    assert_eq!(ends(PlayoutPolicy::GreedyEffects), 40);
    assert!(ends(PlayoutPolicy::Heuristic) < 40);
}

/// A greedy playout asks each player's judge with the candidates played to the end of their
/// turn, a greedy-once playout with each candidate scored at once, a greedy-effects playout at
/// that horizon: each finishes a game exactly as a loop of those calls does, and greedy-effects
/// plays differently from both others. The thread's evaluation cache changes nothing: one
/// scratch serves every playout, each played twice, the second time from a cache that holds
/// its positions, and both end where the loop of fresh judge calls ends.
#[test]
fn greedy_playouts_ask_the_judge_at_their_horizon() {
    let game = game_of("castle_field");
    let by_hand = |judges: &[Judge; 2], s: &State, horizon: Horizon, seed: u64| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut t = *s;
        while !t.is_over() {
            let d = if t.is_chance() {
                sample_chance(&game, &t, &mut rng)
            } else {
                judges[t.active().index()].pick(&t, horizon, &mut rng)
            };
            game.apply_legal(&mut t, d);
        }
        t
    };
    let mut differ = [0; 3];
    let mut scratch = playout::Scratch::default();
    for (k, s) in random_game_positions(&game, 8)
        .iter()
        .step_by(5)
        .enumerate()
    {
        let seen = Observation::new(s, s.active());
        let judges = greedy_judges(
            &game,
            Root::Observation(&seen, RackDeal::Belief(RackBelief::UNIFORM)),
            4,
        );
        let seed = 100 + k as u64;
        let mut ends = [*s; 3];
        for (end, (policy, horizon)) in ends.iter_mut().zip([
            (PlayoutPolicy::Greedy, Horizon::Turn),
            (PlayoutPolicy::GreedyOnce, Horizon::Once),
            (PlayoutPolicy::GreedyEffects, Horizon::Effects),
        ]) {
            let config = SearchConfig {
                playout: policy,
                ..SearchConfig::DEFAULT
            };
            let settings = Settings {
                greedy: Some(&judges),
                ..Settings::plain(&game, &config)
            };
            let want = by_hand(&judges, s, horizon, seed);
            for run in ["first", "second"] {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                *end = *s;
                playout::play_out(&settings, end, &mut scratch, &mut rng);
                assert_eq!(*end, want, "{policy:?} from {s:?}, {run} run");
            }
        }
        differ[0] += usize::from(ends[0] != ends[1]);
        differ[1] += usize::from(ends[2] != ends[0]);
        differ[2] += usize::from(ends[2] != ends[1]);
    }
    assert!(
        differ.iter().all(|&d| d > 0),
        "policies that never played differently: {differ:?}"
    );
}

/// A cut playout stops at the start of a turn of the evaluated player's opponent, `eval_turns`
/// turns on, and its reward is the evaluation read as a probability (hand-set or fitted),
/// mirrored for the other player; a finished game still scores 1 or 0.
#[test]
fn evaluation_cuts_playouts_at_the_opponents_turn_and_scores_them() {
    for fitted in [false, true] {
        check_cut_playouts(fitted);
    }
}

/// The win probability `fitted` or hand-set (scale 200) evaluation gives `judge`'s player.
fn win_probability(judge: &Judge, s: &State, fitted: bool) -> f64 {
    let logit = if fitted {
        let terms = judge.terms(s);
        FITTED_EVAL[0]
            + (0..terms.len())
                .map(|i| f64::from(terms[i]) * FITTED_EVAL[i + 1] / 100.0)
                .sum::<f64>()
    } else {
        f64::from(judge.evaluate(s)) / 200.0
    };
    1.0 / (1.0 + (-logit).exp())
}

fn check_cut_playouts(fitted: bool) {
    let game = game_of("castle_field");
    let s = random_game_positions(&game, 8)[6];
    let observation = Observation::new(&s, s.active());
    let judge = Judge::new(&game, &observation);
    let defaults = SearchConfig::DEFAULT;
    let settings = Settings {
        evaluation: Some(Evaluation {
            game: &game,
            judge: &judge,
            turns: 3,
            scale: 200.0,
            fitted,
            value: None,
        }),
        ..Settings::plain(&game, &defaults)
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut scratch = playout::Scratch::default();
    let mut cut = 0;
    for _ in 0..50 {
        let mut end = s;
        playout::play_out(&settings, &mut end, &mut scratch, &mut rng);
        let reward = playout::Reward::of_state(&settings, &end);
        let (me, them) = (s.active(), s.active().opponent());
        assert!((reward.for_player(me) + reward.for_player(them) - 1.0).abs() < 1e-12);
        match end.outcome() {
            Some(o) => assert_eq!(reward.for_player(o.winner), 1.0),
            None => {
                cut += 1;
                assert_eq!(end.active(), them);
                assert!(end.turn() > s.turn() + 3 && end.turn() <= s.turn() + 5);
                let p = win_probability(&judge, &end, fitted);
                assert!((reward.for_player(me) - p).abs() < 1e-12);
            }
        }
    }
    assert!(cut > 0, "no playout was cut");
}

/// With `value_model`, a cut playout's reward is the combined evaluation: the log-odds of the
/// player to move are the fitted evaluation's (read by the searching player's judge, mirrored)
/// plus the value model's correction from the mover's observation of the cut position.
#[test]
fn the_value_model_corrects_the_fitted_evaluation_from_the_movers_observation() {
    let game = game_of("castle_field");
    let s = random_game_positions(&game, 8)[6];
    let judge = Judge::new(&game, &Observation::new(&s, s.active()));
    let model = crate::model::ValueModel::shipped();
    let defaults = SearchConfig::DEFAULT;
    let settings = Settings {
        evaluation: Some(Evaluation {
            game: &game,
            judge: &judge,
            turns: 3,
            scale: 200.0,
            fitted: true,
            value: Some(model),
        }),
        ..Settings::plain(&game, &defaults)
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut scratch = playout::Scratch::default();
    let (mut cut, mut unlike_fitted) = (0, 0);
    let mut input = crate::model::Input::default();
    for _ in 0..50 {
        let mut end = s;
        playout::play_out(&settings, &mut end, &mut scratch, &mut rng);
        if end.is_over() {
            continue;
        }
        cut += 1;
        let mover = end.active();
        crate::model::encode(&game, &Observation::new(&end, mover), &mut input);
        let fitted = win_probability(&judge, &end, true);
        let fitted_for_mover = match judge.me() == mover {
            true => fitted,
            false => 1.0 - fitted,
        };
        let logit = (fitted_for_mover / (1.0 - fitted_for_mover)).ln();
        let p = 1.0 / (1.0 + (-(logit + f64::from(model.logit(&input)))).exp());
        let reward = playout::Reward::of_state(&settings, &end);
        assert!((reward.for_player(mover) - p).abs() < 1e-9);
        assert!((reward.for_player(mover.opponent()) - (1.0 - p)).abs() < 1e-9);
        unlike_fitted += usize::from((reward.for_player(judge.me()) - fitted).abs() > 1e-6);
    }
    assert!(cut > 0, "no playout was cut");
    assert!(
        unlike_fitted > 0,
        "the value model corrects the fitted evaluation"
    );
}

/// A value model whose output is zero (training's starting point) plays as the fitted
/// evaluation: the combined reward of every cut playout is the fitted one.
#[test]
fn a_value_model_adding_nothing_is_the_fitted_evaluation() {
    let game = game_of("tropical_pool");
    let untrained = crate::model::ValueModel::untrained(4);
    let defaults = SearchConfig::DEFAULT;
    for s in random_game_positions(&game, 6) {
        let judge = Judge::new(&game, &Observation::new(&s, s.active()));
        let evaluation = |value| Evaluation {
            game: &game,
            judge: &judge,
            turns: 2,
            scale: 200.0,
            fitted: true,
            value,
        };
        let combined = Settings {
            evaluation: Some(evaluation(Some(&untrained))),
            ..Settings::plain(&game, &defaults)
        };
        let fitted = Settings {
            evaluation: Some(evaluation(None)),
            ..Settings::plain(&game, &defaults)
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut scratch = playout::Scratch::default();
        for _ in 0..10 {
            let mut end = s;
            playout::play_out(&combined, &mut end, &mut scratch, &mut rng);
            let (a, b) = (
                playout::Reward::of_state(&combined, &end),
                playout::Reward::of_state(&fitted, &end),
            );
            for c in Colour::BOTH {
                assert!((a.for_player(c) - b.for_player(c)).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn tactical_weights_take_a_medal_win_and_defend_the_hq() {
    let (game, s) = find_position("tropical_pool", |g, s| has_win(g, s, WinType::Medals));
    let ctx = playout::Context::new(&game, &s, true);
    for &d in &legal_of(&game, &s) {
        if wins_now(&game, &s, d) == Some(WinType::Medals) {
            assert_eq!(ctx.weight(d), playout::WIN, "{d:?}");
        }
    }
    // The opponent is connected to our HQ and we can cover the tile next to it.
    let threatened = |g: &Game, s: &State| {
        let me = s.active();
        let t = g.terrain();
        let near = t.neighbours_of(t.hqs[me.index()]) & s.board().occupied(me.opponent());
        g.connected_nodes(s, me.opponent()) & t.hqs[me.index()] != 0
            && !has_win(g, s, WinType::Hq)
            && legal_of(g, s)
                .iter()
                .any(|d| matches!(d, Decision::Place { node, .. } if near & node.bit() != 0))
    };
    let (game, s) = find_position("castle_field", threatened);
    let ctx = playout::Context::new(&game, &s, true);
    let plain = playout::Context::new(&game, &s, false);
    let defence = legal_of(&game, &s)
        .into_iter()
        .find(|&d| ctx.tactic(d) == crate::model::Tactic::Defend)
        .expect("a defending placement is among the legal decisions");
    assert!(plain.weight(defence) < ctx.weight(defence));
}

/// An ensemble of trees (`trees`) gives the same decision and analysis whatever the threads
/// that run it, shares the iteration budget out exactly, and `trees = 0` means one per thread.
#[test]
fn an_ensemble_of_trees_does_not_depend_on_the_threads_that_run_it() {
    let game = game_of("city_of_clouds");
    let searched = |s: &State| {
        let c = decide(&game, s, Algorithm::Ismcts, &small(), 10);
        c.analysis.is_some_and(|a| a.iterations > 0)
    };
    let positions = random_game_positions(&game, 5);
    let s = *positions[positions.len() / 3..]
        .iter()
        .find(|s| searched(s))
        .expect("a position that needs a search");
    for algorithm in [Algorithm::Ismcts, Algorithm::FlatMc, Algorithm::CheatUct] {
        let ensemble = |threads, trees| {
            let config = SearchConfig {
                threads,
                trees,
                ..small()
            };
            decide(&game, &s, algorithm, &config, 301)
        };
        let alone = ensemble(1, 3);
        assert_eq!(alone, ensemble(2, 3), "{algorithm:?}");
        assert_eq!(alone, ensemble(3, 3), "{algorithm:?}");
        assert_eq!(
            ensemble(2, 0),
            ensemble(1, 2),
            "{algorithm:?}: 0 = one tree per thread"
        );
        check_choice(&game, &s, &alone, 301);
        let analysis = alone.analysis.expect("a searched decision has an analysis");
        assert_eq!(analysis.iterations, 301, "{algorithm:?}");
    }
}

#[test]
fn greedy_playout_search_is_legal_on_every_terrain_and_deterministic() {
    let greedy = SearchConfig {
        playout: PlayoutPolicy::Greedy,
        eval_turns: 2,
        fitted_eval: true,
        observed_chance: true,
        ..small()
    };
    legal_everywhere_and_deterministic(&greedy, 11);
}

#[test]
fn greedy_once_playout_search_is_legal_on_every_terrain_and_deterministic() {
    let once = SearchConfig {
        playout: PlayoutPolicy::GreedyOnce,
        eval_turns: 2,
        fitted_eval: true,
        observed_chance: true,
        ..small()
    };
    legal_everywhere_and_deterministic(&once, 12);
}

#[test]
fn greedy_effects_playout_search_is_legal_on_every_terrain_and_deterministic() {
    let effects = SearchConfig {
        playout: PlayoutPolicy::GreedyEffects,
        eval_turns: 2,
        fitted_eval: true,
        observed_chance: true,
        ..small()
    };
    legal_everywhere_and_deterministic(&effects, 13);
}

#[test]
fn validate_names_the_bad_field_and_its_range() {
    assert_eq!(SearchConfig::default().validate(), Ok(()));
    let with = |change: fn(&mut SearchConfig)| {
        let mut c = SearchConfig::default();
        change(&mut c);
        c
    };
    let cases = [
        (with(|c| c.exploration = f64::NAN), "exploration"),
        (with(|c| c.exploration = -1.0), "exploration"),
        (with(|c| c.determinizations = 0), "determinizations"),
        (with(|c| c.threads = 0), "threads"),
        (with(|c| c.trees = 4097), "trees"),
        (with(|c| c.max_playout_turns = 0), "max_playout_turns"),
        (with(|c| c.prior = f64::INFINITY), "prior"),
        (with(|c| c.eval_scale = 0.0), "eval_scale"),
    ];
    for (config, field) in cases {
        let err = config.validate().expect_err(field);
        assert_eq!(err.field, field);
        let text = err.to_string();
        assert!(
            text.starts_with(field) && text.contains("expected"),
            "{text}"
        );
    }
}

#[test]
fn config_reads_from_toml_with_defaults_and_refuses_unknown_fields() {
    let c: SearchConfig =
        toml::from_str("playout = \"random\"\nthreads = 2").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.playout, PlayoutPolicy::Random);
    assert_eq!(c.threads, 2);
    assert_eq!(c.exploration, SearchConfig::default().exploration);
    assert!(toml::from_str::<SearchConfig>("explore = 1.0").is_err());
    let a: Algorithm = serde_json::from_str("\"cheat-uct\"").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a, Algorithm::CheatUct);
}

/// `strong`'s search settings (bots/strong.toml) with `threads` threads sharing one tree.
fn shared(threads: usize) -> SearchConfig {
    SearchConfig {
        threads,
        shared_tree: true,
        exploration: 0.4,
        eval_turns: 2,
        fitted_eval: true,
        playout: PlayoutPolicy::GreedyEffects,
        ..guided()
    }
}

/// Two threads on one tree decide legally on every terrain, for ISMCTS and cheat-UCT, under an
/// iteration budget and a time budget, count every iteration once (each descent visits exactly
/// one root decision, so the root's visits add up to the iterations: a visit counted twice
/// would break the sum), and repeat their decision and analysis from the same seed.
#[test]
fn a_shared_tree_counts_every_iteration_once_on_every_terrain() {
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, 13);
        let s = positions[positions.len() / 2];
        for algorithm in [Algorithm::Ismcts, Algorithm::CheatUct] {
            let timed = make_player("timed", algorithm, &shared(2)).decide(
                &game,
                &s,
                RackEvidence::NONE,
                Budget::time(std::time::Duration::from_millis(15)),
                1,
            );
            let counted = decide(&game, &s, algorithm, &shared(2), 400);
            assert_eq!(counted, decide(&game, &s, algorithm, &shared(2), 400));
            for (choice, iterations) in [(counted, Some(400)), (timed, None)] {
                let Some(analysis) = choice.analysis.as_ref().filter(|a| a.iterations > 0) else {
                    continue; // forced or won at once: no search
                };
                let n = iterations.unwrap_or(analysis.iterations);
                check_choice(&game, &s, &choice, n);
                let visits: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
                assert_eq!(visits, n, "{algorithm:?} on {}", terrain.key);
            }
        }
    }
}

/// On one thread a shared tree is the plain tree: the same decision and analysis.
#[test]
fn a_shared_tree_on_one_thread_is_the_plain_tree() {
    let game = game_of("cursed_cemetery");
    let positions = random_game_positions(&game, 2);
    let s = positions[positions.len() / 2];
    let plain = SearchConfig {
        shared_tree: false,
        ..shared(1)
    };
    let a = decide(&game, &s, Algorithm::Ismcts, &shared(1), 500);
    assert_eq!(a, decide(&game, &s, Algorithm::Ismcts, &plain, 500));
}

/// A search's threads run at once even when its caller runs on a one-thread rayon pool, as a
/// tournament at concurrency 1 does: thread 0 waits for a word from thread 1, which it would
/// never get if they took turns on one thread.
#[test]
fn the_threads_of_a_search_run_at_once_inside_a_one_thread_pool() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool of one thread");
    let word = AtomicBool::new(false);
    let heard = pool.install(|| {
        on_threads(2, |t| {
            if t == 1 {
                word.store(true, Ordering::SeqCst);
                return true;
            }
            let start = Instant::now();
            while start.elapsed().as_secs() < 5 {
                if word.load(Ordering::SeqCst) {
                    return true;
                }
                std::thread::yield_now();
            }
            false
        })
    });
    assert_eq!(heard, vec![true, true]);
}

/// `stop_when_decided`: on positions of every terrain, one tree (ISMCTS on one thread and on a
/// shared tree of two, cheat-UCT, PIMC of one determinization) chooses what the whole budget
/// chooses; where it stopped sooner, it stopped on a check and its choice led by more visits
/// than the iterations it left; some searches stop sooner; an ensemble of trees runs its budget.
#[test]
fn a_search_stopping_when_decided_chooses_what_the_whole_budget_chooses() {
    let budget = 640;
    let one_determinization = SearchConfig {
        determinizations: 1,
        ..shared(1)
    };
    let searches = [
        (Algorithm::Ismcts, shared(1)),
        (Algorithm::Ismcts, shared(2)),
        (Algorithm::CheatUct, shared(1)),
        (Algorithm::Pimc, one_determinization),
    ];
    let mut sooner = 0;
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, 21);
        for s in positions.iter().step_by(positions.len() / 6 + 1) {
            for (algorithm, config) in &searches {
                let decided = SearchConfig {
                    stop_when_decided: true,
                    ..config.clone()
                };
                let whole = decide(&game, s, *algorithm, config, budget);
                let soon = decide(&game, s, *algorithm, &decided, budget);
                assert_eq!(
                    soon.decision, whole.decision,
                    "{algorithm:?} on {}",
                    terrain.key
                );
                let Some(analysis) = soon.analysis.as_ref().filter(|a| a.iterations > 0) else {
                    continue; // forced or won at once: no search
                };
                let n = analysis.iterations;
                check_choice(&game, s, &soon, n);
                if n < budget {
                    sooner += 1;
                    assert_eq!(n % 64, 0, "stopped between checks");
                    let c = &analysis.candidates;
                    let second = c.get(1).map_or(0, |c| c.visits);
                    assert!(
                        c[0].visits > second + (budget - n),
                        "stopped undecided: {c:?}"
                    );
                }
            }
        }
    }
    assert!(sooner > 10, "only {sooner} searches stopped sooner");
    let game = game_of("castle_field");
    let positions = random_game_positions(&game, 21);
    let ensemble = SearchConfig {
        trees: 2,
        stop_when_decided: true,
        ..shared(1)
    };
    let shared_off = SearchConfig {
        shared_tree: false,
        ..ensemble
    };
    for s in &positions {
        let choice = decide(&game, s, Algorithm::Ismcts, &shared_off, budget);
        if let Some(a) = choice.analysis.filter(|a| a.iterations > 0) {
            assert_eq!(
                a.iterations, budget,
                "an ensemble's trees are summed: none stops alone"
            );
        }
    }
}

/// A `decided_factor` above 1 stops a search at a check once the leader's lead exceeds the
/// iterations left divided by the factor: never later than the exact stop, and sooner on some
/// positions; where both stop at once they choose alike, each its most visited decision.
#[test]
fn a_decided_factor_stops_sooner_on_a_smaller_lead() {
    let budget = 1280;
    let searches = [
        (Algorithm::Ismcts, shared(1)),
        (Algorithm::Ismcts, shared(2)),
    ];
    let mut sooner = 0;
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let positions = random_game_positions(&game, 23);
        for s in positions.iter().step_by(positions.len() / 6 + 1) {
            for (algorithm, config) in &searches {
                let exact = SearchConfig {
                    stop_when_decided: true,
                    ..config.clone()
                };
                let factor = SearchConfig {
                    decided_factor: 2.0,
                    ..exact.clone()
                };
                let whole = decide(&game, s, *algorithm, &exact, budget);
                let soon = decide(&game, s, *algorithm, &factor, budget);
                let (Some(w), Some(a)) = (&whole.analysis, &soon.analysis) else {
                    continue;
                };
                if a.iterations == 0 {
                    continue; // forced or won at once: no search
                }
                let n = a.iterations;
                check_choice(&game, s, &soon, n);
                assert!(
                    n <= w.iterations,
                    "{} stopped later than {}",
                    n,
                    w.iterations
                );
                if n == w.iterations {
                    assert_eq!(soon.decision, whole.decision, "{}", terrain.key);
                    continue;
                }
                sooner += 1;
                assert_eq!(n % 64, 0, "stopped between checks");
                let c = &a.candidates;
                let second = c.get(1).map_or(0, |c| c.visits);
                assert!(
                    c[0].visits > second + (budget - n).div_ceil(2),
                    "stopped on too small a lead: {c:?}"
                );
            }
        }
    }
    assert!(sooner > 5, "only {sooner} searches stopped sooner");
}

/// Whole games of `strong`'s settings (at a smaller budget) are the same with
/// `stop_when_decided`: every decision of both players, on every terrain.
#[test]
fn games_stopping_when_decided_are_the_games_of_the_whole_budget() {
    let play = PlayConfig {
        max_turns: 300,
        budgets: [Budget::iterations(512); 2].into(),
        check: true,
    };
    let whole = shared(1);
    let decided = SearchConfig {
        stop_when_decided: true,
        ..whole.clone()
    };
    for terrain in builtin_terrains() {
        let game = game_of(&terrain.key);
        let deal = Deal::from_seed(31);
        let game_with = |config: &SearchConfig| {
            let mut blue = make_player("blue", Algorithm::Ismcts, config);
            let mut red = make_player("red", Algorithm::Ismcts, config);
            play_game(&game, &deal, &mut [&mut blue, &mut red], &play)
        };
        let (a, b) = (game_with(&whole), game_with(&decided));
        assert_eq!(b.violation, None, "{}", terrain.key);
        assert_eq!(a.record.steps, b.record.steps, "{}", terrain.key);
    }
}
