"""``batched-search`` (agents/search/batched.py): the search's worlds played out on the
batched engine. Legal in every four-player ruleset, information-fair, and its playout
scores are the scores of the hands the reference engine plays with the same moves."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import card_decisions

from agents.arena import play_hand
from agents.bots.batched import make_batched_policy
from agents.bots.sampler import WorldSampler, match_for
from agents.registry import make_agent
from agents.search.batched import BatchedSearchAgent
from agents.search.pimc import outcome_score, tricks_left
from agents.search.solver import Solver, position_of, solvable
from dehla_env import make_rules
from dehla_env.cards import shuffled_deck
from dehla_env.encoding import ObservationEncoder
from dehla_env.vector.engine import DONE
from dehla_env.view import view_of
from tests.rulesets import FOUR_PLAYER, hidden_information, ruleset_id

IDS = [ruleset_id(c) for c in FOUR_PLAYER]


@pytest.mark.parametrize("name,options", FOUR_PLAYER, ids=IDS)
def test_plays_legal_moves_in_every_four_player_ruleset(name: str, options: dict) -> None:
    """The engine rejects any illegal move (R5): whole hands must go through."""
    rules = make_rules(name, **options)
    seats = [
        make_agent("batched-search:playout=cardsense,k=3,depth=2" if s % 2 else "hard", rules, s) for s in range(4)
    ]
    for deal in range(2):
        deck = shuffled_deck(np.random.default_rng([5, deal]), rules.packs)
        assert play_hand(rules, deck, deal % 4, seats, np.random.default_rng(deal)).hand.complete


def _positions(rules, seed: int, every: int = 5):
    """(match, view) at every ``every``-th card decision among several of a hand of hard bots."""
    return card_decisions(rules, seed, every, dealer=1)


@pytest.mark.parametrize(
    "name,options", [("dehla", {}), ("dehla-direct", {"trump": "closed"})], ids=["dehla", "closed"]
)
def test_same_decisions_when_hidden_cards_are_redealt(name: str, options: dict) -> None:
    """Re-deal what the seat cannot see consistently with its view: the bot, seeded
    alike, decides alike with the same scores (it reads only the view)."""
    rules = make_rules(name, **options)
    checked = 0
    for i, (_match, view) in enumerate(_positions(rules, 31)):
        other = WorldSampler(view)
        world = other.world(other.sample(np.random.default_rng(900 + i)))
        twin = view_of(match_for(world, view), view.seat)
        assert twin == view
        a = make_agent("batched-search:playout=cardsense,k=4,depth=2", rules, 5)
        b = make_agent("batched-search:playout=cardsense,k=4,depth=2", rules, 5)
        assert a.act(view) == b.act(twin)
        assert a.last_scores == b.last_scores
        checked += 1
    assert checked >= 5


class _Recording:
    """A batched policy that remembers, per step, which rows moved and how."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.steps: list[tuple[np.ndarray, np.ndarray]] = []

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = self.inner(obs, mask)
        self.steps.append((obs.copy(), actions.copy()))
        return actions


def _playout_states(view) -> list:
    """Three sampled worlds of ``view``, each after two of its legal moves."""
    sampler = WorldSampler(view)
    states = []
    for _ in range(3):
        world = sampler.world(sampler.sample(np.random.default_rng(len(states))))
        for a in view.legal_actions[:2]:
            state = world.clone()
            state.apply_action(a)
            states.append(state)
    return states


@pytest.mark.parametrize("name", ["dehla", "court-piece", "coat-pees"])
def test_a_playout_scores_the_hand_the_reference_engine_plays_with_the_same_moves(name: str) -> None:
    """Every row of a batched playout, replayed move by move in the reference engine,
    sees the observations the one encoder gives and ends in the hand whose score the
    scalar search gives (win 1, no winner 0.5, loss 0, plus the margin tie-break)."""
    rules = make_rules(name)
    match, view = next(_positions(rules, 12, every=3))
    recorder = _Recording(make_batched_policy("cardsense", 4, 0))
    agent = BatchedSearchAgent(rules, recorder, "cardsense", k=3, depth=0, seed=2)
    states = _playout_states(view)
    replicas = [s.clone() for s in states]
    scores = agent.play_out(states, view.seat & 1)
    assert (agent.engine.phase[: len(states)] == DONE).all()
    live = np.arange(len(states))
    encoder = ObservationEncoder(rules)
    for obs, actions in recorder.steps:
        live = np.array([i for i in live if not replicas[i].complete])
        assert len(live) == len(actions)
        for row, i in enumerate(live):
            hand = replicas[i]
            assert (obs[row] == encoder.encode(match_for(hand, view), hand.to_act)).all()
            hand.apply_action(int(actions[row]))
    for hand, score in zip(replicas, scores):
        assert hand.complete
        expected = outcome_score(agent.objective, hand, 0, view.seat & 1, margin_weight=agent.margin)
        assert score == pytest.approx(expected)


@pytest.mark.parametrize("name,options", hidden_information(), ids=[ruleset_id(c) for c in hidden_information()])
def test_a_playout_within_rdepth_tricks_of_the_end_scores_what_the_solver_gives(name: str, options: dict) -> None:
    """With ``rdepth`` a row leaves the batch at the first trick boundary within
    ``rdepth`` tricks of the end where the scalar search's solver takes the position
    (:func:`agents.search.solver.solvable`), and scores what that solver gives the reference
    engine's hand played with the same moves; the other rows play to the end."""
    rules = make_rules(name, **options)
    match, view = next(_positions(rules, 12, every=3))
    recorder = _Recording(make_batched_policy("cardsense", 4, 0))
    agent = BatchedSearchAgent(rules, recorder, "cardsense", k=3, depth=0, seed=2, rollout_depth=3)
    states = _playout_states(view)
    replicas = [s.clone() for s in states]
    scores = agent.play_out(states, view.seat & 1)

    def handed_to_solver(hand) -> bool:
        return not hand.complete and not hand.trick_cards and solvable(hand) and tricks_left(hand) <= 3

    live = np.arange(len(states))
    for _obs, actions in recorder.steps:
        live = np.array([i for i in live if not replicas[i].complete and not handed_to_solver(replicas[i])])
        assert len(live) == len(actions)
        for row, i in enumerate(live):
            replicas[i].apply_action(int(actions[row]))
    solver = Solver(rules)
    solved = 0
    for hand, score in zip(replicas, scores):
        if hand.complete:
            lo = hi = 0
        else:
            assert handed_to_solver(hand)
            lo, hi = solver.interval(position_of(hand), solver.objective.cuts(hand))
            solved += 1
        expected = outcome_score(agent.objective, hand, lo, view.seat & 1, hi, margin_weight=agent.margin)
        assert score == pytest.approx(expected)
    if rules.round_tricks is None:  # R3.3: a round that ends at 7 tricks may end before the solver is reached
        assert solved == len(states)


def test_the_batched_search_is_an_agent_of_its_own_and_refuses_what_it_does_not_do() -> None:
    rules = make_rules("dehla")
    agent = make_agent("batched-search:playout=policy:dehla,k=8,depth=3", rules, 1)
    assert isinstance(agent, BatchedSearchAgent) and (agent.k, agent.depth, agent.playout) == (8, 3, "policy:dehla")
    assert isinstance(make_agent("batched-search", rules, 1), BatchedSearchAgent)  # cardsense playouts by default
    assert not isinstance(make_agent("search:k=2", rules, 1), BatchedSearchAgent)
    for spec, words in (
        ("search:batch=1", "no parameter 'batch'"),
        ("batched-search:playout=hard", "batched policy"),
        ("batched-search:playout=cardsense,budget_ms=50", "budget_ms"),
        ("batched-search:playout=cardsense,exact=1", "exact"),
        ("batched-search:playout=policy:dehla", None),
    ):
        if words is None:
            with pytest.raises(ValueError, match="trained for"):
                make_agent(spec, make_rules("court-piece"), 0)
        else:
            with pytest.raises(ValueError, match=words):
                make_agent(spec, rules, 0)
    with pytest.raises(ValueError, match="four-player"):
        make_agent("batched-search:playout=cardsense", make_rules("dehla-direct", players=6), 0)


def _scoring_one_move(view, best: int, batches: list[Counter[int]]):
    """A stand-in for ``play_out``: 1 where the seat played ``best``, else 0; it records
    which moves each batch played."""

    def play_out(states: list, side: int) -> np.ndarray:
        cards = [(view.hand_mask & ~s.hands[view.seat]).bit_length() - 1 for s in states]
        batches.append(Counter(cards))
        return np.array([1.0 if c == best else 0.0 for c in cards])

    return play_out


@pytest.mark.parametrize("prune", [1.0, 0.0])
def test_with_prune_the_moves_clearly_behind_after_a_quarter_of_the_worlds_are_not_played_again(
    prune: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Successive elimination (agents.search.pimc.eliminate) in batches: with the playouts
    scoring one move 1 and the others 0, the others are 1 behind after the first
    quarter of the worlds (more than prune / sqrt(4)) and only that move is played out
    on the rest; without prune every move is played on every world, in one batch."""
    rules = make_rules("dehla")
    k = 16
    agent = make_agent(f"batched-search:playout=cardsense,k={k},depth=0,prune={prune}", rules, 1)
    assert agent.round_ends() == ([4, 8, 16] if prune else [16])
    searched = 0
    for _match, view in _positions(rules, 3):
        reps = [g[0] for g in agent.action_groups(view)]
        if len(reps) < 2:
            continue
        best = reps[-1]
        batches: list[Counter[int]] = []
        monkeypatch.setattr(agent, "play_out", _scoring_one_move(view, best, batches))
        totals, counts, active = agent.score_actions(view, reps)
        if prune:
            assert active == [best]
            assert counts == {a: k if a == best else k // 4 for a in reps}
            assert batches == [Counter(dict.fromkeys(reps, 4)), Counter({best: 4}), Counter({best: 8})]
        else:
            assert active == reps and counts == dict.fromkeys(reps, k)
            assert batches == [Counter(dict.fromkeys(reps, k))]
        assert totals[best] == counts[best]
        searched += 1
    assert searched >= 3


def test_a_deterministic_network_is_not_asked_where_one_move_is_legal() -> None:
    """With a greedy network playing the worlds out, a row with one legal action takes
    it without an observation or a forward pass; the playout scores are those of asking
    the network on every row (its masked argmax is that action)."""
    pytest.importorskip("torch")  # a sampling network plays out in torch (TorchPolicy)
    from agents.bots.batched import TorchPolicy
    from agents.nets.policy import load_policy
    from agents.registry import SHIPPED_POLICIES

    rules = make_rules("dehla")
    _match, view = next(_positions(rules, 12, every=3))
    net, _ = load_policy(SHIPPED_POLICIES / "dehla-playout.pt")
    for greedy in (True, False):  # a sampling policy draws on every row, as before
        agent = BatchedSearchAgent(rules, TorchPolicy(net, deterministic=greedy), "policy:dehla-playout", k=3)
        assert agent.skip_forced is greedy
    scores = {}
    asked = {}
    for skip in (True, False):
        recorder = _Recording(TorchPolicy(net, deterministic=True))
        agent = BatchedSearchAgent(rules, recorder, "policy:dehla-playout", k=3, depth=0, seed=2)
        agent.skip_forced = skip
        scores[skip] = agent.play_out(_playout_states(view), view.seat & 1)
        asked[skip] = sum(len(actions) for _obs, actions in recorder.steps)
    assert (scores[True] == scores[False]).all()
    assert asked[True] < asked[False]


def test_a_batched_bots_playouts_need_no_torch() -> None:
    """The core install (no train extra) plays ``batched-search`` with ``cardsense``
    playouts: torch is imported only for a network's playouts or a belief."""
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['torch'] = None  # importing torch now fails\n"
        "from agents.registry import make_agent\nfrom dehla_env.rules import make_rules\n"
        "from dehla_env.engine import MatchState\nfrom dehla_env.view import view_of\n"
        "m = MatchState(make_rules('dehla'), 0)\nm.sample_chance(__import__('numpy').random.default_rng(0))\n"
        "agent = make_agent('batched-search:k=2,depth=2', m.rules, 1)\n"
        "assert agent.act(view_of(m, m.hand.to_act)) in view_of(m, m.hand.to_act).legal_actions\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
