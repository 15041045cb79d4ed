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

:func:`encode_view` is the definition: it writes the vector from scratch from a
:class:`PlayerView`, the one place that decides what a seat may know. The fast writers
give the identical vector another way: :class:`ObservationEncoder` straight from a live
match, incrementally (the belief search and the imitation data use it), and the batched
observer of :mod:`dehla_env.vector.observe` (one writer for many games or one, compiled
by numba: the vector env's and the PettingZoo env's); tests hold each to
:func:`encode_view`, bit for bit, and check that an observation does not change when the
hidden cards are re-dealt. :func:`decode` turns a vector back into named parts for
debugging.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

import numpy as np

from .actions import BID_OFFSET, NUM_ACTIONS, PASS_ACTION
from .cards import NUM_CARDS, cards_in, suit_of
from .engine import MatchState, Phase
from .engine.hand import FIRST_STAGE_CARDS, HandState
from .rules import MatchScoring, Rules
from .scoring import Ints, Pair
from .seats import side_of
from .tricks import trick_winner
from .view import PlayerView, cards_undealt, own_hand_layers, own_hand_mask, visible_contract, visible_trump

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


def match_denominators(rules: Rules) -> tuple[int, ...]:
    """The denominators of the eight ``match`` values: kots (twice), points (twice; the
    gap in ``coat-pees``, R4.5), streak (twice), the hands (the match's limit, else 100),
    over (1)."""
    points = rules.gap if rules.match_scoring is MatchScoring.GAP else rules.points_to_win or 1
    kots, streak = rules.kots_to_win or 1, rules.kot_streak or 1
    return (kots, kots, points, points, streak, streak, rules.max_hands or 100, 1)


def match_codes(rules: Rules, *, kots: Pair, points: Pair, streaks: Pair, hands: Ints, over: Ints) -> list[Ints]:
    """The numerators of the eight ``match`` values over :func:`match_denominators`: each
    value is ``min(x / t, 1)``, that is ``min(x, t) / t``. Pairs are own side first;
    ``streaks`` is each side's run of kots (R1.8, R2.6; 0 for the side not on one). Ints
    for one seat (the scalar writers), arrays for many (the batched writer): the slice
    defined once. R4.5: in ``coat-pees`` only the gap counts, so the points slots hold
    how far each side is ahead."""
    if rules.match_scoring is MatchScoring.GAP:
        lead = points[0] - points[1]
        points = (lead * (lead > 0), -lead * (lead < 0))
    elif rules.points_to_win is None:
        points = (0, 0)
    values = (*kots, *points, *streaks, hands, over)
    return [min(x, t) if isinstance(x, int) else np.minimum(x, t) for x, t in zip(values, match_denominators(rules))]


def _match_features(rules: Rules, seat_side: int, *, kots, points, streak, hands_completed, over: bool) -> list[float]:
    """One seat's eight ``match`` values (:func:`match_codes` over
    :func:`match_denominators`), from the match's side-0-first tallies."""
    own, other = seat_side, 1 - seat_side
    streaks = (0, 0) if streak is None else (streak[1], 0) if streak[0] == own else (0, streak[1])
    codes = match_codes(
        rules,
        kots=(kots[own], kots[other]),
        points=(points[own], points[other]),
        streaks=streaks,
        hands=hands_completed,
        over=int(over),
    )
    return [int(x) / t for x, t in zip(codes, match_denominators(rules), strict=True)]


def match_features(match: MatchState, side: int) -> list[float]:
    """The eight ``match`` values of a seat of ``side`` in ``match`` now, for the writers
    that read a live match (what :func:`encode_view` writes from the view's tallies)."""
    return _match_features(
        match.rules,
        side,
        kots=match.kots,
        points=match.points,
        streak=match.streak,
        hands_completed=match.hands_completed,
        over=match.winner is not None,
    )


_PHASE_INDEX = {Phase.TRUMP: 0, Phase.BID: 1, Phase.PLAY: 2}
_PLAY_PHASE = Phase.PLAY  # as a global: see engine/hand.py
# the one-hot slices with a single one, by their index in ``_Board.hot``
_LEADER, _LED, _WINNER, _THREAT, _MAKER, _PHASE = range(6)
_ONE_HOTS = 6
_PHASE_SLOT = [_PHASE_INDEX.get(p, 3) for p in Phase]  # by phase value: trump, bid, card, none


def encode_view(view: PlayerView) -> np.ndarray:
    """The flat observation of ``view.seat``: **the definition of the observation.**

    Every slice of the table above, written from scratch from a
    :class:`~dehla_env.view.PlayerView` alone (what the seat may know, R0.6), one slice
    at a time, seats and sides turned relative to the observer (R0.2). The fast writers
    (:class:`ObservationEncoder` over the live engine, the batched
    :class:`~dehla_env.vector.observe.BatchObserver`) must
    give this vector bit for bit: the tests hold each of them to it. Bots that hold
    only a view encode with it. Fractions are computed in double precision and stored
    as float32 (the fast writers round the same way)."""
    rules = view.rules
    n = view.num_players
    me = view.seat
    lay = layout_for(n)
    obs = np.zeros(lay.size, dtype=np.float32)

    def rel(s: int) -> int:  # relative seat: the observer is 0, the next to play 1 (R0.2)
        return (s - me) % n

    def rside(side: int) -> int:  # relative side: own 0, other 1
        return (side - me) % 2

    o = lay.off("hand")
    for c in view.hand:
        obs[o + c] += 1
    o = lay.off("hand_counts")
    for s in range(n):
        obs[o + rel(s)] = view.hand_counts[s] / rules.hand_size
    o = lay.off("trick")
    for s, c in view.trick:
        obs[o + rel(s) * NUM_CARDS + c] += 1
    if view.phase == Phase.PLAY:
        obs[lay.off("trick_leader") + rel(view.leader)] = 1
    if view.led_suit >= 0:
        obs[lay.off("led_suit") + view.led_suit] = 1
    if view.trick_winner >= 0:
        obs[lay.off("trick_winning") + rel(view.trick_winner)] = 1
    o = lay.off("played")
    for s in range(n):
        for c in view.played_by(s):
            obs[o + rel(s) * NUM_CARDS + c] += 1
    o = lay.off("won")
    for side in (0, 1):
        for c in view.won_cards[side]:
            obs[o + rside(side) * NUM_CARDS + c] += 1
    o = lay.off("middle")  # R1.5
    for c in view.middle:
        obs[o + c] += 1
    o = lay.off("middle_info")
    obs[o] = len(view.middle) / rules.deck_size
    obs[o + 1] = view.middle_tens / rules.num_tens
    obs[o + 2] = 1.0 if view.middle else 0.0
    obs[lay.off("pair_threat") + (rel(view.last_winner) if view.last_winner >= 0 else n)] = 1
    o = lay.off("voids")  # R0.4: shown by not following suit (the engine keeps them)
    for s, row in enumerate(view.voids):
        for suit in range(4):
            if row[suit]:
                obs[o + rel(s) * 4 + suit] = 1
    # trump as this seat knows it (R2.4c: a closed trump only its maker sees, until revealed)
    if view.trump >= 0:
        obs[lay.off("trump_suit") + view.trump] = 1
    o = lay.off("trump_state")
    if view.trump_hidden:
        obs[o + 3] = 1  # chosen, hidden from me
    elif view.trump < 0:
        obs[o] = 1  # no trump yet
    elif view.trump_in_force:
        obs[o + 1] = 1  # known and in force
    else:
        obs[o + 2] = 1  # my own closed secret, not in force
    obs[lay.off("trump_maker") + (rel(view.trump_maker) if view.trump_maker >= 0 else n)] = 1
    o = lay.off("bids")  # R4.2: each seat's last call; "not yet" for a seat that has none
    last_call = {rel(s): a for s, a in view.bids}
    for r in range(n):
        a = last_call.get(r)
        obs[o + r * NUM_BID_CHOICES + (0 if a is None else 1 if a == PASS_ACTION else 2 + a - BID_OFFSET)] = 1
    if view.contract is not None:
        bidder, tricks, _suit = view.contract
        obs[lay.off("contract_seat") + rel(bidder)] = 1
        o = lay.off("contract_info")
        obs[o] = tricks / 13
        obs[o + 1] = 1.0 if side_of(bidder) == side_of(me) else 0.0
    else:
        obs[lay.off("contract_seat") + n] = 1
    obs[lay.off("dealer") + rel(view.dealer)] = 1
    obs[lay.off("phase") + _PHASE_INDEX.get(view.phase, 3)] = 1
    o = lay.off("progress")
    obs[o] = view.num_tricks_done / rules.num_tricks
    obs[o + 1] = view.cards_undealt / rules.deck_size
    o = lay.off("tricks_won")
    obs[o + rside(0)] = view.tricks[0] / rules.num_tricks
    obs[o + rside(1)] = view.tricks[1] / rules.num_tricks
    o = lay.off("tens_won")
    obs[o + rside(0)] = view.tens[0] / rules.num_tens
    obs[o + rside(1)] = view.tens[1] / rules.num_tens
    o = lay.off("match")
    obs[o : o + 8] = _match_features(
        rules,
        side_of(me),
        kots=view.kots,
        points=view.points,
        streak=view.streak,
        hands_completed=view.hands_completed,
        over=view.match_winner is not None,
    )
    return obs


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


# The slices one observer sees differently from another beyond the rotation of seats
# and sides: its own cards and its knowledge of trump (R0.6, R2.4c), and the two that
# mix public values with "mine" (contract_info, match). The board keeps one row of each
# per seat; every other slice is kept once, in absolute seats and sides.
_OWN_SLICES = ("hand", "trump_suit", "trump_state", "contract_info", "match")


@cache
def board_layout(num_players: int) -> Layout:
    """The layout of the encoder's board: every public slice of :func:`layout_for` in
    absolute seats and sides (row ``s`` is seat ``s``, not relative seat ``s``), then
    the observer's own slices once per seat (``_OWN_SLICES``, a leading seat axis)."""
    n = num_players
    lay = layout_for(n)
    own = [lay[name] for name in _OWN_SLICES]
    public = [(s.name, s.axes, s.shape) for s in lay.slices.values() if s not in own]
    return Layout(n, public + [(s.name, (Axis.SEAT, *s.axes), (n, *s.shape)) for s in own])


@cache
def gather_indices(num_players: int) -> np.ndarray:
    """``(n, D)`` board positions: seat ``s``'s observation is ``board[gather[s]]``.

    The typed first axis of each slice says how it turns seat-relative: relative seat
    ``r`` of observer ``s`` is absolute seat ``(s + r) % n`` (R0.2), relative side ``r``
    is side ``(s + r) % 2``, a seat-or-none axis keeps its last entry (none) in place;
    an own slice takes the observer's row."""
    n = num_players
    lay, board = layout_for(n), board_layout(n)
    own = [lay[name] for name in _OWN_SLICES]
    out = np.empty((n, lay.size), dtype=np.intp)
    for seat in range(n):
        for s in lay.slices.values():
            b = board[s.name]
            if s in own:
                idx = b.offset + seat * s.size + np.arange(s.size)
            else:
                rows = np.arange(b.size).reshape(s.shape[0], -1)
                first = s.axes[0]
                if first is Axis.SEAT:
                    rows = rows[(seat + np.arange(n)) % n]
                elif first is Axis.SEAT_OR_NONE:
                    rows = rows[np.append((seat + np.arange(n)) % n, n)]
                elif first is Axis.SIDE:
                    rows = rows[(seat + np.arange(2)) % 2]
                idx = b.offset + rows.reshape(-1)
            out[seat, s.offset : s.stop] = idx
    out.flags.writeable = False
    return out


class _Board:
    """What the observations are gathered from, kept up to date by writing only what
    changed: the public slices once, in absolute seats and sides, and each seat's own
    slices in its row.

    ``buf`` is a C float array (element writes cost tens of nanoseconds) and ``values``
    a numpy view of it (never reallocated: it is cleared in place). The other slots
    remember what was last written where, so that the next call can clear exactly that:
    the public ones for the board, ``own_*`` per seat."""

    __slots__ = (
        "buf",
        "values",
        "hand_ref",
        "trick",
        "trick_of",
        "hot",
        "tricks_seen",
        "cards_seen",
        "won_seen",
        "middle_ref",
        "middle_seen",
        "middle_i",
        "bids_seen",
        "bid_i",
        "contract_key",
        "phase",
        "maker",
        "tricks_written",
        "undealt",
        "win_played",
        "win_trump",
        "own_mask",
        "own_layers",
        "own_trump",
        "own_match",
    )

    buf: array
    values: np.ndarray
    hand_ref: object
    trick: list[int]
    trick_of: int
    hot: list[int]
    tricks_seen: int
    cards_seen: int
    won_seen: list[int]
    middle_ref: object
    middle_seen: int
    middle_i: list[int]
    bids_seen: int
    bid_i: list[int]
    contract_key: object
    phase: object
    maker: int
    tricks_written: int
    undealt: int
    win_played: int
    win_trump: int
    own_mask: list[int]
    own_layers: list[tuple[int, ...]]
    own_trump: list[object]
    own_match: list[object]

    def __init__(self, size: int) -> None:
        self.buf = array("f", bytes(4 * size))
        self.values = np.frombuffer(self.buf, dtype=np.float32)
        self.hand_ref = None

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (an env is deep-copied, or sent to a worker): every
        slot but ``values``, which a copy would make an array of its own, no longer a
        view of the copied ``buf`` that the writes go to."""
        return {k: getattr(self, k) for k in self.__slots__ if k != "values" and hasattr(self, k)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.values = np.frombuffer(self.buf, dtype=np.float32)


class ObservationEncoder:
    """The incremental observation encoder: the vector of :func:`encode_view` for any
    seat, straight from the live engine (what the environments call at every step).

    It reads a hand only through what :mod:`dehla_env.view` lets a seat see: the public
    fields of the engine's hand (:data:`~dehla_env.view.PUBLIC_FIELDS`), the seat's own
    cards (:func:`~dehla_env.view.own_hand_mask`), the trump as the seat knows it
    (:func:`~dehla_env.view.visible_trump`) and the contract once it is public
    (:func:`~dehla_env.view.visible_contract`). :func:`encode_view`, the definition
    written from scratch, is what every output is checked against.

    **Incremental, and shared by the seats.** The encoder keeps one *board*
    (:func:`board_layout`): the public slices in absolute seats and sides, written once
    for all observers, and each seat's own slices (its cards, its knowledge of trump,
    "mine" in the contract and match values) in a row of their own. A call writes only
    what changed since the last call (the cards played since, the tricks completed since,
    the trick in progress, the scalars), then gathers the observer's vector with one
    fixed index per seat (:func:`gather_indices`): the rotation to the observer's frame
    is that index, not arithmetic at every write. A step of the game changes a handful
    of entries, whichever seat looks next.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = n = rules.players
        self.layout = layout_for(n)
        self._gather = tuple(gather_indices(n))  # one index array per seat
        board = board_layout(n)
        self._board_size = board.size
        self._board: _Board | None = None
        o = {name: s.offset for name, s in board.slices.items()}
        self._inv_deck = 1.0 / rules.deck_size
        self._inv_tricks = 1.0 / rules.num_tricks
        self._inv_tens = 1.0 / rules.num_tens
        self._inv_hand = 1.0 / rules.hand_size
        self._copies = rules.packs > 1  # a seat may hold a card more than once (R2.8)
        self._match_rows: dict[tuple[object, ...], array] = {}  # see _write_match
        # board offsets used on every call
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
        board = self._board
        if board is None:
            board = self._board = _Board(self._board_size)
        self._update(board, match.hand, seat, match)
        if out is not None:
            out[:] = board.values[self._gather[seat]]
            return out
        return board.values[self._gather[seat]]

    # ------------------------------------------------------------------ the one encoder
    def _reset(self, board: _Board, h: Any) -> None:
        """A new hand: a zero board and the per-hand constants."""
        n = self.n
        board.values[:] = 0.0
        buf = board.buf
        board.trick = []
        board.trick_of = 0
        board.hot = [-1] * _ONE_HOTS
        board.tricks_seen = 0
        board.cards_seen = 0
        board.won_seen = [0, 0]
        board.middle_ref = None
        board.middle_seen = 0
        board.middle_i = []
        board.bids_seen = 0
        board.bid_i = [self.o_bids + s * NUM_BID_CHOICES for s in range(n)]  # "not yet" for every seat
        for i in board.bid_i:
            buf[i] = 1.0
        board.contract_key = _UNSET
        board.phase = None
        board.maker = -2  # not a seat, nor NOBODY: the first call writes "none"
        board.tricks_written = -1
        board.undealt = -1
        board.win_played = -1
        board.win_trump = -2
        board.own_mask = [0] * n
        board.own_layers = [(0, 0, 0)] * n  # with copies: held once, twice, three times
        board.own_trump = [None] * n
        board.own_match = [None] * n
        buf[self.o_dealer + h.dealer] = 1.0

    def _update(self, board: _Board, h: HandState, seat: int, match: MatchState) -> None:
        """Bring the public slices up to date with ``h``, and ``seat``'s own row with
        what it alone knows (its cards, its trump, which side is its own), read through
        :mod:`dehla_env.view`.

        Each public part is rewritten only when the counter it depends on moved: the
        cards played (the trick, ``played``, ``voids``, the counts of the seats that
        played), the tricks completed (``won``, the middle, the threat, tricks, tens),
        the cards undealt (the counts after a deal), the bids, the phase."""
        if board.hand_ref is not h:
            board.hand_ref = h
            self._reset(board, h)
        buf = board.buf
        # ---- this seat's own row
        if not self._copies:  # the cards that came or went since this seat's last call
            own_mask = own_hand_mask(h, seat)
            diff = own_mask ^ board.own_mask[seat]
            if diff:
                o = self.o_hand + seat * NUM_CARDS
                if diff & (diff - 1):
                    for c in cards_in(diff):
                        buf[o + c] = 1.0 if own_mask >> c & 1 else 0.0
                else:  # the usual change: one card played
                    buf[o + diff.bit_length() - 1] = 1.0 if own_mask & diff else 0.0
                board.own_mask[seat] = own_mask
        else:  # R2.8: a card's entry counts its copies, one per layer that holds it
            layers = own_hand_layers(h, seat)
            o = self.o_hand + seat * NUM_CARDS
            for now, was in zip(layers, board.own_layers[seat]):
                if now != was:  # the usual change: one card played, from one layer
                    for c in cards_in(now ^ was):
                        buf[o + c] += 1.0 if now >> c & 1 else -1.0
            board.own_layers[seat] = layers
        trump_seen = visible_trump(h, seat)
        if trump_seen != board.own_trump[seat]:  # trump as this seat knows it (R2.4c)
            o = self.o_tsuit + seat * 4
            t = self.o_tstate + seat * 4
            buf[o : o + 4] = buf[t : t + 4] = array("f", bytes(16))
            suit, in_force, hidden = trump_seen
            if hidden:
                buf[t + 3] = 1.0
            elif suit < 0:
                buf[t] = 1.0
            else:
                buf[o + suit] = 1.0
                buf[t + (1 if in_force else 2)] = 1.0
            board.own_trump[seat] = trump_seen
        # the match values change between hands only (written once per seat and hand)
        if match.hands_completed != board.own_match[seat]:
            self._write_match(board, seat, match)
        # ---- the public slices, in absolute seats
        trick_cards = h.trick_cards
        m = len(trick_cards)
        behind = self.n * len(h.history) + m - board.cards_seen  # cards played since the last call
        if behind == 1 and h.phase == _PLAY_PHASE and board.phase == _PLAY_PHASE:
            # the usual step: one more card, in the card phase before and after, so the
            # deal (but for a completed trick's), the bids and the leader stand; the card
            # may have made trump (R1.4) or the trump may have been revealed (R2.4c)
            if m:
                self._one_more_card(board, h, buf, trick_cards, m - 1)
            else:
                self._last_card(board, h)
                undealt = cards_undealt(h)
                if undealt != board.undealt:
                    self._set_undealt(board, h, undealt)
            if h.trump_maker != board.maker:
                self._set_maker(board, h.trump_maker)
        else:
            self._sync_public(board, h, visible_contract(h), cards_undealt(h))

    def _sync_public(self, board: _Board, h: Any, contract: tuple[int, int, int] | None, undealt: int) -> None:
        """Bring every public slice up to date; each part is rewritten only when the
        counter it depends on moved."""
        buf = board.buf
        n = self.n
        history = h.history
        trick_cards = h.trick_cards
        tricks_done = len(history)
        played = n * tricks_done + len(trick_cards)
        trump = h.trump
        if played != board.cards_seen:
            self._played(board, h)
            self._trick(board, h)
        if tricks_done != board.tricks_written:
            self._tricks_completed(board, h)
        if undealt != board.undealt:
            self._set_undealt(board, h, undealt)
        if played != board.win_played or trump != board.win_trump:  # the trick's winner so far
            board.win_played = played
            board.win_trump = trump
            if trick_cards:
                w = trick_winner(trick_cards, trump)
                self._set_one(board, _WINNER, self.o_win + h.trick_seats[w])
            else:
                self._set_one(board, _WINNER, -1)
        phase = h.phase
        if phase != board.phase:
            board.phase = phase
            self._set_one(board, _PHASE, self.o_phase + _PHASE_SLOT[phase])
        self._set_one(board, _LEADER, self.o_leader + h.leader if phase == _PLAY_PHASE else -1)
        if h.trump_maker != board.maker:  # who made trump (public; a closed trump's suit is not)
            self._set_maker(board, h.trump_maker)
        bids = h.bids
        if len(bids) != board.bids_seen:  # bidding (R4.2): each seat's last call
            o = self.o_bids
            for s, a in bids[board.bids_seen :]:
                buf[board.bid_i[s]] = 0.0
                i = o + s * NUM_BID_CHOICES + (1 if a == PASS_ACTION else 2 + a - BID_OFFSET)
                buf[i] = 1.0
                board.bid_i[s] = i
            board.bids_seen = len(bids)
        if contract != board.contract_key:  # the contract (R4.2), once public
            self._set_contract(board, contract)

    def _write_match(self, board: _Board, seat: int, match: MatchState) -> None:
        """``seat``'s eight match values (own side first). They depend on the side and
        the match's tallies only, and most hands start from the same ones (every hand of
        a hand-long episode from a fresh match's), so each distinct row is made once."""
        key = (side_of(seat), *match.kots, *match.points, match.streak, match.hands_completed, match.winner)
        row = self._match_rows.get(key)
        if row is None:
            if len(self._match_rows) >= 1024:  # long matches: bounded
                self._match_rows.clear()
            row = self._match_rows[key] = array("f", match_features(match, side_of(seat)))
        o = self.o_match + seat * 8
        board.buf[o : o + 8] = row
        board.own_match[seat] = match.hands_completed

    def _one_more_card(self, board: _Board, h: Any, buf: array, trick_cards: list[int], m: int) -> None:
        """Card ``m`` of the trick in progress, added since the last call: its seat's
        ``played``, void (R0.4) and count, the trick, the suit led, the winner so far."""
        c = trick_cards[m]
        s = h.trick_seats[m]
        buf[self.o_played + s * NUM_CARDS + c] += 1.0
        buf[self.o_counts + s] = h.hand_counts[s] * self._inv_hand
        i = self.o_trick + s * NUM_CARDS + c
        buf[i] = 1.0
        board.trick.append(i)
        board.win_played = board.cards_seen = board.cards_seen + 1
        trump = board.win_trump = h.trump
        if m == 0:  # the lead
            self._set_one(board, _LED, self.o_led + h.led)
            self._set_one(board, _WINNER, self.o_win + s)
        else:
            led = h.led
            if h.voids[s] >> led & 1:  # R0.4, as the engine decided it
                buf[self.o_voids + s * 4 + led] = 1.0
            # the winner so far, with the trump in force now (R2.4c: maybe just revealed)
            self._set_one(board, _WINNER, self.o_win + h.trick_seats[trick_winner(trick_cards, trump)])

    def _last_card(self, board: _Board, h: Any) -> None:
        """The card that completed the last trick, and what the completion changed:
        the trick, the suit led and its winner are cleared, the leader is the winner."""
        buf = board.buf
        leader, cards, _winner = h.history[-1]
        m = len(cards) - 1
        c = cards[m]
        s = (leader + m) % self.n
        buf[self.o_played + s * NUM_CARDS + c] += 1.0
        buf[self.o_counts + s] = h.hand_counts[s] * self._inv_hand
        led = suit_of(cards[0])
        if h.voids[s] >> led & 1:  # R0.4, as the engine decided it
            buf[self.o_voids + s * 4 + led] = 1.0
        board.cards_seen += 1
        board.tricks_seen += 1
        for i in board.trick:
            buf[i] = 0.0
        board.trick = []
        board.trick_of = len(h.history)
        self._set_one(board, _LED, -1)
        self._set_one(board, _WINNER, -1)
        board.win_played = board.cards_seen
        board.win_trump = h.trump
        self._tricks_completed(board, h)
        self._set_one(board, _LEADER, self.o_leader + h.leader)

    def _set_contract(self, board: _Board, contract: tuple[int, int, int] | None) -> None:
        """The contract's bidder (public), and in every seat's own row how high it is and
        whether it is that seat's side's (R4.2)."""
        buf = board.buf
        n = self.n
        o = self.o_cseat
        buf[o : o + n + 1] = array("f", bytes(4 * (n + 1)))
        buf[o + (contract[0] if contract is not None else n)] = 1.0
        for seat in range(n):
            ci = self.o_cinfo + seat * 2
            if contract is not None:
                bidder, tricks, _suit = contract
                buf[ci] = tricks / 13
                buf[ci + 1] = 1.0 if side_of(bidder) == side_of(seat) else 0.0
            else:
                buf[ci] = buf[ci + 1] = 0.0
        board.contract_key = contract

    def _set_undealt(self, board: _Board, h: Any, undealt: int) -> None:
        """A deal (R0.3): every seat's count, and the cards still to come."""
        board.undealt = undealt
        buf = board.buf
        o = self.o_counts
        inv = self._inv_hand
        for s, count in enumerate(h.hand_counts):
            buf[o + s] = count * inv
        buf[self.o_progress + 1] = undealt * self._inv_deck

    def _set_maker(self, board: _Board, maker: int) -> None:
        """``trump_maker``: ``maker`` (-1: none or drawn) made trump."""
        board.maker = maker
        self._set_one(board, _MAKER, self.o_maker + (maker if maker >= 0 else self.n))

    @staticmethod
    def _set_one(board: _Board, which: int, i: int) -> None:
        """One-hot ``which`` (``_LEADER`` ...) has its one at board entry ``i`` now (-1:
        nowhere): the entry set before is cleared."""
        was = board.hot[which]
        if i != was:
            if was >= 0:
                board.buf[was] = 0.0
            if i >= 0:
                board.buf[i] = 1.0
            board.hot[which] = i

    def _trick(self, board: _Board, h: Any) -> None:
        """The trick in progress and the suit led: it grew, or a new one began (then the
        old cards go first)."""
        buf = board.buf
        trick_cards = h.trick_cards
        tricks_done = len(h.history)
        have = board.trick
        k = len(have)
        if board.trick_of != tricks_done or k > len(trick_cards):
            for i in have:
                buf[i] = 0.0
            have = board.trick = []
            k = 0
            board.trick_of = tricks_done
        o = self.o_trick
        seats = h.trick_seats
        for m in range(k, len(trick_cards)):
            i = o + seats[m] * NUM_CARDS + trick_cards[m]
            buf[i] = 1.0
            have.append(i)
        self._set_one(board, _LED, self.o_led + h.led if trick_cards else -1)

    def _tricks_completed(self, board: _Board, h: Any) -> None:
        """What changes when a trick is completed: the cards won per side, the middle
        (R1.5) and its threat, tricks and tens per side, the tricks done."""
        buf = board.buf
        n = self.n
        board.tricks_written = tricks_done = len(h.history)
        won = h.won_cards
        won_seen = board.won_seen
        for side in (0, 1):  # append-only within a hand
            cards = won[side]
            k = won_seen[side]
            if k < len(cards):
                row = self.o_won + side * NUM_CARDS
                for c in cards[k:]:
                    buf[row + c] += 1.0
                won_seen[side] = len(cards)
        middle: list[int] = h.middle  # grows by tricks, emptied by a take
        if middle is not board.middle_ref or len(middle) != board.middle_seen:
            o = self.o_middle
            if middle is not board.middle_ref or len(middle) < board.middle_seen:
                for i in board.middle_i:
                    buf[i] = 0.0
                board.middle_i = []
                board.middle_seen = 0
                board.middle_ref = middle
            for c in middle[board.middle_seen :]:
                board.middle_i.append(o + c)
                buf[o + c] = 1.0
            board.middle_seen = len(middle)
        o = self.o_midinfo
        if middle:
            buf[o] = len(middle) * self._inv_deck
            buf[o + 1] = h.middle_tens * self._inv_tens
            buf[o + 2] = 1.0
        else:
            buf[o] = buf[o + 1] = buf[o + 2] = 0.0
        lw = h.last_winner
        self._set_one(board, _THREAT, self.o_threat + (lw if lw >= 0 else n))
        buf[self.o_progress] = tricks_done * self._inv_tricks
        tr, tn = h.tricks, h.tens
        o = self.o_tricks
        buf[o] = tr[0] * self._inv_tricks
        buf[o + 1] = tr[1] * self._inv_tricks
        o = self.o_tens
        buf[o] = tn[0] * self._inv_tens
        buf[o + 1] = tn[1] * self._inv_tens

    def _played(self, board: _Board, h: Any) -> None:
        """Cards played since the board was last written: ``played``, ``voids`` and the
        counts of the seats that played them."""
        n = self.n
        buf = board.buf
        o_played, o_voids, o_counts = self.o_played, self.o_voids, self.o_counts
        counts, inv, voids = h.hand_counts, self._inv_hand, h.voids
        history = h.history
        t, j = board.tricks_seen, board.cards_seen - n * board.tricks_seen
        while True:
            if t < len(history):
                leader, cards, _w = history[t]
            else:
                leader = h.trick_seats[0] if h.trick_seats else 0
                cards = h.trick_cards
            if j < len(cards):
                led = suit_of(cards[0])
                for k in range(j, len(cards)):
                    c = cards[k]
                    s = (leader + k) % n
                    buf[o_played + s * NUM_CARDS + c] += 1.0
                    buf[o_counts + s] = counts[s] * inv
                    if voids[s] >> led & 1:  # R0.4, as the engine decided it (by now)
                        buf[o_voids + s * 4 + led] = 1.0
            if t >= len(history):
                board.tricks_seen = t
                board.cards_seen = n * t + len(cards)
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
