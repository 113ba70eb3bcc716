//! The search's tunable numbers: reductions, aspiration windows, the
//! quiescence removal limit and time use, in one typed set with each
//! number's range and SPSA step (`yote spsa`, src/tuning/spsa.rs, tunes them
//! through the match runner; the engine takes them as the `SearchParams`
//! option).
//!
//! Every parameter is an integer, as in Stockfish's `TUNE`: fractions are
//! written in hundredths or thousandths (`lmr_divisor = 225` is 2.25). The
//! defaults are the values the search had as constants before the tuner,
//! or a later pruning's measured setting; `yote bench`'s signature is that
//! of the defaults. A `SearchParams` holds only values inside their
//! ranges: it is built by `default`, `parse` or `set`, never field by
//! field outside the search.
//!
//! `c_end` and `r_end` are Fishtest's SPSA settings per parameter: the
//! perturbation at the end of a run (in the parameter's own units; about
//! what moves the strength by a few Elo) and the learning rate at the end
//! (`a_end = r_end · c_end²`).

use std::fmt;

/// One tunable number: its name (as the option and the tuner spell it),
/// default, range and SPSA settings.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub c_end: f64,
    pub r_end: f64,
    /// Only matters with a clock (`go wtime …`, `movetime`): a tuning at
    /// fixed nodes or depth cannot move it.
    pub time_use: bool,
    field: fn(&mut SearchParams) -> &mut i32,
}

/// Parameters are known by their names.
impl PartialEq for Param {
    fn eq(&self, other: &Param) -> bool {
        self.name == other.name
    }
}

impl Param {
    /// This parameter's value in `params`.
    pub fn get(&self, params: &SearchParams) -> i32 {
        let mut copy = *params;
        *(self.field)(&mut copy)
    }

    /// One row of `PARAMS` as it is written below, with another default:
    /// what the tuner prints for pasting back into this file.
    pub fn source_row(&self, default: i32) -> String {
        format!(
            "    {}: {default} in {}..={}, c_end {:?}, r_end {:?}{};",
            self.name,
            self.min,
            self.max,
            self.c_end,
            self.r_end,
            if self.time_use { ", time" } else { "" }
        )
    }
}

/// Declares the struct and its table from one list, so that a parameter's
/// field, default, range and SPSA settings cannot drift apart.
macro_rules! search_params {
    ($(
        $(#[$doc:meta])*
        $name:ident: $default:literal in $min:literal..=$max:literal,
        c_end $c_end:literal, r_end $r_end:literal $(, $time:ident)?;
    )*) => {
        /// The search's tunable numbers (see the module documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchParams {
            $( $(#[$doc])* pub(crate) $name: i32, )*
        }

        /// Every parameter, in the order the option prints them.
        pub const PARAMS: &[Param] = &[$(
            Param {
                name: stringify!($name),
                default: $default,
                min: $min,
                max: $max,
                c_end: $c_end,
                r_end: $r_end,
                time_use: search_params!(@time $($time)?),
                field: |p| &mut p.$name,
            },
        )*];

        impl Default for SearchParams {
            fn default() -> SearchParams {
                SearchParams { $( $name: $default, )* }
            }
        }
    };
    (@time time) => { true };
    (@time) => { false };
}

search_params! {
    /// Half-width of the first aspiration window, in centipawns.
    aspiration_delta: 30 in 5..=200, c_end 4.0, r_end 0.002;
    /// How much a failed window grows, in percent of its width (100:
    /// doubles). The window opens fully past 32 times its first width.
    aspiration_growth: 100 in 25..=400, c_end 10.0, r_end 0.002;
    /// Late-move reduction `(base + ln depth · ln move / divisor)` plies,
    /// base and divisor in hundredths.
    lmr_base: 50 in -100..=200, c_end 10.0, r_end 0.002;
    lmr_divisor: 225 in 100..=500, c_end 15.0, r_end 0.002;
    /// The least depth at which late moves are reduced.
    lmr_min_depth: 3 in 3..=8, c_end 1.0, r_end 0.002;
    /// Moves searched at full depth before reductions start, at PV nodes
    /// and at the others.
    lmr_pv_moves: 4 in 1..=16, c_end 1.0, r_end 0.002;
    lmr_moves: 2 in 1..=16, c_end 1.0, r_end 0.002;
    /// History points (in 64s) that change a quiet late move's reduction
    /// by one ply, less for a good history and more for a bad one (0: the
    /// reduction ignores history).
    lmr_history: 64 in 0..=1024, c_end 8.0, r_end 0.002;
    /// Reverse futility pruning: at a non-PV node with at most this many
    /// plies left (0: never), a static evaluation above beta by the margin
    /// (centipawns a ply) returns at once.
    rfp_depth: 3 in 0..=8, c_end 1.0, r_end 0.002;
    rfp_margin: 100 in 20..=400, c_end 10.0, r_end 0.002;
    /// Internal iterative reduction: a node with at least this many plies
    /// left and no hash move is searched one ply shallower (0: never).
    iir_depth: 4 in 0..=8, c_end 1.0, r_end 0.002;
    /// How fast the correction history learns, in 256ths of its base
    /// rate ((depth + 1)/256 of the way to what the search found).
    correction_rate: 256 in 64..=1024, c_end 32.0, r_end 0.002;
    /// Removal choices of one jump tried by quiescence (the best by order).
    qs_removals: 2 in 1..=8, c_end 1.0, r_end 0.002;
    /// Sudden death: the moves the clock is shared over at the start of
    /// the game, and the least it shrinks to (one less every 4 plies).
    time_horizon: 60 in 10..=100, c_end 3.0, r_end 0.002, time;
    time_horizon_min: 40 in 5..=100, c_end 2.0, r_end 0.002, time;
    /// Sudden death in a long game: the horizon is at least this percent
    /// of the moves already played (a game that has lasted n moves is
    /// expected to last about n more), so the clock shrinks like 1/n
    /// rather than geometrically.
    time_long_share: 100 in 0..=200, c_end 10.0, r_end 0.002, time;
    /// Percent of the increment added to the soft budget.
    time_inc_share: 80 in 0..=100, c_end 5.0, r_end 0.002, time;
    /// Sudden death: the hard budget's share of the clock, in percent, and
    /// its cap as a multiple of the soft budget.
    time_hard_share: 30 in 10..=60, c_end 3.0, r_end 0.002, time;
    time_max_over_optimum: 5 in 2..=10, c_end 1.0, r_end 0.002, time;
    /// Soft budget scale in thousandths when the best move just changed,
    /// and what each stable iteration (up to five) takes off it.
    time_stable_start: 1250 in 1000..=2500, c_end 60.0, r_end 0.002, time;
    time_stable_step: 150 in 0..=200, c_end 12.0, r_end 0.002, time;
    /// Soft budget added per centipawn the score dropped (up to 100 cp), in
    /// thousandths.
    time_drop_scale: 20 in 0..=60, c_end 3.0, r_end 0.002, time;
}

/// Why a `SearchParams` text was refused; each names the item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// Not `name=value`.
    Malformed(String),
    Unknown(String),
    NotANumber {
        name: String,
        value: String,
    },
    /// An integer outside the parameter's range (kept as written: it may
    /// not even fit an i64).
    OutOfRange {
        name: &'static str,
        value: String,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ParamError::Malformed(item) => {
                write!(f, "search parameter item {item:?} is not name=value")
            }
            ParamError::Unknown(name) => {
                let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
                write!(
                    f,
                    "search parameter {name:?} is unknown (known: {})",
                    names.join(", ")
                )
            }
            ParamError::NotANumber { name, value } => {
                write!(f, "search parameter {name}: {value:?} is not an integer")
            }
            ParamError::OutOfRange { name, value } => {
                let p = find(name).expect("a known parameter");
                write!(
                    f,
                    "search parameter {name}={value} is outside {}..{}",
                    p.min, p.max
                )
            }
        }
    }
}

impl std::error::Error for ParamError {}

/// The parameter called `name`.
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

impl SearchParams {
    /// Reads `name=value` items (separated by commas or spaces) over the
    /// defaults; empty text means the defaults. The first bad item is the
    /// error, and nothing is half-applied.
    pub fn parse(text: &str) -> Result<SearchParams, ParamError> {
        let mut params = SearchParams::default();
        for item in text.split([',', ' ']).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| ParamError::Malformed(item.to_string()))?;
            let p = find(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
            let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ParamError::NotANumber {
                    name: name.to_string(),
                    value: value.to_string(),
                });
            }
            // Too many digits for an i64 is out of range like any other.
            let number = value.parse::<i64>().unwrap_or(i64::MAX);
            params
                .set(p.name, number)
                .map_err(|_| ParamError::OutOfRange {
                    name: p.name,
                    value: value.to_string(),
                })?;
        }
        Ok(params)
    }

    /// Sets one parameter, if `name` is known and `value` in its range.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
        let p = find(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        if value < i64::from(p.min) || value > i64::from(p.max) {
            return Err(ParamError::OutOfRange {
                name: p.name,
                value: value.to_string(),
            });
        }
        *(p.field)(self) = value as i32;
        Ok(())
    }

    /// The value of the parameter called `name`.
    pub fn get(&self, name: &str) -> Option<i32> {
        find(name).map(|p| p.get(self))
    }
}

/// The items that differ from the defaults, as `parse` reads them (empty
/// for the defaults).
impl fmt::Display for SearchParams {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let items: Vec<String> = PARAMS
            .iter()
            .filter(|p| p.get(self) != p.default)
            .map(|p| format!("{}={}", p.name, p.get(self)))
            .collect();
        f.write_str(&items.join(","))
    }
}

/// The parameters with what the search computes from them once per
/// search rather than per node: the late-move reductions in plies by depth
/// and move number (both capped at 63).
pub struct Tuning {
    pub params: SearchParams,
    reductions: [[u8; 64]; 64],
}

impl Tuning {
    pub fn new(params: &SearchParams) -> Tuning {
        let base = f64::from(params.lmr_base) / 100.0;
        let divisor = f64::from(params.lmr_divisor) / 100.0;
        let ln: Vec<f64> = (0..64).map(|n| f64::from(n).ln()).collect();
        let mut reductions = [[0u8; 64]; 64];
        for (d, row) in reductions.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                // `as` saturates: a negative base gives 0, never wraps.
                *r = (base + ln[d] * ln[i] / divisor) as u8;
            }
        }
        Tuning {
            params: *params,
            reductions,
        }
    }

    #[inline(always)]
    pub fn reduction(&self, depth: i32, move_number: usize) -> i32 {
        i32::from(self.reductions[depth.clamp(0, 63) as usize][move_number.min(63)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for p in PARAMS {
            assert!(seen.insert(p.name), "{} twice", p.name);
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
            assert!(p.c_end > 0.0 && p.r_end > 0.0, "{}", p.name);
            // A perturbation that does not fit the range cannot be measured.
            assert!(f64::from(p.max - p.min) >= 2.0 * p.c_end, "{}", p.name);
            assert_eq!(p.get(&SearchParams::default()), p.default);
        }
        // Every field is in the table (the struct is all i32).
        assert_eq!(
            PARAMS.len() * std::mem::size_of::<i32>(),
            std::mem::size_of::<SearchParams>()
        );
    }

    #[test]
    fn parse_sets_items_over_the_defaults_and_prints_them_back() {
        let p = SearchParams::parse("lmr_divisor=180, aspiration_delta=45").unwrap();
        assert_eq!(p.lmr_divisor, 180);
        assert_eq!(p.aspiration_delta, 45);
        assert_eq!(p.qs_removals, 2);
        assert_eq!(p.to_string(), "aspiration_delta=45,lmr_divisor=180");
        assert_eq!(SearchParams::parse(&p.to_string()), Ok(p));
        assert_eq!(SearchParams::parse(""), Ok(SearchParams::default()));
        assert_eq!(SearchParams::default().to_string(), "");
        assert_eq!(SearchParams::parse("lmr_base=-20").unwrap().lmr_base, -20);
        assert_eq!(
            SearchParams::parse("qs_removals=+3").unwrap().qs_removals,
            3
        );
    }

    #[test]
    fn bad_items_are_refused_by_name() {
        let cases = [
            ("lmr_divisor", ParamError::Malformed("lmr_divisor".into())),
            ("nosuch=1", ParamError::Unknown("nosuch".into())),
            (
                "qs_removals=two",
                ParamError::NotANumber {
                    name: "qs_removals".into(),
                    value: "two".into(),
                },
            ),
            (
                "qs_removals=",
                ParamError::NotANumber {
                    name: "qs_removals".into(),
                    value: "".into(),
                },
            ),
            (
                "lmr_divisor=99",
                ParamError::OutOfRange {
                    name: "lmr_divisor",
                    value: "99".into(),
                },
            ),
            (
                "aspiration_delta=-99999999999999999999999",
                ParamError::OutOfRange {
                    name: "aspiration_delta",
                    value: "-99999999999999999999999".into(),
                },
            ),
            (
                "qs_removals=--1",
                ParamError::NotANumber {
                    name: "qs_removals".into(),
                    value: "--1".into(),
                },
            ),
            ("=1", ParamError::Unknown("".into())),
        ];
        for (text, error) in cases {
            assert_eq!(SearchParams::parse(text), Err(error), "{text}");
        }
        assert_eq!(
            ParamError::OutOfRange {
                name: "lmr_divisor",
                value: "99".into()
            }
            .to_string(),
            "search parameter lmr_divisor=99 is outside 100..500"
        );
    }

    #[test]
    fn default_reductions_are_the_old_formula() {
        let t = Tuning::new(&SearchParams::default());
        for d in 1..64 {
            for i in 1..64 {
                let old = (0.5 + (d as f64).ln() * (i as f64).ln() / 2.25) as u8;
                assert_eq!(t.reduction(d, i as usize), i32::from(old));
            }
        }
        assert_eq!(t.reduction(100, 1000), t.reduction(63, 63));
        assert!(t.reduction(63, 63) > 0);
        let low = Tuning::new(&SearchParams::parse("lmr_base=-100").unwrap());
        assert_eq!(low.reduction(2, 2), 0);
    }

    /// Each search parameter, moved to an end of its range, changes what
    /// the bench positions search (so each one is read by the search);
    /// the time-use ones are checked in `time.rs`.
    #[test]
    fn every_search_parameter_changes_the_search() {
        use crate::search::{SearchOptions, Signals, bench};
        let nodes = |depth: u32, params: SearchParams| {
            let options = SearchOptions {
                params,
                ..SearchOptions::default()
            };
            bench::run_with(depth, &options, &Signals::default())
                .unwrap()
                .nodes
        };
        for p in PARAMS.iter().filter(|p| !p.time_use) {
            // How a window grows shows only once it fails twice: rare at
            // the default width, so that one is checked with narrow windows.
            let base = match p.name {
                "aspiration_growth" => SearchParams::parse("aspiration_delta=5").unwrap(),
                _ => SearchParams::default(),
            };
            let before = nodes(6, base);
            // Depth 8 only when depth 6 shows nothing. One end may be the
            // default, or equal to it here (`lmr_moves` 1 is 2 while the
            // reduction of the second move rounds to 0).
            let changes = [p.max, p.min].into_iter().any(|end| {
                let mut moved = base;
                moved.set(p.name, end.into()).unwrap();
                nodes(6, moved) != before || nodes(8, moved) != nodes(8, base)
            });
            assert!(changes, "{}", p.name);
        }
    }

    /// Internal iterative reduction needs the hash table: with `-tt` the
    /// search is the same whatever `iir_depth` says.
    #[test]
    fn iir_is_off_without_the_hash_table() {
        use crate::search::{SearchOptions, Signals, bench};
        let nodes = |tt: bool, iir_depth: i64| {
            let mut params = SearchParams::default();
            params.set("iir_depth", iir_depth).unwrap();
            let mut options = SearchOptions {
                params,
                ..SearchOptions::default()
            };
            options.features.tt = tt;
            bench::run_with(6, &options, &Signals::default())
                .unwrap()
                .nodes
        };
        assert_ne!(nodes(true, 4), nodes(true, 0));
        assert_eq!(nodes(false, 4), nodes(false, 0));
    }

    #[test]
    fn source_rows_read_like_the_table() {
        let p = find("lmr_divisor").unwrap();
        assert_eq!(
            p.source_row(219),
            "    lmr_divisor: 219 in 100..=500, c_end 15.0, r_end 0.002;"
        );
        assert!(
            find("time_inc_share")
                .unwrap()
                .source_row(80)
                .ends_with(", time;")
        );
    }
}
