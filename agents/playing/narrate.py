"""The hand's log, in words, as the person at the table sees it (the web page's log,
the terminal game's running commentary).

Every line is made from two of the person's own views (before and after a step) and
the step's public part, never from the engine's state: a bot's secret closed trump
(R2.4c) is logged as "chooses a trump in secret" because the person's view does not
hold its suit. An app words cards, suits and seats its own way by overriding
:meth:`Narrator.card`, :meth:`Narrator.suit` and :attr:`Narrator.names`.
"""

from __future__ import annotations

from typing import assert_never

from dehla_env.actions import MAX_BID, MIN_BID, PASS_ACTION, TRUMP_OFFSET, bid_of, is_bid, is_card, is_trump
from dehla_env.cards import SUIT_LETTERS, card_text, suit_of
from dehla_env.engine import HandSummary, Phase
from dehla_env.render import SUIT_NAMES, SUIT_SYMBOLS, plural, suit_label
from dehla_env.rules import HandScoring, Rules, TrumpMaking
from dehla_env.seats import side_of
from dehla_env.view import PlayerView

MAX_LINES = 400  # older lines are dropped; the page shows one hand's worth


def seat_names(num_players: int, human: int) -> list[str]:
    """Short names by place at the table: play goes to the right (R0.2), so the next
    seat after the person sits on its right and the partner opposite."""
    if num_players == 4:
        by_place = ["You", "Right", "Partner", "Left"]
        return [by_place[(s - human) % 4] for s in range(4)]
    return ["You" if s == human else f"Seat {s}" for s in range(num_players)]


def high_bid(view: PlayerView) -> tuple[int, int] | None:
    """The highest bid so far, ``(seat, action)``, or None (R4.2)."""
    bids = [(s, a) for s, a in view.bids if a != PASS_ACTION]
    return bids[-1] if bids else None


class Narrator:
    """Appends log lines ``(hand number, text)`` as the game moves on."""

    def __init__(self, rules: Rules, human: int) -> None:
        self.rules = rules
        self.human = human
        self.names = seat_names(rules.players, human)
        self.lines: list[tuple[int, str]] = []
        self.hand_no = 0

    def who(self, seat: int) -> str:
        return self.names[seat]

    def card(self, card: int) -> str:
        """``TS`` -> ``10♠``: what a person reads on a card."""
        text = card_text(card)
        return ("10" if text[0] == "T" else text[0]) + SUIT_SYMBOLS[text[1]]

    def suit(self, suit: int) -> str:
        return suit_label(suit, symbols=True)

    def more_dealt(self, after: PlayerView) -> None:
        """The rest of a staged deal was given out (R0.3)."""
        self.say("Eight more cards each are dealt.")

    def side_name(self, side: int) -> str:
        """A side as the subject of a sentence ("We win"); :meth:`side_object` after a verb."""
        return "We" if side == side_of(self.human) else "They"

    def side_object(self, side: int) -> str:
        return "us" if side == side_of(self.human) else "them"

    def say(self, text: str) -> None:
        self.lines.append((self.hand_no, text))
        del self.lines[:-MAX_LINES]

    def after_deal(self, view: PlayerView, hand_no: int) -> None:
        self.hand_no = hand_no
        dealer = self.who(view.dealer)
        deals = "deal" if view.dealer == self.human else "deals"
        if view.phase == Phase.BID:
            nxt = f"{self.who(view.to_act)} {'bid' if view.to_act == self.human else 'bids'} first"
        elif view.phase == Phase.TRUMP:
            nxt = f"{self.who(view.to_act)} {'name' if view.to_act == self.human else 'names'} trump"
        else:
            nxt = f"{self.who(view.leader)} {'lead' if view.leader == self.human else 'leads'}"
        self.say(f"Hand {hand_no}: {dealer} {deals}; {nxt}.")

    def after_draw(self, before: PlayerView, after: PlayerView) -> None:
        card = after.draw_card
        self.say(
            f"Nobody was void in five tricks: {self.card(card)} is drawn, {self.suit(suit_of(card))} is trump (R1.4)."
        )
        if before.cards_undealt and not after.cards_undealt:
            self.more_dealt(after)

    def after_move(
        self, seat: int, action: int, before: PlayerView, after: PlayerView, summary: HandSummary | None
    ) -> None:
        who = self.who(seat)
        if is_card(action):
            self.say(f"{who} {'play' if seat == self.human else 'plays'} {self.card(action)}.")
            if before.trump_maker < 0 and after.trump_maker == seat and after.trump_in_force:
                self.say(f"{who} could not follow: {self.suit(after.trump)} is trump now.")
        elif is_trump(action):
            self._trump(seat, action, before, after)
        elif action == PASS_ACTION:
            self.say(f"{who} {'pass' if seat == self.human else 'passes'}.")
        elif is_bid(action):
            tricks, suit = bid_of(action)
            self.say(f"{who} {'bid' if seat == self.human else 'bids'} {tricks}{self.suit(suit)}.")
        if before.phase == Phase.BID and after.phase != Phase.BID:
            self._bidding_over(after)
        if (
            self.rules.trump_making is TrumpMaking.CLOSED
            and not before.trump_in_force
            and after.trump_in_force
            and not is_trump(action)
        ):
            trump = self.suit(after.trump)
            self.say(f"{self.who(after.trump_maker)} cannot follow again: the closed trump is {trump}.")
        if len(after.history) > len(before.history):
            self._trick_done(before, after)
        if before.cards_undealt and not after.cards_undealt:
            self.more_dealt(after)
        if summary is not None:
            self._hand_done(after, summary)

    def your_turn(self, view: PlayerView) -> str:
        """What the person is asked to do now, with the rule behind the choice."""
        rules = self.rules
        if view.phase == Phase.BID:
            high = high_bid(view)
            high_text = (
                f"{bid_of(high[1])[0]}{self.suit(bid_of(high[1])[1])} by {self.who(high[0])}" if high else "none yet"
            )
            return f"Your bid: {MIN_BID} to {MAX_BID} tricks with a trump suit, or pass. Highest so far: {high_text}."
        if view.phase == Phase.TRUMP:
            match rules.trump_making:  # the engine asks for trump at these moments only
                case TrumpMaking.CLOSED:
                    return (
                        "You cannot follow suit: choose a trump in secret; "
                        "it is revealed the next time you cannot follow (R2.4c)."
                    )
                case TrumpMaking.NAMED:
                    return "You cannot follow suit: name the trump suit, then play any card (R2.4d)."
                case TrumpMaking.BIDDING:
                    return "Everyone passed: you must take 7 tricks. Name the trump suit (R4.2)."
                case TrumpMaking.OPEN:
                    return "Name the trump suit for this hand (R2.4b)."
                case TrumpMaking.CHOSEN | TrumpMaking.FIRST_VOID:  # first-void makes no trump decision (R1.4)
                    return "Name the trump suit from your first five cards."
                case _:
                    assert_never(rules.trump_making)
        if view.led_suit < 0:
            return "Your lead: play any card."
        led = f"{self.suit(view.led_suit)} {SUIT_NAMES[SUIT_LETTERS[view.led_suit]]}"
        if any(suit_of(a) == view.led_suit for a in view.legal_actions):
            return f"Follow suit: {led} led."
        if rules.trump_making is TrumpMaking.FIRST_VOID and view.trump_maker < 0:
            return f"You have no {led}: any card you play now makes its suit trump (R1.4)."
        return f"You have no {led}: play any card."

    def _trump(self, seat: int, action: int, before: PlayerView, after: PlayerView) -> None:
        who = self.who(seat)
        if self.rules.trump_making is TrumpMaking.CLOSED and before.trick:
            if seat == self.human:
                self.say(f"You choose {self.suit(after.trump)} as the closed trump, in secret (R2.4c).")
            else:
                self.say(f"{who} cannot follow and chooses a trump in secret (R2.4c).")
            return
        suit = self.suit(action - TRUMP_OFFSET)
        verb = "name" if seat == self.human else "names"
        if before.trick:
            self.say(f"{who} cannot follow and {verb} {suit} trump.")
        else:
            self.say(f"{who} {verb} {suit} trump.")

    def _bidding_over(self, after: PlayerView) -> None:
        if after.contract is not None:
            seat, tricks, suit = after.contract
            lead = "lead" if seat == self.human else "leads"
            who = self.who(seat)
            self.say(f"Contract: {tricks}{self.suit(suit)} by {who} ({tricks} tricks to make); {who} {lead}.")
        else:
            self.say(f"Everyone passed: {self.who(after.to_act)} must take 7 tricks and names trump (R4.2).")

    def _trick_done(self, before: PlayerView, after: PlayerView) -> None:
        _leader, cards, winner = after.history[-1]
        number = len(after.history)
        text = f"Trick {number} to {self.who(winner)}"
        tens_here = sum(1 for c in cards if card_text(c)[0] == "T")
        if self.rules.has_middle:
            if len(after.takes) > len(before.takes):
                _t, taker, count = after.takes[-1]
                side = side_of(taker)
                gained = after.tens[side] - before.tens[side]
                text += f": {self.who(taker)} {'take' if taker == self.human else 'takes'} the middle, "
                text += f"{plural(count, 'card')}, {plural(gained, 'ten')}"
            else:
                text += f"; the middle has {plural(len(after.middle), 'card')}, {plural(after.middle_tens, 'ten')}"
        elif self.rules.tens_scoring and tens_here:
            text += f" (+{plural(tens_here, 'ten')})"
        self.say(text + ".")

    def _hand_done(self, after: PlayerView, summary: HandSummary) -> None:
        first = 0 if self.human < 0 else side_of(self.human)
        us, them = first, 1 - first
        parts = [f"tricks {after.tricks[us]}-{after.tricks[them]}"]
        if self.rules.tens_scoring:
            parts.append(f"tens {after.tens[us]}-{after.tens[them]}")
        sides = f"{self.side_object(us)}{'-' if self.human >= 0 else ' against '}{self.side_object(them)}"
        text = f"Hand over, {sides}: {', '.join(parts)}. "
        w = summary.hand_winner
        why = hand_reason(self.rules, after, w)
        text += f"No winner: {why}." if w is None else f"{self.side_name(w)} win the hand: {why}."
        if summary.kot is not None:
            text += f" A kot for {self.side_object(summary.kot)}!"
        self.say(text)
        winner = after.match_winner
        if winner is not None:
            who = "" if winner == "draw" else self.side_name(int(winner)).lower()
            self.say("The match is drawn." if winner == "draw" else f"Match over: {who} win.")


def hand_reason(rules: Rules, view: PlayerView, winner: int | None) -> str:
    """Why a finished hand went to ``winner`` (a side; None: no winner), naming the rule,
    so that a 2-2 split of tens is not read as a hand won on tricks."""
    tens, tricks = view.tens, view.tricks
    total = 4 * rules.packs
    match rules.hand_scoring:
        case HandScoring.DEHLA_TENS | HandScoring.TENS:
            rule = "R1.6" if rules.hand_scoring is HandScoring.DEHLA_TENS else "R2.5"
            say = (lambda n: ("none", "one", "two", "three", "four")[n]) if total == 4 else str
            if winner is None or 2 * tens[winner] == total:
                after = "no winner" if winner is None else "the side that did not deal wins"
                return f"{say(total // 2)} tens each, and {after} ({rule})"
            if tens[winner] == total:
                return f"all {say(total)} tens ({rule})"
            return f"{say(tens[winner])} of the {say(total)} tens ({rule})"
        case HandScoring.TRICKS:
            return "as many tricks each (R2.5)" if winner is None else f"more tricks, {tricks[winner]} (R2.5)"
        case HandScoring.DOUBLE_SAR:
            return "as many points each (R2.5)" if winner is None else "more points: a ten 2, any other card 1 (R2.5)"
        case HandScoring.FIRST_TO_SEVEN:
            return f"first to {plural(rules.round_tricks or 7, 'trick')} (R3.3)"
        case HandScoring.CONTRACT:
            if view.contract is None:
                return "no contract (R4.4)"
            bidder, bid, _suit = view.contract
            took = tricks[side_of(bidder)]
            return f"the bid of {bid} {'was made' if took >= bid else 'failed'}, {plural(took, 'trick')} (R4.4)"
        case _:
            assert_never(rules.hand_scoring)


__all__ = ["Narrator", "hand_reason", "high_bid", "seat_names"]
