"""The flat action layout shared by every ruleset (one ``Discrete(NUM_ACTIONS)``).

=========  ============================  ==========================================
offset     actions                       meaning
=========  ============================  ==========================================
0..51      ``CARD_OFFSET + id``          play card ``id`` (R0.1 ids)
52..55     ``TRUMP_OFFSET + s``          make suit ``s`` (C D H S) trump: R1.4 chosen,
                                         R2.4b open, R2.4c closed (secret), R2.4d
                                         named, R3.1, R4.2 after four passes
56         ``PASS_ACTION``               pass in the bidding (R4.2)
57..84     ``BID_OFFSET + 4*(n-7) + s``  bid ``n`` tricks (7..13) in suit ``s`` (R4.2)
=========  ============================  ==========================================

Chance outcomes (the deal, the R1.4 draw) are not actions: they are explicit chance
steps of the engine (``MatchState.apply_deal`` / ``apply_draw``).
"""

from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS, NUM_RANKS, SUIT_LETTERS, SUIT_MASK_BITS, card_text, parse_card, parse_suit

CARD_OFFSET = 0
TRUMP_OFFSET = NUM_CARDS  # 52
PASS_ACTION = TRUMP_OFFSET + 4  # 56
BID_OFFSET = PASS_ACTION + 1  # 57
MIN_BID = 7
MAX_BID = 13
NUM_BID_LEVELS = MAX_BID - MIN_BID + 1  # 7
NUM_ACTIONS = BID_OFFSET + 4 * NUM_BID_LEVELS  # 85


# _RANK_FLAGS[p]: 13 bytes, byte r is 1 where bit r of the rank pattern p is set
_RANK_FLAGS = tuple(bytes((p >> r) & 1 for r in range(NUM_RANKS)) for p in range(1 << NUM_RANKS))
_NON_CARD_FLAGS = bytes(NUM_ACTIONS - NUM_CARDS)
MASK_DTYPE = np.dtype(np.int8)  # a dtype object: np.frombuffer resolves ``np.int8`` anew each call


def card_mask(cards: int) -> np.ndarray:
    """The action mask (int8, ``NUM_ACTIONS``) whose legal actions are the card ids of
    the 52-bit mask ``cards``: four suit patterns looked up, no loop over cards."""
    f = _RANK_FLAGS
    m = SUIT_MASK_BITS
    flags = b"".join((f[cards & m], f[(cards >> 13) & m], f[(cards >> 26) & m], f[(cards >> 39) & m], _NON_CARD_FLAGS))
    return np.frombuffer(flags, MASK_DTYPE)


def trump_action(suit: int) -> int:
    return TRUMP_OFFSET + suit


def bid_action(tricks: int, suit: int) -> int:
    if not MIN_BID <= tricks <= MAX_BID or not 0 <= suit < 4:
        raise ValueError(f"no bid of {tricks} in suit {suit}")
    return BID_OFFSET + 4 * (tricks - MIN_BID) + suit


def is_card(action: int) -> bool:
    return 0 <= action < NUM_CARDS


def is_trump(action: int) -> bool:
    return TRUMP_OFFSET <= action < PASS_ACTION


def is_bid(action: int) -> bool:
    return BID_OFFSET <= action < NUM_ACTIONS


def bid_of(action: int) -> tuple[int, int]:
    """``(tricks, suit)`` of a bid action."""
    k = action - BID_OFFSET
    return MIN_BID + k // 4, k % 4


def action_text(action: int) -> str:
    """The R6 text of an action: ``QH``, ``trump:S``, ``pass``, ``bid:8H``."""
    if 0 <= action < NUM_CARDS:
        return card_text(action)
    if TRUMP_OFFSET <= action < PASS_ACTION:
        return "trump:" + SUIT_LETTERS[action - TRUMP_OFFSET]
    if action == PASS_ACTION:
        return "pass"
    if BID_OFFSET <= action < NUM_ACTIONS:
        n, s = bid_of(action)
        return f"bid:{n}{SUIT_LETTERS[s]}"
    raise ValueError(f"no action {action!r}")


def parse_action(text: str) -> int:
    """Strict R6 move text to an action id; raises ``ValueError`` for anything else.

    ``draw:XX`` is a chance outcome, not an action: see :func:`parse_draw`.
    """
    if text == "pass":
        return PASS_ACTION
    if text.startswith("trump:"):
        return TRUMP_OFFSET + parse_suit(text[6:])
    if text.startswith("bid:"):
        body = text[4:]
        num, suit = body[:-1], body[-1:]
        if not num.isdigit() or str(int(num)) != num or not MIN_BID <= int(num) <= MAX_BID:
            raise ValueError(f"malformed bid {text!r}: a bid is bid: + 7..13 + one of CDHS")
        return bid_action(int(num), parse_suit(suit))
    return parse_card(text)


def parse_draw(text: str) -> int:
    """``draw:KD`` -> the card id drawn (R1.4)."""
    if not text.startswith("draw:"):
        raise ValueError(f"not a draw: {text!r}")
    return parse_card(text[5:])
