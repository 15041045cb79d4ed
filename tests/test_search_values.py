"""Search values as training targets (experiments/search_values.py): the soft target,
the recorded data, the fit, and the command from recording to a loadable policy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.nets.policy import load_policy
from agents.training.runs import Stop
from dehla_env.actions import NUM_ACTIONS
from dehla_env.rules import make_rules
from experiments.search_values import (
    LabelTask,
    agreement,
    fit,
    load_data,
    main,
    policy_log_probs,
    record_search_values,
    search_targets,
)

CHEAP_SEARCH = "batched-search:playout=cardsense,k=2,depth=1"


def _position(values: dict[int, float]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    v = torch.zeros(1, NUM_ACTIONS)
    valued = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.int8)
    for a, x in values.items():
        v[0, a], valued[0, a], mask[0, a] = x, True, 1
    return v, valued, mask


def test_equal_values_get_equal_probability_and_illegal_moves_none() -> None:
    values, valued, mask = _position({3: 0.6, 7: 0.6, 9: 0.3})
    p = search_targets(values, valued, mask, tau=0.05)[0]
    assert torch.isclose(p[3], p[7]) and p[3] > p[9] > 0
    assert torch.isclose(p.sum(), torch.tensor(1.0))
    assert float(p[[i for i in range(NUM_ACTIONS) if i not in (3, 7, 9)]].abs().sum()) == 0.0


def test_a_move_the_search_did_not_value_counts_as_its_worst_valued_move() -> None:
    values, valued, mask = _position({3: 0.6, 9: -0.2})
    mask[0, 12] = 1  # legal, dropped by the searcher's prior: no value
    p = search_targets(values, valued, mask, tau=0.05)[0]
    assert torch.isclose(p[12], p[9]) and p[3] > p[12] > 0


def test_the_improved_target_is_the_prior_times_the_exponentiated_values() -> None:
    values, valued, mask = _position({3: 0.6, 7: 0.6, 9: 0.3})
    prior = torch.zeros(1, NUM_ACTIONS)
    prior[0, [3, 7, 9]] = torch.log(torch.tensor([0.1, 0.6, 0.3]))
    p = search_targets(values, valued, mask, tau=0.1, prior_logp=prior)[0]
    expected = torch.tensor([0.1, 0.6, 0.3]) * torch.exp(torch.tensor([0.6, 0.6, 0.3]) / 0.1)
    assert torch.allclose(p[[3, 7, 9]], expected / expected.sum())
    # equal values leave the prior's ratio as it was; the search's values decide the rest
    assert torch.isclose(p[7] / p[3], torch.tensor(6.0))


def test_recorded_positions_have_values_exactly_on_the_legal_moves(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    n = record_search_values(LabelTask(make_rules("dehla"), CHEAP_SEARCH, (3,), 1, str(path)))
    data = load_data([path])
    assert n == len(data["obs"]) == len(data["mask"]) == len(data["values"]) > 20  # a hand has ~40 choices
    assert ((data["mask"].sum(1)) > 1).all()  # only decisions with a choice
    assert (data["values"][data["mask"] == 0] == 0).all()
    assert (data["valued"] == (data["mask"] == 1)).all()  # a search without a prior values every legal move
    legal_values = data["values"][data["mask"] == 1]
    assert (legal_values >= -0.5).all() and (legal_values <= 1.5).all()  # win 1, draw 0.5, loss 0, +- the margin
    # the score is not constant: some positions tell the moves apart
    spread = np.where(data["mask"] == 1, data["values"], np.nan)
    assert (np.nanmax(spread, 1) - np.nanmin(spread, 1) > 0.1).any()


def test_a_searcher_with_a_prior_is_recorded_only_where_it_compared_moves(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    spec = "batched-search:playout=cardsense,k=2,depth=1,prior=policy:dehla,keep=0.9"
    record_search_values(LabelTask(make_rules("dehla"), spec, (3,), 2, str(path)))
    data = load_data([path])
    assert len(data["obs"]) > 0
    assert (data["valued"].sum(1) >= 2).all()  # the prior left at least two classes to score
    assert (data["valued"] <= (data["mask"] == 1)).all()
    assert data["valued"].sum() < (data["mask"] == 1).sum()  # and dropped some legal moves


def test_fitting_raises_how_often_the_top_move_is_the_searchs_best(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    record_search_values(LabelTask(make_rules("dehla"), CHEAP_SEARCH, (4,), 2, str(path)))
    data = load_data([path])
    net, _ = load_policy(Path("agents/checkpoints/dehla.pt").resolve())
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    before = agreement(net.eval(), data)
    first = fit(net.train(), opt, data, 4, 0.03, 1, 64, gen, Stop())
    last = fit(net, opt, data, 4, 0.03, 15, 64, gen, Stop())
    assert last["loss"] < first["loss"]
    assert last["best_move"] > first["best_move"]
    after = agreement(net.eval(), data)
    assert after["best_move"] > before["best_move"] and after["given_up"] < before["given_up"]


def test_the_improved_target_fits_toward_the_search_from_the_starting_policy(tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    record_search_values(LabelTask(make_rules("dehla"), CHEAP_SEARCH, (4,), 2, str(path)))
    data = load_data([path])
    net, _ = load_policy(Path("agents/checkpoints/dehla.pt").resolve())
    data["prior_logp"] = policy_log_probs(net.eval(), data["obs"], data["mask"])
    before = agreement(net, data)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    fit(net.train(), opt, data, 4, 0.03, 15, 64, torch.Generator().manual_seed(0), Stop())
    assert agreement(net.eval(), data)["best_move"] > before["best_move"]


def test_the_command_records_fits_and_a_rerun_records_nothing_again(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sv"
    argv = ["--out", str(out), "--hands", "3", "--hands-per-task", "1", "--workers", "0", "--epochs", "1"]
    assert main([*argv, "--searcher", CHEAP_SEARCH, "--holdout", "0.34"]) == 0
    files = sorted(out.glob("data-*.npz"))
    assert len(files) == 3
    assert "held out" in capsys.readouterr().out  # one file of three kept out and measured
    net, rules = load_policy(out / "policy.pt")
    assert rules == make_rules("dehla")
    stamps = [f.stat().st_mtime_ns for f in files]
    assert main([*argv, "--searcher", CHEAP_SEARCH, "--target", "improved"]) == 0
    assert [f.stat().st_mtime_ns for f in files] == stamps  # nothing recorded twice
    assert "recorded" not in capsys.readouterr().out.splitlines()[-3]
