//! Playing strength for people: `UCI_LimitStrength` + `UCI_Elo` turn into a
//! depth cap and a margin within which close moves are chosen with seeded
//! noise. A move whose score is worse than the best by more than the
//! margin is never chosen, and neither is a move into a lost mate, so the
//! engine plays weaker without random blunders.

use super::alphabeta::{INF, RootMove};
use super::tt::MATE_BOUND;
use crate::rng::SplitMix64;

pub const MIN_ELO: u32 = 600;
pub const MAX_ELO: u32 = 2400;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    /// Deepest iteration searched.
    pub depth: u32,
    /// Moves scoring within this many centipawns of the best are candidates.
    pub margin: i32,
    /// How many best lines the search computes to choose from.
    pub lines: usize,
}

impl Skill {
    /// 600 Elo: depth 1 and a 180 cp margin; 2400 Elo: depth 10, no margin.
    pub fn from_elo(elo: u32) -> Skill {
        let elo = elo.clamp(MIN_ELO, MAX_ELO);
        Skill {
            depth: 1 + (elo - MIN_ELO) / 200,
            margin: ((MAX_ELO - elo) / 10) as i32,
            lines: 4,
        }
    }

    /// Index into `moves` (sorted best first) of the move to play: the best
    /// of `score + noise` among the candidates, noise uniform in 0..=margin.
    pub fn choose(&self, moves: &[RootMove], rng: &mut SplitMix64) -> usize {
        let best = moves[0].score;
        if self.margin == 0 || best.abs() > MATE_BOUND {
            return 0;
        }
        let candidates = moves.iter().take(self.lines).enumerate().filter(|(_, rm)| {
            rm.score > -INF && rm.score.abs() <= MATE_BOUND && rm.score >= best - self.margin
        });
        let mut chosen = (0, i32::MIN);
        for (i, rm) in candidates {
            let noisy = rm.score + rng.below(self.margin as usize + 1) as i32;
            if noisy > chosen.1 {
                chosen = (i, noisy);
            }
        }
        chosen.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    fn rm(score: i32) -> RootMove {
        RootMove {
            score,
            ..RootMove::new(Move::place(score.unsigned_abs() as u8 % 30))
        }
    }

    #[test]
    fn never_picks_a_move_far_below_the_best() {
        let skill = Skill::from_elo(MIN_ELO);
        let moves = [rm(50), rm(40), rm(-300), rm(-INF)];
        let mut rng = SplitMix64::new(9);
        for _ in 0..200 {
            assert!(skill.choose(&moves, &mut rng) < 2);
        }
        assert_eq!(Skill::from_elo(MAX_ELO).choose(&moves, &mut rng), 0);
    }

    #[test]
    fn stronger_means_deeper() {
        assert!(Skill::from_elo(1000).depth < Skill::from_elo(2000).depth);
        assert_eq!(Skill::from_elo(100), Skill::from_elo(MIN_ELO));
    }
}
