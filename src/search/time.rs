//! Time management: turns clock limits into a soft and a hard search budget.
//!
//! All arithmetic is done in `u128` milliseconds so that absurd inputs
//! (`u64::MAX` ms on the clock or as increment) cannot overflow.
//!
//! # Formula (clock given, all values in ms)
//!
//! ```text
//! usable   = time - overhead                      (saturating; overhead is
//!                                                  paid once per move)
//! reserve  = min(usable / 10, 1000)               (never touched: absorbs
//!                                                  scheduling jitter and
//!                                                  lag under-estimates)
//! cap      = usable - reserve
//! horizon  = clamp(movestogo, 1, 50)              if movestogo > 0
//!          = 60 - min(ply / 4, 20)                otherwise (sudden death;
//!                                                  60 at the start, 40
//!                                                  from ply 80 on:
//!                                                  time_horizon and
//!                                                  time_horizon_min),
//!            raised to (ply / 2) * 100%           (a long game without
//!                                                  increment, inc = 0:
//!                                                  about as many moves
//!                                                  again are expected;
//!                                                  time_long_share)
//!            and lowered to ceil(left / 2)        when the rules bound the
//!                                                  plies left (see
//!                                                  `GameStage`), at least 1
//! inc'     = inc - overhead                       (saturating; every
//!                                                  future move pays the lag
//!                                                  out of its increment)
//! optimum  = usable / horizon + 0.8 * inc'        (0.8: time_inc_share)
//! hardpart = usable * 3 / 10                      sudden death
//!                                                 (3/10: time_hard_share)
//!          = usable * (3n + 7) / (10n)            movestogo = n (1.0 for
//!                                                  n = 1, tends to 0.3)
//! maximum  = min(5 * optimum, hardpart + inc', cap) (5: time_max_over_optimum)
//! optimum  = min(optimum, maximum)
//! ```
//!
//! The named numbers are `SearchParams` (`search::params`), tunable within
//! ranges that keep every budget under `cap`; the figures are the defaults.
//!
//! Both budgets are then raised to at least 1 ms: the engine must always
//! return a move. When `time <= overhead` (or `movetime <= overhead`)
//! there is no time to think at all: the budget says so (`at_once`) and
//! the search stops after its first iteration, whatever the machine's
//! speed, instead of deepening until the 1 ms is up.
//!
//! With `movetime = T`, both budgets are `max(T - overhead, 1)`, further
//! capped by `cap` if a clock is also given.
//!
//! Spending `maximum` every move with an actual lag `<= overhead` leaves
//! `time_next >= overhead + reserve + inc - lag` whenever `time > overhead`,
//! so the clock never runs out as long as the overhead estimate is honest
//! and `lag < inc` (a move takes at least 1 ms; if every move costs more
//! than the increment returns, no budget can avoid flagging eventually).

use super::params::SearchParams;
use crate::rules::{Game, Player, Position, Rules};
use std::time::Duration;

const RESERVE_MAX_MS: u128 = 1_000;
const MAX_HORIZON: u128 = 50;
/// The longest sudden-death horizon, in own moves: far beyond any game
/// seen, it only keeps the arithmetic of absurd move numbers sane.
const MAX_LONG_HORIZON: u128 = 2_000;

/// What the clock needs to know of the game besides the limits: how far
/// it has come and, when the rules bound it, how long it can still last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameStage {
    /// Half-moves already played.
    pub ply: u32,
    /// The most plies the game can still last, when the rules say.
    pub plies_left_at_most: Option<u64>,
}

impl GameStage {
    /// The stage of `game`. The plies played are read from the position's
    /// move number too, so a manager that sends `position fen <now>` with
    /// no moves is not taken to be at the start of its game.
    pub fn of(game: &Game) -> GameStage {
        let pos = game.position();
        let black = u32::from(pos.side_to_move() == Player::Black);
        let by_number = pos.move_number().saturating_sub(1).saturating_mul(2) + black;
        GameStage {
            ply: by_number.max(u32::try_from(game.moves().len()).unwrap_or(u32::MAX)),
            plies_left_at_most: plies_left_at_most(game.rules(), pos),
        }
    }

    /// A stage known only by its ply (no bound on the plies left).
    pub fn at_ply(ply: u32) -> GameStage {
        GameStage {
            ply,
            plies_left_at_most: None,
        }
    }
}

/// With `NoCaptureDraw` N, the game ends or a capture comes within N plies
/// (N minus the plies already without one, the first time), and every
/// capture takes at least one piece: after as many captures as the two
/// sides have pieces above the losing count, the next one ends the game.
/// Without that rule nothing bounds the length.
fn plies_left_at_most(rules: &Rules, pos: &Position) -> Option<u64> {
    let variant = rules.variant();
    let limit = u64::from(variant.no_capture_draw);
    if limit == 0 {
        return None;
    }
    let lost_at = variant.loss_threshold();
    let spare = |player| u64::from(pos.total(player).saturating_sub(lost_at + 1));
    let captures_before_the_last = spare(Player::White) + spare(Player::Black);
    let first = limit.saturating_sub(u64::from(pos.plies_since_capture()));
    Some(first + captures_before_the_last * limit)
}

/// Search limits as given by the `go` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Milliseconds left on the clock of the side to move.
    pub time: Option<u64>,
    /// Increment per move in milliseconds.
    pub inc: u64,
    /// Moves until the next time control; `Some(0)` is treated as absent.
    pub movestogo: Option<u32>,
    /// Fixed time for this move in milliseconds.
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
}

/// Soft (`optimum`) and hard (`maximum`) time budget for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    optimum: Option<Duration>,
    maximum: Option<Duration>,
    /// `movetime`: the user asked for exactly this long, so stability and
    /// score drops must not shorten it.
    fixed: bool,
    /// No time to think: the clock (or movetime) is within the overhead.
    at_once: bool,
    /// The soft stop's scale, in thousandths: when the best move just
    /// changed, less per stable iteration, more per centipawn dropped.
    stable_start: u128,
    stable_step: u128,
    drop_scale: u128,
}

fn to_duration(ms: u128) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
}

/// The own moves a sudden-death clock is shared over: `time_horizon`,
/// shrinking to `time_horizon_min` as the game goes on; in a long game
/// without increment at least `time_long_share`% of the own moves already
/// played (so the clock falls like 1/n instead of geometrically: a fixed
/// horizon of 25 left 22 ms of a minute after 198 moves, and games here
/// last 100 moves a side and more); at most the own moves the rules still
/// allow. An increment refills the clock every move, so nothing needs
/// saving for a long game: held back, the time was still on the clock at
/// the 500-ply limit (a median 2.76 s used of 3.5 s at 1 s + 10 ms). The
/// increment counts as given, not less `MoveOverhead`: the default
/// overhead (10 ms) is a bound on the lag, not the lag, and 1 s + 10 ms
/// would otherwise count as no increment at all.
fn sudden_death_horizon(stage: GameStage, params: &SearchParams, increment: bool) -> u128 {
    let param = |value: i32| u128::try_from(value).unwrap_or(0);
    let ply = u128::from(stage.ply);
    let start = param(params.time_horizon).max(1);
    let shrink = (ply / 4).min(start.saturating_sub(param(params.time_horizon_min)));
    let long_share = if increment {
        0
    } else {
        param(params.time_long_share)
    };
    let long_game = ply / 2 * long_share / 100;
    let horizon = (start - shrink).max(long_game);
    let allowed = stage
        .plies_left_at_most
        .map_or(u128::MAX, |plies| u128::from(plies).div_ceil(2));
    horizon.min(allowed).clamp(1, MAX_LONG_HORIZON)
}

impl TimeBudget {
    /// Computes the budget for the side to move. `stage` (the plies
    /// played, the most left) sets the sudden-death horizon.
    ///
    /// `infinite` and `ponder` yield an unlimited budget; on `ponderhit` the
    /// caller should build a new budget with `ponder = false`.
    pub fn new(
        limits: &Limits,
        move_overhead_ms: u64,
        stage: GameStage,
        params: &SearchParams,
    ) -> TimeBudget {
        // The parameters' ranges are all non-negative.
        let param = |value: i32| u128::try_from(value).unwrap_or(0);
        let unlimited = TimeBudget {
            optimum: None,
            maximum: None,
            fixed: false,
            at_once: false,
            stable_start: param(params.time_stable_start),
            stable_step: param(params.time_stable_step),
            drop_scale: param(params.time_drop_scale),
        };
        if limits.infinite || limits.ponder {
            return unlimited;
        }
        let overhead = u128::from(move_overhead_ms);

        let clock = limits.time.map(|time| {
            let usable = u128::from(time).saturating_sub(overhead);
            let inc = u128::from(limits.inc).saturating_sub(overhead);
            let cap = usable - (usable / 10).min(RESERVE_MAX_MS);
            let (horizon, hard_part) = match limits.movestogo.filter(|&n| n > 0) {
                Some(n) => {
                    let n = u128::from(n).min(MAX_HORIZON);
                    (n, usable * (3 * n + 7) / (10 * n))
                }
                None => (
                    sudden_death_horizon(stage, params, limits.inc > 0),
                    usable * param(params.time_hard_share) / 100,
                ),
            };
            let optimum = usable / horizon + inc * param(params.time_inc_share) / 100;
            let maximum = (param(params.time_max_over_optimum) * optimum)
                .min(hard_part + inc)
                .min(cap);
            (optimum.min(maximum), maximum, cap, usable)
        });

        let (optimum, maximum, fixed, at_once) = match (limits.movetime, clock) {
            (Some(mt), clock) => {
                let mut t = u128::from(mt).saturating_sub(overhead);
                if let Some((_, _, cap, _)) = clock {
                    t = t.min(cap);
                }
                (t, t, true, t == 0)
            }
            (None, Some((opt, max, _, usable))) => (opt, max, false, usable == 0),
            (None, None) => return unlimited,
        };

        TimeBudget {
            optimum: Some(to_duration(optimum.max(1))),
            maximum: Some(to_duration(maximum.max(1))),
            fixed,
            at_once,
            ..unlimited
        }
    }

    /// True when there is no time to think (the clock or movetime within
    /// `MoveOverhead`): the search should answer after its first iteration.
    pub fn at_once(&self) -> bool {
        self.at_once
    }

    /// True when no time limit applies (depth/nodes/mate limits are the
    /// search's business).
    pub fn is_unlimited(&self) -> bool {
        self.maximum.is_none()
    }

    /// Soft target: time the search normally aims to use.
    pub fn optimum(&self) -> Option<Duration> {
        self.optimum
    }

    /// Hard limit; the search must be aborted once it is reached.
    pub fn maximum(&self) -> Option<Duration> {
        self.maximum
    }

    /// Elapsed time (since the `go`) at which the search must stop, even
    /// in the middle of an iteration.
    pub fn hard_deadline(&self) -> Option<Duration> {
        self.maximum
    }

    /// Whether iterative deepening should not start another iteration.
    ///
    /// The optimum is scaled by (the figures are the default parameters):
    /// - best-move stability: x1.25 when the best move just changed, down
    ///   by 0.15 per stable iteration to x0.5 after 5 (a settled move is
    ///   unlikely to change with more depth);
    /// - score drop (cp lost versus the previous iterations, positive = got
    ///   worse): x(1 + drop/50), up to x3 at 100 cp (trouble is worth time).
    ///
    /// The result never exceeds the maximum. With `movetime` only the hard
    /// limit applies.
    pub fn should_stop_soft(
        &self,
        elapsed: Duration,
        best_move_stable_iterations: u32,
        score_drop_cp: i32,
    ) -> bool {
        let (Some(optimum), Some(maximum)) = (self.optimum, self.maximum) else {
            return false;
        };
        if elapsed >= maximum {
            return true;
        }
        if self.fixed {
            return false;
        }
        let stable = u128::from(best_move_stable_iterations.min(5));
        let stability_pm = self.stable_start.saturating_sub(self.stable_step * stable);
        let drop_pm = 1_000 + self.drop_scale * score_drop_cp.clamp(0, 100) as u128;
        // No cap at the maximum needed: that case already returned above.
        elapsed.as_micros() >= optimum.as_micros() * stability_pm * drop_pm / 1_000_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::PARAMS;

    fn budget(limits: &Limits, overhead: u64, ply: u32) -> TimeBudget {
        TimeBudget::new(
            limits,
            overhead,
            GameStage::at_ply(ply),
            &SearchParams::default(),
        )
    }

    fn ms(d: Option<Duration>) -> u128 {
        d.expect("budget expected").as_millis()
    }

    fn clock(time: u64, inc: u64) -> Limits {
        Limits {
            time: Some(time),
            inc,
            ..Limits::default()
        }
    }

    /// The invariants every clock budget must satisfy.
    fn check_invariants(limits: &Limits, overhead: u64, ply: u32) -> TimeBudget {
        check_invariants_with(limits, overhead, ply, &SearchParams::default())
    }

    fn check_invariants_with(
        limits: &Limits,
        overhead: u64,
        ply: u32,
        params: &SearchParams,
    ) -> TimeBudget {
        let b = TimeBudget::new(limits, overhead, GameStage::at_ply(ply), params);
        let (opt, max) = (ms(b.optimum()), ms(b.maximum()));
        assert!(opt >= 1 && max >= 1, "{limits:?} {overhead}: zero budget");
        assert!(opt <= max, "{limits:?} {overhead}: opt {opt} > max {max}");
        assert_eq!(b.hard_deadline(), b.maximum());
        if let Some(t) = limits.time {
            let usable = u128::from(t.saturating_sub(overhead)).max(1);
            assert!(max <= usable, "{limits:?} {overhead}: max {max} > {usable}");
        }
        if let Some(mt) = limits.movetime {
            assert!(max <= u128::from(mt.saturating_sub(overhead)).max(1));
        }
        b
    }

    #[test]
    fn no_clock_is_unlimited() {
        let depth_only = Limits {
            depth: Some(10),
            nodes: Some(1000),
            mate: Some(3),
            ..Limits::default()
        };
        for l in [Limits::default(), depth_only] {
            let b = budget(&l, 30, 0);
            assert!(b.is_unlimited());
            assert_eq!(b.hard_deadline(), None);
            assert!(!b.should_stop_soft(Duration::from_secs(1 << 40), 100, 1000));
        }
    }

    #[test]
    fn infinite_and_ponder_override_clock() {
        for (infinite, ponder) in [(true, false), (false, true)] {
            let l = Limits {
                infinite,
                ponder,
                movetime: Some(100),
                ..clock(1000, 10)
            };
            assert!(budget(&l, 10, 0).is_unlimited());
        }
    }

    #[test]
    fn documented_formula_sudden_death() {
        // usable 60000, horizon 60, inc 0: opt 1000, max min(5000, 18000).
        let b = budget(&clock(60_000, 0), 0, 0);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (1000, 5000));
        // Ply 50: horizon 60 - 12 = 48, inc' 900. usable 9900,
        // opt 206 + 720, max min(4630, 2970 + 900, 9900 - 990).
        let b = budget(&clock(10_000, 1000), 100, 50);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (926, 3870));
        // Ply 200, a long game with an increment: horizon 40. opt 247 + 720.
        let b = budget(&clock(10_000, 1000), 100, 200);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (967, 3870));
        // An increment no larger than the overhead still refills the
        // clock: horizon 40, opt 9900 / 40, max min(1235, 2970, 8910).
        let b = budget(&clock(10_000, 10), 100, 200);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (247, 1235));
        // The same without increment: horizon 100 own moves, opt 99,
        // max min(495, 2970, 8910).
        let b = budget(&clock(10_000, 0), 100, 200);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (99, 495));
    }

    #[test]
    fn horizon_shrinks_then_grows_with_game_ply() {
        let l = clock(100_000, 0);
        let at = |ply| ms(budget(&l, 0, ply).optimum());
        // 60, 52, 47 (shrinking to 40), then half the plies: 50, 2000.
        assert_eq!(
            [at(0), at(32), at(52), at(100), at(u32::MAX)],
            [1666, 1923, 2127, 2000, 50]
        );
    }

    /// The case a GUI reported: one minute for the whole game, no
    /// increment, more than 200 moves a side. A fixed horizon of 25 left
    /// the engine 22 ms after 198 moves; spending the soft budget every
    /// move with 2 ms of lag, a second or more must be left, and each move
    /// still gets a slice.
    #[test]
    fn a_long_sudden_death_game_keeps_time_for_its_end() {
        let mut time: i64 = 60_000;
        for mv in 0..198u32 {
            let b = budget(&clock(time as u64, 0), 10, 2 * mv);
            time -= ms(b.optimum()) as i64 + 2;
        }
        let last = ms(budget(&clock(time as u64, 0), 10, 396).optimum());
        assert!(
            time >= 1_000 && last >= 5,
            "{time} ms left, {last} ms a move"
        );
    }

    fn staged(limits: &Limits, ply: u32, plies_left_at_most: Option<u64>) -> TimeBudget {
        let stage = GameStage {
            ply,
            plies_left_at_most,
        };
        TimeBudget::new(limits, 0, stage, &SearchParams::default())
    }

    /// When the rules leave only a few moves, the clock is shared over
    /// them (and the hard share still caps a move); a loose bound changes
    /// nothing.
    #[test]
    fn a_bounded_game_shares_the_clock_over_the_moves_left() {
        let l = clock(60_000, 0);
        let unbounded = staged(&l, 300, None);
        assert_eq!(staged(&l, 300, Some(10_000)), unbounded);
        // 150 own moves played, at most 20 plies left: horizon 10.
        let b = staged(&l, 300, Some(20));
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (6000, 18_000));
        // At most one ply left: horizon 1, capped by the hard share.
        let b = staged(&l, 300, Some(1));
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (18_000, 18_000));
        assert_eq!(staged(&l, 300, Some(0)), b);
    }

    fn stage_of(spec: &str, fen: &str, moves: &[&str]) -> GameStage {
        let rules = Rules::new(crate::rules::Variant::from_spec(spec).unwrap()).unwrap();
        let start = rules.parse_position(fen).unwrap();
        let mut game = Game::from_position(rules, start);
        for mv in moves {
            game.play_text(mv).unwrap();
        }
        GameStage::of(&game)
    }

    #[test]
    fn the_stage_counts_plies_and_bounds_what_no_capture_draw_allows() {
        let start = "6/6/6/6/6 w 12 12 0 1";
        assert_eq!(stage_of("standard", start, &[]), GameStage::at_ply(0));
        assert_eq!(stage_of("standard", start, &["@a1", "@b1"]).ply, 2);
        // A manager sending only the current position: its move number.
        let later = "6/6/6/6/W4B b 11 11 7 31";
        assert_eq!(stage_of("standard", later, &[]).ply, 61);
        // 12 + 12 pieces, one-left: 10 + 10 captures before the last, each
        // followed by at most 100 plies, and 100 - 7 before the first.
        let bounded = stage_of("standard,no_capture_draw=100", later, &[]);
        assert_eq!(bounded.plies_left_at_most, Some(93 + 20 * 100));
        // Two pieces each: the next capture ends the game.
        let two = "6/6/6/6/WW2BB w 0 0 40 90";
        let bounded = stage_of("standard,no_capture_draw=100", two, &[]);
        assert_eq!(bounded.plies_left_at_most, Some(60));
        let capture_all = stage_of("classic,no_capture_draw=100", two, &[]);
        assert_eq!(capture_all.plies_left_at_most, Some(60 + 2 * 100));
    }

    /// `go p1time 23 p2time 4` with black to move and MoveOverhead 10:
    /// nothing left to think with, so the search is told to answer at
    /// once; with the overhead covered, it is not.
    #[test]
    fn a_clock_within_the_overhead_means_answer_at_once() {
        for time in [0, 4, 10] {
            assert!(budget(&clock(time, 0), 10, 0).at_once(), "time {time}");
        }
        assert!(!budget(&clock(11, 0), 10, 0).at_once());
        assert!(!budget(&clock(23, 0), 10, 0).at_once());
        let movetime = |t| Limits {
            movetime: Some(t),
            ..Limits::default()
        };
        assert!(budget(&movetime(10), 10, 0).at_once());
        assert!(!budget(&movetime(11), 10, 0).at_once());
        assert!(!budget(&Limits::default(), 10, 0).at_once());
    }

    #[test]
    fn time_below_overhead_gives_one_ms() {
        for time in [0, 1, 5, 29, 30] {
            let b = check_invariants(&clock(time, 10), 30, 0);
            assert_eq!((ms(b.optimum()), ms(b.maximum())), (1, 1), "time {time}");
        }
        let b = check_invariants(&clock(31, 0), 30, 0);
        assert_eq!(ms(b.maximum()), 1);
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let cases = [
            clock(u64::MAX, 0),
            clock(u64::MAX, u64::MAX),
            clock(0, u64::MAX),
            Limits {
                movestogo: Some(u32::MAX),
                ..clock(u64::MAX, u64::MAX)
            },
            Limits {
                movestogo: Some(1),
                movetime: Some(u64::MAX),
                ..clock(u64::MAX, u64::MAX)
            },
            Limits {
                movetime: Some(u64::MAX),
                ..Limits::default()
            },
        ];
        for l in &cases {
            for overhead in [0, 30, u64::MAX] {
                let b = check_invariants(l, overhead, u32::MAX);
                for stable in [0, u32::MAX] {
                    for drop in [i32::MIN, 0, i32::MAX] {
                        b.should_stop_soft(Duration::MAX, stable, drop);
                        b.should_stop_soft(Duration::ZERO, stable, drop);
                    }
                }
            }
        }
        let b = budget(&clock(u64::MAX, 0), 0, 0);
        assert_eq!(ms(b.optimum()), u128::from(u64::MAX) / 60);
    }

    #[test]
    fn movestogo_one_uses_most_but_not_all_time() {
        let l = Limits {
            movestogo: Some(1),
            ..clock(10_000, 0)
        };
        let b = check_invariants(&l, 50, 0);
        // usable 9950, reserve 995.
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (8955, 8955));
        // The reserve is capped at one second for long thinking times.
        let l = Limits {
            movestogo: Some(1),
            ..clock(100_000, 0)
        };
        assert_eq!(ms(check_invariants(&l, 0, 0).maximum()), 99_000);
    }

    #[test]
    fn movestogo_divides_time_and_zero_means_sudden_death() {
        let with = |n| Limits {
            movestogo: Some(n),
            ..clock(60_000, 0)
        };
        let b = check_invariants(&with(10), 0, 0);
        // opt 6000, max min(30000, 60000 * 37 / 100).
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (6000, 22_200));
        let b2 = check_invariants(&with(2), 0, 0);
        assert_eq!((ms(b2.optimum()), ms(b2.maximum())), (30_000, 39_000));
        assert_eq!(budget(&with(0), 0, 0), budget(&clock(60_000, 0), 0, 0));
    }

    #[test]
    fn increment_larger_than_time_is_capped_by_clock() {
        let b = check_invariants(&clock(100, 1000), 10, 0);
        // usable 90, reserve 9.
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (81, 81));
        let b = check_invariants(&clock(5, 1000), 10, 0);
        assert_eq!(ms(b.maximum()), 1);
    }

    #[test]
    fn movetime_subtracts_overhead() {
        let mt = |t| Limits {
            movetime: Some(t),
            ..Limits::default()
        };
        let b = check_invariants(&mt(1000), 30, 0);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (970, 970));
        for t in [0, 1, 20, 30] {
            let b = check_invariants(&mt(t), 30, 0);
            assert_eq!(ms(b.maximum()), 1, "movetime {t}");
        }
        // Movetime never exceeds what the clock allows.
        let l = Limits {
            movetime: Some(5000),
            ..clock(1000, 0)
        };
        let b = check_invariants(&l, 30, 0);
        assert_eq!(ms(b.maximum()), 873);
    }

    /// The time parameters at their tuning ranges' ends (all low, all
    /// high, and the horizon's floor above its start) keep every budget
    /// inside the clock.
    #[test]
    fn invariants_hold_at_the_ends_of_the_parameter_ranges() {
        let time_params = || PARAMS.iter().filter(|p| p.time_use);
        let mut low = SearchParams::default();
        let mut high = SearchParams::default();
        for p in time_params() {
            low.set(p.name, p.min.into()).unwrap();
            high.set(p.name, p.max.into()).unwrap();
        }
        let mut crossed = high;
        crossed.set("time_horizon", 10).unwrap();
        for params in [low, high, crossed] {
            for time in [0, 1, 10, 31, 999, 60_000] {
                for inc in [0, 10, 1000] {
                    for movestogo in [None, Some(1), Some(40)] {
                        for ply in [0, 40, 400] {
                            let l = Limits {
                                movestogo,
                                ..clock(time, inc)
                            };
                            check_invariants_with(&l, 10, ply, &params);
                        }
                    }
                }
            }
        }
        // The parameters are used: all high spreads the clock over more moves.
        let default = ms(budget(&clock(60_000, 0), 0, 0).optimum());
        let spread =
            ms(TimeBudget::new(&clock(60_000, 0), 0, GameStage::at_ply(0), &high).optimum());
        assert_eq!((default, spread), (1000, 600));
    }

    /// What a budget decides over a few clocks: the budgets and the soft
    /// stop at ten points of the hard budget, settled or not, the score
    /// steady or dropping.
    fn decisions(params: &SearchParams) -> Vec<u128> {
        // The shrinking floor only shows once the long-game share is low.
        let mut short_games = *params;
        short_games.set("time_long_share", 0).unwrap();
        let mut seen = clock_decisions(params);
        seen.extend(clock_decisions(&short_games));
        seen
    }

    fn clock_decisions(params: &SearchParams) -> Vec<u128> {
        let mut seen = Vec::new();
        for (time, inc, movestogo) in [
            (60_000, 0, None),
            (60_000, 1_000, None),
            (10_000, 1_000, None),
            (9_000, 0, Some(3)),
        ] {
            for ply in [0, 200] {
                let l = Limits {
                    movestogo,
                    ..clock(time, inc)
                };
                let b = TimeBudget::new(&l, 0, GameStage::at_ply(ply), params);
                let max = ms(b.maximum());
                seen.extend([ms(b.optimum()), max]);
                for tenth in 1..=10 {
                    let elapsed = Duration::from_millis((max * tenth / 10) as u64);
                    for (stable, drop) in [(0, 0), (5, 0), (2, 100)] {
                        seen.push(u128::from(b.should_stop_soft(elapsed, stable, drop)));
                    }
                }
            }
        }
        seen
    }

    /// Each time-use parameter, moved to the end of its range, changes what
    /// the budget decides (so each one is read).
    #[test]
    fn every_time_parameter_changes_the_budget() {
        let default = decisions(&SearchParams::default());
        for p in PARAMS.iter().filter(|p| p.time_use) {
            for end in [p.min, p.max] {
                let mut moved = SearchParams::default();
                moved.set(p.name, end.into()).unwrap();
                assert_ne!(decisions(&moved), default, "{} = {end}", p.name);
            }
        }
    }

    #[test]
    fn invariants_hold_over_a_grid() {
        let times = [
            0, 1, 9, 10, 11, 30, 31, 50, 100, 999, 1000, 60_000, 3_600_000,
        ];
        let incs = [0, 1, 10, 100, 1000, 100_000];
        let mtgs = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(40),
            Some(1000),
        ];
        let movetimes = [None, Some(0), Some(5), Some(100), Some(10_000)];
        for &time in &times {
            for &inc in &incs {
                for &movestogo in &mtgs {
                    for &movetime in &movetimes {
                        for overhead in [0, 10, 30, 100] {
                            for ply in [0, 40, 400] {
                                let l = Limits {
                                    movestogo,
                                    movetime,
                                    ..clock(time, inc)
                                };
                                check_invariants(&l, overhead, ply);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Bullet game 1 s + 10 ms where the engine always burns its hard limit
    /// and the real lag is within the overhead estimate: the flag must never
    /// fall. The lag also leaves 1 ms of the increment, because a move can't
    /// take 0 ms and a net loss every move flags eventually whatever the budget.
    #[test]
    fn bullet_game_never_flags() {
        for overhead in [10, 20, 30] {
            let lag = overhead.min(10) - 1;
            let mut time: i64 = 1000;
            for ply in 0..1000u32 {
                let b = budget(&clock(time as u64, 10), overhead, 2 * ply);
                let spent = ms(b.maximum()) as i64 + lag as i64;
                time -= spent;
                assert!(time >= 0, "flagged at move {ply} (overhead {overhead})");
                time += 10;
            }
        }
    }

    /// Same game spending the optimum with a real lag of 10 ms: the clock
    /// must not be drained early (a quarter left after 40 moves) while every
    /// move still gets a usable slice of time.
    #[test]
    fn bullet_game_spends_reasonably() {
        for overhead in [10, 20, 30] {
            let mut time: i64 = 1000;
            for mv in 0..40u32 {
                let b = budget(&clock(time as u64, 10), overhead, 2 * mv);
                let opt = ms(b.optimum()) as i64;
                assert!(opt >= 5, "move {mv} gets only {opt} ms");
                time += 10 - opt - 10;
            }
            assert!(
                time >= 250,
                "overhead {overhead}: {time} ms left after 40 moves"
            );
        }
    }

    #[test]
    fn soft_stop_depends_on_stability_and_score_drop() {
        // optimum 1000 ms, maximum 5000 ms.
        let b = budget(&clock(60_000, 0), 0, 0);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (1000, 5000));
        let at = Duration::from_millis;

        // Unstable: target 1250 ms.
        assert!(!b.should_stop_soft(at(1200), 0, 0));
        assert!(b.should_stop_soft(at(1250), 0, 0));
        // Stable for 5+ iterations: target 500 ms.
        assert!(!b.should_stop_soft(at(499), 5, 0));
        assert!(b.should_stop_soft(at(500), 5, 0));
        assert!(b.should_stop_soft(at(500), u32::MAX, 0));
        // Stability is monotone.
        let target = |stable, drop| {
            (1..=6000)
                .find(|&t| b.should_stop_soft(at(t), stable, drop))
                .unwrap()
        };
        for s in 0..6 {
            assert!(target(s + 1, 0) <= target(s, 0));
        }
        // Score rising is not a reason to think longer.
        assert_eq!(target(2, -300), target(2, 0));
        // A drop extends, up to x3 at 100 cp...
        assert_eq!(target(0, 50), 2500);
        assert_eq!(target(0, 100), 3750);
        // ...but never past the maximum.
        assert_eq!(target(0, i32::MAX), 3750);
    }

    #[test]
    fn soft_stop_is_capped_by_maximum() {
        // Sudden death with big increment: optimum close to maximum, so the
        // x3 drop factor must be clipped at the hard limit.
        let b = budget(&clock(1000, 1000), 0, 0);
        let max = b.maximum().unwrap();
        assert!(b.optimum().unwrap() * 3 > max);
        assert!(!b.should_stop_soft(max - Duration::from_millis(1), 0, 100));
        assert!(b.should_stop_soft(max, 0, 100));
    }

    #[test]
    fn movetime_ignores_soft_heuristics() {
        let l = Limits {
            movetime: Some(1000),
            ..Limits::default()
        };
        let b = budget(&l, 0, 0);
        assert!(!b.should_stop_soft(Duration::from_millis(999), 100, 0));
        assert!(b.should_stop_soft(Duration::from_millis(1000), 0, 0));
    }
}
