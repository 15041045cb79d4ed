"""Bots for the Dehla Pakad family behind one interface, and the applications built on them.

The folders read as the architecture, each layer importing only those above it:

- :mod:`agents.base` (the :class:`Agent` interface) and :mod:`agents.gc_pause`;
- :mod:`agents.nets`: the networks and their checkpoints;
- :mod:`agents.bots`: the rule-based bots and the card counting they use;
- :mod:`agents.search`: the search players (the exact solver, PIMC, batched search);
- :mod:`agents.registry`: the agent table (every bot by name, the spec grammar) and
  :mod:`agents.envs`, the gymnasium ids against those bots (registered on import);
- :mod:`agents.distributed`: Ray and RLlib;
- the applications: :mod:`agents.arena`, :mod:`agents.bench`, :mod:`agents.training`
  with :mod:`agents.train`, :mod:`agents.play` (the terminal) and :mod:`agents.web`.
"""

from agents import envs  # noqa: F401  (registers the gymnasium ids)
from agents.base import Agent, RandomAgent
from agents.registry import AGENTS, make_agent
from dehla_env import __version__

__all__ = ["AGENTS", "Agent", "RandomAgent", "__version__", "make_agent"]
