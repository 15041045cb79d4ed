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

import numpy as np

from .actions import BID_OFFSET, NUM_ACTIONS, PASS_ACTION
from .cards import NUM_CARDS, cards_in
from .engine import MatchState, Phase
from .engine.hand import HandState
from .rules import MatchScoring, Rules
from .tricks import trick_winner
from .view import PlayerView

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
    """The reference flat observation, from a :class:`PlayerView` alone."""
    rules = view.rules
    n = view.num_players
    me = view.seat
    lay = layout_for(n)
    obs = np.zeros(lay.size, dtype=np.float32)

    def rel(s: int) -> int:
        return (s - me) % n

    def rside(side: int) -> int:
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
    o = lay.off("middle")
    for c in view.middle:
        obs[o + c] += 1
    o = lay.off("middle_info")
    obs[o] = len(view.middle) / rules.deck_size
    obs[o + 1] = view.middle_tens / rules.num_tens
    obs[o + 2] = 1.0 if view.middle else 0.0
    obs[lay.off("pair_threat") + (rel(view.last_winner) if view.last_winner >= 0 else n)] = 1
    o = lay.off("voids")
    for s in range(n):
        for suit in range(4):
            if view.voids[s][suit]:
                obs[o + rel(s) * 4 + suit] = 1
    if view.trump >= 0:
        obs[lay.off("trump_suit") + view.trump] = 1
    o = lay.off("trump_state")
    if view.trump_hidden:
        obs[o + 3] = 1
    elif view.trump < 0:
        obs[o] = 1
    elif view.trump_in_force:
        obs[o + 1] = 1
    else:
        obs[o + 2] = 1
    obs[lay.off("trump_maker") + (rel(view.trump_maker) if view.trump_maker >= 0 else n)] = 1
    o = lay.off("bids")
    for s, a in view.bids:
        row = o + rel(s) * NUM_BID_CHOICES
        obs[row : row + NUM_BID_CHOICES] = 0
        obs[row + (1 if a == PASS_ACTION else 2 + a - BID_OFFSET)] = 1
    bid_rows = {rel(s) for s, _ in view.bids}
    for r in range(n):
        if r not in bid_rows:
            obs[o + r * NUM_BID_CHOICES] = 1
    if view.contract is not None:
        bidder, tricks, _suit = view.contract
        obs[lay.off("contract_seat") + rel(bidder)] = 1
        o = lay.off("contract_info")
        obs[o] = tricks / 13
        obs[o + 1] = 1.0 if bidder % 2 == me % 2 else 0.0
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
        rules, me % 2, view.kots, view.points, view.streak, view.hands_completed, view.match_winner is not None
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


class ObservationEncoder:
    """Fast encoder from the engine state; output identical to :func:`encode_view`.

    It reads from the engine only what :func:`dehla_env.view.view_of` exposes to the
    observing seat (its own hand, public play, the trump as the seat knows it). The
    append-only parts of a hand (cards played in completed tricks, cards won, voids,
    and the match values, fixed during a hand) live in one cached base vector per
    observer, extended as the engine's logs grow; each call copies the base and writes
    the few dozen entries that change from move to move.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = rules.players
        self.layout = layout_for(self.n)
        self._o = {name: s.offset for name, s in self.layout.slices.items()}
        self._deck_size = rules.deck_size
        self._num_tricks = rules.num_tricks
        self._num_tens = rules.num_tens
        self._inv_hand_size = 1.0 / rules.hand_size
        n = self.n
        o = self._o
        # indices of the scalar entries, in the order ``encode`` lists their values
        self._scalar_idx = np.array(
            [o["hand_counts"] + r for r in range(n)]
            + [o["middle_info"], o["middle_info"] + 1, o["middle_info"] + 2]
            + [o["contract_info"], o["contract_info"] + 1]
            + [o["progress"], o["progress"] + 1]
            + [o["tricks_won"], o["tricks_won"] + 1, o["tens_won"], o["tens_won"] + 1],
            dtype=np.intp,
        )
        self._scalar_pos = self._scalar_idx.tolist()
        self._hand_ref: HandState | None = None
        self._match_key: tuple[int, object] = (-1, None)
        self._zeros = array("f", bytes(4 * self.layout.size))
        # Python float arrays: element writes cost tens of nanoseconds, and
        # ``np.frombuffer`` turns a fresh copy into the result without another copy.
        self._base = [array("f", self._zeros) for _ in range(n)]
        self._tricks_seen = 0
        self._won_seen = [0, 0]

    def _sync(self, match: MatchState) -> None:
        hand = match.hand
        n = self.n
        base = self._base
        o = self._o
        if hand is not self._hand_ref:
            self._hand_ref = hand
            for me in range(n):
                base[me] = array("f", self._zeros)
            self._tricks_seen = 0
            self._won_seen = [0, 0]
            self._match_key = (-1, None)
        key = (match.hands_completed, match.winner)
        if key != self._match_key:
            self._match_key = key
            om = o["match"]
            for me in range(n):
                features = _match_features(
                    self.rules,
                    me % 2,
                    match.kots,
                    match.points,
                    match.streak,
                    match.hands_completed,
                    match.winner is not None,
                )
                base[me][om : om + 8] = array("f", features)
        history = hand.history
        if self._tricks_seen < len(history):
            o_played, o_voids = o["played"], o["voids"]
            for leader, cards, _w in history[self._tricks_seen :]:
                led = cards[0] // 13
                for j, c in enumerate(cards):
                    s = (leader + j) % n
                    void = c // 13 != led
                    for me in range(n):
                        r = (s - me) % n
                        base[me][o_played + r * NUM_CARDS + c] += 1
                        if void:
                            base[me][o_voids + r * 4 + led] = 1
            self._tricks_seen = len(history)
        o_won = o["won"]
        for side in (0, 1):
            won = hand.won_cards[side]
            seen = self._won_seen[side]
            if seen < len(won):
                new_cards = won[seen:]
                for me in range(n):
                    b = base[me]
                    row = o_won + ((side - me) % 2) * NUM_CARDS
                    for c in new_cards:
                        b[row + c] += 1
                self._won_seen[side] = len(won)

    def encode(self, match: MatchState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The flat observation of ``seat`` (a new array unless ``out`` is given)."""
        hand = match.hand
        n = self.n
        off = self._o
        self._sync(match)
        obs = array("f", self._base[seat])
        idx: list[int] = []  # entries set to 1
        # own hand
        o = off["hand"]
        if hand.extra is None:
            idx.extend([o + c for c in cards_in(hand.hands[seat])])
        else:
            for c in hand.hand_cards(seat):
                obs[o + c] += 1
        # current trick
        tc = hand.trick_cards
        if tc:
            o = off["trick"]
            o_played = off["played"]
            o_voids = off["voids"]
            led = hand.led
            for s, c in zip(hand.trick_seats, tc):
                r = (s - seat) % n
                idx.append(o + r * NUM_CARDS + c)
                obs[o_played + r * NUM_CARDS + c] += 1
                if c // 13 != led:
                    idx.append(o_voids + r * 4 + led)
            idx.append(off["led_suit"] + led)
            winner = hand.trick_seats[trick_winner(tc, hand.trump)]
            idx.append(off["trick_winning"] + (winner - seat) % n)
        phase = hand.phase
        if phase == Phase.PLAY:
            idx.append(off["trick_leader"] + (hand.leader - seat) % n)
        # the middle (R1.5)
        middle = hand.middle
        if middle:
            o = off["middle"]
            idx.extend([o + c for c in middle])
            mid = (len(middle) / self._deck_size, hand.middle_tens / self._num_tens, 1.0)
        else:
            mid = (0.0, 0.0, 0.0)
        lw = hand.last_winner
        idx.append(off["pair_threat"] + ((lw - seat) % n if lw >= 0 else n))
        # trump, as this seat knows it (R2.4c)
        ts = hand.trump_suit
        o = off["trump_state"]
        if ts < 0:
            idx.append(o)
        elif hand.trump_hidden:
            if seat == hand.trump_maker:
                idx.append(off["trump_suit"] + ts)
                idx.append(o + 2)
            else:
                idx.append(o + 3)
        else:
            idx.append(off["trump_suit"] + ts)
            idx.append(o + 1)
        tm = hand.trump_maker
        idx.append(off["trump_maker"] + ((tm - seat) % n if tm >= 0 else n))
        # bidding (R4.2)
        o = off["bids"]
        if hand.bids:
            last_bid = [0] * n
            for s, a in hand.bids:
                last_bid[(s - seat) % n] = 1 if a == PASS_ACTION else 2 + a - BID_OFFSET
            for r in range(n):
                idx.append(o + r * NUM_BID_CHOICES + last_bid[r])
        else:
            for r in range(n):
                idx.append(o + r * NUM_BID_CHOICES)
        contract = hand.contract if phase != Phase.DEAL and phase != Phase.BID else None
        if contract is not None:
            bidder, tricks, _suit = contract
            idx.append(off["contract_seat"] + (bidder - seat) % n)
            con = (tricks / 13, 1.0 if bidder % 2 == seat % 2 else 0.0)
        else:
            idx.append(off["contract_seat"] + n)
            con = (0.0, 0.0)
        idx.append(off["dealer"] + (hand.dealer - seat) % n)
        idx.append(off["phase"] + _PHASE_INDEX.get(phase, 3))
        counts = hand.hand_counts
        deck_size = self._deck_size
        if hand.deck is not None:
            undealt = deck_size - sum(counts) - len(hand.history) * n - len(tc)
        else:
            undealt = deck_size
        inv = self._inv_hand_size
        me_side = seat % 2
        tricks_done = hand.tricks
        tens = hand.tens
        nt = self._num_tricks
        nten = self._num_tens
        for i in idx:
            obs[i] = 1.0
        values = [
            *[counts[(seat + r) % n] * inv for r in range(n)],
            *mid,
            *con,
            len(hand.trick_winners) / nt,
            undealt / deck_size,
            tricks_done[me_side] / nt,
            tricks_done[1 - me_side] / nt,
            tens[me_side] / nten,
            tens[1 - me_side] / nten,
        ]
        for i, v in zip(self._scalar_pos, values):
            obs[i] = v
        result = np.frombuffer(obs, dtype=np.float32)
        if out is not None:
            out[:] = result
            return out
        return result

    def history(self, match: MatchState, seat: int) -> np.ndarray:
        """Ordered card plays (see :func:`history_from_view`) straight from the state."""
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
        for c in hand.deck[20:]:
            out[n * NUM_CARDS + c] += 1
    if hand.trump_suit >= 0:
        out[n * NUM_CARDS + NUM_CARDS + hand.trump_suit] = 1
    return out
