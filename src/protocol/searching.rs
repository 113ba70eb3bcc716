//! Runs searches for the protocol: starts them, turns their reports into
//! `info` lines, and makes sure every `go` ends in exactly one `bestmove`.
//!
//! The search runs on its own thread and reports through a callback, while
//! the protocol thread keeps reading commands. What both threads touch lives
//! in `Shared` under one mutex, and the `bestmove` is printed by whichever
//! thread completes the last condition (the search finished, and the
//! `infinite`/`ponder` hold was released by `stop`/`ponderhit`), so it is
//! printed once, and only once, whatever the order of events.
//!
//! The search keeps its own time (its hard limit, and after `ponderhit`
//! the clock of the `go`); nothing here times it a second time.

use super::output::{Output, bestmove_line, info_line, legal_prefix};
use crate::rules::{Game, Move, MoveList, Player, Position, Rules};
use crate::search::driver::ponder_reply;
use crate::search::{
    Engine, Score, SearchEvent, SearchInfo, SearchOptions, SearchRequest, SearchResult,
};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// The engine's last answer, kept so that when a front end plays the
/// engine's capture as two turns and asks for the removals, the engine
/// gives the pieces it chose (see `SearchControl::finish_own_capture`).
struct LastAnswer {
    rules: Rules,
    root: Position,
    best: Move,
    /// The last `info` line printed for it (its PV starts with `best`).
    info: SearchInfo,
}

/// What a running `go` needs to finish its output.
struct GoContext {
    rules: Rules,
    root: Position,
    /// The `searchmoves` (empty: every legal move is allowed).
    searchmoves: Vec<Move>,
    /// The Ponder option at `go` time: `bestmove … ponder …` only then.
    ponder_option: bool,
    started: Instant,
}

#[derive(Default)]
struct Shared {
    /// From `go` until its `bestmove` is printed.
    active: bool,
    /// `go infinite`/`go ponder`: the `bestmove` waits for `stop`/`ponderhit`.
    hold: bool,
    /// `go infinite` (a `ponderhit` does not release it; only `stop` does).
    infinite: bool,
    /// `stop` was sent for this search.
    stopped: bool,
    /// The search's result, when it finished while `hold` was on.
    pending: Option<SearchResult>,
    /// The latest report for the best line (multipv 1).
    best_line: Option<SearchInfo>,
    /// The first PV move of the last `info` printed if it was a multipv 1
    /// line: when it is the best move no closing line is needed.
    last_printed_best: Option<Move>,
    context: Option<GoContext>,
    /// Kept from one search to the next.
    last_answer: Option<LastAnswer>,
}

pub struct SearchControl {
    /// Lock order: the engine before `shared`, never the other way round.
    engine: Mutex<Engine>,
    shared: Arc<Mutex<Shared>>,
    out: Output,
    /// Settings to hand the engine when it is next idle: changing them
    /// mid-search would block on the running search.
    pending_options: Option<SearchOptions>,
    clear_pending: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl SearchControl {
    pub fn new(options: SearchOptions, out: Output) -> SearchControl {
        SearchControl {
            engine: Mutex::new(Engine::new(options)),
            shared: Arc::default(),
            out,
            pending_options: None,
            clear_pending: false,
        }
    }

    /// True from `go` until its `bestmove` has been printed.
    pub fn is_active(&self) -> bool {
        lock(&self.shared).active
    }

    /// New settings; applied now if idle, else before the next search.
    pub fn set_options(&mut self, options: SearchOptions) {
        if options == *lock(&self.engine).options() {
            self.pending_options = None;
            return;
        }
        self.pending_options = Some(options);
        self.apply_when_idle();
    }

    /// Clears the hash and what earlier searches learned (ucinewgame,
    /// Clear Hash); deferred like `set_options` during a search.
    pub fn clear(&mut self) {
        lock(&self.shared).last_answer = None;
        self.clear_pending = true;
        self.apply_when_idle();
    }

    /// Answers `go` at once when the current position is the engine's own
    /// last move part way through, a capture whose jump (and maybe some
    /// removals) a front end played as turns of their own: the rest of
    /// the removals it chose, with the figures of the search that chose
    /// them. False (nothing printed) when the position is anything else,
    /// or `searchmoves` leaves that move out: then the caller searches.
    pub fn finish_own_capture(
        &mut self,
        game: &Game,
        searchmoves: &[Move],
        ponder_option: bool,
    ) -> bool {
        let s = lock(&self.shared);
        let (rules, now) = (game.rules(), game.position());
        let Some(last) = s.last_answer.as_ref().filter(|l| l.rules == *rules) else {
            return false;
        };
        // By content, not counters: a GUI that writes the position between
        // the turns may leave the move number out or count it otherwise
        // (issue 40), and a part of a capture has fixed counters anyway.
        let as_played = counted_as_a_part_of(now, &last.root);
        let Some(rest) = rules.rest_of_capture(&last.root, &last.best, &as_played) else {
            return false;
        };
        if !searchmoves.is_empty() && !searchmoves.contains(&rest) {
            return false;
        }
        let line: Vec<Move> = std::iter::once(rest)
            .chain(last.info.pv.iter().skip(1).copied())
            .collect();
        let chosen = last.best;
        let info = SearchInfo {
            pv: legal_prefix(rules, now, &line),
            nodes: 0,
            nps: 0,
            time_ms: 0,
            ..last.info.clone()
        };
        let ponder = info
            .pv
            .get(1)
            .and_then(|&reply| ponder_reply(rules, now, rest, reply))
            .filter(|_| ponder_option);
        let lines = [
            format!(
                "info string {}: the rest of this engine's capture {}, as chosen then",
                rules.move_text(&rest),
                rules.move_text(&chosen)
            ),
            info_line(&info, &info.pv, rules),
            bestmove_line(Some(&rest), ponder.as_ref(), rules),
        ];
        // The memory keeps the whole capture from where it was chosen: a
        // front end that removes one piece per turn asks again, and each
        // answer names the engine's move, not the previous answer (issue 40).
        self.out.lines(lines.iter().map(String::as_str));
        true
    }

    fn apply_when_idle(&mut self) {
        if self.is_active() {
            return;
        }
        let mut engine = lock(&self.engine);
        if let Some(options) = self.pending_options.take() {
            // A new table size reallocates the table, which also clears it.
            self.clear_pending &= options.hash_mb == engine.options().hash_mb;
            engine.set_options(options);
        }
        if std::mem::take(&mut self.clear_pending) {
            engine.new_game();
        }
    }

    /// Starts a search of `game` (which must not be over). The caller has
    /// checked that no search is active.
    pub fn go(&mut self, game: &Game, request: SearchRequest, ponder_option: bool) {
        self.apply_when_idle();
        let rules = game.rules().clone();
        let root = *game.position();
        let searchmoves = request.searchmoves.clone();
        let started = Instant::now();
        {
            let mut s = lock(&self.shared);
            *s = Shared {
                active: true,
                hold: request.limits.infinite || request.limits.ponder,
                infinite: request.limits.infinite,
                context: Some(GoContext {
                    rules,
                    root,
                    searchmoves,
                    ponder_option,
                    started,
                }),
                last_answer: s.last_answer.take(),
                ..Shared::default()
            };
        }
        let (shared, out) = (Arc::clone(&self.shared), self.out.clone());
        lock(&self.engine).go(game, request, move |event| on_event(&shared, &out, event));
    }

    /// `stop`: ends the search; its `bestmove` follows at once.
    pub fn stop(&self) {
        lock(&self.engine).stop();
        lock(&self.shared).stopped = true;
        self.release(true);
    }

    /// Ends the running search and returns once its `bestmove` is printed
    /// (within milliseconds: the search polls the stop flag at every move).
    /// True if `stop` had already been sent for it.
    pub fn stop_and_wait(&mut self) -> bool {
        let already = lock(&self.shared).stopped;
        self.stop();
        lock(&self.engine).wait();
        already
    }

    /// `ponderhit`: the pondering search goes on as a normal timed search,
    /// its clock starting now.
    pub fn ponderhit(&self) {
        lock(&self.engine).ponderhit();
        self.release(false);
    }

    fn release(&self, stop: bool) {
        let mut s = lock(&self.shared);
        if stop || !s.infinite {
            s.hold = false;
        }
        if !s.hold
            && let Some(result) = s.pending.take()
        {
            finish(&mut s, &self.out, result);
        }
    }

    /// The end of a one-shot command list: a search with limits runs to its
    /// end, one that would wait for `stop` (infinite, ponder) is stopped.
    pub fn finish_commands(&mut self) {
        if lock(&self.shared).hold {
            self.stop();
        }
        lock(&self.engine).wait();
    }

    /// `quit`/end of input: stops the search, prints its `bestmove`, and
    /// waits for its thread so nothing is printed after we return.
    pub fn shutdown(&mut self) {
        self.stop();
        lock(&self.engine).wait();
    }
}

/// `pos` with the counters every part of a capture played from `root` has:
/// no plies since capture (the jump reset them) and `root`'s move number
/// (it goes up only once the capture is complete).
fn counted_as_a_part_of(pos: &Position, root: &Position) -> Position {
    let sides = [Player::White, Player::Black];
    Position::from_parts(
        sides.map(|p| pos.pieces(p)),
        sides.map(|p| pos.hand(p).min(u32::from(u8::MAX)) as u8),
        pos.side_to_move(),
        0,
        root.move_number(),
    )
    .with_owed_removals(pos.owed_removals().min(u32::from(u8::MAX)) as u8)
}

fn on_event(shared: &Mutex<Shared>, out: &Output, event: SearchEvent) {
    let mut s = lock(shared);
    match event {
        SearchEvent::Info(info) => report(&mut s, out, info),
        SearchEvent::Done(result) if s.hold => s.pending = Some(result),
        SearchEvent::Done(result) => finish(&mut s, out, result),
    }
}

fn report(s: &mut Shared, out: &Output, info: SearchInfo) {
    let Some(ctx) = &s.context else { return };
    let pv = legal_prefix(&ctx.rules, &ctx.root, &info.pv);
    out.line(&info_line(&info, &pv, &ctx.rules));
    s.last_printed_best = None;
    if info.multipv <= 1 {
        s.last_printed_best = pv.first().copied();
        s.best_line = Some(SearchInfo { pv, ..info });
    }
}

/// Prints the closing `info` line (when the last one printed does not
/// already show the chosen move with a score) and the `bestmove`.
fn finish(s: &mut Shared, out: &Output, result: SearchResult) {
    let Some(ctx) = s.context.take() else { return };
    s.active = false;
    let best = checked_best(&ctx, result.best);
    // The search's reply belongs to its own move: none when that move was
    // refused and replaced.
    let ponder = result.ponder.filter(|_| best == result.best);
    let mut lines = Vec::new();
    if let Some(b) = best {
        let info = match s.best_line.take() {
            Some(line) if s.last_printed_best == Some(b) => line,
            line => {
                let info = closing_info(&ctx, line, &result, b, ponder);
                let pv = legal_prefix(&ctx.rules, &ctx.root, &info.pv);
                lines.push(info_line(&info, &pv, &ctx.rules));
                SearchInfo { pv, ..info }
            }
        };
        s.last_answer = Some(LastAnswer {
            rules: ctx.rules.clone(),
            root: ctx.root,
            best: b,
            info,
        });
    }
    // Before the `bestmove`, so a client that reads up to it sees them.
    out.table_refusals();
    let shown_ponder = ponder.filter(|_| ctx.ponder_option);
    lines.push(bestmove_line(
        best.as_ref(),
        shown_ponder.as_ref(),
        &ctx.rules,
    ));
    out.lines(lines.iter().map(String::as_str));
}

/// The search's move if it is one it was allowed to play; otherwise (a
/// searcher bug) the first allowed move, because an illegal `bestmove`
/// forfeits the game.
fn checked_best(ctx: &GoContext, best: Option<Move>) -> Option<Move> {
    let allowed = |mv: &Move| {
        ctx.rules.is_legal(&ctx.root, mv)
            && (ctx.searchmoves.is_empty() || ctx.searchmoves.contains(mv))
    };
    match best {
        Some(b) if allowed(&b) => Some(b),
        other => {
            if let Some(b) = other {
                log::error!(
                    "search returned an illegal move {}",
                    ctx.rules.move_text(&b)
                );
            }
            let mut list = MoveList::with_limit(1);
            ctx.rules.legal_moves(&ctx.root, &mut list);
            ctx.searchmoves.first().or(list.iter().next()).copied()
        }
    }
}

/// A last `info` line for the chosen move: the search's own figures when its
/// best line starts with that move, else the best known score with the move
/// (and ponder move) as the PV.
fn closing_info(
    ctx: &GoContext,
    line: Option<SearchInfo>,
    result: &SearchResult,
    best: Move,
    ponder: Option<Move>,
) -> SearchInfo {
    let elapsed = ctx.started.elapsed();
    let time_ms = elapsed.as_millis() as u64;
    let mut info = line.unwrap_or(SearchInfo {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score: Score::Cp(0),
        nodes: 0,
        nps: 0,
        time_ms: 0,
        hashfull: 0,
        tbhits: None,
        pv: Vec::new(),
    });
    if info.pv.first() != Some(&best) {
        info.pv = std::iter::once(best).chain(ponder).collect();
    }
    info.multipv = 1;
    info.nodes = info.nodes.max(result.nodes);
    info.time_ms = time_ms;
    info.nps = (u128::from(info.nodes) * 1000 / u128::from(time_ms.max(1))) as u64;
    info
}
