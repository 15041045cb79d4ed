"""Card-counting features computed inside the network from the flat observation.

Why: every fact a good player counts is in the observation (own hand, every card each
seat has played, the trick, the trump), but only as sums an MLP must learn to form and
threshold: "is my king of hearts the highest heart still out?" is a sum over the
hearts above it followed by a comparison with zero and an AND with "I hold it". This
layer forms those quantities with fixed (non-trainable) matrices and appends them to
the observation, so the network starts from them instead of rediscovering them. It is
a pure function of the observation (no hidden information), part of the module, and
exported with it (TorchScript / ONNX), and computed the same way in numpy for play
(:class:`agents.nets.play.NumpyPolicyNet`).

Per card id (52 each, see :mod:`dehla_env.cards`):

* ``unseen``: copies of the card this seat has not seen (not in its hand, not played),
  divided by the number of packs (R2.8: three with six players).
* ``higher_unseen``: unseen cards of the same suit ranked above it, divided by 12 x packs.
* ``master``: the seat holds the card and no higher card of its suit is unseen.
* ``beats_trick``: during a trick, playing the card would beat the card now winning it
  (higher in the same suit, or a trump in force over a non-trump; R0.3, R1.2).

Per suit (4 each): the seat's cards in the suit and the unseen cards in the suit.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.nets.play import NUM_CARD_FEATURES, feature_slices, higher_same_suit, net_input_layout, suit_matrix
from dehla_env.cards import NUM_CARDS, NUM_RANKS
from dehla_env.rules import PACKS_FOR_PLAYERS

__all__ = ["NUM_CARD_FEATURES", "CardFeatures", "net_input_layout"]


class CardFeatures(nn.Module):
    """Observation -> observation with :data:`NUM_CARD_FEATURES` derived entries appended."""

    higher: torch.Tensor
    suit_of: torch.Tensor

    def __init__(self, num_players: int) -> None:
        super().__init__()
        self.num_players = num_players
        self.packs = float(PACKS_FOR_PLAYERS[num_players])
        self.slices = feature_slices(num_players)
        self.register_buffer("higher", torch.from_numpy(higher_same_suit()), persistent=False)
        self.register_buffer("suit_of", torch.from_numpy(suit_matrix()), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        n, s = self.num_players, self.slices
        hand = obs[:, s["hand"]]
        played = obs[:, s["played"]].reshape(-1, n, NUM_CARDS).sum(1)
        unseen = (self.packs - hand - played).clamp(min=0.0) / self.packs
        higher_unseen = unseen @ self.higher.T / (NUM_RANKS - 1)
        master = (hand > 0).float() * (higher_unseen <= 1e-6).float()
        # the card now winning the trick: the trick row of the winning seat
        trick = obs[:, s["trick"]].reshape(-1, n, NUM_CARDS)
        winning = (trick * obs[:, s["trick_winning"]].unsqueeze(-1)).sum(1).clamp(max=1.0)
        trump = obs[:, s["trump_suit"]] * obs[:, s["in_force"]]
        winning_is_trump = (winning @ self.suit_of * trump).sum(-1, keepdim=True)
        any_winning = winning.sum(-1, keepdim=True)
        beats = winning @ self.higher + (trump @ self.suit_of.T) * (any_winning - winning_is_trump)
        suit_hand = hand @ self.suit_of / NUM_RANKS
        suit_unseen = unseen @ self.suit_of / NUM_RANKS
        return torch.cat([obs, unseen, higher_unseen, master, beats.clamp(max=1.0), suit_hand, suit_unseen], dim=-1)
