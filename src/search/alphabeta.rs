//! One search thread: principal-variation negamax with a transposition
//! table, quiescence search, late-move reductions and mate-distance pruning.
//!
//! Bonus turns: when a capture leaves the same side on move, the child's
//! score is already from the parent's point of view, so `child` passes the
//! window through unchanged instead of negating it. Mate scores count plies
//! from the root whichever side moves, so distances stay right too.
//!
//! Node counting: every call of `negamax`, `qsearch` and `root_search` is one
//! node (a position the search visited), root and quiescence included.

use super::Signals;
use super::correction::CorrectionHistory;
use super::eval_cache::{EvalCache, Evaluation};
use super::ordering::{self, Heuristics, OrderingFeatures};
use super::params::{SearchParams, Tuning};
use super::score::{self, INF, MATE, MAX_PLY};
use super::tt::{Bound, TranspositionTable};
use crate::eval;
use crate::eval::nnue::{self, NnueStack};
use crate::rules::{Move, MoveList, NoMoves, Outcome, Position, Rules, Variant};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Work units (about one node each; see `charge`) between two looks at the
/// stop flag and the clock: about a millisecond of search.
const POLL_INTERVAL: u64 = 1024;
/// The most moves searched at one node. Ordinary positions have a few
/// hundred; a large MultiJump position may have 10^12, and is searched over
/// a bounded sample of them (see `Rules::legal_moves_bounded`).
pub const NODE_MOVES: usize = 4096;
/// Generated or scanned moves per work unit.
const MOVES_PER_UNIT: u64 = 4;

/// Search features that can be switched off, so that the self-play harness
/// can measure what each one is worth. The default has on every feature
/// that measured a gain (see docs/search.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    pub tt: bool,
    pub pvs: bool,
    pub aspiration: bool,
    pub qsearch: bool,
    pub lmr: bool,
    pub killers: bool,
    pub history: bool,
    /// Order removal choices by which enemy piece they take.
    pub removal_order: bool,
    /// Quiescence tries only the best `qs_removals` removals of each jump
    /// (`SearchParams`).
    pub qs_removal_limit: bool,
    /// The full evaluation; off means material only.
    pub full_eval: bool,
    /// The network (`nnue.rs`) instead of the fitted evaluation, in the
    /// rule sets it was measured to win in (`nnue::MEASURED_PRESETS`).
    pub nnue: bool,
    /// The network also in every other rule set it was trained for: how
    /// a match measures it there before it is trusted by default.
    pub nnue_all: bool,
    /// Correction history (`correction.rs`): static evaluations corrected
    /// by what the search found in positions of the same kind.
    pub correction: bool,
    /// Reverse futility prunes on the static evaluation refined by a table
    /// bound beyond it (`refined`).
    pub tt_eval: bool,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            tt: true,
            pvs: true,
            aspiration: true,
            qsearch: true,
            lmr: true,
            // Measured at -12 ± 30 Elo (200 games) with history on: not
            // shown to gain, so off until a match shows otherwise.
            killers: false,
            history: true,
            removal_order: true,
            qs_removal_limit: true,
            full_eval: true,
            // On where a match showed the network stronger than the
            // fitted evaluation, and only there (docs/search.md, "The
            // network").
            nnue: true,
            nnue_all: false,
            correction: true,
            tt_eval: true,
        }
    }
}

/// A feature's name and the way to its flag.
type FeatureFlag = (&'static str, fn(&mut Features) -> &mut bool);

impl Features {
    /// Every feature by name, with a way to reach its flag.
    const FLAGS: [FeatureFlag; 14] = [
        ("tt", |f| &mut f.tt),
        ("pvs", |f| &mut f.pvs),
        ("aspiration", |f| &mut f.aspiration),
        ("qsearch", |f| &mut f.qsearch),
        ("lmr", |f| &mut f.lmr),
        ("killers", |f| &mut f.killers),
        ("history", |f| &mut f.history),
        ("removal_order", |f| &mut f.removal_order),
        ("qs_removal_limit", |f| &mut f.qs_removal_limit),
        ("full_eval", |f| &mut f.full_eval),
        ("nnue", |f| &mut f.nnue),
        ("nnue_all", |f| &mut f.nnue_all),
        ("correction", |f| &mut f.correction),
        ("tt_eval", |f| &mut f.tt_eval),
    ];

    /// Reads `-lmr,+killers`-style changes to the defaults (separated by
    /// commas or spaces; empty means the defaults), so that a feature can be
    /// switched through the engine's options and measured by the match
    /// runner against the default build.
    pub fn parse(text: &str) -> Result<Features, FeatureError> {
        let mut features = Features::default();
        for item in text.split([',', ' ']).filter(|s| !s.is_empty()) {
            // Never split at a byte index: the item may start with any
            // character, and a split inside one panics.
            let (on, name) = if let Some(name) = item.strip_prefix('+') {
                (true, name)
            } else if let Some(name) = item.strip_prefix('-') {
                (false, name)
            } else {
                return Err(FeatureError::NoSign(item.to_string()));
            };
            let flag = Features::FLAGS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| FeatureError::Unknown(name.to_string()))?;
            *(flag.1)(&mut features) = on;
        }
        Ok(features)
    }
}

/// Which evaluation the search uses under given rules, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetworkUse {
    /// The network.
    Network,
    /// The fitted evaluation: `SearchFeatures -nnue`.
    SwitchedOff,
    /// The fitted evaluation: the network was trained for these rules but
    /// not measured to win in them (`SearchFeatures +nnue_all` uses it).
    NotMeasured,
    /// The fitted evaluation: the network has no inputs for these rules or
    /// was not trained on them.
    NoNetwork,
}

impl Features {
    /// Which evaluation a search under `variant` uses.
    pub fn network_use(&self, variant: &Variant) -> NetworkUse {
        if !nnue::trained_for(variant) {
            NetworkUse::NoNetwork
        } else if !self.nnue {
            NetworkUse::SwitchedOff
        } else if !self.nnue_all && !nnue::measured_for(variant) {
            NetworkUse::NotMeasured
        } else {
            NetworkUse::Network
        }
    }
}

/// Why a `SearchFeatures` text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeatureError {
    /// An item that is not `+name` or `-name`.
    NoSign(String),
    Unknown(String),
}

impl std::fmt::Display for FeatureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeatureError::NoSign(item) => {
                write!(f, "feature change {item:?} must start with + or -")
            }
            FeatureError::Unknown(name) => {
                let names: Vec<_> = Features::FLAGS.iter().map(|(n, _)| *n).collect();
                let known = names.join(", ");
                write!(f, "unknown search feature {name:?} (known: {known})")
            }
        }
    }
}

impl std::error::Error for FeatureError {}

/// What every search thread of one `go` shares: stop flags, limits and the
/// published node counts.
pub struct Control<'a> {
    pub signals: &'a Signals,
    /// Raised by the main thread when it is done, to stop the helpers.
    pub abort: AtomicBool,
    pub start: Instant,
    pub hard_deadline: Option<Duration>,
    pub node_limit: u64,
    /// Nodes of each thread, published every `POLL_INTERVAL` nodes.
    pub counters: Vec<AtomicU64>,
    /// Table values used, all threads together.
    pub tbhits: AtomicU64,
}

impl Control<'_> {
    pub fn total_nodes(&self) -> u64 {
        self.counters
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    }
}

/// A root move with what the last search found about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// Score at the current depth; -INF until searched (or when it failed
    /// low behind a better move).
    pub score: i32,
    /// Score at the previous depth (aspiration windows, time management).
    pub prev_score: i32,
    pub seldepth: usize,
    pub pv: Vec<Move>,
}

impl RootMove {
    pub fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INF,
            prev_score: -INF,
            seldepth: 0,
            pv: vec![mv],
        }
    }
}

/// Jumps already seen at a node, identified by start, landing and jumped
/// pieces: the later removal choices of the same jump are "late".
struct JumpSet {
    keys: [u64; 32],
    counts: [u8; 32],
    len: usize,
}

impl JumpSet {
    fn new() -> JumpSet {
        JumpSet {
            keys: [0; 32],
            counts: [0; 32],
            len: 0,
        }
    }

    /// Records one more move of `mv`'s jump; returns how many it has now.
    fn add(&mut self, mv: &Move) -> u8 {
        let key = mv.captured().0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ u64::from(mv.from()) << 56
            ^ u64::from(mv.to()) << 48;
        if let Some(i) = self.keys[..self.len].iter().position(|&k| k == key) {
            self.counts[i] = self.counts[i].saturating_add(1);
            return self.counts[i];
        }
        if self.len < self.keys.len() {
            self.keys[self.len] = key;
            self.counts[self.len] = 1;
            self.len += 1;
        }
        1
    }
}

pub struct Searcher<'a> {
    pub rules: &'a Rules,
    tt: &'a TranspositionTable,
    ctl: &'a Control<'a>,
    pub id: usize,
    pub features: Features,
    pub nodes: u64,
    /// Nodes plus the cost of big move lists, in units of about one node:
    /// the stop flag is looked at every `poll_interval` units, so a search
    /// whose nodes each generate thousands of moves still stops at once.
    work: u64,
    next_poll: u64,
    poll_interval: u64,
    pub seldepth: usize,
    pub stopped: bool,
    /// False until the first root move has a score: the node limit never
    /// stops the search before there is a searched move to play (`stop`
    /// and the clock do, and then the driver plays a move unsearched).
    pub can_stop: bool,
    /// The node limit checked at every node; only the single-thread search
    /// uses it, which is what makes `go nodes` deterministic.
    local_node_limit: u64,
    lists: Vec<MoveList>,
    scores: Vec<Vec<i32>>,
    heuristics: Heuristics,
    /// Repetition keys: the game so far, then the current search path.
    path: Vec<u64>,
    /// `Position::key` of the node at each ply of the current path (main
    /// and quiescence search), computed once when its parent makes it:
    /// the repetition path, the table, the evaluation cache and their
    /// prefetches all read it.
    keys: Vec<u64>,
    pv: Vec<Move>,
    pv_len: [usize; MAX_PLY + 1],
    /// A copy of `tuning.params`, read at every node.
    params: SearchParams,
    tuning: &'a Tuning,
    no_capture_draw: u32,
    mandatory_capture: bool,
    /// Endgame tables: a table position is a leaf with its exact score.
    pub tables: Option<super::tables::Prober<'a>>,
    /// The network's accumulators along the current path, when it is on
    /// and has inputs for these rules.
    nnue: Option<NnueStack>,
    /// `ordering::sort_rest`'s buffer, kept to spare an allocation a node.
    sort_scratch: Vec<(i32, Move)>,
    /// Taken from the transposition table's keeping and given back on drop.
    correction: CorrectionHistory,
    /// Taken from the transposition table's keeping and given back on drop.
    eval_cache: EvalCache,
}

impl Drop for Searcher<'_> {
    fn drop(&mut self) {
        self.tt
            .corrections
            .keep(self.id, std::mem::take(&mut self.correction));
        self.tt
            .eval_caches
            .keep(self.id, std::mem::take(&mut self.eval_cache));
    }
}

impl<'a> Searcher<'a> {
    pub fn new(
        rules: &'a Rules,
        tt: &'a TranspositionTable,
        ctl: &'a Control<'a>,
        id: usize,
        features: Features,
        tuning: &'a Tuning,
        history: &[u64],
    ) -> Searcher<'a> {
        let mut path = Vec::with_capacity(history.len() + MAX_PLY + 1);
        path.extend_from_slice(history);
        let threads = ctl.counters.len() as u64;
        let single_thread = threads == 1;
        // With a node limit and several threads each thread publishes its
        // count often enough for the total to stop near the limit.
        let poll_interval = (ctl.node_limit / (4 * threads)).clamp(1, POLL_INTERVAL);
        let nnue = (features.network_use(rules.variant()) == NetworkUse::Network)
            .then(|| NnueStack::new(rules, MAX_PLY + 1))
            .flatten();
        let evaluation = if nnue.is_some() {
            Evaluation::Network
        } else if features.full_eval {
            Evaluation::Fitted
        } else {
            Evaluation::Material
        };
        Searcher {
            rules,
            tt,
            ctl,
            id,
            features,
            nodes: 0,
            work: 0,
            next_poll: poll_interval,
            poll_interval,
            seldepth: 0,
            stopped: false,
            can_stop: true,
            local_node_limit: if single_thread {
                ctl.node_limit
            } else {
                u64::MAX
            },
            lists: (0..=MAX_PLY)
                .map(|_| MoveList::with_limit(NODE_MOVES))
                .collect(),
            scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(256)).collect(),
            heuristics: Heuristics::new(MAX_PLY),
            path,
            keys: vec![0; MAX_PLY + 1],
            pv: vec![Move::place(0); MAX_PLY * MAX_PLY],
            pv_len: [0; MAX_PLY + 1],
            params: tuning.params,
            tuning,
            no_capture_draw: rules.variant().no_capture_draw,
            mandatory_capture: rules.variant().mandatory_capture,
            tables: None,
            nnue,
            sort_scratch: Vec::with_capacity(256),
            correction: tt.corrections.take(id),
            eval_cache: tt
                .eval_caches
                .take(id)
                .serving(*rules.variant(), evaluation),
        }
    }

    fn ordering_features(&self) -> OrderingFeatures {
        OrderingFeatures {
            killers: self.features.killers,
            history: self.features.history,
            removal_order: self.features.removal_order,
        }
    }

    /// Counts a node and says whether the search must unwind now.
    #[inline(always)]
    fn tick(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.can_stop && self.nodes >= self.local_node_limit {
            self.stopped = true;
            return true;
        }
        self.charge(1)
    }

    /// Adds `units` of work (about one node each) and looks at the stop
    /// conditions when due; says whether the search must unwind now.
    #[inline(always)]
    fn charge(&mut self, units: u64) -> bool {
        self.work += units;
        if self.work >= self.next_poll {
            self.next_poll = self.work + self.poll_interval;
            self.poll();
        }
        self.stopped
    }

    /// Charges for generating or scanning `moves` moves.
    #[inline(always)]
    fn charge_moves(&mut self, moves: usize) -> bool {
        self.charge(moves as u64 / MOVES_PER_UNIT)
    }

    /// The slow checks: signals, the clock, the shared node count. `stop`,
    /// the clock and the end of the main thread stop a search anywhere,
    /// the first iteration included; the node limit only once `can_stop`.
    fn poll(&mut self) {
        let ctl = self.ctl;
        ctl.counters[self.id].store(self.nodes, Ordering::Relaxed);
        if ctl.abort.load(Ordering::Relaxed) || ctl.signals.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.id == 0 {
            let pondering = ctl.signals.pondering.load(Ordering::Relaxed);
            let late = ctl
                .hard_deadline
                .is_some_and(|d| !pondering && ctl.start.elapsed() >= d);
            self.stopped = late;
        }
        if self.can_stop && ctl.node_limit != u64::MAX && ctl.total_nodes() >= ctl.node_limit {
            self.stopped = true;
        }
    }

    /// Publishes the final node count of this thread.
    pub fn publish_nodes(&self) {
        self.ctl.counters[self.id].store(self.nodes, Ordering::Relaxed);
    }

    /// The static evaluation of `pos`, the position at `ply` of the
    /// current path: the cached one where `pos` was evaluated before,
    /// corrected by what the correction history has learnt since.
    #[inline(always)]
    fn eval(&mut self, pos: &Position, ply: usize) -> i32 {
        let key = self.node_key(pos, ply);
        let (rules, full_eval, nnue) = (self.rules, self.features.full_eval, &mut self.nnue);
        let raw = self.eval_cache.get_or_evaluate(key, pos, || {
            if let Some(nnue) = nnue {
                nnue.evaluate(rules, ply, pos)
            } else if full_eval {
                eval::evaluate(rules, pos)
            } else {
                eval::material(pos)
            }
        });
        if self.features.correction {
            raw + self.correction.correction(pos)
        } else {
            raw
        }
    }

    /// Plays `mv` in `pos` for the node at `ply`: the child's key is
    /// computed once and kept for it, and the hash table bucket (with
    /// `tt`), the table result and the evaluation cache entry its search
    /// reads first start loading (see `crate::prefetch`).
    #[inline(always)]
    fn make_child(&mut self, pos: &Position, mv: &Move, ply: usize, tt: bool) -> Position {
        let child = self.rules.after(pos, mv);
        let key = child.key();
        self.keys[ply] = key;
        if tt && self.features.tt {
            self.tt
                .prefetch(keyed_table_key(self.no_capture_draw, key, &child));
        }
        if let Some(tables) = &self.tables {
            tables.prefetch(&child);
        }
        self.eval_cache.prefetch(key, &child);
        child
    }

    /// `Position::key` of `pos`, the node at `ply`, as its parent kept it.
    #[inline(always)]
    fn node_key(&self, pos: &Position, ply: usize) -> u64 {
        // The crate's own tests check every key the search reads, which
        // proves that each node's key is set before it is read.
        #[cfg(test)]
        assert_eq!(self.keys[ply], pos.key(), "the key kept for ply {ply}");
        #[cfg(not(test))]
        let _ = pos;
        self.keys[ply]
    }

    /// The table key of `pos`, the node at `ply`.
    #[inline(always)]
    fn tt_key(&self, pos: &Position, ply: usize) -> u64 {
        keyed_table_key(self.no_capture_draw, self.node_key(pos, ply), pos)
    }

    /// Rules (a) and (b): a win, loss or draw by piece counts.
    #[inline(always)]
    fn piece_end(&self, pos: &Position, ply: usize) -> Option<i32> {
        if !self.rules.ended_by_pieces(pos) {
            return None;
        }
        let limit = self.rules.variant().loss_threshold();
        let us = pos.side_to_move();
        Some(match (pos.total(us) <= limit, pos.total(!us) <= limit) {
            (true, false) => loss(ply),
            (false, true) => -loss(ply),
            _ => 0,
        })
    }

    /// Rule (c): the side to move has no legal move.
    fn no_moves_score(&self, pos: &Position, ply: usize) -> i32 {
        let us = pos.side_to_move();
        match self.rules.variant().no_moves {
            NoMoves::Loses => loss(ply),
            NoMoves::MorePieces => match pos.total(us).cmp(&pos.total(!us)) {
                std::cmp::Ordering::Less => loss(ply),
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => -loss(ply),
            },
        }
    }

    /// Rule (d) at the no-capture limit: a draw, or (NoCaptureOutcome
    /// more-pieces) a win for the side with more pieces, scored as the game
    /// would end so that the search steers by the real outcome.
    fn no_capture_score(&self, pos: &Position, ply: usize) -> i32 {
        match self.rules.no_capture_outcome(pos) {
            Outcome::Draw => 0,
            Outcome::Win(winner) if winner == pos.side_to_move() => -loss(ply),
            Outcome::Win(_) => loss(ply),
        }
    }

    /// Whether NoCaptureDraw (when on) ends the game within `plies` more
    /// quiet plies from `pos` (0: it has ended).
    #[inline(always)]
    fn no_capture_limit_within(&self, pos: &Position, plies: u32) -> bool {
        self.no_capture_draw > 0 && pos.plies_since_capture() + plies >= self.no_capture_draw
    }

    /// Rule (d) and repetitions inside the search: Some(score) when the
    /// position is over by history (after rule (c) where it comes first).
    #[inline(always)]
    fn history_end(&self, pos: &Position, ply: usize) -> Option<i32> {
        if self.no_capture_limit_within(pos, 0) {
            return Some(if self.rules.has_legal_move(pos) {
                self.no_capture_score(pos, ply)
            } else {
                self.no_moves_score(pos, ply)
            });
        }
        // Captures reset the counter and are the only bonus-turn moves, so
        // since the last capture the sides alternate: a repetition is an
        // even number of plies back, at least four.
        let n = self.path.len();
        let back = (pos.plies_since_capture() as usize).min(n - 1);
        let key = self.path[n - 1];
        (4..=back)
            .step_by(2)
            .any(|d| self.path[n - 1 - d] == key)
            .then_some(0)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut((ply + 1) * MAX_PLY);
        let row = &mut head[ply * MAX_PLY..];
        row[0] = mv;
        row[1..=child_len].copy_from_slice(&tail[..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// The principal variation found below the root move just searched.
    fn child_pv(&self) -> &[Move] {
        &self.pv[MAX_PLY..MAX_PLY + self.pv_len[1]]
    }

    /// Searches a child position; bonus turns (same side on move) keep the
    /// window and the score as they are, otherwise negamax negates them.
    #[inline(always)]
    fn child(
        &mut self,
        child: &Position,
        same_side: bool,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if same_side {
            self.negamax(child, depth, ply, alpha, beta)
        } else {
            -self.negamax(child, depth, ply, -beta, -alpha)
        }
    }

    /// Searches the root moves from `first` on (earlier ones are the better
    /// MultiPV lines already found at this depth). Each move's score is
    /// exact when it is inside the window; moves that fail low behind a
    /// better one get -INF so that sorting keeps them behind it.
    // The loop writes moves[i] after searching it: an index reads clearest.
    #[allow(clippy::needless_range_loop)]
    pub fn root_search(
        &mut self,
        root: &Position,
        moves: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        first: usize,
    ) -> i32 {
        self.nodes += 1;
        self.pv_len[0] = 0;
        self.keys[0] = root.key();
        if let Some(nnue) = &mut self.nnue {
            nnue.set(0, root);
        }
        for rm in moves[first..].iter_mut() {
            rm.score = -INF;
        }
        let mut best = -INF;
        for i in first..moves.len() {
            let mv = moves[i].mv;
            let child = self.make_child(root, &mv, 1, depth > 1);
            let same = child.side_to_move() == root.side_to_move();
            self.path.push(self.keys[1]);
            self.seldepth = 0;
            let score = if i == first || !self.features.pvs {
                self.child(&child, same, depth - 1, 1, alpha, beta)
            } else {
                let s = self.child(&child, same, depth - 1, 1, alpha, alpha + 1);
                if s > alpha && s < beta {
                    self.child(&child, same, depth - 1, 1, alpha, beta)
                } else {
                    s
                }
            };
            self.path.pop();
            if self.stopped {
                break;
            }
            self.can_stop = true;
            if i == first || score > alpha {
                let rm = &mut moves[i];
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(self.child_pv());
            }
            best = best.max(score);
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    pub fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        if let Some(score) = self.enter(pos, ply, depth) {
            return score;
        }
        if let Some(score) = self.history_end(pos, ply) {
            return score;
        }
        // No line from here can end sooner than the next ply.
        alpha = alpha.max(loss(ply));
        beta = beta.min(-loss(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.qsearch(pos, ply, alpha, beta);
        }
        let pv_node = beta - alpha > 1;
        let key = self.tt_key(pos, ply);
        let mut tt_move = 0;
        let mut tt_bound = None;
        if self.features.tt
            && let Some(e) = self.tt.probe(key)
        {
            tt_move = e.mv;
            let s = score::score_from_tt(e.score, ply as i32);
            tt_bound = Some((s, e.bound));
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if !pv_node && e.depth >= depth && cut {
                return s;
            }
        }
        // Without a hash table every node lacks a hash move, and nothing
        // would remember the move this shallower search finds.
        if self.features.tt
            && tt_move == 0
            && self.params.iir_depth > 0
            && depth >= self.params.iir_depth
        {
            depth -= 1;
        }
        // The static evaluation is needed for reverse futility pruning, and
        // wherever it is not pruned for the correction history to learn
        // from: an evaluation a node costs little beside its move loop.
        let rfp = !pv_node && depth <= self.params.rfp_depth && !score::is_decisive(beta);
        let static_eval = ((rfp || self.features.correction)
            && pos.owed_removals() == 0
            && !self.no_capture_limit_within(pos, depth as u32))
        .then(|| self.eval(pos, ply));
        if rfp
            && let Some(eval) = static_eval
            && let eval = if self.features.tt_eval {
                refined(eval, tt_bound)
            } else {
                eval
            }
            && eval - self.params.rfp_margin * depth >= beta
        {
            return eval;
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        self.rules.legal_moves_bounded(pos, &mut list);
        if self.charge_moves(list.len()) {
            self.lists[ply] = list;
            return 0;
        }
        if list.is_empty() {
            self.lists[ply] = list;
            return self.no_moves_score(pos, ply);
        }
        let mut scores = std::mem::take(&mut self.scores[ply]);
        ordering::score_moves(
            self.rules,
            pos,
            list.as_slice(),
            &mut scores,
            tt_move,
            ply,
            &self.heuristics,
            self.ordering_features(),
        );
        let result = self.search_moves(pos, &mut list, &mut scores, depth, ply, alpha, beta);
        self.lists[ply] = list;
        self.scores[ply] = scores;
        let Some((best, best_move)) = result else {
            return 0;
        };
        if let Some(eval) = static_eval {
            self.learn_correction(pos, depth, eval, best, beta, best_move);
        }
        if self.features.tt {
            let bound = if best >= beta {
                Bound::Lower
            } else if best_move.is_some() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let mv = best_move.map_or(0, |m| m.signature());
            let score = score::score_to_tt(best, ply as i32);
            self.tt.store(key, mv, score, 0, depth, bound);
        }
        best
    }

    /// Teaches the correction history what the search of `pos` found, when
    /// its result says something about the static evaluation: not after a
    /// capture (the evaluation was never meant to see it), not a mate or
    /// table score, and not a bound on the side the evaluation already is.
    fn learn_correction(
        &mut self,
        pos: &Position,
        depth: i32,
        eval: i32,
        best: i32,
        beta: i32,
        best_move: Option<Move>,
    ) {
        let capture = best_move.is_some_and(|m| m.is_capture());
        let lower_below = best >= beta && best <= eval;
        let upper_above = best_move.is_none() && best >= eval;
        if !self.features.correction
            || capture
            || lower_below
            || upper_above
            || score::is_decisive(best)
        {
            return;
        }
        let rate = self.params.correction_rate;
        self.correction.update(pos, depth, rate, eval, best);
    }

    /// The move loop of `negamax`: PVS with late-move reductions. Returns the
    /// best score and the move that raised alpha (None: all failed low), or
    /// None when the search was stopped.
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        pos: &Position,
        list: &mut MoveList,
        scores: &mut [i32],
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, Option<Move>)> {
        let pv_node = beta - alpha > 1;
        let moves = list.as_mut_slice();
        let mut best = -INF;
        let mut best_move = None;
        let mut jumps = JumpSet::new();
        let full_depth_moves = if pv_node {
            self.params.lmr_pv_moves
        } else {
            self.params.lmr_moves
        } as usize;
        for i in 0..moves.len() {
            if self.charge_moves(moves.len() - i) {
                return None;
            }
            if i < ordering::PICKS_BEFORE_SORT {
                ordering::pick_next(moves, scores, i);
            } else if i == ordering::PICKS_BEFORE_SORT {
                ordering::sort_rest(moves, scores, i, &mut self.sort_scratch);
            }
            let mv = moves[i];
            let child = self.make_child(pos, &mv, ply + 1, depth > 1);
            let same = child.side_to_move() == pos.side_to_move();
            let late_removal = mv.is_capture() && jumps.add(&mv) > 1;
            let new_depth = depth - 1;
            let reduction = if self.features.lmr
                && depth >= self.params.lmr_min_depth
                && i >= full_depth_moves
                && (late_removal || !ordering::is_early(scores[i]))
            {
                let by_history = if mv.is_capture() {
                    0
                } else {
                    history_reduction(scores[i], self.params.lmr_history)
                };
                (self.tuning.reduction(depth, i) + by_history).clamp(0, new_depth - 1)
            } else {
                0
            };
            self.path.push(self.keys[ply + 1]);
            let score = if i == 0 {
                self.child(&child, same, new_depth, ply + 1, alpha, beta)
            } else if self.features.pvs {
                let mut s = self.child(
                    &child,
                    same,
                    new_depth - reduction,
                    ply + 1,
                    alpha,
                    alpha + 1,
                );
                if s > alpha && reduction > 0 {
                    s = self.child(&child, same, new_depth, ply + 1, alpha, alpha + 1);
                }
                if s > alpha && s < beta {
                    s = self.child(&child, same, new_depth, ply + 1, alpha, beta);
                }
                s
            } else {
                let mut s = self.child(&child, same, new_depth - reduction, ply + 1, alpha, beta);
                if s > alpha && reduction > 0 {
                    s = self.child(&child, same, new_depth, ply + 1, alpha, beta);
                }
                s
            };
            self.path.pop();
            if self.stopped {
                return None;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        if !mv.is_capture() {
                            let side = pos.side_to_move();
                            self.heuristics.reward(side, ply, &mv, depth, &moves[..i]);
                        }
                        break;
                    }
                }
            }
        }
        Some((best, best_move))
    }

    /// What every node of the main and quiescence searches does first:
    /// counts itself, polls the stop conditions (0 once stopped), and scores
    /// an end by piece counts or a trusted table value (`depth` plies left
    /// decide whether the tables are probed). None: search on.
    fn enter(&mut self, pos: &Position, ply: usize, depth: i32) -> Option<i32> {
        self.pv_len[ply] = 0;
        if let Some(nnue) = &mut self.nnue {
            nnue.set(ply, pos);
        }
        if self.tick() {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        let end = self.piece_end(pos, ply);
        if end.is_some() {
            return end;
        }
        // `path` ends with this position; quiescence passes depth 0, which
        // the prober's probe depth decides about.
        let score = self
            .tables
            .as_ref()?
            .leaf_score(pos, &self.path, ply, depth)?;
        self.ctl.tbhits.fetch_add(1, Ordering::Relaxed);
        Some(score)
    }

    /// Resolves captures: the side to move may stand pat on the static
    /// evaluation (unless a capture is mandatory) or try its captures, each
    /// jump with only its best few removal choices.
    fn qsearch(&mut self, pos: &Position, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        if let Some(score) = self.enter(pos, ply, 0) {
            return score;
        }
        if !self.rules.has_legal_move(pos) {
            return self.no_moves_score(pos, ply);
        }
        if ply >= MAX_PLY - 1 || !self.features.qsearch {
            return self.eval(pos, ply);
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        self.rules.capture_moves_bounded(pos, &mut list);
        if self.charge_moves(list.len()) {
            self.lists[ply] = list;
            return 0;
        }
        let mut best = -INF;
        if !self.mandatory_capture || list.is_empty() {
            // Every quiet move would reach the no-capture limit: standing
            // pat is the limit's outcome (material does not change on a
            // quiet move), not the evaluation.
            let quiet_ends = self.no_capture_limit_within(pos, 1);
            best = if quiet_ends {
                self.no_capture_score(pos, ply + 1)
            } else {
                self.eval(pos, ply)
            };
            if best >= beta || list.is_empty() {
                self.lists[ply] = list;
                return best;
            }
            alpha = alpha.max(best);
        }
        let mut scores = std::mem::take(&mut self.scores[ply]);
        ordering::score_moves(
            self.rules,
            pos,
            list.as_slice(),
            &mut scores,
            0,
            ply,
            &self.heuristics,
            self.ordering_features(),
        );
        let moves = list.as_mut_slice();
        let mut jumps = JumpSet::new();
        for i in 0..moves.len() {
            if self.charge_moves(moves.len() - i) {
                break;
            }
            ordering::pick_next(moves, &mut scores, i);
            let mv = moves[i];
            if i32::from(jumps.add(&mv)) > self.params.qs_removals && self.features.qs_removal_limit
            {
                continue;
            }
            let child = self.make_child(pos, &mv, ply + 1, false);
            let score = if child.side_to_move() == pos.side_to_move() {
                self.qsearch(&child, ply + 1, alpha, beta)
            } else {
                -self.qsearch(&child, ply + 1, -beta, -alpha)
            };
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        self.scores[ply] = scores;
        best
    }

    /// Forgets killers and history (between searches they would mislead
    /// about a different position only a little; a new game clears them).
    pub fn clear_heuristics(&mut self) {
        self.heuristics.clear();
    }
}

/// Plies a quiet move's history adds to its late-move reduction: fewer for
/// a move that often refuted, more for one that never did, a ply per
/// `64 × lmr_history` points (rounded; `lmr_history` 0: none). A quiet late
/// move's ordering score is its history (hash move and killers are never
/// late).
#[inline]
fn history_reduction(history: i32, lmr_history: i32) -> i32 {
    let per_ply = i64::from(lmr_history) * 64;
    if per_ply == 0 {
        return 0;
    }
    let hundredths = -i64::from(history) * 100 / per_ply;
    (hundredths + 50).div_euclid(100) as i32
}

/// The score of being mated at `ply`: later losses are less bad.
#[inline(always)]
pub fn loss(ply: usize) -> i32 {
    -(MATE - ply as i32)
}

/// The table key: `Position::key` (board, hands, side to move), and, when
/// NoCaptureDraw is on and its limit is near enough to matter within a
/// search, the plies left before it (so a score that depends on the limit
/// is never reused where the limit is elsewhere).
#[inline(always)]
pub fn table_key(no_capture_draw: u32, pos: &Position) -> u64 {
    keyed_table_key(no_capture_draw, pos.key(), pos)
}

/// `table_key` of a position whose `Position::key` is known.
#[inline(always)]
fn keyed_table_key(no_capture_draw: u32, key: u64, pos: &Position) -> u64 {
    if no_capture_draw == 0 {
        return key;
    }
    let left = no_capture_draw.saturating_sub(pos.plies_since_capture());
    if left as usize > 2 * MAX_PLY {
        key
    } else {
        key ^ splitmix(u64::from(left) + 1)
    }
}

#[inline(always)]
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The static evaluation refined by a table score that bounds the node's
/// value on the far side of it (Stockfish's ttValue adjustment).
fn refined(eval: i32, tt: Option<(i32, Bound)>) -> i32 {
    match tt {
        Some((s, bound)) if !score::is_decisive(s) => match bound {
            Bound::Exact => s,
            Bound::Lower if s > eval => s,
            Bound::Upper if s < eval => s,
            _ => eval,
        },
        _ => eval,
    }
}

#[cfg(test)]
mod tests {
    use super::{Bound, history_reduction, refined};
    use crate::search::score::TABLE_WIN;

    #[test]
    fn history_moves_a_reduction_a_ply_per_step_rounded() {
        // 64 × 64 = 4096 points a ply at the default.
        assert_eq!(history_reduction(0, 64), 0);
        assert_eq!(history_reduction(-4096, 64), 1);
        assert_eq!(history_reduction(4096, 64), -1);
        assert_eq!(history_reduction(-6000, 64), 1);
        assert_eq!(history_reduction(-6200, 64), 2);
        assert_eq!(history_reduction(2047, 64), 0);
        assert_eq!(history_reduction(2100, 64), -1);
        assert_eq!(history_reduction(-1 << 20, 1), 16_384);
        assert_eq!(history_reduction(-1 << 20, 0), 0);
    }

    #[test]
    fn a_table_bound_beyond_the_evaluation_refines_it() {
        assert_eq!(refined(50, None), 50);
        assert_eq!(refined(50, Some((120, Bound::Lower))), 120);
        assert_eq!(refined(50, Some((20, Bound::Lower))), 50);
        assert_eq!(refined(50, Some((20, Bound::Upper))), 20);
        assert_eq!(refined(50, Some((120, Bound::Upper))), 50);
        assert_eq!(refined(50, Some((-30, Bound::Exact))), -30);
        // A mate or table score says nothing of the evaluation.
        assert_eq!(refined(50, Some((TABLE_WIN, Bound::Lower))), 50);
    }
}
