"""Batched flat observations: the vector of :mod:`dehla_env.encoding`, for many games.

:class:`BatchObserver` writes, for each game ``g[i]`` and observing seat ``seats[i]``,
exactly the vector :func:`dehla_env.encoding.encode_view` gives for that seat's view of
a *fresh match* playing that hand (equal float32 values, checked by the
equivalence tests). The match slice is all zeros while a hand is in progress (a fresh
match has no kots, points, streak or completed hands); once the hand is over it holds
the match values after that one hand (:func:`first_hand_match`), as the reference env's
final observation does.

How: one writer, :func:`observe_rows`, goes through the rows and writes each in one
pass while it is in cache. The engine keeps the per-seat arrays shown for every seat
doubled (``(N, 2n, F)``, see :mod:`dehla_env.vector.engine`), so the rows of every seat
relative to observer ``o`` are one contiguous window of ``n * F`` values starting at
row ``o``: ``played`` and ``voids`` are one copy each, as are ``hand``, ``won`` and
``middle``. The one-hot entries (the current trick's cards, bids,
seats, suits, phase) are set one by one, and the fractions come from float32 tables
built with the reference encoder's own arithmetic, so they round identically. R2.4c
(what a seat knows of a closed trump) is decided per row (:func:`_trump_as_seen`); the
match slice of hands that are over is written after, by :func:`first_hand_match`, and
:func:`observe_one`, the writer of one row for an environment of one game, writes the
match slice its caller gives.

**Codes** (``codes=True``): the same vector as uint8 *numerators*, a quarter of the
bytes. Every entry of the flat observation is an integer over a per-column denominator
(:attr:`BatchObserver.scale`: 1 for counts and one-hots, the hand size, the deck, 13
...; a match value ``min(x / target, 1)`` is the code ``min(x, target)``), and float32
division is correctly rounded, so ``codes / scale`` is the float32 vector to the last
bit (checked by the tests). The vector env's episodes are single hands, so every code
fits in a byte.

The writer is plain Python that numba compiles as it is (``cache=True``: compiled
once, on first use, and kept on disk). ``NUMBA_DISABLE_JIT=1`` runs it as Python for
debugging; ``tests/test_vector_kernels.py`` holds the compiled rows to the Python
ones, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.extending import overload

from ..cards import NUM_CARDS
from ..encoding import NUM_BID_CHOICES, layout_for, match_codes, match_denominators
from ..engine.hand import FIRST_STAGE_CARDS
from ..rules import Rules
from ..scoring import FRESH_TALLY, NO_SIDE, HandOutcome, MatchTally, Pair, batch, score_match
from ..seats import side_of
from .engine import BID, DONE, PLAY, TRUMP, BatchEngine
from .kernel_types import HandArrays, RowLayout, RowTables, inlined, uncounted
from .state import arrays_of, card_rows_of


def first_hand_match(rules: Rules, engine: BatchEngine, g: np.ndarray) -> MatchTally:
    """The match after its first hand (complete hands ``g`` of a fresh match), as
    :func:`dehla_env.scoring.score_match` scores it for :class:`MatchState` too
    (R1.7-R1.9, R2.6, R3.4-R3.6, R4.4-R4.5): each field an array over ``g``, or a
    plain int where every game has the same value."""
    res = engine.outcome(g)
    hand = HandOutcome(res["winner"], res["all_tens"], res["kot"], (res["score"][:, 0], res["score"][:, 1]))
    return score_match(rules, FRESH_TALLY, hand).tally


def match_rows(rules: Rules, m: MatchTally, seat_side: np.ndarray, codes: bool) -> np.ndarray:
    """(k, 8): the ``match`` values of seats of ``seat_side`` in the matches ``m``
    (:func:`first_hand_match`), as :func:`dehla_env.encoding.match_codes` defines them:
    the numerators (``codes``) or float32 fractions."""
    own0 = seat_side == 0

    def own_first(pair: Pair) -> Pair:
        return np.where(own0, pair[0], pair[1]), np.where(own0, pair[1], pair[0])

    k = len(seat_side)
    side, count = batch(m.streak_side, k), batch(m.streak_count, k)
    on_run = side >= 0
    values = match_codes(
        rules,
        kots=own_first(m.kots),
        points=own_first(m.points),
        streaks=(np.where(on_run & (side == seat_side), count, 0), np.where(on_run & (side != seat_side), count, 0)),
        hands=batch(m.hands, k),
        over=(batch(m.winner, k) != NO_SIDE).astype(np.int64),
    )
    out = np.stack(np.broadcast_arrays(*values), axis=1)
    if codes:
        return out
    return out.astype(np.float32) / np.array(match_denominators(rules), np.float32)


def float_observations(codes: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The float32 observations of uint8 ``codes`` over the per-column ``scale``
    (:attr:`BatchObserver.scale`): bit for bit the float32 rows (see the module
    docstring). The one decoding, for the vector env and for rollouts stored as codes."""
    return codes.astype(np.float32) / scale


def _copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> None:
    """``dst[at : at + count] = src[start : start + count]`` (1-D arrays). Compiled, a
    loop over unsigned indices instead (:func:`_compiled_copy`)."""
    dst[at : at + count] = src[start : start + count]


def _fill(dst: np.ndarray, at: int, count: int) -> None:
    """``dst[at : at + count] = 0`` (compiled: a loop, as :func:`_copy`)."""
    dst[at : at + count].fill(0)


# The two copy helpers' compiled bodies (numba's ``overload``): a loop over unsigned
# indices, which compiles to vector moves when its count is read at run time (see
# ``RowLayout.cards``), where Python does a slice assignment. Numba's disk cache is keyed
# on the writer's file, this one: a change here is a change of it.
@overload(_copy, inline="always")
def _compiled_copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> Callable[..., None]:
    def copy(dst: np.ndarray, at: int, src: np.ndarray, start: int, count: int) -> None:
        d, s = np.uintp(at), np.uintp(start)  # unsigned: no negative-index check
        for j in range(np.uintp(count)):
            dst[d + j] = src[s + j]

    return copy


@overload(_fill, inline="always")
def _compiled_fill(dst: np.ndarray, at: int, count: int) -> Callable[..., None]:
    def fill(dst: np.ndarray, at: int, count: int) -> None:
        d = np.uintp(at)
        for j in range(np.uintp(count)):
            dst[d + j] = 0

    return fill


@inlined
def _unpack(ints: np.ndarray, fractions: np.ndarray) -> tuple[RowLayout, RowTables]:
    """The writer's layout and tables from what :func:`pack` made of them."""
    lay = RowLayout(
        n=ints[0],
        has_middle=ints[1] != 0,
        bidding=ints[2] != 0,
        staged=ints[3] != 0,
        deck_size=ints[4],
        closed=ints[5] != 0,
        hand=ints[6],
        hand_counts=ints[7],
        trick=ints[8],
        trick_leader=ints[9],
        led_suit=ints[10],
        trick_winning=ints[11],
        played=ints[12],
        won=ints[13],
        middle=ints[14],
        middle_info=ints[15],
        pair_threat=ints[16],
        voids=ints[17],
        trump_suit=ints[18],
        trump_state=ints[19],
        trump_maker=ints[20],
        bids=ints[21],
        contract_seat=ints[22],
        contract_info=ints[23],
        dealer=ints[24],
        phase=ints[25],
        progress=ints[26],
        tricks_won=ints[27],
        tens_won=ints[28],
        match=ints[29],
        cards=ints[30],
    )
    t = _LAYOUT_INTS  # then each table's start in ``fractions``, its end, and the spans
    spans = ints[t + 15 : t + 15 + 2 * ints[t + 14]].reshape((ints[t + 14], 2))
    tables = RowTables(
        zero_spans=spans,
        held=fractions[ints[t] : ints[t + 1]],
        mid_cards=fractions[ints[t + 2] : ints[t + 3]],
        mid_tens=fractions[ints[t + 4] : ints[t + 5]],
        bid=fractions[ints[t + 6] : ints[t + 7]],
        tricks=fractions[ints[t + 8] : ints[t + 9]],
        undealt=fractions[ints[t + 10] : ints[t + 11]],
        tens=fractions[ints[t + 12] : ints[t + 13]],
    )
    return lay, tables


_LAYOUT_INTS = len(RowLayout._fields)


def pack(lay: RowLayout, tables: RowTables) -> tuple[np.ndarray, np.ndarray]:
    """``lay`` and ``tables`` as two arrays (ints, and the fractions in the rows' dtype),
    what a call of the writer takes and :func:`_unpack` reads: a call looks at each
    array it is passed, so two arrays cost less than a tuple of ten."""
    fractions = [tables.held, tables.mid_cards, tables.mid_tens, tables.bid, tables.tricks, tables.undealt, tables.tens]
    bounds, at = [], 0
    for f in fractions:
        bounds += [at, at + len(f)]
        at += len(f)
    spans = tables.zero_spans
    ints = np.array([int(x) for x in lay] + bounds + [len(spans), *spans.reshape(-1).tolist()], np.int64)
    return ints, np.concatenate(fractions)


@inlined
def _wrap(x: int, n: int) -> int:
    """``x % n`` for ``-n <= x < 2n`` (a seat relative to the observer, R0.2): two
    comparisons, where a division by the number of players takes tens of cycles and
    the writer makes eight of them a row."""
    if x < 0:
        return x + n
    if x >= n:
        return x - n
    return x


@inlined
def _trump_as_seen(st: HandArrays, closed: bool, g: int, me: int) -> tuple[int, int]:
    """What seat ``me`` knows of the trump in game ``g`` (R2.4c: a closed trump is
    hidden from everybody but its maker until revealed): the compiled decision of
    :func:`dehla_env.view.visible_trump`, the batched writers' one. Returns the
    ``trump_state`` slot (0 none made, 1 known and in force, 2 this seat's own closed
    secret, 3 chosen but hidden from this seat) and the suit the seat sees (-1: none,
    or not for this seat to see)."""
    made = st.trump_suit[g]
    if made < 0:
        return 0, -1
    if not closed or not st.hidden[g]:
        return 1, made
    if me == st.trump_maker[g]:
        return 2, made
    return 3, -1


@inlined
def _write_row(
    st: HandArrays,
    lay: RowLayout,
    tables: RowTables,
    flat: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    g: int,
    me: int,
    out: np.ndarray,
    at: int,
) -> None:
    """Seat ``me``'s observation of game ``g`` but its match slice, into
    ``out[at : at + D]`` (``out`` flat). ``flat``: the card arrays it copies from, flat
    (:func:`~dehla_env.vector.state.card_rows_of`)."""
    n = lay.n
    one = out.dtype.type(1)
    hands, played, voids, won, middle = flat
    cards = lay.cards  # 52, as a number read at run time: see RowLayout.cards
    zero_spans = tables.zero_spans
    if me < 0:  # no seat to act (a hand that is over): any row will do, it is replaced
        me = 0
    side = me & 1
    for k in range(len(zero_spans)):  # all but what the copies below write
        _fill(out, at + zero_spans[k, 0], zero_spans[k, 1] - zero_spans[k, 0])
    # cards: own, played by every seat (the doubled arrays' window: rows relative to
    # the observer are contiguous), won per side (own first), the middle; voids
    _copy(out, at + lay.hand, hands, (g * n + me) * cards, cards)
    _copy(out, at + lay.played, played, (g * 2 * n + me) * cards, n * cards)
    _copy(out, at + lay.voids, voids, (g * 2 * n + me) * 4, n * 4)
    _copy(out, at + lay.won, won, (g * 2 + side) * cards, cards)
    _copy(out, at + lay.won + cards, won, (g * 2 + 1 - side) * cards, cards)
    if lay.has_middle:
        _copy(out, at + lay.middle, middle, g * cards, cards)
    row = out[at:]
    seen_state, seen_suit = _trump_as_seen(st, lay.closed, g, me)  # R2.4c
    row[lay.trump_state + seen_state] = one
    if seen_suit >= 0:
        row[lay.trump_suit + seen_suit] = one
    tm = st.trump_maker[g]
    # seats relative to the observer (n: none)
    lw = st.last_winner[g]
    row[lay.pair_threat + (n if lw < 0 else _wrap(lw - me, n))] = one
    row[lay.trump_maker + (n if tm < 0 else _wrap(tm - me, n))] = one
    cs = st.contract_seat[g]
    row[lay.contract_seat + (n if cs < 0 else _wrap(cs - me, n))] = one
    row[lay.dealer + _wrap(st.dealer[g] - me, n)] = one
    ph = st.phase[g]
    leader = st.leader[g]
    if ph == PLAY:
        row[lay.trick_leader + _wrap(leader - me, n)] = one
    if st.ntrick[g] > 0:
        row[lay.trick_winning + _wrap(st.best_seat[g] - me, n)] = one
        row[lay.led_suit + st.led[g]] = one
    row[lay.phase + (0 if ph == TRUMP else 1 if ph == BID else 2 if ph == PLAY else 3)] = one
    if lay.has_middle and st.mid_count[g] > 0:
        row[lay.middle_info + 2] = one
    for p in range(n):
        c = st.trick_cards[g, p]
        if c >= 0:
            row[lay.trick + NUM_CARDS * _wrap(leader + p - me, n) + c] = one
    for r in range(n):
        row[lay.bids + NUM_BID_CHOICES * r + (st.bid_code2[g, me + r] if lay.bidding else 0)] = one
    # fractions (or their numerators)
    for r in range(n):
        row[lay.hand_counts + r] = tables.held[st.counts[g, me + r]]
    row[lay.progress] = tables.tricks[st.ntricks[g]]
    undealt = lay.deck_size - FIRST_STAGE_CARDS if lay.staged and st.stage[g] == 1 else 0
    row[lay.progress + 1] = tables.undealt[undealt]
    row[lay.tricks_won] = tables.tricks[st.tricks[g, side]]
    row[lay.tricks_won + 1] = tables.tricks[st.tricks[g, 1 - side]]
    row[lay.tens_won] = tables.tens[st.tens[g, side]]
    row[lay.tens_won + 1] = tables.tens[st.tens[g, 1 - side]]
    if lay.has_middle:
        row[lay.middle_info] = tables.mid_cards[st.mid_count[g]]
        row[lay.middle_info + 1] = tables.mid_tens[st.mid_tens[g]]
    if lay.bidding and cs >= 0:
        row[lay.contract_info] = tables.bid[st.contract_level[g]]
        if (cs & 1) == side:
            row[lay.contract_info + 1] = one


@uncounted
def observe_rows(
    state: tuple[np.ndarray, np.ndarray, np.ndarray],
    packed: tuple[np.ndarray, np.ndarray],
    games: np.ndarray,
    seats: np.ndarray,
    out: np.ndarray,
) -> None:
    """**The batched writer**: row ``i`` of ``out`` is the observation of seat
    ``seats[i]`` in game ``games[i]`` but its match slice
    (:meth:`BatchObserver.observe` writes that), written in one pass. Plain Python that
    numba compiles as it is, a row at a time while it is in cache.

    ``state``: the engine's buffers (:mod:`dehla_env.vector.state`); ``packed``: the
    slices' offsets, the ruleset's facts and the tables (:func:`pack`).
    """
    st = arrays_of(state[0], state[1], state[2])
    cards = card_rows_of(state[0], state[2])
    lay, tables = _unpack(packed[0], packed[1])
    D = out.shape[1]
    flat = out.reshape(-1)
    for i in range(len(games)):
        _write_row(st, lay, tables, flat=cards, g=games[i], me=seats[i], out=flat, at=i * D)


@uncounted
def observe_one(
    u8: np.ndarray,
    i64: np.ndarray,
    meta: np.ndarray,
    ints: np.ndarray,
    fractions: np.ndarray,
    game: int,
    match: np.ndarray,
    seat: int,
    out: np.ndarray,
) -> None:
    """One row of :func:`observe_rows` (seat ``seat`` in game ``game``, ``out`` a
    vector), its match slice ``match[seat]`` (what the caller's match holds for each
    seat) included: what an environment of one game calls at each step, every argument
    an array or a number, as few as can be (a call looks at each array it is passed)."""
    lay, tables = _unpack(ints, fractions)
    st = arrays_of(u8, i64, meta)
    _write_row(
        st,
        lay,
        tables,
        flat=card_rows_of(u8, meta),
        g=game,
        me=seat,
        out=out,
        at=0,
    )
    for k in range(match.shape[1]):
        out[lay.match + k] = match[seat, k]


class BatchObserver:
    """Flat observations of a :class:`BatchEngine`'s games; see the module docstring."""

    def __init__(self, engine: BatchEngine, codes: bool = False) -> None:
        self.engine = e = engine
        rules = self.rules = engine.rules
        n = self.n = engine.n
        self.layout = lay = layout_for(n)
        self.size = lay.size
        o = {name: s.offset for name, s in lay.slices.items()}
        self.o = o
        # fractions exactly as the encoder computes them (double, then float32), or with
        # codes the numerators, over the per-column denominators of ``scale``
        self.codes = codes
        self.dtype = np.dtype(np.uint8 if codes else np.float32)
        deck, nt, nten, hs = rules.deck_size, rules.num_tricks, rules.num_tens, rules.hand_size
        scale = np.ones(lay.size, np.float32)
        if codes:
            scale[o["hand_counts"] : o["hand_counts"] + n] = hs
            scale[o["middle_info"]] = deck
            scale[o["middle_info"] + 1] = nten
            scale[o["contract_info"]] = 13
            scale[o["progress"]] = nt
            scale[o["progress"] + 1] = deck
            scale[o["tricks_won"] : o["tricks_won"] + 2] = nt
            scale[o["tens_won"] : o["tens_won"] + 2] = nten
            scale[o["match"] : o["match"] + 8] = match_denominators(rules)
        scale.flags.writeable = False
        self.scale = scale
        row_layout = RowLayout.of(e, o)
        tables = RowTables(
            zero_spans=row_layout.zero_spans(self.size),
            held=self._table(hs),
            mid_cards=self._table(deck),
            mid_tens=self._table(nten),
            bid=self._table(13),
            tricks=self._table(nt),
            undealt=self._table(deck),
            tens=self._table(nten),
        )
        #: the layout and the tables as the writer takes them (:func:`pack`)
        self.packed = pack(row_layout, tables)

    def _table(self, den: int) -> np.ndarray:
        """``x / den`` for x = 0..den as the encoder rounds it, or x itself as a code."""
        if self.codes:
            return np.arange(den + 1, dtype=np.uint8)
        return np.array([x / den for x in range(den + 1)], dtype=np.float32)

    def observe(self, g: np.ndarray | slice, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """(k, D): the observation of seat ``seats[i]`` in game ``g[i]`` (``g`` an index
        array or a slice of the games), into ``out`` if given."""
        e = self.engine
        idx = np.ascontiguousarray(e.all[g] if isinstance(g, slice) else g, dtype=np.int64)  # game numbers
        k = len(idx)
        if out is None:
            out = np.empty((k, self.size), self.dtype)
        assert out.shape == (k, self.size) and out.flags.c_contiguous and out.dtype == self.dtype
        seats = np.ascontiguousarray(seats, dtype=np.int64)
        observe_rows(e._state, self.packed, idx, seats, out)
        self._write_match(out, idx, seats, e.phase[g])
        return out

    def _write_match(self, out: np.ndarray, idx: np.ndarray, seats: np.ndarray, phase: np.ndarray) -> None:
        """The match slice of the rows whose hand is over (zero while it is played)."""
        done = phase == DONE
        if done.any():
            d = np.flatnonzero(done)
            tally = first_hand_match(self.rules, self.engine, idx[d])
            o = self.o["match"]
            out[d, o : o + 8] = match_rows(self.rules, tally, side_of(seats[d]), self.codes)
