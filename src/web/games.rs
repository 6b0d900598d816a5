//! The open games: create, look up, evict; and the API calls that play them.

use super::{parse_body, ApiError, ApiResult, App, Config};
use crate::bot::preset::BotConfig;
use crate::record::notes::HintNote;
use crate::record::GameRecord;
use crate::rules::{Colour, Game, Variant};
use crate::session::{
    describe_save, save_name, DecisionGroup, HumanView, Level, LogEntry, Session, SessionConfig,
    SessionError, ShownDeals, ShownDealsError, ToMove, UnknownLevel,
};
use crate::terrain::input;
use axum::body::Bytes;
use axum::extract::{Path, State as Ctx};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A level as the new-game dialog lists it.
#[derive(Serialize)]
pub struct LevelInfo {
    pub name: &'static str,
    pub description: String,
}

pub fn levels() -> Vec<LevelInfo> {
    Level::ALL
        .iter()
        .map(|l| LevelInfo {
            name: l.name(),
            description: l.description(),
        })
        .collect()
}

/// The open games, keyed by an unguessable id, at most `config.max_games` of them.
pub struct Games {
    config: Config,
    open: Mutex<HashMap<String, Arc<Slot>>>,
    /// The threads every game's searches (bot turns and hints) share.
    cores: Arc<Cores>,
    /// The deals shown by finished games (the data folder's list), or why it cannot be used:
    /// then no game can be started or loaded, since its deal could not be guarded.
    shown: Result<ShownDeals, ShownDealsError>,
}

/// The search threads all games share, so that each level keeps its thinking time however many
/// games ask at once: a search takes as many as its level runs (at most all of them) before it
/// starts, and waits while they are busy. Searches beyond the machine's cores would each run
/// slower than their level says, and hold a tree each in memory. Waiting searches are served in
/// the order they asked, so that a two-thread search is not passed forever by one-thread ones.
struct Cores {
    total: usize,
    pool: Mutex<Pool>,
    freed: Condvar,
}

/// The free threads and the searches waiting for theirs, first asked first.
struct Pool {
    free: usize,
    waiting: VecDeque<u64>,
    next_ticket: u64,
}

/// Threads taken from [`Cores`]; given back exactly once, when dropped.
struct Held {
    cores: Arc<Cores>,
    threads: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        lock(&self.cores.pool).free += self.threads;
        self.cores.freed.notify_all();
    }
}

/// How often a waiting search looks at its stop flag without being woken: a game closed to make
/// room sets the flag without knowing the cores.
const STOP_CHECK: Duration = Duration::from_millis(100);

impl Cores {
    fn new(total: usize) -> Arc<Cores> {
        let total = total.max(1);
        Arc::new(Cores {
            total,
            pool: Mutex::new(Pool {
                free: total,
                waiting: VecDeque::new(),
                next_ticket: 0,
            }),
            freed: Condvar::new(),
        })
    }

    /// The share of a search on `threads` threads (0 for a bot that does not search).
    fn share(&self, threads: usize) -> usize {
        threads.min(self.total)
    }

    /// The threads for a search on `threads`, if they are free now and no search waits before it.
    fn try_take(self: &Arc<Self>, threads: usize) -> Option<Held> {
        let threads = self.share(threads);
        let mut pool = lock(&self.pool);
        let turn = threads == 0 || pool.waiting.is_empty();
        (turn && pool.free >= threads).then(|| self.hold(&mut pool, threads))
    }

    /// Waits until the threads for a search on `threads` are free and every search that asked
    /// before has had its own, then takes them; `None` when `stop` is set first (then nothing is
    /// taken and the searches behind it move up).
    fn take(self: &Arc<Self>, threads: usize, stop: &AtomicBool) -> Option<Held> {
        let threads = self.share(threads);
        let mut pool = lock(&self.pool);
        if threads == 0 {
            return Some(self.hold(&mut pool, 0));
        }
        let ticket = pool.next_ticket;
        pool.next_ticket += 1;
        pool.waiting.push_back(ticket);
        loop {
            if stop.load(Ordering::Relaxed) {
                pool.waiting.retain(|&t| t != ticket);
                self.freed.notify_all();
                return None;
            }
            if pool.waiting.front() == Some(&ticket) && pool.free >= threads {
                pool.waiting.pop_front();
                // The next in line may fit in what is left.
                self.freed.notify_all();
                return Some(self.hold(&mut pool, threads));
            }
            pool = self
                .freed
                .wait_timeout(pool, STOP_CHECK)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Takes `threads` free threads from `pool`.
    fn hold(self: &Arc<Self>, pool: &mut Pool, threads: usize) -> Held {
        pool.free -= threads;
        Held {
            cores: self.clone(),
            threads,
        }
    }

    /// Wakes the waiting searches, e.g. to see that one of them was stopped.
    fn wake(&self) {
        let _pool = lock(&self.pool);
        self.freed.notify_all();
    }
}

/// The threads a level's bot searches with; 0 when it does not search.
fn search_threads(level: Level) -> usize {
    match level.preset().config {
        BotConfig::Search { config, .. } => config.threads,
        BotConfig::Random | BotConfig::Greedy => 0,
    }
}

/// One open game. Its lock is held only briefly: while the bot thinks, the session is out on
/// the thinking thread and the page is answered from the last view.
pub struct Slot {
    live: Mutex<Live>,
}

struct Live {
    /// `None` while the bot's thread has it.
    session: Option<Session>,
    last_used: Instant,
    thinking: Option<Thinking>,
    /// The view sent last: answered again while the bot thinks.
    shown: Option<GameView>,
    /// The hint asked for the current decision, if any.
    hint: Option<HintNote>,
    /// Whether the human stopped the bot: it then waits for a new request to think.
    stopped: bool,
    /// Why the last bot turn failed, if it did.
    failure: Option<String>,
}

struct Thinking {
    /// A hint for the human's decision, not the computer's turn.
    hint: bool,
    /// When the search began, or when the turn was asked while it waits for free cores.
    started: Instant,
    /// Waiting for free cores: the search has not started.
    queued: bool,
    stop: Arc<AtomicBool>,
    expected_ms: Option<u64>,
    /// The steps taken so far in this turn, as the human sees them.
    steps: Vec<LogEntry>,
}

impl Games {
    pub fn new(config: Config) -> Games {
        let cores = config.search_threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        Games {
            shown: ShownDeals::in_folder(&config.data),
            config,
            open: Mutex::new(HashMap::new()),
            cores: Cores::new(cores),
        }
    }

    /// Guards a new or loaded game's deal with the shown deals (see [`Session::guard_deal`]).
    fn guard(&self, session: &mut Session) -> Result<(), SessionError> {
        let shown = self.shown.clone()?;
        session.guard_deal(shown)
    }

    /// Opens a game; at the cap, the least recently used game is closed first (its bot, if
    /// thinking, is told to stop).
    fn insert(&self, session: Session) -> (String, Arc<Slot>) {
        let mut open = lock(&self.open);
        while open.len() >= self.config.max_games.max(1) {
            let oldest = open
                .iter()
                .min_by_key(|(_, s)| lock(&s.live).last_used)
                .map(|(id, _)| id.clone());
            match oldest.and_then(|id| open.remove(&id)) {
                Some(slot) => {
                    if let Some(t) = &lock(&slot.live).thinking {
                        t.stop.store(true, Ordering::Relaxed);
                        self.cores.wake();
                    }
                }
                None => break,
            }
        }
        let id = new_id();
        let slot = Arc::new(Slot {
            live: Mutex::new(Live {
                session: Some(session),
                last_used: Instant::now(),
                thinking: None,
                shown: None,
                hint: None,
                stopped: false,
                failure: None,
            }),
        });
        open.insert(id.clone(), slot.clone());
        (id, slot)
    }

    /// How many search threads the games share (`--search-threads`, or one per core): the size
    /// of a review's pool, which takes them all.
    pub(super) fn cores_total(&self) -> usize {
        self.cores.total
    }

    /// Waits until every core the searches share is free and taken (a review runs on all of
    /// them), or until `stop` is set (then nothing is taken); they are given back when the
    /// answer drops.
    pub(super) fn take_all_cores(&self, stop: &AtomicBool) -> Option<impl Send> {
        self.cores.take(self.cores.total, stop)
    }

    /// The review of game `id` ready to run off its lock (see [`Session::review_job`]).
    pub(super) fn review_job(
        &self,
        id: &str,
        options: &crate::review::ReviewOptions,
    ) -> Result<crate::session::ReviewJob, ApiError> {
        let slot = self.get(id)?;
        let mut live = lock(&slot.live);
        Ok(live.session()?.review_job(options))
    }

    /// Opens a game and returns its first view.
    pub(super) fn open(&self, session: Session) -> GameView {
        let (id, slot) = self.insert(session);
        let view = lock(&slot.live).game_view(&id);
        view
    }

    fn get(&self, id: &str) -> Result<Arc<Slot>, ApiError> {
        let slot = lock(&self.open)
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::UnknownGame(id.to_string()))?;
        lock(&slot.live).last_used = Instant::now();
        Ok(slot)
    }
}

/// A poisoned lock means a thread panicked while holding it; the data (views, a session whose
/// every change is all-or-nothing) is still whole, so serving goes on.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// 128 random bits from the operating system's generator, in hex: ids cannot be guessed.
fn new_id() -> String {
    let bits: u128 = rand::random();
    format!("{bits:032x}")
}

/// The bot's turn under way, as the page shows it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ThinkingView {
    /// The search is a hint for the human's decision (asked with `hint`), not the computer's
    /// turn; it is stopped the same way.
    pub hint: bool,
    /// The computer waits for free cores: other games' searches use them all. Its thinking
    /// time starts once it has them.
    pub queued: bool,
    /// Milliseconds since the bot's search began, or while queued since the turn was asked.
    pub elapsed_ms: u64,
    /// How long the level thinks per decision, when it has a time budget only.
    pub expected_ms: Option<u64>,
    /// The steps of this turn taken so far (the computer's moves, chance outcomes masked as in
    /// the log).
    pub so_far: Vec<LogEntry>,
}

/// Everything the page is sent about a game: the human's view (their observation and public
/// facts, see [`HumanView`]), their legal decisions, and the state of the bot's thinking.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct GameView {
    /// The game's id on this server: 32 hex digits, the key of its `/api/games/{id}` calls.
    pub id: String,
    /// What the human may see of the game.
    pub view: HumanView,
    /// The human's legal decisions, grouped by kind and troop (or a move's origin); empty when
    /// it is not their decision.
    pub legal: Vec<DecisionGroup>,
    /// Present while the bot thinks.
    pub thinking: Option<ThinkingView>,
    /// The human stopped the bot's thinking: it thinks again when asked.
    pub stopped: bool,
    /// The hint for the human's current decision, if asked.
    pub hint: Option<HintNote>,
    /// Why the bot's last turn failed, if it did.
    pub failure: Option<String>,
}

impl GameView {
    /// What the page is sent about a session between two requests: the human's view and legal
    /// decisions, nothing thinking, no hint or failure. Every answer about a game starts here,
    /// so this is where hidden information would leak, and where the tests look.
    pub fn of(id: &str, session: &Session) -> GameView {
        GameView {
            id: id.to_string(),
            view: session.view(),
            legal: match session.to_move() {
                ToMove::Human => session.legal(),
                _ => Vec::new(),
            },
            thinking: None,
            stopped: false,
            hint: None,
            failure: None,
        }
    }
}

impl Live {
    /// The view of the game now: built afresh when the session is here, else the last one
    /// shown with the thinking time brought up to date.
    fn game_view(&mut self, id: &str) -> GameView {
        let thinking = self.thinking.as_ref().map(|t| ThinkingView {
            hint: t.hint,
            queued: t.queued,
            elapsed_ms: t.started.elapsed().as_millis() as u64,
            expected_ms: t.expected_ms,
            so_far: t.steps.clone(),
        });
        let shown = match (&self.session, self.shown.take()) {
            (Some(session), _) => GameView {
                stopped: self.stopped,
                hint: self.hint.clone(),
                failure: self.failure.clone(),
                ..GameView::of(id, session)
            },
            (None, Some(old)) => old,
            (None, None) => unreachable!("a session is only taken out after a view was shown"),
        };
        let view = GameView { thinking, ..shown };
        self.shown = Some(view.clone());
        view
    }

    fn session(&mut self) -> Result<&mut Session, ApiError> {
        match (self.session.as_mut(), &self.thinking) {
            (Some(s), _) => Ok(s),
            (None, Some(t)) if t.hint => Err(ApiError::Conflict(
                "the computer is thinking about a hint: wait for it, or stop it".into(),
            )),
            (None, _) => Err(ApiError::Conflict(
                "the computer is thinking: wait for its move, or stop it".into(),
            )),
        }
    }
}

/// The session's refusals: a bad request (400) when the request itself is at fault, a conflict
/// (409) when it does not fit the game's moment.
fn refused(e: SessionError) -> ApiError {
    match e {
        SessionError::Notation(_) | SessionError::Illegal(_) => ApiError::BadRequest(e.to_string()),
        SessionError::Record(_) | SessionError::NotASession(_) | SessionError::Json(_) => {
            ApiError::BadRequest(e.to_string())
        }
        SessionError::GameOver
        | SessionError::NotYourTurn(_)
        | SessionError::Cancelled
        | SessionError::DealShown => ApiError::Conflict(e.to_string()),
        SessionError::CheatingBot(_) | SessionError::BotFailed(_) | SessionError::ShownDeals(_) => {
            ApiError::Internal(e.to_string())
        }
    }
}

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/decision", post(decide))
        .route("/api/games/{id}/bot", post(bot_turn))
        .route("/api/games/{id}/cancel", post(cancel))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/save", post(save))
        .route("/api/games/{id}/record", get(record))
        .route("/api/saves", get(saves))
        .route("/api/saves/{name}", delete(delete_save))
        .route("/api/saves/{name}/load", post(load))
}

/// The new-game dialog's choices.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    terrain: String,
    #[serde(default)]
    variant: Option<String>,
    level: String,
    /// "blue", "red" or "random".
    #[serde(default)]
    seat: Option<String>,
    /// "deal" (as the deal says), "human" or "bot".
    #[serde(default)]
    first: Option<String>,
    /// The deal's seed, 0 to 2^64 - 1: decimal text (the page sends text, as a JavaScript
    /// number keeps only 53 bits) or a JSON number; random when absent, null or empty.
    #[serde(default)]
    seed: Option<serde_json::Value>,
}

/// The seed of a new game's request, read exactly; `None` for a random one.
fn seed_of(seed: Option<&serde_json::Value>) -> Result<Option<u64>, ApiError> {
    let text = match seed {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(serde_json::Value::String(s)) => s.trim().to_string(),
        Some(other) => other.to_string(),
    };
    text.parse().map(Some).map_err(|_| {
        ApiError::BadRequest(format!(
            "the seed '{text}' is not a whole number from 0 to {}",
            u64::MAX
        ))
    })
}

async fn create(Ctx(app): Ctx<Arc<App>>, body: Bytes) -> ApiResult<GameView> {
    let new: NewGame = parse_body(&body)?;
    let variant: Variant = new
        .variant
        .as_deref()
        .unwrap_or("normal")
        .parse()
        .map_err(|e: crate::rules::ParseVariantError| ApiError::BadRequest(e.to_string()))?;
    let terrain = app
        .terrains
        .iter()
        .find(|t| t.key == new.terrain || t.name.eq_ignore_ascii_case(&new.terrain))
        .ok_or_else(|| ApiError::BadRequest(format!("unknown terrain '{}'", new.terrain)))?;
    let level: Level = new
        .level
        .parse()
        .map_err(|e: UnknownLevel| ApiError::BadRequest(e.to_string()))?;
    let human = match new.seat.as_deref().unwrap_or("blue") {
        "random" => {
            if rand::random::<bool>() {
                Colour::Blue
            } else {
                Colour::Red
            }
        }
        seat => seat
            .parse()
            .map_err(|e: crate::vocabulary::ParseColourError| {
                ApiError::BadRequest(format!("{e} (or 'random') for the seat"))
            })?,
    };
    let first = match new.first.as_deref().unwrap_or("deal") {
        "deal" => None,
        "human" => Some(human),
        "bot" => Some(human.opponent()),
        other => {
            return Err(ApiError::BadRequest(format!(
                "unknown first player '{other}': expected 'deal', 'human' or 'bot'"
            )))
        }
    };
    let seed = seed_of(new.seed.as_ref())?;
    let mut session = Session::new(SessionConfig {
        game: Game::new(terrain.clone(), variant),
        level,
        human,
        first,
        // A drawn seed comes from the operating system's generator: it cannot be guessed.
        seed: seed.unwrap_or_else(rand::random),
        seed_chosen: seed.is_some(),
    })
    .map_err(refused)?;
    app.games.guard(&mut session).map_err(refused)?;
    let (id, slot) = app.games.insert(session);
    let view = lock(&slot.live).game_view(&id);
    Ok(Json(view))
}

async fn show(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let view = lock(&slot.live).game_view(&id);
    Ok(Json(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecisionBody {
    /// In notation, e.g. "place Jumbo 13".
    decision: String,
}

async fn decide(
    Ctx(app): Ctx<Arc<App>>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let d: DecisionBody = parse_body(&body)?;
    let mut live = lock(&slot.live);
    live.session()?.apply(&d.decision).map_err(refused)?;
    live.hint = None;
    live.stopped = false;
    Ok(Json(live.game_view(&id)))
}

/// Starts the bot's turn (and any chance events) on a blocking thread; the page polls the game
/// until `thinking` is gone.
async fn bot_turn(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let mut live = lock(&slot.live);
    let session = live.session()?;
    match session.to_move() {
        ToMove::Bot | ToMove::Chance => {}
        ToMove::Human => {
            return Err(ApiError::Conflict(
                "it is your decision, not the computer's".into(),
            ))
        }
        ToMove::Over => return Err(ApiError::Conflict("the game is over".into())),
    }
    let expected_ms = expected_ms(session.level().preset().budget);
    let threads = search_threads(session.level());
    let held = app.games.cores.try_take(threads);
    live.game_view(&id); // what the page sees while the session is away
    let mut session = live.session.take().expect("checked above");
    let stop = Arc::new(AtomicBool::new(false));
    live.thinking = Some(Thinking {
        hint: false,
        started: Instant::now(),
        queued: held.is_none(),
        stop: stop.clone(),
        expected_ms,
        steps: Vec::new(),
    });
    live.stopped = false;
    live.failure = None;
    let view = live.game_view(&id);
    drop(live);
    let back = slot.clone();
    let cores = app.games.cores.clone();
    tokio::task::spawn_blocking(move || {
        let held = held.or_else(|| wait_for_cores(&cores, threads, &stop, &back));
        let result = match held {
            Some(_) => session.advance_with(&stop, &mut |step| {
                if let Some(t) = lock(&back.live).thinking.as_mut() {
                    t.steps.push(step.clone());
                }
            }),
            None => Err(SessionError::Cancelled),
        };
        let mut live = lock(&back.live);
        live.session = Some(session);
        live.thinking = None;
        live.shown = None;
        match result {
            Ok(_) => {}
            Err(SessionError::Cancelled) => live.stopped = true,
            Err(e) => live.failure = Some(e.to_string()),
        }
        // The cores go back (when `held` drops, after this) only once the game shows its
        // move: a search that then starts finds this game's turn over.
        drop(live);
        drop(held);
    });
    Ok(Json(view))
}

async fn cancel(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let mut live = lock(&slot.live);
    match &live.thinking {
        Some(t) => {
            t.stop.store(true, Ordering::Relaxed);
            app.games.cores.wake();
        }
        None => return Err(ApiError::Conflict("the computer is not thinking".into())),
    }
    Ok(Json(live.game_view(&id)))
}

/// How long a search with `budget` is expected to think, when it has a time budget only. A time
/// budget that is only a safety net beside an iteration budget says nothing of the usual
/// thinking time: the page then just shows that the computer is thinking.
fn expected_ms(budget: crate::bot::Budget) -> Option<u64> {
    match budget.iterations {
        None => budget.time.map(|t| t.as_millis() as u64),
        Some(_) => None,
    }
}

/// Waits for the cores of a search on `threads` that found them busy; the game then shows it
/// thinking from now. `None` when stopped while waiting.
fn wait_for_cores(
    cores: &Arc<Cores>,
    threads: usize,
    stop: &AtomicBool,
    slot: &Slot,
) -> Option<Held> {
    let held = cores.take(threads, stop);
    if let Some(t) = lock(&slot.live).thinking.as_mut() {
        t.queued = false;
        t.started = Instant::now();
    }
    held
}

/// A strong search's candidates for the human's decision. A hint is thinking, as the computer's
/// turn is: while it runs the game shows it (`thinking.hint`), other calls wait for it, and
/// `cancel` stops it (then the game shows `stopped` and no hint). The request waits for the
/// hint; the search's thread gives the session back to the game itself, so a page that goes away
/// meanwhile leaves the game whole.
async fn hint(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    // The hint searches as the strong level does (see `Session::hint`).
    let threads = search_threads(Level::Strong);
    let (mut session, held, stop) = {
        let mut live = lock(&slot.live);
        if live.session()?.to_move() != ToMove::Human {
            return Err(ApiError::Conflict(
                "a hint is for your own decision; it is not yours now".into(),
            ));
        }
        let held = app.games.cores.try_take(threads);
        live.game_view(&id); // what the page sees while the session is away
        let session = live.session.take().expect("checked above");
        let stop = Arc::new(AtomicBool::new(false));
        live.thinking = Some(Thinking {
            hint: true,
            started: Instant::now(),
            queued: held.is_none(),
            stop: stop.clone(),
            expected_ms: expected_ms(Session::hint_budget()),
            steps: Vec::new(),
        });
        live.stopped = false;
        (session, held, stop)
    };
    let (back, cores) = (slot.clone(), app.games.cores.clone());
    let (done, answer) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let held = held.or_else(|| wait_for_cores(&cores, threads, &stop, &back));
        let note = match held {
            Some(_) => session.hint(Session::hint_budget(), &stop),
            None => Err(SessionError::Cancelled),
        };
        let mut live = lock(&back.live);
        live.session = Some(session);
        live.thinking = None;
        live.shown = None;
        let refusal = match note {
            Ok(note) => {
                live.hint = Some(note);
                None
            }
            Err(SessionError::Cancelled) => {
                live.stopped = true;
                None
            }
            Err(e) => Some(refused(e)),
        };
        drop(live);
        drop(held);
        let _ = done.send(refusal); // the page may have gone away
    });
    let refusal = answer
        .await
        .map_err(|_| ApiError::Internal("the hint's search broke off".into()))?;
    if let Some(refusal) = refusal {
        return Err(refusal);
    }
    let view = lock(&slot.live).game_view(&id);
    Ok(Json(view))
}

async fn undo(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let mut live = lock(&slot.live);
    live.session()?
        .undo()
        .map_err(|e| ApiError::Conflict(format!("cannot undo: {e}")))?;
    live.hint = None;
    live.stopped = false;
    Ok(Json(live.game_view(&id)))
}

async fn resign(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<GameView> {
    let slot = app.games.get(&id)?;
    let mut live = lock(&slot.live);
    live.session()?.resign().map_err(refused)?;
    Ok(Json(live.game_view(&id)))
}

#[derive(Serialize)]
struct Saved {
    name: String,
}

/// Seconds since 1970 now (0 on a clock set before it).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Keeps the game's record in the saves folder: it holds the deal (the hidden tiles), so it
/// stays on the server while the game goes on. Named after the game (terrain, date, level,
/// turn), with a number added when that name is taken.
async fn save(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<Saved> {
    let slot = app.games.get(&id)?;
    let record = lock(&slot.live).session()?.record();
    let dir = &app.games.config.saves;
    std::fs::create_dir_all(dir).map_err(|e| {
        ApiError::Internal(format!(
            "cannot create the saves folder {}: {e}",
            dir.display()
        ))
    })?;
    let text = serde_json::to_string_pretty(&record)
        .map_err(|e| ApiError::Internal(format!("cannot write the record: {e}")))?
        + "\n";
    let base = save_name(&record, unix_now());
    for n in 1..1000 {
        let name = match n {
            1 => base.clone(),
            n => format!("{base}-{n}"),
        };
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(format!("{name}.json")));
        match file {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(text.as_bytes()).map_err(|e| {
                    ApiError::Internal(format!("cannot save in {}: {e}", dir.display()))
                })?;
                return Ok(Json(Saved { name }));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ApiError::Internal(format!(
                    "cannot save in {}: {e}",
                    dir.display()
                )))
            }
        }
    }
    Err(ApiError::Internal(format!(
        "cannot save in {}: 999 saves are already named {base}",
        dir.display()
    )))
}

/// The record file, once the game is over (before, it would show the hidden tiles), named
/// after the game for the browser's download.
async fn record(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let slot = app.games.get(&id)?;
    let mut live = lock(&slot.live);
    let session = live.session()?;
    if !session.is_over() {
        return Err(ApiError::Conflict(
            "the record holds the deal (the computer's tiles and both reserves), so it is offered \
             once the game is over; use Save to keep an unfinished game on the server"
                .into(),
        ));
    }
    let record = session.record();
    let file = format!(
        "attachment; filename=\"toybattle-{}.json\"",
        save_name(&record, unix_now())
    );
    Ok(([(header::CONTENT_DISPOSITION, file)], Json(record)).into_response())
}

#[derive(Serialize)]
struct SaveEntry {
    name: String,
    description: String,
    /// Whether the save can be resumed: not when it is over, or when a copy of it has shown
    /// its deal (see [`Session::guard_deal`]); `description` then says why.
    playable: bool,
}

/// The saved games, newest first.
async fn saves(Ctx(app): Ctx<Arc<App>>) -> ApiResult<Vec<SaveEntry>> {
    let dir = &app.games.config.saves;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Json(Vec::new())),
        Err(e) => {
            return Err(ApiError::Internal(format!(
                "cannot read {}: {e}",
                dir.display()
            )))
        }
    };
    let mut found: Vec<(std::time::SystemTime, SaveEntry)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".json")?.to_string();
            let modified = e.metadata().and_then(|m| m.modified()).ok()?;
            Some((modified, app.describe(&e.path(), name, modified)))
        })
        .collect();
    found.sort_by_key(|e| std::cmp::Reverse(e.0));
    Ok(Json(found.into_iter().map(|(_, e)| e).collect()))
}

impl App {
    /// A save in the list: its public facts in words, never its deal.
    fn describe(
        &self,
        path: &std::path::Path,
        name: String,
        modified: std::time::SystemTime,
    ) -> SaveEntry {
        let unreadable = |why: String| SaveEntry {
            name: name.clone(),
            description: format!("(not a saved game: {why})"),
            playable: false,
        };
        let record = match input::read_text(path, input::SAVED_GAME)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<GameRecord>(&t).map_err(|e| e.to_string()))
        {
            Ok(record) => record,
            Err(why) => return unreadable(why),
        };
        let terrain = self
            .terrains
            .iter()
            .find(|t| t.key == record.terrain)
            .map_or(record.terrain.clone(), |t| t.name.clone());
        let seconds = modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut description = describe_save(&record, &terrain, seconds);
        let shown = self.games.shown.as_ref().ok();
        let deal_shown = record.result.end == "unfinished"
            && !record.session.as_ref().is_some_and(|n| n.seed_chosen)
            && shown.is_some_and(|s| s.contains(&record.deal).unwrap_or(false));
        if deal_shown {
            description +=
                " — its deal was shown when a copy of it ended: watch it in the replay viewer";
        }
        SaveEntry {
            name,
            description,
            playable: record.result.end == "unfinished" && !deal_shown,
        }
    }
}

/// A save's name from the page: letters, digits, '-', '_' and '.', not starting with '.'.
fn save_path(app: &App, name: &str) -> Result<std::path::PathBuf, ApiError> {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && !name.starts_with('.');
    if !plain {
        return Err(ApiError::BadRequest(format!(
            "'{name}' is not a save name (letters, digits, '-', '_' and '.' only)"
        )));
    }
    Ok(app.games.config.saves.join(format!("{name}.json")))
}

/// Deletes a saved game.
async fn delete_save(
    Ctx(app): Ctx<Arc<App>>,
    Path(name): Path<String>,
) -> ApiResult<Vec<SaveEntry>> {
    let path = save_path(&app, &name)?;
    match std::fs::remove_file(&path) {
        Ok(()) => saves(Ctx(app)).await,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(ApiError::NotFound(format!("no saved game '{name}'")))
        }
        Err(e) => Err(ApiError::Internal(format!("cannot delete '{name}': {e}"))),
    }
}

async fn load(Ctx(app): Ctx<Arc<App>>, Path(name): Path<String>) -> ApiResult<GameView> {
    let path = save_path(&app, &name)?;
    let text = input::read_text(&path, input::SAVED_GAME).map_err(|e| match e {
        input::InputError::Unreadable {
            kind: std::io::ErrorKind::NotFound,
            ..
        } => ApiError::NotFound(format!("no saved game '{name}'")),
        // Over the cap, not a regular file, not text: the reader's words name the file.
        e => ApiError::BadRequest(format!("saved game '{name}' cannot be resumed: {e}")),
    })?;
    let resumed = Session::load_json(&text).and_then(|mut session| {
        app.games.guard(&mut session)?;
        Ok(session)
    });
    let session = resumed.map_err(|e| match e {
        SessionError::DealShown => {
            ApiError::Conflict(format!("saved game '{name}' cannot be resumed: {e}"))
        }
        _ => ApiError::BadRequest(format!("saved game '{name}' cannot be resumed: {e}")),
    })?;
    let (id, slot) = app.games.insert(session);
    let view = lock(&slot.live).game_view(&id);
    Ok(Json(view))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_waiting_search_takes_nothing_and_the_next_one_runs() {
        let cores = Cores::new(1);
        let first = cores.try_take(1).expect("the core is free");
        assert!(cores.try_take(1).is_none(), "one core: the second waits");
        let stop = Arc::new(AtomicBool::new(false));
        let waiting = {
            let (cores, stop) = (cores.clone(), stop.clone());
            std::thread::spawn(move || cores.take(1, &stop).is_some())
        };
        stop.store(true, Ordering::Relaxed);
        cores.wake();
        assert!(
            !waiting.join().unwrap(),
            "stopped while waiting: nothing taken"
        );
        assert_eq!(
            lock(&cores.pool).free,
            0,
            "the first search still holds the core"
        );
        assert!(
            lock(&cores.pool).waiting.is_empty(),
            "its place is given up"
        );
        let next = {
            let cores = cores.clone();
            std::thread::spawn(move || cores.take(1, &AtomicBool::new(false)).map(|h| h.threads))
        };
        drop(first);
        assert_eq!(next.join().unwrap(), Some(1), "the next search runs");
        assert_eq!(lock(&cores.pool).free, 1, "given back once, not twice");
    }

    #[test]
    fn a_search_takes_its_levels_threads_at_most_all_and_a_plain_bot_none() {
        let cores = Cores::new(2);
        let two = cores.try_take(4).expect("all cores are free");
        assert_eq!(two.threads, 2, "more threads than cores: all of them");
        assert!(cores.try_take(1).is_none());
        let plain = cores.try_take(search_threads(Level::Beginner));
        assert_eq!(
            plain.map(|h| h.threads),
            Some(0),
            "the greedy bot does not search"
        );
        drop(two);
        assert_eq!(search_threads(Level::Casual), 1);
        assert_eq!(lock(&cores.pool).free, 2);
    }

    /// A two-thread search waiting for a busy core is not passed by one-thread searches that
    /// ask after it, though one core is free for them.
    #[test]
    fn waiting_searches_are_served_in_the_order_they_asked() {
        let cores = Cores::new(2);
        let one = cores.try_take(1).expect("both cores are free");
        let two = {
            let cores = cores.clone();
            std::thread::spawn(move || cores.take(2, &AtomicBool::new(false)).map(|h| h.threads))
        };
        while lock(&cores.pool).waiting.is_empty() {
            std::thread::yield_now();
        }
        assert!(
            cores.try_take(1).is_none(),
            "a core is free, but the two-thread search asked first"
        );
        let later = {
            let cores = cores.clone();
            std::thread::spawn(move || {
                let held = cores.take(1, &AtomicBool::new(false));
                held.map(|h| h.threads)
            })
        };
        while lock(&cores.pool).waiting.len() < 2 {
            std::thread::yield_now();
        }
        assert_eq!(
            lock(&cores.pool).free,
            1,
            "the later search did not jump the line"
        );
        drop(one);
        assert_eq!(two.join().unwrap(), Some(2), "the first in line runs");
        assert_eq!(later.join().unwrap(), Some(1), "then the next");
        assert_eq!(lock(&cores.pool).free, 2);
    }
}
