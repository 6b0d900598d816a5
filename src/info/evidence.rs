//! What a player's own play shows about their hidden rack.
//!
//! A player who could win at once takes the win: when a turn begins, the troops that would win
//! then (an enemy HQ in reach, a region that reaches the medal objective) are known to everyone,
//! and if the player does not win, none of their unfrozen rack tiles was of those troops. Those
//! tiles stay on the rack until they leave it; tiles drawn later are free of the constraint.
//!
//! A player who could take a region at once may take it, too: the troops that would take a
//! region when the turn begins are kept as well, as *passed* troops, when the turn ends with no
//! medal won. That is weaker evidence (a player may rather build elsewhere); how much it says
//! depends on the player, and `toybattle train rack` measures it on their records
//! (`train::passed`): `greedy` holds a passed troop about a third as often as other troops,
//! `strong` as often (results/learning.md), so no determinization weighs it.
//!
//! And a player's choice of action says something about what they kept: had they held a troop
//! whose placements the board made attractive, they might have placed it. The evidence keeps the
//! first decision of the player's latest turn with the board as their opponent saw it then
//! ([`TurnChoice`]); the search weighs the held tiles by how attractive each troop's placements
//! were (`bot::search::choice`), to a power measured on records (`train::choice`).
//!
//! Everything here is computed from what the player's opponent sees (the board, the medals, the
//! sizes of the racks, and their own tiles in the choice's board; the player's hidden tiles are
//! erased), so the evidence about a player may be handed to their opponent, and to no one else,
//! along with the opponent's observation. It assumes the player never misses an immediate win:
//! a bot that trusts it plays against rational opponents, not against `random`.

use super::Observation;
use crate::rules::{Colour, Decision, Game, Phase, State};

/// The first decision of a player's turn, and the board it was taken on as the player's
/// opponent saw it: the state at the turn's start, the player's hidden tiles erased.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TurnChoice {
    /// The state at the turn's start as the opponent saw it.
    pub view: State,
    /// What the player chose there: a placement, or drawing.
    pub decision: Decision,
}

/// The evidence about one player's rack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RackEvidence {
    /// Troops (bit `Troop::index`) that would have won at the start of the player's latest turn.
    barred: u8,
    /// Troops (bit `Troop::index`) that would have taken a region, but not won, at the start of
    /// the player's latest turn, which then brought them no medal.
    passed: u8,
    /// How many of the player's hidden rack tiles were on the rack, unfrozen, at that start
    /// and are surely still there: none of them is a barred troop.
    held: u8,
    /// The first decision of that turn.
    choice: Option<TurnChoice>,
}

impl RackEvidence {
    /// No evidence: nothing is known beyond the observation.
    pub const NONE: RackEvidence = RackEvidence {
        barred: 0,
        passed: 0,
        held: 0,
        choice: None,
    };

    /// Troops the held tiles cannot be, as a bit mask over `Troop::index`.
    pub fn barred(&self) -> u8 {
        self.barred
    }

    /// Troops the held tiles are unlikely to be: they would have taken a region, and the
    /// player took none.
    pub fn passed(&self) -> u8 {
        self.passed
    }

    /// Hidden rack tiles held through the player's latest turn: on the rack, unfrozen, at its
    /// start and surely still there. None of them is a barred troop.
    pub fn held(&self) -> u8 {
        self.held
    }

    /// The first decision of the player's latest turn, and the board it was taken on.
    pub fn choice(&self) -> Option<&TurnChoice> {
        self.choice.as_ref()
    }

    /// The same evidence without passed troops (the turn took a region).
    fn without_passed(self) -> RackEvidence {
        RackEvidence { passed: 0, ..self }
    }
}

/// Follows a game from the referee's side, step by step, and keeps the evidence about both
/// racks, each computed only from what that player's opponent sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvidenceTracker {
    /// Evidence from each player's latest completed turn.
    shown: [RackEvidence; 2],
    /// What the turn in progress will show about its player once it ends without a win.
    pending: [RackEvidence; 2],
    /// Each player's medals when their latest turn began: a turn that adds to them took a
    /// region, and shows nothing about passed troops.
    medals_at_start: [u8; 2],
    /// The start of the turn in progress as its player's opponent saw it, until its first
    /// decision.
    turn_start: Option<State>,
}

impl EvidenceTracker {
    /// The tracker at the start of a game (`state` is the initial state).
    pub fn new(game: &Game, state: &State) -> EvidenceTracker {
        let mut t = EvidenceTracker::default();
        t.turn_begins(game, state);
        t
    }

    /// The evidence about `player`'s rack from their turns so far.
    pub fn about(&self, player: Colour) -> RackEvidence {
        self.shown[player.index()]
    }

    /// Takes in one step of the game: `step` (a decision or chance outcome) took `before` to
    /// `after`.
    pub fn step(&mut self, game: &Game, before: &State, step: Decision, after: &State) {
        if let Some(view) = self.turn_start.take() {
            self.pending[before.active().index()].choice = Some(TurnChoice {
                view,
                decision: step,
            });
        }
        for c in Colour::BOTH {
            // A step moves tiles one way only (R11.1: every move is public), so a shorter rack
            // means that many tiles left it; any of them may have been held ones.
            let left = before.rack_len(c).saturating_sub(after.rack_len(c));
            for e in [&mut self.shown[c.index()], &mut self.pending[c.index()]] {
                e.held = e.held.saturating_sub(left);
            }
        }
        if after.phase() == Phase::Action && after.turn() != before.turn() {
            // The previous turn ended without a win: its player has shown what they held.
            let previous = after.active().opponent();
            let mut shown = self.pending[previous.index()];
            if after.medals(previous) > self.medals_at_start[previous.index()] {
                shown = shown.without_passed();
            }
            self.shown[previous.index()] = shown;
            self.turn_begins(game, after);
        }
    }

    /// A turn begins in `state`: notes what the active player would win with.
    fn turn_begins(&mut self, game: &Game, state: &State) {
        let p = state.active();
        // Seen through the opponent's eyes, so that only public facts can enter.
        let public = Observation::new(state, p.opponent());
        let hidden = state.rack_len(p) - state.public_rack(p).total();
        let barred = game.winning_troops(public.view());
        self.pending[p.index()] = RackEvidence {
            barred,
            passed: game.region_troops(public.view()) & !barred,
            held: hidden.saturating_sub(state.frozen_len(p)),
            choice: None,
        };
        self.medals_at_start[p.index()] = state.medals(p);
        self.turn_start = Some(*public.view());
    }
}
