"""PlayerView: exactly what one seat may know (R0.6). Bots and encoders read only this.

What a seat sees: its own hand; every card played and by whom; who won each trick;
the middle (R1.5: which cards, how many, how many tens, and who threatens to take it);
every bid and declaration; the scores. What it does not see: other hands, the cards not
yet dealt, and a closed trump (R2.4c) that it did not choose and that has not been
revealed. :func:`view_of` is the one place that decides this, so it is the one place
to audit for leaks; ``tests/test_observation.py`` re-deals the hidden cards and checks
that the observation built from it does not change.

Seats in a view are absolute (0..n-1); ``seat`` says whose view it is. Encoders turn it
seat-relative.
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import TRUMP_OFFSET
from .engine import CHANCE, TERMINAL, MatchState, MatchWinner, Phase
from .engine.hand import FIRST_STAGE_CARDS, HandState
from .rules import Rules, TrumpMaking
from .seats import side_of

_DEAL, _BID = Phase.DEAL, Phase.BID  # as globals: see engine/hand.py


class PlayerView(NamedTuple):
    """What ``seat`` knows at one moment. Cards are R0.1 ids; -1 means none/unknown.

    Immutable (a named tuple: building one is a single tuple allocation, which matters
    because every bot decision and every view-fed encoding starts with one)."""

    rules: Rules
    seat: int
    num_players: int
    dealer: int
    phase: Phase
    to_act: int  # seat to act, CHANCE (-1) or TERMINAL (-2)
    hand: tuple[int, ...]  # own cards, ascending (copies repeated with three packs)
    hand_mask: int  # own card ids as a bit mask
    hand_counts: tuple[int, ...]  # cards held by each seat (public)
    cards_undealt: int  # cards of the staged deal not given out yet (R0.3)
    leader: int  # seat that led (or will lead) the current trick
    led_suit: int  # -1 before the lead
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick in progress, in order
    trick_winner: int  # seat winning the trick in progress with the trump in force, or -1
    history: tuple[tuple[int, tuple[int, ...], int], ...]  # completed tricks: (leader, cards, winner)
    trump: int  # the trump suit as this seat knows it, -1 if none or unknown (R2.4c)
    trump_in_force: bool  # whether ``trump`` decides tricks now (False for an unrevealed closed trump)
    trump_maker: int  # who made/named/chose it (public, even for a closed trump), -1 if none
    trump_hidden: bool  # a closed trump was chosen that this seat cannot see (R2.4c)
    draw_card: int  # R1.4: the card drawn, -1 if none
    middle: tuple[int, ...]  # R1.5: cards in the middle, in the order they went in
    middle_tens: int
    last_winner: int  # R1.5: seat that won the last trick since the last take (the pair threat), -1
    takes: tuple[tuple[int, int, int], ...]  # R1.5: (trick number, seat, cards taken)
    tricks: tuple[int, int]  # tricks won per side
    tens: tuple[int, int]  # tens taken or captured per side
    won_cards: tuple[tuple[int, ...], tuple[int, ...]]  # cards taken or captured per side
    bids: tuple[tuple[int, int], ...]  # R4.2: (seat, action) in order
    contract: tuple[int, int, int] | None  # (seat, tricks, suit) once the bidding is over
    voids: tuple[tuple[bool, ...], ...]  # voids[seat][suit]: shown void by not following (R0.4)
    # match state
    kots: tuple[int, int]
    points: tuple[int, int]
    streak: tuple[int, int] | None
    hands_completed: int
    match_winner: MatchWinner | None
    legal_actions: tuple[int, ...]  # this seat's legal actions if it is to act, else ()

    @property
    def side(self) -> int:
        return side_of(self.seat)

    @property
    def num_tricks_done(self) -> int:
        return len(self.history)

    @property
    def played_mask(self) -> int:
        """Card ids played this hand (completed tricks and the trick in progress) as a
        bit mask; with three packs (R2.8) a bit says only that some copy was played."""
        m = 0
        for _leader, cards, _winner in self.history:
            for c in cards:
                m |= 1 << c
        for _seat, c in self.trick:
            m |= 1 << c
        return m

    def played_by(self, seat: int) -> list[int]:
        """Every card ``seat`` has played this hand, in order."""
        out = []
        for leader, cards, _ in self.history:
            out.append(cards[(seat - leader) % self.num_players])
        for s, c in self.trick:
            if s == seat:
                out.append(c)
        return out


#: ``_VOID_ROWS[bits]``: a seat's voids (``HandState.voids``, bit s: suit s) as four bools
_VOID_ROWS: tuple[tuple[bool, ...], ...] = tuple(tuple(bool(b >> s & 1) for s in range(4)) for b in range(16))


#: The fields of :class:`~dehla_env.engine.hand.HandState` that every seat sees (R0.6:
#: every card played and by whom, who won each trick, the middle, all bids and
#: declarations, the scores). The rest (``hands``, ``extra``, ``deck``, ``trump_suit`` while
#: hidden, ``events``) is private or hidden: a seat sees its own hand through
#: :func:`own_hand_mask` / :func:`own_hand_layers` / :func:`own_cards`, the trump through :func:`visible_trump`, the
#: contract through :func:`visible_contract`. Encoders read a hand through these only
#: (``tests/test_observation.py`` checks it with a guard that refuses any other field).
PUBLIC_FIELDS = frozenset(
    (
        "rules",
        "n",
        "dealer",
        "phase",
        "to_act",
        "hand_counts",
        "stage",  # how much of the deal is given out (R0.3)
        "leader",
        "trick_seats",
        "trick_cards",
        "led",
        "trump",  # the trump in force: a closed one is in force only once revealed
        "trump_maker",  # who made it is public, even for a closed trump (R2.4c)
        "trump_hidden",  # that a secret choice was made is public
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
        "played_mask",
        "voids",
    )
)


def own_hand_mask(hand: HandState, seat: int) -> int:
    """The card ids ``seat`` holds (at least once), as a bit mask: its own cards only."""
    return hand.hands[seat]


def own_hand_layers(hand: HandState, seat: int) -> tuple[int, ...]:
    """``seat``'s cards as bit masks: held at least once, then twice, three times (R2.8)."""
    extra = hand.extra
    return (hand.hands[seat],) if extra is None else (hand.hands[seat], *extra[seat])


def own_cards(hand: HandState, seat: int) -> list[int]:
    """The cards ``seat`` holds, ascending, copies repeated (R2.8)."""
    return hand.hand_cards(seat)


def visible_trump(hand: HandState, seat: int) -> tuple[int, bool, bool]:
    """(trump suit as ``seat`` knows it or -1, whether it is in force, whether a trump
    was chosen that ``seat`` may not see): R2.4c hides a closed trump from everybody but
    its maker until it is revealed."""
    if hand.trump_suit < 0:
        return -1, False, False
    if hand.trump_hidden:
        if seat == hand.trump_maker:
            return hand.trump_suit, False, False
        return -1, False, True
    return hand.trump_suit, hand.trump >= 0, False


def visible_contract(hand: HandState) -> tuple[int, int, int] | None:
    """The contract (seat, tricks, suit), reported once the bidding is over (R4.2, R6)."""
    return hand.contract if hand.phase != _DEAL and hand.phase != _BID else None


def cards_undealt(hand: HandState) -> int:
    """Cards of the staged deal not given out yet (R0.3): public, the count only. The
    deal's stage says it: nothing dealt, the first five each (positions 0..19), all."""
    stage = hand.stage
    if stage == 2:
        return 0
    return hand.rules.deck_size - (FIRST_STAGE_CARDS if stage == 1 else 0)


def view_of(match: MatchState, seat: int) -> PlayerView:
    """Build ``seat``'s view of the match's current hand (R0.6)."""
    hand = match.hand
    n = hand.n
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat} with {n} players")
    trump, in_force, hidden = visible_trump(hand, seat)
    to_act = match.current_player()
    legal = tuple(match.legal_actions()) if to_act == seat else ()
    return PlayerView(
        rules=match.rules,
        seat=seat,
        num_players=n,
        dealer=hand.dealer,
        phase=hand.phase,
        to_act=to_act,
        hand=tuple(own_cards(hand, seat)),
        hand_mask=own_hand_mask(hand, seat),
        hand_counts=tuple(hand.hand_counts),
        cards_undealt=cards_undealt(hand),
        leader=hand.leader,
        led_suit=hand.led,
        trick=tuple(zip(hand.trick_seats, hand.trick_cards)),
        trick_winner=hand.current_winner(),
        history=tuple(hand.history),
        trump=trump,
        trump_in_force=in_force,
        trump_maker=hand.trump_maker,
        trump_hidden=hidden,
        draw_card=hand.draw_card,
        middle=tuple(hand.middle),
        middle_tens=hand.middle_tens,
        last_winner=hand.last_winner,
        takes=tuple(hand.takes),
        tricks=(hand.tricks[0], hand.tricks[1]),
        tens=(hand.tens[0], hand.tens[1]),
        won_cards=(tuple(hand.won_cards[0]), tuple(hand.won_cards[1])),
        bids=tuple(hand.bids),
        contract=visible_contract(hand),
        voids=tuple(_VOID_ROWS[b] for b in hand.voids),
        kots=(match.kots[0], match.kots[1]),
        points=(match.points[0], match.points[1]),
        streak=match.streak,
        hands_completed=match.hands_completed,
        match_winner=match.winner,
        legal_actions=legal,
    )


def public_events(match: MatchState, seat: int) -> list[tuple[int, int]]:
    """The hand's decision log as ``seat`` may see it: a closed trump choice by another
    seat appears as ``(maker, -1)`` until revealed (R2.4c). Chance events are
    ``(CHANCE, card)`` for the R1.4 draw and ``(CHANCE, -1)`` for the deal."""
    hand = match.hand
    out = []
    hidden_choice_seen = False
    for who, what in hand.events:
        if (
            hand.rules.trump_making is TrumpMaking.CLOSED
            and who == hand.trump_maker
            and who != seat
            and TRUMP_OFFSET <= what < TRUMP_OFFSET + 4
            and not hidden_choice_seen
        ):
            hidden_choice_seen = True
            out.append((who, -1))  # the secret choice: everyone sees it made, not its suit
            continue
        out.append((who, what))
    return out


__all__ = [
    "CHANCE",
    "PUBLIC_FIELDS",
    "TERMINAL",
    "PlayerView",
    "cards_undealt",
    "own_cards",
    "own_hand_layers",
    "own_hand_mask",
    "public_events",
    "view_of",
    "visible_contract",
    "visible_trump",
]
