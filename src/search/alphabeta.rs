//! Iterative deepening negamax with alpha-beta pruning.

use super::time::TimeBudget;
use super::tt::{MATE, MATE_BOUND, TranspositionTable};
use super::{
    PlayStyle, Score, SearchEvent, SearchInfo, SearchOptions, SearchRequest, SearchResult, Signals,
};
use crate::rules::{Game, Move, MoveList, Outcome, Position, Rules};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const MAX_PLY: usize = 128;

struct Searcher<'a> {
    rules: &'a Rules,
    signals: &'a Signals,
    start: Instant,
    budget: TimeBudget,
    node_limit: u64,
    nodes: u64,
    seldepth: u32,
    stopped: bool,
    lists: Vec<MoveList>,
    /// Keys of the game so far and of the current search path, for repetitions.
    path: Vec<u64>,
}

pub fn search(
    game: &Game,
    request: &SearchRequest,
    options: &SearchOptions,
    _tt: &TranspositionTable,
    signals: &Signals,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let rules = game.rules();
    let pos = *game.position();
    let mut root_moves = MoveList::new();
    game.legal_moves(&mut root_moves);
    let mut moves: Vec<Move> = root_moves
        .iter()
        .copied()
        .filter(|m| request.searchmoves.is_empty() || request.searchmoves.contains(m))
        .collect();
    if moves.is_empty() {
        moves = root_moves.iter().copied().collect();
    }
    if moves.is_empty() {
        wait_while_pondering(signals);
        return SearchResult {
            best: None,
            ponder: None,
            nodes: 0,
        };
    }
    if options.style != PlayStyle::Search {
        wait_while_pondering(signals);
        return SearchResult {
            best: Some(moves[0]),
            ponder: None,
            nodes: 0,
        };
    }
    let limits = &request.limits;
    let mut s = Searcher {
        rules,
        signals,
        start: Instant::now(),
        budget: TimeBudget::new(limits, options.move_overhead_ms, game.moves().len() as u32),
        node_limit: limits.nodes.unwrap_or(u64::MAX),
        nodes: 0,
        seldepth: 0,
        stopped: false,
        lists: vec![MoveList::new(); MAX_PLY + 1],
        path: game.keys().to_vec(),
    };
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 1)
        .clamp(1, MAX_PLY as u32 - 1);
    let mut best = moves[0];
    for depth in 1..=max_depth {
        let mut alpha = -MATE;
        let mut depth_best = None;
        for (i, mv) in moves.clone().into_iter().enumerate() {
            let mut child = pos;
            rules.apply(&mut child, &mv);
            let score = s.child_score(&pos, &child, depth as i32 - 1, 1, alpha, MATE);
            if s.stopped {
                break;
            }
            if score > alpha || depth_best.is_none() {
                alpha = score;
                depth_best = Some(mv);
                moves[..=i].rotate_right(1);
            }
        }
        if s.stopped && depth > 1 {
            break;
        }
        best = depth_best.unwrap_or(best);
        let elapsed = s.start.elapsed();
        on_event(SearchEvent::Info(SearchInfo {
            depth,
            seldepth: s.seldepth.max(depth),
            multipv: 1,
            score: to_score(alpha),
            nodes: s.nodes,
            nps: (s.nodes as u128 * 1000 / elapsed.as_millis().max(1)) as u64,
            time_ms: elapsed.as_millis() as u64,
            hashfull: 0,
            pv: vec![best],
        }));
        if s.stopped
            || alpha.abs() > MATE_BOUND
            || s.budget.should_stop_soft(elapsed, 0, 0)
                && !signals.pondering.load(Ordering::Relaxed)
        {
            break;
        }
    }
    wait_while_pondering(signals);
    SearchResult {
        best: Some(best),
        ponder: None,
        nodes: s.nodes,
    }
}

fn wait_while_pondering(signals: &Signals) {
    while signals.pondering.load(Ordering::SeqCst) && !signals.stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn to_score(score: i32) -> Score {
    if score > MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        Score::Mate(-(MATE + score + 1) / 2)
    } else {
        Score::Cp(score)
    }
}

impl Searcher<'_> {
    /// The child's value from the parent mover's view: bonus turns keep the
    /// same side on move, so the sign flips only when the side changes.
    fn child_score(
        &mut self,
        parent: &Position,
        child: &Position,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if child.side_to_move() == parent.side_to_move() {
            self.negamax(child, depth, ply, alpha, beta)
        } else {
            -self.negamax(child, depth, ply, -beta, -alpha)
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if self.nodes & 1023 == 0 {
            self.check_time();
        }
        if self.stopped {
            return 0;
        }
        if let Some(end) = self.rules.status(pos) {
            return match end.outcome {
                Outcome::Draw => 0,
                Outcome::Win(p) if p == pos.side_to_move() => MATE - ply as i32,
                Outcome::Win(_) => -(MATE - ply as i32),
            };
        }
        let key = pos.key();
        if self.path.iter().rev().skip(1).any(|&k| k == key) {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return evaluate(pos);
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        self.rules.legal_moves(pos, &mut list);
        let mut best = -MATE;
        for mv in list.iter() {
            let mut child = *pos;
            self.rules.apply(&mut child, mv);
            self.path.push(child.key());
            let score = self.child_score(pos, &child, depth - 1, ply + 1, alpha, beta);
            self.path.pop();
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta || self.stopped {
                break;
            }
        }
        self.lists[ply] = list;
        best
    }

    fn check_time(&mut self) {
        let pondering = self.signals.pondering.load(Ordering::Relaxed);
        if self.signals.stop.load(Ordering::Relaxed)
            || self.nodes >= self.node_limit
            || !pondering
                && self
                    .budget
                    .hard_deadline()
                    .is_some_and(|d| self.start.elapsed() >= d)
        {
            self.stopped = true;
        }
    }
}

/// Material from the side to move's view: pieces on the board and in hand.
fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let them = !us;
    100 * (pos.total(us) as i32 - pos.total(them) as i32)
}
