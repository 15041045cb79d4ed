"""Which form of the batched engine's kernels runs: as plain Python, or compiled by numba
(the ``fast`` extra).

Two of the batched engine's jobs are written a game at a time, as plain Python that
numba compiles as it is (:mod:`dehla_env.vector.jitted`), not as a mirror:

* the observation rows (:func:`~dehla_env.vector.observe.observe_rows`, float32 or
  uint8 codes): each row written in one pass while it is in cache;
* the deals (:func:`~dehla_env.vector.engine.draw_deals`: a dealer, then the one
  shuffle, per game, from the same generator; numba's ``Generator.integers`` and
  ``permutation`` draw what numpy's draw).

``kernel="numba"`` runs them compiled, ``kernel="python"`` as they are; the default is
numba where it is installed. The results are the same, bit for bit
(``tests/test_vector_kernels.py``); only the speed differs, which is why the vector env
warns once when it runs without numba. Numba compiles the kernels on first use (some
seconds) and caches them on disk.

The engine step and the legal masks stay numpy: a per-game kernel of them was measured
slower (1.3 against 0.5 ms for a step of 4,096 games), since each game touches some 40
arrays, more streams than the prefetcher follows, where numpy runs down one array at a
time.

What the kernels take, as named tuples that numba reads by field name, is in
:mod:`dehla_env.vector.kernel_types`.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

KERNELS = ("python", "numba")


def check_kernel(kernel: str | None) -> str:
    """``kernel`` if it is one of :data:`KERNELS` (for ``"numba"``, also that numba
    imports, else one line naming the extra); ``None``: ``"numba"`` where numba is
    installed, else ``"python"``."""
    if kernel is None:
        return "numba" if importlib.util.find_spec("numba") is not None else "python"
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(KERNELS)}, not {kernel!r}")
    if kernel == "numba":
        jitted()
    return kernel


def jitted() -> ModuleType:
    """:mod:`dehla_env.vector.jitted`, imported (and numba with it) on first use; a
    missing numba is one line naming the extra."""
    if importlib.util.find_spec("numba") is None:
        raise ImportError("kernel='numba' needs numba: pip install 'dehla[fast]'")
    return importlib.import_module("dehla_env.vector.jitted")  # any other broken install raises as it is
