"""``belief`` (agents/search/belief.py): sampled worlds weighted by how likely the plays seen
are in them. The replay must show each seat what it saw then (R0.6), the real deal must
look likelier than a random consistent one, and nothing is weighed before the full deal
(R0.3, R1.4)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.heuristic import HardAgent
from agents.bots.sampler import Deal, WorldSampler
from agents.registry import make_agent
from agents.search.belief import PlayLikelihood, _first_stage_tricks, _public_plays
from dehla_env import MatchState, make_rules
from dehla_env.cards import cards_in, shuffled_deck
from dehla_env.encoding import ObservationEncoder
from dehla_env.engine import Phase
from dehla_env.view import view_of


def _likelihood() -> PlayLikelihood:
    rules = make_rules("dehla")
    return PlayLikelihood(rules, make_agent("policy:dehla-playout", rules).net)


def _hands(seed: int):
    """Card decisions of four hard bots in a seeded dehla hand: per decision the match
    before it (a view of every seat) and, per seat, the observation it had."""
    rules = make_rules("dehla")
    rng = np.random.default_rng(seed)
    match = MatchState(rules, seed % 4)
    match.apply_deal(shuffled_deck(rng))
    bots = [HardAgent(seed * 10 + s) for s in range(4)]
    encoder = ObservationEncoder(rules)
    while not match.hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        seat = match.hand.to_act
        yield match, seat, encoder.encode(match, seat).copy()
        match.apply_action(bots[seat].act(view_of(match, seat)))


def _late_view(seed: int, tricks: int = 10):
    """A seat's view ``tricks`` tricks into a seeded hand, the real hands then, and every
    seat's observation at each decision before (decision i is play i: dehla has only
    card decisions)."""
    seen: list[np.ndarray] = []
    for match, seat, obs in _hands(seed):
        if len(match.hand.history) == tricks:
            return view_of(match, seat), tuple(match.hand.hands), seen
        seen.append(obs)
    raise AssertionError("the hand ended early")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_replay_of_the_real_deal_shows_each_seat_what_it_saw(seed: int) -> None:
    """Replayed from the real deal, each decision's observation is the one that seat
    really had then: the replay sees what the table saw (R0.6)."""
    belief = _likelihood()
    view, hands, seen = _late_view(seed)
    plays = _public_plays(view)
    first = _first_stage_tricks(view)
    assert first is not None
    replayed = belief._decisions(view, Deal(hands, (), -1), plays, first)
    assert replayed, "ten tricks in, the other seats have decided"
    for i, obs, _legal in replayed:
        assert i >= 4 * first and plays[i][0] != view.seat
        np.testing.assert_array_equal(obs, seen[i])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_world_differs_from_the_replayed_one_only_in_the_deciders_cards(seed: int) -> None:
    """The decisions weighed in every sampled world are what a replay of that world
    gives: the observation, and the legal cards (R0.4) the engine gave the seat there."""
    belief = _likelihood()
    view, _hands_now, _seen = _late_view(seed, tricks=8)
    deals = [WorldSampler(view).sample(np.random.default_rng(seed)) for _ in range(6)]
    weighed = belief.weighed_decisions(view, deals)
    assert weighed is not None
    world, rows, legal, card = weighed
    plays = _public_plays(view)
    first = _first_stage_tricks(view)
    assert first is not None
    checked = 0
    for w, deal in enumerate(deals):
        replay = belief._decisions(view, deal, plays, first)
        assert replay is not None
        mine = np.flatnonzero(world == w)
        by_card = {int(card[r]): r for r in mine}
        for i, obs, legal_mask in replay:
            played = plays[i][1]
            can = np.array([legal_mask >> c & 1 for c in range(52)], bool)
            assert can[played]
            if can.sum() > 1:
                r = by_card.pop(played)
                np.testing.assert_array_equal(rows[r], obs)
                np.testing.assert_array_equal(legal[r], can)
                checked += 1
        assert not by_card
    assert checked > 20


def test_the_real_deal_looks_likelier_than_most_consistent_deals() -> None:
    """Weighted by a network's probabilities of the cards really played, the real deal
    beats the median sampled deal far more often than half the time."""
    belief = _likelihood()
    rng = np.random.default_rng(0)
    above = total = 0
    for seed in range(4):
        for match, seat, _obs in _hands(seed):
            view = view_of(match, seat)
            if match.hand.phase != Phase.PLAY or len(match.hand.history) < 4:
                continue
            sampler = WorldSampler(view)
            deals = [sampler.sample(rng) for _ in range(16)]
            log_w = belief.log_weights(view, [*deals, Deal(tuple(match.hand.hands), (), -1)])
            if log_w[-1] == 0.0:
                continue
            total += 1
            above += log_w[-1] > np.median(log_w[:-1])
    assert total > 60
    assert above / total > 0.6, (above, total)


def test_nothing_is_weighed_before_the_full_deal() -> None:
    """In the first stage (five cards each, R0.3, R1.4) which cards a seat held is not
    part of a sampled deal: every world weighs the same."""
    belief = _likelihood()
    rng = np.random.default_rng(1)
    checked = 0
    for match, seat, _obs in _hands(5):
        if match.hand.stage != 1:
            break
        view = view_of(match, seat)
        deals = [WorldSampler(view).sample(rng) for _ in range(8)]
        assert not belief.log_weights(view, deals).any()
        checked += 1
    assert checked >= 4


def test_belief_is_for_the_batched_search_of_first_void_rulesets() -> None:
    spec = "batched-search:playout=cardsense,k=4,belief=policy:dehla-playout"
    make_agent(spec, make_rules("dehla"))
    with pytest.raises(ValueError, match="no parameter 'belief'"):
        make_agent("search:k=4,belief=policy:dehla-playout", make_rules("dehla"))
    with pytest.raises(ValueError, match="first-void"):
        PlayLikelihood(make_rules("dehla", trump="chosen"), _likelihood().net)


def test_a_search_with_belief_plays_whole_hands() -> None:
    """The weighted search goes through hands the engine accepts (R5)."""
    rules = make_rules("dehla")
    spec = "batched-search:playout=policy:dehla-playout,k=8,depth=5,rdepth=4,belief=policy:dehla-playout"
    rng = np.random.default_rng(3)
    match = MatchState(rules, 0)
    match.apply_deal(shuffled_deck(rng))
    seats = [make_agent(spec, rules, 7) if s % 2 == 0 else HardAgent(s) for s in range(4)]
    while not match.hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            continue
        seat = match.hand.to_act
        match.apply_action(seats[seat].act(view_of(match, seat)))
    assert match.hand.complete


def test_a_hand_whose_trump_was_drawn_replays_too() -> None:
    """R1.4: nobody void in the five tricks of the first stage, so the trump is drawn
    from the twenty cards played; the replay draws the same card, and each world's
    decisions after the full deal are those of a replay of that world."""
    from tests.helpers import new_match

    match = new_match(
        "dehla",
        3,
        [
            "AS KS AH AD AC | 6S 5S TH 9H TD 9D TC 9C",
            "QS JS KH KD KC | 4S 3S 8H 7H 8D 7D 8C 7C",
            "TS 9S QH QD QC | 2S 6H 5H 4H 6D 5D 6C 5C",
            "8S 7S JH JD JC | 3H 2H 4D 3D 2D 4C 3C 2C",
        ],
    )
    hand = match.hand
    for suit in (3, 3, 2, 1, 0):  # spades twice, hearts, diamonds, clubs: every seat follows
        for _ in range(4):
            own = [c for c in cards_in(hand.hands[hand.to_act]) if c // 13 == suit]
            match.apply_action(own[-1])
    assert match.is_chance()
    rng = np.random.default_rng(0)
    match.sample_chance(rng)  # the draw
    assert hand.draw_card >= 0
    while len(hand.history) < 8:
        legal = match.legal_actions()
        match.apply_action(legal[int(rng.integers(len(legal)))])
    seat = hand.to_act
    view = view_of(match, seat)
    belief = _likelihood()
    plays = _public_plays(view)
    assert _first_stage_tricks(view) == 5
    real = belief._decisions(view, Deal(tuple(hand.hands), (), -1), plays, 5)
    assert real and all(i >= 20 for i, _obs, _legal in real)
    deals = [WorldSampler(view).sample(rng) for _ in range(4)]
    weighed = belief.weighed_decisions(view, deals)
    assert weighed is not None
    assert belief.log_weights(view, deals).any()
