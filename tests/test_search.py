"""The ``search`` bot (agents/search/pimc.py): information-fair, legal everywhere, usable
wherever an agent is (registry specs, the arena, the terminal game)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena import play_hand, run_duel
from agents.bots.heuristic import HardAgent
from agents.bots.sampler import WorldSampler, match_for
from agents.registry import make_agent
from agents.search.pimc import SearchAgent, greedy_action, rule_action
from dehla_env import MatchState, make_rules
from dehla_env.cards import shuffled_deck
from dehla_env.engine import Phase
from dehla_env.rules import TrumpMaking
from dehla_env.view import view_of
from tests.helpers import card_decisions
from tests.rulesets import FOUR_PLAYER, RULESETS, hidden_information, ruleset_id

ALL_RULESETS = RULESETS
IDS = [ruleset_id(c) for c in ALL_RULESETS]


@pytest.mark.parametrize("name,options", ALL_RULESETS, ids=IDS)
def test_plays_legal_moves_in_every_ruleset(name: str, options: dict) -> None:
    """The engine rejects any illegal move (R5); a whole hand must go through."""
    rules = make_rules(name, **options)
    n = rules.players
    seats = [make_agent("search:k=2,depth=3" if s % 2 == 0 else "hard", rules, s) for s in range(n)]
    deck = shuffled_deck(np.random.default_rng([1, n]), rules.packs)
    assert play_hand(rules, deck, 1, seats, np.random.default_rng(0)).hand.complete


LEAK_RULESETS = hidden_information()


@pytest.mark.parametrize("name,options", LEAK_RULESETS, ids=[ruleset_id(c) for c in LEAK_RULESETS])
def test_same_decisions_when_hidden_cards_are_redealt(name: str, options: dict) -> None:
    """Re-deal the cards the seat cannot see (other hands, the undealt stock, a hidden
    closed trump) consistently with its view: the seat's view is unchanged and the bot,
    seeded alike, decides alike, with the same scores."""
    rules = make_rules(name, **options)
    checked = 0
    for step, (_match, view) in enumerate(card_decisions(rules, 21, every=5, dealer=2)):
        other = WorldSampler(view)
        world = other.world(other.sample(np.random.default_rng(1000 + step)))
        twin_view = view_of(match_for(world, view), view.seat)
        assert twin_view == view
        a = SearchAgent(rules, k=3, depth=3, seed=77)
        b = SearchAgent(rules, k=3, depth=3, seed=77)
        assert a.act(view) == b.act(twin_view)
        assert a.last_scores == b.last_scores
        checked += 1
    assert checked >= 5


def test_spec_parameters_and_budget() -> None:
    rules = make_rules("dehla")
    agent = make_agent("search:k=5,depth=2,budget_ms=0.001,playout=hard", rules, 3)
    assert isinstance(agent, SearchAgent)
    assert (agent.k, agent.depth, agent.budget_ms, agent.playout) == (5, 2, 0.001, "hard")
    default = make_agent("search", rules, 3)
    assert isinstance(default, SearchAgent)
    assert (default.k, default.depth, default.budget_ms, default.playout) == (48, 5, None, "rule")
    with pytest.raises(ValueError):
        make_agent("search:width=3", rules, 0)
    # an exhausted budget still scores one world and plays a legal card
    match = MatchState(rules, 0)
    match.apply_deal(match.random_deck(np.random.default_rng(4)))
    view = view_of(match, match.hand.to_act)
    assert agent.act(view) in view.legal_actions
    assert agent.last_worlds == 1


def test_exact_scores_in_the_endgame() -> None:
    """Within the depth every world is solved: the scores are means of hand outcomes
    (win 1, no winner 0.5, loss 0, plus a tie-break of at most 0.01)."""
    rules = make_rules("dehla-direct")
    rng = np.random.default_rng(8)
    match = MatchState(rules, 0)
    match.apply_deal(match.random_deck(rng))
    bots = [HardAgent(s) for s in range(4)]
    while match.hand.num_tricks_done < 9:
        seat = match.hand.to_act
        match.apply_action(bots[seat].act(view_of(match, seat)))
    view = view_of(match, match.hand.to_act)
    agent = SearchAgent(rules, k=6, depth=4, seed=1)
    action = agent.act(view)
    assert action in view.legal_actions
    assert set(agent.last_scores) == set(view.legal_actions)
    assert all(-0.011 <= v <= 1.011 for v in agent.last_scores.values())
    assert agent.last_worlds == 6


@pytest.mark.parametrize("policy", [greedy_action, rule_action], ids=["greedy", "rule"])
@pytest.mark.parametrize("name,options", FOUR_PLAYER, ids=[ruleset_id(c) for c in FOUR_PLAYER])
def test_playout_rules_are_legal(policy, name: str, options: dict) -> None:
    """The raw-state playout rules make legal decisions, trump choices included."""
    rules = make_rules(name, **options)
    rng = np.random.default_rng(3)
    bots = [HardAgent(s) for s in range(4)]
    for _ in range(3):
        match = MatchState(rules, int(rng.integers(4)))
        match.apply_deal(match.random_deck(rng))
        hand = match.hand
        while not hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            if hand.phase == Phase.BID:  # bidding is not a playout decision
                match.apply_action(bots[hand.to_act].act(view_of(match, hand.to_act)))
                continue
            action = policy(hand)
            assert action in hand.legal_actions()
            match.apply_action(action)


def test_in_the_arena_and_the_terminal_game() -> None:
    rules = make_rules("dehla")
    duel = run_duel(rules, "search:k=2,depth=2", "hard", deals=1, seed=7)
    assert duel.deals == 1
    from agents.play import TerminalGame

    answers = iter(["q"] * 5)
    game = TerminalGame(
        rules,
        0,
        "search:k=2,depth=2",
        "search:k=2,depth=2",
        seed=1,
        input_fn=lambda _p: next(answers),
        print_fn=lambda *a, **k: None,
    )
    assert all(isinstance(bot, SearchAgent) for s, bot in game.bots.items() if s != 0)


class _FixedPrior:
    """A prior that puts ``weights[i]`` on the i-th legal card (lowest id first)."""

    def __init__(self, weights: list[float]) -> None:
        self.weights = weights

    def probabilities(self, view) -> np.ndarray:
        probs = np.zeros(85)
        legal = sorted(view.legal_actions)
        w = np.array(self.weights[: len(legal)] + [0.0] * (len(legal) - len(self.weights)))
        probs[legal] = w / w.sum()
        return probs


def _opening_views(rules, count: int):
    """Card decisions with at least three classes of equivalent cards."""
    for seed in range(50):
        match = MatchState(rules, 0)
        match.apply_deal(match.random_deck(np.random.default_rng(seed)))
        view = view_of(match, match.hand.to_act)
        if len(SearchAgent(rules).action_groups(view)) >= 3:
            yield view
            count -= 1
            if not count:
                return


@pytest.mark.parametrize("batch", [False, True], ids=["scalar", "batched"])
def test_a_prior_keeps_the_most_probable_moves_up_to_its_mass(batch: bool) -> None:
    """``prior`` + ``keep``: the classes are scored most probable first until they hold
    ``keep`` of the prior's mass; no world is spent on the others and they are never
    played; a single class left is played without worlds."""
    rules = make_rules("dehla")
    spec = "batched-search:playout=cardsense,k=3,depth=2" if batch else "search:k=3,depth=2"
    for view in _opening_views(rules, 4):
        agent = make_agent(spec, rules, 5)
        assert isinstance(agent, SearchAgent)
        groups = agent.action_groups(view)
        # the prior's two favourite classes: its mass on the first card of the last two classes
        favourite, second = groups[-1][0], groups[-2][0]
        legal = sorted(view.legal_actions)
        weights = [0.01] * len(legal)
        weights[legal.index(favourite)] = 0.6
        weights[legal.index(second)] = 0.3
        agent.prior, agent.keep = _FixedPrior(weights), 0.85
        move = agent.act(view)
        assert move in groups[-1] + groups[-2]
        assert set(agent.last_scores) == set(groups[-1] + groups[-2])
        agent.keep = 0.5  # the favourite alone holds that much: no search at all
        assert agent.act(view) == favourite and agent.last_worlds == 0


class _ContraryPrior:
    """A prior sure of a legal action the hard bot would not take: the highest other id."""

    def __init__(self, hard: HardAgent) -> None:
        self.hard = hard
        self.move = -1  # the move it was last sure of

    def probabilities(self, view) -> np.ndarray:
        hard_move = self.hard.act(view)
        self.move = max(a for a in view.legal_actions if a != hard_move)
        probs = np.zeros(85)
        probs[self.move] = 1.0
        return probs


@pytest.mark.parametrize("name,options", ALL_RULESETS, ids=IDS)
def test_the_prior_makes_the_decisions_the_search_leaves(name: str, options: dict) -> None:
    """Bids (R4.2) and the trump calls at the start of a hand (R1.4 chosen, R2.4b, R3.1)
    are not searched, nor is anything with six players (R2.8): with a prior the search
    plays the prior's most probable move there, not the hard bot's."""
    rules = make_rules(name, **options)
    rng = np.random.default_rng(3)
    unsearched = 0
    for dealer in range(2):
        match = MatchState(rules, dealer)
        match.apply_deal(match.random_deck(rng))
        while not match.hand.complete:
            if match.is_chance():
                match.sample_chance(rng)
                continue
            view = view_of(match, match.hand.to_act)
            agent = make_agent("search:k=2,depth=2", rules, 1)
            assert isinstance(agent, SearchAgent)
            if len(view.legal_actions) > 1 and not agent.searchable(view):
                prior = _ContraryPrior(HardAgent(9))
                agent.prior = prior
                assert agent.act(view) == prior.move
                unsearched += 1
            match.apply_action(HardAgent(dealer).act(view))
    called_at_the_deal = rules.trump_making in (TrumpMaking.CHOSEN, TrumpMaking.OPEN, TrumpMaking.BIDDING)
    assert unsearched > 0 if called_at_the_deal or rules.players != 4 else unsearched == 0


def test_the_prior_is_a_policy() -> None:
    rules = make_rules("dehla")
    agent = make_agent("search:k=4,prior=policy:dehla,keep=0.9", rules, 1)
    assert isinstance(agent, SearchAgent) and agent.keep == 0.9 and agent.prior is not None
    probs = agent.prior.probabilities(next(_opening_views(rules, 1)))
    assert probs.sum() == pytest.approx(1.0) and (probs >= 0).all()
    for spec, words in (("search:prior=hard,keep=0.9", "policy spec"), ("search:prior=policy:dehla,keep=0", "keep")):
        with pytest.raises(ValueError, match=words):
            make_agent(spec, rules, 1)
