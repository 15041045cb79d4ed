"""The trainer's evaluation: the arena's duel of the network in memory.

The policy being trained plays each ``eval_opponents`` spec on the arena's duplicate
deals (:mod:`agents.arena`: deal ``i``'s deck, dealer and chance from the seed, both
ways round, each seat's agent seeded as the arena seeds it) and the figure is the
arena's (:func:`agents.playing.stats.ratio_ci` of hands won over deals). The network is a
:class:`~agents.nets.policy.PolicyAgent` around the learner's CPU copy
(:func:`agents.playing.duel.duel_in_process`), so nothing is
written for it: the figure is the one ``run_duel`` gives for a policy file of the same
weights (``tests/test_train.py`` checks it).
"""

from __future__ import annotations

import torch

from agents.nets.agent import PolicyAgent
from agents.nets.policy import PolicyNet
from agents.playing.duel import duel_in_process
from agents.playing.pool import torch_on_one_thread
from agents.playing.stats import Estimate
from dehla_env.rules import Rules


def duel_win_rate(rules: Rules, net: PolicyNet, opponent: str, *, deals: int, seed: int) -> Estimate:
    """The share of hands ``net`` (greedy, as ``policy:PATH``) wins against ``opponent``
    over ``deals`` duplicate deals of ``seed``, no winner counting half, with the arena's
    interval."""
    with torch.no_grad(), torch_on_one_thread():  # as the arena plays a network in this process
        return duel_in_process(rules, lambda s: PolicyAgent(None, rules, s, net=net), opponent, deals=deals, seed=seed)
