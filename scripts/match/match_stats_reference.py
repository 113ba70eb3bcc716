#!/usr/bin/env python3
"""Reference values for `yote match` statistics, computed from the published
formulas independently of the Rust code (src/results/stats.rs), whose unit
tests hard-code what this prints.

Formulas: logistic Elo and the 95% interval mapped from score space
(cutechess / fastchess); LOS = Phi((mean - 0.5) / se); nElo =
(mean - 0.5) / sd * 800 / ln 10 with sd per game, or per pair times sqrt 2
(fastchess elo_wdl / elo_pentanomial); the exact GLLR of the SPRT, i.e.
N * sum q_i ln(p1_i / p0_i) with q the regularised empirical distribution and
p0, p1 the maximum-likelihood distributions under each hypothesis
(M. Van den Bergh, "Comments on normalized Elo"; fastchess sprt.cpp).

Independence from the Rust code: the fixed-mean MLE is solved here by plain
bisection on theta; the normalised MLE for three outcomes by a direct search
(golden section over the draw rate, bisection on the win-loss difference),
not by the paper's fixed-point iteration; for five outcomes by that
iteration, written from the paper. Run: python3 scripts/match/match_stats_reference.py
"""
import math

Z95 = 1.959963984540054
NELO = 800 / math.log(10)
PENTA = [0, 0.25, 0.5, 0.75, 1]
TRI = [0, 0.5, 1]


def reg(c):
    return [x if x > 0 else 1e-3 for x in c]


def bisect(f, lo, hi, it=300):
    flo = f(lo)
    for _ in range(it):
        mid = (lo + hi) / 2
        fm = f(mid)
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo(s):
    if s <= 0 or s >= 1:
        return math.copysign(math.inf, s - 0.5)
    return -400 * math.log10(1 / s - 1)


def moments(a, p):
    n = sum(p)
    m = sum(x * q for x, q in zip(a, p)) / n
    v = sum(q * (x - m) ** 2 for x, q in zip(a, p)) / n
    return n, m, v


def mle_mean(a, q, s):
    f = lambda th: sum(p * (x - s) / (1 + th * (x - s)) for x, p in zip(a, q))
    th = bisect(f, -1 / (a[-1] - s) + 1e-15, -1 / (a[0] - s) - 1e-15)
    return [p / (1 + th * (x - s)) for x, p in zip(a, q)]


def mle_normalised_iter(a, q, t):
    p = [1 / len(a)] * len(a)
    for _ in range(2000):
        _, mu, var = moments(a, p)
        sd = math.sqrt(var)
        phi = [x - 0.5 - 0.5 * t * sd * (1 + ((x - mu) / sd) ** 2) for x in a]
        f = lambda th: sum(qi * fi / (1 + th * fi) for qi, fi in zip(q, phi))
        th = bisect(f, -1 / max(phi) + 1e-15, -1 / min(phi) - 1e-15)
        new = [qi / (1 + th * fi) for qi, fi in zip(q, phi)]
        done = max(abs(x - y) for x, y in zip(new, p)) < 1e-13
        p = new
        if done:
            break
    return p


def mle_normalised_tri(q, t):
    """Three outcomes: maximise sum q ln p over the curve (mean-0.5) = t*sd."""

    def dist(d):
        # x = pW - pL; mean = 0.5 + x/2; var = d/4 + pW - mean^2.
        def g(x):
            pw = (1 - d + x) / 2
            var = d / 4 + pw - (0.5 + x / 2) ** 2
            return x / 2 - t * math.sqrt(max(var, 0))

        x = bisect(g, -(1 - d) + 1e-15, (1 - d) - 1e-15)
        return [(1 - d - x) / 2, d, (1 - d + x) / 2]

    def ll(d):
        return sum(qi * math.log(pi) for qi, pi in zip(q, dist(d)))

    lo, hi = 1e-12, 1 - 1e-12
    r = (math.sqrt(5) - 1) / 2
    for _ in range(300):
        c, e = hi - r * (hi - lo), lo + r * (hi - lo)
        if ll(c) < ll(e):
            lo = c
        else:
            hi = e
    return dist((lo + hi) / 2)


def llr(counts, a, e0, e1, model):
    c = reg(counts)
    n = sum(c)
    q = [x / n for x in c]
    if model == "logistic":
        p0, p1 = mle_mean(a, q, score(e0)), mle_mean(a, q, score(e1))
    else:
        k = math.sqrt(2) if len(a) == 5 else 1
        fit = mle_normalised_tri if len(a) == 3 else None
        if fit:
            p0, p1 = fit(q, k * e0 / NELO), fit(q, k * e1 / NELO)
        else:
            p0 = mle_normalised_iter(a, q, k * e0 / NELO)
            p1 = mle_normalised_iter(a, q, k * e1 / NELO)
    return n * sum(qi * (math.log(y) - math.log(x)) for qi, x, y in zip(q, p0, p1))


def summary(counts, a):
    n, m, v = moments(a, counts)
    se = math.sqrt(v / n)
    if se == 0:
        return {}
    lo, hi = m - Z95 * se, m + Z95 * se
    per = math.sqrt(2 * v) if len(a) == 5 else math.sqrt(v)
    return {
        "elo": elo(m),
        "err": (elo(hi) - elo(lo)) / 2,
        "los": 0.5 * math.erfc(-(m - 0.5) / se / math.sqrt(2)),
        "nelo": (m - 0.5) / per * NELO,
        "nerr": Z95 * se / per * NELO,
    }


SAMPLES = [
    ("penta", [0, 0, 0, 0, 19], 0, 10),
    ("penta", [5, 20, 40, 25, 10], 0, 5),
    ("penta", [100, 400, 800, 500, 200], 0, 5),
    ("penta", [200, 500, 800, 400, 100], 0, 5),
    ("penta", [0, 0, 11, 0, 0], 0, 10),
    ("penta", [13, 61, 133, 77, 16], -1, 3),
    ("tri", [40, 100, 60], 0, 5),
    ("tri", [181, 203, 216], 0, 10),
]

if __name__ == "__main__":
    for kind, counts, e0, e1 in SAMPLES:
        a = PENTA if kind == "penta" else TRI
        line = f"{kind} {counts} [{e0}, {e1}]: "
        line += " ".join(f"{k} {v:.6f}" for k, v in summary(counts, a).items())
        line += f" llr_logistic {llr(counts, a, e0, e1, 'logistic'):.6f}"
        line += f" llr_normalized {llr(counts, a, e0, e1, 'normalized'):.6f}"
        print(line)
