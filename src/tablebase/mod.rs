//! Endgame tablebases: the exact value of every position with few pieces,
//! by retrograde analysis, for any rule set. Over `rules` only: the search
//! asks for values, the command line asks to generate, inspect or solve.
//!
//! Positions are grouped in material classes (pieces on the board and in
//! hand for the side to move and the other side); `class` lists them in
//! solving order, `index` numbers the positions of one class, `retrograde`
//! solves a class and its partner, `format` lays a class out on disk
//! (compressed blocks, index, checksums), `file` names, writes and finds a
//! class's files, `mapped` probes them in place, `generate` drives a whole
//! set and `table` holds and probes it.
//!
//! The probe side (`class`, `index`, `value`, `format`, `mapped`, `file`,
//! `table`, `perfect`) never imports the solve side (`retrograde`,
//! `generate`, `bound`, `verify`), so the search links only what it reads.
//! History rules (NoCaptureDraw, RepetitionDraw) are not in the tables.

pub mod bound;
pub mod class;
pub mod cli;
pub mod file;
pub mod format;
pub mod generate;
pub mod index;
pub mod mapped;
pub mod perfect;
pub mod retrograde;
pub mod table;
pub mod value;
pub mod verify;

pub use class::Class;
pub use generate::{Request, Shard, generate, load_dir, load_dirs, read_dir};
pub use mapped::Decode;
pub use table::{ClassStats, Table, Tablebase};
pub use value::{Metric, Value, Wdl};
