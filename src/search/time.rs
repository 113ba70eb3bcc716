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
//!          = 40 - min(ply / 4, 15)                otherwise (sudden death;
//!                                                  40 at the start, 25
//!                                                  from ply 60 on:
//!                                                  time_horizon and
//!                                                  time_horizon_min)
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
//! return a move, so when `time <= overhead` the smallest possible budget
//! is the only safe one.
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
use std::time::Duration;

const RESERVE_MAX_MS: u128 = 1_000;
const MAX_HORIZON: u128 = 50;

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
    /// The soft stop's scale, in thousandths: when the best move just
    /// changed, less per stable iteration, more per centipawn dropped.
    stable_start: u128,
    stable_step: u128,
    drop_scale: u128,
}

fn to_duration(ms: u128) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
}

impl TimeBudget {
    /// Computes the budget for the side to move. `ply_of_game` is the number
    /// of half-moves already played; it shortens the sudden-death horizon as
    /// the game progresses.
    ///
    /// `infinite` and `ponder` yield an unlimited budget; on `ponderhit` the
    /// caller should build a new budget with `ponder = false`.
    pub fn new(
        limits: &Limits,
        move_overhead_ms: u64,
        ply_of_game: u32,
        params: &SearchParams,
    ) -> TimeBudget {
        // The parameters' ranges are all non-negative.
        let param = |value: i32| u128::try_from(value).unwrap_or(0);
        let unlimited = TimeBudget {
            optimum: None,
            maximum: None,
            fixed: false,
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
                None => {
                    let start = param(params.time_horizon).max(1);
                    let shrink = (u128::from(ply_of_game) / 4)
                        .min(start.saturating_sub(param(params.time_horizon_min)));
                    (start - shrink, usable * param(params.time_hard_share) / 100)
                }
            };
            let optimum = usable / horizon + inc * param(params.time_inc_share) / 100;
            let maximum = (param(params.time_max_over_optimum) * optimum)
                .min(hard_part + inc)
                .min(cap);
            (optimum.min(maximum), maximum, cap)
        });

        let (optimum, maximum, fixed) = match (limits.movetime, clock) {
            (Some(mt), clock) => {
                let mut t = u128::from(mt).saturating_sub(overhead);
                if let Some((_, _, cap)) = clock {
                    t = t.min(cap);
                }
                (t, t, true)
            }
            (None, Some((opt, max, _))) => (opt, max, false),
            (None, None) => return unlimited,
        };

        TimeBudget {
            optimum: Some(to_duration(optimum.max(1))),
            maximum: Some(to_duration(maximum.max(1))),
            fixed,
            ..unlimited
        }
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
        TimeBudget::new(limits, overhead, ply, &SearchParams::default())
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
        let b = TimeBudget::new(limits, overhead, ply, params);
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
        // usable 60000, horizon 40, inc 0: opt 1500, max min(7500, 18000).
        let b = budget(&clock(60_000, 0), 0, 0);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (1500, 7500));
        // Late game: horizon 25, inc' 900. usable 9900, opt 396 + 720,
        // max min(5580, 2970 + 900, 9900 - 990).
        let b = budget(&clock(10_000, 1000), 100, 200);
        assert_eq!((ms(b.optimum()), ms(b.maximum())), (1116, 3870));
    }

    #[test]
    fn horizon_shrinks_with_game_ply() {
        let l = clock(100_000, 0);
        let opening = ms(budget(&l, 0, 0).optimum());
        let middle = ms(budget(&l, 0, 32).optimum());
        let late = ms(budget(&l, 0, 60).optimum());
        assert_eq!((opening, middle, late), (2500, 3125, 4000));
        assert_eq!(ms(budget(&l, 0, u32::MAX).optimum()), 4000);
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
        assert_eq!(ms(b.optimum()), u128::from(u64::MAX) / 40);
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
        let spread = ms(TimeBudget::new(&clock(60_000, 0), 0, 0, &high).optimum());
        assert_eq!((default, spread), (1500, 600));
    }

    /// What a budget decides over a few clocks: the budgets and the soft
    /// stop at ten points of the hard budget, settled or not, the score
    /// steady or dropping.
    fn decisions(params: &SearchParams) -> Vec<u128> {
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
                let b = TimeBudget::new(&l, 0, ply, params);
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
        let b = budget(&clock(40_000, 0), 0, 0);
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
