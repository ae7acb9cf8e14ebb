#!/usr/bin/env python3
"""Reference figures for the unit tests of src/eval/stats/ (issue 45), computed once with
statsmodels and scipy and written into the tests by hand. Not part of the study: it needs
packages the study scripts do not, so run it in a scratch environment:

    python3 -m venv /tmp/statsvenv && /tmp/statsvenv/bin/pip install statsmodels scipy
    /tmp/statsvenv/bin/python experiments/balance-study/stats_reference.py [SECTION...]

Sections (all by default): distributions, trend, power, sequential, side. The sequential one
takes about five minutes (high-accuracy multivariate normal integrals). Versions used for the
figures in the tests: statsmodels 0.15.0, scipy 1.17.1, numpy 2.x.
"""
import sys

import numpy as np
import statsmodels.api as sm
from scipy import optimize, special, stats

MS = [10, 40, 160, 640]


def show(name, value):
    print(f"{name} = {value!r}")


def distributions():
    for p in (0.95, 0.90, 0.975, 0.8, 1e-10, 0.3):
        show(f"norm.ppf({p})", float(stats.norm.ppf(p)))
    show("norm.cdf(1)", float(stats.norm.cdf(1.0)))
    show("norm.sf(5)", float(stats.norm.sf(5.0)))
    show("norm.sf(-0.5)", float(stats.norm.sf(-0.5)))
    for x, df in ((8.0, 2), (3.84, 1), (8.877742946708464, 3), (0.5, 7), (40.0, 10)):
        show(f"chi2.sf({x}, {df})", float(stats.chi2.sf(x, df)))
    show("gammaln(0.5)", float(special.gammaln(0.5)))
    show("gammaln(10)", float(special.gammaln(10)))


def trend_fit(name, budgets, wins, games):
    """The binomial GLM of the regularised shares on log2 budget, as src/eval/stats/trend.rs
    fits it: (k + 1/2) / (n + 1) with var_weights n + 1. tol=1e-14: at statsmodels' default
    (1e-8) the standard errors come from the IRLS weights one iteration before the fit
    (the slope's half-width 1.2e-4 relative off)."""
    k = np.array(wins, float) + 0.5
    n = np.full(len(wins), games + 1.0)
    x = sm.add_constant(np.log2(np.array(budgets, float)))
    line = sm.GLM(k / n, x, family=sm.families.Binomial(), var_weights=n).fit(tol=1e-14)
    quasi = sm.GLM(k / n, x, family=sm.families.Binomial(), var_weights=n).fit(scale="X2", tol=1e-14)
    common = sm.GLM(k / n, np.ones((len(k), 1)), family=sm.families.Binomial(), var_weights=n).fit(tol=1e-14)
    df = line.df_resid
    print(f"# {name}: {wins} of {games} at {budgets}")
    show("slope", float(line.params[1]))
    show("wald", [float(v) for v in line.conf_int()[1]])
    show("pearson_chi2", float(line.pearson_chi2))
    show("pearson_p", float(stats.chi2.sf(line.pearson_chi2, df)))
    show("deviance", float(line.deviance))
    show("fit_p", float(stats.chi2.sf(line.deviance, df)))
    show("dispersion", float(quasi.scale))
    show("quasi", [float(v) for v in quasi.conf_int()[1]])
    show("levels_lr", float(common.deviance))
    show("levels_p", float(stats.chi2.sf(common.deviance, len(k) - 1)))


def trend():
    trend_fit("copenhagen ab attackers", MS, [2, 1, 39, 0], 50)
    trend_fit("copenhagen ab defenders", MS, [47, 46, 11, 50], 50)
    trend_fit("brandubh ab attackers", MS, [24, 39, 23, 24], 100)
    trend_fit("brandubh ab defenders", MS, [74, 61, 76, 76], 100)


def newcombe_tost(k1, k2, n, margin, z=stats.norm.ppf(0.95)):
    """Whether TOST passes with Newcombe's hybrid score interval (src/eval/stats/equivalence.rs)
    for arrays of counts out of n games each."""

    def wilson(k):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return np.maximum(0, centre - half), np.minimum(1, centre + half)

    p1, p2 = k1 / n, k2 / n
    l1, u1 = wilson(k1)
    l2, u2 = wilson(k2)
    d = p1 - p2
    low = d - np.hypot(p1 - l1, u2 - p2)
    high = d + np.hypot(u1 - p1, p2 - l2)
    return (-margin < low) & (high < margin)


def power():
    z95, z90, z975, z80 = (stats.norm.ppf(q) for q in (0.95, 0.90, 0.975, 0.80))
    p, margin = 0.23, 0.075
    show("games_for_equivalence(0.23, 0.075)", float((z95 + z90) ** 2 * 2 * p * (1 - p) / margin**2))
    show("games_for_difference(0.23, 0.075)", float((z975 + z80) ** 2 * 2 * p * (1 - p) / margin**2))
    rng = np.random.default_rng(45)
    reps = 400_000
    for n in (171, 300, 550):
        k1, k2 = rng.binomial(n, p, reps), rng.binomial(n, p, reps)
        passed = newcombe_tost(k1, k2, n, margin).mean()
        show(f"tost_power(0.23, 0.23, n={n}, margin 0.075; {reps} draws)", float(passed))


def spending(t, alpha):
    """Lan-DeMets O'Brien-Fleming-type spending: 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))."""
    return 2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 2) / np.sqrt(t))


def boundaries(fractions, alpha, two_sided):
    """Group-sequential z boundaries by the joint normal law of (Z_1..Z_K), corr sqrt(t_i/t_j):
    each c_k solves P(no crossing at looks 1..k) = 1 - spent(t_k) (scipy's Genz integration).
    Two-sided: each side is a one-sided test at alpha / 2 (the convention of gsDesign and
    ldbounds, whose 5-look table reads 4.877, 3.357, 2.680, 2.290, 2.031 at alpha = 0.05)."""
    t = np.array(fractions, float)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    out = []
    for k in range(len(t)):
        target = 1 - (2 * spending(t[k], alpha / 2) if two_sided else spending(t[k], alpha))

        def stay(c, k=k):
            upper = np.array(out + [c])
            lower = -upper if two_sided else np.full(k + 1, -np.inf)
            mvn = stats.multivariate_normal(
                mean=np.zeros(k + 1), cov=cov[: k + 1, : k + 1], maxpts=5_000_000, abseps=1e-10, releps=1e-10
            )
            return mvn.cdf(upper, lower_limit=lower) - target

        out.append(optimize.brentq(stay, 0.5, 12.0, xtol=1e-9))
    return out


def sequential():
    show("spending(0.5, 0.05)", float(spending(0.5, 0.05)))
    five = [0.2, 0.4, 0.6, 0.8, 1.0]
    show("two-sided 0.05, 5 equal looks", boundaries(five, 0.05, True))
    show("one-sided 0.05, 5 equal looks", boundaries(five, 0.05, False))
    show("one-sided 0.05, looks 100/200/400/600 of 600", boundaries([1 / 6, 1 / 3, 2 / 3, 1.0], 0.05, False))
    # `tavlei balance --sequential`: two pairs (attackers', defenders'), difference at 0.05 / 2
    show("two-sided 0.025, 5 equal looks", boundaries(five, 0.025, True))
    show("spending(0.4, 0.0125)", float(spending(0.4, 0.0125)))


# (attacker, defender, band, defender points, games): the table of side_advantage.rs's tests
SIDE_GAMES = [
    (0, 0, 0, 30.0, 40), (1, 1, 1, 27.5, 40), (2, 2, 0, 33.0, 40), (3, 3, 1, 31.0, 40),
    (1, 3, 1, 12.0, 20), (3, 1, 1, 18.5, 20), (0, 2, 0, 14.0, 20), (2, 0, 0, 15.0, 20),
    (0, 1, 0, 16.0, 20), (1, 0, 1, 11.0, 20),
]


def side():
    """Bradley-Terry with a side parameter as a logistic regression: the defenders' score on
    [eta (one a band), theta_1, theta_2, theta_3] with player 0 the reference."""
    y = np.array([g[3] / g[4] for g in SIDE_GAMES])
    w = np.array([float(g[4]) for g in SIDE_GAMES])
    players = np.zeros((len(SIDE_GAMES), 3))
    for row, (a, d, _, _, _) in enumerate(SIDE_GAMES):
        if a != d:
            if a > 0:
                players[row, a - 1] -= 1
            if d > 0:
                players[row, d - 1] += 1
    bands = np.array([[g[2] == b for b in (0, 1)] for g in SIDE_GAMES], float)
    deviances = []
    for name, side_columns in (("pooled", np.ones((len(y), 1))), ("banded", bands)):
        x = np.hstack([side_columns, players])
        m = sm.GLM(y, x, family=sm.families.Binomial(), var_weights=w).fit(tol=1e-14)
        p = m.fittedvalues
        ll = float(np.sum(w * (y * np.log(p) + (1 - y) * np.log(1 - p))))
        k = side_columns.shape[1]
        print(f"# {name}")
        show("eta", [float(v) for v in m.params[:k]])
        show("eta_se", [float(v) for v in m.bse[:k]])
        show("theta", [float(v) for v in m.params[k:]])
        show("log_likelihood", ll)
        show("deviance", float(m.deviance))
        deviances.append(float(m.deviance))
    lr = deviances[0] - deviances[1]
    show("band_lr", lr)
    show("band_p", float(stats.chi2.sf(lr, 1)))


SECTIONS = {
    "distributions": distributions,
    "trend": trend,
    "power": power,
    "sequential": sequential,
    "side": side,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or SECTIONS:
        print(f"## {name}")
        SECTIONS[name]()
