"""dehla_env: rules engine and environments for Dehla Pakad, Court Piece and Coat Pees.

Start with :func:`make_rules` and :class:`MatchState` (the engine), ``python -m
dehla_env.replay`` (R6 conformance), or :mod:`dehla_env.render` for text output.
"""

from .actions import NUM_ACTIONS, action_text, parse_action
from .cards import card_text, parse_card
from .engine import CHANCE, TERMINAL, HandState, MatchState, Phase
from .env import env, raw_env
from .errors import IllegalMoveError
from .rules import PRESETS, Rules, RulesError, make_rules
from .vector import vector_env
from .view import PlayerView, view_of
from .wrappers import SingleAgentEnv

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "NUM_ACTIONS",
    "PRESETS",
    "TERMINAL",
    "HandState",
    "IllegalMoveError",
    "MatchState",
    "Phase",
    "PlayerView",
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
