//! Standings of a round robin or gauntlet: every engine's Elo by maximum
//! likelihood over all its games (the Bradley–Terry model with a draw as
//! half a win and half a loss, as Ordo computes it), a 95% interval from
//! the likelihood's curvature, and a crosstable.
//!
//! Ratings are relative: their mean is 0, or an anchor engine's rating is
//! 0 and every interval is the one of the difference to the anchor. An
//! engine that won or lost every game has no finite maximum-likelihood
//! rating and is shown as ±inf, with the others rated among themselves.

use super::tally::PairTally;

const Z_95: f64 = 1.959_963_984_540_054;

/// Natural-log units per Elo point: a rating difference d gives an
/// expected score of 1 / (1 + 10^(-d/400)) = 1 / (1 + e^(-d * SCALE)).
const SCALE: f64 = std::f64::consts::LN_10 / 400.0;

pub struct Standing {
    pub name: String,
    pub games: u64,
    /// Points (a draw is half a point).
    pub points: f64,
    pub elo: f64,
    /// Half-width of the 95% interval; infinite when unknown.
    pub error: f64,
}

/// Every engine named in `tallies`, in order of first appearance.
pub fn names(tallies: &[PairTally]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in tallies {
        for name in [&t.a, &t.b] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// Everyone's rating, best first: mean 0, or `anchor`'s 0 when it has a
/// finite rating.
pub fn standings(names: &[String], tallies: &[PairTally], anchor: Option<&str>) -> Vec<Standing> {
    let n = names.len();
    let index = |name: &str| names.iter().position(|x| x == name);
    // games[i][j] and points[i][j]: i's games and points against j.
    let mut games = vec![vec![0.0; n]; n];
    let mut points = vec![vec![0.0; n]; n];
    for t in tallies {
        let (Some(a), Some(b)) = (index(&t.a), index(&t.b)) else {
            continue;
        };
        let g = &t.games;
        let total = g.games() as f64;
        let a_points = g.wins as f64 + 0.5 * g.draws as f64;
        games[a][b] += total;
        games[b][a] += total;
        points[a][b] += a_points;
        points[b][a] += total - a_points;
    }
    let played: Vec<f64> = games.iter().map(|row| row.iter().sum()).collect();
    let scored: Vec<f64> = points.iter().map(|row| row.iter().sum()).collect();
    let finite: Vec<bool> = (0..n)
        .map(|i| played[i] > 0.0 && scored[i] > 0.0 && scored[i] < played[i])
        .collect();
    let mut strength = fit(&games, &points, &finite);
    let anchor = anchor.and_then(index).filter(|&a| finite[a]);
    let errors = match anchor {
        Some(a) => {
            let zero = strength[a];
            strength.iter_mut().for_each(|s| *s -= zero);
            anchored_errors(&games, &strength, &finite, a)
        }
        None => errors(&games, &strength, &finite),
    };
    let mut table: Vec<Standing> = (0..n)
        .map(|i| Standing {
            name: names[i].clone(),
            games: played[i] as u64,
            points: scored[i],
            elo: if finite[i] {
                strength[i] / SCALE
            } else if played[i] > 0.0 && scored[i] >= played[i] {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            },
            error: errors[i],
        })
        .collect();
    table.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(b.points.total_cmp(&a.points)));
    table
}

/// Log-strengths (natural units, mean 0 over `finite`) maximising the
/// likelihood, by Hunter's MM iteration gamma_i = S_i / sum_j n_ij /
/// (gamma_i + gamma_j), among the engines with finite ratings (games
/// against a perfect or zero scorer say nothing about the others).
fn fit(games: &[Vec<f64>], points: &[Vec<f64>], finite: &[bool]) -> Vec<f64> {
    let n = games.len();
    let rated = |i: &usize| finite[*i];
    let scored: Vec<f64> = (0..n)
        .map(|i| (0..n).filter(rated).map(|j| points[i][j]).sum())
        .collect();
    let mut gamma = vec![1.0; n];
    for _ in 0..10_000 {
        let mut next = gamma.clone();
        for i in (0..n).filter(rated) {
            let denominator: f64 = (0..n)
                .filter(rated)
                .filter(|&j| j != i)
                .map(|j| games[i][j] / (gamma[i] + gamma[j]))
                .sum();
            if denominator > 0.0 && scored[i] > 0.0 {
                next[i] = scored[i] / denominator;
            }
        }
        let log_mean = mean_log(&next, finite);
        let mut change: f64 = 0.0;
        for i in (0..n).filter(rated) {
            next[i] = (next[i].ln() - log_mean).exp();
            change = change.max((next[i] / gamma[i]).ln().abs());
        }
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    (0..n)
        .map(|i| if finite[i] { gamma[i].ln() } else { 0.0 })
        .collect()
}

fn mean_log(gamma: &[f64], finite: &[bool]) -> f64 {
    let logs: Vec<f64> = gamma
        .iter()
        .zip(finite)
        .filter(|(_, f)| **f)
        .map(|(g, _)| g.ln())
        .collect();
    if logs.is_empty() {
        0.0
    } else {
        logs.iter().sum::<f64>() / logs.len() as f64
    }
}

/// 95% half-widths in Elo from the observed information: the Hessian of
/// the log-likelihood is a weighted graph Laplacian L; with ratings fixed
/// to mean 0 their covariance is its pseudo-inverse, (L + J/m)^-1 - J/m
/// over the m finite engines (J all ones).
fn errors(games: &[Vec<f64>], strength: &[f64], finite: &[bool]) -> Vec<f64> {
    let rated: Vec<usize> = (0..games.len()).filter(|&i| finite[i]).collect();
    let m = rated.len() as f64;
    let mut laplacian = information(games, strength, finite, &rated);
    laplacian.iter_mut().flatten().for_each(|x| *x += 1.0 / m);
    half_widths(games.len(), &rated, laplacian, 1.0 / m)
}

/// The same with `anchor`'s rating fixed at 0: the covariance of the others
/// is the inverse of L without the anchor's row and column. Engines with no
/// chain of games to the anchor have no interval (infinite).
fn anchored_errors(
    games: &[Vec<f64>],
    strength: &[f64],
    finite: &[bool],
    anchor: usize,
) -> Vec<f64> {
    let linked = linked_to(games, finite, anchor);
    let rated: Vec<usize> = (0..games.len())
        .filter(|&i| linked[i] && i != anchor)
        .collect();
    let laplacian = information(games, strength, finite, &rated);
    let mut out = half_widths(games.len(), &rated, laplacian, 0.0);
    out[anchor] = 0.0;
    out
}

/// The finite engines connected to `start` by games between finite engines.
fn linked_to(games: &[Vec<f64>], finite: &[bool], start: usize) -> Vec<bool> {
    let mut linked = vec![false; games.len()];
    let mut stack = vec![start];
    linked[start] = true;
    while let Some(i) = stack.pop() {
        for j in 0..games.len() {
            if !linked[j] && finite[j] && games[i][j] > 0.0 {
                linked[j] = true;
                stack.push(j);
            }
        }
    }
    linked
}

/// The Laplacian's rows and columns of `rated`: games between finite
/// engines weighted by p(1 - p).
fn information(
    games: &[Vec<f64>],
    strength: &[f64],
    finite: &[bool],
    rated: &[usize],
) -> Vec<Vec<f64>> {
    let n = games.len();
    let mut matrix = vec![vec![0.0; rated.len()]; rated.len()];
    for (a, &i) in rated.iter().enumerate() {
        for j in (0..n).filter(|&j| j != i && games[i][j] > 0.0 && finite[j]) {
            let p = 1.0 / (1.0 + (strength[j] - strength[i]).exp());
            let w = games[i][j] * p * (1.0 - p);
            matrix[a][a] += w;
            if let Some(b) = rated.iter().position(|&r| r == j) {
                matrix[a][b] -= w;
            }
        }
    }
    matrix
}

/// Per engine of `rated`, 1.96 standard deviations in Elo from the inverse
/// of `matrix` less `shift` on the diagonal; infinite for the others or
/// when the matrix is singular.
fn half_widths(n: usize, rated: &[usize], matrix: Vec<Vec<f64>>, shift: f64) -> Vec<f64> {
    let mut out = vec![f64::INFINITY; n];
    if rated.is_empty() {
        return out;
    }
    let Some(inverse) = invert(matrix) else {
        return out;
    };
    for (a, &i) in rated.iter().enumerate() {
        let variance = inverse[a][a] - shift;
        if variance > 0.0 {
            out[i] = Z_95 * variance.sqrt() / SCALE;
        }
    }
    out
}

/// Gauss–Jordan inversion with partial pivoting; None if singular (engines
/// in groups that never met).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for k in 0..n {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for row in (0..n).filter(|&r| r != col) {
            let f = a[row][col];
            if f != 0.0 {
                for k in 0..n {
                    a[row][k] -= f * a[col][k];
                    inv[row][k] -= f * inv[col][k];
                }
            }
        }
    }
    Some(inv)
}

/// Each engine's points against each other one, `-` where they did not
/// meet, in the standings' order.
pub fn crosstable(order: &[Standing], tallies: &[PairTally]) -> String {
    let labels: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(k, s)| format!("{}. {}", k + 1, s.name))
        .collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let cell = 9;
    let mut out = format!("{:width$}", "");
    for (k, _) in order.iter().enumerate() {
        out += &format!(" {:>cell$}", k + 1);
    }
    out.push('\n');
    for (k, row) in order.iter().enumerate() {
        out += &format!("{:width$}", labels[k]);
        for column in order {
            let text = if column.name == row.name {
                "-".to_string()
            } else {
                match head_to_head(tallies, &row.name, &column.name) {
                    Some((points, games)) => format!("{points}/{games}"),
                    None => "-".to_string(),
                }
            };
            out += &format!(" {text:>cell$}");
        }
        out.push('\n');
    }
    out
}

/// `a`'s points and the games between `a` and `b`.
fn head_to_head(tallies: &[PairTally], a: &str, b: &str) -> Option<(f64, u64)> {
    let t = tallies
        .iter()
        .find(|t| (t.a == a && t.b == b) || (t.a == b && t.b == a))?;
    let g = &t.games;
    let a_points = g.wins as f64 + 0.5 * g.draws as f64;
    let total = g.games();
    Some(if t.a == a {
        (a_points, total)
    } else {
        (total as f64 - a_points, total)
    })
}

/// The standings table and the crosstable, as printed after a round robin
/// or gauntlet.
pub fn report(names: &[String], tallies: &[PairTally], anchor: Option<&str>) -> String {
    let table = standings(names, tallies, anchor);
    let width = table.iter().map(|s| s.name.len()).max().unwrap_or(4).max(6);
    let anchored = anchor.filter(|a| table.iter().any(|s| &s.name == a && s.error == 0.0));
    let mut out = match (anchored, anchor) {
        (Some(a), _) => {
            format!("Elo relative to {a} (0); each interval is of the difference to it\n")
        }
        (None, Some(a)) => {
            format!(
                "{a} has no finite rating (no games yet, or it won or lost every game): ratings average 0\n"
            )
        }
        (None, None) => String::new(),
    };
    out += &format!(
        "Rank {:width$} {:>8} {:>7} {:>6} {:>7} {:>6}\n",
        "Engine", "Elo", "±95%", "Games", "Points", "Score"
    );
    for (k, s) in table.iter().enumerate() {
        let score = if s.games > 0 {
            100.0 * s.points / s.games as f64
        } else {
            0.0
        };
        out += &format!(
            "{:>4} {:width$} {:>+8.1} {:>7.1} {:>6} {:>7.1} {:>5.1}%\n",
            k + 1,
            s.name,
            s.elo,
            s.error,
            s.games,
            s.points,
            score
        );
    }
    out + "\n" + &crosstable(&table, tallies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::stats::Trinomial;

    fn tally(a: &str, b: &str, wins: u64, draws: u64, losses: u64) -> PairTally {
        let mut t = PairTally::new(a, b);
        t.games = Trinomial {
            wins,
            draws,
            losses,
        };
        t
    }

    #[test]
    fn crosstable_columns_line_up_whatever_the_name_lengths() {
        let names = vec!["d1".to_string(), "greedy".to_string(), "random".to_string()];
        let tallies = [
            tally("random", "greedy", 0, 0, 10),
            tally("greedy", "d1", 0, 0, 10),
        ];
        let table = standings(&names, &tallies, None);
        let text = crosstable(&table, &tallies);
        let widths: Vec<usize> = text.lines().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{text}");
    }

    #[test]
    fn two_engines_match_the_score_formula() {
        // With one pairing the ML difference is the plain score's Elo:
        // 60% -> 70.437, split +-35.22 around the mean.
        let names = vec!["a".to_string(), "b".to_string()];
        let t = standings(&names, &[tally("a", "b", 50, 20, 30)], None);
        assert_eq!(t[0].name, "a");
        assert!((t[0].elo - 35.218_5).abs() < 1e-3, "{}", t[0].elo);
        assert!((t[1].elo + 35.218_5).abs() < 1e-3);
        // Interval of the difference = 2x each engine's here; the per-game
        // binomial variance p(1-p)/n with p = 0.6 gives d(Elo) = 1.96 *
        // sqrt(0.24/100) / (0.24 * ln10/400) = 69.50 for the difference.
        assert!((2.0 * t[0].error - 69.50).abs() < 0.05, "{}", t[0].error);
    }

    #[test]
    fn three_engines_and_a_perfect_score() {
        let names: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let tallies = [
            tally("a", "b", 6, 2, 2),
            tally("a", "c", 7, 2, 1),
            tally("b", "c", 5, 2, 3),
            tally("d", "a", 10, 0, 0),
            tally("d", "b", 10, 0, 0),
            tally("d", "c", 10, 0, 0),
        ];
        let t = standings(&names, &tallies, None);
        let order: Vec<&str> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["d", "a", "b", "c"]);
        assert_eq!(t[0].elo, f64::INFINITY);
        assert!(t[1].error.is_finite() && t[1].error > 0.0);
        let sum: f64 = t[1..].iter().map(|s| s.elo).sum();
        assert!(sum.abs() < 1e-6, "finite ratings have mean 0");
        // The ML condition: each finite engine's expected points equal its
        // actual points among the finite engines.
        let elo = |n: &str| t.iter().find(|s| s.name == n).unwrap().elo;
        let expect = |x: &str, y: &str| 1.0 / (1.0 + 10f64.powf((elo(y) - elo(x)) / 400.0));
        let a_expected = 10.0 * expect("a", "b") + 10.0 * expect("a", "c");
        assert!((a_expected - 15.0).abs() < 1e-6, "{a_expected}");
        let text = report(&names, &tallies, None);
        assert!(text.contains("1. d"), "{text}");
        assert!(text.contains("7/10") && text.contains("3/10"), "{text}");
    }

    #[test]
    fn an_anchor_is_zero_and_intervals_grow_along_a_chain() {
        let names: Vec<String> = ["low", "mid", "top"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // A ladder: only neighbours meet, each scoring 60% against the one below.
        let tallies = [
            tally("mid", "low", 50, 20, 30),
            tally("top", "mid", 50, 20, 30),
        ];
        let t = standings(&names, &tallies, Some("low"));
        let get = |n: &str| t.iter().find(|s| s.name == n).unwrap();
        assert_eq!((get("low").elo, get("low").error), (0.0, 0.0));
        assert!((get("mid").elo - 70.437).abs() < 1e-2, "{}", get("mid").elo);
        assert!(
            (get("top").elo - 140.874).abs() < 2e-2,
            "{}",
            get("top").elo
        );
        // The one step's interval is the two-engine difference's, 69.50;
        // two independent steps add their variances: 69.50 * sqrt 2.
        assert!(
            (get("mid").error - 69.50).abs() < 0.05,
            "{}",
            get("mid").error
        );
        assert!(
            (get("top").error - 98.29).abs() < 0.1,
            "{}",
            get("top").error
        );
        let text = report(&names, &tallies, Some("low"));
        assert!(text.starts_with("Elo relative to low (0)"), "{text}");
        // A pair that never met the others' chain has no interval, and
        // does not take the others' away.
        let mut names = names.clone();
        names.extend(["x".to_string(), "y".to_string()]);
        // An anchor with no games yet is said to have no rating.
        let text = report(&names, &tallies, Some("x"));
        assert!(
            text.starts_with("x has no finite rating (no games yet"),
            "{text}"
        );
        let mut apart = tallies.to_vec();
        apart.push(tally("x", "y", 5, 2, 3));
        let t = standings(&names, &apart, Some("low"));
        let get = |n: &str| t.iter().find(|s| s.name == n).unwrap();
        assert!(
            (get("top").error - 98.29).abs() < 0.1,
            "{}",
            get("top").error
        );
        assert_eq!(get("x").error, f64::INFINITY);
        // An unknown anchor changes nothing.
        let plain = standings(&names, &tallies, None);
        let other = standings(&names, &tallies, Some("nobody"));
        assert_eq!(plain[0].elo, other[0].elo);
    }
}
