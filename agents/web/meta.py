"""What the setup form offers: every ruleset and option of RULES.md, and agent specs.

The form is built from this, so a new option in ``dehla_env.rules`` shows up without
touching the page: option choices and bounds come from ``rules.option_specs``, and
``make_rules`` validates whatever is sent.
"""

from __future__ import annotations

from typing import Any

from dehla_env.rules import PRESET_TITLES, PRESETS
from dehla_env.rules import option_specs as rule_option_specs

from ..registry import AGENTS, SHIPPED_POLICIES

# Offered in the form's lists; any spec that make_agent accepts may be typed instead.
SEARCH_AGENTS = ("search:k=16", "search:k=48,depth=5,budget_ms=100")


def option_specs(name: str) -> dict[str, dict[str, Any]]:
    """``{option: {default, kind, choices, minimum, nullable}}`` for preset ``name``."""
    out: dict[str, dict[str, Any]] = {}
    for key, spec in rule_option_specs(name).items():
        out[key] = {
            "default": spec.default,
            "kind": "bool" if spec.kind is bool else "int" if spec.kind is int else "str",
            "choices": list(spec.choices) if spec.choices else None,
            "minimum": spec.minimum,
            "nullable": spec.nullable,
        }
    return out


def policy_specs() -> list[str]:
    """A ``policy:NAME`` spec for each policy shipped with the package."""
    return [f"policy:{path.stem}" for path in sorted(SHIPPED_POLICIES.glob("*.pt"))]


def agent_names() -> list[str]:
    """The agent names that take no parameters, for the suggestions list."""
    return [name for name, entry in AGENTS.items() if not entry.params]


def meta() -> dict[str, Any]:
    return {
        "rulesets": {name: {"title": PRESET_TITLES[name], "options": option_specs(name)} for name in PRESETS},
        "agents": [*agent_names(), *SEARCH_AGENTS, *policy_specs()],
    }


__all__ = ["agent_names", "meta", "option_specs", "policy_specs"]
