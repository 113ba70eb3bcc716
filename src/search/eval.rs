//! Static evaluation: what a position is worth to the side to move, in
//! centipawn-like units (100 ≈ one piece on the board).
//!
//! Every term is computed per colour and shown by `explain` (the protocol's
//! `eval` command); `evaluate` is the same sum without building the list.
//! All terms are a handful of bitboard shifts, so the search calls it at
//! every leaf.

use crate::rules::{Bitboard, Direction, Geometry, Player, Position, Removal, Rules};

/// One named term of the evaluation, from each colour's own point of view;
/// `total` is White's value minus Black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalTerm {
    pub name: &'static str,
    pub white: i32,
    pub black: i32,
}

impl EvalTerm {
    pub fn total(&self) -> i32 {
        self.white - self.black
    }
}

/// Names of the terms, in the order `explain` returns them.
pub const TERM_NAMES: [&str; TERMS] = [
    "board",
    "hand",
    "mobility",
    "threatened",
    "attackers",
    "guarded",
    "near-loss",
    "tempo",
];
const TERMS: usize = 8;

const BOARD: i32 = 100;
/// Under `board` removal a piece in hand cannot be taken by the extra
/// removal and can be placed anywhere later: worth a little more than a
/// board piece. Where hand pieces can be removed they are only as good.
const HAND_SAFE: i32 = 110;
const HAND_EXPOSED: i32 = 100;
/// Per empty cell a piece could step to.
const MOBILITY: i32 = 3;
/// Per piece an enemy piece could jump next move.
const THREATENED: i32 = -30;
/// Per extra attacker beyond the first on the same piece (harder to defend).
const ATTACKERS: i32 = -10;
/// Per piece adjacent to an enemy whose landing cell behind it is filled by
/// a friendly piece: that enemy cannot jump it from there.
const GUARDED: i32 = 6;
/// A player one capture away from the losing piece count.
const NEAR_LOSS: i32 = -60;
const TEMPO: i32 = 10;

/// The evaluation from the side to move's point of view.
#[inline]
pub fn evaluate(rules: &Rules, pos: &Position) -> i32 {
    let t = terms(rules, pos);
    let white: i32 = t[0].iter().sum();
    let black: i32 = t[1].iter().sum();
    match pos.side_to_move() {
        Player::White => white - black,
        Player::Black => black - white,
    }
}

/// Material only (board and hand pieces), the baseline evaluation that the
/// self-play harness compares the full one against.
#[inline]
pub fn material(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    BOARD * (pos.total(us) as i32 - pos.total(!us) as i32)
}

/// Every term of the evaluation for both colours. The final score is the sum
/// of the totals, negated when Black is to move.
pub fn explain(rules: &Rules, pos: &Position) -> Vec<EvalTerm> {
    let t = terms(rules, pos);
    TERM_NAMES
        .iter()
        .enumerate()
        .map(|(i, &name)| EvalTerm {
            name,
            white: t[0][i],
            black: t[1][i],
        })
        .collect()
}

/// The weighted terms, `[white, black]`, each from that colour's view.
#[inline]
fn terms(rules: &Rules, pos: &Position) -> [[i32; TERMS]; 2] {
    let g = rules.geometry();
    let variant = rules.variant();
    let hand_value = match variant.removal {
        Removal::Board | Removal::None => HAND_SAFE,
        Removal::BoardOrHand | Removal::BoardThenHand => HAND_EXPOSED,
    };
    // A capture costs the jumped piece plus one extra removal (if any rule
    // removes one); at or below this total one capture loses the game.
    let per_capture = if variant.removal == Removal::None {
        1
    } else {
        2
    };
    let danger_total = variant.loss_threshold() + per_capture;
    let empty = g.board().without(pos.occupied());
    Player::BOTH.map(|p| {
        let own = pos.pieces(p);
        let enemy = pos.pieces(!p);
        let contact = contact(g, own, enemy, empty);
        let mut t = [0; TERMS];
        t[0] = BOARD * own.count() as i32;
        t[1] = hand_value * pos.hand(p) as i32;
        t[2] = MOBILITY * mobility(g, own, empty) as i32;
        t[3] = THREATENED * contact.threatened.count() as i32;
        t[4] = ATTACKERS * (contact.attacks - contact.threatened.count()) as i32;
        t[5] = GUARDED * contact.guarded.count() as i32;
        t[6] = if pos.total(p) <= danger_total {
            NEAR_LOSS
        } else {
            0
        };
        t[7] = if pos.side_to_move() == p { TEMPO } else { 0 };
        t
    })
}

/// Empty cells next to `own` pieces, counted once per piece and direction.
#[inline(always)]
fn mobility(g: &Geometry, own: Bitboard, empty: Bitboard) -> u32 {
    Direction::ALL
        .iter()
        .map(|&d| (g.shift(own, d) & empty).count())
        .sum()
}

/// How `own` pieces stand against adjacent `enemy` pieces.
struct Contact {
    /// Own pieces some enemy piece could jump now.
    threatened: Bitboard,
    /// Number of (attacker, victim) pairs.
    attacks: u32,
    /// Own pieces next to an enemy whose landing cell is a friendly piece.
    guarded: Bitboard,
}

/// A piece v is jumped from direction d when the enemy stands on v - d and
/// v + d is empty; a friendly piece on v + d guards it from that side.
#[inline(always)]
fn contact(g: &Geometry, own: Bitboard, enemy: Bitboard, empty: Bitboard) -> Contact {
    let mut c = Contact {
        threatened: Bitboard::EMPTY,
        attacks: 0,
        guarded: Bitboard::EMPTY,
    };
    for d in Direction::ALL {
        let faced = g.shift(enemy, d) & own;
        let beyond = d.opposite();
        let victims = faced & g.shift(empty, beyond);
        c.threatened |= victims;
        c.attacks += victims.count();
        c.guarded |= faced & g.shift(own, beyond);
    }
    c
}

/// How much the side to move would like to remove each enemy piece after a
/// capture (move ordering for the removal choices): enemy pieces that
/// threaten ours first, then those in contact with ours.
#[derive(Clone, Copy)]
pub struct RemovalValues {
    attackers: Bitboard,
    in_contact: Bitboard,
}

impl RemovalValues {
    #[inline]
    pub fn new(rules: &Rules, pos: &Position) -> RemovalValues {
        let g = rules.geometry();
        let us = pos.side_to_move();
        let own = pos.pieces(us);
        let enemy = pos.pieces(!us);
        let empty = g.board().without(pos.occupied());
        let mut attackers = Bitboard::EMPTY;
        let mut in_contact = Bitboard::EMPTY;
        for d in Direction::ALL {
            // Enemy piece on a, our piece on a + d, empty landing on a + 2d.
            let next_to_own = enemy & g.shift(own, d.opposite());
            in_contact |= next_to_own;
            attackers |= next_to_own & g.shift(g.shift(empty, d.opposite()), d.opposite());
        }
        RemovalValues {
            attackers,
            in_contact,
        }
    }

    /// Higher is better; hand removals rank between contact and loose pieces.
    #[inline]
    pub fn score(&self, removed: Bitboard, hand_removed: u32) -> i32 {
        4 * (removed & self.attackers).count() as i32
            + 2 * (removed & self.in_contact).count() as i32
            + removed.count() as i32
            + 2 * hand_removed as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let rules = Rules::standard();
        let pos = rules.start_position();
        assert_eq!(evaluate(&rules, &pos), TEMPO);
        let terms = explain(&rules, &pos);
        assert_eq!(terms.len(), TERMS);
        let sum: i32 = terms.iter().map(EvalTerm::total).sum();
        assert_eq!(sum, TEMPO);
    }

    #[test]
    fn explain_sums_to_evaluate_from_the_side_to_move() {
        let rules = Rules::new(Variant::preset("hand-removal").unwrap()).unwrap();
        let pos = rules.parse_position("6/2W3/1BWB2/2B3/6 b 8 8 0 5").unwrap();
        let sum: i32 = explain(&rules, &pos).iter().map(EvalTerm::total).sum();
        assert_eq!(evaluate(&rules, &pos), -sum);
    }

    #[test]
    fn threatened_and_guarded_pieces_are_seen() {
        let rules = Rules::standard();
        // White c3 can be jumped by b3 (landing d3 empty) and by c2? c2 empty.
        let pos = rules.parse_position("6/6/1BW3/6/6 w 11 11 0 2").unwrap();
        let t = explain(&rules, &pos);
        assert_eq!(t[3].white, THREATENED);
        assert_eq!(t[3].black, THREATENED);
        // With a white piece on d3 the landing cell is filled: c3 is guarded.
        let pos = rules.parse_position("6/6/1BWW2/6/6 w 10 11 0 3").unwrap();
        let t = explain(&rules, &pos);
        assert_eq!(t[3].white, 0);
        assert_eq!(t[5].white, GUARDED);
    }
}
