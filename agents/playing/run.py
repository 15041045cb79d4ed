"""The Python entry points: :func:`run_duel` and :func:`run_round_robin`.

Each checks everything it was given before playing a single deal (the ruleset's
agents are built once, so an unknown spec or an unusable checkpoint is a
``ValueError`` at once, not in a worker process an hour later), cuts the deals into
chunks, runs them (:mod:`.pool`) and wraps the records in a result (:mod:`.results`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agents.playing.deals import FixedDeals
from agents.playing.duel import MODES, Task
from agents.playing.pool import chunks, execute, resolve_workers
from agents.playing.results import DuelResult, RoundRobinResult
from agents.playing.stats import fit_ratings
from agents.registry import make_agent
from dehla_env.rules import Rules

if TYPE_CHECKING:
    from agents.distributed.cluster import RayCluster


def _check_specs(rules: Rules, specs: Sequence[str | None]) -> None:
    for spec in specs:
        if spec is not None:
            make_agent(spec, rules, 0)  # raises ValueError for an unknown spec or an unusable checkpoint


#: the most deals one duel plays: a million duplicate deals (two million games) is far
#: beyond any interval's need, and the chunks and records of more would fill memory
#: before the first result
MAX_DEALS = 1_000_000


def _check_run(deals: int, seed: int, mode: str, fixed: FixedDeals | None = None) -> None:
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    if deals > MAX_DEALS:
        raise ValueError(f"deals must be at most {MAX_DEALS:_}, not {deals}")
    if fixed is not None and deals > len(fixed):
        raise ValueError(f"the deal set holds {len(fixed)} deals, not {deals}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, not {seed}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")


def check_duel(
    rules: Rules,
    spec_a: str,
    spec_b: str,
    deals: int,
    seed: int,
    *,
    mode: str = "hand",
    partner_a: str | None = None,
    partner_b: str | None = None,
    fixed: FixedDeals | None = None,
) -> None:
    """``ValueError`` if :func:`run_duel` with these arguments could not run."""
    _check_run(deals, seed, mode, fixed)
    _check_specs(rules, [spec_a, spec_b, partner_a, partner_b])


def check_round_robin(
    rules: Rules, agents: Sequence[str], deals: int, seed: int, *, mode: str = "hand", fixed: FixedDeals | None = None
) -> None:
    """``ValueError`` if :func:`run_round_robin` with these arguments could not run."""
    _check_run(deals, seed, mode, fixed)
    agents = list(agents)
    if len(agents) < 2:
        raise ValueError("a round robin needs at least two agents")
    if len(set(agents)) != len(agents):
        raise ValueError(f"agents repeat in {agents}")
    _check_specs(rules, agents)


def run_duel(
    rules: Rules,
    spec_a: str,
    spec_b: str,
    deals: int,
    seed: int,
    *,
    workers: int | None = 1,
    mode: str = "hand",
    partner_a: str | None = None,
    partner_b: str | None = None,
    progress: bool = False,
    fixed: FixedDeals | None = None,
    start: int = 0,
    cluster: RayCluster | None = None,
) -> DuelResult:
    """A plays B on ``deals`` duplicate deals (see the package docstring): deals
    ``start .. start + deals - 1`` (a later block of a longer duel plays exactly what
    the longer duel would); ``fixed``: those deals of a given set instead of the deals
    generated from ``seed`` (which still seeds the agents and, in match mode, the later
    hands). ``cluster``: play the chunks as Ray tasks there (the same records)."""
    if start < 0 or deals < 1:
        raise ValueError(f"a duel plays at least 1 deal from a start >= 0, not {deals} from {start}")
    check_duel(
        rules, spec_a, spec_b, start + deals, seed, mode=mode, partner_a=partner_a, partner_b=partner_b, fixed=fixed
    )
    n = resolve_workers(workers) if cluster is None else cluster.cpus
    tasks = [
        Task(
            rules,
            spec_a,
            spec_b,
            partner_a,
            partner_b,
            seed=seed,
            mode=mode,
            start=start + s,
            stop=start + e,
            fixed=fixed,
        )
        for s, e in chunks(deals, n)
    ]
    t = time.perf_counter()
    records, clock, _ = execute(tasks, n, progress, cluster)[None]
    return DuelResult(
        rules=rules,
        a=spec_a,
        b=spec_b,
        seed=seed,
        mode=mode,
        partner_a=partner_a,
        partner_b=partner_b,
        records=records,
        seconds=time.perf_counter() - t,
        clock=clock,
        workers=n,
    )


def run_round_robin(
    rules: Rules,
    agents: Sequence[str],
    deals: int,
    seed: int,
    *,
    workers: int | None = 1,
    mode: str = "hand",
    n_boot: int = 200,
    progress: bool = False,
    fixed: FixedDeals | None = None,
    cluster: RayCluster | None = None,
) -> RoundRobinResult:
    """Every pair of ``agents`` plays a duel on the same duplicate deals; ratings from all."""
    check_round_robin(rules, agents, deals, seed, mode=mode, fixed=fixed)
    agents = list(agents)
    n = resolve_workers(workers) if cluster is None else cluster.cpus
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    tasks = [
        Task(rules, agents[i], agents[j], None, None, seed=seed, mode=mode, start=s, stop=e, key=(i, j), fixed=fixed)
        for (i, j) in pairs
        for s, e in chunks(deals, n)
    ]
    t = time.perf_counter()
    results = execute(tasks, n, progress, cluster)
    seconds = time.perf_counter() - t
    duels = {}
    for i, j in pairs:
        records, clock, secs = results[(i, j)]
        duels[(i, j)] = DuelResult(
            rules=rules,
            a=agents[i],
            b=agents[j],
            seed=seed,
            mode=mode,
            partner_a=None,
            partner_b=None,
            records=records,
            seconds=secs / n,
            clock=clock,
            workers=n,
        )
    ratings = fit_ratings(agents, {p: d.rating_data() for p, d in duels.items()}, n_boot=n_boot, seed=seed)
    return RoundRobinResult(
        rules=rules, agents=agents, seed=seed, mode=mode, duels=duels, ratings=ratings, seconds=seconds
    )
