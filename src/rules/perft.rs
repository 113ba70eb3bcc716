//! perft: the number of move sequences of a given length, the standard check
//! that move generation is right (and a measure of how fast it is).

use super::moves::{Move, MoveList};
use super::position::Position;
use super::ruleset::Rules;

/// perft(0) = 1; a finished position has no moves; otherwise the sum over
/// legal moves. The last ply is counted, not played ("bulk counting").
/// History rules (NoCaptureDraw, RepetitionDraw) do not apply.
pub fn perft(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    let mut lists = vec![MoveList::new(); depth as usize];
    count(rules, pos, depth, &mut lists)
}

/// perft split by first move, in move generation order.
pub fn divide(rules: &Rules, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 || rules.status(pos).is_some() {
        return Vec::new();
    }
    let mut moves = MoveList::new();
    rules.legal_moves(pos, &mut moves);
    let mut lists = vec![MoveList::new(); depth as usize];
    moves
        .iter()
        .map(|mv| {
            let mut child = *pos;
            rules.apply(&mut child, mv);
            (*mv, count(rules, &child, depth - 1, &mut lists))
        })
        .collect()
}

fn count(rules: &Rules, pos: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    // A position without moves counts 0 by itself; only the piece-count
    // endings need checking before moves are generated.
    if rules.ended_by_pieces(pos) {
        return 0;
    }
    if depth == 1 {
        return rules.count_legal_moves(pos);
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    rules.legal_moves(pos, list);
    let mut nodes = 0;
    for mv in list.iter() {
        let mut child = *pos;
        rules.apply(&mut child, mv);
        nodes += count(rules, &child, depth - 1, rest);
    }
    nodes
}
