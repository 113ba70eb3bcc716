//! The rule options of Yoté and the named presets built from them.

use super::geometry::{MAX_SIZE, MIN_SIZE};
use std::fmt;

/// Where the extra pieces a capture costs the victim come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Removal {
    /// From the board only; pieces in hand are safe.
    Board,
    /// Each removal from the board or the hand, at the capturer's choice.
    BoardOrHand,
    /// From the board; from the hand only once the board is bare.
    BoardThenHand,
    /// No extra removal: a capture costs only the jumped pieces.
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinCondition {
    /// A player with one piece or none (board and hand) has lost.
    OneLeft,
    /// A player with no piece left has lost.
    CaptureAll,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoMoves {
    /// A player who cannot move loses.
    Loses,
    /// A player who cannot move ends the game: more pieces wins, equal draws.
    MorePieces,
}

/// How a game that reaches the NoCaptureDraw limit ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoCaptureOutcome {
    /// Drawn, whatever the material.
    Draw,
    /// Judged on material: more pieces in total (board and hand) wins,
    /// equal totals draw.
    MorePieces,
}

macro_rules! text_enum {
    ($ty:ident { $($variant:ident => $($text:literal)|+),+ $(,)? }) => {
        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => text_enum!(@first $($text)+)),+ }
            }

            pub fn parse(text: &str) -> Option<$ty> {
                match text.to_ascii_lowercase().as_str() {
                    $($($text)|+ => Some($ty::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
    (@first $first:literal $($rest:literal)*) => { $first };
}

text_enum!(Removal {
    Board => "board",
    BoardOrHand => "board-or-hand",
    BoardThenHand => "board-then-hand",
    None => "none",
});
text_enum!(WinCondition {
    OneLeft => "one-left",
    CaptureAll => "capture-all" | "all",
});
text_enum!(NoMoves {
    Loses => "loses",
    MorePieces => "more-pieces",
});
text_enum!(NoCaptureOutcome {
    Draw => "draw",
    MorePieces => "more-pieces",
});

/// A complete rule set. Fields are public so front ends can edit them one by
/// one; `Variant::validate` (called by `Rules::new`) rejects impossible values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub rows: u8,
    pub cols: u8,
    /// Pieces each player starts with in hand.
    pub pieces: u8,
    pub removal: Removal,
    pub win: WinCondition,
    pub no_moves: NoMoves,
    pub mandatory_capture: bool,
    pub multi_jump: bool,
    pub bonus_turn: bool,
    pub jump_own: bool,
    pub three_draw: bool,
    /// The game ends after this many plies in a row without a capture; 0 = off.
    pub no_capture_draw: u32,
    /// How the game ends at the `no_capture_draw` limit.
    pub no_capture_outcome: NoCaptureOutcome,
    /// Drawn when a position occurs for this many times; 0 = off.
    pub repetition_draw: u32,
}

pub const MAX_PIECES: u8 = 64;
pub const MAX_NO_CAPTURE_DRAW: u32 = 10_000;
pub const MAX_REPETITION_DRAW: u32 = 1_000;

/// A named preset and what it is for.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub variant: Variant,
}

impl Variant {
    /// Standard Yoté: 5×6, twelve pieces, second piece from the board, a
    /// player with one piece or none has lost, a player who cannot move loses.
    pub const STANDARD: Variant = Variant {
        rows: 5,
        cols: 6,
        pieces: 12,
        removal: Removal::Board,
        win: WinCondition::OneLeft,
        no_moves: NoMoves::Loses,
        mandatory_capture: false,
        multi_jump: false,
        bonus_turn: false,
        jump_own: false,
        three_draw: false,
        no_capture_draw: 0,
        no_capture_outcome: NoCaptureOutcome::Draw,
        repetition_draw: 0,
    };

    pub const PRESETS: &'static [Preset] = &[
        Preset {
            name: "standard",
            description: "5x6 board, 12 pieces each, second piece from the board",
            variant: Variant::STANDARD,
        },
        Preset {
            name: "hand-removal",
            description: "standard, but the second piece may come from the board or the hand",
            variant: Variant {
                removal: Removal::BoardOrHand,
                ..Variant::STANDARD
            },
        },
        Preset {
            name: "6x6",
            description: "standard rules on a 6x6 board",
            variant: Variant {
                rows: 6,
                cols: 6,
                ..Variant::STANDARD
            },
        },
        Preset {
            name: "classic",
            description: "the older rules: capture every piece to win, drawn when both have 3 or fewer",
            variant: Variant {
                win: WinCondition::CaptureAll,
                three_draw: true,
                ..Variant::STANDARD
            },
        },
        Preset {
            name: "5x5",
            description: "standard rules on Beart's 5x5 board of twenty-five cells",
            variant: Variant {
                rows: 5,
                cols: 5,
                ..Variant::STANDARD
            },
        },
        Preset {
            name: "boxed",
            description: "the boxed edition: second piece from the board, from the hand once the board is bare",
            variant: Variant {
                removal: Removal::BoardThenHand,
                ..Variant::STANDARD
            },
        },
        Preset {
            name: "all-options",
            description: "every optional rule of the Wikipedia list: multi-jumps, bonus turns, own jumps, three-piece draw, more pieces wins when stuck",
            variant: Variant {
                multi_jump: true,
                bonus_turn: true,
                jump_own: true,
                three_draw: true,
                no_moves: NoMoves::MorePieces,
                ..Variant::STANDARD
            },
        },
    ];

    pub fn preset(name: &str) -> Option<Variant> {
        Variant::PRESETS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .map(|p| p.variant)
    }

    /// The name of the preset this variant equals, if any.
    pub fn preset_name(&self) -> Option<&'static str> {
        Variant::PRESETS
            .iter()
            .find(|p| p.variant == *self)
            .map(|p| p.name)
    }

    /// The most pieces a player may have in total before they count as lost.
    pub fn loss_threshold(&self) -> u32 {
        match self.win {
            WinCondition::OneLeft => 1,
            WinCondition::CaptureAll => 0,
        }
    }

    pub fn validate(&self) -> Result<(), VariantError> {
        let size = MIN_SIZE..=MAX_SIZE;
        if !size.contains(&self.rows) {
            return Err(VariantError::OutOfRange {
                key: "rows",
                value: self.rows.into(),
                min: MIN_SIZE.into(),
                max: MAX_SIZE.into(),
            });
        }
        if !size.contains(&self.cols) {
            return Err(VariantError::OutOfRange {
                key: "cols",
                value: self.cols.into(),
                min: MIN_SIZE.into(),
                max: MAX_SIZE.into(),
            });
        }
        if !(1..=MAX_PIECES).contains(&self.pieces) {
            return Err(VariantError::OutOfRange {
                key: "pieces",
                value: self.pieces.into(),
                min: 1,
                max: MAX_PIECES.into(),
            });
        }
        if self.no_capture_draw > MAX_NO_CAPTURE_DRAW {
            return Err(VariantError::OutOfRange {
                key: "no_capture_draw",
                value: self.no_capture_draw.into(),
                min: 0,
                max: MAX_NO_CAPTURE_DRAW.into(),
            });
        }
        if self.repetition_draw == 1 || self.repetition_draw > MAX_REPETITION_DRAW {
            return Err(VariantError::OutOfRange {
                key: "repetition_draw",
                value: self.repetition_draw.into(),
                min: 2,
                max: MAX_REPETITION_DRAW.into(),
            });
        }
        Ok(())
    }

    /// Parses a rule spec: comma-separated items, each a preset name or a
    /// `key=value` override, applied left to right on top of `standard`.
    /// Keys: rows, cols, pieces, removal, win, no_moves, mandatory_capture,
    /// multi_jump, bonus_turn, jump_own, three_draw, no_capture_draw,
    /// no_capture_outcome, repetition_draw. This is the format of the perft vectors file.
    ///
    /// ```
    /// use yote::rules::{Removal, Rules, Variant};
    ///
    /// let variant = Variant::from_spec("6x6,multi_jump=true").unwrap();
    /// assert_eq!((variant.rows, variant.cols), (6, 6));
    /// assert!(variant.multi_jump);
    /// assert_eq!(Variant::preset("hand-removal").unwrap().removal, Removal::BoardOrHand);
    /// let rules = Rules::new(variant).unwrap();
    /// assert_eq!(rules.start_position().hand(yote::rules::Player::White), 12);
    ///
    /// // Unknown keys and values out of range are refused by name.
    /// assert!(Variant::from_spec("standard,colour=red").is_err());
    /// assert!(Variant::from_spec("rows=9").is_err()); // boards are at most 8×8
    /// ```
    pub fn from_spec(spec: &str) -> Result<Variant, VariantError> {
        let mut variant = Variant::STANDARD;
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.split_once('=') {
                None => {
                    variant = Variant::preset(item)
                        .ok_or_else(|| VariantError::UnknownPreset(item.to_string()))?
                }
                Some((key, value)) => variant.set(key.trim(), value.trim())?,
            }
        }
        variant.validate()?;
        Ok(variant)
    }

    /// Sets one rule by its spec key; the value is checked for form here and
    /// for range by `validate`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), VariantError> {
        let bad = || VariantError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
        };
        let number = |max: u32| {
            value
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= max)
                .ok_or_else(bad)
        };
        let flag = || match value.to_ascii_lowercase().as_str() {
            "true" | "1" | "on" => Ok(true),
            "false" | "0" | "off" => Ok(false),
            _ => Err(bad()),
        };
        match key.to_ascii_lowercase().as_str() {
            "rows" => self.rows = number(255)? as u8,
            "cols" | "columns" => self.cols = number(255)? as u8,
            "pieces" => self.pieces = number(255)? as u8,
            "removal" => self.removal = Removal::parse(value).ok_or_else(bad)?,
            "win" | "win_condition" => self.win = WinCondition::parse(value).ok_or_else(bad)?,
            "no_moves" => self.no_moves = NoMoves::parse(value).ok_or_else(bad)?,
            "mandatory_capture" => self.mandatory_capture = flag()?,
            "multi_jump" => self.multi_jump = flag()?,
            "bonus_turn" => self.bonus_turn = flag()?,
            "jump_own" => self.jump_own = flag()?,
            "three_draw" => self.three_draw = flag()?,
            "no_capture_draw" => self.no_capture_draw = number(u32::MAX)?,
            "no_capture_outcome" => {
                self.no_capture_outcome = NoCaptureOutcome::parse(value).ok_or_else(bad)?
            }
            "repetition_draw" => self.repetition_draw = number(u32::MAX)?,
            _ => return Err(VariantError::UnknownKey(key.to_string())),
        }
        Ok(())
    }

    /// The full spec, every key spelled out, readable by `from_spec`.
    pub fn spec(&self) -> String {
        format!(
            "rows={},cols={},pieces={},removal={},win={},no_moves={},mandatory_capture={},multi_jump={},bonus_turn={},jump_own={},three_draw={},no_capture_draw={},no_capture_outcome={},repetition_draw={}",
            self.rows,
            self.cols,
            self.pieces,
            self.removal,
            self.win,
            self.no_moves,
            self.mandatory_capture,
            self.multi_jump,
            self.bonus_turn,
            self.jump_own,
            self.three_draw,
            self.no_capture_draw,
            self.no_capture_outcome,
            self.repetition_draw
        )
    }
}

impl Default for Variant {
    fn default() -> Variant {
        Variant::STANDARD
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    UnknownPreset(String),
    UnknownKey(String),
    BadValue {
        key: String,
        value: String,
    },
    OutOfRange {
        key: &'static str,
        value: u64,
        min: u64,
        max: u64,
    },
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::UnknownPreset(name) => {
                let names: Vec<_> = Variant::PRESETS.iter().map(|p| p.name).collect();
                write!(f, "unknown variant '{name}' (known: {})", names.join(", "))
            }
            VariantError::UnknownKey(key) => write!(f, "unknown rule option '{key}'"),
            VariantError::BadValue { key, value } => {
                write!(f, "bad value '{value}' for rule option '{key}'")
            }
            VariantError::OutOfRange {
                key,
                value,
                min,
                max,
            } if key == &"repetition_draw" => {
                write!(
                    f,
                    "{key} {value} is out of range (0 for off, or {min} to {max})"
                )
            }
            VariantError::OutOfRange {
                key,
                value,
                min,
                max,
            } => write!(f, "{key} {value} is out of range ({min} to {max})"),
        }
    }
}

impl std::error::Error for VariantError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_distinct() {
        for (i, p) in Variant::PRESETS.iter().enumerate() {
            p.variant.validate().unwrap();
            assert_eq!(Variant::preset(p.name), Some(p.variant));
            assert_eq!(p.variant.preset_name(), Some(p.name));
            for q in &Variant::PRESETS[i + 1..] {
                assert_ne!(p.variant, q.variant, "{} and {}", p.name, q.name);
            }
        }
        assert_eq!(Variant::preset("classic").unwrap().loss_threshold(), 0);
        assert_eq!(Variant::STANDARD.loss_threshold(), 1);
    }

    #[test]
    fn spec_round_trips_and_overrides_apply_in_order() {
        let v = Variant::from_spec("multi_jump=true,jump_own=true,removal=board-or-hand").unwrap();
        assert!(v.multi_jump && v.jump_own && v.removal == Removal::BoardOrHand && !v.bonus_turn);
        assert_eq!(Variant::from_spec(&v.spec()).unwrap(), v);
        let w = Variant::from_spec("win=all,three_draw=true").unwrap();
        assert_eq!(w, Variant::preset("classic").unwrap());
        assert_eq!(Variant::from_spec("6x6,pieces=4").unwrap().rows, 6);
        assert_eq!(Variant::from_spec("standard").unwrap(), Variant::STANDARD);
    }

    #[test]
    fn bad_specs_are_rejected_with_a_reason() {
        let err = |s: &str| Variant::from_spec(s).unwrap_err().to_string();
        assert!(err("rows=9").contains("rows 9 is out of range (3 to 8)"));
        assert!(err("cols=2").contains("cols"));
        assert!(err("pieces=0").contains("pieces 0"));
        assert!(err("removal=sideways").contains("'sideways'"));
        assert!(err("colour=blue").contains("unknown rule option 'colour'"));
        assert!(err("chess").contains("unknown variant 'chess'"));
        assert!(err("multi_jump=maybe").contains("'maybe'"));
        assert!(err("repetition_draw=1").contains("0 for off"));
        assert!(err("rows=99999999999").contains("bad value"));
    }
}
