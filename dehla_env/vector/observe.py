"""Batched flat observations: the vector of :mod:`dehla_env.encoding`, for many games.

:class:`BatchObserver` writes, for each game ``g[i]`` and observing seat ``seats[i]``,
exactly the vector :meth:`dehla_env.encoding.ObservationEncoder.encode` gives for that
seat of a *fresh match* playing that hand (equal float32 values, checked by the
equivalence tests). The match slice is all zeros while a hand is in progress (a fresh
match has no kots, points, streak or completed hands); once the hand is over it holds
the match values after that one hand (:func:`first_hand_match`), as the reference env's
final observation does.

How: the engine keeps the per-seat arrays shown for every seat doubled (``(N, 2n,
F)``, see :mod:`dehla_env.vector.engine`), so the rows of every seat relative to
observer ``o`` are one contiguous window of ``n * F`` values starting at row ``o``:
``played``, ``voids`` and ``hand_counts`` are one gathered window per game, ``hand``,
``won`` and ``middle`` plain row gathers. Every one-hot entry (the current trick's
cards, bids, seats, suits, phase) is one scatter of ones into the flattened output,
and the fractions come from float32 tables built with the reference encoder's own
arithmetic, so they round identically. The output is zero-filled and written a chunk
of rows at a time, so each chunk is written while it is in cache.

**Codes** (``codes=True``): the same vector as uint8 *numerators*, a quarter of the
bytes. Every entry of the flat observation is an integer over a per-column denominator
(:attr:`BatchObserver.scale`: 1 for counts and one-hots, the hand size, the deck, 13
...; a match value ``min(x / target, 1)`` is the code ``min(x, target)``), and float32
division is correctly rounded, so ``codes / scale`` is the float32 vector to the last
bit (checked by the tests). The vector env's episodes are single hands, so every code
fits in a byte.

``kernel="numba"`` writes the same rows with the compiled kernel of
:mod:`dehla_env.vector.jitted` (one pass per row; the match slice of finished hands
stays numpy): about 2.5 times as fast for 4,096 rows, float32 or codes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..cards import NUM_CARDS
from ..encoding import NUM_BID_CHOICES, layout_for
from ..rules import MatchScoring, Rules
from ..scoring import FRESH_TALLY, NO_SIDE, HandOutcome, batch, score_match
from ..seats import side_of
from . import kernels
from .engine import BID, DONE, PLAY, TRUMP, BatchEngine
from .kernel_types import EngineArrays, RowLayout

# phase index of the ``phase`` slice: trump, bid, card, none (encoding._PHASE_INDEX)
_PHASE_INDEX = np.full(6, 3, np.int64)
_PHASE_INDEX[TRUMP] = 0
_PHASE_INDEX[BID] = 1
_PHASE_INDEX[PLAY] = 2


def _window(arr: np.ndarray, n: int) -> np.ndarray:
    """Sliding view of a doubled (N, 2n, F) array: row ``g * 2n + o`` of the result is
    rows ``o..o+n-1`` of game ``g`` (``n * F`` values), for ``0 <= o < n``."""
    N, rows, F = arr.shape
    assert rows == 2 * n and arr.flags.c_contiguous
    step = arr.strides[1]
    return as_strided(arr.reshape(-1), shape=(N * rows - n + 1, n * F), strides=(step, arr.strides[2]), writeable=False)


def trump_as_seen(engine: BatchEngine, g: np.ndarray | slice, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What seat ``seats[i]`` knows of the trump in game ``g[i]`` (R2.4c: a closed trump
    is hidden from everybody but its maker until revealed): the batched decision of
    :func:`dehla_env.view.visible_trump`, the one for every batched writer.

    Returns the ``trump_state`` slot (0 none made, 1 known and in force, 2 this seat's
    own closed secret, 3 chosen but hidden from this seat) and the suit the seat sees
    (-1: none, or not for this seat to see)."""
    ts = engine.trump_suit[g]
    if not engine.closed:
        return (ts >= 0).astype(np.int64), ts
    hid = engine.hidden[g]
    mine = seats == engine.trump_maker[g]
    state = np.where(ts < 0, 0, np.where(hid, np.where(mine, 2, 3), 1))
    return state, np.where(hid & ~mine, -1, ts)


def first_hand_match(rules: Rules, engine: BatchEngine, g: np.ndarray) -> dict[str, np.ndarray]:
    """The match after its first hand (complete hands ``g`` of a fresh match):
    ``kots``, ``points`` (k, 2), ``streak_side``/``streak_count`` (-1/0 for none),
    ``over`` (k,), the hand's ``kot`` (side or -1) and ``winner``, as
    :func:`dehla_env.scoring.score_match` scores it for :class:`MatchState` too
    (R1.7-R1.9, R2.6, R3.4-R3.6, R4.4-R4.5)."""
    res = engine.outcome(g)
    hand = HandOutcome(res["winner"], res["all_tens"], res["kot"], (res["score"][:, 0], res["score"][:, 1]))
    step = score_match(rules, FRESH_TALLY, hand)
    m, k = step.tally, len(g)
    kots, points = np.zeros((k, 2), np.int64), np.zeros((k, 2), np.int64)
    kots[:, 0], kots[:, 1] = m.kots
    points[:, 0], points[:, 1] = m.points
    return {
        "kots": kots,
        "points": points,
        "streak_side": batch(m.streak_side, k),
        "streak_count": batch(m.streak_count, k),
        "over": batch(m.winner, k) != NO_SIDE,
        "kot": batch(step.kot, k),
        "winner": res["winner"],
    }


def match_codes(rules: Rules, m: dict[str, np.ndarray], seat_side: np.ndarray) -> np.ndarray:
    """(k, 8) int: the numerators of :func:`dehla_env.encoding._match_features` after one
    hand, over :func:`match_denominators` (``min(x / t, 1)`` is ``min(x, t) / t``)."""
    k = len(seat_side)
    rows = np.arange(k)
    own, other = seat_side, 1 - seat_side
    kots, points = m["kots"], m["points"]
    den = match_denominators(rules)
    zero = np.zeros(k, np.int64)
    if rules.match_scoring is MatchScoring.GAP:
        lead = points[rows, own] - points[rows, other]
        p_own, p_other = np.maximum(lead, 0), np.maximum(-lead, 0)
    elif rules.points_to_win is not None:
        p_own, p_other = points[rows, own], points[rows, other]
    else:
        p_own = p_other = zero
    has = m["streak_side"] >= 0
    s_own = np.where(has & (m["streak_side"] == own), m["streak_count"], 0)
    s_other = np.where(has & (m["streak_side"] != own), m["streak_count"], 0)
    out = np.stack(
        [kots[rows, own], kots[rows, other], p_own, p_other, s_own, s_other, np.ones(k, np.int64), m["over"]], axis=1
    )
    return np.minimum(out, den[None, :].astype(np.int64))


def match_denominators(rules: Rules) -> np.ndarray:
    """(8,) the denominators of the ``match`` slice (one completed hand: ``hands`` is 1)."""
    if rules.match_scoring is MatchScoring.GAP:
        points = rules.gap
    else:
        points = rules.points_to_win or 1
    hands = rules.max_hands if rules.max_hands else 100
    kots = rules.kots_to_win or 1
    streak = rules.kot_streak or 1
    return np.array([kots, kots, points, points, streak, streak, hands, 1], np.int64)


def match_features(rules: Rules, m: dict[str, np.ndarray], seat_side: np.ndarray) -> np.ndarray:
    """(k, 8) float32: :func:`dehla_env.encoding._match_features` after one hand."""
    codes = match_codes(rules, m, seat_side).astype(np.float32)
    return codes / match_denominators(rules).astype(np.float32)


def float_observations(codes: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The float32 observations of uint8 ``codes`` over the per-column ``scale``
    (:attr:`BatchObserver.scale`): bit for bit the float32 rows (see the module
    docstring). The one decoding, for the vector env and for rollouts stored as codes."""
    return codes.astype(np.float32) / scale


class BatchObserver:
    """Flat observations of a :class:`BatchEngine`'s games; see the module docstring."""

    def __init__(self, engine: BatchEngine, codes: bool = False, kernel: str = "numpy") -> None:
        self.kernel = kernels.check_kernel(kernel)
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
        self.t_count = self._table(hs)
        self.t_mid_cards = self._table(deck)
        self.t_mid_tens = self._table(nten)
        self.t_bid = self._table(13)
        self.t_tricks = self._table(nt)
        self.t_undealt = self._table(deck)
        self.t_tens = self._table(nten)
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
        self.bid_cols = o["bids"] + NUM_BID_CHOICES * np.arange(n)
        self.dummy = o["progress"]  # one-hot entries that are off go here; overwritten after
        self.num_ones = 11 + 2 * n
        seat_slices = ["pair_threat", "trump_maker", "contract_seat", "dealer", "trick_leader", "trick_winning"]
        self.seat_offsets = np.array([o[x] for x in seat_slices], np.int64)
        # rel_seat[s + 1, me]: seat s seen from seat me, n for none (s = -1)
        self.rel_seat = np.array([[n] * n] + [[(s - me) % n for me in range(n)] for s in range(n)], np.int64)
        # trick_rows[leader, me, p]: where the card at position p of the trick starts
        self.trick_rows = np.array(
            [[[o["trick"] + NUM_CARDS * ((ld + p - me) % n) for p in range(n)] for me in range(n)] for ld in range(n)],
            np.int64,
        )
        assert o["tricks_won"] == o["progress"] + 2 and o["tens_won"] == o["progress"] + 4
        self._rowbase = np.zeros(0, np.int64)
        self._bind()
        if self.kernel == "numba":  # what the compiled kernel takes
            self._k_layout = RowLayout.of(e, o)
            self._k_zero_spans = self._k_layout.zero_spans(self.size)
            tables = (self.t_count, self.t_mid_cards, self.t_mid_tens, self.t_bid, self.t_tricks, self.t_undealt)
            self._k_tables = (*tables, self.t_tens)

    #: what :meth:`_bind` derives from the engine: views of its arrays, and the kernels
    _DERIVED = ("w_played", "w_voids", "won_rows", "middle_rows", "w_counts", "w_bids", "_jit", "_k_arrays")

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (with the engine, whose own copy this observer reads):
        everything but the views and kernels :meth:`_bind` makes again. Copied, a
        view would be a frozen array of its own instead of a window on the engine."""
        return {k: v for k, v in self.__dict__.items() if k not in self._DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def _bind(self) -> None:
        """The windows on the engine's arrays and, with ``kernel="numba"``, the compiled
        kernels' module and the engine arrays they read."""
        e, n = self.engine, self.n
        self.w_played = _window(e.played2, n)
        self.w_voids = _window(e.voids2, n)
        self.won_rows = e.won.reshape(-1, NUM_CARDS)  # row g * 2 + side
        self.middle_rows = e.middle
        self.w_counts = _window(e.counts.reshape(e.num_games, 2 * n, 1), n)
        self.w_bids = _window(e.bid_code2.reshape(e.num_games, 2 * n, 1), n)
        if self.kernel == "numba":
            self._jit = kernels.jitted()
            self._k_arrays = EngineArrays.of(e)

    def _table(self, den: int) -> np.ndarray:
        """``x / den`` for x = 0..den as the encoder rounds it, or x itself as a code."""
        if self.codes:
            return np.arange(den + 1, dtype=np.uint8)
        return np.array([x / den for x in range(den + 1)], dtype=np.float32)

    #: rows written per pass: the chunk's output stays in cache while its parts land
    CHUNK = 1024

    def observe(
        self,
        g: np.ndarray | slice,
        seats: np.ndarray,
        out: np.ndarray | None = None,
        held: np.ndarray | None = None,
    ) -> np.ndarray:
        """(k, D) float32: the observation of seat ``seats[i]`` in game ``g[i]``.

        ``g`` is an index array or a slice of the games (a slice reads the state
        without gathering it); ``held``, if given, is ``engine.hands[g, seats]``.
        The positions of the one-hot entries and the fractions are computed for all
        ``k`` rows at once; the rows are then written ``CHUNK`` at a time.
        """
        e = self.engine
        n = self.n
        o = self.o
        idx = e.all[g] if isinstance(g, slice) else g  # game numbers
        k = len(idx)
        if out is None:
            out = np.empty((k, self.size), self.dtype)
        assert out.shape == (k, self.size) and out.flags.c_contiguous and out.dtype == self.dtype
        seats = np.asarray(seats, dtype=np.int64)
        trump_state, trump_seen = trump_as_seen(e, g, seats)
        if self.kernel == "numba":
            idx = np.asarray(idx, dtype=np.int64)
            self._jit.observe_rows(
                self._k_arrays,
                self._k_layout,
                self._k_zero_spans,
                self._k_tables,
                idx,
                seats,
                (trump_state, trump_seen),
                out,
            )
            self._write_match(out, idx, seats, e.phase[g])
            return out
        if held is None:
            held = e.hands[idx, seats]
        row = idx * (2 * n) + seats  # row of the doubled per-seat arrays' windows
        side = side_of(seats)
        won_own = idx * 2 + side
        won_other = won_own + 1 - 2 * side
        # ---- one-hot entries (column of each 1 per row)
        cols = np.empty((k, self.num_ones), np.int64)
        phase = e.phase[g]
        dummy = self.dummy
        tm = e.trump_maker[g]
        cs = e.contract_seat[g]
        cols[:, 0] = o["trump_state"] + trump_state
        cols[:, 1] = np.where(trump_seen >= 0, o["trump_suit"] + trump_seen, dummy)
        # seats shown relative to the observer: pair threat, trump maker, contract
        # bidder (index n for none), dealer, trick leader, the seat winning the trick
        leader = e.leader[g]
        who = np.stack([e.last_winner[g], tm, cs, e.dealer[g], leader, e.best_seat[g]], axis=1)
        rel = self.rel_seat[who + 1, seats[:, None]] + self.seat_offsets
        rel[:, 4] = np.where(phase == PLAY, rel[:, 4], dummy)
        in_trick = e.ntrick[g] > 0
        rel[:, 5] = np.where(in_trick, rel[:, 5], dummy)
        cols[:, 2:8] = rel
        cols[:, 8] = o["phase"] + _PHASE_INDEX[phase]
        cols[:, 9] = np.where(in_trick, o["led_suit"] + e.led[g], dummy)
        mid_count = e.mid_count[g]
        cols[:, 10] = np.where(mid_count > 0, o["middle_info"] + 2, dummy) if e.has_middle else dummy
        tc = e.trick_cards[g]
        rel_pos = self.trick_rows[leader, seats]  # o["trick"] + 52 * relative seat, by position
        cols[:, 11 : 11 + n] = np.where(tc >= 0, rel_pos + tc, dummy)
        if e.bidding:
            cols[:, 11 + n :] = self.bid_cols + self.w_bids[row]
        else:
            cols[:, 11 + n :] = self.bid_cols
        # ---- fractions: hand_counts (n), then progress, tricks_won, tens_won (adjacent)
        counts = self.t_count[self.w_counts[row]]
        undealt = np.where(e.stage[g] == 1, e.deck_size - 20, 0) if e.staged else 0
        tricks, tens = e.tricks.reshape(-1), e.tens.reshape(-1)
        block = np.empty((k, 6), self.dtype)
        block[:, 0] = self.t_tricks[e.ntricks[g]]
        block[:, 1] = self.t_undealt[undealt]
        block[:, 2] = self.t_tricks[tricks[won_own]]
        block[:, 3] = self.t_tricks[tricks[won_other]]
        block[:, 4] = self.t_tens[tens[won_own]]
        block[:, 5] = self.t_tens[tens[won_other]]
        if e.has_middle:
            mid = np.empty((k, 2), self.dtype)
            mid[:, 0] = self.t_mid_cards[mid_count]
            mid[:, 1] = self.t_mid_tens[e.mid_tens[g]]
        if e.bidding:
            shown = cs >= 0
            con = np.empty((k, 2), self.dtype)
            con[:, 0] = np.where(shown, self.t_bid[e.contract_level[g]], 0)
            con[:, 1] = shown & (side_of(cs) == side)
        # ---- write the rows
        if len(self._rowbase) < min(k, self.CHUNK):
            self._rowbase = np.arange(min(k, self.CHUNK), dtype=np.int64) * self.size
        h, p, w, m, v = o["hand"], o["played"], o["won"], o["middle"], o["voids"]
        for a in range(0, k, self.CHUNK):
            b = min(a + self.CHUNK, k)
            oc = out[a:b]
            oc.fill(0)
            oc[:, h : h + NUM_CARDS] = held[a:b]
            oc[:, p : p + n * NUM_CARDS] = self.w_played[row[a:b]]
            oc[:, w : w + NUM_CARDS] = self.won_rows[won_own[a:b]]  # own side first
            oc[:, w + NUM_CARDS : w + 2 * NUM_CARDS] = self.won_rows[won_other[a:b]]
            if e.has_middle:
                oc[:, m : m + NUM_CARDS] = self.middle_rows[idx[a:b]]
            oc[:, v : v + 4 * n] = self.w_voids[row[a:b]]
            oc.reshape(-1)[(cols[a:b] + self._rowbase[: b - a, None]).reshape(-1)] = 1.0
            oc[:, o["hand_counts"] : o["hand_counts"] + n] = counts[a:b]
            oc[:, o["progress"] : o["progress"] + 6] = block[a:b]
            if e.has_middle:
                oc[:, o["middle_info"] : o["middle_info"] + 2] = mid[a:b]
            if e.bidding:
                oc[:, o["contract_info"] : o["contract_info"] + 2] = con[a:b]
        self._write_match(out, idx, seats, phase)
        return out

    def _write_match(self, out: np.ndarray, idx: np.ndarray, seats: np.ndarray, phase: np.ndarray) -> None:
        """The match slice of the rows whose hand is over (zero while it is played)."""
        done = phase == DONE
        if done.any():
            d = np.flatnonzero(done)
            fm = first_hand_match(self.rules, self.engine, idx[d])
            feats = match_codes if self.codes else match_features
            o = self.o["match"]
            out[d, o : o + 8] = feats(self.rules, fm, side_of(seats[d]))
