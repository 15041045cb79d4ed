"""The rulesets every "in every ruleset" test runs: one list, so that a new ruleset or
mode is one line here (``tests/test_rulesets.py`` fails until it is). A test that needs
more options (a short match, an env option) adds them to entries (:func:`with_options`,
:func:`short_matches`); none keeps a list of its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dehla_env.rules import Rules, TrumpMaking, make_rules

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


def ruleset_id(config: tuple[str, dict[str, Any]]) -> str:
    """A test id: ``dehla-direct-trump=closed``."""
    name, options = config
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def rules_of(config: tuple[str, dict[str, Any]]) -> Rules:
    return make_rules(config[0], **config[1])


#: the four-player ones (the solver, the sampler and the batched search are four-player)
FOUR_PLAYER = [config for config in RULESETS if rules_of(config).players == 4]


def with_options(extra: Mapping[str, Sequence[dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Every entry of :data:`RULESETS`, once with each option set ``extra`` adds to it
    (keyed by :func:`ruleset_id`; ``{}`` runs it as it is, and so does an entry ``extra``
    does not name; a key that names no entry fails)."""
    entries = {ruleset_id(config): config for config in RULESETS}
    unknown = sorted(set(extra) - set(entries))
    assert not unknown, f"options added to rulesets that tests/rulesets.py does not list: {unknown}"
    out = []
    for key, (name, options) in entries.items():
        out += [(name, {**options, **more}) for more in extra.get(key, [{}])]
    return out


def short_matches() -> list[tuple[str, dict[str, Any], int]]:
    """Every entry of :data:`RULESETS` as a match of one hand (R1.9, R2.6, R3.6, R4.5
    ``max_hands``), with a person's seat that goes round the table from entry to entry."""
    out = []
    for i, (name, options) in enumerate(RULESETS):
        rules = rules_of((name, options))
        out.append((name, {**options, "max_hands": 1}, i % rules.players))
    return out


def first_of_each(configs: Sequence[tuple[str, dict[str, Any]]] = RULESETS) -> list[tuple[str, dict[str, Any]]]:
    """The first entry of each preset in ``configs``: one game of each kind, for the checks
    too slow to run on every entry."""
    firsts: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, options in configs:
        firsts.setdefault(name, (name, options))
    return list(firsts.values())


def one_per_table_size() -> list[tuple[str, dict[str, Any]]]:
    """The first entry of each table size (four players, six): for the checks where only
    the deck and the seats differ, such as the deals."""
    firsts: dict[int, tuple[str, dict[str, Any]]] = {}
    for config in RULESETS:
        firsts.setdefault(rules_of(config).players, config)
    return list(firsts.values())


def hidden_information() -> list[tuple[str, dict[str, Any]]]:
    """The first entry of each preset, and every entry whose trump is chosen in secret
    (R2.4c): the information-fairness checks, where what a seat cannot see differs."""
    firsts = first_of_each(FOUR_PLAYER)
    return [c for c in FOUR_PLAYER if c in firsts or rules_of(c).trump_making is TrumpMaking.CLOSED]
