"""Self-play rollouts on the batched engine (:class:`dehla_env.vector.VectorEnv`).

Two parts, with one boundary between them. :class:`SelfPlayEnv` is a vector env of the
learner's decisions alone: it owns the table (per game and hand the
:class:`~agents.training.pool.OpponentPool` draws the other side's player, the learner
gets a side at random, every opponent slot plays as one batch of its own, a scalar bot
on a mirror of its game), and its ``reset``/``step`` return only what the learner is to
decide (observation, mask) and what its finished trajectories earned (reward, done).
:func:`collect` is the learner's loop over it, in the manner of CleanRL: sample the
moves, store them, step. The trainer's reward is
:func:`dehla_env.rewards.weighted_side0_reward` of the hand's outcome, the definitions
the environments use.

One rollout plays ``rounds`` hands in each of the env's ``N`` games; at every step each
game takes one decision (the learner's seats through the current policy as one batch).

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

import dataclasses
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
from dehla_env.encoding import privileged_size
from dehla_env.rewards import RewardKind, weighted_side0_reward
from dehla_env.rules import Rules
from dehla_env.seats import side_of
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


# ---------------------------------------------------------------------------- the env
@dataclass(frozen=True)
class Decisions:
    """What :class:`SelfPlayEnv` hands the learner: its decisions to take now, one row
    per game where it is to act, and the trajectories that ended on the way here.

    ``obs`` and ``mask`` are what the learner sees (renamed under ``relabel``; ``obs``
    as the env's codes, :meth:`SelfPlayEnv.float_view` decodes them); ``key`` names each
    row's trajectory (one seat's decisions in one hand); ``choice`` marks the rows with
    more than one legal move (only those are learned), ``priv`` holds their privileged
    critic features. ``ended_key``/``ended_reward``: every seat's trajectory of each
    hand that ended, and its reward (the reward and ``done`` of those trajectories; a
    hand's reward comes only at its end, gamma is 1)."""

    obs: np.ndarray
    mask: np.ndarray
    key: np.ndarray
    choice: np.ndarray
    priv: np.ndarray
    ended_key: np.ndarray
    ended_reward: np.ndarray


@dataclass
class RolloutCounts:
    """What a :class:`SelfPlayEnv` counted since its reset."""

    decisions: int = 0  # every decision taken in the env, all seats
    hands: int = 0  # hands played
    pool_hands: int = 0  # hands the learner played against the pool (not self-play)
    learner_score: float = 0.0  # of those, hands won by the learner's side (no winner: half)


_NO_KEYS = np.zeros(0, np.int64)
_NO_REWARDS = np.zeros(0, np.float64)


class SelfPlayEnv:
    """The learner's view of self-play on a :class:`~dehla_env.vector.VectorEnv`: its
    :meth:`reset` and :meth:`step` deal only in the learner's decisions, and inside
    :meth:`step` every other seat plays until the learner is to act again (see the
    module docstring).

    Plays ``rounds`` hands in every game from :meth:`reset`, then is :attr:`finished`.
    ``rng`` draws the players, sides and renamings per hand; the learner samples its
    moves from it too (:func:`collect`), between those draws, so a rollout is one
    sequence of draws from one generator."""

    def __init__(
        self,
        env: VectorEnv,
        pool: OpponentPool,
        opponents: list[Any],
        *,
        rng: np.random.Generator,
        rounds: int,
        reward: Mapping[RewardKind, float],
        relabel: bool = False,
        partners: Partners | None = None,
    ) -> None:
        self.env, self.pool, self.opponents, self.partners = env, pool, opponents, partners
        self.rng, self.rounds, self.reward, self.relabel = rng, rounds, reward, relabel
        self.rules = env.rules
        self.n, self.num_envs = env.rules.players, env.num_envs
        self.tables = relabel_tables(self.n)
        self.sign = np.where(side_of(np.arange(self.n)) == 0, 1.0, -1.0).astype(np.float32)
        self.counts = RolloutCounts()
        self.round, self.active, self.finished = -1, np.zeros(0, np.int64), True

    @property
    def observation_scale(self) -> np.ndarray:
        """(D,) float32: the observation is ``obs / observation_scale``."""
        return self.scale

    def float_view(self, obs: np.ndarray) -> np.ndarray:
        """The float32 observations of :attr:`Decisions.obs`."""
        return self.env.float_view(obs)

    # ------------------------------------------------------------------ the env
    def reset(self, *, seed: int | list[int]) -> Decisions:
        """Deal fresh hands in every game from ``seed``; the learner's first decisions."""
        first, info = self.env.reset(seed=int(np.random.default_rng(seed).integers(2**31)))
        self.obs = np.array(first)  # as the env gives them: uint8 codes (a shard's env) or float32
        codes = self.obs.dtype == np.uint8
        self.scale = self.env.observation_scale if codes else np.ones(self.obs.shape[1], np.float32)
        self.mask = info["action_mask"].copy()
        self.seat = info["seat"].copy()
        self.counts = RolloutCounts()
        self.round, self.active, self.finished = -1, np.zeros(0, np.int64), False
        return self._advance([], [])

    def step(self, actions: np.ndarray) -> Decisions:
        """Play the learner's ``actions`` (one per row of the last :class:`Decisions`, in
        its names), every other seat's moves, until the learner is to act again."""
        keys, rewards = self._play(actions)
        return self._advance([keys], [rewards])

    # ------------------------------------------------------------------ inside
    def _begin_round(self) -> None:
        """A new hand in every game: the players, sides and renamings drawn."""
        rng, N, n = self.rng, self.num_envs, self.n
        self.round += 1
        self.slot = self.pool.draw(rng, N)
        self.side = rng.integers(2, size=N)
        self.suits = rng.integers(len(ALL_PERMUTATIONS), size=N) if self.relabel else None
        self.pslot = self.solo = np.zeros(N, np.int64)  # partner slot 0: the learner is its own partner
        if self.partners is not None:
            self.pslot = self.partners.pool.draw(rng, N)
            self.solo = self.side + 2 * rng.integers(n // 2, size=N)  # the learner's one seat beside another
        # (players, their slot per game): the opposing side's, and the learner's partners'
        partner_players = [] if self.partners is None else self.partners.players
        self.groups = ((self.opponents, self.slot), (partner_players, self.pslot))
        self.active = np.arange(N)
        for players, slots in self.groups:
            for k, player in enumerate(players):
                if isinstance(player, ScalarOpponent):
                    player.start(self.env.engine, np.flatnonzero(slots == k))

    def _whose_turn(self) -> None:
        """Who acts in every active game: the learner (``learn``), or the opponent
        (``~own``) or partner (``own``) of the game's slot."""
        a = self.active
        self.s = self.seat[a]
        self.own = side_of(self.s) == self.side[a]
        self.learn = self.own | (self.slot[a] == 0)
        if self.partners is not None:
            self.learn &= ~self.own | (self.pslot[a] == 0) | (self.s == self.solo[a])
        self.li = np.flatnonzero(self.learn)

    def _advance(self, keys: list[np.ndarray], rewards: list[np.ndarray]) -> Decisions:
        """Play the other seats until the learner is to act (a new hand once every game
        ended its own, until ``rounds`` hands): the learner's decisions then."""
        while True:
            if not len(self.active):
                if self.round + 1 >= self.rounds:
                    self.finished = True
                    return self._decisions(keys, rewards)
                self._begin_round()
            self._whose_turn()
            if len(self.li):
                return self._decisions(keys, rewards)
            k, r = self._play(np.zeros(0, np.int64))
            keys.append(k)
            rewards.append(r)

    def _decisions(self, keys: list[np.ndarray], rewards: list[np.ndarray]) -> Decisions:
        ended_key = np.concatenate(keys) if keys else _NO_KEYS
        ended_reward = np.concatenate(rewards) if rewards else _NO_REWARDS
        li = self.li if not self.finished else np.zeros(0, np.int64)
        g, s = self.active[li], self.s[li] if len(li) else np.zeros(0, np.int64)
        seen, m = self.obs[g], self.mask[g]
        if self.suits is not None and len(g):
            p = self.suits[g]
            seen = np.take_along_axis(seen, self.tables.obs[p], 1)  # the scale is the same under relabelling
            m = np.take_along_axis(m, self.tables.action_back[p], 1)
        choice = m.sum(1) > 1
        priv = np.zeros((0, privileged_size(self.rules)), np.uint8)
        if choice.any():
            priv = self.env.engine.privileged(g[choice], s[choice]).astype(np.uint8)
            if self.suits is not None:
                priv = np.take_along_axis(priv, self.tables.privileged[self.suits[g][choice]], 1)
        key = (self.round * self.num_envs + g) * self.n + s
        return Decisions(
            obs=seen, mask=m, key=key, choice=choice, priv=priv, ended_key=ended_key, ended_reward=ended_reward
        )

    def _play(self, learner_actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One decision in every active game: the learner's ``learner_actions`` (mapped
        back to the game's suit names), every other seat's from its player; the keys and
        rewards of the trajectories of the hands that ended."""
        active, s, learn, own, li = self.active, self.s, self.learn, self.own, self.li
        actions = np.empty(len(active), np.int64)
        if len(li):
            g = active[li]
            a = np.asarray(learner_actions, np.int64)
            actions[li] = a if self.suits is None else self.tables.action_back[self.suits[g], a]
        for (players, slots), theirs in zip(self.groups, (~learn & ~own, ~learn & own), strict=True):
            oi = np.flatnonzero(theirs)
            if len(oi):
                oslot = slots[active[oi]]
                for k in np.unique(oslot).tolist():
                    j = oi[oslot == k]
                    g = active[j]
                    player = players[k]
                    if isinstance(player, ScalarOpponent):
                        actions[j] = player(g, s[j])
                    else:
                        actions[j] = player(self.env.float_view(self.obs[g]), self.mask[g])
        o2, m2, s2, _, ended, final = self.env.step_games(active, actions)
        for players, slots in self.groups:  # the scalar mirrors see every move of their games
            for k, player in enumerate(players):
                if isinstance(player, ScalarOpponent):
                    mine = slots[active] == k
                    player.played(self.env.engine, active[mine], actions[mine], ended[mine])
        self.obs[active] = o2
        self.mask[active] = m2
        self.seat[active] = s2
        self.counts.decisions += len(active)
        if not ended.any():
            return _NO_KEYS, _NO_REWARDS
        ge = active[final["final_index"]]
        out = final["final_outcome"]
        side0 = weighted_side0_reward(
            self.reward, self.rules, winner=out["winner"], tens=out["tens"], tricks=out["tricks"], kot=out["kot"],
            score=out["score"],
        )  # fmt: skip
        side0 = np.asarray(side0, np.float32).reshape(-1)
        keys, rewards = [], []
        for gi, v, w in zip(ge.tolist(), side0.tolist(), out["winner"].tolist(), strict=True):
            for st in range(self.n):
                keys.append((self.round * self.num_envs + gi) * self.n + st)
                rewards.append(v * float(self.sign[st]))
            if self.slot[gi] != 0:
                self.counts.pool_hands += 1
                self.counts.learner_score += 0.5 if w < 0 else float(w == self.side[gi])
        self.counts.hands += len(ge)
        self.active = active[~ended]
        return np.array(keys, np.int64), np.array(rewards, np.float64)


def collect(env: SelfPlayEnv, policy: Any, *, seed: int | list[int]) -> Rollout:
    """One rollout: ``env`` reset from ``seed``, its ``rounds`` hands played with the
    learner's moves sampled from ``policy`` ((k, D) observations and (k, 85) masks to
    masked logits, ``PolicyNet.masked_logits``); see the module docstring."""
    rec: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "priv", "mask", "action", "logp", "key")}
    final_reward: dict[int, float] = {}
    t_env = t_pol = 0.0
    t0 = time.perf_counter()
    d = env.reset(seed=seed)
    while True:
        final_reward.update(zip(d.ended_key.tolist(), d.ended_reward.tolist(), strict=True))
        if env.finished:
            break
        t1 = time.perf_counter()
        t_env += t1 - t0
        with torch.no_grad():
            logits = policy(torch.from_numpy(env.float_view(d.obs)), torch.from_numpy(d.mask))
        action, logp = sample_masked(logits, env.rng)
        c = d.choice  # forced moves are played, not learned
        for k, v in (("obs", d.obs), ("mask", d.mask), ("action", action), ("logp", logp), ("key", d.key)):
            rec[k].append(v[c])
        rec["priv"].append(d.priv)  # already of the choices only
        t0 = time.perf_counter()
        t_pol += t0 - t1
        d = env.step(action)
    t_env += time.perf_counter() - t0
    cat = {k: np.concatenate(v) if v else np.zeros((0,)) for k, v in rec.items()}
    order = np.argsort(cat["key"], kind="stable")  # trajectories, in time order within each
    key = cat["key"][order]
    done = np.ones(len(key), bool)
    done[:-1] = key[1:] != key[:-1]
    reward_arr = np.zeros(len(key), np.float32)
    reward_arr[done] = [final_reward[int(k)] for k in key[done]]
    return Rollout(
        obs=cat["obs"][order],
        obs_scale=env.observation_scale,
        priv=cat["priv"][order],
        mask=cat["mask"][order],
        action=cat["action"][order].astype(np.int64),
        logp=cat["logp"][order].astype(np.float32),
        reward=reward_arr,
        done=done,
        **dataclasses.asdict(env.counts),
        env_seconds=t_env,
        policy_seconds=t_pol,
    )


# ---------------------------------------------------------------------------- shards
@dataclass(frozen=True)
class RolloutSettings:
    """What every rollout of a run plays (the trainer's settings of the same names):
    ``num_games`` games of ``rules``, ``rounds`` hands each, paid ``reward``; ``relabel``
    and ``partners``: :class:`SelfPlayEnv`'s (``partners``: the partner pool's weights,
    ``((self, 1.0),)`` when the learner is its own partner)."""

    rules: Rules
    num_games: int
    rounds: int = 1
    reward: tuple[tuple[RewardKind, float], ...] = ()
    relabel: bool = False
    partners: tuple[tuple[str, float], ...] = ((SELF, 1.0),)


@dataclass(frozen=True)
class RolloutTask:
    """One shard of a rollout, everything it needs in a picklable value: the games it
    plays, its seeds, the policy's weights and the opponent pool's contents."""

    settings: RolloutSettings  # num_games: this shard's share
    env_seed: tuple[int, ...]  # deals the shard's hands (SelfPlayEnv.reset's ``seed``)
    rng_seed: tuple[int, ...]  # seeds the opponents, then draws them and samples moves
    model_config: dict[str, Any]
    model: dict[str, np.ndarray]
    pool_weights: tuple[tuple[str, float], ...]
    max_snapshots: int
    pool_state: dict[str, Any]


def shard_tasks(
    settings: RolloutSettings, policy: PolicyNet, pool: OpponentPool, *, shards: int, seed: Sequence[int]
) -> list[RolloutTask]:
    """The rollout seeded by ``seed`` as ``shards`` tasks of ``num_games / shards`` games
    (the first ones take the remainder), playing ``policy``'s weights copied to the CPU
    (wherever the learner keeps it: the rollouts run on the CPU's batched engine). One
    shard has the seeds an unsharded rollout of ``seed`` always had; shard ``w`` of
    several appends ``w`` to them."""
    num_games = settings.num_games
    base = [num_games // shards + (w < num_games % shards) for w in range(shards)]
    if min(base) < 1:
        raise ValueError(f"{num_games} games cannot be split over {shards} shards")
    weights = _numpy(policy.state_dict())
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
                settings=dataclasses.replace(settings, num_games=n),
                env_seed=(*seed, 1, *tail),
                rng_seed=(*seed, *tail),
                model_config=policy.config(),
                model=weights,
                pool_weights=tuple(pool.weights.items()),
                max_snapshots=pool.max_snapshots,
                pool_state=pool_state,
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
    rs = task.settings
    key = (rs.rules, rs.num_games)
    if key not in _ENVS:
        _ENVS[key] = VectorEnv(
            rs.rules, num_envs=rs.num_games, autoreset_mode=AutoresetMode.SAME_STEP, final_obs=False, copy=False,
            obs_dtype="uint8",
        )  # fmt: skip

    def frozen(sd: StateDict) -> PolicyNet:
        net = PolicyNet(**task.model_config, players=rs.rules.players)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in sd.items()})
        return net.eval()

    pool = OpponentPool(dict(task.pool_weights), task.max_snapshots)
    pool.load_state(task.pool_state)
    rng = np.random.default_rng(list(task.rng_seed))
    opponents = pool.policies(rs.rules, rng, frozen)
    partners = None
    if any(w > 0 for kind, w in rs.partners if kind != SELF):  # else the learner is its own partner
        partner_pool = OpponentPool(dict(rs.partners), task.max_snapshots)
        partner_pool.load_state(task.pool_state)  # the opponents' snapshots and warm start
        partners = Partners(partner_pool, partner_pool.policies(rs.rules, rng, frozen))
    policy = frozen(task.model)
    env = SelfPlayEnv(
        _ENVS[key], pool, opponents, rng=rng, rounds=rs.rounds, reward=dict(rs.reward), relabel=rs.relabel,
        partners=partners,
    )  # fmt: skip
    # one torch thread wherever the shard runs: a matmul's sums are ordered by its
    # threads, and the log-probabilities (and, rarely, a sampled move) with them
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad(), cycle_collection_paused():
            return collect(env, policy.masked_logits, seed=list(task.env_seed))
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
