//! The position text: `<ranks> <side> <white in hand> <black in hand>
//! [<plies since capture> [<move number>]] [x<owed removals>]`, ranks from
//! the top down, `W`/`B` for pieces and a decimal number for a run of empty
//! cells. The last field, present only in the middle of a capture played as
//! two turns, says how many removals the side to move owes for its jump
//! (never more than it can make: the rest are forfeited).

use super::bitboard::Bitboard;
use super::geometry::Geometry;
use super::movegen::removable;
use super::moves::MAX_JUMPS;
use super::position::{Player, Position};
use super::variant::Variant;
use std::fmt;

/// Why a position text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Not 4 to 6 space-separated fields (plus the owed removals).
    FieldCount(usize),
    RankCount {
        expected: u8,
        found: usize,
    },
    /// A rank (numbered from 1 at the bottom) that is too long or too short.
    RankLength {
        rank: u8,
        expected: u8,
        found: u32,
    },
    BadCharacter {
        rank: u8,
        character: char,
    },
    /// An empty-run number of zero.
    ZeroRun {
        rank: u8,
    },
    BadSide(String),
    BadNumber {
        field: &'static str,
        text: String,
    },
    /// More pieces on the board and in hand than the variant gives a player.
    TooManyPieces {
        player: Player,
        count: u32,
        max: u8,
    },
    /// Move numbers start at 1.
    ZeroMoveNumber,
    /// The owed-removals field is not `x` and a number from 1.
    BadOwed(String),
    /// The owed-removals field is followed by another field.
    OwedNotLast,
    /// More owed removals than one move can capture pieces in this variant.
    OwedOutOfRange {
        owed: u32,
        max: u32,
    },
    /// Removals owed after a jump, yet the plies since capture are not 0.
    OwedWithoutCapture {
        plies: u32,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::FieldCount(n) => write!(
                f,
                "expected 4 to 6 fields (ranks, side, white hand, black hand[, plies since capture[, move number]]) and an optional x<owed removals>, found {n}"
            ),
            PositionError::RankCount { expected, found } => write!(
                f,
                "expected {expected} ranks separated by '/', found {found}"
            ),
            PositionError::RankLength {
                rank,
                expected,
                found,
            } => write!(f, "rank {rank} has {found} cells, expected {expected}"),
            PositionError::BadCharacter { rank, character } => write!(
                f,
                "rank {rank}: unexpected character {character:?} (use W, B or a number of empty cells)"
            ),
            PositionError::ZeroRun { rank } => {
                write!(f, "rank {rank}: a run of empty cells cannot be 0")
            }
            PositionError::BadSide(text) => {
                write!(f, "side to move must be 'w' or 'b', found '{text}'")
            }
            PositionError::BadNumber { field, text } => {
                write!(f, "{field} must be a non-negative number, found '{text}'")
            }
            PositionError::TooManyPieces { player, count, max } => write!(
                f,
                "{player} has {count} pieces on the board and in hand, more than the variant's {max}"
            ),
            PositionError::ZeroMoveNumber => f.write_str("the move number must be at least 1"),
            PositionError::BadOwed(text) => write!(
                f,
                "owed removals must be written x<number> with a number from 1 (x1, x2), found '{text}'"
            ),
            PositionError::OwedNotLast => {
                f.write_str("the owed removals (x<number>) must be the last field")
            }
            PositionError::OwedOutOfRange { owed, max } => write!(
                f,
                "{owed} owed removals is more than one move can capture in this variant ({max})"
            ),
            PositionError::OwedWithoutCapture { plies } => write!(
                f,
                "removals are owed for a jump just made, so the plies since capture must be 0, found {plies}"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

pub(crate) fn parse_position(
    text: &str,
    variant: &Variant,
    geometry: &Geometry,
) -> Result<Position, PositionError> {
    let mut fields: Vec<&str> = text.split_whitespace().collect();
    // Only after the hands: an `x` in the first fields is a bad board or side.
    let owed_at = fields.iter().skip(4).position(|f| f.starts_with('x'));
    let owed = match owed_at {
        Some(i) if i + 5 != fields.len() => return Err(PositionError::OwedNotLast),
        Some(_) => fields.pop().map(parse_owed).transpose()?,
        None => None,
    };
    if !(4..=6).contains(&fields.len()) {
        return Err(PositionError::FieldCount(fields.len()));
    }
    let pieces = parse_board(fields[0], geometry)?;
    let side = match fields[1] {
        "w" => Player::White,
        "b" => Player::Black,
        other => return Err(PositionError::BadSide(other.to_string())),
    };
    let number = |field: &'static str, text: &str| {
        text.parse::<u32>().map_err(|_| PositionError::BadNumber {
            field,
            text: text.to_string(),
        })
    };
    let hand = [
        number("white's hand", fields[2])?,
        number("black's hand", fields[3])?,
    ];
    let optional =
        |i: usize, field, default| fields.get(i).map_or(Ok(default), |t| number(field, t));
    let plies = optional(4, "plies since capture", 0)?;
    let move_number = optional(5, "move number", 1)?;
    if move_number == 0 {
        return Err(PositionError::ZeroMoveNumber);
    }
    for player in Player::BOTH {
        let count = pieces[player.index()]
            .count()
            .saturating_add(hand[player.index()]);
        if count > u32::from(variant.pieces) {
            return Err(PositionError::TooManyPieces {
                player,
                count,
                max: variant.pieces,
            });
        }
    }
    let pos = Position::from_parts(
        pieces,
        [hand[0] as u8, hand[1] as u8],
        side,
        plies,
        move_number,
    );
    match owed {
        None => Ok(pos),
        Some(owed) => owing(pos, owed, variant),
    }
}

/// Reads `x<k>`, k ≥ 1.
fn parse_owed(text: &str) -> Result<u32, PositionError> {
    text[1..]
        .parse::<u32>()
        .ok()
        .filter(|&k| k > 0 && text[1..].bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| PositionError::BadOwed(text.to_string()))
}

/// `pos` owing `owed` removals, if that can follow a jump in this variant:
/// one removal per enemy piece jumped and the no-capture counter just
/// reset by the jump. Removals the Removal rule cannot make are forfeited,
/// as in a one-turn capture: the position owes at most what can be
/// removed, and when nothing can be, the capture is over (the turn passes
/// as the removals would have passed it).
fn owing(pos: Position, owed: u32, variant: &Variant) -> Result<Position, PositionError> {
    let max = if variant.multi_jump {
        MAX_JUMPS as u32 - 1
    } else {
        1
    };
    if owed > max {
        return Err(PositionError::OwedOutOfRange { owed, max });
    }
    if pos.plies_since_capture() != 0 {
        return Err(PositionError::OwedWithoutCapture {
            plies: pos.plies_since_capture(),
        });
    }
    let victim = !pos.side_to_move();
    let takeable = removable(
        variant.removal,
        pos.pieces(victim).count(),
        pos.hand(victim),
    );
    Ok(match owed.min(takeable) {
        0 => pos.capture_finished(variant.bonus_turn),
        owed => pos.with_owed_removals(owed as u8),
    })
}

fn parse_board(text: &str, geometry: &Geometry) -> Result<[Bitboard; 2], PositionError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != usize::from(geometry.rows()) {
        return Err(PositionError::RankCount {
            expected: geometry.rows(),
            found: ranks.len(),
        });
    }
    let mut pieces = [Bitboard::EMPTY; 2];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = geometry.rows() - 1 - i as u8;
        let name = rank + 1;
        let too_long = |found| PositionError::RankLength {
            rank: name,
            expected: geometry.cols(),
            found,
        };
        let mut file: u32 = 0;
        let mut chars = rank_text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                'W' | 'B' => {
                    if file >= u32::from(geometry.cols()) {
                        return Err(too_long(file + 1));
                    }
                    let player = if c == 'W' {
                        Player::White
                    } else {
                        Player::Black
                    };
                    pieces[player.index()].insert(geometry.cell(file as u8, rank));
                    file += 1;
                }
                '0'..='9' => {
                    let mut run = c.to_digit(10).unwrap_or(0);
                    while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                        run = run.saturating_mul(10).saturating_add(d);
                        chars.next();
                    }
                    if run == 0 {
                        return Err(PositionError::ZeroRun { rank: name });
                    }
                    file = file.saturating_add(run);
                }
                other => {
                    return Err(PositionError::BadCharacter {
                        rank: name,
                        character: other,
                    });
                }
            }
        }
        if file != u32::from(geometry.cols()) {
            return Err(too_long(file));
        }
    }
    Ok(pieces)
}

pub(crate) fn position_text(pos: &Position, geometry: &Geometry) -> String {
    let mut text = String::new();
    for rank in (0..geometry.rows()).rev() {
        let mut empty = 0;
        for file in 0..geometry.cols() {
            let cell = geometry.cell(file, rank);
            let piece = Player::BOTH
                .into_iter()
                .find(|p| pos.pieces(*p).contains(cell));
            match piece {
                None => empty += 1,
                Some(player) => {
                    if empty > 0 {
                        text += &empty.to_string();
                        empty = 0;
                    }
                    text.push(if player == Player::White { 'W' } else { 'B' });
                }
            }
        }
        if empty > 0 {
            text += &empty.to_string();
        }
        if rank > 0 {
            text.push('/');
        }
    }
    text = format!(
        "{text} {} {} {} {} {}",
        pos.side_to_move().letter(),
        pos.hand(Player::White),
        pos.hand(Player::Black),
        pos.plies_since_capture(),
        pos.move_number()
    );
    if pos.owed_removals() > 0 {
        text += &format!(" x{}", pos.owed_removals());
    }
    text
}
