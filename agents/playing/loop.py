"""The play loop, written once: resolve chance, else the seat to act decides from its
own view, apply.

Every application that plays agents goes through :func:`play`: the arena's and the
benchmark's duels, the trainer's teacher games, the terminal game, the web study's dry
run and the benchmarks. Each seat decides from :func:`~dehla_env.view.view_of` only,
so no agent (and no narration built on views) sees more than its seat may (R0.6, and
R2.4c for a closed trump). What differs between the applications is passed in: who
decides (:data:`Decide`), how chance is resolved (:data:`Chance`: a generator, a deck
stream, a person's deck source), when to stop, and how a move is applied (recorded,
narrated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from dehla_env.engine import NOBODY, MatchState
from dehla_env.rules import Rules
from dehla_env.seats import side_of
from dehla_env.view import PlayerView, view_of

#: a decision: the seat to act and its view -> the action
Decide = Callable[[int, PlayerView], int]
#: resolves the chance node due on the match (a deal, or the R1.4 draw); what it returns is ignored
Chance = Callable[[MatchState], object]
#: applies a seat's move to the match (an app that records or narrates its moves does it here)
Apply = Callable[[int, int], None]


def hand_over(match: MatchState) -> bool:
    return match.hand.complete


def by_seat(agents: Sequence[Agent]) -> Decide:
    """``agents[seat]`` decides for ``seat``."""
    return lambda seat, view: agents[seat].act(view)


def sampled(rng: np.random.Generator) -> Chance:
    """Chance drawn from ``rng`` (:meth:`MatchState.sample_chance`: a shuffled deck, a
    uniform R1.4 draw)."""
    return lambda match: match.sample_chance(rng)


def play(
    match: MatchState,
    decide: Decide,
    chance: Chance,
    *,
    over: Callable[[MatchState], bool] = hand_over,
    apply: Apply | None = None,
) -> int:
    """Play ``match`` on until ``over(match)`` (default: the hand is complete); returns
    the decisions made. Chance nodes go to ``chance``; each decision is
    ``decide(seat, view_of(match, seat))``, applied by ``apply(seat, action)`` (default:
    :meth:`MatchState.apply_action`, which refuses an illegal move, R5)."""
    decisions = 0
    while not over(match):
        if match.is_chance():
            chance(match)
            continue
        seat = match.current_player()
        action = decide(seat, view_of(match, seat))
        if apply is None:
            match.apply_action(action)
        else:
            apply(seat, action)
        decisions += 1
    return decisions


def roles(match: MatchState) -> tuple[int, int | None]:
    """(side that led the first trick, side that made trump or None) of the hand just
    completed: the seats' roles in it, for the per-role breakdowns."""
    hand = match.hand
    maker = hand.contract[0] if hand.contract is not None else hand.trump_maker  # R4.2: all-pass too
    leader = side_of(hand.history[0][0]) if hand.history else 0
    return leader, (None if maker == NOBODY else side_of(maker))


@dataclass(frozen=True)
class HandOutcome:
    """One hand's result, seen from side 0."""

    winner: int | None  # side that won the hand/round (None: no winner)
    tens: tuple[int, int]
    tricks: tuple[int, int]
    points: tuple[int, int]  # points gained in this hand (court-piece, coat-pees, points modes)
    kot: int | None
    decisions: int
    leader: int = 0  # side that led the first trick
    maker: int | None = None  # side that made trump (the bidder's, with bidding); None: nobody did


def play_hand(
    rules: Rules, deck: Sequence[int], dealer: int, seats: Sequence[Agent], rng: np.random.Generator
) -> HandOutcome:
    """Play one hand from ``deck`` with ``seats[s]`` deciding for seat ``s``; ``rng`` is
    chance (the R1.4 draw)."""
    match = MatchState(rules, dealer)
    match.apply_deal(deck)
    decisions = play(match, by_seat(seats), sampled(rng))
    hand, summary = match.hand, match.summaries[-1]
    leader, maker = roles(match)
    return HandOutcome(
        winner=summary.hand_winner,
        tens=(hand.tens[0], hand.tens[1]),
        tricks=(hand.tricks[0], hand.tricks[1]),
        points=(summary.points[0], summary.points[1]),
        kot=summary.kot,
        decisions=decisions,
        leader=leader,
        maker=maker,
    )
