"""One hand (round) of any ruleset: the deal, trump making, bidding and the tricks.

The state is a small mutable object with ``__slots__``: mutation keeps random play at
hundreds of thousands of moves per second, and every entry point validates *before*
it changes anything, so a rejected move leaves the state exactly as it was (R5).
:meth:`HandState.clone` gives an independent copy for search.

Chance is explicit: the hand starts in :attr:`Phase.DEAL` and needs a deck
(:meth:`apply_deal`); ``dehla`` with ``first-void`` may need the R1.4 draw
(:attr:`Phase.DRAW`, :meth:`apply_draw`). Nothing here draws random numbers.

Representation: a hand is an ``int`` bit mask over card ids (R0.1). With three packs
(R2.8) a seat can hold two or three copies of one card: ``hands`` then holds the ids
held at least once and ``extra[seat]`` the ids held at least twice / three times.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import assert_never

from ..actions import (
    BID_OFFSET,
    MAX_BID,
    MIN_BID,
    NUM_ACTIONS,
    PASS_ACTION,
    TRUMP_OFFSET,
    action_text,
    bid_of,
)
from ..cards import (
    NUM_CARDS,
    NUM_RANKS,
    SUIT_LETTERS,
    SUIT_MASKS,
    TEN_RANK,
    card_text,
    cards_in,
    cards_of_suit,
    suit_of,
)
from ..errors import IllegalMoveError
from ..rules import HandScoring, Rules, TrumpMaking
from ..scoring import card_points, hand_outcome, side_or_none
from ..tricks import trick_winner

CHANCE = -1  # ``to_act`` while a chance step (deal, draw) is due
NOBODY = -1

FIRST_STAGE_CARDS = 20  # R0.3: positions 0..19 are the first five each
FIRST_STAGE_TRICKS = 5  # R1.4: five tricks can be played on the first five cards


class Phase(IntEnum):
    """What the hand waits for."""

    DEAL = 0  # chance: the deck (R0.3)
    DRAW = 1  # chance: the R1.4 draw from the 20 cards played
    TRUMP = 2  # a seat names / chooses trump (see ``HandState.trump_context``)
    BID = 3  # R4.2 bidding
    PLAY = 4  # a seat plays a card
    DONE = 5  # the hand is over


# The phases as module globals for the hot paths: in CPython 3.11 reading ``Phase.PLAY``
# goes through the enum's member descriptor (about 90 ns), a global costs about 10 ns, and
# every move compares phases several times.
_DEAL, _DRAW, _TRUMP, _BID, _PLAY, _DONE = Phase


class TrumpContext(IntEnum):
    """Why a trump decision is due; it decides who leads afterwards."""

    NONE = 0
    CHOSEN = 1  # R1.4 chosen, R3.1: dealer+1 on five cards, then leads
    OPEN = 2  # R2.4b: dealer+2 on 13 cards, dealer+1 leads
    VOID = 3  # R2.4c closed / R2.4d named: the first seat unable to follow
    ALL_PASS = 4  # R4.2: four passes, dealer+1 takes 7 and names trump


def as_action_id(action: object, seat: int) -> int:
    """``action`` as an action id, or :class:`IllegalMoveError` (R5): only integers are
    actions (Python ints and numpy integer scalars); a bool, a float such as ``1.5``, a
    string such as ``"11"``, ``None`` or an array is malformed, never rounded or parsed."""
    if isinstance(action, bool):
        raise IllegalMoveError(repr(action), seat, "not an action id (a bool; actions are integers)", "R5")
    try:
        return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        shown = repr(action) if len(repr(action)) <= 40 else repr(action)[:37] + "..."
        kind = type(action).__name__
        raise IllegalMoveError(shown, seat, f"not an action id (a {kind}; actions are integers 0..84)", "R5") from None


@dataclass(frozen=True)
class HandResult:
    """The outcome of a complete hand, before the match applies it."""

    winner: int | None  # side that won the hand/round (R1.6, R2.5, R3.3, R4.6); None: no winner
    all_tens: int | None  # side that took every ten, where that is an instant win/kot
    kot: int | None  # kot earned by the hand itself (four tens R1.8/R2.6, R3.4)
    score: tuple[int, int]  # coat-pees score change per side (R4.4); else (0, 0)


class HandState:
    """The state of one hand. See the module docstring."""

    __slots__ = (
        "rules",
        "n",
        "dealer",
        "phase",
        "to_act",
        "deck",
        "hands",
        "extra",
        "hand_counts",
        "stage",
        "leader",
        "trick_seats",
        "trick_cards",
        "led",
        "trump",
        "trump_suit",
        "trump_maker",
        "trump_hidden",
        "trump_context",
        "trick_winners",
        "tricks",
        "tens",
        "cards_won",
        "won_cards",
        "middle",
        "middle_tens",
        "last_winner",
        "takes",
        "history",
        "draw_card",
        "bids",
        "high_bid",
        "contract",
        "played_mask",
        "voids",
        "events",
        "_first_void",
        "_void_choice",
        "_tricks_total",
    )

    def __init__(self, rules: Rules, dealer: int) -> None:
        n = rules.players
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, not {dealer!r}")
        self.rules = rules
        self.n = n
        self.dealer = dealer
        self.phase = _DEAL
        self.to_act = CHANCE
        self.deck: tuple[int, ...] | None = None
        self.hands = [0] * n  # ids held at least once, per seat
        self.extra: list[list[int]] | None = [[0, 0] for _ in range(n)] if rules.packs > 1 else None
        self.hand_counts = [0] * n
        self.stage = 0  # 0: nothing dealt, 1: first five each (staged deal), 2: all dealt
        self.leader = (dealer + 1) % n  # R1.2, R2.2
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.led = -1  # suit led in the current trick, -1 before the lead
        self.trump = -1  # the trump *in force* for deciding tricks
        self.trump_suit = -1  # the trump as R6 reports it (a closed trump from its choice)
        self.trump_maker = NOBODY
        self.trump_hidden = False  # R2.4c: chosen in secret, not yet revealed
        self.trump_context = TrumpContext.NONE
        self.trick_winners: list[int] = []
        self.tricks = [0, 0]  # completed tricks won per side
        self.tens = [0, 0]  # tens taken (R1.5) or captured per side
        self.cards_won = [0, 0]  # cards taken or captured per side
        self.won_cards: list[list[int]] = [[], []]  # those cards, in the order taken
        self.middle: list[int] = []  # R1.5: the pile of won tricks not yet taken
        self.middle_tens = 0
        self.last_winner = NOBODY  # R1.5: the seat that won the last trick since the last take
        self.takes: list[tuple[int, int, int]] = []  # R6: (trick number 1.., seat, cards taken)
        self.history: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner) per trick
        self.draw_card = -1  # R1.4: the card drawn, if any
        self.bids: list[tuple[int, int]] = []  # R4.2: (seat, action) in order
        self.high_bid = MIN_BID - 1
        self.contract: tuple[int, int, int] | None = None  # (seat, tricks, suit)
        self.played_mask = 0  # every card id played so far (at least once)
        self.voids = [0] * n  # per seat, bit s: the seat did not follow suit s (R0.4, public)
        self.events: list[tuple[int, int]] = []  # (seat or CHANCE, action or draw card) in order
        self._first_void = rules.trump_making is TrumpMaking.FIRST_VOID
        self._void_choice = rules.trump_making.by_first_void
        self._tricks_total = rules.num_tricks

    # ------------------------------------------------------------------ queries
    @property
    def complete(self) -> bool:
        return self.phase == _DONE

    @property
    def is_chance(self) -> bool:
        return self.phase == _DEAL or self.phase == _DRAW

    @property
    def num_tricks_done(self) -> int:
        return len(self.trick_winners)

    def hand_cards(self, seat: int) -> list[int]:
        """The cards ``seat`` holds, ascending, copies repeated (R2.8)."""
        cards = cards_in(self.hands[seat])
        if self.extra is not None:
            for layer in self.extra[seat]:
                cards.extend(cards_in(layer))
            cards.sort()
        return cards

    def current_winner(self) -> int:
        """Seat winning the trick in progress with the trump now in force, or -1."""
        if not self.trick_cards:
            return NOBODY
        return self.trick_seats[trick_winner(self.trick_cards, self.trump)]

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to act, ascending; empty on chance steps."""
        phase = self.phase
        if phase == _PLAY:
            hand = self.hands[self.to_act]
            led = self.led
            if led >= 0 and hand & SUIT_MASKS[led]:
                return list(cards_of_suit(hand, led))
            return cards_in(hand)
        if phase == _TRUMP:
            return [TRUMP_OFFSET, TRUMP_OFFSET + 1, TRUMP_OFFSET + 2, TRUMP_OFFSET + 3]
        if phase == _BID:
            first = BID_OFFSET + 4 * (self.high_bid + 1 - MIN_BID)
            return [PASS_ACTION, *range(first, NUM_ACTIONS)]
        return []

    def legal_card_mask(self) -> int:
        """Bit mask of the playable card ids (0 outside the card-play phase)."""
        if self.phase != _PLAY:
            return 0
        hand = self.hands[self.to_act]
        if self.led >= 0:
            follow = hand & SUIT_MASKS[self.led]
            if follow:
                return follow
        return hand

    def due_text(self) -> str:
        """What is due now, in words, for error messages."""
        p = self.phase
        if p == _PLAY:
            return f"a card from seat {self.to_act} is due"
        if p == _TRUMP:
            return f"a trump choice by seat {self.to_act} is due"
        if p == _BID:
            return f"a bid or pass by seat {self.to_act} is due"
        if p == _DRAW:
            return "the chance draw is due"
        if p == _DEAL:
            return "the deal is due"
        return "the hand is over"

    # ------------------------------------------------------------------ chance steps
    def check_deck(self, deck: Sequence[int]) -> tuple[int, ...]:
        """Raise unless ``deck`` is a permutation of the pack(s) (R0.3, R2.8, R5); the
        deck as Python ints (numpy integers accepted, anything else not)."""
        packs = self.rules.packs
        size = self.rules.deck_size
        if len(deck) != size:
            raise IllegalMoveError(None, None, f"deck has {len(deck)} cards, not {size}")
        counts = [0] * NUM_CARDS
        ids = []
        for c in deck:
            if type(c) is not int:
                try:
                    c = operator.index(c)
                except TypeError:
                    raise IllegalMoveError(None, None, f"deck holds {c!r}, not a card id") from None
            if not 0 <= c < NUM_CARDS:
                raise IllegalMoveError(None, None, f"deck holds {c!r}, not a card id")
            counts[c] += 1
            ids.append(c)
        if counts.count(packs) != NUM_CARDS:
            c = next(c for c in range(NUM_CARDS) if counts[c] != packs)
            raise IllegalMoveError(
                None,
                None,
                f"deck holds {card_text(c)} {counts[c]} times, not {packs}: not a permutation of the pack",
            )
        return tuple(ids)

    def apply_deal(self, deck: Sequence[int]) -> None:
        """The deal (R0.3): ``deck[i]`` goes to seat ``(dealer + 1 + i) % n``.

        A staged deal (R1.3, R3.1, R4.1) gives out the first 20 now and the rest once
        the trump is made.
        """
        if self.phase != _DEAL:
            raise IllegalMoveError("deal", CHANCE, f"no deal is due, {self.due_text()}")
        self.deck = self.check_deck(deck)
        rules = self.rules
        if rules.staged_deal:
            self._give(0, FIRST_STAGE_CARDS)
            self.stage = 1
        else:
            self._give(0, rules.deck_size)
            self.stage = 2
        self.events.append((CHANCE, -1))
        d, n = self.dealer, self.n
        making = rules.trump_making
        match making:
            case TrumpMaking.BIDDING:
                self._await(_BID, (d + 1) % n)  # R4.2
            case TrumpMaking.CHOSEN:
                self.trump_context = TrumpContext.CHOSEN  # R1.4 chosen, R3.1
                self._await(_TRUMP, (d + 1) % n)
            case TrumpMaking.OPEN:
                self.trump_context = TrumpContext.OPEN  # R2.4b: dealer's partner names trump
                self._await(_TRUMP, (d + 2) % n)
            case TrumpMaking.FIRST_VOID | TrumpMaking.CLOSED | TrumpMaking.NAMED:
                self._await(_PLAY, self.leader)  # trump is made during play (R1.4, R2.4a/c/d)
            case _:
                assert_never(making)

    def _give(self, start: int, stop: int) -> None:
        assert self.deck is not None
        deck, d, n = self.deck, self.dealer, self.n
        hands, counts, extra = self.hands, self.hand_counts, self.extra
        for i in range(start, stop):
            seat = (d + 1 + i) % n
            bit = 1 << deck[i]
            if extra is None or not hands[seat] & bit:
                hands[seat] |= bit
            elif not extra[seat][0] & bit:
                extra[seat][0] |= bit
            else:
                extra[seat][1] |= bit
            counts[seat] += 1

    def _deal_rest(self) -> None:
        """Second stage of a staged deal: positions 20..51 (R0.3)."""
        self._give(FIRST_STAGE_CARDS, self.rules.deck_size)
        self.stage = 2

    def draw_candidates(self) -> list[int]:
        """R1.4: the 20 cards played in the first five tricks (the draw's outcomes)."""
        return [c for _, cards, _ in self.history[:FIRST_STAGE_TRICKS] for c in cards]

    def apply_draw(self, card: int) -> None:
        """R1.4: all followed suit for five tricks; the drawn card's suit is trump."""
        card = operator.index(card)
        if self.phase != _DRAW:
            raise IllegalMoveError(
                "draw:" + card_text(card) if 0 <= card < NUM_CARDS else f"draw:{card}",
                CHANCE,
                f"no chance draw is due, {self.due_text()}",
                "R1.4",
            )
        if card not in self.draw_candidates():
            raise IllegalMoveError(
                "draw:" + card_text(card) if 0 <= card < NUM_CARDS else f"draw:{card}",
                CHANCE,
                "the drawn card must be one of the 20 played so far",
                "R1.4",
            )
        self.draw_card = card
        self.trump = self.trump_suit = suit_of(card)
        self.events.append((CHANCE, card))
        self._deal_rest()
        self._await(_PLAY, self.leader)  # the fifth trick's winner leads the sixth

    # ------------------------------------------------------------------ decisions
    def apply_action(self, action: int) -> None:
        """Apply the decision ``action`` (see :mod:`dehla_env.actions`) of the seat to act.

        Any integer type is accepted (``np.int64`` from a mask, say)."""
        if type(action) is not int:
            action = as_action_id(action, self.to_act)
        phase = self.phase
        if phase == _PLAY and 0 <= action < NUM_CARDS:
            card = action  # a card played, the hot path (inline, no call): validated first (R5)
            seat = self.to_act
            bit = 1 << card
            hand = self.hands[seat]
            if not hand & bit:
                raise IllegalMoveError(card_text(card), seat, "card not in hand", "R5")
            led = self.led
            suit = card // NUM_RANKS  # suit_of, inline on the hot path (as below)
            if led >= 0 and suit != led:
                if hand & SUIT_MASKS[led]:
                    raise IllegalMoveError(card_text(card), seat, f"must follow suit {SUIT_LETTERS[led]}", "R0.4")
                if self._first_void and self.trump_suit < 0:
                    # R1.4 / R2.4a: the first card played by a seat unable to follow makes
                    # its suit trump, and is already a trump in this trick.
                    self.trump = self.trump_suit = suit
                    self.trump_maker = seat
            # --- validated: mutate from here on
            extra = self.extra
            if extra is None:
                self.hands[seat] = hand ^ bit
            else:
                layers = extra[seat]
                if layers[1] & bit:
                    layers[1] ^= bit
                elif layers[0] & bit:
                    layers[0] ^= bit
                else:
                    self.hands[seat] = hand ^ bit
            self.hand_counts[seat] -= 1
            self.played_mask |= bit
            if led >= 0 and suit != led:
                self.voids[seat] |= 1 << led
            self.events.append((seat, card))
            if led < 0:
                self.led = suit
            self.trick_seats.append(seat)
            self.trick_cards.append(card)
            if len(self.trick_cards) == self.n:
                self._finish_trick()
            elif self._void_choice:
                self._next_player((seat + 1) % self.n)
            else:
                self.to_act = (seat + 1) % self.n
            return
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalMoveError(str(action), self.to_act, "no such action", "R5")
        text = action_text(action)
        if phase == _DONE:
            raise IllegalMoveError(text, None, "the hand is over", "R5")
        if phase in (_DEAL, _DRAW):
            kind = "card" if action < NUM_CARDS else "decision"
            raise IllegalMoveError(text, CHANCE, f"no {kind} is due, {self.due_text()}", "R5")
        if TRUMP_OFFSET <= action < PASS_ACTION:
            if phase != _TRUMP:
                raise IllegalMoveError(text, self.to_act, f"no trump choice is due, {self.due_text()}", "R5")
            self._make_trump(action - TRUMP_OFFSET)
        elif action >= PASS_ACTION:
            if phase != _BID:
                raise IllegalMoveError(text, self.to_act, f"no bid is due, {self.due_text()}", "R4.2")
            self._bid(action)
        else:
            raise IllegalMoveError(text, self.to_act, f"no card is due, {self.due_text()}", "R5")

    def _await(self, phase: Phase, seat: int) -> None:
        self.phase = phase
        self.to_act = seat

    def _next_player(self, seat: int) -> None:
        self.to_act = seat
        if not self.hands[seat] & SUIT_MASKS[self.led]:
            if self.trump_suit < 0:
                # R2.4c/d: the first seat unable to follow makes trump before its card.
                self.trump_context = TrumpContext.VOID
                self.phase = _TRUMP
            elif self.trump_hidden and seat == self.trump_maker:
                # R2.4c: the next time the chooser cannot follow, the trump is revealed
                # before it plays, and is in force for this whole trick.
                self.trump_hidden = False
                self.trump = self.trump_suit
                self.events.append((seat, TRUMP_OFFSET + self.trump_suit))

    def _finish_trick(self) -> None:
        cards = self.trick_cards
        seats = self.trick_seats
        winner = seats[trick_winner(cards, self.trump)]
        side = winner % 2  # side_of
        tens_here = 0
        for c in cards:
            if c % NUM_RANKS == TEN_RANK:  # rank_of
                tens_here += 1
        self.trick_winners.append(winner)
        self.tricks[side] += 1
        self.history.append((seats[0], tuple(cards), winner))
        done = len(self.trick_winners)
        last = done == self._tricks_total
        if self.rules.has_middle:
            # R1.5: the trick goes to the middle; the same seat winning twice in a row
            # since the last take, or the 13th trick, takes the whole pile.
            middle = self.middle
            middle.extend(cards)
            self.middle_tens += tens_here
            if self.last_winner == winner or last:
                self.takes.append((done, winner, len(middle)))
                self.tens[side] += self.middle_tens
                self.cards_won[side] += len(middle)
                self.won_cards[side].extend(middle)
                self.middle = []
                self.middle_tens = 0
                self.last_winner = NOBODY
            else:
                self.last_winner = winner
        else:
            # R2.3, R3.2, R4.3: the winner's side captures the trick at once.
            self.tens[side] += tens_here
            self.cards_won[side] += len(cards)
            self.won_cards[side].extend(cards)
        self.trick_cards = []
        self.trick_seats = []
        self.led = -1
        self.leader = winner
        round_tricks = self.rules.round_tricks
        if last or (round_tricks is not None and self.tricks[side] >= round_tricks):
            self._await(_DONE, NOBODY)  # R3.3: the round ends at 7 tricks
            return
        if self.stage == 1:
            if self.trump_suit >= 0:
                self._deal_rest()  # R1.4: after the trump-making trick, eight more each
            elif done == FIRST_STAGE_TRICKS and self.rules.draw_if_no_void:
                self._await(_DRAW, CHANCE)  # R1.4: nobody was void: draw
                return
        self._await(_PLAY, winner)

    def _make_trump(self, suit: int) -> None:
        seat = self.to_act
        ctx = self.trump_context
        self.trump_maker = seat
        self.trump_suit = suit
        self.events.append((seat, TRUMP_OFFSET + suit))
        self.trump_context = TrumpContext.NONE
        if ctx == TrumpContext.VOID:
            if self.rules.trump_making is TrumpMaking.CLOSED:
                self.trump_hidden = True  # R2.4c: not in force until revealed
            else:
                self.trump = suit  # R2.4d: in force at once, for the whole trick
            self.phase = _PLAY  # the same seat now plays any card
            return
        self.trump = suit
        if ctx == TrumpContext.ALL_PASS:
            self.contract = (seat, MIN_BID, suit)  # R4.2: dealer+1 takes 7
        if self.stage == 1:
            self._deal_rest()
        leader = (self.dealer + 1) % self.n if ctx == TrumpContext.OPEN else seat
        self.leader = leader
        self._await(_PLAY, leader)

    def _bid(self, action: int) -> None:
        seat = self.to_act
        if action != PASS_ACTION:
            tricks, _suit = bid_of(action)
            if tricks <= self.high_bid:
                raise IllegalMoveError(
                    action_text(action), seat, f"a bid must name a number above {self.high_bid}", "R4.2"
                )
        self.bids.append((seat, action))
        self.events.append((seat, action))
        if action != PASS_ACTION:
            self.high_bid = bid_of(action)[0]
        if self.high_bid == MAX_BID or seat == self.dealer:
            self._end_bidding()
        else:
            self.to_act = (seat + 1) % self.n

    def _end_bidding(self) -> None:
        bids = [(seat, a) for seat, a in self.bids if a != PASS_ACTION]
        if not bids:
            # R4.2: four passes: dealer+1 takes 7 and names trump from its five cards.
            self.trump_context = TrumpContext.ALL_PASS
            self._await(_TRUMP, (self.dealer + 1) % self.n)
            return
        seat, action = bids[-1]  # R4.2: the highest bid is the last one made
        tricks, suit = bid_of(action)
        self.contract = (seat, tricks, suit)
        self.trump = self.trump_suit = suit
        self.trump_maker = seat
        self._deal_rest()
        self.leader = seat
        self._await(_PLAY, seat)

    # ------------------------------------------------------------------ outcome
    def card_points(self) -> tuple[int, int]:
        """R2.5 double-sar: a ten is worth 2, every other captured card 1."""
        return (int(card_points(self.cards_won[0], self.tens[0])), int(card_points(self.cards_won[1], self.tens[1])))

    def result(self) -> HandResult:
        """The outcome of the complete hand (R1.6, R2.5, R3.3-R3.4, R4.4, R4.6), as
        :func:`dehla_env.scoring.hand_outcome` decides it."""
        if self.phase != _DONE:
            raise ValueError("the hand is not complete")
        rules = self.rules
        contract = self.contract
        assert contract is not None or rules.hand_scoring is not HandScoring.CONTRACT  # R4.2: bid before play
        out = hand_outcome(
            rules,
            dealer=self.dealer,
            tricks=(self.tricks[0], self.tricks[1]),
            tens=(self.tens[0], self.tens[1]),
            cards_won=(self.cards_won[0], self.cards_won[1]),
            trump_maker=self.trump_maker,
            contract=(NOBODY, 0) if contract is None else (contract[0], contract[1]),
        )
        score = (int(out.score[0]), int(out.score[1]))
        return HandResult(side_or_none(out.winner), side_or_none(out.all_tens), side_or_none(out.kot), score)

    # ------------------------------------------------------------------ copying
    def clone(self) -> HandState:
        """An independent copy (for search and look-ahead)."""
        new = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.extra = None if self.extra is None else [layers[:] for layers in self.extra]
        new.hand_counts = self.hand_counts[:]
        new.voids = self.voids[:]
        new.trick_seats = self.trick_seats[:]
        new.trick_cards = self.trick_cards[:]
        new.trick_winners = self.trick_winners[:]
        new.tricks = self.tricks[:]
        new.tens = self.tens[:]
        new.cards_won = self.cards_won[:]
        new.won_cards = [self.won_cards[0][:], self.won_cards[1][:]]
        new.middle = self.middle[:]
        new.takes = self.takes[:]
        new.history = self.history[:]
        new.bids = self.bids[:]
        new.events = self.events[:]
        return new
