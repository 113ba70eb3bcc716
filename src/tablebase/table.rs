//! One solved class in memory, and a set of them for one rule set.

use super::class::Class;
use super::index::ClassIndex;
use super::mapped::{Decode, MappedClass};
use super::value::{Codes, MAX_DISTANCE, Metric, Value, Wdl};
use crate::rules::{MoveList, Position, Rules};
use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The win/draw/loss of the positions probed last, by position key, for
/// the whole process: the search probes the same positions again and again
/// (every iteration of iterative deepening, transpositions, the next
/// move's search), and a probe of the files costs an index, a block
/// look-up and often a block to decode. Each search runs on threads of its
/// own, so a cache per thread started empty at every move. One `AtomicU64`
/// an entry, written whole, as a transposition table: the key's upper 62
/// bits and the symbol + 1 (0 is empty). A key collision is as rare as in
/// the transposition table.
mod recent {
    use super::Wdl;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// 8 MiB, allocated on the first probe of a mapped table.
    const ENTRIES: usize = 1 << 20;

    fn entries() -> &'static [AtomicU64] {
        static CACHE: OnceLock<Box<[AtomicU64]>> = OnceLock::new();
        CACHE.get_or_init(|| (0..ENTRIES).map(|_| AtomicU64::new(0)).collect())
    }

    fn slot(key: u64) -> usize {
        (key >> 44) as usize % ENTRIES
    }

    #[inline]
    pub fn get(key: u64) -> Option<Wdl> {
        let entry = entries()[slot(key)].load(Ordering::Relaxed);
        if entry & !3 != key & !3 {
            return None;
        }
        match entry & 3 {
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            3 => Some(Wdl::Loss),
            _ => None,
        }
    }

    #[inline(always)]
    pub fn prefetch(key: u64) {
        crate::prefetch::prefetch(&entries()[slot(key)]);
    }

    #[inline]
    pub fn put(key: u64, wdl: Wdl) {
        let symbol = match wdl {
            Wdl::Draw => 1,
            Wdl::Win => 2,
            Wdl::Loss => 3,
        };
        entries()[slot(key)].store((key & !3) | symbol, Ordering::Relaxed);
    }
}

/// Where a table's values are: in memory (just solved, or read whole for
/// the tools), or in its files, probed in place.
pub enum Store {
    Memory(Codes),
    Mapped(Box<MappedClass>),
}

/// The exact value of every position of one class.
pub struct Table {
    pub index: ClassIndex,
    pub store: Store,
    /// Its losses read `Loss(0)`: their distances come from one ply of
    /// search (`Tablebase::probe` does it, `Tablebase::derive_losses`
    /// fills them in memory).
    pub losses_derived: bool,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = match &self.store {
            Store::Memory(_) => "in memory".to_string(),
            Store::Mapped(m) => m.wdl.path().display().to_string(),
        };
        write!(f, "Table({}, {place})", self.class())
    }
}

impl Table {
    pub fn in_memory(index: ClassIndex, codes: Codes) -> Table {
        Table {
            index,
            store: Store::Memory(codes),
            losses_derived: false,
        }
    }

    pub fn class(&self) -> Class {
        self.index.class
    }

    /// The value of position `index` (a loss reads `Loss(0)` when the
    /// losses are derived: `Tablebase::probe` finds its distance); None
    /// when its file is damaged.
    #[inline(always)]
    pub fn value(&self, index: u64) -> Option<Value> {
        match &self.store {
            Store::Memory(codes) => Some(Value::decode(codes.get(index as usize))),
            Store::Mapped(files) => files.value(index),
        }
    }

    /// Win, draw or loss of position `index` (its file's distance is not
    /// read); None when its file is damaged, or when `decode` asks for a
    /// cached block only and it is not cached.
    #[inline(always)]
    pub fn wdl(&self, index: u64, decode: Decode) -> Option<Wdl> {
        match &self.store {
            Store::Memory(codes) => Some(Value::decode(codes.get(index as usize)).into()),
            Store::Mapped(files) => Wdl::from_symbol(files.wdl(index, decode)?),
        }
    }

    /// The longest distance the table holds (a bound: the greatest
    /// possible for a table just solved in memory).
    pub fn longest(&self) -> u16 {
        match &self.store {
            Store::Memory(_) => MAX_DISTANCE,
            Store::Mapped(files) => files.longest,
        }
    }

    /// Every value, decoded whole when the table is in files.
    pub fn codes(&self) -> Result<Cow<'_, Codes>, super::format::TableBytesError> {
        match &self.store {
            Store::Memory(codes) => Ok(Cow::Borrowed(codes)),
            Store::Mapped(files) => files.decode_all().map(Cow::Owned),
        }
    }

    /// Position `index` of the class, its side to move as White.
    pub fn position(&self, index: u64) -> Position {
        let (mover, opponent) = self.index.cells(index);
        super::index::position(self.class(), mover, opponent)
    }
}

/// What `stats` prints for a class, from the side to move's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassStats {
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// -1 when there is none.
    pub longest_win: i32,
    pub longest_loss: i32,
}

impl ClassStats {
    /// No positions yet.
    pub const EMPTY: ClassStats = ClassStats {
        positions: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        longest_win: -1,
        longest_loss: -1,
    };

    pub fn of(codes: &Codes) -> ClassStats {
        let mut s = ClassStats::EMPTY;
        for i in 0..codes.len() {
            s.count(Value::decode(codes.get(i)));
        }
        s
    }

    /// One more position of value `v`.
    pub fn count(&mut self, v: Value) {
        self.positions += 1;
        match v {
            Value::Win(d) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(d.into());
            }
            Value::Draw => self.draws += 1,
            Value::Loss(d) => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(d.into());
            }
        }
    }

    /// The statistics of both parts together.
    pub fn merge(&mut self, other: &ClassStats) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
    }
}

impl std::fmt::Display for ClassStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {} {} {} {}",
            self.positions, self.wins, self.draws, self.losses, self.longest_win, self.longest_loss
        )
    }
}

/// The tables of one rule set, by class, for every class of up to
/// `max_pieces` pieces that has been added, their distances all in one
/// metric.
///
/// ```
/// use yote::rules::{Rules, Variant};
/// use yote::tablebase::generate::Silent;
/// use yote::tablebase::{Metric, Request, Shard, Value, generate, load_dir};
///
/// // Every position of up to 4 pieces on a 3×3 board, 2 pieces a side.
/// let rules = Rules::new(Variant::from_spec("standard,rows=3,cols=3,pieces=2")?)?;
/// let dir = std::env::temp_dir().join(format!("yote-doc-tables-{}", std::process::id()));
/// let request = Request {
///     pieces: 4,
///     dir: Some(dir.clone()),
///     shard: Shard::ALL,
///     threads: 1,
///     metric: Metric::Dtz,
/// };
/// generate(&rules, &request, &Silent)?;
///
/// // The engine's way: read the headers, probe the files in place.
/// let tables = load_dir(&rules, &dir, 4)?;
/// let pos = rules.parse_position("3/WB1/3 w 1 1")?;
/// assert_eq!(tables.probe(&pos), Some(Value::Win(1))); // a2c2 captures now
/// let drawn = rules.parse_position("W1B/3/1B1 w 1 0")?;
/// assert_eq!(tables.probe(&drawn), Some(Value::Draw));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tablebase {
    /// Tells this set's entries in the cache of recent probes from
    /// another set's (tables reloaded).
    id: u64,
    rules: Rules,
    max_pieces: u32,
    metric: Metric,
    tables: Vec<Option<Arc<Table>>>,
}

impl Tablebase {
    pub fn new(rules: Rules, max_pieces: u32, metric: Metric) -> Tablebase {
        let side = max_pieces as usize + 1;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Tablebase {
            id: NEXT_ID
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
            rules,
            max_pieces,
            metric,
            tables: vec![None; side.pow(4)],
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn metric(&self) -> Metric {
        self.metric
    }

    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    fn slot(&self, class: Class) -> Option<usize> {
        if class.pieces() > self.max_pieces {
            return None;
        }
        let side = self.max_pieces as usize + 1;
        let f = |x: u8| usize::from(x);
        Some(
            ((f(class.mover_board) * side + f(class.opponent_board)) * side + f(class.mover_hand))
                * side
                + f(class.opponent_hand),
        )
    }

    pub fn insert(&mut self, table: Table) {
        let slot = self
            .slot(table.class())
            .expect("class within the table set's pieces");
        self.tables[slot] = Some(Arc::new(table));
    }

    pub fn table(&self, class: Class) -> Option<&Table> {
        self.tables[self.slot(class)?].as_deref()
    }

    /// Every table held, in class order.
    pub fn tables(&self) -> Vec<&Table> {
        let mut all: Vec<&Table> = self.tables.iter().flatten().map(|t| &**t).collect();
        all.sort_by_key(|t| t.class());
        all
    }

    /// The exact value of `pos` for its side to move, when the piece counts
    /// decide it or its class's table is here. History rules are not
    /// considered: callers decide whether they could change the result.
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        if pos.owed_removals() != 0 {
            return self.best_move_value(pos);
        }
        let class = Class::of(pos);
        if let Some(value) = class.value_by_counts(self.rules.variant()) {
            return Some(value);
        }
        let table = self.table(class)?;
        let us = pos.side_to_move();
        let value = table.value(table.index.index(pos.pieces(us), pos.pieces(!us)))?;
        match (value, table.losses_derived) {
            (Value::Loss(_), true) => self.best_move_value(pos),
            _ => Some(value),
        }
    }

    /// `probe` without the distance: win, draw or loss, reading only the
    /// win/draw/loss file (what the search needs). With
    /// `Decode::CachedOnly`, a position whose block is not decoded yet has
    /// no value (None), as if it were not in the tables.
    #[inline]
    pub fn probe_wdl(&self, pos: &Position, decode: Decode) -> Option<Wdl> {
        if pos.owed_removals() != 0 {
            return self.best_move_value(pos).map(Wdl::from);
        }
        let class = Class::of(pos);
        if let Some(value) = class.value_by_counts(self.rules.variant()) {
            return Some(value.into());
        }
        let table = self.table(class)?;
        let us = pos.side_to_move();
        let index = || table.index.index(pos.pieces(us), pos.pieces(!us));
        match &table.store {
            Store::Memory(_) => table.wdl(index(), decode),
            Store::Mapped(_) => {
                let key = pos.key() ^ self.id;
                if let Some(wdl) = recent::get(key) {
                    return Some(wdl);
                }
                let wdl = table.wdl(index(), decode)?;
                recent::put(key, wdl);
                Some(wdl)
            }
        }
    }

    /// Starts loading the recent-results slot that `probe_wdl` of `pos`
    /// reads first when its table is mapped (for a table in memory the
    /// load is wasted, never wrong).
    #[inline(always)]
    pub fn prefetch(&self, pos: &Position) {
        recent::prefetch(pos.key() ^ self.id);
    }

    /// The longest distance the table of `pos` may hold (0 when the counts
    /// decide it, the greatest possible when removals are owed).
    pub fn longest(&self, pos: &Position) -> u16 {
        if pos.owed_removals() != 0 {
            return MAX_DISTANCE;
        }
        let class = Class::of(pos);
        if class.value_by_counts(self.rules.variant()).is_some() {
            return 0;
        }
        self.table(class).map_or(MAX_DISTANCE, Table::longest)
    }

    /// Fills in the distances of the derived losses of `class` (in memory,
    /// its children's tables here), so that it reads like any other table:
    /// one ply of search per loss, on `threads` threads. Returns false
    /// when a child's table is missing.
    pub fn derive_losses(&mut self, class: Class, threads: usize) -> bool {
        let Some(table) = self.table(class) else {
            return true;
        };
        if !table.losses_derived {
            return true;
        }
        let Ok(codes) = table.codes() else {
            return false;
        };
        let filled = match codes.into_owned() {
            Codes::Narrow(mut v) => self
                .fill_losses(table, &mut v, threads)
                .then_some(Codes::Narrow(v)),
            Codes::Wide(mut v) => self
                .fill_losses(table, &mut v, threads)
                .then_some(Codes::Wide(v)),
        };
        match filled {
            Some(codes) => {
                let index = table.index;
                self.insert(Table::in_memory(index, codes));
                true
            }
            None => false,
        }
    }

    fn fill_losses<T>(&self, table: &Table, codes: &mut [T], threads: usize) -> bool
    where
        T: Copy + Into<u16> + TryFrom<u16> + Send,
    {
        let part = codes.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = codes
                .chunks_mut(part)
                .enumerate()
                .map(|(k, chunk)| {
                    scope.spawn(move || {
                        for (j, code) in chunk.iter_mut().enumerate() {
                            let stored: u16 = (*code).into();
                            if stored == 0 || stored & 1 == 1 {
                                continue;
                            }
                            let pos = table.position((k * part + j) as u64);
                            let Some(value) = self.best_move_value(&pos) else {
                                return false;
                            };
                            // The file's width held every code when it was written.
                            let Ok(derived) = T::try_from(value.encode()) else {
                                return false;
                            };
                            *code = derived;
                        }
                        true
                    })
                })
                .collect();
            workers
                .into_iter()
                .all(|w| w.join().expect("deriving does not panic"))
        })
    }

    /// The value of `pos` from its moves': the best, one ply later. For a
    /// position in the middle of a capture (its jump made, removals owed),
    /// which is in no table (the tables hold positions between moves, and
    /// its pieces are not yet those of any class's position), and for a
    /// loss whose distance its file leaves to be derived (its children are
    /// wins for the other side, stored).
    fn best_move_value(&self, pos: &Position) -> Option<Value> {
        let mut list = MoveList::new();
        self.rules.legal_moves(pos, &mut list);
        if list.is_truncated() {
            return None;
        }
        if list.is_empty() {
            return Some(super::value::stuck_value(&self.rules, pos));
        }
        let mut best = None;
        for mv in list.iter() {
            let mut child = *pos;
            self.rules.apply(&mut child, mv);
            let same = child.side_to_move() == pos.side_to_move();
            let value = self.metric.before_move(self.probe(&child)?, &child, same);
            best = best.max(Some(value));
        }
        best
    }
}
