"""The batched engine at one game: what the PettingZoo env observes its game through.

The PettingZoo env (:mod:`dehla_env.env`) plays its match on the reference engine
(:class:`~dehla_env.engine.MatchState`), which decides every move, its legality and the
scores. Its observations come from here: a :class:`~dehla_env.vector.engine.BatchEngine`
of one game, given the same deal, draw and moves, and the batched row writer
(:func:`~dehla_env.vector.observe.observe_one`), both compiled. A decision is then two
compiled calls (the move, the row) over three buffers, a few tenths of a microsecond
each, where writing the row in Python from the reference engine's objects costs
several microseconds (``benchmarks/env_speed.py``). The rows are those of
:func:`dehla_env.encoding.encode_view` for the same view, bit for bit, as every writer's
are (``tests/test_vector_equivalence.py``, ``tests/test_env_api.py``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..encoding import match_features, observation_size
from ..engine import HandState, MatchState
from ..rules import Rules
from ..seats import side_of
from .decisions import step_one
from .engine import BatchEngine
from .observe import BatchObserver, observe_one

_GAME = np.zeros(1, np.int64)  # the one game's number, as the batched calls take it


class OneGame:
    """One hand of ``rules`` on the batched engine, kept in step with a reference match
    by its caller: :meth:`deal`, :meth:`draw` and :meth:`step` as the reference hand
    takes them, :meth:`tally` whenever the match scores a hand; then :meth:`observe`
    any seat."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.engine = BatchEngine(rules, 1)
        self.size = observation_size(rules)
        self._match_rows = np.zeros((rules.players, 8), np.float32)  # per seat: its side's match values
        self._bind()

    def _bind(self) -> None:
        """The compiled calls with the game's buffers bound (a call per decision: what
        does not change is not passed again)."""
        state = self.engine._state
        ints, fractions = BatchObserver(self.engine).packed
        #: a decision the reference hand accepted (legal: nothing is checked here)
        self.step = partial(step_one, *state, 0)
        self._write = partial(observe_one, *state, ints, fractions, 0, self._match_rows)

    def __getstate__(self) -> dict[str, Any]:
        """For copies and pickles (of the env): the engine, not the calls bound to it."""
        return {k: v for k, v in self.__dict__.items() if k not in ("step", "_write")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def deal(self, hand: HandState) -> None:
        """The hand just dealt (R0.3): its deck and dealer."""
        self.engine.deal(_GAME, np.asarray(hand.deck, dtype=np.int64).reshape(1, -1), np.array([hand.dealer]))

    def draw(self, hand: HandState) -> None:
        """The R1.4 draw just made in ``hand``."""
        self.engine.draw(_GAME, np.array([hand.draw_card], np.int64))

    def tally(self, match: MatchState) -> None:
        """The match's values now (the observation's ``match`` slice; they change when a
        hand is scored), for every seat."""
        rows = [match_features(match, side) for side in (0, 1)]
        for seat in range(self.rules.players):
            self._match_rows[seat] = rows[side_of(seat)]

    def observe(self, seat: int) -> np.ndarray:
        """``seat``'s flat observation now (a new float32 vector)."""
        out = np.empty(self.size, np.float32)
        self._write(seat, out)
        return out
