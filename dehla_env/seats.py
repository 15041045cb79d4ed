"""Seat arithmetic (R0.2, R2.8).

Seats are ints ``0..n-1``; play and dealing go to ``(s + 1) % n``. Sides alternate
round the table, so a seat's side is ``s % 2`` with four players ({0, 2} and {1, 3})
and with six ({0, 2, 4} and {1, 3, 5}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

NUM_SIDES = 2

#: one seat, or an array of seats (:func:`side_of` serves a hand and a batch alike)
Seats = TypeVar("Seats", int, "np.ndarray")


def next_seat(seat: int, num_players: int = 4) -> int:
    return (seat + 1) % num_players


def side_of(seat: Seats) -> Seats:
    """The side of a seat: 0 for {0, 2(, 4)}, 1 for {1, 3(, 5)}; an array of seats
    gives an array."""
    return seat % 2


def partner(seat: int, num_players: int = 4) -> int:
    """The partner opposite (four players); with six, the teammate two seats on."""
    return (seat + 2) % num_players


def teammates(seat: int, num_players: int = 4) -> tuple[int, ...]:
    """Every seat of ``seat``'s side, ``seat`` included, ascending."""
    return tuple(s for s in range(num_players) if s % 2 == seat % 2)


def relative_seat(seat: int, observer: int, num_players: int = 4) -> int:
    """``seat`` as seen from ``observer``: the observer is 0, the next to play 1, ..."""
    return (seat - observer) % num_players


def absolute_seat(relative: int, observer: int, num_players: int = 4) -> int:
    return (relative + observer) % num_players
