"""``benchmarks/time_to_strength.py`` end to end on a budget of seconds: the trainer keeps
a copy of its policy every few seconds of its clock, and the arena plays each against
the opponent: the learning curve, then all the deals for the first copy whose screening
reaches the target."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from agents.nets.policy import read_checkpoint
from tests.scripts import load_script


def _load() -> ModuleType:
    return load_script("benchmarks/time_to_strength.py")


#: a tiny trainer: four updates of 16 games, one epoch each, warmed up on 8 hands of hard
TINY = ["--config", "small", "--minutes", "5", "--every", "0.001", "--workers", "1"]
for setting in ("updates=4", "num_games=16", "minibatch_size=64", "update_epochs=1", "imitation_hands=8",
                "imitation_epochs=1", "num_workers=0"):  # fmt: skip
    TINY += ["--override", setting]


def test_the_kept_policies_make_the_curve_and_the_first_at_the_target_is_the_figure(tmp_path: Path) -> None:
    """A target every network reaches (a share of 0.01 against random play): the first
    kept policy, right after the warm start (update 0), is the figure, played on all the
    deals; every kept policy is on the curve, in order of minutes."""
    out = _load().main(
        [*TINY, "--target", "0.01", "--against", "random", "--deals", "4", "--screen-deals", "2", "--seed", "3",
         "--out-dir", str(tmp_path / "run"), "--json", str(tmp_path / "out.json")]
    )  # fmt: skip
    kept = sorted((tmp_path / "run").glob("*/policies/update-*.pt"))
    assert len(out["curve"]) == len(kept) == 5  # after the warm start, then after each update
    assert [p["updates"] for p in out["curve"]] == [0, 1, 2, 3, 4]
    minutes = [p["minutes"] for p in out["curve"]]
    assert minutes == sorted(minutes) and all(p["deals"] == 2 for p in out["curve"])
    assert out["minutes_to_target"] == minutes[0] and out["confirmed"][0]["deals"] == 4
    assert out["confirmed"][-1]["updates"] == 4  # the last kept policy is played on all the deals too
    assert out["training"]["updates"] == 4 and out["training"]["startup_seconds"] >= 0
    assert read_checkpoint(out["policy"])["update"] == 0
    assert (tmp_path / "out.json").is_file()


def test_a_target_no_policy_reaches_is_recorded_as_not_reached(tmp_path: Path) -> None:
    """Against itself no network wins every hand: no minutes, and the figure is the last
    kept policy's over all the deals; evaluating the finished run again (``--run-dir``)
    trains nothing and agrees."""
    first = _load().main(
        [*TINY, "--target", "0.999", "--against", "easy", "--deals", "3", "--screen-deals", "2", "--seed", "3",
         "--out-dir", str(tmp_path / "run")]
    )  # fmt: skip
    assert first["minutes_to_target"] is None and first["confirmed"][-1]["updates"] == 4
    (run_dir,) = (tmp_path / "run").glob("*__*")
    again = _load().main(
        [*TINY, "--target", "0.999", "--against", "easy", "--deals", "3", "--screen-deals", "2", "--seed", "3",
         "--run-dir", str(run_dir)]
    )  # fmt: skip
    assert again["curve"] == first["curve"] and again["training"]["startup_seconds"] is None


def test_a_target_outside_a_share_is_refused() -> None:
    with pytest.raises(SystemExit):
        _load().main([*TINY, "--target", "1.5"])
