"""The learner's inputs for a whole rollout, built once per PPO update.

A rollout stores its observations as small integer codes (:class:`~agents.training.
selfplay.Rollout`); the networks read float vectors, the policy with the card features
of :mod:`agents.nets.features` appended and the critic with the hidden cards. Built once per
update instead of once per minibatch and epoch: the features of an observation do not
change between epochs, and with ``bf16`` the inputs are stored in bfloat16, the cast
that autocast would otherwise make at every minibatch (the same numbers: the features
are sums of a few 0/1 or 1/2 entries, exact in either type, rounded to bfloat16 once
either way). ``agents.train``'s update reads minibatches from them.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.nets.policy import PolicyNet, ValueNet
from agents.training.selfplay import Rollout

CHUNK = 8192
"""Rows per pass over the rollout (bounds the temporaries)."""


def learner_inputs(policy: PolicyNet, r: Rollout, bf16: bool, privileged: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's and the critic's input for every sample of ``r``; without
    ``privileged`` the critic's hidden-card columns are zeros."""
    dtype = torch.bfloat16 if bf16 else torch.float32
    (t, d), p = r.obs.shape, r.priv.shape[1]
    policy_in = torch.empty(t, policy.input_size, dtype=dtype)
    critic_in = (torch.empty if privileged else torch.zeros)(t, d + p, dtype=dtype)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for i in range(0, t, CHUNK):
            rows = slice(i, i + CHUNK)
            obs = torch.from_numpy(r.observations(rows))
            policy_in[rows] = policy.net_input(obs)
            critic_in[rows, :d] = obs
            if privileged:
                critic_in[rows, d:] = torch.from_numpy(r.priv[rows])
    return policy_in, critic_in


def critic_values(critic: ValueNet, critic_in: torch.Tensor, bf16: bool) -> np.ndarray:
    """The critic's value of every sample (GAE's baseline), in bfloat16 autocast with
    ``bf16`` as the update's own value passes are."""
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        return torch.cat([critic(critic_in[i : i + CHUNK]).float() for i in range(0, len(critic_in), CHUNK)]).numpy()
