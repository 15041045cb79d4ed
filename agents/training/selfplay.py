"""Self-play rollouts on the batched engine (:class:`dehla_env.vector.VectorEnv`).

One rollout plays ``rounds`` hands in each of the env's ``N`` games. Per game and hand
the :class:`~agents.training.pool.OpponentPool` draws the other side's player and the
learner gets a side at random; at every step each game takes one decision: the
learner's seats go through the current policy as one batch, every opponent slot as one
batch of its own. The trainer's reward is :func:`dehla_env.rewards.weighted_side0_reward`
of the hand's outcome, the definitions the environments use.

What is stored per learner decision (decisions with a single legal move are played but
not stored: nothing is learned from them, and with gamma 1 skipping them changes no
return): the observation (as the env's uint8 codes: a quarter of float32's bytes to
sort, send back from a worker and merge; :meth:`Rollout.observations` decodes them bit
for bit), the privileged critic features (card counts, uint8) read from the engine's hidden
state (:meth:`~dehla_env.vector.engine.BatchEngine.privileged`), the mask, the action,
its log-probability, and a trajectory key (one seat's decisions in one hand). The
returned arrays are sorted by trajectory and time, with ``done`` on each trajectory's
last decision and the hand's reward on it: what GAE reads.

*Partners*: by default the learner plays every seat of its side (its partner is
itself). Given :class:`Partners` (the trainer's ``partners`` setting), a second pool
draws per game and hand who sits beside it as well; when the draw is not ``self`` the
learner plays one seat of its side, drawn at random, and the partner kind the side's
other seats, so the policy learns to play with partners other than itself. Only the
learner's own decisions are stored, as always.

Every game starts a rollout on a fresh hand and finishes it inside the rollout, so no
trajectory spans two rollouts: a rollout depends only on the env's seed, the pool and
the generator it is given, and a resumed run repeats it exactly.

A rollout can be split into *shards* (:class:`RolloutTask`, :func:`collect_shard`):
each plays its own share of the games from seeds of its own, in a worker process or
in this one, and :func:`merge` joins them. The shards' results depend on their number
and seeds only, not on where they ran.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from agents.gc_pause import cycle_collection_paused
from agents.nets.policy import PolicyNet
from agents.training.pool import SELF, OpponentPool, ScalarOpponent, StateDict
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import ALL_PERMUTATIONS, relabel_tables
from dehla_env.rewards import RewardKind, weighted_side0_reward
from dehla_env.rules import Rules
from dehla_env.vector import VectorEnv
from dehla_env.vector.observe import float_observations


@dataclass
class Rollout:
    """Learner decisions in trajectory order, and what the rollout counted.

    The observations are stored as the vector env's uint8 codes (a quarter of the bytes
    of float32, which a shard sends back to the trainer): :meth:`observations` decodes
    them, bit for bit the float32 rows the policy saw."""

    obs: np.ndarray  # (T, D) uint8 codes (or float32 over a scale of ones)
    obs_scale: np.ndarray  # (D,) float32: the observation is obs / obs_scale
    priv: np.ndarray  # (T, P) uint8 card counts, critic only
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

    def observations(self, rows: slice) -> np.ndarray:
        """(k, D) float32: the observations of ``rows``."""
        return float_observations(self.obs[rows], self.obs_scale)


@dataclass(frozen=True)
class Partners:
    """Who sits beside the learner: a pool of kinds (the opponents' kinds, sharing
    their pool's snapshots and warm start) and its players for one rollout
    (``pool.policies(...)``; an agent spec's :class:`ScalarOpponent` is an instance of
    its own, apart from the opponents', since a mirror must see every move of its games)."""

    pool: OpponentPool
    players: list[Any]


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
    relabel: bool = False,
    partners: Partners | None = None,
) -> Rollout:
    """Deal fresh hands in every game of ``env`` from ``seed`` and play ``rounds`` hands in
    each; see the module docstring. ``policy`` maps (k, D) observations and (k, 85) masks
    to masked logits (``PolicyNet.masked_logits``); ``opponents`` is ``pool.policies(...)``
    (a :class:`~agents.training.pool.ScalarOpponent` is told every move of its games).

    ``relabel``: the learner sees each game of each hand under a suit renaming drawn at
    random (:func:`dehla_env.augment.relabel_tables`; R0.4 and R4.2 rank no suit above
    another, so a renamed game is the same game): its observation, mask and privileged
    features are relabelled, its move is mapped back to the game's names, and what is
    stored is what it saw and chose, so the rollout stays on-policy for PPO. The network
    meets every position under all 24 namings instead of the one it was dealt in.

    ``partners``: see the module docstring (``None``: the learner is its own partner;
    the rollout is then the one it always was, draw for draw)."""
    rules = env.rules
    n, N = rules.players, env.num_envs
    tables = relabel_tables(n)
    first, info = env.reset(seed=int(np.random.default_rng(seed).integers(2**31)))
    obs = np.array(first)  # as the env gives them: uint8 codes (collect_shard's env) or float32
    scale = env.observation_scale if obs.dtype == np.uint8 else np.ones(obs.shape[1], np.float32)
    mask = info["action_mask"].copy()
    seat = info["seat"].copy()
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0).astype(np.float32)
    rec: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "priv", "mask", "action", "logp", "key")}
    final_reward: dict[int, float] = {}
    decisions = hands = pool_hands = 0
    score = 0.0
    t_env = t_pol = 0.0
    for r in range(rounds):
        slot = pool.draw(rng, N)
        side = rng.integers(2, size=N)
        suits = rng.integers(len(ALL_PERMUTATIONS), size=N) if relabel else None
        pslot = solo = np.zeros(N, np.int64)  # partner slot 0: the learner is its own partner
        if partners is not None:
            pslot = partners.pool.draw(rng, N)
            solo = side + 2 * rng.integers(n // 2, size=N)  # the learner's one seat beside another partner
        # (players, their slot per game): the opposing side's, and the learner's partners'
        groups = ((opponents, slot), ([] if partners is None else partners.players, pslot))
        active = np.arange(N)
        for players, slots in groups:
            for k, player in enumerate(players):
                if isinstance(player, ScalarOpponent):
                    player.start(env.engine, np.flatnonzero(slots == k))
        while len(active):
            s = seat[active]
            own = s % 2 == side[active]
            learn = own | (slot[active] == 0)
            if partners is not None:
                learn &= ~own | (pslot[active] == 0) | (s == solo[active])
            actions = np.empty(len(active), np.int64)
            t0 = time.perf_counter()
            li = np.flatnonzero(learn)
            if len(li):
                g = active[li]
                seen, m = obs[g], mask[g]
                if suits is not None:
                    p = suits[g]
                    seen = np.take_along_axis(seen, tables.obs[p], 1)  # the scale is the same under relabelling
                    m = np.take_along_axis(m, tables.action_back[p], 1)
                o = torch.from_numpy(env.float_view(seen))
                with torch.no_grad():
                    logits = policy(o, torch.from_numpy(m))
                a, lp = sample_masked(logits, rng)
                actions[li] = a if suits is None else tables.action_back[p, a]
                choice = m.sum(1) > 1
                if choice.any():
                    gc = g[choice]
                    priv = env.engine.privileged(gc, s[li][choice]).astype(np.uint8)
                    if suits is not None:
                        priv = np.take_along_axis(priv, tables.privileged[p[choice]], 1)
                    rec["obs"].append(seen[choice])
                    rec["priv"].append(priv)
                    rec["mask"].append(m[choice])
                    rec["action"].append(a[choice])
                    rec["logp"].append(lp[choice])
                    rec["key"].append((r * N + gc) * n + s[li][choice])
            t1 = time.perf_counter()
            t_pol += t1 - t0
            for (players, slots), theirs in zip(groups, (~learn & ~own, ~learn & own), strict=True):
                oi = np.flatnonzero(theirs)
                if len(oi):
                    oslot = slots[active[oi]]
                    for k in np.unique(oslot).tolist():
                        j = oi[oslot == k]
                        g = active[j]
                        opp = players[k]
                        scalar = isinstance(opp, ScalarOpponent)
                        actions[j] = opp(g, s[j]) if scalar else opp(env.float_view(obs[g]), mask[g])
            o2, m2, s2, _, ended, final = env.step_games(active, actions)
            for players, slots in groups:
                for k, player in enumerate(players):
                    if isinstance(player, ScalarOpponent):
                        mine = slots[active] == k
                        player.played(env.engine, active[mine], actions[mine], ended[mine])
            obs[active] = o2
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
        obs_scale=scale,
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


# ---------------------------------------------------------------------------- shards
@dataclass(frozen=True)
class RolloutTask:
    """One shard of a rollout, everything it needs in a picklable value: the games it
    plays, its seeds, the policy's weights and the opponent pool's contents."""

    rules: Rules
    num_games: int
    env_seed: tuple[int, ...]  # deals the shard's hands (collect's ``seed``)
    rng_seed: tuple[int, ...]  # seeds the opponents, then draws them and samples moves
    rounds: int
    reward: tuple[tuple[RewardKind, float], ...]
    model_config: dict[str, Any]
    model: StateDict
    pool_weights: tuple[tuple[str, float], ...]
    max_snapshots: int
    pool_state: dict[str, Any]
    relabel: bool = False  # collect's ``relabel``
    partners: tuple[tuple[str, float], ...] = ((SELF, 1.0),)  # the partner pool's weights (collect's ``partners``)


def shard_tasks(
    rules: Rules,
    num_games: int,
    shards: int,
    seed: Sequence[int],
    rounds: int,
    reward: Mapping[RewardKind, float],
    policy: PolicyNet,
    pool: OpponentPool,
    relabel: bool = False,
    partners: Mapping[str, float] | None = None,
) -> list[RolloutTask]:
    """The rollout seeded by ``seed`` as ``shards`` tasks of ``num_games / shards`` games
    (the first ones take the remainder). One shard has the seeds an unsharded rollout
    of ``seed`` always had; shard ``w`` of several appends ``w`` to them. ``partners``:
    the partner pool's weights (``None``: the learner is its own partner)."""
    base = [num_games // shards + (w < num_games % shards) for w in range(shards)]
    if min(base) < 1:
        raise ValueError(f"{num_games} games cannot be split over {shards} shards")
    model = _numpy(policy.state_dict())
    state = pool.state()
    pool_state = {
        "snapshots": [_numpy(sd) for sd in state["snapshots"]],
        "imitation": None if state["imitation"] is None else _numpy(state["imitation"]),
    }
    tasks = []
    for w, n in enumerate(base):
        tail = () if shards == 1 else (w,)
        tasks.append(
            RolloutTask(
                rules=rules,
                num_games=n,
                env_seed=(*seed, 1, *tail),
                rng_seed=(*seed, *tail),
                rounds=rounds,
                reward=tuple(reward.items()),
                model_config=policy.config(),
                model=model,
                pool_weights=tuple(pool.weights.items()),
                max_snapshots=pool.max_snapshots,
                pool_state=pool_state,
                relabel=relabel,
                partners=((SELF, 1.0),) if partners is None else tuple(partners.items()),
            )
        )
    return tasks


def _numpy(sd: StateDict) -> dict[str, np.ndarray]:
    """Weights as numpy arrays: pickled by value to a worker (torch tensors would go
    through shared-memory handles, one open file each)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in sd.items()}


_ENVS: dict[tuple[Rules, int], VectorEnv] = {}  # per process: building an env costs more than a hand


def collect_shard(task: RolloutTask) -> Rollout:
    """Play one shard (in a worker process, a Ray worker or this process: the same
    result)."""
    key = (task.rules, task.num_games)
    if key not in _ENVS:
        _ENVS[key] = VectorEnv(
            task.rules,
            num_envs=task.num_games,
            autoreset_mode=AutoresetMode.SAME_STEP,
            final_obs=False,
            copy=False,
            obs_dtype="uint8",
        )

    def frozen(sd: StateDict) -> PolicyNet:
        net = PolicyNet(**task.model_config)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in sd.items()})
        return net.eval()

    pool = OpponentPool(dict(task.pool_weights), task.max_snapshots)
    pool.load_state(task.pool_state)
    rng = np.random.default_rng(list(task.rng_seed))
    opponents = pool.policies(task.rules, rng, frozen)
    partners = None
    if any(w > 0 for kind, w in task.partners if kind != SELF):  # else today's rollout, draw for draw
        partner_pool = OpponentPool(dict(task.partners), task.max_snapshots)
        partner_pool.load_state(task.pool_state)  # the opponents' snapshots and warm start
        partners = Partners(partner_pool, partner_pool.policies(task.rules, rng, frozen))
    policy = frozen(task.model)
    # one torch thread wherever the shard runs: a matmul's sums are ordered by its
    # threads, and the log-probabilities (and, rarely, a sampled move) with them
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad(), cycle_collection_paused():
            return collect(
                _ENVS[key], list(task.env_seed), policy.masked_logits, pool, opponents, task.rounds, rng,
                dict(task.reward), task.relabel, partners,
            )  # fmt: skip
    finally:
        torch.set_num_threads(threads)


def merge(parts: Sequence[Rollout]) -> Rollout:
    """The shards' rollouts as one: trajectories stay whole (each shard's are), counts
    and seconds add up (seconds: of all processes together)."""
    if len(parts) == 1:
        return parts[0]
    out: dict[str, Any] = {}
    for f in fields(Rollout):
        values = [getattr(p, f.name) for p in parts]
        out[f.name] = np.concatenate(values) if isinstance(values[0], np.ndarray) else sum(values)
    out["obs_scale"] = parts[0].obs_scale  # the ruleset's, the same in every shard
    return Rollout(**out)
