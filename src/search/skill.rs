//! Playing strength for people: `Skill Level` (0-20) and `UCI_Elo` on the
//! scale of the strength ladder (docs/strength.md), where the random player
//! is 0 and every number was measured by games.
//!
//! A level is a point on one continuous line of players, so that `UCI_Elo`
//! can fall between two measured levels:
//! - below `PRECISE_FROM` (levels 0-12.99) the engine scores every root move
//!   and draws its move from a softmax over the scores; the temperature
//!   falls by a constant factor per level, from all but uniform at level 0,
//!   and no move that loses more than the level's `max_loss` is ever drawn.
//!   The weights come from a 2-ply search when the player is attentive, and
//!   otherwise from a glance at the position after each move (a beginner
//!   who does not weigh the opponent's replies); the chance of attention
//!   grows from 0 at level 0 to 1 at `ATTENTIVE_FROM`;
//! - from `PRECISE_FROM` up it plays its best move within a node budget
//!   that grows by a constant factor per level, up to level 19, and from
//!   there to what full strength searches in a second;
//! - level 20 is full strength: no cap at all.
//!
//! What no level does on purpose (see `choose`): miss a win its search has
//! found, walk into a loss it has seen when another move avoids it, or give
//! away more than `max_loss` by its own count.

use super::score::{INF, MATE_BOUND};
use crate::rng::SplitMix64;

/// `Skill Level` 20: the engine at full strength.
pub const MAX_LEVEL: u32 = 20;
/// The levels from here up choose their best move.
const PRECISE_FROM: f64 = 13.0;
/// The search depth of the noisy levels.
const NOISY_DEPTH: u32 = 2;
/// The level from which the search's scores are always used.
const ATTENTIVE_FROM: f64 = 4.0;
/// Softmax temperature in centipawns (100 = a piece) at the last noisy
/// level, and its growth per level downwards: by `HEAT_PER_LEVEL` to
/// `ATTENTIVE_FROM` (about 400 cp there), where strength changes most with
/// it, then faster to all but uniform at level 0 (about 4900 cp).
const COOLEST: f64 = 4.0;
const HEAT_PER_LEVEL: f64 = 1.78;
const HEAT_PER_CARELESS_LEVEL: f64 = 1.87;
/// Nodes per move at `PRECISE_FROM`, and the budget's doublings per level.
const FIRST_NODES: f64 = 1000.0;
const DOUBLINGS_PER_LEVEL: f64 = 1.25;
/// Root moves visited per iteration to score the noisy levels' lines:
/// scoring line k searches the moves from k on, so scoring every one of N
/// moves visits N²/2. Up to 128 root moves (nearly every position of the
/// presets) all are scored; in an 8×8 MultiJump position with 8192 root
/// moves, two
/// (`go depth 1` at Skill Level 5 took 10–12 s there, 14 ms at full
/// strength), and the rest are weighed by a glance.
const SCORED_ROOT_VISITS: usize = 16_384;
/// The last capped level before full strength, and about what full
/// strength searches in one second on one core here: the budget between
/// the two grows geometrically, so that `UCI_Elo` just below full strength
/// plays close to it.
const LAST_CAPPED: f64 = 19.0;
const FULL_NODES: f64 = 4_000_000.0;

pub use super::ladder::LADDER;

/// The environment variable that replaces the embedded ladder for a
/// process: a refit is checked by matches before it is embedded
/// (`scripts/match/ladder.sh --refit`). Only the interpolation changes; the
/// option's range stays the embedded one.
pub const LADDER_ENV: &str = "YOTE_LADDER";

/// Why a ladder text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LadderError {
    Count(usize),
    NotANumber(String),
    NotRising { level: usize },
}

impl std::fmt::Display for LadderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LadderError::Count(n) => {
                write!(f, "{n} ratings, one for each of the {LEVELS} levels needed")
            }
            LadderError::NotANumber(t) => write!(f, "'{t}' is not a rating"),
            LadderError::NotRising { level } => {
                write!(f, "level {level} is not rated above level {}", level - 1)
            }
        }
    }
}

const LEVELS: usize = MAX_LEVEL as usize + 1;

/// Reads `633,647,…` (one rating per level, rising).
pub fn parse_ladder(text: &str) -> Result<[u32; LEVELS], LadderError> {
    let ratings = text
        .split(',')
        .map(|t| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| LadderError::NotANumber(t.trim().to_string()))
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let ladder: [u32; LEVELS] = ratings
        .try_into()
        .map_err(|r: Vec<u32>| LadderError::Count(r.len()))?;
    match ladder.windows(2).position(|w| w[0] >= w[1]) {
        Some(i) => Err(LadderError::NotRising { level: i + 1 }),
        None => Ok(ladder),
    }
}

/// The ladder `UCI_Elo` is interpolated in: `LADDER`, unless `YOTE_LADDER`
/// holds a valid one (a bad one is reported once on stderr and ignored).
pub fn ladder() -> &'static [u32; LEVELS] {
    static ACTIVE: std::sync::OnceLock<[u32; LEVELS]> = std::sync::OnceLock::new();
    ACTIVE.get_or_init(|| match std::env::var(LADDER_ENV) {
        Err(_) => LADDER,
        Ok(text) => parse_ladder(&text).unwrap_or_else(|e| {
            log::warn!("{LADDER_ENV} ignored: {e}");
            LADDER
        }),
    })
}

/// The lowest `UCI_Elo` accepted: below level 0's rating, so that the
/// minimum plays level 0 itself, never a stronger level; below level 0's
/// rating the engine plays level 0 (a test keeps that within 100 Elo of the
/// number asked for).
pub const MIN_ELO: u32 = 500;
/// Full strength at 1 s a move: `UCI_Elo` at or above it is level 20.
pub const MAX_ELO: u32 = LADDER[MAX_LEVEL as usize];

/// A strength below full: a level in `0.0..20.0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    level: f64,
}

impl Skill {
    /// `Skill Level`: none at `MAX_LEVEL` (full strength).
    pub fn from_level(level: u32) -> Option<Skill> {
        (level < MAX_LEVEL).then_some(Skill {
            level: f64::from(level),
        })
    }

    /// The level whose measured rating is `elo`, interpolated between the
    /// ladder's levels; none from `MAX_ELO` up.
    pub fn from_elo(elo: u32) -> Option<Skill> {
        Skill::on_ladder(elo, ladder())
    }

    fn on_ladder(elo: u32, ladder: &[u32; LEVELS]) -> Option<Skill> {
        let elo = elo.max(ladder[0]);
        let below = ladder.iter().rposition(|&rating| rating <= elo)?;
        let above = *ladder.get(below + 1)?;
        let share = f64::from(elo - ladder[below]) / f64::from(above - ladder[below]);
        Some(Skill {
            level: below as f64 + share,
        })
    }

    pub fn level(&self) -> f64 {
        self.level
    }

    fn noisy(&self) -> bool {
        self.level < PRECISE_FROM
    }

    /// The deepest iteration searched.
    pub fn depth(&self) -> u32 {
        if self.noisy() { NOISY_DEPTH } else { u32::MAX }
    }

    /// Nodes per move, when capped.
    pub fn nodes(&self) -> Option<u64> {
        if self.noisy() {
            return None;
        }
        let doublings = (self.level.min(LAST_CAPPED) - PRECISE_FROM) * DOUBLINGS_PER_LEVEL;
        let last = FIRST_NODES * 2f64.powf(doublings);
        let bridge = (FULL_NODES / last).powf((self.level - LAST_CAPPED).max(0.0));
        Some((last * bridge) as u64)
    }

    /// How many root moves get an exact score: all of them when the move
    /// is drawn from the scores, unless there are so many that scoring
    /// them all would take the search quadratically longer than full
    /// strength's (see `SCORED_ROOT_VISITS`).
    pub fn lines(&self, root_moves: usize) -> usize {
        if !self.noisy() {
            return 1;
        }
        let affordable = SCORED_ROOT_VISITS / root_moves.max(1);
        root_moves.min(affordable.max(1))
    }

    /// Softmax temperature in centipawns; 0 from `PRECISE_FROM` up.
    pub fn temperature(&self) -> f64 {
        if !self.noisy() {
            return 0.0;
        }
        let below_last = (PRECISE_FROM - 1.0 - self.level).max(0.0);
        let careless = (ATTENTIVE_FROM - self.level).max(0.0);
        COOLEST
            * HEAT_PER_LEVEL.powf(below_last - careless)
            * HEAT_PER_CARELESS_LEVEL.powf(careless)
    }

    /// The most a chosen move may score below the best: six captures' worth
    /// (1240 cp) at level 0, one (200 cp) at `PRECISE_FROM`.
    pub fn max_loss(&self) -> i32 {
        let above = (PRECISE_FROM - self.level).max(0.0);
        (200.0 + 80.0 * above) as i32
    }

    /// Whether this move's choice weighs the moves by the search's scores or
    /// only by a glance at the position after each (the guards of `choose`
    /// use the search's scores either way).
    pub fn attentive(&self, rng: &mut SplitMix64) -> bool {
        rng.unit() * ATTENTIVE_FROM < self.level
    }

    /// Index into `searched` (the search's score of each root move, -INF
    /// for unsearched ones) of the move to play. A found win is played; a
    /// move into a seen loss is never chosen while another is not lost; nor
    /// is a move more than `max_loss` below the best. Among the rest the
    /// choice is a softmax at `temperature` over `glanced` scores when the
    /// player did not look at the replies, else over `searched`.
    pub fn choose(&self, searched: &[i32], glanced: Option<&[i32]>, rng: &mut SplitMix64) -> usize {
        let (first_best, best) = searched
            .iter()
            .enumerate()
            .fold((0, -INF), |b, (i, &s)| if s > b.1 { (i, s) } else { b });
        let t = self.temperature();
        if t < 1.0 || best >= MATE_BOUND {
            return first_best;
        }
        let floor = best - self.max_loss();
        let lost = |score: i32| score <= -MATE_BOUND && best > -MATE_BOUND;
        let eligible = |score: i32| score > -INF && score >= floor && !lost(score);
        let seen = glanced.unwrap_or(searched);
        let seen_best = (0..searched.len())
            .filter(|&i| eligible(searched[i]))
            .map(|i| seen[i])
            .max()
            .unwrap_or(0);
        let weights: Vec<f64> = (0..searched.len())
            .map(|i| {
                if eligible(searched[i]) {
                    (f64::from(seen[i] - seen_best) / t).exp()
                } else {
                    0.0
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let mut pick = rng.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if pick < *w {
                return i;
            }
            pick -= w;
        }
        first_best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(skill: Skill, moves: &[i32], n: usize) -> Vec<usize> {
        let mut rng = SplitMix64::new(9);
        let mut count = vec![0; moves.len()];
        for _ in 0..n {
            count[skill.choose(moves, None, &mut rng)] += 1;
        }
        count
    }

    /// Issue 17: scoring all 8192 root moves of an 8×8 MultiJump position
    /// line by line took 10–12 s for `go depth 1`. Ordinary positions still
    /// have every move scored.
    #[test]
    fn the_lines_scored_are_bounded_in_huge_positions() {
        let noisy = Skill::from_level(5).unwrap();
        for moves in [1, 30, 90, 128] {
            assert_eq!(noisy.lines(moves), moves);
        }
        assert_eq!(noisy.lines(8192), 2);
        assert_eq!(noisy.lines(1_000_000), 1);
        for moves in [129, 500, 8192] {
            assert!(noisy.lines(moves) * moves <= SCORED_ROOT_VISITS);
        }
        assert_eq!(Skill::from_level(15).unwrap().lines(8192), 1);
    }

    #[test]
    fn never_picks_a_move_beyond_the_loss_limit_or_into_a_loss() {
        let weakest = Skill::from_level(0).unwrap();
        let moves = [50, 40, -300, -2000, -MATE_BOUND - 5, -INF];
        let count = picks(weakest, &moves, 2000);
        assert!(count[0] > 0 && count[1] > 0 && count[2] > 0, "{count:?}");
        assert_eq!(count[3..], [0, 0, 0], "{count:?}");
    }

    #[test]
    fn a_glance_chooses_but_the_search_guards() {
        let weakest = Skill::from_level(0).unwrap();
        let searched = [10, -MATE_BOUND - 1, 0, -1500];
        let glanced = [0, 900, 0, 800];
        let mut rng = SplitMix64::new(2);
        let mut count = [0; 4];
        for _ in 0..400 {
            count[weakest.choose(&searched, Some(&glanced), &mut rng)] += 1;
        }
        assert_eq!((count[1], count[3]), (0, 0), "{count:?}");
        assert!(count[0] > 100 && count[2] > 100, "{count:?}");
        // A glanced score far above the rest dominates a cool choice.
        let level_3 = Skill::from_level(3).unwrap();
        let glanced = [0, 0, 20_000, 0];
        assert_eq!(level_3.choose(&searched, Some(&glanced), &mut rng), 2);
    }

    #[test]
    fn a_found_win_is_always_played() {
        let moves = [MATE_BOUND + 3, 40, 30];
        assert_eq!(picks(Skill::from_level(0).unwrap(), &moves, 200)[0], 200);
    }

    #[test]
    fn the_best_need_not_come_first() {
        let moves = [-20, MATE_BOUND + 1, 10];
        assert_eq!(picks(Skill::from_level(3).unwrap(), &moves, 50)[1], 50);
        assert_eq!(picks(Skill::from_level(15).unwrap(), &moves, 50)[1], 50);
    }

    #[test]
    fn the_temperature_falls_level_by_level() {
        let t = |level| Skill::from_level(level).unwrap().temperature();
        assert!((t(12) - COOLEST).abs() < 1e-9);
        assert!((t(4) - 400.0).abs() < 10.0, "{}", t(4));
        assert!((t(0) - 4900.0).abs() < 100.0, "{}", t(0));
        assert!((0..12).all(|l| t(l) > t(l + 1)));
        assert_eq!(t(13), 0.0);
    }

    #[test]
    fn attention_grows_with_the_level() {
        let share = |level| {
            let skill = Skill::from_level(level).unwrap();
            let mut rng = SplitMix64::new(4);
            (0..1000).filter(|_| skill.attentive(&mut rng)).count()
        };
        assert_eq!(share(0), 0);
        assert!(share(1) > 150 && share(1) < 350, "{}", share(1));
        assert!(share(2) > share(1));
        assert_eq!(share(4), 1000);
    }

    #[test]
    fn a_lost_position_still_plays_a_move() {
        let moves = [-MATE_BOUND - 3, -MATE_BOUND - 9];
        let count = picks(Skill::from_level(0).unwrap(), &moves, 100);
        assert_eq!(count.iter().sum::<usize>(), 100);
    }

    #[test]
    fn higher_levels_pick_the_best_more_often() {
        let moves = [60, 20, 0, -100];
        let best_share = |level| picks(Skill::from_level(level).unwrap(), &moves, 4000)[0];
        assert!(best_share(0) < best_share(5));
        assert!(best_share(5) < best_share(9));
        assert_eq!(best_share(13), 4000);
    }

    #[test]
    fn the_precise_levels_double_their_nodes() {
        assert_eq!(Skill::from_level(12).unwrap().nodes(), None);
        let nodes = |l| Skill::from_level(l).unwrap().nodes().unwrap();
        assert_eq!(nodes(13), 1000);
        assert!(nodes(14) > nodes(13) * 2 && nodes(19) > nodes(18) * 2);
        let almost_full = Skill::from_elo(MAX_ELO - 1).unwrap().nodes().unwrap();
        assert!(almost_full > FULL_NODES as u64 * 9 / 10, "{almost_full}");
        assert!(Skill::from_level(MAX_LEVEL).is_none());
    }

    #[test]
    fn elo_follows_the_ladder() {
        assert_eq!(Skill::from_elo(LADDER[0]).unwrap().level(), 0.0);
        assert_eq!(Skill::from_elo(MIN_ELO), Skill::from_elo(LADDER[0]));
        assert!(Skill::from_elo(MAX_ELO).is_none());
        assert!((Skill::from_elo(LADDER[7]).unwrap().level() - 7.0).abs() < 1e-9);
        let middle = (LADDER[7] + LADDER[8]) / 2;
        assert!((Skill::from_elo(middle).unwrap().level() - 7.5).abs() < 0.01);
        let mut last = -1.0;
        for elo in LADDER[0]..MAX_ELO {
            let level = Skill::from_elo(elo).unwrap().level();
            assert!(level > last, "{elo}");
            last = level;
        }
    }

    #[test]
    fn a_ladder_text_is_checked_before_use() {
        let text: Vec<String> = LADDER.iter().map(u32::to_string).collect();
        assert_eq!(parse_ladder(&text.join(",")), Ok(LADDER));
        assert_eq!(parse_ladder("1,2,3"), Err(LadderError::Count(3)));
        let mut flat = LADDER;
        flat[5] = flat[4];
        let text: Vec<String> = flat.iter().map(u32::to_string).collect();
        assert_eq!(
            parse_ladder(&text.join(",")),
            Err(LadderError::NotRising { level: 5 })
        );
        assert!(matches!(parse_ladder("1,x"), Err(LadderError::NotANumber(t)) if t == "x"));
        // Another ladder moves the same rating to another level.
        let mut doubled = LADDER;
        doubled.iter_mut().for_each(|r| *r *= 2);
        let elo = LADDER[10];
        assert!((Skill::on_ladder(elo, &LADDER).unwrap().level() - 10.0).abs() < 1e-9);
        let level = Skill::on_ladder(elo, &doubled).unwrap().level();
        assert!((5.0..6.0).contains(&level), "{level}");
    }

    #[test]
    fn the_extremes_are_the_ladders_ends() {
        // The minimum plays the lowest level, the maximum full strength.
        assert_eq!(Skill::from_elo(MIN_ELO).map(|s| s.level()), Some(0.0));
        assert_eq!(Skill::from_elo(MAX_ELO), None);
        assert!(Skill::from_elo(MAX_ELO - 1).is_some());
    }

    #[test]
    fn the_ladder_rises_and_reaches_down_to_min_elo() {
        assert!(LADDER.windows(2).all(|w| w[0] < w[1]), "{LADDER:?}");
        assert!(LADDER[0] <= MIN_ELO + 100);
    }
}
