//! perft: the number of move sequences of a given length, the standard check
//! that move generation is right (and a measure of how fast it is).

use super::movegen::{self, Sides};
use super::moves::{Move, MoveList};
use super::position::{Player, Position};
use super::ruleset::Rules;

/// Why a perft gave no count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftError {
    /// The caller's stop check said so.
    Stopped,
    /// A position on the way has more legal moves than a list may hold
    /// (`MAX_MOVES`); only the last ply is counted without a list.
    TooManyMoves,
}

impl std::fmt::Display for PerftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PerftError::Stopped => "stopped",
            PerftError::TooManyMoves => {
                "too many legal moves to list in a position on the way (more than 65536)"
            }
        })
    }
}

impl std::error::Error for PerftError {}

/// perft(0) = 1; a finished position has no moves; otherwise the sum over
/// legal moves. The last ply is counted, not played ("bulk counting").
/// History rules (NoCaptureDraw, RepetitionDraw) do not apply.
///
/// An error if a position on the way has more than `MAX_MOVES` legal moves
/// (only huge MultiJump boards do).
///
/// ```
/// use yote::rules::{Rules, Variant, perft};
///
/// let rules = Rules::standard();
/// let start = rules.start_position();
/// assert_eq!(perft(&rules, &start, 1).unwrap(), 30);
/// assert_eq!(perft(&rules, &start, 3).unwrap(), 27_180);
///
/// // Any variant: 36 first placements on the 6×6 board.
/// let six = Rules::new(Variant::preset("6x6").unwrap()).unwrap();
/// assert_eq!(perft(&six, &six.start_position(), 1).unwrap(), 36);
/// ```
pub fn perft(rules: &Rules, pos: &Position, depth: u32) -> Result<u64, PerftError> {
    // Owed removals occur only in a given position, never after a move, so
    // the bulk counters never meet them: a root that owes is expanded here.
    if pos.owed_removals() > 0 && depth >= 2 {
        return Ok(divide(rules, pos, depth)?.iter().map(|(_, n)| n).sum());
    }
    let mut lists = vec![MoveList::new(); depth as usize];
    count(rules, pos, depth, &mut lists, &|| false)
}

/// perft split by first move, in move generation order.
pub fn divide(rules: &Rules, pos: &Position, depth: u32) -> Result<Vec<(Move, u64)>, PerftError> {
    divide_until(rules, pos, depth, &|| false)
}

/// perft with every move played, the last ply included: the legal moves of
/// every node are listed and each is applied to a copy of the position, as
/// a search does. The same count as `perft`, without its shortcuts, so its
/// speed is that of move generation and `apply` (the figure to compare
/// with other engines' make/unmake perft). Fails like `perft`.
pub fn perft_full(rules: &Rules, pos: &Position, depth: u32) -> Result<u64, PerftError> {
    let mut lists = vec![MoveList::new(); depth as usize];
    count_full(rules, pos, depth, &mut lists)
}

/// `divide` with every move played (see `perft_full`).
pub fn divide_full(
    rules: &Rules,
    pos: &Position,
    depth: u32,
) -> Result<Vec<(Move, u64)>, PerftError> {
    let mut lists = vec![MoveList::new(); depth as usize];
    split(rules, pos, depth, &|| false, |child| {
        count_full(rules, child, depth - 1, &mut lists)
    })
}

/// `divide` that gives up when `stop()` turns true (it is asked at every
/// position above the last two plies, so often) or when a position has too
/// many moves to list.
pub fn divide_until(
    rules: &Rules,
    pos: &Position,
    depth: u32,
    stop: &impl Fn() -> bool,
) -> Result<Vec<(Move, u64)>, PerftError> {
    let mut lists = vec![MoveList::new(); depth as usize];
    split(rules, pos, depth, stop, |child| {
        count(rules, child, depth - 1, &mut lists, stop)
    })
}

/// The root of a divide: `count_child` of the position after each legal
/// move, asking `stop()` before each.
fn split(
    rules: &Rules,
    pos: &Position,
    depth: u32,
    stop: &impl Fn() -> bool,
    mut count_child: impl FnMut(&Position) -> Result<u64, PerftError>,
) -> Result<Vec<(Move, u64)>, PerftError> {
    if depth == 0 || rules.status(pos).is_some() {
        return Ok(Vec::new());
    }
    let mut moves = MoveList::new();
    rules.legal_moves(pos, &mut moves);
    if moves.is_truncated() {
        return Err(PerftError::TooManyMoves);
    }
    moves
        .iter()
        .map(|mv| {
            if stop() {
                return Err(PerftError::Stopped);
            }
            Ok((*mv, count_child(&rules.after(pos, mv))?))
        })
        .collect()
}

/// perft(2) given the legal moves of `pos`: the children are never built,
/// only their move counts taken from the sides the moves leave.
fn count_replies(rules: &Rules, pos: &Position, moves: &MoveList) -> u64 {
    let v = rules.variant();
    match (v.multi_jump, v.jump_own, v.mandatory_capture, v.bonus_turn) {
        (false, false, false, false) => replies_single::<false, false, false>(rules, pos, moves),
        (false, false, false, true) => replies_single::<false, false, true>(rules, pos, moves),
        (false, true, false, false) => replies_single::<true, false, false>(rules, pos, moves),
        (false, false, true, false) => replies_single::<false, true, false>(rules, pos, moves),
        _ => {
            let (geometry, sides) = (rules.geometry(), Sides::of(pos, rules.geometry()));
            let children = moves.iter().map(|mv| sides.after(mv, v.bonus_turn));
            children
                .filter(|c| !rules.ended_by_totals(c.totals()))
                .map(|c| movegen::count_sides(v, geometry, &c))
                .sum()
        }
    }
}

/// `count_replies` for rule sets without MultiJump, specialised on the
/// other options that change counting (the common sets get their own loop).
fn replies_single<const JUMP_OWN: bool, const MANDATORY: bool, const BONUS: bool>(
    rules: &Rules,
    pos: &Position,
    moves: &MoveList,
) -> u64 {
    let (geometry, removal) = (rules.geometry(), rules.variant().removal);
    let sides = Sides::of(pos, geometry);
    let mut nodes = 0;
    let mut moves = moves.as_slice();
    if !MANDATORY {
        // Placements come first in the list; their replies have a closed form.
        nodes += movegen::placement_replies::<JUMP_OWN>(removal, geometry, &sides);
        moves = &moves[moves.iter().take_while(|mv| mv.starts_off_board()).count()..];
    }
    for mv in moves {
        let child = sides.after(mv, BONUS);
        // Only a capture changes the totals, and the parent is not over.
        if !mv.jumped_enemy() || !rules.ended_by_totals(child.totals()) {
            nodes += movegen::count_single::<JUMP_OWN, MANDATORY>(removal, geometry, &child);
        }
    }
    nodes
}

fn count(
    rules: &Rules,
    pos: &Position,
    depth: u32,
    lists: &mut [MoveList],
    stop: &impl Fn() -> bool,
) -> Result<u64, PerftError> {
    if depth == 0 {
        return Ok(1);
    }
    // A position without moves counts 0 by itself; only the piece-count
    // endings need checking before moves are generated.
    if rules.ended_by_pieces(pos) {
        return Ok(0);
    }
    if depth == 1 {
        return Ok(rules.count_legal_moves(pos));
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    rules.legal_moves(pos, list);
    if list.is_truncated() {
        return Err(PerftError::TooManyMoves);
    }
    if depth == 2 {
        return Ok(count_replies(rules, pos, list));
    }
    if stop() {
        return Err(PerftError::Stopped);
    }
    let mut nodes: u64 = 0;
    for mv in list.iter() {
        let child = rules.after(pos, mv);
        nodes = nodes.saturating_add(count(rules, &child, depth - 1, rest, stop)?);
    }
    Ok(nodes)
}

/// `perft_full` below the root: no bulk counting, every leaf made.
fn count_full(
    rules: &Rules,
    pos: &Position,
    depth: u32,
    lists: &mut [MoveList],
) -> Result<u64, PerftError> {
    if depth == 0 {
        return Ok(1);
    }
    if rules.ended_by_pieces(pos) {
        return Ok(0);
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    rules.legal_moves(pos, list);
    if list.is_truncated() {
        return Err(PerftError::TooManyMoves);
    }
    if depth == 1 {
        // The leaves are made here rather than by a call each. Nothing
        // reads them, and the compiler would drop the last ply's `apply`,
        // so every one is made in full and folded into a checksum it must
        // compute.
        let mut check = 0;
        for mv in list.iter() {
            check ^= fold(&rules.after(pos, mv));
        }
        std::hint::black_box(check);
        return Ok(list.len() as u64);
    }
    let mut nodes: u64 = 0;
    for mv in list.iter() {
        let child = rules.after(pos, mv);
        nodes = nodes.saturating_add(count_full(rules, &child, depth - 1, rest)?);
    }
    Ok(nodes)
}

/// Every field of a position in one word, none able to cancel another.
#[inline(always)]
fn fold(pos: &Position) -> u64 {
    let small = pos.hand(Player::White)
        | pos.hand(Player::Black) << 8
        | pos.owed_removals() << 16
        | (pos.side_to_move().index() as u32) << 24;
    let counters = u64::from(pos.plies_since_capture()) | u64::from(pos.move_number()) << 32;
    pos.pieces(Player::White).0
        ^ pos.pieces(Player::Black).0.rotate_left(32)
        ^ counters.rotate_left(16)
        ^ u64::from(small)
}
