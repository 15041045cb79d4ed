"""Rule configurations: one frozen, validated ``Rules`` per ruleset and options.

Build one with :func:`make_rules` (``make_rules("dehla", trump="chosen", kots=3)``).
Every option of ``RULES.md`` is a typed field; an unknown option or a bad value raises
:class:`RulesError` at construction, so a ``Rules`` that exists is always playable.

The game's facts are declared here once, as typed fields computed by
:func:`make_rules` (as OpenSpiel declares a game's facts up front): how trump is made
(:class:`TrumpMaking`), how won tricks are captured (``has_middle``), how a hand and a
match are scored (:class:`HandScoring`, :class:`MatchScoring`), when a round ends early,
the streak that makes a kot, the packs. Everything else (engine, envs, encoders, bots)
reads these facts; this module is the only place that looks at a ruleset's name or an
option's string value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypedDict


class RulesError(ValueError):
    """An unknown ruleset, an unknown option, or a bad option value."""


class TrumpMaking(Enum):
    """How the hand's trump is made, and by whom."""

    FIRST_VOID = "first-void"  # R1.4, R2.4a: the first card played by a seat unable to follow
    CHOSEN = "chosen"  # R1.4 chosen, R3.1: dealer+1 names it on its first five cards, then leads
    OPEN = "open"  # R2.4b: dealer+2 names it on its 13 cards; dealer+1 leads
    CLOSED = "closed"  # R2.4c: the first seat unable to follow chooses it in secret
    NAMED = "named"  # R2.4d: the first seat unable to follow names it aloud, in force at once
    BIDDING = "bidding"  # R4.2: the highest bid's suit; after four passes dealer+1 names it

    @property
    def by_first_void(self) -> bool:
        """Whether a seat unable to follow makes a trump decision before its card (R2.4c/d)."""
        return self is TrumpMaking.CLOSED or self is TrumpMaking.NAMED


class HandScoring(Enum):
    """Who wins a hand (round)."""

    DEHLA_TENS = "dehla-tens"  # R1.6: 3 or 4 tens win; 2-2 goes to the side that did not deal
    TENS = "tens"  # R2.5 tens: 3 or 4 tens win; 2-2 is no winner
    TRICKS = "tricks"  # R2.5 tricks: more tricks win; tens count for nothing
    DOUBLE_SAR = "double-sar"  # R2.5 double-sar: a ten 2 points, any other card 1
    FIRST_TO_SEVEN = "first-to-seven"  # R3.3: the first side to 7 tricks; the round ends there
    CONTRACT = "contract"  # R4.4: the bidding side makes its bid or not


class MatchScoring(Enum):
    """How hands add up to a match."""

    KOTS = "kots"  # R1.8-R1.9: kots (four tens, or seven hands in a row) up to ``kots``
    STREAK = "streak"  # R2.6 streak: four tens at once, or ``streak`` rounds in a row
    ROUND_POINTS = "round-points"  # R2.6 points: a point a round up to ``points``; four tens at once
    COURT_POINTS = "court-points"  # R3.6: a point a round, one more for a kot, up to ``points``
    GAP = "gap"  # R4.5: the bid scores; ``gap`` points behind loses


@dataclass(frozen=True)
class OptionSpec:
    """One option of a preset: its default, what values it takes, and what it means.

    ``label`` and ``help`` are plain words for people choosing an option (the browser's
    setup form, command-line help), so a newcomer never needs RULES.md to read them;
    ``choice_help`` says the same of each choice, as ``(value, text)`` pairs (a tuple,
    so the spec stays hashable).
    """

    default: Any
    choices: tuple[Any, ...] | None = None  # allowed values for a string/int choice
    minimum: int | None = None  # for integers
    nullable: bool = False  # whether ``None`` is allowed (R4.5 max_hands)
    kind: type = str
    label: str = ""  # a short name for people ("Kots to win")
    help: str = ""  # what the option does, in a sentence or two, citing its rule
    choice_help: tuple[tuple[Any, str], ...] = ()  # (choice, what it means) for each choice


_INT_1 = dict(kind=int, minimum=1)

# The plain words shared by several presets' options.
_FIRST_VOID = "The first player who cannot follow suit plays any card, and that card's suit becomes trump."
_KOT = "A kot is a big win: taking all four tens in one hand, or winning seven hands in a row."
_TRUMP_LABEL = "How trump is made"

# Which options each preset accepts, with defaults (RULES.md R1.4, R1.9, R2.4-R2.8,
# R3.4, R3.6, R4.5), and what each means in plain words.
_PRESET_OPTIONS: dict[str, dict[str, OptionSpec]] = {
    "dehla": {
        "trump": OptionSpec(
            "first-void",
            ("first-void", "chosen"),
            label=_TRUMP_LABEL,
            help="Trump is the suit that beats every other suit for the rest of the hand (R1.4).",
            choice_help=(
                ("first-void", _FIRST_VOID),
                ("chosen", "The player on the dealer's right picks trump after seeing their first five cards."),
            ),
        ),
        "kots": OptionSpec(
            2,
            label="Kots to win",
            help=f"{_KOT} The first pair to this many kots wins the match: 1 short, 2 usual, 3 long (R1.9).",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "max_hands": OptionSpec(
            40,
            label="Hand limit",
            help="The match stops after this many hands: the pair with more kots wins, equal kots is a draw (R1.9).",
            **_INT_1,  # type: ignore[arg-type]
        ),
    },
    "dehla-direct": {
        "trump": OptionSpec(
            "first-void",
            ("first-void", "open", "closed", "named"),
            label=_TRUMP_LABEL,
            help="Trump is the suit that beats every other suit for the rest of the round (R2.4).",
            choice_help=(
                ("first-void", _FIRST_VOID),
                ("open", "Before play, the dealer's partner looks at all their cards and names trump."),
                (
                    "closed",
                    "The first player who cannot follow suit picks trump in secret; it counts only from the next "
                    "time that player cannot follow, when it is shown to everyone.",
                ),
                ("named", "The first player who cannot follow suit names any suit as trump, at once."),
            ),
        ),
        "scoring": OptionSpec(
            "tens",
            ("tens", "tricks", "double-sar"),
            label="Who wins a round",
            help="What decides each round (R2.5).",
            choice_help=(
                ("tens", "The pair with three or four of the tens wins; two each is nobody's round."),
                ("tricks", "The pair with more tricks wins; tens count for nothing."),
                ("double-sar", "Each ten taken is worth 2 points, every other card 1; more points win."),
            ),
        ),
        "match": OptionSpec(
            "streak",
            ("streak", "points"),
            label="How the match is won",
            help="Either way, taking all four tens in one round wins the match at once (R2.6).",
            choice_help=(
                ("streak", "Win a number of rounds in a row (see Rounds in a row)."),
                ("points", "Each round won is a point; the first pair to the points below wins."),
            ),
        ),
        "streak": OptionSpec(
            7,
            label="Rounds in a row",
            help="When the match is won by a streak: this many rounds won in a row win it (3 or 5 for a quick game).",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "points": OptionSpec(
            7,
            label="Points to win",
            help="When the match is won by points: the first pair to this many rounds won wins it.",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "max_hands": OptionSpec(
            40,
            label="Round limit",
            help="If nobody has won the match after this many rounds, it is a draw (R2.6).",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "players": OptionSpec(
            4,
            (4, 6),
            kind=int,
            label="Players",
            help="How many play, in two pairs or two teams of three (R2.8).",
            choice_help=(
                (4, "Two pairs, one pack, 13 cards each."),
                (6, "Two teams of three, seated alternately; three packs shuffled together, 26 cards each."),
            ),
        ),
    },
    "court-piece": {
        "defender_kot": OptionSpec(
            False,
            kind=bool,
            label="Defenders can win a kot",
            help=(
                "A kot is an extra point. The pair that named trump wins one by taking the first seven tricks; "
                "tick this to give the other pair one too whenever it reaches seven tricks first (R3.4)."
            ),
        ),
        "points": OptionSpec(
            7,
            label="Points to win",
            help="Each round won is 1 point and a kot 1 more; the first pair to this many points wins (R3.6).",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "max_hands": OptionSpec(
            40,
            label="Round limit",
            help="After this many rounds the pair ahead wins; level is a draw (R3.6).",
            **_INT_1,  # type: ignore[arg-type]
        ),
    },
    "coat-pees": {
        "gap": OptionSpec(
            52,
            label="Losing gap",
            help="Only the bidding pair's score moves; a pair that falls this many points behind loses (R4.5).",
            **_INT_1,  # type: ignore[arg-type]
        ),
        "max_hands": OptionSpec(
            None,
            nullable=True,
            label="Hand limit",
            help="Empty: no limit. Otherwise, after this many hands the pair ahead wins; level is a draw (R4.5).",
            **_INT_1,  # type: ignore[arg-type]
        ),
    },
}

DEHLA_KOT_STREAK = 7  # R1.8: seven hands in a row make a kot
PACKS_FOR_PLAYERS = {4: 1, 6: 3}  # R0.1 one pack; R2.8 three packs for six players
ROUND_TRICKS = 7  # R3.3: the first side to seven tricks wins the round


@dataclass(frozen=True)
class Rules:
    """One ruleset with its options and the facts they imply.

    Use :func:`make_rules`; the constructor does not validate. The option fields
    (``trump`` ... ``defender_kot``) hold the values given for the preset (defaults
    filled in) and are for display and records; behaviour reads the fact fields.
    """

    name: str = "dehla"
    # ----- options (RULES.md); fields the preset does not take keep their default
    trump: str = "first-void"
    scoring: str = "tens"
    match: str = "kots"
    kots: int = 2
    streak: int = 7
    points: int = 7
    gap: int = 52
    max_hands: int | None = 40
    players: int = 4
    defender_kot: bool = False
    options: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    # ----- facts, derived by make_rules from the preset and its options
    trump_making: TrumpMaking = TrumpMaking.FIRST_VOID
    draw_if_no_void: bool = True  # R1.4 first-void: nobody void in five tricks: a card is drawn for trump
    staged_deal: bool = True  # R1.3, R3.1, R4.1: five each first, the rest after the trump is made
    has_middle: bool = True  # R1.5: won tricks go to the middle (else captured at once, R2.3)
    hand_scoring: HandScoring = HandScoring.DEHLA_TENS
    match_scoring: MatchScoring = MatchScoring.KOTS
    tens_scoring: bool = True  # R0.5: the tens are what a hand is scored by (R1, R2 tens/double-sar)
    round_tricks: int | None = None  # R3.3: the round ends when a side has this many tricks
    kot_streak: int | None = DEHLA_KOT_STREAK  # hands in a row that make a kot (R1.8, R2.6 streak)
    kots_to_win: int | None = 2  # kots that win the match (R1.9; 1 in dehla-direct, R2.6)
    points_to_win: int | None = None  # points that win the match (R2.6 points, R3.6)
    all_tens_kot: bool = True  # taking every ten in a hand is a kot (R1.8, R2.6)
    packs: int = 1  # R2.8: three packs for six players

    # ----- derived sizes ---------------------------------------------------------
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
    def has_kots(self) -> bool:
        """Whether kots exist at all (R6: not in ``coat-pees``)."""
        return self.kot_streak is not None or self.all_tens_kot or self.match_scoring is MatchScoring.COURT_POINTS

    @property
    def tracks_streak(self) -> bool:
        """Whether the match keeps a streak of hands won in a row (R1.8, R2.6 streak)."""
        return self.kot_streak is not None

    @property
    def scores_points(self) -> bool:
        """Whether the match is decided by points (R2.6 points, R3.6, R4.5)."""
        return self.match_scoring in (MatchScoring.ROUND_POINTS, MatchScoring.COURT_POINTS, MatchScoring.GAP)

    def option_dict(self) -> dict[str, Any]:
        """Every option of this preset with its value (defaults filled in)."""
        return {k: getattr(self, k) for k in _PRESET_OPTIONS[self.name]}

    def __str__(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.option_dict().items())
        return f"{self.name}({opts})"


def option_specs(name: str) -> dict[str, OptionSpec]:
    """Every option preset ``name`` accepts, with its default and allowed values."""
    if name not in _PRESET_OPTIONS:
        raise RulesError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
    return dict(_PRESET_OPTIONS[name])


def _check_value(name: str, key: str, spec: OptionSpec, value: Any) -> Any:
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


class Facts(TypedDict):
    """The fact fields of :class:`Rules` a preset's options imply, all required (mypy)."""

    trump_making: TrumpMaking
    draw_if_no_void: bool
    staged_deal: bool
    has_middle: bool
    hand_scoring: HandScoring
    match_scoring: MatchScoring
    tens_scoring: bool
    round_tricks: int | None
    kot_streak: int | None
    kots_to_win: int | None
    points_to_win: int | None
    all_tens_kot: bool
    packs: int


def _dehla_facts(o: dict[str, Any]) -> Facts:
    """R1: the middle, tens, kots."""
    return Facts(
        trump_making=TrumpMaking(o["trump"]),
        draw_if_no_void=o["trump"] == "first-void",
        staged_deal=True,
        has_middle=True,
        hand_scoring=HandScoring.DEHLA_TENS,
        match_scoring=MatchScoring.KOTS,
        tens_scoring=True,
        round_tricks=None,
        kot_streak=DEHLA_KOT_STREAK,
        kots_to_win=o["kots"],
        points_to_win=None,
        all_tens_kot=True,
        packs=1,
    )


def _dehla_direct_facts(o: dict[str, Any]) -> Facts:
    """R2: tricks captured at once; tens, tricks or double sar; streak or points."""
    scoring = HandScoring(o["scoring"])
    streak = o["match"] == "streak"
    return Facts(
        trump_making=TrumpMaking(o["trump"]),
        draw_if_no_void=False,  # R2.4a: with 13 cards each someone is always void
        staged_deal=False,
        has_middle=False,
        hand_scoring=scoring,
        match_scoring=MatchScoring.STREAK if streak else MatchScoring.ROUND_POINTS,
        tens_scoring=scoring is not HandScoring.TRICKS,
        round_tricks=None,
        kot_streak=o["streak"] if streak else None,
        kots_to_win=1,  # R2.6: a kot (sirr, or the streak) wins the match at once
        points_to_win=None if streak else o["points"],
        all_tens_kot=scoring is not HandScoring.TRICKS,
        packs=PACKS_FOR_PLAYERS[o["players"]],
    )


def _court_piece_facts(o: dict[str, Any]) -> Facts:
    """R3: trump chosen from five cards, the first side to seven tricks."""
    return Facts(
        trump_making=TrumpMaking.CHOSEN,  # R3.1, as R1.4 chosen
        draw_if_no_void=False,
        staged_deal=True,
        has_middle=False,
        hand_scoring=HandScoring.FIRST_TO_SEVEN,
        match_scoring=MatchScoring.COURT_POINTS,
        tens_scoring=False,
        round_tricks=ROUND_TRICKS,
        kot_streak=None,
        kots_to_win=None,
        points_to_win=o["points"],
        all_tens_kot=False,
        packs=1,
    )


def _coat_pees_facts(o: dict[str, Any]) -> Facts:
    """R4: bidding for the trump and the contract; the gap decides the match."""
    return Facts(
        trump_making=TrumpMaking.BIDDING,
        draw_if_no_void=False,
        staged_deal=True,
        has_middle=False,
        hand_scoring=HandScoring.CONTRACT,
        match_scoring=MatchScoring.GAP,
        tens_scoring=False,
        round_tricks=None,
        kot_streak=None,
        kots_to_win=None,
        points_to_win=None,
        all_tens_kot=False,
        packs=1,
    )


@dataclass(frozen=True)
class Preset:
    """One ruleset of the family: everything the package knows of it by name.

    Adding a ruleset is one entry here (with its options above and its facts function);
    the gymnasium id, the web game's set-up form and rule book summary, the command
    lines' choices and the tests' list read it from here."""

    name: str  # the name every command line and record uses (R6 ``rules``)
    title: str  # the name for people, with its part of RULES.md
    section: str  # its part of RULES.md ("R3"): where the rule book's page links
    gym_id: str  # the gymnasium id ``import agents`` registers
    description: str  # two plain sentences for a newcomer choosing a game
    options: dict[str, OptionSpec]  # the options it takes, with defaults and plain words
    facts: Callable[[dict[str, Any]], Facts]  # option values -> the typed facts of :class:`Rules`


#: every ruleset, in the order menus show them
PRESET_TABLE: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="dehla",
            title="Dehla Pakad, classic (R1)",
            section="R1",
            gym_id="DehlaPakad-v0",
            description=(
                "Catch the tens. A won trick goes onto a pile in the middle, and whoever wins two tricks in a row"
                " takes the whole pile; the pair with three or four tens wins the hand, and kots win the match."
            ),
            options=_PRESET_OPTIONS["dehla"],
            facts=_dehla_facts,
        ),
        Preset(
            name="dehla-direct",
            title="Dehla Pakad, tricks kept at once (R2)",
            section="R2",
            gym_id="DehlaPakadDirect-v0",
            description=(
                "Like the classic game, but whoever wins a trick keeps its cards at once (no middle pile). Rounds"
                " are won by tens, tricks or points; the match by a run of wins or by points. Four or six "
                "players."
            ),
            options=_PRESET_OPTIONS["dehla-direct"],
            facts=_dehla_direct_facts,
        ),
        Preset(
            name="court-piece",
            title="Court Piece (R3)",
            section="R3",
            gym_id="CourtPiece-v0",
            description=(
                "Tens don't matter here, tricks do. The player on the dealer's right picks trump from five cards;"
                " the first pair to win seven tricks wins the round and a point."
            ),
            options=_PRESET_OPTIONS["court-piece"],
            facts=_court_piece_facts,
        ),
        Preset(
            name="coat-pees",
            title="Coat Pees, with bidding (R4)",
            section="R4",
            gym_id="CoatPees-v0",
            description=(
                "Court Piece with bidding: bid how many tricks (7 to 13) your pair will win and name trump. Make "
                "the bid and score it, fall short and lose double; fall too far behind and the match is lost."
            ),
            options=_PRESET_OPTIONS["coat-pees"],
            facts=_coat_pees_facts,
        ),
    )
}
PRESETS = tuple(PRESET_TABLE)
#: the preset ``make_rules()`` builds when none is named
DEFAULT_PRESET = PRESETS[0]
#: each preset's name for people, with its part of RULES.md
PRESET_TITLES = {name: p.title for name, p in PRESET_TABLE.items()}
#: each preset in two plain sentences, for a newcomer choosing one (set-up forms, the
#: rule book's summary); the R-number in the title leads to the exact rules
PRESET_DESCRIPTIONS = {name: p.description for name, p in PRESET_TABLE.items()}


def make_rules(name: str = DEFAULT_PRESET, options: Mapping[str, Any] | None = None, **kwargs: Any) -> Rules:
    """Build and validate the rules for preset ``name``.

    Options come from ``options`` (a mapping, as in an R6 record) and/or keyword
    arguments; underscores and hyphens in keys are interchangeable in keywords.
    """
    if not isinstance(name, str) or name not in _PRESET_OPTIONS:
        raise RulesError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
    given: dict[str, Any] = dict(options or {})
    for k, v in kwargs.items():
        given[k.replace("-", "_")] = v
    specs = _PRESET_OPTIONS[name]
    unknown = sorted(str(k) for k in set(given) - set(specs))
    if unknown:
        raise RulesError(f"{name}: unknown option(s) {', '.join(unknown)}; known: {', '.join(specs)}")
    values = {k: _check_value(name, k, spec, given.get(k, spec.default)) for k, spec in specs.items()}
    return Rules(name=name, options=tuple(sorted(values.items())), **values, **PRESET_TABLE[name].facts(values))


def rules_from(rules: str | Rules, options: Mapping[str, Any]) -> Rules:
    """What an env is given: a :class:`Rules` as it is, or a preset's name with its
    ``options`` (:func:`make_rules`); both at once is an error."""
    if isinstance(rules, Rules):
        if options:
            raise ValueError("pass either a Rules object or a preset name with options, not both")
        return rules
    return make_rules(rules, options)


def parse_option_pairs(pairs: Iterable[str]) -> dict[str, Any]:
    """Command-line options ``["trump=chosen", "kots=3", "defender_kot=true"]`` -> typed
    values (JSON where the value parses as JSON, else the text). Raises :class:`RulesError`
    for a pair without ``=``; :func:`make_rules` then validates names and values."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RulesError(f"a rule option is key=value, not {pair!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out
