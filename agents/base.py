"""The one small interface every bot implements.

An agent maps what one seat may know to a legal action of the flat layout
(:mod:`dehla_env.actions`). Two entry points, one behaviour:

* :meth:`Agent.act` takes a :class:`~dehla_env.view.PlayerView` (bots that reason
  about cards read this);
* :meth:`Agent.act_observation` takes an environment observation (``{"observation",
  "action_mask"}``) for agents that only need the encoded vector (neural policies).

Bots that need the view but are handed an observation cannot recover the view from
it; environments and the arena therefore always offer the view (see
``dehla_env.wrappers``). Agents are seeded at construction and never touch a global
random generator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

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

    def act_observation(self, observation: dict[str, Any]) -> int:
        """Default for observation-only callers: a uniformly random legal action."""
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[int(self.rng.integers(len(legal)))])

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]
