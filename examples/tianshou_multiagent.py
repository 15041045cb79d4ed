"""Tianshou multi-agent collection on dehla_env.env(): a masked policy per seat.

    pip install tianshou
    python examples/tianshou_multiagent.py [--rules dehla] [--episodes 20] [--envs 4]

Tianshou's ``PettingZooEnv`` takes ``dehla_env.env()`` as it is: the observation's
``action_mask`` becomes ``obs.mask`` and ``agent_id`` names the seat to act. Seats 0 and
2 play a batched bot of this project (``agents.bots.batched.CardSensePolicy``, fed Tianshou's
batch of observations and masks), seats 1 and 3 Tianshou's own masked random policy.
The collector runs whole hands in a ``DummyVectorEnv`` and the card-sense side should
win most of them. Replace either policy by a learning algorithm (DQN, PPO) to train.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium
import numpy as np
from tianshou.algorithm.algorithm_base import Policy
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Batch, Collector
from tianshou.env import DummyVectorEnv, PettingZooEnv

import dehla_env
from agents.bots.batched import CardSensePolicy


class BatchedBotPolicy(Policy):
    """A batched bot of ``agents.bots.batched`` as a Tianshou policy (reads obs and mask only)."""

    def __init__(self, action_space: gymnasium.spaces.Space, bot: Any) -> None:
        super().__init__(action_space=action_space)
        self.bot = bot

    def forward(self, batch: Any, state: Any = None, **kwargs: Any) -> Any:
        obs = np.asarray(batch.obs.obs, np.float32)
        mask = np.asarray(batch.obs.mask, bool)
        return Batch(act=self.bot(obs, mask))


def make_env(rules: str) -> PettingZooEnv:
    return PettingZooEnv(dehla_env.env(rules=rules))


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="dehla")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    np.random.seed(args.seed)  # Tianshou's random policy draws from numpy's global generator
    env = make_env(args.rules)
    space = env.action_space
    policies: dict[str | int, Policy] = {}
    for seat, agent in enumerate(env.agents):
        if seat % 2 == 0:
            policies[agent] = BatchedBotPolicy(space, CardSensePolicy(4, seed=args.seed + seat))
        else:
            policies[agent] = MARLRandomDiscreteMaskedOffPolicyAlgorithm(space).policy
    policy = MultiAgentPolicy(policies)
    venv = DummyVectorEnv([lambda: make_env(args.rules) for _ in range(args.envs)])
    venv.seed(args.seed)
    collector = Collector(policy, venv)
    stats = collector.collect(n_episode=args.episodes, reset_before_collect=True)
    returns = np.asarray(stats.returns)  # per episode, one return per agent
    side0 = float((returns[:, 0] > 0).mean())
    print(f"{len(returns)} hands collected; the card-sense side won {side0:.2f} of them")
    return side0


if __name__ == "__main__":
    main()
