"""The published reference ladders (``data/ladder.json``): reading, checking and writing them.

A ladder is a preset's reference ratings on the Elo scale (``random`` at 0), fitted and
placed on by the benchmark (:mod:`agents.bench.ladder`); it lives in the play library
so that any application (the web's bot list, the benchmark) reads the same file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.playing.deal_sets import Preset
from agents.playing.stats import Ratings
from agents.registry import SHIPPED_POLICIES

LADDER_FILE = Path(__file__).resolve().parent / "data" / "ladder.json"
ANCHOR = "random"


def file_digest(path: Path) -> str:
    """The sha256 of a file (a policy checkpoint), in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
