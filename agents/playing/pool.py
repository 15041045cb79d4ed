"""Running chunks of deals: in this process or a pool of worker processes, with a
progress display, and a clean stop on Ctrl-C.

Deals are cut into chunks (at most 50 deals, about eight per worker) so the pool stays
busy to the end; records come back in any order and are sorted by deal, so the result
does not depend on the number of workers. Progress uses tqdm where it is installed (a
dev extra) and a plain line on stderr otherwise, so nothing but numpy is needed to run.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from agents.playing.duel import Clock, DealRecord, Task, run_chunk
from agents.registry import weight_files

if TYPE_CHECKING:
    from agents.distributed.cluster import RayCluster

#: per task key: the duel's records (sorted by deal), its clock, and the chunks' summed wall time
Collected = dict[Any, tuple[list[DealRecord], Clock, float]]


def chunks(deals: int, workers: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of every chunk of deals ``0..deals-1``."""
    size = max(1, min(50, math.ceil(deals / max(1, workers * 8))))
    return [(s, min(deals, s + size)) for s in range(0, deals, size)]


def resolve_workers(workers: int | None) -> int:
    """The number of processes: ``None`` is every core; below 1 is one (in-process)."""
    return max(1, workers if workers is not None else (os.cpu_count() or 1))


class Progress(Protocol):
    def update(self, n: int) -> None: ...

    def close(self) -> None: ...


class LineProgress:
    """A plain progress line on ``stream``: rewritten in place on a terminal (at most
    five times a second), one line every ten seconds in a log file."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = sys.stderr if stream is None else stream  # looked up now: stderr may be redirected
        self.tty = self.stream.isatty()
        self.every = 0.2 if self.tty else 10.0
        self.start = self.last = time.perf_counter()
        self.written = False

    def update(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if self.done < self.total and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        text = f"{self.done}/{self.total} deals ({100 * self.done / max(1, self.total):.0f}%), {elapsed:.0f} s"
        if 0 < self.done < self.total:
            text += f", ~{elapsed * (self.total - self.done) / self.done:.0f} s left"
        self.stream.write(f"\r{text}\033[K" if self.tty else text + "\n")
        self.stream.flush()
        self.written = True

    def close(self) -> None:
        if self.tty and self.written:
            self.stream.write("\n")
            self.stream.flush()


def make_progress(total: int) -> Progress:
    """tqdm's bar on stderr where tqdm is installed, else :class:`LineProgress`."""
    try:
        from tqdm import tqdm
    except ImportError:
        return LineProgress(total)
    bar: Progress = tqdm(total=total, unit="deal", file=sys.stderr, smoothing=0.05)
    return bar


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by :func:`sigterm_stops`. A kind of
    ``KeyboardInterrupt``, so it takes Ctrl-C's way out: every ``except
    KeyboardInterrupt`` and ``except BaseException`` on the way stops the worker
    processes (:func:`execute`) before the command exits."""


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread while inside. Python's
    default for SIGTERM ends the process on the spot, leaving its pool's workers to
    finish the chunk they hold (minutes for a slow bot) before they notice; raised as
    an exception, it stops them as Ctrl-C does. Outside the main thread (where no
    handler can be set) nothing changes."""

    def raise_terminated(signum: int, frame: Any) -> None:
        raise Terminated

    try:
        before = signal.signal(signal.SIGTERM, raise_terminated)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def worker_init() -> None:
    """Each worker: one thread for libraries with thread pools (torch policies), and
    Ctrl-C left to the parent, which stops the pool (a terminal sends SIGINT to every
    process of the group; without this each worker would print its own traceback).
    SIGTERM is the default again (a forked worker inherits :func:`sigterm_stops`'s
    handler, whose exception the pool would catch and carry on): the parent's
    ``terminate()`` then ends the worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


@contextlib.contextmanager
def torch_on_one_thread() -> Iterator[None]:
    """Torch on one thread inside the block; the caller's setting is restored after. A
    network's forward pass on one observation gains nothing from a thread pool, and on
    a busy machine the pool's threads wait on each other: measured with another job on
    both cores, ``policy:dehla`` made 71 decisions/s on two threads, 1,574 on one."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def one_torch_thread(tasks: Sequence[Task]) -> Iterator[None]:
    """Torch on one thread while chunks that play a torch checkpoint run in this
    process, as in a worker (:func:`worker_init`); a play file plays in numpy."""
    specs = {s for t in tasks for s in (t.spec_a, t.spec_b, t.partner_a, t.partner_b) if s is not None}
    if all(f.suffix == ".safetensors" for spec in specs for f in weight_files(spec)):
        yield
        return
    with torch_on_one_thread():
        yield


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the pool now: drop the queued chunks and end the running ones (a chunk of a
    slow bot can take minutes; waiting for it would look like a hang)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(timeout=5)


def execute(
    tasks: Sequence[Task],
    workers: int,
    progress: bool,
    cluster: RayCluster | None = None,
    initializer: Callable[[], None] = worker_init,
) -> Collected:
    """Run every chunk (in ``workers`` local processes, or as Ray tasks on ``cluster``);
    results per task key, records sorted by deal. Any exception, KeyboardInterrupt
    included, stops the workers before it propagates. ``initializer``: what each local
    worker process runs first (:func:`worker_init`, or a measurement's own that calls it)."""
    bar = make_progress(sum(t.stop - t.start for t in tasks)) if progress else None
    out: Collected = {}

    def collect(key: Any, records: list[DealRecord], clock: Clock, seconds: float) -> None:
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
        if cluster is not None:
            cluster.map(run_chunk, tasks, on_result=lambda _, result: collect(*result))
        elif workers <= 1:
            with one_torch_thread(tasks):
                for task in tasks:
                    collect(*run_chunk(task))
        else:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=initializer)
            try:
                futures = [pool.submit(run_chunk, task) for task in tasks]
                for future in as_completed(futures):
                    collect(*future.result())
            except BaseException:
                _stop(pool)
                raise
            pool.shutdown()
    finally:
        if bar is not None:
            bar.close()
    for recs, _, _ in out.values():
        recs.sort(key=lambda r: r.index)
    return out
