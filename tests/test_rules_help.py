"""Every ruleset and option says what it means in plain words (``dehla_env.rules``), so
a setup form or a command line can explain it without RULES.md at hand."""

from __future__ import annotations

import re

import pytest

from dehla_env.rules import PRESET_DESCRIPTIONS, PRESET_TITLES, PRESETS, option_specs

OPTIONS = [(name, key) for name in PRESETS for key in option_specs(name)]


@pytest.mark.parametrize(("name", "key"), OPTIONS, ids=[f"{n}.{k}" for n, k in OPTIONS])
def test_every_option_has_a_label_and_help(name: str, key: str) -> None:
    spec = option_specs(name)[key]
    assert spec.label and spec.label[0].isupper() and "_" not in spec.label
    assert len(spec.help) >= 30 and spec.help.endswith("."), spec.help
    for choice in spec.choices or ():
        assert len(dict(spec.choice_help).get(choice, "")) >= 20, f"{name}.{key}={choice} has no plain-words text"
    assert {value for value, _ in spec.choice_help} <= set(spec.choices or ())  # no text for a value not offered


def test_every_ruleset_has_a_plain_title_and_description() -> None:
    assert set(PRESET_TITLES) == set(PRESET_DESCRIPTIONS) == set(PRESETS)
    for name in PRESETS:
        title = PRESET_TITLES[name]
        assert re.search(r"\(R\d\)$", title), title  # the R-number leads to its part of RULES.md
        assert ":" not in title  # a name, not "R1: the middle pile"
        assert len(PRESET_DESCRIPTIONS[name]) >= 60
