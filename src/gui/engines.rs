//! Engine sessions: each tab gets a session with three engine slots (White,
//! Black and analysis), each holding at most one engine process started on
//! demand from the command line's list. The process handling is the match
//! runner's (`EngineProcess`): bounded lines, deadlines, process groups, and
//! the same crash / hang / garbage classification, which the page shows
//! with a restart button. A failed engine is dropped (its group killed);
//! the server goes on serving.
//!
//! Engines are counted against one limit, whichever route started them
//! (a permit lives inside each running engine). A page holds its engines
//! only while it shows it is open: an event stream, or a request or
//! heartbeat within [`ENGINE_IDLE`]; past that the reaper stops them (they
//! start again on the next request). A closed or evicted session's engines
//! end at once.

use super::board::Replayed;
use super::live::Hub;
use crate::client::engine_process::{EngineConfig, EngineError, EngineProcess, STOP_GRACE};
use crate::rules::{Player, Rules, Variant};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::thread;
use std::time::{Duration, Instant};

/// Handshake, rule setup and `isready` answers must come within this.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Beyond the clock or move time, before a thinking engine counts as hung.
pub const MOVE_MARGIN: Duration = Duration::from_secs(2);

/// Sessions at once; the oldest idle one is closed to make room.
pub const MAX_SESSIONS: usize = 32;

/// A session nobody has touched or watched for this long is closed.
const IDLE: Duration = Duration::from_secs(600);

/// A page that neither streams events nor calls (a heartbeat will do) for
/// this long is taken as closed: its engines are stopped.
pub const ENGINE_IDLE: Duration = Duration::from_secs(15);

/// Engines running at once unless `--max-engines` says otherwise.
pub const DEFAULT_MAX_ENGINES: usize = 12;

/// An analysis is given this long for its page to open a stream.
const ANALYSIS_GRACE: Duration = Duration::from_secs(10);

/// How often the reaper looks for engines of closed pages.
const REAP_EVERY: Duration = Duration::from_secs(1);

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
    /// This engine's place under the limit, given back when it is dropped.
    _permit: EnginePermit,
}

/// One engine's share of the limit on engines in all.
struct EnginePermit(Arc<AtomicUsize>);

impl Drop for EnginePermit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Values the page's own options return to when a request leaves them
/// out, so an engine passed between slots plays at the strength asked.
const OPTION_DEFAULTS: [(&str, &str); 3] = [
    ("Skill Level", "20"),
    ("UCI_LimitStrength", "false"),
    ("MultiPV", "1"),
];

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
    /// Closed or evicted: no engine starts for it any more.
    closed: AtomicBool,
    /// When its last analysis started: the page opens its stream only
    /// after, so an analysis nobody watches is stopped only past a grace.
    analysis_started: Mutex<Instant>,
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
    pub max_engines: usize,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    counter: AtomicU64,
    /// Engines running now, in all sessions.
    running: Arc<AtomicUsize>,
}

impl Engines {
    pub fn new(configs: Vec<EngineConfig>, max_engines: usize) -> Engines {
        Engines {
            configs,
            max_engines: max_engines.max(1),
            sessions: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
            running: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A new session; the least recently used idle sessions are closed
    /// (their engines stopped) first when there are too many.
    pub fn open(&self) -> Arc<Session> {
        let mut sessions = self.sessions.lock().expect("sessions lock");
        let mut evicted: Vec<Arc<Session>> = Vec::new();
        sessions.retain(|_, s| {
            let keep = s.hub.subscribers() > 0 || s.idle() < IDLE;
            if !keep {
                evicted.push(s.clone());
            }
            keep
        });
        while sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .values()
                .min_by_key(|s| *s.touched.lock().expect("touch lock"))
                .map(|s| s.id.clone())
                .expect("sessions is not empty");
            evicted.extend(sessions.remove(&oldest));
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = format!("s{n}-{:08x}", random_tag());
        let session = Arc::new(Session {
            id: id.clone(),
            hub: Hub::new(&id),
            slots: Default::default(),
            touched: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
            analysis_started: Mutex::new(Instant::now()),
        });
        sessions.insert(id, session.clone());
        drop(sessions);
        for old in evicted {
            old.close();
        }
        session
    }

    /// Ends the session `id` and its engines (the page closed); whether
    /// there was one.
    pub fn close(&self, id: &str) -> bool {
        let removed = self.sessions.lock().expect("sessions lock").remove(id);
        removed.map(|s| s.close()).is_some()
    }

    /// Engines running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// Every `REAP_EVERY`: the engines of pages that went away stop.
    pub fn reap_forever(&self) {
        loop {
            thread::sleep(REAP_EVERY);
            self.reap();
        }
    }

    /// Stops the engines of sessions with no open stream and no request
    /// for `ENGINE_IDLE`, and closes sessions idle for `IDLE`.
    pub fn reap(&self) {
        let (sessions, gone) = {
            let mut sessions = self.sessions.lock().expect("sessions lock");
            let mut gone = Vec::new();
            sessions.retain(|_, s| {
                let keep = s.hub.subscribers() > 0 || s.idle() < IDLE;
                if !keep {
                    gone.push(s.clone());
                }
                keep
            });
            (sessions.values().cloned().collect::<Vec<_>>(), gone)
        };
        for session in gone {
            session.close();
        }
        for session in sessions {
            if session.hub.subscribers() > 0 {
                session.touch();
                continue;
            }
            // Nobody sees the lines (the page closed or stopped listening),
            // though it may still call: the analysis stops.
            if session
                .analysis_started
                .lock()
                .expect("analysis lock")
                .elapsed()
                > ANALYSIS_GRACE
            {
                session.slots[2].stop.store(true, Ordering::Relaxed);
            }
            // A move being thought over in a request is activity: the
            // page's other engine is kept for its turn.
            if session.thinking() {
                session.touch();
            } else if session.idle() >= ENGINE_IDLE {
                session.stop_engines();
            }
        }
    }

    /// A place under the engine limit for a new engine. At the limit, an
    /// idle engine (one not thinking) of the least recently used page is
    /// stopped to make room; if every engine is
    /// thinking, the page is told so.
    fn reserve(&self) -> Result<EnginePermit, ApiError> {
        loop {
            let now = self.running.load(Ordering::SeqCst);
            if now < self.max_engines {
                if self
                    .running
                    .compare_exchange(now, now + 1, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    return Ok(EnginePermit(self.running.clone()));
                }
                continue;
            }
            if !self.reclaim_idle() {
                return Err(ApiError::new(
                    503,
                    format!(
                        "all {} engines the server allows are thinking (--max-engines); stop an analysis or close another tab, then try again",
                        self.max_engines
                    ),
                ));
            }
        }
    }

    /// Stops one idle engine, the least recently used page's first (the
    /// asking page's own other slots last; the slot asking is locked by
    /// the caller, so it is passed over); whether one was found.
    fn reclaim_idle(&self) -> bool {
        let mut sessions: Vec<Arc<Session>> = self
            .sessions
            .lock()
            .expect("sessions lock")
            .values()
            .cloned()
            .collect();
        sessions.sort_by_key(|s| *s.touched.lock().expect("touch lock"));
        sessions.iter().any(|s| s.stop_one_idle_engine())
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
        session.end_if_closed(&mut state);
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
        let mut state = session.lock_preempting(SLOT)?;
        session.slots[SLOT].stop.store(false, Ordering::Relaxed);
        *session.analysis_started.lock().expect("analysis lock") = Instant::now();
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
            let gone = seen || started.elapsed() > ANALYSIS_GRACE;
            if !watched && gone {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let position = game.position_command();
        let result = running
            .process
            .go_watched(&position, "go infinite", None, stop, &mut on_info);
        session.end_if_closed(&mut state);
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
        let mut state = session.lock_preempting(slot)?;
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
        let mut state = session.lock_preempting(SLOT)?;
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
        if session.closed.load(Ordering::SeqCst) {
            return Err(ApiError::new(
                404,
                format!("session '{}' was closed (reload the page)", session.id),
            ));
        }
        state.last = Some(wanted.clone());
        let fits = |r: &Running| r.engine == wanted.engine && r.variant == *variant;
        if !state.running.as_ref().is_some_and(fits) {
            if let Some(old) = state.running.take() {
                old.process.quit();
            }
            // One engine per page where one will do: an idle slot's engine
            // that fits moves here rather than a second one starting.
            state.running = session.take_fitting(slot, &fits);
        }
        if state.running.is_none() {
            let permit = self.reserve()?;
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
                        _permit: permit,
                    });
                    session
                        .hub
                        .publish("engine", &slot_json(slot, state, &self.configs));
                }
                Err(e) => return Err(session.failed(slot, state, &e)),
            }
        }
        if let Err(e) = set_options(state.running.as_mut().expect("started above"), wanted) {
            return Err(session.failed(slot, state, &e));
        }
        Ok(&mut state.running.as_mut().expect("still running").process)
    }
}

/// Sets the wanted options the engine does not have yet, and returns the
/// page's own options that the request leaves out to their defaults.
fn set_options(running: &mut Running, wanted: &Wanted) -> Result<(), EngineError> {
    let left_out: Vec<String> = running
        .options
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| !wanted.options.iter().any(|(w, _)| w == n))
        .collect();
    for name in left_out {
        if let Some((_, default)) = OPTION_DEFAULTS.iter().find(|(n, _)| *n == name) {
            running.process.set_option(&name, default, START_TIMEOUT)?;
        }
        running.options.retain(|(n, _)| *n != name);
    }
    for (name, value) in &wanted.options {
        if running.options.iter().any(|(n, v)| n == name && v == value) {
            continue;
        }
        running.process.set_option(name, value, START_TIMEOUT)?;
        running.options.retain(|(n, _)| n != name);
        running.options.push((name.clone(), value.clone()));
    }
    Ok(())
}

impl Session {
    fn idle(&self) -> Duration {
        self.touched.lock().expect("touch lock").elapsed()
    }

    fn touch(&self) {
        *self.touched.lock().expect("touch lock") = Instant::now();
    }

    /// No engine starts for this session any more, and its engines stop:
    /// idle ones now, thinking ones when their search ends (they are told
    /// to stop).
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.stop_engines();
    }

    /// Stops every engine of the session: idle ones are ended now; an
    /// analysis is told to stop (its thread ends the engine if the session
    /// closed, else the next reap does). A move search in a request is
    /// left to its deadline.
    fn stop_engines(&self) {
        self.slots[2].stop.store(true, Ordering::Relaxed);
        for slot in &self.slots {
            if let Ok(mut state) = slot.state.try_lock()
                && let Some(running) = state.running.take()
            {
                running.process.quit();
            }
        }
    }

    /// Whether a search holds one of its slots.
    fn thinking(&self) -> bool {
        self.slots.iter().any(|slot| slot.state.try_lock().is_err())
    }

    /// Ends one engine that is not thinking; whether there was one.
    fn stop_one_idle_engine(&self) -> bool {
        for slot in &self.slots {
            if let Ok(mut state) = slot.state.try_lock()
                && let Some(running) = state.running.take()
            {
                running.process.quit();
                return true;
            }
        }
        false
    }

    /// The engine of another slot that is idle and `fits`, taken from it.
    fn take_fitting(&self, slot: usize, fits: &dyn Fn(&Running) -> bool) -> Option<Running> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != slot)
            .find_map(|(_, other)| {
                let mut state = other.state.try_lock().ok()?;
                if state.running.as_ref().is_some_and(fits) {
                    state.running.take()
                } else {
                    None
                }
            })
    }

    /// After a search: a closed session's engine ends.
    fn end_if_closed(&self, state: &mut SlotState) {
        if self.closed.load(Ordering::SeqCst)
            && let Some(running) = state.running.take()
        {
            running.process.quit();
        }
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
        self.lock_within(slot, || {})
    }

    /// The slot for a request that replaces whatever holds it (a new
    /// analysis, a position check, a restart): the stop is asked again
    /// while it waits, since another request may take the slot first and
    /// start a search that would otherwise hold it until the wait ends.
    fn lock_preempting(&self, slot: usize) -> Result<MutexGuard<'_, SlotState>, ApiError> {
        let stop = &self.slots[slot].stop;
        self.lock_within(slot, || stop.store(true, Ordering::Relaxed))
    }

    fn lock_within(
        &self,
        slot: usize,
        mut waiting: impl FnMut(),
    ) -> Result<MutexGuard<'_, SlotState>, ApiError> {
        let until = Instant::now() + STOP_GRACE + START_TIMEOUT;
        loop {
            waiting();
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
