"""Hidden hands consistent with one seat's view, sampled uniformly (four players).

A seat knows its own hand, every card played and by whom, the hand sizes, how many
cards are still undealt (R0.3, the staged deal), and who has shown a void by not
following suit (R0.4). :class:`WorldSampler` draws the unseen cards for the other three
seats and the undealt stock so that every deal consistent with that knowledge is
equally likely, and builds a full engine state (:meth:`WorldSampler.world`) for search.

**What "consistent" means** (every constraint is exact, not heuristic):

* hand sizes and the stock size add up to the unseen cards;
* a seat shown void in a suit holds none of it, with one refinement for the R1.4
  staged deal: a void shown during the first stage (five cards each, before the trump
  card's trick ends) concerns only the cards of the *first* stage, and eight more are
  dealt afterwards. Such a seat may hold the suit now, but the deal is less likely the
  more of it it holds: of the cards the seat held after the second stage (its hand now
  plus what it has played since), the ``5 - k`` left from the first stage (``k``
  tricks were played on five cards) must avoid the suit. Each deal is weighted by the
  number of ways to choose them, ``C(m, 5 - k)`` with ``m`` those cards outside the
  void suits, which is exactly the number of deck orders behind it;
* the stock (cards not yet dealt) holds anything: it has shown nothing.

**Uniform** over deck orders consistent with the view: the number of deck orders
behind an assignment of cards to holders is the same for all assignments (times the
stage weight above). With no voids, one shuffle is uniform. With voids, an exact count
by dynamic programming over the *constrained* suits (those some holder is void in or
stage-weighted by) chooses how many cards of each such suit each holder gets, with
probability proportional to the number of completions; the cards of a suit are then
dealt uniformly given the counts, and the unconstrained suits, pooled, are shuffled
into the room left. Big integers are drawn exactly (``random.Random.randrange``).

**Soft information is ignored** (documented assumptions): bids (R4.2), the choice of
a trump suit by its maker (R1.4 chosen, R2.4b, R3.1: a maker likely holds that suit)
and the style of play that revealed each card. An unrevealed R2.4c closed trump is
drawn uniformly from the four suits for every seat but its maker, independently of the
cards. Six players (R2.8, three packs) are not supported.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import comb, factorial
from typing import assert_never

import numpy as np

from dehla_env.actions import MIN_BID, PASS_ACTION, bid_of
from dehla_env.cards import NUM_CARDS, SUIT_MASKS, suit_of
from dehla_env.engine import MatchState
from dehla_env.engine.hand import FIRST_STAGE_CARDS, HandState, Phase, TrumpContext
from dehla_env.rules import Rules, TrumpMaking
from dehla_env.view import PlayerView, view_of

STOCK = -1  # holder id of the undealt cards
_FACT = [factorial(i) for i in range(NUM_CARDS + 1)]


@dataclass(frozen=True)
class Holder:
    """Who may receive unseen cards: a seat, or the stock (``seat == STOCK``)."""

    seat: int
    size: int
    voids: int  # bit s set: holds no card of suit s
    stage_rest: int = 0  # R1.4 first-stage void weighting: first-stage cards left at the deal
    stage_voids: int = 0  # suits those first-stage cards avoid (not already in ``voids``)
    stage_base: int = 0  # cards played since the deal outside the first-stage void suits


@dataclass(frozen=True)
class Deal:
    """One sampled world: every seat's hand (the viewer's own included) as a bit mask,
    the undealt stock in deal order (positions 20.. of the deck), a hidden trump."""

    hands: tuple[int, int, int, int]
    stock: tuple[int, ...]
    trump: int  # the sampled R2.4c closed trump, -1 when nothing was hidden


def stage_split(view: PlayerView) -> int | None:
    """Number of tricks completed when the second stage was dealt during play (R1.4
    ``first-void`` only), 0 when everything was dealt before play, None while cards
    are still undealt."""
    if view.cards_undealt > 0:
        return None
    rules = view.rules
    if not (rules.staged_deal and rules.trump_making is TrumpMaking.FIRST_VOID):
        return 0
    if view.draw_card >= 0:
        return 5  # R1.4: all followed for five tricks, then the draw
    for t, (_leader, cards, _w) in enumerate(view.history):
        led = suit_of(cards[0])
        if any(suit_of(c) != led for c in cards[1:]):
            return t + 1  # the trump-making trick is the last of the first stage
    raise ValueError("inconsistent view: all cards dealt but no trump was made")


def holders_of(view: PlayerView) -> tuple[list[int], list[Holder]]:
    """The unseen cards and who may hold them (see the module docstring)."""
    if view.num_players != 4:
        raise ValueError("the sampler handles four players (one pack) only")
    n = 4
    unseen_mask = ((1 << NUM_CARDS) - 1) & ~(view.hand_mask | view.played_mask)
    unseen = [c for c in range(NUM_CARDS) if unseen_mask >> c & 1]
    k = stage_split(view)
    v1 = [0] * n  # voids shown in the first stage (before the second deal)
    v2 = [0] * n  # voids about the current hand
    played_after = [0] * n  # cards played since the second deal, per seat
    for t, (leader, cards, _w) in enumerate(view.history):
        led = suit_of(cards[0])
        early = k is not None and t < k
        for i, c in enumerate(cards):
            seat = (leader + i) % n
            if i and suit_of(c) != led:
                if early:
                    v1[seat] |= 1 << led
                else:
                    v2[seat] |= 1 << led
            if not early:
                played_after[seat] |= 1 << c
    if view.trick:
        led = suit_of(view.trick[0][1])
        for seat, c in view.trick:
            if suit_of(c) != led:
                v2[seat] |= 1 << led
            played_after[seat] |= 1 << c
    holders: list[Holder] = []
    for seat in range(n):
        if seat == view.seat:
            continue
        size = view.hand_counts[seat]
        extra = v1[seat] & ~v2[seat]
        if k and extra:
            rest = 5 - k  # first-stage cards the seat still held at the second deal
            not_void = ~_suits_mask(v1[seat])
            base = (played_after[seat] & not_void).bit_count()
            holders.append(Holder(seat, size, v2[seat], stage_rest=rest, stage_voids=extra, stage_base=base))
        else:
            holders.append(Holder(seat, size, v2[seat]))
    if view.cards_undealt:
        holders.append(Holder(STOCK, view.cards_undealt, 0))
    if sum(h.size for h in holders) != len(unseen):
        raise ValueError("inconsistent view: hand sizes do not add up to the unseen cards")
    return unseen, holders


def _suits_mask(suits: int) -> int:
    m = 0
    for s in range(4):
        if suits >> s & 1:
            m |= SUIT_MASKS[s]
    return m


def _splits(total: int, caps: list[int]):
    """Every vector ``k`` with ``sum(k) == total`` and ``0 <= k[i] <= caps[i]``."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    rest_cap = sum(caps[1:])
    for first in range(max(0, total - rest_cap), min(total, caps[0]) + 1):
        for tail in _splits(total - first, caps[1:]):
            yield (first, *tail)


#: one way to deal a suit: the counts per holder, then the rooms and the first-stage
#: void counts it leaves
_Option = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _shuffle(pr: random.Random, x: list[int]) -> None:
    """``pr.shuffle(x)``, the same permutation from the same generator state, with its
    per-element ``_randbelow`` call inlined: a draw shuffles some forty cards, and the
    call was a third of the shuffle's time. ``tests/test_sampler.py`` holds it to
    :meth:`random.Random.shuffle`."""
    getrandbits = pr.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


class WorldSampler:
    """Uniform sampler of the hidden cards for one view (build once per decision)."""

    def __init__(self, view: PlayerView) -> None:
        self.view = view
        self.rules: Rules = view.rules
        self.unseen, self.holders = holders_of(view)
        self.by_suit = [[c for c in self.unseen if suit_of(c) == s] for s in range(4)]
        self.weighted = [i for i, h in enumerate(self.holders) if h.stage_rest]
        constrained = 0
        for h in self.holders:
            constrained |= h.voids | h.stage_voids
        self.constrained = [s for s in range(4) if constrained >> s & 1 and self.by_suit[s]]
        self.free = [c for s in range(4) if s not in self.constrained for c in self.by_suit[s]]
        self._memo: dict[tuple, int] = {}
        self._choice_memo: dict[tuple, tuple[list[_Option], list[int], int]] = {}
        self.hidden_trump = view.trump_hidden  # R2.4c: chosen by another seat, not revealed
        self._total: int | None = None
        self._public: HandState | None = None  # the view's public state, made on first use

    # ------------------------------------------------------------------ counting
    def _weight(self, xs: tuple[int, ...]) -> int:
        w = 1
        for i, x in zip(self.weighted, xs):
            h = self.holders[i]
            w *= comb(h.stage_base + h.size - x, h.stage_rest)
        return w

    def _count(self, si: int, rooms: tuple[int, ...], xs: tuple[int, ...]) -> int:
        """Weighted number of ways to deal constrained suits ``si..`` and the free
        cards into ``rooms``, given first-stage void counts ``xs`` so far."""
        if si == len(self.constrained):
            # the free cards go anywhere: a multinomial
            ways = _FACT[len(self.free)]
            for r in rooms:
                ways //= _FACT[r]
            return ways * self._weight(xs) if self.weighted else ways
        key = (si, rooms, xs)
        memo = self._memo.get(key)
        if memo is not None:
            return memo
        total = 0
        for k, ways in self._suit_options(si, rooms):
            total += ways * self._count(si + 1, self._sub(rooms, k), self._add_x(si, xs, k))
        self._memo[key] = total
        return total

    def _suit_options(self, si: int, rooms: tuple[int, ...]):
        """(counts per holder, number of ways to deal the suit's cards so) for suit ``si``."""
        suit = self.constrained[si]
        u = len(self.by_suit[suit])
        caps = [0 if h.voids >> suit & 1 else rooms[j] for j, h in enumerate(self.holders)]
        for k in _splits(u, caps):
            ways = _FACT[u]
            for x in k:
                ways //= _FACT[x]
            yield k, ways

    @staticmethod
    def _sub(rooms: tuple[int, ...], k: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(r - x for r, x in zip(rooms, k))

    def _add_x(self, si: int, xs: tuple[int, ...], k: tuple[int, ...]) -> tuple[int, ...]:
        if not self.weighted:
            return xs
        suit = self.constrained[si]
        return tuple(x + (k[i] if self.holders[i].stage_voids >> suit & 1 else 0) for i, x in zip(self.weighted, xs))

    def total(self) -> int:
        """Weighted number of consistent assignments (up to a constant factor: the
        number of deck orders behind each)."""
        if self._total is None:
            rooms = tuple(h.size for h in self.holders)
            self._total = self._count(0, rooms, tuple(0 for _ in self.weighted))
        return self._total

    def _choices(self, si: int, rooms: tuple[int, ...], xs: tuple[int, ...]) -> tuple[list[_Option], list[int], int]:
        """How suit ``si`` can be dealt into ``rooms``: each option (the counts per
        holder, with the rooms and first-stage void counts it leaves), its weight (the
        deals that complete it) and their sum: the distribution :meth:`sample` draws
        from. A decision samples many worlds from one view, and they meet the same few
        of these nodes, so each is worked out once."""
        key = (si, rooms, xs)
        got = self._choice_memo.get(key)
        if got is None:
            options, weights = [], []
            for k, ways in self._suit_options(si, rooms):
                left, xs_after = self._sub(rooms, k), self._add_x(si, xs, k)
                w = ways * self._count(si + 1, left, xs_after)
                if w:
                    options.append((k, left, xs_after))
                    weights.append(w)
            got = self._choice_memo[key] = (options, weights, sum(weights))
        return got

    # ------------------------------------------------------------------ sampling
    def sample(self, rng: np.random.Generator) -> Deal:
        """One uniformly drawn consistent deal."""
        pr = random.Random(int(rng.integers(1 << 62)))
        holders = self.holders
        masks = [0] * len(holders)
        rooms = tuple(h.size for h in holders)
        if not self.constrained:
            cards = self.unseen[:]
            _shuffle(pr, cards)
            pos = 0
            for j, h in enumerate(holders):
                for c in cards[pos : pos + h.size]:
                    masks[j] |= 1 << c
                pos += h.size
        else:
            if self.total() == 0:
                raise ValueError("no deal is consistent with the view")
            xs = tuple(0 for _ in self.weighted)
            for si in range(len(self.constrained)):
                options, weights, total = self._choices(si, rooms, xs)
                pick = pr.randrange(total)
                chosen = options[-1]
                for option, w in zip(options, weights):
                    if pick < w:
                        chosen = option
                        break
                    pick -= w
                k, rooms, xs = chosen
                cards = self.by_suit[self.constrained[si]][:]
                _shuffle(pr, cards)
                pos = 0
                for j, x in enumerate(k):
                    for c in cards[pos : pos + x]:
                        masks[j] |= 1 << c
                    pos += x
            cards = self.free[:]
            _shuffle(pr, cards)
            pos = 0
            for j, r in enumerate(rooms):
                for c in cards[pos : pos + r]:
                    masks[j] |= 1 << c
                pos += r
        hands = [0, 0, 0, 0]
        hands[self.view.seat] = self.view.hand_mask
        stock: list[int] = []
        for j, h in enumerate(holders):
            if h.seat == STOCK:
                stock = [c for c in range(NUM_CARDS) if masks[j] >> c & 1]
                _shuffle(pr, stock)  # any order of the stock into its deck positions is equally likely
            else:
                hands[h.seat] = masks[j]
        trump = pr.randrange(4) if self.hidden_trump else -1
        return Deal((hands[0], hands[1], hands[2], hands[3]), tuple(stock), trump)

    # ------------------------------------------------------------------ worlds
    def world(self, deal: Deal) -> HandState:
        """The engine state of the hand in the world ``deal`` (a fresh object): a copy
        of the view's public state, made once per sampler, with the deal placed in it."""
        if self._public is None:
            self._public = _public_state(self.view)
        return _place_deal(self._public.clone(), self.view, deal)


def world_state(view: PlayerView, deal: Deal) -> HandState:
    """Build the :class:`HandState` that ``view`` describes, with the hidden parts
    (other hands, stock order, an unrevealed closed trump) taken from ``deal``."""
    return _place_deal(_public_state(view), view, deal)


def _place_deal(hand: HandState, view: PlayerView, deal: Deal) -> HandState:
    """Put the hidden parts of ``deal`` into ``hand``, the view's public state: every
    hand, the stock in its deck positions, a closed trump this seat has not seen."""
    if hand.stage == 1:
        # The deck: the engine reads it again only for the second stage (positions 20..),
        # so the first-stage positions hold placeholders.
        hand.deck = (-1,) * FIRST_STAGE_CARDS + deal.stock
    hand.hands = list(deal.hands)
    if view.trump_hidden:
        hand.trump_suit = deal.trump
    return hand


def _public_state(view: PlayerView) -> HandState:
    """The :class:`HandState` of what ``view`` shows (the hidden parts placeholders,
    filled by :func:`_place_deal`)."""
    rules = view.rules
    hand = HandState(rules, view.dealer)
    hand.phase = view.phase
    hand.to_act = view.to_act
    stage = 1 if view.cards_undealt > 0 else 2
    hand.stage = stage
    hand.deck = (-1,) * NUM_CARDS  # a staged deal's stock: _place_deal
    hand.hands = [0] * rules.players  # _place_deal
    hand.hand_counts = list(view.hand_counts)
    hand.leader = view.leader
    hand.trick_seats = [s for s, _c in view.trick]
    hand.trick_cards = [c for _s, c in view.trick]
    hand.led = view.led_suit
    # trump: what is in force, what was chosen (R2.4c: maybe hidden from this seat)
    if view.trump_hidden:
        hand.trump_suit = -1  # the deal's: _place_deal
        hand.trump_hidden = True
        hand.trump = -1
    else:
        hand.trump_suit = view.trump
        hand.trump = view.trump if view.trump_in_force else -1
        hand.trump_hidden = rules.trump_making is TrumpMaking.CLOSED and view.trump >= 0 and not view.trump_in_force
    hand.trump_maker = view.trump_maker
    if view.phase == Phase.TRUMP:  # the context the engine set when it asked for trump
        match rules.trump_making:
            case TrumpMaking.CLOSED | TrumpMaking.NAMED:
                hand.trump_context = TrumpContext.VOID  # R2.4c/d: asked while unable to follow
            case TrumpMaking.BIDDING:
                hand.trump_context = TrumpContext.ALL_PASS  # R4.2
            case TrumpMaking.OPEN:
                hand.trump_context = TrumpContext.OPEN  # R2.4b
            case TrumpMaking.CHOSEN | TrumpMaking.FIRST_VOID:  # R1.4 chosen, R3.1 (first-void makes no trump decision)
                hand.trump_context = TrumpContext.CHOSEN
            case _:
                assert_never(rules.trump_making)
    hand.history = list(view.history)
    hand.trick_winners = [w for _l, _c, w in view.history]
    hand.tricks = list(view.tricks)
    hand.tens = list(view.tens)
    hand.won_cards = [list(view.won_cards[0]), list(view.won_cards[1])]
    hand.cards_won = [len(view.won_cards[0]), len(view.won_cards[1])]
    hand.middle = list(view.middle)
    hand.middle_tens = view.middle_tens
    hand.last_winner = view.last_winner
    hand.takes = list(view.takes)
    hand.draw_card = view.draw_card
    hand.bids = list(view.bids)
    hand.high_bid = max((bid_of(a)[0] for _s, a in view.bids if a != PASS_ACTION), default=MIN_BID - 1)
    hand.contract = view.contract
    hand.played_mask = view.played_mask
    hand.voids = [sum(1 << s for s in range(4) if v[s]) for v in view.voids]
    return hand


def match_for(hand: HandState, base: PlayerView) -> MatchState:
    """A match around a world's hand, with the match-level facts (kots, points, streak)
    of ``base``, so that :func:`dehla_env.view.view_of` gives views in that world."""
    match = MatchState.__new__(MatchState)
    match.rules = hand.rules
    match.first_dealer = hand.dealer
    match.hand = hand
    match.hands_dealt = base.hands_completed + 1
    match.hands_completed = base.hands_completed
    match.kots = list(base.kots)
    match.points = list(base.points)
    match.streak = base.streak
    match.prev_round_winner = None
    match.winner = None
    match.summaries = []
    match.finished_hands = []
    return match


def view_in_world(match: MatchState, seat: int) -> PlayerView:
    """``seat``'s view of a sampled world (see :func:`match_for`)."""
    return view_of(match, seat)
