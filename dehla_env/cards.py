"""Cards, suits and ranks (R0.1).

Cards are plain ``int`` ids on every hot path: ``id = suit * 13 + rank`` with suits
``C D H S`` = 0..3 and ranks ``2..A`` = 0..12, so ``2C`` = 0, ``TS`` = 47, ``AS`` = 51.
Within one suit a higher id is a higher card, which is what trick resolution relies on.
A set of cards (a hand, the cards played) is an ``int`` bit mask over those ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

SUIT_LETTERS = "CDHS"
RANK_LETTERS = "23456789TJQKA"
NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 52
TEN_RANK = 8  # R0.5: the ten, a "dehla"

SUIT_MASK_BITS = (1 << NUM_RANKS) - 1
#: Bit mask of every card of suit ``s``.
SUIT_MASKS: tuple[int, ...] = tuple(SUIT_MASK_BITS << (NUM_RANKS * s) for s in range(NUM_SUITS))
FULL_PACK_MASK = (1 << NUM_CARDS) - 1
#: The four tens (R0.5).
TEN_IDS: tuple[int, ...] = tuple(s * NUM_RANKS + TEN_RANK for s in range(NUM_SUITS))
TENS_MASK = sum(1 << c for c in TEN_IDS)


#: one card id, or an array of them (the helpers below serve a hand and a batch alike)
CardIds = TypeVar("CardIds", int, "np.ndarray")


def card_id(suit: int, rank: int) -> int:
    return suit * NUM_RANKS + rank


def suit_of(card: CardIds) -> CardIds:
    """The suit of a card id (0 clubs .. 3 spades); an array of ids gives an array."""
    return card // NUM_RANKS


def rank_of(card: CardIds) -> CardIds:
    """The rank of a card id (0 the two .. 12 the ace, :data:`TEN_RANK` the ten); an
    array of ids gives an array."""
    return card % NUM_RANKS


def card_text(card: int) -> str:
    """``47 -> "TS"``."""
    return RANK_LETTERS[rank_of(card)] + SUIT_LETTERS[suit_of(card)]


def parse_card(text: str) -> int:
    """Strict R6 card text: two characters, upper case, ``T`` for ten.

    Raises ``ValueError`` for anything else (``10S``, ``ts``, ``XS``).
    """
    if len(text) != 2 or text[0] not in RANK_LETTERS or text[1] not in SUIT_LETTERS:
        raise ValueError(f"unknown card text {text!r}")
    return card_id(SUIT_LETTERS.index(text[1]), RANK_LETTERS.index(text[0]))


def parse_suit(text: str) -> int:
    """Strict suit letter ``C D H S``."""
    if len(text) != 1 or text not in SUIT_LETTERS:
        raise ValueError(f"unknown suit text {text!r}")
    return SUIT_LETTERS.index(text)


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def _ids_of_pattern(base: int, pattern: int) -> tuple[int, ...]:
    return tuple(base + r for r in range(NUM_RANKS) if pattern >> r & 1)


# _SUIT_PATTERN_IDS[s][p]: the card ids of suit s whose rank bits are p, ascending.
# Turning a hand mask into a list of cards is on every decision's path; a table lookup
# per suit beats walking the bits.
_SUIT_PATTERN_IDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ids_of_pattern(s * NUM_RANKS, p) for p in range(1 << NUM_RANKS)) for s in range(NUM_SUITS)
)


def cards_in(mask: int) -> list[int]:
    """The card ids in a 52-bit mask, ascending."""
    t = _SUIT_PATTERN_IDS
    return [
        *t[0][mask & SUIT_MASK_BITS],
        *t[1][(mask >> 13) & SUIT_MASK_BITS],
        *t[2][(mask >> 26) & SUIT_MASK_BITS],
        *t[3][(mask >> 39) & SUIT_MASK_BITS],
    ]


def cards_of_suit(mask: int, suit: int) -> tuple[int, ...]:
    """The card ids of one suit in a mask, ascending."""
    return _SUIT_PATTERN_IDS[suit][(mask >> (NUM_RANKS * suit)) & SUIT_MASK_BITS]


def shuffled_deck(rng: np.random.Generator, packs: int = 1) -> list[int]:
    """The one shuffle (R0.3): a uniformly random order of the pack(s), as card ids.

    Every deal drawn anywhere (the engine's chance step, the batched engine, the arena,
    the trainer) comes from here, so one generator state gives one deck everywhere.
    With three packs (R2.8) each id appears three times."""
    return (rng.permutation(NUM_CARDS * packs) % NUM_CARDS).tolist()
