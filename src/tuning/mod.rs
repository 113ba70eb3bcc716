//! Tools that make the engine stronger offline: fitting the evaluation's
//! weights to games (`tune`), tuning search parameters by matches (`spsa`),
//! in-process self-play between search settings (`selfplay`), and the
//! network's training positions (`datagen`) and their labels searched again
//! deeper (`relabel`), both resumable (`resume`).

pub mod datagen;
pub mod relabel;
pub mod resume;
pub mod selfplay;
pub mod spsa;
pub mod tune;
