"""One PPO update of the trainer (``dehla-train``) in float32 and in bfloat16 autocast: its time per
minibatch step, the share of it in matrix products, and the arithmetic rate that implies.

    python benchmarks/update_speed.py [--config dehla] [--updates 2] [--compile]

The update is the trainer's own (``ppo.update`` with its ``ppo.Learner``, on the CPU) on a
synthetic rollout of the size a rollout of the config has (``num_games`` x ``rounds``
hands, the learner's half of each hand's decisions; sparse 0/1 observation codes, a few legal
actions): the inputs prepared once, the critic's values and GAE, then ``update_epochs``
passes of minibatches (masked logits, values, the clipped loss, backward, clipping,
Adam). Per step means the update's time over its minibatch steps, the once-per-update
work shared out. The matrix-product share comes from ``torch.profiler`` (``aten::mm``
and ``aten::addmm``); the floating-point operations counted are those of the linear
layers (forward, and backward for inputs and weights), so the rate says how close the
step is to the CPU's peak. ``--compile`` adds a third row: the bfloat16 update with the
policy's network and the critic under ``torch.compile`` (the untimed first update
compiles them), to see whether compiling pays on a machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from agents import train  # noqa: E402
from agents.nets.policy import PolicyNet, ValueNet  # noqa: E402
from agents.training import ppo  # noqa: E402
from agents.training.runs import Stop  # noqa: E402
from agents.training.selfplay import Rollout  # noqa: E402
from dehla_env.actions import NUM_ACTIONS  # noqa: E402
from dehla_env.encoding import observation_size, privileged_size  # noqa: E402
from dehla_env.rules import make_rules  # noqa: E402


def time_update(
    a: train.Args, rollout: Rollout, d: int, p: int, updates: int, compile_nets: bool = False
) -> tuple[float, float, float]:
    """Milliseconds per minibatch step of whole updates, the share of the profiled time in
    matrix products, and one step's linear-layer operations (forward, and backward for
    inputs and weights)."""
    policy = PolicyNet(d, tuple(a.hidden), a.card_features, a.arch)
    critic = ValueNet(d + p, tuple(a.critic_hidden or a.hidden), a.critic_arch)
    learner = ppo.Learner(policy, critic, a.learning_rate, torch.device("cpu"))
    if compile_nets:
        learner.policy.net = torch.compile(learner.policy.net)  # type: ignore[assignment]
        learner.critic = torch.compile(learner.critic)  # type: ignore[assignment]
    s = a.ppo_settings()
    gen = torch.Generator().manual_seed(0)
    steps = a.update_epochs * -(-len(rollout.action) // a.minibatch_size)
    ppo.update(learner, rollout, s, gen=gen, stop=Stop())
    t = time.perf_counter()
    for _ in range(updates):
        ppo.update(learner, rollout, s, gen=gen, stop=Stop())
    ms = (time.perf_counter() - t) / (updates * steps) * 1e3
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        ppo.update(learner, rollout, s, gen=gen, stop=Stop())
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    mm = sum(e.self_cpu_time_total for e in events if e.key in ("aten::mm", "aten::addmm"))
    layers = [m for net in (policy, critic) for m in net.modules() if isinstance(m, torch.nn.Linear)]
    flops = 3 * 2 * a.minibatch_size * sum(m.in_features * m.out_features for m in layers)
    return ms, mm / total, flops


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", default="dehla")
    parser.add_argument("--updates", type=int, default=2, help="timed updates per kind (after one untimed)")
    parser.add_argument("--compile", action="store_true", help="also time the bfloat16 update under torch.compile")
    args = parser.parse_args(argv)
    a = train.load_args(args.config, [])
    rules = make_rules(a.rules, dict(a.rule_options))
    d, p = observation_size(rules), privileged_size(rules)
    n = a.num_games * a.rounds * rules.hand_size * rules.players // 2
    rng = np.random.default_rng(0)
    mask = rng.random((n, NUM_ACTIONS)) < 0.1
    mask[:, 0] = True
    rollout = Rollout(
        obs=(rng.random((n, d)) < 0.05).astype(np.uint8),
        obs_scale=np.ones(d, np.float32),
        priv=(rng.random((n, p)) < 0.1).astype(np.uint8),
        mask=mask,
        action=np.zeros(n, np.int64),
        logp=np.full(n, -1.0, np.float32),
        reward=rng.choice([-1.0, 1.0], n).astype(np.float32),
        done=np.arange(n) % rules.hand_size == rules.hand_size - 1,
        decisions=2 * n,
        hands=n // rules.hand_size,
        learner_score=0.0,
        pool_hands=0,
        env_seconds=0.0,
        policy_seconds=0.0,
    )
    print(
        f"{args.config}: {n} samples, {a.update_epochs} epochs of minibatch {a.minibatch_size}, observation {d}, "
        f"hidden {list(a.hidden)}, {torch.get_num_threads()} threads"
    )
    print(f"{'update':13s}{'ms/step':>9s}{'matmul share':>14s}{'GFLOP/s':>9s}")
    kinds = [("float32", False, False), ("bfloat16", True, False)]
    if args.compile:
        kinds.append(("bf16+compile", True, True))
    for name, bf16, compile_nets in kinds:
        kind = dataclasses.replace(a, bf16_update=bf16)
        ms, share, flops = time_update(kind, rollout, d, p, args.updates, compile_nets)
        print(f"{name:13s}{ms:9.1f}{share:14.0%}{flops / ms / 1e6:9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
