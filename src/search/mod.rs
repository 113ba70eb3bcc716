//! How the engine thinks. Uses the rules library; knows no protocol text.
//!
//! The protocol drives an `Engine`: `go` starts a search on a worker thread
//! and returns at once; progress and the final move come back as
//! `SearchEvent`s through a callback; `stop`/`ponderhit` may be called from
//! any thread while it runs.

pub mod alphabeta;
pub mod baseline;
pub mod bench;
pub mod correction;
pub mod driver;
pub mod eval_cache;
pub mod kept;
pub mod ladder;
pub mod ordering;
pub mod params;
pub mod score;
pub mod skill;
pub mod tables;
pub mod time;
pub mod tt;

pub use time::Limits;

use crate::rules::{Game, Move};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use tt::TranspositionTable;

/// How the engine chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayStyle {
    /// The real search.
    Search,
    /// A uniformly random legal move (a baseline for testing).
    Random,
    /// The move that leaves the best material after one ply (a baseline).
    Greedy,
}

/// Everything a user can set that changes how the engine searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead_ms: u64,
    pub style: PlayStyle,
    /// `UCI_LimitStrength`: play at `elo` (overrides `skill_level`).
    pub limit_strength: bool,
    pub elo: u32,
    /// `Skill Level`, 0-20; 20 is full strength.
    pub skill_level: u32,
    pub seed: u64,
    /// Search features on or off; the default is the measured best.
    pub features: alphabeta::Features,
    /// The tunable numbers (reductions, windows, time use); the default is
    /// the tuned best.
    pub params: params::SearchParams,
    /// Endgame tables to probe (none by default).
    pub tables: tables::Tables,
    /// `TablebaseProbeDepth`: the remaining depth from which positions of
    /// the largest piece count probed are probed (0: every node).
    pub tb_probe_depth: i32,
    /// `TablebaseCache`: MiB of decoded table blocks the process keeps.
    pub tb_cache_mb: usize,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            style: PlayStyle::Search,
            limit_strength: false,
            elo: 1500,
            skill_level: skill::MAX_LEVEL,
            seed: 0,
            features: alphabeta::Features::default(),
            params: params::SearchParams::default(),
            tables: tables::Tables::default(),
            tb_probe_depth: tables::DEFAULT_PROBE_DEPTH,
            tb_cache_mb: crate::tablebase::mapped::DEFAULT_CACHE_MB,
        }
    }
}

impl SearchOptions {
    /// The strength to play at, unless full.
    pub fn skill(&self) -> Option<skill::Skill> {
        if self.limit_strength {
            skill::Skill::from_elo(self.elo)
        } else {
            skill::Skill::from_level(self.skill_level)
        }
    }
}

/// A search score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like units: 100 is about one piece.
    Cp(i32),
    /// Mate in this many of the side to move's own moves; negative when the
    /// side to move is the one that loses.
    Mate(i32),
}

/// One progress report: the protocol prints it as an `info` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// 1 for the best line, 2 for the second best, … (MultiPV).
    pub multipv: u32,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    /// Table probes that gave a value; None when no tables are loaded.
    pub tbhits: Option<u64>,
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// None only when the position has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub nodes: u64,
}

pub enum SearchEvent {
    Info(SearchInfo),
    /// Always the last event of a search.
    Done(SearchResult),
}

/// What to search and for how long.
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    pub limits: Limits,
    /// Restrict the root to these moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
}

/// Flags shared between the engine and its running search.
#[derive(Default)]
pub struct Signals {
    pub stop: AtomicBool,
    /// Set while `go ponder` waits for `ponderhit`: the search must not end
    /// on its own, even when its limits are reached.
    pub pondering: AtomicBool,
    /// Set once `quit` or the end of input is read after the command being
    /// executed: waits that are not searches (tables loading) give up.
    pub quitting: AtomicBool,
}

pub struct Engine {
    options: SearchOptions,
    tt: Arc<TranspositionTable>,
    signals: Arc<Signals>,
    worker: Option<JoinHandle<()>>,
}

impl Engine {
    pub fn new(options: SearchOptions) -> Engine {
        let tt = Arc::new(TranspositionTable::new(options.hash_mb));
        if options.tb_cache_mb != crate::tablebase::mapped::DEFAULT_CACHE_MB {
            crate::tablebase::mapped::set_cache_mb(options.tb_cache_mb);
        }
        Engine {
            options,
            tt,
            signals: Arc::default(),
            worker: None,
        }
    }

    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// Changes the options; waits for a running search to finish first.
    pub fn set_options(&mut self, options: SearchOptions) {
        self.wait();
        if options.hash_mb != self.options.hash_mb {
            let old = std::mem::replace(
                &mut self.tt,
                Arc::new(TranspositionTable::new(options.hash_mb)),
            );
            tt::release_in_background(old);
        }
        if options.tb_cache_mb != self.options.tb_cache_mb {
            crate::tablebase::mapped::set_cache_mb(options.tb_cache_mb);
        }
        self.options = options;
    }

    /// Forgets everything learned in earlier searches.
    pub fn new_game(&mut self) {
        self.wait();
        // Both ways cost next to nothing (see `TranspositionTable::clear`);
        // the table is only shared while a search runs, and none does now.
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.clear(),
            None => {
                let fresh = Arc::new(TranspositionTable::new(self.options.hash_mb));
                tt::release_in_background(std::mem::replace(&mut self.tt, fresh));
            }
        }
    }

    /// Starts searching `game`'s current position on a worker thread and
    /// returns at once. The search keeps its own time: its hard limit, and
    /// a pondering search's clock (counted from here) once `ponderhit`
    /// comes. `on_event` gets every report, ending with `Done`.
    pub fn go(
        &mut self,
        game: &Game,
        request: SearchRequest,
        on_event: impl FnMut(SearchEvent) + Send + 'static,
    ) {
        self.wait();
        self.signals.stop.store(false, Ordering::SeqCst);
        self.signals
            .pondering
            .store(request.limits.ponder, Ordering::SeqCst);
        let (game, options, tt, signals) = (
            game.clone(),
            self.options.clone(),
            Arc::clone(&self.tt),
            Arc::clone(&self.signals),
        );
        self.worker = Some(std::thread::spawn(move || {
            yield_to_protocol();
            let mut on_event = on_event;
            let result = driver::search(&game, &request, &options, &tt, &signals, &mut on_event);
            on_event(SearchEvent::Done(result));
        }));
    }

    /// Searches and waits for the result (bench, tests, baselines).
    pub fn search(&mut self, game: &Game, request: SearchRequest) -> SearchResult {
        self.ready_to_search_here();
        driver::search(
            game,
            &request,
            &self.options,
            &self.tt,
            &self.signals,
            &mut |_| {},
        )
    }

    /// Searches and waits, reporting to `on_event` as it goes, with
    /// `judged` scored beside the best move at every depth (see
    /// `driver::search_judging`; game analysis).
    pub fn search_judging(
        &mut self,
        game: &Game,
        request: SearchRequest,
        judged: Move,
        on_event: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        self.ready_to_search_here();
        driver::search_judging(
            game,
            &request,
            &self.options,
            judged,
            &self.tt,
            &self.signals,
            on_event,
        )
    }

    /// A search on the calling thread: none running, no stop or ponder
    /// left over from the last.
    fn ready_to_search_here(&mut self) {
        self.wait();
        self.signals.stop.store(false, Ordering::SeqCst);
        self.signals.pondering.store(false, Ordering::SeqCst);
    }

    /// Asks a running search to finish now; it still reports `Done`.
    pub fn stop(&self) {
        self.signals.pondering.store(false, Ordering::SeqCst);
        self.signals.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: the pondering search goes on
    /// as a normal timed search.
    pub fn ponderhit(&self) {
        self.signals.pondering.store(false, Ordering::SeqCst);
    }

    pub fn is_searching(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    /// Blocks until the running search (if any) has reported `Done`.
    pub fn wait(&mut self) {
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// Puts the calling search thread one step below the protocol's threads in
/// the scheduler's eyes, so that the thread answering `isready` and `stop`
/// gets a core at once even when every core is searching (with two search
/// threads on two cores it could otherwise wait a time slice, over 10 ms).
pub(crate) fn yield_to_protocol() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's own id has no memory effects; a
    // failure only leaves the priority as it was.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 1);
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
