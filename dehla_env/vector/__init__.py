"""The batched (vectorised numpy) engine and the vector environment.

Many independent games of one ruleset advance in lockstep with array operations; the
legality, outcomes and observations are those of the reference engine
(:mod:`dehla_env.engine`) and env (:mod:`dehla_env.env`), checked by
``tests/test_vector_equivalence.py``.

==========================  =========================================================
:func:`vector_env`          ``vector_env(rules="dehla", num_envs=N, seed=S, **options)``
                            -> :class:`VectorEnv` (see :mod:`dehla_env.vector.env`)
:class:`BatchEngine`        the batched hand state machine (:mod:`.engine`)
:class:`BatchObserver`      flat observations for any (game, seat) (:mod:`.observe`)
:class:`LearnerVectorEnv`   the learner plays some seats, batched policies the rest
                            (:mod:`.wrappers`); a :data:`BatchPolicy` is any
                            ``policy(obs, mask) -> actions`` (bots: :mod:`agents.bots.batched`)
:func:`random_legal`        a uniformly random legal action per row of a mask
==========================  =========================================================

Every ruleset of :data:`dehla_env.rules.PRESET_TABLE` is supported, with every option.
"""

from .engine import BatchEngine
from .env import VectorEnv, vector_env
from .observe import BatchObserver
from .wrappers import BatchPolicy, LearnerVectorEnv, random_legal

__all__ = ["BatchEngine", "BatchObserver", "BatchPolicy", "LearnerVectorEnv", "VectorEnv", "random_legal", "vector_env"]
