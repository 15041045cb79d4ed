"""The reference ladder of each preset, and placing a new agent on it.

The references span the range a new bot lands in: ``random``, ``easy``, ``medium``,
``hard``, a sampling search (:data:`SEARCH_REFERENCE`: a fixed number of worlds and no
time budget, so its play does not depend on the machine's speed) and the preset's
shipped policy where one is shipped. Their ratings were fitted once (a round robin on the preset's deal
set: :func:`compute_ladder`) and are published by :mod:`agents.playing.ladder` with the
benchmark version, the deals and the command that produced them; ``random`` is
anchored at 0.

Placing an agent (:func:`place`) plays it against every reference on the first
``deals`` deals of the set and fits its rating with the references' published ratings
held fixed (:func:`agents.bench.ratings.place_on_ladder`), so a new agent's rating is
on the published scale and comparable with every other agent placed on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.bench.ratings import place_on_ladder
from agents.bench.runner import Bench
from agents.playing.deal_sets import Preset
from agents.playing.ladder import ANCHOR, Ladder, policy_digest, published
from agents.playing.results import DuelResult
from agents.playing.stats import Estimate, Ratings, fit_ratings
from agents.registry import SHIPPED_POLICIES

SEARCH_REFERENCE = "search:k=8,depth=3"


def references(preset: Preset) -> list[str]:
    """The preset's references: the shipped policy of its name where one is shipped."""
    refs = ["random", "easy", "medium", "hard", SEARCH_REFERENCE]
    if (SHIPPED_POLICIES / f"{preset.name}.pt").exists():
        refs.append(f"policy:{preset.name}")
    return refs


def compute_ladder(
    bench: Bench, deals: int, command: str, n_boot: int = 200, refs: list[str] | None = None
) -> tuple[Ladder, dict[tuple[int, int], DuelResult]]:
    """The references' round robin on the first ``deals`` deals, fitted and anchored
    (``refs``: a ladder of one's own instead of :func:`references`; it must hold
    ``random``, the anchor). Returns the ladder and the round robin's duels."""
    preset = bench.deals.preset
    refs = references(preset) if refs is None else list(refs)
    if ANCHOR not in refs:
        raise ValueError(f"a ladder is anchored at {ANCHOR!r}, which {refs} lacks")
    duels: dict[tuple[int, int], DuelResult] = {}
    for i in range(len(refs)):
        for j in range(i + 1, len(refs)):
            duels[(i, j)] = bench.duel(refs[i], refs[j], deals)
    fitted = fit_ratings(refs, {p: d.rating_data() for p, d in duels.items()}, n_boot=n_boot, seed=bench.deals.seed)
    shift = fitted.elo[refs.index(ANCHOR)]
    ratings = Ratings(
        fitted.names,
        tuple(x - shift for x in fitted.elo),
        tuple(x - shift for x in fitted.low),
        tuple(x - shift for x in fitted.high),
        fitted.n_boot,
    )
    policies = {spec: policy_digest(spec) for spec in refs if spec.startswith("policy:")}
    ladder = Ladder(
        preset=preset.name,
        version=bench.deals.version,
        mode=bench.mode,
        deals=deals,
        ratings=ratings,
        command=command,
        policies=policies,
    )
    return ladder, duels


def match_edge_per_hand_edge(duels: dict[str, DuelResult]) -> float | None:
    """The hand-to-match relation of match-mode duels: the least-squares slope, through
    the origin, of the match edge (match win rate - 0.5) on the hand edge (hand win rate
    over all the matches' hands - 0.5). Kots, streaks and points turn a small edge per
    hand into a larger one per match; the slope says how much larger. None without a
    match result or a hand edge."""
    pairs = [(d.win_rate.value - 0.5, d.match_win_rate.value - 0.5) for d in duels.values() if d.match_win_rate]
    den = sum(x * x for x, _y in pairs)
    return sum(x * y for x, y in pairs) / den if den > 0 else None


@dataclass(frozen=True)
class Placement:
    """A new agent's duels against the references and its rating on the ladder."""

    spec: str
    ladder: Ladder
    duels: dict[str, DuelResult]
    rating: Estimate

    def as_dict(self) -> dict[str, Any]:
        per_ref = {}
        for ref, d in self.duels.items():
            wr = d.win_rate
            item = {"reference_rating": self.ladder.rating(ref), "win_rate": wr.value, "ci": [wr.low, wr.high]}
            mw = d.match_win_rate
            if mw is not None:
                item.update(match_win_rate=mw.value, match_ci=[mw.low, mw.high])
            item["breakdown"] = {k: [e.value, e.low, e.high] for k, e in d.breakdown().items()}
            per_ref[ref] = item
        deals = next(iter(self.duels.values())).deals
        extra = (
            {} if self.ladder.mode != "match" else {"match_edge_per_hand_edge": match_edge_per_hand_edge(self.duels)}
        )
        return {
            **extra,
            "version": self.ladder.version,
            "preset": self.ladder.preset,
            "mode": self.ladder.mode,
            "agent": self.spec,
            "deals": deals,
            "rating": self.rating.value,
            "rating_ci": [self.rating.low, self.rating.high],
            "references": per_ref,
        }

    def table(self) -> str:
        match = self.ladder.mode == "match"
        head = "| reference | its rating | hand win rate | 95% interval |" + (
            " match win rate | 95% interval |" if match else ""
        )
        lines = [head, "|:--|--:|--:|--:|" + ("--:|--:|" if match else "")]
        for ref, d in sorted(self.duels.items(), key=lambda kv: self.ladder.rating(kv[0])):
            wr = d.win_rate
            row = f"| `{ref}` | {self.ladder.rating(ref):+.0f} | {wr.value:.3f} | [{wr.low:.3f}, {wr.high:.3f}] |"
            mw = d.match_win_rate
            if mw is not None:
                row += f" {mw.value:.3f} | [{mw.low:.3f}, {mw.high:.3f}] |"
            lines.append(row)
        slope = match_edge_per_hand_edge(self.duels) if match else None
        if slope is not None:
            lines += [
                "",
                f"hand to match: a match edge is {slope:.2f} x the hand edge (least squares over the references)",
            ]
        deals = next(iter(self.duels.values())).deals
        refs = sorted(self.duels, key=self.ladder.rating)
        parts = {ref: self.duels[ref].breakdown() for ref in refs}
        rows = list(parts[refs[0]])
        lines += ["", "per seat and role (share of hands won by the agent):", ""]
        lines.append("| | " + " | ".join(f"`{ref}`" for ref in refs) + " |")
        lines.append("|:--|" + "--:|" * len(refs))
        for row in rows:
            cells = [f"{parts[ref][row].value:.3f}" if row in parts[ref] else "" for ref in refs]
            label = row.replace("A's", "agent's").replace("A on", "agent on").replace("B's", "reference's")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        r = self.rating
        return (
            f"`{self.spec}` on the {self.ladder.preset} ladder ({self.ladder.version}, mode {self.ladder.mode}, "
            f"{deals} deals x 2 against each reference)\n"
            + "\n".join(lines)
            + f"\n\nrating {r.value:+.0f} [{r.low:+.0f}, {r.high:+.0f}] (Elo scale, {ANCHOR} at 0)"
        )


def place(bench: Bench, spec: str, deals: int, n_boot: int = 200, ladder: Ladder | None = None) -> Placement:
    """``spec`` against every reference of ``ladder`` (default: the published one) on
    the first ``deals`` deals, and its rating with the references' held fixed."""
    ladder = published(bench.deals.preset, bench.mode) if ladder is None else ladder
    ladder.check_policies()
    duels = {ref: bench.duel(spec, ref, deals) for ref in ladder.ratings.names}
    results = {ref: d.rating_data() for ref, d in duels.items()}
    ref_ratings = {ref: ladder.rating(ref) for ref in duels}
    rating = place_on_ladder(ref_ratings, results, n_boot=n_boot, seed=bench.deals.seed)
    return Placement(spec, ladder, duels, rating)
