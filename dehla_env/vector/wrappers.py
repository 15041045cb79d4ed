"""Training wrapper: a learner plays some seats, batched policies play the others.

:class:`LearnerVectorEnv` turns a :class:`~dehla_env.vector.env.VectorEnv` into a
single-agent-style vector env for the learner. ``learner_seats`` are absolute seats of
one side (e.g. ``(0,)`` or ``(0, 2)``); every other seat is played by an opponent
policy, a :data:`BatchPolicy` (any callable ``policy(obs, mask) -> actions`` on a batch
of flat observations and masks: the batched bots of :mod:`agents.bots.batched`, a frozen
network) or a dict ``{seat: policy}``; seats without one play uniformly random legal
moves (:func:`random_legal`). Since every episode's first dealer is drawn at random, a
fixed learner seat sees every table position.

After :meth:`reset` and every :meth:`step`, all ``N`` games wait for a learner seat:
the opponents' moves in between are made in batches (only in the games where an
opponent is to act). ``step(actions)`` returns ``(obs, rewards, terminated, truncated,
info)`` with ``rewards`` (N,) the learner side's reward collected since the last step
(nonzero when a hand ended, whether on the learner's move or an opponent's),
``terminated`` (N,) whether a hand ended since the last step (``obs`` is then already
the learner's first decision of the next hand), and ``info`` with ``"action_mask"``,
``"seat"`` (the learner seat to act) and ``"final_obs"`` (N, D): for ended games the
final observation of the first learner seat (zeros elsewhere; the wrapper sets the
env's ``final_obs`` to that seat).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..seats import side_of
from .env import VectorEnv
from .kernel_types import compiled

#: a batched player: ``policy(obs (k, D) float32, mask (k, 85) bool) -> actions (k,)``
BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


@compiled
def nth_true(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row ``i`` of ``mask``, the column of its true entry number ``floor(u[i] *
    count)`` in column order, ``count`` the row's true entries (-1 for a row with none).

    One pass per row, without a branch on the entries: every column is written to the
    next slot of ``columns``, and the slot advances only past a true entry. Plain Python
    that numba compiles as it is (:data:`~dehla_env.vector.kernel_types.compiled`)."""
    k, width = mask.shape
    out = np.empty(k, np.int64)
    columns = np.empty(width, np.int64)
    for i in range(k):
        count = 0
        for a in range(width):
            columns[count] = a
            count += 1 if mask[i, a] else 0
        out[i] = columns[int(u[i] * count)] if count else -1
    return out


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random True column per row of ``mask`` (-1 for a row with none): one
    uniform draw per row from ``rng``, then :func:`nth_true` (compiled)."""
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(f"random_legal takes a (rows, actions) mask, not one of shape {mask.shape}")
    return nth_true(mask, rng.random(len(mask)))


class RandomPolicy:
    """A uniformly random legal action per row, from a seeded stream (here: the seats
    without a policy; in :mod:`agents.bots.batched`: the ``random`` bot)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return random_legal(mask, self.rng)


class LearnerVectorEnv:
    """See the module docstring."""

    def __init__(
        self,
        env: VectorEnv,
        learner_seats: Sequence[int] = (0,),
        opponents: BatchPolicy | Mapping[int, BatchPolicy] | None = None,
        seed: int | None = None,
    ) -> None:
        n = env.num_players
        seats = sorted({int(s) for s in learner_seats})
        if not seats or any(not 0 <= s < n for s in seats):
            raise ValueError(f"learner_seats must be seats 0..{n - 1}, not {learner_seats!r}")
        if len({side_of(s) for s in seats}) != 1:
            raise ValueError("learner_seats must all be on one side (their rewards are the same)")
        self.env = env
        self.num_envs = env.num_envs
        self.learner_seats = tuple(seats)
        self.learner_side = side_of(seats[0])
        self.single_observation_space = env.single_observation_space
        self.single_action_space = env.single_action_space
        others = [s for s in range(n) if s not in seats]
        ss = np.random.SeedSequence(seed)
        child = iter(ss.spawn(n))
        if isinstance(opponents, Mapping):
            bad = [s for s in opponents if s not in others]
            if bad:
                raise ValueError(f"opponents: seats {bad} are not played by a policy")
            given: dict[int, Any] = {s: opponents.get(s) for s in others}
        else:
            given = {s: opponents for s in others}
        random_seats = RandomPolicy(int(next(child).generate_state(1)[0]))
        # one entry per distinct policy, shared by its seats
        groups: dict[int, tuple[BatchPolicy, list[int]]] = {}
        for s in others:
            pol = given[s]
            if pol is None:
                pol = random_seats
            elif isinstance(pol, str) or not callable(pol):
                raise TypeError(f"seat {s}: an opponent is a callable policy(obs, mask) -> actions, not {pol!r}")
            groups.setdefault(id(pol), (pol, []))[1].append(s)
        self._policies = [(pol, np.array(ss_)) for pol, ss_ in groups.values()]
        self._is_learner = np.zeros(n, bool)
        self._is_learner[list(seats)] = True
        self._obs = np.zeros((env.num_envs, env.observation_size), np.float32)
        self._mask = np.zeros((env.num_envs, env.num_actions), bool)
        self._seat = np.zeros(env.num_envs, np.int64)
        env.final_obs = seats[0]  # the final observation the learner needs

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed)
        self._obs[:] = obs
        self._mask[:] = info["action_mask"]
        self._seat[:] = info["seat"]
        rewards = np.zeros(self.num_envs, np.float32)
        ended = np.zeros(self.num_envs, bool)
        final = np.zeros_like(self._obs)
        self._play_opponents(rewards, ended, final)
        return self._obs.copy(), {"action_mask": self._mask.copy(), "seat": self._seat.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        env = self.env
        N = self.num_envs
        obs, mask, seat, r, term, fin = env.step_games(env.engine.all, actions)
        self._obs[:] = obs
        self._mask[:] = mask
        self._seat[:] = seat
        rewards = r[:, self.learner_seats[0]].astype(np.float32)
        ended = term.copy()
        final = np.zeros((N, env.observation_size), np.float32)
        self._keep_final(env.engine.all, fin, final)
        self._play_opponents(rewards, ended, final)
        info = {"action_mask": self._mask.copy(), "seat": self._seat.copy(), "final_obs": final}
        return self._obs.copy(), rewards, ended, np.zeros(N, bool), info

    def _keep_final(self, g: np.ndarray, fin: dict[str, Any], final: np.ndarray) -> None:
        if "final_obs" in fin and len(fin["final_index"]):
            final[g[fin["final_index"]]] = fin["final_obs"]

    def _play_opponents(self, rewards: np.ndarray, ended: np.ndarray, final: np.ndarray) -> None:
        """Let the opponents move until every game waits for a learner seat."""
        env = self.env
        learner = self.learner_seats[0]
        while True:
            waiting = ~self._is_learner[self._seat]
            if not waiting.any():
                return
            g = np.flatnonzero(waiting)
            seat = self._seat[g]
            obs = self._obs[g]
            mask = self._mask[g]
            actions = np.zeros(len(g), np.int64)
            for pol, seats in self._policies:
                sel = np.isin(seat, seats)
                if sel.any():
                    actions[sel] = pol(obs[sel], mask[sel])
            o, m, s, r, term, fin = env.step_games(g, actions)
            self._obs[g] = o
            self._mask[g] = m
            self._seat[g] = s
            rewards[g] += r[:, learner]
            ended[g] |= term
            self._keep_final(g, fin, final)

    def close(self) -> None:
        self.env.close()
