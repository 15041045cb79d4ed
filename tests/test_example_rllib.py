"""The RLlib recipe on a local Ray, in its own environment: Ray pins its own gymnasium
(``pip install -e '.[rllib]'`` in a fresh venv; ``.ci/run`` does), so these tests carry
the ``rllib`` marker and are not in the default suite: ``python -m pytest -m rllib``."""

from __future__ import annotations

import pytest

from tests.scripts import load_script

pytestmark = pytest.mark.rllib


def test_rllib_trains_one_shared_masked_policy_on_a_local_ray() -> None:
    pytest.importorskip("ray.rllib", reason="the rllib extra: pip install 'dehla[rllib]' (its own environment)")
    module = load_script("examples/rllib_multiagent.py")
    ret = module.main(["--iterations", "2", "--batch", "400"])
    assert -1.0 <= ret <= 1.0


def test_the_rllib_env_keeps_the_rules_and_renames_the_keys() -> None:
    pytest.importorskip("ray.rllib", reason="the rllib extra: pip install 'dehla[rllib]' (its own environment)")
    import numpy as np

    from agents.distributed.rllib import rllib_env

    env = rllib_env({"rules": "court-piece"})
    obs, _info = env.reset(seed=1)
    (agent,) = obs
    assert set(obs[agent]) == {"observations", "action_mask"}
    assert obs[agent]["action_mask"].dtype == np.float32
    legal = int(np.flatnonzero(obs[agent]["action_mask"])[0])
    obs, rewards, terms, truncs, _ = env.step({agent: legal})
    assert not terms["__all__"]
