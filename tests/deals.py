"""Compact text forms for writing deals and move lists by hand (tests, notebooks).

A deal is written as each seat's cards; :func:`deck_from_hands` turns that into the
deck order that deals them (R0.3), so a test reads like the hand it sets up::

    deck = deck_from_hands(dealer=3, hands=[
        "AS KS QS JS TS | AH KH QH JH TH 9H 8H 7H",   # seat 0: first five | other eight
        ...
    ])

With a staged deal (R1.3, R3.1, R4.1) a ``|`` separates the first five cards from the
other eight; without one, a seat's first five cards listed are its first five. Seats
given as ``None`` or with fewer cards are filled with the unused cards, in id order.
"""

from __future__ import annotations

from collections.abc import Sequence

from dehla_env.cards import NUM_CARDS, parse_card
from dehla_env.engine import MatchState
from dehla_env.records import apply_move_text


def deck_from_hands(dealer: int, hands: Sequence[str | None], packs: int = 1) -> list[int]:
    """The deck (card ids in dealing order) that gives each seat the cards written."""
    n = len(hands)
    size = NUM_CARDS * packs
    per_seat = size // n
    first_stage = 5 if n == 4 else per_seat
    wanted: list[list[int]] = []
    remaining = [packs] * NUM_CARDS
    for text in hands:
        cards = []
        for part in (text or "").replace("|", " ").split():
            c = parse_card(part)
            if remaining[c] == 0:
                raise ValueError(f"{part} is written more often than the pack(s) hold")
            remaining[c] -= 1
            cards.append(c)
        if len(cards) > per_seat:
            raise ValueError(f"a seat holds {per_seat} cards, not {len(cards)}")
        wanted.append(cards)
    spare = [c for c in range(NUM_CARDS) for _ in range(remaining[c])]
    for cards in wanted:
        while len(cards) < per_seat:
            cards.append(spare.pop(0))
    deck = [0] * size
    for seat, cards in enumerate(wanted):
        offset = (seat - dealer - 1) % n
        for j, c in enumerate(cards):
            if j < first_stage:
                pos = j * n + offset
            else:
                pos = first_stage * n + (j - first_stage) * n + offset
            deck[pos] = c
    return deck


def play_moves(match: MatchState, moves: str | Sequence[str]) -> None:
    """Apply R6 move texts (a space-separated string or a list) to ``match``."""
    for text in moves.split() if isinstance(moves, str) else moves:
        apply_move_text(match, text)
