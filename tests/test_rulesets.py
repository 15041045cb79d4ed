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


def test_every_preset_is_registered_everywhere_from_its_table_entry() -> None:
    """A ruleset is one entry of ``PRESET_TABLE``: its rule book part exists, its
    gymnasium id is registered, its options have plain words."""
    import gymnasium

    import agents  # noqa: F401  (registers the gymnasium ids)
    from agents.web.rulebook import rules_text
    from dehla_env.rules import PRESET_TABLE

    headings = {line.split(".")[0].removeprefix("## ") for line in rules_text().splitlines() if line.startswith("## ")}
    for name, preset in PRESET_TABLE.items():
        assert preset.section in headings, name
        assert gymnasium.spec(preset.gym_id).kwargs.get("rules") == name
        assert all(spec.label and spec.help for spec in preset.options.values()), name
