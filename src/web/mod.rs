//! `toybattle serve`: a local web page to play against the computer and to watch records again.
//!
//! The server holds every game's [`Session`](crate::session::Session) (the referee's full state);
//! the page is sent only what the human may see ([`GameView`], built from their
//! [`Observation`](crate::info::Observation)) and public data (a replay's
//! [`view::PositionView`]s), never the bot's rack, a reserve's order or the removed tiles. The
//! page, its script and styles are compiled into the binary.

mod games;
pub use games::GameView;
pub mod replay;
pub mod review;
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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            saves: crate::session::data_folder().join("saves"),
            data: crate::session::data_folder(),
            max_games: 32,
            search_threads: None,
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
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::UnknownGame(_) | ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
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
    reviews: review::Reviews,
    terrains: Vec<Arc<crate::terrain::Terrain>>,
}

/// The server's routes over a fresh set of games.
pub fn router(config: Config) -> Router {
    let terrains = crate::terrain::builtin_terrains()
        .iter()
        .cloned()
        .map(Arc::new)
        .collect();
    let app = Arc::new(App {
        reviews: review::Reviews::new(config.max_games),
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
            "/review.js",
            get(|| async { asset("text/javascript", include_str!("assets/review.js")) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css", include_str!("assets/style.css")) }),
        )
        .route("/api/meta", get(meta))
        .route("/api/terrains/{key}", get(terrain))
        .route("/api/replay", post(replay_call))
        .merge(games::routes())
        .merge(review::routes())
        .fallback(not_found)
        .with_state(app)
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

/// Serves on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, config: Config) -> std::io::Result<()> {
    axum::serve(listener, router(config)).await
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
    let listener = runtime.block_on(tokio::net::TcpListener::bind(addr))?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        // A failing server ends its thread; the test or tool using it sees refused connections.
        let _ = runtime.block_on(serve(listener, config));
    });
    Ok(Running { addr })
}
