"""Results: a duel's and a round robin's per-deal records, the figures computed from
them (intervals over deals, ratings), and their text tables and JSON objects.

Everything here is computed from the records alone, so a result can be rebuilt,
merged or re-tabled without playing again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.playing.duel import Clock, DealRecord
from agents.playing.plot import plot_ladder
from agents.playing.stats import Estimate, Ratings, bootstrap_ci, fit_ratings, format_table, mean_ci, ratio_ci
from dehla_env.rules import Rules


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
    clock: Clock = field(default_factory=dict)
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

    def breakdown(self) -> dict[str, Estimate]:
        """A's share of hands won per seating and per role of its side, with 95%
        intervals over deals: A on the even seats (game 0) or the odd ones (game 1);
        A's side leading the first trick or not; A's side making trump (the bidder's
        side, with bidding) or defending, where anyone made trump."""
        if not self.records:
            return {}
        g = np.array([r.game_scores for r in self.records], dtype=float)
        hands, won = self._arr("hands"), self._arr("a_hands")
        lead, lead_won = self._arr("lead_hands"), self._arr("lead_won")
        players = self.rules.players
        out = {
            f"A on seats {', '.join(map(str, range(0, players, 2)))}": mean_ci(g[:, 0]),
            f"A on seats {', '.join(map(str, range(1, players, 2)))}": mean_ci(g[:, 1]),
            "A's side led first": ratio_ci(lead_won, lead),
            "B's side led first": ratio_ci(won - lead_won, hands - lead),
        }
        make = self._arr("make_hands")
        if make.sum() > 0:
            out["A's side made trump"] = ratio_ci(self._arr("make_won"), make)
            out["B's side made trump"] = ratio_ci(self._arr("defend_won"), self._arr("defend_hands"))
        return out

    def swings(self) -> tuple[Estimate, Estimate] | None:
        """Hand mode: (the share of deals the cards decided, A's share of hands won on
        the others), with 95% intervals over deals; None in match mode.

        A deal is *flat* when its two games split one hand each way (or both had no
        winner): the same seats won both times, whoever held them, so the play changed
        nothing. On the other (*swing*) deals the play decided, and the win rate is
        ``0.5 * flat + swing_share * (1 - flat)``: where most deals are flat, a small
        win rate is a large edge in the deals that can be won.
        """
        if self.mode != "hand" or not self.records:
            return None
        total = np.array([sum(r.game_scores) for r in self.records], dtype=float)
        flat = np.isclose(total, 1.0)
        return mean_ci(flat.astype(float)), mean_ci(total[~flat] / 2.0)

    def breakdown_table(self) -> str:
        rows = [[name, f"{e.value:.3f}", f"[{e.low:.3f}, {e.high:.3f}]"] for name, e in self.breakdown().items()]
        return format_table(["A's share of hands won", "value", "95% interval"], rows, align="lrr")

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
        out["verdict"] = self.verdict()
        out["breakdown"] = {name: [e.value, e.low, e.high] for name, e in self.breakdown().items()}
        swings = self.swings()
        if swings is not None:
            flat, swing = swings
            out["flat_deals"] = [flat.value, flat.low, flat.high]
            out["swing_win_rate"] = [swing.value, swing.low, swing.high]
        return finite(out)

    def label(self, side: str) -> str:
        spec = self.a if side == "a" else self.b
        partner = self.partner_a if side == "a" else self.partner_b
        return spec if partner is None else f"{spec}+{partner}"

    def verdict(self) -> str:
        """The result in plain words: A's share with its interval, and whether the
        interval tells the two apart (it excludes 0.5) or more deals are needed."""
        wr = self.win_rate
        what = "hands" if self.mode == "hand" else "hands (all hands of the matches)"
        share = f"A ({self.label('a')}) wins {wr.value:.3f} of {what} [{wr.low:.3f}, {wr.high:.3f}]"
        if wr.low > 0.5:
            return f"{share}: stronger than B, the 95% interval excludes 0.5"
        if wr.high < 0.5:
            return f"{share}: weaker than B, the 95% interval excludes 0.5"
        return f"{share}: no clear difference, the 95% interval includes 0.5 (more deals would narrow it)"

    def legend(self) -> str:
        """What the table's less obvious lines mean, for a reader new to the arena."""
        lines = ["Every deal is played twice with the sides swapped; intervals are 95%, over deals."]
        if self.rules.tens_scoring:
            lines.append("tens A-B / hand: the tens A's side took minus B's, per hand.")
        lines.append("kots: the big wins of a ruleset (all tens, or all tricks: RULES.md R1.8, R2.6, R3.4).")
        if self.mode == "hand":
            lines.append(
                "deals the cards decided: the share of deals whose two plays went to the same seats (the cards won "
                "them, whoever played); A's share of the others: A's share of hands in the deals the play decided."
            )
        return "\n".join(lines)

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
        swings = self.swings()
        if swings is not None:
            est("deals the cards decided", swings[0], 3)
            est("A's share of the others", swings[1], 3)
        speeds = ", ".join(f"{k} {v:,.0f}" for k, v in self.speeds().items())
        foot = f"{self.decisions:,} decisions in {self.seconds:.1f} s ({self.workers} workers); decisions/s: {speeds}"
        main = format_table(["", "value", "95% interval"], rows, align="lrr")
        return "\n".join([head, main, "", self.breakdown_table(), "", foot, "", self.legend(), "", self.verdict()])


def finite(obj: Any) -> Any:
    """JSON-safe: NaN and infinities become null (``json.dumps`` would write ``NaN``,
    which is not JSON)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [finite(v) for v in obj]
    return obj


@dataclass
class RoundRobinResult:
    """Every pair's duel on the same deals, and the Bradley-Terry ratings fitted to all."""

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
        return finite(
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
        return "\n\n".join([head, ratings, matrix, pairs, f"played in {self.seconds:.1f} s"])

    def plot(self, path: str) -> None:
        plot_ladder(self.ratings, path, title=f"{self.rules} ({self.deals} deals x 2 per pair, seed {self.seed})")


def duel_ratings(duel: DuelResult, n_boot: int = 200) -> Ratings:
    """The two-agent ladder of one duel (for ``--plot`` without ``--agents``)."""
    names = [duel.label("a"), duel.label("b")]
    if names[0] == names[1]:
        names = [names[0] + " (A)", names[1] + " (B)"]
    return fit_ratings(names, {(0, 1): duel.rating_data()}, n_boot=n_boot, seed=duel.seed)
