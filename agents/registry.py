"""Agents by name, as the arena and the terminal game accept them.

Spec strings: ``random``, ``easy``, ``medium``, ``hard``, ``search`` with parameters
(``search:k=16,depth=5``) and ``policy:PATH`` (a trained checkpoint). ``make_agent``
builds a fresh, seeded agent from a spec; each name maps to a factory registered with
:func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable

from dehla_env.rules import Rules

from .base import Agent, RandomAgent

AgentFactory = Callable[[Rules, dict[str, str], "int | None"], Agent]

_FACTORIES: dict[str, AgentFactory] = {}


def register(name: str, factory: AgentFactory) -> None:
    """Make ``name`` (and ``name:key=value,...``) available to :func:`make_agent`."""
    _FACTORIES[name] = factory


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"search:k=16,depth=5"`` -> ``("search", {"k": "16", "depth": "5"})``;
    ``"policy:agents/checkpoints/dehla.pt"`` -> ``("policy", {"path": ...})``."""
    name, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    if rest:
        if "=" not in rest:
            params["path"] = rest
        else:
            for part in rest.split(","):
                key, sep, value = part.partition("=")
                if not sep:
                    raise ValueError(f"agent parameter {part!r} in {spec!r} is not key=value")
                params[key.strip()] = value.strip()
    return name, params


# Agents whose modules are heavy to import (torch) register on first use.
_LAZY = {"policy": "agents.policy", "search": "agents.search"}


def known_agents() -> list[str]:
    _load_builtin()
    return sorted(set(_FACTORIES) | set(_LAZY))


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """A new agent for ``rules`` from a spec string (see the module docstring)."""
    _load_builtin()
    name, params = parse_spec(spec)
    if name not in _FACTORIES and name in _LAZY:
        __import__(_LAZY[name])
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    agent = _FACTORIES[name](rules, params, seed)
    agent.name = spec
    return agent


def _load_builtin() -> None:
    """Import the modules that register the built-in agents (lazily: torch is heavy)."""
    if "random" not in _FACTORIES:
        register("random", lambda rules, params, seed: RandomAgent(seed))
        from . import heuristic  # noqa: F401  (registers easy, medium, hard)
