"""dehla_env: rules engine and environments for Dehla Pakad, Court Piece and Coat Pees.

Start with :func:`make_rules` and :class:`MatchState` (the engine), ``python -m
dehla_env.replay`` (R6 conformance), or :mod:`dehla_env.render` for text output.

The environments (``env``, ``raw_env``, ``vector_env``, ``SingleAgentEnv``) need
gymnasium and PettingZoo; the rules engine and the R6 replay need numpy alone, so
without those two the package still imports and the environments say what is missing.
"""

from __future__ import annotations

from typing import Any

from .actions import NUM_ACTIONS, action_text, parse_action
from .cards import card_text, parse_card
from .engine import CHANCE, TERMINAL, HandState, MatchState, Phase
from .errors import IllegalMoveError
from .rules import PRESETS, Rules, RulesError, make_rules
from .view import PlayerView, view_of

try:
    from .env import env, raw_env
    from .episode import ResetNeededError
    from .vector import vector_env
    from .wrappers import SingleAgentEnv
except ModuleNotFoundError as missing:  # an engine-only environment
    if missing.name not in ("gymnasium", "pettingzoo"):
        raise
    _MISSING = missing.name

    def __getattr__(name: str) -> Any:
        if name in ("env", "raw_env", "vector_env", "SingleAgentEnv", "ResetNeededError"):
            raise ImportError(f"dehla_env.{name} needs {_MISSING}: pip install gymnasium pettingzoo")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.2.0"
"""The package's version (also the wheel's: pyproject.toml reads it from here)."""

__all__ = [
    "__version__",
    "CHANCE",
    "NUM_ACTIONS",
    "PRESETS",
    "TERMINAL",
    "HandState",
    "IllegalMoveError",
    "MatchState",
    "Phase",
    "PlayerView",
    "ResetNeededError",
    "Rules",
    "SingleAgentEnv",
    "RulesError",
    "action_text",
    "card_text",
    "env",
    "make_rules",
    "parse_action",
    "parse_card",
    "raw_env",
    "vector_env",
    "view_of",
]
