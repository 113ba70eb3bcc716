//! Tools that make the engine stronger offline: fitting the evaluation's
//! weights to games (`tune`), tuning search parameters by matches (`spsa`),
//! in-process self-play between search settings (`selfplay`), and the
//! network's training positions (`datagen`).

pub mod datagen;
pub mod selfplay;
pub mod spsa;
pub mod tune;
