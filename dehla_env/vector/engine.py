"""The batched rules engine: ``N`` independent hands advanced in lockstep with numpy.

:class:`BatchEngine` holds the state of ``N`` hands of one ruleset as arrays of shape
``(N, ...)`` and applies one decision per game with array operations, and the commonest
decision, a card played, and the cards that may be played with compiled kernels
(:func:`play_cards`, :func:`legal_cards`: plain Python that numba compiles as it is); no
Python loop runs over games. It implements the same hand state machine as
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
``suitcnt``                  (N, n, 4) i16   cards held per seat and suit
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

from ..actions import BID_OFFSET, MIN_BID, NUM_ACTIONS, PASS_ACTION, TRUMP_OFFSET
from ..cards import NUM_CARDS, NUM_RANKS, TEN_RANK, rank_of, suit_of
from ..engine.hand import FIRST_STAGE_CARDS, FIRST_STAGE_TRICKS, HandState, Phase, TrumpContext
from ..rules import Rules, TrumpMaking
from ..scoring import batch, hand_outcome
from ..seats import side_of
from ..tricks import trick_key, trick_keys
from .kernel_types import compiled

DEAL = int(Phase.DEAL)
DRAW = int(Phase.DRAW)
TRUMP = int(Phase.TRUMP)
BID = int(Phase.BID)
PLAY = int(Phase.PLAY)
DONE = int(Phase.DONE)

CTX_NONE = int(TrumpContext.NONE)
CTX_CHOSEN = int(TrumpContext.CHOSEN)
CTX_OPEN = int(TrumpContext.OPEN)
CTX_VOID = int(TrumpContext.VOID)
CTX_ALL_PASS = int(TrumpContext.ALL_PASS)

# the helpers, compiled for play_cards (numba inlines them)
_trick_key = compiled(trick_key)
_suit_of = compiled(suit_of)

_CARD_SUIT = suit_of(np.arange(NUM_CARDS))
_CARD_RANK = rank_of(np.arange(NUM_CARDS))
_IS_TEN = (_CARD_RANK == TEN_RANK).astype(np.int64)
#: SUIT_SELECT[s] is the cards of suit s; row 4: every card (nothing to follow).
SUIT_SELECT = np.zeros((5, NUM_CARDS), dtype=bool)
for _s in range(4):
    SUIT_SELECT[_s, _s == _CARD_SUIT] = True
SUIT_SELECT[4] = True
#: BID_SELECT[h - 6]: the bid actions (57..84) above a highest bid of ``h`` (6 = none yet).
BID_SELECT = np.zeros((8, NUM_ACTIONS - BID_OFFSET), dtype=bool)
for _h in range(MIN_BID - 1, 14):
    BID_SELECT[_h - (MIN_BID - 1), 4 * (_h + 1 - MIN_BID) :] = True


def trick_winner_positions(cards: np.ndarray, led: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Position of the winning card in each row of ``cards`` (R0.4, :mod:`dehla_env.tricks`):
    the first maximum of the trick keys (``argmax`` returns the first, so the card played
    first wins between equal cards, R2.8). ``trump`` is -1 for none in force."""
    return trick_keys(cards, led[:, None], trump[:, None]).argmax(axis=1)


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
    that numba compiles as it is: the same draws either way (numba's ``integers`` and
    ``permutation`` draw what numpy's draw)."""
    decks = np.empty((k, deck_size), np.int64)
    dealers = np.empty(k, np.int64)
    for i in range(k):
        dealers[i] = rng.integers(0, n)
        decks[i, :] = rng.permutation(deck_size) % NUM_CARDS
    return decks, dealers


@compiled
def play_cards(
    games: np.ndarray,
    cards: np.ndarray,
    n: int,
    one_pack: bool,
    first_void: bool,
    to_act: np.ndarray,
    hands: np.ndarray,
    played2: np.ndarray,
    suitcnt: np.ndarray,
    counts2: np.ndarray,
    voids2: np.ndarray,
    trick: np.ndarray,
    ntrick: np.ndarray,
    led: np.ndarray,
    trump: np.ndarray,
    trump_suit: np.ndarray,
    trump_maker: np.ndarray,
    best_key: np.ndarray,
    best_seat: np.ndarray,
) -> np.ndarray:
    """Card ``cards[j]`` played by the seat to act in game ``games[j]``, for every ``j``:
    the :class:`BatchEngine` arrays updated in place (the per-game ones as they are, the
    others flat, the doubled ones as :meth:`BatchEngine._bind` views them). Returns
    whether each card completed its trick; the seat to act moves on only in the others.
    Plain Python that numba compiles as it is (:data:`~dehla_env.vector.kernel_types.compiled`).

    Per card: out of the hand, into ``played``, the seat's counts; the suit led (the
    first card's); a seat that did not follow is void in it (R0.4), and under R1.4 the
    first such card makes its suit trump, already in force in this trick; then the card
    winning so far, by :func:`~dehla_env.tricks.trick_key` (a later card must be
    strictly higher, R2.8)."""
    full = np.zeros(len(games), np.bool_)
    block = n * NUM_CARDS
    for j in range(len(games)):
        g = games[j]
        c = cards[j]
        s = to_act[g]
        suit: int = _suit_of(c)
        base = g * n + s
        fi = base * NUM_CARDS + c
        fp = fi + g * block  # the doubled played array
        if one_pack:  # each card once: held 1 -> 0, played 0 -> 1
            hands[fi] = 0
            played2[fp] = 1
            played2[fp + block] = 1
        else:
            hands[fi] -= 1
            played2[fp] += 1
            played2[fp + block] += 1
        suitcnt[base * 4 + suit] -= 1
        ci = base + g * n  # the doubled counts
        counts2[ci] -= 1
        counts2[ci + n] -= 1
        pos = ntrick[g]
        if pos == 0:
            led[g] = suit
        lead = led[g]
        if suit != lead:
            vi = (g * 2 * n + s) * 4 + lead
            voids2[vi] = 1
            voids2[vi + 4 * n] = 1
            if first_void and trump_suit[g] < 0:  # R1.4 / R2.4a
                trump[g] = suit
                trump_suit[g] = suit
                trump_maker[g] = s
        trick[g * n + pos] = c
        key = _trick_key(c, lead, trump[g])
        if pos == 0 or key > best_key[g]:
            best_key[g] = key
            best_seat[g] = s
        pos += 1
        ntrick[g] = pos
        if pos == n:
            full[j] = True
        else:
            to_act[g] = s + 1 if s + 1 < n else 0
    return full


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
        i64 = np.int64
        self.hands = np.zeros((N, n, NUM_CARDS), np.uint8)
        self.played2 = np.zeros((N, 2 * n, NUM_CARDS), np.uint8)
        self.voids2 = np.zeros((N, 2 * n, 4), np.uint8)
        self.bid_code2 = np.zeros((N, 2 * n), i64)
        self.won = np.zeros((N, 2, NUM_CARDS), np.uint8)
        self.middle = np.zeros((N, NUM_CARDS), np.uint8)
        self.suitcnt = np.zeros((N, n, 4), np.int16)
        self.counts = np.zeros((N, 2 * n), i64)
        self.trick_cards = np.full((N, n), -1, i64)
        self.best_key = np.zeros(N, i64)
        self.best_seat = np.full(N, -1, i64)
        self.trick_winners = np.full((N, self.num_tricks), -1, i64)
        self.take_cards = np.zeros((N, self.num_tricks), i64)
        self.deck = np.zeros((N, self.deck_size), i64)
        self.tricks = np.zeros((N, 2), i64)
        self.tens = np.zeros((N, 2), i64)
        self.cards_won = np.zeros((N, 2), i64)
        self.dealer = np.zeros(N, i64)
        self.phase = np.full(N, DEAL, i64)
        self.to_act = np.full(N, -1, i64)
        self.stage = np.zeros(N, i64)
        self.leader = np.zeros(N, i64)
        self.led = np.full(N, -1, i64)
        self.ntrick = np.zeros(N, i64)  # cards in the current trick
        self.ntricks = np.zeros(N, i64)  # completed tricks
        self.trump = np.full(N, -1, i64)  # the trump in force
        self.trump_suit = np.full(N, -1, i64)  # the trump as R6 reports it
        self.trump_maker = np.full(N, -1, i64)
        self.hidden = np.zeros(N, bool)  # R2.4c: a closed trump not yet revealed
        self.ctx = np.zeros(N, i64)
        self.last_winner = np.full(N, -1, i64)
        self.mid_count = np.zeros(N, i64)
        self.mid_tens = np.zeros(N, i64)
        self.high_bid = np.full(N, MIN_BID - 1, i64)
        self.bid_seat = np.full(N, -1, i64)  # R4.2: the highest bid so far
        self.bid_suit = np.full(N, -1, i64)
        self.contract_seat = np.full(N, -1, i64)  # set once the bidding is over
        self.contract_level = np.zeros(N, i64)
        self.contract_suit = np.full(N, -1, i64)
        self.draw_card = np.full(N, -1, i64)
        self._bind()

    #: what :meth:`_bind` derives from the state: views of its arrays
    _DERIVED = (
        "_hands_flat",
        "_played_flat",
        "_suitcnt_flat",
        "_counts_flat",
        "_trick_flat",
        "_trick_winners_flat",
        "_tricks_flat",
        "_tens_flat",
        "_cards_won_flat",
        "_won_flat",
        "_voids_flat",
        "_middle_flat",
    )

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (a vector env is deep-copied or sent to a worker): the
        arrays, without what :meth:`_bind` derives. A copied view would be an array of
        its own, so the engine's writes through it would miss the copy's state."""
        return {k: v for k, v in self.__dict__.items() if k not in self._DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def _bind(self) -> None:
        """The flat views of the state arrays (one-index scatters on the hot path)."""
        self._hands_flat = self.hands.reshape(-1)
        self._played_flat = self.played2.reshape(-1)
        self._suitcnt_flat = self.suitcnt.reshape(-1)
        self._counts_flat = self.counts.reshape(-1)
        self._trick_flat = self.trick_cards.reshape(-1)
        self._trick_winners_flat = self.trick_winners.reshape(-1)
        self._tricks_flat = self.tricks.reshape(-1)
        self._tens_flat = self.tens.reshape(-1)
        self._cards_won_flat = self.cards_won.reshape(-1)
        self._won_flat = self.won.reshape(-1)
        self._voids_flat = self.voids2.reshape(-1)
        self._middle_flat = self.middle.reshape(-1)

    # ------------------------------------------------------------------ chance
    def sample_deals(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``k`` deals: per game a uniformly drawn dealer (R1.10) then a deck from the one
        shuffle (:func:`~dehla_env.cards.shuffled_deck`), in the order the scalar env
        draws them, so game 0 of a fresh generator is dealt as ``raw_env`` deals it
        (:func:`draw_deals`)."""
        return draw_deals(rng, k, self.n, self.deck_size)

    def deal(self, g: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Start a new hand in games ``g``: ``decks[i, p]`` goes to seat
        ``(dealers[i] + 1 + p) % n`` (R0.3); a staged deal gives out 0..19 now."""
        g = np.asarray(g, dtype=np.int64)
        decks = np.asarray(decks, dtype=np.int64)
        dealers = np.asarray(dealers, dtype=np.int64)
        n = self.n
        cleared: tuple[np.ndarray, ...] = (self.hands, self.played2, self.voids2, self.bid_code2, self.won, self.middle)
        for arr in cleared:
            arr[g] = 0
        self.best_key[g] = 0
        self.best_seat[g] = -1
        self.trick_cards[g] = -1
        self.trick_winners[g] = -1
        self.take_cards[g] = 0
        self.deck[g] = decks
        zeroed: tuple[np.ndarray, ...] = (
            self.tricks,
            self.tens,
            self.cards_won,
            self.ntrick,
            self.ntricks,
            self.mid_count,
            self.mid_tens,
        )
        for arr in zeroed:
            arr[g] = 0
        for arr in (
            self.led,
            self.trump,
            self.trump_suit,
            self.trump_maker,
            self.last_winner,
            self.bid_seat,
            self.bid_suit,
            self.contract_seat,
            self.contract_suit,
            self.draw_card,
        ):
            arr[g] = -1
        self.hidden[g] = False
        self.ctx[g] = CTX_NONE
        self.high_bid[g] = MIN_BID - 1
        self.contract_level[g] = 0
        self.dealer[g] = dealers
        self.leader[g] = (dealers + 1) % n  # R1.2, R2.2
        stop = FIRST_STAGE_CARDS if self.staged else self.deck_size
        self._give(g, 0, stop)
        self.stage[g] = 1 if self.staged else 2
        making = self.rules.trump_making
        first = (dealers + 1) % n
        match making:
            case TrumpMaking.BIDDING:
                self._await(g, BID, first)  # R4.2
            case TrumpMaking.CHOSEN:
                self.ctx[g] = CTX_CHOSEN  # R1.4 chosen, R3.1
                self._await(g, TRUMP, first)
            case TrumpMaking.OPEN:
                self.ctx[g] = CTX_OPEN  # R2.4b: the dealer's partner names trump
                self._await(g, TRUMP, (dealers + 2) % n)
            case TrumpMaking.FIRST_VOID | TrumpMaking.CLOSED | TrumpMaking.NAMED:
                self._await(g, PLAY, first)  # trump is made during play (R1.4, R2.4a/c/d)
            case _:
                assert_never(making)

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
        self._recount(g)
        self.played2[g, n:] = self.played2[g, :n]
        self.voids2[g, n:] = self.voids2[g, :n]
        self.bid_code2[g, n:] = self.bid_code2[g, :n]
        self.best_key[g] = 0
        self.best_seat[g] = -1
        going = g[self.ntrick[g] > 0]
        if len(going):
            self._rescore_trick(going)

    def _give(self, g: np.ndarray, start: int, stop: int) -> None:
        """Deck positions ``start..stop-1`` of games ``g`` to their seats (R0.3)."""
        n = self.n
        pos = np.arange(start, stop)
        seats = (self.dealer[g][:, None] + 1 + pos) % n  # (k, m)
        cards = self.deck[g, start:stop]
        rows = np.broadcast_to(g[:, None], seats.shape)
        if self.packs == 1:
            self.hands[rows, seats, cards] += 1
        else:
            np.add.at(self.hands, (rows, seats, cards), 1)
        self._recount(g)

    def _recount(self, g: np.ndarray) -> None:
        """Cards held per seat and suit, and per seat, from ``hands`` (games ``g``)."""
        n = self.n
        self.suitcnt[g] = self.hands[g].reshape(len(g), n, 4, NUM_RANKS).sum(axis=3, dtype=np.int16)
        cnt = self.suitcnt[g].sum(axis=2)
        self.counts[g, :n] = cnt
        self.counts[g, n:] = cnt

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
        """Apply one decision per game of ``g`` (default: every game), for the seat to act.

        ``actions`` must be legal (see :meth:`legal_mask`); nothing is checked here.
        """
        if g is None:
            g = self.all
            ph = self.phase
        else:
            g = np.asarray(g, dtype=np.int64)
            ph = self.phase[g]
        actions = np.asarray(actions, dtype=np.int64)
        play = ph == PLAY  # computed before any game moves on (``ph`` may be a view)
        if play.all():
            self._play(slice(None) if g is self.all else g, actions)
            return
        trump = ph == TRUMP if self.trump_phase else None
        bid = ph == BID if self.bidding else None
        if play.any():
            self._play(g[play], actions[play])
        if trump is not None and trump.any():
            self._make_trump(g[trump], actions[trump] - TRUMP_OFFSET)
        if bid is not None and bid.any():
            self._bid(g[bid], actions[bid])

    def _play(self, G: np.ndarray | slice, c: np.ndarray) -> None:
        """Cards ``c`` played in games ``G`` (an index array, or ``slice(None)``: every
        game): :func:`play_cards` (compiled) plays them, then the tricks they completed
        are finished and, where the next seat cannot follow, trump is made or revealed."""
        g = self.all if isinstance(G, slice) else G  # game numbers
        full = play_cards(
            games=g,
            cards=c,
            n=self.n,
            one_pack=self.packs == 1,
            first_void=self.first_void,
            to_act=self.to_act,
            hands=self._hands_flat,
            played2=self._played_flat,
            suitcnt=self._suitcnt_flat,
            counts2=self._counts_flat,
            voids2=self._voids_flat,
            trick=self._trick_flat,
            ntrick=self.ntrick,
            led=self.led,
            trump=self.trump,
            trump_suit=self.trump_suit,
            trump_maker=self.trump_maker,
            best_key=self.best_key,
            best_seat=self.best_seat,
        )
        if full.all():
            self._finish_trick(G)
            return
        if full.any():
            self._finish_trick(g[full])
            g = g[~full]
        if self.void_choice:
            nxt = self.to_act[g]
            led = self.led[g]
            void = self.suitcnt[g, nxt, led] == 0
            if void.any():
                gv = g[void]
                need = self.trump_suit[gv] < 0
                if need.any():
                    # R2.4c/d: the first seat unable to follow makes trump before its card.
                    gn = gv[need]
                    self.ctx[gn] = CTX_VOID
                    self.phase[gn] = TRUMP
                if self.closed:
                    reveal = self.hidden[gv] & (nxt[void] == self.trump_maker[gv])
                    if reveal.any():
                        # R2.4c: the chooser cannot follow again: revealed, in force for
                        # the whole current trick, cards already played to it included.
                        gr = gv[reveal]
                        self.hidden[gr] = False
                        self.trump[gr] = self.trump_suit[gr]
                        self._rescore_trick(gr)

    def _rescore_trick(self, g: np.ndarray) -> None:
        """Recompute the card winning the current trick after the trump changed."""
        tc = self.trick_cards[g]
        pos = trick_winner_positions(tc, self.led[g], self.trump[g])
        best = tc[np.arange(len(g)), pos]
        tr = self.trump[g]
        self.best_key[g] = trick_keys(best, self.led[g], tr)
        self.best_seat[g] = (self.leader[g] + pos) % self.n

    def _finish_trick(self, F: np.ndarray | slice) -> None:
        """Complete the tricks of games ``F`` (an index array or ``slice(None)``)."""
        n = self.n
        f = self.all if isinstance(F, slice) else F
        tc = self.trick_cards[F]
        w = self.best_seat[F].copy()
        side = side_of(w)
        done = self.ntricks[F] + 1
        self._trick_winners_flat[f * self.num_tricks + done - 1] = w
        fs = f * 2 + side  # the winner's side in the (N, 2) per-side arrays, flat
        self._tricks_flat[fs] += 1
        tens_here = _IS_TEN[tc[:, 0]]
        for p in range(1, n):
            tens_here = tens_here + _IS_TEN[tc[:, p]]
        self.ntricks[F] = done
        last = done == self.num_tricks
        if self.has_middle:
            self._middle_trick(f, tc, w, fs=fs, done=done, last=last, tens_here=tens_here)
        else:
            # R2.3, R3.2, R4.3: the winner's side captures the trick at once.
            self._tens_flat[fs] += tens_here
            self._cards_won_flat[fs] += n
            base = fs * NUM_CARDS
            for p in range(n):
                self._won_flat[base + tc[:, p]] += 1
        self.trick_cards[F] = -1
        self.best_key[F] = 0
        self.best_seat[F] = -1
        self.ntrick[F] = 0
        self.led[F] = -1
        self.leader[F] = w
        end = last
        if self.round_tricks is not None:
            end = end | (self._tricks_flat[fs] >= self.round_tricks)  # R3.3
        if end.any():
            self._await(f[end], DONE, -1)
            cont = ~end
            F = f = f[cont]
            w, done = w[cont], done[cont]
        if self.staged and len(f):
            first_stage = self.stage[F] == 1
            if first_stage.any():
                made = self.trump_suit[F] >= 0
                self._deal_rest(f[first_stage & made])  # R1.4: after the trump-making trick, eight more each
                if self.draw_if_no_void:
                    drawn = first_stage & ~made & (done == FIRST_STAGE_TRICKS)
                    if drawn.any():
                        self._await(f[drawn], DRAW, -1)  # R1.4: nobody was void: draw
                        F = f = f[~drawn]
                        w = w[~drawn]
        self._await(F, PLAY, w)

    def _middle_trick(
        self,
        f: np.ndarray,
        tc: np.ndarray,
        w: np.ndarray,
        *,
        fs: np.ndarray,
        done: np.ndarray,
        last: np.ndarray,
        tens_here: np.ndarray,
    ) -> None:
        """R1.5: the trick goes to the middle; the same seat winning twice in a row since
        the last take, or the 13th trick, takes the whole pile for its side."""
        self._middle_flat[(f * NUM_CARDS)[:, None] + tc] += 1
        mc = self.mid_count[f] + self.n
        mt = self.mid_tens[f] + tens_here
        take = (self.last_winner[f] == w) | last
        keep = ~take
        self.mid_count[f] = mc
        self.mid_tens[f] = mt
        if take.any():
            tk, ts = f[take], fs[take]
            self._tens_flat[ts] += mt[take]
            self._cards_won_flat[ts] += mc[take]
            self.won.reshape(-1, NUM_CARDS)[ts] += self.middle[tk]
            self.take_cards[tk, done[take] - 1] = mc[take]
            self.middle[tk] = 0
            self.mid_count[tk] = 0
            self.mid_tens[tk] = 0
            self.last_winner[tk] = -1
        self.last_winner[f[keep]] = w[keep]

    def _make_trump(self, g: np.ndarray, suit: np.ndarray) -> None:
        s = self.to_act[g]
        ctx = self.ctx[g]
        self.trump_maker[g] = s
        self.trump_suit[g] = suit
        self.ctx[g] = CTX_NONE
        void = ctx == CTX_VOID
        if void.any():
            gv = g[void]
            if self.closed:
                self.hidden[gv] = True  # R2.4c: not in force until revealed
            else:
                self.trump[gv] = suit[void]  # R2.4d: in force at once, for the whole trick
                self._rescore_trick(gv)
            self.phase[gv] = PLAY  # the same seat now plays any card
            other = ~void
            g, s, ctx, suit = g[other], s[other], ctx[other], suit[other]
            if not len(g):
                return
        self.trump[g] = suit
        allpass = ctx == CTX_ALL_PASS
        if allpass.any():
            ga = g[allpass]
            self.contract_seat[ga] = s[allpass]  # R4.2: dealer+1 takes 7
            self.contract_level[ga] = MIN_BID
            self.contract_suit[ga] = suit[allpass]
        if self.staged:
            self._deal_rest(g[self.stage[g] == 1])
        leader = np.where(ctx == CTX_OPEN, (self.dealer[g] + 1) % self.n, s)
        self.leader[g] = leader
        self._await(g, PLAY, leader)

    def _bid(self, g: np.ndarray, a: np.ndarray) -> None:
        n = self.n
        s = self.to_act[g]
        is_pass = a == PASS_ACTION
        code = np.where(is_pass, 1, 2 + a - BID_OFFSET)
        self.bid_code2[g, s] = code
        self.bid_code2[g, s + n] = code
        made = ~is_pass
        if made.any():
            gb, ab = g[made], a[made] - BID_OFFSET
            self.high_bid[gb] = MIN_BID + ab // 4
            self.bid_seat[gb] = s[made]
            self.bid_suit[gb] = ab % 4
        end = (self.high_bid[g] == 13) | (s == self.dealer[g])
        go = g[~end]
        self.to_act[go] = (s[~end] + 1) % n
        ge = g[end]
        if not len(ge):
            return
        bidder = self.bid_seat[ge]
        none = bidder < 0
        if none.any():
            # R4.2: four passes: dealer+1 takes 7 and names trump from its five cards.
            gp = ge[none]
            self.ctx[gp] = CTX_ALL_PASS
            self._await(gp, TRUMP, (self.dealer[gp] + 1) % n)
        gc = ge[~none]
        if len(gc):
            seat, suit = self.bid_seat[gc], self.bid_suit[gc]
            self.contract_seat[gc] = seat  # R4.2: the highest bid is the last one made
            self.contract_level[gc] = self.high_bid[gc]
            self.contract_suit[gc] = suit
            self.trump[gc] = suit
            self.trump_suit[gc] = suit
            self.trump_maker[gc] = seat
            self._deal_rest(gc)
            self.leader[gc] = seat
            self._await(gc, PLAY, seat)

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
        """Bytes held by the state arrays."""
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))

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
