"""``policy:NAME,relabel=1``: the network averaged over the 24 suit relabellings.

Renaming the suits maps a game to the same game (no rule ranks the suits: R0.4's trick
rule knows only the suit led and trump, R4.2's bids "have no order"; trump, the suit
led and bids follow the names). A policy that averages over every
renaming therefore plays the renamed game exactly as it plays the original, renamed: it
is equivariant, which the network alone is not."""

from __future__ import annotations

import numpy as np
import pytest

from agents.nets.agent import PolicyAgent
from agents.registry import make_agent
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import suit_permutation_maps
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import make_rules
from dehla_env.view import view_of
from tests.rulesets import first_of_each

PERM = (2, 0, 3, 1)  # clubs -> hearts, diamonds -> clubs, hearts -> spades, spades -> diamonds


def _twin_games(rules, seed: int, moves: int):
    """The same game twice, the second with every suit renamed by ``PERM``: the views of
    the seat to act in both after each move (random legal moves, stopped before any R1.4
    draw, whose cards are drawn by position)."""
    new_action = suit_permutation_maps(PERM, rules.players)[2]
    rng = np.random.default_rng(seed)
    a, b = MatchState(rules, 0), MatchState(rules, 0)
    deck = a.random_deck(rng)
    a.apply_deal(deck)
    b.apply_deal([int(new_action[c]) for c in deck])  # card ids are actions 0..51
    for _ in range(moves):
        if a.hand.phase in (Phase.DONE, Phase.DRAW) or a.is_chance():
            return
        seat = a.current_player()
        yield view_of(a, seat), view_of(b, seat), new_action
        move = int(rng.choice(a.legal_actions()))
        a.apply_action(move)
        b.apply_action(int(new_action[move]))


def _mlp_policy_file(path, rules) -> str:
    """An MLP policy for ``rules`` with weights drawn from a fixed seed, its last layer
    scaled up so that its moves are far from uniform (an untrained network's are near
    it): a network with no symmetry built in, as every MLP is."""
    import torch

    from agents.nets.policy import PolicyNet, policy_checkpoint
    from dehla_env.encoding import observation_size

    torch.manual_seed(3)
    net = PolicyNet(observation_size(rules), (64,), card_features=True)
    with torch.no_grad():
        net.net[-1].weight.mul_(30.0)
    torch.save(policy_checkpoint(net, rules), path)
    return str(path)


@pytest.mark.parametrize("name", ["dehla-direct", "coat-pees"])
def test_the_relabelled_policy_plays_a_renamed_game_as_the_renamed_original(name: str, tmp_path) -> None:
    rules = make_rules(name)
    path = _mlp_policy_file(tmp_path / "mlp.pt", rules)
    averaged = make_agent(f"policy:{path},relabel=1", rules, 0)
    plain = make_agent(f"policy:{path}", rules, 0)
    assert isinstance(averaged, PolicyAgent) and averaged.relabel and not plain.relabel
    plain_moved = 0
    for seed in range(3):
        for va, vb, new_action in _twin_games(rules, seed, 30):
            pa, pb = averaged.probabilities(va), averaged.probabilities(vb)
            np.testing.assert_allclose(pb[new_action], pa, atol=2e-5)  # the same play, renamed
            qa, qb = plain.probabilities(va), plain.probabilities(vb)
            plain_moved = max(plain_moved, float(np.abs(qb[new_action] - qa).max()))
    assert plain_moved > 0.05  # the network alone is not equivariant: the average is not a no-op


def test_relabelling_averages_log_probabilities_and_keeps_moves_legal() -> None:
    rules = make_rules("dehla")
    agent = make_agent("policy:dehla,relabel=1", rules, 0)
    assert isinstance(agent, PolicyAgent)
    for va, _vb, _ in _twin_games(rules, 5, 20):
        probs = agent.probabilities(va)
        legal = np.zeros(NUM_ACTIONS, dtype=bool)
        legal[list(va.legal_actions)] = True
        assert probs.sum() == pytest.approx(1.0) and (probs[~legal] == 0).all() and (probs[legal] > 0).all()
        assert agent.act(va) in va.legal_actions


def test_a_search_takes_the_relabelled_prior_with_its_own_relabel_parameter() -> None:
    """A nested spec cannot carry its own commas, so ``search:...,prior=policy:NAME,relabel=1``
    gives the search the prior that ``policy:NAME,relabel=1`` plays."""
    from agents.search.pimc import SearchAgent

    rules = make_rules("dehla")
    for spec in (
        "search:k=4,prior=policy:dehla,keep=0.9,relabel=1",
        "batched-search:playout=cardsense,k=4,prior=policy:dehla,relabel=1",
    ):
        search = make_agent(spec, rules, 0)
        assert isinstance(search, SearchAgent) and search.prior is not None
        view = next(v for v, _, _ in _twin_games(rules, 1, 3))
        alone = make_agent("policy:dehla,relabel=1", rules, 0)
        np.testing.assert_array_equal(search.prior.probabilities(view), alone.probabilities(view))
    with pytest.raises(ValueError, match="relabel averages the prior"):
        make_agent("search:k=4,relabel=1", rules, 0)


def test_an_exported_relabelled_module_gives_the_mean_of_the_relabelled_logits(tmp_path) -> None:
    """``python -m agents.nets.export ... --relabel``: the TorchScript module computes
    :class:`RelabelledNet`; a policy file takes no ``--relabel`` (its spec does). The ONNX
    graph's moves are held to the relabelled agent's in ``tests/test_export.py``."""
    import torch

    from agents.nets.export import main
    from agents.nets.policy import PolicyNet, RelabelledNet

    net = PolicyNet(826, (32,), card_features=True)
    torch.save(
        {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla", "options": {}}},
        tmp_path / "p.pt",
    )
    assert main([str(tmp_path / "p.pt"), "--out", str(tmp_path / "p.ts"), "--format", "torchscript", "--relabel"]) == 0
    x = torch.rand(3, 826)
    torch.testing.assert_close(torch.jit.load(str(tmp_path / "p.ts"))(x), RelabelledNet(net)(x))
    assert main([str(tmp_path / "p.pt"), "--out", str(tmp_path / "q.pt"), "--relabel"]) == 2


@pytest.mark.parametrize("name", [name for name, _ in first_of_each()])
def test_a_shipped_suits_policy_plays_a_renamed_game_as_the_renamed_original_without_averaging(name: str) -> None:
    """The shipped policy of each preset is a suits network (``agents.nets.suitnet``):
    equivariant by their structure."""
    rules = make_rules(name)
    plain = make_agent(f"policy:{name}", rules, 0)
    assert isinstance(plain, PolicyAgent) and not plain.relabel and plain.net.arch == "suits"
    for seed in range(2):
        for va, vb, new_action in _twin_games(rules, seed, 30):
            np.testing.assert_allclose(plain.probabilities(vb)[new_action], plain.probabilities(va), atol=2e-5)
