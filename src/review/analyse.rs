//! The review's work: one task per decision or chance event, run side by side, then the graph
//! and the totals assembled in step order.

use super::totals::totals;
use super::{
    estimate_cancellable, estimate_seed, strong, ChanceKind, ChanceReview, DecisionReview,
    ErrorClass, GraphPoint, Mark, Progress, Review, ReviewOptions, BLUNDER, INACCURACY, LUCK_MARK,
    MISTAKE,
};
use crate::bot::search::make_player;
use crate::bot::{Player, Request};
use crate::info::{EvidenceTracker, Observation};
use crate::record::GameRecord;
use crate::rules::{Chance, Colour, Decision, DecisionList, Game, Phase, State, Troop};
use crate::vocabulary::hash::{splitmix64, GOLDEN_GAMMA};
use crate::vocabulary::ByColour;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A moment of the game to review: the step's index and the game's deal seed (the estimates'
/// seeds derive from them), the referee's state before the step, the evidence both players'
/// play had shown, and the step taken.
pub(super) struct Task {
    pub step: usize,
    pub deal_seed: u64,
    pub state: State,
    pub evidence: EvidenceTracker,
    pub taken: Decision,
}

/// What one task found.
pub(super) enum Found {
    Decision(DecisionReview),
    Chance(ChanceReview),
}

/// Reviews one task: a chance event, or a decision with more than one legal option.
pub(super) fn one(
    game: &Game,
    task: &Task,
    options: &ReviewOptions,
    cancel: Option<&AtomicBool>,
) -> Found {
    match task.state.phase() {
        Phase::Chance(_) => Found::Chance(chance(game, task, cancel)),
        _ => Found::Decision(decision(game, task, options, cancel)),
    }
}

pub(super) fn run(
    game: &Game,
    record: &GameRecord,
    options: &ReviewOptions,
    progress: &(dyn Fn(Progress) + Sync),
    cancel: Option<&AtomicBool>,
) -> Review {
    let (tasks, forced) = tasks(game, record, options);
    let total = tasks.len();
    let done = AtomicUsize::new(0);
    let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let review_one = |task: &Task| {
        if cancelled() {
            return None;
        }
        let found = one(game, task, options, cancel);
        // A search cut short by the cancel read too few playouts to be kept.
        if cancelled() {
            return None;
        }
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(Progress { done: n, total });
        Some(found)
    };
    let (found, threads): (Vec<Option<Found>>, usize) = match rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .thread_name(|i| format!("review-{i}"))
        .build()
    {
        Ok(pool) => pool.install(|| {
            let found = tasks.par_iter().map(review_one).collect();
            (found, rayon::current_num_threads())
        }),
        // No thread could be started: the calling thread reviews them all.
        Err(_) => (tasks.iter().map(review_one).collect(), 1),
    };
    let reviewed = found.iter().flatten().count();
    let mut decisions = Vec::new();
    let mut chances = Vec::new();
    for f in found.into_iter().flatten() {
        match f {
            Found::Decision(d) => decisions.push(d),
            Found::Chance(c) => chances.push(c),
        }
    }
    let graph = graph(record, &decisions, &chances);
    Review {
        terrain: record.terrain.clone(),
        players: record.players.clone(),
        steps: record.steps.len(),
        thresholds: [INACCURACY, MISTAKE, BLUNDER],
        iterations: options.budget.iterations,
        totals: totals(record, &decisions, &chances, &forced, reviewed == total),
        decisions,
        chances,
        graph,
        total,
        reviewed,
        complete: reviewed == total,
        threads,
    }
}

/// The moments to review, in step order, and each player's forced decisions (one legal option:
/// nothing to choose, nothing searched). The record has replayed, so every step is legal.
fn tasks(game: &Game, record: &GameRecord, options: &ReviewOptions) -> (Vec<Task>, ByColour<u32>) {
    let mut state = game.initial_state(&record.deal);
    let mut evidence = EvidenceTracker::new(game, &state);
    let mut tasks = Vec::new();
    let mut forced = ByColour::new(0, 0);
    let mut legal = DecisionList::new();
    for (step, text) in record.steps.iter().enumerate() {
        let Ok(taken) = Decision::parse(text, game.terrain()) else {
            break;
        };
        let wanted = match (state.is_chance(), options.only) {
            (true, only) => only.is_none(),
            (false, only) => only.is_none_or(|c| c == state.active()),
        };
        if wanted && !state.is_chance() {
            game.legal_decisions(&state, &mut legal);
            if legal.len() <= 1 {
                forced[state.active()] += 1;
            }
        }
        if wanted && (state.is_chance() || legal.len() > 1) {
            tasks.push(Task {
                step,
                deal_seed: record.deal.seed,
                state,
                evidence,
                taken,
            });
        }
        let before = state;
        if game.apply(&mut state, taken).is_err() {
            break;
        }
        evidence.step(game, &before, taken, &state);
    }
    (tasks, forced)
}

/// The seed of the searches of one step: the same whatever thread reviews it.
fn seed_of(options: &ReviewOptions, step: usize) -> u64 {
    splitmix64(options.seed ^ (step as u64).wrapping_mul(GOLDEN_GAMMA))
}

/// `player`'s estimate after `step` is taken in `task`'s state, from their observation then:
/// every alternative at one moment is estimated with the same seed, that of the moment after.
fn estimate_after(
    game: &Game,
    task: &Task,
    step: Decision,
    player: Colour,
    cancel: Option<&AtomicBool>,
) -> f64 {
    let mut after = task.state;
    game.apply_legal(&mut after, step);
    let mut evidence = task.evidence;
    evidence.step(game, &task.state, step, &after);
    let observation =
        Observation::new(&after, player).with_evidence(evidence.about(player.opponent()));
    let seed = estimate_seed(task.deal_seed, player, task.step + 1);
    estimate_cancellable(game, &observation, seed, cancel)
}

/// The decider's search from their observation finds the best decision; the estimates after
/// it and after the decision taken give the error.
fn decision(
    game: &Game,
    task: &Task,
    options: &ReviewOptions,
    cancel: Option<&AtomicBool>,
) -> DecisionReview {
    let player = task.state.active();
    let observation =
        Observation::new(&task.state, player).with_evidence(task.evidence.about(player.opponent()));
    let (algorithm, _, _) = strong();
    let choice = match make_player("review", algorithm, &options.config) {
        Player::Fair(mut bot) => bot.decide(&Request {
            game,
            observation: &observation,
            budget: options.budget,
            seed: seed_of(options, task.step),
            cancel,
        }),
        Player::Cheating(_) => unreachable!("the strong level's search is fair"),
    };
    let iterations = choice.analysis.map_or(0, |a| a.iterations);
    let best = choice.decision;
    let win_seed = estimate_seed(task.deal_seed, player, task.step);
    let win = estimate_cancellable(game, &observation, win_seed, cancel);
    let played_win = estimate_after(game, task, task.taken, player, cancel);
    let best_win = match best == task.taken {
        true => played_win,
        false => estimate_after(game, task, best, player, cancel),
    };
    let error = (best_win - played_win).max(0.0);
    let terrain = game.terrain();
    DecisionReview {
        step: task.step,
        turn: task.state.turn(),
        player,
        played: task.taken.notation(terrain),
        best: best.notation(terrain),
        win,
        played_win,
        best_win,
        error,
        class: ErrorClass::of(error),
        iterations,
    }
}

/// The estimates after every possible outcome, from the player concerned's observation; the
/// odds-weighted mean is the estimate before.
fn chance(game: &Game, task: &Task, cancel: Option<&AtomicBool>) -> ChanceReview {
    let active = task.state.active();
    let (kind, player) = match task.state.phase() {
        Phase::Chance(Chance::RackDiscard) => (ChanceKind::RackDiscard, active.opponent()),
        Phase::Chance(Chance::Freeze) => (ChanceKind::Freeze, active.opponent()),
        _ => (ChanceKind::Draw, active),
    };
    let outcome = match task.taken {
        Decision::Chance(t) => t,
        _ => Troop::ALL[0], // a chance state is only ever answered by a chance outcome
    };
    let odds = game.chance_outcomes(&task.state);
    let weight: f64 = odds.iter().map(|&(_, w)| f64::from(w)).sum();
    let mut before = 0.0;
    let mut after = 0.0;
    for &(t, w) in &odds {
        let estimate = estimate_after(game, task, Decision::Chance(t), player, cancel);
        before += f64::from(w) / weight * estimate;
        if t == outcome {
            after = estimate;
        }
    }
    ChanceReview {
        step: task.step,
        turn: task.state.turn(),
        player,
        kind,
        outcome: task.taken.notation(game.terrain()),
        outcomes: odds.len(),
        before,
        after,
        luck: after - before,
    }
}

/// Blue's win probability when `player`'s is `p`.
fn blue(p: f64, player: Colour) -> f64 {
    match player {
        Colour::Blue => p,
        Colour::Red => 1.0 - p,
    }
}

/// A point before every reviewed step, in step order, and the result at the end of a game
/// that was won.
fn graph(
    record: &GameRecord,
    decisions: &[DecisionReview],
    chances: &[ChanceReview],
) -> Vec<GraphPoint> {
    let mut points: Vec<GraphPoint> = decisions
        .iter()
        .map(|d| GraphPoint {
            step: d.step,
            turn: d.turn,
            blue: blue(d.win, d.player),
            player: Some(d.player),
            mark: match d.class {
                Some(ErrorClass::Blunder) => Some(Mark::Blunder),
                Some(ErrorClass::Mistake) => Some(Mark::Mistake),
                _ => None,
            },
        })
        .chain(chances.iter().map(|c| GraphPoint {
            step: c.step,
            turn: c.turn,
            blue: blue(c.before, c.player),
            player: Some(c.player),
            mark: match c.luck {
                l if l >= LUCK_MARK => Some(Mark::Lucky),
                l if l <= -LUCK_MARK => Some(Mark::Unlucky),
                _ => None,
            },
        }))
        .collect();
    points.sort_by_key(|p| p.step);
    if let Some(winner) = record.result.winner {
        points.push(GraphPoint {
            step: record.steps.len(),
            turn: record.result.turns,
            blue: blue(1.0, winner),
            player: None,
            mark: None,
        });
    }
    points
}
