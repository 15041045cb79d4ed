"""The rulesets every "in every ruleset" test runs: one list, so that a new ruleset or
mode is one line here (``tests/test_rulesets.py`` fails until it is)."""

from __future__ import annotations

from typing import Any

from dehla_env.rules import Rules, make_rules

#: every preset with each value of its main options (R1.4, R2.4, R2.5, R2.6, R2.8, R3.4)
RULESETS: list[tuple[str, dict[str, Any]]] = [
    ("dehla", {}),
    ("dehla", {"trump": "chosen"}),
    ("dehla-direct", {}),
    ("dehla-direct", {"trump": "open"}),
    ("dehla-direct", {"trump": "closed"}),
    ("dehla-direct", {"trump": "named"}),
    ("dehla-direct", {"scoring": "tricks"}),
    ("dehla-direct", {"scoring": "double-sar"}),
    ("dehla-direct", {"match": "points"}),
    ("dehla-direct", {"players": 6}),
    ("court-piece", {}),
    ("court-piece", {"defender_kot": True}),
    ("coat-pees", {}),
]

#: the four-player ones (the solver, the sampler and the batched search are four-player)
FOUR_PLAYER = [(name, options) for name, options in RULESETS if options.get("players", 4) == 4]


def ruleset_id(config: tuple[str, dict[str, Any]]) -> str:
    """A test id: ``dehla-direct-trump=closed``."""
    name, options = config
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def rules_of(config: tuple[str, dict[str, Any]]) -> Rules:
    return make_rules(config[0], **config[1])
