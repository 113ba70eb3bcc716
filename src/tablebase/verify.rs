//! The forward check of a table set: every stored value recomputed from the
//! values of its children, through the rules' move generation. Independent
//! of how the solver got there (un-steps, counters, levels).

use super::class::Class;
use super::index::position;
use super::table::{ClassStats, Table, Tablebase};
use super::value::Value;
use super::value::stuck_value;
use crate::rules::{MoveList, Player};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A stored value that its children contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub class: Class,
    pub position: String,
    /// None when its file could not give it.
    pub stored: Option<Value>,
    pub recomputed: Option<Value>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let recomputed = self
            .recomputed
            .map_or("a child without a table".to_string(), |v| v.to_string());
        let stored = self
            .stored
            .map_or("unreadable".to_string(), |v| v.to_string());
        write!(
            f,
            "class {}: {} is stored as {stored}, its children say {recomputed}",
            self.class, self.position
        )
    }
}

/// Checks every position of every table; returns the number checked or the
/// first contradiction found.
pub fn verify(tables: &Tablebase, threads: usize) -> Result<u64, Mismatch> {
    verify_classes(tables, threads, |_| true, &mut |_, _| {}, &|_| {})
}

/// Checks every position of the tables whose class `wanted` accepts, one
/// table after another; `done` hears of each table checked (its class and
/// the statistics of its values, as `tb stats` prints them), `advance` of
/// positions as they are checked (from several threads). A table's
/// children are probed wherever they are in the set, so a run over some
/// classes proves those classes given the others; runs over disjoint
/// selections together prove the whole set.
pub fn verify_classes(
    tables: &Tablebase,
    threads: usize,
    wanted: impl Fn(Class) -> bool,
    done: &mut dyn FnMut(Class, &ClassStats),
    advance: &(dyn Fn(u64) + Sync),
) -> Result<u64, Mismatch> {
    let mut checked = 0;
    for table in tables.tables() {
        if !wanted(table.class()) {
            continue;
        }
        let stats = verify_table(tables, table, threads, advance)?;
        done(table.class(), &stats);
        checked += stats.positions;
    }
    Ok(checked)
}

/// Checks one table with `threads` workers taking blocks of positions;
/// the statistics of its values.
fn verify_table(
    tables: &Tablebase,
    table: &Table,
    threads: usize,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<ClassStats, Mismatch> {
    const BLOCK: u64 = 4096;
    let rules = tables.rules();
    let stats = Mutex::new(ClassStats::EMPTY);
    let failure = Mutex::new(None);
    let size = table.index.size();
    let next = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut list = MoveList::new();
                let mut mine = ClassStats::EMPTY;
                loop {
                    let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                    if start >= size || failure.lock().is_ok_and(|f| f.is_some()) {
                        break;
                    }
                    for i in start..(start + BLOCK).min(size) {
                        let (mover, opponent) = table.index.cells(i);
                        let pos = position(table.class(), mover, opponent);
                        rules.legal_moves(&pos, &mut list);
                        let recomputed = if list.is_empty() {
                            Some(stuck_value(rules, &pos))
                        } else {
                            list.iter().try_fold(Value::Loss(0), |best, mv| {
                                let mut child = pos;
                                rules.apply(&mut child, mv);
                                let same = child.side_to_move() == Player::White;
                                let value = tables.probe(&child)?;
                                Some(best.max(tables.metric().before_move(value, &child, same)))
                            })
                        };
                        // Through the set: a loss its file leaves to
                        // be derived is derived from its children.
                        let stored = tables.probe(&pos);
                        if recomputed != stored || stored.is_none() {
                            let mut f = failure.lock().expect("no panics hold the lock");
                            f.get_or_insert(Mismatch {
                                class: table.class(),
                                position: rules.position_text(&pos),
                                stored,
                                recomputed,
                            });
                            return;
                        }
                        mine.count(stored.expect("checked above"));
                    }
                    advance((start + BLOCK).min(size) - start);
                }
                stats.lock().expect("no panics hold the lock").merge(&mine);
            });
        }
    });
    if let Some(m) = failure.lock().expect("threads are done").take() {
        return Err(m);
    }
    Ok(stats.into_inner().expect("threads are done"))
}
