//! The endpoints: what each path answers. Bodies are JSON; every field is
//! checked here and a bad one is a 4xx naming it, with nothing changed.

use super::assets;
use super::board::{self, Replayed};
use super::engines::{self, ApiError, SLOTS, Wanted, go_command};
use super::live::{self, event_text};
use super::records;
use super::server::AppState;
use super::watch;
use crate::rules::{Player, Variant};
use hyper::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc::Receiver;

pub enum Reply {
    Json(u16, Value),
    /// A 200 whose JSON is already text (a long list, written as it was
    /// read rather than held as a tree of values).
    JsonText(String),
    Asset(&'static assets::Asset),
    /// Server-Sent Events: the queue, the first event, and what to do
    /// when the stream ends.
    Stream(
        Receiver<String>,
        Option<String>,
        Option<Box<dyn FnOnce() + Send>>,
    ),
    Error(ApiError),
}

pub fn route(
    state: &Arc<AppState>,
    method: &Method,
    path: &str,
    query: &str,
    body: String,
) -> Reply {
    let get = *method == Method::GET || *method == Method::HEAD;
    let result = match (get, path) {
        (true, "/") | (true, "/index.html") => return asset(assets::INDEX_NAME),
        (true, "/favicon.ico") => return asset("favicon.svg"),
        (true, p) if p.starts_with("/assets/") => return asset(&p["/assets/".len()..]),
        (true, "/api/config") => Ok(config(state)),
        (false, "/api/state") => parse(&body)
            .and_then(|req| replay(&req))
            .map(|r| board::state_json(&r)),
        (false, "/api/session") => Ok(json!({"id": state.engines.open().id})),
        (false, "/api/heartbeat") => parse(&body).and_then(|req| heartbeat(state, &req)),
        (false, "/api/close") => parse(&body).and_then(|req| close(state, &req)),
        (true, "/api/events") => return events(state, query),
        (true, "/api/channel") => return channel(state),
        (false, "/api/listen") => parse(&body).and_then(|req| listen(state, &req, true)),
        (false, "/api/unlisten") => parse(&body).and_then(|req| listen(state, &req, false)),
        (true, "/api/engines") => {
            session_of(state, param(query, "session")).map(|s| state.engines.status(&s))
        }
        (false, "/api/go") => parse(&body).and_then(|req| go(state, &req)),
        (false, "/api/analyse") => parse(&body).and_then(|req| analyse(state, &req)),
        (false, "/api/stop") => parse(&body).and_then(|req| stop(state, &req)),
        (false, "/api/restart") => parse(&body).and_then(|req| restart(state, &req)),
        (false, "/api/validate") => parse(&body).and_then(|req| validate(state, &req)),
        (true, "/api/records") => Ok(state.records.list()),
        (false, "/api/records") => {
            let name = param(query, "name").unwrap_or("upload");
            state.records.upload(name, body)
        }
        (true, "/api/watch") => return watch::watch(state, param(query, "records")),
        (true, p) if p.starts_with("/api/records/") => {
            return records_get(state, &p["/api/records/".len()..]);
        }
        (true, "/api/health") => Ok(health(state)),
        (_, p) if p.starts_with("/api/") => Err(ApiError::new(
            if get { 404 } else { 405 },
            format!("no endpoint {} {p}", if get { "GET" } else { "POST" }),
        )),
        _ => Err(ApiError::new(404, format!("no page {path}"))),
    };
    match result {
        Ok(value) => Reply::Json(200, value),
        Err(e) => Reply::Error(e),
    }
}

fn asset(name: &str) -> Reply {
    match assets::find(name) {
        Some(asset) => Reply::Asset(asset),
        None => Reply::Error(ApiError::new(404, format!("no asset '{name}'"))),
    }
}

fn parse(body: &str) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| ApiError::new(400, format!("the body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::new(400, "the body must be a JSON object"));
    }
    Ok(value)
}

/// A query parameter, only when it is a plain token (ids, names): nothing
/// here needs percent-decoding, so nothing encoded is let through.
fn param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
        .filter(|v| {
            v.len() <= 100
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        })
}

/// A text field; one holding a control character (a newline would split
/// a protocol line in two) is refused.
fn text_field<'v>(req: &'v Value, name: &str) -> Result<Option<&'v str>, ApiError> {
    match req.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => no_control(name, s).map(Some),
        Some(_) => Err(ApiError::new(400, format!("'{name}' must be a string"))),
    }
}

fn no_control<'t>(name: &str, text: &'t str) -> Result<&'t str, ApiError> {
    match text.chars().find(|c| c.is_control()) {
        Some(c) => Err(ApiError::new(
            400,
            format!("'{name}' holds a control character ({c:?})"),
        )),
        None => Ok(text),
    }
}

fn number_field(req: &Value, name: &str, min: u64, max: u64) -> Result<Option<u64>, ApiError> {
    match req.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::new(
                400,
                format!("'{name}' must be a whole number from {min} to {max}"),
            )),
        },
    }
}

/// The game of a request: `variant` (default standard), `fen`, `moves`.
fn replay(req: &Value) -> Result<Replayed, ApiError> {
    let spec = text_field(req, "variant")?.unwrap_or("standard");
    let fen = text_field(req, "fen")?;
    let moves = match req.get("moves") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|m| m.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| ApiError::new(400, "'moves' must be a list of move texts"))?,
        Some(_) => return Err(ApiError::new(400, "'moves' must be a list of move texts")),
    };
    for text in &moves {
        no_control("moves", text)?;
    }
    board::replay(spec, fen, &moves).map_err(|e| ApiError::new(422, e.to_string()))
}

fn session_of(
    state: &AppState,
    id: Option<&str>,
) -> Result<Arc<super::engines::Session>, ApiError> {
    let id = id.ok_or_else(|| ApiError::new(400, "'session' is missing"))?;
    state.engines.get(id)
}

fn session_field(state: &AppState, req: &Value) -> Result<Arc<super::engines::Session>, ApiError> {
    session_of(state, text_field(req, "session")?)
}

fn slot_field(req: &Value) -> Result<usize, ApiError> {
    let slot = text_field(req, "slot")?.unwrap_or("A");
    SLOTS
        .iter()
        .position(|s| *s == slot)
        .ok_or_else(|| ApiError::new(400, format!("'slot' must be W, B or A, not '{slot}'")))
}

/// The engine and options a request wants: `engine` (index into the
/// command line's list), `skill` (Skill Level) or `elo` (UCI_Elo), and
/// `multipv` for analysis.
fn wanted(state: &AppState, req: &Value) -> Result<Wanted, ApiError> {
    let count = state.engines.configs.len() as u64;
    let engine = number_field(req, "engine", 0, count - 1)?.unwrap_or(0) as usize;
    let mut options = Vec::new();
    if let Some(skill) = number_field(req, "skill", 0, 20)? {
        options.push(("Skill Level".to_string(), skill.to_string()));
    }
    if let Some(elo) = number_field(req, "elo", 0, 10_000)? {
        options.push(("UCI_LimitStrength".to_string(), "true".to_string()));
        options.push(("UCI_Elo".to_string(), elo.to_string()));
    }
    if let Some(lines) = number_field(req, "multipv", 1, 64)? {
        options.push(("MultiPV".to_string(), lines.to_string()));
    }
    Ok(Wanted { engine, options })
}

fn config(state: &AppState) -> Value {
    let engines: Vec<Value> = state
        .engines
        .configs
        .iter()
        .enumerate()
        .map(|(i, e)| json!({"id": i, "name": e.name}))
        .collect();
    let presets: Vec<Value> = Variant::PRESETS
        .iter()
        .map(|p| json!({"name": p.name, "description": p.description, "spec": p.variant.spec()}))
        .collect();
    json!({
        "engines": engines,
        "presets": presets,
        "records": state.records.list(),
        "version": env!("CARGO_PKG_VERSION"),
    })
}

fn go(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let slot = slot_field(req)?;
    let game = replay(req)?;
    if game.pending.is_some() || game.game.status().is_some() {
        return Err(ApiError::new(
            409,
            "no move to make: the game is over or a removal is owed",
        ));
    }
    let side = game.position().side_to_move();
    let expected = if side == Player::White { 0 } else { 1 };
    if slot != expected && slot != 2 {
        return Err(ApiError::new(
            409,
            format!("it is {side}'s move, not slot {}'s", SLOTS[slot]),
        ));
    }
    let clock = req.get("clock").cloned().unwrap_or(Value::Null);
    let (go, allowed) = go_command(&clock, side)?;
    let wanted = wanted(state, req)?;
    state
        .engines
        .go(&session, slot, &wanted, &game, &go, allowed)
}

fn analyse(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let game = replay(req)?;
    if let Some(end) = game.game.status() {
        return Err(ApiError::new(
            409,
            format!("nothing to analyse: the game is over ({end})"),
        ));
    }
    let wanted = wanted(state, req)?;
    let id = match text_field(req, "id")? {
        Some(id) if id.len() > 64 => {
            return Err(ApiError::new(400, "'id' is longer than 64 characters"));
        }
        id => id.map(str::to_string),
    };
    state.engines.analyse(session, wanted, game, id)?;
    Ok(json!({"running": true}))
}

fn stop(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let slot = slot_field(req)?;
    state.engines.stop(&session, slot);
    Ok(json!({"stopping": SLOTS[slot]}))
}

fn restart(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let slot = slot_field(req)?;
    let spec = text_field(req, "variant")?.unwrap_or("standard");
    let rules = board::parse_rules(spec).map_err(|e| ApiError::new(422, e.to_string()))?;
    state.engines.restart(&session, slot, &rules)
}

/// A position from the editor: checked by the rules here, then by the
/// engine, whose error is shown as it gives it.
fn validate(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let spec = text_field(req, "variant")?.unwrap_or("standard");
    let fen = text_field(req, "fen")?.ok_or_else(|| ApiError::new(400, "'fen' is missing"))?;
    let rules = board::parse_rules(spec).map_err(|e| ApiError::new(422, e.to_string()))?;
    if let Err(e) = rules.parse_position(fen) {
        return Ok(json!({"ok": false, "error": format!("position: {e}"), "by": "rules"}));
    }
    let wanted = wanted(state, req)?;
    match state.engines.validate(&session, &wanted, &rules, fen)? {
        Some(error) => Ok(json!({"ok": false, "error": error, "by": "engine"})),
        None => Ok(json!({"ok": true})),
    }
}

/// `GET /api/channel`: one stream for many sessions (the page's shared
/// worker opens one for all the tabs of a browser); its first event,
/// `channel`, gives the id that `/api/listen` attaches sessions to.
fn channel(state: &Arc<AppState>) -> Reply {
    let Some((id, rx)) = state.channels.open(engines::random_tag()) else {
        return Reply::Error(ApiError::new(
            503,
            format!("more than {} live streams open", live::MAX_STREAMS),
        ));
    };
    let hello = event_text("channel", &json!({ "id": id }));
    let state = state.clone();
    Reply::Stream(
        rx,
        Some(hello),
        Some(Box::new(move || state.channels.close(&id))),
    )
}

/// `POST /api/listen` / `/api/unlisten` `{channel, session}`: the session's
/// events start (with its engines' state) or stop going to the channel.
fn listen(state: &AppState, req: &Value, on: bool) -> Result<Value, ApiError> {
    let session = session_field(state, req)?;
    let id =
        text_field(req, "channel")?.ok_or_else(|| ApiError::new(400, "'channel' is missing"))?;
    if !on {
        session.hub.detach(id);
        return Ok(json!({ "listening": false }));
    }
    let tx = state
        .channels
        .sender(id)
        .ok_or_else(|| ApiError::new(404, format!("no open channel '{id}'")))?;
    session.hub.attach(id, tx);
    session
        .hub
        .publish_to(id, "engines", &state.engines.status(&session));
    Ok(json!({ "listening": true }))
}

/// `/api/records/<id>`: the game list; `/api/records/<id>/<n>`: one game.
fn records_get(state: &AppState, rest: &str) -> Reply {
    let (id, game) = match rest.split_once('/') {
        Some((id, n)) => match n.parse::<usize>() {
            Ok(n) => (id, Some(n)),
            Err(_) => {
                let why = format!("game number '{n}' is not a number");
                return Reply::Error(ApiError::new(400, why));
            }
        },
        None => (rest, None),
    };
    let _turn = state.records.turn();
    let read = state.records.open(id).and_then(|source| match game {
        None => records::list_json(source, || state.records.open(id)).map(Reply::JsonText),
        Some(n) => records::nth_game_json(source, n, id).map(|v| Reply::Json(200, v)),
    });
    read.unwrap_or_else(Reply::Error)
}

fn events(state: &AppState, query: &str) -> Reply {
    let session = match session_of(state, param(query, "session")) {
        Ok(s) => s,
        Err(e) => return Reply::Error(e),
    };
    match session.hub.subscribe() {
        Some(rx) => {
            let hello = event_text("engines", &state.engines.status(&session));
            Reply::Stream(rx, Some(hello), None)
        }
        None => Reply::Error(ApiError::new(
            503,
            format!("more than {} live streams open", live::MAX_STREAMS),
        )),
    }
}

/// `POST /api/heartbeat {session}`: the page is still open; its engines
/// are kept (a page that neither streams nor beats for
/// [`engines::ENGINE_IDLE`] has them stopped).
fn heartbeat(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    session_field(state, req)?;
    Ok(json!({"idle_timeout_s": engines::ENGINE_IDLE.as_secs()}))
}

/// `POST /api/close {session}`: the page is closing (`sendBeacon` on
/// `pagehide`): its session and engines end now.
fn close(state: &AppState, req: &Value) -> Result<Value, ApiError> {
    let id =
        text_field(req, "session")?.ok_or_else(|| ApiError::new(400, "'session' is missing"))?;
    Ok(json!({"closed": state.engines.close(id)}))
}

fn health(state: &AppState) -> Value {
    json!({
        "sessions": state.engines.session_count(),
        "engines": state.engines.running(),
        "max_engines": state.engines.max_engines,
        "streams": live::open_streams(),
        "uptime_ms": state.started.elapsed().as_millis() as u64,
        "assets_bytes": assets::total_bytes(),
    })
}
