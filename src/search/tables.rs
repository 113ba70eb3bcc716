//! The search's use of endgame tablebases: which table values it may trust
//! under the history rules, leaves inside the search (win/draw/loss only,
//! unless a no-capture limit needs the distance), and perfect play at the
//! root (with the distances).
//!
//! Tables ignore the history rules, so a value is trusted only where they
//! cannot change it:
//! - A draw is exact when the history rules can only add draws: a side that
//!   can hold the draw for ever still holds it when play is cut short. With
//!   NoCaptureOutcome more-pieces the no-capture limit can turn a drawn
//!   position into a win for the side with more pieces, so there a draw is
//!   not trusted.
//! - A win or loss at distance d: along the table's line every position is
//!   new (the distance falls every ply until the next capture), so only two
//!   things can intervene. NoCaptureDraw (limit L, p plies without capture
//!   now): with distances to the end (DTM) the d-1 positions before the end
//!   have at most p + d - 1 plies without capture, so the result stands
//!   when p + d <= L. With distances to the next capture (DTZ) the first
//!   stretch fits when p + d <= L, and every later stretch starts at 0 in a
//!   class of fewer pieces, so it fits when the longest DTZ of those
//!   classes is at most L. Otherwise the table is not used: with p + d > L
//!   the loser can hold off the capture until the limit (the win is gone
//!   under a drawing limit), and the other case is the one the tables
//!   cannot decide (a later stretch that may not fit). RepetitionDraw (R
//!   occurrences): a future position can repeat one seen since the last
//!   capture at most once (future positions are all distinct), so the
//!   result stands when no position of that window has occurred R - 1
//!   times yet; with R = 2 that means the window must be empty. Longer
//!   windows than `MAX_WINDOW` are not examined: the table is not used.

use super::score::TABLE_WIN;
use crate::rules::{Game, Move, MoveList, NoCaptureOutcome, Player, Position, Rules, Variant};
use crate::tablebase::{self, Metric, Tablebase, Value, Wdl};
use std::path::PathBuf;
use std::sync::Arc;

/// `TablebaseProbeDepth`'s default: 0, every node probes, the quiescence
/// search included, as version-1 tables in memory did. That pays when
/// most probes hit the block cache (`TablebaseCache`, 256 MiB by default):
/// with the ≤ 8 set it came within 5 ± 6 Elo of version 1's strength,
/// where a depth of 4 (the default with a 32 MiB cache) stayed 15.6 ± 6.8
/// behind (docs/tablebases.md).
pub const DEFAULT_PROBE_DEPTH: i32 = 0;

/// The least depth at which a probe may decode a block that is not cached:
/// below it (the quiescence search) a probe answers only from decoded
/// blocks. Decoding there cost the first search on freshly opened tables
/// about a fifth of its speed; not decoding there kept it within 15 % of
/// the speed without tables and was +6.1 ± 10.0 Elo against decoding
/// everywhere, 400 games (docs/tablebases.md).
const DECODE_DEPTH: i32 = 1;

/// The most history positions examined for the repetition rule.
const MAX_WINDOW: usize = 64;

/// Loaded tables, shared by every search (cheap to clone).
#[derive(Clone, Default)]
pub struct Tables {
    set: Option<Arc<Tablebase>>,
    pieces: u32,
    /// By piece count n: the longest distance of any class of n pieces or
    /// fewer.
    longest_up_to: Arc<Vec<u16>>,
}

impl PartialEq for Tables {
    fn eq(&self, other: &Tables) -> bool {
        self.pieces == other.pieces
            && match (&self.set, &other.set) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

impl Eq for Tables {}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.set {
            Some(set) => write!(
                f,
                "Tables({} classes, {} pieces)",
                set.tables().len(),
                self.pieces
            ),
            None => f.write_str("Tables(none)"),
        }
    }
}

/// The directory separator of a path list, as in Stockfish's SyzygyPath.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The most directories a path list is searched in: each costs a few file
/// system look-ups per class, so a path list of half a million entries
/// would otherwise take half an hour.
pub const MAX_DIRS: usize = 32;

/// Whether tables loaded for `old` rules must be loaded again for `new`:
/// when a rule the tables depend on changes, or the piece count (which
/// decides the classes looked for). The history rules change only what
/// the prober trusts.
pub fn tables_differ(old: &Variant, new: &Variant) -> bool {
    tablebase::file::table_rules(old) != tablebase::file::table_rules(new)
        || old.pieces != new.pieces
}

/// The directories of a path list, each once, at most `MAX_DIRS`; an error
/// line for the rest.
pub fn path_list(paths: &str) -> (Vec<PathBuf>, Option<String>) {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut more = 0usize;
    for entry in paths
        .split(PATH_SEPARATOR)
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "<empty>")
    {
        let dir = PathBuf::from(entry);
        if dirs.contains(&dir) {
            continue;
        }
        if dirs.len() == MAX_DIRS {
            more += 1;
        } else {
            dirs.push(dir);
        }
    }
    let error = (more > 0).then(|| {
        format!(
            "TablebasePath: {} directories, only the first {MAX_DIRS} are searched",
            MAX_DIRS + more
        )
    });
    (dirs, error)
}

impl Tables {
    /// Loads the tables for `rules` of up to `pieces` pieces from the
    /// directories of `paths`. Returns them with a summary line, and one
    /// error per directory or file refused (those are never probed).
    pub fn load(paths: &str, pieces: u32, rules: &Rules) -> (Tables, String, Vec<String>) {
        let (dirs, too_many) = path_list(paths);
        let (tables, summary, errors) = Tables::load_from(&dirs, pieces, rules);
        (
            tables,
            summary,
            too_many.into_iter().chain(errors).collect(),
        )
    }

    /// `load` from the directories of a path list.
    pub fn load_from(
        dirs: &[PathBuf],
        pieces: u32,
        rules: &Rules,
    ) -> (Tables, String, Vec<String>) {
        if dirs.is_empty() || pieces == 0 {
            return (Tables::default(), "tablebases off".to_string(), Vec::new());
        }
        let mut errors: Vec<String> = Vec::new();
        errors.extend(
            dirs.iter()
                .filter(|d| !d.is_dir())
                .map(|d| format!("TablebasePath: {} is not a directory", d.display())),
        );
        // Old-format tables come by whole directories: one line for each.
        let mut old_format: Vec<(PathBuf, usize)> = Vec::new();
        let (set, refused) = tablebase::load_dirs(rules, dirs, pieces);
        // Files of other rules come by whole directories: one line for each.
        let mut other_rules: Vec<(PathBuf, usize, String)> = Vec::new();
        for e in &refused {
            match e {
                tablebase::file::TableFileError::OldFormat(path) => {
                    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
                    match old_format.iter_mut().find(|(d, _)| *d == dir) {
                        Some(entry) => entry.1 += 1,
                        None => old_format.push((dir, 1)),
                    }
                }
                tablebase::file::TableFileError::WrongRules { path, found, .. } => {
                    let dir = path.parent().map(PathBuf::from).unwrap_or_default();
                    match other_rules.iter_mut().find(|(d, _, _)| *d == dir) {
                        Some(entry) => entry.1 += 1,
                        None => other_rules.push((dir, 1, found.clone())),
                    }
                }
                e => errors.push(format!("tablebase file refused: {e}")),
            }
        }
        for (dir, n) in old_format {
            errors.push(format!(
                "{n} tablebase files refused in {}: format version 1 (uncompressed); convert them with `yote tb pack --from {} --to NEWDIR`",
                dir.display(),
                dir.display()
            ));
        }
        for (dir, n, found) in other_rules {
            errors.push(format!(
                "{n} tablebase files refused in {}: made for other rules ({found})",
                dir.display()
            ));
        }
        let count = set.tables().len();
        let largest = set
            .tables()
            .iter()
            .map(|t| t.class().pieces())
            .max()
            .unwrap_or(0);
        let summary = format!(
            "tablebases: {count} classes of up to {largest} pieces loaded ({})",
            match set.metric() {
                Metric::Dtz => "win/draw/loss and distance to the next capture",
                Metric::Dtm => "win/draw/loss and distance to the end",
            }
        );
        let mut longest_up_to = vec![0u16; largest as usize + 1];
        for table in set.tables() {
            let n = table.class().pieces() as usize;
            longest_up_to[n] = longest_up_to[n].max(table.longest());
        }
        for n in 1..longest_up_to.len() {
            longest_up_to[n] = longest_up_to[n].max(longest_up_to[n - 1]);
        }
        let tables = Tables {
            set: (count > 0).then(|| Arc::new(set)),
            pieces,
            longest_up_to: Arc::new(longest_up_to),
        };
        (tables, summary, errors)
    }

    /// A prober for a search under `rules`, when tables for them are loaded.
    pub fn prober<'a>(&'a self, rules: &Rules) -> Option<Prober<'a>> {
        let set = self.set.as_deref()?;
        let same = tablebase::file::table_rules(set.rules().variant())
            == tablebase::file::table_rules(rules.variant());
        same.then(|| Prober {
            set,
            longest_up_to: &self.longest_up_to,
            pieces: self.pieces.min(set.max_pieces()),
            probe_depth: DEFAULT_PROBE_DEPTH,
            no_capture_draw: rules.variant().no_capture_draw,
            draw_is_exact: rules.variant().no_capture_draw == 0
                || rules.variant().no_capture_outcome == NoCaptureOutcome::Draw,
            repetition_draw: rules.variant().repetition_draw,
        })
    }
}

/// Probes for one search: the tables, the piece limit and the history rules.
#[derive(Clone, Copy)]
pub struct Prober<'a> {
    set: &'a Tablebase,
    longest_up_to: &'a [u16],
    pieces: u32,
    /// Positions of `pieces` pieces are probed in the search only at this
    /// remaining depth or more.
    probe_depth: i32,
    no_capture_draw: u32,
    /// No history rule can turn a draw into a win.
    draw_is_exact: bool,
    repetition_draw: u32,
}

impl Prober<'_> {
    /// This prober with positions of the largest piece count probed in the
    /// search only at remaining depth `depth` or more, and smaller ones
    /// everywhere but the quiescence search; 0 probes every node
    /// (`TablebaseProbeDepth`).
    pub fn with_probe_depth(self, depth: i32) -> Self {
        Prober {
            probe_depth: depth.max(0),
            ..self
        }
    }

    /// The table value of `pos`, when it has one and the history rules
    /// cannot change it. `keys` are the keys of the game and search path up
    /// to and including `pos`.
    #[inline]
    pub fn value(&self, pos: &Position, keys: &[u64]) -> Option<Value> {
        if pieces(pos) > self.pieces {
            return None;
        }
        let value = self.set.probe(pos)?;
        self.trusted(value, pos, keys).then_some(value)
    }

    /// Starts loading what a probe of `pos` will read first, when it
    /// may be probed.
    #[inline(always)]
    pub fn prefetch(&self, pos: &Position) {
        if pieces(pos) <= self.pieces {
            self.set.prefetch(pos);
        }
    }

    /// What the tables' distances count.
    pub fn metric(&self) -> Metric {
        self.set.metric()
    }

    /// The score of `pos` at `ply`, with `depth` plies left to search, for
    /// the search, when the tables hold it and the history rules cannot
    /// change it: a win scores as a tablebase win (below every mate, nearer
    /// ones higher; the root finds the line with the distances). Only the
    /// win/draw/loss file is read, unless a no-capture limit could cut the
    /// class's longest distance: then the position's own distance decides
    /// whether the win arrives in time.
    ///
    /// With a probe depth of 0 every node probes, the quiescence search
    /// (`depth` 0) included, there from blocks already decoded only
    /// (`DECODE_DEPTH`). Otherwise, as in Stockfish, nothing is probed
    /// where the search has no depth left, and positions of the largest
    /// piece count only from `probe_depth` on: with a small block cache
    /// their probes mostly miss it, and near the leaves a probe then costs
    /// more than the search it saves (docs/tablebases.md).
    #[inline]
    pub fn leaf_score(&self, pos: &Position, keys: &[u64], ply: usize, depth: i32) -> Option<i32> {
        let pieces = pieces(pos);
        let probed = self.probe_depth == 0
            || (depth >= 1 && (pieces < self.pieces || depth >= self.probe_depth));
        if pieces > self.pieces || !probed {
            return None;
        }
        let decode = if depth >= DECODE_DEPTH {
            tablebase::Decode::Always
        } else {
            tablebase::Decode::CachedOnly
        };
        let wdl = self.set.probe_wdl(pos, decode)?;
        if wdl == Wdl::Draw {
            return self.draw_is_exact.then_some(0);
        }
        if !self.repetitions_cannot_intervene(pos, keys) {
            return None;
        }
        if self.no_capture_draw > 0 {
            let since_capture = pos.plies_since_capture();
            let in_time = |d: u16| since_capture + u32::from(d) <= self.no_capture_draw;
            if !self.later_stretches_fit(pieces)
                || !(in_time(self.set.longest(pos)) || in_time(self.set.probe(pos)?.distance()))
            {
                return None;
            }
        }
        let win = TABLE_WIN - ply as i32;
        Some(if wdl == Wdl::Win { win } else { -win })
    }

    /// Under DTZ, whether every stretch after the next capture (in a class
    /// of fewer than `pieces` pieces) fits in the no-capture limit.
    fn later_stretches_fit(&self, pieces: u32) -> bool {
        if self.set.metric() == Metric::Dtm || self.no_capture_draw == 0 {
            return true;
        }
        let below = (pieces as usize).saturating_sub(1);
        let longest = self.longest_up_to[below.min(self.longest_up_to.len() - 1)];
        u32::from(longest) <= self.no_capture_draw
    }

    fn trusted(&self, value: Value, pos: &Position, keys: &[u64]) -> bool {
        let d = match value {
            Value::Draw => return self.draw_is_exact,
            Value::Win(d) | Value::Loss(d) => u32::from(d),
        };
        if self.no_capture_draw > 0
            && (pos.plies_since_capture() + d > self.no_capture_draw
                || !self.later_stretches_fit(pieces(pos)))
        {
            return false;
        }
        self.repetitions_cannot_intervene(pos, keys)
    }

    /// RepetitionDraw cannot stop a win or loss of `pos` (see the module
    /// comment).
    fn repetitions_cannot_intervene(&self, pos: &Position, keys: &[u64]) -> bool {
        let since_capture = pos.plies_since_capture();
        if self.repetition_draw == 0 {
            return true;
        }
        let before = &keys[..keys.len().saturating_sub(1)];
        let window = &before[before.len().saturating_sub(since_capture as usize)..];
        if window.is_empty() {
            return true;
        }
        if self.repetition_draw == 2 || window.len() > MAX_WINDOW {
            return false;
        }
        let limit = self.repetition_draw as usize - 2;
        window
            .iter()
            .all(|k| window.iter().filter(|w| *w == k).count() <= limit)
    }

    /// The table's best move at the root of `game` among `moves`, with its
    /// value and the perfect line it starts, when the root is in the tables
    /// and the value is trusted.
    pub fn root_move(&self, game: &Game, moves: &[Move]) -> Option<(Move, Value, Vec<Move>)> {
        self.root_lines(game, moves, 1)?.into_iter().next()
    }

    /// The `count` best root moves by their table values (best first, ties
    /// in `moves`' order), each with its perfect line: MultiPV where the
    /// tables decide the root. None where `root_move` would be none.
    pub fn root_lines(
        &self,
        game: &Game,
        moves: &[Move],
        count: usize,
    ) -> Option<Vec<(Move, Value, Vec<Move>)>> {
        let rules = game.rules();
        let root = game.position();
        self.value(root, game.keys())?;
        let ranked = self.ranked_children(rules, root, moves)?;
        let &(_, best) = ranked.first()?;
        if !self.trusted(best, root, game.keys()) {
            return None;
        }
        let lines = ranked
            .into_iter()
            .take(count.max(1))
            .map(|(mv, value)| (mv, value, self.perfect_line(rules, root, mv, value)))
            .collect();
        Some(lines)
    }

    /// `first`, then the best move of each position after it by the
    /// tables, to the end of the game (a draw shows its first move only).
    fn perfect_line(&self, rules: &Rules, root: &Position, first: Move, value: Value) -> Vec<Move> {
        let mut line = vec![first];
        let mut pos = *root;
        rules.apply(&mut pos, &first);
        let mut list = MoveList::new();
        // A win or loss to the end of the game (with DTM exactly the
        // distance); a draw has no end to show.
        let longest = if value == Value::Draw { 1 } else { MAX_LINE };
        while line.len() < longest && rules.status(&pos).is_none() {
            rules.legal_moves(&pos, &mut list);
            let moves: Vec<Move> = list.iter().copied().collect();
            let Some((next, _)) = self.best_child(rules, &pos, &moves) else {
                break;
            };
            line.push(next);
            rules.apply(&mut pos, &next);
        }
        line
    }

    /// Every move with its table value for the side to move, best first
    /// (fastest win, slowest loss, else a draw, in the tables' metric;
    /// ties in `moves`' order), None if a child has no table.
    fn ranked_children(
        &self,
        rules: &Rules,
        pos: &Position,
        moves: &[Move],
    ) -> Option<Vec<(Move, Value)>> {
        let mut ranked = moves
            .iter()
            .map(|mv| Some((*mv, self.child_value(rules, pos, mv)?)))
            .collect::<Option<Vec<_>>>()?;
        ranked.sort_by_key(|b| std::cmp::Reverse(b.1));
        Some(ranked)
    }

    fn child_value(&self, rules: &Rules, pos: &Position, mv: &Move) -> Option<Value> {
        let mut child = *pos;
        rules.apply(&mut child, mv);
        let same = child.side_to_move() == pos.side_to_move();
        Some(
            self.set
                .metric()
                .before_move(self.set.probe(&child)?, &child, same),
        )
    }

    /// The move with the best table value for the side to move (fastest
    /// win, slowest loss, else a draw, in the tables' metric), None if a
    /// child has no table.
    fn best_child(&self, rules: &Rules, pos: &Position, moves: &[Move]) -> Option<(Move, Value)> {
        let mut best: Option<(Move, Value)> = None;
        for mv in moves {
            let value = self.child_value(rules, pos, mv)?;
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((*mv, value));
            }
        }
        best
    }
}

/// The pieces of `pos`, board and hand, both sides: what classes count.
fn pieces(pos: &Position) -> u32 {
    pos.total(Player::White) + pos.total(Player::Black)
}

/// The longest perfect line reported at the root.
const MAX_LINE: usize = 64;
