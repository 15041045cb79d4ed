"""Training: the quick config's smoke run, interruption and resume, the policy agent."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def _train(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "train.py", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw
    )


def _run_dir(base: Path) -> Path:
    dirs = [d for d in base.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


QUICK = ["--config", "configs/quick.yaml", "--override", "eval_every=0", "--override", "num_workers=0"]


def test_quick_config_smoke_run_writes_checkpoints_logs_and_config(tmp_path: Path) -> None:
    distill = ["--override", "distill_teacher=search:k=2,depth=2", "--override", "distill_hands=2"]
    proc = _train([*QUICK, *distill, "--override", f"runs_dir={tmp_path}"])
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    summary = json.loads(out.strip().splitlines()[-1])
    run = _run_dir(tmp_path)
    assert summary["updates"] == 3 and summary["decisions"] > 0
    assert (run / "config.yaml").exists() and (run / "policy.pt").exists()
    assert any(p.name.startswith("events.out.tfevents") for p in run.iterdir())
    ckpt = torch.load(run / "checkpoint.pt", weights_only=False)
    assert {"model", "critic", "optimizer", "rng", "update", "snapshots"} <= set(ckpt)
    assert ckpt["update"] == 3
    assert ckpt["distill_done"] and "distillation epoch 1/" in out


def test_a_killed_run_resumes_to_the_same_weights_as_an_uninterrupted_one(tmp_path: Path) -> None:
    """Checkpoints carry model, critic, optimiser, RNG and counters: kill, resume, same result."""
    settings = [*QUICK, "--override", "updates=4"]
    straight = tmp_path / "straight"
    p = _train([*settings, "--override", f"runs_dir={straight}"])
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, out

    broken = tmp_path / "broken"
    p = _train([*settings, "--override", f"runs_dir={broken}"])
    deadline = time.time() + 240
    ckpt_path = None
    while time.time() < deadline:  # wait for the first PPO checkpoint, then kill the run
        runs = [d for d in broken.iterdir() if d.is_dir()] if broken.exists() else []
        if runs and (runs[0] / "checkpoint.pt").exists():
            ckpt_path = runs[0] / "checkpoint.pt"
            try:
                if torch.load(ckpt_path, weights_only=False)["update"] >= 1:
                    break
            except Exception:  # being written
                pass
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    run = _run_dir(broken)
    stopped_at = torch.load(run / "checkpoint.pt", weights_only=False)["update"]
    assert 1 <= stopped_at <= 4, out
    p = _train(["--resume", str(run)])
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, out
    if stopped_at < 4:
        assert "resumed" in out
    a = torch.load(_run_dir(straight) / "checkpoint.pt", weights_only=False)
    b = torch.load(run / "checkpoint.pt", weights_only=False)
    assert a["update"] == b["update"] == 4
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_a_resume_with_an_overridden_learning_rate_trains_at_that_rate(tmp_path: Path) -> None:
    """The optimiser's saved state must not keep the old rate (it did once)."""
    p = _train([*QUICK, "--override", "updates=1", "--override", f"runs_dir={tmp_path}"])
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, out
    run = _run_dir(tmp_path)
    p = _train(["--resume", str(run), "--override", "updates=2", "--override", "learning_rate=0.000123"])
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, out
    ckpt = torch.load(run / "checkpoint.pt", weights_only=False)
    assert ckpt["update"] == 2
    assert all(g["lr"] == 0.000123 for g in ckpt["optimizer"]["param_groups"])
    assert "learning_rate=0.000123" in (run / "resumes.log").read_text()


@pytest.mark.parametrize("ruleset", ["dehla"])
def test_shipped_checkpoint_plays_as_an_agent(ruleset: str) -> None:
    path = ROOT / "agents" / "checkpoints" / f"{ruleset}.pt"
    if not path.exists():
        pytest.skip(f"{path} not shipped")
    from agents.arena import run_duel
    from dehla_env import make_rules

    result = run_duel(make_rules(ruleset), f"policy:{path}", "easy", deals=60, seed=3, workers=1)
    assert result.win_rate.low > 0.5


def test_shipped_policy_plays_seats_in_the_gymnasium_wrapper() -> None:
    """The learner's partner and opponents given as agent specs, the policy among them."""
    import gymnasium

    import dehla_env.wrappers  # noqa: F401  (registers the ids)

    path = ROOT / "agents" / "checkpoints" / "dehla.pt"
    if not path.exists():
        pytest.skip(f"{path} not shipped")
    env = gymnasium.make("DehlaPakad-v0", opponents="hard", partner=f"policy:{path}")
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)
    from agents.policy import PolicyAgent

    assert isinstance(env.unwrapped._policies[2], PolicyAgent)


def test_policy_export_to_torchscript_and_onnx(tmp_path: Path) -> None:
    from agents.policy import PolicyNet, export_onnx, export_torchscript
    from dehla_env import make_rules
    from dehla_env.encoding import observation_size

    rules = make_rules("dehla")
    net = PolicyNet(observation_size(rules), (32,))
    ckpt = tmp_path / "p.pt"
    torch.save(
        {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla", "options": {}}}, ckpt
    )
    ts = export_torchscript(ckpt, tmp_path / "p.ts")
    x = torch.rand(3, net.obs_size)
    assert torch.allclose(torch.jit.load(str(ts))(x), net(x), atol=1e-6)
    try:
        export_onnx(ckpt, tmp_path / "p.onnx")
    except ImportError as e:  # the onnx package is optional
        pytest.skip(str(e))
    assert (tmp_path / "p.onnx").stat().st_size > 0
