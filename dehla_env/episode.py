"""What an episode of the environments is, and the error for a call made before one:
shared by the PettingZoo env (:mod:`dehla_env.env`) and the vector env
(:mod:`dehla_env.vector.env`), which stands below it (the PettingZoo env plays its one
game on the batched engine's kernels)."""

from __future__ import annotations

import gymnasium

#: an episode is one hand, or a whole match (the reward is paid at the end of each hand
#: either way)
EPISODES = ("hand", "match")


class ResetNeededError(gymnasium.error.ResetNeeded, AttributeError):
    """A call or attribute that needs an episode, made before the first ``reset()``:
    the message names it. Gymnasium's :class:`~gymnasium.error.ResetNeeded` (the
    field's convention for this mistake), and an ``AttributeError`` as PettingZoo's
    ``OrderEnforcingWrapper`` raises for the attributes, so ``hasattr(env, "agents")``
    stays False until ``reset()``."""

    def __init__(self, call: str) -> None:
        super().__init__(f"{call} before reset(): call reset() first to start an episode")
