//! Yoté: the rules library, the evaluation and the searcher, the endgame
//! tables, the engine protocol, and the tools around them. Data flows one
//! way: protocol → search → eval → rules, with tablebase over rules; the
//! match runner, the front end, analysis and tuning talk to engines only
//! through `client` (the protocol from outside) and referee with the rules.

pub mod analysis;
pub mod client;
pub mod eval;
pub mod gui;
pub mod prefetch;
pub mod protocol;
#[cfg(feature = "python")]
mod python;
pub mod results;
pub mod rng;
pub mod rules;
pub mod search;
pub mod tablebase;
pub mod textfile;
pub mod tournament;
pub mod tuning;
