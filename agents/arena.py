"""The arena: duplicate-deal duels and round robins between agents.

    python -m agents.arena --rules dehla [--option key=value ...] --a hard --b medium \\
        --deals 2000 --seed 7 [--json] [--partner-a SPEC] [--partner-b SPEC] \\
        [--workers N] [--mode hand|match] [--agents a,b,c] [--plot out.png] [--quiet]

**Duplicate deals.** Deal ``i`` has the deck drawn from ``np.random.default_rng([seed,
i])`` and dealer ``i % players``. Every deal is played twice with the sides swapped: A's
side on seats {0, 2} ({0, 2, 4} with six players) and B's on {1, 3}, then A on {1, 3}
and B on {0, 2}; same dealer, same cards, same chance generator for the R1.4 draw. The
agent at seat ``s`` is made fresh for each game with a seed derived from ``(seed, i,
s)`` only, so results do not depend on the number of worker processes, and an agent
against itself scores exactly 0.5. The pair of games is the statistical unit (see
:mod:`agents.stats`).

**Cross-play.** A side's *lead* seat is its lowest seat: seat 0 when the side sits on
{0, 2} and seat 1 when it sits on {1, 3}. The lead seat plays the side's spec (``--a``
or ``--b``); the other seats of the side (the partner opposite, both teammates with
six players) play ``--partner-a`` / ``--partner-b`` when given (``--partner`` is
``--partner-a``), otherwise the same spec.

**Modes.** ``--mode hand`` (default): each game is one hand. ``--mode match``: each
game is a whole match; hand ``k`` of the match is dealt from ``default_rng([seed, i,
3, k])`` (its R1.4 draw from ``[seed, i, 4, k]``), so both games of a deal see the same
decks in the same order. A match stops at the ruleset's ``max_hands`` or, where it has
none (``coat-pees``), after 1000 hands as a draw.

**Figures**, all from A's side: ``win_rate``, the share of hands (rounds) won by A, a
hand with no winner (``dehla-direct`` 2-2, a tie) counting half, with its 95% interval
(normal approximation over deals; a seeded percentile bootstrap too); ``tens_diff``
and ``points_diff``, A minus B per hand; kots per side; in match mode
``match_win_rate``, a drawn or unfinished match counting half; decisions per second per
spec (time inside ``act``).

**Round robin.** ``--agents hard,medium,easy,random`` plays every pair on the same
deals and prints Bradley-Terry ratings on the Elo scale with 95% bootstrap intervals
(over deals) and the pairwise matrix; ``--plot`` draws the ladder.

Python: :func:`run_duel` and :func:`run_round_robin`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dehla_env.engine import DRAW, MatchState, Phase
from dehla_env.rules import PRESETS, Rules, make_rules
from dehla_env.view import PlayerView, view_of

from .base import Agent
from .registry import make_agent
from .runner import play_hand
from .stats import Estimate, Ratings, bootstrap_ci, fit_ratings, format_table, ratio_ci

MODES = ("hand", "match")
MATCH_HAND_CAP = 1000  # a match with no max_hands stops here (a draw)

# Stream tags under (seed, deal): keep the generators of different purposes apart.
_CHANCE = 1  # the R1.4 draw of a one-hand game
_AGENT = 2  # agent seeds: (seed, deal, _AGENT, seat)
_MATCH_DECK = 3  # match mode: deck of hand k
_MATCH_DRAW = 4  # match mode: R1.4 draw of hand k


# ---------------------------------------------------------------------- deals and seats
def deal_deck(rules: Rules, seed: int, index: int) -> list[int]:
    """Deck of deal ``index`` (card ids in dealing order, three packs with six players)."""
    rng = np.random.default_rng([seed, index])
    return [int(c) % 52 for c in rng.permutation(rules.deck_size)]


def deal_dealer(rules: Rules, index: int) -> int:
    return index % rules.players


def agent_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in deal ``index`` (both games of the deal)."""
    return int(np.random.SeedSequence([seed, index, _AGENT, seat]).generate_state(1)[0])


def seat_specs(
    players: int, game: int, spec_a: str, spec_b: str, partner_a: str | None = None, partner_b: str | None = None
) -> list[str]:
    """The spec at every seat in game ``game`` (0: A on the even seats, 1: A on the odd).

    Each side's lowest seat plays its lead spec, the other seats of the side its partner
    spec (the lead spec when no partner is given)."""
    a_side = game
    specs = []
    for s in range(players):
        lead = s < 2
        if s % 2 == a_side:
            specs.append(spec_a if lead or partner_a is None else partner_a)
        else:
            specs.append(spec_b if lead or partner_b is None else partner_b)
    return specs


class _Timed(Agent):
    """Counts the decisions and the seconds spent inside ``act`` of the wrapped agent."""

    def __init__(self, inner: Agent, clock: dict[str, list[float]], spec: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.rng = inner.rng
        self._entry = clock.setdefault(spec, [0.0, 0.0])

    def seed(self, seed: int | None) -> None:
        self.inner.seed(seed)
        self.rng = self.inner.rng

    def act(self, view: PlayerView) -> int:
        t = time.perf_counter()
        action = self.inner.act(view)
        entry = self._entry
        entry[0] += time.perf_counter() - t
        entry[1] += 1
        return action


# ---------------------------------------------------------------------- one deal
@dataclass(frozen=True)
class _Task:
    rules: Rules
    spec_a: str
    spec_b: str
    partner_a: str | None
    partner_b: str | None
    seed: int
    mode: str
    start: int
    stop: int
    key: Any = None  # which duel of a round robin


@dataclass(frozen=True)
class DealRecord:
    """Both games of one deal, from A's side."""

    index: int
    hands: int  # hands played in the two games
    a_hands: float  # hands won by A, no-winner counting half
    tens_diff: int  # A minus B, summed over the hands
    points_diff: int
    kots_a: int
    kots_b: int
    a_matches: float  # match mode: matches won by A of the two (draw: half); hand mode: 0
    decisions: int
    game_scores: tuple[float, float]  # A's share of the hands won in game 0 and game 1


def _play_match(rules: Rules, first_dealer: int, seats: Sequence[Agent], seed: int, index: int) -> dict[str, Any]:
    """A whole match with per-hand deck and draw streams (both games see the same decks)."""
    match = MatchState(rules, first_dealer)
    cap = rules.max_hands if rules.max_hands is not None else MATCH_HAND_CAP
    decisions = 0
    tens = [0, 0]
    dealt = 0
    while not match.is_terminal() and match.hands_completed < cap:
        if match.is_chance():
            if match.hand.phase == Phase.DRAW:
                match.sample_chance(np.random.default_rng([seed, index, _MATCH_DRAW, dealt - 1]))
            else:
                match.apply_deal(
                    deal_deck(rules, seed, index) if dealt == 0 else _match_deck(rules, seed, index, dealt)
                )
                dealt += 1
            continue
        seat = match.current_player()
        match.apply_action(seats[seat].act(view_of(match, seat)))
        decisions += 1
        if match.hand.complete:
            tens[0] += match.hand.tens[0]
            tens[1] += match.hand.tens[1]
    return {
        "winner": match.winner,
        "hand_winners": [s.hand_winner for s in match.summaries],
        "kots": tuple(match.kots),
        "points": tuple(match.points),
        "tens": tuple(tens),
        "decisions": decisions,
    }


def _match_deck(rules: Rules, seed: int, index: int, k: int) -> list[int]:
    rng = np.random.default_rng([seed, index, _MATCH_DECK, k])
    return [int(c) % 52 for c in rng.permutation(rules.deck_size)]


def _share(winner: int | str | None, a_side: int) -> float:
    if winner is None or winner == DRAW:
        return 0.5
    return 1.0 if winner == a_side else 0.0


def play_deal(task: _Task, index: int, clock: dict[str, list[float]] | None = None) -> DealRecord:
    """Play deal ``index`` both ways round."""
    rules = task.rules
    clock = {} if clock is None else clock
    dealer = deal_dealer(rules, index)
    deck = deal_deck(rules, task.seed, index) if task.mode == "hand" else None
    hands = 0
    a_hands = 0.0
    tens_diff = points_diff = kots_a = kots_b = decisions = 0
    a_matches = 0.0
    game_scores = []
    for game in (0, 1):
        a, b = game, 1 - game  # A's side, B's side
        specs = seat_specs(rules.players, game, task.spec_a, task.spec_b, task.partner_a, task.partner_b)
        seats: list[Agent] = [
            _Timed(make_agent(spec, rules, agent_seed(task.seed, index, s)), clock, spec)
            for s, spec in enumerate(specs)
        ]
        if task.mode == "hand":
            assert deck is not None
            chance = np.random.default_rng([task.seed, index, _CHANCE])
            out = play_hand(rules, deck, dealer, seats, chance)
            share = _share(out.winner, a)
            hands += 1
            a_hands += share
            game_scores.append(share)
            tens_diff += out.tens[a] - out.tens[b]
            points_diff += out.points[a] - out.points[b]
            kots_a += out.kot == a
            kots_b += out.kot == b
            decisions += out.decisions
        else:
            m = _play_match(rules, dealer, seats, task.seed, index)
            won = sum(_share(w, a) for w in m["hand_winners"])
            n = len(m["hand_winners"])
            hands += n
            a_hands += won
            game_scores.append(won / n if n else 0.5)
            tens_diff += m["tens"][a] - m["tens"][b]
            points_diff += m["points"][a] - m["points"][b]
            kots_a += m["kots"][a]
            kots_b += m["kots"][b]
            a_matches += _share(m["winner"], a)
            decisions += m["decisions"]
    return DealRecord(
        index=index,
        hands=hands,
        a_hands=a_hands,
        tens_diff=tens_diff,
        points_diff=points_diff,
        kots_a=kots_a,
        kots_b=kots_b,
        a_matches=a_matches,
        decisions=decisions,
        game_scores=(game_scores[0], game_scores[1]),
    )


def _run_chunk(task: _Task) -> tuple[Any, list[DealRecord], dict[str, list[float]], float]:
    """Worker entry point: deals ``start..stop-1`` of one duel."""
    t = time.perf_counter()
    clock: dict[str, list[float]] = {}
    records = [play_deal(task, i, clock) for i in range(task.start, task.stop)]
    return task.key, records, clock, time.perf_counter() - t


# ---------------------------------------------------------------------- results
def points_matter(rules: Rules) -> bool:
    """Whether the ruleset scores points per hand (court-piece, coat-pees, points mode)."""
    return rules.scores_points


@dataclass
class DuelResult:
    """A duel's per-deal records and its figures (all from A's side)."""

    rules: Rules
    a: str
    b: str
    seed: int
    mode: str
    partner_a: str | None
    partner_b: str | None
    records: list[DealRecord]
    seconds: float
    clock: dict[str, list[float]] = field(default_factory=dict)
    workers: int = 1

    # ----- per-deal arrays
    @property
    def deals(self) -> int:
        return len(self.records)

    def _arr(self, name: str) -> np.ndarray:
        return np.array([getattr(r, name) for r in self.records], dtype=float)

    @property
    def hands(self) -> int:
        return int(sum(r.hands for r in self.records))

    @property
    def win_rate(self) -> Estimate:
        """Share of hands won by A (no winner: half), normal interval over deals."""
        return ratio_ci(self._arr("a_hands"), self._arr("hands"))

    def win_rate_bootstrap(self, n_boot: int = 2000) -> Estimate:
        return bootstrap_ci(self._arr("a_hands"), self._arr("hands"), n_boot=n_boot, seed=self.seed)

    @property
    def tens_diff(self) -> Estimate:
        return ratio_ci(self._arr("tens_diff"), self._arr("hands"))

    @property
    def points_diff(self) -> Estimate:
        return ratio_ci(self._arr("points_diff"), self._arr("hands"))

    @property
    def match_win_rate(self) -> Estimate | None:
        if self.mode != "match":
            return None
        return ratio_ci(self._arr("a_matches"), np.full(self.deals, 2.0))

    @property
    def kots_a(self) -> int:
        return int(sum(r.kots_a for r in self.records))

    @property
    def kots_b(self) -> int:
        return int(sum(r.kots_b for r in self.records))

    @property
    def decisions(self) -> int:
        return int(sum(r.decisions for r in self.records))

    def speeds(self) -> dict[str, float]:
        """Decisions per second inside ``act``, per spec."""
        return {spec: (n / s if s > 0 else float("inf")) for spec, (s, n) in self.clock.items()}

    def rating_data(self) -> tuple[np.ndarray, np.ndarray]:
        """Per deal: what A scored and out of how many (hands; matches in match mode)."""
        if self.mode == "match":
            return self._arr("a_matches"), np.full(self.deals, 2.0)
        return self._arr("a_hands"), self._arr("hands")

    # ----- output
    def as_dict(self) -> dict[str, Any]:
        wr = self.win_rate
        boot = self.win_rate_bootstrap()
        td = self.tens_diff
        pd = self.points_diff
        out: dict[str, Any] = {
            "rules": self.rules.name,
            "options": self.rules.option_dict(),
            "a": self.a,
            "b": self.b,
            "partner_a": self.partner_a,
            "partner_b": self.partner_b,
            "seed": self.seed,
            "mode": self.mode,
            "deals": self.deals,
            "hands": self.hands,
            "hands_won_a": float(self._arr("a_hands").sum()),
            "win_rate": wr.value,
            "ci_low": wr.low,
            "ci_high": wr.high,
            "boot_low": boot.low,
            "boot_high": boot.high,
            "tens_diff": td.value,
            "tens_diff_ci": [td.low, td.high],
            "points_diff": pd.value,
            "points_diff_ci": [pd.low, pd.high],
            "kots_a": self.kots_a,
            "kots_b": self.kots_b,
            "decisions": self.decisions,
            "decisions_per_second": {k: round(v, 1) for k, v in self.speeds().items()},
            "seconds": round(self.seconds, 3),
            "workers": self.workers,
        }
        mw = self.match_win_rate
        if mw is not None:
            out.update(
                matches=2 * self.deals,
                matches_won_a=float(self._arr("a_matches").sum()),
                match_win_rate=mw.value,
                match_ci_low=mw.low,
                match_ci_high=mw.high,
            )
        return _finite(out)

    def label(self, side: str) -> str:
        spec = self.a if side == "a" else self.b
        partner = self.partner_a if side == "a" else self.partner_b
        return spec if partner is None else f"{spec}+{partner}"

    def table(self) -> str:
        wr = self.win_rate
        boot = self.win_rate_bootstrap()
        head = (
            f"{self.rules}  A={self.label('a')} vs B={self.label('b')}  "
            f"{self.deals} deals x 2 (duplicate), seed {self.seed}, mode {self.mode}"
        )
        rows: list[list[str]] = []

        def est(name: str, e: Estimate, digits: int = 4) -> None:
            rows.append([name, f"{e.value:.{digits}f}", f"[{e.low:.{digits}f}, {e.high:.{digits}f}]"])

        est("A hand win rate" if self.mode == "hand" else "A hand win rate (all hands)", wr)
        rows.append(["  (bootstrap)", "", f"[{boot.low:.4f}, {boot.high:.4f}]"])
        rows.append(["  hands won by A", f"{self._arr('a_hands').sum():g} of {self.hands}", ""])
        mw = self.match_win_rate
        if mw is not None:
            est("A match win rate", mw)
            rows.append(["  matches won by A", f"{self._arr('a_matches').sum():g} of {2 * self.deals}", ""])
        if self.rules.tens_scoring:
            est("tens A-B / hand", self.tens_diff, 3)
        if points_matter(self.rules):
            est("points A-B / hand", self.points_diff, 3)
        rows.append(["kots A-B", f"{self.kots_a}-{self.kots_b}", ""])
        speeds = ", ".join(f"{k} {v:,.0f}" for k, v in self.speeds().items())
        foot = f"{self.decisions:,} decisions in {self.seconds:.1f} s ({self.workers} workers); decisions/s: {speeds}"
        return "\n".join([head, format_table(["", "value", "95% interval"], rows, align="lrr"), foot])


def _finite(obj: Any) -> Any:
    """JSON-safe: NaN and infinities become null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


# ---------------------------------------------------------------------- running
def _chunks(deals: int, workers: int) -> list[tuple[int, int]]:
    size = max(1, min(50, math.ceil(deals / max(1, workers * 8))))
    return [(s, min(deals, s + size)) for s in range(0, deals, size)]


def _check_specs(rules: Rules, specs: Sequence[str | None]) -> None:
    for spec in specs:
        if spec is not None:
            make_agent(spec, rules, 0)  # raises ValueError for an unknown spec


def _execute(tasks: list[_Task], workers: int, progress: bool) -> dict[Any, tuple[list[DealRecord], dict, float]]:
    """Run every chunk; results per task key, records sorted by deal."""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(t.stop - t.start for t in tasks), unit="deal", file=sys.stderr, smoothing=0.05)
    out: dict[Any, tuple[list[DealRecord], dict, float]] = {}

    def collect(key: Any, records: list[DealRecord], clock: dict, seconds: float) -> None:
        recs, total_clock, secs = out.setdefault(key, ([], {}, 0.0))
        recs.extend(records)
        for spec, (s, n) in clock.items():
            entry = total_clock.setdefault(spec, [0.0, 0.0])
            entry[0] += s
            entry[1] += n
        out[key] = (recs, total_clock, secs + seconds)
        if bar is not None:
            bar.update(len(records))

    try:
        if workers <= 1:
            for task in tasks:
                collect(*_run_chunk(task))
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_worker_init) as pool:
                futures = [pool.submit(_run_chunk, task) for task in tasks]
                for future in as_completed(futures):
                    collect(*future.result())
    finally:
        if bar is not None:
            bar.close()
    for recs, _, _ in out.values():
        recs.sort(key=lambda r: r.index)
    return out


def _worker_init() -> None:
    """One thread per worker process for libraries with thread pools (torch policies)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _workers(workers: int | None) -> int:
    return max(1, workers if workers is not None else (os.cpu_count() or 1))


def _validate(rules: Rules, deals: int, seed: int, mode: str) -> None:
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, not {seed}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")


def run_duel(
    rules: Rules,
    spec_a: str,
    spec_b: str,
    deals: int,
    seed: int,
    workers: int | None = 1,
    mode: str = "hand",
    partner_a: str | None = None,
    partner_b: str | None = None,
    progress: bool = False,
) -> DuelResult:
    """A plays B on ``deals`` duplicate deals (see the module docstring)."""
    _validate(rules, deals, seed, mode)
    _check_specs(rules, [spec_a, spec_b, partner_a, partner_b])
    n = _workers(workers)
    tasks = [_Task(rules, spec_a, spec_b, partner_a, partner_b, seed, mode, s, e) for s, e in _chunks(deals, n)]
    t = time.perf_counter()
    records, clock, _ = _execute(tasks, n, progress)[None]
    return DuelResult(
        rules, spec_a, spec_b, seed, mode, partner_a, partner_b, records, time.perf_counter() - t, clock, n
    )


@dataclass
class RoundRobinResult:
    rules: Rules
    agents: list[str]
    seed: int
    mode: str
    duels: dict[tuple[int, int], DuelResult]
    ratings: Ratings
    seconds: float

    @property
    def deals(self) -> int:
        return next(iter(self.duels.values())).deals

    def matrix(self) -> np.ndarray:
        """``m[i, j]``: what agent ``i`` scored against ``j`` (hands; matches in match mode); NaN on the diagonal."""
        k = len(self.agents)
        m = np.full((k, k), np.nan)
        for (i, j), duel in self.duels.items():
            score, games = duel.rating_data()
            r = float(score.sum() / games.sum())
            m[i, j] = r
            m[j, i] = 1.0 - r
        return m

    def as_dict(self) -> dict[str, Any]:
        return _finite(
            {
                "rules": self.rules.name,
                "options": self.rules.option_dict(),
                "agents": self.agents,
                "seed": self.seed,
                "mode": self.mode,
                "deals": self.deals,
                "ratings": self.ratings.as_dict(),
                "matrix": [[None if np.isnan(x) else float(x) for x in row] for row in self.matrix()],
                "pairs": [d.as_dict() for d in self.duels.values()],
                "seconds": round(self.seconds, 3),
            }
        )

    def table(self) -> str:
        unit = "matches" if self.mode == "match" else "hands"
        head = (
            f"{self.rules}  round robin of {len(self.agents)}, {self.deals} deals x 2 per pair, seed {self.seed}, "
            f"mode {self.mode}"
        )
        ratings = "Bradley-Terry ratings (Elo scale, mean 0; 95% bootstrap over deals, "
        ratings += f"{self.ratings.n_boot} resamples):\n" + self.ratings.table()
        m = self.matrix()
        order = self.ratings.order()
        rows = [[self.agents[i]] + ["" if i == j else f"{m[i, j]:.3f}" for j in order] for i in order]
        matrix = f"share of {unit} won by the row against the column:\n" + format_table(
            ["", *[self.agents[j] for j in order]], rows
        )
        pair_rows = []
        for (i, j), d in self.duels.items():
            wr = d.win_rate if self.mode == "hand" else d.match_win_rate
            assert wr is not None
            pair_rows.append(
                [f"{self.agents[i]} vs {self.agents[j]}", f"{wr.value:.4f}", f"[{wr.low:.4f}, {wr.high:.4f}]"]
            )
        pairs = format_table(["pair", "A score", "95% interval"], pair_rows, align="lrr")
        return "\n\n".join([head, ratings, matrix, pairs, f"{self.seconds:.1f} s"])

    def plot(self, path: str) -> None:
        plot_ladder(self.ratings, path, title=f"{self.rules} ({self.deals} deals x 2 per pair, seed {self.seed})")


def run_round_robin(
    rules: Rules,
    agents: Sequence[str],
    deals: int,
    seed: int,
    workers: int | None = 1,
    mode: str = "hand",
    n_boot: int = 200,
    progress: bool = False,
) -> RoundRobinResult:
    """Every pair of ``agents`` plays a duel on the same duplicate deals; ratings from all."""
    _validate(rules, deals, seed, mode)
    agents = list(agents)
    if len(agents) < 2:
        raise ValueError("a round robin needs at least two agents")
    if len(set(agents)) != len(agents):
        raise ValueError(f"agents repeat in {agents}")
    _check_specs(rules, agents)
    n = _workers(workers)
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    tasks = [
        _Task(rules, agents[i], agents[j], None, None, seed, mode, s, e, key=(i, j))
        for (i, j) in pairs
        for s, e in _chunks(deals, n)
    ]
    t = time.perf_counter()
    results = _execute(tasks, n, progress)
    seconds = time.perf_counter() - t
    duels = {}
    for i, j in pairs:
        records, clock, secs = results[(i, j)]
        duels[(i, j)] = DuelResult(rules, agents[i], agents[j], seed, mode, None, None, records, secs / n, clock, n)
    ratings = fit_ratings(agents, {p: d.rating_data() for p, d in duels.items()}, n_boot=n_boot, seed=seed)
    return RoundRobinResult(rules, agents, seed, mode, duels, ratings, seconds)


def duel_ratings(duel: DuelResult, n_boot: int = 200) -> Ratings:
    """The two-agent ladder of one duel (for ``--plot`` without ``--agents``)."""
    names = [duel.label("a"), duel.label("b")]
    if names[0] == names[1]:
        names = [names[0] + " (A)", names[1] + " (B)"]
    return fit_ratings(names, {(0, 1): duel.rating_data()}, n_boot=n_boot, seed=duel.seed)


def plot_ladder(ratings: Ratings, path: str, title: str = "") -> None:
    """Ratings with their 95% intervals as a horizontal ladder (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = ratings.order()[::-1]  # strongest at the top
    names = [ratings.names[i] for i in order]
    elo = np.array([ratings.elo[i] for i in order])
    low = np.array([ratings.low[i] for i in order])
    high = np.array([ratings.high[i] for i in order])
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(names)))
    y = np.arange(len(names))
    ax.errorbar(
        elo, y, xerr=[np.maximum(elo - low, 0), np.maximum(high - elo, 0)], fmt="o", capsize=4, color="tab:blue"
    )
    ax.set_yticks(y, names)
    ax.set_xlabel("rating (Elo scale, Bradley-Terry; 95% bootstrap interval)")
    ax.axvline(0.0, color="grey", lw=0.5)
    if title:
        ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agents.arena",
        description="Duplicate-deal duels and round robins between bots.",
        epilog="Cross-play: each side's lowest seat plays --a/--b, its other seats the partner spec.",
    )
    parser.add_argument("--rules", default="dehla", choices=PRESETS)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    parser.add_argument("--a", default="hard", metavar="SPEC", help="agent A (default hard)")
    parser.add_argument("--b", default="medium", metavar="SPEC", help="agent B (default medium)")
    parser.add_argument("--partner-a", "--partner", dest="partner_a", metavar="SPEC", help="A's partner(s)")
    parser.add_argument("--partner-b", dest="partner_b", metavar="SPEC", help="B's partner(s)")
    parser.add_argument("--agents", metavar="A,B,...", help="round robin of these agents (instead of --a/--b)")
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals (each played twice)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--mode", choices=MODES, default="hand", help="a game is one hand or a whole match")
    parser.add_argument("--bootstrap", type=int, default=200, metavar="N", help="rating bootstrap resamples")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the ladder (ratings with 95%% intervals)")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    from dehla_env.demo import parse_options

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rules = make_rules(args.rules, parse_options(args.option))
    except ValueError as e:
        parser.error(str(e))
    progress = not args.quiet
    try:
        if args.agents:
            if args.partner_a or args.partner_b:
                parser.error("--partner-a/--partner-b apply to a duel (--a/--b), not to --agents")
            agents = [a.strip() for a in args.agents.split(",") if a.strip()]
            rr = run_round_robin(
                rules, agents, args.deals, args.seed, args.workers, args.mode, n_boot=args.bootstrap, progress=progress
            )
            if args.plot:
                rr.plot(args.plot)
            print(json.dumps(rr.as_dict()) if args.json else rr.table())
            return 0
        duel = run_duel(
            rules,
            args.a,
            args.b,
            args.deals,
            args.seed,
            args.workers,
            args.mode,
            args.partner_a,
            args.partner_b,
            progress=progress,
        )
    except ValueError as e:
        parser.error(str(e))
    if args.plot:
        plot_ladder(duel_ratings(duel, args.bootstrap), args.plot, title=f"{rules} ({duel.deals} deals x 2)")
    print(json.dumps(duel.as_dict()) if args.json else duel.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
