//! The exact value of a position for the side to move.

use crate::rules::{NoMoves, Position, Rules};
use std::cmp::Ordering;
use std::fmt;

/// Win or loss with the distance to the end of the game in plies (the
/// winner winning as fast as it can, the loser losing as slowly as it can),
/// or a draw: no forced result, play would go on for ever.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win(u16),
    Draw,
    Loss(u16),
}

/// A value without its distance: what the search needs of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    Win,
    Draw,
    Loss,
}

impl Wdl {
    /// From the 2-bit symbol of the win/draw/loss files.
    pub fn from_symbol(symbol: u8) -> Option<Wdl> {
        match symbol {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }
}

impl From<Value> for Wdl {
    fn from(value: Value) -> Wdl {
        match value {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// What a table's distances count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Plies to the end of the game, the winner winning as fast as it can
    /// (the fastest win, the perfect game of `solve`).
    Dtm,
    /// Plies to the next capture along a winning line, the winner capturing
    /// as soon as it can (Syzygy's DTZ): what the no-capture rule needs,
    /// and much smaller on disk.
    Dtz,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtm => "dtm",
            Metric::Dtz => "dtz",
        }
    }

    pub fn parse(text: &str) -> Option<Metric> {
        match text {
            "dtm" => Some(Metric::Dtm),
            "dtz" => Some(Metric::Dtz),
            _ => None,
        }
    }

    /// The value of a move for the player who made it, from the value of
    /// the position it led to (`child`). Under DTZ a capture resets the
    /// count, so only its result is carried back, at one ply.
    #[inline(always)]
    pub fn before_move(self, value: Value, child: &Position, same_side: bool) -> Value {
        let value = match (self, value) {
            (Metric::Dtz, Value::Win(_)) if child.plies_since_capture() == 0 => Value::Win(0),
            (Metric::Dtz, Value::Loss(_)) if child.plies_since_capture() == 0 => Value::Loss(0),
            _ => value,
        };
        value.before_move(same_side)
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest distance a table can store.
pub const MAX_DISTANCE: u16 = 0x3FFF;

impl Value {
    /// The value of a position one ply before, for the player who made the
    /// move: the same player when the move kept the turn (a bonus turn),
    /// else the other one.
    #[inline(always)]
    pub fn before_move(self, same_side: bool) -> Value {
        match (self, same_side) {
            (Value::Draw, _) => Value::Draw,
            (Value::Win(d), true) | (Value::Loss(d), false) => Value::Win(d + 1),
            (Value::Loss(d), true) | (Value::Win(d), false) => Value::Loss(d + 1),
        }
    }

    /// Sorts values from worst to best for the side to move: long losses
    /// beat short ones, any draw beats a loss, short wins beat long ones.
    #[inline(always)]
    fn rank(self) -> i32 {
        match self {
            Value::Loss(d) => i32::from(d),
            Value::Draw => 1 << 16,
            Value::Win(d) => (2 << 16) - i32::from(d),
        }
    }

    /// The distance in plies (0 for a draw).
    pub fn distance(self) -> u16 {
        match self {
            Value::Win(d) | Value::Loss(d) => d,
            Value::Draw => 0,
        }
    }

    /// The stored form: 0 draw, 2d+1 win in d, 2d+2 loss in d.
    #[inline(always)]
    pub fn encode(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Win(d) => 2 * d + 1,
            Value::Loss(d) => 2 * d + 2,
        }
    }

    #[inline(always)]
    pub fn decode(code: u16) -> Value {
        match code {
            0 => Value::Draw,
            c if c & 1 == 1 => Value::Win(c / 2),
            c => Value::Loss(c / 2 - 1),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(d) => write!(f, "loss in {d}"),
        }
    }
}

/// The values of a class, one byte each when every code fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Codes {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

impl Codes {
    /// Stores `codes` in the narrowest width that holds them all.
    pub fn from_wide(codes: Vec<u16>) -> Codes {
        if codes.iter().all(|&c| c <= u16::from(u8::MAX)) {
            Codes::Narrow(codes.into_iter().map(|c| c as u8).collect())
        } else {
            Codes::Wide(codes)
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Codes::Narrow(v) => v.len(),
            Codes::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per value.
    pub fn width(&self) -> usize {
        match self {
            Codes::Narrow(_) => 1,
            Codes::Wide(_) => 2,
        }
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> u16 {
        match self {
            Codes::Narrow(v) => u16::from(v[i]),
            Codes::Wide(v) => v[i],
        }
    }
}

/// The value of a position with no legal move.
pub fn stuck_value(rules: &Rules, pos: &Position) -> Value {
    let us = pos.side_to_move();
    match rules.variant().no_moves {
        NoMoves::Loses => Value::Loss(0),
        NoMoves::MorePieces => match pos.total(us).cmp(&pos.total(!us)) {
            std::cmp::Ordering::Less => Value::Loss(0),
            std::cmp::Ordering::Equal => Value::Draw,
            std::cmp::Ordering::Greater => Value::Win(0),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_codes() {
        let sorted = [
            Value::Loss(1),
            Value::Loss(9),
            Value::Draw,
            Value::Win(9),
            Value::Win(1),
        ];
        assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        for v in sorted {
            assert_eq!(Value::decode(v.encode()), v);
        }
        assert_eq!(Value::Loss(0).before_move(false), Value::Win(1));
        assert_eq!(Value::Loss(0).before_move(true), Value::Loss(1));
        assert_eq!(Value::Win(4).before_move(false), Value::Loss(5));
    }
}
