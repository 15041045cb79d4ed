"""``arch: suits``: a policy network that treats the four suits alike (agents.nets.suitnet).

Renaming the suits maps a game to the same game (R0.4: the trick rule knows only the suit
led and trump; R4.2: bids follow the suits named), so the network's logits for a renamed
position must be its logits for the original, renamed. The MLP does not have that
property; this network has it by construction, which these tests hold it to, together
with the bookkeeping it rests on: which entry of each vector belongs to which suit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.agent import PolicyAgent
from agents.nets.features import CardFeatures, net_input_layout
from agents.nets.policy import CheckpointError, PolicyNet, ValueNet, critic_input_layout, policy_from_checkpoint
from dehla_env.augment import (
    ALL_PERMUTATIONS,
    action_suit_groups,
    layout_permutation,
    relabel_tables,
    suit_groups,
    suit_permutation_maps,
)
from dehla_env.encoding import layout_for, observation_size, privileged_layout
from dehla_env.env import raw_env
from dehla_env.rules import make_rules
from dehla_env.view import view_of
from tests.rulesets import RULESETS, ruleset_id

LAYOUTS = {
    "observation, 4 players": layout_for(4),
    "observation, 6 players": layout_for(6),
    "network input with card features": net_input_layout(4, True),
    "privileged features": privileged_layout(4),
    "critic input (observation, then privileged features)": critic_input_layout(4),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_every_entry_belongs_to_one_suit_or_to_none_and_renaming_moves_suits_onto_suits(name: str) -> None:
    layout = LAYOUTS[name]
    groups = suit_groups(layout)
    everything = np.concatenate([groups.per_suit.ravel(), groups.shared])
    assert sorted(everything) == list(range(layout.size))  # a partition of the vector
    for perm in ALL_PERMUTATIONS:
        forward = layout_permutation(layout, perm)
        for suit in range(4):
            assert (forward[groups.per_suit[suit]] == groups.per_suit[perm[suit]]).all()
        assert (forward[groups.shared] == groups.shared).all()


def test_each_suit_owns_its_cards_its_trump_choice_and_its_bids_and_pass_is_shared() -> None:
    groups = action_suit_groups()
    assert groups.per_suit.shape == (4, 13 + 1 + 7) and list(groups.shared) == [56]
    for perm in ALL_PERMUTATIONS:
        action_forward = suit_permutation_maps(perm)[2]
        for suit in range(4):
            assert (action_forward[groups.per_suit[suit]] == groups.per_suit[perm[suit]]).all()


def _observations(name: str, options: dict, count: int = 60, critic: bool = False) -> torch.Tensor:
    """Observations of random legal play (every phase: trump, bids, cards); with
    ``critic``, what the trainer's critic reads instead: each observation followed by the
    seat's privileged features."""
    env = raw_env(rules=name, **options)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    rows: list[np.ndarray] = []
    while len(rows) < count:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        rows.append(env.privileged_observation(env.agent_selection) if critic else obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return torch.as_tensor(np.stack(rows))


def test_the_card_features_follow_a_renaming_of_the_observation() -> None:
    """What ``net_input_layout`` says the features are indexed by is what they are."""
    obs = _observations("dehla", {})
    features = CardFeatures(4)
    layout = net_input_layout(4, True)
    tables = relabel_tables(4)
    for p, perm in enumerate(ALL_PERMUTATIONS):
        renamed = features(obs[:, torch.as_tensor(tables.obs[p])])
        forward = torch.as_tensor(layout_permutation(layout, perm))
        expected = torch.empty_like(renamed)
        expected[:, forward] = features(obs)
        torch.testing.assert_close(renamed, expected)


@pytest.mark.parametrize(
    ("name", "options", "card_features"),
    [("dehla", {}, True), ("coat-pees", {}, True), ("dehla-direct", {"players": 6}, False)],
)
def test_renaming_the_suits_of_a_position_renames_the_logits(name: str, options: dict, card_features: bool) -> None:
    rules = make_rules(name, options)
    torch.manual_seed(0)
    net = PolicyNet(observation_size(rules), (32, 16), card_features, arch="suits")
    mlp = PolicyNet(observation_size(rules), (32, 16), card_features)
    obs = _observations(name, options)
    tables = relabel_tables(rules.players)
    with torch.no_grad():
        logits, mlp_logits = net(obs), mlp(obs)
        mlp_moved = 0.0
        for p in range(len(ALL_PERMUTATIONS)):
            renamed_obs = obs[:, torch.as_tensor(tables.obs[p])]
            new_action = torch.as_tensor(tables.action[p])
            torch.testing.assert_close(net(renamed_obs)[:, new_action], logits, atol=1e-5, rtol=1e-5)
            mlp_moved = max(mlp_moved, float((mlp(renamed_obs)[:, new_action] - mlp_logits).abs().max()))
    assert mlp_moved > 1e-3  # the property is the architecture's, not the test's


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_a_suits_critic_gives_a_position_and_its_renamings_one_value(config: tuple[str, dict]) -> None:
    """A renamed position is the same position (R0.4, R4.2), so it has the same value:
    renaming the suits of the observation and of the hidden hands changes nothing."""
    name, options = config
    rules = make_rules(name, options)
    x = _observations(name, options, 40, critic=True)
    torch.manual_seed(0)
    critic = ValueNet(x.shape[1], (32, 16), "suits", players=rules.players)
    mlp = ValueNet(x.shape[1], (32, 16))
    assert critic.config()["arch"] == "suits" and "arch" not in mlp.config()  # older configs unchanged
    with torch.no_grad():
        values, mlp_values = critic(x), mlp(x)
        mlp_moved = 0.0
        for perm in ALL_PERMUTATIONS:
            forward = layout_permutation(critic_input_layout(rules.players), perm)
            renamed = torch.empty_like(x)
            renamed[:, torch.as_tensor(forward)] = x
            torch.testing.assert_close(critic(renamed), values, atol=1e-5, rtol=1e-5)
            mlp_moved = max(mlp_moved, float((mlp(renamed) - mlp_values).abs().max()))
    assert mlp_moved > 1e-4  # the property is the architecture's, not the test's
    with pytest.raises(ValueError, match="a suits critic reads"):
        ValueNet(x.shape[1] - 1, (8,), "suits")


def test_a_suits_checkpoint_loads_with_its_architecture_and_averaging_it_changes_nothing() -> None:
    rules = make_rules("dehla")
    torch.manual_seed(1)
    net = PolicyNet(observation_size(rules), (32, 16), True, arch="suits")
    ckpt = {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla", "options": {}}}
    assert ckpt["model_config"]["arch"] == "suits"
    loaded, _ = policy_from_checkpoint(ckpt)
    obs = _observations("dehla", {}, 10)
    with torch.no_grad():
        torch.testing.assert_close(loaded(obs), net(obs))
    plain = PolicyAgent(None, rules, net=loaded)
    averaged = PolicyAgent(None, rules, net=loaded, relabel=True)
    env = raw_env(rules="dehla")
    env.reset(seed=5)
    view = view_of(env.match, env.agent_name_mapping[env.agent_selection])
    np.testing.assert_allclose(averaged.probabilities(view), plain.probabilities(view), atol=1e-5)
    with pytest.raises(CheckpointError, match="is not a policy network's"):
        policy_from_checkpoint({**ckpt, "model_config": {**ckpt["model_config"], "arch": "transformer"}})


def test_an_mlp_checkpoint_config_is_unchanged() -> None:
    """Checkpoints written before the architectures existed keep their exact config."""
    assert PolicyNet(826, (8,), True).config() == {"obs_size": 826, "hidden": [8], "card_features": True}
    with pytest.raises(ValueError, match="arch must be one of"):
        PolicyNet(826, (8,), True, arch="transformer")


def test_a_suits_network_exports_to_onnx_with_the_same_logits(tmp_path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="the onnx extra: pip install 'dehla[onnx]'")
    pytest.importorskip("onnx", reason="the onnx extra: pip install 'dehla[onnx]'")
    from agents.nets.policy import export_onnx

    torch.manual_seed(2)
    net = PolicyNet(826, (16, 16), True, arch="suits").eval()
    path = export_onnx(net, tmp_path / "suits.onnx")
    obs = _observations("dehla", {}, 8)
    mask = torch.ones(len(obs), 85, dtype=torch.bool)
    logits, action = ort.InferenceSession(str(path)).run(None, {"obs": obs.numpy(), "mask": mask.numpy()})
    with torch.no_grad():
        np.testing.assert_allclose(logits, net(obs).numpy(), atol=1e-5)
        assert (action == net(obs).argmax(-1).numpy()).all()
