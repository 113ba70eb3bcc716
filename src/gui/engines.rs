//! Engine sessions: each tab gets a session with three engine slots (White,
//! Black and analysis), each holding at most one engine process started on
//! demand from the command line's list. The process handling is the match
//! runner's (`EngineProcess`): bounded lines, deadlines, process groups, and
//! the same crash / hang / garbage classification, which the page shows
//! with a restart button. A failed engine is dropped (its group killed);
//! the server goes on serving.

use super::board::Replayed;
use super::live::Hub;
use crate::rules::{Player, Rules, Variant};
use crate::tournament::engine_process::{EngineConfig, EngineError, EngineProcess, STOP_GRACE};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::thread;
use std::time::{Duration, Instant};

/// Handshake, rule setup and `isready` answers must come within this.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Beyond the clock or move time, before a thinking engine counts as hung.
pub const MOVE_MARGIN: Duration = Duration::from_secs(2);

/// Sessions at once; the oldest idle one is closed to make room.
pub const MAX_SESSIONS: usize = 32;

/// A session nobody has touched or watched for this long is closed and its
/// engines stopped.
const IDLE: Duration = Duration::from_secs(600);

pub const SLOTS: [&str; 3] = ["W", "B", "A"];

/// What the page asks an engine slot to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub engine: usize,
    /// `setoption` pairs (strength, MultiPV), set before each search when
    /// they changed.
    pub options: Vec<(String, String)>,
}

struct Running {
    process: EngineProcess,
    engine: usize,
    variant: Variant,
    options: Vec<(String, String)>,
}

#[derive(Default)]
struct SlotState {
    running: Option<Running>,
    /// Why the last engine of this slot failed; cleared by a restart.
    failure: Option<String>,
    last: Option<Wanted>,
}

#[derive(Default)]
pub struct Slot {
    state: Mutex<SlotState>,
    stop: AtomicBool,
}

pub struct Session {
    pub id: String,
    pub hub: Hub,
    slots: [Slot; 3],
    touched: Mutex<Instant>,
}

/// An error for the page: the HTTP status and the message.
#[derive(Debug)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
    /// The engine's state after a failure, for the page to show.
    pub engine: Option<Value>,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            engine: None,
        }
    }
}

pub struct Engines {
    pub configs: Vec<EngineConfig>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    counter: AtomicU64,
}

impl Engines {
    pub fn new(configs: Vec<EngineConfig>) -> Engines {
        Engines {
            configs,
            sessions: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
        }
    }

    /// A new session; the least recently used idle sessions are closed
    /// first when there are too many.
    pub fn open(&self) -> Arc<Session> {
        let mut sessions = self.sessions.lock().expect("sessions lock");
        sessions.retain(|_, s| s.hub.subscribers() > 0 || s.idle() < IDLE);
        while sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .values()
                .min_by_key(|s| *s.touched.lock().expect("touch lock"))
                .map(|s| s.id.clone())
                .expect("sessions is not empty");
            sessions.remove(&oldest);
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = format!("s{n}-{:08x}", random_tag());
        let session = Arc::new(Session {
            id: id.clone(),
            hub: Hub::new(&id),
            slots: Default::default(),
            touched: Mutex::new(Instant::now()),
        });
        sessions.insert(id, session.clone());
        session
    }

    pub fn get(&self, id: &str) -> Result<Arc<Session>, ApiError> {
        let sessions = self.sessions.lock().expect("sessions lock");
        let session = sessions
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::new(404, format!("no session '{id}' (reload the page)")))?;
        *session.touched.lock().expect("touch lock") = Instant::now();
        Ok(session)
    }

    pub fn session_count(&self) -> usize {
        self.sessions.lock().expect("sessions lock").len()
    }

    fn config(&self, engine: usize) -> Result<&EngineConfig, ApiError> {
        self.configs.get(engine).ok_or_else(|| {
            ApiError::new(
                400,
                format!(
                    "no engine {engine}: the command line named {} (0 to {})",
                    self.configs.len(),
                    self.configs.len() - 1
                ),
            )
        })
    }

    /// Plays one move: the engine of `slot` thinks on the game until
    /// `bestmove` or its deadline, its `info` lines streamed to the tab.
    pub fn go(
        &self,
        session: &Session,
        slot: usize,
        wanted: &Wanted,
        game: &Replayed,
        go: &str,
        allowed: Duration,
    ) -> Result<Value, ApiError> {
        self.config(wanted.engine)?;
        let mut state = session.lock_idle(slot)?;
        let stop = &session.slots[slot].stop;
        stop.store(false, Ordering::Relaxed);
        let process = self.ready(session, slot, &mut state, wanted, game.rules.variant())?;
        let position = game.position_command();
        let hub = &session.hub;
        let mut on_info = |line: &str| hub.publish("info", &info_json(slot, line));
        let reply = process.go_watched(&position, go, Some(allowed), stop, &mut on_info);
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) => return Err(session.failed(slot, &mut state, &e)),
        };
        let bestmove = reply.tokens.first().cloned().unwrap_or_default();
        // The engine's word on legality is never taken.
        if let Err(e) = game.rules.parse_move(game.position(), &bestmove) {
            let why = EngineError::Garbage(format!("played an illegal move '{bestmove}': {e}"));
            return Err(session.failed(slot, &mut state, &why));
        }
        Ok(json!({
            "bestmove": bestmove,
            "score": reply.score,
            "depth": reply.depth,
            "ms": reply.elapsed.as_millis() as u64,
        }))
    }

    /// Starts infinite analysis of the game on the analysis slot, in the
    /// background (stopping the analysis running there first); lines go to
    /// the tab as `info` events, and `analysis` says when it ends. Both
    /// carry the page's `id` of the request: a stopped search's last lines
    /// reach the page after the next one started, and must not be taken
    /// for the new position's.
    pub fn analyse(
        self: &Arc<Self>,
        session: Arc<Session>,
        wanted: Wanted,
        game: Replayed,
        id: Option<String>,
    ) -> Result<(), ApiError> {
        const SLOT: usize = 2;
        self.config(wanted.engine)?;
        session.slots[SLOT].stop.store(true, Ordering::Relaxed);
        let mut state = session.lock_waiting(SLOT)?;
        session.slots[SLOT].stop.store(false, Ordering::Relaxed);
        // Started here, so that a failure to start is the request's answer.
        self.ready(&session, SLOT, &mut state, &wanted, game.rules.variant())?;
        drop(state);
        let engines = self.clone();
        thread::spawn(move || engines.analysis_thread(&session, game, id));
        Ok(())
    }

    fn analysis_thread(&self, session: &Session, game: Replayed, id: Option<String>) {
        const SLOT: usize = 2;
        let Ok(mut state) = session.lock_waiting(SLOT) else {
            return;
        };
        let stop = &session.slots[SLOT].stop;
        let hub = &session.hub;
        let Some(running) = state.running.as_mut() else {
            return;
        };
        hub.publish("analysis", &json!({"running": true, "id": id}));
        // Nobody left to see the lines (the tab closed): stop thinking. The
        // page opens its event stream only once the analysis has started,
        // so the first lines may come before it: a tab counts as gone only
        // after it was seen, or when none came within the grace period.
        let started = std::time::Instant::now();
        let mut seen = false;
        let mut on_info = |line: &str| {
            let mut info = info_json(SLOT, line);
            info["id"] = json!(id);
            hub.publish("info", &info);
            let watched = hub.subscribers() > 0;
            seen |= watched;
            let gone = seen || started.elapsed() > std::time::Duration::from_secs(10);
            if !watched && gone {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let position = game.position_command();
        let result = running
            .process
            .go_watched(&position, "go infinite", None, stop, &mut on_info);
        match result {
            Ok(_) => hub.publish("analysis", &json!({"running": false, "id": id})),
            Err(e) => {
                let error = session.failed(SLOT, &mut state, &e);
                hub.publish(
                    "analysis",
                    &json!({"running": false, "error": error.message, "id": id}),
                );
            }
        }
    }

    /// Asks the engine of `slot` to stop thinking (it answers `bestmove`).
    pub fn stop(&self, session: &Session, slot: usize) {
        session.slots[slot].stop.store(true, Ordering::Relaxed);
    }

    /// Kills the engine of `slot` and starts the same one again.
    pub fn restart(
        &self,
        session: &Session,
        slot: usize,
        rules: &Rules,
    ) -> Result<Value, ApiError> {
        session.slots[slot].stop.store(true, Ordering::Relaxed);
        let mut state = session.lock_waiting(slot)?;
        let wanted = state.last.clone().unwrap_or(Wanted {
            engine: 0,
            options: Vec::new(),
        });
        state.running = None;
        state.failure = None;
        self.ready(session, slot, &mut state, &wanted, rules.variant())?;
        let status = slot_json(slot, &state, &self.configs);
        session.hub.publish("engine", &status);
        Ok(status)
    }

    /// Asks the engine whether it accepts a position: its `info string
    /// error` lines, if any, come back as the error.
    pub fn validate(
        &self,
        session: &Session,
        wanted: &Wanted,
        rules: &Rules,
        fen: &str,
    ) -> Result<Option<String>, ApiError> {
        const SLOT: usize = 2;
        session.slots[SLOT].stop.store(true, Ordering::Relaxed);
        let mut state = session.lock_waiting(SLOT)?;
        let process = self.ready(session, SLOT, &mut state, wanted, rules.variant())?;
        let command = format!("position fen {fen}");
        match process.exchange(&[&command], START_TIMEOUT) {
            Ok(lines) => Ok(lines
                .iter()
                .find(|l| l.to_ascii_lowercase().starts_with("info string error"))
                .map(|l| l["info string ".len()..].to_string())),
            Err(e) => Err(session.failed(SLOT, &mut state, &e)),
        }
    }

    /// Every slot's engine state.
    pub fn status(&self, session: &Session) -> Value {
        let slots: Vec<Value> = (0..SLOTS.len())
            .map(|i| match session.slots[i].state.try_lock() {
                Ok(state) => slot_json(i, &state, &self.configs),
                Err(_) => json!({"slot": SLOTS[i], "state": "thinking"}),
            })
            .collect();
        json!({ "slots": slots })
    }

    /// The slot's engine, started or restarted so that it is the wanted
    /// engine with the wanted rules and options.
    fn ready<'s>(
        &self,
        session: &Session,
        slot: usize,
        state: &'s mut SlotState,
        wanted: &Wanted,
        variant: &Variant,
    ) -> Result<&'s mut EngineProcess, ApiError> {
        state.last = Some(wanted.clone());
        let fits = state
            .running
            .as_ref()
            .is_some_and(|r| r.engine == wanted.engine && r.variant == *variant);
        if !fits {
            if let Some(old) = state.running.take() {
                old.process.quit();
            }
            let config = self.config(wanted.engine)?;
            let rules = Rules::new(*variant).map_err(|e| ApiError::new(400, e.to_string()))?;
            match EngineProcess::start(config, &rules, START_TIMEOUT) {
                Ok(process) => {
                    state.failure = None;
                    state.running = Some(Running {
                        process,
                        engine: wanted.engine,
                        variant: *variant,
                        options: Vec::new(),
                    });
                    session
                        .hub
                        .publish("engine", &slot_json(slot, state, &self.configs));
                }
                Err(e) => return Err(session.failed(slot, state, &e)),
            }
        }
        for (name, value) in &wanted.options {
            let running = state.running.as_mut().expect("started above");
            if running.options.iter().any(|(n, v)| n == name && v == value) {
                continue;
            }
            if let Err(e) = running.process.set_option(name, value, START_TIMEOUT) {
                return Err(session.failed(slot, state, &e));
            }
            running.options.retain(|(n, _)| n != name);
            running.options.push((name.clone(), value.clone()));
        }
        Ok(&mut state.running.as_mut().expect("still running").process)
    }
}

impl Session {
    fn idle(&self) -> Duration {
        self.touched.lock().expect("touch lock").elapsed()
    }

    /// The slot, if no search holds it.
    fn lock_idle(&self, slot: usize) -> Result<MutexGuard<'_, SlotState>, ApiError> {
        match self.slots[slot].state.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::WouldBlock) => Err(ApiError::new(
                409,
                format!("the {} engine is busy thinking", slot_name(slot)),
            )),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        }
    }

    /// The slot, once the search holding it has stopped (it was told to).
    fn lock_waiting(&self, slot: usize) -> Result<MutexGuard<'_, SlotState>, ApiError> {
        let until = Instant::now() + STOP_GRACE + START_TIMEOUT;
        loop {
            match self.lock_idle(slot) {
                Ok(guard) => return Ok(guard),
                Err(e) if Instant::now() >= until => return Err(e),
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Drops a failed engine (killing its process group), remembers why,
    /// tells the tab, and gives the error the request answers with.
    fn failed(&self, slot: usize, state: &mut SlotState, error: &EngineError) -> ApiError {
        state.running = None;
        let kind = failure_kind(error);
        // Crashes, garbage and failed starts say what they are already.
        let message = match error {
            EngineError::Crashed(_) | EngineError::Garbage(_) | EngineError::Spawn(_) => {
                format!("{} engine {error}", slot_name(slot))
            }
            _ => format!("{} engine {kind}: {error}", slot_name(slot)),
        };
        state.failure = Some(message.clone());
        let status = json!({"slot": SLOTS[slot], "state": kind, "message": message});
        self.hub.publish("engine", &status);
        ApiError {
            status: 502,
            message,
            engine: Some(status),
        }
    }
}

fn slot_name(slot: usize) -> &'static str {
    ["White", "Black", "analysis"][slot]
}

/// The page's word for what went wrong with an engine.
fn failure_kind(error: &EngineError) -> &'static str {
    match error {
        EngineError::Crashed(_) => "crashed",
        EngineError::Timeout { .. } => "hung",
        EngineError::Garbage(_) => "garbage",
        EngineError::Spawn(_) => "failed to start",
        EngineError::BadOption { .. } => "refused an option",
        EngineError::VariantMismatch { .. } | EngineError::RulesMismatch { .. } => {
            "plays other rules"
        }
        EngineError::Interrupted => "interrupted",
    }
}

fn slot_json(slot: usize, state: &SlotState, configs: &[EngineConfig]) -> Value {
    match (&state.running, &state.failure) {
        (Some(r), _) => json!({
            "slot": SLOTS[slot],
            "state": "ready",
            "engine": configs[r.engine].name,
        }),
        (None, Some(message)) => {
            json!({"slot": SLOTS[slot], "state": "failed", "message": message})
        }
        (None, None) => json!({"slot": SLOTS[slot], "state": "idle"}),
    }
}

/// An engine's `info` line with the fields the page shows picked out.
pub fn info_json(slot: usize, line: &str) -> Value {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let after = |key: &str| {
        tokens
            .iter()
            .position(|&t| t == key)
            .and_then(|i| tokens.get(i + 1))
            .copied()
    };
    let number = |key: &str| after(key).and_then(|v| v.parse::<i64>().ok());
    let pv = tokens
        .iter()
        .position(|&t| t == "pv")
        .map(|i| tokens[i + 1..].join(" "));
    let score = tokens.iter().position(|&t| t == "score").and_then(|i| {
        let kind = *tokens.get(i + 1)?;
        let value: i64 = tokens.get(i + 2)?.parse().ok()?;
        Some(json!({"kind": kind, "value": value}))
    });
    let string = line.strip_prefix("info string ").map(str::to_string);
    json!({
        "slot": SLOTS[slot],
        "multipv": number("multipv").unwrap_or(1),
        "depth": number("depth"),
        "score": score,
        "nodes": number("nodes"),
        "nps": number("nps"),
        "time": number("time"),
        "tbhits": number("tbhits"),
        "pv": pv,
        "string": string,
    })
}

/// A session id nobody can guess from the previous one.
pub fn random_tag() -> u32 {
    rand::random()
}

/// `go` for a move under the page's clock: remaining times and increments
/// in ms, or a fixed time per move. Returns the command and the deadline.
pub fn go_command(clock: &Value, side: Player) -> Result<(String, Duration), ApiError> {
    let field = |name: &str| clock.get(name).and_then(Value::as_u64);
    if let Some(ms) = field("movetime") {
        let ms = ms.clamp(1, 3_600_000);
        return Ok((
            format!("go movetime {ms}"),
            Duration::from_millis(ms) + MOVE_MARGIN,
        ));
    }
    let (Some(wtime), Some(btime)) = (field("wtime"), field("btime")) else {
        return Err(ApiError::new(
            400,
            "clock: give movetime, or wtime and btime (ms)",
        ));
    };
    let (winc, binc) = (field("winc").unwrap_or(0), field("binc").unwrap_or(0));
    let mut go = format!("go wtime {wtime} btime {btime} winc {winc} binc {binc}");
    if let Some(n) = field("movestogo").filter(|&n| n > 0) {
        go.push_str(&format!(" movestogo {n}"));
    }
    let left = if side == Player::White { wtime } else { btime };
    Ok((
        go,
        Duration::from_millis(left.min(86_400_000)) + MOVE_MARGIN,
    ))
}
