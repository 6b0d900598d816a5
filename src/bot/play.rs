//! Playing one game between two players, under a referee, producing a replayable record.

use super::{Analysis, Budget, Player};
use crate::info::EvidenceTracker;
use crate::record::{GameRecord, RecordResult, RECORD_FORMAT};
use crate::rules::invariants::{self, InvariantViolation};
use crate::rules::{Colour, Deal, Game, Referee};
use crate::vocabulary::hash::{splitmix64, GOLDEN_GAMMA};
use crate::vocabulary::ByColour;
use std::time::{Duration, Instant};

/// Settings of one game that are not rules.
#[derive(Clone, Copy, Debug)]
pub struct PlayConfig {
    /// Self-play safety cap on turns (R10.5: the game itself has none). A game that reaches it
    /// ends with no winner and `end = "turn_cap"`.
    pub max_turns: u16,
    /// Budget per decision for each colour.
    pub budgets: ByColour<Budget>,
    /// Check every invariant of the state after each decision (`rules::invariants`); the first
    /// violation stops the game and is returned in [`PlayedGame::violation`].
    pub check: bool,
}

impl Default for PlayConfig {
    fn default() -> Self {
        PlayConfig {
            max_turns: 500,
            budgets: ByColour::default(),
            check: false,
        }
    }
}

/// A finished game with per-player thinking time.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The game's record: deal, every step and the result.
    pub record: GameRecord,
    /// Decisions taken by each colour.
    pub decisions: ByColour<u32>,
    /// Total thinking time of each colour.
    pub think_time: ByColour<Duration>,
    /// With `PlayConfig::check`: the step (counted from 1) after which an invariant broke.
    pub violation: Option<(usize, InvariantViolation)>,
    /// What the deciding player's search found at each of the players' recorded decisions, in
    /// order (the training targets of `train`).
    pub searches: Vec<DecisionSearch>,
}

/// A player's decision of a played game with what its bot's search found, if it searched.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionSearch {
    /// The decision's index in the record's steps, from 0.
    pub step: usize,
    /// The deciding player.
    pub colour: Colour,
    /// The search's analysis; `None` when the bot did not search (a forced decision, or a bot
    /// that does not search).
    pub analysis: Option<Analysis>,
}

/// Seed of a player's `k`-th decision in a game: distinct per game, colour and decision.
pub fn decision_seed(game_seed: u64, colour: Colour, k: u32) -> u64 {
    let x = game_seed ^ ((colour.index() as u64) << 62) ^ ((k as u64).wrapping_mul(GOLDEN_GAMMA));
    splitmix64(x)
}

/// Plays `deal` on `game`; `players[0]` plays blue, `players[1]` red.
///
/// A player's decision that the rules refuse ends the game as a forfeit for that player
/// (recorded with `end = "forfeit"`); the illegal decision is not recorded.
pub fn play_game(
    game: &Game,
    deal: &Deal,
    players: &mut [&mut Player; 2],
    config: &PlayConfig,
) -> PlayedGame {
    let mut state = game.initial_state(deal);
    let mut evidence = EvidenceTracker::new(game, &state);
    let mut referee = Referee::new(deal.clone());
    let mut steps = Vec::new();
    let mut decisions = ByColour::new(0u32, 0);
    let mut think_time = ByColour::new(Duration::ZERO, Duration::ZERO);
    let mut forfeit: Option<Colour> = None;
    let mut violation = None;
    let mut searches = Vec::new();
    while !state.is_over() && state.turn() <= config.max_turns {
        let mut analysis = None;
        let d = if state.is_chance() {
            referee.resolve(game, &state)
        } else {
            let c = state.active();
            let seed = decision_seed(deal.seed, c, decisions[c]);
            let start = Instant::now();
            let shown = evidence.about(c.opponent());
            let budget = config.budgets[c];
            let choice = players[c.index()].decide(game, &state, shown, budget, seed);
            think_time[c] += start.elapsed();
            decisions[c] += 1;
            analysis = Some(choice.analysis);
            choice.decision
        };
        let before = state;
        // The referee's outcomes are always legal: only a player's decision can be refused.
        if game.apply(&mut state, d).is_err() {
            forfeit = Some(before.active());
            break;
        }
        evidence.step(game, &before, d, &state);
        if let Some(analysis) = analysis {
            searches.push(DecisionSearch {
                step: steps.len(),
                colour: before.active(),
                analysis,
            });
        }
        steps.push(d.notation(game.terrain()));
        if config.check {
            if let Err(v) = invariants::check(game, &state) {
                violation = Some((steps.len(), v));
                break;
            }
        }
    }
    let medals = ByColour::from_fn(|c| state.medals(c));
    let result = match (state.outcome(), forfeit) {
        (_, Some(loser)) => RecordResult {
            winner: Some(loser.opponent()),
            end: "forfeit".into(),
            turns: state.turn(),
            medals,
        },
        (Some(o), None) => RecordResult {
            winner: Some(o.winner),
            end: RecordResult::end_name(o.win).into(),
            turns: state.turn(),
            medals,
        },
        (None, None) => RecordResult {
            winner: None,
            end: "turn_cap".into(),
            turns: state.turn(),
            medals,
        },
    };
    let record = GameRecord {
        format: RECORD_FORMAT.to_string(),
        terrain: game.terrain().key.clone(),
        variant: game.variant(),
        seed: deal.seed,
        deal: deal.clone(),
        players: [players[0].name().to_string(), players[1].name().to_string()],
        steps,
        result,
        terrain_fingerprint: Some(crate::record::fingerprint(game)),
        session: None,
        what_if: *game.what_if(),
    };
    PlayedGame {
        record,
        decisions,
        think_time,
        violation,
        searches,
    }
}
