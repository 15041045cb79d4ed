"""The reference ladder of each preset, and placing a new agent on it.

The references span the range a new bot lands in: ``random``, ``easy``, ``medium``,
``hard``, a sampling search (:data:`SEARCH_REFERENCE`: a fixed number of worlds and no
time budget, so its play does not depend on the machine's speed) and the preset's
shipped policy where one is shipped. Their ratings were fitted once (a round robin on the preset's deal
set: :func:`compute_ladder`) and are published in ``data/ladder.json`` with the
benchmark version, the deals and the command that produced them; ``random`` is
anchored at 0.

Placing an agent (:func:`place`) plays it against every reference on the first
``deals`` deals of the set and fits its rating with the references' published ratings
held fixed (:func:`agents.bench.ratings.place_on_ladder`), so a new agent's rating is
on the published scale and comparable with every other agent placed on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.bench.ratings import place_on_ladder
from agents.bench.runner import Bench, file_digest
from agents.playing.deal_sets import Preset
from agents.playing.results import DuelResult
from agents.playing.stats import Estimate, Ratings, fit_ratings
from agents.registry import SHIPPED_POLICIES

SEARCH_REFERENCE = "search:k=8,depth=3"
LADDER_FILE = Path(__file__).resolve().parent / "data" / "ladder.json"
ANCHOR = "random"


def references(preset: Preset) -> list[str]:
    """The preset's references: the shipped policy of its name where one is shipped."""
    refs = ["random", "easy", "medium", "hard", SEARCH_REFERENCE]
    if (SHIPPED_POLICIES / f"{preset.name}.pt").exists():
        refs.append(f"policy:{preset.name}")
    return refs


@dataclass(frozen=True)
class Ladder:
    """A preset's published reference ratings (Elo scale, ``random`` at 0)."""

    preset: str
    version: str
    mode: str
    deals: int
    ratings: Ratings
    command: str
    policies: dict[str, str] = field(default_factory=dict)  # policy reference -> sha256 of its file

    def rating(self, spec: str) -> float:
        return self.ratings.elo[self.ratings.names.index(spec)]

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "mode": self.mode,
            "deals": self.deals,
            "ratings": self.ratings.as_dict(),
            "command": self.command,
            "policies": self.policies,
        }

    def check_policies(self) -> None:
        """``ValueError`` if a policy reference's file is not the one the ladder was
        fitted with (a retrained shipped policy needs a refitted ladder)."""
        for spec, digest in self.policies.items():
            if policy_digest(spec) != digest:
                raise ValueError(
                    f"the {self.preset} ladder was fitted with another {spec} than the one installed; "
                    f"refit it: {self.command} --write"
                )

    def table(self) -> str:
        head = (
            f"reference ladder of {self.preset} ({self.version}, mode {self.mode}): round robin on the first "
            f"{self.deals} deals of the set, Bradley-Terry on the Elo scale, {ANCHOR} at 0, 95% bootstrap intervals"
        )
        return f"{head}\n{markdown(self.ratings)}\nreproduce: {self.command}"


def policy_digest(spec: str) -> str:
    """The sha256 of the shipped file behind ``policy:NAME``."""
    name = spec.split(":", 1)[1]
    return file_digest(SHIPPED_POLICIES / f"{name}.pt")


def markdown(ratings: Ratings) -> str:
    rows = [
        f"| {rank} | `{ratings.names[i]}` | {ratings.elo[i]:+.0f} | [{ratings.low[i]:+.0f}, {ratings.high[i]:+.0f}] |"
        for rank, i in enumerate(ratings.order(), 1)
    ]
    return "\n".join(["| # | agent | rating | 95% interval |", "|--:|:--|--:|--:|", *rows])


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text()))


def published(preset: Preset, mode: str = "hand", path: Path | None = None) -> Ladder:
    """The published ladder of ``preset`` in ``mode`` (from ``path``, default :data:`LADDER_FILE`)."""
    path = LADDER_FILE if path is None else path
    entry = _read(path).get(preset.name, {}).get(mode)
    if entry is None:
        raise ValueError(
            f"no published {mode} ladder for {preset.name} in {path}; compute one with "
            f"python -m agents.bench --rules {preset.rules_name}"
            + "".join(f" --option {k}={v}" for k, v in preset.options)
            + f" --mode {mode} --compute-ladder --write"
        )
    names = tuple(entry["ratings"])
    r = entry["ratings"]
    ratings = Ratings(
        names,
        tuple(float(r[n]["rating"]) for n in names),
        tuple(float(r[n]["low"]) for n in names),
        tuple(float(r[n]["high"]) for n in names),
        n_boot=0,
    )
    return Ladder(
        preset=preset.name,
        version=str(entry["version"]),
        mode=mode,
        deals=int(entry["deals"]),
        ratings=ratings,
        command=str(entry["command"]),
        policies=dict(entry.get("policies", {})),
    )


def publish(ladder: Ladder, path: Path | None = None) -> None:
    path = LADDER_FILE if path is None else path
    data = _read(path)
    data.setdefault(ladder.preset, {})[ladder.mode] = ladder.as_dict()
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


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
