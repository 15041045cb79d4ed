"""What the batched engine's compiled kernels take: named tuples that numba reads by
field name, and Python too; and :data:`compiled`, the one way they are compiled.

Numba's disk cache (``dehla_env/vector/__pycache__/*.nbi``) records these classes by
module and name: moving or renaming one makes an old cache fail to load, so delete
those files with such a change."""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np

from ..cards import NUM_CARDS

#: How the batched engine's kernels (:func:`~dehla_env.vector.observe.observe_rows`,
#: :func:`~dehla_env.vector.engine.draw_deals`, :func:`~dehla_env.vector.decisions.step_games`,
#: :func:`~dehla_env.vector.engine.legal_cards`,
#: :func:`~dehla_env.vector.wrappers.nth_true` behind ``random_legal``) are compiled: as
#: they are, plain Python that numba compiles on first use and caches on disk (``__pycache__/*.nbi``, ``*.nbc``),
#: so a user compiles once. ``NUMBA_DISABLE_JIT=1`` runs them as Python (debugging, and
#: the tests that hold the compiled kernels to the Python ones).
compiled = numba.njit(cache=True, nogil=True)

#: How the batched engine's decisions (:mod:`~dehla_env.vector.decisions`) are compiled:
#: the same, but without numba's reference counting (``_nrt=False``, numba's own switch
#: for code that allocates nothing, which numba checks when it compiles). The rules of one
#: decision are small functions that each take the engine's tuple of arrays; with
#: counting, each handing-on of the tuple counts a reference to each of its arrays in and
#: out, atomically, many times the work of the rule (a card played in each of 4,096
#: games: about 520 ns a game with counting, 20-45 without). The caller keeps every
#: array alive for the length of the call.
uncounted = numba.njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # (not in the stubs)
#: The same, inlined where numba compiles a caller (each rule's function, called per game).
inlined = numba.njit(cache=True, nogil=True, _nrt=False, inline="always")  # type: ignore[call-overload]


class HandArrays(NamedTuple):
    """Every :class:`~dehla_env.vector.engine.BatchEngine` array the decisions of
    :mod:`dehla_env.vector.decisions` read or write (the engine's own arrays, not
    copies; see its docstring for each)."""

    hands: np.ndarray
    played2: np.ndarray
    voids2: np.ndarray
    bid_code2: np.ndarray
    won: np.ndarray
    middle: np.ndarray
    suitcnt: np.ndarray
    counts: np.ndarray
    trick_cards: np.ndarray
    best_key: np.ndarray
    best_seat: np.ndarray
    trick_winners: np.ndarray
    take_cards: np.ndarray
    deck: np.ndarray
    tricks: np.ndarray
    tens: np.ndarray
    cards_won: np.ndarray
    dealer: np.ndarray
    phase: np.ndarray
    to_act: np.ndarray
    stage: np.ndarray
    leader: np.ndarray
    led: np.ndarray
    ntrick: np.ndarray
    ntricks: np.ndarray
    trump: np.ndarray
    trump_suit: np.ndarray
    trump_maker: np.ndarray
    hidden: np.ndarray
    ctx: np.ndarray
    last_winner: np.ndarray
    mid_count: np.ndarray
    mid_tens: np.ndarray
    high_bid: np.ndarray
    bid_seat: np.ndarray
    bid_suit: np.ndarray
    contract_seat: np.ndarray
    contract_level: np.ndarray
    contract_suit: np.ndarray


class HandFacts(NamedTuple):
    """The ruleset's facts the decisions branch on (from :class:`dehla_env.rules.Rules`)."""

    n: int  # players
    num_tricks: int
    deck_size: int
    staged: bool  # R0.3: five each, then the rest
    has_middle: bool  # R1.5
    first_void: bool  # R1.4 / R2.4a: the first card off the led suit makes trump
    draw_if_no_void: bool  # R1.4: nobody void in five tricks: a draw
    void_choice: bool  # R2.4c/d: the first seat unable to follow names trump
    closed: bool  # R2.4c: the trump is hidden until revealed
    round_tricks: int  # R3.3: the tricks that end the hand early, 0 for none
    deal_phase: int  # what a hand waits for once dealt: a trump call, a bid or a card
    deal_ctx: int  # why, for a trump call (TrumpContext)
    deal_first: int  # the seat to act then, counted from the dealer


class RowLayout(NamedTuple):
    """Where the observation kernel writes: the offset of each slice of
    :func:`dehla_env.encoding.layout_for`, and the ruleset's facts it branches on."""

    n: int
    has_middle: bool
    bidding: bool
    staged: bool
    deck_size: int
    closed: bool
    hand: int
    hand_counts: int
    trick: int
    trick_leader: int
    led_suit: int
    trick_winning: int
    played: int
    won: int
    middle: int
    middle_info: int
    pair_threat: int
    voids: int
    trump_suit: int
    trump_state: int
    trump_maker: int
    bids: int
    contract_seat: int
    contract_info: int
    dealer: int
    phase: int
    progress: int
    tricks_won: int
    tens_won: int
    match: int
    #: the card ids, 52, read at run time: the card copies loop over it, and a loop over
    #: a count the compiler knows is unrolled into one scalar move a card (it cannot
    #: vectorise moves between arrays it cannot tell apart); over a count it reads, the
    #: loop is vectorised behind a check that the arrays do not overlap
    cards: int

    @classmethod
    def of(cls, engine: Any, offsets: dict[str, int]) -> RowLayout:
        """``engine``'s (a :class:`~dehla_env.vector.engine.BatchEngine`) facts, the
        layout's ``offsets``."""
        facts = (engine.n, engine.has_middle, engine.bidding, engine.staged, engine.deck_size, engine.closed)
        slices = cls._fields[len(facts) : -1]
        return cls._make((*facts, *(offsets[name] for name in slices), NUM_CARDS))

    def zero_spans(self, size: int) -> np.ndarray:
        """(k, 2) the ranges of a row of ``size`` that the kernel's card copies (own
        cards, played, won, the middle where there is one, voids) leave unwritten."""
        n = self.n
        cards = self.cards
        copied = [(self.hand, cards), (self.played, cards * n), (self.won, 2 * cards), (self.voids, 4 * n)]
        if self.has_middle:
            copied.append((self.middle, cards))
        spans, at = [], 0
        for start, count in sorted(copied):
            if start > at:
                spans.append((at, start))
            at = start + count
        if at < size:
            spans.append((at, size))
        return np.array(spans, dtype=np.int64)


class RowTables(NamedTuple):
    """What the observation kernel copies from besides the engine: the ranges of a row
    its card copies leave unwritten (zeroed first, :meth:`RowLayout.zero_spans`), and
    ``x / den`` for every numerator ``x`` of each fraction, in the output's dtype (or
    ``x`` itself for codes), rounded as the reference encoder rounds them."""

    zero_spans: np.ndarray
    held: np.ndarray  # cards held / hand size
    mid_cards: np.ndarray  # cards in the middle / deck
    mid_tens: np.ndarray  # tens in the middle / tens
    bid: np.ndarray  # the contract's tricks / 13
    tricks: np.ndarray  # tricks / tricks per hand
    undealt: np.ndarray  # cards undealt / deck
    tens: np.ndarray  # tens / tens in the deck
