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

from dataclasses import dataclass
from functools import cache
from itertools import permutations

import numpy as np

from .actions import (
    BID_OFFSET,
    MIN_BID,
    NUM_ACTIONS,
    NUM_BID_LEVELS,
    PASS_ACTION,
    TRUMP_OFFSET,
    bid_action,
    trump_action,
)
from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, rank_of, suit_of
from .encoding import NUM_BID_CHOICES, Axis, Layout, layout_for, privileged_layout

ALL_PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(permutations(range(4)))


def _card_map(perm: tuple[int, ...]) -> np.ndarray:
    """new card id for every old card id."""
    return np.array([perm[suit_of(c)] * NUM_RANKS + rank_of(c) for c in range(NUM_CARDS)])


def _bid_map(perm: tuple[int, ...]) -> np.ndarray:
    """new bid code for every old one (R4.2 codes: not yet, pass, then the 28 bids)."""
    out = np.arange(NUM_BID_CHOICES)
    for k in range(NUM_BID_CHOICES - 2):
        level, suit = divmod(k, 4)
        out[2 + k] = 2 + level * 4 + perm[suit]
    return out


def layout_permutation(layout: Layout, perm: tuple[int, ...]) -> np.ndarray:
    """``forward[old] = new`` positions of a layout's vector under the suit relabelling
    ``perm``: every card, suit and bid axis (:class:`~dehla_env.encoding.Axis`) is mapped."""
    maps = {Axis.CARD: _card_map(perm), Axis.SUIT: np.array(perm), Axis.BID: _bid_map(perm)}
    forward = np.arange(layout.size)
    for sl in layout.slices.values():
        grid = np.indices(sl.shape).reshape(len(sl.shape), -1)
        for d, axis in enumerate(sl.axes):
            if axis in maps:
                grid[d] = maps[axis][grid[d]]
        forward[sl.offset : sl.stop] = sl.offset + np.ravel_multi_index(tuple(grid), sl.shape)
    return forward


def _gather(forward: np.ndarray) -> np.ndarray:
    index = np.empty_like(forward)
    index[forward] = np.arange(len(forward))
    return index


@cache
def suit_permutation_maps(perm: tuple[int, ...], num_players: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(obs_index, mask_index, action_index) for relabelling suits by ``perm``."""
    if sorted(perm) != [0, 1, 2, 3]:
        raise ValueError(f"not a permutation of the four suits: {perm}")
    obs_index = _gather(layout_permutation(layout_for(num_players), perm))
    cards = _card_map(perm)
    action_forward = np.arange(NUM_ACTIONS)
    action_forward[:NUM_CARDS] = cards
    action_forward[TRUMP_OFFSET : TRUMP_OFFSET + 4] = TRUMP_OFFSET + np.array(perm)
    for k in range(NUM_ACTIONS - BID_OFFSET):
        level, suit = divmod(k, 4)
        action_forward[BID_OFFSET + k] = BID_OFFSET + level * 4 + perm[suit]
    return obs_index, _gather(action_forward), action_forward


@cache
def privileged_permutation(perm: tuple[int, ...], num_players: int = 4) -> np.ndarray:
    """Gather indices relabelling :func:`~dehla_env.encoding.privileged_features` by ``perm``."""
    return _gather(layout_permutation(privileged_layout(num_players), perm))


@dataclass(frozen=True)
class RelabelTables:
    """Every relabelling at once, row ``p`` for ``ALL_PERMUTATIONS[p]``: what a batch whose
    rows each take their own relabelling gathers with ``np.take_along_axis``."""

    obs: np.ndarray  # (24, D) gather indices of the observation
    action: np.ndarray  # (24, 85) the relabelled action of every action
    action_back: np.ndarray  # (24, 85) action's inverse, which is also the mask's gather indices
    privileged: np.ndarray  # (24, P) gather indices of the privileged critic features


@cache
def relabel_tables(num_players: int = 4) -> RelabelTables:
    """:func:`suit_permutation_maps` and :func:`privileged_permutation` of every
    permutation, stacked (computed once per seat count)."""
    maps = [suit_permutation_maps(perm, num_players) for perm in ALL_PERMUTATIONS]
    return RelabelTables(
        obs=np.stack([m[0] for m in maps]),
        action=np.stack([m[2] for m in maps]),
        action_back=np.stack([m[1] for m in maps]),
        privileged=np.stack([privileged_permutation(perm, num_players) for perm in ALL_PERMUTATIONS]),
    )


def relabel(
    obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, perm: tuple[int, ...], num_players: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relabel a batch of (observation, mask, action) by the suit permutation ``perm``."""
    oi, mi, af = suit_permutation_maps(tuple(perm), num_players)
    return obs[..., oi], mask[..., mi], af[actions]


@dataclass(frozen=True)
class SuitGroups:
    """A vector's entries sorted by suit, for networks that treat the four suits alike
    (``agents.nets.suitnet``): ``per_suit[s, t]`` is the position of the ``t``-th entry that
    belongs to suit ``s``, the same ``t`` in every suit (the king of the suit in the
    seat's hand, the suit's bid of nine by the seat to the left, ...), and ``shared``
    holds the entries of no suit (counts, seats, phase, match values). A suit
    relabelling ``perm`` moves ``per_suit[s]`` onto ``per_suit[perm[s]]`` and leaves
    ``shared`` in place (``tests/test_suitnet.py`` holds every layout to that)."""

    per_suit: np.ndarray  # (4, m)
    shared: np.ndarray  # (g,)


def _suit_and_index(axis: Axis, value: int) -> tuple[int, int] | None:
    """The suit an index along ``axis`` belongs to and its place within the suit;
    None for an index of no suit (a bid axis's "not yet" and "pass")."""
    if axis is Axis.CARD:
        suit, rank = divmod(value, NUM_RANKS)
        return suit, rank
    if axis is Axis.SUIT:
        return value, 0
    if value < 2:  # Axis.BID: not yet, pass
        return None
    level, suit = divmod(value - 2, 4)
    return suit, level


def suit_groups(layout: Layout) -> SuitGroups:
    """The :class:`SuitGroups` of a layout's vector, from its slices' axes: an entry
    belongs to the suit of its card, suit or bid coordinate (a slice has at most one)."""
    suited = (Axis.CARD, Axis.SUIT, Axis.BID)
    per_suit: list[dict[tuple, int]] = [{} for _ in range(4)]
    shared: list[int] = []
    for sl in layout.slices.values():
        dims = [d for d, axis in enumerate(sl.axes) if axis in suited]
        if len(dims) > 1:
            raise ValueError(f"slice {sl.name} has more than one suit axis: {sl.axes}")
        for flat, coords in enumerate(np.ndindex(*sl.shape)):
            found = _suit_and_index(sl.axes[dims[0]], coords[dims[0]]) if dims else None
            if found is None:
                shared.append(sl.offset + flat)
                continue
            suit, within = found
            key = (sl.name, *coords[: dims[0]], within, *coords[dims[0] + 1 :])
            per_suit[suit][key] = sl.offset + flat
    order = list(per_suit[0])
    return SuitGroups(
        np.array([[per_suit[s][k] for k in order] for s in range(4)], dtype=np.int64), np.array(shared, dtype=np.int64)
    )


def action_suit_groups() -> SuitGroups:
    """The :class:`SuitGroups` of the action layout: per suit its 13 cards, its trump
    choice and its seven bids; shared: pass (R4.2)."""
    per_suit = [
        [s * NUM_RANKS + r for r in range(NUM_RANKS)]
        + [trump_action(s)]
        + [bid_action(MIN_BID + level, s) for level in range(NUM_BID_LEVELS)]
        for s in range(NUM_SUITS)
    ]
    return SuitGroups(np.array(per_suit), np.array([PASS_ACTION]))
