"""A persistent pool of worker processes that a stop request can interrupt: the
imitation warm start records the teacher's hands with it (the teacher is a scalar,
view-based bot, so its games spread over processes), and PPO's rollouts play their
shards in it (:func:`agents.training.selfplay.collect_shard`). On a Ray cluster
(:class:`agents.distributed.cluster.RayCluster`) the same tasks run as Ray tasks instead: a task
whose worker died is run again by Ray, and its result is the same."""

from __future__ import annotations

import atexit
import multiprocessing as mp
import multiprocessing.util
import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.training.runs import Stop, WorkerDied

if TYPE_CHECKING:
    from agents.distributed.cluster import RayCluster


def _worker_exit(signum: int, frame: Any) -> None:
    """SIGTERM in a worker: exit, unless the worker is exiting already (the pool told it
    to end and multiprocessing runs its exit handlers): raised there, the ``SystemExit``
    only printed a traceback."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: a second one would interrupt the exit itself
    if getattr(mp.util, "_exiting", False):  # set by multiprocessing.util._exit_function
        return
    raise SystemExit(128 + signum)


def _worker_init() -> None:
    """Rollout workers leave stopping to the parent. They ignore SIGINT: a Ctrl-C reaches
    the whole process group, and a worker that died of it inside a task left the parent
    waiting for its result for ever. SIGTERM (from ``Pool.terminate`` or to the group)
    becomes ``SystemExit``, which releases the task queue's lock on the way out; a
    worker killed while it waits under that lock makes ``Pool.terminate`` hang."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_exit)
    import torch  # the workers share the cores: one torch thread each

    torch.set_num_threads(1)
    # a worker already on its way out (the pool told it to end) ignores the SIGTERM of
    # Pool.terminate: raised inside an exit handler it only printed a traceback
    atexit.register(signal.signal, signal.SIGTERM, signal.SIG_IGN)


#: seconds :meth:`Workers.terminate` waits for the pool to end its workers, before it kills them
_TERMINATE_WAIT = 2.0


class Workers:
    """A persistent pool of rollout processes (``spawn``: forking a process whose torch
    thread pools are running can deadlock the child). ``n <= 0`` runs in-process.

    :meth:`map` waits in short steps, so that it notices a stop request (and a worker
    killed from outside) within a fraction of a second."""

    def __init__(self, n: int, stop: Stop, cluster: RayCluster | None = None) -> None:
        self.n = n
        self.stop = stop
        self.cluster = cluster
        self.pool: Any = None
        if n > 0 and cluster is None:
            # The workers start with SIGINT ignored (an ignored signal stays ignored across
            # exec), not only from _worker_init on: a Ctrl-C while they import is harmless.
            # Blocked meanwhile, a SIGINT for the parent waits for its handler.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                self.pool = mp.get_context("spawn").Pool(n, initializer=_worker_init)
            finally:
                signal.signal(signal.SIGINT, handler)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def map(self, fn: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
        if self.cluster is not None:
            return self.cluster.map(fn, tasks, check=self.stop.check)
        if self.pool is None:
            with self.stop.abortable():
                return [fn(t) for t in tasks]
        procs = list(self.pool._pool)  # the pool replaces a dead worker, but its task is lost
        pending = self.pool.map_async(fn, tasks)
        while True:
            try:
                return pending.get(timeout=0.2)
            except mp.TimeoutError:
                pass
            self.stop.check()
            dead = [p for p in procs if p.exitcode is not None]
            if dead:
                time.sleep(0.2)  # a signal to the whole group may reach the parent last
                self.stop.check()
                raise WorkerDied(f"worker {dead[0].pid} died (exit code {dead[0].exitcode})")

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None

    def terminate(self) -> None:
        """End the workers now, waiting at most a few seconds."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        procs = list(pool._pool)
        ender = threading.Thread(target=pool.terminate, daemon=True)
        ender.start()
        ender.join(_TERMINATE_WAIT)
        if ender.is_alive():
            # a worker slow to honour SIGTERM (busy in compiled code on a loaded machine)
            # or one that died holding a queue lock: kill them all, give the pool's own
            # threads a moment to notice, and move on (they are daemons)
            for p in procs + list(pool._pool):
                p.kill()
            ender.join(_TERMINATE_WAIT)
