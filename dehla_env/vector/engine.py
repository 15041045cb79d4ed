"""The batched rules engine: ``N`` independent hands advanced in lockstep.

:class:`BatchEngine` holds the state of ``N`` hands of one ruleset as arrays of shape
``(N, ...)`` (views into two buffers, :mod:`dehla_env.vector.state`) and applies one
decision per game, deals hands and finds the cards that may be played with compiled
kernels (:mod:`dehla_env.vector.decisions`, :func:`legal_cards`: plain Python that numba
compiles as it is); no Python loop runs over games. It implements the same hand state machine as
:class:`dehla_env.engine.HandState` (phases DEAL / DRAW / TRUMP / BID / PLAY / DONE, the
staged deal of R0.3, trump making R1.4 / R2.4 / R3.1 / R4.2, the middle pile R1.5, the
R3.3 early end) and the same outcome (:meth:`HandState.result`); tests replay the same
deals and moves through both and require identical masks, observations and outcomes.

Chance is explicit here too: :meth:`BatchEngine.deal` takes the decks and dealers,
:meth:`BatchEngine.draw` the R1.4 draw; :meth:`sample_deals` and :meth:`sample_draws`
produce them from a caller's generator. The engine never validates a decision (the
callers check actions against :meth:`legal_mask`); it only plays one hand per game:
the match (dealer rotation, kots, streaks, points) is not batched.

State layout (``n`` players, ``N`` games). The per-seat arrays that the observation
shows for every seat (``played2``, ``voids2``, ``bid_code2``, ``counts``) are stored
*doubled*, ``(N, 2n, ...)`` with row ``n + s`` a copy of row ``s``, so that the rows of
every seat seen from observer ``o`` (relative seats ``0..n-1``) are one contiguous
window starting at row ``o``: the observation encoder gathers them with one copy. The
hot path scatters into flattened views with one index per game.

===========================  ==============  ================================================
array                        shape, dtype    contents
===========================  ==============  ================================================
``hands``                    (N, n, 52) u8   cards held (count per id; 0..3 with R2.8)
``played2``                  (N, 2n, 52) u8  cards each seat has played this hand
``voids2``                   (N, 2n, 4) u8   seat shown void in suit (did not follow)
``bid_code2``                (N, 2n) i64     R4.2 bid per seat: 0 none yet, 1 pass, 2+k bid k
``won``                      (N, 2, 52) u8   cards taken / captured per side
``middle``                   (N, 52) u8      R1.5 the middle pile
``suitcnt``                  (N, n, 4) i64   cards held per seat and suit
``counts``                   (N, 2n) i64     cards held per seat (doubled)
``trick_cards``              (N, n) i64      cards of the current trick by position, -1
``best_key, best_seat``      (N,) i64        the card winning the current trick so far:
                                             32+rank trump, 16+rank led suit; its seat
``trick_winners``            (N, T) i64      winner of each completed trick, -1
``take_cards``               (N, T) i64      R1.5: cards taken at trick t (0: no take)
``deck``                     (N, deck) i64   the deck dealt (card ids)
per-game scalars             (N,) i64        dealer, phase, to_act, stage, leader, led,
                                             ntrick, ntricks, trump, trump_suit,
                                             trump_maker, hidden, ctx, last_winner,
                                             mid_count, mid_tens, high_bid, bid_*,
                                             contract_*, draw_card
``tricks, tens, cards_won``  (N, 2) i64      per side
===========================  ==============  ================================================
"""

from __future__ import annotations

from typing import Any, assert_never

import numpy as np
from numba.np.random.random_methods import random_interval  # numpy's bounded draw, numba's translation

from ..actions import BID_OFFSET, MIN_BID, NUM_ACTIONS, PASS_ACTION, TRUMP_OFFSET
from ..cards import NUM_CARDS, suit_of
from ..engine.hand import FIRST_STAGE_CARDS, HandState, Phase
from ..rules import Rules, TrumpMaking
from ..scoring import batch, hand_outcome
from .decisions import BID as BID  # the phases' numbers, for the engine's users
from .decisions import CTX_CHOSEN, CTX_NONE, CTX_OPEN, DEAL, deal_games, give_cards, recount, rescore_tricks, step_games
from .decisions import DONE as DONE
from .decisions import DRAW as DRAW
from .decisions import PLAY as PLAY
from .decisions import TRUMP as TRUMP
from .kernel_types import HandArrays, HandFacts, compiled
from .state import allocate, views

_CARD_SUIT = suit_of(np.arange(NUM_CARDS))
#: SUIT_SELECT[s] is the cards of suit s; row 4: every card (nothing to follow).
SUIT_SELECT = np.zeros((5, NUM_CARDS), dtype=bool)
for _s in range(4):
    SUIT_SELECT[_s, _s == _CARD_SUIT] = True
SUIT_SELECT[4] = True
#: BID_SELECT[h - 6]: the bid actions (57..84) above a highest bid of ``h`` (6 = none yet).
BID_SELECT = np.zeros((8, NUM_ACTIONS - BID_OFFSET), dtype=bool)
for _h in range(MIN_BID - 1, 14):
    BID_SELECT[_h - (MIN_BID - 1), 4 * (_h + 1 - MIN_BID) :] = True


def _same_past(a: HandState, b: HandState) -> bool:
    """Whether two hands have the same settled past (what :meth:`BatchEngine._load_past`
    writes): tricks, cards won, middle, takes and bids."""
    return (
        a.history == b.history
        and a.won_cards == b.won_cards
        and a.middle == b.middle
        and a.takes == b.takes
        and a.bids == b.bids
    )


@compiled
def draw_deals(rng: np.random.Generator, k: int, n: int, deck_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` deals of ``n`` players: per game a dealer (R1.10), then the one shuffle
    (R0.3: :func:`~dehla_env.cards.shuffled_deck`'s permutation, each id three times
    with three packs, R2.8), from ``rng`` in the scalar env's order: the batched form of
    ``shuffled_deck``, which ``tests/test_vector_kernels.py`` holds to it. Plain Python
    that numba compiles as it is.

    The permutation is numpy's own shuffle written out (a Fisher-Yates pass from the
    last position down, position ``i`` swapped with ``random_interval(i)``, numpy's
    bounded draw, which numba ships as the translation its own ``shuffle`` uses): the
    same draws as ``rng.permutation``, about three times as fast compiled, where numba's
    ``permutation`` moves each swapped entry as a 0-d array."""
    decks = np.empty((k, deck_size), np.int64)
    dealers = np.empty(k, np.int64)
    bits = rng.bit_generator
    for i in range(k):
        dealers[i] = rng.integers(0, n)
        deck = decks[i]
        for p in range(deck_size):
            deck[p] = p % NUM_CARDS  # the swaps move values whatever they are: the card ids at once
        for p in range(deck_size - 1, 0, -1):
            q = np.intp(random_interval(bits, p))
            deck[p], deck[q] = deck[q], deck[p]
    return decks, dealers


@compiled
def legal_cards(
    games: np.ndarray,
    phase: np.ndarray,
    to_act: np.ndarray,
    led: np.ndarray,
    hands: np.ndarray,
    suitcnt: np.ndarray,
    out: np.ndarray,
) -> None:
    """The card columns of ``out`` (k, 85): in game ``games[j]``, the cards the seat to
    act may play, where a card is due (none elsewhere): the led suit's if it holds one,
    else any it holds (R0.4). Plain Python that numba compiles as it is."""
    for j in range(len(games)):
        g = games[j]
        if phase[g] != PLAY:
            out[j, :NUM_CARDS] = False
            continue
        s = to_act[g]
        suit = led[g]
        select = SUIT_SELECT[suit if suit >= 0 and suitcnt[g, s, suit] > 0 else 4]
        held = hands[g, s]
        for c in range(NUM_CARDS):
            out[j, c] = held[c] > 0 and select[c]


class BatchEngine:
    """``num_games`` hands of ``rules`` in lockstep; see the module docstring."""

    # the state (views into the buffers, made by _bind; the module docstring says what each holds)
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

    def __init__(self, rules: Rules, num_games: int) -> None:
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, not {num_games}")
        self.rules = rules
        self.num_games = N = int(num_games)
        self.n = n = rules.players
        self.deck_size = rules.deck_size
        self.num_tricks = rules.num_tricks
        self.packs = rules.packs
        self.staged = rules.staged_deal
        self.has_middle = rules.has_middle
        making = rules.trump_making
        self.first_void = making is TrumpMaking.FIRST_VOID
        self.draw_if_no_void = rules.draw_if_no_void
        self.void_choice = making.by_first_void
        self.closed = making is TrumpMaking.CLOSED
        self.round_tricks = rules.round_tricks
        self.bidding = making is TrumpMaking.BIDDING
        #: whether a trump decision (or a bid) can be due in this ruleset
        self.trump_phase = making is not TrumpMaking.FIRST_VOID
        self.all = np.arange(N)
        first_phase, first_ctx, first_seat = self._first_decision(making)
        self._facts = HandFacts(
            n=n,
            num_tricks=self.num_tricks,
            deck_size=self.deck_size,
            staged=self.staged,
            has_middle=self.has_middle,
            first_void=self.first_void,
            draw_if_no_void=self.draw_if_no_void,
            void_choice=self.void_choice,
            closed=self.closed,
            round_tricks=self.round_tricks or 0,
            deal_phase=first_phase,
            deal_ctx=first_ctx,
            deal_first=first_seat,
        )
        # the state: views into two buffers (dehla_env.vector.state), as the docstring lists them
        self._u8, self._i64, self._meta, arrays = allocate(N, self._facts)
        self._bind(arrays)
        for name in ("trick_cards", "best_seat", "trick_winners", "to_act", "led", "trump", "trump_suit"):
            getattr(self, name)[...] = -1
        for name in ("trump_maker", "last_winner", "bid_seat", "bid_suit", "contract_seat", "contract_suit"):
            getattr(self, name)[...] = -1
        self.phase[:] = DEAL
        self.high_bid[:] = MIN_BID - 1
        self.draw_card = np.full(N, -1, np.int64)

    @staticmethod
    def _first_decision(making: TrumpMaking) -> tuple[int, int, int]:
        """What a new hand waits for once dealt: the phase, why a trump call is due, and
        the seat to act, counted from the dealer."""
        match making:
            case TrumpMaking.BIDDING:
                return BID, CTX_NONE, 1  # R4.2
            case TrumpMaking.CHOSEN:
                return TRUMP, CTX_CHOSEN, 1  # R1.4 chosen, R3.1
            case TrumpMaking.OPEN:
                return TRUMP, CTX_OPEN, 2  # R2.4b: the dealer's partner names trump
            case TrumpMaking.FIRST_VOID | TrumpMaking.CLOSED | TrumpMaking.NAMED:
                return PLAY, CTX_NONE, 1  # trump is made during play (R1.4, R2.4a/c/d)
            case _:
                assert_never(making)

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (a vector env is deep-copied or sent to a worker): the
        buffers, without the views into them, which :meth:`_bind` makes again (a copied
        view would be an array of its own, and the engine's writes would miss it)."""
        return {k: v for k, v in self.__dict__.items() if k not in HandArrays._fields}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind(views(self._u8, self._i64, self._meta))

    def _bind(self, arrays: list[np.ndarray]) -> None:
        """The state arrays as attributes: the buffers' views, one per field of
        :class:`~dehla_env.vector.kernel_types.HandArrays`."""
        for name, array in zip(HandArrays._fields, arrays):
            setattr(self, name, array)

    @property
    def _state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the compiled kernels take: the two buffers and their map."""
        return self._u8, self._i64, self._meta

    # ------------------------------------------------------------------ chance
    def sample_deals(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``k`` deals: per game a uniformly drawn dealer (R1.10) then a deck from the one
        shuffle (:func:`~dehla_env.cards.shuffled_deck`), in the order the scalar env
        draws them, so game 0 of a fresh generator is dealt as ``raw_env`` deals it
        (:func:`draw_deals`)."""
        return draw_deals(rng, k, self.n, self.deck_size)

    def deal(self, g: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Start a new hand in games ``g``: ``decks[i, p]`` goes to seat
        ``(dealers[i] + 1 + p) % n`` (R0.3); a staged deal gives out 0..19 now
        (:func:`~dehla_env.vector.decisions.deal_games`, compiled)."""
        g = np.asarray(g, dtype=np.int64)
        self.draw_card[g] = -1
        deal_games(*self._state, g, np.asarray(decks, dtype=np.int64), np.asarray(dealers, dtype=np.int64))

    def _load_past(self, games: np.ndarray, h: HandState) -> None:
        """Write the settled past of ``h`` (every completed trick and its winner, the
        cards won, the middle, the takes, the bids) into every game of ``games`` (a
        column of game indices, broadcast against each row of values)."""
        n = self.n
        played = [((leader + j) % n, c) for leader, cards, _w in h.history for j, c in enumerate(cards)]
        if played:
            seat, c = np.array(played, dtype=np.int64).T
            self.played2[games, seat, c] = 1
        for arr, rows in (
            (self.trick_winners, [(t, w) for t, (_l, _c, w) in enumerate(h.history)]),
            (self.take_cards, [(number - 1, taken) for number, _seat, taken in h.takes]),
            (self.bid_code2, [(seat, 1 if a == PASS_ACTION else 2 + a - BID_OFFSET) for seat, a in h.bids]),
        ):
            if rows:
                a, v = np.array(rows, dtype=np.int64).T
                arr[games, a] = v
        won = [(side, c) for side in (0, 1) for c in h.won_cards[side]]
        if won:
            side, c = np.array(won, dtype=np.int64).T
            np.add.at(self.won, (games, side, c), 1)
        if h.middle:
            np.add.at(self.middle, (games, np.array(h.middle, dtype=np.int64)), 1)

    def load(self, games: np.ndarray | list[int], states: list[HandState]) -> None:
        """Put the scalar hands ``states`` (one pack, a decision due or the hand over) in
        games ``games``, so that the batch continues them exactly as
        :class:`~dehla_env.engine.hand.HandState` would: the same legal moves, tricks,
        middle, takes and outcome (``tests/test_vector_equivalence.py``). What search
        uses to play sampled worlds (:meth:`agents.bots.sampler.WorldSampler.world`) out on the
        batch. A staged deal's undealt positions are read from ``state.deck``."""
        if self.packs != 1:
            raise ValueError("BatchEngine.load takes one-pack hands (R2.8's three packs are not loaded)")
        n = self.n
        g = np.asarray(games, dtype=np.int64)
        if len(g) != len(states):
            raise ValueError(f"{len(g)} games for {len(states)} hands")
        for h in states:
            if h.phase in (Phase.DEAL, Phase.DRAW):
                raise ValueError(f"BatchEngine.load: a hand at a chance step ({h.phase.name}) is not loaded")
        for arr in (self.played2, self.voids2, self.bid_code2, self.won, self.middle):
            arr[g] = 0
        self.trick_cards[g] = -1
        self.trick_winners[g] = -1
        self.take_cards[g] = 0
        # what each hand holds as lists first (Python), then one array write per field
        bits = np.arange(NUM_CARDS, dtype=np.uint64)
        masks = np.array([h.hands for h in states], dtype=np.uint64).reshape(len(g), n)
        self.hands[g] = (masks[:, :, None] >> bits) & 1
        voids = np.array([h.voids for h in states], dtype=np.int64).reshape(len(g), n)
        self.voids2[g, :n] = (voids[:, :, None] >> np.arange(4)) & 1
        # What is public and settled (tricks done, cards won, the middle, takes, bids) is
        # the same in most of the states a search loads (one world per deal, the same
        # past): those rows are made once per group of equal pasts and written for the
        # whole group; the trick in progress is per state.
        groups: dict[tuple, list[tuple[HandState, list[int]]]] = {}  # (a state, the games with its past)
        trick_played: list[tuple[int, int, int]] = []  # (game, seat, card) of the tricks in progress
        trick_rows: list[tuple[int, int, int]] = []  # (game, position, card)
        decks: list[tuple[int, tuple[int, ...]]] = []
        for i, h in zip(g.tolist(), states):
            bucket = groups.setdefault((len(h.history), h.history[-1] if h.history else None, len(h.bids)), [])
            for ref, games in bucket:
                if _same_past(h, ref):
                    games.append(i)
                    break
            else:
                bucket.append((h, [i]))
            trick_played.extend((i, seat, c) for seat, c in zip(h.trick_seats, h.trick_cards))
            trick_rows.extend((i, p, c) for p, c in enumerate(h.trick_cards))
            if h.deck is not None:
                decks.append((i, h.deck))
        for bucket in groups.values():
            for ref, games in bucket:
                self._load_past(np.asarray(games, dtype=np.int64)[:, None], ref)
        if trick_played:
            gi, seat, c = np.array(trick_played, dtype=np.int64).T
            self.played2[gi, seat, c] = 1
        if trick_rows:
            gi, a, v = np.array(trick_rows, dtype=np.int64).T
            self.trick_cards[gi, a] = v
        if decks:
            self.deck[[i for i, _d in decks]] = [d for _i, d in decks]
        contracts = [h.contract if h.contract is not None else (-1, 0, -1) for h in states]
        made = [[(seat, a) for seat, a in h.bids if a != PASS_ACTION] for h in states]
        columns: tuple[tuple[np.ndarray, list[Any]], ...] = (
            (self.bid_seat, [m[-1][0] if m else -1 for m in made]),
            (self.bid_suit, [(m[-1][1] - BID_OFFSET) % 4 if m else -1 for m in made]),
            (self.contract_seat, [c[0] for c in contracts]),
            (self.contract_level, [c[1] for c in contracts]),
            (self.contract_suit, [c[2] for c in contracts]),
            (self.dealer, [h.dealer for h in states]),
            (self.phase, [int(h.phase) for h in states]),
            (self.to_act, [h.to_act if h.phase != Phase.DONE else -1 for h in states]),
            (self.stage, [h.stage for h in states]),
            (self.leader, [h.leader for h in states]),
            (self.led, [h.led for h in states]),
            (self.ntrick, [len(h.trick_cards) for h in states]),
            (self.ntricks, [len(h.history) for h in states]),
            (self.trump, [h.trump for h in states]),
            (self.trump_suit, [h.trump_suit for h in states]),
            (self.trump_maker, [h.trump_maker for h in states]),
            (self.hidden, [h.trump_hidden for h in states]),
            (self.ctx, [int(h.trump_context) for h in states]),
            (self.last_winner, [h.last_winner for h in states]),
            (self.mid_count, [len(h.middle) for h in states]),
            (self.mid_tens, [h.middle_tens for h in states]),
            (self.high_bid, [h.high_bid for h in states]),
            (self.draw_card, [h.draw_card for h in states]),
            (self.tricks, [h.tricks for h in states]),
            (self.tens, [h.tens for h in states]),
            (self.cards_won, [h.cards_won for h in states]),
        )
        for column, values in columns:
            column[g] = values
        recount(*self._state, g)
        self.played2[g, n:] = self.played2[g, :n]
        self.voids2[g, n:] = self.voids2[g, :n]
        self.bid_code2[g, n:] = self.bid_code2[g, :n]
        self.best_key[g] = 0
        self.best_seat[g] = -1
        rescore_tricks(*self._state, g[self.ntrick[g] > 0])

    def _give(self, g: np.ndarray, start: int, stop: int) -> None:
        """Deck positions ``start..stop-1`` of games ``g`` to their seats (R0.3)."""
        give_cards(*self._state, g, start, stop)

    def _deal_rest(self, g: np.ndarray) -> None:
        """Second stage of a staged deal: positions 20..51 (R0.3)."""
        if len(g):
            self._give(g, FIRST_STAGE_CARDS, self.deck_size)
            self.stage[g] = 2

    def draw_candidates(self, g: np.ndarray) -> np.ndarray:
        """R1.4: (k, 52) counts of the cards played so far (the 20 of the first five tricks)."""
        return self.played2[g, : self.n].sum(axis=1)

    def sample_draws(self, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        """A card drawn uniformly from the cards played so far, per game of ``g`` (R1.4)."""
        cand = self.draw_candidates(g)
        total = cand.sum(axis=1)
        k = (rng.random(len(g)) * total).astype(np.int64)
        return (np.cumsum(cand, axis=1) > k[:, None]).argmax(axis=1)

    def draw(self, g: np.ndarray, cards: np.ndarray) -> None:
        """R1.4: all followed suit for five tricks; the drawn card's suit is trump."""
        g = np.asarray(g, dtype=np.int64)
        cards = np.asarray(cards, dtype=np.int64)
        self.draw_card[g] = cards
        self.trump[g] = suit_of(cards)
        self.trump_suit[g] = suit_of(cards)
        self._deal_rest(g)
        self._await(g, PLAY, self.leader[g])  # the fifth trick's winner leads the sixth

    def _await(self, g: np.ndarray | slice, phase: int, seat: np.ndarray | int) -> None:
        self.phase[g] = phase
        self.to_act[g] = seat

    # ------------------------------------------------------------------ decisions
    def step(self, actions: np.ndarray, g: np.ndarray | None = None) -> None:
        """Apply one decision per game of ``g`` (default: every game), for the seat to act:
        one compiled call whatever the games' phases (:func:`~dehla_env.vector.decisions.step_games`).

        ``actions`` must be legal (see :meth:`legal_mask`); nothing is checked here.
        """
        games = self.all if g is None else np.asarray(g, dtype=np.int64)
        step_games(*self._state, games, np.asarray(actions, dtype=np.int64))

    # ------------------------------------------------------------------ queries
    def legal_mask(self, g: np.ndarray | slice | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """(k, 85) bool: the legal actions of the seat to act in each game of ``g``
        (an index array or a slice; all False on a chance step or when the hand is over).
        The cards are :func:`legal_cards`'s (compiled), the calls array operations."""
        if g is None:
            g = slice(None)
        idx = self.all[g] if isinstance(g, slice) else g
        k = len(idx)
        if out is None:
            out = np.zeros((k, NUM_ACTIONS), bool)
        legal_cards(
            games=idx,
            phase=self.phase,
            to_act=self.to_act,
            led=self.led,
            hands=self.hands,
            suitcnt=self.suitcnt,
            out=out,
        )
        ph = self.phase[g]
        if self.trump_phase:
            out[:, TRUMP_OFFSET:PASS_ACTION] = (ph == TRUMP)[:, None]
        if self.bidding:
            bid = ph == BID
            out[:, PASS_ACTION] = bid
            out[:, BID_OFFSET:] = BID_SELECT[self.high_bid[g] - (MIN_BID - 1)] & bid[:, None]
        return out

    def current_winner(self, g: np.ndarray) -> np.ndarray:
        """Seat winning the trick in progress with the trump now in force, or -1."""
        return self.best_seat[g]

    def outcome(self, g: np.ndarray) -> dict[str, np.ndarray]:
        """The :class:`~dehla_env.engine.hand.HandResult` of complete hands, as arrays:
        ``winner``, ``all_tens``, ``kot`` (side or -1) and ``score`` (k, 2), as
        :func:`dehla_env.scoring.hand_outcome` decides them."""
        tricks, tens, cards_won = self.tricks[g], self.tens[g], self.cards_won[g]
        out = hand_outcome(
            self.rules,
            dealer=self.dealer[g],
            tricks=(tricks[:, 0], tricks[:, 1]),
            tens=(tens[:, 0], tens[:, 1]),
            cards_won=(cards_won[:, 0], cards_won[:, 1]),
            trump_maker=self.trump_maker[g],
            contract=(self.contract_seat[g], self.contract_level[g]),
        )
        k = len(tricks)
        score = np.zeros((k, 2), np.int64)
        for side, change in enumerate(out.score):
            if np.ndim(change) or change:  # a plain 0: no ruleset but coat-pees scores a hand
                score[:, side] = change
        fields = {"winner": out.winner, "all_tens": out.all_tens, "kot": out.kot}
        return {**{name: batch(v, k) for name, v in fields.items()}, "score": score}

    def privileged(self, g: np.ndarray, frame: np.ndarray) -> np.ndarray:
        """(k, n*52 + 56) float32: :func:`dehla_env.encoding.privileged_features` of games
        ``g`` seen from seats ``frame`` (every holding by seat relative to the frame, the
        cards not yet dealt, the true trump): what no seat may see, for critics only."""
        n = self.n
        k = len(g)
        rel = (np.arange(n)[None, :] + frame[:, None]) % n  # relative seat r is seat frame + r
        out = np.zeros((k, n * NUM_CARDS + NUM_CARDS + 4), np.float32)
        out[:, : n * NUM_CARDS] = self.hands[g[:, None], rel].reshape(k, -1)
        if self.staged:
            undealt = np.flatnonzero(self.stage[g] == 1)
            if len(undealt):
                rows = np.repeat(undealt, self.deck_size - FIRST_STAGE_CARDS)
                cards = self.deck[g[undealt], FIRST_STAGE_CARDS:].reshape(-1)
                np.add.at(out, (rows, n * NUM_CARDS + cards), 1.0)
        made = np.flatnonzero(self.trump_suit[g] >= 0)
        out[made, n * NUM_CARDS + NUM_CARDS + self.trump_suit[g[made]]] = 1.0
        return out

    def hand_cards(self, game: int, seat: int) -> list[int]:
        """The cards ``seat`` holds in ``game``, ascending, copies repeated (for tests)."""
        row = self.hands[game, seat]
        return [c for c in range(NUM_CARDS) for _ in range(int(row[c]))]

    def nbytes(self) -> int:
        """Bytes held by the state arrays (the buffers and the arrays of their own)."""
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray) and v.base is None)

    def summary(self, game: int) -> dict[str, Any]:
        """One game's hand in the R6 per-hand terms (for tests and the replay adapter)."""
        from ..cards import SUIT_LETTERS

        i = game
        nt = int(self.ntricks[i])
        takes = []
        if self.has_middle:
            for t in range(nt):
                if self.take_cards[i, t]:
                    takes.append([t + 1, int(self.trick_winners[i, t]), int(self.take_cards[i, t])])
        ts = int(self.trump_suit[i])
        tm = int(self.trump_maker[i])
        contract = None
        if self.contract_seat[i] >= 0:
            contract = [int(self.contract_seat[i]), int(self.contract_level[i]), SUIT_LETTERS[self.contract_suit[i]]]
        return {
            "dealer": int(self.dealer[i]),
            "trump": SUIT_LETTERS[ts] if ts >= 0 else None,
            "trump_maker": tm if tm >= 0 else None,
            "trick_winners": [int(x) for x in self.trick_winners[i, :nt]],
            "takes": takes,
            "tricks": [int(x) for x in self.tricks[i]],
            "tens": [int(x) for x in self.tens[i]],
            "contract": contract,
            "complete": bool(self.phase[i] == DONE),
        }
