"""Ratings for the benchmark and for partnership research.

Everything here is on the Elo scale of :mod:`agents.playing.stats` (``400 * log10`` of the
odds: a 400-point gap is 10:1 odds of winning a hand) and returns
:class:`agents.playing.stats.Estimate` values with seeded bootstrap intervals.

- :func:`place_on_ladder`: the rating of a new agent against references whose ratings
  are published and held fixed, so a new result lands on the same scale as the old ones
  without refitting (and without moving) the ladder.
- :func:`fit_team_ratings`: partner-adjusted individual ratings from games between
  sides of several agents, each agent adding its strength to its side's log-odds.
- :func:`crossplay_gaps` and :func:`adhoc_score`: how much an agent relies on playing
  with itself (self-play conventions) rather than with partners it was not trained with.

numpy only: the fits are one- or few-dimensional concave maximum-likelihood problems,
solved by Newton's method.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agents.playing.stats import Estimate

__all__ = [
    "CrossPlayGap",
    "ELO_PER_NAT",
    "TeamGame",
    "TeamRatings",
    "adhoc_score",
    "crossplay_gaps",
    "fit_team_ratings",
    "place_on_ladder",
]

#: Elo points per natural-log unit of odds: the ``400 * log10`` convention of
#: :func:`agents.playing.stats.elo_scale`
ELO_PER_NAT = 400.0 / math.log(10.0)
_CONFIDENCE = 0.95


# ---------------------------------------------------------------------- the ladder
def place_on_ladder(
    ref_ratings: Mapping[str, float],
    results: Mapping[str, tuple[np.ndarray, np.ndarray]],
    n_boot: int = 200,
    seed: int = 0,
) -> Estimate:
    """The Elo rating of a new agent from duplicate play against fixed references.

    ``ref_ratings[name]``: the published Elo rating of reference ``name`` (held fixed:
    placing a new agent never moves the ladder). ``results[name] = (score, hands)``:
    per deal against that reference, what the new agent scored (hands won over both
    games, a hand without a winner counting half) and out of how many hands.

    The rating ``r`` maximises the Bradley-Terry likelihood
    ``P(win a hand against j) = 1 / (1 + 10 ** ((R_j - r) / 400))`` over all hands, with
    one virtual draw (half a win in one hand) added against each reference: a weak prior
    that keeps a perfect (or a zero) score finite and is negligible beside a few hundred
    real hands. The interval is a seeded 95% percentile bootstrap over deals, each
    reference's deals resampled on their own (the deal is the independent unit); ``se``
    is the bootstrap SD and ``n`` the deals played in all.
    """
    if not results:
        raise ValueError("place_on_ladder needs results against at least one reference")
    names = sorted(results)  # a fixed order: the bootstrap draws do not depend on dict order
    unknown = [name for name in names if name not in ref_ratings]
    if unknown:
        raise ValueError(f"results against references without a rating: {unknown}")
    refs = np.array([float(ref_ratings[name]) for name in names])
    if not np.all(np.isfinite(refs)):
        raise ValueError("reference ratings must be finite")
    data = [_deal_arrays(name, *results[name]) for name in names]

    wins = np.array([[s.sum() for s, _ in data]]) + 0.5  # the virtual draw
    hands = np.array([[h.sum() for _, h in data]]) + 1.0
    value = float(_ladder_mle(wins, hands, refs)[0])

    boot = _ladder_bootstrap(data, refs, n_boot, seed)
    n_deals = sum(int(s.size) for s, _ in data)
    return _estimate(value, boot, n_deals)


def _deal_arrays(name: str, score: np.ndarray, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One reference's per-deal (score, hands), checked."""
    s = np.asarray(score, dtype=float).ravel()
    h = np.asarray(hands, dtype=float).ravel()
    if s.shape != h.shape:
        raise ValueError(f"{name}: score and hands differ in shape: {s.shape} vs {h.shape}")
    if s.size == 0 or h.sum() <= 0:
        raise ValueError(f"{name}: no hands played")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(h)) and np.all(s >= 0) and np.all(s <= h)):
        raise ValueError(f"{name}: every deal's score must lie between 0 and its hands")
    return s, h


def _ladder_bootstrap(
    data: list[tuple[np.ndarray, np.ndarray]], refs: np.ndarray, n_boot: int, seed: int
) -> np.ndarray:
    """Ratings refitted on ``n_boot`` resamples of each reference's deals."""
    if n_boot <= 0:
        return np.empty(0)
    rng = np.random.default_rng(seed)
    wins = np.empty((n_boot, len(data)))
    hands = np.empty((n_boot, len(data)))
    for j, (s, h) in enumerate(data):
        block = max(1, 4_000_000 // s.size)  # bound the index matrix's memory
        for start in range(0, n_boot, block):
            stop = min(n_boot, start + block)
            idx = rng.integers(0, s.size, size=(stop - start, s.size))
            wins[start:stop, j] = s[idx].sum(axis=1)
            hands[start:stop, j] = h[idx].sum(axis=1)
    return _ladder_mle(wins + 0.5, hands + 1.0, refs)


def _ladder_mle(wins: np.ndarray, hands: np.ndarray, refs: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Per row of ``wins``/``hands`` (shape ``(m, k)``), the rating ``r`` that solves
    ``sum_j wins_j = sum_j hands_j * P(r beats R_j)``.

    The left side minus the right falls strictly with ``r`` (a concave likelihood), so a
    bracketed Newton iteration (bisecting whenever Newton would leave the bracket) finds
    the root; ``0 < wins < hands`` (the virtual draw) makes it finite.
    """

    def score_gap(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = _sigmoid((r[:, None] - refs[None, :]) / ELO_PER_NAT)
        gap = (wins - hands * p).sum(axis=1)
        slope = (hands * p * (1.0 - p)).sum(axis=1) / ELO_PER_NAT  # minus d gap / d r
        return gap, slope

    share = wins.sum(axis=1) / hands.sum(axis=1)
    r = float(refs.mean()) + ELO_PER_NAT * np.log(share / (1.0 - share))
    lo = np.minimum(r, refs.min()) - 400.0
    hi = np.maximum(r, refs.max()) + 400.0
    for _ in range(64):  # widen the bracket until the root is inside
        low_ok = score_gap(lo)[0] > 0
        high_ok = score_gap(hi)[0] < 0
        if low_ok.all() and high_ok.all():
            break
        lo = np.where(low_ok, lo, lo - 2.0 * (hi - lo))
        hi = np.where(high_ok, hi, hi + 2.0 * (hi - lo))
    r = np.clip(r, lo, hi)
    for _ in range(200):
        gap, slope = score_gap(r)
        lo = np.where(gap > 0, r, lo)
        hi = np.where(gap > 0, hi, r)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = gap / slope
        new = r + step
        outside = ~np.isfinite(new) | (new <= lo) | (new >= hi)
        new = np.where(outside, 0.5 * (lo + hi), new)
        done = np.max(np.abs(new - r)) < tol
        r = new
        if done:
            break
    return r


# ---------------------------------------------------------------------- team ratings
@dataclass(frozen=True)
class TeamGame:
    """One independent result between two sides: ``score`` is side A's share of the
    ``weight`` hands (a hand without a winner counting half). A member listed twice
    (two seats of the same agent) counts twice.

    The bootstrap of :func:`fit_team_ratings` resamples these records, so each should be
    an independent unit (a duplicate deal, both games together), not a whole matchup
    summed up.
    """

    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    score: float
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "side_a", tuple(self.side_a))
        object.__setattr__(self, "side_b", tuple(self.side_b))
        if not self.side_a or not self.side_b:
            raise ValueError(f"both sides need at least one member: {self.side_a} vs {self.side_b}")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score is a share of hands, in [0, 1], not {self.score}")
        if not (math.isfinite(self.weight) and self.weight > 0):
            raise ValueError(f"weight (hands) must be positive, not {self.weight}")


@dataclass(frozen=True)
class TeamRatings:
    """Partner-adjusted individual ratings (Elo scale) with bootstrap intervals.
    ``ratings[name].n`` is the games that inform ``name``'s rating."""

    agents: tuple[str, ...]
    ratings: dict[str, Estimate]
    n_boot: int

    def order(self) -> list[str]:
        """Names from strongest to weakest."""
        return sorted(self.agents, key=lambda name: -self.ratings[name].value)

    def table(self) -> str:
        """A markdown table, strongest first."""
        lines = ["| # | agent | rating | 95% interval | games |", "|--:|:--|--:|--:|--:|"]
        for rank, name in enumerate(self.order(), 1):
            e = self.ratings[name]
            lines.append(f"| {rank} | {name} | {e.value:+.0f} | [{e.low:+.0f}, {e.high:+.0f}] | {e.n} |")
        return "\n".join(lines)


def fit_team_ratings(
    agents: Sequence[str], games: Sequence[TeamGame], n_boot: int = 200, seed: int = 0, prior: float = 1e-2
) -> TeamRatings:
    """Individual strengths from games between sides (partnerships), on the Elo scale.

    Model: ``logit P(side A wins a hand) = sum(theta[A members]) - sum(theta[B members])``
    (additive strengths: a partnership is as strong as its members together). Fitted by
    weighted logistic maximum likelihood (each game counts ``weight`` hands, of which
    side A won ``score * weight``) with an L2 prior of precision ``prior`` on every
    ``theta`` (in natural log-odds units: 0.01 is a standard deviation of 10, about
    1700 Elo): it makes the fit unique and keeps a clean sweep finite, and is negligible
    beside a few hundred hands.

    Scale: when every game has sides of equal size (the 2-v-2 partnership game), only
    differences of ratings are identified, and the ratings are centred to mean 0 (which
    the prior already does). With sides of unequal size the level is identified and the
    ratings are reported as fitted.

    Intervals: a seeded 95% percentile bootstrap over games (resampling ``TeamGame``
    records, each refitted).
    """
    names = tuple(agents)
    if len(set(names)) != len(names):
        raise ValueError(f"agent names repeat: {names}")
    if not games:
        raise ValueError("fit_team_ratings needs at least one game")
    if not prior > 0:
        raise ValueError(f"prior must be positive (it makes the fit unique), not {prior}")
    x, y, w = _design(names, games)
    balanced = bool(np.all(np.array([len(g.side_a) == len(g.side_b) for g in games])))
    listed = {name for g in games for name in (*g.side_a, *g.side_b)}
    absent = [name for name in names if name not in listed]
    if absent:
        raise ValueError(f"agents in no game: {absent}")

    theta = _team_mle(x, y, w, prior=prior, start=np.zeros(len(names)), centre=balanced)
    rng = np.random.default_rng(seed)
    boots = np.empty((max(n_boot, 0), len(names)))
    for b in range(max(n_boot, 0)):
        idx = rng.integers(0, len(games), size=len(games))
        boots[b] = _team_mle(x[idx], y[idx], w[idx], prior=prior, start=theta, centre=balanced)
    informed = np.count_nonzero(x, axis=0)
    ratings = {
        name: _estimate(float(theta[i] * ELO_PER_NAT), boots[:, i] * ELO_PER_NAT, int(informed[i]))
        for i, name in enumerate(names)
    }
    return TeamRatings(names, ratings, max(n_boot, 0))


def _design(names: tuple[str, ...], games: Sequence[TeamGame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of member counts (side A minus side B), scores and weights."""
    col = {name: i for i, name in enumerate(names)}
    x = np.zeros((len(games), len(names)))
    for g, game in enumerate(games):
        for side, sign in ((game.side_a, 1.0), (game.side_b, -1.0)):
            for member in side:
                if member not in col:
                    raise ValueError(f"game {g}: {member!r} is not among the agents {names}")
                x[g, col[member]] += sign
    y = np.array([g.score for g in games], dtype=float)
    w = np.array([g.weight for g in games], dtype=float)
    return x, y, w


def _team_mle(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, *, prior: float, start: np.ndarray, centre: bool, tol: float = 1e-10
) -> np.ndarray:
    """Penalised weighted logistic regression without intercept, by Newton's method with
    step halving (the objective is strictly concave, so it converges from anywhere)."""

    def objective(theta: np.ndarray) -> float:
        eta = x @ theta
        return float(np.sum(w * (y * eta - np.logaddexp(0.0, eta))) - 0.5 * prior * theta @ theta)

    theta = start.astype(float).copy()
    current = objective(theta)
    eye = np.eye(x.shape[1])
    for _ in range(100):
        p = _sigmoid(x @ theta)
        grad = x.T @ (w * (y - p)) - prior * theta
        info = (x * (w * p * (1.0 - p))[:, None]).T @ x + prior * eye
        step = np.linalg.solve(info, grad)
        t = 1.0
        while t > 1e-8:
            candidate = theta + t * step
            value = objective(candidate)
            if value >= current - 1e-12:
                break
            t *= 0.5
        theta, current = candidate, value
        if np.max(np.abs(t * step)) < tol:
            break
    return theta - theta.mean() if centre else theta


# ---------------------------------------------------------------------- cross-play
@dataclass(frozen=True)
class CrossPlayGap:
    """An agent's result with itself as partner against its mean result with the others.

    ``self_play``: ``table[(a, a)]``; ``cross_play``: the mean, over the partners ``p != a``
    it has results with, of its mean result with ``p`` (both seatings, ``(a, p)`` and
    ``(p, a)``, averaged where both are present); ``gap = self_play - cross_play`` (large:
    the agent leans on conventions only it knows). NaN where a piece is missing.
    """

    agent: str
    self_play: float
    cross_play: float
    gap: float
    partners: tuple[str, ...]


def crossplay_gaps(table: Mapping[tuple[str, str], float]) -> dict[str, CrossPlayGap]:
    """Self-play against cross-play per agent. ``table[(lead, partner)]``: the win rate
    of the side with ``lead`` in its lead seat and ``partner`` in the others, against one
    fixed opposing pair. Covers every agent named in the table (in order of first
    appearance)."""
    agents = list(dict.fromkeys(name for key in table for name in key))
    out: dict[str, CrossPlayGap] = {}
    for a in agents:
        with_partner = {p: _partner_result(table, a, p) for p in agents if p != a}
        results = {p: r for p, r in with_partner.items() if r is not None}
        self_play = float(table.get((a, a), float("nan")))
        cross_play = float(np.mean(list(results.values()))) if results else float("nan")
        out[a] = CrossPlayGap(a, self_play, cross_play, self_play - cross_play, tuple(results))
    return out


def adhoc_score(table: Mapping[tuple[str, str], float], agent: str, partners: Sequence[str]) -> float:
    """The mean result of ``agent`` with each partner in ``partners`` (``agent`` itself
    skipped), both seatings averaged where present: an ad-hoc teamwork score. A partner
    with no result in ``table`` is an error, not skipped (skipping would bias the mean
    toward the partners that were played)."""
    others = [p for p in dict.fromkeys(partners) if p != agent]
    if not others:
        raise ValueError(f"adhoc_score needs at least one partner other than {agent!r}")
    results = []
    for p in others:
        r = _partner_result(table, agent, p)
        if r is None:
            raise KeyError(f"no result for {agent!r} with partner {p!r} (neither seating is in the table)")
        results.append(r)
    return float(np.mean(results))


def _partner_result(table: Mapping[tuple[str, str], float], a: str, p: str) -> float | None:
    """The mean of ``table[(a, p)]`` and ``table[(p, a)]`` over those present; None if neither."""
    present = [float(table[key]) for key in ((a, p), (p, a)) if key in table]
    return float(np.mean(present)) if present else None


# ---------------------------------------------------------------------- helpers
def _sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function without overflow warnings."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _estimate(value: float, boot: np.ndarray, n: int) -> Estimate:
    """A point estimate with the percentile interval and SD of its bootstrap replicates."""
    boot = boot[np.isfinite(boot)]
    if boot.size == 0:
        return Estimate(value, value, value, float("nan"), n)
    tail = (1.0 - _CONFIDENCE) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail])
    se = float(boot.std(ddof=1)) if boot.size > 1 else 0.0
    return Estimate(value, float(low), float(high), se, n)
