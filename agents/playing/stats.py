"""Statistics for the arena: confidence intervals on duplicate deals and ratings.

numpy only (the normal quantile comes from :class:`statistics.NormalDist`).

Duplicate deals: every deal is played twice with the sides swapped, so the unit of
independent data is the *deal* (the pair of games), not the game. Every interval here
treats it so: a per-deal score is the pair's mean (or, when deals hold different
numbers of hands, a ratio of sums with its delta-method variance), and bootstraps
resample deals.

Ratings: Bradley-Terry strengths fitted by Hunter's MM iteration (maximum likelihood,
ties counted as half a win each way), shown on the Elo scale (``400 * log10``), with
95% intervals from a seeded bootstrap over deals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = [
    "Estimate",
    "Ratings",
    "bootstrap_ci",
    "bradley_terry",
    "elo_scale",
    "fit_ratings",
    "format_table",
    "mean_ci",
    "paired_mean_ci",
    "ratio_ci",
    "z_value",
]


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a two-sided interval (``low``, ``high``) and its standard error."""

    value: float
    low: float
    high: float
    se: float
    n: int  # independent units (deals) it rests on

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def __str__(self) -> str:
        return f"{self.value:.4f} [{self.low:.4f}, {self.high:.4f}]"


def z_value(confidence: float = 0.95) -> float:
    """The two-sided normal quantile: 1.96 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def mean_ci(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Estimate:
    """Mean of independent ``values`` with a normal-approximation interval."""
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    z = z_value(confidence)
    return Estimate(mean, mean - z * se, mean + z * se, se, n)


def paired_mean_ci(
    first: Sequence[float] | np.ndarray, second: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> Estimate:
    """Duplicate pairs: ``first[i]`` and ``second[i]`` are deal ``i`` played both ways
    round (both scored for the same side). The pair's mean is the unit."""
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired scores differ in shape: {a.shape} vs {b.shape}")
    return mean_ci((a + b) / 2.0, confidence)


def ratio_ci(
    numer: Sequence[float] | np.ndarray, denom: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> Estimate:
    """``sum(numer) / sum(denom)`` over deals, with the delta-method (ratio estimator)
    standard error; deals are the independent units.

    Used when deals hold different numbers of hands (whole matches): ``numer[i]`` is,
    e.g., the hands won by A in deal ``i`` (both games), ``denom[i]`` the hands played.
    With a constant ``denom`` this is exactly :func:`mean_ci` of ``numer / denom``.
    """
    y = np.asarray(numer, dtype=float)
    d = np.asarray(denom, dtype=float)
    if y.shape != d.shape:
        raise ValueError(f"numerator and denominator differ in shape: {y.shape} vs {d.shape}")
    n = int(y.size)
    total = float(d.sum())
    if n == 0 or total == 0.0:
        return Estimate(float("nan"), float("nan"), float("nan"), float("nan"), n)
    r = float(y.sum()) / total
    if n > 1:
        resid = y - r * d
        dbar = total / n
        se = float(np.sqrt(np.sum(resid**2) / (n - 1) / n) / dbar)
    else:
        se = float("inf")
    z = z_value(confidence)
    return Estimate(r, r - z * se, r + z * se, se, n)


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    denom: Sequence[float] | np.ndarray | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Percentile bootstrap over deals (seeded): of the mean of ``values``, or with
    ``denom`` of the ratio ``sum(values) / sum(denom)``. ``se`` is the bootstrap SD."""
    y = np.asarray(values, dtype=float)
    d = np.ones_like(y) if denom is None else np.asarray(denom, dtype=float)
    n = int(y.size)
    if n == 0 or float(d.sum()) == 0.0:
        return Estimate(float("nan"), float("nan"), float("nan"), float("nan"), n)
    point = float(y.sum() / d.sum())
    rng = np.random.default_rng(seed)
    stats = np.empty(n_boot)
    block = max(1, 4_000_000 // max(n, 1))  # bound the index matrix's memory
    for start in range(0, n_boot, block):
        stop = min(n_boot, start + block)
        idx = rng.integers(0, n, size=(stop - start, n))
        num = y[idx].sum(axis=1)
        den = d[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            stats[start:stop] = num / den
    stats = stats[np.isfinite(stats)]
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    return Estimate(point, float(low), float(high), float(stats.std(ddof=1)) if stats.size > 1 else 0.0, n)


# ---------------------------------------------------------------------- Bradley-Terry
def bradley_terry(wins: np.ndarray, prior: float = 1.0, max_iter: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths from a matrix of results, by Hunter's MM iteration.

    ``wins[i, j]`` is what ``i`` scored against ``j`` (a draw or no-winner counting half
    to each), so ``wins[i, j] + wins[j, i]`` games were played between them. ``prior``
    adds that many virtual games, split evenly, to every pair that met (it keeps a
    clean sweep finite and barely moves a well-measured strength). Returns strengths
    ``p`` with geometric mean 1: ``P(i beats j) = p_i / (p_i + p_j)``.
    """
    w = np.asarray(wins, dtype=float).copy()
    k = w.shape[0]
    if w.shape != (k, k):
        raise ValueError(f"wins must be a square matrix, not {w.shape}")
    np.fill_diagonal(w, 0.0)
    games = w + w.T
    if prior > 0:
        met = games > 0
        w = w + 0.5 * prior * met
        games = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(k)
    if k < 2:
        return p
    for _ in range(max_iter):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = np.where(denom > 0, total_wins / denom, p)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    return p


def elo_scale(strengths: np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale, centred on 0:
    a 400-point gap is 10:1 odds (about 0.91 expected score)."""
    r = 400.0 * np.log10(np.asarray(strengths, dtype=float))
    return r - r.mean()


@dataclass(frozen=True)
class Ratings:
    names: tuple[str, ...]
    elo: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    n_boot: int

    def order(self) -> list[int]:
        """Indices from strongest to weakest."""
        return sorted(range(len(self.names)), key=lambda i: -self.elo[i])

    def table(self) -> str:
        rows = []
        for rank, i in enumerate(self.order(), 1):
            rows.append([str(rank), self.names[i], f"{self.elo[i]:+.0f}", f"[{self.low[i]:+.0f}, {self.high[i]:+.0f}]"])
        return format_table(["#", "agent", "rating", "95% interval"], rows, align="rlrr")

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {
            name: {"rating": self.elo[i], "low": self.low[i], "high": self.high[i]} for i, name in enumerate(self.names)
        }


def fit_ratings(
    names: Sequence[str],
    pair_results: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]],
    n_boot: int = 200,
    seed: int = 0,
    confidence: float = 0.95,
    prior: float = 1.0,
) -> Ratings:
    """Bradley-Terry ratings (Elo scale) of a round robin with bootstrap intervals.

    ``pair_results[(i, j)] = (score_i, games)``: per deal, what ``i`` scored against
    ``j`` (hands won, no-winner counting half) and the games (hands) played. All pairs
    must cover the same deals (the arena plays every pairing on the same deals), so the
    bootstrap resamples deal indices jointly, keeping the pairs' correlation.
    """
    k = len(names)
    ndeals = {len(v[0]) for v in pair_results.values()}
    if len(ndeals) > 1:
        raise ValueError(f"pairings cover different numbers of deals: {sorted(ndeals)}")
    n = ndeals.pop() if ndeals else 0

    def matrix(idx: np.ndarray | None) -> np.ndarray:
        m = np.zeros((k, k))
        for (i, j), (score, games) in pair_results.items():
            s = np.asarray(score, dtype=float)
            g = np.asarray(games, dtype=float)
            if idx is not None:
                s, g = s[idx], g[idx]
            si = float(s.sum())
            m[i, j] += si
            m[j, i] += float(g.sum()) - si
        return m

    base = elo_scale(bradley_terry(matrix(None), prior=prior))
    rng = np.random.default_rng(seed)
    boots = np.empty((n_boot, k))
    for b in range(n_boot):
        idx = rng.integers(0, n, size=n) if n > 0 else None
        boots[b] = elo_scale(bradley_terry(matrix(idx), prior=prior))
    alpha = (1.0 - confidence) / 2.0
    if n_boot > 0:
        low = np.quantile(boots, alpha, axis=0)
        high = np.quantile(boots, 1.0 - alpha, axis=0)
    else:
        low = high = base
    return Ratings(
        names=tuple(names),
        elo=tuple(float(x) for x in base),
        low=tuple(float(x) for x in low),
        high=tuple(float(x) for x in high),
        n_boot=n_boot,
    )


# ---------------------------------------------------------------------- tables
def format_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    align: str | None = None,
    fmt: Callable[[object], str] | None = None,
) -> str:
    """A plain-text table: ``align`` holds one ``l``/``r`` per column (default: the
    first column left, the others right)."""
    fmt = fmt or (lambda v: f"{v:.4g}" if isinstance(v, float) else str(v))
    cells = [[str(h) for h in headers]] + [[fmt(v) for v in row] for row in rows]
    ncol = len(headers)
    align = align or ("l" + "r" * (ncol - 1))
    widths = [max(len(r[c]) for r in cells) for c in range(ncol)]

    def line(row: list[str]) -> str:
        out = []
        for c, text in enumerate(row):
            out.append(text.ljust(widths[c]) if align[c] == "l" else text.rjust(widths[c]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])
