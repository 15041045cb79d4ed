"""End-to-end training throughput against the raw AEC env, measured in the same process.

    python benchmarks/train_speed.py [--config dehla] [--updates 6] [--steps 20000]

Runs the trainer's own loop (``agents.train.main``, what ``dehla-train`` runs) from the config for ``--updates`` PPO
updates, without the warm start, evaluation or snapshots (they are not per-decision
costs), in a temporary run directory; then the raw env's random-legal loop of
``benchmarks/env_speed.py`` on the same ruleset. Prints where training's time went,
the decisions per second of each, and, last, their ratio (``ratio 0.31``): training
decisions (every seat's, as the env counts them) per second of rollout plus update,
over the raw env's decisions per second.

The figures are those of a run's updates once it is going, what a run of hundreds of
updates spends its time on: a run of one update goes first, untimed (it builds the
thread pools, compiles the kernels and warms the caches), and then two runs are timed,
of one update and of ``1 + --updates``; the rates are of their difference. Each run
starts its own rollout workers, and a worker's first shard also imports torch and
builds its env (about 1.7 s on a 2-core machine, as long as a warm update's rollout):
the difference leaves that out, where one timed run of a few updates counted it as
training time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from env_speed import aec_loop  # noqa: E402

from agents import train  # noqa: E402
from dehla_env import raw_env  # noqa: E402


def run_training(config: str, updates: int, out_dir: str, extra: list[str]) -> dict:
    """One training run of ``updates`` updates; its closing summary (the trainer's JSON)."""
    args = ["--config", config]
    for item in (
        "imitation_hands=0",
        "eval_every=0",
        "snapshot_every=0",
        f"updates={updates}",
        "checkpoint_every=1000000",
        f"runs_dir={out_dir}",
        *extra,
    ):
        args += ["--override", item]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train.main(args)
    if rc != 0:
        raise SystemExit(f"dehla-train exited {rc}:\n{buf.getvalue()}")
    return json.loads(buf.getvalue().strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="dehla")
    p.add_argument("--updates", type=int, default=6)
    p.add_argument("--steps", type=int, default=20000, help="raw env decisions per repeat")
    p.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    cli = p.parse_args()
    a = train.load_args(cli.config, cli.override)
    with tempfile.TemporaryDirectory() as tmp:
        run_training(cli.config, 1, tmp + "/warm", cli.override)  # untimed: see the module docstring
        first = run_training(cli.config, 1, tmp + "/first", cli.override)
        full = run_training(cli.config, 1 + cli.updates, tmp + "/full", cli.override)
    per = {k: full["seconds"][k] - first["seconds"][k] for k in full["seconds"]}
    decisions = float(full["decisions"] - first["decisions"])
    train_rate = decisions / (per["rollout"] + per["update"])
    randoms = np.random.default_rng(0).random(cli.steps * 2).tolist()
    raw = max(aec_loop(raw_env, a.rules, dict(a.rule_options), cli.steps, 0, randoms) for _ in range(3))
    total = per["rollout"] + per["update"]
    setup = f"{a.num_games} games x {a.rounds} hands per update, {cli.updates} updates"
    print(f"ruleset {a.rules} {a.rule_options or ''}; {setup}; opponents {a.opponents}")
    print(f"{'where the time goes':28s}{'seconds':>10s}{'share':>8s}")
    shards = max(1, a.num_workers)
    rows = [(f"rollout ({shards} shards)", per["rollout"]), ("PPO update", per["update"])]
    for name, sec in rows:
        print(f"{name:28s}{sec:10.2f}{sec / total:8.1%}")
    inside = per["env"] + per["policy_forward"]  # summed over the shards, which run side by side
    print(
        f"inside the shards: env and opponents {per['env'] / inside:.0%}, "
        f"policy forward {per['policy_forward'] / inside:.0%} ({inside:.2f} s of shard time)"
    )
    print(f"rollout decisions/s   {decisions / per['rollout']:12,.0f}")
    print(f"training decisions/s  {train_rate:12,.0f}  (rollout + update)")
    print(f"raw_env decisions/s   {raw:12,.0f}  (random legal play, observation every step, same process)")
    print(f"ratio {train_rate / raw:.2f}")


if __name__ == "__main__":
    main()
