//! Match statistics for engine-vs-engine tournaments.
//!
//! Conventions follow fishtest / fastchess / cutechess so that numbers can be
//! compared with those tools: every score is from engine A's point of view,
//! Elo is logistic, and 95% intervals use the normal approximation.
//!
//! Two sample models are offered. [`Trinomial`] treats each game as an
//! independent sample. [`Pentanomial`] treats each colour-swapped pair of
//! games as one sample; because both games of a pair share an opening they are
//! correlated, and ignoring that correlation (the trinomial model) misstates
//! the variance. With balanced openings it usually overstates it, so the
//! pentanomial interval is the narrower, more honest one.
//!
//! Edge cases are reported, never panicked on:
//! * no games: Elo estimates are `None`, LOS is 0.5, SPRT LLR is ~0;
//! * a score of exactly 0 or 1: Elo is `-inf` / `+inf` (`f64` infinities)
//!   and the error bar is `inf`, printed as `inf` by the summaries.

/// Two-sided 95% quantile of the standard normal distribution.
use crate::client::records::GameResult;

const Z_95: f64 = 1.959_963_984_540_054;

/// Count given to empty bins before computing the SPRT LLR.
///
/// fastchess's and fishtest's `regularize` does exactly this (zero bins only,
/// other bins untouched). Without it the maximum-likelihood distribution
/// under H0 or H1 could need mass on an outcome never seen, and the LLR
/// would be infinite.
const EMPTY_BIN_COUNT: f64 = 1e-3;

/// `800 / ln 10`: converts a normalised score difference into nElo.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// Result of one game from engine A's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    /// White's outcome of a game; `None` while it is unfinished.
    pub fn of_white(result: GameResult) -> Option<Outcome> {
        match result {
            GameResult::WhiteWins => Some(Outcome::Win),
            GameResult::BlackWins => Some(Outcome::Loss),
            GameResult::Draw => Some(Outcome::Draw),
            GameResult::Unfinished => None,
        }
    }

    /// The same game from the other engine's side.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// Points scored by A, doubled so that they stay integral.
    fn half_points(self) -> usize {
        match self {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        }
    }
}

/// Per-game win/draw/loss counts of engine A against engine B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trinomial {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Counts of colour-swapped game pairs by A's pair score
/// (index 0..=4 ↔ 0, 0.5, 1, 1.5, 2 points).
///
/// Index 2 lumps together two draws and a win plus a loss, as fishtest does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

/// Elo difference (A minus B) with a 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Sequential probability ratio test of H0: `elo == elo0` against
/// H1: `elo == elo1`, with Elo in the unit of `model`.
///
/// Expected: `elo0 < elo1` and `alpha`, `beta` in (0, 1); typical fishtest
/// settings are `{ elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05 }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: SprtModel,
}

/// What the SPRT's Elo bounds are measured in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SprtModel {
    /// Logistic Elo: the hypotheses fix the expected score.
    #[default]
    Logistic,
    /// Normalised Elo (nElo): the hypotheses fix the expected score's
    /// distance from 0.5 in standard deviations, so the bounds mean the same
    /// whatever the draw rate (fishtest's and fastchess's `normalized`).
    Normalized,
}

impl SprtModel {
    pub fn name(self) -> &'static str {
        match self {
            SprtModel::Logistic => "logistic",
            SprtModel::Normalized => "normalized",
        }
    }
}

/// Which hypothesis an SPRT accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    H0,
    H1,
}

/// Outcome of evaluating an [`Sprt`] on the current counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtResult {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `None` while the test should continue.
    pub decision: Option<Hypothesis>,
    /// The test that produced this result, kept for [`SprtResult::summary`].
    pub sprt: Sprt,
}

/// Converts an expected score in [0, 1] to a logistic Elo difference.
///
/// Scores of 0 and 1 (and anything beyond, which sampling noise in an
/// interval bound can produce) map to `-inf` / `+inf` rather than NaN.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Same as -400 log10(1/s - 1), but yields +0.0 rather than -0.0 at
        // s = 0.5 so that summaries print "+0.0".
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// Expected score for a logistic Elo difference; inverse of [`elo_from_score`].
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Trinomial {
    /// Scores of a game from A's point of view, in the order of `counts()`.
    const VALUES: [f64; 3] = [0.0, 0.5, 1.0];

    pub fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win => self.wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Loss => self.losses += 1,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// A's points: a win 1, a draw a half.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Elo estimate using per-game variance; `None` before the first game.
    pub fn elo(&self) -> Option<EloEstimate> {
        Moments::of(&Self::VALUES, &self.counts()).map(|m| m.elo_estimate())
    }

    /// Likelihood of superiority, Phi((mean - 0.5) / standard error), with
    /// the per-game variance (fastchess); 0.5 when there is no information.
    pub fn los(&self) -> f64 {
        los(Moments::of(&Self::VALUES, &self.counts()))
    }

    /// Normalised Elo with its 95% interval: the score's distance from 0.5
    /// in per-game standard deviations, times 800 / ln 10.
    pub fn nelo(&self) -> Option<EloEstimate> {
        Moments::of(&Self::VALUES, &self.counts()).map(|m| m.nelo_estimate(1.0))
    }

    /// E.g. `Elo +12.3 ± 8.1 (95%), nElo +17.0 ± 11.3, LOS 99.1%, games 400
    /// (W 150 D 100 L 150)`.
    pub fn summary(&self) -> String {
        format!(
            "{}, {}, LOS {:.1}%, games {} (W {} D {} L {})",
            elo_text(self.elo(), self.points(), self.games()),
            format_nelo(self.nelo()),
            100.0 * self.los(),
            self.games(),
            self.wins,
            self.draws,
            self.losses
        )
    }

    fn counts(&self) -> [f64; 3] {
        [self.losses as f64, self.draws as f64, self.wins as f64]
    }
}

impl Pentanomial {
    /// Per-game normalised pair scores, so that means are comparable with
    /// per-game expected scores (as in fishtest).
    const VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

    /// Records the two games of one opening, in either order.
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        self.0[first.half_points() + second.half_points()] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Elo estimate using per-pair variance; `None` before the first pair.
    pub fn elo(&self) -> Option<EloEstimate> {
        Moments::of(&Self::VALUES, &self.counts()).map(|m| m.elo_estimate())
    }

    /// Likelihood of superiority, Phi((mean - 0.5) / standard error), using
    /// the per-pair variance; 0.5 when there is no information.
    pub fn los(&self) -> f64 {
        los(Moments::of(&Self::VALUES, &self.counts()))
    }

    /// Normalised Elo with its 95% interval: the per-game normalised score's
    /// distance from 0.5 in units of sqrt(2) times the per-pair standard
    /// deviation (fastchess, fishtest), times 800 / ln 10.
    pub fn nelo(&self) -> Option<EloEstimate> {
        Moments::of(&Self::VALUES, &self.counts())
            .map(|m| m.nelo_estimate(std::f64::consts::SQRT_2))
    }

    /// E.g. `Elo +12.3 ± 6.0 (95%), nElo +20.1 ± 9.8, LOS 99.9%, pairs 200
    /// [10, 40, 80, 50, 20]`.
    pub fn summary(&self) -> String {
        let [a, b, c, d, e] = self.0;
        // A pair's bin is its half-points: 0 to 4.
        let points = (b + 2 * c + 3 * d + 4 * e) as f64 / 2.0;
        format!(
            "{}, {}, LOS {:.1}%, pairs {} [{a}, {b}, {c}, {d}, {e}]",
            elo_text(self.elo(), points, 2 * self.pairs()),
            format_nelo(self.nelo()),
            100.0 * self.los(),
            self.pairs()
        )
    }

    fn counts(&self) -> [f64; 5] {
        self.0.map(|c| c as f64)
    }
}

impl EloEstimate {
    /// Half-width of the interval, the "±" figure cutechess prints.
    ///
    /// Infinite whenever either bound is, including the degenerate perfect
    /// score where both bounds are `+inf` and plain subtraction gives NaN.
    pub fn error(&self) -> f64 {
        if self.lower.is_finite() && self.upper.is_finite() {
            (self.upper - self.lower) / 2.0
        } else {
            f64::INFINITY
        }
    }
}

impl Sprt {
    /// (lower, upper) LLR bounds: ln(beta / (1 - alpha)), ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Evaluates the test treating games as independent.
    pub fn trinomial(&self, counts: &Trinomial) -> SprtResult {
        self.evaluate(&Trinomial::VALUES, &counts.counts(), 1.0)
    }

    /// Evaluates the test on game pairs, as fishtest and fastchess do for
    /// paired openings.
    pub fn pentanomial(&self, counts: &Pentanomial) -> SprtResult {
        self.evaluate(
            &Pentanomial::VALUES,
            &counts.counts(),
            std::f64::consts::SQRT_2,
        )
    }

    /// The generalised log-likelihood ratio, exact: the sample's empirical
    /// distribution against the most likely distribution under each
    /// hypothesis (Van den Bergh, "Comments on normalized Elo", prop. 1.1 for
    /// a fixed mean, section 4.1 for a fixed normalised mean), which is what
    /// fastchess and fishtest compute. `nelo_per_sample` converts nElo into
    /// the per-sample t of the normalised model (sqrt 2 for a pair).
    fn evaluate(&self, values: &[f64], counts: &[f64], nelo_per_sample: f64) -> SprtResult {
        let regularised: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0.0 { EMPTY_BIN_COUNT } else { c })
            .collect();
        let n: f64 = regularised.iter().sum();
        let observed: Vec<f64> = regularised.iter().map(|c| c / n).collect();
        let fitted = |elo: f64| match self.model {
            SprtModel::Logistic => mle_with_mean(values, &observed, score_from_elo(elo)),
            SprtModel::Normalized => {
                mle_with_normalised_mean(values, &observed, nelo_per_sample * elo / NELO_SCALE)
            }
        };
        let (p0, p1) = (fitted(self.elo0), fitted(self.elo1));
        let llr = n * observed
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(o, (a, b))| o * (b.ln() - a.ln()))
            .sum::<f64>();
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        };
        SprtResult {
            llr,
            lower,
            upper,
            decision,
            sprt: *self,
        }
    }
}

/// The distribution over `values` closest to `observed` (maximum
/// likelihood) whose mean is `mean`: p_i = q_i / (1 + theta (a_i - mean)),
/// with theta the root of sum q_i (a_i - mean) / (1 + theta (a_i - mean)).
/// The root lies where every denominator is positive, and the function
/// decreases there, so bisection finds it.
fn mle_with_mean(values: &[f64], observed: &[f64], mean: f64) -> Vec<f64> {
    let shifted: Vec<f64> = values.iter().map(|a| a - mean).collect();
    let theta = root_of_constraint(&shifted, observed);
    observed
        .iter()
        .zip(&shifted)
        .map(|(q, d)| q / (1.0 + theta * d))
        .collect()
}

/// The distribution over `values` closest to `observed` with
/// (mean - 0.5) / sd = t: the fixed-point iteration of Van den Bergh's
/// section 4.1, each step a [`root_of_constraint`] on
/// phi_i = a_i - 0.5 - t sd (1 + ((a_i - mean) / sd)^2) / 2.
fn mle_with_normalised_mean(values: &[f64], observed: &[f64], t: f64) -> Vec<f64> {
    let mut p = vec![1.0 / values.len() as f64; values.len()];
    for _ in 0..1000 {
        let m = Moments::of(values, &p).expect("a distribution has mass");
        let sd = m.variance.sqrt();
        let phi: Vec<f64> = values
            .iter()
            .map(|a| a - 0.5 - 0.5 * t * sd * (1.0 + ((a - m.mean) / sd).powi(2)))
            .collect();
        let theta = root_of_constraint(&phi, observed);
        let next: Vec<f64> = observed
            .iter()
            .zip(&phi)
            .map(|(q, f)| q / (1.0 + theta * f))
            .collect();
        let change = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if change < 1e-10 {
            break;
        }
    }
    p
}

/// The theta in (-1 / max d, -1 / min d) where
/// sum q_i d_i / (1 + theta d_i) = 0, by bisection to machine precision.
/// The d_i must straddle zero, which holds for every hypothesis strictly
/// inside the range of the values.
fn root_of_constraint(d: &[f64], q: &[f64]) -> f64 {
    let f = |theta: f64| {
        d.iter()
            .zip(q)
            .map(|(d, q)| q * d / (1.0 + theta * d))
            .sum::<f64>()
    };
    let max = d.iter().copied().fold(f64::MIN, f64::max);
    let min = d.iter().copied().fold(f64::MAX, f64::min);
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    // f decreases from +inf at lo to -inf at hi.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl SprtResult {
    /// E.g. `LLR 1.23 (-2.94, 2.94) [0, 5]`, plus ` H0 accepted` /
    /// ` H1 accepted` once decided.
    pub fn summary(&self) -> String {
        let verdict = match self.decision {
            None => "",
            Some(Hypothesis::H0) => " H0 accepted",
            Some(Hypothesis::H1) => " H1 accepted",
        };
        let unit = match self.sprt.model {
            SprtModel::Logistic => "",
            SprtModel::Normalized => " nElo",
        };
        format!(
            "LLR {:.2} ({:.2}, {:.2}) [{}, {}]{unit}{verdict}",
            self.llr, self.lower, self.upper, self.sprt.elo0, self.sprt.elo1
        )
    }
}

/// Sample size, mean and (population) variance of a discrete distribution
/// given as parallel value / count slices.
struct Moments {
    n: f64,
    mean: f64,
    variance: f64,
}

impl Moments {
    fn of(values: &[f64], counts: &[f64]) -> Option<Moments> {
        let n: f64 = counts.iter().sum();
        if n <= 0.0 {
            return None;
        }
        let mean = values.iter().zip(counts).map(|(v, c)| v * c).sum::<f64>() / n;
        let variance = values
            .iter()
            .zip(counts)
            .map(|(v, c)| c * (v - mean).powi(2))
            .sum::<f64>()
            / n;
        Some(Moments { n, mean, variance })
    }

    fn standard_error(&self) -> f64 {
        (self.variance / self.n).sqrt()
    }

    /// The interval is built in score space and then mapped through the Elo
    /// curve, so it is asymmetric in Elo, as in cutechess / fastchess.
    fn elo_estimate(&self) -> EloEstimate {
        let margin = Z_95 * self.standard_error();
        EloEstimate {
            elo: elo_from_score(self.mean),
            lower: elo_from_score(self.mean - margin),
            upper: elo_from_score(self.mean + margin),
        }
    }

    /// nElo of the mean and of the interval's ends; `spread` is how many
    /// sample standard deviations make one per-game deviation (sqrt 2 for
    /// pairs). A sample without spread has no nElo (infinite).
    fn nelo_estimate(&self, spread: f64) -> EloEstimate {
        let sd = spread * self.variance.sqrt();
        let nelo = |score: f64| {
            let d = score - 0.5;
            if sd > 0.0 {
                d / sd * NELO_SCALE
            } else if d == 0.0 {
                0.0
            } else {
                d.signum() * f64::INFINITY
            }
        };
        let margin = Z_95 * self.standard_error();
        EloEstimate {
            elo: nelo(self.mean),
            lower: nelo(self.mean - margin),
            upper: nelo(self.mean + margin),
        }
    }
}

/// Phi((mean - 0.5) / se); certain when the sample has no spread.
fn los(moments: Option<Moments>) -> f64 {
    let Some(m) = moments else { return 0.5 };
    let deviation = m.mean - 0.5;
    let se = m.standard_error();
    if se > 0.0 {
        normal_cdf(deviation / se)
    } else if deviation > 0.0 {
        1.0
    } else if deviation < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// The Elo estimate as people read it: `Elo +12.3 ± 8.1 (95%)`, or, when
/// the interval is unbounded (a one-sided result such as 3/3, or too few
/// games for the normal approximation), the score and the bound the Wilson
/// score interval gives, which stays finite at a score of 0 or 1:
/// `Elo: too few games / one-sided result, score 3 of 3 (100.0%), Elo > -42.9
/// (95%)`. `points` and `games` are A's.
pub fn elo_text(estimate: Option<EloEstimate>, points: f64, games: u64) -> String {
    let Some(e) = estimate else {
        return "Elo n/a".to_string();
    };
    if e.elo.is_finite() && e.error().is_finite() {
        return format!("Elo {:+.1} ± {:.1} (95%)", e.elo, e.error());
    }
    let (low, high) = wilson_interval(points, games as f64);
    let (low, high) = (elo_from_score(low), elo_from_score(high));
    let bound = match (low.is_finite(), high.is_finite()) {
        (true, true) => format!("Elo between {low:+.1} and {high:+.1}"),
        (true, false) => format!("Elo > {low:+.1}"),
        (false, true) => format!("Elo < {high:+.1}"),
        (false, false) => "no bound".to_string(),
    };
    let score = if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    };
    // "of", not "/": the crosstable's cells are points/games.
    format!(
        "Elo: too few games / one-sided result, score {score} of {games} ({:.1}%), {bound} (95%)",
        100.0 * points / games as f64
    )
}

/// The Wilson score interval (95%) of `points` out of `games`, each game a
/// trial: unlike the normal approximation it is never empty at a score of
/// 0 or 1, and its ends reach 0 and 1 only there.
fn wilson_interval(points: f64, games: f64) -> (f64, f64) {
    let s = points / games;
    let z2 = Z_95 * Z_95;
    let centre = s + z2 / (2.0 * games);
    let spread = Z_95 * (s * (1.0 - s) / games + z2 / (4.0 * games * games)).sqrt();
    let scale = 1.0 + z2 / games;
    // Exactly 0 and 1 at the ends, where rounding would give 1e-17 off.
    let low = if points <= 0.0 {
        0.0
    } else {
        (centre - spread) / scale
    };
    let high = if points >= games {
        1.0
    } else {
        (centre + spread) / scale
    };
    (low.max(0.0), high.min(1.0))
}

fn format_nelo(estimate: Option<EloEstimate>) -> String {
    match estimate {
        Some(e) if e.elo.is_finite() && e.error().is_finite() => {
            format!("nElo {:+.1} ± {:.1}", e.elo, e.error())
        }
        _ => "nElo n/a".to_string(),
    }
}

/// Standard normal CDF.
fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function; std has none. Chebyshev-fitted formula from
/// Numerical Recipes (`erfcc`), relative error below 1.2e-7 everywhere, far
/// finer than the one decimal place LOS is reported with.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected} ± {tolerance}, got {actual}"
        );
    }

    const FISHTEST: Sprt = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: SprtModel::Logistic,
    };

    fn test(elo0: f64, elo1: f64, model: SprtModel) -> Sprt {
        Sprt {
            elo0,
            elo1,
            model,
            ..FISHTEST
        }
    }

    #[test]
    fn elo_from_score_known_values() {
        assert_eq!(elo_from_score(0.5), 0.0);
        // -400 log10(1/0.6 - 1) = 400 log10(1.5) = 70.437
        assert_close(elo_from_score(0.6), 70.437, 1e-3);
        // 400 log10(3) = 190.849
        assert_close(elo_from_score(0.75), 190.849, 1e-3);
        assert_close(elo_from_score(0.25), -190.849, 1e-3);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(1.2), f64::INFINITY);
        assert_close(score_from_elo(elo_from_score(0.37)), 0.37, 1e-12);
    }

    #[test]
    fn normal_cdf_known_values() {
        assert_close(normal_cdf(0.0), 0.5, 1e-7);
        assert_close(normal_cdf(1.0), 0.841_344_746, 1e-7);
        assert_close(normal_cdf(-1.0), 0.158_655_254, 1e-7);
        assert_close(normal_cdf(Z_95), 0.975, 1e-7);
        assert_close(normal_cdf(2.0), 0.977_249_868, 1e-7);
    }

    #[test]
    fn equal_wins_and_losses_give_zero_elo_and_symmetric_interval() {
        let t = Trinomial {
            wins: 150,
            draws: 100,
            losses: 150,
        };
        let e = t.elo().unwrap();
        assert_close(e.elo, 0.0, 1e-12);
        assert_close(e.lower, -e.upper, 1e-9);
    }

    #[test]
    fn trinomial_interval_known_value() {
        // W 150 D 100 L 150: score 0.5, per-game variance
        // (150*0.25 + 150*0.25) / 400 = 0.1875, se = sqrt(0.1875/400) = 0.0216506,
        // upper score = 0.5 + 1.959964*0.0216506 = 0.5424344,
        // upper Elo = -400 log10(1/0.5424344 - 1) = 29.558.
        let e = Trinomial {
            wins: 150,
            draws: 100,
            losses: 150,
        }
        .elo()
        .unwrap();
        assert_close(e.upper, 29.558, 1e-2);
        assert_close(e.error(), 29.558, 1e-2);
    }

    #[test]
    fn sixty_percent_score_is_plus_70_elo() {
        let t = Trinomial {
            wins: 50,
            draws: 20,
            losses: 30,
        };
        assert_close(t.elo().unwrap().elo, 70.437, 1e-3);
        let mut p = Pentanomial::default();
        // 1 WW pair + 4 DD pairs: mean (1 + 4*0.5) / 5 = 0.6.
        p.add_pair(Outcome::Win, Outcome::Win);
        for _ in 0..4 {
            p.add_pair(Outcome::Draw, Outcome::Draw);
        }
        assert_close(p.elo().unwrap().elo, 70.437, 1e-3);
    }

    #[test]
    fn add_pair_bins_by_total_points_in_either_order() {
        let mut p = Pentanomial::default();
        p.add_pair(Outcome::Loss, Outcome::Loss);
        p.add_pair(Outcome::Draw, Outcome::Loss);
        p.add_pair(Outcome::Win, Outcome::Loss);
        p.add_pair(Outcome::Draw, Outcome::Draw);
        p.add_pair(Outcome::Draw, Outcome::Win);
        p.add_pair(Outcome::Win, Outcome::Win);
        assert_eq!(p.0, [1, 1, 2, 1, 1]);
        assert_eq!(p.pairs(), 6);
    }

    #[test]
    fn pentanomial_interval_narrower_when_pairs_are_correlated() {
        // Mostly win-loss pairs: each opening favours one colour. Counted per
        // game that looks like a high-variance 90/20/90 result; per pair most
        // samples sit exactly on 1 point.
        //   trinomial: var = 180*0.25/200 = 0.225,  se = sqrt(0.225/200) = 0.03354
        //   pentanomial: var = 2*(0.05*0.25 + 0.1*0.0625) = 0.0375,
        //                se = sqrt(0.0375/100) = 0.01936
        let p = Pentanomial([5, 10, 70, 10, 5]);
        let t = Trinomial {
            wins: 70 + 10 + 2 * 5,
            draws: 10 + 10,
            losses: 70 + 10 + 2 * 5,
        };
        assert_eq!(t.games(), 2 * p.pairs());
        let pe = p.elo().unwrap();
        let te = t.elo().unwrap();
        assert_close(pe.elo, te.elo, 1e-12);
        assert!(pe.error() < 0.7 * te.error(), "{pe:?} vs {te:?}");
        // Upper bounds from the se values above: 0.5 + 1.959964*se in Elo.
        assert_close(te.upper, elo_from_score(0.5 + Z_95 * 0.033_541), 1e-2);
        assert_close(pe.upper, elo_from_score(0.5 + Z_95 * 0.019_365), 1e-2);
    }

    #[test]
    fn los_known_values() {
        // W 60 D 100 L 40: mean 0.55, var 0.1225, se = sqrt(0.1225/200),
        // z = 0.05 / 0.0247487 = 2.020305 -> Phi = 0.978324 (fastchess's
        // per-game-variance formula; scripts/match/match_stats_reference.py).
        let t = Trinomial {
            wins: 60,
            draws: 100,
            losses: 40,
        };
        assert_close(t.los(), 0.978_324, 1e-6);
        assert_eq!(Trinomial::default().los(), 0.5);
        let level = Trinomial {
            wins: 7,
            draws: 3,
            losses: 7,
        };
        // erfc is accurate to ~1e-7, not to machine precision.
        assert_close(level.los(), 0.5, 2e-7);
        // Pentanomial [0, 0, 0, 4, 0]: every pair 1.5, zero variance.
        assert_eq!(Pentanomial([0, 0, 0, 4, 0]).los(), 1.0);
        assert_eq!(Pentanomial::default().los(), 0.5);
        // [5, 20, 40, 25, 10]: mean 0.5375, var 0.06421875 (see SPRT test),
        // z = 0.0375 / sqrt(0.06421875/100) = 1.47980 -> Phi = 0.9305355.
        assert_close(Pentanomial([5, 20, 40, 25, 10]).los(), 0.930_535_5, 1e-6);
    }

    #[test]
    fn sprt_bounds() {
        let (lower, upper) = FISHTEST.bounds();
        // ln(0.05/0.95) = -2.944439
        assert_close(lower, -2.944_439, 1e-6);
        assert_close(upper, 2.944_439, 1e-6);
    }

    /// Every value below is printed by scripts/match/match_stats_reference.py, an
    /// independent implementation of the published formulas.
    #[test]
    fn sprt_llr_matches_the_published_formulas() {
        use SprtModel::{Logistic, Normalized};
        let penta = [
            // The case: the old normal approximation gave 1365.
            ([0, 0, 0, 0, 19], 0.0, 10.0, 0.539_051, 0.757_460),
            ([5, 20, 40, 25, 10], 0.0, 5.0, 0.374_955, 0.278_310),
            ([100, 400, 800, 500, 200], 0.0, 5.0, 7.499_105, 5.566_193),
            ([200, 500, 800, 400, 100], 0.0, 5.0, -9.040_144, -6.387_283),
            // Eleven split pairs: the approximation gave below -20.
            ([0, 0, 11, 0, 0], 0.0, 10.0, -0.314_897, -0.015_206),
            ([13, 61, 133, 77, 16], -1.0, 3.0, 0.549_590, 0.368_648),
        ];
        for (counts, elo0, elo1, logistic, normalized) in penta {
            let p = Pentanomial(counts);
            assert_close(
                test(elo0, elo1, Logistic).pentanomial(&p).llr,
                logistic,
                1e-5,
            );
            assert_close(
                test(elo0, elo1, Normalized).pentanomial(&p).llr,
                normalized,
                1e-5,
            );
        }
        let tri = [
            ((60, 100, 40), 0.0, 5.0, 0.534_944, 0.386_431),
            ((216, 203, 181), 0.0, 10.0, 1.147_530, 0.990_024),
        ];
        for ((wins, draws, losses), elo0, elo1, logistic, normalized) in tri {
            let t = Trinomial {
                wins,
                draws,
                losses,
            };
            assert_close(test(elo0, elo1, Logistic).trinomial(&t).llr, logistic, 1e-5);
            assert_close(
                test(elo0, elo1, Normalized).trinomial(&t).llr,
                normalized,
                1e-5,
            );
        }
    }

    #[test]
    fn nelo_matches_the_published_formulas() {
        // (mean - 0.5) / (sqrt 2 * sd_pair) * 800 / ln 10, the interval's ends
        // likewise (scripts/match/match_stats_reference.py).
        let p = Pentanomial([5, 20, 40, 25, 10]).nelo().unwrap();
        assert_close(p.elo, 36.354_623, 1e-5);
        assert_close(p.error(), 48.151_231, 1e-5);
        let p = Pentanomial([13, 61, 133, 77, 16]);
        assert_close(p.nelo().unwrap().elo, 19.642_111, 1e-5);
        assert_close(p.elo().unwrap().elo, 12.745_019, 1e-5);
        assert_close(p.elo().unwrap().error(), 18.070_975, 1e-5);
        assert_close(p.los(), 0.916_944, 1e-6);
        let t = Trinomial {
            wins: 216,
            draws: 203,
            losses: 181,
        };
        assert_close(t.nelo().unwrap().elo, 24.979_922, 1e-5);
        assert_close(t.nelo().unwrap().error(), 27.800_126, 1e-5);
        assert_close(t.elo().unwrap().error(), 22.664_641, 1e-5);
    }

    #[test]
    fn sprt_regularises_empty_bins() {
        let early = FISHTEST.trinomial(&Trinomial {
            wins: 3,
            draws: 0,
            losses: 0,
        });
        assert!(early.llr.is_finite() && early.llr > 0.0, "{early:?}");
        let none = FISHTEST.pentanomial(&Pentanomial::default());
        assert!(none.llr.is_finite(), "{none:?}");
        assert_eq!(none.decision, None);
    }

    #[test]
    fn sprt_decisions() {
        let strong = FISHTEST.pentanomial(&Pentanomial([100, 400, 800, 500, 200]));
        assert!(strong.llr > strong.upper);
        assert_eq!(strong.decision, Some(Hypothesis::H1));
        let weak = FISHTEST.pentanomial(&Pentanomial([200, 500, 800, 400, 100]));
        assert!(weak.llr < weak.lower);
        assert_eq!(weak.decision, Some(Hypothesis::H0));
        // Degenerate early samples no longer decide: one won pair, or eleven
        // split pairs, stay well inside the bounds.
        let ten = test(0.0, 10.0, SprtModel::Logistic);
        assert_eq!(
            ten.pentanomial(&Pentanomial([0, 0, 0, 0, 1])).decision,
            None
        );
        assert_eq!(
            ten.pentanomial(&Pentanomial([0, 0, 11, 0, 0])).decision,
            None
        );
    }

    #[test]
    fn summaries() {
        let t = Trinomial {
            wins: 150,
            draws: 100,
            losses: 150,
        };
        assert_eq!(
            t.summary(),
            "Elo +0.0 ± 29.6 (95%), nElo +0.0 ± 34.0, LOS 50.0%, games 400 (W 150 D 100 L 150)"
        );
        assert_eq!(
            Pentanomial::default().summary(),
            "Elo n/a, nElo n/a, LOS 50.0%, pairs 0 [0, 0, 0, 0, 0]"
        );
        let r = FISHTEST.pentanomial(&Pentanomial([5, 20, 40, 25, 10]));
        assert_eq!(r.summary(), "LLR 0.37 (-2.94, 2.94) [0, 5]");
        let odd = test(-1.5, 2.5, SprtModel::Normalized);
        let decided = odd.pentanomial(&Pentanomial([100, 400, 800, 500, 200]));
        assert!(decided.summary().starts_with("LLR "));
        assert!(
            decided.summary().ends_with(" [-1.5, 2.5] nElo H1 accepted"),
            "{}",
            decided.summary()
        );
    }

    #[test]
    fn perfect_scores_do_not_panic() {
        let all_wins = Trinomial {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        let e = all_wins.elo().unwrap();
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.error(), f64::INFINITY);
        let all_losses = Pentanomial([3, 0, 0, 0, 0]).elo().unwrap();
        assert_eq!(all_losses.elo, f64::NEG_INFINITY);
        assert!(Trinomial::default().elo().is_none());
    }

    /// Issue 40 item 7: `yote match` printed `Elo -inf ± inf (95%)` or
    /// `-381.7 ± inf` with no word of why.
    #[test]
    fn one_sided_and_tiny_results_say_so_with_a_bound() {
        let all_wins = Trinomial {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        assert_eq!(
            all_wins.summary(),
            "Elo: too few games / one-sided result, score 10 of 10 (100.0%), Elo > +166.2 (95%), \
             nElo n/a, LOS 100.0%, games 10 (W 10 D 0 L 0)"
        );
        let all_losses = Pentanomial([3, 0, 0, 0, 0]).summary();
        assert!(
            all_losses
                .starts_with("Elo: too few games / one-sided result, score 0 of 6 (0.0%), Elo < -"),
            "{all_losses}"
        );
        let tiny = Trinomial {
            wins: 1,
            draws: 0,
            losses: 1,
        };
        for text in [tiny.summary(), Pentanomial([1, 0, 0, 1, 0]).summary()] {
            assert!(!text.contains("inf"), "{text}");
            assert!(text.contains("too few games / one-sided result"), "{text}");
        }
        assert!(
            tiny.summary()
                .contains("score 1 of 2 (50.0%), Elo between -")
        );
        let with_a_draw = Pentanomial([1, 0, 0, 1, 0]).summary();
        assert!(
            with_a_draw.contains("score 1.5 of 4 (37.5%)"),
            "{with_a_draw}"
        );
        assert_eq!(
            elo_text(Trinomial::default().elo(), 0.0, 0),
            "Elo n/a",
            "no games"
        );
    }
}
