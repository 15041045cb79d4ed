"""The one exception type for illegal or malformed input (R5)."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """An illegal or malformed move, deal or draw.

    The message names the move, the seat and the rule; the state it was offered to is
    left exactly as it was (R5). ``seat`` is ``None`` for chance steps.
    """

    def __init__(self, move: str | None, seat: int | None, reason: str, rule: str = "R5") -> None:
        """``move`` is the move's text (``None`` for a problem that is not a move, such
        as a bad deck); ``seat`` the acting seat, -1 for chance, ``None`` for nobody
        (the match is over). ``rule`` is the rule broken; R5 is always cited too."""
        # Every rejection is an R5 one: the message always cites R5, after the rule broken.
        who = (
            f" by seat {seat}"
            if seat is not None and seat >= 0
            else (" by chance" if seat == -1 else " with no seat to act")
        )
        rules = rule if rule.endswith("R5") else (f"{rule}, R5" if rule else "R5")
        text = f'"{move}"{who}: {reason}' if move is not None else f"{reason}"
        super().__init__(f"{text} ({rules})")
        self.move = move
        self.seat = seat
        self.reason = reason
        self.rule = rule
