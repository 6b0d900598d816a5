//! `toybattle serve`: a local web page to play against the computer and to watch records again.
//!
//! The server holds every game's [`Session`](crate::session::Session) (the referee's full state);
//! the page is sent only what the human may see ([`GameView`], built from their
//! [`Observation`](crate::info::Observation)) and public data (a replay's
//! [`view::PositionView`]s), never the bot's rack, a reserve's order or the removed tiles. The
//! page, its script and styles are compiled into the binary.

mod games;
pub use games::GameView;
mod guard;
pub use guard::BODY_LIMIT;
pub mod replay;
pub mod view;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use games::Games;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How a server is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where mid-game saves are kept (they hold the deal, so they stay on the server).
    pub saves: PathBuf,
    /// The player's data folder, where the list of shown deals is kept
    /// ([`crate::session::ShownDeals`]), shared with the terminal game.
    pub data: PathBuf,
    /// Most games open at once; opening one more closes the least recently used.
    pub max_games: usize,
    /// Most search threads running at once over all games (bot turns and hints); a search
    /// beyond them waits. `None`: the machine's cores.
    pub search_threads: Option<usize>,
    /// Most connections served at once, and at most half the file descriptors the process may
    /// open; more wait to be accepted until one closes.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers, or its body, and how long an
    /// idle connection is kept open: a client slower than that is cut off, so that slow
    /// connections cannot hold the server's connections for long.
    pub client_timeout: Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            saves: crate::session::data_folder().join("saves"),
            data: crate::session::data_folder(),
            max_games: 32,
            search_threads: None,
            max_connections: 1024,
            client_timeout: Duration::from_secs(10),
        }
    }
}

/// An answer the page shows as an error, in words.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed or asks for something the rules or the game refuse.
    #[error("{0}")]
    BadRequest(String),
    /// No open game has this id (the id given).
    #[error(
        "no game with id '{0}': it never existed, or it was closed to make room for newer games"
    )]
    UnknownGame(String),
    /// No page, API call, terrain or saved game by that name.
    #[error("{0}")]
    NotFound(String),
    /// The request is well formed but not possible now (e.g. the bot is thinking).
    #[error("{0}")]
    Conflict(String),
    /// The server failed: a file it could not read or write, a search that broke off, a bot
    /// that answered against the rules.
    #[error("{0}")]
    Internal(String),
    /// The request is refused whatever it asks: it names another host, or comes from another
    /// site's page.
    #[error("{0}")]
    Forbidden(String),
    /// The call takes another method (GET or POST).
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The request body did not arrive within the client timeout.
    #[error("{0}")]
    Timeout(String),
    /// The request body is over [`BODY_LIMIT`].
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The request body is not sent as JSON.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// Any other error status, in words (e.g. a path axum could not read).
    #[error("{1}")]
    Status(StatusCode, String),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::UnknownGame(_) | ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Status(status, _) => status,
        };
        (
            status,
            Json(ErrorBody {
                error: self.to_string(),
            }),
        )
            .into_response()
    }
}

#[derive(Serialize)]
struct ErrorBody {
    error: String,
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// Parses a JSON request body, naming what is wrong with it.
fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::BadRequest(format!(
            "the request body is not what this call expects: {e}"
        ))
    })
}

struct App {
    games: Games,
    terrains: Vec<Arc<crate::terrain::Terrain>>,
}

/// The server's routes over a fresh set of games. [`serve`] puts every request through the
/// guard's checks (its names, the page's origin, JSON bodies) before them.
pub fn router(config: Config) -> Router {
    let terrains = crate::terrain::builtin_terrains()
        .iter()
        .cloned()
        .map(Arc::new)
        .collect();
    let app = Arc::new(App {
        games: Games::new(config),
        terrains,
    });
    Router::new()
        .route(
            "/",
            get(|| async { Html(include_str!("assets/index.html")) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", include_str!("assets/app.js")) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css", include_str!("assets/style.css")) }),
        )
        .route("/api/meta", get(meta))
        .route("/api/terrains/{key}", get(terrain))
        .route("/api/replay", post(replay_call))
        .route("/api/replay/play", post(play_from_here))
        .merge(games::routes())
        .fallback(not_found)
        .with_state(app)
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
}

fn asset(content_type: &'static str, text: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], text)
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::NotFound(format!("no page or API call at '{}'", uri.path()))
}

#[derive(Serialize)]
struct Meta {
    terrains: Vec<TerrainName>,
    levels: Vec<games::LevelInfo>,
    /// The ladder of the levels, as `toybattle play --help` prints it.
    ladder: &'static str,
}

#[derive(Serialize)]
struct TerrainName {
    key: String,
    name: String,
}

async fn meta(State(app): State<Arc<App>>) -> Json<Meta> {
    Json(Meta {
        terrains: app
            .terrains
            .iter()
            .map(|t| TerrainName {
                key: t.key.clone(),
                name: t.name.clone(),
            })
            .collect(),
        levels: games::levels(),
        ladder: crate::session::LADDER,
    })
}

async fn terrain(
    State(app): State<Arc<App>>,
    Path(key): Path<String>,
) -> ApiResult<view::TerrainView> {
    app.terrains
        .iter()
        .find(|t| t.key == key)
        .map(|t| Json(view::TerrainView::of(t)))
        .ok_or_else(|| ApiError::NotFound(format!("no terrain '{key}'")))
}

async fn replay_call(State(app): State<Arc<App>>, body: Bytes) -> ApiResult<replay::Replay> {
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::BadRequest("the record file is not text (UTF-8)".into()))?;
    replay::replay_record(text, &app.terrains)
        .map(Json)
        .map_err(|e| ApiError::BadRequest(e.to_string()))
}

/// The body of `POST /api/replay/play`: a finished record's text, the step to start after, the
/// level and the human's colour.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FromHere {
    record: String,
    step: usize,
    level: String,
    seat: String,
}

/// "Play from here": a new game from a step of a finished record (see [`replay::from_here`]).
async fn play_from_here(State(app): State<Arc<App>>, body: Bytes) -> ApiResult<GameView> {
    let ask: FromHere = parse_body(&body)?;
    let level: crate::session::Level = ask
        .level
        .parse()
        .map_err(|e: crate::session::UnknownLevel| ApiError::BadRequest(e.to_string()))?;
    let human: crate::rules::Colour =
        ask.seat
            .parse()
            .map_err(|e: crate::vocabulary::ParseColourError| {
                ApiError::BadRequest(format!("{e} for the seat"))
            })?;
    let session = replay::from_here(&ask.record, ask.step, level, human)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok(Json(app.games.open(session)))
}

/// Connections the system keeps waiting to be accepted (std's listeners keep 128).
const BACKLOG: u32 = 1024;

/// Listens on `addr` (in a tokio runtime). Past the connection cap, clients wait in a queue of
/// 1,024 connections (`BACKLOG`) rather than have their connections dropped and retried seconds
/// later.
pub fn bind(addr: std::net::SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = match addr {
        std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    // As std does for its listeners: a restarted server can bind its port at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// How long accepting waits after the system refused a connection (e.g. out of file
/// descriptors) before it tries again: connections closing meanwhile free what it lacked.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Serves on `listener` until the process ends, at most [`Config::max_connections`] connections
/// at once, each cut off when it is slower than [`Config::client_timeout`].
///
/// hyper serves each connection, as in axum::serve, which does not expose hyper's header-read
/// timeout. That timeout also closes idle connections, since hyper starts it whenever it waits
/// for a connection's next request; a body's timeout is the guard's, which answers every request
/// before the router does (see `guard::answer`).
pub async fn serve(listener: tokio::net::TcpListener, config: Config) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let bound = listener.local_addr()?;
    let slots = Arc::new(tokio::sync::Semaphore::new(connection_cap(
        config.max_connections,
    )));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.client_timeout);
    let guard = Arc::new(guard::Guard::new(bound, config.client_timeout));
    let app = router(config);
    loop {
        // Past the cap, connections wait in the system's queue, not in open file descriptors.
        let slot = slots
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let (guard, app) = (guard.clone(), app.clone());
        let service = hyper::service::service_fn(move |request| {
            guard::answer(guard.clone(), app.clone(), request)
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            // A client that goes away or is too slow ends its connection; nothing to report.
            let _ = connection.await;
            drop(slot);
        });
    }
}

/// The connections served at once: `max`, and at most half the file descriptors this process may
/// open, so that saves, the listener and the runtime always find one.
fn connection_cap(max: usize) -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the limits into the struct it is given.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let descriptors = match read {
        true => usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX),
        false => usize::MAX,
    };
    max.min(descriptors / 2).max(1)
}

/// A server running on a background thread (for tests and tools); it serves until the process
/// ends.
pub struct Running {
    /// The address it listens on (with the port the system chose, when asked for port 0).
    pub addr: std::net::SocketAddr,
}

/// Binds `addr` (e.g. `127.0.0.1:0` for any free port) and serves on a background thread.
pub fn spawn(addr: &str, config: Config) -> std::io::Result<Running> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let addr = std::net::ToSocketAddrs::to_socket_addrs(addr)?
        .next()
        .ok_or_else(|| std::io::Error::other(format!("'{addr}' names no address")))?;
    let listener = runtime.block_on(async { bind(addr) })?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        // A failing server ends its thread; the test or tool using it sees refused connections.
        let _ = runtime.block_on(serve(listener, config));
    });
    Ok(Running { addr })
}
