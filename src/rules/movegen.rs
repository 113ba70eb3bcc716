//! Legal move generation and bulk move counting.
//!
//! Single jumps (every rule set without MultiJump) are found for the whole
//! board at once with shifts; chains are searched cell by cell. Counting
//! shares the chain search with generation through `JumpSink`, and uses
//! closed formulas for the removal choices, so perft never enumerates them.

use super::bitboard::Bitboard;
use super::geometry::{Direction, Geometry, NO_CELL};
use super::moves::{Move, MoveList, MoveSyntax};
use super::position::Position;
use super::variant::{Removal, Variant};

/// `BINOMIAL[n][k]` = n choose k, for the number of ways to pick removals.
pub(crate) static BINOMIAL: [[u64; 65]; 65] = {
    let mut table = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] =
                table[n - 1][k - 1].saturating_add(if k < n { table[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    table
};

/// The number of distinct removal choices a capture of `k` pieces leaves,
/// with `board` enemy pieces left on the board and `hand` in hand.
#[inline(always)]
pub(crate) fn removal_choices(removal: Removal, k: u32, board: u32, hand: u32) -> u64 {
    match removal {
        Removal::None => 1,
        Removal::Board | Removal::BoardThenHand if board <= k => 1,
        Removal::Board | Removal::BoardThenHand => BINOMIAL[board as usize][k as usize],
        Removal::BoardOrHand if board + hand <= k => 1,
        Removal::BoardOrHand => {
            // j pieces from the board, the other k - j from the (alike) hand pieces.
            let low = k.saturating_sub(hand);
            (low..=k.min(board))
                .map(|j| BINOMIAL[board as usize][j as usize])
                .sum()
        }
    }
}

/// Where jump chains go: a move list, or a counter.
trait JumpSink {
    /// A finished jump (chain prefix) that took `captured` enemy pieces, with
    /// `enemy_board`/`enemy_hand` what the enemy has left before removals.
    fn jump(&mut self, mv: Move, enemy_board: Bitboard, enemy_hand: u32);
    /// A jump over own pieces only: one move, no removals.
    fn own_jump(&mut self, mv: Move);
}

struct Counter {
    removal: Removal,
    count: u64,
}

impl JumpSink for Counter {
    #[inline(always)]
    fn jump(&mut self, mv: Move, enemy_board: Bitboard, enemy_hand: u32) {
        // Saturating: with MultiJump on a large board the true count can
        // pass 2^64, and a wrapped count would be a wrong answer.
        self.count = self.count.saturating_add(removal_choices(
            self.removal,
            mv.captured().count(),
            enemy_board.count(),
            enemy_hand,
        ));
    }
    #[inline(always)]
    fn own_jump(&mut self, _mv: Move) {
        self.count = self.count.saturating_add(1);
    }
}

struct Pusher<'a> {
    removal: Removal,
    list: &'a mut MoveList,
    /// The most removal choices pushed for one jump (`usize::MAX`: all).
    per_jump: usize,
}

impl JumpSink for Pusher<'_> {
    fn jump(&mut self, mv: Move, enemy_board: Bitboard, enemy_hand: u32) {
        push_with_removals(
            self.list,
            mv,
            self.removal,
            mv.captured().count(),
            enemy_board,
            enemy_hand,
            self.per_jump,
        );
    }
    fn own_jump(&mut self, mv: Move) {
        self.list.push(mv);
    }
}

/// Pushes `mv` once for every way to remove `k` more pieces (at most
/// `per_jump` of them, the first in canonical order).
fn push_with_removals(
    list: &mut MoveList,
    mv: Move,
    removal: Removal,
    k: u32,
    board: Bitboard,
    hand: u32,
    per_jump: usize,
) {
    let n = board.count();
    let choices = removal_choices(removal, k, n, hand);
    // The common case: every choice fits, so no move needs checking (the
    // checks cost perft a few per cent).
    if per_jump == usize::MAX && list.has_room(choices) {
        push_all_removals::<false>(list, mv, removal, k, board, hand, usize::MAX);
    } else {
        let end = list.len().saturating_add(per_jump);
        push_all_removals::<true>(list, mv, removal, k, board, hand, end);
    }
}

/// `push_with_removals` until the list reaches length `end` or its limit;
/// without `CHECKED` the caller has made sure everything fits.
#[inline(always)]
fn push_all_removals<const CHECKED: bool>(
    list: &mut MoveList,
    mv: Move,
    removal: Removal,
    k: u32,
    board: Bitboard,
    hand: u32,
    end: usize,
) {
    let n = board.count();
    match removal {
        Removal::None => list.push(mv),
        Removal::Board if n <= k => list.push(mv.with_removals(board, 0)),
        Removal::BoardThenHand if n <= k => {
            list.push(mv.with_removals(board, (k - n).min(hand) as u8))
        }
        Removal::Board | Removal::BoardThenHand => {
            push_subsets::<CHECKED>(list, mv, board, k, Bitboard::EMPTY, 0, end)
        }
        Removal::BoardOrHand if n + hand <= k => list.push(mv.with_removals(board, hand as u8)),
        Removal::BoardOrHand => {
            for from_board in k.saturating_sub(hand)..=k.min(n) {
                push_subsets::<CHECKED>(
                    list,
                    mv,
                    board,
                    from_board,
                    Bitboard::EMPTY,
                    (k - from_board) as u8,
                    end,
                );
            }
        }
    }
}

/// Pushes one move for each `k`-subset of `cells` added to `chosen`, until
/// the list reaches length `end` or its limit (C(60, 30) subsets must not
/// be walked through one by one only to be dropped).
fn push_subsets<const CHECKED: bool>(
    list: &mut MoveList,
    mv: Move,
    cells: Bitboard,
    k: u32,
    chosen: Bitboard,
    hand: u8,
    end: usize,
) {
    if k == 0 {
        list.push(mv.with_removals(chosen, hand));
        return;
    }
    if !CHECKED && k == 1 {
        // The last removal (the only one in most rule sets): one batch.
        let with = |cell| mv.with_removals(chosen | Bitboard::from_cell(cell), hand);
        return list.push_batch(cells.map(with));
    }
    let mut rest = cells;
    while rest.count() >= k && (!CHECKED || list.len() < end) {
        if CHECKED && list.is_full() {
            list.mark_truncated();
            return;
        }
        let cell = rest.first();
        rest.remove(cell);
        push_subsets::<CHECKED>(
            list,
            mv,
            rest,
            k - 1,
            chosen | Bitboard::from_cell(cell),
            hand,
            end,
        );
    }
}

/// Pushes one move per cell, checking the list's limit once for all of them
/// when they fit.
#[inline(always)]
fn push_cells(list: &mut MoveList, cells: Bitboard, make: impl Fn(u8) -> Move) {
    if list.has_room(u64::from(cells.count())) {
        list.push_batch(cells.map(make));
    } else {
        for cell in cells {
            list.push(make(cell));
        }
    }
}

/// The cells of one side and the other, as move generation sees them: the
/// side to move is `own`. Counting works on this directly, so that perft can
/// count a child's moves without building the child position.
#[derive(Clone, Copy)]
pub(crate) struct Sides {
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
    own_hand: u32,
    enemy_hand: u32,
}

impl Sides {
    #[inline(always)]
    pub(crate) fn of(pos: &Position, geometry: &Geometry) -> Sides {
        let us = pos.side_to_move();
        let own = pos.pieces(us);
        let enemy = pos.pieces(!us);
        Sides {
            own,
            enemy,
            empty: geometry.board().without(own | enemy),
            own_hand: pos.hand(us),
            enemy_hand: pos.hand(!us),
        }
    }

    /// The sides after a legal move, seen from whoever moves next: the same
    /// as `Position::apply` followed by `Sides::of`. Not for removal-only
    /// moves (perft expands a position owing removals at its root).
    #[inline(always)]
    pub(crate) fn after(&self, mv: &Move, bonus_turn: bool) -> Sides {
        let (mut own, mut own_hand) = (self.own, self.own_hand);
        let mut empty = self.empty;
        if mv.starts_off_board() {
            own.insert(mv.to());
            empty.remove(mv.to());
            own_hand -= 1;
        } else {
            let path = Bitboard::from_cell(mv.from()) | Bitboard::from_cell(mv.to());
            own ^= path;
            empty ^= path;
        }
        let taken = mv.captured() | mv.removed();
        let enemy = self.enemy.without(taken);
        let empty = empty | taken;
        let enemy_hand = self.enemy_hand - mv.hand_removed();
        if bonus_turn && mv.jumped_enemy() {
            Sides {
                own,
                enemy,
                empty,
                own_hand,
                enemy_hand,
            }
        } else {
            Sides {
                own: enemy,
                enemy: own,
                empty,
                own_hand: enemy_hand,
                enemy_hand: own_hand,
            }
        }
    }

    /// Pieces in total (board and hand) of the side to move and the other.
    #[inline(always)]
    pub(crate) fn totals(&self) -> (u32, u32) {
        (
            self.own.count() + self.own_hand,
            self.enemy.count() + self.enemy_hand,
        )
    }
}

/// Offset of a cell one step in `dir`, for walking shifted sets back.
#[inline(always)]
fn delta(geometry: &Geometry, dir: Direction) -> i32 {
    match dir {
        Direction::North => i32::from(geometry.cols()),
        Direction::South => -i32::from(geometry.cols()),
        Direction::East => 1,
        Direction::West => -1,
    }
}

#[inline(always)]
fn back(cell: u8, delta: i32, times: i32) -> u8 {
    (i32::from(cell) - delta * times) as u8
}

/// Every legal move, in a fixed order: placements, steps, jumps (or, where
/// removals are owed, the removal-only moves), up to the list's limit:
/// `list.is_truncated()` says when moves were left out.
pub(crate) fn generate(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    list: &mut MoveList,
) {
    generate_with(variant, geometry, pos, list, usize::MAX);
}

/// Legal moves for a search: every one when they fit in the list;
/// otherwise a sample that keeps every placement, step and jump path but
/// only the first few removal choices of each jump, so that a position with
/// 10^12 moves is searched over a bounded, still varied, set.
pub(crate) fn generate_bounded(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    list: &mut MoveList,
    captures_only: bool,
) {
    let fill = |list: &mut MoveList, per_jump| match captures_only {
        false => generate_with(variant, geometry, pos, list, per_jump),
        true => generate_captures_with(variant, geometry, pos, list, per_jump),
    };
    fill(list, usize::MAX);
    if list.is_truncated() {
        let mut paths = JumpPaths(0);
        jumps(
            variant,
            geometry,
            &Sides::of(pos, geometry),
            &mut paths,
            true,
        );
        fill(list, (list.limit() / paths.0.max(1)).max(1));
    }
}

/// Counts capturing jump paths (each stands for all its removal choices).
struct JumpPaths(usize);

impl JumpSink for JumpPaths {
    fn jump(&mut self, _mv: Move, _enemy_board: Bitboard, _enemy_hand: u32) {
        self.0 += 1;
    }
    fn own_jump(&mut self, _mv: Move) {}
}

fn generate_with(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    list: &mut MoveList,
    per_jump: usize,
) {
    list.clear();
    if pos.owed_removals() > 0 {
        return owed_removals(variant, geometry, pos, list);
    }
    let s = Sides::of(pos, geometry);
    let mut sink = Pusher {
        removal: variant.removal,
        list,
        per_jump,
    };
    if variant.mandatory_capture {
        jumps(variant, geometry, &s, &mut sink, true);
        if !sink.list.is_empty() {
            return;
        }
    }
    if s.own_hand > 0 {
        push_cells(sink.list, s.empty, Move::place);
    }
    for dir in Direction::ALL {
        let d = delta(geometry, dir);
        let targets = geometry.shift(s.own, dir) & s.empty;
        push_cells(sink.list, targets, |to| Move::step(back(to, d, 1), to));
    }
    // With mandatory capture and no capture found, only own jumps remain.
    jumps(variant, geometry, &s, &mut sink, false);
}

/// The removal-only moves that end a capture whose jump was played alone:
/// one for every way to make the owed removals.
fn owed_removals(variant: &Variant, geometry: &Geometry, pos: &Position, list: &mut MoveList) {
    let s = Sides::of(pos, geometry);
    push_with_removals(
        list,
        Move::removal_only(),
        variant.removal,
        pos.owed_removals(),
        s.enemy,
        s.enemy_hand,
        usize::MAX,
    );
}

/// Only the moves that capture (for quiescence search), in generation order.
/// Removal-only moves end a capture, so they count.
pub(crate) fn generate_captures(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    list: &mut MoveList,
) {
    generate_captures_with(variant, geometry, pos, list, usize::MAX);
}

fn generate_captures_with(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    list: &mut MoveList,
    per_jump: usize,
) {
    list.clear();
    if pos.owed_removals() > 0 {
        return owed_removals(variant, geometry, pos, list);
    }
    let s = Sides::of(pos, geometry);
    jumps(
        variant,
        geometry,
        &s,
        &mut Pusher {
            removal: variant.removal,
            list,
            per_jump,
        },
        true,
    );
}

/// The number of legal moves, without making a list.
#[inline(always)]
pub(crate) fn count(variant: &Variant, geometry: &Geometry, pos: &Position) -> u64 {
    let s = Sides::of(pos, geometry);
    match pos.owed_removals() {
        0 => count_sides(variant, geometry, &s),
        owed => removal_choices(variant.removal, owed, s.enemy.count(), s.enemy_hand),
    }
}

/// The number of legal moves of the side to move in `s`.
#[inline(always)]
pub(crate) fn count_sides(variant: &Variant, geometry: &Geometry, s: &Sides) -> u64 {
    match (
        variant.multi_jump,
        variant.jump_own,
        variant.mandatory_capture,
    ) {
        (true, _, _) => count_with_chains(variant, geometry, s),
        (false, false, false) => count_single::<false, false>(variant.removal, geometry, s),
        (false, true, false) => count_single::<true, false>(variant.removal, geometry, s),
        (false, false, true) => count_single::<false, true>(variant.removal, geometry, s),
        (false, true, true) => count_single::<true, true>(variant.removal, geometry, s),
    }
}

/// `count_sides` without MultiJump, the rule flags made constants so the
/// perft hot loop carries no tests for options that are off. Every capture
/// leaves the same removal choices, so captures are counted a direction at
/// a time, never one by one.
#[inline(always)]
pub(crate) fn count_single<const JUMP_OWN: bool, const MANDATORY: bool>(
    removal: Removal,
    geometry: &Geometry,
    s: &Sides,
) -> u64 {
    let (mut steps, mut captures, mut own_jumps) = (0, 0, 0);
    for dir in Direction::ALL {
        let next = geometry.shift(s.own, dir);
        steps += (next & s.empty).count();
        captures += (geometry.shift(next & s.enemy, dir) & s.empty).count();
        if JUMP_OWN {
            own_jumps += (geometry.shift(next & s.own, dir) & s.empty).count();
        }
    }
    let captures = if captures == 0 {
        0
    } else {
        u64::from(captures) * removal_choices(removal, 1, s.enemy.count() - 1, s.enemy_hand)
    };
    if MANDATORY && captures > 0 {
        return captures;
    }
    let placements = if s.own_hand > 0 { s.empty.count() } else { 0 };
    u64::from(placements + steps + own_jumps) + captures
}

/// The sum, over every placement the side to move can make, of the number of
/// replies the opponent then has (without MultiJump or MandatoryCapture).
///
/// perft spends most of its time here early in the game, so instead of
/// counting each child it sums them in closed form. A placement on cell c
/// takes c from the opponent's placements and steps and from the captures
/// that landed there, and adds the captures of the new piece itself. Summed
/// over the n empty cells: each opponent step or jump lands on exactly one of
/// them, so those counts appear n - 1 times.
#[inline(always)]
pub(crate) fn placement_replies<const JUMP_OWN: bool>(
    removal: Removal,
    geometry: &Geometry,
    s: &Sides,
) -> u64 {
    let n = u64::from(s.empty.count());
    if s.own_hand == 0 || n == 0 {
        return 0;
    }
    // The opponent is `s.enemy`; the placer is `s.own`.
    let (mut moves, mut captures, mut new_captures) = (0, 0, 0);
    for dir in Direction::ALL {
        let next = geometry.shift(s.enemy, dir);
        moves += (next & s.empty).count();
        captures += (geometry.shift(next & s.own, dir) & s.empty).count();
        if JUMP_OWN {
            moves += (geometry.shift(next & s.enemy, dir) & s.empty).count();
        }
        // Empty cells with an opponent piece behind them and an empty cell beyond.
        new_captures += (next & s.empty & geometry.shift(s.empty, dir.opposite())).count();
    }
    let placements = if s.enemy_hand > 0 { n * (n - 1) } else { 0 };
    // In every child the placer has one more piece on the board, one fewer in hand.
    let choices = removal_choices(removal, 1, s.own.count(), s.own_hand - 1);
    let captures = (n - 1) * u64::from(captures) + u64::from(new_captures);
    placements + (n - 1) * u64::from(moves) + captures * choices
}

fn count_with_chains(variant: &Variant, geometry: &Geometry, s: &Sides) -> u64 {
    let mut counter = Counter {
        removal: variant.removal,
        count: 0,
    };
    if variant.mandatory_capture {
        jumps(variant, geometry, s, &mut counter, true);
        if counter.count > 0 {
            return counter.count;
        }
    }
    let mut n = if s.own_hand > 0 {
        u64::from(s.empty.count())
    } else {
        0
    };
    for dir in Direction::ALL {
        n += u64::from((geometry.shift(s.own, dir) & s.empty).count());
    }
    jumps(variant, geometry, s, &mut counter, false);
    n + counter.count
}

/// Whether the side to move has any legal move (MandatoryCapture only
/// narrows a non-empty set, so it does not matter here). Owed removals
/// always have a move: a position never owes more than can be removed
/// (the parser and `removals_left` forfeit the rest).
pub(crate) fn has_legal_move(variant: &Variant, geometry: &Geometry, pos: &Position) -> bool {
    if pos.owed_removals() > 0 {
        return true;
    }
    let s = Sides::of(pos, geometry);
    if s.own_hand > 0 && s.empty.any() {
        return true;
    }
    let jumpable = if variant.jump_own {
        s.own | s.enemy
    } else {
        s.enemy
    };
    Direction::ALL.iter().any(|&dir| {
        let step = geometry.shift(s.own, dir);
        (step & s.empty).any() || (geometry.shift(step & jumpable, dir) & s.empty).any()
    })
}

/// Whether the side to move has a move that captures (a removal-only move
/// finishes a capture, so owed removals count).
pub(crate) fn has_capture(geometry: &Geometry, pos: &Position) -> bool {
    if pos.owed_removals() > 0 {
        return true;
    }
    let s = Sides::of(pos, geometry);
    Direction::ALL
        .iter()
        .any(|&dir| (geometry.shift(geometry.shift(s.own, dir) & s.enemy, dir) & s.empty).any())
}

/// Feeds every jump move to `sink`; with `captures_only`, only those that
/// jump at least one enemy piece.
#[inline(always)]
fn jumps(
    variant: &Variant,
    geometry: &Geometry,
    s: &Sides,
    sink: &mut impl JumpSink,
    captures_only: bool,
) {
    jumps_from(variant, geometry, s, s.own, sink, captures_only);
}

/// `jumps` of the pieces in `movers` only.
#[inline(always)]
fn jumps_from(
    variant: &Variant,
    geometry: &Geometry,
    s: &Sides,
    movers: Bitboard,
    sink: &mut impl JumpSink,
    captures_only: bool,
) {
    if variant.multi_jump {
        for from in movers {
            let chain = Chain {
                from,
                own_rest: s.own.without(Bitboard::from_cell(from)),
                enemy_hand: s.enemy_hand,
                captures_only,
                jump_own: variant.jump_own,
            };
            chain.extend(
                geometry,
                sink,
                from,
                Bitboard::from_cell(from),
                s.enemy,
                Bitboard::EMPTY,
                0,
                0,
            );
        }
        return;
    }
    for dir in Direction::ALL {
        let d = delta(geometry, dir);
        let over_enemy = geometry.shift(movers, dir) & s.enemy;
        for to in geometry.shift(over_enemy, dir) & s.empty {
            let over = back(to, d, 1);
            let mv = Move::jump(back(to, d, 2), to, dir as u32, 1, Bitboard::from_cell(over));
            sink.jump(mv, s.enemy.without(Bitboard::from_cell(over)), s.enemy_hand);
        }
        if variant.jump_own && !captures_only {
            let over_own = geometry.shift(movers, dir) & s.own;
            for to in geometry.shift(over_own, dir) & s.empty {
                sink.own_jump(Move::jump(
                    back(to, d, 2),
                    to,
                    dir as u32,
                    1,
                    Bitboard::EMPTY,
                ));
            }
        }
    }
}

/// What a move text names, checked against a position without listing its
/// moves (a list of them may not fit in memory).
pub(crate) enum Found {
    Legal(Move),
    /// The path is legal but the removals are not; one legal example.
    WrongRemovals(Move),
    NoSuchPath,
}

/// Finds the legal move `syntax` names in `pos`: placements and steps are
/// checked directly, jumps by following the chains of the named piece only,
/// and removals against the rule, never by listing the choices.
pub(crate) fn find_move(
    variant: &Variant,
    geometry: &Geometry,
    pos: &Position,
    syntax: &MoveSyntax,
) -> Found {
    let s = Sides::of(pos, geometry);
    let owed = pos.owed_removals();
    if owed > 0 || syntax.cells.is_empty() {
        return find_removal_only(variant, &s, owed, syntax);
    }
    let first = syntax.cells[0];
    let captures_forced = variant.mandatory_capture && any_capture(variant, geometry, &s);
    let no_removals = syntax.removed.is_empty() && syntax.hand_removed == 0;
    let plain = |mv: Move| match no_removals {
        true => Found::Legal(mv),
        false => Found::WrongRemovals(mv),
    };
    if syntax.placement {
        let legal = !captures_forced && s.own_hand > 0 && s.empty.contains(first);
        return if legal {
            plain(Move::place(first))
        } else {
            Found::NoSuchPath
        };
    }
    if !s.own.contains(first) {
        return Found::NoSuchPath;
    }
    if let [_, to] = syntax.cells[..]
        && Direction::ALL
            .iter()
            .any(|&dir| geometry.neighbour(first, dir) == to)
    {
        let legal = !captures_forced && s.empty.contains(to);
        return if legal {
            plain(Move::step(first, to))
        } else {
            Found::NoSuchPath
        };
    }
    let mut matcher = Matcher {
        syntax,
        geometry,
        removal: variant.removal,
        found: Found::NoSuchPath,
    };
    let movers = Bitboard::from_cell(first);
    jumps_from(variant, geometry, &s, movers, &mut matcher, captures_forced);
    matcher.found
}

/// `find_move` where removals are owed (only removal-only moves are legal)
/// or the text is a removal-only move: all the owed removals, or some of
/// them (a part of the capture, leaving the rest owed).
fn find_removal_only(variant: &Variant, s: &Sides, owed: u32, syntax: &MoveSyntax) -> Found {
    if owed == 0 || !syntax.cells.is_empty() {
        return Found::NoSuchPath;
    }
    removals_found(
        variant.removal,
        Move::removal_only(),
        owed,
        s.enemy,
        s.enemy_hand,
        syntax,
    )
}

/// `mv` (a jump that took `k` enemy pieces, or a removal-only move owing
/// `k`) with the removals `syntax` names: the whole move when they are one
/// of its removal choices, a part of the capture when they are fewer and
/// can be completed (a jump written without removals is the first part),
/// else one legal example for the error message.
fn removals_found(
    removal: Removal,
    mv: Move,
    k: u32,
    board: Bitboard,
    hand_left: u32,
    syntax: &MoveSyntax,
) -> Found {
    let (removed, hand) = (syntax.removed, syntax.hand_removed);
    // `hand <= hand_left`, a piece count, so it fits in the move.
    if removals_allowed(removal, k, board, hand_left, removed, hand) {
        return Found::Legal(mv.with_removals(removed, hand as u8));
    }
    if let Some(owed) = removals_left(removal, k, board, hand_left, removed, hand) {
        return Found::Legal(mv.with_removals(removed, hand as u8).leaving_owed(owed));
    }
    let mut example = MoveList::with_limit(1);
    push_with_removals(&mut example, mv, removal, k, board, hand_left, 1);
    Found::WrongRemovals(example.as_slice()[0])
}

/// Whether the side to move has a capture (a chain may reach its first
/// enemy piece only after jumping its own pieces).
fn any_capture(variant: &Variant, geometry: &Geometry, s: &Sides) -> bool {
    let direct = Direction::ALL
        .iter()
        .any(|&dir| (geometry.shift(geometry.shift(s.own, dir) & s.enemy, dir) & s.empty).any());
    if direct || !(variant.multi_jump && variant.jump_own) {
        return direct;
    }
    let mut paths = JumpPaths(0);
    jumps(variant, geometry, s, &mut paths, true);
    paths.0 > 0
}

/// The jump sink of `find_move`: keeps the chain whose landings are the
/// named cells.
struct Matcher<'a> {
    syntax: &'a MoveSyntax,
    geometry: &'a Geometry,
    removal: Removal,
    found: Found,
}

impl Matcher<'_> {
    fn same_path(&self, mv: &Move) -> bool {
        let cells = &self.syntax.cells;
        mv.jump_count() as usize + 1 == cells.len()
            && mv.landings(self.geometry).eq(cells[1..].iter().copied())
    }
}

impl JumpSink for Matcher<'_> {
    fn jump(&mut self, mv: Move, enemy_board: Bitboard, enemy_hand: u32) {
        if self.same_path(&mv) {
            let k = mv.captured().count();
            self.found = removals_found(self.removal, mv, k, enemy_board, enemy_hand, self.syntax);
        }
    }

    fn own_jump(&mut self, mv: Move) {
        if self.same_path(&mv) {
            let no_removals = self.syntax.removed.is_empty() && self.syntax.hand_removed == 0;
            self.found = match no_removals {
                true => Found::Legal(mv),
                false => Found::WrongRemovals(mv),
            };
        }
    }
}

/// Whether removing `removed` from the board and `hand` pieces from the hand
/// is one of the choices `push_with_removals` makes for a jump that took
/// `k` pieces and left the enemy `board` and `hand_left`.
fn removals_allowed(
    removal: Removal,
    k: u32,
    board: Bitboard,
    hand_left: u32,
    removed: Bitboard,
    hand: u32,
) -> bool {
    let n = board.count();
    let subset = removed.without(board).is_empty();
    match removal {
        Removal::None => removed.is_empty() && hand == 0,
        Removal::Board if n <= k => removed == board && hand == 0,
        Removal::BoardThenHand if n <= k => removed == board && hand == (k - n).min(hand_left),
        Removal::Board | Removal::BoardThenHand => subset && removed.count() == k && hand == 0,
        Removal::BoardOrHand if n + hand_left <= k => removed == board && hand == hand_left,
        Removal::BoardOrHand => subset && hand <= hand_left && removed.count() + hand == k,
    }
}

/// The pieces the Removal rule lets a capturer take, of an enemy that has
/// `board` on the board and `hand` in hand. Owed removals beyond it are
/// forfeited: a capture removes `min(k, removable)` pieces.
pub(crate) fn removable(removal: Removal, board: u32, hand: u32) -> u32 {
    match removal {
        Removal::None => 0,
        Removal::Board => board,
        Removal::BoardOrHand | Removal::BoardThenHand => board + hand,
    }
}

/// When removing `removed` and `hand` pieces is a start of the removals a
/// capture of `k` pieces makes (see `removals_allowed`) but not all of
/// them: how many stay owed. Any start is allowed (nothing, or some of
/// the pieces the rule would take), so a front end may play the jump and
/// each removal as turns of their own; with `board-then-hand` a hand piece
/// only once the board is bare.
fn removals_left(
    removal: Removal,
    k: u32,
    board: Bitboard,
    hand_left: u32,
    removed: Bitboard,
    hand: u32,
) -> Option<u32> {
    let owed = k.min(removable(removal, board.count(), hand_left));
    let made = removed.count() + hand;
    let start = match removal {
        Removal::None => false,
        Removal::Board => hand == 0,
        Removal::BoardOrHand => true,
        Removal::BoardThenHand => hand == 0 || removed == board,
    };
    let fits = removed.without(board).is_empty() && hand <= hand_left && made < owed;
    // Lazily: `owed - made` underflows where the removal does not fit.
    (start && fits).then(|| owed - made)
}

/// The fixed facts of one piece's jump chains.
struct Chain {
    from: u8,
    /// The mover's other pieces, which stay put (and may be jumped with JumpOwn).
    own_rest: Bitboard,
    enemy_hand: u32,
    captures_only: bool,
    jump_own: bool,
}

impl Chain {
    /// Tries every jump from `cell`; each one is a move of its own and the
    /// start of longer chains. `visited` holds the start and every landing:
    /// a chain may not land on them again.
    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        geometry: &Geometry,
        sink: &mut impl JumpSink,
        cell: u8,
        visited: Bitboard,
        enemy: Bitboard,
        captured: Bitboard,
        path: u32,
        jumps: u8,
    ) {
        for dir in Direction::ALL {
            let over = geometry.neighbour(cell, dir);
            if over == NO_CELL {
                continue;
            }
            let land = geometry.neighbour(over, dir);
            if land == NO_CELL || visited.contains(land) || (self.own_rest | enemy).contains(land) {
                continue;
            }
            let over_bit = Bitboard::from_cell(over);
            let (enemy, captured) = if enemy.contains(over) {
                (enemy.without(over_bit), captured | over_bit)
            } else if self.jump_own && self.own_rest.contains(over) {
                (enemy, captured)
            } else {
                continue;
            };
            let path = path | (dir as u32) << (2 * jumps);
            let mv = Move::jump(self.from, land, path, jumps + 1, captured);
            if captured.any() {
                sink.jump(mv, enemy, self.enemy_hand);
            } else if !self.captures_only {
                sink.own_jump(mv);
            }
            self.extend(
                geometry,
                sink,
                land,
                visited | Bitboard::from_cell(land),
                enemy,
                captured,
                path,
                jumps + 1,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(BINOMIAL[5][2], 10);
        assert_eq!(BINOMIAL[11][1], 11);
        assert_eq!(BINOMIAL[64][32], 1_832_624_140_942_590_534);
        assert_eq!(BINOMIAL[3][4], 0);
    }

    #[test]
    fn removal_choices_follow_each_rule() {
        // Standard: one of the enemy's board pieces; none left means no choice.
        assert_eq!(removal_choices(Removal::Board, 1, 11, 5), 11);
        assert_eq!(removal_choices(Removal::Board, 1, 0, 5), 1);
        assert_eq!(removal_choices(Removal::Board, 2, 1, 5), 1);
        assert_eq!(removal_choices(Removal::Board, 2, 4, 0), 6);
        // Board or hand: a hand piece is one more choice (hand pieces are alike).
        assert_eq!(removal_choices(Removal::BoardOrHand, 1, 11, 5), 12);
        assert_eq!(removal_choices(Removal::BoardOrHand, 1, 0, 5), 1);
        assert_eq!(removal_choices(Removal::BoardOrHand, 1, 3, 0), 3);
        // k = 2 from 3 board + 1 hand: {2 board} = 3, {1 board + hand} = 3.
        assert_eq!(removal_choices(Removal::BoardOrHand, 2, 3, 1), 6);
        assert_eq!(removal_choices(Removal::BoardOrHand, 2, 1, 1), 1);
        // Board then hand: the hand only once the board is bare, and then forced.
        assert_eq!(removal_choices(Removal::BoardThenHand, 1, 4, 5), 4);
        assert_eq!(removal_choices(Removal::BoardThenHand, 2, 1, 5), 1);
        assert_eq!(removal_choices(Removal::None, 3, 10, 10), 1);
    }

    #[test]
    fn pushed_removals_match_the_count() {
        let g = Geometry::new(5, 6);
        let board = Bitboard(0b1011_0110_0001);
        let base = Move::jump(0, 2, 1, 1, Bitboard::from_cell(1));
        for removal in Removal::ALL {
            for k in 1..=4 {
                for hand in 0..3 {
                    let mut list = MoveList::new();
                    push_with_removals(&mut list, base, *removal, k, board, hand, usize::MAX);
                    assert_eq!(
                        list.len() as u64,
                        removal_choices(*removal, k, board.count(), hand),
                        "{removal} k={k} hand={hand}"
                    );
                    let texts: std::collections::HashSet<_> =
                        list.iter().map(|m| m.text(&g).to_string()).collect();
                    assert_eq!(texts.len(), list.len(), "duplicates for {removal} k={k}");
                }
            }
        }
    }
}
