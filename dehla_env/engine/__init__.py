"""The pure rules engine: one hand (:mod:`.hand`) and a whole match (:mod:`.match`)."""

from ..scoring import DRAWN, MatchWinner
from .hand import CHANCE, NOBODY, HandResult, HandState, Phase, TrumpContext
from .match import TERMINAL, HandSummary, MatchState

__all__ = [
    "CHANCE",
    "DRAWN",
    "NOBODY",
    "TERMINAL",
    "HandResult",
    "HandState",
    "HandSummary",
    "MatchState",
    "MatchWinner",
    "Phase",
    "TrumpContext",
]
