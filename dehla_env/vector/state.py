"""Where the batched engine keeps its hands: every state array a view into one of two
buffers, bytes and 64-bit integers, so that a compiled call takes three arrays, not
forty.

Numba looks at each array argument of a call before it runs (its type, its layout):
about 0.05 µs an array, so the forty arrays of the engine would cost 2-4 µs a call
however few games it plays. A call of the engine on one game (a decision of the
PettingZoo env's single game) pays that at every step. With the buffers, the call
passes ``(u8, i64, meta)`` and :func:`arrays_of` makes the same views inside the
compiled code, at no cost. :data:`LAYOUT` is each array's place: its buffer and its
shape, in the games ``N``, the players ``n``, the tricks ``T`` and the deck ``D``;
``meta`` holds each array's offset into its buffer, then ``N``, then the ruleset's
facts (:class:`~dehla_env.vector.kernel_types.HandFacts`, in order), which
:func:`facts_of` reads back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

from ..cards import NUM_CARDS
from .kernel_types import HandArrays, HandFacts, inlined

U8, I64, BOOL = "u8", "i64", "bool"  # the buffer (and the view's dtype) of an array

#: per array of :class:`~dehla_env.vector.kernel_types.HandArrays`, in its order: the
#: buffer it lives in and its shape (``"2n"``: the doubled per-seat arrays)
LAYOUT: tuple[tuple[str, str, tuple[str | int, ...]], ...] = (
    ("hands", U8, ("N", "n", NUM_CARDS)),
    ("played2", U8, ("N", "2n", NUM_CARDS)),
    ("voids2", U8, ("N", "2n", 4)),
    ("bid_code2", I64, ("N", "2n")),
    ("won", U8, ("N", 2, NUM_CARDS)),
    ("middle", U8, ("N", NUM_CARDS)),
    ("suitcnt", I64, ("N", "n", 4)),
    ("counts", I64, ("N", "2n")),
    ("trick_cards", I64, ("N", "n")),
    ("best_key", I64, ("N",)),
    ("best_seat", I64, ("N",)),
    ("trick_winners", I64, ("N", "T")),
    ("take_cards", I64, ("N", "T")),
    ("deck", I64, ("N", "D")),
    ("tricks", I64, ("N", 2)),
    ("tens", I64, ("N", 2)),
    ("cards_won", I64, ("N", 2)),
    ("dealer", I64, ("N",)),
    ("phase", I64, ("N",)),
    ("to_act", I64, ("N",)),
    ("stage", I64, ("N",)),
    ("leader", I64, ("N",)),
    ("led", I64, ("N",)),
    ("ntrick", I64, ("N",)),
    ("ntricks", I64, ("N",)),
    ("trump", I64, ("N",)),
    ("trump_suit", I64, ("N",)),
    ("trump_maker", I64, ("N",)),
    ("hidden", BOOL, ("N",)),
    ("ctx", I64, ("N",)),
    ("last_winner", I64, ("N",)),
    ("mid_count", I64, ("N",)),
    ("mid_tens", I64, ("N",)),
    ("high_bid", I64, ("N",)),
    ("bid_seat", I64, ("N",)),
    ("bid_suit", I64, ("N",)),
    ("contract_seat", I64, ("N",)),
    ("contract_level", I64, ("N",)),
    ("contract_suit", I64, ("N",)),
)
assert tuple(name for name, _b, _s in LAYOUT) == HandArrays._fields
_N = len(LAYOUT)  # meta[_N]: the games; meta[_N + 1 :]: the facts


def _dims(meta: np.ndarray) -> dict[str, int]:
    facts = HandFacts._make(int(x) for x in meta[_N + 1 :])
    n = facts.n
    return {"N": int(meta[_N]), "n": n, "2n": 2 * n, "T": facts.num_tricks, "D": facts.deck_size}


def _shape(layout: tuple[str | int, ...], dims: dict[str, int]) -> tuple[int, ...]:
    return tuple(dims[d] if isinstance(d, str) else d for d in layout)


def allocate(num_games: int, facts: HandFacts) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Zeroed buffers for ``num_games`` hands of a ruleset of ``facts``: ``u8``, ``i64``,
    ``meta``, and the arrays of :data:`LAYOUT` in order, views into the buffers (as
    :func:`arrays_of` makes them)."""
    meta = np.zeros(_N + 1 + len(facts), np.int64)
    meta[_N] = num_games
    meta[_N + 1 :] = [int(x) for x in facts]
    dims = _dims(meta)
    used = {U8: 0, I64: 0}
    for i, (_name, buffer, shape) in enumerate(LAYOUT):
        kind = I64 if buffer == I64 else U8
        meta[i] = used[kind]
        used[kind] += int(np.prod(_shape(shape, dims)))
    u8, i64 = np.zeros(used[U8], np.uint8), np.zeros(used[I64], np.int64)
    return u8, i64, meta, views(u8, i64, meta)


def views(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray) -> list[np.ndarray]:
    """The arrays of :data:`LAYOUT` in buffers ``u8`` and ``i64`` (after a copy or a
    pickle of the buffers: the views are made again, not copied)."""
    dims = _dims(meta)
    out = []
    for i, (_name, buffer, layout) in enumerate(LAYOUT):
        shape = _shape(layout, dims)
        size, at = int(np.prod(shape)), int(meta[i])
        if buffer == I64:
            out.append(i64[at : at + size].reshape(shape))
        else:
            flat = u8[at : at + size]
            out.append((flat.view(np.bool_) if buffer == BOOL else flat).reshape(shape))
    return out


def _shaped(flat: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``flat`` (a contiguous vector) viewed with ``shape``: ``flat.reshape(shape)``.
    Compiled, the view is made in place (:func:`_c_view`): numba's reshape calls out of
    the compiled code, about 15 ns a call, and :func:`arrays_of` makes fifteen views
    at every call of a kernel, which for one game is a call per decision."""
    return flat.reshape(shape)


@intrinsic
def _c_view(typingctx: Any, flat: Any, shape: Any) -> Any:
    """The C-contiguous view of the contiguous vector ``flat`` with ``shape``: the same
    data, owner and parent, strides from the shape."""
    if not isinstance(flat, types.Array) or flat.ndim != 1 or not isinstance(shape, types.BaseTuple):
        return None
    view = types.Array(flat.dtype, len(shape), "C")
    dim_types: Any = shape  # a numba tuple type: iterates its element types

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        src = make_array(flat)(context, builder, args[0])
        dst = make_array(view)(context, builder)
        dims = [
            context.cast(builder, v, t, types.intp) for v, t in zip(cgutils.unpack_tuple(builder, args[1]), dim_types)
        ]
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(flat.dtype)))
        strides = [itemsize]
        for d in reversed(dims[1:]):
            strides.insert(0, builder.mul(strides[0], d))
        populate_array(
            dst, data=src.data, shape=dims, strides=strides, itemsize=itemsize, meminfo=src.meminfo, parent=src.parent
        )
        return impl_ret_borrowed(context, builder, view, dst._getvalue())

    return view(flat, shape), codegen


@overload(_shaped, jit_options={"_nrt": True})  # type: ignore[typeddict-unknown-key]
def _compiled_shaped(flat: np.ndarray, shape: tuple[int, ...]) -> Callable[..., np.ndarray]:
    def shaped(flat: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return _c_view(flat, shape)  # type: ignore[call-arg]  # (an intrinsic: typed by numba)

    return shaped


@inlined
def facts_of(meta: np.ndarray) -> HandFacts:
    """The ruleset's facts, from ``meta`` (inside a kernel)."""
    f = meta[_N + 1 :]
    return HandFacts(
        n=f[0],
        num_tricks=f[1],
        deck_size=f[2],
        staged=f[3] != 0,
        has_middle=f[4] != 0,
        first_void=f[5] != 0,
        draw_if_no_void=f[6] != 0,
        void_choice=f[7] != 0,
        closed=f[8] != 0,
        round_tricks=f[9],
        deal_phase=f[10],
        deal_ctx=f[11],
        deal_first=f[12],
    )


@inlined
def arrays_of(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray) -> HandArrays:
    """:func:`views`, compiled: the engine's arrays from its buffers inside a kernel (the
    same views; ``tests/test_vector_kernels.py`` holds the two to each other)."""
    m = meta
    N, n, T, D = m[_N], m[_N + 1], m[_N + 2], m[_N + 3]  # the games, then HandFacts' n, num_tricks, deck_size
    return HandArrays(
        hands=_shaped(u8[m[0] : m[0] + N * n * NUM_CARDS], (N, n, NUM_CARDS)),
        played2=_shaped(u8[m[1] : m[1] + N * 2 * n * NUM_CARDS], (N, 2 * n, NUM_CARDS)),
        voids2=_shaped(u8[m[2] : m[2] + N * 2 * n * 4], (N, 2 * n, 4)),
        bid_code2=_shaped(i64[m[3] : m[3] + N * 2 * n], (N, 2 * n)),
        won=_shaped(u8[m[4] : m[4] + N * 2 * NUM_CARDS], (N, 2, NUM_CARDS)),
        middle=_shaped(u8[m[5] : m[5] + N * NUM_CARDS], (N, NUM_CARDS)),
        suitcnt=_shaped(i64[m[6] : m[6] + N * n * 4], (N, n, 4)),
        counts=_shaped(i64[m[7] : m[7] + N * 2 * n], (N, 2 * n)),
        trick_cards=_shaped(i64[m[8] : m[8] + N * n], (N, n)),
        best_key=i64[m[9] : m[9] + N],
        best_seat=i64[m[10] : m[10] + N],
        trick_winners=_shaped(i64[m[11] : m[11] + N * T], (N, T)),
        take_cards=_shaped(i64[m[12] : m[12] + N * T], (N, T)),
        deck=_shaped(i64[m[13] : m[13] + N * D], (N, D)),
        tricks=_shaped(i64[m[14] : m[14] + N * 2], (N, 2)),
        tens=_shaped(i64[m[15] : m[15] + N * 2], (N, 2)),
        cards_won=_shaped(i64[m[16] : m[16] + N * 2], (N, 2)),
        dealer=i64[m[17] : m[17] + N],
        phase=i64[m[18] : m[18] + N],
        to_act=i64[m[19] : m[19] + N],
        stage=i64[m[20] : m[20] + N],
        leader=i64[m[21] : m[21] + N],
        led=i64[m[22] : m[22] + N],
        ntrick=i64[m[23] : m[23] + N],
        ntricks=i64[m[24] : m[24] + N],
        trump=i64[m[25] : m[25] + N],
        trump_suit=i64[m[26] : m[26] + N],
        trump_maker=i64[m[27] : m[27] + N],
        hidden=u8[m[28] : m[28] + N].view(np.bool_),
        ctx=i64[m[29] : m[29] + N],
        last_winner=i64[m[30] : m[30] + N],
        mid_count=i64[m[31] : m[31] + N],
        mid_tens=i64[m[32] : m[32] + N],
        high_bid=i64[m[33] : m[33] + N],
        bid_seat=i64[m[34] : m[34] + N],
        bid_suit=i64[m[35] : m[35] + N],
        contract_seat=i64[m[36] : m[36] + N],
        contract_level=i64[m[37] : m[37] + N],
        contract_suit=i64[m[38] : m[38] + N],
    )


@inlined
def card_rows_of(u8: np.ndarray, meta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``hands``, ``played2``, ``voids2``, ``won`` and ``middle`` of :func:`arrays_of`,
    flat: what the row writer copies cards from."""
    m = meta
    N, n = m[_N], m[_N + 1]
    return (
        u8[m[0] : m[0] + N * n * NUM_CARDS],
        u8[m[1] : m[1] + N * 2 * n * NUM_CARDS],
        u8[m[2] : m[2] + N * 2 * n * 4],
        u8[m[4] : m[4] + N * 2 * NUM_CARDS],
        u8[m[5] : m[5] + N * NUM_CARDS],
    )
