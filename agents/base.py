"""The one small interface every bot implements.

An agent maps what one seat may know to a legal action of the flat layout
(:mod:`dehla_env.actions`): :meth:`Agent.act` takes the seat's
:class:`~dehla_env.view.PlayerView`, the one place that decides what a seat may know
(R0.6). A neural policy encodes the view itself (:func:`dehla_env.encoding.encode_view`);
for whole batches of encoded observations see :mod:`agents.bots.batched`. Agents are seeded
at construction and never touch a global random generator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from dehla_env.view import PlayerView


class Agent(ABC):
    """Base class: subclasses implement :meth:`act`."""

    #: short name used by the arena and the terminal game
    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Re-seed the agent's own generator (the arena does this per deal)."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, view: PlayerView) -> int:
        """A legal action for ``view.seat``; ``view.legal_actions`` lists them."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]
