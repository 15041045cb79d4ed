"""Observation encodings: named, seat-relative slices -> a flat vector or a structure.

Every observation is written from the observer's frame: the observer is relative seat
0, the next seat to play 1, and so on (R0.2); "own side" is side 0 of the frame. The
flat vector is the concatenation of the named slices below, in this order; shapes are
for ``n`` players (4, or 6 with R2.8). Values are counts or fractions in ``[0, 3]``.

====================  ============  ======================================================
slice                 shape         contents
====================  ============  ======================================================
``hand``              (52,)         own cards (count of each id; 0..3 with three packs)
``hand_counts``       (n,)          cards held per relative seat / cards per hand
``trick``             (n, 52)       the card each relative seat put on the current trick
``trick_leader``      (n,)          relative seat that leads the current trick
``led_suit``          (4,)          suit led in the current trick (C D H S)
``trick_winning``     (n,)          relative seat winning the current trick so far
``played``            (n, 52)       every card each relative seat has played this hand
``won``               (2, 52)       cards taken (R1.5) or captured per relative side
``middle``            (52,)         R1.5: cards in the middle pile
``middle_info``       (3,)          middle cards / deck, middle tens / tens, pile non-empty
``pair_threat``       (n + 1,)      R1.5: relative seat that won the last trick since the
                                    last take (the pair threat); index n: nobody
``voids``             (n, 4)        relative seat shown void in suit (did not follow, R0.4)
``trump_suit``        (4,)          the trump suit, if this seat knows it
``trump_state``       (4,)          no trump yet / known and in force / own closed secret,
                                    not in force (R2.4c) / chosen but hidden from me
``trump_maker``       (n + 1,)      relative seat that made trump; index n: none or drawn
``bids``              (n, 30)       R4.2 per relative seat: 0 not yet, 1 pass, 2+k bid k
``contract_seat``     (n + 1,)      relative seat of the contract's bidder; index n: none
``contract_info``     (2,)          bid / 13, 1 if the contract is my side's
``dealer``            (n,)          relative seat of the dealer
``phase``             (4,)          decision due: trump, bid, card, none
``progress``          (2,)          tricks done / tricks per hand, cards undealt / deck
``tricks_won``        (2,)          tricks per relative side / tricks per hand
``tens_won``          (2,)          tens per relative side / tens in the deck
``match``             (8,)          kots (2) / target, points (2) / target, streak own and
                                    other / target, hands completed / max, match over
====================  ============  ======================================================

``encode_view`` is the reference: it reads only a :class:`PlayerView`, the one place
that decides what a seat may know. :class:`ObservationEncoder` produces the identical
vector straight from the engine state for speed (the environments use it); tests check
the two agree, and that an observation does not change when the hidden cards are
re-dealt. :func:`decode` turns a vector back into named parts for debugging.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

import numpy as np

from .actions import BID_OFFSET, NUM_ACTIONS, PASS_ACTION
from .cards import NUM_CARDS, NUM_RANKS, cards_in
from .engine import MatchState, Phase
from .engine.hand import FIRST_STAGE_CARDS
from .rules import MatchScoring, Rules
from .tricks import trick_winner
from .view import PlayerView, cards_undealt, own_cards, own_hand_mask, visible_contract, visible_trump

NUM_BID_CHOICES = 2 + (NUM_ACTIONS - BID_OFFSET)  # not yet, pass, 28 bids


class Axis(Enum):
    """What an axis of a slice is indexed by: the code that transforms observations
    (suit relabelling, card features, decoders) reads these, not slice names."""

    SEAT = "seat"  # relative seat 0..n-1 (the observer is 0)
    SEAT_OR_NONE = "seat-or-none"  # relative seat, then one entry for none
    SIDE = "side"  # relative side: own 0, other 1
    CARD = "card"  # card id 0..51 (R0.1)
    SUIT = "suit"  # suit C D H S
    BID = "bid"  # R4.2 bid code: not yet, pass, then the 28 bids as in the action layout
    CATEGORY = "category"  # a one-hot of named states (phase, trump state)
    VALUE = "value"  # scalars (fractions, counts)


@dataclass(frozen=True)
class Slice:
    name: str
    shape: tuple[int, ...]
    offset: int
    axes: tuple[Axis, ...] = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.offset + self.size


_AXIS_SIZE = {Axis.CARD: NUM_CARDS, Axis.SUIT: 4, Axis.SIDE: 2, Axis.BID: NUM_BID_CHOICES}


class Layout:
    """Named slices with typed axes, laid end to end: ``(name, axes, shape)``; a
    :class:`Slice`'s axes say what each of its dimensions is indexed by."""

    def __init__(self, num_players: int, parts: list[tuple[str, tuple[Axis, ...], tuple[int, ...]]]) -> None:
        self.num_players = num_players
        self.slices: dict[str, Slice] = {}
        offset = 0
        for name, axes, shape in parts:
            for axis, size in zip(axes, shape):
                assert _AXIS_SIZE.get(axis, size) == size, (name, axis, size)
            s = Slice(name, shape, offset, axes)
            self.slices[name] = s
            offset = s.stop
        self.size = offset

    def __getitem__(self, name: str) -> Slice:
        return self.slices[name]

    def off(self, name: str) -> int:
        return self.slices[name].offset


@cache
def layout_for(num_players: int) -> Layout:
    """The flat observation's layout for ``num_players`` (the table above)."""
    n = num_players
    A = Axis
    return Layout(
        n,
        [
            ("hand", (A.CARD,), (NUM_CARDS,)),
            ("hand_counts", (A.SEAT,), (n,)),
            ("trick", (A.SEAT, A.CARD), (n, NUM_CARDS)),
            ("trick_leader", (A.SEAT,), (n,)),
            ("led_suit", (A.SUIT,), (4,)),
            ("trick_winning", (A.SEAT,), (n,)),
            ("played", (A.SEAT, A.CARD), (n, NUM_CARDS)),
            ("won", (A.SIDE, A.CARD), (2, NUM_CARDS)),
            ("middle", (A.CARD,), (NUM_CARDS,)),
            ("middle_info", (A.VALUE,), (3,)),
            ("pair_threat", (A.SEAT_OR_NONE,), (n + 1,)),
            ("voids", (A.SEAT, A.SUIT), (n, 4)),
            ("trump_suit", (A.SUIT,), (4,)),
            ("trump_state", (A.CATEGORY,), (4,)),
            ("trump_maker", (A.SEAT_OR_NONE,), (n + 1,)),
            ("bids", (A.SEAT, A.BID), (n, NUM_BID_CHOICES)),
            ("contract_seat", (A.SEAT_OR_NONE,), (n + 1,)),
            ("contract_info", (A.VALUE,), (2,)),
            ("dealer", (A.SEAT,), (n,)),
            ("phase", (A.CATEGORY,), (4,)),
            ("progress", (A.VALUE,), (2,)),
            ("tricks_won", (A.SIDE,), (2,)),
            ("tens_won", (A.SIDE,), (2,)),
            ("match", (A.VALUE,), (8,)),
        ],
    )


@cache
def privileged_layout(num_players: int) -> Layout:
    """The layout of :func:`privileged_features` (critics only)."""
    A = Axis
    return Layout(
        num_players,
        [
            ("hands", (A.SEAT, A.CARD), (num_players, NUM_CARDS)),
            ("undealt", (A.CARD,), (NUM_CARDS,)),
            ("true_trump", (A.SUIT,), (4,)),
        ],
    )


def observation_size(rules: Rules) -> int:
    return layout_for(rules.players).size


def decode(vector: np.ndarray, num_players: int = 4) -> dict[str, np.ndarray]:
    """Split a flat observation into its named slices (shaped), for debugging."""
    lay = layout_for(num_players)
    if vector.shape[-1] != lay.size:
        raise ValueError(f"expected a vector of {lay.size}, got {vector.shape}")
    return {s.name: vector[..., s.offset : s.stop].reshape(vector.shape[:-1] + s.shape) for s in lay.slices.values()}


def _match_features(rules: Rules, seat_side: int, kots, points, streak, hands_completed, over: bool) -> list[float]:
    """The eight ``match`` values, own side first, each in [0, 1] (R4.5: in ``coat-pees``
    only the gap matters, so the points slots hold how far each side is ahead / gap)."""
    own, other = seat_side, 1 - seat_side
    kots_target = rules.kots_to_win or 1
    if rules.match_scoring is MatchScoring.GAP:
        lead = (points[own] - points[other]) / rules.gap
        p_own, p_other = max(lead, 0.0), max(-lead, 0.0)
    elif rules.points_to_win is not None:
        p_own, p_other = points[own] / rules.points_to_win, points[other] / rules.points_to_win
    else:
        p_own = p_other = 0.0
    streak_target = rules.kot_streak or 1
    s_own = s_other = 0.0
    if streak is not None:
        if streak[0] == own:
            s_own = streak[1] / streak_target
        else:
            s_other = streak[1] / streak_target
    hands = min(hands_completed / rules.max_hands, 1.0) if rules.max_hands else min(hands_completed / 100, 1.0)
    return [
        min(kots[own] / kots_target, 1.0),
        min(kots[other] / kots_target, 1.0),
        min(p_own, 1.0),
        min(p_other, 1.0),
        min(s_own, 1.0),
        min(s_other, 1.0),
        hands,
        1.0 if over else 0.0,
    ]


_PHASE_INDEX = {Phase.TRUMP: 0, Phase.BID: 1, Phase.PLAY: 2}


def encode_view(view: PlayerView) -> np.ndarray:
    """The flat observation of ``view`` (the one encoder, :class:`ObservationEncoder`, fed
    from a :class:`PlayerView`: what bots that hold only a view use)."""
    return ObservationEncoder(view.rules).encode_view(view)


def history_from_view(view: PlayerView) -> np.ndarray:
    """The ordered card plays of the hand: rows ``(relative seat, card id, trick index)``,
    padded with -1 to one row per card of the deck (156 with three packs, R2.8). For
    sequence models."""
    n = view.num_players
    out = np.full((view.rules.deck_size, 3), -1, dtype=np.int16)
    i = 0
    for t, (leader, cards, _w) in enumerate(view.history):
        for j, c in enumerate(cards):
            out[i] = ((leader + j - view.seat) % n, c, t)
            i += 1
    t = len(view.history)
    for s, c in view.trick:
        out[i] = ((s - view.seat) % n, c, t)
        i += 1
    return out


def structured_from_flat(vector: np.ndarray, history: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """The structured observation: every named slice, shaped, plus ``history``."""
    parts = decode(vector, num_players)
    parts["history"] = history
    return parts


_UNSET = object()  # "nothing written yet", where None is a value (no contract)


class _ViewHand:
    """A :class:`PlayerView` read through the public field names of the engine's hand
    (:data:`dehla_env.view.PUBLIC_FIELDS`), so that one encoder serves views and the live
    engine alike."""

    __slots__ = (
        "dealer",
        "phase",
        "leader",
        "led",
        "trick_seats",
        "trick_cards",
        "trump",
        "history",
        "won_cards",
        "middle",
        "middle_tens",
        "last_winner",
        "bids",
        "tricks",
        "tens",
        "hand_counts",
        "trump_maker",
    )

    def __init__(self, view: PlayerView) -> None:
        self.dealer = view.dealer
        self.phase = view.phase
        self.leader = view.leader
        self.led = view.led_suit
        self.trick_seats = [s for s, _c in view.trick]
        self.trick_cards = [c for _s, c in view.trick]
        self.trump = view.trump if view.trump_in_force else -1
        self.history = view.history
        self.won_cards = view.won_cards
        self.middle = view.middle
        self.middle_tens = view.middle_tens
        self.last_winner = view.last_winner
        self.bids = view.bids
        self.tricks = view.tricks
        self.tens = view.tens
        self.hand_counts = view.hand_counts
        self.trump_maker = view.trump_maker


class _Seen:
    """One observer's observation, kept up to date by writing only what changed.

    ``buf`` is the whole flat vector (a C float array: element writes cost tens of
    nanoseconds and ``np.frombuffer`` of a copy is the result). The other slots remember
    what was last written where, so that the next call can clear exactly that."""

    __slots__ = (
        "buf",
        "hand_ref",
        "hand_mask",
        "hand_cards",
        "trick",
        "trick_of",
        "leader_i",
        "led_i",
        "win_i",
        "tricks_seen",
        "cards_seen",
        "won_seen",
        "middle_ref",
        "middle_seen",
        "middle_i",
        "threat_i",
        "trump_key",
        "maker_i",
        "bids_seen",
        "bid_i",
        "contract_key",
        "phase_i",
        "match_key",
    )

    buf: array
    hand_ref: object
    hand_mask: int
    hand_cards: list[int] | None
    trick: list[int]
    trick_of: int
    leader_i: int
    led_i: int
    win_i: int
    tricks_seen: int
    cards_seen: int
    won_seen: list[int]
    middle_ref: object
    middle_seen: int
    middle_i: list[int]
    threat_i: int
    trump_key: object
    maker_i: int
    bids_seen: int
    bid_i: list[int]
    contract_key: object
    phase_i: int
    match_key: object

    def __init__(self, size: int) -> None:
        self.buf = array("f", bytes(4 * size))
        self.hand_ref = None


class ObservationEncoder:
    """The one observation encoder: the flat vector of the table above, for one seat.

    It reads a hand only through what :mod:`dehla_env.view` lets the seat see: the
    public fields of the engine's hand (:data:`~dehla_env.view.PUBLIC_FIELDS`), the
    seat's own cards (:func:`~dehla_env.view.own_hand_mask`), the trump as the seat knows
    it (:func:`~dehla_env.view.visible_trump`) and the contract once it is public
    (:func:`~dehla_env.view.visible_contract`); :meth:`encode_view` reads the same from a
    :class:`~dehla_env.view.PlayerView`. ``tests/oracle_encoding.py`` is the naive
    reference every output is checked against.

    **Incremental.** Each observer keeps its vector between calls, and a call writes only
    the entries that changed since that observer's last call: the cards played since,
    the tricks completed since (played, won, voids), the trick in progress, and the
    scalars. A step of the game changes a handful of entries, so encoding costs a few
    microseconds instead of rebuilding 826 floats.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = n = rules.players
        self.layout = layout_for(n)
        o = {name: s.offset for name, s in self.layout.slices.items()}
        self._o = o
        self._size = self.layout.size
        self._seen: list[_Seen | None] = [None] * n
        self._inv_deck = 1.0 / rules.deck_size
        self._inv_tricks = 1.0 / rules.num_tricks
        self._inv_tens = 1.0 / rules.num_tens
        self._inv_hand = 1.0 / rules.hand_size
        # offsets used on every call
        self.o_hand = o["hand"]
        self.o_counts = o["hand_counts"]
        self.o_trick = o["trick"]
        self.o_leader = o["trick_leader"]
        self.o_led = o["led_suit"]
        self.o_win = o["trick_winning"]
        self.o_played = o["played"]
        self.o_won = o["won"]
        self.o_middle = o["middle"]
        self.o_midinfo = o["middle_info"]
        self.o_threat = o["pair_threat"]
        self.o_voids = o["voids"]
        self.o_tsuit = o["trump_suit"]
        self.o_tstate = o["trump_state"]
        self.o_maker = o["trump_maker"]
        self.o_bids = o["bids"]
        self.o_cseat = o["contract_seat"]
        self.o_cinfo = o["contract_info"]
        self.o_dealer = o["dealer"]
        self.o_phase = o["phase"]
        self.o_progress = o["progress"]
        self.o_tricks = o["tricks_won"]
        self.o_tens = o["tens_won"]
        self.o_match = o["match"]

    # ------------------------------------------------------------------ entry points
    def encode(self, match: MatchState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The flat observation of ``seat`` in ``match`` now (a new array unless ``out``)."""
        hand = match.hand
        seen = self._seen[seat]
        if seen is None:
            seen = self._seen[seat] = _Seen(self._size)
        self._update(
            seen,
            hand,
            seat,
            own_hand_mask(hand, seat),
            own_cards(hand, seat) if hand.extra is not None else None,
            visible_trump(hand, seat),
            visible_contract(hand),
            cards_undealt(hand),
            match,
        )
        result = np.frombuffer(array("f", seen.buf), dtype=np.float32)
        if out is not None:
            out[:] = result
            return out
        return result

    def encode_view(self, view: PlayerView) -> np.ndarray:
        """The flat observation of ``view.seat`` from the view alone (written afresh)."""
        seen = _Seen(self._size)
        self._update(
            seen,
            _ViewHand(view),
            view.seat,
            view.hand_mask,
            list(view.hand) if view.rules.packs > 1 else None,
            (view.trump, view.trump_in_force, view.trump_hidden),
            view.contract,
            view.cards_undealt,
            view,
        )
        return np.frombuffer(seen.buf, dtype=np.float32)

    # ------------------------------------------------------------------ the one encoder
    def _reset(self, seen: _Seen, h: Any, seat: int) -> None:
        """A new hand for this observer: a zero vector and the per-hand constants."""
        n = self.n
        size = self._size
        seen.buf = buf = array("f", bytes(4 * size))
        seen.hand_mask = 0
        seen.hand_cards = None
        seen.trick = []
        seen.trick_of = 0
        seen.leader_i = seen.led_i = seen.win_i = -1
        seen.tricks_seen = 0
        seen.cards_seen = 0
        seen.won_seen = [0, 0]
        seen.middle_ref = None
        seen.middle_seen = 0
        seen.middle_i = []
        seen.threat_i = -1
        seen.trump_key = None
        seen.maker_i = -1
        seen.bids_seen = 0
        seen.bid_i = [self.o_bids + r * NUM_BID_CHOICES for r in range(n)]  # "not yet" for every seat
        for i in seen.bid_i:
            buf[i] = 1.0
        seen.contract_key = _UNSET
        seen.phase_i = -1
        seen.match_key = None
        buf[self.o_dealer + (h.dealer - seat) % n] = 1.0

    def _update(
        self,
        seen: _Seen,
        h: Any,
        seat: int,
        own_mask: int,
        own_list: list[int] | None,
        trump_seen: tuple[int, bool, bool],
        contract: tuple[int, int, int] | None,
        undealt: int,
        match: Any,
    ) -> None:
        if seen.hand_ref is not h:
            seen.hand_ref = h
            self._reset(seen, h, seat)
        buf = seen.buf
        n = self.n
        # own hand: the cards that came or went since the last call
        if own_list is None:
            diff = own_mask ^ seen.hand_mask
            if diff:
                o = self.o_hand
                if diff & (diff - 1):
                    for c in cards_in(diff):
                        buf[o + c] = 1.0 if own_mask >> c & 1 else 0.0
                else:  # the usual change: one card played
                    c = diff.bit_length() - 1
                    buf[o + c] = 1.0 if own_mask & diff else 0.0
                seen.hand_mask = own_mask
        elif own_list != seen.hand_cards:
            o = self.o_hand
            buf[o : o + NUM_CARDS] = array("f", bytes(4 * NUM_CARDS))
            for c in own_list:
                buf[o + c] += 1.0
            seen.hand_cards = own_list
        # cards played since the last call: played and voids (R0.4), completed tricks
        history = h.history
        trick_cards = h.trick_cards
        if seen.cards_seen < n * len(history) + len(trick_cards):
            self._played(seen, h, seat)
        # the trick in progress
        have = seen.trick
        k = len(have)
        if k != len(trick_cards) or seen.trick_of != len(history):
            # the trick grew, or a new one began (then the old cards go first)
            if seen.trick_of != len(history) or k > len(trick_cards):
                for i in have:
                    buf[i] = 0.0
                have = seen.trick = []
                k = 0
                seen.trick_of = len(history)
            o = self.o_trick
            seats = h.trick_seats
            for m in range(k, len(trick_cards)):
                i = o + ((seats[m] - seat) % n) * NUM_CARDS + trick_cards[m]
                buf[i] = 1.0
                have.append(i)
        phase = h.phase
        i = self.o_leader + (h.leader - seat) % n if phase == Phase.PLAY else -1
        if i != seen.leader_i:
            if seen.leader_i >= 0:
                buf[seen.leader_i] = 0.0
            if i >= 0:
                buf[i] = 1.0
            seen.leader_i = i
        if trick_cards:
            i = self.o_led + h.led
            winner = h.trick_seats[trick_winner(trick_cards, h.trump)]
            j = self.o_win + (winner - seat) % n
        else:
            i = j = -1
        if i != seen.led_i:
            if seen.led_i >= 0:
                buf[seen.led_i] = 0.0
            if i >= 0:
                buf[i] = 1.0
            seen.led_i = i
        if j != seen.win_i:
            if seen.win_i >= 0:
                buf[seen.win_i] = 0.0
            if j >= 0:
                buf[j] = 1.0
            seen.win_i = j
        # cards won per side (append-only within a hand)
        won = h.won_cards
        for side in (0, 1):
            cards = won[side]
            k = seen.won_seen[side]
            if k < len(cards):
                row = self.o_won + ((side - seat) % 2) * NUM_CARDS
                for c in cards[k:]:
                    buf[row + c] += 1.0
                seen.won_seen[side] = len(cards)
        # the middle (R1.5): grows by tricks, emptied by a take
        middle: list[int] = h.middle
        if middle is not seen.middle_ref or len(middle) != seen.middle_seen:
            o = self.o_middle
            if middle is not seen.middle_ref or len(middle) < seen.middle_seen:
                for i in seen.middle_i:
                    buf[i] = 0.0
                seen.middle_i = []
                seen.middle_seen = 0
                seen.middle_ref = middle
            for c in middle[seen.middle_seen :]:
                seen.middle_i.append(o + c)
                buf[o + c] = 1.0
            seen.middle_seen = len(middle)
        o = self.o_midinfo
        if middle:
            buf[o] = len(middle) * self._inv_deck
            buf[o + 1] = h.middle_tens * self._inv_tens
            buf[o + 2] = 1.0
        else:
            buf[o] = buf[o + 1] = buf[o + 2] = 0.0
        lw = h.last_winner
        i = self.o_threat + ((lw - seat) % n if lw >= 0 else n)
        if i != seen.threat_i:
            if seen.threat_i >= 0:
                buf[seen.threat_i] = 0.0
            buf[i] = 1.0
            seen.threat_i = i
        # trump as this seat knows it (R2.4c), and who made it
        if trump_seen != seen.trump_key:
            o, t = self.o_tsuit, self.o_tstate
            buf[o : o + 4] = buf[t : t + 4] = array("f", bytes(16))
            suit, in_force, hidden = trump_seen
            if hidden:
                buf[t + 3] = 1.0
            elif suit < 0:
                buf[t] = 1.0
            else:
                buf[o + suit] = 1.0
                buf[t + (1 if in_force else 2)] = 1.0
            seen.trump_key = trump_seen
        tm = h.trump_maker
        i = self.o_maker + ((tm - seat) % n if tm >= 0 else n)
        if i != seen.maker_i:
            if seen.maker_i >= 0:
                buf[seen.maker_i] = 0.0
            buf[i] = 1.0
            seen.maker_i = i
        # bidding (R4.2): each seat's last call
        bids = h.bids
        if len(bids) != seen.bids_seen:
            o = self.o_bids
            for s, a in bids[seen.bids_seen :]:
                r = (s - seat) % n
                buf[seen.bid_i[r]] = 0.0
                i = o + r * NUM_BID_CHOICES + (1 if a == PASS_ACTION else 2 + a - BID_OFFSET)
                buf[i] = 1.0
                seen.bid_i[r] = i
            seen.bids_seen = len(bids)
        if contract != seen.contract_key:
            o, ci = self.o_cseat, self.o_cinfo
            buf[o : o + n + 1] = array("f", bytes(4 * (n + 1)))
            if contract is not None:
                bidder, tricks, _suit = contract
                buf[o + (bidder - seat) % n] = 1.0
                buf[ci] = tricks / 13
                buf[ci + 1] = 1.0 if bidder % 2 == seat % 2 else 0.0
            else:
                buf[o + n] = 1.0
                buf[ci] = buf[ci + 1] = 0.0
            seen.contract_key = contract
        i = self.o_phase + _PHASE_INDEX.get(phase, 3)
        if i != seen.phase_i:
            if seen.phase_i >= 0:
                buf[seen.phase_i] = 0.0
            buf[i] = 1.0
            seen.phase_i = i
        # scalars
        counts = h.hand_counts
        o = self.o_counts
        inv = self._inv_hand
        for r in range(n):
            buf[o + r] = counts[(seat + r) % n] * inv
        o = self.o_progress
        buf[o] = len(history) * self._inv_tricks
        buf[o + 1] = undealt * self._inv_deck
        me = seat % 2
        tr, tn = h.tricks, h.tens
        o = self.o_tricks
        buf[o] = tr[me] * self._inv_tricks
        buf[o + 1] = tr[1 - me] * self._inv_tricks
        o = self.o_tens
        buf[o] = tn[me] * self._inv_tens
        buf[o + 1] = tn[1 - me] * self._inv_tens
        # the match values change between hands only (a fresh observer writes them once)
        winner = match.winner if isinstance(match, MatchState) else match.match_winner
        key = (match.hands_completed, winner is not None)
        if key != seen.match_key:
            o = self.o_match
            buf[o : o + 8] = array(
                "f",
                _match_features(
                    self.rules, me, match.kots, match.points, match.streak, match.hands_completed, winner is not None
                ),
            )
            seen.match_key = key

    def history(self, match: MatchState, seat: int) -> np.ndarray:
        """Ordered card plays (see :func:`history_from_view`) from the public tricks."""
        hand = match.hand
        n = self.n
        out = np.full((self.rules.deck_size, 3), -1, dtype=np.int16)
        rows = []
        for t, (leader, cards, _w) in enumerate(hand.history):
            for j, c in enumerate(cards):
                rows.append(((leader + j - seat) % n, c, t))
        t = len(hand.history)
        for s, c in zip(hand.trick_seats, hand.trick_cards):
            rows.append(((s - seat) % n, c, t))
        if rows:
            out[: len(rows)] = rows
        return out

    def _played(self, seen: _Seen, h: Any, seat: int) -> None:
        """Cards played since this observer last looked: ``played`` and ``voids``."""
        n = self.n
        buf = seen.buf
        o_played, o_voids = self.o_played, self.o_voids
        history = h.history
        t, j = seen.tricks_seen, seen.cards_seen - n * seen.tricks_seen
        while True:
            if t < len(history):
                leader, cards, _w = history[t]
            else:
                leader = h.trick_seats[0] if h.trick_seats else 0
                cards = h.trick_cards
            if j < len(cards):
                led = cards[0] // NUM_RANKS
                for k in range(j, len(cards)):
                    c = cards[k]
                    r = (leader + k - seat) % n
                    buf[o_played + r * NUM_CARDS + c] += 1.0
                    if c // NUM_RANKS != led:
                        buf[o_voids + r * 4 + led] = 1.0
            if t >= len(history):
                seen.tricks_seen = t
                seen.cards_seen = n * t + len(cards)
                return
            t += 1
            j = 0


def privileged_size(rules: Rules) -> int:
    """Length of :func:`privileged_features`."""
    return privileged_layout(rules.players).size


def privileged_features(match: MatchState, frame: int) -> np.ndarray:
    """What no seat may see, for centralised critics only: every hand by seat relative
    to ``frame`` (n x 52), the cards not yet dealt (52) and the true trump suit (4, a
    closed one included). Never give this to a policy."""
    hand = match.hand
    n = hand.n
    out = np.zeros(n * NUM_CARDS + NUM_CARDS + 4, dtype=np.float32)
    for s in range(n):
        base = ((s - frame) % n) * NUM_CARDS
        for c in hand.hand_cards(s):
            out[base + c] += 1
    if hand.deck is not None and hand.stage == 1:
        for c in hand.deck[FIRST_STAGE_CARDS:]:
            out[n * NUM_CARDS + c] += 1
    if hand.trump_suit >= 0:
        out[n * NUM_CARDS + NUM_CARDS + hand.trump_suit] = 1
    return out
