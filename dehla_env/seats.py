"""Seat arithmetic (R0.2, R2.8).

Seats are ints ``0..n-1``; play and dealing go to ``(s + 1) % n``. Sides alternate
round the table, so a seat's side is ``s % 2`` with four players ({0, 2} and {1, 3})
and with six ({0, 2, 4} and {1, 3, 5}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

#: one seat, or an array of seats (:func:`side_of` serves a hand and a batch alike)
Seats = TypeVar("Seats", int, "np.ndarray")


def side_of(seat: Seats) -> Seats:
    """The side of a seat: 0 for {0, 2(, 4)}, 1 for {1, 3(, 5)}; an array of seats
    gives an array."""
    return seat % 2
