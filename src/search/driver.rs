//! Running one `go`: iterative deepening with aspiration windows and
//! MultiPV on the main thread, Lazy SMP helpers sharing the table, time
//! management, reporting, the baselines and the strength control.

use super::alphabeta::{Control, Features, NODE_MOVES, RootMove, Searcher};
use super::params::Tuning;
use super::score::{INF, MATE, MATE_BOUND, MAX_PLY, TABLE_WIN};
use super::skill::Skill;
use super::time::{GameStage, Limits, TimeBudget};
use super::tt::TranspositionTable;
use super::{
    PlayStyle, Score, SearchEvent, SearchInfo, SearchOptions, SearchRequest, SearchResult, Signals,
    baseline,
};
use crate::eval;
use crate::rng::SplitMix64;
use crate::rules::{Game, Move, MoveList, Outcome, Position, Rules};
use crate::tablebase::{Metric, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest PV printed (the search line, then moves from the table).
const MAX_PV: usize = 64;
/// The most root moves searched (a sample when there are more, see
/// `root_moves`): setting up and reporting on each root move costs time
/// that `stop` would otherwise wait for.
const ROOT_MOVES: usize = 2 * NODE_MOVES;
/// The nodes searched when the clock is within MoveOverhead: about three
/// plies in standard Yoté, well under a millisecond.
const AT_ONCE_NODES: u64 = 300;

/// Searches `game`'s position with every feature on.
pub fn search(
    game: &Game,
    request: &SearchRequest,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    search_with(
        game,
        request,
        options,
        options.features,
        tt,
        signals,
        on_event,
    )
}

/// Searches with a chosen set of features (the self-play harness switches
/// them off one at a time to measure them).
pub fn search_with(
    game: &Game,
    request: &SearchRequest,
    options: &SearchOptions,
    features: Features,
    tt: &TranspositionTable,
    signals: &Signals,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let budget = time_budget(game, &request.limits, options);
    let search = Search::new(game, request, options, features, budget);
    run_search(&search, tt, signals, on_event)
}

/// The time a search of `game` by `limits` may take. Pondering searches
/// without a clock until ponderhit, then by the clock of the `go`
/// (measured from the `go`, which errs on the safe side): the budget is
/// that clock's.
fn time_budget(game: &Game, limits: &Limits, options: &SearchOptions) -> TimeBudget {
    let clock = Limits {
        ponder: false,
        ..limits.clone()
    };
    TimeBudget::new(
        &clock,
        options.move_overhead_ms,
        GameStage::of(game),
        &options.params,
    )
}

/// Searches `game`'s position and gives `judged`, a legal move there, an
/// exact score at every depth beside the best line, reported as a line of
/// its own (`multipv` its rank) unless it is one of the MultiPV lines: so
/// the move played in a game and the best move are scored by one search, at
/// the same depth (game analysis). When the tables decide the root, only
/// their move is reported.
pub fn search_judging(
    game: &Game,
    request: &SearchRequest,
    options: &SearchOptions,
    judged: Move,
    tt: &TranspositionTable,
    signals: &Signals,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let budget = time_budget(game, &request.limits, options);
    let search = Search {
        judged: Some(judged),
        ..Search::new(game, request, options, options.features, budget)
    };
    run_search(&search, tt, signals, on_event)
}

/// What one search is asked.
struct Search<'a> {
    game: &'a Game,
    request: &'a SearchRequest,
    options: &'a SearchOptions,
    features: Features,
    judged: Option<Move>,
    budget: TimeBudget,
}

impl<'a> Search<'a> {
    fn new(
        game: &'a Game,
        request: &'a SearchRequest,
        options: &'a SearchOptions,
        features: Features,
        budget: TimeBudget,
    ) -> Search<'a> {
        Search {
            game,
            request,
            options,
            features,
            judged: None,
            budget,
        }
    }
}

fn run_search(
    search: &Search,
    tt: &TranspositionTable,
    signals: &Signals,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let &Search {
        game,
        request,
        options,
        features,
        judged,
        budget,
    } = search;
    let start = Instant::now();
    let rules = game.rules();
    let root = *game.position();
    let mut moves = root_moves(game, &request.searchmoves);
    // The judged move is searched even when a huge position's root is a
    // sample that left it out.
    let judged = judged.filter(|mv| game.status().is_none() && rules.is_legal(&root, mv));
    if let Some(mv) = judged.filter(|mv| !moves.contains(mv)) {
        moves.push(mv);
    }
    let limits = &request.limits;
    if moves.is_empty() {
        wait_for_release(signals, limits);
        return SearchResult {
            best: None,
            ponder: None,
            nodes: 0,
        };
    }
    let mut rng = SplitMix64::new(
        options.seed ^ root.key() ^ (game.moves().len() as u64).wrapping_mul(0x2545_f491),
    );
    if options.style != PlayStyle::Search {
        let mv = match options.style {
            PlayStyle::Random => baseline::random(&moves, &mut rng),
            _ => baseline::greedy(rules, &root, &moves, &mut rng),
        };
        report_baseline(rules, &root, mv, start, on_event);
        wait_for_release(signals, limits);
        return SearchResult {
            best: Some(mv),
            ponder: None,
            nodes: 1,
        };
    }
    let skill = options.skill();
    // The strength ladder (docs/strength.md) was measured before the
    // correction history and `tt_eval`: a strength-limited engine plays as
    // its level was measured.
    let features = if skill.is_some() {
        Features {
            correction: false,
            tt_eval: false,
            ..features
        }
    } else {
        features
    };
    // Tables make the engine perfect: not for a strength-limited one.
    let tables = options
        .tables
        .prober(rules)
        .filter(|_| skill.is_none())
        .map(|p| p.with_probe_depth(options.tb_probe_depth));
    if let Some(prober) = tables
        && let Some(lines) = prober.root_lines(game, &moves, options.multipv)
    {
        for (rank, (_, value, line)) in lines.iter().enumerate() {
            let score = table_score(rules, &root, *value, prober.metric(), line);
            report_table_move(rank + 1, score, line, start, on_event);
        }
        wait_for_release(signals, limits);
        let (mv, _, line) = &lines[0];
        return SearchResult {
            best: Some(*mv),
            ponder: ponder_move(rules, &root, line),
            nodes: 1,
        };
    }
    // No time left to think (the clock within MoveOverhead): a few hundred
    // nodes, a fraction of a millisecond of work however loaded the
    // machine, instead of deepening until the last millisecond is up.
    // (One iteration was tried: playing hundreds of moves at depth 1 lost
    // far more than the time it saved.) Infinite and ponder searches have
    // time until `stop`/`ponderhit`.
    let answer_at_once = budget.at_once() && !limits.infinite && !limits.ponder;
    let threads = effective_threads(options.threads);
    let ctl = Control {
        signals,
        abort: AtomicBool::new(false),
        start,
        hard_deadline: if limits.infinite {
            None
        } else {
            budget.hard_deadline()
        },
        node_limit: limits
            .nodes
            .unwrap_or(u64::MAX)
            .min(skill.and_then(|s| s.nodes()).unwrap_or(u64::MAX))
            .min(if answer_at_once {
                AT_ONCE_NODES
            } else {
                u64::MAX
            }),
        counters: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        tbhits: AtomicU64::new(0),
    };
    tt.new_search();
    let job = Job {
        rules,
        root,
        history: game.keys(),
        tt,
        ctl: &ctl,
        tables,
        features,
        tuning: Tuning::new(&options.params),
        judged,
        max_depth: limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .min(skill.map_or(u32::MAX, |s| s.depth()))
            .min(mate_depth(limits))
            .clamp(1, MAX_PLY as u32 - 2) as i32,
    };
    let report_lines = options.multipv.clamp(1, moves.len());
    let main = MainThread {
        job: &job,
        limits,
        budget,
        lines: report_lines
            .max(skill.map_or(1, |s| s.lines(moves.len())))
            .min(moves.len()),
        report_lines,
        on_event,
        last_reported: None,
    };
    let (mut final_moves, depth, seldepth, last_reported) = job.run_threads(main, &moves, threads);
    if let Some(skill) = skill {
        let chosen = choose_with_skill(&skill, rules, &root, &final_moves, &mut rng);
        final_moves.swap(0, chosen);
    }
    if final_moves[0].score == -INF {
        // Stopped before any move had a score: the move is unsearched, and
        // its score is the static evaluation after it.
        let rm = &mut final_moves[0];
        let child = rules.after(&root, &rm.mv);
        rm.score = for_mover(&root, &child, eval::evaluate(rules, &child));
    }
    let best = &final_moves[0];
    let pv = job.checked_pv(&best.pv);
    if last_reported != Some(best.mv) {
        let info = job.info(best, pv.clone(), depth, seldepth, 1);
        on_event(SearchEvent::Info(info));
    }
    wait_for_release(signals, limits);
    SearchResult {
        best: Some(best.mv),
        ponder: ponder_move(rules, &root, &pv),
        nodes: ctl.total_nodes(),
    }
}

/// The root move a strength-limited player picks: weighed by the search's
/// scores when it is attentive, else by a glance at each move's position.
/// Moves past the lines the search scored (positions with thousands of
/// moves) count by a glance either way.
fn choose_with_skill(
    skill: &Skill,
    rules: &Rules,
    root: &Position,
    moves: &[RootMove],
    rng: &mut SplitMix64,
) -> usize {
    let scored = skill.lines(moves.len());
    // A precise level (no softmax) plays what its search found best. Only
    // that move has a searched score; a glance at another can rate it
    // higher, as the evaluation of 2a7253f did for a step into a capture
    // that ends the game (`tests/search.rs`, no_skill_level_walks_into...).
    if skill.temperature() < 1.0 {
        return 0;
    }
    let searched: Vec<i32> = moves
        .iter()
        .enumerate()
        .map(|(i, rm)| {
            if i < scored {
                rm.score
            } else {
                glance(rules, root, &rm.mv)
            }
        })
        .collect();
    if skill.attentive(rng) {
        return skill.choose(&searched, None, rng);
    }
    let glanced: Vec<i32> = moves.iter().map(|rm| glance(rules, root, &rm.mv)).collect();
    skill.choose(&searched, Some(&glanced), rng)
}

/// The mover's score of the position after `mv` without looking at any
/// reply: a win or loss on the board, else the static evaluation.
fn glance(rules: &Rules, root: &Position, mv: &Move) -> i32 {
    let child = rules.after(root, mv);
    match rules.status(&child).map(|end| end.outcome) {
        Some(Outcome::Win(p)) if p == root.side_to_move() => MATE - 1,
        Some(Outcome::Win(_)) => -MATE + 1,
        Some(_) => 0,
        None => for_mover(root, &child, eval::evaluate(rules, &child)),
    }
}

/// `score`, from the view of `child`'s side to move, seen by the side that
/// moved from `root` into `child` (the same side after a bonus turn).
fn for_mover(root: &Position, child: &Position, score: i32) -> i32 {
    if child.side_to_move() == root.side_to_move() {
        score
    } else {
        -score
    }
}

/// `go mate n` looks for a mate in n of the mover's own moves, which takes
/// at most 2n - 1 plies (bonus turns only make the mover's moves denser):
/// once that depth is searched without finding one, more depth cannot find
/// one either, so the search ends instead of running until `stop`.
fn mate_depth(limits: &Limits) -> u32 {
    match limits.mate {
        Some(n) if !limits.infinite => n.saturating_mul(2).saturating_sub(1),
        _ => u32::MAX,
    }
}

/// The legal moves (a bounded sample of them in a huge MultiJump position,
/// see `Rules::legal_moves_bounded`), or the `searchmoves` that are legal
/// when there are any.
fn root_moves(game: &Game, searchmoves: &[Move]) -> Vec<Move> {
    let (rules, root) = (game.rules(), game.position());
    let mut wanted: Vec<Move> = Vec::new();
    for mv in searchmoves {
        if !wanted.contains(mv) && rules.is_legal(root, mv) {
            wanted.push(*mv);
        }
    }
    if !wanted.is_empty() {
        return wanted;
    }
    let mut list = MoveList::with_limit(ROOT_MOVES);
    if game.status().is_none() {
        rules.legal_moves_bounded(root, &mut list);
    }
    list.iter().copied().collect()
}

/// The threads a search runs: the Threads option, but never more than the
/// machine has cores. Threads beyond the cores search no deeper, and they
/// starve the protocol thread, so that `isready` and `stop` wait their turn.
pub fn effective_threads(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    requested.clamp(1, cores.max(1))
}

/// `infinite` and `ponder` searches report their move only once released.
fn wait_for_release(signals: &Signals, limits: &Limits) {
    while (limits.infinite || signals.pondering.load(Ordering::SeqCst))
        && !signals.stop.load(Ordering::SeqCst)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn report_baseline(
    rules: &Rules,
    root: &Position,
    mv: Move,
    start: Instant,
    on_event: &mut dyn FnMut(SearchEvent),
) {
    let child = rules.after(root, &mv);
    let score = for_mover(root, &child, eval::material(&child));
    on_event(SearchEvent::Info(SearchInfo {
        depth: 1,
        seldepth: 1,
        multipv: 1,
        score: Score::Cp(score),
        nodes: 1,
        nps: 0,
        time_ms: start.elapsed().as_millis() as u64,
        hashfull: 0,
        tbhits: None,
        pv: vec![mv],
    }));
}

/// The score of a table move at the root: with distances to the end, the
/// exact mate (in the side to move's own moves along the line); with
/// distances to the next capture, a tablebase win or loss (the length of
/// the game is not known), nearer captures higher.
fn table_score(
    rules: &Rules,
    root: &Position,
    value: Value,
    metric: Metric,
    line: &[Move],
) -> Score {
    if metric == Metric::Dtz {
        return match value {
            Value::Win(d) => Score::Cp(TABLE_WIN - i32::from(d)),
            Value::Loss(d) => Score::Cp(-TABLE_WIN + i32::from(d)),
            Value::Draw => Score::Cp(0),
        };
    }
    let plies = usize::from(value.distance());
    let own = if line.len() >= plies {
        let mut pos = *root;
        let mut own = 0;
        for mv in &line[..plies] {
            own += i32::from(pos.side_to_move() == root.side_to_move());
            rules.apply(&mut pos, mv);
        }
        own
    } else {
        plies.div_ceil(2) as i32
    };
    match value {
        Value::Win(_) => Score::Mate(own),
        Value::Loss(_) => Score::Mate(-own),
        Value::Draw => Score::Cp(0),
    }
}

/// The report of one root line the tables chose (MultiPV rank `rank`),
/// their exact value as its score.
fn report_table_move(
    rank: usize,
    score: Score,
    line: &[Move],
    start: Instant,
    on_event: &mut dyn FnMut(SearchEvent),
) {
    on_event(SearchEvent::Info(SearchInfo {
        depth: 1,
        seldepth: line.len().max(1) as u32,
        multipv: rank as u32,
        score,
        nodes: 1,
        nps: 0,
        time_ms: start.elapsed().as_millis() as u64,
        hashfull: 0,
        tbhits: Some(1),
        pv: line.to_vec(),
    }));
}

/// The move to ponder on: the PV's second move, when it is the opponent's.
fn ponder_move(rules: &Rules, root: &Position, pv: &[Move]) -> Option<Move> {
    ponder_reply(rules, root, *pv.first()?, *pv.get(1)?)
}

/// `reply` if it is a legal move of the opponent after `best`: after a
/// bonus-turn capture the next move is our own, and after a move that ends
/// the game there is none, so there is nothing to ponder on. The one place
/// a ponder move is chosen; the protocol prints what this returns.
pub fn ponder_reply(rules: &Rules, root: &Position, best: Move, reply: Move) -> Option<Move> {
    let after = rules.after(root, &best);
    if after.side_to_move() == root.side_to_move() || rules.status(&after).is_some() {
        return None;
    }
    rules.is_legal(&after, &reply).then_some(reply)
}

/// What every thread of one search shares.
struct Job<'a> {
    rules: &'a Rules,
    root: Position,
    history: &'a [u64],
    tt: &'a TranspositionTable,
    ctl: &'a Control<'a>,
    tables: Option<super::tables::Prober<'a>>,
    features: Features,
    tuning: Tuning,
    /// A root move whose exact score is wanted at every depth.
    judged: Option<Move>,
    max_depth: i32,
}

impl Job<'_> {
    fn searcher(&self, id: usize) -> Searcher<'_> {
        let mut searcher = Searcher::new(
            self.rules,
            self.tt,
            self.ctl,
            id,
            self.features,
            &self.tuning,
            self.history,
        );
        searcher.tables = self.tables;
        searcher
    }

    /// Runs the main thread here and `threads - 1` Lazy SMP helpers beside
    /// it; the helpers stop when the main thread is done. Returns the main
    /// thread's root moves (best first), depth, seldepth and the first move
    /// of the last line it reported.
    fn run_threads(
        &self,
        mut main: MainThread<'_, '_>,
        moves: &[Move],
        threads: usize,
    ) -> (Vec<RootMove>, i32, usize, Option<Move>) {
        let root_moves: Vec<RootMove> = moves.iter().map(|&m| RootMove::new(m)).collect();
        std::thread::scope(|scope| {
            for id in 1..threads {
                let root_moves = root_moves.clone();
                scope.spawn(move || {
                    super::yield_to_protocol();
                    self.helper(id, root_moves)
                });
            }
            let (moves, depth, seldepth) = main.run(root_moves);
            self.ctl.abort.store(true, Ordering::SeqCst);
            (moves, depth, seldepth, main.last_reported)
        })
    }

    /// One depth of iterative deepening over `lines` MultiPV lines, each with
    /// an aspiration window around its previous score. False if stopped.
    fn iterate(&self, s: &mut Searcher, moves: &mut [RootMove], depth: i32, lines: usize) -> bool {
        for rm in moves.iter_mut() {
            rm.prev_score = rm.score;
        }
        let params = &self.tuning.params;
        for line in 0..lines {
            let prev = moves[line].prev_score;
            let mut delta = params.aspiration_delta;
            let (mut alpha, mut beta) =
                if self.features.aspiration && depth >= 4 && prev.abs() < MATE_BOUND {
                    (prev - delta, prev + delta)
                } else {
                    (-INF, INF)
                };
            loop {
                let score = s.root_search(&self.root, moves, depth, alpha, beta, line);
                // Stable: moves that failed low keep their order from before.
                moves[line..].sort_by_key(|m| std::cmp::Reverse(m.score));
                if s.stopped {
                    return false;
                }
                if score <= alpha && alpha > -INF {
                    beta = (alpha + beta) / 2;
                    alpha = (score - delta).max(-INF);
                } else if score >= beta && beta < INF {
                    beta = (score + delta).min(INF);
                } else {
                    break;
                }
                delta += (delta * params.aspiration_growth / 100).max(1);
                if delta > 32 * params.aspiration_delta {
                    (alpha, beta) = (-INF, INF);
                }
            }
            // A later line can score above an earlier one (each is a search
            // of its own, and the earlier one did not see what the later
            // one found in the table): the lines are reported best first,
            // as Stockfish sorts its PV lines after each one.
            moves[..=line].sort_by_key(|m| std::cmp::Reverse(m.score));
        }
        true
    }

    /// Gives the judged move, if any, an exact score at `depth` when it is
    /// not one of the `lines` best (whose scores are exact already): it is
    /// moved to just behind them and searched with a full window, as a line
    /// of its own. False if stopped.
    fn search_judged(
        &self,
        s: &mut Searcher,
        moves: &mut [RootMove],
        depth: i32,
        lines: usize,
    ) -> bool {
        let Some(judged) = self.judged else {
            return true;
        };
        let Some(index) = moves.iter().position(|rm| rm.mv == judged) else {
            return true;
        };
        if index < lines {
            return true;
        }
        moves[lines..=index].rotate_right(1);
        s.root_search(&self.root, &mut moves[..=lines], depth, -INF, INF, lines);
        !s.stopped
    }

    /// A Lazy SMP helper: the same iterative deepening without reports;
    /// odd helpers start one ply deeper so the threads spread over depths.
    fn helper(&self, id: usize, mut moves: Vec<RootMove>) {
        let mut s = self.searcher(id);
        let first = 1 + (id % 2) as i32;
        for depth in first..=self.max_depth {
            if !self.iterate(&mut s, &mut moves, depth, 1) {
                break;
            }
        }
        s.publish_nodes();
    }

    /// `pv` cut at its first illegal move (there should be none), then
    /// extended with table moves as long as they are legal and do not
    /// repeat a position of the line.
    fn checked_pv(&self, pv: &[Move]) -> Vec<Move> {
        let rules = self.rules;
        let mut pos = self.root;
        // The search looked at most `NODE_MOVES` moves per node: a table
        // move is one of those.
        let mut list = MoveList::with_limit(NODE_MOVES);
        let mut line = Vec::new();
        let mut seen = vec![pos.key()];
        let mut from_search = pv.iter();
        while line.len() < MAX_PV && rules.status(&pos).is_none() {
            let next = match from_search.next() {
                Some(mv) => rules.is_legal(&pos, mv).then_some(*mv),
                None if line.len() < pv.len() => None,
                None => self.tt.probe(tt_key(rules, &pos)).and_then(|e| {
                    // In a position too large to list, the line ends here:
                    // sampling its moves for each ply would hold up `bestmove`.
                    rules.legal_moves(&pos, &mut list);
                    let found = list.iter().copied().find(|m| m.signature() == e.mv);
                    found.filter(|_| !list.is_truncated())
                }),
            };
            let Some(mv) = next else { break };
            let mut child = pos;
            rules.apply(&mut child, &mv);
            if line.len() >= pv.len() && seen.contains(&child.key()) {
                break;
            }
            line.push(mv);
            seen.push(child.key());
            pos = child;
        }
        line
    }

    fn info(
        &self,
        rm: &RootMove,
        pv: Vec<Move>,
        depth: i32,
        seldepth: usize,
        line: usize,
    ) -> SearchInfo {
        let elapsed = self.ctl.start.elapsed();
        let nodes = self.ctl.total_nodes();
        SearchInfo {
            depth: depth.max(1) as u32,
            seldepth: seldepth.max(depth.max(1) as usize) as u32,
            multipv: line as u32,
            score: to_score(self.rules, &self.root, rm.score, &pv),
            nodes,
            nps: (u128::from(nodes) * 1_000_000 / elapsed.as_micros().max(1)) as u64,
            time_ms: elapsed.as_millis() as u64,
            hashfull: self.tt.hashfull(),
            tbhits: self.tables.map(|_| self.ctl.tbhits.load(Ordering::Relaxed)),
            pv,
        }
    }
}

/// The table key the searcher uses for `pos` (see `Searcher::tt_key`).
fn tt_key(rules: &Rules, pos: &Position) -> u64 {
    super::alphabeta::table_key(rules.variant().no_capture_draw, pos)
}

/// A score for the protocol. Mates count the moves the side to move makes
/// along the mating line; with bonus turns that is not half the plies, so
/// the PV is replayed when it reaches the end.
fn to_score(rules: &Rules, root: &Position, score: i32, pv: &[Move]) -> Score {
    if score.abs() <= MATE_BOUND {
        return Score::Cp(score);
    }
    let plies = (MATE - score.abs()) as usize;
    let moves = if pv.len() >= plies {
        let mut pos = *root;
        let mut own = 0;
        for mv in &pv[..plies] {
            own += i32::from(pos.side_to_move() == root.side_to_move());
            rules.apply(&mut pos, mv);
        }
        own
    } else {
        plies.div_ceil(2) as i32
    };
    Score::Mate(if score > 0 { moves } else { -moves })
}

/// The main thread: iterative deepening with reports and the time checks.
struct MainThread<'a, 'j> {
    job: &'j Job<'a>,
    limits: &'j Limits,
    budget: TimeBudget,
    lines: usize,
    report_lines: usize,
    on_event: &'j mut dyn FnMut(SearchEvent),
    last_reported: Option<Move>,
}

impl MainThread<'_, '_> {
    /// Returns the root moves best first (from the last completed depth, or
    /// from a partly searched one whose first move was searched), with the
    /// depth and seldepth they come from.
    fn run(&mut self, mut moves: Vec<RootMove>) -> (Vec<RootMove>, i32, usize) {
        let job = self.job;
        let mut s = job.searcher(0);
        // The first iteration always completes: there is always a move and
        // a score to report, even with `go nodes 1`.
        s.can_stop = false;
        let mut completed = (moves.clone(), 0, 0);
        let mut stable = 0;
        for depth in 1..=job.max_depth {
            let done = job.iterate(&mut s, &mut moves, depth, self.lines)
                && job.search_judged(&mut s, &mut moves, depth, self.lines);
            s.can_stop = true;
            s.publish_nodes();
            if !done {
                if job.judged.is_some() {
                    // The best move and the judged one are only comparable
                    // at one depth: a partial depth is not taken.
                    if completed.1 == 0 {
                        completed = self.complete_first_judged(&mut s, moves);
                    }
                } else if moves[0].score > -INF {
                    completed = (moves, depth, s.seldepth);
                }
                break;
            }
            let previous = completed.0[0].clone();
            let seldepth = moves.iter().map(|m| m.seldepth).max().unwrap_or(0);
            completed = (moves.clone(), depth, seldepth);
            self.report(&moves, depth, seldepth);
            if previous.mv == moves[0].mv {
                stable += 1;
            } else {
                stable = 0;
            }
            let drop = if depth > 1 && previous.score.abs() < MATE_BOUND {
                (previous.score - moves[0].score).clamp(-1000, 1000)
            } else {
                0
            };
            if self.done_after(&s, &moves, depth, stable, drop) {
                break;
            }
        }
        completed
    }

    /// The first depth, stopped before the judged move had its score (a
    /// node limit smaller than one depth): the judged move is searched to
    /// depth 1 past the node limit, so that it has a score beside the best
    /// move's, and both are reported.
    fn complete_first_judged(
        &mut self,
        s: &mut Searcher,
        mut moves: Vec<RootMove>,
    ) -> (Vec<RootMove>, i32, usize) {
        let job = self.job;
        s.stopped = false;
        s.can_stop = false;
        job.search_judged(s, &mut moves, 1, self.lines);
        s.can_stop = true;
        s.publish_nodes();
        let root = &job.root;
        let unsearched = |rm: &&mut RootMove| Some(rm.mv) == job.judged && rm.score == -INF;
        if let Some(rm) = moves.iter_mut().find(unsearched) {
            // Stopped by the clock: the static evaluation after the move.
            let child = job.rules.after(root, &rm.mv);
            rm.score = for_mover(root, &child, eval::evaluate(job.rules, &child));
        }
        let seldepth = moves.iter().map(|m| m.seldepth).max().unwrap_or(0);
        self.report(&moves, 1, seldepth);
        (moves, 1, seldepth)
    }

    fn done_after(
        &self,
        s: &Searcher,
        moves: &[RootMove],
        depth: i32,
        stable: u32,
        drop: i32,
    ) -> bool {
        let ctl = self.job.ctl;
        let best = moves[0].score;
        let mate_plies = MATE - best.abs();
        if let Some(n) = self.limits.mate
            && best > MATE_BOUND
            && mate_plies < 2 * n as i32
        {
            return true;
        }
        if self.limits.infinite || ctl.signals.pondering.load(Ordering::Relaxed) {
            return false;
        }
        if ctl.signals.stop.load(Ordering::Relaxed) || s.nodes >= ctl.node_limit {
            return true;
        }
        if self.budget.is_unlimited() {
            return false;
        }
        // With a clock: a forced move, or a mate already seen to its end,
        // needs no more thought.
        moves.len() == 1
            || (best.abs() > MATE_BOUND && depth > mate_plies + 2)
            || self
                .budget
                .should_stop_soft(ctl.start.elapsed(), stable, drop)
    }

    fn report(&mut self, moves: &[RootMove], depth: i32, seldepth: usize) {
        for (i, rm) in moves.iter().take(self.report_lines).enumerate() {
            let pv = self.job.checked_pv(&rm.pv);
            let info = self.job.info(rm, pv, depth, seldepth, i + 1);
            (self.on_event)(SearchEvent::Info(info));
        }
        let judged = moves.iter().enumerate().skip(self.report_lines);
        if let Some((i, rm)) = judged
            .into_iter()
            .find(|(_, rm)| Some(rm.mv) == self.job.judged)
        {
            let pv = self.job.checked_pv(&rm.pv);
            let info = self.job.info(rm, pv, depth, seldepth, i + 1);
            (self.on_event)(SearchEvent::Info(info));
        }
        self.last_reported = Some(moves[0].mv);
    }
}
