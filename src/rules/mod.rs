//! The rules of Yoté and its variants: positions, moves, legality, game end.
//! Knows nothing of engines, protocols or I/O.

pub mod bitboard;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod ruleset;
pub mod status;
pub mod variant;

pub use bitboard::Bitboard;
pub use game::Game;
pub use geometry::{Direction, Geometry};
pub use moves::{MAX_MOVES, Move, MoveError, MoveList};
pub use notation::PositionError;
pub use perft::{PerftError, divide, divide_full, divide_until, perft, perft_full};
pub use position::{Player, Position};
pub use ruleset::Rules;
pub use status::{EndReason, GameEnd, Outcome};
pub use variant::{NoCaptureOutcome, NoMoves, Removal, Variant, VariantError, WinCondition};
