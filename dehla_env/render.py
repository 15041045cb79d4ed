"""Text for people: moves, hands, and the table as one seat sees it (the terminal game,
``env.render``, the demo).

No rules logic lives here: it only formats what a view holds. Scores are written
``side 0 : side 1`` and every score row says so; rows a ruleset does not score are left
out, decided by the typed facts of :class:`~dehla_env.rules.Rules` (tens only where
``tens_scoring``, kots only where they decide the match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .actions import action_text
from .cards import RANK_LETTERS, SUIT_LETTERS, rank_of, suit_of
from .engine import MatchState, Phase
from .rules import MatchScoring, Rules
from .seats import side_of
from .view import PlayerView, view_of

#: suit symbols (``symbols=True``, and the web page), by suit letter
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: suit names in a sentence, by suit letter
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
#: the order suits are shown in: spades, hearts, diamonds, clubs
SUIT_ORDER = (3, 2, 1, 0)


def plural(count: int, word: str) -> str:
    """``1 ten``, ``2 tens``, ``0 cards``: every count shown to a person goes through here."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def suit_label(suit: int, symbols: bool = False) -> str:
    letter = SUIT_LETTERS[suit]
    return SUIT_SYMBOLS[letter] if symbols else letter


def move_label(action: int, symbols: bool = False) -> str:
    """R6 move text (``TS``, ``trump:S``, ``bid:8H``, ``pass``), or with suit symbols
    (``T♠``, ``trump:♠``, ``bid:8♥``): the suit is always the text's last letter."""
    text = action_text(action)
    return text[:-1] + SUIT_SYMBOLS[text[-1]] if symbols and text[-1] in SUIT_SYMBOLS else text


def hand_text(cards: Sequence[int], symbols: bool = False) -> str:
    """``S: A K T  H: 9 4  D: -  C: Q 2`` in :data:`SUIT_ORDER`, high cards first."""
    parts = []
    for s in SUIT_ORDER:
        ranks = [RANK_LETTERS[rank_of(c)] for c in sorted((c for c in cards if suit_of(c) == s), reverse=True)]
        parts.append(f"{suit_label(s, symbols)}: {' '.join(ranks) if ranks else '-'}")
    return "  ".join(parts)


def score_pair(pair: Sequence[int]) -> str:
    """``3 : 2``, ``0 : -26``: a spaced colon, so a negative score cannot read as a dash."""
    return f"{pair[0]} : {pair[1]}"


def shows_kots(rules: Rules) -> bool:
    """Whether the table has a kots row: kots must exist and decide the match (R1.9, R2.6).
    Coat pees has none (R4); in court piece a kot is one more point (R3.4, R3.6), so the
    points row already holds it and a hand's summary announces it."""
    return rules.has_kots and rules.kots_to_win is not None


def relation(seat: int, you: int) -> str:
    """``you``, ``partner`` or ``opponent``: ``seat`` as the person at ``you`` sees it."""
    return "you" if seat == you else "partner" if side_of(seat) == side_of(you) else "opponent"


def seat_label(seat: int, you: int | None) -> str:
    """``seat 2 (partner)``, ``seat 0 (you)``; ``seat 2`` on nobody's table (``you`` None)."""
    return f"seat {seat}" if you is None else f"seat {seat} ({relation(seat, you)})"


def sides_label(you: int | None) -> str:
    """Which number of a score pair is whose: side 0 first, always, as in the log."""
    mine = -1 if you is None else side_of(you)
    return f"(side 0{' yours' if mine == 0 else ''} : side 1{' yours' if mine == 1 else ''})"


def hand_score_row(view: PlayerView, you: int | None) -> str:
    """``hand (side 0 yours : side 1)  tricks 3 : 2   tens 1 : 0``; tens only where they
    score (R0.5: R1, R2 tens/double-sar), the R3.3 round target where there is one."""
    rules = view.rules
    parts = [f"tricks {score_pair(view.tricks)}"]
    if rules.round_tricks is not None:
        parts[-1] += f" (first to {rules.round_tricks} wins the round)"
    if rules.tens_scoring:
        parts.append(f"tens {score_pair(view.tens)}")
    return f"hand  {sides_label(you)}  " + "   ".join(parts)


def match_score_row(view: PlayerView, you: int | None) -> str:
    """Kots where they decide the match, points where points do, the streak if kept."""
    rules = view.rules
    parts = []
    if shows_kots(rules):
        parts.append(f"kots {score_pair(view.kots)} (first to {rules.kots_to_win})")
    if rules.scores_points:
        text = f"points {score_pair(view.points)}"
        if rules.match_scoring is MatchScoring.GAP:
            text += f" (gap {abs(view.points[0] - view.points[1])}; a side {rules.gap} behind loses, R4.5)"
        elif rules.points_to_win is not None:
            text += f" (first to {rules.points_to_win})"
        parts.append(text)
    if rules.tracks_streak and view.streak is not None and view.streak[1] > 0:
        side, count = view.streak
        parts.append(f"streak: side {side}, {plural(count, 'hand')} in a row")
    return f"match {sides_label(you)}  " + "   ".join(parts)


def middle_row(view: PlayerView, you: int | None) -> str:
    """R1.5 in the words of the trick about to be played or in progress ("the next trick"
    would be ambiguous on a table shown mid-trick)."""
    if not view.middle:
        body = "middle: empty"
    else:
        body = f"middle: {plural(len(view.middle), 'card')}, {plural(view.middle_tens, 'ten')}"
    if view.phase != Phase.PLAY:
        return body
    if len(view.history) + 1 == view.rules.num_tricks:
        return body + "; the winner of this trick takes it (the last trick, R1.5)"
    if view.last_winner >= 0:
        threat = f"; {seat_label(view.last_winner, you)} takes it with this trick if it wins it"
        if view.trick and view.trick_winner == view.last_winner:
            threat += " (winning it now)"
        return body + threat
    return body


def table_text(
    view: PlayerView,
    symbols: bool = False,
    specs: Mapping[int, str] | None = None,
    hands: Sequence[Sequence[int]] | None = None,
) -> str:
    """The table as ``view.seat`` sees it (R0.6), built from its view only; ``specs``
    names the agent at each other seat. With ``hands`` (every seat's cards, and a view
    whose ``trump`` is the real one) it is nobody's table: a replay that shows all."""
    rules, n = view.rules, view.num_players
    you = None if hands is not None else view.seat
    lines = [f"{rules}  hand {view.hands_completed + (view.phase != Phase.DONE)}  dealer: seat {view.dealer}"]
    if view.trump >= 0:
        secret = " (closed, your secret)" if you is not None else " (closed, not revealed)"
        trump = suit_label(view.trump, symbols) + ("" if view.trump_in_force else secret)
    else:
        trump = "hidden (closed)" if view.trump_hidden else "-"
    if view.trump_maker >= 0:
        trump += f" by seat {view.trump_maker}"
    elif view.draw_card >= 0:
        trump += f" (drew {move_label(view.draw_card, symbols)}, R1.4)"
    lines.append(f"trump: {trump}")
    if view.contract is not None:
        s, t, su = view.contract
        lines.append(f"contract: seat {s} bid {t}{suit_label(su, symbols)}")
    if view.bids:
        lines.append("bids: " + "  ".join(f"{s}:{move_label(a, symbols)}" for s, a in view.bids))
    for s in range(n):
        mark = ">" if view.to_act == s else " "
        you_mark = " (you)" if s == you else ""
        if hands is not None or s == you:
            body = hand_text(hands[s] if hands is not None else view.hand, symbols)
        else:
            body = plural(view.hand_counts[s], "card")
            if specs is not None and you is not None:
                body += f"  ({relation(s, you)}, {specs[s]})"
        lines.append(f"{mark} seat {s}{you_mark} [side {side_of(s)}]  {body}")
    if view.trick:
        trick = "  ".join(f"{s}:{move_label(c, symbols)}" for s, c in view.trick)
        winning = f"   (winning: {seat_label(view.trick_winner, you)})" if view.trick_winner >= 0 else ""
        lines.append(f"trick {len(view.history) + 1}: {trick}{winning}")
    elif view.history:
        leader, cards, winner = view.history[-1]
        last = "  ".join(f"{(leader + i) % n}:{move_label(c, symbols)}" for i, c in enumerate(cards))
        lines.append(f"last trick {len(view.history)}: {last}   won by {seat_label(winner, you)}")
    if rules.has_middle:
        lines.append(middle_row(view, you))
    lines.append(hand_score_row(view, you))
    lines.append(match_score_row(view, you))
    if view.match_winner is not None:
        lines.append(f"match over: winner {view.match_winner}")
    return "\n".join(lines)


def render_match(match: MatchState, seat: int | None = None, symbols: bool = False) -> str:
    """A multi-line picture of the current hand: :func:`table_text` of ``seat``'s view, or
    with ``seat=None`` every hand and the trump even while it is closed (a replay's view)."""
    if seat is not None:
        return table_text(view_of(match, seat), symbols)
    hand = match.hand
    view = view_of(match, 0)._replace(trump=hand.trump_suit, trump_hidden=False)
    return table_text(view, symbols, hands=[hand.hand_cards(s) for s in range(hand.n)])


__all__ = [
    "SUIT_NAMES",
    "SUIT_ORDER",
    "SUIT_SYMBOLS",
    "hand_score_row",
    "hand_text",
    "match_score_row",
    "move_label",
    "plural",
    "render_match",
    "relation",
    "score_pair",
    "seat_label",
    "shows_kots",
    "suit_label",
    "table_text",
]
