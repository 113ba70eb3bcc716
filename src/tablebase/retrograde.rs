//! The retrograde solver of one class and its partner.
//!
//! Exits (placements and captures) lead to classes solved before, so every
//! position first gets the best value among its exits and the number of its
//! steps (the moves that stay in the pair). Then, distance by distance, every
//! position just found lost makes its un-step predecessors won one ply later,
//! and every position just found won takes one from its predecessors'
//! counters: a predecessor whose steps all lead to wins for the other side
//! is lost (as slowly as its exits allow). What is never resolved is a draw.
//! Un-steps come from the rules' own move generation: a step (or own jump)
//! from x to y is legal exactly when the reverse one is, the same side on
//! move, so the tables cannot disagree with the rules.

use super::class::Class;
use super::index::ClassIndex;
use super::index::position;
use super::table::{Table, Tablebase};
use super::value::{Codes, stuck_value};
use super::value::{MAX_DISTANCE, Value};
use crate::rules::{Bitboard, Move, MoveList, Player, Rules};
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

/// A position's state while its pair is being solved. Final values first,
/// then the unresolved states, which carry what the exits allow.
const LOSS: u16 = 0x4000;
/// Unresolved; every exit loses, the longest in `state - LOSS_EXIT` plies.
const LOSS_EXIT: u16 = 0x8000;
/// Unresolved, no exit at all.
const NO_EXIT: u16 = 0xFFFE;
/// Unresolved, but an exit draws: it can no longer lose.
const DRAW_EXIT: u16 = 0xFFFF;

const CHUNK: u64 = 1 << 14;

#[inline(always)]
fn is_win(state: u16) -> bool {
    state < LOSS
}

#[inline(always)]
fn is_unresolved(state: u16) -> bool {
    state >= LOSS_EXIT
}

fn final_state(value: Value) -> u16 {
    match value {
        Value::Win(d) => d,
        Value::Loss(d) => LOSS + d,
        Value::Draw => DRAW_EXIT,
    }
}

/// One class of the pair being solved.
struct Side {
    index: ClassIndex,
    states: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
    /// Per chunk of `CHUNK` positions: how many are resolved but not yet
    /// propagated, so that the scan of each distance skips settled chunks.
    pending: Vec<AtomicU32>,
}

impl Side {
    #[inline(always)]
    fn pending(&self, i: usize) -> &AtomicU32 {
        &self.pending[i / CHUNK as usize]
    }
}

/// Whether a move stays in the class pair: not a placement, not a capture.
#[inline(always)]
fn is_step(mv: &Move) -> bool {
    !mv.is_placement() && !mv.is_capture()
}

/// Steps counted once per (from, to): with MultiJump and JumpOwn two chains
/// can join the same cells and lead to the same position.
struct StepSet {
    dedupe: bool,
    seen: Vec<(u8, u8)>,
}

impl StepSet {
    fn first_time(&mut self, mv: &Move) -> bool {
        if !self.dedupe {
            return true;
        }
        let key = (mv.from(), mv.to());
        if self.seen.contains(&key) {
            return false;
        }
        self.seen.push(key);
        true
    }
}

/// Solves `classes` (one class, or a class and its partner), whose exits
/// lead to classes already in `solved` (or ended by the counts), on
/// `threads` threads; `progress` gets the number of positions done.
pub fn solve_pair(
    solved: &Tablebase,
    classes: &[Class],
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<Table> {
    let rules = solved.rules();
    let cells = rules.geometry().cell_count();
    let sides: Vec<Side> = classes
        .iter()
        .map(|&class| {
            let index = ClassIndex::new(class, cells);
            let n = index.size() as usize;
            Side {
                index,
                states: (0..n).map(|_| AtomicU16::new(NO_EXIT)).collect(),
                counters: (0..n).map(|_| AtomicU8::new(0)).collect(),
                pending: (0..n.div_ceil(CHUNK as usize))
                    .map(|_| AtomicU32::new(0))
                    .collect(),
            }
        })
        .collect();
    let solver = Solver {
        rules,
        // Un-steps are generated without MandatoryCapture (which would hide
        // steps behind captures); the predecessor is checked instead.
        unstep_rules: Rules::new(crate::rules::Variant {
            mandatory_capture: false,
            ..*rules.variant()
        })
        .expect("a valid variant stays valid"),
        solved,
        sides,
        max_level: AtomicU64::new(0),
        dedupe: rules.variant().multi_jump && rules.variant().jump_own,
    };
    let total: u64 = solver.sides.iter().map(|s| s.index.size()).sum();
    solver.run_chunks(threads, total, |s, list, side, range| {
        let mut walk = s.sides[side].index.walk(range.start);
        for i in range.clone() {
            s.initialise(&mut list[0], side, i, walk.cells());
            walk.advance();
        }
        progress(range.end - range.start);
    });
    let mut level = 0;
    while level <= solver.max_level.load(Ordering::SeqCst) {
        let d = level as u16;
        solver.run_chunks(threads, total, |s, list, side, range| {
            let side_ref = &s.sides[side];
            let mut i = range.start;
            while i < range.end {
                let chunk_end = ((i / CHUNK + 1) * CHUNK).min(range.end);
                if side_ref.pending(i as usize).load(Ordering::Relaxed) == 0 {
                    i = chunk_end;
                    continue;
                }
                for j in i..chunk_end {
                    let state = side_ref.states[j as usize].load(Ordering::Relaxed);
                    if state == d || state == LOSS + d {
                        s.propagate(list, side, j, d, is_win(state));
                        side_ref.pending(j as usize).fetch_sub(1, Ordering::Relaxed);
                    }
                }
                i = chunk_end;
            }
        });
        level += 1;
    }
    solver.sides.into_iter().map(finish).collect()
}

/// Turns the states into values: whatever is unresolved is a draw.
fn finish(side: Side) -> Table {
    let codes = side
        .states
        .into_iter()
        .map(|s| {
            let state = s.into_inner();
            let value = if is_unresolved(state) {
                Value::Draw
            } else if is_win(state) {
                Value::Win(state)
            } else {
                Value::Loss(state - LOSS)
            };
            value.encode()
        })
        .collect();
    Table::in_memory(side.index, Codes::from_wide(codes))
}

struct Solver<'a> {
    rules: &'a Rules,
    unstep_rules: Rules,
    solved: &'a Tablebase,
    sides: Vec<Side>,
    max_level: AtomicU64,
    dedupe: bool,
}

impl Solver<'_> {
    /// Runs `work` over every position of the pair in chunks shared out
    /// between `threads` threads.
    fn run_chunks(
        &self,
        threads: usize,
        total: u64,
        work: impl Fn(&Self, &mut [MoveList; 2], usize, std::ops::Range<u64>) + Sync,
    ) {
        let next = AtomicU64::new(0);
        let first_size = self.sides[0].index.size();
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    let mut list = [MoveList::new(), MoveList::new()];
                    loop {
                        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if start >= total {
                            break;
                        }
                        let end = (start + CHUNK).min(total);
                        // Chunks never straddle the two classes.
                        if start < first_size {
                            work(self, &mut list, 0, start..end.min(first_size));
                        }
                        if end > first_size {
                            let from = start.max(first_size) - first_size;
                            work(self, &mut list, 1, from..end - first_size);
                        }
                    }
                });
            }
        });
    }

    fn raise_level(&self, value: u16) {
        self.max_level
            .fetch_max(u64::from(value), Ordering::Relaxed);
    }

    /// The exits' best value and the step count of one position.
    fn initialise(
        &self,
        list: &mut MoveList,
        side: usize,
        i: u64,
        (mover, opponent): (Bitboard, Bitboard),
    ) {
        let s = &self.sides[side];
        let class = s.index.class;
        let pos = position(class, mover, opponent);
        self.rules.legal_moves(&pos, list);
        if list.is_empty() {
            let value = stuck_value(self.rules, &pos);
            s.states[i as usize].store(final_state(value), Ordering::Relaxed);
            if value != Value::Draw {
                s.pending(i as usize).fetch_add(1, Ordering::Relaxed);
            }
            return;
        }
        let mut best_exit: Option<Value> = None;
        let mut steps = StepSet {
            dedupe: self.dedupe,
            seen: Vec::new(),
        };
        let mut step_count = 0u32;
        for mv in list.iter() {
            if is_step(mv) {
                step_count += u32::from(steps.first_time(mv));
                continue;
            }
            let mut child = pos;
            self.rules.apply(&mut child, mv);
            let value = self.solved.probe(&child).unwrap_or_else(|| {
                panic!(
                    "no table for class {} (an exit of {class})",
                    Class::of(&child)
                )
            });
            let value = self.solved.metric().before_move(
                value,
                &child,
                child.side_to_move() == Player::White,
            );
            best_exit = best_exit.max(Some(value));
        }
        assert!(step_count <= 255, "more than 255 steps from one position");
        let state = match (step_count, best_exit) {
            (0, Some(value)) => final_state(value),
            (_, None) => NO_EXIT,
            (_, Some(Value::Win(d))) => d,
            (_, Some(Value::Draw)) => DRAW_EXIT,
            (_, Some(Value::Loss(d))) => LOSS_EXIT + d,
        };
        if state < LOSS_EXIT {
            self.raise_level(state % LOSS);
            s.pending(i as usize).fetch_add(1, Ordering::Relaxed);
        }
        s.states[i as usize].store(state, Ordering::Relaxed);
        s.counters[i as usize].store(step_count as u8, Ordering::Relaxed);
    }

    /// Position `i` of `side` is resolved at distance `d`: tell the
    /// positions one step before it.
    fn propagate(&self, lists: &mut [MoveList; 2], side: usize, i: u64, d: u16, won: bool) {
        let [list, captures] = lists;
        let s = &self.sides[side];
        let class = s.index.class;
        let other = &self.sides[if self.sides.len() == 2 { 1 - side } else { 0 }];
        let (mover, opponent) = s.index.cells(i);
        // The position with the other side to move: its steps are the un-steps.
        let before = position(class.partner(), opponent, mover);
        self.unstep_rules.legal_moves(&before, list);
        let mut steps = StepSet {
            dedupe: self.dedupe,
            seen: Vec::new(),
        };
        let next = d + 1;
        assert!(next < MAX_DISTANCE, "distance beyond the table format");
        for mv in list.iter() {
            if !is_step(mv) || !steps.first_time(mv) {
                continue;
            }
            let path = Bitboard::from_cell(mv.from()) | Bitboard::from_cell(mv.to());
            let pred_mover = opponent ^ path;
            // Under MandatoryCapture the step is legal only when no capture
            // is (a capture may start with a jump over an own piece, so
            // this asks move generation rather than a single-jump test).
            if self.rules.variant().mandatory_capture {
                let pred = position(class.partner(), pred_mover, mover);
                self.rules.capture_moves(&pred, captures);
                if !captures.is_empty() {
                    continue;
                }
            }
            let j = other.index.index(pred_mover, mover) as usize;
            if won {
                self.one_more_lost_step(other, j, next);
            } else {
                self.win(other, j, next);
            }
        }
    }

    /// A step of position `j` leads to a loss for the other side.
    fn win(&self, side: &Side, j: usize, d: u16) {
        let state = &side.states[j];
        let mut current = state.load(Ordering::Relaxed);
        while is_unresolved(current) || (is_win(current) && current > d) {
            match state.compare_exchange_weak(current, d, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    self.raise_level(d);
                    if is_unresolved(current) {
                        side.pending(j).fetch_add(1, Ordering::Relaxed);
                    }
                    return;
                }
                Err(now) => current = now,
            }
        }
    }

    /// A step of position `j` leads to a win for the other side, the last
    /// (and longest) of them found so far at distance `d`.
    fn one_more_lost_step(&self, side: &Side, j: usize, d: u16) {
        if side.counters[j].fetch_sub(1, Ordering::Relaxed) != 1 {
            return;
        }
        let state = &side.states[j];
        let current = state.load(Ordering::Relaxed);
        let lost = match current {
            NO_EXIT => d,
            s if (LOSS_EXIT..NO_EXIT).contains(&s) => d.max(s - LOSS_EXIT),
            _ => return,
        };
        if state
            .compare_exchange(current, LOSS + lost, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.raise_level(lost);
            side.pending(j).fetch_add(1, Ordering::Relaxed);
        }
    }
}
