"""Card counting from a seat's view: what is still unseen, who may hold what.

Everything here is derived from a :class:`~dehla_env.view.PlayerView` alone (R0.6):
the seat's hand, the cards played, the known voids. The heuristic bots build one
:class:`Knowledge` per decision.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from dehla_env.cards import NUM_CARDS, NUM_RANKS, TEN_RANK, rank_of, suit_of
from dehla_env.rules import TrumpMaking
from dehla_env.seats import side_of
from dehla_env.tricks import beats, trick_winner
from dehla_env.view import PlayerView

#: before the trump exists, a seat unable to follow makes it with its card or names it
_MADE_BY_A_VOID_CARD = (TrumpMaking.FIRST_VOID, TrumpMaking.NAMED)


class Knowledge:
    """Unseen-card counts and trick arithmetic for one decision of one seat."""

    __slots__ = (
        "view",
        "n",
        "seat",
        "packs",
        "unseen",
        "unseen_total",
        "unseen_by_suit",
        "trump",
        "trump_suit_in_force",
        "led",
        "trick_cards",
        "trick_seats",
        "winner_seat",
        "winning_card",
        "after",
        "hand_by_suit",
        "counting",
        "lead_chance",
    )

    def __init__(self, view: PlayerView, counting: bool = True) -> None:
        """``counting=False`` models a player who does not count cards: only its own
        hand is known to be out of play, and nobody is known to be void."""
        self.view = view
        n = self.n = view.num_players
        self.seat = view.seat
        packs = self.packs = view.rules.packs
        unseen = [packs] * NUM_CARDS
        for c in view.hand:
            unseen[c] -= 1
        for _s, c in view.trick:
            unseen[c] -= 1
        if counting:
            for _leader, cards, _w in view.history:
                for c in cards:
                    unseen[c] -= 1
        self.counting = counting
        self.lead_chance: float | None = None  # cached by the hard bot
        self.unseen = unseen
        self.unseen_total = sum(unseen)
        self.unseen_by_suit = [sum(unseen[s * NUM_RANKS : s * NUM_RANKS + NUM_RANKS]) for s in range(4)]
        # The trump that decides tricks now. A closed trump only the seat knows is
        # not in force yet (R2.4c), but the seat may plan with it.
        self.trump = view.trump
        self.trump_suit_in_force = view.trump if view.trump_in_force else -1
        self.led = view.led_suit
        self.trick_cards = [c for _s, c in view.trick]
        self.trick_seats = [s for s, _c in view.trick]
        if self.trick_cards:
            i = trick_winner(self.trick_cards, self.trump_suit_in_force)
            self.winner_seat = self.trick_seats[i]
            self.winning_card = self.trick_cards[i]
        else:
            self.winner_seat = -1
            self.winning_card = -1
        played_now = len(self.trick_cards)
        self.after = [(self.seat + k) % n for k in range(1, n - played_now)]
        by_suit: list[list[int]] = [[], [], [], []]
        for c in view.hand:
            by_suit[suit_of(c)].append(c)
        self.hand_by_suit = by_suit

    # ------------------------------------------------------------------ helpers
    def is_partner(self, seat: int) -> bool:
        return seat != self.seat and side_of(seat) == side_of(self.seat)

    def beats(self, card: int, best: int) -> bool:
        """Does ``card``, played later, beat ``best`` under the trump in force (R0.4)?"""
        return beats(card, best, self.trump_suit_in_force)

    def unseen_higher(self, card: int) -> int:
        """Unseen cards of ``card``'s suit that rank above it."""
        top = (suit_of(card)) * 13 + 13
        return sum(self.unseen[card + 1 : top])

    def unseen_in_suit(self, suit: int) -> int:
        return self.unseen_by_suit[suit]

    def is_master(self, card: int) -> bool:
        """No unseen card of its suit ranks above it (the highest card left)."""
        return self.unseen_higher(card) == 0

    def p_holds_any(self, seat: int, count: int) -> float:
        """Chance that ``seat`` holds at least one of ``count`` particular unseen cards."""
        if count <= 0:
            return 0.0
        h = self.view.hand_counts[seat]
        if not self.counting:
            h = max(h, 1)
        return p_holds_any(h, self.unseen_total, count)

    def p_beats(self, seat: int, best: int) -> float:
        """Rough chance that ``seat``, still to play, beats ``best`` in this trick."""
        voids = self.view.voids[seat] if self.counting else (False, False, False, False)
        led = self.led if self.led >= 0 else suit_of(best)
        best_suit = suit_of(best)
        trump = self.trump_suit_in_force
        p_void_led = 1.0 if voids[led] else 1.0 - self.p_holds_any(seat, self.unseen_in_suit(led))
        p = 0.0
        if best_suit == led and not voids[led]:
            p = self.p_holds_any(seat, self.unseen_higher(best))
        if trump >= 0 and trump != led and not voids[trump]:
            if best_suit == trump:
                p_trump = self.p_holds_any(seat, self.unseen_higher(best))
            else:
                p_trump = self.p_holds_any(seat, self.unseen_in_suit(trump))
            p = max(p, p_void_led * p_trump)
        elif trump < 0 and self.view.rules.trump_making in _MADE_BY_A_VOID_CARD and self.view.trump < 0:
            # Nobody has made trump yet: a void seat makes it now and (usually) wins.
            p = max(p, 0.8 * p_void_led)
        return min(p, 1.0)

    def p_beats_lead(self, seat: int, card: int) -> float:
        """Rough chance that ``seat`` beats ``card`` if we lead it to a new trick."""
        voids = self.view.voids[seat] if self.counting else (False, False, False, False)
        suit = suit_of(card)
        trump = self.trump_suit_in_force if self.trump_suit_in_force >= 0 else self.trump
        p = 0.0 if voids[suit] else self.p_holds_any(seat, self.unseen_higher(card))
        if trump >= 0 and suit != trump and not voids[trump]:
            p_void = 1.0 if voids[suit] else 1.0 - self.p_holds_any(seat, self.unseen_in_suit(suit))
            p = max(p, p_void * self.p_holds_any(seat, self.unseen_in_suit(trump)))
        return p

    def p_holds(self, card: int, later: list[int]) -> float:
        """Chance that no opponent among ``later`` beats ``card``."""
        p = 1.0
        for s in later:
            if side_of(s) != side_of(self.seat):
                p *= 1.0 - self.p_beats(s, card)
        return p

    def suit_strength(self, suit: int, tens_matter: bool) -> float:
        """How good ``suit`` would be as trump for this hand (:func:`trump_strength`)."""
        return trump_strength(self.hand_by_suit[suit], tens_matter)


@functools.cache
def p_holds_any(held: int, unseen: int, count: int) -> float:
    """Chance that a hand of ``held`` cards, dealt from ``unseen`` unseen cards, holds
    at least one of ``count`` particular ones (hypergeometric). Cached: the bots ask the
    same few hundred questions hundreds of thousands of times, and a pure function of
    three small integers answers each with the same float from the table."""
    if unseen <= 0 or held <= 0:
        return 0.0
    miss = 1.0
    for i in range(min(held, unseen)):
        miss *= max(0.0, (unseen - count - i) / (unseen - i))
        if miss <= 0.0:
            break
    return 1.0 - miss


_HONOUR = {12: 4.0, 11: 3.0, 10: 2.0, 9: 1.0}  # A K Q J


def trump_strength(cards: Iterable[int], tens_matter: bool) -> float:
    """The bots' one measure of a suit as trump, from the cards held in it: length
    (1.5 a card) and honours (A 4, K 3, Q 2, J 1), and 1 a ten where tens score (R0.5)."""
    score = 0.0
    for c in cards:
        r = rank_of(c)
        score += 1.5 + _HONOUR.get(r, 0.0) + (1.0 if tens_matter and r == TEN_RANK else 0.0)
    return score


def tens_in(cards: list[int] | tuple[int, ...]) -> int:
    return sum(1 for c in cards if rank_of(c) == TEN_RANK)
