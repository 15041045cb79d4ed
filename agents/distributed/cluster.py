"""Ray as a backend: the arena's deals, the benchmark's blocks and the trainer's
rollout shards spread over a Ray cluster (or a Ray started on this machine).

Every unit of work here is already a pure function of its task (a chunk of deals, a
rollout shard: seeded by deal and seat, or by shard), so running it on another node
changes nothing in its result: a run on Ray equals the local run for the same seed,
bit for bit. Ray re-runs a task whose worker process or node died (``max_retries``),
and the results are collected per task, once, so a lost worker's deals are played
again, never lost or counted twice.

Ray is the optional extra ``ray`` (``pip install 'dehla[ray]'``, in an environment of
its own: Ray pins its own gymnasium); nothing here imports it until a cluster is asked
for. On a cluster every node needs the project installed (the same version), as for
any Ray program; ``--address`` joins a running cluster (``ray start --head`` on the
head node, ``ray start --address HEAD:6379`` on the others), otherwise a local Ray
starts with the requested number of CPUs.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

RAY_EXTRA = "pip install 'dehla[ray]'"
BACKENDS = ("local", "ray")


def require_ray() -> ModuleType:
    """Ray, or a one-line ``ModuleNotFoundError`` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ModuleNotFoundError(
            f"the ray backend needs Ray: {RAY_EXTRA} (in its own environment: Ray pins its own gymnasium)",
            name="ray",
        ) from None
    return ray


def _reachable(address: str) -> None:
    """``ConnectionError`` at once if nothing listens at ``HOST:PORT`` (``ray.init``
    waits minutes for an unreachable head before it gives up)."""
    host, sep, port = address.rpartition(":")
    if address == "auto" or not sep or not port.isdigit():
        return  # ray.init resolves "auto" and says what is wrong with anything else
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        raise ConnectionError(f"nothing answers at {address} ({e.strerror or e})") from None


@dataclass
class RayCluster:
    """A connection to Ray and a way to run ``fn`` over tasks on it.

    ``address``: a running cluster to join (``auto`` or ``HOST:PORT``); ``None``
    starts a local Ray with ``num_cpus`` CPUs (default: all) unless one is running in
    this process already. ``max_retries``: how often a task whose worker died is run
    again."""

    address: str | None = None
    num_cpus: int | None = None
    max_retries: int = 3

    def __post_init__(self) -> None:
        self.ray = require_ray()
        if not self.ray.is_initialized():
            if self.address:
                _reachable(self.address)
                self.ray.init(address=self.address, log_to_driver=False)
            else:
                self.ray.init(num_cpus=self.num_cpus, include_dashboard=False, log_to_driver=False)
        self._remote: dict[Callable[..., Any], Any] = {}

    @property
    def cpus(self) -> int:
        return int(self.ray.cluster_resources().get("CPU", 1))

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Sequence[Any],
        on_result: Callable[[int, Any], None] | None = None,
        check: Callable[[], None] | None = None,
    ) -> list[Any]:
        """``[fn(t) for t in tasks]``, each task a Ray task (retried if its worker
        dies); ``on_result(i, result)`` as each finishes, in any order; ``check()``
        every fraction of a second while waiting (it may raise to stop: the tasks
        still running are then cancelled)."""
        ray = self.ray
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = ray.remote(num_cpus=1, max_retries=self.max_retries)(fn)
        refs = [remote.remote(t) for t in tasks]
        where = {ref: i for i, ref in enumerate(refs)}
        out: list[Any] = [None] * len(refs)
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=0.2)
                if check is not None:
                    check()
                for ref in done:
                    i = where[ref]
                    out[i] = ray.get(ref)
                    if on_result is not None:
                        on_result(i, out[i])
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        return out


def connect(backend: str, address: str | None, num_cpus: int | None) -> RayCluster | None:
    """The cluster a ``backend`` setting asks for (``None`` for local processes). Every
    way it can fail is a ``ValueError`` of one line (a missing extra: the
    ``ModuleNotFoundError`` naming it), for the command lines to print."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "local":
        if address is not None:
            raise ValueError("an address belongs to the ray backend")
        return None
    try:
        return RayCluster(address, num_cpus)
    except ModuleNotFoundError:
        raise
    except Exception as e:  # ray.init: ConnectionError, ValueError, RuntimeError ...
        raise ValueError(f"ray backend: cannot reach Ray at {address or 'a local start'}: {e}") from None
