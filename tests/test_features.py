"""The card-counting features (agents/nets/features.py) on hand-built positions, and a
policy built on them through the checkpoint, TorchScript and agent paths."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.nets.agent import PolicyAgent
from agents.nets.features import NUM_CARD_FEATURES, CardFeatures
from agents.nets.policy import PolicyNet, export_torchscript, load_policy
from dehla_env.cards import NUM_CARDS, parse_card
from dehla_env.encoding import ObservationEncoder, observation_size
from dehla_env.engine import MatchState
from dehla_env.view import view_of
from tests.helpers import new_match, play

# seat 0 (dealer 3 deals, seat 0 chooses trump and leads, R1.4 chosen)
HANDS = [
    "KS 2S 3C 4C 5C | 6C 7C 8C 9C 2D 3D 4D 5D",
    "AS 3S 6D 7D 8D | 9D TD JD QD KD AD 2H 3H",
    "4S 5S 4H 5H 6H | 7H 8H 9H TH JH QH KH AH",
    None,
]
OFF = observation_size(new_match("dehla", 3, HANDS, trump="chosen").rules)


def features(match: MatchState, seat: int) -> dict[str, np.ndarray]:
    obs = ObservationEncoder(match.rules).encode(match, seat)
    x = CardFeatures(match.rules.players)(torch.from_numpy(obs)[None])[0].numpy()
    assert x.shape == (OFF + NUM_CARD_FEATURES,)
    np.testing.assert_array_equal(x[:OFF], obs)  # the observation passes through unchanged
    names = ["unseen", "higher_unseen", "master", "beats_trick"]
    out = {name: x[OFF + i * NUM_CARDS : OFF + (i + 1) * NUM_CARDS] for i, name in enumerate(names)}
    out["suit_hand"] = x[OFF + 4 * NUM_CARDS : OFF + 4 * NUM_CARDS + 4]
    out["suit_unseen"] = x[OFF + 4 * NUM_CARDS + 4 :]
    return out


def c(text: str) -> int:
    return parse_card(text)


def test_a_king_is_master_only_once_the_ace_of_its_suit_is_out() -> None:
    match = new_match("dehla", 3, HANDS, trump="chosen")
    play(match, "trump:H")
    f = features(match, 0)
    assert f["master"][c("KS")] == 0  # AS is unseen by seat 0
    assert f["higher_unseen"][c("KS")] == 1 / 12
    play(match, "2S AS")  # seat 1 plays the ace
    f = features(match, 0)
    assert f["master"][c("KS")] == 1
    assert f["higher_unseen"][c("KS")] == 0


def test_unseen_cards_exclude_the_own_hand_and_every_card_played() -> None:
    match = new_match("dehla", 3, HANDS, trump="chosen")
    play(match, "trump:H 2S AS")
    f = features(match, 2)
    hand = set(view_of(match, 2).hand)
    for card in range(NUM_CARDS):
        expected = 0.0 if card in hand or card in (c("2S"), c("AS")) else 1.0
        assert f["unseen"][card] == expected, card
    # spades unseen by seat 2: 13 - its own two - the two played
    assert np.isclose(f["suit_unseen"][3], 9 / 13)


def test_a_card_beats_the_trick_when_higher_in_suit_or_a_trump_over_a_plain_card() -> None:
    match = new_match("dehla", 3, HANDS, trump="chosen")
    play(match, "trump:H 2S AS")  # AS wins so far; hearts are trump, in force (R1.4)
    f = features(match, 2)
    assert view_of(match, 2).trump_in_force
    for card in range(NUM_CARDS):
        suit = card // 13
        expected = 1.0 if suit == 2 else 0.0  # nothing beats AS in spades; every heart does
        assert f["beats_trick"][card] == expected, card


def test_before_the_first_card_of_a_trick_nothing_beats_anything() -> None:
    match = new_match("dehla", 3, HANDS, trump="chosen")
    play(match, "trump:H")
    assert not features(match, 0)["beats_trick"].any()


def test_a_policy_with_card_features_survives_checkpoint_torchscript_and_agent(tmp_path: Path) -> None:
    match = new_match("dehla", 3, HANDS, trump="chosen")
    play(match, "trump:H 2S")
    torch.manual_seed(0)
    net = PolicyNet(OFF, (32,), card_features=True)
    path = tmp_path / "policy.pt"
    rules = {"name": "dehla", "options": {"trump": "chosen"}}
    torch.save({"model": net.state_dict(), "model_config": net.config(), "rules": rules}, path)
    loaded, _ = load_policy(path)
    obs = torch.from_numpy(ObservationEncoder(match.rules).encode(match, 1))[None]
    assert loaded.card_features
    torch.testing.assert_close(loaded(obs), net(obs))
    scripted = torch.jit.load(str(export_torchscript(path, tmp_path / "policy.ts")))
    torch.testing.assert_close(scripted(obs), net(obs))
    agent = PolicyAgent(path, match.rules)
    assert agent.act(view_of(match, 1)) in match.legal_actions()
