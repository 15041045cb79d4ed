"""The open-hands solver (agents/search/solver.py) against plain minimax over the engine.

The reference is the engine itself: ``HandState.clone()`` / ``apply_action`` over every
legal card, to the hand's own result at the end (``HandState.result``: R1.6, R2.5,
R3.3, R4.4), which the solver's values must predict through the objective
(:mod:`agents.bots.objective`); and the hand's own tallies (R1.5 middle and takes, R2.3
capture, R2.5 points, R3.3 the round stopping at seven, R4.3 all thirteen) counted as
the objective counts them, which the solver's values must equal. Positions are small
random endings (one to four tricks left, any point inside a trick) of hands played
with random legal cards, in every ruleset.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.bots.objective import objective
from agents.search.solver import Solver, _canon_code, position_of, solvable
from dehla_env import MatchState, make_rules
from dehla_env.cards import TEN_RANK
from dehla_env.engine import HandState, Phase
from dehla_env.seats import side_of
from tests.deals import deck_from_hands
from tests.rulesets import FOUR_PLAYER, ruleset_id

RULESETS = FOUR_PLAYER


def tally(hand: HandState) -> int:
    """Side 0's value so far as the objective counts it."""
    return objective(hand.rules).value(hand)


def rank(winner: int | None) -> int:
    """A hand's result as side 0 orders it: 2 it wins, 1 no winner, 0 side 1 wins."""
    return 1 if winner is None else 2 - 2 * winner


def brute(hand: HandState, memo: dict) -> tuple[int, int]:
    """Under best play by both sides (plain minimax, memoised on the engine's state):
    side 0's final value as the objective counts it, and the hand's result by the
    engine's own rule (:func:`rank` of ``HandState.result``), each minimaxed on its own."""
    if hand.phase == Phase.DONE:
        return tally(hand), rank(hand.result().winner)
    key = (
        tuple(hand.hands),
        tuple(hand.trick_cards),
        hand.to_act,
        hand.trump,
        hand.middle_tens,
        hand.last_winner,
        tuple(hand.tricks),
        tuple(hand.tens),
        tally(hand),
    )
    if key in memo:
        return memo[key]
    children = []
    for a in hand.legal_actions():
        child = hand.clone()
        child.apply_action(a)
        children.append(brute(child, memo))
    best = max if hand.to_act % 2 == 0 else min
    v = (best(c[0] for c in children), best(c[1] for c in children))
    memo[key] = v
    return v


def random_ending(rules, rng: np.random.Generator, left: int, in_trick: int) -> HandState:
    """A solvable position with ``left`` tricks to go and ``in_trick`` cards of the
    current trick played, reached by random legal play."""
    while True:
        match = MatchState(rules, int(rng.integers(4)))
        match.apply_deal(match.random_deck(rng))
        hand = match.hand
        target = rules.num_tricks - left
        while hand.phase != Phase.DONE and not (hand.num_tricks_done == target and len(hand.trick_cards) == in_trick):
            if hand.phase == Phase.DRAW:
                match.sample_chance(rng)
                continue
            legal = hand.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
        if hand.phase != Phase.DONE and solvable(hand):
            return hand


@pytest.mark.parametrize("name,options", RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_solver_matches_brute_force(name: str, options: dict) -> None:
    rules = make_rules(name, **options)
    rng = np.random.default_rng(zlib.crc32(repr((name, sorted(options.items()))).encode()))
    solver = Solver(rules)
    goal = solver.objective
    # two and three tricks left anywhere in a trick; one four-trick ending at a lead
    plan = [(2 + i % 2, int(rng.integers(4))) for i in range(10)] + [(4, 0)]
    for left, in_trick in plan:
        hand = random_ending(rules, rng, left, in_trick)
        pos = position_of(hand)
        base = tally(hand)
        memo: dict = {}
        value, result = brute(hand, memo)
        assert solver.value(pos) == value - base
        assert rank(goal.winner(hand, value - base)) == result, hand.history  # the engine's result
        values = solver.move_values(pos)
        assert sorted(values) == hand.legal_actions()
        for card, v in values.items():
            child = hand.clone()
            child.apply_action(card)
            value, result = brute(child, memo)
            assert v == value - base, (card, hand.history)
            assert rank(goal.winner(hand, v)) == result, (card, hand.history)
        # result intervals: they hold the value and no result cut splits them
        cuts = goal.cuts(hand)
        exact = solver.value(pos)
        lo, hi = solver.interval(pos, cuts)
        assert lo <= exact <= hi and not any(lo < t <= hi for t in cuts)
        assert goal.winner(hand, lo) == goal.winner(hand, hi) == goal.winner(hand, exact)
        for card, (lo, hi) in solver.move_intervals(pos, cuts).items():
            assert lo <= values[card] <= hi and not any(lo < t <= hi for t in cuts)


def test_first_void_trump_still_to_make() -> None:
    """R2.4a: with the trump not made yet, the first seat unable to follow makes it
    with the card it plays, which already counts as a trump in that trick."""
    rules = make_rules("dehla-direct")
    # Everybody holds four of one suit and three of each other: ten tricks can be
    # followed by all (three in clubs, diamonds, hearts; one in spades).
    hands = [
        "AC KC QC JC AD KD QD AH KH QH AS KS QS",
        "TC 9C 8C JD TD 9D 8D JH TH 9H JS TS 9S",
        "7C 6C 5C 7D 6D 5D 8H 7H 6H 5H 8S 7S 6S",
        "4C 3C 2C 4D 3D 2D 4H 3H 2H 5S 4S 3S 2S",
    ]
    dealer = 3
    match = MatchState(rules, dealer)
    match.apply_deal(deck_from_hands(dealer, hands))
    hand = match.hand
    order = ["C", "C", "C", "D", "D", "D", "H", "H", "H", "S"]
    for suit in order:
        for _ in range(4):
            legal = hand.legal_actions()
            follow = [c for c in legal if "CDHS"[c // 13] == suit]
            hand.apply_action(max(follow) if hand.to_act == hand.leader else min(follow))
    assert hand.trump_suit < 0 and hand.num_tricks_done == 10
    assert solvable(hand) and position_of(hand).trump_pending
    solver = Solver(rules)
    for in_trick in range(4):
        pos = position_of(hand)
        assert pos.trump_pending == (hand.trump_suit < 0)
        memo: dict = {}
        assert solver.value(pos) == brute(hand, memo)[0] - tally(hand)
        for card, v in solver.move_values(pos).items():
            child = hand.clone()
            child.apply_action(card)
            assert v == brute(child, memo)[0] - tally(hand)
        if in_trick < 3:
            hand.apply_action(hand.legal_actions()[0])


@pytest.mark.parametrize("name,options", RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_best_line_reaches_the_solved_result(name: str, options: dict) -> None:
    """Playing the solver's best card for every seat ends the hand with the result the
    value predicted (R1.6 with 2-2 to the non-dealer, R2.5, R3.3, R4.4)."""
    rules = make_rules(name, **options)
    rng = np.random.default_rng(5)
    solver = Solver(rules)
    for _ in range(6):
        hand = random_ending(rules, rng, 5, 0)
        value = solver.value(position_of(hand))
        predicted = solver.objective.winner(hand, value)
        start = tally(hand)
        play = hand.clone()
        while play.phase != Phase.DONE:
            values = solver.move_values(position_of(play))
            best = max if side_of(play.to_act) == 0 else min  # side 0 maximises its value
            card = best(values, key=values.__getitem__)
            v = values[card]
            assert tally(play) - start + v == value  # the value holds along the best line
            play.apply_action(card)
        assert tally(play) - start == value
        assert play.result().winner == predicted


def test_two_two_goes_to_the_non_dealer() -> None:
    """R1.6: the objective maps a 2-2 split to the side that did not deal."""
    rules = make_rules("dehla")
    goal = objective(rules)
    for dealer in range(4):
        hand = HandState(rules, dealer)
        hand.tens = [1, 1]
        assert goal.winner(hand, 1) == 1 - dealer % 2
        assert goal.winner(hand, 2) == 0
        assert goal.winner(hand, 0) == 1


def test_unsolvable_positions_are_refused() -> None:
    rules = make_rules("dehla")  # first-void: the first five tricks are on five cards
    match = MatchState(rules, 0)
    match.apply_deal(list(range(52)))
    assert not solvable(match.hand)
    with pytest.raises(ValueError):
        position_of(match.hand)
    with pytest.raises(ValueError):
        Solver(make_rules("dehla-direct", players=6))


@given(st.lists(st.integers(-1, 3), min_size=13, max_size=13), st.booleans())
def test_the_table_key_of_a_suit_names_who_holds_each_card_still_in_play(holder: list[int], tens_matter: bool) -> None:
    """The transposition key of one suit keeps, lowest rank first, the seat of each card
    still in play (a card played, -1, drops out), their number, and where tens score the
    ten's place among them: holdings equal up to cards already played share a key."""
    x = sum(1 << (13 * seat + rank) for rank, seat in enumerate(holder) if seat >= 0)
    in_play = [(rank, seat) for rank, seat in enumerate(holder) if seat >= 0]
    expected = sum(seat << (2 * k) for k, (_rank, seat) in enumerate(in_play)) | len(in_play) << 26
    if tens_matter:
        expected |= next((k + 1 for k, (rank, _seat) in enumerate(in_play) if rank == TEN_RANK), 0) << 30
    assert _canon_code(x, tens_matter) == expected
