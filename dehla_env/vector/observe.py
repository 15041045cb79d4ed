"""Batched flat observations: the vector of :mod:`dehla_env.encoding`, for many games.

:class:`BatchObserver` writes, for each game ``g[i]`` and observing seat ``seats[i]``,
exactly the vector :meth:`dehla_env.encoding.ObservationEncoder.encode` gives for that
seat of a *fresh match* playing that hand (equal float32 values, checked by the
equivalence tests). The match slice is all zeros while a hand is in progress (a fresh
match has no kots, points, streak or completed hands); once the hand is over it holds
the match values after that one hand (:func:`first_hand_match`), as the reference env's
final observation does.

How: the engine keeps its per-seat card arrays doubled (``(N, 2n, F)``, see
:mod:`dehla_env.vector.engine`), so the rows of every seat relative to observer ``o``
are one contiguous window of ``n * F`` values starting at row ``o``. Each big slice
(``trick``, ``played``, ``won``, ``voids``, ``bids``) is then one gather of a window per
game; the one-hot entries of the small slices are one scatter into the flattened
output, and the fractions come from float32 tables built with the reference encoder's
own arithmetic, so they round identically.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..cards import NUM_CARDS
from ..encoding import NUM_BID_CHOICES, layout_for
from ..rules import Rules
from .engine import BID, DONE, PLAY, TRUMP, BatchEngine

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


def _table(values: list[float]) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def first_hand_match(rules: Rules, engine: BatchEngine, g: np.ndarray) -> dict[str, np.ndarray]:
    """The match after its first hand (complete hands ``g`` of a fresh match):
    ``kots``, ``points`` (k, 2), ``streak_side``/``streak_count`` (-1/0 for none),
    ``over`` (k,) and the hand's ``kot`` (side or -1); as :class:`MatchState` scores it
    (R1.7-R1.9, R2.6, R3.4-R3.6, R4.4-R4.5)."""
    k = len(g)
    res = engine.outcome(g)
    w, all_tens = res["winner"], res["all_tens"]
    rows = np.arange(k)
    kots = np.zeros((k, 2), np.int64)
    points = np.zeros((k, 2), np.int64)
    streak_side = np.full(k, -1, np.int64)
    streak_count = np.zeros(k, np.int64)
    maxed = rules.max_hands is not None and rules.max_hands <= 1
    name = rules.name
    if name == "dehla":
        kot = np.where(all_tens >= 0, w, -1)  # R1.8: a first hand cannot be the seventh in a row
        has = kot >= 0
        kots[rows[has], w[has]] = 1
        streak_side = np.where(has, -1, w)
        streak_count = np.where(has, 0, 1)
        over = (has & (rules.kots <= 1)) | maxed
    elif name == "dehla-direct":
        won = w >= 0
        if rules.match == "streak":
            streak_side = np.where(won, w, -1)
            streak_count = won.astype(np.int64)
            kot = np.where(all_tens >= 0, all_tens, np.where(won & (rules.streak <= 1), w, -1))
        else:
            points[rows[won], w[won]] = 1
            kot = all_tens.copy()
        has = kot >= 0
        kots[rows[has], kot[has]] = 1
        over = has | maxed
        if rules.match == "points":
            over = over | (won & (rules.points <= 1))
    elif name == "court-piece":
        kot = res["kot"]
        has = kot >= 0
        points[rows, w] = 1 + has
        kots[rows[has], kot[has]] = 1
        over = (points[rows, w] >= rules.points) | maxed
    else:
        kot = np.full(k, -1, np.int64)
        points = res["score"].copy()
        over = (np.abs(points[:, 0] - points[:, 1]) >= rules.gap) | maxed
    return {
        "kots": kots,
        "points": points,
        "streak_side": streak_side,
        "streak_count": streak_count,
        "over": np.asarray(over, bool),
        "kot": kot,
        "winner": w,
    }


def match_features(rules: Rules, m: dict[str, np.ndarray], seat_side: np.ndarray) -> np.ndarray:
    """(k, 8) float32: :func:`dehla_env.encoding._match_features` after one hand."""
    k = len(seat_side)
    rows = np.arange(k)
    own, other = seat_side, 1 - seat_side
    kots, points = m["kots"].astype(np.float64), m["points"].astype(np.float64)
    kots_target = rules.kots if rules.name == "dehla" else 1
    zero = np.zeros(k)
    if rules.name == "coat-pees":
        lead = (points[rows, own] - points[rows, other]) / rules.gap
        p_own, p_other = np.maximum(lead, 0.0), np.maximum(-lead, 0.0)
    elif rules.name == "court-piece" or rules.match == "points":
        p_own, p_other = points[rows, own] / rules.points, points[rows, other] / rules.points
    else:
        p_own = p_other = zero
    streak_target = 7 if rules.name == "dehla" else rules.streak
    value = m["streak_count"] / streak_target
    has = m["streak_side"] >= 0
    s_own = np.where(has & (m["streak_side"] == own), value, 0.0)
    s_other = np.where(has & (m["streak_side"] != own), value, 0.0)
    hands = min(1 / rules.max_hands, 1.0) if rules.max_hands else min(1 / 100, 1.0)
    out = np.stack(
        [
            np.minimum(kots[rows, own] / kots_target, 1.0),
            np.minimum(kots[rows, other] / kots_target, 1.0),
            np.minimum(p_own, 1.0),
            np.minimum(p_other, 1.0),
            np.minimum(s_own, 1.0),
            np.minimum(s_other, 1.0),
            np.full(k, hands),
            m["over"].astype(np.float64),
        ],
        axis=1,
    )
    return out.astype(np.float32)


class BatchObserver:
    """Flat observations of a :class:`BatchEngine`'s games; see the module docstring."""

    def __init__(self, engine: BatchEngine) -> None:
        self.engine = e = engine
        rules = self.rules = engine.rules
        n = self.n = engine.n
        self.layout = lay = layout_for(n)
        self.size = lay.size
        o = {name: s.offset for name, s in lay.slices.items()}
        self.o = o
        self.w_played = _window(e.played2, n)
        self.w_voids = _window(e.voids2, n)
        self.w_won = _window(e.won2, 2)
        self.w_counts = _window(e.counts.reshape(e.num_games, 2 * n, 1), n)
        self.w_bids = _window(e.bid_code2.reshape(e.num_games, 2 * n, 1), n)
        # fractions exactly as ObservationEncoder computes them (double, then float32)
        inv = 1.0 / rules.hand_size
        deck, nt, nten = rules.deck_size, rules.num_tricks, rules.num_tens
        self.t_count = _table([c * inv for c in range(rules.hand_size + 1)])
        self.t_mid_cards = _table([m / deck for m in range(deck + 1)])
        self.t_mid_tens = _table([t / nten for t in range(nten + 1)])
        self.t_bid = _table([b / 13 for b in range(14)])
        self.t_tricks = _table([t / nt for t in range(nt + 1)])
        self.t_undealt = _table([u / deck for u in range(deck + 1)])
        self.t_tens = _table([t / nten for t in range(nten + 1)])
        self.bid_cols = o["bids"] + NUM_BID_CHOICES * np.arange(n)
        self.seat_range = np.arange(n)
        self.dummy = o["progress"]  # one-hot entries that are off go here; overwritten after
        self.num_ones = 11 + 2 * n
        # columns not copied from the state: zeroed, then written
        self.zero_runs = [(o["hand_counts"], o["played"]), (o["trump_suit"], lay.size)]
        self.zero_runs.insert(1, (o["middle"] if not e.has_middle else o["middle_info"], o["voids"]))
        self._cols = np.zeros((0, self.num_ones), np.int64)
        assert o["tricks_won"] == o["progress"] + 2 and o["tens_won"] == o["progress"] + 4
        self._rowbase = np.zeros(0, np.int64)

    def observe(
        self, g: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None, held: np.ndarray | None = None
    ) -> np.ndarray:
        """(k, D) float32: the observation of seat ``seats[i]`` in game ``g[i]``.

        ``held``, if given, is ``engine.hands2[g, seats]`` already gathered.
        """
        e = self.engine
        n = self.n
        o = self.o
        k = len(g)
        if out is None:
            out = np.empty((k, self.size), np.float32)
        assert out.shape == (k, self.size) and out.flags.c_contiguous
        seats = np.asarray(seats, dtype=np.int64)
        out.fill(0)
        # ---- slices copied from the state
        if held is None:
            held = e.hands2[g, seats]
        out[:, o["hand"] : o["hand"] + NUM_CARDS] = held
        row = g * (2 * n) + seats  # row of the doubled per-seat arrays' windows
        out[:, o["played"] : o["played"] + n * NUM_CARDS] = self.w_played[row]
        side = seats & 1
        out[:, o["won"] : o["won"] + 2 * NUM_CARDS] = self.w_won[g * 4 + side]
        if e.has_middle:
            out[:, o["middle"] : o["middle"] + NUM_CARDS] = e.middle[g]
        out[:, o["voids"] : o["voids"] + 4 * n] = self.w_voids[row]
        # ---- one-hot entries: one scatter of ones
        if len(self._rowbase) < k:
            self._rowbase = np.arange(k, dtype=np.int64) * self.size
            self._cols = np.empty((k, self.num_ones), np.int64)
        cols = self._cols[:k]
        phase = e.phase[g]
        dummy = self.dummy
        ntrick = e.ntrick[g]
        lw = e.last_winner[g]
        ts = e.trump_suit[g]
        tm = e.trump_maker[g]
        cs = e.contract_seat[g]
        if e.closed:
            hid = e.hidden[g]
            mine = seats == tm
            cols[:, 0] = o["trump_state"] + np.where(ts < 0, 0, np.where(hid, np.where(mine, 2, 3), 1))
            cols[:, 1] = np.where((ts >= 0) & (~hid | mine), o["trump_suit"] + ts, dummy)
        else:
            cols[:, 0] = o["trump_state"] + (ts >= 0)
            cols[:, 1] = np.where(ts >= 0, o["trump_suit"] + ts, dummy)
        cols[:, 2] = o["pair_threat"] + np.where(lw >= 0, (lw - seats) % n, n)
        cols[:, 3] = o["trump_maker"] + np.where(tm >= 0, (tm - seats) % n, n)
        cols[:, 4] = o["contract_seat"] + np.where(cs >= 0, (cs - seats) % n, n)
        cols[:, 5] = o["dealer"] + (e.dealer[g] - seats) % n
        cols[:, 6] = o["phase"] + _PHASE_INDEX[phase]
        leader = e.leader[g]
        cols[:, 7] = np.where(phase == PLAY, o["trick_leader"] + (leader - seats) % n, dummy)
        in_trick = ntrick > 0
        cols[:, 8] = np.where(in_trick, o["led_suit"] + e.led[g], dummy)
        cols[:, 9] = np.where(in_trick, o["trick_winning"] + (e.best_seat[g] - seats) % n, dummy)
        mid_count = e.mid_count[g]
        cols[:, 10] = np.where(mid_count > 0, o["middle_info"] + 2, dummy) if e.has_middle else dummy
        tc = e.trick_cards[g]
        rel_pos = (leader - seats)[:, None] + self.seat_range
        cols[:, 11 : 11 + n] = np.where(tc >= 0, o["trick"] + (rel_pos % n) * NUM_CARDS + tc, dummy)
        if e.bidding:
            cols[:, 11 + n :] = self.bid_cols + self.w_bids[row]
        else:
            cols[:, 11 + n :] = self.bid_cols
        cols += self._rowbase[:k, None]
        out.reshape(-1)[cols.reshape(-1)] = 1.0
        # ---- fractions
        out[:, o["hand_counts"] : o["hand_counts"] + n] = self.t_count[self.w_counts[row]]
        if e.has_middle:
            out[:, o["middle_info"]] = self.t_mid_cards[mid_count]
            out[:, o["middle_info"] + 1] = self.t_mid_tens[e.mid_tens[g]]
        if e.bidding:
            shown = cs >= 0
            out[:, o["contract_info"]] = np.where(shown, self.t_bid[e.contract_level[g]], 0)
            out[:, o["contract_info"] + 1] = shown & ((cs & 1) == side)
        # progress (2), tricks_won (2), tens_won (2) are adjacent
        undealt = np.where(e.stage[g] == 1, e.deck_size - 20, 0) if e.staged else 0
        flip = side[:, None] == 1
        tricks = e.tricks[g]
        tens = e.tens[g]
        block = np.empty((k, 6), np.float32)
        block[:, 0] = self.t_tricks[e.ntricks[g]]
        block[:, 1] = self.t_undealt[undealt]
        block[:, 2:4] = self.t_tricks[np.where(flip, tricks[:, ::-1], tricks)]
        block[:, 4:6] = self.t_tens[np.where(flip, tens[:, ::-1], tens)]
        out[:, o["progress"] : o["progress"] + 6] = block
        done = phase == DONE
        if done.any():
            d = np.flatnonzero(done)
            m = first_hand_match(self.rules, e, g[d])
            out[d, o["match"] : o["match"] + 8] = match_features(self.rules, m, side[d])
        return out
