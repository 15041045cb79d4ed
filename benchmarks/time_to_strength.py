"""Strength per minute of training: how many minutes of a recipe's run its network needs
to first win a target share of hands against an opponent, and its learning curve.

    python benchmarks/time_to_strength.py --config dehla [--minutes 22] [--every 1]
        [--target 0.65] [--against hard] [--deals 2000] [--screen-deals 400] [--seed 7]
        [--workers 2] [--out-dir DIR] [--run-dir DIR] [--json FILE] [--override KEY=VALUE ...]
    python benchmarks/time_to_strength.py --config dehla --override init_policy=dehla-direct

The run is the trainer itself (``dehla-train --config CONFIG``, in this process) for a
budget of ``--minutes`` of its wall time (``time_budget_minutes``; the warm start
counts), with its own evaluations off (``eval_every: 0``) and a copy of its policy kept
every ``--every`` minutes (``keep_policy_minutes``): the first right after the warm
start, then after the first update past each mark. The minutes are the trainer's clock,
which starts once the workers are up (the seconds before it, imports and starting the
workers, are printed and recorded as ``startup_seconds``).

Once training is over, outside its clock, the arena plays every kept policy against
``--against`` on the first ``--screen-deals`` duplicate deals of ``--seed``: the learning
curve. Then, in order of minutes, each kept policy whose screening interval reaches
``--target`` plays all ``--deals`` deals, until one's share is at least the target: its
minutes are the figure (none if no kept policy gets there). The last kept policy also
plays all ``--deals``. Each line printed is a share of hands won with the arena's 95%
interval over deals; ``--json`` writes them all, with the machine's load average as the
run ended (none with ``--run-dir``) and the sha256 of the shipped networks the run started from or played.

``--run-dir DIR`` evaluates the kept policies of a run already trained (with these
settings) instead of training; ``--override KEY=VALUE`` passes a trainer setting on top
of the config (a warm start from another ruleset's shipped network, a learning rate).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents import train  # noqa: E402
from agents.nets.policy import read_checkpoint  # noqa: E402
from agents.playing.run import run_duel  # noqa: E402
from agents.playing.stats import Estimate  # noqa: E402
from agents.training.runs import config_file, load_settings  # noqa: E402
from benchmarks.exploitability import command_line, point, report, shipped_networks  # noqa: E402
from dehla_env.rules import Rules  # noqa: E402


def trainer_settings(a: argparse.Namespace) -> list[str]:
    """The trainer's ``--override`` settings on top of ``--config``."""
    return [
        f"runs_dir={a.out_dir}",
        f"time_budget_minutes={a.minutes}",
        "eval_every=0",
        f"keep_policy_minutes={a.every}",
        *a.override,
    ]


def run(a: argparse.Namespace) -> tuple[Path, float]:
    """Train; the run's directory and the seconds before the trainer's clock started."""
    argv = ["--config", a.config] + [w for s in trainer_settings(a) for w in ("--override", s)]
    t0 = time.time()
    code = train.main(argv)
    if code:
        raise SystemExit(f"the trainer exited with status {code}")
    (run_dir,) = Path(a.out_dir).glob("*__*")
    minutes = float(read_checkpoint(run_dir / "checkpoint.pt")["elapsed"]) / 60
    return run_dir, round(time.time() - t0 - minutes * 60, 1)


def kept_policies(run_dir: Path) -> list[dict[str, Any]]:
    """The run's kept policies in order of minutes: file, minutes, update."""
    kept = []
    for path in (run_dir / "policies").glob("update-*.pt"):
        ckpt = read_checkpoint(path)
        kept.append({"policy": str(path), "minutes": round(float(ckpt["minutes"]), 2), "updates": int(ckpt["update"])})
    if not kept:
        raise SystemExit(f"{run_dir}/policies holds no kept policy (was keep_policy_minutes set?)")
    return sorted(kept, key=lambda k: (k["minutes"], k["updates"]))


def share(rules: Rules, policy: str, deals: int, a: argparse.Namespace) -> Estimate:
    """The arena's share of hands the kept policy wins against ``--against`` on ``deals`` deals of ``--seed``."""
    return run_duel(rules, f"policy:{policy}", a.against, deals, a.seed, workers=a.workers).win_rate


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--config", required=True, help="the recipe: a shipped config's name or a YAML file")
    parser.add_argument("--minutes", type=float, default=22.0, help="training budget (the trainer's clock)")
    parser.add_argument("--every", type=float, default=1.0, help="minutes between kept policies")
    parser.add_argument("--target", type=float, default=0.65, help="the share of hands to reach")
    parser.add_argument("--against", default="hard", help="agent spec the policies play (default: hard)")
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals deciding the figure")
    parser.add_argument("--screen-deals", type=int, default=400, help="duplicate deals of the learning curve")
    parser.add_argument("--seed", type=int, default=7, help="the arena's seed (deals and agents)")
    parser.add_argument("--workers", type=int, default=2, help="arena processes")
    parser.add_argument("--out-dir", help="where the run goes (default: runs/time-to-strength-...)")
    parser.add_argument("--run-dir", help="evaluate this finished run's kept policies instead of training")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--override", action="append", default=[], help="a trainer setting KEY=VALUE")
    a = parser.parse_args(argv)
    if a.minutes <= 0 or a.every <= 0 or min(a.deals, a.screen_deals) < 1 or not 0 < a.target < 1:
        parser.error("--minutes, --every, --deals and --screen-deals must be positive, --target a share in (0, 1)")
    settings = load_settings(train.Args, config_file(a.config), a.override)
    rules = train.run_rules(settings.rules, settings.rule_options)
    if a.run_dir:
        run_dir, startup = Path(a.run_dir), None
    else:
        a.out_dir = a.out_dir or f"runs/time-to-strength-{settings.run_name}-{time.strftime('%Y%m%d-%H%M%S')}"
        if Path(a.out_dir).exists() and any(Path(a.out_dir).iterdir()):
            parser.error(f"--out-dir {a.out_dir} is not empty")
        run_dir, startup = run(a)
        print(f"trained in {run_dir} ({startup} s before the trainer's clock started)", flush=True)
    load = None if a.run_dir else round(os.getloadavg()[0], 1)  # the last minute of training
    kept = kept_policies(run_dir)

    curve = []
    for k in kept:
        est = share(rules, k["policy"], a.screen_deals, a)
        print(f"minute {k['minutes']} ({k['updates']} updates): {est} over {a.screen_deals} deals", flush=True)
        curve.append(point(k["minutes"], k["updates"], est, a.screen_deals))
    reached, confirmed = None, []
    for k, c in zip(kept, curve, strict=True):
        if c["interval"][1] < a.target:
            continue
        est = share(rules, k["policy"], a.deals, a)
        print(f"minute {k['minutes']} ({k['updates']} updates): {est} over {a.deals} deals", flush=True)
        confirmed.append({**point(k["minutes"], k["updates"], est, a.deals), "policy": k["policy"]})
        if est.value >= a.target:
            reached = confirmed[-1]
            break
    last = kept[-1]
    if not confirmed or confirmed[-1]["policy"] != last["policy"]:
        est = share(rules, last["policy"], a.deals, a)
        print(f"minute {last['minutes']} (the last kept policy): {est} over {a.deals} deals", flush=True)
        confirmed.append({**point(last["minutes"], last["updates"], est, a.deals), "policy": last["policy"]})
    out = {
        "command": command_line("benchmarks/time_to_strength.py", argv),
        "rules": rules.name,
        "options": settings.rule_options,
        "config": a.config,
        "against": a.against,
        "target": a.target,
        "seed": a.seed,
        "deals": a.deals,
        "minutes_to_target": None if reached is None else reached["minutes"],
        "figure": (reached or confirmed[-1])["figure"],
        "interval": (reached or confirmed[-1])["interval"],
        "policy": (reached or confirmed[-1])["policy"],
        "training": {
            "seed": settings.seed,
            "budget_minutes": a.minutes,
            "minutes": last["minutes"],
            "updates": last["updates"],
            "startup_seconds": startup,
            "overrides": a.override,
            "load": load,
            "cpus": os.cpu_count(),
        },
        "curve": curve,
        "confirmed": confirmed,
        "checkpoints": shipped_networks(a.against, *(f"policy:{v}" for v in [settings.init_policy] if v)),
    }
    return report(out, a.json)


if __name__ == "__main__":
    main()
