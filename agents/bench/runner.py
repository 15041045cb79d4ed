"""Duels on a deal set, played in blocks of deals that are saved as they finish, so an
interrupted benchmark resumes from its partial results and a sequential test stops at
a block boundary.

A block is :func:`agents.arena.run_duel` on deals ``start .. start + n - 1`` of the
set: what the whole duel would have played there (agents are seeded per deal and
seat), so a duel's records are the same however it was cut into blocks, interrupted
or spread over processes.

The store is one JSON-lines file: one line per finished block, keyed by everything
that decides its records (benchmark version, preset, specs, mode, deals, and the
sha256 of every checkpoint the specs play with). Lines are
appended and flushed one at a time; a line cut short by a crash is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dehla_env.rules import Rules

from ..arena import DealRecord, DuelResult, run_duel
from ..arena.pool import Progress, make_progress
from ..registry import weight_files
from .deals import DealSet

if TYPE_CHECKING:
    from ..cluster import RayCluster


def file_digest(path: Path) -> str:
    """The sha256 of a file (a policy checkpoint), in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


#: deals per block: a saved unit of work and the step of a sequential test
BLOCK = 100


class Store:
    """Finished blocks, in memory and (with a path) in a JSON-lines file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.blocks: dict[str, list[DealRecord]] = {}
        if self.path is not None and self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    item = json.loads(line)
                    records = [DealRecord(**{**r, "game_scores": tuple(r["game_scores"])}) for r in item["records"]]
                except (ValueError, KeyError, TypeError):
                    continue  # the tail of a run killed while writing
                self.blocks[item["key"]] = records

    def get(self, key: str) -> list[DealRecord] | None:
        return self.blocks.get(key)

    def put(self, key: str, records: list[DealRecord]) -> None:
        self.blocks[key] = records
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps({"key": key, "records": [dataclasses.asdict(r) for r in records]})
            with open(self.path, "a") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())


@dataclass
class Bench:
    """Where and how a benchmark's duels run."""

    deals: DealSet
    mode: str = "hand"
    workers: int | None = 1
    store: Store = dataclasses.field(default_factory=Store)
    progress: Progress | None = None
    cluster: RayCluster | None = None  # play the blocks' chunks as Ray tasks there

    @property
    def rules(self) -> Rules:
        return self.deals.preset.rules()

    def start_progress(self, total: int) -> None:
        self.progress = make_progress(total)

    def stop_progress(self) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress = None

    def duel(
        self,
        a: str,
        b: str,
        deals: int,
        partner_a: str | None = None,
        partner_b: str | None = None,
        enough: Callable[[list[DealRecord]], bool] | None = None,
    ) -> DuelResult:
        """A against B on the first ``deals`` deals of the set, block by block; after
        each block ``enough(records so far)`` may end the duel early."""
        rules = self.rules
        records: list[DealRecord] = []
        clock: dict[str, list[float]] = {}
        specs = [s for s in (a, b, partner_a, partner_b) if s is not None]
        weights = sorted({file_digest(f) for s in specs for f in weight_files(s)})
        t = time.perf_counter()
        for start in range(0, deals, BLOCK):
            n = min(BLOCK, deals - start)
            key = json.dumps(
                [self.deals.version, self.deals.preset.name, a, b, partner_a, partner_b, self.mode, start, n]
                + weights  # a block of an old policy:NAME file is not this one's
            )
            block = self.store.get(key)
            if block is None:
                r = run_duel(
                    rules,
                    a,
                    b,
                    n,
                    self.deals.seed,
                    self.workers,
                    self.mode,
                    partner_a,
                    partner_b,
                    fixed=self.deals.deals,
                    start=start,
                    cluster=self.cluster,
                )
                block = r.records
                for spec, (s, k) in r.clock.items():
                    entry = clock.setdefault(spec, [0.0, 0.0])
                    entry[0] += s
                    entry[1] += k
                self.store.put(key, block)
            records.extend(block)
            if self.progress is not None:
                self.progress.update(n)
            if enough is not None and enough(records):
                break
        return DuelResult(
            rules,
            a,
            b,
            self.deals.seed,
            self.mode,
            partner_a,
            partner_b,
            records,
            time.perf_counter() - t,
            clock,
            self.workers or 1,
        )


def pair_scores(records: list[DealRecord], mode: str) -> list[float]:
    """A's score per duplicate pair, the unit of every benchmark statistic: the share of
    the two games' hands won (matches, in match mode)."""
    if mode == "match":
        return [r.a_matches / 2.0 for r in records]
    return [r.a_hands / r.hands for r in records]
