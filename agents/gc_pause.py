"""Pausing Python's cycle collector around hot loops that allocate many short-lived
objects.

Reference counting frees those objects at once; the cycle collector only adds work
there, walking every tracked object (torch's and numpy's modules included) each few
hundred allocations. A decision of the batched search spent about a tenth of its time
in collections, a rollout shard of the trainer about a twentieth.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause the cycle collector for a block that leaves no cycles behind that matter;
    the collector, on again afterwards, finds any cycle later. Nested blocks keep it
    off until the outermost one ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
