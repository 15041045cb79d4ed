"""``benchmarks/search_ceiling.py``: its searcher's worlds are the true deal, and only
in the processes where the swap is installed."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import agents.playing.loop as play_loop
from agents.bots import sampler
from dehla_env import MatchState, make_rules
from dehla_env.cards import shuffled_deck
from tests.rulesets import FOUR_PLAYER, first_of_each
from tests.scripts import load_script


def _load() -> ModuleType:
    return load_script("benchmarks/search_ceiling.py")


@pytest.mark.parametrize("ruleset", [name for name, _ in first_of_each(FOUR_PLAYER)])
def test_the_ceiling_searcher_samples_the_true_deal(ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # restored after the test: the swap must not leak into other tests
    monkeypatch.setattr(play_loop, "view_of", play_loop.view_of)
    monkeypatch.setattr(sampler.WorldSampler, "sample", sampler.WorldSampler.sample)
    rules = make_rules(ruleset)
    rng = np.random.default_rng(3)
    match = MatchState(rules, 0)
    match.apply_deal(shuffled_deck(rng))
    fair = sampler.WorldSampler(play_loop.view_of(match, 1)).sample(rng)
    assert fair.hands != tuple(match.hand.hands)  # a fair world is almost surely another deal

    _load()._install_oracle()
    for _ in range(6):  # a few moves in, the deal is still the true one
        view = play_loop.view_of(match, match.hand.to_act)
        worlds = sampler.WorldSampler(view)
        deal = worlds.sample(rng)
        assert deal.hands == tuple(match.hand.hands)
        assert worlds.world(deal).hands == match.hand.hands
        match.apply_action(view.legal_actions[0])
