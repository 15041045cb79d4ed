"""R6 conformance records: move texts, result objects, and the replay of records and lines.

This is the R6 record format (RULES.md R6) as a library; ``python -m dehla_env.replay``
(:mod:`dehla_env.replay`) is only its command line.

=========================  ==========================================================
:func:`apply_move_text`    one R6 move text (``QH``, ``trump:S``, ``bid:8H``, ``pass``,
                           ``draw:KD``) applied to a :class:`MatchState` (R5 errors)
:func:`match_report`       the R6 result fields of a match so far
:func:`replay_record`      one parsed record (a dict) -> its R6 result object
:func:`replay_line`        one input line, bytes or text, *any* content -> one result
:func:`replay_lines`       lines -> results, one per line, in order
:func:`dumps_result`       a result as one line of strict JSON
:func:`check_seed`         whether a record's deals follow from its revealed seed
=========================  ==========================================================

The promise of R6 is "one JSON object per input line". :func:`replay_line` keeps it for
any input whatsoever, so one bad line never costs the results of the others:

* A line is what ends at ``b"\\n"`` (JSON Lines); whitespace around the record,
  ``\\r`` of a CRLF file included, is ignored, and so is a UTF-8 byte order mark at the
  start of the first line (RFC 8259 section 8.1).
* A line that is not a record still gets a result object, with
  ``"error": {"hand": null, "move": null, "reason": ...}``: an empty (blank) line
  (``"empty line: not a record"``), bytes that are not UTF-8 (a UTF-16 file, say), text
  that is not JSON, the non-JSON constants ``NaN`` / ``Infinity``, JSON nested deeper
  than :data:`MAX_DEPTH`, an integer too long for Python to read, and JSON that is not
  an object.
* The result is always strict JSON (:func:`dumps_result`: ``allow_nan=False``, ASCII).
  Only the ``id`` is echoed from the input, by the *id policy*: a string, ``null``, or
  an integer within +-(2**53 - 1) (the range every JSON reader holds exactly, RFC 8259
  section 6) comes back as given; any other id (a float, a boolean, an object, a list,
  a longer integer, a string with a lone surrogate escape such as ``"\\ud800"``) comes
  back as ``null``, and the record is replayed as usual. Text quoted in a reason is
  made valid Unicode the same way, so every result can be written as UTF-8.
* Every move error (``"move"`` not null) names the move, the seat (``by seat N``,
  ``by chance`` for a chance step, ``with no seat to act`` once the match is over) and
  at least one rule number (R5 for every rejection, and the rule broken).
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .actions import parse_action, parse_draw
from .cards import SUIT_LETTERS, card_text, cards_text, parse_card
from .engine import CHANCE, HandState, HandSummary, MatchState, Phase
from .errors import IllegalMoveError
from .rules import RulesError, make_rules

#: Deepest nesting of arrays and objects a line may have. An R6 record nests four deep
#: (record > hands > hand > moves); the limit is far above that and far below Python's
#: recursion limit, so deep junk is refused the same way whatever the call stack.
MAX_DEPTH = 64
#: The largest integer id echoed as given (RFC 8259 section 6: interoperable integers).
MAX_SAFE_ID = 2**53 - 1
#: How much of an unreadable move a reason quotes: it names the move, not a megabyte.
SHOWN_CHARS = 40

EMPTY_LINE = "empty line: not a record"
_JSON_WHITESPACE = " \t\r\n"
_BOM = codecs.BOM_UTF8.decode("utf-8")


class _RecordError(Exception):
    """A problem with hand ``hand`` (move ``move``) of a record, for its R6 ``error``."""

    def __init__(self, hand: int | None, move: int | None, reason: str) -> None:
        super().__init__(reason)
        self.hand = hand
        self.move = move
        self.reason = reason


# ===================================================================== moves


def _shown(value: Any) -> str:
    """A move as an error names it: the text itself, or the JSON of a non-text move,
    cut to :data:`SHOWN_CHARS` characters so junk is named, not echoed in full."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value)
        except (ValueError, TypeError, RecursionError):
            text = f"<{type(value).__name__}>"
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def apply_move_text(match: MatchState, text: Any) -> None:
    """Apply one R6 move text (card, ``trump:S``, ``bid:8H``, ``pass``, ``draw:KD``).

    Raises :class:`IllegalMoveError` for anything illegal or malformed, naming the move,
    the seat to act (or chance) and the rule; the match is left as it was (R5).
    """
    shown = _shown(text)
    if match.winner is not None:
        # R6: ``moves`` are the decisions of a hand; none is left once the match is over.
        raise IllegalMoveError(shown, None, f"the match is over (winner {match.winner})", "R6")
    hand = match.hand
    if hand.phase == Phase.DONE:
        # The next step is the next hand's deal, a chance step, listed as a new hand (R6).
        raise IllegalMoveError(shown, CHANCE, "the hand is over: the next hand's deal is due", "R6")
    seat = hand.to_act
    if not isinstance(text, str):
        raise IllegalMoveError(shown, seat, "a move is a text: a card, trump:S, bid:8H, pass or draw:KD", "R6")
    if text.startswith("draw:"):
        try:
            card = parse_draw(text)
        except ValueError:
            raise IllegalMoveError(shown, CHANCE, "malformed draw: draw: + one of the 20 cards played", "R6") from None
        if hand.phase != Phase.DRAW:
            raise IllegalMoveError(shown, CHANCE, f"no chance draw is due, {hand.due_text()}", "R1.4")
        match.apply_draw(card)
        return
    try:
        action = parse_action(text)
    except ValueError:
        if text.startswith("trump:"):
            raise IllegalMoveError(shown, seat, "malformed trump choice: trump: + one of CDHS", "R6") from None
        if text.startswith("bid:"):
            raise IllegalMoveError(shown, seat, "malformed bid: bid: + 7..13 + one of CDHS", "R4.2") from None
        raise IllegalMoveError(shown, seat, "unknown card text or move", "R0.1") from None
    match.apply_action(action)


# ===================================================================== results


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
    reports_streak = rules.tracks_streak  # R6: a streak in dehla and dehla-direct streak mode
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
        "streak": list(streak) if streak is not None and reports_streak else None,
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


def _is_unicode(text: str) -> bool:
    """Whether ``text`` is valid Unicode: JSON's ``"\\ud800"`` escape gives a lone
    surrogate, which no UTF-8 writer and no strict JSON reader accepts."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _readable(reason: str) -> str:
    """A reason safe to write: lone surrogates echoed from the input become ``\\udXXX``."""
    return reason if _is_unicode(reason) else reason.encode("utf-8", "backslashreplace").decode("utf-8")


def result_id(value: Any) -> str | int | None:
    """The ``id`` a result echoes (the id policy of the module docstring): strings,
    ``null`` and JSON-safe integers as given, anything else ``None``. The output is then
    strict JSON whatever the input held (a NaN, an object, a 5,000-digit number)."""
    if value is None or (isinstance(value, str) and _is_unicode(value)):
        return value
    if type(value) is int and -MAX_SAFE_ID <= value <= MAX_SAFE_ID:
        return value
    return None


def _bad_line(reason: str, record_id: Any = None) -> dict[str, Any]:
    """The result of a line that is not a replayable record (R6: hand and move null)."""
    return {
        "id": result_id(record_id),
        "error": {"hand": None, "move": None, "reason": _readable(reason)},
        "winner": None,
        "hands_played": 0,
        "hands": [],
    }


def dumps_result(result: dict[str, Any]) -> str:
    """One result as strict JSON text (no NaN or Infinity, ASCII only, no newline).

    Results hold nothing that cannot be written; should a bug put something there, the
    line still gets a result (an internal error) rather than none.
    """
    try:
        return json.dumps(result, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as e:
        return json.dumps(_bad_line(f"internal error (a bug in dehla_env, please report it): {e}"))


# ===================================================================== replay


def seed_commitment(seed: int) -> str:
    """The commitment to a match's seed, shown before its first card: the SHA-256 (hex)
    of the seed's decimal digits in ASCII (no sign, no leading zeros)."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


def deal_rng(seed: int) -> np.random.Generator:
    """The generator a match dealt from ``seed`` draws all its chance from, in play
    order: the first dealer (R1.10), each hand's deck, each R1.4 draw."""
    return np.random.default_rng([seed, 0])


def check_seed(record: dict[str, Any]) -> str:
    """``"ok"`` when the record's revealed ``seed`` hashes to its ``commitment``
    (:func:`seed_commitment`) and its first dealer, every deck and every R1.4 draw
    follow from it (:func:`deal_rng`), so the deals were fixed before play; else why not."""
    seed, commitment = record.get("seed"), record.get("commitment")
    if type(seed) is not int or seed < 0 or not isinstance(commitment, str):
        return "no seed and commitment to check: the deal was not committed to"
    if commitment != seed_commitment(seed):
        return "the seed does not hash to the commitment (SHA-256 of its decimal digits)"
    try:
        rng = deal_rng(seed)
        match = MatchState.new(make_rules(record.get("rules"), record.get("options") or {}), rng)  # type: ignore[arg-type]
        if match.first_dealer != record.get("first_dealer"):
            return "the first dealer does not follow from the seed (R1.10)"
        for h, hand in enumerate(record["hands"]):
            match.sample_chance(rng)
            if cards_text(match.hand.deck or ()) != hand["deck"]:
                return f"hand {h}: the deck does not follow from the seed"
            for text in hand["moves"]:
                if not text.startswith("draw:"):
                    apply_move_text(match, text)
                    continue
                match.sample_chance(rng)
                if text != "draw:" + card_text(match.hand.draw_card):
                    return f"hand {h}: the draw {text} does not follow from the seed (R1.4)"
    except (RulesError, IllegalMoveError, ValueError, TypeError, KeyError, AttributeError) as e:
        return f"the record does not replay: {e}"
    return "ok"


def replay_record(record: dict[str, Any], seed: bool = False) -> dict[str, Any]:
    """Replay one R6 record; returns its R6 result object (with ``seed``, also its
    ``seed_check``: :func:`check_seed`)."""
    out: dict[str, Any] = {
        "id": result_id(record.get("id")),
        "error": None,
        "winner": None,
        "hands_played": 0,
        "hands": [],
    }
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
        out["error"] = {"hand": None, "move": None, "reason": _readable(f"bad record: {e} (R6)")}
        return out
    try:
        _replay_hands(match, hands)
    except _RecordError as e:
        out["error"] = {"hand": e.hand, "move": e.move, "reason": _readable(e.reason)}
    out.update(match_report(match))
    if seed:
        out["seed_check"] = _readable(check_seed(record))
    return out


def _replay_hands(match: MatchState, hands: list[Any]) -> None:
    for h, hand_rec in enumerate(hands):
        if match.winner is not None:
            raise _RecordError(h, None, f"hand {h}: the match is over: no further hand can be played (R6)")
        if h > 0 and not match.hand.complete:
            raise _RecordError(h, None, f"hand {h}: hand {h - 1} is not complete (R6)")
        if not isinstance(hand_rec, dict):
            raise _RecordError(h, None, f"hand {h}: a hand is an object with a deck and moves (R6)")
        try:
            deck_text = hand_rec.get("deck")
            if not isinstance(deck_text, str):
                raise ValueError("deck must be a string of card texts (R6)")
            deck = [parse_card(t) for t in deck_text.split()]
            match.apply_deal(deck)
        except (IllegalMoveError, ValueError) as e:
            raise _RecordError(h, None, f"hand {h}: {e}") from None
        moves = hand_rec.get("moves", [])
        if not isinstance(moves, list):
            # R6 reports this at move 0; the seat named is the one whose move that is.
            err = IllegalMoveError(_shown(moves), match.hand.to_act, "moves must be a list of move texts", "R6")
            raise _RecordError(h, 0, f"hand {h}: {err}")
        for i, text in enumerate(moves):
            try:
                apply_move_text(match, text)
            except IllegalMoveError as e:
                raise _RecordError(h, i, str(e)) from None


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays/objects deeper than ``limit`` (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def _parse_line(text: str) -> dict[str, Any] | str:
    """The record on one line, or the reason the line is not one."""
    if not text.strip(_JSON_WHITESPACE):
        return EMPTY_LINE
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        return f"not a record: JSON nested deeper than {MAX_DEPTH} levels"
    except ValueError as e:  # JSONDecodeError, NaN / Infinity, an integer over 4300 digits
        hint = " (NUL characters: UTF-16 input?)" if "\x00" in text else ""
        return f"not JSON: {e}{hint}"
    if _too_deep(value, MAX_DEPTH):
        return f"not a record: JSON nested deeper than {MAX_DEPTH} levels"
    if not isinstance(value, dict):
        return "not a record: a record must be a JSON object"
    return value


def replay_line(line: bytes | str, first: bool = False, seed: bool = False) -> dict[str, Any]:
    """The R6 result object of one input line, whatever it holds (see the module docstring).

    ``line`` is one line with or without its ``\\n``; bytes must be UTF-8. ``first``:
    this is the input's first line, where a UTF-8 byte order mark is ignored; ``seed``:
    the result also says whether the deals follow from the record's seed (:func:`check_seed`).
    """
    try:
        if isinstance(line, bytes):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as e:
                utf16 = line[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) or b"\x00" in line
                return _bad_line(f"not UTF-8: {e}" + (" (UTF-16 input?)" if utf16 else ""))
        else:
            text = line
        if first and text.startswith(_BOM):
            text = text[len(_BOM) :]
        parsed = _parse_line(text)
        if isinstance(parsed, str):
            return _bad_line(parsed)
        return replay_record(parsed, seed)
    except Exception as e:  # the one-result-per-line promise outlives a bug; tests fuzz for these
        return _bad_line(f"internal error (a bug in dehla_env, please report it): {type(e).__name__}: {e}")


def replay_lines(lines: Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """One R6 result per line, in order: every line counts, blank ones included.

    Lines are as a file yields them: bytes from a binary file (what the command line
    reads), or text from ``io.StringIO``; each may keep its newline.
    """
    for n, line in enumerate(lines):
        yield replay_line(line, first=n == 0)
