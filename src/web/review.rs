//! The page's game review ([`crate::review`]): started for an open game (the whole game once it
//! is over; while it goes on, the human's own decisions only, as [`Session::review`] rules) or
//! for a finished record opened in the replay viewer. A review runs on a blocking thread; the
//! page polls its progress and may cancel it, and a cancelled review keeps what it computed.

use super::games::lock;
use super::replay::read_checked;
use super::view::DecisionView;
use super::{ApiError, ApiResult, App};
use crate::review::{Progress, Review, ReviewOptions};
use crate::rules::{Decision, Game};
use crate::session::Session;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State as Ctx};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most search iterations per decision a page may ask for: the search tree grows with them,
/// so this bounds a review's memory (about 15 times the `strong` level's budget).
pub const MAX_ITERATIONS: u64 = 200_000;

/// The reviews kept on the server, running or done; beyond their cap the oldest is dropped
/// (and stopped if it still runs).
pub struct Reviews {
    jobs: Mutex<HashMap<String, Arc<Job>>>,
    cap: usize,
}

/// One review: its progress, its cancel flag and, once it has stopped, its answer.
struct Job {
    started: Instant,
    done: AtomicUsize,
    total: AtomicUsize,
    cancel: AtomicBool,
    /// `None` while it runs; then the review, or why it failed.
    result: Mutex<Option<Result<ReviewView, String>>>,
}

impl Reviews {
    /// An empty set keeping at most `cap` reviews (at least one).
    pub fn new(cap: usize) -> Reviews {
        Reviews {
            jobs: Mutex::new(HashMap::new()),
            cap: cap.max(1),
        }
    }

    /// Adds a review about to start, dropping the oldest beyond the cap.
    fn insert(&self) -> (String, Arc<Job>) {
        let mut jobs = lock(&self.jobs);
        while jobs.len() >= self.cap {
            let oldest = jobs
                .iter()
                .min_by_key(|(_, j)| j.started)
                .map(|(id, _)| id.clone());
            match oldest.and_then(|id| jobs.remove(&id)) {
                Some(job) => job.cancel.store(true, Ordering::Relaxed),
                None => break,
            }
        }
        let id = format!("{:032x}", rand::random::<u128>());
        let job = Arc::new(Job {
            started: Instant::now(),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            cancel: AtomicBool::new(false),
            result: Mutex::new(None),
        });
        jobs.insert(id.clone(), job.clone());
        (id, job)
    }

    fn get(&self, id: &str) -> Result<Arc<Job>, ApiError> {
        lock(&self.jobs).get(id).cloned().ok_or_else(|| {
            ApiError::NotFound(format!(
                "no review with id '{id}': it never existed, or it was dropped to make room for \
                 newer reviews"
            ))
        })
    }
}

/// A decision as the board draws it: the best one and the one played, with their nodes.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct DecisionShown {
    /// The step of the record it was taken at.
    pub step: usize,
    /// The decision played.
    pub played: DecisionView,
    /// The search's best decision.
    pub best: DecisionView,
}

/// A review as the page is sent it: the library's [`Review`] and, per decision reviewed, the
/// nodes and troops of the played and the best decision, to draw them on the board.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ReviewView {
    /// The review itself.
    #[serde(flatten)]
    pub review: Review,
    /// `shown[i]` draws `review.decisions[i]`.
    pub shown: Vec<DecisionShown>,
}

impl ReviewView {
    /// The view of `review` of a game of `game`.
    pub fn of(review: Review, game: &Game) -> ReviewView {
        let t = game.terrain();
        // The notation came from the rules on this terrain: it parses; a failure would be a
        // bug in the review, shown as a decision of no kind rather than a broken answer.
        let view = |notation: &str| match Decision::parse(notation, t) {
            Ok(d) => DecisionView::of(d, t),
            Err(_) => DecisionView {
                notation: notation.to_string(),
                kind: "unknown",
                troop: None,
                node: None,
                to: None,
            },
        };
        let shown = review
            .decisions
            .iter()
            .map(|d| DecisionShown {
                step: d.step,
                played: view(&d.played),
                best: view(&d.best),
            })
            .collect();
        ReviewView { review, shown }
    }

    /// The view of the review of a session's game as the page may see it (see
    /// [`Session::review`]): what the review API answers once the review is done.
    pub fn of_session(session: &Session, options: &ReviewOptions) -> ReviewView {
        let job = session.review_job(options);
        ReviewView::of(job.run(&|_| {}, None), job.game())
    }
}

/// A review's state as the page polls it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ReviewStatus {
    /// The review's id: the key of its `/api/reviews/{id}` calls.
    pub id: String,
    /// Whether it is still computing.
    pub running: bool,
    /// Decisions and chance events reviewed so far.
    pub done: usize,
    /// How many there are to review (0 until the review has counted them).
    pub total: usize,
    /// Whether the page asked it to stop.
    pub cancelled: bool,
    /// The review, once it has stopped: complete, or what was computed before the cancel
    /// (`complete` false).
    pub review: Option<ReviewView>,
    /// Why the review failed, if it did.
    pub failure: Option<String>,
}

impl Job {
    fn status(&self, id: &str) -> ReviewStatus {
        let result = lock(&self.result).clone();
        ReviewStatus {
            id: id.to_string(),
            running: result.is_none(),
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            cancelled: self.cancel.load(Ordering::Relaxed),
            failure: result.clone().and_then(Result::err),
            review: result.and_then(Result::ok),
        }
    }

    fn progress(&self, p: Progress) {
        self.done.fetch_max(p.done, Ordering::Relaxed);
        self.total.store(p.total, Ordering::Relaxed);
    }
}

/// The review's routes.
pub(super) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/games/{id}/review", post(review_game))
        .route("/api/replay/review", post(review_record))
        .route("/api/reviews/{id}", get(status))
        .route("/api/reviews/{id}/cancel", post(cancel))
}

/// The options of a review from its start's query: `iterations=N`, the search budget per
/// decision (the library's default, the `strong` level's, when absent).
fn options_of(query: Option<&str>) -> Result<ReviewOptions, ApiError> {
    let mut options = ReviewOptions::default();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key != "iterations" {
            return Err(ApiError::BadRequest(format!(
                "unknown review option '{key}': the only one is iterations=N"
            )));
        }
        match value.parse::<u64>() {
            Ok(n @ 1..=MAX_ITERATIONS) => options = options.with_iterations(n),
            _ => {
                return Err(ApiError::BadRequest(format!(
                    "iterations '{value}' is not a whole number from 1 to {MAX_ITERATIONS} (the \
                     search iterations per decision)"
                )))
            }
        }
    }
    Ok(options)
}

/// Starts `run` on a blocking thread as a new review and answers its first status.
fn start(
    app: &Arc<App>,
    game: Game,
    run: impl FnOnce(&(dyn Fn(Progress) + Sync), &AtomicBool) -> Result<Review, String> + Send + 'static,
) -> ReviewStatus {
    let (id, job) = app.reviews.insert();
    let status = job.status(&id);
    let app = app.clone();
    tokio::task::spawn_blocking(move || {
        // The review searches on every core: it waits for the games' searches to give them
        // back, and theirs wait for it. Cancelled while waiting, it reviews nothing.
        let _cores = app.games.take_all_cores(&job.cancel);
        let found = run(&|p| job.progress(p), &job.cancel).map(|review| {
            job.done.store(review.reviewed, Ordering::Relaxed);
            job.total.store(review.total, Ordering::Relaxed);
            ReviewView::of(review, &game)
        });
        *lock(&job.result) = Some(found);
    });
    status
}

/// Reviews an open game: see [`Session::review`] for what is reviewed while it goes on.
async fn review_game(
    Ctx(app): Ctx<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<ReviewStatus> {
    let mut options = options_of(query.as_deref())?;
    options.threads = app.games.cores_total();
    let job = app.games.review_job(&id, &options)?;
    let game = job.game().clone();
    Ok(Json(start(&app, game, move |progress, cancel| {
        Ok(job.run(progress, Some(cancel)))
    })))
}

/// Reviews a finished record (the body: the record file, as the replay viewer opened it).
async fn review_record(
    Ctx(app): Ctx<Arc<App>>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> ApiResult<ReviewStatus> {
    let mut options = options_of(query.as_deref())?;
    options.threads = app.games.cores_total();
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::BadRequest("the record file is not text (UTF-8)".into()))?;
    let (game, record) =
        read_checked(text, &app.terrains).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if record.result.end == "unfinished" {
        return Err(ApiError::BadRequest(
            "this record is of an unfinished game (a save): only a finished game is reviewed \
             here; load it, finish it, and review it then"
                .into(),
        ));
    }
    let searched = game.clone();
    Ok(Json(start(&app, game, move |progress, cancel| {
        crate::review::review(&searched, &record, &options, progress, Some(cancel))
            .map_err(|e| format!("the record cannot be reviewed: {e}"))
    })))
}

async fn status(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<ReviewStatus> {
    Ok(Json(app.reviews.get(&id)?.status(&id)))
}

/// Asks a running review to stop; it then answers what it computed. Cancelling a review that
/// has stopped changes nothing.
async fn cancel(Ctx(app): Ctx<Arc<App>>, Path(id): Path<String>) -> ApiResult<ReviewStatus> {
    let job = app.reviews.get(&id)?;
    if lock(&job.result).is_none() {
        job.cancel.store(true, Ordering::Relaxed);
    }
    Ok(Json(job.status(&id)))
}
