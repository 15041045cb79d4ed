"""The one trick rule (R0.4): which card wins a trick.

The highest trump in the trick wins; with none, the highest card of the led suit.
Between equal cards (three packs, R2.8) the one played first wins: a later card must be
strictly higher. :func:`trick_winner` is the rule, written once as a loop over the
trick with no call per card compared (the engine runs it at every trick), :func:`beats`
asks it about one card against the card winning so far, and :func:`trick_keys` gives the
equivalent numeric key per card for array code (the batched engine, batched bots),
:func:`trick_key` the same key for one card (the batched engine's compiled card kernel). The
fast copies kept inside hot loops (the exact solver's, the policy network's card
features) are held to these by ``tests/test_tricks.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import NUM_RANKS, rank_of, suit_of

#: :func:`trick_keys`: a trump ranks above every card of the led suit, which ranks above
#: the rest; within each group the card's rank decides
TRUMP_KEY = 2 * 16
LED_KEY = 16


def trick_winner(cards: Sequence[int], trump: int) -> int:
    """Index of the winning card of a trick (or of the trick so far), in play order;
    ``trump`` is the suit in force, -1 for none. A card beats the best so far if it is
    of the same suit and higher, or a trump over another suit (R0.4)."""
    best_i = 0
    best = cards[0]
    best_suit = best // NUM_RANKS  # suit_of, inline: no call per card compared
    for i in range(1, len(cards)):
        card = cards[i]
        suit = card // NUM_RANKS
        if card > best if suit == best_suit else suit == trump:
            best_i, best, best_suit = i, card, suit
    return best_i


def beats(card: int, best: int, trump: int) -> bool:
    """Does ``card``, played after ``best`` (the card winning the trick so far), beat it?
    ``trump`` is the suit in force, -1 for none."""
    return trick_winner((best, card), trump) == 1


def trick_key(card: int, led: int, trump: int) -> int:
    """:func:`trick_keys` for one card: plain scalar Python that numba compiles as it is
    (the batched engine's card kernel calls it; ``tests/test_tricks.py`` holds the two to
    each other and to :func:`trick_winner`)."""
    suit = card // NUM_RANKS
    if suit == trump:
        return TRUMP_KEY + card - suit * NUM_RANKS
    if suit == led:
        return LED_KEY + card - suit * NUM_RANKS
    return 0


def trick_keys(cards: np.ndarray, led: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Per card a key whose first maximum in play order is the winner (as
    :func:`trick_winner`): ``TRUMP_KEY + rank`` for a trump, ``LED_KEY + rank`` for the led
    suit, 0 otherwise, -1 where there is no card (``cards`` < 0). ``led`` and ``trump``
    broadcast against ``cards`` (-1: none)."""
    suit = suit_of(cards)
    rank = rank_of(cards)
    key = np.where(suit == trump, TRUMP_KEY + rank, np.where(suit == led, LED_KEY + rank, 0))
    return np.where(cards < 0, -1, key)
