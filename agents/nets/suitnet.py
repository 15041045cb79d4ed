"""A policy network that treats the four suits alike: equivariant by construction.

Why: renaming the suits maps a game to the same game (R0.4; trump, the suit led and the
bids follow the names), so the right move in a renamed position is the renamed move.
An MLP over the flat observation does not know that; its greedy move changes under
renaming at many decisions, and averaging it over the 24 renamings at play time
(``policy:NAME,relabel=1``) plays better than any one of them (README, Shipped
policies). Training the MLP on renamed games did not give the single network that gain
(``relabel_rollouts``, README). This network has the symmetry in its structure instead,
as networks for other card games do: every suit is a *token*, and the same weights
read every token.

Input: the policy's input vector (the observation, with the card features when the
policy has them), split by :func:`dehla_env.augment.suit_groups` into four suit tokens
(each suit's cards in every card slice, its entries in the suit slices, its bids) and
the entries of no suit (seats, counts, phase, match), which every token also reads.
Layers: the first maps each token with one shared weight matrix; each later one maps a
token from itself and the mean of the four tokens (a Deep Sets layer: the mean is how
suits see each other). Output: each token's 21 action logits (its 13 cards, its trump
choice, its seven bids), with the same head for every suit, and the pass (R4.2) from
the mean of the tokens. Renaming the suits of the input therefore renames the logits,
exactly (``tests/test_suitnet.py``), and ``relabel=1`` gains nothing with it.
"""

from __future__ import annotations

import torch
from torch import nn

from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import action_suit_groups, suit_groups
from dehla_env.cards import NUM_SUITS
from dehla_env.encoding import Layout


class SuitLayer(nn.Module):
    """tokens (B, 4, a) -> (B, 4, b): each token from itself and the mean of the four,
    the same weights for every suit."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__()
        self.own = nn.Linear(a, b)
        self.mean = nn.Linear(a, b, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.own(tokens) + self.mean(tokens.mean(1, keepdim=True))


class SuitTokens(nn.Module):
    """The shared body: input vector (B, layout.size) -> suit tokens (B, 4, hidden[-1]),
    each token from its suit's entries and the entries of no suit, then Deep Sets layers.
    :class:`SuitNet` puts the action heads on it, :class:`SuitValue` a value head."""

    suit_columns: torch.Tensor
    shared_columns: torch.Tensor

    def __init__(self, layout: Layout, hidden: tuple[int, ...]) -> None:
        super().__init__()
        if not hidden:
            raise ValueError(f"{type(self).__name__} needs at least one hidden layer")
        inputs = suit_groups(layout)
        self.register_buffer("suit_columns", torch.as_tensor(inputs.per_suit.reshape(-1)), persistent=False)
        self.register_buffer("shared_columns", torch.as_tensor(inputs.shared), persistent=False)
        self.per_suit = inputs.per_suit.shape[1]
        self.suit_in = nn.Linear(self.per_suit, hidden[0])
        self.shared_in = nn.Linear(len(inputs.shared), hidden[0], bias=False)
        self.layers = nn.ModuleList(SuitLayer(a, b) for a, b in zip(hidden[:-1], hidden[1:]))

    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        batch = x.shape[0]
        tokens = x.index_select(1, self.suit_columns).reshape(batch, NUM_SUITS, self.per_suit)
        shared = x.index_select(1, self.shared_columns)
        h = torch.relu(self.suit_in(tokens) + self.shared_in(shared).unsqueeze(1))
        for layer in self.layers:
            h = torch.relu(layer(h))
        return h


class SuitNet(SuitTokens):
    """Input vector (B, layout.size) -> logits (B, 85); see the module docstring."""

    action_order: torch.Tensor

    def __init__(self, layout: Layout, hidden: tuple[int, ...]) -> None:
        super().__init__(layout, hidden)
        actions = action_suit_groups()
        # the head's outputs, laid end to end (each suit's 21, then pass), back in action order
        produced = [*actions.per_suit.reshape(-1), *actions.shared]
        order = torch.empty(NUM_ACTIONS, dtype=torch.long)
        order[torch.as_tensor(produced)] = torch.arange(NUM_ACTIONS)
        self.register_buffer("action_order", order, persistent=False)
        self.head = SuitLayer(hidden[-1], actions.per_suit.shape[1])
        self.shared_head = nn.Linear(hidden[-1], len(actions.shared))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.tokens(x)
        produced = torch.cat([self.head(h).reshape(x.shape[0], -1), self.shared_head(h.mean(1))], 1)
        return produced.index_select(1, self.action_order)


class SuitValue(SuitTokens):
    """Input vector (B, layout.size) -> one value (B, 1) that no renaming of the suits
    changes: the critic's counterpart of :class:`SuitNet` (a position and its renaming
    are the same position, so they have the same value), read from the mean of the
    tokens."""

    def __init__(self, layout: Layout, hidden: tuple[int, ...]) -> None:
        super().__init__(layout, hidden)
        self.value = nn.Linear(hidden[-1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.value(self.tokens(x).mean(1))
