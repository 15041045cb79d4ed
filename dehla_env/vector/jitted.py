"""The numba kernels of :mod:`dehla_env.vector.kernels` (imported only when asked for).

The deals are the batched engine's own function compiled
(:func:`~dehla_env.vector.engine.draw_deals`). The observation writer does a row at a time
what :meth:`~dehla_env.vector.observe.BatchObserver.observe` does for all rows at once,
reading a :class:`~dehla_env.vector.engine.BatchEngine`'s own arrays
(:class:`~dehla_env.vector.kernel_types.EngineArrays`); ``tests/test_vector_kernels.py``
holds both to their reference, bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from ..cards import NUM_CARDS
from ..encoding import NUM_BID_CHOICES
from ..engine.hand import FIRST_STAGE_CARDS, Phase
from .engine import draw_deals
from .kernel_types import EngineArrays, RowLayout

jit = numba.njit(cache=True, nogil=True)

TRUMP = int(Phase.TRUMP)
BID = int(Phase.BID)
PLAY = int(Phase.PLAY)


#: ``BatchEngine.sample_deals``: :func:`dehla_env.vector.engine.draw_deals`, compiled
sample_deals = jit(draw_deals)


@numba.njit(inline="always")
def _copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> None:
    """``dst[at : at + count] = src[start : start + count]`` (1-D arrays), with unsigned
    indices: no negative-index check, so the loop compiles to vector moves."""
    d, s = np.uintp(at), np.uintp(start)
    for j in range(np.uintp(count)):
        dst[d + j] = src[s + j]


@numba.njit(inline="always")
def _fill(dst: np.ndarray, at: int, count: int) -> None:
    """``dst[at : at + count] = 0`` with unsigned indices (see :func:`_copy`)."""
    d = np.uintp(at)
    for j in range(np.uintp(count)):
        dst[d + j] = 0


@jit
def observe_rows(
    st: EngineArrays,
    lay: RowLayout,
    zero_spans: np.ndarray,
    tables: tuple[np.ndarray, ...],
    idx: np.ndarray,
    seats: np.ndarray,
    trump: tuple[np.ndarray, np.ndarray],
    out: np.ndarray,
) -> None:
    """``BatchObserver.observe`` but the match slice: row ``i`` of ``out`` is the
    observation of seat ``seats[i]`` in game ``idx[i]``, written in one pass.

    ``lay``: the slices' offsets and the ruleset's facts; ``zero_spans``: (k, 2) the
    ranges of a row that the card copies do not write (zeroed first); ``tables``: the
    fractions (counts, middle cards, middle tens, bid, tricks, undealt, tens) in
    ``out``'s dtype; ``trump``: each row's ``trump_state`` slot and the suit its seat
    sees (:func:`dehla_env.vector.observe.trump_as_seen`, R2.4c decided there).
    """
    n = lay.n
    trump_state, trump_seen = trump
    t_count, t_mid_cards, t_mid_tens, t_bid, t_tricks, t_undealt, t_tens = tables
    one = out.dtype.type(1)
    D = out.shape[1]
    flat = out.reshape(-1)
    hands, played, voids = st.hands.reshape(-1), st.played2.reshape(-1), st.voids2.reshape(-1)
    won, middle = st.won.reshape(-1), st.middle.reshape(-1)
    for i in range(len(idx)):
        g = idx[i]
        me = seats[i]
        if me < 0:  # no seat to act (a hand that is over): any row will do, it is replaced
            me = 0
        side = me & 1
        at = i * D
        for k in range(len(zero_spans)):  # all but what the copies below write
            _fill(flat, at + zero_spans[k, 0], zero_spans[k, 1] - zero_spans[k, 0])
        # cards: own, played by every seat (relative rows: the doubled arrays' window),
        # won per side (own first), the middle; voids
        _copy(flat, at + lay.hand, hands, (g * n + me) * NUM_CARDS, NUM_CARDS)
        _copy(flat, at + lay.played, played, (g * 2 * n + me) * NUM_CARDS, n * NUM_CARDS)
        _copy(flat, at + lay.voids, voids, (g * 2 * n + me) * 4, n * 4)
        _copy(flat, at + lay.won, won, (g * 2 + side) * NUM_CARDS, NUM_CARDS)
        _copy(flat, at + lay.won + NUM_CARDS, won, (g * 2 + 1 - side) * NUM_CARDS, NUM_CARDS)
        if lay.has_middle:
            _copy(flat, at + lay.middle, middle, g * NUM_CARDS, NUM_CARDS)
        row = out[i]
        # trump as this seat knows it, decided for every row before (R2.4c: ``trump_as_seen``)
        row[lay.trump_state + trump_state[i]] = one
        if trump_seen[i] >= 0:
            row[lay.trump_suit + trump_seen[i]] = one
        tm = st.trump_maker[g]
        # seats relative to the observer (n: none)
        lw = st.last_winner[g]
        row[lay.pair_threat + (n if lw < 0 else (lw - me) % n)] = one
        row[lay.trump_maker + (n if tm < 0 else (tm - me) % n)] = one
        cs = st.contract_seat[g]
        row[lay.contract_seat + (n if cs < 0 else (cs - me) % n)] = one
        row[lay.dealer + (st.dealer[g] - me) % n] = one
        ph = st.phase[g]
        leader = st.leader[g]
        if ph == PLAY:
            row[lay.trick_leader + (leader - me) % n] = one
        if st.ntrick[g] > 0:
            row[lay.trick_winning + (st.best_seat[g] - me) % n] = one
            row[lay.led_suit + st.led[g]] = one
        row[lay.phase + (0 if ph == TRUMP else 1 if ph == BID else 2 if ph == PLAY else 3)] = one
        if lay.has_middle and st.mid_count[g] > 0:
            row[lay.middle_info + 2] = one
        for p in range(n):
            c = st.trick_cards[g, p]
            if c >= 0:
                row[lay.trick + NUM_CARDS * ((leader + p - me) % n) + c] = one
        for r in range(n):
            row[lay.bids + NUM_BID_CHOICES * r + (st.bid_code2[g, me + r] if lay.bidding else 0)] = one
        # fractions (or their numerators)
        for r in range(n):
            row[lay.hand_counts + r] = t_count[st.counts[g, me + r]]
        row[lay.progress] = t_tricks[st.ntricks[g]]
        row[lay.progress + 1] = t_undealt[lay.deck_size - FIRST_STAGE_CARDS if lay.staged and st.stage[g] == 1 else 0]
        row[lay.tricks_won] = t_tricks[st.tricks[g, side]]
        row[lay.tricks_won + 1] = t_tricks[st.tricks[g, 1 - side]]
        row[lay.tens_won] = t_tens[st.tens[g, side]]
        row[lay.tens_won + 1] = t_tens[st.tens[g, 1 - side]]
        if lay.has_middle:
            row[lay.middle_info] = t_mid_cards[st.mid_count[g]]
            row[lay.middle_info + 1] = t_mid_tens[st.mid_tens[g]]
        if lay.bidding and cs >= 0:
            row[lay.contract_info] = t_bid[st.contract_level[g]]
            if (cs & 1) == side:
                row[lay.contract_info + 1] = one
