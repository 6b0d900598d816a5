//! The review of a session's game, with the hidden-information rule: while the game goes on,
//! only the human's own decisions are reviewed (from their own observations), never the
//! computer's decisions nor any chance event, whose odds come from the hidden reserves.

use super::Session;
use crate::record::GameRecord;
use crate::review::{
    review_refereed, review_step, DecisionReview, Progress, Review, ReviewOptions, StepReview,
};
use crate::rules::Game;
use std::sync::atomic::AtomicBool;

/// A session's review ready to run away from the session ([`Session::review_job`]): its game,
/// its record so far and the options with the hidden-information rule already applied.
pub struct ReviewJob {
    game: Game,
    record: GameRecord,
    options: ReviewOptions,
}

impl ReviewJob {
    /// The game reviewed (its terrain names the decisions' nodes).
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Runs the review: see [`Session::review`].
    pub fn run(&self, progress: &(dyn Fn(Progress) + Sync), cancel: Option<&AtomicBool>) -> Review {
        review_refereed(&self.game, &self.record, &self.options, progress, cancel)
    }
}

impl Session {
    /// The review of the game so far ([`crate::review`]) under `options`: every decision and
    /// chance event once the game is over; before that, the human's own decisions only (what
    /// `options.only` says is ignored). Cancellable, with progress, like
    /// [`crate::review::review`].
    pub fn review(
        &self,
        options: &ReviewOptions,
        progress: &(dyn Fn(Progress) + Sync),
        cancel: Option<&AtomicBool>,
    ) -> Review {
        self.review_job(options).run(progress, cancel)
    }

    /// What [`Session::review`] reviews, taken out of the session so that it can run on
    /// another thread while the game stays playable (the page's review).
    pub fn review_job(&self, options: &ReviewOptions) -> ReviewJob {
        let mut options = options.clone();
        options.only = (!self.is_over()).then_some(self.human);
        ReviewJob {
            game: self.game.clone(),
            record: self.record(),
            options,
        }
    }

    /// The coach (KaTrain's teaching mode): the review of the human's last decision, searched
    /// from their observation when they took it; `None` before their first decision and for a
    /// forced decision. Whether [`Session::undo`] can take it back is [`Session::can_undo`]'s
    /// to say (not across a chance outcome the human has seen).
    pub fn coach(&self, options: &ReviewOptions) -> Option<DecisionReview> {
        let point = self.points.last()?;
        let taken = self.line.get(point.steps)?.decision;
        let at = &point.at;
        match review_step(
            &self.game,
            &at.state,
            &at.evidence,
            taken,
            (point.steps, self.now.referee.deal().seed),
            options,
        ) {
            Ok(StepReview::Decision(d)) => Some(d),
            _ => None,
        }
    }
}
