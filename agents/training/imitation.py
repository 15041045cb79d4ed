"""The imitation warm start: record a teacher bot's self-play, fit the policy to its moves.

The teacher is any agent spec (``hard`` by default), a scalar view-based bot, so its
hands are recorded in worker processes (:class:`~agents.training.workers.Workers`):
each :class:`TeacherTask` plays its hands from its own seed, and every decision with
more than one legal move is kept with the observation, the privileged critic features,
the mask, the teacher's move and the seat's final reward
(:func:`dehla_env.rewards.last_hand_side0_reward`, as the AEC env pays it).

:func:`fit` trains the policy by cross-entropy on the moves and the critic by regression
on the rewards, each minibatch under one random suit relabelling
(:mod:`dehla_env.augment`): the teacher's play is symmetric in the suits, and the
relabelling multiplies the data by 24.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.nets.policy import PolicyNet, ValueNet
from agents.playing.loop import play, sampled
from agents.registry import make_agent
from agents.training.runs import Stop
from dehla_env.augment import ALL_PERMUTATIONS, privileged_permutation, suit_permutation_maps
from dehla_env.encoding import ObservationEncoder, privileged_features
from dehla_env.engine import MatchState
from dehla_env.rewards import last_hand_side0_reward, reward_weights
from dehla_env.rules import Rules
from dehla_env.seats import side_of
from dehla_env.view import PlayerView


@dataclass(frozen=True)
class TeacherTask:
    """``hands`` hands of ``teacher`` self-play from ``seed`` (what a worker is sent)."""

    rules: Rules
    teacher: str
    seed: tuple[int, ...]
    hands: int
    reward: tuple[tuple[str, float], ...]


def teacher_tasks(
    rules: Rules, teacher: str, seed: int, hands: int, reward: Mapping[str, float], *, workers: int
) -> list[TeacherTask]:
    """The warm start's ``hands`` cut into eight tasks per worker, each from its own seed
    (small results: a worker's whole share pickled back at once ran out of memory)."""
    n_tasks = 8 * max(1, workers)
    counts = [hands // n_tasks + (w < hands % n_tasks) for w in range(n_tasks)]
    return [
        TeacherTask(rules, teacher, (seed, 10**6, w), counts[w], tuple(reward.items()))
        for w in range(n_tasks)
        if counts[w]
    ]


def record(run_map: Callable[..., list[dict[str, np.ndarray]]], tasks: list[TeacherTask]) -> dict[str, np.ndarray]:
    """Every task's decisions (``run_map(record_teacher, tasks)``: the workers' map), in
    one set of arrays, concatenated one field at a time so that memory holds one extra
    copy of a field, not of everything."""
    print(f"imitation: recording {sum(t.hands for t in tasks)} hands of {tasks[0].teacher} self-play", flush=True)
    t0 = time.time()
    parts = run_map(record_teacher, tasks)
    data = {k: np.concatenate([p.pop(k) for p in parts]) for k in list(parts[0])}
    print(f"imitation data: {len(data['action'])} decisions in {time.time() - t0:.0f}s", flush=True)
    return data


def record_teacher(task: TeacherTask) -> dict[str, np.ndarray]:
    """Play the task's hands; every decision with a choice, and the seat's reward."""
    rules = task.rules
    weights = reward_weights(dict(task.reward), rules)
    rng = np.random.default_rng(list(task.seed))
    rows: dict[str, list] = {"obs": [], "priv": [], "mask": [], "action": [], "ret": []}
    for _ in range(task.hands):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)  # the deal, before the teachers draw their seeds
        bots = [make_agent(task.teacher, rules, seed=int(rng.integers(2**31))) for _ in range(rules.players)]
        seats = _teach_hand(match, bots, rng, rows)
        side0 = last_hand_side0_reward(weights, match)
        rows["ret"].extend(side0 if side_of(s) == 0 else -side0 for s in seats)
    return {
        "obs": np.stack(rows["obs"]).astype(np.float32),
        "priv": np.stack(rows["priv"]).astype(np.float32),
        "mask": np.stack(rows["mask"]),
        "action": np.array(rows["action"], np.int64),
        "ret": np.array(rows["ret"], np.float32),
    }


def _teach_hand(match: MatchState, bots: list[Agent], rng: np.random.Generator, rows: dict[str, list]) -> list[int]:
    """Play the hand out with ``bots``; each decision with a choice is added to ``rows``.
    Returns the seat of each recorded decision."""
    enc = ObservationEncoder(match.rules)
    seats: list[int] = []

    def teach(seat: int, view: PlayerView) -> int:
        a = bots[seat].act(view)
        if len(view.legal_actions) > 1:
            rows["obs"].append(enc.encode(match, seat))
            rows["priv"].append(privileged_features(match, seat))
            rows["mask"].append(match.legal_mask())
            rows["action"].append(a)
            seats.append(seat)
        return a

    play(match, teach, sampled(rng))
    return seats


@dataclass(frozen=True)
class FitSettings:
    """The warm start's fit: ``epochs`` passes over the data in minibatches of
    ``minibatch_size``, the critic's loss weighted by ``vf_coef``; ``fit_policy`` false:
    the critic only (a policy started from trained weights keeps them; its critic learns
    what the teacher's hands are worth before PPO reads its advantages). ``bf16``: the
    passes in bfloat16 autocast, as the PPO update's (the trainer's ``bf16_update``)."""

    players: int
    epochs: int = 4
    minibatch_size: int = 4096
    vf_coef: float = 0.5
    fit_policy: bool = True
    bf16: bool = False


def fit(
    policy: PolicyNet,
    critic: ValueNet,
    opt: torch.optim.Optimizer,
    data: Mapping[str, np.ndarray],
    s: FitSettings,
    *,
    gen: torch.Generator,
    stop: Stop,
    log: Callable[[str, float, int], None],
) -> float:
    """Fit by cross-entropy (policy) and regression (critic) on the networks' device
    (minibatches are moved there); returns the last epoch's accuracy. ``log(tag, value,
    step)`` receives the losses."""
    dev = next(policy.parameters()).device
    players, epochs, minibatch_size, fit_policy = s.players, s.epochs, s.minibatch_size, s.fit_policy
    obs, priv, mask, act, ret = (torch.from_numpy(data[k]) for k in ("obs", "priv", "mask", "action", "ret"))
    n = len(act)
    step = 0
    accuracy = 0.0
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        correct = 0.0
        for start in range(0, n, minibatch_size):
            stop.check()
            mb = perm[start : start + minibatch_size]
            suits = ALL_PERMUTATIONS[int(torch.randint(len(ALL_PERMUTATIONS), (1,), generator=gen))]
            oi, mi, af = suit_permutation_maps(suits, players)
            o, m, y = obs[mb][:, oi].to(dev), mask[mb][:, mi].to(dev), torch.from_numpy(af)[act[mb]].to(dev)
            c = priv[mb][:, torch.from_numpy(privileged_permutation(suits, players))].to(dev)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=s.bf16):
                with torch.set_grad_enabled(fit_policy):
                    logits = policy.masked_logits(o, m).float()
                    ce = nn.functional.cross_entropy(logits, y)
                value = critic(torch.cat([o, c], -1)).float()
            vloss = 0.5 * ((value - ret[mb].to(dev)) ** 2).mean()
            loss = (ce if fit_policy else 0.0) + s.vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += float((logits.argmax(-1) == y).float().sum())
            log("imitation/cross_entropy", ce.item(), step)
            log("imitation/value_loss", vloss.item(), step)
            step += 1
        accuracy = correct / n
        log("imitation/accuracy", accuracy, epoch)
        print(f"imitation epoch {epoch + 1}/{epochs}: accuracy {accuracy:.3f}", flush=True)
    return accuracy
