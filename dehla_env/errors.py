"""The one exception type for illegal or malformed input (R5)."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """An illegal or malformed move, deal or draw.

    The message names the move, the seat and the rule; the state it was offered to is
    left exactly as it was (R5). ``seat`` is ``None`` for chance steps.
    """

    def __init__(self, move: str, seat: int | None, reason: str, rule: str = "R5") -> None:
        who = f" by seat {seat}" if seat is not None and seat >= 0 else (" by chance" if seat == -1 else "")
        rules = rule if rule.endswith("R5") or rule == "" else f"{rule}, R5"
        super().__init__(f'"{move}"{who}: {reason} ({rules})' if move else f"{reason} ({rules})")
        self.move = move
        self.seat = seat
        self.reason = reason
        self.rule = rule
