"""The ``ismcts`` bot (agents/search/ismcts.py): legal in every ruleset, deterministic per
seed, information-fair, bounded by its spec, and stronger than random play."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from helpers import card_decisions

from agents.arena import play_hand, run_duel
from agents.bots.sampler import WorldSampler, match_for
from agents.registry import make_agent, parse_spec
from agents.search.ismcts import ISMCTSAgent
from agents.search.pimc import card_classes, view_groups
from dehla_env import MatchState, make_rules
from dehla_env.cards import TEN_RANK, card_id, shuffled_deck
from dehla_env.rules import Rules
from dehla_env.view import PlayerView, view_of
from tests.rulesets import RULESETS, hidden_information, ruleset_id

SMALL = "ismcts:iterations=12,depth=3,guide=0"  # UCB1
GUIDED = "ismcts:iterations=12,depth=3"  # PUCT, guided by the rule playout (the default)
SPADES = 3


@pytest.mark.parametrize("name,options", RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_plays_legal_moves_in_every_ruleset(name: str, options: dict) -> None:
    """The engine rejects any illegal move (R5): whole hands must go through, trump
    decisions and bids included (the ones the search leaves to the hard bot too)."""
    rules = make_rules(name, **options)
    n = rules.players
    specs = [SMALL, "hard", GUIDED, "hard"]  # UCB1 and PUCT with the guide; six players: as many again
    seats = [make_agent(specs[s % 4], rules, s) for s in range(n)]
    for deal in range(2):
        deck = shuffled_deck(np.random.default_rng([3, n, deal]), rules.packs)
        assert play_hand(rules, deck, deal % n, seats, np.random.default_rng(deal)).hand.complete


def _card_views(rules: Rules, seed: int, every: int = 4) -> Iterator[tuple[MatchState, PlayerView]]:
    """(match, view) at every ``every``-th card decision among several of a hand of hard bots."""
    return card_decisions(rules, seed, every, dealer=2)


@pytest.mark.parametrize("guide", [0.0, 0.5], ids=["ucb", "guided-puct"])
def test_the_same_seed_gives_the_same_moves(guide: float) -> None:
    rules = make_rules("dehla")
    views = [view for _m, view in _card_views(rules, 5)]
    assert len(views) >= 8
    a = ISMCTSAgent(rules, iterations=30, depth=3, seed=9, guide=guide)
    b = ISMCTSAgent(rules, iterations=30, depth=3, seed=9, guide=guide)
    for view in views:
        assert a.act(view) == b.act(view)
        assert a.last_visits == b.last_visits and a.last_scores == b.last_scores
    b.seed(9)  # the arena re-seeds per deal: the same generator state again
    a.seed(9)
    assert [a.act(v) for v in views] == [b.act(v) for v in views]


LEAK_RULESETS = hidden_information()


@pytest.mark.parametrize("name,options", LEAK_RULESETS, ids=[ruleset_id(c) for c in LEAK_RULESETS])
def test_same_decisions_when_hidden_cards_are_redealt(name: str, options: dict) -> None:
    """Re-deal the cards the seat cannot see (other hands, the undealt stock, a hidden
    closed trump) consistently with its view: the view is unchanged and the bot, seeded
    alike, decides alike with the same statistics."""
    rules = make_rules(name, **options)
    checked = 0
    for step, (_match, view) in enumerate(_card_views(rules, 21, every=5)):
        other = WorldSampler(view)
        twin = match_for(other.world(other.sample(np.random.default_rng(1000 + step))), view)
        twin_view = view_of(twin, view.seat)
        assert twin_view == view
        guide = 0.5 * (step % 2)  # UCB1 and the guided PUCT in turn
        a = ISMCTSAgent(rules, iterations=25, depth=3, seed=77, guide=guide)
        b = ISMCTSAgent(rules, iterations=25, depth=3, seed=77, guide=guide)
        assert a.act(view) == b.act(twin_view)
        assert a.last_visits == b.last_visits and a.last_scores == b.last_scores
        checked += 1
    assert checked >= 5


def test_spec_parameters_and_bounds() -> None:
    rules = make_rules("dehla")
    agent = make_agent("ismcts:iterations=10,budget_ms=50,c=1.2,playout=greedy,depth=3", rules, 3)
    assert isinstance(agent, ISMCTSAgent)
    assert (agent.iterations, agent.budget_ms, agent.c, agent.playout, agent.depth) == (10, 50.0, 1.2, "greedy", 3)
    assert agent.prior is None
    default = make_agent("ismcts", rules, 3)
    assert isinstance(default, ISMCTSAgent)
    defaults = (default.iterations, default.budget_ms, default.c, default.playout, default.depth, default.guide)
    assert defaults == (400, None, 1.0, "rule", 5, 0.5)
    assert make_agent("ismcts:playout=hard", rules, 1).playout == "hard"
    assert getattr(make_agent("ismcts:guide=0.25", rules, 1), "guide", None) == 0.25
    for spec, words in (
        ("ismcts:iterations=0", ["iterations", "1..5000"]),
        ("ismcts:iterations=100000", ["iterations", "1..5000", "100000"]),
        ("ismcts:iterations=many", ["iterations", "integer"]),
        ("ismcts:depth=13", ["depth", "0..9"]),
        ("ismcts:c=inf", ["c", "finite"]),
        ("ismcts:c=-1", ["c", "0..100"]),
        ("ismcts:guide=2", ["guide", "0..1"]),
        ("ismcts:budget_ms=1e9", ["budget_ms", "0..60000"]),
        ("ismcts:playout=search:k=0", ["k", "1..512"]),
        ("ismcts:width=3", ["width", "iterations"]),
    ):
        with pytest.raises(ValueError) as err:
            parse_spec(spec)
        assert all(w in str(err.value) for w in words), (spec, str(err.value))
    with pytest.raises(ValueError, match="policy spec"):
        make_agent("ismcts:prior=hard", rules, 1)


def test_an_exhausted_budget_still_runs_one_iteration() -> None:
    rules = make_rules("dehla")
    agent = make_agent("ismcts:budget_ms=0.001", rules, 3)
    assert isinstance(agent, ISMCTSAgent)
    _match, view = next(_card_views(rules, 4, every=1))
    assert agent.act(view) in view.legal_actions
    assert agent.last_iterations == 1 and sum(agent.last_visits.values()) == 1


def test_the_statistics_cover_every_move_of_the_root() -> None:
    """Every iteration visits one move of the root; equivalent cards share their class's
    statistics; scores are means of hand outcomes (win 1 / 0.5 / 0, plus a tie-break
    of at most 0.01)."""
    rules = make_rules("dehla-direct")
    for _match, view in _card_views(rules, 8, every=6):
        agent = ISMCTSAgent(rules, iterations=40, depth=4, seed=1)
        move = agent.act(view)
        if not agent.last_visits:  # one class of equivalent cards: no search
            assert len(view_groups(view)) == 1
            continue
        assert move in view.legal_actions
        assert sum(agent.last_visits.values()) == agent.last_iterations == 40
        assert set(agent.last_scores) == set(view.legal_actions)
        assert all(-0.011 <= v <= 1.011 for v in agent.last_scores.values())
        assert move == max(agent.last_visits, key=lambda a: (agent.last_visits[a], agent.last_scores[a], -a))


def test_a_ten_is_never_merged_with_a_neighbour_where_tens_score() -> None:
    """Cards next to each other in one suit are one move, except a ten where tens score."""
    legal = [card_id(SPADES, r) for r in (TEN_RANK - 1, TEN_RANK, TEN_RANK + 1)]  # 9, 10, J
    hand = sum(1 << c for c in legal)
    assert card_classes(legal, hand, 0, 0, tens_matter=True) == [[c] for c in legal]
    assert card_classes(legal, hand, 0, 0, tens_matter=False) == [legal]


class _FixedPrior:
    """A prior putting almost all its mass on the highest legal card."""

    def __init__(self) -> None:
        self.calls = 0

    def probabilities(self, view: PlayerView) -> np.ndarray:
        self.calls += 1
        probs = np.zeros(85)
        legal = sorted(view.legal_actions)
        probs[legal] = 0.01
        probs[legal[-1]] = 1.0
        return probs / probs.sum()


def test_a_prior_steers_the_search_and_is_asked_only_at_the_seats_own_nodes() -> None:
    rules = make_rules("dehla")
    prior = _FixedPrior()
    agent = ISMCTSAgent(rules, iterations=60, depth=3, c=20.0, prior=prior, seed=4, guide=0.0)
    for _match, view in _card_views(rules, 6, every=7):
        prior.calls = 0
        agent.act(view)
        if not agent.last_visits:
            continue
        top = view_groups(view)[-1][0]  # the class of the highest legal card
        assert agent.last_visits[top] == max(agent.last_visits.values())
        assert 1 <= prior.calls <= 60  # the root, then once per new node of the seat's own
    assert make_agent("ismcts:iterations=5,prior=policy:dehla", rules, 1).prior is not None


def test_it_beats_random_play() -> None:
    """A sanity check that can fail: a small search against random moves, duplicate deals."""
    duel = run_duel(make_rules("dehla"), "ismcts:iterations=30,depth=3", "random", deals=6, seed=5, workers=1)
    assert duel.win_rate.value >= 0.75, str(duel.win_rate)


def test_the_web_game_runs_it_in_a_child_process_like_the_search() -> None:
    """A search bot thinks for up to its budget: the web server runs it apart from the
    event loop, as it runs ``search``."""
    from agents.web.bots import thinks

    assert thinks("ismcts:iterations=10") and thinks("search:k=4") and not thinks("hard")
