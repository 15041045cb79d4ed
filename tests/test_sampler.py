"""The hidden-hand sampler (agents/bots/sampler.py): constraints, uniformity, worlds.

Every sampled deal must agree with what the seat knows (R0.6): its own hand, the cards
played, the hand sizes and the undealt stock (R0.3 staged deal), the voids shown
(R0.4) with the R1.4 refinement that a void shown on the first five cards says nothing
about the eight dealt later. Over a tiny case the draws must match the exact
distribution over consistent deals, found here by enumerating every assignment.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from agents.bots.sampler import STOCK, WorldSampler, holders_of, match_for, world_state
from dehla_env import MatchState, make_rules
from dehla_env.cards import SUIT_MASKS
from dehla_env.engine import HandState, Phase
from dehla_env.view import PlayerView, view_of
from tests.rulesets import FOUR_PLAYER, first_of_each, hidden_information, ruleset_id

RULESETS = FOUR_PLAYER


class Game:
    """A hand played with random legal decisions, recording when the second stage of
    the deal came (R1.4) so the tests can tell first-stage voids apart."""

    def __init__(self, rules, rng: np.random.Generator) -> None:
        self.rng = rng
        self.match = MatchState(rules, int(rng.integers(4)))
        self.match.apply_deal(self.match.random_deck(rng))
        self.split: int | None = 0 if self.match.hand.stage == 2 else None

    @property
    def hand(self) -> HandState:
        return self.match.hand

    def step(self) -> None:
        match, hand = self.match, self.match.hand
        if hand.phase == Phase.DRAW:
            match.sample_chance(self.rng)
        else:
            legal = hand.legal_actions()
            match.apply_action(legal[int(self.rng.integers(len(legal)))])
        if self.split is None and hand.stage == 2:
            self.split = hand.num_tricks_done  # the trump trick (or the draw) closed the first stage


def shown_voids(view: PlayerView, split: int | None) -> list[int]:
    """Per seat, the suits it cannot hold now: voids shown since the whole hand was
    dealt (all of them while cards are still undealt)."""
    voids = [0, 0, 0, 0]
    tricks = [(t, leader, cards) for t, (leader, cards, _w) in enumerate(view.history)]
    if view.trick:
        tricks.append((len(view.history), view.trick[0][0], tuple(c for _s, c in view.trick)))
    for t, leader, cards in tricks:
        if split is not None and t < split:
            continue
        led = cards[0] // 13
        for i, c in enumerate(cards):
            if c // 13 != led:
                voids[(leader + i) % 4] |= 1 << led
    return voids


def check_deal(view: PlayerView, split: int | None, hands, stock) -> None:
    played = view.played_mask
    assert hands[view.seat] == view.hand_mask
    seen = played
    for seat in range(4):
        assert hands[seat].bit_count() == view.hand_counts[seat]
        assert not seen & hands[seat]
        seen |= hands[seat]
    assert len(stock) == view.cards_undealt
    for c in stock:
        assert not seen >> c & 1
        seen |= 1 << c
    assert seen == (1 << 52) - 1
    voids = shown_voids(view, split)
    for seat in range(4):
        for s in range(4):
            if voids[seat] >> s & 1:
                assert not hands[seat] & SUIT_MASKS[s], (seat, s)


@pytest.mark.parametrize("name,options", RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_samples_respect_the_view(name: str, options: dict) -> None:
    rules = make_rules(name, **options)
    rng = np.random.default_rng(11)
    for _game in range(3):
        game = Game(rules, rng)
        while not game.hand.complete:
            if game.hand.phase != Phase.DRAW:
                for seat in range(4):
                    view = view_of(game.match, seat)
                    # the true deal is one of the consistent ones
                    truth = tuple(game.hand.hands)
                    stock = [] if game.hand.deck is None or game.hand.stage == 2 else list(game.hand.deck[20:])
                    check_deal(view, game.split, truth, stock)
                    sampler = WorldSampler(view)
                    for _ in range(3):
                        deal = sampler.sample(rng)
                        check_deal(view, game.split, deal.hands, deal.stock)
                    # the world rebuilt from a sample shows the seat exactly its view
                    world = sampler.world(deal)
                    assert view_of(match_for(world, view), seat) == view
            game.step()


@pytest.mark.parametrize("name,options", first_of_each(RULESETS), ids=[ruleset_id(c) for c in first_of_each(RULESETS)])
def test_a_sampler_draws_the_same_deals_however_many_it_drew_before(name: str, options: dict) -> None:
    """A sampler remembers the distribution it draws from across draws (a decision
    samples many worlds from one view); what it remembers never changes a draw: the
    n-th deal from one sampler is the deal a fresh sampler draws with the same seed."""
    rules = make_rules(name, **options)
    rng = np.random.default_rng(4)
    constrained = 0
    for _game in range(2):
        game = Game(rules, rng)
        while not game.hand.complete:
            if game.hand.phase == Phase.PLAY:
                view = view_of(game.match, game.hand.to_act)
                sampler = WorldSampler(view)
                constrained += bool(sampler.constrained)
                for i in range(2):
                    again = WorldSampler(view).sample(np.random.default_rng(i))
                    assert sampler.sample(np.random.default_rng(i)) == again
            game.step()
    assert constrained > 5  # the suits known void make the drawn distribution


def test_staged_world_deals_its_stock() -> None:
    """R1.4: a world sampled before the second stage deals its stock when the trump is
    made, and play goes on with thirteen cards a seat."""
    rules = make_rules("dehla")
    rng = np.random.default_rng(2)
    game = Game(rules, rng)
    view = view_of(game.match, game.hand.to_act)
    assert view.cards_undealt == 32
    sampler = WorldSampler(view)
    assert [h.seat for h in sampler.holders][-1] == STOCK
    world = sampler.world(sampler.sample(rng))
    while world.stage == 1 and not world.complete:
        if world.phase == Phase.DRAW:
            world.apply_draw(world.draw_candidates()[0])
        else:
            world.apply_action(world.legal_actions()[0])
    assert world.stage == 2
    assert sum(world.hand_counts) + 4 * world.num_tricks_done + len(world.trick_cards) == 52


def find_view(rules, seed_from: int, want, max_tries: int = 400) -> tuple[PlayerView, Game]:
    """The first view (random legal play, seeds ``seed_from``...) for which ``want``
    holds."""
    for seed in range(seed_from, seed_from + max_tries):
        game = Game(rules, np.random.default_rng(seed))
        while not game.hand.complete:
            if game.hand.phase == Phase.PLAY:
                view = view_of(game.match, game.hand.to_act)
                if want(view, game):
                    return view, game
            game.step()
    raise AssertionError("no such position found")


def enumerate_deals(view: PlayerView, split: int | None, weight) -> dict[tuple, int]:
    """Every assignment of the unseen cards to the other seats with its weight."""
    unseen, holders = holders_of(view)
    seats = [h.seat for h in holders]
    sizes = [h.size for h in holders]
    out = {}
    voids = shown_voids(view, split)
    for perm in set(itertools.permutations(sum(([j] * s for j, s in enumerate(sizes)), []))):
        hands = [0, 0, 0, 0]
        hands[view.seat] = view.hand_mask
        for c, j in zip(unseen, perm):
            hands[seats[j]] |= 1 << c
        if any(voids[s] >> u & 1 and hands[s] & SUIT_MASKS[u] for s in range(4) for u in range(4)):
            continue
        w = weight(hands)
        if w:
            out[tuple(hands)] = w
    return out


def chi_square_ok(counts: Counter, expected: dict[tuple, float]) -> bool:
    """Pearson's statistic against a generous bound (p well below 1e-4 to fail)."""
    stat = sum((counts.get(k, 0) - e) ** 2 / e for k, e in expected.items())
    assert set(counts) <= set(expected)
    df = len(expected) - 1
    return stat < df + 5 * math.sqrt(2 * df) + 10


def test_uniform_over_consistent_deals() -> None:
    """Two tricks left, a seat void somewhere: every consistent deal equally likely."""
    rules = make_rules("dehla-direct")

    def want(view: PlayerView, game: Game) -> bool:
        if view.num_tricks_done != 11 or view.trick:
            return False
        voids = shown_voids(view, 0)
        unseen, _ = holders_of(view)
        # a void that excludes some unseen card from some seat
        return any(voids[s] & (1 << (c // 13)) for s in range(4) if s != view.seat for c in unseen)

    view, game = find_view(rules, 100, want)
    expected_set = enumerate_deals(view, 0, lambda hands: 1)
    assert 1 < len(expected_set) < 90  # the voids bite
    sampler = WorldSampler(view)
    assert sampler.total() == len(expected_set)
    draws = 300 * len(expected_set)
    rng = np.random.default_rng(3)
    counts = Counter(sampler.sample(rng).hands for _ in range(draws))
    assert chi_square_ok(counts, {k: draws / len(expected_set) for k in expected_set})


def test_first_stage_voids_weight_the_deal() -> None:
    """R1.4: a seat void on its first five cards may hold the suit later, with weight
    C(m, 5 - k): m of its post-deal cards avoid the suit, k tricks were on five cards."""
    rules = make_rules("dehla")

    def want(view: PlayerView, game: Game) -> bool:
        if view.num_tricks_done != 11 or view.trick or not game.split:
            return False
        _unseen, holders = holders_of(view)
        return any(h.stage_rest and h.stage_voids for h in holders)

    view, game = find_view(rules, 500, want)
    split = game.split
    assert split
    # first-stage voids and the cards each seat played since the second deal
    early = [0, 0, 0, 0]
    after = [0, 0, 0, 0]
    for t, (leader, cards, _w) in enumerate(view.history):
        led = cards[0] // 13
        for i, c in enumerate(cards):
            seat = (leader + i) % 4
            if t < split:
                if c // 13 != led:
                    early[seat] |= 1 << led
            else:
                after[seat] |= 1 << c

    def weight(hands) -> int:
        w = 1
        for seat in range(4):
            if seat == view.seat or not early[seat]:
                continue
            post = [c for c in range(52) if (hands[seat] | after[seat]) >> c & 1]
            ok = sum(
                1 for r in itertools.combinations(post, 5 - split) if all(not early[seat] >> (c // 13) & 1 for c in r)
            )
            w *= ok
        return w

    expected = enumerate_deals(view, split, weight)
    assert len(set(expected.values())) > 1  # the weights differ between deals
    sampler = WorldSampler(view)
    total = sum(expected.values())
    draws = 400 * len(expected)
    rng = np.random.default_rng(4)
    counts = Counter(sampler.sample(rng).hands for _ in range(draws))
    assert chi_square_ok(counts, {k: draws * w / total for k, w in expected.items()})


def test_hidden_closed_trump_is_uniform() -> None:
    """R2.4c: other seats see a closed trump chosen, not its suit: uniform over four."""
    rules = make_rules("dehla-direct", trump="closed")

    def want(view: PlayerView, game: Game) -> bool:
        return view.trump_hidden

    view, _game = find_view(rules, 0, want)
    sampler = WorldSampler(view)
    rng = np.random.default_rng(9)
    counts = Counter(sampler.sample(rng).trump for _ in range(4000))
    assert set(counts) == {0, 1, 2, 3}
    assert all(800 < n < 1200 for n in counts.values())
    maker = view_of(_game.match, _game.hand.trump_maker)
    assert WorldSampler(maker).sample(rng).trump == -1  # the maker knows its trump


def test_the_samplers_shuffle_is_randoms_shuffle() -> None:
    """The inlined shuffle gives the permutation ``random.Random.shuffle`` gives from the
    same state, and leaves the generator where it would, so every deal drawn stays the same."""
    import random

    from agents.bots.sampler import _shuffle

    for seed in range(300):
        for size in (0, 1, 2, 5, 13, 32, 39, 52):
            a, b = random.Random(seed), random.Random(seed)
            xa, xb = list(range(size)), list(range(size))
            a.shuffle(xa)
            _shuffle(b, xb)
            assert xa == xb
            assert a.getrandbits(64) == b.getrandbits(64)


@pytest.mark.parametrize("name,options", hidden_information(), ids=[ruleset_id(c) for c in hidden_information()])
def test_each_world_of_a_sampler_is_built_afresh_from_the_view_and_its_deal(name: str, options: dict) -> None:
    """A sampler copies one public state into every world: a world played on (as a
    search does) changes none after it, and each is the state built from the view and
    its deal alone (every engine field alike)."""
    rules = make_rules(name, **options)
    rng = np.random.default_rng(8)
    checked = 0
    game = Game(rules, rng)
    while not game.hand.complete:
        if game.hand.phase == Phase.PLAY:
            view = view_of(game.match, game.hand.to_act)
            sampler = WorldSampler(view)
            for _ in range(3):
                deal = sampler.sample(rng)
                world = sampler.world(deal)
                fresh = world_state(view, deal)
                assert {k: getattr(world, k) for k in HandState.__slots__} == {
                    k: getattr(fresh, k) for k in HandState.__slots__
                }
                while not world.complete and world.phase == Phase.PLAY:  # play it on
                    world.apply_action(world.legal_actions()[0])
                checked += 1
        game.step()
    assert checked > 30
