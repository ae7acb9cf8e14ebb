//! The HTTP routes: the page, and a JSON API over the games and the studies. Every failure is a
//! JSON object `{"error": "..."}` with a 4xx status (5xx only where the server itself failed); a
//! search runs on tokio's blocking threads, at most one per core at a time, never on the threads
//! that answer requests, and so does every read of a file. Every request passes the host and
//! origin checks (`guard`) and has its body read within the limits (`limits`) first.

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{middleware, Json, Router};
use serde::Deserialize;
use tokio::sync::Semaphore;

use super::games::{GameError, Games, NewGame};
use super::guard::{only_allowed, Allowed};
use super::limits::{buffered_body, ServeLimits};
use super::studies::Studies;
use super::view::{BoardView, GameView};
use crate::rules::presets::PRESET_NAMES;
use crate::rules::Variant;

pub struct AppState {
    pub games: Games,
    pub studies: Studies,
    /// Searches at once (one per core): the rest wait their turn. A search owns its permit
    /// until it ends, also when its client has gone.
    pub searches: Arc<Semaphore>,
}

pub type Shared = Arc<AppState>;

/// A failed request, as the page reads it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message });
        (self.status, Json(body)).into_response()
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let status = match e {
            GameError::NoGame(_) => StatusCode::NOT_FOUND,
            GameError::Over(_) | GameError::NotYourTurn | GameError::NothingToUndo => {
                StatusCode::CONFLICT
            }
            GameError::NotAllowed(_) => StatusCode::FORBIDDEN,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> ApiError {
        ApiError::bad(format!("the request's JSON: {}", e.body_text()))
    }
}

impl From<PathRejection> for ApiError {
    fn from(e: PathRejection) -> ApiError {
        ApiError::bad(format!("the address: {}", e.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> ApiError {
        ApiError::bad(format!("the query: {}", e.body_text()))
    }
}

type Reply<T> = Result<Json<T>, ApiError>;

/// The routes behind the host and origin checks and the body limits.
pub fn router(state: Shared, allowed: Allowed, limits: ServeLimits) -> Router {
    Router::new()
        .route("/", get(|| page("text/html; charset=utf-8", PAGE)))
        .route(
            "/app.js",
            get(|| page("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route("/style.css", get(|| page("text/css; charset=utf-8", STYLE)))
        .route("/favicon.svg", get(|| page("image/svg+xml", ICON)))
        .route("/api/variants", get(variants))
        .route("/api/variants/{name}", get(variant))
        .route("/api/agents", get(agents))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/reply", post(reply))
        .route("/api/games/{id}/analyse", post(analyse))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/otg", get(otg))
        .route("/api/studies", get(studies))
        .route("/api/studies/table", get(study_table))
        .route("/api/studies/plot", get(study_plot))
        .route("/api/studies/game", get(study_game))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such address") })
        .with_state(state)
        .layer(middleware::from_fn_with_state(limits, buffered_body))
        // outermost: a refused client gets nothing else, not even its body read
        .layer(middleware::from_fn_with_state(allowed, only_allowed))
}

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");
const ICON: &str = include_str!("page/favicon.svg");

async fn page(kind: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], text).into_response()
}

async fn variants() -> Json<Vec<BoardView>> {
    Json(
        PRESET_NAMES
            .iter()
            .filter_map(|name| Variant::load(name).ok())
            .map(|v| BoardView::of(&v))
            .collect(),
    )
}

async fn variant(name: Result<Path<String>, PathRejection>) -> Reply<BoardView> {
    let Path(name) = name?;
    if !PRESET_NAMES.contains(&name.as_str()) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("`{name}` is not a preset"),
        ));
    }
    let v = Variant::load(&name).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(Json(BoardView::of(&v)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantQuery {
    variant: String,
}

async fn agents(
    State(state): State<Shared>,
    query: Result<Query<VariantQuery>, QueryRejection>,
) -> Reply<Vec<String>> {
    let Query(q) = query?;
    // the models directory is read for the variant's networks
    reading(&state, move |s| Ok(s.games.suggested_agents(&q.variant)))
        .await
        .map(Json)
}

/// Runs `work` on a blocking thread once a core is free. The permit moves with the work, so a
/// client that disconnects frees no core while its search still runs.
async fn searching<T: Send + 'static>(
    state: &Shared,
    work: impl FnOnce(&Games) -> Result<T, GameError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = Arc::clone(&state.searches)
        .acquire_owned()
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let shared = Arc::clone(state);
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        crate::nn::threads::ensure_this_thread();
        work(&shared.games)
    })
    .await;
    match done {
        Ok(result) => result.map_err(ApiError::from),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the search failed: {e}"),
        )),
    }
}

/// Runs `work`, which reads files, on a blocking thread (never on the threads that answer
/// requests); its error answers 404.
async fn reading<T: Send + 'static>(
    state: &Shared,
    work: impl FnOnce(&AppState) -> Result<T, String> + Send + 'static,
) -> Result<T, ApiError> {
    let shared = Arc::clone(state);
    match tokio::task::spawn_blocking(move || work(&shared)).await {
        Ok(result) => result.map_err(|e| ApiError::new(StatusCode::NOT_FOUND, e)),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("reading failed: {e}"),
        )),
    }
}

async fn new_game(
    State(state): State<Shared>,
    body: Result<Json<NewGame>, JsonRejection>,
) -> Reply<GameView> {
    let Json(request) = body?;
    // loading a network reads a file: off the request threads too
    searching(&state, move |games| games.create(&request))
        .await
        .map(Json)
}

type GameId = Result<Path<u64>, PathRejection>;

async fn game(State(state): State<Shared>, id: GameId) -> Reply<GameView> {
    let Path(id) = id?;
    Ok(Json(state.games.view(id)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// `d1-d3`, `d1d3`, or `pass`.
    #[serde(rename = "move")]
    text: String,
}

async fn play(
    State(state): State<Shared>,
    id: GameId,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> Reply<GameView> {
    let Path(id) = id?;
    let Json(request) = body?;
    Ok(Json(state.games.play(id, &request.text)?))
}

async fn reply(State(state): State<Shared>, id: GameId) -> Reply<GameView> {
    let Path(id) = id?;
    state.games.view(id)?;
    searching(&state, move |games| games.reply(id))
        .await
        .map(Json)
}

async fn analyse(State(state): State<Shared>, id: GameId) -> Reply<GameView> {
    let Path(id) = id?;
    state.games.view(id)?;
    searching(&state, move |games| games.analyse(id))
        .await
        .map(Json)
}

async fn undo(State(state): State<Shared>, id: GameId) -> Reply<GameView> {
    let Path(id) = id?;
    Ok(Json(state.games.undo(id)?))
}

async fn resign(State(state): State<Shared>, id: GameId) -> Reply<GameView> {
    let Path(id) = id?;
    Ok(Json(state.games.resign(id)?))
}

fn text_file(text: String, name: String) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        text,
    )
        .into_response()
}

async fn record(State(state): State<Shared>, id: GameId) -> Result<Response, ApiError> {
    let Path(id) = id?;
    Ok(text_file(
        state.games.record(id)?,
        format!("tavlei-game-{id}.txt"),
    ))
}

async fn otg(State(state): State<Shared>, id: GameId) -> Result<Response, ApiError> {
    let Path(id) = id?;
    Ok(text_file(
        state.games.otg(id)?,
        format!("tavlei-game-{id}.otg"),
    ))
}

async fn studies(State(state): State<Shared>) -> Json<Vec<super::studies::StudyEntry>> {
    Json(state.studies.list())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyQuery {
    dir: String,
}

async fn study_table(
    State(state): State<Shared>,
    query: Result<Query<StudyQuery>, QueryRejection>,
) -> Reply<Vec<serde_json::Value>> {
    let Query(q) = query?;
    reading(&state, move |s| s.studies.table(&q.dir))
        .await
        .map(Json)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlotQuery {
    dir: String,
    file: String,
}

async fn study_plot(
    State(state): State<Shared>,
    query: Result<Query<PlotQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query?;
    let (bytes, kind) = reading(&state, move |s| s.studies.plot(&q.dir, &q.file)).await?;
    Ok(([(header::CONTENT_TYPE, kind)], bytes).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameQuery {
    dir: String,
    variant: String,
    agent: String,
    game: usize,
}

async fn study_game(
    State(state): State<Shared>,
    query: Result<Query<GameQuery>, QueryRejection>,
) -> Reply<super::studies::StudyGame> {
    let Query(q) = query?;
    reading(&state, move |s| {
        s.studies.game(&q.dir, &q.variant, &q.agent, q.game)
    })
    .await
    .map(Json)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    fn state(cores: usize) -> Shared {
        Arc::new(AppState {
            games: Games::new(std::path::Path::new("models"), tch::Device::Cpu, 10),
            studies: Studies::find(&[]),
            searches: Arc::new(Semaphore::new(cores)),
        })
    }

    #[test]
    fn a_search_keeps_its_core_after_its_client_has_gone() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let state = state(1);
        let (started, search_started) = mpsc::channel();
        let (finish, may_finish) = mpsc::channel::<()>();
        let request = runtime.spawn({
            let state = Arc::clone(&state);
            async move {
                searching(&state, move |_| {
                    let _ = started.send(());
                    let _ = may_finish.recv();
                    Ok(())
                })
                .await
            }
        });
        search_started
            .recv_timeout(Duration::from_secs(10))
            .expect("the search starts");
        // the client disconnects: axum drops the request's future
        request.abort();
        let aborted = runtime.block_on(request);
        assert!(aborted.is_err_and(|e| e.is_cancelled()));
        assert_eq!(
            state.searches.available_permits(),
            0,
            "the search still runs on the only core"
        );
        let _ = finish.send(());
        runtime.block_on(async {
            let freed = tokio::time::timeout(Duration::from_secs(10), async {
                while state.searches.available_permits() == 0 {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            });
            freed
                .await
                .expect("the core is given back when the search ends");
        });
    }
}
