//! What played games say: results tallied per pair of engines, Elo, LOS,
//! SPRT and standings (`stats`, `tally`, `standings`), and records files
//! rescored into them (`rescore`, with `run_tag` and `coverage` for runs
//! and the shares of a sharded match). The match runner fills tallies as it
//! plays; the front end and `yote match --rescore` read them back from
//! records. Nothing here plays a game.

pub mod coverage;
pub mod rescore;
pub mod run_tag;
pub mod standings;
pub mod stats;
pub mod tally;

pub use rescore::{merge, rescore, rescore_files, rescore_inputs};
