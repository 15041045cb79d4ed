"""The pure rules engine: one hand (:mod:`.hand`) and a whole match (:mod:`.match`)."""

from .hand import CHANCE, NOBODY, HandResult, HandState, Phase, TrumpContext
from .match import DRAWN, TERMINAL, HandSummary, MatchState

__all__ = [
    "CHANCE",
    "DRAWN",
    "NOBODY",
    "TERMINAL",
    "HandResult",
    "HandState",
    "HandSummary",
    "MatchState",
    "Phase",
    "TrumpContext",
]
