#!/usr/bin/env python3
"""The statistics of the balance study's readings (families.py, presets.py, parity.py), in the
standard library only, as src/eval/stats/ computes them (issue 45):

- `trend_test`: a share's logistic slope on log2 budget with the line's goodness of fit, a
  quasi-binomial interval (widened by sqrt(Pearson chi2 / df), never narrowed) and the test of
  one common share, so a zigzag reads "levels differ without a trend" (stats/trend_test.rs);
- `games_for_tost`: games a level for 80 % power of the study's TOST (stats/power.rs);
- `side_fit`: the defenders' advantage in Elo, a Bradley-Terry fit over every game with one
  parameter for the side, and its constancy across strength bands (stats/side_advantage.rs);
- `strength_bands`: that fit pooled over every stored game, and its constancy across bands of
  the players' fitted strength with the strengths held (the study's own, not in the Rust);
- `LABELS` and the verdict rules: the one vocabulary of every table (stats/verdict.rs).

    python3 experiments/balance-study/balance_stats.py --check

checks the figures the Rust unit tests pin (statsmodels' and scipy's, from stats_reference.py),
the fit pooled over every stored game (families.pooled_games) on records with a known side
advantage, its strength bands on games drawn with an edge constant or falling with strength,
and how far two families are from "measured" (families.shortfall: the games still to play and
their core-hours) on ladders whose answer is worked by hand.
"""
import math
import sys
from statistics import NormalDist

Z95 = 1.959963984540054
Z90 = 1.644853626951472
ELO_PER_NEPER = 400 / math.log(10)

# The verdict vocabulary: src/eval/stats/verdict.rs's Verdict::LABELS, in its order (a Rust
# test checks they agree).
LABELS = (
    "measured",
    "equivalent",
    "different",
    "not equivalent",
    "trending",
    "levels differ without a trend",
    "underpowered",
    "undecided",
)
(
    MEASURED,
    EQUIVALENT,
    DIFFERENT,
    NOT_EQUIVALENT,
    TRENDING,
    LEVELS_DIFFER,
    UNDERPOWERED,
    UNDECIDED,  # a sequential study's cap reached without a decision (tavlei balance --sequential)
) = LABELS
NO_TREND = "no trend"  # a trend test's third outcome (stats::TrendVerdict::NoTrend), no verdict


def underpowered(games, needed):
    return f"{UNDERPOWERED} ({games} of {needed} games a level needed)"


def wilson(k, n, z):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def difference(k1, n1, k2, n2, z):
    """k1/n1 - k2/n2 with Newcombe's hybrid score interval."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def chi2_sf(x, df):
    """P(chi2_df > x) for a whole number of degrees of freedom."""
    if x <= 0:
        return 1.0
    if df % 2 == 0:
        term = total = math.exp(-x / 2)
        for i in range(1, df // 2):
            term *= x / (2 * i)
            total += term
        return total
    total = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for i in range(1, (df + 1) // 2):
        total += term
        term *= x / (2 * i + 1)
    return total


def logistic(x):
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _binomial_deviance(k, n, p):
    def term(o, e):
        return o * math.log(o / e) if o > 0 else 0.0

    return 2 * (term(k, n * p) + term(n - k, n * (1 - p)))


def trend_test(levels, z=Z95, alpha=0.05):
    """levels: [(log2 budget, successes, games)], two budgets at least. A dict of the slope
    (log-odds a doubling), its Wald and quasi-binomial intervals, the dispersion, the line's
    Pearson chi2 and deviance with the fit's p-value, the common-share test, and the verdict
    (trending / levels differ without a trend / no trend)."""
    counts = [(x, k + 0.5, n + 1.0) for x, k, n in levels]
    a = b = 0.0
    for _ in range(100):
        g0 = g1 = i0 = i1 = i2 = 0.0
        for x, k, n in counts:
            p = logistic(a + b * x)
            r, w = k - n * p, n * p * (1 - p)
            g0, g1 = g0 + r, g1 + r * x
            i0, i1, i2 = i0 + w, i1 + w * x, i2 + w * x * x
        det = i0 * i2 - i1 * i1
        step = ((i2 * g0 - i1 * g1) / det, (i0 * g1 - i1 * g0) / det)
        a, b = a + step[0], b + step[1]
        if max(map(abs, step)) < 1e-12:
            break
    sd = math.sqrt(i0 / det)
    pearson = sum((k - n * logistic(a + b * x)) ** 2 / (n * logistic(a + b * x) * (1 - logistic(a + b * x)))
                  for x, k, n in counts)
    deviance = sum(_binomial_deviance(k, n, logistic(a + b * x)) for x, k, n in counts)
    pooled = sum(k for _, k, _ in counts) / sum(n for _, _, n in counts)
    levels_lr = sum(_binomial_deviance(k, n, pooled) for _, k, n in counts)
    df = len(counts) - 2
    dispersion = max(1.0, pearson / df) if df > 0 else 1.0
    half = z * sd * math.sqrt(dispersion)
    levels_p = chi2_sf(levels_lr, len(counts) - 1)
    if b - half > 0 or b + half < 0:
        verdict = TRENDING
    elif levels_p < alpha:
        verdict = LEVELS_DIFFER
    else:
        verdict = NO_TREND
    return {
        "slope": b, "low": b - z * sd, "high": b + z * sd,
        "quasi_low": b - half, "quasi_high": b + half, "dispersion": dispersion,
        "pearson_chi2": pearson, "deviance": deviance, "fit_df": df,
        "fit_p": chi2_sf(deviance, df) if df > 0 else 1.0,
        "levels_lr": levels_lr, "levels_p": levels_p, "verdict": verdict,
    }


def equivalent(margin, *differences):
    """TOST: every 90 % interval within the margin."""
    return all(-margin < d[1] and d[2] < margin for d in differences)


def games_for_tost(share, margin, power=0.80):
    """Games a level for the study's TOST (5 %) to pass with `power` were both shares `share`:
    (z_0.95 + z_(1-(1-power)/2))^2 2p(1-p) / margin^2, never fewer than equal shares need to
    pass at all (Newcombe's interval within the margin)."""
    z = Z90 + NormalDist().inv_cdf(1 - (1 - power) / 2)
    formula = math.ceil(z * z * 2 * share * (1 - share) / margin**2)

    def passes(n):
        return equivalent(margin, difference(share * n, n, share * n, n, Z90))

    lo, hi = 1, max(formula, 2)
    while not passes(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if passes(mid) else (mid, hi)
    return max(formula, hi)


def ladder_verdict(trends, equivalences, games, needed, margin):
    """One label for a family's ladder: a trend outranks levels that differ, which outrank the
    equivalence (TOST) of its two strongest levels (measured / underpowered / not equivalent)."""
    kinds = [t["verdict"] for t in trends]
    if TRENDING in kinds:
        return TRENDING
    if LEVELS_DIFFER in kinds:
        return LEVELS_DIFFER
    return MEASURED if equivalent(margin, *equivalences) else comparison_verdict(
        equivalences, False, games, needed, margin)


def comparison_verdict(equivalences, apart, games, needed, margin):
    """Two shares (both sides) compared: different (a 95 % difference), equivalent, or
    underpowered / not equivalent by the games."""
    if apart:
        return DIFFERENT
    if equivalent(margin, *equivalences):
        return EQUIVALENT
    return underpowered(games, needed) if games < needed else NOT_EQUIVALENT


# --- the defenders' advantage -------------------------------------------------------------


def _invert(m):
    n = len(m)
    a = [row[:] + [float(i == j) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[pivot][c]) < 1e-300:
            raise ZeroDivisionError("singular information")
        a[c], a[pivot] = a[pivot], a[c]
        p = a[c][c]
        a[c] = [v / p for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[n:] for row in a]


def _softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _groups(n_players, pairs):
    """Each player's group (a representative's index): players joined by a game between two
    of them, so a group's strengths are measured against each other and nothing else."""
    group = list(range(n_players))

    def root(i):
        while group[i] != i:
            i = group[i]
        return i

    for a, d in pairs:
        if a != d:
            group[root(a)] = root(d)
    return [root(i) for i in range(n_players)]


def _fit(n_players, cells, n_sides, prior, side_prior, held=None):
    """cells: [(attacker, defender, side index, defender points, games)]. (theta + eta, the
    covariance, the games' log-likelihood). `held`: the players' strengths, kept as given, so
    only the sides are fitted (their covariance rows alone are nonzero)."""
    dim = n_players + n_sides
    # the parameters the fit moves: every one, or the sides' alone with the strengths held
    free = list(range(0 if held is None else n_players, dim))
    null = []
    if prior == 0 and held is None:
        roots = _groups(n_players, [(c[0], c[1]) for c in cells])
        for r in sorted(set(roots)):
            size = roots.count(r)
            null.append([1 / math.sqrt(size) if x == r else 0.0 for x in roots])

    def logit(t, c):
        return t[n_players + c[2]] + t[c[1]] - t[c[0]]

    def ll(t):
        data = -sum(c[3] * _softplus(-logit(t, c)) + (c[4] - c[3]) * _softplus(logit(t, c)) for c in cells)
        pen = sum(-0.5 * (prior if i < n_players else side_prior) * (_softplus(-x) + _softplus(x))
                  for i, x in enumerate(t))
        return data, data + pen

    def grad_info(t):
        g = [0.0] * dim
        h = [[0.0] * dim for _ in range(dim)]
        for c in cells:
            p = logistic(logit(t, c))
            r, w = c[3] - c[4] * p, c[4] * p * (1 - p)
            terms = [(n_players + c[2], 1.0)] + ([(c[0], -1.0), (c[1], 1.0)] if c[0] != c[1] else [])
            for i, si in terms:
                g[i] += si * r
                for j, sj in terms:
                    h[i][j] += si * sj * w
        for i, x in enumerate(t):
            c = prior if i < n_players else side_prior
            if c > 0:
                p = logistic(x)
                g[i] += c * (0.5 - p)
                h[i][i] += c * p * (1 - p)
        for u in null:
            for i in range(n_players):
                for j in range(n_players):
                    h[i][j] += u[i] * u[j]
        inverse = _invert([[h[i][j] for j in free] for i in free])
        sigma = [[0.0] * dim for _ in range(dim)]
        for x, i in enumerate(free):
            for y, j in enumerate(free):
                sigma[i][j] = inverse[x][y]
        return g, sigma

    t = [0.0] * dim if held is None else list(held) + [0.0] * n_sides
    for _ in range(200):
        g, sigma = grad_info(t)
        step = [sum(sigma[i][j] * g[j] for j in range(dim)) for i in range(dim)]
        if max(map(abs, step)) < 1e-10:
            return t, sigma, ll(t)[0]
        ll0, slope, s = ll(t)[1], sum(a * b for a, b in zip(g, step)), 1.0
        while True:
            trial = [x + s * d for x, d in zip(t, step)]
            if ll(trial)[1] >= ll0 + 1e-4 * s * slope - 1e-12 * (1 + abs(ll0)):
                t = trial
                break
            s /= 2
            if s < 1e-20:
                raise ArithmeticError("the side fit did not converge")
    raise ArithmeticError("the side fit did not converge")


def _advantage(theta, sigma, k, n, z):
    """Parameter k of a fit in Elo with its interval, over n games."""
    eta, half = theta[k], z * math.sqrt(max(sigma[k][k], 0.0))
    return {"elo": ELO_PER_NEPER * eta, "low": ELO_PER_NEPER * (eta - half),
            "high": ELO_PER_NEPER * (eta + half), "games": n}


def side_fit(n_players, games, prior=1.0, side_prior=1.0, z=Z95, alpha=0.05):
    """games: [(attacker, defender, band, defender points, games)]. The defenders' advantage
    in Elo over every game ("pooled": elo, low, high, games) and a band at a time with the
    players shared ("bands", None for a band without games), the likelihood-ratio test of one
    advantage for all (lr, df, p), and the band farthest from the pooled one."""
    games = [g for g in games if g[4] > 0]
    n_bands = max(g[2] for g in games) + 1
    index, used = {}, 0
    for g in games:
        if g[2] not in index:
            index[g[2]] = used
            used += 1

    def cells(side_of):
        out = {}
        for a, d, band, points, n in games:
            key = (a, d, side_of(band))
            p0, n0 = out.get(key, (0.0, 0.0))
            out[key] = (p0 + points, n0 + n)
        return [(a, d, s, p, n) for (a, d, s), (p, n) in out.items()]

    def advantage(theta, sigma, s, n):
        return _advantage(theta, sigma, n_players + s, n, z)

    t0, s0, ll0 = _fit(n_players, cells(lambda b: 0), 1, prior, side_prior)
    t1, s1, ll1 = _fit(n_players, cells(lambda b: index[b]), used, prior, side_prior)
    band_games = {b: sum(g[4] for g in games if g[2] == b) for b in index}
    bands = [advantage(t1, s1, index[b], band_games[b]) if b in index else None for b in range(n_bands)]
    lr, df = max(0.0, 2 * (ll1 - ll0)), used - 1
    p = chi2_sf(lr, df) if df > 0 else 1.0
    eta = t0[n_players]
    farthest = max(index, key=lambda b: abs(t1[n_players + index[b]] - eta) / math.sqrt(s1[n_players + index[b]][n_players + index[b]]))
    return {
        "pooled": advantage(t0, s0, 0, sum(g[4] for g in games)),
        "bands": bands, "lr": lr, "df": df, "p": p, "farthest": farthest,
        "drifts": df > 0 and p < alpha, "log_likelihood": ll0,
    }


# The fewest games a strength band is split off with: a defenders' edge at the study's shares
# (60-80 % of the points) is then known within about ±70-85 Elo (95 %), enough to see a drift
# of a hundred or two.
BAND_GAMES = 100


def strength_bands(n_players, games, bands=3, least=BAND_GAMES, prior=1.0, side_prior=1.0, z=Z95, alpha=0.05):
    """games: as side_fit's, their band ignored. The defenders' advantage over every game
    ("pooled", side_fit's) and its constancy across strength, with each player's strength held
    at its pooled value: the games between players whose strength the games measure (each has
    met another player) are ranked by the mean of their two players' strengths and cut into
    `bands` bands (terciles of the games), fewer where they number under `least` a band; games
    with one mean stay in one band. "bands", weakest first: each band's edge (elo, low, high,
    games) and its range of mean strengths in Elo ("from", "to"); the likelihood-ratio test of
    one edge for every band (lr, df = bands - 1, p; df 0 with one band or none), "drifts" at p <
    alpha, "unmeasured": the games of players met by no other (self-play alone: their strength
    is the prior's), in no band, and "groups": how many sets of players the games link (only
    the prior sets two groups' strengths side by side). Not in src/eval/stats/ (the study's own
    reading)."""
    games = [g for g in games if g[4] > 0]

    def cells(band_of):
        out = {}
        for a, d, band, points, n in games:
            if band_of(a, d) is not None:
                key = (a, d, band_of(a, d))
                p0, n0 = out.get(key, (0.0, 0.0))
                out[key] = (p0 + points, n0 + n)
        return [(a, d, b, p, n) for (a, d, b), (p, n) in out.items()]

    theta, sigma, _ = _fit(n_players, cells(lambda a, d: 0), 1, prior, side_prior)
    strengths = theta[:n_players]
    roots = _groups(n_players, [(g[0], g[1]) for g in games])
    measured = [roots.count(r) > 1 for r in roots]

    def mean(a, d):
        return (strengths[a] + strengths[d]) / 2

    # the games at each mean strength, weakest first
    at = {}
    for a, d, _, _, n in games:
        if measured[a] and measured[d]:
            at[mean(a, d)] = at.get(mean(a, d), 0) + n
    placed = sum(at.values())
    k = max(1, min(bands, int(placed // least)))
    band, start = {}, 0
    for m in sorted(at):
        # a mean's band is where the middle of its games falls among the placed games
        band[m] = min(k - 1, int(k * (start + at[m] / 2) / placed))
        start += at[m]
    order = sorted(set(band.values()))
    band = {m: order.index(b) for m, b in band.items()}
    used = len(order)
    result = {"pooled": _advantage(theta, sigma, n_players, sum(g[4] for g in games), z),
              "unmeasured": sum(g[4] for g in games) - placed, "bands": [], "lr": 0.0, "df": 0,
              "p": 1.0, "drifts": False, "groups": len({r for r, m in zip(roots, measured) if m})}
    if used == 0:
        return result

    def band_of(a, d):
        return band[mean(a, d)] if measured[a] and measured[d] else None

    _, _, ll0 = _fit(n_players, cells(lambda a, d: 0 if band_of(a, d) is not None else None), 1,
                     prior, side_prior, held=strengths)
    each, s1, ll1 = _fit(n_players, cells(band_of), used, prior, side_prior, held=strengths)
    for b in range(used):
        means = [m for m in band if band[m] == b]
        result["bands"].append(dict(
            _advantage(each, s1, n_players + b, sum(at[m] for m in means), z),
            **{"from": ELO_PER_NEPER * min(means), "to": ELO_PER_NEPER * max(means)}))
    lr, df = max(0.0, 2 * (ll1 - ll0)), used - 1
    p = chi2_sf(lr, df) if df > 0 else 1.0
    result.update(lr=lr, df=df, p=p, drifts=df > 0 and p < alpha)
    return result


def elo(a, digits=0):
    return f"{a['elo']:+.{digits}f} [{a['low']:+.{digits}f}, {a['high']:+.{digits}f}]"


# --- the check -----------------------------------------------------------------------------


def check():
    """The figures of the Rust unit tests (statsmodels 0.15.0 / scipy 1.17.1)."""

    def close(actual, expected, tol, what):
        assert abs(actual - expected) <= tol, f"{what}: {actual} against {expected}"

    ms = [math.log2(x) for x in (10, 40, 160, 640)]
    t = trend_test([(x, k, 50) for x, k in zip(ms, (2, 1, 39, 0))])
    close(t["slope"], 0.19099918886994224, 1e-9, "copenhagen slope")
    close(t["pearson_chi2"], 112.47604015926758, 1e-7, "copenhagen chi2")
    close(t["quasi_low"], -0.9786141921447516, 1e-8, "copenhagen quasi low")
    close(t["quasi_high"], 1.360612569884636, 1e-8, "copenhagen quasi high")
    close(t["levels_lr"], 119.1765170273858, 1e-7, "copenhagen levels")
    assert t["verdict"] == LEVELS_DIFFER, t
    t = trend_test([(x, k, 100) for x, k in zip(ms, (24, 39, 23, 24))])
    close(t["pearson_chi2"], 7.991551739587046, 1e-9, "brandubh chi2")
    close(t["fit_p"], 0.020781687700955207, 1e-10, "brandubh fit p")
    close(t["levels_p"], 0.03877353201274268, 1e-10, "brandubh levels p")
    close(t["quasi_low"], -0.23467112542511342, 1e-9, "brandubh quasi low")
    assert t["verdict"] == LEVELS_DIFFER, t
    close(chi2_sf(8.877742946708464, 3), 0.030961306605546392, 1e-14, "chi2 3 df")
    close(chi2_sf(40.0, 10), 1.694474393006737e-05, 1e-17, "chi2 10 df")
    close(chi2_sf(0.5, 7), 0.9994464813904249, 1e-14, "chi2 7 df")
    assert games_for_tost(0.23, 0.075) == 540
    assert games_for_tost(0.5 / 61, 0.075) == 37
    side_games = [
        (0, 0, 0, 30.0, 40), (1, 1, 1, 27.5, 40), (2, 2, 0, 33.0, 40), (3, 3, 1, 31.0, 40),
        (1, 3, 1, 12.0, 20), (3, 1, 1, 18.5, 20), (0, 2, 0, 14.0, 20), (2, 0, 0, 15.0, 20),
        (0, 1, 0, 16.0, 20), (1, 0, 1, 11.0, 20),
    ]
    s = side_fit(4, side_games, prior=0.0, side_prior=0.0)
    close(s["pooled"]["elo"] / ELO_PER_NEPER, 1.1024695733795677, 1e-8, "eta")
    close((s["pooled"]["high"] - s["pooled"]["low"]) / (2 * Z95 * ELO_PER_NEPER), 0.1416428126318674, 1e-8, "eta se")
    close(s["lr"], 0.06514572110665107, 1e-7, "band lr")
    close(s["bands"][1]["elo"] / ELO_PER_NEPER, 1.0628776632892778, 1e-7, "band 1 eta")
    pooled_check()
    shortfall_check()
    print("balance_stats.py: every reference figure holds")


def pooled_check(eta=0.7, n=400):
    """The pooled fit of every stored game (families.pooled_games) on records written to two
    folders with a known side advantage `eta` (nepers) and known strengths, `n` games a pairing
    with the defenders' wins at their expected count: it recovers `eta`, reads one player
    across both folders, counts a game stored in both folders once, leaves out a record under
    another rules string, and without plain alpha-beta leaves out every game it played."""
    import tempfile
    from pathlib import Path

    from families import plain_alpha_beta, pooled_games, pooled_side, stored_games

    strength = {"ab:2:eval=q.toml": 0.0, "net:x:32": 0.5, "ab:3": -0.3}
    played = iter(range(10**6))

    def record(attacker, defender, points, rules="R"):
        # a move list of its own for every game, so only the copy below repeats one
        header = (f"# game 0 ({attacker} vs itself)" if attacker == defender
                  else f"# game 0: {attacker} (attackers) vs {defender} (defenders)")
        winner = "defenders king_escaped" if points else "attackers king_captured"
        moves = f"a{next(played)}-b1 c1-d1"
        return f'{header}\n[variant "brandubh"]\n[rules "{rules}"]\n[result "{winner}"]\n{moves}\n'

    def games(attacker, defender):
        wins = round(n * logistic(eta + strength[defender] - strength[attacker]))
        return [record(attacker, defender, i < wins) for i in range(n)]

    a, b, c = strength
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        # one folder holds each player's self-play, the other the matches between them
        for agent in strength:
            path = root / "ladder" / "ab" / "games" / f"{agent.replace(':', '_')}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(games(agent, agent)))
        first = (root / "ladder/ab/games/net_x_32.txt").read_text().split("# game ")[1]
        matches = [g for x, y in ((a, b), (b, a), (a, c), (c, a)) for g in games(x, y)]
        (root / "matches/cross").mkdir(parents=True)
        (root / "matches/cross/games.txt").write_text(
            "".join(matches) + "# game " + first + record(a, b, True, rules="OLD")
        )
        records = stored_games(root)
        every = pooled_games(records, "brandubh", "R")
        left_out = (every["copies"], every["across_folders"], every["other_rules"])
        assert left_out == (1, 1, 1), f"copies, of them across folders, other rules: {left_out}"
        assert len(every["games"]) == 7 * n and len(every["players"]) == 3, every["players"]
        assert every["folders"] == ["ladder/ab", "matches/cross"], every["folders"]
        fitted = pooled_side(every)
        truth = eta * ELO_PER_NEPER
        assert abs(fitted["elo"] - truth) < 3 and fitted["low"] < truth < fitted["high"], (fitted, truth)
        quiet = pooled_games(records, "brandubh", "R", keep=lambda agent: not plain_alpha_beta(agent))
        assert len(quiet["games"]) == 4 * n and "ab:3" not in quiet["players"], quiet["players"]
        fitted = pooled_side(quiet)
        assert abs(fitted["elo"] - truth) < 3 and fitted["low"] < truth < fitted["high"], (fitted, truth)
    band_check()


def band_check(n=60, seed=45):
    """The pooled fit's strength bands (families.pooled_bands) on games drawn with a seed: five
    players a strength apart who all meet, `n` games each way of every pairing and self-play,
    and one player in self-play alone (its strength unmeasured, its games in no band). One side
    advantage for every pairing reads constant; one that falls from weak pairs to strong ones
    (1.7 nepers between the weakest two players, -0.3 between the strongest) drifts."""
    import random

    from families import pooled_bands, pooled_games

    strength = {f"p{i}": (i - 2) / 2 for i in range(5)}
    draw = random.Random(seed)

    def records(eta):
        out = []
        for a in list(strength) + ["alone"]:
            for d in strength if a != "alone" else ["alone"]:
                sa, sd = strength.get(a, 0.0), strength.get(d, 0.0)
                edge = eta((sa + sd) / 2) + sd - sa
                for i in range(n):
                    won = draw.random() < logistic(edge)
                    out.append({"variant": "v", "rules": "R", "attacker": a, "defender": d,
                                "moves": f"{a} {d} {i}", "folder": "f",
                                "result": "defenders king_escaped" if won else "attackers king_captured"})
        return out

    steady = pooled_bands(pooled_games(records(lambda m: 0.7), "v", "R"))
    truth = 0.7 * ELO_PER_NEPER
    assert steady["unmeasured"] == n and steady["df"] == 2 and not steady["drifts"], steady
    assert all(b["low"] < truth < b["high"] for b in steady["bands"]), steady["bands"]
    assert sum(b["games"] for b in steady["bands"]) == 25 * n, steady["bands"]
    falling = pooled_bands(pooled_games(records(lambda m: 0.7 - m), "v", "R"))
    weakest, *_, strongest = falling["bands"]
    assert falling["drifts"] and weakest["low"] > strongest["high"], falling


def shortfall_check():
    """How far two families are from "measured" (families.shortfall, families.nearest) on
    ladders whose answer is worked by hand. Alpha-beta at 10 / 40 ms with 20 attacker wins of
    100 at both, the network at 32 / 128 simulations with 26 of 100 at both: no trend, and
    TOST's 80 % power (z = z_0.95 + z_0.90 = 2.9264, n = z^2 2p(1-p) / 0.075^2 at the pooled
    share p = (k + k' + 0.5) / 201) needs 490 games a level for alpha-beta's two levels (p =
    40.5 / 201), 588 for the network's (52.5 / 201) and 542 between their strongest (46.5 /
    201). So alpha-beta's 40 ms level needs 542 (+442), its 10 ms 490 (+390), each network
    level 588 (+488): 1808 games. A timed level's clock (2000 moves at half the budget: 0.1 s a
    game at 10 ms, 0.4 s at 40 ms) is one core's time; the network's `seconds` (100 s over 100
    games) one to two: (442 * 0.4 + 390 * 0.1 + 2 * 488 * 1) / 3600 = 0.33106 core-hours, with
    the network's doubled 0.60217. A network at 0 of 100 needs fewer games beside alpha-beta
    (279 between their strongest at p = 20.5 / 201, so +390 at each alpha-beta level and +179
    at its 128 simulations, its own test needing 35: 959) but is shown different from
    alpha-beta's 20, which more games cannot settle, so the nearest pair of the three is the
    first."""
    from families import core_time, nearest, shortfall

    def level(agent, budget, attackers, seconds=0.0, clock=None):
        timed = agent.startswith("ab:t=")
        return {"agent": agent, "time_ms": budget if timed else 0, "simulations": 0 if timed else budget,
                "games": 100, "attacker_wins": attackers, "defender_wins": 100 - attackers, "draws": 0,
                "mean_length": 40.0, "seconds": seconds, "clock": clock}

    def clock(budget):
        return level(f"ab:t={budget}ms", budget, 20, clock={"moves": 2000, "mean": 0.5})

    ab = ("alpha-beta", [clock(10), clock(40)])
    net = ("network", [level(f"net:x:{n}", n, 26, seconds=100.0) for n in (32, 128)])
    s = shortfall(ab, net)
    needs = [(name, r["agent"], n, missing) for name, r, n, missing, _ in s["levels"]]
    assert needs == [("alpha-beta", "ab:t=40ms", 542, 442), ("alpha-beta", "ab:t=10ms", 490, 390),
                     ("network", "net:x:128", 588, 488), ("network", "net:x:32", 588, 488)], needs
    assert [n for _, n, _ in s["tests"]] == [490, 588, 542], s["tests"]
    assert s["missing"] == 1808 and not s["untimed"], s
    assert abs(s["hours"][0] - 0.331056) < 1e-5 and abs(s["hours"][1] - 0.602167) < 1e-5, s["hours"]
    assert all(fixable for _, fixable in s["blocks"]) and len(s["blocks"]) == 3, s["blocks"]
    # a level whose `seconds` counted none of its games (resumed from its store) has no time
    assert core_time(level("net:x:32", 32, 26, seconds=0.001)) is None
    # fewer games still to play (959) but shown different: farther all the same
    far = ("network, stronger", [level(f"net:y:{n}", n, 0, seconds=100.0) for n in (32, 128)])
    apart = shortfall(ab, far)
    assert apart["verdicts"][2] == DIFFERENT and not all(f for _, f in apart["blocks"]), apart["blocks"]
    assert apart["missing"] == 959, apart["missing"]
    best = nearest([ab, net, far])
    assert best["names"] == ("alpha-beta", "network") and best["pairs"] == 2, (best["names"], best["pairs"])
    rising = ("alpha-beta", [level(f"ab:t={t}ms", t, k, seconds=100.0)
                             for t, k in ((10, 10), (40, 50), (160, 90))])
    climbing = shortfall(rising, net)
    # a trend is no matter of games
    assert climbing["verdicts"][0] == TRENDING and not climbing["blocks"][0][1], climbing["blocks"]


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    else:
        sys.exit(__doc__)
