//! The two baseline players the searcher must beat: a uniformly random
//! mover and a one-ply greedy player. Both are seeded, so games replay.

use crate::rng::SplitMix64;
use crate::rules::{Move, Outcome, Position, Rules};

/// A uniformly random move of `moves` (non-empty).
pub fn random(moves: &[Move], rng: &mut SplitMix64) -> Move {
    moves[rng.below(moves.len())]
}

/// The move after which the mover has the best material balance (pieces on
/// board and in hand, own minus enemy); a move that wins outright beats
/// everything and one that loses outright comes last. Ties are broken at
/// random. `moves` must be non-empty.
pub fn greedy(rules: &Rules, pos: &Position, moves: &[Move], rng: &mut SplitMix64) -> Move {
    let us = pos.side_to_move();
    let value = |mv: &Move| {
        let mut child = *pos;
        rules.apply(&mut child, mv);
        match rules.status(&child).map(|end| end.outcome) {
            Some(Outcome::Win(p)) if p == us => i32::MAX,
            Some(Outcome::Win(_)) => i32::MIN,
            _ => child.total(us) as i32 - child.total(!us) as i32,
        }
    };
    let values: Vec<i32> = moves.iter().map(value).collect();
    let best = *values.iter().max().expect("at least one move");
    let ties: Vec<usize> = (0..moves.len()).filter(|&i| values[i] == best).collect();
    moves[ties[rng.below(ties.len())]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::MoveList;

    #[test]
    fn greedy_takes_the_capture() {
        let rules = Rules::standard();
        let pos = rules.parse_position("6/6/1BW3/6/6 w 11 11 0 2").unwrap();
        let mut list = MoveList::new();
        rules.legal_moves(&pos, &mut list);
        let mv = greedy(&rules, &pos, list.as_slice(), &mut SplitMix64::new(1));
        assert!(mv.is_capture());
    }

    #[test]
    fn random_is_seeded() {
        let rules = Rules::standard();
        let pos = rules.start_position();
        let mut list = MoveList::new();
        rules.legal_moves(&pos, &mut list);
        let a = random(list.as_slice(), &mut SplitMix64::new(3));
        let b = random(list.as_slice(), &mut SplitMix64::new(3));
        assert_eq!(a, b);
    }
}
