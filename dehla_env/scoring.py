"""The hand's result and the match score, each rule written once (R1.6-R1.9, R2.5-R2.7,
R3.3-R3.6, R4.4-R4.6).

Every function here is plain arithmetic over numbers, and takes either Python ints
(one hand: :meth:`dehla_env.engine.HandState.result`, :class:`dehla_env.engine.MatchState`)
or numpy integer arrays of one shape (a batch: :meth:`dehla_env.vector.engine.BatchEngine.outcome`,
:func:`dehla_env.vector.observe.first_hand_match`); the same code decides both. With
ints in, ints come out, computed without numpy (a round trip through 0-d arrays would
cost the scalar engine several microseconds a hand); with arrays in, arrays of that
shape come out, except a value that is the same for every game (a kot the ruleset never
gives, a score it never changes): that stays a plain int, and :func:`batch` turns it
into an array where a caller needs one.

The hand: :func:`hand_outcome` (its winner alone: :func:`hand_winner`, which the
solver uses too). The match: :func:`score_match` from a :class:`MatchTally` (a fresh
match is :data:`FRESH_TALLY`) and :func:`next_dealer`.

Sides and "nobody" are integers so that one code path serves both forms:
:data:`NO_SIDE` (-1) is "no winner / no kot / no streak", :data:`NO_ROUND` (-2) the
R2.7 "previous round" before the first, and :data:`DRAW_CODE` (2) a drawn match. The
scalar engine turns these into ``None`` and :data:`DRAWN` at its edge.

Dispatch is on the ruleset's typed facts (``rules.hand_scoring``, ``rules.match_scoring``)
with ``match`` and :func:`typing.assert_never`, so a new mode makes the type checker
list every site it must touch.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, NamedTuple, TypeAlias, assert_never

import numpy as np

from .actions import MIN_BID
from .rules import HandScoring, MatchScoring, Rules
from .seats import side_of

#: a side (0 or 1) or a count: a Python int for one hand, an int array for a batch
Ints: TypeAlias = int | np.ndarray
#: one value per side, side 0 first
Pair: TypeAlias = tuple[Ints, Ints]

NO_SIDE: Final = -1  # no winner, no kot, no streak, the match not decided
NO_ROUND: Final = -2  # R2.7: the "previous round" before the first round of the match
DRAW_CODE: Final = 2  # the match winner of a drawn match, as an integer


class Draw(StrEnum):
    """The winner of a match that ends level (R1.9, R2.6, R3.6, R4.5). A ``str``, so an
    R6 record, JSON and text show it as ``draw``."""

    DRAW = "draw"


DRAWN: Final = Draw.DRAW
#: who won a match: side 0 or 1, or :data:`DRAWN`
MatchWinner: TypeAlias = int | Draw


def side_or_none(code: Ints) -> int | None:
    """One side from these integers as the scalar engine holds it: ``None`` for
    :data:`NO_SIDE`."""
    return None if code == NO_SIDE else int(code)


def side_code(side: int | None) -> int:
    """A side or ``None`` as an integer (:data:`NO_SIDE` for ``None``)."""
    return NO_SIDE if side is None else side


def match_winner(code: int) -> MatchWinner | None:
    """An integer match winner (a side, :data:`DRAW_CODE`, :data:`NO_SIDE`) as
    :attr:`MatchState.winner <dehla_env.engine.MatchState.winner>` holds it."""
    return None if code == NO_SIDE else DRAWN if code == DRAW_CODE else int(code)


def _where(cond: Any, a: Ints, b: Ints) -> Ints:
    """``a`` where ``cond`` else ``b``: a plain choice when ``cond`` is a Python bool (one
    hand, or a fact shared by a whole batch), else ``np.where``."""
    if cond is True:
        return a
    if cond is False:
        return b
    return np.where(cond, a, b)


def _more(a: Ints, b: Ints, level: Ints) -> Ints:
    """The side with more (0 or 1), ``level`` when equal."""
    return _where(a > b, 0, _where(b > a, 1, level))


def _of_side(side: Ints, pair: Pair) -> Ints:
    """``pair[side]`` (side 0 or 1)."""
    return _where(side == 0, pair[0], pair[1])


def _add_to_side(pair: Pair, side: Ints, amount: Ints = 1) -> Pair:
    """``pair`` with ``amount`` added to side ``side``'s entry (nothing for ``NO_SIDE``)."""
    return pair[0] + (side == 0) * amount, pair[1] + (side == 1) * amount


def _reached(count: Ints, limit: int | None) -> Any:
    """Whether ``count`` has reached ``limit`` (never, for no limit)."""
    return False if limit is None else count >= limit


def _side_of(seat: Ints) -> Ints:
    """:func:`dehla_env.seats.side_of` of one seat or an array of seats (the two
    branches name each form for the type checker)."""
    return side_of(seat) if isinstance(seat, int) else side_of(seat)


def batch(x: Ints, k: int) -> np.ndarray:
    """``x`` as a ``(k,)`` int64 array: a batch's value, or one number shared by the
    batch (the functions here leave a value that is the same for every game, such as
    :data:`NO_SIDE` for a kot a ruleset never gives, a plain int)."""
    return np.full(k, x, np.int64) if np.ndim(x) == 0 else np.asarray(x)


# ---------------------------------------------------------------------- the hand
def card_points(cards_won: Ints, tens: Ints) -> Ints:
    """R2.5 double-sar: a captured ten is worth 2 points, every other captured card 1."""
    return cards_won + tens


def all_tens_side(tens: Pair) -> Ints:
    """The side that took every ten (R1.8, R2.6), else :data:`NO_SIDE`."""
    return _where(tens[1] == 0, 0, _where(tens[0] == 0, 1, NO_SIDE))


def contract_change(bid: Ints, made: Any) -> Ints:
    """R4.4: the bidding side gains its bid if made; short, it loses 7 for a bid of 7 and
    twice the bid above that."""
    return _where(made, bid, _where(bid == MIN_BID, -7, -2 * bid))


def hand_winner(
    rules: Rules,
    *,
    dealer: Ints,
    tricks: Pair,
    tens: Pair,
    points: Pair | None = None,
    contract: tuple[Ints, Ints] | None = None,
) -> Ints:
    """The side that won the complete hand, or :data:`NO_SIDE` (R1.6, R2.5, R3.3, R4.6).

    ``tricks``, ``tens`` and ``points`` (:func:`card_points`, read in ``double-sar``
    only) are the hand's totals per side; ``contract`` is the R4.2 ``(bidder seat,
    bid)``, read in ``coat-pees`` only.
    """
    scoring = rules.hand_scoring
    match scoring:
        case HandScoring.DEHLA_TENS:
            # R1.6: 4-0 and 3-1 win; 2-2 goes to the side that did not deal.
            return _more(tens[0], tens[1], 1 - _side_of(dealer))
        case HandScoring.TENS:
            return _more(tens[0], tens[1], NO_SIDE)  # R2.5 tens: 2-2 is no winner
        case HandScoring.TRICKS:
            return _more(tricks[0], tricks[1], NO_SIDE)  # R2.5 tricks: tens count for nothing
        case HandScoring.DOUBLE_SAR:
            assert points is not None
            return _more(points[0], points[1], NO_SIDE)  # R2.5 double-sar: 28-28 is no winner
        case HandScoring.FIRST_TO_SEVEN:
            assert rules.round_tricks is not None
            return _where(tricks[0] >= rules.round_tricks, 0, 1)  # R3.3: the first side to 7
        case HandScoring.CONTRACT:
            assert contract is not None
            side = _side_of(contract[0])
            made = _of_side(side, tricks) >= contract[1]
            return _where(made, side, 1 - side)  # R4.6: the loser is the side that failed
        case _:
            assert_never(scoring)


class HandOutcome(NamedTuple):
    """What a complete hand gives the match, as integers (:data:`NO_SIDE` for none)."""

    winner: Ints  # the side that won the hand or round (R1.6, R2.5, R3.3, R4.6)
    all_tens: Ints  # the side that took every ten, where that is a kot (R1.8, R2.6)
    kot: Ints  # a kot won by the hand itself (four tens R1.8/R2.6, R3.4)
    score: Pair  # the R4.4 score change per side (0 elsewhere)


def hand_outcome(
    rules: Rules,
    *,
    dealer: Ints,
    tricks: Pair,
    tens: Pair,
    cards_won: Pair,
    trump_maker: Ints,
    contract: tuple[Ints, Ints],
) -> HandOutcome:
    """The outcome of a complete hand from its totals per side (R1.6, R1.8, R2.5-R2.6,
    R3.3-R3.4, R4.4, R4.6). ``trump_maker`` is read in ``court-piece``, ``contract``
    (bidder seat, bid) in ``coat-pees``. A field the ruleset leaves empty is a plain
    :data:`NO_SIDE` or 0 (see :func:`batch`)."""
    scoring = rules.hand_scoring
    match scoring:
        case HandScoring.DEHLA_TENS | HandScoring.TENS:
            winner = hand_winner(rules, dealer=dealer, tricks=tricks, tens=tens)
            all_tens = all_tens_side(tens)  # R1.8, R2.6: a kot
            return HandOutcome(winner, all_tens, all_tens, (0, 0))
        case HandScoring.DOUBLE_SAR:
            points = (card_points(cards_won[0], tens[0]), card_points(cards_won[1], tens[1]))
            winner = hand_winner(rules, dealer=dealer, tricks=tricks, tens=tens, points=points)
            all_tens = all_tens_side(tens)  # R2.5 double-sar: still R2.6's kot
            return HandOutcome(winner, all_tens, all_tens, (0, 0))
        case HandScoring.TRICKS:  # R2.5 tricks: tens count for nothing
            return HandOutcome(hand_winner(rules, dealer=dealer, tricks=tricks, tens=tens), NO_SIDE, NO_SIDE, (0, 0))
        case HandScoring.FIRST_TO_SEVEN:
            winner = hand_winner(rules, dealer=dealer, tricks=tricks, tens=tens)
            callers = _side_of(trump_maker) == winner
            # R3.4: the trump-calling side's kot is the first seven tricks in a row; the
            # defenders' (option defender_kot) is any round they win.
            kot = _where(callers & (_of_side(1 - winner, tricks) == 0), winner, NO_SIDE)
            if rules.defender_kot:
                kot = _where(callers, kot, winner)
            return HandOutcome(winner, NO_SIDE, kot, (0, 0))
        case HandScoring.CONTRACT:
            side = _side_of(contract[0])
            winner = hand_winner(rules, dealer=dealer, tricks=tricks, tens=tens, contract=contract)
            delta = contract_change(contract[1], winner == side)  # R4.6: made when the bidders won
            return HandOutcome(winner, NO_SIDE, NO_SIDE, ((side == 0) * delta, (side == 1) * delta))
        case _:
            assert_never(scoring)


# ---------------------------------------------------------------------- the match
class MatchTally(NamedTuple):
    """A match's score between hands, as integers."""

    kots: Pair
    points: Pair  # R2.6 points, R3.6, R4.5 (the bid scores); 0 elsewhere
    streak_side: Ints  # R1.8, R2.6 streak: the side on a run, NO_SIDE for none
    streak_count: Ints
    prev_round: Ints  # R2.7: the previous round's winner, NO_SIDE for none, NO_ROUND before the first
    hands: Ints  # hands completed
    winner: Ints  # NO_SIDE while undecided, a side, or DRAW_CODE


#: a match before its first hand (plain ints: the same for every game of a batch)
FRESH_TALLY: Final = MatchTally(
    kots=(0, 0), points=(0, 0), streak_side=NO_SIDE, streak_count=0, prev_round=NO_ROUND, hands=0, winner=NO_SIDE
)


class MatchStep(NamedTuple):
    """A hand applied to a match: the new tally and the kot the hand won."""

    tally: MatchTally
    kot: Ints  # the side that won a kot with this hand, else NO_SIDE


def _at_limit(maxed: Any, a: Ints, b: Ints) -> Ints:
    """R1.9, R3.6, R4.5: once ``max_hands`` are played the side with more (``a`` side 0,
    ``b`` side 1) wins, level is a draw; before that the match goes on."""
    return NO_SIDE if maxed is False else _where(maxed, _more(a, b, DRAW_CODE), NO_SIDE)


def score_match(rules: Rules, tally: MatchTally, hand: HandOutcome) -> MatchStep:
    """Apply a complete hand to an undecided match (R1.8-R1.9, R2.6, R3.6, R4.4-R4.5):
    kots, streaks, points and the match winner. The next dealer is :func:`next_dealer`."""
    w = hand.winner
    hands = tally.hands + 1
    maxed = _reached(hands, rules.max_hands)
    streak_side, streak_count, prev = tally.streak_side, tally.streak_count, tally.prev_round
    kots, points = tally.kots, tally.points
    scoring = rules.match_scoring
    match scoring:
        case MatchScoring.KOTS:
            assert rules.kot_streak is not None and rules.kots_to_win is not None
            # R1.8: one streak; a hand won by the streak's side extends it (every dehla
            # hand has a winner, R1.6). Four tens or the seventh in a row is a kot, at
            # most one a hand (Decision); a kot clears the streak.
            count = _where(streak_side == w, streak_count + 1, 1)
            has = (hand.all_tens >= 0) | (count >= rules.kot_streak)
            kot = _where(has, w, NO_SIDE)
            kots = _add_to_side(kots, kot)
            streak_side = _where(has, NO_SIDE, w)
            streak_count = _where(has, 0, count)
            # R1.9: the first side to kots_to_win wins; else the hand limit.
            won = has & (_of_side(w, kots) >= rules.kots_to_win)
            winner = _where(won, w, _at_limit(maxed, kots[0], kots[1]))
        case MatchScoring.STREAK | MatchScoring.ROUND_POINTS:
            won = w >= 0
            run: Any = False
            if rules.kot_streak is not None:
                # R2.6 streak: a won round extends its side's streak (or starts one); a
                # round with no winner changes nothing.
                count = _where(streak_side == w, streak_count + 1, 1)
                streak_count = _where(won, count, streak_count)
                streak_side = _where(won, w, streak_side)
                run = won & (streak_count >= rules.kot_streak)
            else:
                points = _add_to_side(points, w)  # R2.6 points: a point a round won
            # R2.6: all the tens win at once (sirr), else the streak; a kot wins the match,
            # and so do points_to_win points. Undecided at max_hands is a draw (Decision).
            kot = _where(hand.all_tens >= 0, hand.all_tens, _where(run, w, NO_SIDE))
            kots = _add_to_side(kots, kot)
            by_points = won & _reached(_of_side(w, points), rules.points_to_win)
            winner = _where(kot >= 0, kot, _where(by_points, w, _where(maxed, DRAW_CODE, NO_SIDE)))
            prev = w  # R2.7
        case MatchScoring.COURT_POINTS:
            assert rules.points_to_win is not None
            kot = hand.kot
            points = _add_to_side(points, w, 1 + (kot >= 0))  # R3.6: a kot is one point more
            kots = _add_to_side(kots, kot)
            # R3.6: the first side to points_to_win wins; else the hand limit.
            winner = _where(_of_side(w, points) >= rules.points_to_win, w, _at_limit(maxed, points[0], points[1]))
        case MatchScoring.GAP:
            kot = NO_SIDE  # coat-pees has no kots
            points = (points[0] + hand.score[0], points[1] + hand.score[1])  # R4.4
            p0, p1 = points
            # R4.5: the gap is checked after every hand, before the hand limit.
            winner = _where(p1 - p0 >= rules.gap, 1, _where(p0 - p1 >= rules.gap, 0, _at_limit(maxed, p0, p1)))
        case _:
            assert_never(scoring)
    tally = MatchTally(
        kots=kots,
        points=points,
        streak_side=streak_side,
        streak_count=streak_count,
        prev_round=prev,
        hands=hands,
        winner=winner,
    )
    return MatchStep(tally, kot)


def next_dealer(rules: Rules, tally: MatchTally, hand: HandOutcome, dealer: Ints) -> Ints:
    """Who deals the next hand (R1.7, R2.7, R3.5, R4.6); ``tally`` is the match before
    this hand."""
    n = rules.players
    w = hand.winner
    dealer_won = w == _side_of(dealer)
    after = (dealer + 1) % n
    scoring = rules.match_scoring
    match scoring:
        case MatchScoring.KOTS:
            # R1.7: the dealer's side won: dealer+1; the other side with four tens: the
            # dealer's partner; with two or three: the same dealer.
            return _where(dealer_won, after, _where(hand.all_tens >= 0, (dealer + 2) % n, dealer))
        case MatchScoring.STREAK | MatchScoring.ROUND_POINTS:
            # R2.7: the dealer's side won: dealer+1; the other side: the same dealer. No
            # winner: the same dealer if the dealer's side lost the previous round,
            # otherwise (and after the first round of the match) dealer+1.
            last_won = _where(w >= 0, w, tally.prev_round)
            return _where((last_won >= 0) & (last_won != _side_of(dealer)), dealer, after)
        case MatchScoring.COURT_POINTS | MatchScoring.GAP:
            # R3.5, R4.6: the deal stays with the side that lost the round.
            return _where(dealer_won, after, dealer)
        case _:
            assert_never(scoring)
