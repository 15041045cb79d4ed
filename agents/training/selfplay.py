"""Self-play rollouts on the batched engine (:class:`dehla_env.vector.VectorEnv`).

One rollout plays ``rounds`` hands in each of the env's ``N`` games. Per game and hand
the :class:`~agents.training.pool.OpponentPool` draws the other side's player and the
learner gets a side at random; at every step each game takes one decision: the
learner's seats go through the current policy as one batch, every opponent slot as one
batch of its own. The trainer's reward is :func:`dehla_env.rewards.weighted_side0_reward`
of the hand's outcome, the definitions the environments use.

What is stored per learner decision (decisions with a single legal move are played but
not stored: nothing is learned from them, and with gamma 1 skipping them changes no
return): the observation, the privileged critic features read from the engine's hidden
state (:meth:`~dehla_env.vector.engine.BatchEngine.privileged`), the mask, the action,
its log-probability, and a trajectory key (one seat's decisions in one hand). The
returned arrays are sorted by trajectory and time, with ``done`` on each trajectory's
last decision and the hand's reward on it: what GAE reads.

Every game starts a rollout on a fresh hand and finishes it inside the rollout, so no
trajectory spans two rollouts: a rollout depends only on the env's seed, the pool and
the generator it is given, and a resumed run repeats it exactly.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from dehla_env.actions import NUM_ACTIONS
from dehla_env.rewards import RewardKind, weighted_side0_reward
from dehla_env.vector import VectorEnv

from .pool import OpponentPool, ScalarOpponent


@dataclass
class Rollout:
    """Learner decisions in trajectory order, and what the rollout counted."""

    obs: np.ndarray  # (T, D) float32
    priv: np.ndarray  # (T, P) float32, critic only
    mask: np.ndarray  # (T, 85) bool
    action: np.ndarray  # (T,) int64
    logp: np.ndarray  # (T,) float32
    reward: np.ndarray  # (T,) float32, nonzero only where done
    done: np.ndarray  # (T,) bool, the last decision of a trajectory
    decisions: int  # every decision taken in the env, all seats
    hands: int  # hands played
    learner_score: float  # hands won by the learner's side against the pool (no winner: half)
    pool_hands: int  # hands the learner played against the pool (not self-play)
    env_seconds: float  # inside the env and the opponents
    policy_seconds: float  # the learner's forward passes


def sample_masked(logits: torch.Tensor, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Actions sampled from masked logits with a numpy generator (reproducible across
    torch versions and thread counts), and their log-probabilities."""
    logp_all = torch.log_softmax(logits, -1)
    probs = logp_all.exp().numpy().astype(np.float64)
    cum = probs.cumsum(-1)
    u = rng.random(len(probs))[:, None] * cum[:, -1:]
    action = np.minimum((cum < u).sum(-1), NUM_ACTIONS - 1)
    logp = logp_all.numpy()[np.arange(len(action)), action]
    return action, logp.astype(np.float32)


def collect(
    env: VectorEnv,
    seed: int | list[int],
    policy: Any,
    pool: OpponentPool,
    opponents: list[Any],
    rounds: int,
    rng: np.random.Generator,
    reward: Mapping[RewardKind, float],
) -> Rollout:
    """Deal fresh hands in every game of ``env`` from ``seed`` and play ``rounds`` hands in
    each; see the module docstring. ``policy`` maps (k, D) observations and (k, 85) masks
    to masked logits (``PolicyNet.masked_logits``); ``opponents`` is ``pool.policies(...)``
    (a :class:`~agents.training.pool.ScalarOpponent` is told every move of its games)."""
    rules = env.rules
    n, N = rules.players, env.num_envs
    first, info = env.reset(seed=int(np.random.default_rng(seed).integers(2**31)))
    obs = np.array(env.float_view(first), np.float32)
    mask = info["action_mask"].copy()
    seat = info["seat"].copy()
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0).astype(np.float32)
    rec: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "priv", "mask", "action", "logp", "key")}
    final_reward: dict[int, float] = {}
    decisions = hands = pool_hands = 0
    score = 0.0
    t_env = t_pol = 0.0
    scalar = [k for k, o in enumerate(opponents) if isinstance(o, ScalarOpponent)]
    for r in range(rounds):
        slot = pool.draw(rng, N)
        side = rng.integers(2, size=N)
        active = np.arange(N)
        for k in scalar:
            opponents[k].start(env.engine, np.flatnonzero(slot == k))
        while len(active):
            s = seat[active]
            learn = (s % 2 == side[active]) | (slot[active] == 0)
            actions = np.empty(len(active), np.int64)
            t0 = time.perf_counter()
            li = np.flatnonzero(learn)
            if len(li):
                g = active[li]
                o = torch.from_numpy(obs[g])
                m = mask[g]
                with torch.no_grad():
                    logits = policy(o, torch.from_numpy(m))
                a, lp = sample_masked(logits, rng)
                actions[li] = a
                choice = m.sum(1) > 1
                if choice.any():
                    gc = g[choice]
                    rec["obs"].append(obs[gc])
                    rec["priv"].append(env.engine.privileged(gc, s[li][choice]))
                    rec["mask"].append(m[choice])
                    rec["action"].append(a[choice])
                    rec["logp"].append(lp[choice])
                    rec["key"].append((r * N + gc) * n + s[li][choice])
            t1 = time.perf_counter()
            t_pol += t1 - t0
            oi = np.flatnonzero(~learn)
            if len(oi):
                oslot = slot[active[oi]]
                for k in np.unique(oslot).tolist():
                    j = oi[oslot == k]
                    g = active[j]
                    opp = opponents[k]
                    actions[j] = opp(g, s[j]) if k in scalar else opp(obs[g], mask[g])
            o2, m2, s2, _, ended, final = env.step_games(active, actions)
            for k in scalar:
                mine = slot[active] == k
                opponents[k].played(env.engine, active[mine], actions[mine], ended[mine])
            obs[active] = env.float_view(o2)
            mask[active] = m2
            seat[active] = s2
            decisions += len(active)
            if ended.any():
                ge = active[final["final_index"]]
                out = final["final_outcome"]
                side0 = np.asarray(
                    weighted_side0_reward(
                        reward, rules, out["winner"], out["tens"], out["tricks"], out["kot"], out["score"]
                    ),
                    np.float32,
                ).reshape(-1)
                for gi, v, w in zip(ge.tolist(), side0.tolist(), out["winner"].tolist(), strict=True):
                    for st in range(n):
                        final_reward[(r * N + gi) * n + st] = v * float(sign[st])
                    if slot[gi] != 0:
                        pool_hands += 1
                        score += 0.5 if w < 0 else float(w == side[gi])
                hands += len(ge)
                active = active[~ended]
            t_env += time.perf_counter() - t1
    cat = {k: np.concatenate(v) if v else np.zeros((0,)) for k, v in rec.items()}
    order = np.argsort(cat["key"], kind="stable")  # trajectories, in time order within each
    key = cat["key"][order]
    done = np.ones(len(key), bool)
    done[:-1] = key[1:] != key[:-1]
    reward_arr = np.zeros(len(key), np.float32)
    reward_arr[done] = [final_reward[int(k)] for k in key[done]]
    return Rollout(
        obs=cat["obs"][order],
        priv=cat["priv"][order],
        mask=cat["mask"][order],
        action=cat["action"][order].astype(np.int64),
        logp=cat["logp"][order].astype(np.float32),
        reward=reward_arr,
        done=done,
        decisions=decisions,
        hands=hands,
        learner_score=score,
        pool_hands=pool_hands,
        env_seconds=t_env,
        policy_seconds=t_pol,
    )
