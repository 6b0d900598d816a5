//! A player's chance to win, read from their observation alone by one search, at any moment of
//! the game: the win estimate of the game review, the session's win history and its hint.
//!
//! When the observer has a decision to make (more than one legal decision), the estimate is the
//! search's value of the decision it would take, so it is the figure a hint shows for its best
//! candidate under the same seed and budget. At any other moment (the opponent to decide, a
//! chance event pending, a forced decision) no tree of the observer's decisions can be grown
//! from their observation, so the estimate is the mean reward of playouts from determinizations
//! of the observation: the same playout policy, evaluation cut and rack belief as the search.

use super::choice::held_odds;
use super::playout::{play_out, Evaluation, Reward, Scratch};
use super::{
    make_player, rng_for, Algorithm, PlayoutPolicy, SearchConfig, Settings, Stop,
    DEFAULT_ITERATIONS, KEPT_TROOPS,
};
use crate::bot::greedy::Judge;
use crate::bot::{Budget, Player, Request};
use crate::info::{Observation, RackBelief};
use crate::rules::{Colour, DecisionList, Game, State};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The observer's win probability (0 to 1) now, from `observation` only: 1 or 0 once the game
/// is over; the value of the decision `algorithm` would take under `config` and `budget` when
/// the observer decides; otherwise the mean of playouts (see the module documentation). The
/// same seed, iteration budget and observation give the same figure. With `cancel` set the
/// estimate stops early and reads what it has (at least one iteration).
pub fn win_probability(
    game: &Game,
    observation: &Observation,
    algorithm: Algorithm,
    config: &SearchConfig,
    budget: Budget,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> f64 {
    let request = Request {
        game,
        observation,
        budget,
        seed,
        cancel,
    };
    match root_analysis(&request, algorithm, config).and_then(|a| a.candidates.into_iter().next()) {
        Some(best) => best.value,
        None => playout_mean(game, observation, config, budget, seed, cancel),
    }
}

/// The mean reward of every iteration of an ISMCTS search under `config` from `observation`,
/// for its observer; with one legal decision or none, [`playout_mean`] under the same
/// settings. The target of `train`'s search-judged cut positions.
///
/// Not [`win_probability`], the value of the decision the search would take: that is the
/// largest of the decisions' means, and as a training target it leaned 0.17 towards the
/// player to move on average (results/learning.md, twenty-seventh round). The mean of all
/// iterations weighs each decision by how much the search believed in it.
pub fn root_value(
    game: &Game,
    observation: &Observation,
    config: &SearchConfig,
    budget: Budget,
    seed: u64,
) -> f64 {
    let request = Request {
        game,
        observation,
        budget,
        seed,
        cancel: None,
    };
    let Some(analysis) = root_analysis(&request, Algorithm::Ismcts, config) else {
        return playout_mean(game, observation, config, budget, seed, None);
    };
    let visits: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
    let reward: f64 = analysis
        .candidates
        .iter()
        .map(|c| c.visits as f64 * c.value)
        .sum();
    // A decision winning at once is found without iterations: its value is 1.
    match visits {
        0 => analysis.candidates.first().map_or(0.5, |c| c.value),
        n => reward / n as f64,
    }
}

/// What a search by `algorithm` under `config` finds for the observer of `request`, when they
/// have a decision to make (more than one legal decision) and the search is a fair one.
fn root_analysis(
    request: &Request,
    algorithm: Algorithm,
    config: &SearchConfig,
) -> Option<crate::bot::Analysis> {
    // A finished game has no legal decision, and its playout mean is its outcome.
    let mut legal = DecisionList::new();
    request
        .observation
        .legal_decisions(request.game, &mut legal);
    if legal.len() <= 1 || algorithm == Algorithm::CheatUct {
        return None;
    }
    match make_player("estimate", algorithm, config) {
        Player::Fair(mut bot) => bot.decide(request).analysis,
        _ => None,
    }
}

/// The belief about the opponent's rack a search under `config` deals with from `observation`.
pub(super) fn belief(config: &SearchConfig, game: &Game, observation: &Observation) -> RackBelief {
    let belief = match (config.rack_model(), config.rack_belief) {
        (Some(model), _) => model.belief(game, observation),
        (None, true) => RackBelief::new(KEPT_TROOPS).expect("weights in range"),
        (None, false) => RackBelief::UNIFORM,
    };
    let belief = match config.rack_evidence {
        true => belief.trusting_evidence(),
        false => belief,
    };
    let evidence = observation.opponent_evidence();
    let odds = (config.rack_choice > 0.0)
        .then(|| held_odds(game, &evidence, config.rack_choice))
        .flatten();
    match odds {
        Some(odds) => belief.with_held_odds(odds),
        None => belief,
    }
}

/// The observer's mean reward over `budget` playouts under `config` from determinizations of
/// their observation, without a search: a figure of the same kind whoever is to decide (a
/// search value exists only for the player deciding). 1 or 0 once the game is over.
pub fn playout_mean(
    game: &Game,
    observation: &Observation,
    config: &SearchConfig,
    budget: Budget,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> f64 {
    if let Some(o) = observation.view().outcome() {
        return f64::from(u8::from(o.winner == observation.observer()));
    }
    let config = &config.clamped();
    let me = observation.observer();
    let stop = Stop {
        iterations: budget
            .iterations
            .unwrap_or(match budget.time {
                Some(_) => u64::MAX,
                None => DEFAULT_ITERATIONS,
            })
            .max(1),
        deadline: budget.time.map(|t| Instant::now() + t),
        cancel,
        until_decided: None,
    };
    with_playouts(game, observation, config, seed, |settings, belief, rng| {
        let mut scratch = Scratch::default();
        let (mut done, mut sum) = (0u64, 0.0);
        while !stop.reached(done) {
            let mut s = observation.determinize_with(belief, rng);
            play_out(settings, &mut s, &mut scratch, rng);
            sum += Reward::of_state(settings, &s).for_player(me);
            done += 1;
        }
        sum / done as f64
    })
}

/// Where one playout of a search under `config` by the observer would stop: a determinization
/// of `observation` played on by the search's playout policy to its evaluation cut
/// (`eval_turns`), or to the end of the game. These are the positions the search asks its
/// evaluation about, which the value model can be trained on (`train`). Reproducible from
/// `seed`.
pub fn playout_cut(
    game: &Game,
    observation: &Observation,
    config: &SearchConfig,
    seed: u64,
) -> State {
    let config = &config.clamped();
    with_playouts(game, observation, config, seed, |settings, belief, rng| {
        let mut s = observation.determinize_with(belief, rng);
        play_out(settings, &mut s, &mut Scratch::default(), rng);
        s
    })
}

/// Calls `f` with the playout settings, rack belief and random stream a search under `config`
/// (already clamped) would use from `observation`.
fn with_playouts<T>(
    game: &Game,
    observation: &Observation,
    config: &SearchConfig,
    seed: u64,
    f: impl FnOnce(&Settings, &RackBelief, &mut Xoshiro256PlusPlus) -> T,
) -> T {
    let me = observation.observer();
    let belief = belief(config, game, observation);
    let judge = (config.eval_turns > 0).then(|| Judge::new(game, observation));
    // As in a search: the observer judges from their observation, the opponent from their view
    // of one determinization (the observer cannot know what the opponent has seen).
    let greedy = matches!(
        config.playout,
        PlayoutPolicy::Greedy | PlayoutPolicy::GreedyOnce | PlayoutPolicy::GreedyEffects
    )
    .then(|| {
        let s = observation.determinize_with(&belief, &mut rng_for(seed, u64::MAX - 1));
        Colour::BOTH.map(|c| {
            match c == me {
                true => Judge::new(game, observation),
                false => Judge::new(game, &Observation::new(&s, c)),
            }
            .weighted(config.playout_term_weights())
        })
    });
    let settings = Settings {
        game,
        config,
        last_turn: observation.turn().saturating_add(config.max_playout_turns),
        greedy: greedy.as_ref(),
        evaluation: judge
            .as_ref()
            .map(|judge| Evaluation::of_config(game, judge, config)),
    };
    f(&settings, &belief, &mut rng_for(seed, 0))
}
