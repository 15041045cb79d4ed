"""Search values as training targets (agents.training.search_values): the soft target,
the recorded data, the fit, and the command from recording to a loadable policy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.policy import load_policy
from agents.training.runs import Stop
from agents.training.search_values import LabelTask, fit, load_data, main, record_search_values, soft_targets
from dehla_env.actions import NUM_ACTIONS
from dehla_env.rules import make_rules

CHEAP_SEARCH = "search:batch=1,playout=cardsense,k=2,depth=1"


def test_equal_values_get_equal_probability_and_illegal_moves_none() -> None:
    values = torch.zeros(1, NUM_ACTIONS)
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.int8)
    mask[0, [3, 7, 9]] = 1
    values[0, [3, 7, 9]] = torch.tensor([0.6, 0.6, 0.3])
    p = soft_targets(values, mask, tau=0.05)[0]
    assert torch.isclose(p[3], p[7]) and p[3] > p[9] > 0
    assert float(p.sum()) == 1.0 or torch.isclose(p.sum(), torch.tensor(1.0))
    assert float(p[[i for i in range(NUM_ACTIONS) if i not in (3, 7, 9)]].abs().sum()) == 0.0


def test_recorded_positions_have_values_exactly_on_the_legal_moves(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    n = record_search_values(LabelTask(make_rules("dehla"), CHEAP_SEARCH, (3,), 1, str(path)))
    data = load_data([path])
    assert n == len(data["obs"]) == len(data["mask"]) == len(data["values"]) > 20  # a hand has ~40 choices
    assert ((data["mask"].sum(1)) > 1).all()  # only decisions with a choice
    assert (data["values"][data["mask"] == 0] == 0).all()
    legal_values = data["values"][data["mask"] == 1]
    assert (legal_values >= -0.5).all() and (legal_values <= 1.5).all()  # win 1, draw 0.5, loss 0, +- the margin
    # the score is not constant: some positions tell the moves apart
    spread = np.where(data["mask"] == 1, data["values"], np.nan)
    assert (np.nanmax(spread, 1) - np.nanmin(spread, 1) > 0.1).any()


def test_fitting_raises_how_often_the_top_move_is_the_searchs_best(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    record_search_values(LabelTask(make_rules("dehla"), CHEAP_SEARCH, (4,), 2, str(path)))
    data = load_data([path])
    net, _ = load_policy(Path("agents/checkpoints/dehla.pt").resolve())
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    first = fit(net, opt, data, 4, 0.03, 1, 64, gen, Stop())
    last = fit(net, opt, data, 4, 0.03, 15, 64, gen, Stop())
    assert last["loss"] < first["loss"]
    assert last["best_move"] > first["best_move"]


def test_the_command_records_fits_and_a_rerun_records_nothing_again(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sv"
    argv = ["--out", str(out), "--hands", "2", "--hands-per-task", "1", "--workers", "0", "--epochs", "1"]
    assert main([*argv, "--searcher", CHEAP_SEARCH]) == 0
    files = sorted(out.glob("data-*.npz"))
    assert len(files) == 2
    net, rules = load_policy(out / "policy.pt")
    assert rules == make_rules("dehla")
    stamps = [f.stat().st_mtime_ns for f in files]
    assert main([*argv, "--searcher", CHEAP_SEARCH]) == 0
    assert [f.stat().st_mtime_ns for f in files] == stamps  # nothing recorded twice
    assert "recorded" not in capsys.readouterr().out.splitlines()[-3]
