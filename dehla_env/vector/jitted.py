"""The batched engine's kernels compiled by numba (imported only when asked for, see
:mod:`dehla_env.vector.kernels`).

Each is the plain function of :mod:`dehla_env.vector` compiled as it is: the deals
(:func:`~dehla_env.vector.engine.draw_deals`) and the observation writer
(:func:`~dehla_env.vector.observe.observe_rows`). The writer's two copy helpers get a
compiled body of their own here (numba's ``overload``): a loop over unsigned indices,
which compiles to vector moves, where Python does a slice assignment.
``tests/test_vector_kernels.py`` holds the compiled kernels to the plain ones, bit for bit.

Numba's disk cache is keyed on the compiled function's own file: after changing a
helper's compiled body here, delete ``dehla_env/vector/__pycache__/*.nbi``.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba.extending import overload

from . import observe
from .engine import draw_deals as _draw_deals

jit = numba.njit(cache=True, nogil=True)


@overload(observe._copy, inline="always")
def _copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> Callable[..., None]:
    def copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> None:
        d, s = np.uintp(at), np.uintp(start)  # unsigned: no negative-index check
        for j in range(np.uintp(count)):
            dst[d + j] = src[s + j]

    return copy


@overload(observe._fill, inline="always")
def _fill(dst: np.ndarray, at: int, count: int) -> Callable[..., None]:
    def fill(dst: np.ndarray, at: int, count: int) -> None:
        d = np.uintp(at)
        for j in range(np.uintp(count)):
            dst[d + j] = 0

    return fill


#: :func:`dehla_env.vector.engine.draw_deals`, compiled
draw_deals = jit(_draw_deals)
#: :func:`dehla_env.vector.observe.observe_rows`, compiled
observe_rows = jit(observe.observe_rows)
