//! Yoté: the rules library, the searcher, the engine protocol and the match
//! runner. Data flows one way: protocol → search → rules; the match runner
//! talks to engines only through the protocol and referees with the rules.

pub mod analysis;
pub mod gui;
pub mod prefetch;
pub mod protocol;
#[cfg(feature = "python")]
mod python;
pub mod rng;
pub mod rules;
pub mod search;
pub mod spsa;
pub mod tablebase;
pub mod textfile;
pub mod tournament;
pub mod tune;
