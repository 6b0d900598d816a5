//! A game between a human and a bot: the layer below the interfaces (`toybattle play`, the web
//! page).
//!
//! A [`Session`] is the referee. It holds the true state, the deal (through the [`Referee`]),
//! the evidence both players' play has shown, and the history needed for undo, all private. The
//! human is handed only a [`HumanView`], built from their [`Observation`] and public facts; the
//! bot only its own observation, as a fair [`Bot`] (a cheating one is refused).
//!
//! The flow of a game:
//! 1. [`Session::new`] deals; [`Session::view`] shows the human what they may see.
//! 2. When [`HumanView::to_move`] is [`ToMove::Human`], [`Session::legal`] lists the human's
//!    decisions and [`Session::apply`] takes one (an illegal one is refused, nothing changes).
//! 3. Otherwise [`Session::advance`] resolves chance events and lets the bot decide until the
//!    human must decide or the game is over; it can be cancelled from another thread.
//! 4. [`Session::hint`], [`Session::undo`], [`Session::resign`] at any decision of the human;
//!    [`Session::record`] saves a `toybattle-record/1` record that [`Session::load`] resumes.
//!
//! Undo goes back to the human's previous decision, taking back the bot's replies too, but never
//! across a chance outcome the human has seen (see [`UndoRefused`] and docs/play.md): their own
//! draw, an XB-42 discard (from either rack: the tile lands on the public discard) or a
//! Battlefield freeze of their own rack. The referee's deal and random stream are restored with
//! the state, so taking back a decision never changes what the reserve or the dice hold.

mod level;
mod review;
mod saves;
mod shown;
mod view;

pub use level::{Level, UnknownLevel, LADDER};
pub use review::ReviewJob;
pub use saves::{describe_save, save_name};
pub use shown::{
    data_folder, deal_key, ShownDeals, ShownDealsError, DATA_FOLDER_VARIABLE, SHOWN_DEALS_FILE,
};
pub use view::{
    hint_order, note_taken_regions, BotCandidate, BotThought, DecisionGroup, DecisionOption,
    GroupKind, HintOrder, HumanView, LogEntry, NodeView, OpponentRack, ResultView, Sides,
    TakenRegion, TileView, ToMove, UndoStatus, WinPoint, HINT_SHOWN,
};

use crate::bot::play::decision_seed;
use crate::bot::{Bot, Budget, Player, Request};
use crate::info::{EvidenceTracker, Observation};
use crate::record::notes::{HintCandidate, HintNote, SessionNotes, UndoNote};
use crate::record::{replay, GameRecord, RecordResult, ReplayError, RECORD_FORMAT};
use crate::rules::{Colour, Deal, Decision, DecisionList, Game, IllegalDecision, Referee, State};
use crate::vocabulary::ByColour;
use std::sync::atomic::{AtomicBool, Ordering};
use view::PublicFacts;

/// How to start a game.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The terrain and variant, e.g. `Game::builtin("castle_field", Variant::Normal)`.
    pub game: Game,
    /// The play level of the bot: its preset and budget per decision.
    pub level: Level,
    /// The human's colour (blue sits at the bottom of the board).
    pub human: Colour,
    /// Who plays first; `None` leaves it to the deal (R3.5).
    pub first: Option<Colour>,
    /// The deal's seed: the removed tiles, the reserves' order, and the referee's random stream.
    pub seed: u64,
    /// Whether the player chose the seed (and so knows the deal it makes: replaying a known
    /// deal is a feature). A seed the program drew is secret: the game's deal is guarded by
    /// [`Session::guard_deal`] and the seed is shown only once the game is over.
    pub seed_chosen: bool,
}

/// Why the session refused something. The game is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    /// The game has ended (or was resigned): nothing more can be decided.
    #[error("the game is over")]
    GameOver,
    /// The human tried to decide (or asked for a hint) while the bot or a chance event is to
    /// move; what the game waits for, in words.
    #[error("it is not your decision now: {0}")]
    NotYourTurn(String),
    /// A decision's text is not a decision on this terrain; the parser's message.
    #[error("{0}")]
    Notation(String),
    /// The rules refuse the human's decision (or a decision of a loaded record).
    #[error(transparent)]
    Illegal(#[from] IllegalDecision),
    /// A search (the bot's or a hint's) was stopped before it decided.
    #[error("the bot's thinking was cancelled; it has not decided")]
    Cancelled,
    /// The bot offered is a cheating reference, which sees hidden tiles; its name.
    #[error("bot '{0}' sees hidden tiles (a cheating reference bot): it never plays a human")]
    CheatingBot(String),
    /// The bot chose a decision the rules refuse.
    #[error("the bot answered with an illegal decision: {0}")]
    BotFailed(IllegalDecision),
    /// A saved game that is of another format or does not replay under the rules, or a deal
    /// that is not valid.
    #[error("the record does not replay: {0}")]
    Record(#[from] ReplayError),
    /// A record that replays but cannot be resumed as a game against the computer: no session
    /// notes, an unknown level or terrain, or chance outcomes that are not the referee's.
    #[error("the record cannot be resumed: {0}")]
    NotASession(String),
    /// Text that is not JSON of a game record; the reader's message.
    #[error("not a game record: {0}")]
    Json(String),
    /// A copy of this game (a save loaded twice, a second save) has ended and shown its deal:
    /// this game can no longer be played.
    #[error(
        "this game's deal was shown when a copy of it ended (a save loaded twice, or another \
         save of it): it can no longer be played; watch it with `toybattle replay` or the \
         page's replay viewer"
    )]
    DealShown,
    /// The list of shown deals cannot be read or written, so the game's deal cannot be guarded.
    #[error(transparent)]
    ShownDeals(#[from] ShownDealsError),
}

/// Why [`Session::undo`] takes nothing back, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndoRefused {
    /// The human has taken no decision that can still be taken back.
    #[error("nothing to undo: you have not decided anything yet")]
    NothingToUndo,
    /// The human resigned; a resignation is final.
    #[error("the game was resigned")]
    Resigned,
    /// The game is over: its deal and the computer's candidates have been shown, so taking a
    /// decision back would let the rest be played with the hidden tiles known.
    #[error("the game is over: its deal has been shown, so it cannot be taken back")]
    GameOver,
    /// Undo would cross a chance outcome the human has seen.
    #[error(
        "undo would take back {what} (step {step}), which you have seen: the reserve and the \
         random draws cannot be replayed"
    )]
    SeenChance {
        /// The chance step's index in the line of play, from 0.
        step: usize,
        /// The outcome in notation and, in brackets, the pending step it answered, in words.
        what: String,
    },
}

/// Where the game stands: the referee's whole state at one moment.
#[derive(Clone, Debug)]
struct Position {
    state: State,
    referee: Referee,
    evidence: EvidenceTracker,
    /// Decisions the bot has taken (for its seeds).
    bot_decisions: u32,
}

/// A decision point of the human that undo can return to.
#[derive(Clone, Debug)]
struct Point {
    at: Position,
    /// Steps played at that point.
    steps: usize,
    /// Win-history entries at that point.
    wins: usize,
}

/// A step of the line of play.
#[derive(Clone, Debug)]
struct Played {
    decision: Decision,
    /// Who took it; `None` for chance.
    actor: Option<Colour>,
    turn: u16,
    /// The pending step it answered, in words.
    during: String,
    /// Whether the human saw it (always, except chance outcomes hidden from them).
    seen: bool,
    /// For a bot decision of this session: what its search weighed (kept from the human until
    /// the game is over; not in the record, so a loaded game has none for its earlier steps).
    thought: Option<BotThought>,
}

/// A human-versus-bot game; see the module documentation.
pub struct Session {
    game: Game,
    level: Level,
    human: Colour,
    bot: Box<dyn Bot>,
    bot_name: String,
    budget: Budget,
    now: Position,
    line: Vec<Played>,
    points: Vec<Point>,
    /// Steps up to and including the last chance outcome the human saw: undo stops there.
    barrier: usize,
    win_history: Vec<WinPoint>,
    undos: Vec<UndoNote>,
    hints: Vec<HintNote>,
    resigned: bool,
    /// What the bot weighed for the decision being applied (moved into its step).
    pending_thought: Option<BotThought>,
    /// Whether the player chose the seed (see [`SessionConfig::seed_chosen`]).
    seed_chosen: bool,
    /// Where this game's deal is noted as shown when it ends, and looked up before every
    /// step; `None` until [`Session::guard_deal`] (tests, the library used alone).
    shown: Option<ShownDeals>,
    /// A copy of the game showed the deal: this one ended without a winner.
    void: bool,
}

impl Session {
    /// A new game against a level's bot.
    pub fn new(config: SessionConfig) -> Result<Session, SessionError> {
        let preset = config.level.preset();
        Session::with_player(config, preset.player(), preset.budget)
    }

    /// A new game against a given bot, with its budget per decision. A cheating bot is refused.
    pub fn with_player(
        config: SessionConfig,
        player: Player,
        budget: Budget,
    ) -> Result<Session, SessionError> {
        let mut deal = Deal::from_seed(config.seed);
        if let Some(first) = config.first {
            deal = deal.with_first(first);
        }
        let mut session = Session::from_deal(
            config.game,
            config.level,
            config.human,
            deal,
            player,
            budget,
        )?;
        session.seed_chosen = config.seed_chosen;
        Ok(session)
    }

    /// A new game against a level's bot on a given deal (any valid setup, not only one a seed
    /// makes): for tests that compare deals differing in hidden tiles only.
    pub fn on_deal(
        game: Game,
        level: Level,
        human: Colour,
        deal: Deal,
    ) -> Result<Session, SessionError> {
        deal.validate()
            .map_err(|e| SessionError::Record(ReplayError::Deal(e.to_string())))?;
        let preset = level.preset();
        Session::from_deal(game, level, human, deal, preset.player(), preset.budget)
    }

    fn from_deal(
        game: Game,
        level: Level,
        human: Colour,
        deal: Deal,
        player: Player,
        budget: Budget,
    ) -> Result<Session, SessionError> {
        let bot = match player {
            Player::Fair(bot) => bot,
            Player::Cheating(bot) => return Err(SessionError::CheatingBot(bot.name().into())),
        };
        let state = game.initial_state(&deal);
        let now = Position {
            state,
            evidence: EvidenceTracker::new(&game, &state),
            referee: Referee::new(deal),
            bot_decisions: 0,
        };
        let mut session = Session {
            bot_name: level.name().to_string(),
            game,
            level,
            human,
            bot,
            budget,
            now,
            line: Vec::new(),
            points: Vec::new(),
            barrier: 0,
            win_history: Vec::new(),
            undos: Vec::new(),
            hints: Vec::new(),
            resigned: false,
            pending_thought: None,
            seed_chosen: true,
            shown: None,
            void: false,
        };
        session.note_estimate();
        Ok(session)
    }

    /// The terrain and variant played.
    pub fn game(&self) -> &Game {
        &self.game
    }
    /// The bot's play level.
    pub fn level(&self) -> Level {
        self.level
    }
    /// The human's colour.
    pub fn human(&self) -> Colour {
        self.human
    }

    /// The human's observation now (with what the bot's play has shown of its rack).
    pub fn observation(&self) -> Observation {
        let evidence = self.now.evidence.about(self.human.opponent());
        Observation::new(&self.now.state, self.human).with_evidence(evidence)
    }

    /// Who takes the next step.
    pub fn to_move(&self) -> ToMove {
        let s = &self.now.state;
        if self.resigned || s.is_over() || self.void || self.deal_shown_elsewhere() {
            ToMove::Over
        } else if s.is_chance() {
            ToMove::Chance
        } else if s.active() == self.human {
            ToMove::Human
        } else {
            ToMove::Bot
        }
    }

    /// Whether the game has ended or the human has resigned.
    pub fn is_over(&self) -> bool {
        self.to_move() == ToMove::Over
    }

    /// Everything the human may see.
    pub fn view(&self) -> HumanView {
        let facts = PublicFacts {
            level: self.level,
            to_move: self.to_move(),
            result: self.result_view(),
            taken_regions: view::taken_regions(
                &self.game,
                self.now.referee.deal(),
                self.line.iter().map(|p| p.decision),
            ),
            log: self.log(0),
            win_history: self.win_history.clone(),
            bot_thoughts: match self.is_over() {
                true => self.line.iter().filter_map(|p| p.thought.clone()).collect(),
                false => Vec::new(),
            },
            undo: match self.can_undo() {
                Ok(()) => UndoStatus {
                    available: true,
                    reason: None,
                },
                Err(e) => UndoStatus {
                    available: false,
                    reason: Some(e.to_string()),
                },
            },
        };
        HumanView::new(&self.game, &self.observation(), facts)
    }

    /// The steps from `from` on, as the human saw them.
    fn log(&self, from: usize) -> Vec<LogEntry> {
        let terrain = self.game.terrain();
        self.line
            .iter()
            .enumerate()
            .skip(from)
            .map(|(step, p)| LogEntry {
                step,
                turn: p.turn,
                actor: p.actor,
                text: match p.seen {
                    true => p.decision.notation(terrain),
                    false => "chance ?".to_string(),
                },
                during: p.during.clone(),
            })
            .collect()
    }

    fn result_view(&self) -> Option<ResultView> {
        if self.resigned {
            return Some(ResultView {
                winner: Some(self.human.opponent()),
                end: "resign".into(),
            });
        }
        if self.void || self.deal_shown_elsewhere() {
            return Some(ResultView {
                winner: None,
                end: "void".into(),
            });
        }
        self.now.state.outcome().map(|o| ResultView {
            winner: Some(o.winner),
            end: RecordResult::end_name(o.win).into(),
        })
    }

    /// The human's legal decisions, grouped for a click interface; empty when it is not the
    /// human's decision.
    pub fn legal(&self) -> Vec<DecisionGroup> {
        let mut legal = DecisionList::new();
        if self.to_move() == ToMove::Human {
            self.observation().legal_decisions(&self.game, &mut legal);
        }
        view::group(&self.game, &legal)
    }

    /// The human's legal decisions in the rules' order (the numbering of `toybattle play`).
    pub fn legal_decisions(&self) -> Vec<Decision> {
        let mut legal = DecisionList::new();
        if self.to_move() == ToMove::Human {
            self.observation().legal_decisions(&self.game, &mut legal);
        }
        legal.to_vec()
    }

    /// Takes the human's decision in notation (`place Jumbo 13`, `draw`, …).
    pub fn apply(&mut self, notation: &str) -> Result<(), SessionError> {
        let d = Decision::parse(notation, self.game.terrain())
            .map_err(|e| SessionError::Notation(e.to_string()))?;
        self.apply_decision(d)
    }

    /// `Ok` when the human is to decide; otherwise why not: the game is over, or whose
    /// decision it is.
    fn human_to_move(&self) -> Result<(), SessionError> {
        match self.to_move() {
            ToMove::Human => Ok(()),
            ToMove::Over => Err(SessionError::GameOver),
            _ => Err(SessionError::NotYourTurn(
                self.game.describe_phase(&self.now.state),
            )),
        }
    }

    /// Takes the human's decision. Refused, with nothing changed, when the game is over, when
    /// it is not the human's decision, or when the rules refuse it.
    pub fn apply_decision(&mut self, d: Decision) -> Result<(), SessionError> {
        self.check_deal_hidden()?;
        self.human_to_move()?;
        let mut after = self.now.state;
        self.game.apply(&mut after, d)?;
        self.note_deal_if_shown(after.is_over())?;
        self.points.push(Point {
            at: self.now.clone(),
            steps: self.line.len(),
            wins: self.win_history.len(),
        });
        self.push(d, after);
        Ok(())
    }

    /// Records a step whose result is `after` (already checked legal) and moves on to it.
    fn push(&mut self, d: Decision, after: State) {
        let before = self.now.state;
        let actor = (!before.is_chance()).then_some(before.active());
        let seen = match actor {
            Some(_) => true,
            None => view::human_sees(before.phase(), before.active(), self.human),
        };
        self.line.push(Played {
            decision: d,
            actor,
            turn: before.turn(),
            during: self.game.describe_phase(&before),
            seen,
            thought: None,
        });
        if actor.is_none() && seen {
            self.barrier = self.line.len();
        }
        if actor == Some(self.human.opponent()) {
            self.now.bot_decisions += 1;
        }
        self.now.evidence.step(&self.game, &before, d, &after);
        self.now.state = after;
        if after.is_over() || (after.turn() != before.turn() && !after.is_chance()) {
            self.note_estimate();
        }
    }

    /// Adds the human's estimated win probability now to the history.
    fn note_estimate(&mut self) {
        let obs = self.observation();
        let step = self.line.len();
        self.win_history.push(WinPoint {
            step,
            turn: obs.turn(),
            human: crate::review::estimate(&self.game, &obs, self.estimate_seed(step)),
        });
    }

    /// The human's win estimate after taking `decision` at `step` (every candidate of a hint
    /// with the same seed, that of the moment after, so that they differ by the decision only).
    fn estimate_after(&self, decision: Decision, step: usize) -> f64 {
        let mut after = self.now.state;
        self.game.apply_legal(&mut after, decision);
        let mut evidence = self.now.evidence;
        evidence.step(&self.game, &self.now.state, decision, &after);
        let seen = Observation::new(&after, self.human)
            .with_evidence(evidence.about(self.human.opponent()));
        crate::review::estimate(&self.game, &seen, self.estimate_seed(step + 1))
    }

    /// The seed of the human's win estimate after `step` steps: the same position of the same
    /// deal always gets the same figure (a game loaded from its record, and its review,
    /// included).
    fn estimate_seed(&self, step: usize) -> u64 {
        crate::review::estimate_seed(self.now.referee.deal().seed, self.human, step)
    }

    /// Resolves chance events and lets the bot decide until the human must decide or the game
    /// is over, and returns those steps as the human sees them. Setting `stop` (from another
    /// thread) cancels the bot's search: the steps before it are kept, the bot's decision is not
    /// taken, and [`SessionError::Cancelled`] is returned; calling again resumes.
    pub fn advance(&mut self, stop: &AtomicBool) -> Result<Vec<LogEntry>, SessionError> {
        self.advance_with(stop, &mut |_| {})
    }

    /// As [`Session::advance`], handing each step to `on_step` as soon as it is taken (for an
    /// interface that shows the bot's moves while it goes on).
    pub fn advance_with(
        &mut self,
        stop: &AtomicBool,
        on_step: &mut dyn FnMut(&LogEntry),
    ) -> Result<Vec<LogEntry>, SessionError> {
        let from = self.line.len();
        self.check_deal_hidden()?;
        loop {
            let d = match self.to_move() {
                ToMove::Human | ToMove::Over => return Ok(self.log(from)),
                ToMove::Chance => self.now.referee.resolve(&self.game, &self.now.state),
                ToMove::Bot => self.bot_decision(stop)?,
            };
            let mut after = self.now.state;
            self.game
                .apply(&mut after, d)
                .map_err(SessionError::BotFailed)?;
            self.note_deal_if_shown(after.is_over())?;
            let thought = self.pending_thought.take();
            self.push(d, after);
            if let Some(last) = self.line.last_mut() {
                last.thought = thought;
            }
            on_step(&self.log(self.line.len() - 1)[0]);
        }
    }

    /// The bot's decision now, from its own observation.
    fn bot_decision(&mut self, stop: &AtomicBool) -> Result<Decision, SessionError> {
        if stop.load(Ordering::Relaxed) {
            return Err(SessionError::Cancelled);
        }
        let bot = self.human.opponent();
        let deal_seed = self.now.referee.deal().seed;
        let observation = Observation::new(&self.now.state, bot)
            .with_evidence(self.now.evidence.about(self.human));
        let choice = self.bot.decide(&Request {
            game: &self.game,
            observation: &observation,
            budget: self.budget,
            seed: decision_seed(deal_seed, bot, self.now.bot_decisions),
            cancel: Some(stop),
        });
        if stop.load(Ordering::Relaxed) {
            return Err(SessionError::Cancelled);
        }
        self.pending_thought = Some(thought(&self.game, self.line.len(), &choice));
        Ok(choice.decision)
    }

    /// The budget [`Session::hint`] uses by default: the `strong` level's.
    pub fn hint_budget() -> Budget {
        Level::Strong.preset().budget
    }

    /// A strong fair search's best candidates for the human's decision, from the human's own
    /// observation, with `budget` (see [`Session::hint_budget`]); the chances shown are
    /// [`crate::review::estimate`]s, the one figure of the win history: now, and after each
    /// candidate. Cancellable like
    /// [`Session::advance`]. The hint is written into the record.
    pub fn hint(&mut self, budget: Budget, stop: &AtomicBool) -> Result<HintNote, SessionError> {
        self.check_deal_hidden()?;
        self.human_to_move()?;
        let mut helper = match Level::Strong.preset().player() {
            Player::Fair(bot) => bot,
            Player::Cheating(bot) => return Err(SessionError::CheatingBot(bot.name().into())),
        };
        let observation = self.observation();
        let seed = decision_seed(
            self.now.referee.deal().seed,
            self.human,
            self.hints.len() as u32,
        );
        let choice = helper.decide(&Request {
            game: &self.game,
            observation: &observation,
            budget,
            seed,
            cancel: Some(stop),
        });
        if stop.load(Ordering::Relaxed) {
            return Err(SessionError::Cancelled);
        }
        let analysis = choice.analysis.unwrap_or_default();
        let step = self.line.len();
        let mut tried: Vec<(Decision, u64)> = analysis
            .candidates
            .iter()
            .map(|c| (c.decision, c.visits))
            .collect();
        if tried.is_empty() {
            tried.push((choice.decision, 0)); // a forced decision: nothing to search
        }
        let candidates = tried
            .into_iter()
            .map(|(decision, visits)| HintCandidate {
                decision: decision.notation(self.game.terrain()),
                visits,
                value: self.estimate_after(decision, step),
            })
            .collect();
        let note = HintNote {
            step,
            iterations: analysis.iterations,
            win: Some(crate::review::estimate(
                &self.game,
                &observation,
                self.estimate_seed(step),
            )),
            candidates,
        };
        self.hints.push(note.clone());
        Ok(note)
    }

    /// Whether [`Session::undo`] would take something back now, and why not.
    pub fn can_undo(&self) -> Result<(), UndoRefused> {
        if self.resigned {
            return Err(UndoRefused::Resigned);
        }
        if self.is_over() {
            return Err(UndoRefused::GameOver);
        }
        let point = self.points.last().ok_or(UndoRefused::NothingToUndo)?;
        if point.steps < self.barrier {
            let step = self.barrier - 1;
            let p = &self.line[step];
            return Err(UndoRefused::SeenChance {
                step,
                what: format!(
                    "'{}' ({})",
                    p.decision.notation(self.game.terrain()),
                    p.during
                ),
            });
        }
        Ok(())
    }

    /// Takes back the human's last decision and every step after it (the bot's replies), back
    /// to that decision of the human. Refused across a chance outcome the human has seen.
    pub fn undo(&mut self) -> Result<(), UndoRefused> {
        if self.check_deal_hidden().is_err() {
            return Err(UndoRefused::GameOver);
        }
        self.can_undo()?;
        let point = self.points.pop().ok_or(UndoRefused::NothingToUndo)?;
        let terrain = self.game.terrain();
        let taken_back = self.line[point.steps..]
            .iter()
            .map(|p| p.decision.notation(terrain))
            .collect();
        self.undos.push(UndoNote {
            step: point.steps,
            taken_back,
        });
        self.line.truncate(point.steps);
        self.win_history.truncate(point.wins);
        self.now = point.at;
        Ok(())
    }

    /// The human gives up: the bot wins.
    pub fn resign(&mut self) -> Result<(), SessionError> {
        self.check_deal_hidden()?;
        if self.is_over() {
            return Err(SessionError::GameOver);
        }
        self.note_deal_if_shown(true)?;
        self.resigned = true;
        Ok(())
    }

    /// Guards this game's deal with the list of shown deals (the player's data folder, for the
    /// interfaces). A game whose seed the program drew refuses to start, or to go on, once a
    /// copy of it has ended and shown the deal ([`SessionError::DealShown`]; a running copy
    /// then ends without a winner, `end = "void"`). Every game notes its deal there before its
    /// end shows it; a game already over is noted now.
    pub fn guard_deal(&mut self, shown: ShownDeals) -> Result<(), SessionError> {
        self.shown = Some(shown);
        if self.resigned || self.now.state.is_over() {
            return self.note_deal_if_shown(true);
        }
        self.check_deal_hidden()
    }

    /// The deal's seed, when the human may know it: they chose it, or the game is over.
    pub fn seed(&self) -> Option<u64> {
        (self.seed_chosen || self.is_over()).then_some(self.now.referee.deal().seed)
    }

    /// Whether a copy of this unfinished game, whose seed is secret, has shown the deal: the
    /// game is then over without a winner. Read on every look at the game, so that the page
    /// shows it at once; a list that cannot be read counts as not shown here and refuses the
    /// next step in [`Session::check_deal_hidden`].
    fn deal_shown_elsewhere(&self) -> bool {
        !self.seed_chosen
            && !self.resigned
            && !self.now.state.is_over()
            && self
                .shown
                .as_ref()
                .is_some_and(|s| s.contains(self.now.referee.deal()).unwrap_or(false))
    }

    /// Refuses to go on, ending the game without a winner, once a copy of a secret deal has
    /// shown it (or when the list of shown deals cannot be read).
    fn check_deal_hidden(&mut self) -> Result<(), SessionError> {
        if self.void {
            return Err(SessionError::DealShown);
        }
        let Some(shown) = &self.shown else {
            return Ok(());
        };
        if !self.seed_chosen
            && !self.resigned
            && !self.now.state.is_over()
            && shown.contains(self.now.referee.deal())?
        {
            self.void = true;
            return Err(SessionError::DealShown);
        }
        Ok(())
    }

    /// Notes the deal as shown before a step that ends the game is taken (`ends`), so that a
    /// deal is never shown without every copy knowing; a failure refuses the step.
    fn note_deal_if_shown(&self, ends: bool) -> Result<(), SessionError> {
        match (&self.shown, ends) {
            (Some(shown), true) => Ok(shown.add(self.now.referee.deal())?),
            _ => Ok(()),
        }
    }

    /// The game so far as a `toybattle-record/1` record (`toybattle replay` accepts it). It holds
    /// the deal, which is hidden information while the game goes on. An unfinished game ends
    /// with `end = "unfinished"` and no winner, a resigned one with `end = "resign"`.
    pub fn record(&self) -> GameRecord {
        let s = &self.now.state;
        let deal = self.now.referee.deal().clone();
        // A void game did not end under the rules: its record replays as unfinished.
        let (winner, end) = match self.result_view() {
            Some(r) if r.end != "void" => (r.winner, r.end),
            _ => (None, "unfinished".to_string()),
        };
        let mut players = [String::new(), String::new()];
        players[self.human.index()] = "human".into();
        players[self.human.opponent().index()] = self.bot_name.clone();
        GameRecord {
            format: RECORD_FORMAT.to_string(),
            terrain: self.game.terrain().key.clone(),
            variant: self.game.variant(),
            seed: deal.seed,
            deal,
            players,
            steps: self
                .line
                .iter()
                .map(|p| p.decision.notation(self.game.terrain()))
                .collect(),
            result: RecordResult {
                winner,
                end,
                turns: s.turn(),
                medals: ByColour::from_fn(|c| s.medals(c)),
            },
            terrain_fingerprint: Some(crate::record::fingerprint(&self.game)),
            what_if: *self.game.what_if(),
            session: Some(SessionNotes {
                human: self.human,
                level: self.level.name().to_string(),
                undos: self.undos.clone(),
                hints: self.hints.clone(),
                seed_chosen: self.seed_chosen,
            }),
        }
    }

    /// Resumes a game saved by [`Session::record`]: the record must replay (see
    /// [`crate::record::replay`]) and carry its session notes; the chance outcomes must be the
    /// referee's. Undo works back into the loaded steps as it did before saving.
    pub fn load(record: &GameRecord) -> Result<Session, SessionError> {
        let notes = record.session.as_ref().ok_or_else(|| {
            SessionError::NotASession(format!(
                "it has no 'session' notes: it is not a game against the computer (players {} \
                 and {})",
                record.players[0], record.players[1]
            ))
        })?;
        let level: Level = notes
            .level
            .parse()
            .map_err(|e: UnknownLevel| SessionError::NotASession(e.to_string()))?;
        let game = Game::builtin(&record.terrain, record.variant)
            .map_err(|e| SessionError::NotASession(e.to_string()))?;
        // A game played on other terrain data (a --terrain-file) is not this program's game,
        // even where its steps happen to replay.
        if let Err(e) = crate::record::check_fingerprint(record, &game) {
            return Err(SessionError::NotASession(format!(
                "it was played on other terrain data than this program's {} ({} variant): \
                 fingerprint {} instead of {}",
                game.terrain().name,
                e.variant,
                e.recorded,
                e.given
            )));
        }
        replay(&game, record)?;
        let preset = level.preset();
        let mut session = Session::from_deal(
            game,
            level,
            notes.human,
            record.deal.clone(),
            preset.player(),
            preset.budget,
        )?;
        for (index, step) in record.steps.iter().enumerate() {
            session.load_step(index, step)?;
        }
        session.seed_chosen = notes.seed_chosen;
        session.undos = notes.undos.clone();
        session.hints = notes.hints.clone();
        session.resigned = record.result.end == "resign";
        Ok(session)
    }

    /// Resumes a game from the text of a saved record (JSON); a file of another format or a
    /// corrupt one gets an error that says so.
    pub fn load_json(text: &str) -> Result<Session, SessionError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| SessionError::Json(e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(RECORD_FORMAT) => {}
            Some(other) => {
                return Err(SessionError::Record(ReplayError::Format {
                    found: other.to_string(),
                }))
            }
            None => {
                return Err(SessionError::Json(format!(
                    "it has no \"format\" field (a saved game has \"format\": \"{RECORD_FORMAT}\")"
                )))
            }
        }
        let record: GameRecord =
            serde_json::from_value(value).map_err(|e| SessionError::Json(e.to_string()))?;
        Session::load(&record)
    }

    /// Plays one recorded step (already replayed, so legal) through the session.
    fn load_step(&mut self, index: usize, step: &str) -> Result<(), SessionError> {
        let d = Decision::parse(step, self.game.terrain())
            .map_err(|e| SessionError::Notation(e.to_string()))?;
        match self.to_move() {
            ToMove::Human => self.apply_decision(d),
            ToMove::Chance => {
                let referee = self.now.referee.resolve(&self.game, &self.now.state);
                if referee != d {
                    return Err(SessionError::NotASession(format!(
                        "step {index} ('{step}') is not the referee's outcome ('{}'): the \
                         record was not played in a session from its deal",
                        referee.notation(self.game.terrain())
                    )));
                }
                self.play_checked(d)
            }
            _ => self.play_checked(d),
        }
    }

    fn play_checked(&mut self, d: Decision) -> Result<(), SessionError> {
        let mut after = self.now.state;
        self.game.apply(&mut after, d)?;
        self.push(d, after);
        Ok(())
    }
}

/// What the bot's `choice` at step `step` shows of its search: its five best candidates.
fn thought(game: &Game, step: usize, choice: &crate::bot::Choice) -> BotThought {
    let terrain = game.terrain();
    let analysis = choice.analysis.clone().unwrap_or_default();
    BotThought {
        step,
        decision: choice.decision.notation(terrain),
        iterations: analysis.iterations,
        candidates: analysis
            .candidates
            .iter()
            .take(5)
            .map(|c| BotCandidate {
                decision: c.decision.notation(terrain),
                visits: c.visits,
                win: c.value,
            })
            .collect(),
    }
}
