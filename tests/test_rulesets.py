"""The shared ruleset list covers every preset and every mode of every rule fact, so a
mode added to ``rules.py`` is tested everywhere once it is added to ``tests/rulesets.py``."""

from __future__ import annotations

from dehla_env.rules import PRESETS, HandScoring, MatchScoring, TrumpMaking
from tests.rulesets import RULESETS, rules_of


def test_every_preset_and_every_mode_is_in_the_shared_list() -> None:
    rules = [rules_of(config) for config in RULESETS]
    assert {name for name, _ in RULESETS} == set(PRESETS)
    assert {r.trump_making for r in rules} == set(TrumpMaking)
    assert {r.hand_scoring for r in rules} == set(HandScoring)
    assert {r.match_scoring for r in rules} == set(MatchScoring)
    assert {r.players for r in rules} == {4, 6}
