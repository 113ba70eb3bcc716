//! The evaluation's weights, one set per rule family (`eval::Family`).
//!
//! Fitted by `yote tune` (docs/search.md, "Fitting the evaluation"); the
//! tables below are its output pasted in. Per feature (in the order of
//! `eval::FEATURE_NAMES`): `[on move opening, on move endgame, waiting
//! opening, waiting endgame]`.

use super::terms::FEATURES;

/// Per-feature weights of one rule family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights(pub [[i32; 4]; FEATURES]);

/// Indexed by `Family as usize`: board, hand, capture-all.
pub static FAMILY_WEIGHTS: [Weights; 3] = [FITTED_BOARD, FITTED_HAND, FITTED_CAPTURE_ALL];

/// Fitted by `yote tune --family board` (third round, issue 20: 13 557
/// standard games at 1 s + 10 ms between builds since ce58b1d, and 1 200
/// of 6x6, 5x5 and all-options; 200 000 positions, held-out loss 0.01679
/// → 0.01514), from the first round's weights (900 games of 6c9fbb0 at
/// 2000 nodes), whose `stuck` features were 0.
pub const FITTED_BOARD: Weights = Weights([
    [111, 82, 110, 86],   // board
    [98, 116, 98, 117],   // hand
    [0, 6, 0, 4],         // mobility
    [-9, -42, -30, -30],  // threatened
    [-17, -28, 0, 0],     // double-threat
    [0, -7, 0, 0],        // undefended
    [-10, -12, -10, -10], // attackers
    [-2, -5, 6, -7],      // guarded
    [-60, -58, -60, -62], // near-loss
    [3, 2, -3, 0],        // contact
    [-10, 8, -10, 9],     // ahead
    [10, 7, 0, 3],        // tempo
    [-1, -4, -5, -6],     // cell-0-1
    [-1, 3, 3, 3],        // cell-0-2
    [3, -5, 0, -2],       // cell-1-0
    [-9, -10, -12, -10],  // cell-1-1
    [-7, -3, -8, -3],     // cell-1-2
    [-3, -5, 1, -6],      // cell-2-0
    [-10, -14, -5, -15],  // cell-2-1
    [-10, -6, -5, -7],    // cell-2-2
    [2, -4, 4, -4],       // stuck
    [0, -2, 0, 0],        // no-safe-step
]);

/// Fitted by `yote tune --family hand` (hand-removal and boxed games, both rounds:
/// +44.5 ± 25.8 Elo over the first round's fit in hand-removal).
pub const FITTED_HAND: Weights = Weights([
    [100, 80, 96, 80],    // board
    [98, 105, 98, 105],   // hand
    [-3, 1, 3, -1],       // mobility
    [-26, -47, -30, -30], // threatened
    [-25, -33, 0, 0],     // double-threat
    [-2, -22, 0, 0],      // undefended
    [-11, -13, -10, -10], // attackers
    [-1, -14, 7, -21],    // guarded
    [-60, -61, -60, -61], // near-loss
    [8, 10, -3, 15],      // contact
    [-12, 9, -14, 10],    // ahead
    [10, 7, 0, 3],        // tempo
    [-4, -12, -7, -14],   // cell-0-1
    [21, -3, 23, -1],     // cell-0-2
    [-19, 1, -9, -4],     // cell-1-0
    [-12, -16, -24, -4],  // cell-1-1
    [3, -12, -3, -2],     // cell-1-2
    [-2, 1, 0, 13],       // cell-2-0
    [-5, -11, -5, -9],    // cell-2-1
    [-5, -3, 3, -7],      // cell-2-2
    [7, -2, 9, -2],       // stuck
    [0, -1, 0, 0],        // no-safe-step
]);

/// Fitted by `yote tune --family capture-all` (classic games: first round, 300
/// games of 6c9fbb0; the second round's fit did not gain, +4.7 ± 26.8 Elo).
pub const FITTED_CAPTURE_ALL: Weights = Weights([
    [115, 94, 113, 93],   // board
    [95, 116, 95, 124],   // hand
    [-5, 0, -9, 1],       // mobility
    [-41, -37, -30, -30], // threatened
    [-12, -13, 0, 0],     // double-threat
    [0, -1, 0, 0],        // undefended
    [-10, -11, -10, -10], // attackers
    [3, -8, -4, -6],      // guarded
    [-60, -59, -60, -61], // near-loss
    [0, -13, -2, -11],    // contact
    [-5, 4, -2, 3],       // ahead
    [10, 11, 0, -1],      // tempo
    [-6, -11, -5, -7],    // cell-0-1
    [13, -2, 12, 3],      // cell-0-2
    [-9, -9, -13, -14],   // cell-1-0
    [-20, -10, -13, -5],  // cell-1-1
    [-14, -7, -6, -11],   // cell-1-2
    [9, -8, 3, -3],       // cell-2-0
    [-26, -16, -29, -13], // cell-2-1
    [15, -5, 12, -9],     // cell-2-2
    [0, 0, 0, 0],         // stuck
    [0, 0, 0, 0],         // no-safe-step
]);
