"""Suit relabelling: the data augmentation that card games allow.

Renaming the suits (C D H S -> any permutation) maps a legal game to a legal game with
the same outcome: nothing in any ruleset depends on which suit is which (trump, led
suit and bids are all relative to the suits named). So an observation, its mask and
its action can be relabelled together to give a new, equally valid training example.

:func:`suit_permutation_maps` returns index arrays such that, for a permutation
``perm`` (old suit -> new suit), ``new_obs = obs[..., obs_index]`` and
``new_action = action_index[action]`` (and ``new_mask = mask[..., mask_index]``).
"""

from __future__ import annotations

from functools import cache
from itertools import permutations

import numpy as np

from .actions import BID_OFFSET, NUM_ACTIONS, TRUMP_OFFSET
from .cards import NUM_CARDS, NUM_RANKS
from .encoding import NUM_BID_CHOICES, layout_for

ALL_PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(permutations(range(4)))


def _card_map(perm: tuple[int, ...]) -> np.ndarray:
    """new card id for every old card id."""
    return np.array([perm[c // NUM_RANKS] * NUM_RANKS + c % NUM_RANKS for c in range(NUM_CARDS)])


@cache
def suit_permutation_maps(perm: tuple[int, ...], num_players: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(obs_index, mask_index, action_index) for relabelling suits by ``perm``."""
    if sorted(perm) != [0, 1, 2, 3]:
        raise ValueError(f"not a permutation of the four suits: {perm}")
    lay = layout_for(num_players)
    cards = _card_map(perm)
    # new_position -> old_position ("gather" indices), built from old -> new maps
    forward = np.arange(lay.size)  # forward[old] = new
    for sl in lay.slices.values():
        shape = sl.shape
        if shape[-1] == NUM_CARDS:
            rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            for r in range(rows):
                base = sl.offset + r * NUM_CARDS
                forward[base : base + NUM_CARDS] = base + cards
        elif sl.name in ("led_suit", "trump_suit", "voids"):
            rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            for r in range(rows):
                base = sl.offset + r * 4
                forward[base : base + 4] = base + np.array(perm)
        elif sl.name == "bids":
            for r in range(shape[0]):
                base = sl.offset + r * NUM_BID_CHOICES
                for k in range(NUM_BID_CHOICES - 2):
                    level, suit = divmod(k, 4)
                    forward[base + 2 + k] = base + 2 + level * 4 + perm[suit]
    obs_index = np.empty_like(forward)
    obs_index[forward] = np.arange(lay.size)
    action_forward = np.arange(NUM_ACTIONS)
    action_forward[:NUM_CARDS] = cards
    action_forward[TRUMP_OFFSET : TRUMP_OFFSET + 4] = TRUMP_OFFSET + np.array(perm)
    for k in range(NUM_ACTIONS - BID_OFFSET):
        level, suit = divmod(k, 4)
        action_forward[BID_OFFSET + k] = BID_OFFSET + level * 4 + perm[suit]
    mask_index = np.empty_like(action_forward)
    mask_index[action_forward] = np.arange(NUM_ACTIONS)
    return obs_index, mask_index, action_forward


def relabel(
    obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, perm: tuple[int, ...], num_players: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relabel a batch of (observation, mask, action) by the suit permutation ``perm``."""
    oi, mi, af = suit_permutation_maps(tuple(perm), num_players)
    return obs[..., oi], mask[..., mi], af[actions]
