"""The one definition of the environments' rewards (``raw_env``, the vector env).

A reward is side 0's value of a complete hand; side 1 gets its negative and partners
share their side's (zero-sum). The kinds:

==========  ==========================================================================
``win``     +1 to the side that won the hand (round), -1 to the other, 0 with no winner
            (R2.5 2-2); in ``coat-pees`` the winner is the side that did not lose (R4.6)
``tens``    (own tens - other tens) / tens in the deck (tens-scoring rulesets, R0.5)
``tricks``  (own tricks - other tricks) / tricks per hand
``points``  the hand's match points, scaled to [-1, 1]: ``court-piece`` round + kot
            (R3.6) / 2, ``coat-pees`` the score change (R4.4) / 26
==========  ==========================================================================

:func:`side0_reward` takes plain numbers (the AEC env) or arrays over games (the vector
env) and returns the same values for the same hands.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

import numpy as np

from .rules import MatchScoring, Rules
from .scoring import MatchWinner

#: the most a ``coat-pees`` hand can change the score by (R4.4: a failed bid of 13)
MAX_CONTRACT_SWING = 26


class RewardKind(Enum):
    WIN = "win"
    TENS = "tens"
    TRICKS = "tricks"
    POINTS = "points"


REWARD_KINDS = tuple(k.value for k in RewardKind)


def reward_kind(kind: str | RewardKind, rules: Rules) -> RewardKind:
    """Parse and check a reward kind for ``rules``; raises ``ValueError`` with the reason."""
    try:
        parsed = RewardKind(kind)
    except ValueError:
        raise ValueError(f"reward must be one of {', '.join(REWARD_KINDS)}, not {kind!r}") from None
    if parsed is RewardKind.TENS and not rules.tens_scoring:
        raise ValueError(f"reward 'tens' needs a tens-scoring ruleset, not {rules}")
    if parsed is RewardKind.POINTS and rules.match_scoring not in (MatchScoring.COURT_POINTS, MatchScoring.GAP):
        raise ValueError(f"reward 'points' is for hands that score match points (court-piece, coat-pees), not {rules}")
    return parsed


def side0_reward(kind: RewardKind, rules: Rules, *, winner: Any, tens: Any, tricks: Any, kot: Any, score: Any) -> Any:
    """Side 0's reward for complete hands.

    ``winner`` and ``kot`` are sides with -1 for none; ``tens``, ``tricks`` and
    ``score`` (the R4.4 change) are per side, shape ``(..., 2)``. Scalars in, a float
    out; arrays in, an array out. A plain ``int`` winner (one hand, as ``raw_env`` pays
    it) is computed without numpy: a round trip through 0-d arrays cost ``raw_env``
    about 5 us a hand.
    """
    if isinstance(winner, int):
        pairs = (tens[0], tens[1]), (tricks[0], tricks[1]), (score[0], score[1])
        return float(_side0(kind, rules, winner, kot, pairs))
    tens, tricks, score = np.asarray(tens), np.asarray(tricks), np.asarray(score)
    pairs = (tens[..., 0], tens[..., 1]), (tricks[..., 0], tricks[..., 1]), (score[..., 0], score[..., 1])
    out = np.asarray(_side0(kind, rules, np.asarray(winner), np.asarray(kot), pairs), np.float64)
    return float(out) if out.ndim == 0 else out


def _side0(kind: RewardKind, rules: Rules, w: Any, kot: Any, pairs: tuple[tuple[Any, Any], ...]) -> Any:
    """The table of the module docstring, written once for numbers and arrays alike
    (comparisons times 1.0 rather than ``np.where``); ``pairs``: the tens, the tricks and
    the score, each as (side 0, side 1)."""
    (tens0, tens1), (tricks0, tricks1), (score0, score1) = pairs
    if kind is RewardKind.WIN:
        return 1.0 * (w == 0) - 1.0 * (w == 1)
    if kind is RewardKind.TENS:
        return (tens0 - tens1) / rules.num_tens
    if kind is RewardKind.TRICKS:
        return (tricks0 - tricks1) / rules.num_tricks
    if rules.match_scoring is MatchScoring.COURT_POINTS:
        gained = 1 + 1 * (kot >= 0)  # the round, and a kot with it (R3.6)
        return gained * (1.0 * (w == 0) - 1.0 * (w != 0)) / 2.0
    return (score0 - score1) / MAX_CONTRACT_SWING


def reward_weights(weights: Mapping[str, float], rules: Rules) -> dict[RewardKind, float]:
    """Parse ``{"win": 1.0, "tens": 0.25}`` (kind -> weight) for ``rules``: the trainer's
    reward is the weighted sum of the kinds above, so it is these same definitions
    (``ValueError`` for an unknown kind, one the ruleset lacks, or a weight that is not a
    finite number)."""
    out: dict[RewardKind, float] = {}
    for name, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not np.isfinite(w):
            raise ValueError(f"the weight of reward {name!r} must be a finite number, not {w!r}")
        out[reward_kind(name, rules)] = float(w)
    if not out:
        raise ValueError("reward weights name at least one kind")
    return out


def weighted_side0_reward(weights: Mapping[RewardKind, float], rules: Rules, **hand: Any) -> Any:
    """Side 0's reward as ``sum(weight * side0_reward(kind, rules, **hand))`` over
    ``weights`` (``hand``: the keywords of :func:`side0_reward`)."""
    return sum(w * side0_reward(k, rules, **hand) for k, w in weights.items())


def last_hand_side0_reward(weights: Mapping[RewardKind, float], match: Any) -> float:
    """Side 0's reward for the hand ``match`` (a :class:`~dehla_env.engine.MatchState`)
    has just completed: what ``raw_env`` pays per hand and what the trainer's warm start
    records, from the same fields."""
    summary, hand = match.summaries[-1], match.hand
    result = summary.result
    return float(
        weighted_side0_reward(
            weights,
            match.rules,
            winner=-1 if result.winner is None else result.winner,
            tens=hand.tens,
            tricks=hand.tricks,
            kot=-1 if summary.kot is None else summary.kot,
            score=result.score,
        )
    )


def match_reward(winner: MatchWinner | None) -> float:
    """Side 0's ``win`` reward for a whole match: +1/-1 for the winner, 0 for a draw."""
    return 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0
