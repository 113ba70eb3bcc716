//! What a score means: centipawn-like evaluations in the middle, proven
//! table wins above every evaluation, exact mates above those. Every
//! threshold and conversion between root- and node-relative scores lives
//! here, so the search, the table probe and the transposition table agree.

/// The deepest ply the search reaches (stack sizes, mate distances).
pub const MAX_PLY: usize = 128;
/// Beyond every score, mates included.
pub const INF: i32 = MATE + 1;
/// Score of a mate at the root; mate-in-`n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores with an absolute value above this are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;

/// A won table position's score at the root: above every evaluation,
/// below every mate the search proves (those are exact, this is not yet).
pub const TABLE_WIN: i32 = MATE_BOUND - 2 * MAX_PLY as i32;

/// Whether a score is a table win or a mate (either side), seen from any
/// ply of the search: it says what the position is, not what the
/// evaluation thinks of it, so neither pruning margins nor the correction
/// history may use it as one.
#[inline(always)]
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= TABLE_WIN - MAX_PLY as i32
}

/// Converts a root-relative score into a node-relative one for storage.
/// Mate scores are re-based so the entry stays valid at any ply: a mate
/// found `n` plies below this node is stored as `MATE - n` however deep the
/// node sits in the tree. Assumes `0 <= ply < MATE - MATE_BOUND`.
pub fn score_to_tt(score: i32, ply: i32) -> i16 {
    debug_assert!((0..MATE - MATE_BOUND).contains(&ply));
    let s = if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    };
    s.clamp(-MATE, MATE) as i16
}

/// Inverse of [`score_to_tt`]: turns a stored node-relative score back into
/// a root-relative score for a node at `ply`.
pub fn score_from_tt(score: i16, ply: i32) -> i32 {
    debug_assert!((0..MATE - MATE_BOUND).contains(&ply));
    let s = i32::from(score);
    if s > MATE_BOUND {
        s - ply
    } else if s < -MATE_BOUND {
        s + ply
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_are_rebased_by_ply() {
        let mate_in_3_from_root = MATE - 3;
        let stored = score_to_tt(mate_in_3_from_root, 2);
        assert_eq!(i32::from(stored), MATE - 1, "mate in 1 from the node");
        assert_eq!(score_from_tt(stored, 2), mate_in_3_from_root);
        // Same position reached at another ply keeps the node distance.
        assert_eq!(score_from_tt(stored, 6), MATE - 7);

        let mated = -(MATE - 5);
        let stored = score_to_tt(mated, 4);
        assert_eq!(i32::from(stored), -(MATE - 1));
        assert_eq!(score_from_tt(stored, 4), mated);
    }

    #[test]
    fn ordinary_scores_are_unchanged() {
        for s in [-MATE_BOUND, -1234, 0, 1, 999, MATE_BOUND] {
            for ply in [0, 1, 50, 999] {
                assert_eq!(i32::from(score_to_tt(s, ply)), s);
                assert_eq!(score_from_tt(s as i16, ply), s);
            }
        }
    }

    #[test]
    fn mate_round_trip_all_plies() {
        for ply in 0..MATE - MATE_BOUND {
            for dist in [0, 1, 10, 500] {
                let s = MATE - ply - dist;
                if s > MATE_BOUND {
                    assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
                    assert_eq!(score_from_tt(score_to_tt(-s, ply), ply), -s);
                }
            }
        }
    }
}
