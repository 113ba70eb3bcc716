//! Material classes: how many pieces each side has on the board and in hand,
//! from the side to move's view. Placements lower a hand and captures lower
//! material, so only steps stay inside a class (and cross to its partner).

use super::value::Value;
use crate::rules::movegen::BINOMIAL;
use crate::rules::{Position, Variant};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    pub mover_board: u8,
    pub opponent_board: u8,
    pub mover_hand: u8,
    pub opponent_hand: u8,
}

impl Class {
    pub const fn new(
        mover_board: u8,
        opponent_board: u8,
        mover_hand: u8,
        opponent_hand: u8,
    ) -> Class {
        Class {
            mover_board,
            opponent_board,
            mover_hand,
            opponent_hand,
        }
    }

    /// The class of `pos` seen from its side to move.
    pub fn of(pos: &Position) -> Class {
        let us = pos.side_to_move();
        Class::new(
            pos.pieces(us).count() as u8,
            pos.pieces(!us).count() as u8,
            pos.hand(us) as u8,
            pos.hand(!us) as u8,
        )
    }

    /// The same material with the other side to move: where steps lead.
    pub const fn partner(self) -> Class {
        Class::new(
            self.opponent_board,
            self.mover_board,
            self.opponent_hand,
            self.mover_hand,
        )
    }

    /// Pieces of both sides, board and hand.
    pub const fn pieces(self) -> u32 {
        self.mover_board as u32
            + self.opponent_board as u32
            + self.mover_hand as u32
            + self.opponent_hand as u32
    }

    pub const fn in_hand(self) -> u32 {
        self.mover_hand as u32 + self.opponent_hand as u32
    }

    /// Every placement of the board pieces on distinct cells, reachable or not.
    pub fn size(self, cells: u8) -> u64 {
        let (a, b) = (self.mover_board as usize, self.opponent_board as usize);
        let n = cells as usize;
        if a + b > n {
            return 0;
        }
        BINOMIAL[n][a] * BINOMIAL[n - a][b]
    }

    /// The order classes are solved in: every exit (placement or capture)
    /// leads to a class with fewer pieces, or as many with fewer in hand.
    pub const fn stage(self) -> (u32, u32) {
        (self.pieces(), self.in_hand())
    }

    /// The value of every position of the class when the piece counts alone
    /// end the game (so it needs no table), else None.
    pub fn value_by_counts(self, variant: &Variant) -> Option<Value> {
        let limit = variant.loss_threshold();
        let mover = u32::from(self.mover_board) + u32::from(self.mover_hand);
        let opponent = u32::from(self.opponent_board) + u32::from(self.opponent_hand);
        match (mover <= limit, opponent <= limit) {
            (true, true) => Some(Value::Draw),
            (true, false) => Some(Value::Loss(0)),
            (false, true) => Some(Value::Win(0)),
            _ if variant.three_draw && mover <= 3 && opponent <= 3 => Some(Value::Draw),
            _ => None,
        }
    }

    /// `2-2-0-0`: the class in file names.
    pub fn file_stem(self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.mover_board, self.opponent_board, self.mover_hand, self.opponent_hand
        )
    }
}

impl Class {
    /// The class of a file stem (`2-2-0-0`), None if it is not one.
    pub fn from_file_stem(stem: &str) -> Option<Class> {
        let counts: Vec<u8> = stem
            .split('-')
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        match counts[..] {
            [a, b, c, d] => Some(Class::new(a, b, c, d)),
            _ => None,
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.mover_board, self.opponent_board, self.mover_hand, self.opponent_hand
        )
    }
}

/// Every class that needs a table for `variant` with at most `max_pieces`
/// pieces in total: each side within the variant's piece count, the board
/// pieces fitting on the board, and the game not over by the counts. In
/// solving order (stage, then class).
pub fn table_classes(variant: &Variant, max_pieces: u32) -> Vec<Class> {
    let cells = u32::from(variant.rows) * u32::from(variant.cols);
    let per_side = u32::from(variant.pieces).min(max_pieces);
    let mut classes = Vec::new();
    for mb in 0..=per_side {
        for ob in 0..=per_side {
            for mh in 0..=per_side - mb {
                for oh in 0..=per_side - ob {
                    let class = Class::new(mb as u8, ob as u8, mh as u8, oh as u8);
                    if class.pieces() <= max_pieces
                        && mb + ob <= cells
                        && class.value_by_counts(variant).is_none()
                    {
                        classes.push(class);
                    }
                }
            }
        }
    }
    classes.sort_by_key(|c| (c.stage(), *c));
    classes
}

/// Classes solved together: a class and its partner (one class when they
/// are the same), in solving order.
pub fn class_pairs(classes: &[Class]) -> Vec<Vec<Class>> {
    let mut pairs: Vec<Vec<Class>> = Vec::new();
    for &class in classes {
        let partner = class.partner();
        if partner < class && classes.contains(&partner) {
            continue;
        }
        if partner == class || !classes.contains(&partner) {
            pairs.push(vec![class]);
        } else {
            pairs.push(vec![class, partner]);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_classes_up_to_six_pieces_match_the_reference_list() {
        // standard-classes.txt lists 79 classes of 4 to 6 pieces.
        let classes = table_classes(&Variant::STANDARD, 6);
        assert_eq!(classes.len(), 79);
        assert!(classes.iter().all(|c| c.pieces() >= 4));
        assert_eq!(Class::new(3, 3, 0, 0).size(30), 11_875_500);
        let pairs = class_pairs(&classes);
        assert_eq!(pairs.iter().map(Vec::len).sum::<usize>(), 79);
        assert!(
            pairs
                .iter()
                .all(|p| p.iter().all(|c| c.stage() == p[0].stage()))
        );
    }
}
