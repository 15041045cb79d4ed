"""Play hands and matches between agents on given deals (the arena's engine room).

Pure functions of their inputs: the deck(s), the dealer, the agents and one seeded
generator for chance (the R1.4 draw, later deals). Every seat's decision goes through
:func:`dehla_env.view.view_of`, so agents see only what their seat may know.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dehla_env.engine import MatchState
from dehla_env.rules import Rules
from dehla_env.view import view_of

from .base import Agent


@dataclass(frozen=True)
class HandOutcome:
    """One hand's result, seen from side 0."""

    winner: int | None  # side that won the hand/round (None: no winner)
    tens: tuple[int, int]
    tricks: tuple[int, int]
    points: tuple[int, int]  # points gained in this hand (court-piece, coat-pees, points modes)
    kot: int | None
    decisions: int


def play_hand(
    rules: Rules, deck: Sequence[int], dealer: int, seats: Sequence[Agent], rng: np.random.Generator
) -> HandOutcome:
    """Play one hand from ``deck`` with ``seats[s]`` deciding for seat ``s``."""
    match = MatchState(rules, dealer)
    match.apply_deal(deck)
    decisions = 0
    hand = match.hand
    while not hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        seat = hand.to_act
        action = seats[seat].act(view_of(match, seat))
        match.apply_action(action)
        decisions += 1
    summary = match.summaries[-1]
    return HandOutcome(
        winner=summary.hand_winner,
        tens=(hand.tens[0], hand.tens[1]),
        tricks=(hand.tricks[0], hand.tricks[1]),
        points=(summary.points[0], summary.points[1]),
        kot=summary.kot,
        decisions=decisions,
    )


@dataclass(frozen=True)
class MatchOutcome:
    winner: int | str | None  # 0, 1 or "draw"
    hands: int
    kots: tuple[int, int]
    points: tuple[int, int]
    hand_winners: tuple[int | None, ...]
    tens: tuple[int, int]  # summed over the match's hands
    decisions: int


def play_match(
    rules: Rules, first_dealer: int, seats: Sequence[Agent], rng: np.random.Generator, max_hands: int = 1000
) -> MatchOutcome:
    """Play a whole match; deals and the R1.4 draw come from ``rng``."""
    match = MatchState(rules, first_dealer)
    decisions = 0
    tens = [0, 0]
    while not match.is_terminal() and match.hands_completed < max_hands:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        seat = match.current_player()
        match.apply_action(seats[seat].act(view_of(match, seat)))
        decisions += 1
        if match.hand.complete:
            tens[0] += match.hand.tens[0]
            tens[1] += match.hand.tens[1]
    return MatchOutcome(
        winner=match.winner,
        hands=match.hands_completed,
        kots=(match.kots[0], match.kots[1]),
        points=(match.points[0], match.points[1]),
        hand_winners=tuple(s.hand_winner for s in match.summaries),
        tens=(tens[0], tens[1]),
        decisions=decisions,
    )
