"""Rollouts under suit renaming (``SelfPlayEnv(..., relabel=True)``, the trainer's
``relabel_rollouts``): the learner plays the game as dealt while it sees and learns a
renamed copy (R0.4's trick rule and R4.2's bids rank no suit, so the copy is the same
game)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.policy import PolicyNet
from agents.training import selfplay
from agents.training.pool import OpponentPool
from dehla_env.augment import relabel_tables
from dehla_env.encoding import decode, observation_size
from dehla_env.rewards import reward_weights
from dehla_env.rules import make_rules
from dehla_env.vector import VectorEnv

CASES = [("dehla", {}), ("court-piece", {}), ("coat-pees", {})]


def _rollout(rules, relabel: bool, seen: list | None = None) -> selfplay.Rollout:
    torch.manual_seed(0)
    net = PolicyNet(observation_size(rules), (32,)).eval()

    def policy(o: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        if seen is not None:
            seen.append((o.numpy().copy(), m.numpy().copy()))
        return net.masked_logits(o, m)

    env = VectorEnv(rules, num_envs=24, autoreset_mode="same_step", final_obs=False, copy=False)
    pool = OpponentPool({"self": 0.5, "cardsense": 0.5})
    rng = np.random.default_rng(3)
    opponents = pool.policies(rules, rng, lambda sd: None)
    weights = reward_weights({"win": 1.0}, rules)
    sp = selfplay.SelfPlayEnv(env, pool, opponents, rng=rng, rounds=2, reward=weights, relabel=relabel)
    return selfplay.collect(sp, policy, seed=11)


@pytest.mark.parametrize("rules_name, options", CASES)
def test_the_learner_sees_each_game_under_a_renaming_of_its_suits(rules_name: str, options: dict) -> None:
    """The first positions the learner is shown are the same deals as without renaming
    (the pool's draws come first), each under one of the 24 renamings, not all under the
    identity, the mask renamed with it."""
    rules = make_rules(rules_name, options)
    plain: list = []
    renamed: list = []
    _rollout(rules, False, plain)
    _rollout(rules, True, renamed)
    (o0, m0), (o1, m1) = plain[0], renamed[0]
    assert o0.shape == o1.shape and not np.array_equal(o0, o1)
    t = relabel_tables(rules.players)
    identity = 0
    for row in range(len(o0)):
        fits = [
            p
            for p in range(len(t.obs))
            if np.array_equal(o0[row][t.obs[p]], o1[row]) and np.array_equal(m0[row][t.action_back[p]], m1[row])
        ]
        assert fits, f"row {row} is no renaming of the position dealt"
        identity += 0 in fits and len(fits) == 1
    assert identity < len(o0)


@pytest.mark.parametrize("rules_name, options", CASES)
def test_what_is_stored_is_what_the_learner_saw_and_chose(rules_name: str, options: dict) -> None:
    """On-policy for PPO: each stored move is legal in the stored (renamed) mask, its
    log-probability is the network's on the stored observation, and the privileged
    features are renamed with the observation (the learner's own hand is the same cards
    in both). Every move reached the game in its own names: the env refuses an illegal one
    (R5), and the hands all ended."""
    rules = make_rules(rules_name, options)
    r = _rollout(rules, True)
    assert r.hands == 48 and len(r.action)
    assert r.mask[np.arange(len(r.action)), r.action].all()
    torch.manual_seed(0)
    net = PolicyNet(observation_size(rules), (32,)).eval()
    obs = r.observations(slice(None))
    with torch.no_grad():
        logp = torch.log_softmax(net.masked_logits(torch.from_numpy(obs), torch.from_numpy(r.mask)), -1)
    stored = logp[torch.arange(len(r.action)), torch.from_numpy(r.action)].numpy()
    np.testing.assert_allclose(stored, r.logp, atol=1e-5)
    own_hand = decode(obs, rules.players)["hand"]
    assert np.array_equal(own_hand > 0, r.priv[:, :52] > 0)  # the privileged hands start with the seat's own
