"""What a hand is worth: the search's :class:`Objective` and the rule bots'
:func:`trick_stake`, each decided once per hand-scoring mode by an exhaustive ``match``.

The exact solver (:mod:`agents.search.solver`) and the searches on it maximise side 0's
*value*: ``per_trick`` for each trick it wins plus ``per_ten`` for each ten in it (with
the R1.5 middle a take scores the pile's tens; with a ``target`` the round stops at
that many tricks, R3.3), chosen so that the hand's result is a monotone function of the
final value. The result of a value is the engine's own rule
(:func:`dehla_env.scoring.hand_winner`, through ``totals``), and the values where it
changes (:meth:`Objective.cuts`) are found from it: the search holds no copy of a hand
rule. The solver's inner loop calls the plain-int closures of :meth:`Objective.resolver`
and :meth:`Objective.upper_bound`, made once per solver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, assert_never

from dehla_env import scoring
from dehla_env.rules import HandScoring, Rules
from dehla_env.scoring import NO_SIDE, card_points, side_or_none


class HandTally(Protocol):
    """What a hand's result depends on besides the play to come: a
    :class:`~dehla_env.engine.hand.HandState`, or a :class:`SettledTally`."""

    @property
    def rules(self) -> Rules: ...
    @property
    def dealer(self) -> int: ...
    @property
    def tricks(self) -> Sequence[int]: ...
    @property
    def tens(self) -> Sequence[int]: ...
    @property
    def contract(self) -> tuple[int, int, int] | None: ...


@dataclass(frozen=True)
class SettledTally:
    """A :class:`HandTally` from plain values: one game of the batched engine
    (:meth:`agents.search.batched.BatchedSearchAgent.play_out`), or a made-up position."""

    rules: Rules
    dealer: int
    tricks: tuple[int, int]
    tens: tuple[int, int]
    contract: tuple[int, int, int] | None


class Totals(NamedTuple):
    """Side 0's totals at the end of a hand, as :func:`dehla_env.scoring.hand_winner`
    reads them; a total the mode does not read stays 0."""

    tricks: int = 0
    tens: int = 0
    points: int = 0  # R2.5 double-sar: :func:`dehla_env.scoring.card_points`


#: (winner seat, tens in the trick, scoring state, last trick) -> (gain, new state, hand over)
Resolver = Callable[[int, int, int, bool], tuple[int, int, bool]]


@dataclass(frozen=True)
class Objective:
    """What the search maximises in one hand-scoring mode (see the module docstring)."""

    rules: Rules
    per_trick: int  # value of each trick side 0 wins
    per_ten: int  # value of each ten in it
    totals: Callable[[int], Totals]  # side 0's final value -> its totals
    middle: bool = False  # R1.5: tricks go to the middle; a take scores the pile's tens
    target: int | None = None  # R3.3: the round stops when a side has this many tricks
    margin_scale: float | None = None  # value units per unit of margin (default: half the range)
    _cuts: dict[tuple[Any, ...], list[int]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:  # what the scoring state packs
        assert not self.middle or self.per_trick == 0, "the middle scores tens only"
        assert self.target is None or (self.per_trick, self.per_ten) == (1, 0), "a target counts tricks"

    @property
    def tens_matter(self) -> bool:
        """Whether tens are told apart from other cards (table keys, equivalent cards)."""
        return self.per_ten != 0

    @property
    def top(self) -> int:
        """The most side 0 can win in a hand."""
        if self.target is not None:
            return self.target
        return self.per_trick * self.rules.num_tricks + self.per_ten * self.rules.num_tens

    def count(self, tricks0: Any, tens0: Any) -> Any:
        """Side 0's value from its tricks and tens taken (numbers or arrays)."""
        return self.per_trick * tricks0 + self.per_ten * tens0

    def value(self, hand: HandTally) -> int:
        """Side 0's value already won in ``hand`` (with the middle: tens taken)."""
        return int(self.count(hand.tricks[0], hand.tens[0]))

    def winner(self, hand: HandTally, future0: int) -> int | None:
        """The hand's winner (None: no winner) when side 0 gains ``future0`` from
        ``hand`` on, by the engine's rule (R1.6, R2.5, R3.3, R4.6)."""
        rules = self.rules
        final = self.totals(self.value(hand) + future0)
        all_points = int(card_points(rules.deck_size, rules.num_tens))
        contract = (NO_SIDE, 0) if hand.contract is None else (hand.contract[0], hand.contract[1])
        code = scoring.hand_winner(
            rules,
            dealer=hand.dealer,
            tricks=(final.tricks, rules.num_tricks - final.tricks),
            tens=(final.tens, rules.num_tens - final.tens),
            points=(final.points, all_points - final.points),
            contract=contract,
        )
        return side_or_none(code)

    def cuts(self, hand: HandTally) -> list[int]:
        """The future values for side 0 at which :meth:`winner` changes: the result
        only depends on which of the intervals between these cuts the value falls in."""
        base = self.value(hand)
        key = (base, hand.dealer, hand.contract)
        found = self._cuts.get(key)
        if found is None:
            results = [self.winner(hand, f) for f in range(self.top - base + 1)]
            found = [f for f in range(1, len(results)) if results[f] != results[f - 1]]
            if len(self._cuts) > 4096:
                self._cuts.clear()
            self._cuts[key] = found
        return found

    def margin(self, value0: Any) -> Any:
        """Side 0's margin at final value ``value0``, scaled to about [-1, 1] (the
        search's tie-break; numbers or arrays)."""
        half = self.top / 2
        return (value0 - half) / (half if self.margin_scale is None else self.margin_scale)

    def start(self, middle_tens: int, last_winner: int, tricks: tuple[int, int]) -> int:
        """The scoring state :meth:`resolver` carries between tricks, at a trick boundary:
        the middle's tens and the pair-threat seat (R1.5), or the tricks so far (R3.3)."""
        if self.middle:
            return (middle_tens << 3) | (last_winner + 1)
        if self.target is not None:
            return (tricks[0] << 4) | tricks[1]
        return 0

    def resolver(self) -> Resolver:
        """A completed trick: (gain for side 0, new scoring state, hand over)."""
        per_trick, per_ten, target = self.per_trick, self.per_ten, self.target
        if self.middle:

            def take(winner: int, ttens: int, sc: int, last: bool) -> tuple[int, int, bool]:
                mt = (sc >> 3) + ttens
                if last or (sc & 7) == winner + 1:
                    # R1.5: the same seat twice in a row, or the 13th trick, takes the pile
                    return (per_ten * mt if not winner & 1 else 0), 0, last
                return 0, (mt << 3) | (winner + 1), False

            return take
        if target is not None:

            def race(winner: int, ttens: int, sc: int, last: bool) -> tuple[int, int, bool]:
                t0, t1 = sc >> 4, sc & 15
                if winner & 1:
                    t1 += 1
                else:
                    t0 += 1
                return (0 if winner & 1 else 1), (t0 << 4) | t1, last or t0 >= target or t1 >= target

            return race

        def capture(winner: int, ttens: int, sc: int, last: bool) -> tuple[int, int, bool]:
            return (0 if winner & 1 else per_trick + per_ten * ttens), sc, last

        return capture

    def upper_bound(self) -> Callable[[int, int, int], int]:
        """(cards still to be won, tens among them, scoring state) -> the most side 0
        can still gain: the static bound of the solver's search."""
        per_trick, per_ten, target = self.per_trick, self.per_ten, self.target
        if self.middle:
            return lambda cards, tens, sc: per_ten * (tens + (sc >> 3))
        if target is not None:
            return lambda cards, tens, sc: min(cards >> 2, target - (sc >> 4))
        return lambda cards, tens, sc: per_trick * (cards >> 2) + per_ten * tens


def objective(rules: Rules) -> Objective:
    """The search's objective for a ruleset (see the module docstring)."""
    mode = rules.hand_scoring
    match mode:
        case HandScoring.DEHLA_TENS:  # R1.5-R1.6: tens taken with the middle
            return Objective(rules, per_trick=0, per_ten=1, middle=True, totals=lambda v: Totals(tens=v))
        case HandScoring.TENS:  # R2.5 tens: tens captured
            return Objective(rules, per_trick=0, per_ten=1, totals=lambda v: Totals(tens=v))
        case HandScoring.DOUBLE_SAR:  # R2.5 double-sar: a trick's four cards and its tens again
            return Objective(rules, per_trick=rules.players, per_ten=1, totals=lambda v: Totals(points=v))
        case HandScoring.TRICKS | HandScoring.CONTRACT:  # R2.5 tricks, R4.4 all thirteen tricks
            return Objective(rules, per_trick=1, per_ten=0, totals=lambda v: Totals(tricks=v))
        case HandScoring.FIRST_TO_SEVEN:  # R3.3: tricks until a side has seven
            seven, tricks = rules.round_tricks, lambda v: Totals(tricks=v)  # the margin: about 3.5, by 7
            return Objective(rules, per_trick=1, per_ten=0, target=seven, margin_scale=7, totals=tricks)
        case _:
            assert_never(mode)


def trick_stake(rules: Rules, tens: int, middle_tens: int, takes: bool, threat: Callable[[], float]) -> float:
    """What winning the current trick (``tens`` tens in it, the card considered
    included) is worth to the winner's side, in the hand's units: tens, points or
    tricks. With the R1.5 middle, ``takes`` says whether the trick takes the pile
    (the 13th trick, or its winner's second in a row); if not, ``threat()`` is the
    share of the pile the winner's new pair threat is worth (asked only then)."""
    mode = rules.hand_scoring
    match mode:
        case HandScoring.DEHLA_TENS:  # R1.5: the pile, now or by a pair threat
            pile = middle_tens + tens
            return pile if takes else threat() * (pile + 0.5)
        case HandScoring.TENS:  # R2.5 tens
            return 0.25 + tens
        case HandScoring.DOUBLE_SAR:  # R2.5 double-sar: the cards, and the tens again, in tricks
            return (rules.players + tens) / 4.0
        case HandScoring.TRICKS | HandScoring.FIRST_TO_SEVEN | HandScoring.CONTRACT:  # R2.5, R3.3, R4.4
            return 1.0
        case _:
            assert_never(mode)
