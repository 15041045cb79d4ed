"""The playout network distilled from a policy (agents.training.distil): the recorded
targets are the teacher's move distribution, the fit learns it, and the command writes
a play checkpoint that the registry and ``batched-search`` take as ``policy:PATH``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.nets.policy import PolicyNet, load_policy
from agents.registry import make_agent, policy_path
from agents.training.distil import Settings, agreement, collect, fit, main
from agents.training.runs import Stop
from dehla_env.rules import make_rules

TINY = Settings(
    positions=3000, holdout=500, num_games=64, minibatch_size=250, epochs=1, hidden=(16,), learning_rate=5e-3
)


def test_the_targets_are_the_teachers_move_distribution_over_the_legal_moves() -> None:
    teacher, rules = load_policy(policy_path("dehla"))
    data = collect(teacher, rules, TINY, Stop())
    assert len(data.codes) == len(data.masks) == len(data.probs) == TINY.positions
    probs = data.probs.astype(np.float32)
    assert (probs[~data.masks] == 0).all()
    assert np.allclose(probs.sum(1), 1.0, atol=1e-2)  # float16
    x, m, _p = data.batch(np.arange(20))
    with torch.no_grad():
        again = torch.softmax(teacher.masked_logits(x, m), -1).numpy()
    assert np.allclose(again, probs[:20], atol=1e-3)


def test_fitting_moves_the_students_top_move_toward_the_teachers() -> None:
    torch.manual_seed(0)
    teacher, rules = load_policy(policy_path("dehla"))
    settings = Settings(**{**TINY.__dict__, "positions": 6000, "epochs": 8, "minibatch_size": 100})
    data = collect(teacher, rules, settings, Stop())
    student = PolicyNet(teacher.obs_size, (32,))
    hold = np.sort(np.random.default_rng([settings.seed, 2]).permutation(settings.positions)[: settings.holdout])
    before, _ce = agreement(student, data, hold)
    curve = fit(student, data, settings, Stop())
    # many positions leave one or two legal moves, where any network agrees: about 0.4
    assert curve[-1]["agreement"] > before + 0.1


def test_the_command_writes_a_playout_policy_for_the_teachers_ruleset(tmp_path: Path, capsys) -> None:
    out = tmp_path / "playout.pt"
    args = ["--out", str(out), "--positions", "3000", "--holdout", "500", "--num-games", "64"]
    assert main([*args, "--minibatch-size", "250", "--epochs", "1", "--hidden", "16"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    net, rules = load_policy(out)
    assert rules == make_rules("dehla") and net.hidden == (16,) and not net.card_features
    make_agent(f"policy:{out}", rules, seed=0)
    search = make_agent(f"batched-search:playout=policy:{out},k=2,depth=1", rules, seed=0)
    assert search is not None
    with pytest.raises(ValueError, match="trained for"):
        make_agent(f"policy:{out}", make_rules("court-piece"), seed=0)


def test_too_few_positions_for_the_holdout_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="leaves nothing to fit"):
        main(["--out", str(tmp_path / "p.pt"), "--positions", "100", "--holdout", "500"])


def test_the_shipped_playout_network_plays_dehla_above_chance_and_records_its_command() -> None:
    from agents.arena import run_duel
    from agents.nets.policy import read_checkpoint
    from agents.registry import SHIPPED_POLICIES

    path = SHIPPED_POLICIES / "dehla-playout.pt"
    if not path.exists():
        pytest.skip(f"{path} not shipped")
    net, rules = load_policy(path)
    assert rules == make_rules("dehla") and net.hidden == (128, 64)
    recorded = read_checkpoint(path)["distil"]
    assert recorded["teacher"] == "dehla" and recorded["positions"] == 4_000_000
    assert recorded["curve"][-1]["agreement"] > 0.8
    assert run_duel(rules, "policy:dehla-playout", "random", deals=40, seed=3, workers=1).win_rate.low > 0.5
