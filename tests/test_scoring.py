"""The hand's result and the match score (:mod:`dehla_env.scoring`), rule by rule.

Each rule is checked on one hand's numbers (Python ints); then the same functions are
run on arrays of random inputs and must agree with the one-hand form row by row; then
the search's objective (:mod:`agents.bots.objective`: its value, the winner of a value
and the values where it changes) is held to them on many positions.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import numpy as np
import pytest

from dehla_env import MatchState, make_rules
from dehla_env.engine import DRAWN, HandResult, Phase
from dehla_env.rules import HandScoring, MatchScoring, Rules
from dehla_env.scoring import (
    DRAW_CODE,
    FRESH_TALLY,
    NO_ROUND,
    NO_SIDE,
    HandOutcome,
    MatchTally,
    contract_change,
    hand_outcome,
    next_dealer,
    score_match,
)
from tests.rulesets import rules_of, with_options

NONE = NO_SIDE


def outcome(
    rules: Rules,
    *,
    tens: tuple[int, int] = (2, 2),
    tricks: tuple[int, int] = (7, 6),
    cards: tuple[int, int] | None = None,
    dealer: int = 0,
    trump_maker: int = 1,
    contract: tuple[int, int] = (NONE, 0),
) -> HandOutcome:
    """One complete hand's outcome; cards captured default to four a trick."""
    won = cards if cards is not None else (4 * tricks[0], 4 * tricks[1])
    return hand_outcome(
        rules, dealer=dealer, tricks=tricks, tens=tens, cards_won=won, trump_maker=trump_maker, contract=contract
    )


class Step(NamedTuple):
    """One hand applied to a match: the match after it, the hand's kot, the next dealer."""

    tally: MatchTally
    kot: int
    next_dealer: int


def apply(
    rules: Rules,
    tally: MatchTally,
    dealer: int,
    winner: int,
    all_tens: int = NONE,
    kot: int = NONE,
    score: tuple[int, int] = (0, 0),
) -> Step:
    """One hand with this outcome applied to the match ``tally``."""
    hand = HandOutcome(winner, all_tens, kot, score)
    step = score_match(rules, tally, hand)
    return Step(step.tally, int(step.kot), int(next_dealer(rules, tally, hand, dealer)))


def tally(**given: Any) -> MatchTally:
    """A match between hands: a fresh one with ``given`` fields changed."""
    return FRESH_TALLY._replace(**given)


DEHLA = make_rules("dehla")
TENS = make_rules("dehla-direct")
TRICKS = make_rules("dehla-direct", scoring="tricks")
SAR = make_rules("dehla-direct", scoring="double-sar")
COURT = make_rules("court-piece")
COAT = make_rules("coat-pees")


# ---------------------------------------------------------------------- the hand
def test_r1_6_three_or_four_tens_win_the_hand_and_four_are_a_kot() -> None:
    assert outcome(DEHLA, tens=(4, 0))[:3] == (0, 0, 0)
    assert outcome(DEHLA, tens=(1, 3))[:3] == (1, NONE, NONE)
    assert outcome(DEHLA, tens=(0, 4))[:3] == (1, 1, 1)


@pytest.mark.parametrize("dealer, winner", [(0, 1), (1, 0), (2, 1), (3, 0)])
def test_r1_6_two_tens_each_goes_to_the_side_that_did_not_deal(dealer: int, winner: int) -> None:
    assert outcome(DEHLA, tens=(2, 2), dealer=dealer).winner == winner


def test_r2_5_tens_two_each_is_no_winner_and_all_four_are_sirr() -> None:
    assert outcome(TENS, tens=(2, 2), dealer=1).winner == NONE
    assert outcome(TENS, tens=(3, 1)).winner == 0
    assert outcome(TENS, tens=(0, 4))[:3] == (1, 1, 1)


def test_r2_5_tricks_more_tricks_win_and_tens_count_for_nothing() -> None:
    assert outcome(TRICKS, tricks=(6, 7), tens=(4, 0))[:3] == (1, NONE, NONE)
    assert outcome(TRICKS, tricks=(13, 0), tens=(0, 4)).winner == 0


def test_r2_5_double_sar_a_ten_is_two_points_and_28_28_is_no_winner() -> None:
    assert outcome(SAR, cards=(28, 24), tens=(4, 0)).winner == 0  # 32-24
    assert outcome(SAR, cards=(26, 26), tens=(2, 2)).winner == NONE  # 28-28
    assert outcome(SAR, cards=(27, 25), tens=(1, 3)).winner == NONE  # 28-28
    # the points winner wins the round even when the other side took every ten (R6);
    # the four tens are still that side's kot (R2.6)
    assert outcome(SAR, cards=(40, 12), tens=(0, 4))[:3] == (0, 1, 1)


def test_r3_3_the_first_side_to_seven_tricks_wins_the_round() -> None:
    assert outcome(COURT, tricks=(7, 5), trump_maker=1).winner == 0
    assert outcome(COURT, tricks=(4, 7), trump_maker=1).winner == 1


def test_r3_4_the_callers_win_a_kot_with_the_first_seven_tricks() -> None:
    assert outcome(COURT, tricks=(0, 7), trump_maker=3).kot == 1
    assert outcome(COURT, tricks=(1, 7), trump_maker=3).kot == NONE
    assert outcome(COURT, tricks=(7, 0), trump_maker=3).kot == NONE  # the defenders: no kot by default


def test_r3_4_defender_kot_gives_the_defenders_a_kot_whenever_they_reach_seven() -> None:
    rules = make_rules("court-piece", defender_kot=True)
    assert outcome(rules, tricks=(7, 6), trump_maker=1).kot == 0
    assert outcome(rules, tricks=(6, 7), trump_maker=1).kot == NONE


@pytest.mark.parametrize(
    "bid, made, change", [(7, True, 7), (8, True, 8), (13, True, 13), (7, False, -7), (8, False, -16), (13, False, -26)]
)
def test_r4_4_a_bid_made_scores_the_bid_and_a_bid_short_loses(bid: int, made: bool, change: int) -> None:
    assert contract_change(bid, made) == change


def test_r4_4_only_the_bidding_side_scores_and_r4_6_the_loser_is_the_side_that_failed() -> None:
    made = outcome(COAT, tricks=(4, 9), contract=(3, 9))
    assert (made.winner, made.score) == (1, (0, 9))
    short = outcome(COAT, tricks=(8, 5), contract=(0, 9))
    assert (short.winner, short.score) == (1, (-18, 0))
    assert outcome(COAT, tricks=(7, 6), contract=(2, 7)).score == (7, 0)


def test_one_hand_in_gives_python_ints_out() -> None:
    for rules in (DEHLA, TENS, TRICKS, SAR, COURT, COAT):
        out = outcome(rules, contract=(1, 7))
        assert all(type(x) is int for x in (*out[:3], *out.score)), rules


# ---------------------------------------------------------------------- the match
def test_r1_7_the_next_dealer() -> None:
    # the dealer's side won: dealer+1; the other side with four tens: the dealer's
    # partner; with two or three: the same dealer
    assert apply(DEHLA, tally(), dealer=1, winner=1).next_dealer == 2
    assert apply(DEHLA, tally(), dealer=1, winner=0, all_tens=0).next_dealer == 3
    assert apply(DEHLA, tally(), dealer=3, winner=0).next_dealer == 3


def test_r1_8_seven_hands_in_a_row_are_a_kot_and_a_kot_clears_the_streak() -> None:
    step = apply(DEHLA, tally(streak_side=1, streak_count=6), dealer=0, winner=1)
    assert (step.kot, step.tally.kots, step.tally.streak_side, step.tally.streak_count) == (1, (0, 1), NONE, 0)
    step = apply(DEHLA, tally(streak_side=1, streak_count=6), dealer=0, winner=0)
    assert (step.kot, step.tally.streak_side, step.tally.streak_count) == (NONE, 0, 1)


def test_r1_8_a_four_tens_hand_that_is_also_the_seventh_in_a_row_is_one_kot() -> None:
    step = apply(DEHLA, tally(streak_side=0, streak_count=6), dealer=0, winner=0, all_tens=0)
    assert step.tally.kots == (1, 0)


def test_r1_9_the_first_side_to_kots_wins_and_level_at_max_hands_is_a_draw() -> None:
    rules = make_rules("dehla", kots=2, max_hands=5)
    assert apply(rules, tally(kots=(0, 1)), dealer=0, winner=1, all_tens=1).tally.winner == 1
    assert apply(rules, tally(kots=(1, 1), hands=4), dealer=0, winner=1).tally.winner == DRAW_CODE
    assert apply(rules, tally(kots=(1, 0), hands=4), dealer=0, winner=1).tally.winner == 0
    assert apply(rules, tally(kots=(1, 0), hands=3), dealer=0, winner=1).tally.winner == NONE


def test_r2_6_streak_rounds_in_a_row_win_and_a_round_without_winner_changes_nothing() -> None:
    rules = make_rules("dehla-direct", streak=3)
    step = apply(rules, tally(streak_side=0, streak_count=2), dealer=0, winner=NONE)
    assert (step.tally.streak_side, step.tally.streak_count, step.tally.winner) == (0, 2, NONE)
    step = apply(rules, tally(streak_side=0, streak_count=2), dealer=0, winner=0)
    assert (step.kot, step.tally.winner, step.tally.streak_count) == (0, 0, 3)  # not cleared (R6)
    step = apply(rules, tally(streak_side=0, streak_count=2), dealer=0, winner=1, all_tens=1)
    assert (step.kot, step.tally.winner, step.tally.streak_side) == (1, 1, 1)  # sirr wins at once


def test_r2_6_points_a_point_a_round_and_four_tens_still_win_at_once() -> None:
    rules = make_rules("dehla-direct", match="points", points=3)
    assert apply(rules, tally(points=(2, 0)), dealer=0, winner=0).tally[1:] == ((3, 0), NONE, 0, 0, 1, 0)
    step = apply(rules, tally(), dealer=0, winner=1, all_tens=1)
    assert (step.kot, step.tally.kots, step.tally.winner) == (1, (0, 1), 1)
    assert apply(rules, tally(hands=39), dealer=0, winner=NONE).tally.winner == DRAW_CODE  # R2.6 Decision


@pytest.mark.parametrize(
    "prev, dealer, winner, next_dealer",
    [
        (NO_ROUND, 2, NONE, 3),  # no winner in the first round of the match: dealer+1
        (0, 2, NONE, 3),  # the dealer's side won the previous round: dealer+1
        (NONE, 2, NONE, 3),  # nobody won the previous round: dealer+1
        (1, 2, NONE, 2),  # the dealer's side lost the previous round: the same dealer
        (0, 3, 1, 0),  # the dealer's side won: dealer+1
        (0, 3, 0, 3),  # the other side won: the same dealer
    ],
)
def test_r2_7_the_next_dealer(prev: int, dealer: int, winner: int, next_dealer: int) -> None:
    step = apply(TENS, tally(prev_round=prev), dealer=dealer, winner=winner)
    assert (step.next_dealer, step.tally.prev_round) == (next_dealer, winner)


def test_r3_5_the_deal_goes_to_the_losing_side_and_r3_6_a_kot_is_one_more_point() -> None:
    assert apply(COURT, tally(), dealer=0, winner=1).next_dealer == 0
    assert apply(COURT, tally(), dealer=0, winner=0).next_dealer == 1
    step = apply(COURT, tally(points=(5, 3)), dealer=0, winner=0, kot=0)
    assert (step.tally.points, step.tally.kots, step.tally.winner) == ((7, 3), (1, 0), 0)


def test_r4_5_a_side_that_falls_gap_behind_loses_and_at_max_hands_the_side_ahead_wins() -> None:
    assert apply(COAT, tally(points=(26, 0)), dealer=0, winner=0, score=(0, -26)).tally.winner == 0  # 52 behind
    assert apply(COAT, tally(points=(25, 0)), dealer=0, winner=0, score=(0, -26)).tally.winner == NONE  # 51
    assert apply(COAT, tally(points=(0, 45)), dealer=0, winner=1, score=(0, 7)).tally.winner == 1
    rules = make_rules("coat-pees", max_hands=2)
    assert apply(rules, tally(hands=1), dealer=0, winner=1, score=(-7, 0)).tally.winner == 1
    assert apply(rules, tally(hands=1, points=(7, 0)), dealer=0, winner=0, score=(0, 7)).tally.winner == DRAW_CODE


def test_r4_6_the_next_dealer() -> None:
    assert apply(COAT, tally(), dealer=1, winner=0, score=(0, -7)).next_dealer == 1
    assert apply(COAT, tally(), dealer=1, winner=1, score=(0, 7)).next_dealer == 2


def test_a_drawn_match_reads_draw_in_text_and_json() -> None:
    assert DRAWN == "draw" and str(DRAWN) == "draw" and f"{DRAWN}" == "draw"
    assert json.dumps({"winner": DRAWN}) == '{"winner": "draw"}'
    match = MatchState(make_rules("court-piece", max_hands=1), 0)
    match.score_hand(HandResult(winner=0, all_tens=None, kot=None, score=(0, 0)), 0)
    assert match.winner == 0
    match = MatchState(make_rules("dehla-direct", max_hands=1), 0)
    match.score_hand(HandResult(winner=None, all_tens=None, kot=None, score=(0, 0)), 0)
    assert match.winner is DRAWN and match.summaries[-1].next_dealer is None


# ---------------------------------------------------------------------- one hand, a batch
#: every ruleset, and some again with matches short enough to end in a few hands
VARIANTS = [
    rules_of(config)
    for config in with_options(
        {
            "dehla": [{}, {"kots": 1, "max_hands": 3}],
            "dehla-direct": [{"streak": 2, "max_hands": 4}],
            "dehla-direct-scoring=tricks": [{"match": "points", "points": 2, "max_hands": 3}],
            "dehla-direct-scoring=double-sar": [{"streak": 3}, {"match": "points", "points": 3}],
            "court-piece": [{"points": 3, "max_hands": 4}],
            "court-piece-defender_kot=True": [{"points": 2}],
            "coat-pees": [{}, {"gap": 20, "max_hands": 3}],
        }
    )
]
#: the rulesets the search plays (four players)
FOUR = [rules for rules in VARIANTS if rules.players == 4]


def _random_hands(rules: Rules, rng: np.random.Generator, k: int) -> dict[str, np.ndarray]:
    """``k`` complete hands' totals: every trick, ten and card won by one side (the
    court-piece round stops when a side has seven tricks)."""
    if rules.hand_scoring is HandScoring.FIRST_TO_SEVEN:
        loser = rng.integers(0, 7, k)
        first = rng.integers(0, 2, k) == 0
        t0, t1 = np.where(first, 7, loser), np.where(first, loser, 7)
    else:
        t0 = rng.integers(0, 14, k)
        t1 = 13 - t0
    tens0 = rng.integers(0, 5, k)
    return {
        "dealer": rng.integers(0, 4, k),
        "tricks0": t0,
        "tricks1": t1,
        "tens0": tens0,
        "tens1": 4 - tens0,
        "cards0": 4 * t0,
        "cards1": 4 * t1,
        "trump_maker": rng.integers(0, 4, k),
        "seat": rng.integers(0, 4, k),
        "bid": rng.integers(7, 14, k),
    }


def _hand_outcome(rules: Rules, h: dict[str, Any]) -> HandOutcome:
    return hand_outcome(
        rules,
        dealer=h["dealer"],
        tricks=(h["tricks0"], h["tricks1"]),
        tens=(h["tens0"], h["tens1"]),
        cards_won=(h["cards0"], h["cards1"]),
        trump_maker=h["trump_maker"],
        contract=(h["seat"], h["bid"]),
    )


def _flat(x: Any) -> list[Any]:
    """A hand outcome, match step or tally as a flat list of its numbers."""
    if isinstance(x, tuple):
        return [y for part in x for y in _flat(part)]
    return [x]


def _pick(x: Any, i: int) -> Any:
    """Row ``i`` of a batch's outcome, step or tally, as the one-hand form (ints)."""
    if isinstance(x, tuple):
        parts = [_pick(p, i) for p in x]
        return type(x)(*parts) if hasattr(x, "_fields") else tuple(parts)
    return int(x[i]) if np.ndim(x) else int(x)


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_one_hand_and_a_batch_agree_on_random_hands(rules: Rules) -> None:
    rng = np.random.default_rng(1)
    k = 400
    batch = _random_hands(rules, rng, k)
    outs = _hand_outcome(rules, batch)
    for i in range(k):
        one = _hand_outcome(rules, {key: int(v[i]) for key, v in batch.items()})
        assert all(type(x) is int for x in _flat(one))
        assert one == _pick(outs, i), (rules, i)


def _random_tallies(rules: Rules, rng: np.random.Generator, k: int) -> MatchTally:
    """``k`` undecided matches between hands."""
    kots_cap = rules.kots_to_win or 1
    streak_cap = rules.kot_streak or 1
    side = rng.integers(-1, 2, k) if rules.tracks_streak else np.full(k, NO_SIDE)
    count = np.where(side >= 0, rng.integers(1, max(streak_cap, 2), k), 0)
    if rules.match_scoring is MatchScoring.GAP:
        p0 = rng.integers(-40, 30, k)
        points = (p0, p0 + rng.integers(-rules.gap + 1, rules.gap, k))
    elif rules.points_to_win is not None:
        points = (rng.integers(0, rules.points_to_win, k), rng.integers(0, rules.points_to_win, k))
    else:
        points = (np.zeros(k, np.int64), np.zeros(k, np.int64))
    return MatchTally(
        kots=(rng.integers(0, kots_cap, k), rng.integers(0, kots_cap, k)),
        points=points,
        streak_side=side,
        streak_count=count,
        prev_round=rng.integers(NO_ROUND, 2, k),
        hands=rng.integers(0, rules.max_hands or 50, k),
        winner=np.full(k, NO_SIDE),
    )


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_one_match_and_a_batch_score_random_hands_alike(rules: Rules) -> None:
    rng = np.random.default_rng(2)
    k = 400
    hands = _hand_outcome(rules, _random_hands(rules, rng, k))
    tallies = _random_tallies(rules, rng, k)
    dealer = rng.integers(0, 4, k)
    batch = score_match(rules, tallies, hands)
    batch_dealers = next_dealer(rules, tallies, hands, dealer)
    decided = 0
    for i in range(k):
        tally, hand = _pick(tallies, i), _pick(hands, i)
        step = score_match(rules, tally, hand)
        dealt = next_dealer(rules, tally, hand, int(dealer[i]))
        assert all(type(x) is int for x in [*_flat(step), dealt]), (rules, i)
        assert (step, dealt) == (_pick(batch, i), _pick(batch_dealers, i)), (rules, i)
        decided += step.tally.winner != NO_SIDE
    assert 0 < decided < k  # both kinds of step were checked


def test_the_fresh_tally_is_a_match_before_its_first_hand() -> None:
    match = MatchState(make_rules("dehla-direct"), 2)
    streak = (NO_SIDE, 0) if match.streak is None else match.streak
    seen = (tuple(match.kots), tuple(match.points), *streak, match.prev_round_winner, match.hands_completed)
    assert seen == FRESH_TALLY[:6] and match.winner is None and FRESH_TALLY.winner == NO_SIDE


# ---------------------------------------------------------------------- the search's objective
@pytest.mark.parametrize("rules", FOUR, ids=str)
def test_the_objective_result_is_monotone_and_changes_at_its_cuts(rules: Rules) -> None:
    """As side 0's value grows its result never gets worse (no winner is between a
    loss and a win), so the search's best value is its best result; the cuts are
    exactly the values where the result changes."""
    from agents.bots.objective import SettledTally, objective

    goal = objective(rules)
    order = {1: 0, None: 1, 0: 2}  # side 0's view of a result
    rng = np.random.default_rng(3)
    for _ in range(300):
        done = int(rng.integers(0, 14))
        t0 = int(rng.integers(0, done + 1))
        tricks = (t0, done - t0)
        if rules.hand_scoring is HandScoring.FIRST_TO_SEVEN:
            tricks = (min(tricks[0], 6), min(tricks[1], 6))
        ten_count = int(rng.integers(0, 5))
        ten0 = int(rng.integers(0, ten_count + 1))
        tens = (ten0, ten_count - ten0)
        contract = (int(rng.integers(0, 4)), int(rng.integers(7, 14)), 0)
        t = SettledTally(rules, int(rng.integers(0, 4)), tricks, tens, contract)
        cuts = set(goal.cuts(t))
        for f in range(1, goal.top - goal.value(t) + 1):
            before, after = goal.winner(t, f - 1), goal.winner(t, f)
            assert order[before] <= order[after], (t, f)
            assert (before != after) == (f in cuts), (t, f, sorted(cuts))


@pytest.mark.parametrize("rules", FOUR, ids=str)
def test_the_objective_winner_is_the_engine_result_from_any_point_of_a_played_hand(rules: Rules) -> None:
    """From each trick boundary of random hands, side 0's future gain in the objective's
    units (tens, points or tricks) gives the hand's result by the engine's own rule."""
    from agents.bots.objective import objective

    goal = objective(rules)
    rng = np.random.default_rng(4)
    for _ in range(25):
        match = MatchState(rules, int(rng.integers(4)))
        points = []
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            hand = match.hand
            if hand.phase == Phase.PLAY and not hand.trick_cards and hand.stage == 2:
                points.append(hand.clone())
            acts = match.legal_actions()
            match.apply_action(acts[int(rng.integers(len(acts)))])
        final = match.hand
        result = final.result()
        assert goal.winner(final, 0) == result.winner
        for before in points:
            assert goal.winner(before, goal.value(final) - goal.value(before)) == result.winner
