"""The gymnasium ids, and single-agent environments against the project's bots.

``import agents`` registers ``DehlaPakad-v0`` (``dehla``), ``DehlaPakadDirect-v0``
(``dehla-direct``), ``CourtPiece-v0`` and ``CoatPees-v0`` (``max_episode_steps=200``);
``gymnasium.make("agents:DehlaPakad-v0")`` works without an import (gymnasium imports
the module named before the colon). The ids make a
:class:`dehla_env.wrappers.SingleAgentEnv` whose other seats may be named by agent spec
(:mod:`agents.registry`)::

    import gymnasium, agents
    env = gymnasium.make("DehlaPakad-v0", opponents="hard", partner="policy:dehla")

``opponents`` / ``partner`` take a spec (one fresh agent per seat, as in the arena), an
agent, a callable on a :class:`~dehla_env.view.PlayerView`, or for ``opponents`` a dict
``{seat: ...}``; seats given nothing play uniformly random legal moves. Every other
keyword is the wrapper's (see :mod:`dehla_env.wrappers`). The registered ids default to
``illegal_action="terminate"``, because generic tools (``check_env``, random baselines)
step with unmasked ``action_space.sample()``.

The environment package (:mod:`dehla_env`) never imports the bots: this module is
where the two meet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium

from agents.registry import make_agent
from dehla_env.rules import PRESET_TABLE, Rules
from dehla_env.seats import side_of
from dehla_env.wrappers import MAX_HAND_STEPS, SingleAgentEnv

ENV_IDS: dict[str, str] = {p.gym_id: name for name, p in PRESET_TABLE.items()}


def single_agent_env(
    rules: str | Rules = "dehla", opponents: Any = None, partner: Any = None, **kwargs: Any
) -> SingleAgentEnv:
    """A :class:`SingleAgentEnv` whose other seats may be given as agent specs: a spec
    becomes one agent per seat, seeded by seat (``reset(seed=...)`` re-seeds them)."""
    env = SingleAgentEnv(rules, **kwargs)
    others = [s for s in range(env.num_players) if s not in env.learner_seats]

    def resolve(policy: Any, seat: int) -> Any:
        return make_agent(policy, env.rules, seed=seat) if isinstance(policy, str) else policy

    if isinstance(opponents, Mapping):
        opponents = {seat: resolve(p, int(seat)) for seat, p in opponents.items()}
    elif isinstance(opponents, str):
        opponents = {seat: resolve(opponents, seat) for seat in others}
    if isinstance(partner, str):
        if not isinstance(opponents, Mapping):
            opponents = {seat: opponents for seat in others if opponents is not None}
        for seat in others:
            if side_of(seat) == side_of(env.learner_seat):
                opponents[seat] = resolve(partner, seat)
        if env.learner != "seat":
            raise ValueError("partner is for learner='seat'; with learner='side' the learner plays its partners")
        partner = None
    env.set_policies(opponents, partner)
    return env


def register_envs() -> None:
    """Register the gymnasium ids (see the module docstring); ids already there are kept."""
    for env_id, rules in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="agents.envs:single_agent_env",
                kwargs={"rules": rules, "illegal_action": "terminate"},
                max_episode_steps=MAX_HAND_STEPS,
            )


register_envs()

__all__ = ["ENV_IDS", "register_envs", "single_agent_env"]
