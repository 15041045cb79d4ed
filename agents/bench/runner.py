"""Duels on a deal set, played in blocks of deals that are saved as they finish, so an
interrupted benchmark resumes from its partial results and a sequential test stops at
a block boundary.

A block is :func:`agents.playing.run.run_duel` on deals ``start .. start + n - 1`` of the
set: what the whole duel would have played there (agents are seeded per deal and
seat), so a duel's records are the same however it was cut into blocks, interrupted
or spread over processes.

The store is one JSON-lines file: one line per finished block, keyed by everything
that decides its records (benchmark version, preset, specs, mode, deals, and the
sha256 of every checkpoint the specs play with). Lines are
appended and flushed one at a time. A block is trusted only whole: on reading, every
line must be a block of exactly the deals its key names, each record complete, of the
right types, in deal order and within its ranges (:func:`read_block`); a line that is
not (the tail of a run killed while writing, a line cut or edited by hand) is
discarded with a note and its deals are played again. A file that is not one this
command wrote (not UTF-8, a directory, no line a block) is refused with one line
(:class:`ResultsError`) rather than appended to.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.playing.deal_sets import DealSet
from agents.playing.duel import DealRecord
from agents.playing.ladder import file_digest
from agents.playing.pool import Progress, make_progress
from agents.playing.results import DuelResult
from agents.playing.run import run_duel
from agents.registry import weight_files
from dehla_env.rules import Rules

if TYPE_CHECKING:
    from agents.distributed.cluster import RayCluster


#: deals per block: a saved unit of work and the step of a sequential test
BLOCK = 100


#: the largest results file read: a block of 100 deals is some 30 KB, so this holds
#: thousands of blocks, and refuses a wrong file (a disk image, a device) before reading it
MAX_RESULTS_BYTES = 512 * 1024 * 1024

_FIELDS = {f.name: f for f in dataclasses.fields(DealRecord)}
_INT_FIELDS = {name for name, f in _FIELDS.items() if f.type in ("int", int)}


#: how every saved line starts (``json.dumps`` of a dict whose first key is ``key``)
_BLOCK_START = '{"key": '


class ResultsError(ValueError):
    """A ``--results`` file that cannot be used (one line: the command exits 2)."""


class BadBlock(ValueError):
    """Why one saved line is not a complete, consistent block."""


def _number(value: Any, what: str, integer: bool, low: float, high: float = math.inf) -> None:
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        raise BadBlock(f"{what} is {'an integer' if integer else 'a number'}, not {value!r:.40}")
    if not (math.isfinite(value) and low <= value <= high):
        raise BadBlock(f"{what} is out of range: {value!r:.40}")


def _record(raw: Any, index: int) -> DealRecord:
    """The record of deal ``index`` from its saved form; :class:`BadBlock` unless every
    field is there, of its type and in its range (a record of the two games of one deal)."""
    if not isinstance(raw, dict):
        raise BadBlock(f"deal {index}: a record is an object, not {type(raw).__name__}")
    unknown = sorted(set(raw) - set(_FIELDS))
    missing = sorted(n for n, f in _FIELDS.items() if n not in raw and f.default is dataclasses.MISSING)
    if unknown or missing:
        raise BadBlock(f"deal {index}: fields {', '.join(missing)} missing, {', '.join(unknown)} unknown"[:200])
    if raw["index"] != index or isinstance(raw["index"], bool):
        raise BadBlock(f"the records are not deals in order: deal {raw['index']!r:.20} where {index} belongs")
    for name in raw:
        if name == "game_scores":
            continue
        signed = name in ("tens_diff", "points_diff")
        _number(raw[name], f"deal {index}: {name}", name in _INT_FIELDS, -math.inf if signed else 0)
    hands = raw["hands"]
    if hands < 2:
        raise BadBlock(f"deal {index}: {hands} hands in two games")
    for name in ("a_hands", "lead_hands", "make_hands", "defend_hands"):
        if raw.get(name, 0) > hands:
            raise BadBlock(f"deal {index}: {name} {raw[name]} of {hands} hands")
    _number(raw["a_matches"], f"deal {index}: a_matches", False, 0, 2)
    scores = raw["game_scores"]
    if not isinstance(scores, list) or len(scores) != 2:
        raise BadBlock(f"deal {index}: game_scores is a pair of numbers, not {scores!r:.40}")
    for s in scores:
        _number(s, f"deal {index}: game_scores", False, 0, 1)
    return DealRecord(**{**raw, "game_scores": tuple(scores)})


def read_block(line: str) -> tuple[str, list[DealRecord]]:
    """The key and records of one saved line; :class:`BadBlock` unless it is a whole
    block: its key names the deals (``start``, ``n``: the key's eighth and ninth
    entries) and the records are exactly deals ``start .. start + n - 1``, in order."""
    try:
        item = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise BadBlock(f"not JSON ({str(e)[:80]})") from None
    if not isinstance(item, dict) or set(item) != {"key", "records"}:
        raise BadBlock("not a block (an object of key and records)")
    key, records = item["key"], item["records"]
    try:
        fields = json.loads(key) if isinstance(key, str) else None
    except (ValueError, RecursionError):
        fields = None
    if not isinstance(fields, list) or len(fields) < 9 or not all(isinstance(d, str) for d in fields[9:]):
        raise BadBlock("its key is not a block's")
    start, n = fields[7], fields[8]
    if isinstance(start, bool) or isinstance(n, bool) or not isinstance(start, int) or not isinstance(n, int):
        raise BadBlock("its key names no deals")
    if start < 0 or not 1 <= n <= BLOCK:
        raise BadBlock(f"its key names deals {start} +{n}")
    if not isinstance(records, list) or len(records) != n:
        got = len(records) if isinstance(records, list) else type(records).__name__
        raise BadBlock(f"{got} records of the {n} deals from {start}: cut short")
    return key, [_record(r, start + i) for i, r in enumerate(records)]


class Store:
    """Finished blocks, in memory and (with a path) in a JSON-lines file.

    With a path, the file is read (:meth:`_load`) and checked writable at once, so a
    file that cannot be used is a :class:`ResultsError` before anything is played;
    ``notes`` holds a line for each saved line discarded. A block that cannot be saved
    later (a full disk) is kept in memory with a note to ``say``, and the run goes on."""

    def __init__(self, path: str | Path | None = None, say: Callable[[str], None] | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.blocks: dict[str, list[DealRecord]] = {}
        self.notes: list[str] = []
        self.say = say
        self._newline = False  # the file ends inside a line: the next block starts a new one
        if self.path is not None:
            self._load(self.path)

    def _load(self, path: Path) -> None:
        where = f"--results {path}"
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as e:
            raise ResultsError(f"{where}: cannot read it: {e.strerror or e}") from None
        if info is not None:
            if not stat.S_ISREG(info.st_mode):
                what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                raise ResultsError(f"{where}: {what}; name a results file (JSON lines of saved blocks) or a new one")
            if info.st_size > MAX_RESULTS_BYTES:
                raise ResultsError(f"{where}: {info.st_size} bytes, more than a results file holds")
            try:
                data = path.read_bytes()
            except OSError as e:
                raise ResultsError(f"{where}: cannot read it: {e.strerror or e}") from None
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise ResultsError(f"{where}: not UTF-8 text, so not a results file; name another file") from None
            self._read(text, where)
            self._newline = bool(text) and not text.endswith("\n")
        try:  # writable, before anything is played
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as e:
            raise ResultsError(f"{where}: cannot write it: {e.strerror or e}") from None

    def _read(self, text: str, where: str) -> None:
        """Keep the whole blocks of ``text``; note the damaged ones (lines this class
        began to write: they start as every saved block does). A line that does not
        start so is not a saved block at all: the file is someone else's, and is
        refused rather than appended to."""
        lines = text.split("\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if not line.startswith(_BLOCK_START):
                raise ResultsError(
                    f"{where}: not a results file (line {number} is not a saved block); name another file"
                )
            try:
                key, records = read_block(line)
            except BadBlock as e:
                tail = " (the end of a run stopped while saving)" if number == len(lines) else ""
                self.notes.append(f"{where}: line {number} is not a complete block{tail}: {e}; its deals play again")
                continue
            self.blocks[key] = records

    def get(self, key: str) -> list[DealRecord] | None:
        return self.blocks.get(key)

    def put(self, key: str, records: list[DealRecord]) -> None:
        self.blocks[key] = records
        if self.path is None:
            return
        line = json.dumps({"key": key, "records": [dataclasses.asdict(r) for r in records]})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(("\n" if self._newline else "") + line + "\n")
                f.flush()
                os.fsync(f.fileno())
            self._newline = False
        except OSError as e:
            if self.say is not None:
                self.say(f"note: --results {self.path}: cannot save a block ({e.strerror or e}); no more are saved")
            self.path = None


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
                    workers=self.workers,
                    mode=self.mode,
                    partner_a=partner_a,
                    partner_b=partner_b,
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
            rules=rules,
            a=a,
            b=b,
            seed=self.deals.seed,
            mode=self.mode,
            partner_a=partner_a,
            partner_b=partner_b,
            records=records,
            seconds=time.perf_counter() - t,
            clock=clock,
            workers=self.workers or 1,
        )


def pair_scores(records: list[DealRecord], mode: str) -> list[float]:
    """A's score per duplicate pair, the unit of every benchmark statistic: the share of
    the two games' hands won (matches, in match mode)."""
    if mode == "match":
        return [r.a_matches / 2.0 for r in records]
    return [r.a_hands / r.hands for r in records]
