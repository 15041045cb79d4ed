"""Text rendering of a hand for people (the terminal game, ``env.render``).

No rules logic lives here: it only formats what the engine or a view holds.
"""

from __future__ import annotations

from .actions import action_text
from .cards import SUIT_LETTERS, card_text, suit_of
from .engine import MatchState, Phase
from .seats import side_of
from .view import view_of

_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def hand_by_suit(cards: list[int] | tuple[int, ...]) -> str:
    """``S: A K T  H: 9 4  D: -  C: Q 2`` (high cards first, spades first)."""
    parts = []
    for s in (3, 2, 1, 0):
        ranks = [card_text(c)[0] for c in sorted((c for c in cards if suit_of(c) == s), reverse=True)]
        parts.append(f"{SUIT_LETTERS[s]}: {' '.join(ranks) if ranks else '-'}")
    return "  ".join(parts)


def render_match(match: MatchState, seat: int | None = None, symbols: bool = False) -> str:
    """A multi-line picture of the current hand.

    ``seat=None`` shows every hand (an omniscient replay view); a seat number shows only
    what that seat may know (R0.6): its own hand and the others' card counts.
    """
    hand = match.hand
    rules = match.rules
    n = hand.n
    view = view_of(match, seat if seat is not None else 0)
    lines = [f"{rules}  hand {match.hands_completed + (0 if hand.complete else 1)}  dealer: seat {hand.dealer}"]
    if seat is None:
        trump = SUIT_LETTERS[hand.trump_suit] if hand.trump_suit >= 0 else "-"
        if hand.trump_hidden:
            trump += " (closed, not revealed)"
    elif view.trump >= 0:
        trump = SUIT_LETTERS[view.trump] + ("" if view.trump_in_force else " (closed, your secret)")
    else:
        trump = "hidden (closed)" if view.trump_hidden else "-"
    maker = f" by seat {hand.trump_maker}" if hand.trump_maker >= 0 else (" (drawn)" if hand.draw_card >= 0 else "")
    lines.append(f"trump: {trump}{maker}")
    if hand.contract is not None and hand.phase not in (Phase.BID, Phase.DEAL):
        s, t, su = hand.contract
        lines.append(f"contract: seat {s} bid {t}{SUIT_LETTERS[su]}")
    if hand.bids:
        lines.append("bids: " + ", ".join(f"{s}:{action_text(a)}" for s, a in hand.bids))
    for s in range(n):
        mark = ">" if view.to_act == s else " "
        side = f"side {side_of(s)}"
        if seat is None or s == seat:
            body = hand_by_suit(hand.hand_cards(s))
        else:
            body = f"{hand.hand_counts[s]} cards"
        you = " (you)" if s == seat else ""
        lines.append(f"{mark} seat {s}{you} [{side}]  {body}")
    if hand.trick_cards:
        trick = "  ".join(f"{s}:{card_text(c)}" for s, c in zip(hand.trick_seats, hand.trick_cards))
        lines.append(f"trick {len(hand.trick_winners) + 1}: {trick}   (winning: seat {hand.current_winner()})")
    elif hand.history:
        leader, cards, winner = hand.history[-1]
        last = "  ".join(f"{(leader + i) % n}:{card_text(c)}" for i, c in enumerate(cards))
        lines.append(f"last trick {len(hand.history)}: {last}   won by seat {winner}")
    if rules.has_middle:
        threat = f", seat {hand.last_winner} takes it with the next trick" if hand.last_winner >= 0 else ""
        lines.append(f"middle: {len(hand.middle)} cards, {hand.middle_tens} tens{threat}")
    lines.append(f"tricks: {hand.tricks[0]}-{hand.tricks[1]}   tens: {hand.tens[0]}-{hand.tens[1]}")
    score = f"kots: {match.kots[0]}-{match.kots[1]}"
    if rules.scores_points:
        score += f"   points: {match.points[0]}-{match.points[1]}"
    if match.streak is not None:
        score += f"   streak: side {match.streak[0]} x{match.streak[1]}"
    lines.append(score)
    if match.winner is not None:
        lines.append(f"match over: winner {match.winner}")
    text = "\n".join(lines)
    if symbols:
        for k, v in _SUIT_SYMBOLS.items():
            text = text.replace(f"{k}: ", f"{v}: ")
    return text


__all__ = ["hand_by_suit", "render_match"]
