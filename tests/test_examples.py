"""The recipes in examples/ run, each bounded to seconds of training (the ``recipes``
extra: sb3-contrib, tianshou). RLlib's recipe has its own test, marker and environment
(tests/test_example_rllib.py: Ray pins its own gymnasium)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.scripts import load_script


def _load(name: str) -> ModuleType:
    return load_script(f"examples/{name}.py")


def test_sb3_maskable_ppo_single_and_vectorised() -> None:
    pytest.importorskip("sb3_contrib", reason="the recipes extra: pip install 'dehla[recipes]'")
    example = _load("sb3_maskable_ppo")
    for n_envs in (1, 4):
        rate = example.main(["--timesteps", "512", "--n-envs", str(n_envs), "--eval-episodes", "4"])
        assert 0.0 <= rate <= 1.0


def test_cleanrl_style_ppo_on_the_vector_env() -> None:
    pytest.importorskip("torch", reason="the train extra: pip install 'dehla[train]'")
    example = _load("cleanrl_ppo_vector")
    rate = example.main(["--updates", "2", "--num-envs", "32", "--steps", "60"])
    assert 0.0 <= rate <= 1.0


def test_tianshou_collects_whole_hands_with_masked_policies() -> None:
    pytest.importorskip("tianshou", reason="the recipes extra: pip install 'dehla[recipes]'")
    example = _load("tianshou_multiagent")
    rate = example.main(["--episodes", "8", "--envs", "2"])
    assert 0.0 <= rate <= 1.0
