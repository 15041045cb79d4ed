"""Ray RLlib: the dehla environment as an RLlib multi-agent env, one shared policy with
action masking (the ``rllib`` extra: ``pip install 'dehla[rllib]'``; Ray pins its own
gymnasium, so give it its own environment).

    from agents.distributed.rllib import ppo_config
    algo = ppo_config("dehla").env_runners(num_env_runners=2).build_algo()
    algo.train()

:func:`rllib_env` is the env creator RLlib registers (``"dehla"``): PettingZoo's AEC env
(:func:`dehla_env.env`, with its safety semantics) in RLlib's ``PettingZooEnv``, its
observation renamed to the keys RLlib's action-masking module reads (``observations``,
``action_mask`` as float32). :func:`ppo_config` is a PPO config over it with one policy,
``"shared"``, for every seat (observations are seat-relative) and
``ActionMaskingTorchRLModule``, so masked actions are never sampled. That is the glue
the default config lacks ("No default encoder config for obs space=Dict(...)").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

import dehla_env

try:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError("agents.distributed.rllib needs Ray RLlib: pip install 'dehla[rllib]'") from e

ENV_NAME = "dehla"
SHARED_POLICY = "shared"


class RLlibKeys(BaseWrapper):
    """``{"observation", "action_mask"}`` -> ``{"observations", "action_mask"}`` (float32),
    the names and dtype RLlib's action-masking module expects."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def observation_space(self, agent: str) -> spaces.Dict:
        inner = super().observation_space(agent)
        mask = inner["action_mask"]
        return spaces.Dict(
            {"observations": inner["observation"], "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32)}
        )


def rllib_env(config: dict[str, Any] | None = None) -> PettingZooEnv:
    """RLlib's env creator: ``config`` holds ``dehla_env.env`` keywords (``rules``, rule
    options, ``reward`` ...)."""
    return PettingZooEnv(RLlibKeys(dehla_env.env(**dict(config or {}))))


def ppo_config(rules: str = "dehla", hidden: tuple[int, ...] = (256, 256), **env_kwargs: Any) -> PPOConfig:
    """A PPO config: every seat plays the one ``"shared"`` masked policy."""
    register_env(ENV_NAME, rllib_env)
    return (
        PPOConfig()
        # RLlib's env check steps with unmasked random actions, which the env (rightly)
        # treats as illegal moves; the env has its own API tests
        .environment(ENV_NAME, env_config={"rules": rules, **env_kwargs}, disable_env_checking=True)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=lambda agent_id, *args, **kwargs: SHARED_POLICY)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": list(hidden)}
                    )
                }
            )
        )
    )


__all__ = ["ENV_NAME", "SHARED_POLICY", "RLlibKeys", "ppo_config", "rllib_env"]
