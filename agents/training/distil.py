"""A small playout network distilled from a trained policy (for ``batched-search``).

The batched search plays every world out with a network, one forward pass per step for
the whole batch; with the shipped ``dehla`` policy (1,042 inputs: the observation and
the card-counting features, hidden 512 and 256) those passes are half of a decision's
time. A playout needs the teacher's moves, not its size: a small network trained to
give the teacher's move distribution in the positions the teacher reaches plays the
worlds out nearly as well, for a fraction of the cost.

1. **Positions**: the teacher plays every seat of ``num_games`` games on the vector env
   (moves sampled from its distribution, a share ``explore`` of them uniformly random
   so that positions off its path are seen too); each decision's observation (uint8
   codes), legal mask and the teacher's move probabilities are kept.
2. **Fit**: the student (:class:`~agents.nets.policy.PolicyNet`, hidden ``hidden``, without
   the card features unless asked) minimises the cross-entropy to the teacher's
   probabilities over the legal moves; ``holdout`` positions drawn at random and kept
   out of the fit measure how often its top move is the teacher's.
3. The student is saved as a play checkpoint of the teacher's ruleset, so it is
   ``policy:PATH`` (or ``policy:NAME`` once shipped) everywhere.

Usage::

    python -m agents.training.distil --teacher dehla --out agents/checkpoints/dehla-playout.pt
    python -m agents.arena --rules dehla --b hard --deals 2000 --seed 7 \\
        --a batched-search:playout=policy:dehla-playout,k=48,depth=5
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.policy import PolicyNet, load_policy, policy_checkpoint
from agents.registry import policy_path
from agents.training.runs import Interrupted, Stop, parse_command_line, save_checkpoint
from dehla_env.actions import NUM_ACTIONS
from dehla_env.vector import vector_env


@dataclass
class Settings:
    """Distil a trained policy into a small playout network."""

    teacher: str = "dehla"
    """the policy to imitate: a shipped name or a checkpoint path"""
    out: str = "runs/playout.pt"
    """the play checkpoint to write"""
    positions: int = 2_000_000
    """teacher decisions to learn from"""
    hidden: tuple[int, ...] = field(default=(128, 64))
    """the student's hidden layer sizes"""
    card_features: bool = False
    """give the student the card-counting features too (they cost a playout step more)"""
    explore: float = 0.1
    """share of the teacher's moves replaced by a uniformly random legal one"""
    num_games: int = 2048
    """games played side by side while collecting"""
    epochs: int = 6
    minibatch_size: int = 2048
    learning_rate: float = 2e-3
    """peak of the one-cycle schedule"""
    holdout: int = 20_000
    """positions drawn at random and kept out of the fit, to measure the agreement"""
    seed: int = 0


@dataclass
class Positions:
    """The teacher's decisions: observations as the vector env's uint8 codes (``codes /
    scale`` is the float observation), legal masks, the teacher's move probabilities."""

    codes: np.ndarray
    masks: np.ndarray
    probs: np.ndarray
    scale: np.ndarray

    def batch(self, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = torch.from_numpy(self.codes[rows]).float() / torch.from_numpy(self.scale)
        return x, torch.from_numpy(self.masks[rows]), torch.from_numpy(self.probs[rows].astype(np.float32))


def collect(teacher: PolicyNet, rules: Any, s: Settings, stop: Stop) -> Positions:
    """Play ``s.positions`` decisions of teacher self-play; see the module docstring."""
    env = vector_env(
        rules, num_envs=s.num_games, seed=s.seed, obs_dtype="uint8", autoreset_mode="same_step",
        final_obs=False, copy=False,
    )  # fmt: skip
    scale = env.observation_scale.copy()
    codes = np.empty((s.positions, env.observation_size), np.uint8)
    masks = np.empty((s.positions, NUM_ACTIONS), bool)
    probs = np.empty((s.positions, NUM_ACTIONS), np.float16)
    rng = np.random.default_rng([s.seed, 1])
    gen = torch.Generator().manual_seed(s.seed)
    obs, info = env.reset(seed=s.seed)
    n = 0
    with torch.no_grad():
        while n < s.positions:
            stop.check()
            mask = info["action_mask"]
            x = torch.from_numpy(obs).float() / torch.from_numpy(scale)
            p = torch.softmax(teacher.masked_logits(x, torch.from_numpy(mask)), -1)
            k = min(len(obs), s.positions - n)
            codes[n : n + k], masks[n : n + k], probs[n : n + k] = obs[:k], mask[:k], p[:k].numpy()
            n += k
            actions = torch.multinomial(p, 1, generator=gen)[:, 0].numpy()
            explore = np.flatnonzero(rng.random(len(actions)) < s.explore)
            for i in explore:
                actions[i] = rng.choice(np.flatnonzero(mask[i]))
            obs, _r, _t, _tr, info = env.step(actions)
    return Positions(codes, masks, probs, scale)


def cross_entropy(student: PolicyNet, x: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the student's masked move distribution to ``target``."""
    logp = torch.log_softmax(student.masked_logits(x, mask), -1)
    return -(target * logp.masked_fill(~mask, 0.0)).sum(-1).mean()


def agreement(student: PolicyNet, data: Positions, rows: np.ndarray) -> tuple[float, float]:
    """How often the student's top move is the teacher's, and the cross-entropy, on ``rows``."""
    with torch.no_grad():
        x, m, p = data.batch(rows)
        top = student.masked_logits(x, m).argmax(-1) == p.argmax(-1)
        return float(top.float().mean()), float(cross_entropy(student, x, m, p))


def fit(student: PolicyNet, data: Positions, s: Settings, stop: Stop) -> list[dict[str, float]]:
    """Minibatch Adam with a one-cycle learning rate; per epoch the hold-out figures."""
    rng = np.random.default_rng([s.seed, 2])
    order = rng.permutation(len(data.codes))  # games move in lockstep: hold out across all of them
    hold, train = np.sort(order[: s.holdout]), order[s.holdout :]
    steps = s.epochs * (len(train) // s.minibatch_size)
    opt = torch.optim.Adam(student.parameters(), lr=s.learning_rate)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=s.learning_rate, total_steps=max(steps, 1))
    curve = []
    for epoch in range(s.epochs):
        rng.shuffle(train)
        student.train()
        for start in range(0, len(train) - s.minibatch_size + 1, s.minibatch_size):
            stop.check()
            loss = cross_entropy(student, *data.batch(train[start : start + s.minibatch_size]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
        student.eval()
        agree, ce = agreement(student, data, hold)
        curve.append({"epoch": epoch + 1, "agreement": agree, "cross_entropy": ce})
        print(f"epoch {epoch + 1}/{s.epochs}: hold-out top move the teacher's {agree:.3f}, cross-entropy {ce:.4f}")
    return curve


def main(argv: list[str] | None = None) -> int:
    _cli, s, _changed = parse_command_line(Settings, argv, (Settings.__doc__ or "").strip())
    if s.positions <= s.holdout + s.minibatch_size:
        raise SystemExit(f"--positions {s.positions} leaves nothing to fit beside the {s.holdout} held out")
    out = Path(s.out)
    if not out.parent.is_dir():
        raise SystemExit(f"--out {out}: no folder {out.parent}")
    torch.manual_seed(s.seed)
    teacher, rules = load_policy(policy_path(s.teacher))
    stop = Stop()
    old = {sig: signal.signal(sig, stop.handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        t0 = time.time()
        data = collect(teacher, rules, s, stop)
        t1 = time.time()
        print(f"{s.positions} positions of {s.teacher} self-play in {t1 - t0:.0f} s", flush=True)
        student = PolicyNet(teacher.obs_size, s.hidden, s.card_features)
        curve = fit(student, data, s, stop)
        save_checkpoint(out, {**policy_checkpoint(student, rules), "distil": {**dataclasses.asdict(s), "curve": curve}})
        print(f"fitted in {time.time() - t1:.0f} s; wrote {out}")
    except Interrupted:
        print("stopped; nothing written (a run takes minutes: rerun it)", file=sys.stderr)
        return 130
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
