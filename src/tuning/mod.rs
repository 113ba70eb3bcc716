//! Tools that make the engine stronger offline: fitting the evaluation's
//! weights to games (`tune`), tuning search parameters by matches (`spsa`),
//! and in-process self-play between search settings (`selfplay`).

pub mod selfplay;
pub mod spsa;
pub mod tune;
