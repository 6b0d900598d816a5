//! Re-validating a record step by step.

use super::{GameRecord, RecordResult, RECORD_FORMAT};
use crate::rules::{Chance, Colour, Decision, Game, Phase, State, WhatIf};

/// Why a record does not replay.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// The record is written in another format than this engine's.
    #[error("record format is '{found}', expected '{RECORD_FORMAT}'")]
    Format {
        /// The format the record names.
        found: String,
    },
    /// The record was played on another terrain than the one given.
    #[error("record terrain '{record}' does not match the terrain given ('{given}')")]
    Terrain {
        /// The record's terrain key.
        record: String,
        /// The given terrain's key.
        given: String,
    },
    /// The record was played under other rules parameters (what-ifs) than the game given.
    #[error("the record was played under the rules '{record}', the game given has '{given}'")]
    WhatIf {
        /// The record's rules, in words.
        record: String,
        /// The given game's rules, in words.
        given: String,
    },
    /// The record's deal breaks the setup rules (§3).
    #[error("record deal is not a possible setup: {0}")]
    Deal(String),
    /// The record's deal differs from the one its seed deals.
    #[error("record deal is not the one seed {seed} deals: {problem}")]
    Seed {
        /// The record's seed.
        seed: u64,
        /// Where the deals differ.
        problem: String,
    },
    /// A step is unreadable, illegal, or not the chance outcome the deal gives.
    #[error("step {index} ('{step}'): {reason}")]
    Step {
        /// The step's position in the record, from 0.
        index: usize,
        /// The step as written.
        step: String,
        /// Why it was refused.
        reason: String,
    },
    /// The steps run out before the game is over; the message says what it waits for.
    #[error("steps end before the game does: {0}")]
    Unfinished(String),
    /// The replayed game ends differently from the recorded result.
    #[error("the record says {recorded}, the replay ends with {replayed}")]
    Result {
        /// The result as recorded.
        recorded: String,
        /// The result of the replay.
        replayed: String,
    },
}

/// What a successful replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySummary {
    /// Steps replayed, chance outcomes included.
    pub steps: usize,
    /// How the replayed game ended.
    pub result: RecordResult,
    /// The state after the last step.
    pub final_state: State,
}

/// Replays `record` on `game` (which must be the record's terrain and variant), checking every
/// step against the rules and every draw against the deal's reserve order.
pub fn replay(game: &Game, record: &GameRecord) -> Result<ReplaySummary, ReplayError> {
    if record.format != RECORD_FORMAT {
        return Err(ReplayError::Format {
            found: record.format.clone(),
        });
    }
    if record.terrain != game.terrain().key {
        return Err(ReplayError::Terrain {
            record: record.terrain.clone(),
            given: game.terrain().key.clone(),
        });
    }
    if record.what_if != *game.what_if() {
        return Err(ReplayError::WhatIf {
            record: describe_rules(&record.what_if),
            given: describe_rules(game.what_if()),
        });
    }
    game.validate_deal(&record.deal)
        .map_err(|e| ReplayError::Deal(e.to_string()))?;
    check_seed(game, record)?;
    let mut state = game.initial_state(&record.deal);
    let mut drawn = [Colour::Blue, Colour::Red].map(|c| game.opening_rack(record.deal.first, c));
    for (index, step) in record.steps.iter().enumerate() {
        let err = |reason: String| ReplayError::Step {
            index,
            step: step.clone(),
            reason,
        };
        let d = Decision::parse_record(step, game.terrain()).map_err(|e| err(e.to_string()))?;
        if let (Phase::Chance(Chance::Draw { .. }), Decision::Chance(t)) = (state.phase(), d) {
            let i = state.active().index();
            let expected = record.deal.reserve[state.active()].get(drawn[i]).copied();
            if expected != Some(t) {
                return Err(err(format!(
                    "draws {t} but the deal's reserve order has {} next",
                    expected.map_or("nothing".to_string(), |e| e.to_string())
                )));
            }
            drawn[i] += 1;
        }
        game.apply(&mut state, d).map_err(|e| err(e.to_string()))?;
    }
    if !state.is_over() && matches!(record.result.end.as_str(), "hq" | "medals" | "blocked") {
        return Err(ReplayError::Unfinished(game.describe_phase(&state)));
    }
    let replayed = result_of(&state, record);
    if replayed != record.result {
        return Err(ReplayError::Result {
            recorded: record.result.describe(),
            replayed: replayed.describe().replacen(" won ", " winning ", 1),
        });
    }
    Ok(ReplaySummary {
        steps: record.steps.len(),
        result: replayed,
        final_state: state,
    })
}

/// The rules parameters a game was played under, in words: "retail rules" or the what-ifs.
pub fn describe_rules(w: &WhatIf) -> String {
    match w.is_retail() {
        true => "retail rules".into(),
        false => w.describe(),
    }
}

/// Records are dealt from their seed (docs/records.md): the tiles must be those of `game.deal(seed)`
/// ([`Deal::from_seed`] under the retail rules), so that a record cannot claim a seed its luck
/// did not come from.
fn check_seed(game: &Game, record: &GameRecord) -> Result<(), ReplayError> {
    let seed = record.seed;
    let dealt = game.deal(seed);
    let deal = &record.deal;
    // The first player is not checked: the seed proposes one (R3.5), but a self-play study plays
    // each deal a second time with the other colour first and a player may choose who starts, so
    // any first player is a fair game of the tiles the seed dealt.
    let problem = if deal.seed != seed {
        format!("the deal names seed {}", deal.seed)
    } else if let Some(c) = Colour::BOTH
        .into_iter()
        .find(|&c| deal.removed[c] != dealt.removed[c])
    {
        format!("{c}'s removed tiles differ")
    } else if let Some(c) = Colour::BOTH
        .into_iter()
        .find(|&c| deal.reserve[c] != dealt.reserve[c])
    {
        let i = deal.reserve[c]
            .iter()
            .zip(&dealt.reserve[c])
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        format!("{c}'s reserve order differs from tile {} on", i + 1)
    } else {
        return Ok(());
    };
    Err(ReplayError::Seed { seed, problem })
}

/// The result the replayed state shows. A game the record says was stopped (turn cap or
/// forfeit) keeps the recorded end as long as the replayed game has not ended.
fn result_of(state: &State, record: &GameRecord) -> RecordResult {
    let medals = [
        state.medals(crate::rules::Colour::Blue),
        state.medals(crate::rules::Colour::Red),
    ]
    .into();
    match state.outcome() {
        Some(o) => RecordResult {
            winner: Some(o.winner),
            end: RecordResult::end_name(o.win).to_string(),
            turns: state.turn(),
            medals,
        },
        None => RecordResult {
            winner: record.result.winner,
            end: record.result.end.clone(),
            turns: state.turn(),
            medals,
        },
    }
}
