"""What the setup form offers: every ruleset and option of RULES.md, and agent specs.

The form is built from this, so a new option in ``dehla_env.rules`` shows up without
touching the page: option choices and bounds come from ``rules.option_specs``, and
``make_rules`` validates whatever is sent. Each ruleset of the benchmark comes with its
default bot (:func:`agents.registry.default_bot`) and its bots by measured strength: the
ratings of the benchmark's published reference ladder (:mod:`agents.playing.ladder`,
with the command that measured them), strongest first.
"""

from __future__ import annotations

from typing import Any

from agents.playing.deal_sets import PRESETS as BENCH_PRESETS
from agents.playing.deal_sets import Preset
from agents.playing.ladder import published
from agents.registry import AGENTS, default_bot, shipped_policies
from agents.web.rulebook import PRESET_SECTIONS
from dehla_env.rules import PRESET_DESCRIPTIONS, PRESET_TITLES, PRESETS
from dehla_env.rules import option_specs as rule_option_specs

# Offered in the form's lists; any spec that make_agent accepts may be typed instead.
SEARCH_AGENTS = ("search:k=16", "search:k=48,depth=5,budget_ms=100")


def option_specs(name: str) -> dict[str, dict[str, Any]]:
    """``{option: {default, kind, choices, minimum, nullable, label, help, choice_help}}`` for
    preset ``name``; ``choice_help`` is keyed by the choice's text (JSON keys are text)."""
    out: dict[str, dict[str, Any]] = {}
    for key, spec in rule_option_specs(name).items():
        out[key] = {
            "default": spec.default,
            "kind": "bool" if spec.kind is bool else "int" if spec.kind is int else "str",
            "choices": list(spec.choices) if spec.choices else None,
            "minimum": spec.minimum,
            "nullable": spec.nullable,
            "label": spec.label or key.replace("_", " "),
            "help": spec.help,
            "choice_help": {str(value): text for value, text in spec.choice_help} or None,
        }
    return out


# What each suggested agent is, for a newcomer choosing a partner and opponents.
AGENT_HELP = {
    "random": "plays any legal card at random (for testing)",
    "easy": "a beginner: plays low and gives tens away",
    "medium": "a fair player: the hard bot with some beginner's moves mixed in",
    "hard": "the strongest rule-based bot: counts cards and guards the tens",
    "search:k=8,depth=3": "looks ahead by playing out 8 possible deals for each move, the last 3 tricks exactly",
    "search:k=16": "looks ahead by playing out 16 possible deals for each move: strong, a little slower",
    "search:k=48,depth=5,budget_ms=100": "looks ahead on up to 48 deals, at most 0.1 s a move: stronger still",
}


def agent_help(specs: list[str]) -> dict[str, str]:
    """A plain-words line for each agent spec in ``specs``: the table above, a trained
    policy's own line, or else the agent table's summary of the spec's name."""
    out: dict[str, str] = {}
    for spec in specs:
        name = spec.partition(":")[0]
        if spec in AGENT_HELP:
            out[spec] = AGENT_HELP[spec]
        elif name == "policy":
            out[spec] = "a trained neural network, for the ruleset it was trained on"
        elif name in AGENTS:
            out[spec] = AGENTS[name].summary
    return out


def ranked_bots(preset: Preset) -> list[dict[str, Any]]:
    """The bots of ``preset``'s published reference ladder, strongest first: spec,
    rating and a plain line."""
    ladder = published(preset)
    r = ladder.ratings
    lines = agent_help(list(r.names))
    where = f"on the {ladder.preset} ladder (random: 0)"
    return [
        {"spec": spec, "rating": round(elo), "line": f"{lines.get(spec, spec)}; rated {elo:.0f} {where}"}
        for spec, elo in ((r.names[i], r.elo[i]) for i in r.order())
    ]


def bots_by_rules() -> list[dict[str, Any]]:
    """For each ruleset of the benchmark (its name and every option): the default bot
    and the bots by measured strength, so that a page shows them for the options in its
    form, as the server decides them."""
    out = []
    for preset in BENCH_PRESETS.values():
        rules = preset.rules()
        bots = {"default_bot": default_bot(rules), "bots": ranked_bots(preset)}
        out.append({"rules": rules.name, "options": rules.option_dict(), **bots})
    return out


def meta() -> dict[str, Any]:
    out: dict[str, Any] = {
        "rulesets": {
            name: {
                "title": PRESET_TITLES[name],
                "description": PRESET_DESCRIPTIONS[name],
                "section": PRESET_SECTIONS[name],  # its part of the rule book page, an anchor
                "options": option_specs(name),
            }
            for name in PRESETS
        },
        "agents": [  # the parameterless agents, then searches and the shipped policies
            *(name for name, entry in AGENTS.items() if not entry.params),
            *SEARCH_AGENTS,
            *(f"policy:{name}" for name in shipped_policies()),
        ],
        "bots_by_rules": bots_by_rules(),
    }
    out["agent_help"] = agent_help(out["agents"])
    return out


__all__ = ["AGENT_HELP", "agent_help", "bots_by_rules", "meta", "option_specs"]
