"""Bots for the Dehla Pakad family behind one interface (:class:`Agent`), the agent
table (:mod:`agents.registry`), the gymnasium ids against them (:mod:`agents.envs`,
registered on import), search, policies, the arena and the games people play."""

from dehla_env import __version__

from . import envs  # noqa: F401  (registers the gymnasium ids)
from .base import Agent, RandomAgent
from .registry import AGENTS, make_agent

__all__ = ["AGENTS", "Agent", "RandomAgent", "__version__", "make_agent"]
