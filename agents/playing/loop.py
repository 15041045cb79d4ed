"""The play loop, written once: resolve chance, else the seat to act decides from its
own view, apply.

Every application that plays agents goes through :func:`play`: the arena's and the
benchmark's duels, the trainer's teacher games, the terminal game, the web study's dry
run and the benchmarks. Each seat decides from :func:`~dehla_env.view.view_of` only,
so no agent (and no narration built on views) sees more than its seat may (R0.6, and
R2.4c for a closed trump). What differs between the applications is passed in: who
decides (:data:`Decide`), how chance is resolved (:data:`Chance`: a generator, a
duel's deck streams, a game that records its draws), when to stop, and how a move is
applied (recorded, narrated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.base import Agent
from dehla_env.engine import MatchState
from dehla_env.rules import Rules
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


def play_hand(
    rules: Rules, deck: Sequence[int], dealer: int, seats: Sequence[Agent], rng: np.random.Generator
) -> MatchState:
    """Play one hand from ``deck`` with ``seats[s]`` deciding for seat ``s``; ``rng`` is
    chance (the R1.4 draw). Returns the match, its hand complete (``summaries[-1]``
    holds the result)."""
    match = MatchState(rules, dealer)
    match.apply_deal(deck)
    play(match, by_seat(seats), sampled(rng))
    return match
