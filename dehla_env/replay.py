"""R6 conformance replay: ``python -m dehla_env.replay [FILE]``.

Reads JSON Lines records (from FILE, or standard input) and prints one result object
per record, in the R6 output format. A record stops at its first illegal or malformed
move; the output then describes the state before that move.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from .actions import parse_action, parse_draw
from .cards import SUIT_LETTERS, parse_card
from .engine import HandState, HandSummary, MatchState, Phase
from .errors import IllegalMoveError
from .rules import RulesError, make_rules


class _RecordError(Exception):
    def __init__(self, hand: int | None, move: int | None, reason: str) -> None:
        super().__init__(reason)
        self.hand = hand
        self.move = move
        self.reason = reason


def apply_move_text(match: MatchState, text: Any) -> None:
    """Apply one R6 move text (card, ``trump:S``, ``bid:8H``, ``pass``, ``draw:KD``).

    Raises :class:`IllegalMoveError` for anything illegal or malformed.
    """
    shown = text if isinstance(text, str) else json.dumps(text)
    if match.winner is not None:
        raise IllegalMoveError(shown, None, f"the match is over (winner {match.winner})", "")
    hand = match.hand
    if hand.phase == Phase.DONE:
        raise IllegalMoveError(shown, None, "the hand is over", "")
    seat = hand.to_act
    if not isinstance(text, str):
        raise IllegalMoveError(shown, seat, "unknown card text or move", "R0.1")
    if text.startswith("draw:"):
        try:
            card = parse_draw(text)
        except ValueError:
            raise IllegalMoveError(text, seat, "malformed draw", "R6") from None
        if hand.phase != Phase.DRAW:
            raise IllegalMoveError(text, None, f"no chance draw is due, {hand.due_text()}", "R1.4")
        match.apply_draw(card)
        return
    try:
        action = parse_action(text)
    except ValueError:
        if text.startswith("trump:"):
            raise IllegalMoveError(text, seat, "malformed trump choice", "R6") from None
        if text.startswith("bid:"):
            raise IllegalMoveError(text, seat, "malformed bid: bid: + 7..13 + one of CDHS", "R4.2") from None
        raise IllegalMoveError(text, seat, "unknown card text or move", "R0.1") from None
    match.apply_action(action)


def _hand_dict(match: MatchState, hand: HandState, summary: HandSummary | None) -> dict[str, Any]:
    rules = match.rules
    contract = None
    if hand.contract is not None:
        seat, tricks, suit = hand.contract
        contract = [seat, tricks, SUIT_LETTERS[suit]]
    if summary is not None:
        points, kots, streak = summary.points, summary.kots, summary.streak
    else:
        points, kots, streak = (match.points[0], match.points[1]), (match.kots[0], match.kots[1]), match.streak
    return {
        "dealer": hand.dealer,
        "trump": SUIT_LETTERS[hand.trump_suit] if hand.trump_suit >= 0 else None,
        "trump_maker": hand.trump_maker if hand.trump_maker >= 0 else None,
        "trick_winners": list(hand.trick_winners),
        "takes": [list(t) for t in hand.takes],
        "tricks": list(hand.tricks),
        "tens": list(hand.tens),
        "points": list(points),
        "hand_winner": summary.hand_winner if summary else None,
        "kot": summary.kot if summary else None,
        "contract": contract,
        "next_dealer": summary.next_dealer if summary else None,
        "kots": list(kots),
        "streak": list(streak) if streak is not None and rules.name in ("dehla", "dehla-direct") else None,
        "complete": hand.complete,
    }


def match_report(match: MatchState) -> dict[str, Any]:
    """The R6 fields of a match so far: ``winner``, ``hands_played``, ``hands``."""
    played = list(match.finished_hands)
    if match.hands_dealt > len(played):
        played.append(match.hand)
    hands = [
        _hand_dict(match, h, match.summaries[i] if i < len(match.summaries) else None) for i, h in enumerate(played)
    ]
    return {"winner": match.winner, "hands_played": len(hands), "hands": hands}


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one R6 record; returns its R6 result object."""
    out: dict[str, Any] = {"id": record.get("id"), "error": None, "winner": None, "hands_played": 0, "hands": []}
    try:
        options = record.get("options") or {}
        if not isinstance(options, dict):
            raise RulesError("options must be an object")
        rules = make_rules(record.get("rules"), options)  # type: ignore[arg-type]
        first_dealer = record.get("first_dealer")
        match = MatchState(rules, first_dealer)  # type: ignore[arg-type]
        hands = record.get("hands")
        if not isinstance(hands, list):
            raise RulesError("hands must be a list")
    except (RulesError, ValueError, TypeError) as e:
        out["error"] = {"hand": None, "move": None, "reason": str(e)}
        return out
    try:
        _replay_hands(match, hands)
    except _RecordError as e:
        out["error"] = {"hand": e.hand, "move": e.move, "reason": e.reason}
    out.update(match_report(match))
    return out


def _replay_hands(match: MatchState, hands: list[Any]) -> None:
    for h, hand_rec in enumerate(hands):
        if match.winner is not None:
            raise _RecordError(h, None, f"hand {h}: the match is over: no further hand can be played")
        if h > 0 and not match.hand.complete:
            raise _RecordError(h, None, f"hand {h}: hand {h - 1} is not complete")
        if not isinstance(hand_rec, dict):
            raise _RecordError(h, None, f"hand {h}: not an object")
        try:
            deck_text = hand_rec.get("deck")
            if not isinstance(deck_text, str):
                raise ValueError("deck must be a string of card texts")
            deck = [parse_card(t) for t in deck_text.split()]
            match.apply_deal(deck)
        except (IllegalMoveError, ValueError) as e:
            raise _RecordError(h, None, f"hand {h}: {e}") from None
        moves = hand_rec.get("moves", [])
        if not isinstance(moves, list):
            raise _RecordError(h, 0, f"hand {h}: moves must be a list")
        for i, text in enumerate(moves):
            try:
                apply_move_text(match, text)
            except IllegalMoveError as e:
                raise _RecordError(h, i, str(e)) from None


def replay_lines(lines: Iterable[str]) -> Iterable[dict[str, Any]]:
    """Replay JSON Lines; blank lines are skipped, an unparsable line is a bad record."""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            yield {
                "id": None,
                "error": {"hand": None, "move": None, "reason": f"not JSON: {e}"},
                "winner": None,
                "hands_played": 0,
                "hands": [],
            }
            continue
        if not isinstance(record, dict):
            yield {
                "id": None,
                "error": {"hand": None, "move": None, "reason": "a record must be an object"},
                "winner": None,
                "hands_played": 0,
                "hands": [],
            }
            continue
        yield replay_record(record)


def main(argv: list[str] | None = None, stdout: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dehla_env.replay", description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="JSON Lines records (default: standard input)")
    args = parser.parse_args(argv)
    out = stdout or sys.stdout
    source = open(args.file, encoding="utf-8") if args.file else sys.stdin
    try:
        for result in replay_lines(source):
            out.write(json.dumps(result) + "\n")
    finally:
        if args.file:
            source.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
