"""The opponent pool: who plays the other side of each self-play game.

For every game and every new hand the trainer draws one *kind* by weight, and the
learner's side at random. The kinds, named as they are (no stand-in borrows a bot's
name):

===============  ====================================================================
``self``         the current policy on both sides: both sides' decisions are learned
``snapshot``     a frozen earlier copy of the policy, one of the last ``max_snapshots``
                 kept (uniformly); drawn only once the pool holds one
``imitation``    the policy as the imitation warm start left it: a batched copy of the
                 teacher's play (``hard`` by default) at network speed, not ``hard``
                 itself; drawn only after a warm start
``random``,      the batched bots of :mod:`agents.batched` (``cardsense`` is simple card
``tensafe``,     sense, ``tensafe`` random play that keeps its tens)
``cardsense``
===============  ====================================================================

A draw is a *slot*: 0 is ``self``, then one slot per batched bot named in the weights,
then ``imitation``, then the snapshots. :meth:`OpponentPool.policies` builds the batched
policy of every slot for one rollout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from dehla_env.vector import BatchPolicy

from ..batched import BATCHED_POLICIES, TorchPolicy, make_batched_policy

#: the kinds that are not batched bots
SELF, SNAPSHOT, IMITATION = "self", "snapshot", "imitation"
StateDict = dict[str, Any]


class OpponentPool:
    """Weights by kind, the kept snapshots and the warm start's weights; see the module
    docstring. ``snapshots`` and ``imitation`` are torch state dicts (a checkpoint keeps
    them, so a resumed run draws from the same pool)."""

    def __init__(self, weights: Mapping[str, float], max_snapshots: int = 5) -> None:
        known = {SELF, SNAPSHOT, IMITATION, *BATCHED_POLICIES}
        unknown = sorted(set(weights) - known)
        if unknown:
            raise ValueError(f"unknown opponent kind(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        if any(not isinstance(w, (int, float)) or isinstance(w, bool) or not w >= 0 for w in weights.values()):
            raise ValueError(f"opponent weights are numbers >= 0, not {dict(weights)}")
        if sum(w for k, w in weights.items() if k not in (SNAPSHOT, IMITATION)) <= 0:
            # the first updates have no snapshot, and a run without a warm start no imitation
            raise ValueError(f"opponent weights need a kind besides snapshot and imitation above 0: {dict(weights)}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, not {max_snapshots}")
        self.weights = dict(weights)
        self.bots = [k for k in weights if k in BATCHED_POLICIES]
        self.max_snapshots = max_snapshots
        self.snapshots: list[StateDict] = []
        self.imitation: StateDict | None = None

    # ------------------------------------------------------------------ contents
    def add_snapshot(self, state: StateDict) -> None:
        self.snapshots = [*self.snapshots, state][-self.max_snapshots :]

    @property
    def num_slots(self) -> int:
        return 1 + len(self.bots) + 1 + len(self.snapshots)

    @property
    def imitation_slot(self) -> int:
        return 1 + len(self.bots)

    def slot_names(self) -> list[str]:
        names = [SELF, *self.bots, IMITATION]
        return names + [f"{SNAPSHOT}{i}" for i in range(len(self.snapshots))]

    # ------------------------------------------------------------------ drawing
    def draw(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """(k,) slots, one per game: a kind by weight among those available, then a
        snapshot uniformly if the kind is ``snapshot``."""
        kinds, slots = [], []
        for kind, w in self.weights.items():
            if w <= 0 or (kind == SNAPSHOT and not self.snapshots) or (kind == IMITATION and self.imitation is None):
                continue
            kinds.append(w)
            slots.append(
                -1
                if kind == SNAPSHOT
                else 0
                if kind == SELF
                else self.imitation_slot
                if kind == IMITATION
                else 1 + self.bots.index(kind)
            )
        p = np.array(kinds, np.float64)
        chosen = np.array(slots, np.int64)[rng.choice(len(slots), size=k, p=p / p.sum())]
        snap = chosen == -1
        chosen[snap] = self.imitation_slot + 1 + rng.integers(len(self.snapshots), size=int(snap.sum()))
        return chosen

    def policies(
        self, num_players: int, rng: np.random.Generator, frozen: Callable[[StateDict], Any]
    ) -> list[BatchPolicy | None]:
        """The batched policy of every slot (``None`` for ``self`` and for an empty
        ``imitation``), seeded from ``rng``; ``frozen(state)`` builds a network from a
        state dict. Frozen networks sample their moves, as the learner does."""

        def seed() -> int:
            return int(rng.integers(2**31))

        out: list[BatchPolicy | None] = [None]
        out += [make_batched_policy(name, num_players, seed()) for name in self.bots]
        out.append(None if self.imitation is None else TorchPolicy(frozen(self.imitation), seed=seed()))
        out += [TorchPolicy(frozen(s), seed=seed()) for s in self.snapshots]
        return out

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        return {"snapshots": list(self.snapshots), "imitation": self.imitation}

    def load_state(self, state: Mapping[str, Any]) -> None:
        self.snapshots = list(state["snapshots"])[-self.max_snapshots :]
        self.imitation = state["imitation"]
