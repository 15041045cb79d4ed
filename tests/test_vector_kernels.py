"""The batched engine's kernels (:mod:`dehla_env.vector.kernels`) compiled by numba
against the same functions run as plain Python: the same observation rows, bit for bit
(float32 and uint8 codes, every seat of every game, every ruleset, hands in progress
and over), the same deals from the same generator (the scalar env's), and the vector
env either way against the reference env (the equivalence run of
``tests/test_vector_equivalence.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import MISSING_NUMBA, last_error_without_numba
from test_vector_equivalence import ALL, ONE_EACH, _id, run_equivalence

from dehla_env import make_rules
from dehla_env.cards import shuffled_deck
from dehla_env.vector import random_legal, vector_env
from dehla_env.vector.engine import DONE, BatchEngine
from dehla_env.vector.observe import BatchObserver

pytest.importorskip("numba")


@pytest.mark.parametrize("cfg", ALL, ids=[_id(c) for c in ALL])
@pytest.mark.parametrize("codes", [False, True], ids=["float32", "uint8"])
def test_compiled_rows_are_the_plain_python_rows_for_every_seat(cfg: tuple[str, dict[str, Any]], codes: bool) -> None:
    name, opts = cfg
    opts = {k: v for k, v in opts.items() if k != "reward"}
    env = vector_env(name, num_envs=24, seed=3, autoreset_mode="next_step", **opts)
    engine = env.engine
    plain_rows = BatchObserver(engine, codes=codes, kernel="python")
    compiled_rows = BatchObserver(engine, codes=codes, kernel="numba")
    n = env.num_players
    games = np.repeat(engine.all, n)
    seats = np.tile(np.arange(n), len(engine.all))
    _obs, info = env.reset(seed=3)
    rng = np.random.default_rng(4)
    over = steps = 0
    while over < 24 or steps < 60:  # hands in progress, then over (NEXT_STEP keeps them a step), then anew
        expected = plain_rows.observe(games, seats)
        got = compiled_rows.observe(games, seats)
        assert got.dtype == expected.dtype
        assert np.array_equal(got, expected)
        over += int((engine.phase == DONE).sum())
        _obs, _r, _t, _tr, info = env.step(np.maximum(random_legal(info["action_mask"], rng), 0))
        steps += 1


def test_compiled_rows_of_hands_that_are_over_include_the_match_values() -> None:
    env = vector_env("dehla", num_envs=16, seed=5, autoreset_mode="next_step")
    _obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    while not (env.engine.phase == DONE).any():
        _obs, _r, _t, _tr, info = env.step(np.maximum(random_legal(info["action_mask"], rng), 0))
    done = np.flatnonzero(env.engine.phase == DONE)
    for codes in (False, True):
        seats = np.zeros(len(done), np.int64)
        expected = BatchObserver(env.engine, codes=codes, kernel="python").observe(done, seats)
        got = BatchObserver(env.engine, codes=codes, kernel="numba").observe(done, seats)
        assert np.array_equal(got, expected)
        assert expected[:, env.observer.o["match"] :][:, :8].any()


@pytest.mark.parametrize("rules", ["dehla", "dehla-direct players=6"])
def test_the_deals_compiled_or_not_are_the_one_shuffles_deals(rules: str) -> None:
    name, *rest = rules.split()
    options = dict(item.split("=") for item in rest)
    r = make_rules(name, **{k: int(v) for k, v in options.items()})
    one = np.random.default_rng(11)  # the scalar env's draws: a dealer, then the one shuffle (R0.3)
    expected = [(int(one.integers(r.players)), shuffled_deck(one, r.packs)) for _ in range(300)]
    after = one.random()
    for kernel in ("python", "numba"):
        rng = np.random.default_rng(11)
        decks, dealers = BatchEngine(r, 4, kernel=kernel).sample_deals(rng, 300)
        assert [(int(d), deck.tolist()) for d, deck in zip(dealers, decks, strict=True)] == expected, kernel
        assert rng.random() == after, kernel  # the generator moved as the scalar draws move it


@pytest.mark.parametrize("cfg", ONE_EACH, ids=[_id(c) for c in ONE_EACH])
@pytest.mark.parametrize("obs_dtype", ["float32", "uint8"])
def test_vector_env_on_the_plain_python_kernels_matches_the_reference_env(
    cfg: tuple[str, dict[str, Any]], obs_dtype: str
) -> None:
    """The equivalence tests run compiled (the default here, where numba is installed);
    these runs, uncompiled."""
    name, opts = cfg
    run_equivalence(name, dict(opts), episodes=40, seed=ONE_EACH.index(cfg), obs_dtype=obs_dtype, kernel="python")


def test_an_unknown_kernel_or_a_missing_numba_is_one_clear_line() -> None:
    with pytest.raises(ValueError, match="kernel must be one of python, numba"):
        vector_env("dehla", num_envs=2, kernel="cython")
    code = (
        "from dehla_env.vector import vector_env\n"
        "vector_env('dehla', num_envs=2, kernel='python')  # plain Python needs nothing more\n"
        "vector_env('dehla', num_envs=2, kernel='numba')\n"
    )
    assert last_error_without_numba(code) == MISSING_NUMBA


def test_without_numba_the_vector_env_runs_the_kernels_as_python_and_says_so_once() -> None:
    code = (
        "import warnings\n"
        "from dehla_env.vector import vector_env\n"
        "warnings.simplefilter('error')\n"
        "vector_env('dehla', num_envs=2, kernel='python')  # asked for: no warning\n"
        "vector_env('dehla', num_envs=2)\n"
    )
    assert last_error_without_numba(code) == (
        "UserWarning: vector_env runs its kernels as plain Python, numba is not installed: "
        "pip install 'dehla[fast]' for the compiled ones (the same arrays, much faster)"
    )
