"""Optional compiled kernels for the batched engine's hot loops (numba, the ``fast`` extra).

The numpy code of :mod:`dehla_env.vector` is the reference. With ``kernel="numba"``
(:class:`~dehla_env.vector.engine.BatchEngine`,
:class:`~dehla_env.vector.observe.BatchObserver`, ``vector_env``) two of its jobs run in
the kernels of :mod:`dehla_env.vector.jitted`, a game at a time in one pass over memory
instead of one array operation at a time over all games:

* the observation rows (``BatchObserver.observe``, float32 or uint8 codes): each row is
  written once while it is in cache, about twice as fast for float32 rows;
* the deals (``BatchEngine.sample_deals``: a dealer, then the one shuffle, per game, from
  the same generator): the engine's own :func:`~dehla_env.vector.engine.draw_deals`
  compiled (numba's ``Generator.integers`` and ``permutation`` draw what numpy's draw),
  about three times as fast.

The engine step and the legal masks stay numpy: a per-game kernel of them was measured
slower (1.3 against 0.5 ms for a step of 4,096 games), since each game touches some 40
arrays, more streams than the prefetcher follows, where numpy runs down one array at a
time.

``tests/test_vector_kernels.py`` holds every kernel to its reference (every observation
row, every deal, bit for bit, on every ruleset). Nothing imports numba unless a kernel
is asked for; a missing numba is one line naming the extra. Numba compiles the kernels
on first use (some seconds) and caches them on disk.

What the kernels take, as named tuples that numba reads by field name, is in
:mod:`dehla_env.vector.kernel_types`.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

KERNELS = ("numpy", "numba")


def check_kernel(kernel: str) -> str:
    """``kernel`` if it is one of :data:`KERNELS`; for ``"numba"``, also that numba
    imports (else one line naming the extra)."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(KERNELS)}, not {kernel!r}")
    if kernel == "numba":
        jitted()
    return kernel


def fastest_kernel() -> str:
    """``"numba"`` where numba is installed, else ``"numpy"``: for callers that want the
    speed and need the same results either way (the kernels are bit-identical)."""
    return "numba" if importlib.util.find_spec("numba") is not None else "numpy"


def jitted() -> ModuleType:
    """:mod:`dehla_env.vector.jitted`, imported (and numba with it) on first use; a
    missing numba is one line naming the extra."""
    if importlib.util.find_spec("numba") is None:
        raise ImportError("kernel='numba' needs numba: pip install 'dehla[fast]'")
    return importlib.import_module("dehla_env.vector.jitted")  # any other broken install raises as it is
