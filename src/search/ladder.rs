//! The strength ladder (docs/strength.md): the Elo of `Skill Level` 0, 1,
//! … 20 with the random player at 0, standard rules, 1 s a move.
//! `UCI_Elo` is interpolated in it. Written by `scripts/ladder.sh --refit`.

/// Measured with the engine of commit aa41cbb (5 400 ladder games).
pub const LADDER: [u32; 21] = [
    633, 647, 668, 737, 851, 1008, 1242, 1568, 1852, 2008, 2102, 2191, 2217, 2291, 2405, 2508,
    2592, 2666, 2720, 2760, 2903,
];
