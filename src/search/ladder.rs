//! The strength ladder (docs/strength.md): the Elo of `Skill Level` 0, 1,
//! … 20 with the random player at 0, standard rules, 1 s a move.
//! `UCI_Elo` is interpolated in it. Written by `scripts/match/ladder.sh --refit`.

/// Fitted on 2026-12-04 to 5245 ladder games.
pub const LADDER: [u32; 21] = [
    569, 574, 600, 633, 768, 951, 1212, 1500, 1763, 1961, 2114, 2241, 2339, 2436, 2567, 2739, 2874,
    2969, 3044, 3092, 3195,
];
