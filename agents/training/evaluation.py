"""The trainer's evaluation: the arena's duel of the network in memory.

The policy being trained plays each ``eval_opponents`` spec on the arena's duplicate
deals (:mod:`agents.arena`: deal ``i``'s deck, dealer and chance from the seed, both
ways round, each seat's agent seeded as the arena seeds it) and the figure is the
arena's (:func:`agents.arena.stats.ratio_ci` of hands won over deals). The network is a
:class:`~agents.nets.policy.PolicyAgent` around the learner's CPU copy, so nothing is
written for it: the figure is the one ``run_duel`` gives for a policy file of the same
weights (``tests/test_train.py`` checks it).
"""

from __future__ import annotations

import numpy as np
import torch

from agents.arena.deals import agent_seed, chance_rng, deal_dealer, deal_deck, seat_specs
from agents.arena.play import play_hand
from agents.arena.pool import torch_on_one_thread
from agents.arena.stats import Estimate, ratio_ci
from agents.base import Agent
from agents.nets.policy import PolicyAgent, PolicyNet
from agents.registry import make_agent
from dehla_env.engine import DRAWN
from dehla_env.rules import Rules

#: the seat spec of the network being evaluated (side A of the duel)
LEARNER = "learner"


def duel_win_rate(rules: Rules, net: PolicyNet, opponent: str, *, deals: int, seed: int) -> Estimate:
    """The share of hands ``net`` (greedy, as ``policy:PATH``) wins against ``opponent``
    over ``deals`` duplicate deals of ``seed``, no winner counting half, with the arena's
    interval."""
    won, played = np.zeros(deals), np.zeros(deals)

    def agent(spec: str, index: int, seat: int) -> Agent:
        s = agent_seed(seed, index, seat)
        return PolicyAgent(None, rules, s, net=net) if spec == LEARNER else make_agent(spec, rules, s)

    with torch.no_grad(), torch_on_one_thread():  # as the arena plays a network in this process
        for index in range(deals):
            deck, dealer = deal_deck(rules, seed, index), deal_dealer(rules, index)
            for game in (0, 1):  # A on the even seats, then on the odd ones
                specs = seat_specs(rules.players, game, LEARNER, opponent)
                seats = [agent(spec, index, s) for s, spec in enumerate(specs)]
                out = play_hand(rules, deck, dealer, seats, chance_rng(seed, index))
                won[index] += 0.5 if out.winner in (None, DRAWN) else float(out.winner == game)
                played[index] += 1
    return ratio_ci(won, played)
