"""The one trick rule (R0.4, dehla_env/tricks.py), and every fast form held to it: the
batched engine's keys, the solver's last trick, the card features of the policy
network, the bots' knowledge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dehla_env.cards import NUM_CARDS
from dehla_env.tricks import beats, trick_key, trick_keys, trick_winner
from tests.rulesets import FOUR_PLAYER, rules_of

tricks = st.tuples(
    st.lists(st.integers(0, NUM_CARDS - 1), min_size=1, max_size=6),  # repeats: three packs (R2.8)
    st.integers(-1, 3),
)


def oracle(cards: list[int], trump: int) -> int:
    """R0.4 read literally: the highest trump, else the highest of the led suit; between
    equal cards the first played (R2.8)."""
    led = cards[0] // 13
    trumps = [i for i, c in enumerate(cards) if c // 13 == trump]
    pool = trumps or [i for i, c in enumerate(cards) if c // 13 == led]
    top = max(cards[i] % 13 for i in pool)
    return min(i for i in pool if cards[i] % 13 == top)


@settings(max_examples=400, deadline=None)
@given(tricks)
def test_the_trick_winner_is_the_highest_trump_else_the_highest_of_the_led_suit(trick: tuple[list[int], int]) -> None:
    cards, trump = trick
    assert trick_winner(cards, trump) == oracle(cards, trump)


@settings(max_examples=400, deadline=None)
@given(tricks)
def test_array_keys_pick_the_same_winner(trick: tuple[list[int], int]) -> None:
    cards, trump = trick
    keys = trick_keys(np.array(cards), np.array(cards[0] // 13), np.array(trump))
    assert int(keys.argmax()) == trick_winner(cards, trump)
    padded = trick_keys(np.array([*cards, -1]), np.array(cards[0] // 13), np.array(trump))
    assert padded[-1] == -1 and int(padded.argmax()) == trick_winner(cards, trump)


def test_the_one_card_key_is_the_array_key_for_every_card_led_suit_and_trump() -> None:
    """``trick_key`` (one card, what the batched engine's compiled card kernel calls,
    compiled and as Python) gives ``trick_keys``'s key for every card, led suit and trump."""
    from dehla_env.vector.decisions import _trick_key

    for led in range(4):
        for trump in range(-1, 4):
            expected = trick_keys(np.arange(NUM_CARDS), np.array(led), np.array(trump)).tolist()
            assert [trick_key(c, led, trump) for c in range(NUM_CARDS)] == expected
            assert [_trick_key(c, led, trump) for c in range(NUM_CARDS)] == expected


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.integers(-1, 3), st.integers(0, 3))
def test_the_solvers_last_trick_is_the_rule(deck: list[int], trump: int, leader: int) -> None:
    from agents.bots.objective import objective
    from agents.search.solver import _last_trick
    from dehla_env import make_rules

    cards = deck[:4]  # by seat
    hands = [1 << c for c in cards]
    order = [(leader + k) % 4 for k in range(4)]
    winner = order[trick_winner([cards[s] for s in order], trump)]
    # counting tricks (R4.4): the value is side 0's tricks from here: 1 if side 0 wins the trick
    resolve = objective(make_rules("coat-pees")).resolver()
    assert _last_trick(resolve, leader, hands, trump, False, 0) == (1 if winner % 2 == 0 else 0)


def test_card_features_beats_is_the_rule() -> None:
    """The policy network's "beats the card now winning" feature, on real positions."""
    torch = pytest.importorskip("torch")
    from agents.nets.features import NUM_CARD_FEATURES, CardFeatures
    from dehla_env import MatchState, view_of
    from dehla_env.encoding import encode_view

    rng = np.random.default_rng(3)
    feats = CardFeatures(4)
    checked = 0
    for rules in map(rules_of, FOUR_PLAYER):  # the network's card features are four seats'
        for _ in range(10):
            match = MatchState.new(rules, rng)
            match.sample_chance(rng)
            while not match.hand.complete:
                if match.is_chance():
                    match.sample_chance(rng)
                    continue
                view = view_of(match, match.current_player())
                if view.trick:
                    out = feats(torch.as_tensor(encode_view(view))[None])[0].numpy()
                    start = out.shape[0] - NUM_CARD_FEATURES + 3 * NUM_CARDS
                    trump = view.trump if view.trump_in_force else -1
                    best = view.trick[trick_winner([c for _s, c in view.trick], trump)][1]
                    want = [1.0 if beats(c, best, trump) else 0.0 for c in range(NUM_CARDS)]
                    assert out[start : start + NUM_CARDS].tolist() == want
                    checked += 1
                legal = match.legal_actions()
                match.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 500


def test_knowledge_beats_is_the_rule() -> None:
    from agents.bots.knowledge import Knowledge
    from dehla_env import MatchState, make_rules, view_of

    rng = np.random.default_rng(5)
    match = MatchState.new(make_rules("dehla-direct"), rng)
    match.sample_chance(rng)
    while not match.hand.complete:
        view = view_of(match, match.current_player())
        know = Knowledge(view)
        for c in range(NUM_CARDS):
            for best in (0, 12, 25, 47, 51):
                assert know.beats(c, best) == beats(c, best, know.trump_suit_in_force)
        legal = match.legal_actions()
        match.apply_action(legal[int(rng.integers(len(legal)))])
