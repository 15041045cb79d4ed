"""Suit relabelling maps a position to the position of the relabelled deal."""

from __future__ import annotations

import numpy as np
import pytest

from dehla_env import MatchState, make_rules
from dehla_env.augment import ALL_PERMUTATIONS, relabel
from dehla_env.encoding import ObservationEncoder
from tests.rulesets import FOUR_PLAYER, ruleset_id


@pytest.mark.parametrize(("name", "options"), FOUR_PLAYER, ids=[ruleset_id(c) for c in FOUR_PLAYER])
def test_relabelled_observation_equals_observation_of_the_relabelled_game(name: str, options: dict) -> None:
    rules = make_rules(name, options)
    rng = np.random.default_rng(5)
    for perm in (ALL_PERMUTATIONS[7], ALL_PERMUTATIONS[23]):
        cmap = [perm[c // 13] * 13 + c % 13 for c in range(52)]
        a = MatchState(rules, 1)
        b = MatchState(rules, 1)
        deck = [int(c) for c in rng.permutation(52)]
        a.apply_deal(deck)
        b.apply_deal([cmap[c] for c in deck])
        ea, eb = ObservationEncoder(rules), ObservationEncoder(rules)
        while not a.hand.complete:
            if a.is_chance():
                cands = a.hand.draw_candidates()
                c = cands[0]
                a.apply_draw(c)
                b.apply_draw(cmap[c])
                continue
            seat = a.current_player()
            obs, mask = ea.encode(a, seat), a.legal_mask()
            legal = a.legal_actions()
            act = legal[int(rng.integers(len(legal)))]
            o2, m2, a2 = relabel(obs[None], mask[None], np.array([act]), perm)
            assert np.array_equal(o2[0], eb.encode(b, seat))
            assert np.array_equal(m2[0], b.legal_mask())
            a.apply_action(act)
            b.apply_action(int(a2[0]))
        assert a.hand.tens == b.hand.tens and a.hand.trick_winners == b.hand.trick_winners
