"""Rule configurations: one frozen, validated ``Rules`` per ruleset and options.

Build one with :func:`make_rules` (``make_rules("dehla", trump="chosen", kots=3)``).
Every option of ``RULES.md`` is a typed field; an unknown option or a bad value raises
:class:`RulesError` at construction, so a ``Rules`` that exists is always playable.
The derived game facts (players, packs, tricks per hand, staged deal, middle pile)
are properties, computed once, so the engine never re-derives them on its hot path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

PRESETS = ("dehla", "dehla-direct", "court-piece", "coat-pees")


class RulesError(ValueError):
    """An unknown ruleset, an unknown option, or a bad option value."""


@dataclass(frozen=True)
class _Option:
    default: Any
    choices: tuple[Any, ...] | None = None  # allowed values for a string/int choice
    minimum: int | None = None  # for integers
    nullable: bool = False  # whether ``None`` is allowed (R4.5 max_hands)
    kind: type = str


_INT_1 = dict(kind=int, minimum=1)

# Which options each preset accepts, with defaults (RULES.md R1.4, R1.9, R2.4-R2.8,
# R3.4, R3.6, R4.5).
_PRESET_OPTIONS: dict[str, dict[str, _Option]] = {
    "dehla": {
        "trump": _Option("first-void", ("first-void", "chosen")),
        "kots": _Option(2, **_INT_1),  # type: ignore[arg-type]
        "max_hands": _Option(40, **_INT_1),  # type: ignore[arg-type]
    },
    "dehla-direct": {
        "trump": _Option("first-void", ("first-void", "open", "closed", "named")),
        "scoring": _Option("tens", ("tens", "tricks", "double-sar")),
        "match": _Option("streak", ("streak", "points")),
        "streak": _Option(7, **_INT_1),  # type: ignore[arg-type]
        "points": _Option(7, **_INT_1),  # type: ignore[arg-type]
        "max_hands": _Option(40, **_INT_1),  # type: ignore[arg-type]
        "players": _Option(4, (4, 6), kind=int),
    },
    "court-piece": {
        "defender_kot": _Option(False, kind=bool),
        "points": _Option(7, **_INT_1),  # type: ignore[arg-type]
        "max_hands": _Option(40, **_INT_1),  # type: ignore[arg-type]
    },
    "coat-pees": {
        "gap": _Option(52, **_INT_1),  # type: ignore[arg-type]
        "max_hands": _Option(None, nullable=True, **_INT_1),  # type: ignore[arg-type]
    },
}


@dataclass(frozen=True)
class Rules:
    """One ruleset with its options. Fields not used by the preset keep their default.

    Use :func:`make_rules`; the constructor does not validate.
    """

    name: str = "dehla"
    trump: str = "first-void"  # R1.4 / R2.4; "named" for court-piece and coat-pees
    scoring: str = "tens"  # R2.5; "tricks" for court-piece, "contract" for coat-pees
    match: str = "kots"  # "kots" (R1.9), "streak"/"points" (R2.6), "points" (R3.6), "gap" (R4.5)
    kots: int = 2
    streak: int = 7
    points: int = 7
    gap: int = 52
    max_hands: int | None = 40
    players: int = 4
    defender_kot: bool = False
    options: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    # ----- derived facts ------------------------------------------------------------
    @property
    def packs(self) -> int:
        """R2.8: three packs for six players."""
        return 3 if self.players == 6 else 1

    @property
    def deck_size(self) -> int:
        return 52 * self.packs

    @property
    def hand_size(self) -> int:
        return self.deck_size // self.players

    @property
    def num_tricks(self) -> int:
        return self.hand_size

    @property
    def num_tens(self) -> int:
        return 4 * self.packs

    @property
    def staged_deal(self) -> bool:
        """R1.3, R3.1, R4.1: five each first, the rest after the trump is made."""
        return self.name != "dehla-direct"

    @property
    def has_middle(self) -> bool:
        """R1.5: only Dehla Pakad's standard rules pile won tricks in the middle."""
        return self.name == "dehla"

    @property
    def tens_scoring(self) -> bool:
        return self.name == "dehla" or (self.name == "dehla-direct" and self.scoring != "tricks")

    def option_dict(self) -> dict[str, Any]:
        """Every option of this preset with its value (defaults filled in)."""
        return {k: getattr(self, k) for k in _PRESET_OPTIONS[self.name]}

    def __str__(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.option_dict().items())
        return f"{self.name}({opts})"


def preset_options(name: str) -> dict[str, Any]:
    """The options a preset accepts and their defaults."""
    if name not in _PRESET_OPTIONS:
        raise RulesError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
    return {k: o.default for k, o in _PRESET_OPTIONS[name].items()}


def _check_value(name: str, key: str, spec: _Option, value: Any) -> Any:
    if value is None:
        if spec.nullable:
            return None
        raise RulesError(f"{name}: option {key!r} may not be null")
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"{name}: option {key!r} must be true or false, not {value!r}")
        return value
    if spec.kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{name}: option {key!r} must be an integer, not {value!r}")
        if spec.minimum is not None and value < spec.minimum:
            raise RulesError(f"{name}: option {key!r} must be at least {spec.minimum}, not {value}")
    elif not isinstance(value, str):
        raise RulesError(f"{name}: option {key!r} must be a string, not {value!r}")
    if spec.choices is not None and value not in spec.choices:
        allowed = ", ".join(str(c) for c in spec.choices)
        raise RulesError(f"{name}: option {key!r} must be one of {allowed}, not {value!r}")
    return value


def make_rules(name: str = "dehla", options: Mapping[str, Any] | None = None, **kwargs: Any) -> Rules:
    """Build and validate the rules for preset ``name``.

    Options come from ``options`` (a mapping, as in an R6 record) and/or keyword
    arguments; underscores and hyphens in keys are interchangeable in keywords.
    """
    if name not in _PRESET_OPTIONS:
        raise RulesError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
    given: dict[str, Any] = dict(options or {})
    for k, v in kwargs.items():
        given[k.replace("-", "_")] = v
    specs = _PRESET_OPTIONS[name]
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise RulesError(f"{name}: unknown option(s) {', '.join(unknown)}; known: {', '.join(specs)}")
    values = {k: _check_value(name, k, spec, given.get(k, spec.default)) for k, spec in specs.items()}

    base: dict[str, Any] = {"name": name}
    if name == "dehla":
        base.update(match="kots", scoring="tens")
    elif name == "dehla-direct":
        pass  # trump, scoring, match, streak, points, players come from the options
    elif name == "court-piece":
        base.update(trump="named", scoring="tricks", match="points")
    else:  # coat-pees
        base.update(trump="named", scoring="contract", match="gap")
    base.update(values)
    base["options"] = tuple(sorted(values.items()))
    field_names = {f.name for f in fields(Rules)}
    return Rules(**{k: v for k, v in base.items() if k in field_names})
