"""The one shuffle (R0.3, dehla_env.cards.shuffled_deck): one seed deals one deck, in
the engine, the AEC env and the batched engine alike."""

from __future__ import annotations

import numpy as np
import pytest

from dehla_env import MatchState, make_rules, raw_env
from dehla_env.cards import NUM_CARDS, shuffled_deck
from dehla_env.vector import vector_env
from tests.rulesets import RULESETS, ruleset_id


@pytest.mark.parametrize(("name", "options"), RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_one_seed_deals_the_same_first_hand_everywhere(name: str, options: dict) -> None:
    rules = make_rules(name, options)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        env = raw_env(rules=name, **options)
        env.reset(seed=seed)
        venv = vector_env(name, num_envs=3, seed=seed, **options)
        venv.reset()
        assert env.match is not None and match.hand.deck is not None
        assert env.match.hand.deck == match.hand.deck
        assert env.match.hand.dealer == match.hand.dealer
        assert venv.engine.deck[0].tolist() == list(match.hand.deck)
        assert int(venv.engine.dealer[0]) == match.hand.dealer


def test_a_shuffle_is_a_permutation_of_the_packs() -> None:
    rng = np.random.default_rng(0)
    for packs in (1, 3):
        deck = shuffled_deck(rng, packs)
        assert sorted(deck) == sorted(list(range(NUM_CARDS)) * packs)
