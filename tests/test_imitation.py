"""The warm start: the teacher's hands recorded, then fitted by cross-entropy (the policy)
and regression (the critic), in float32 or in bfloat16 autocast."""

from __future__ import annotations

import pytest
import torch

from agents.nets.policy import PolicyNet, ValueNet
from agents.training import imitation
from agents.training.runs import Stop
from dehla_env.encoding import observation_size, privileged_size
from dehla_env.rules import make_rules


@pytest.mark.parametrize("bf16", [False, True], ids=["float32", "bfloat16"])
def test_the_fit_learns_the_teachers_moves_and_keeps_float32_weights(bf16: bool) -> None:
    """Ten passes over 40 hands of ``hard`` make the policy agree with more of its moves
    than it did after the first; in bfloat16 the weights (what the trainer saves and the
    PPO update reads) stay float32."""
    rules = make_rules("dehla")
    tasks = imitation.teacher_tasks(rules, "hard", seed=3, hands=40, reward={"win": 1.0}, workers=1)
    data = imitation.record(lambda f, ts: [f(t) for t in ts], tasks)
    torch.manual_seed(0)
    policy = PolicyNet.for_rules(rules, (64, 64), True, "suits")
    critic = ValueNet(observation_size(rules) + privileged_size(rules), (64,))
    opt = torch.optim.Adam([*policy.parameters(), *critic.parameters()], lr=3e-3)
    accuracy = []
    for _ in range(2):
        settings = imitation.FitSettings(rules.players, epochs=5, minibatch_size=256, bf16=bf16)
        gen = torch.Generator().manual_seed(1)
        accuracy.append(imitation.fit(policy, critic, opt, data, settings, gen=gen, stop=Stop(), log=lambda *_: None))
    assert accuracy[1] > accuracy[0] > 0.2
    assert all(p.dtype == torch.float32 for p in [*policy.parameters(), *critic.parameters()])
