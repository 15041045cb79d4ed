"""The batched engine's compiled kernels (``observe_rows``, ``draw_deals``, the
decisions of ``dehla_env.vector.decisions``, ``legal_cards``, ``random_legal``'s
``nth_true``) against the same functions run as plain Python (numba's ``py_func``, and a
run under ``NUMBA_DISABLE_JIT=1``): the same observation rows, bit for bit (float32 and
uint8 codes, every seat of every game, every ruleset, hands in progress and over), the
same deals from the same generator (the scalar env's), the same random columns for the
same draws, and the vector env either way against the reference env (the equivalence run
of ``tests/test_vector_equivalence.py``). And the arrays the kernels make from the
engine's buffers are the engine's own."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numba
import numpy as np
import pytest
from numba import literal_unroll
from test_vector_equivalence import ALL, ONE_EACH, run_equivalence

from dehla_env import raw_env
from dehla_env.cards import shuffled_deck
from dehla_env.vector import decisions as vector_decisions
from dehla_env.vector import engine as vector_engine
from dehla_env.vector import observe as vector_observe
from dehla_env.vector import random_legal, vector_env
from dehla_env.vector import state as vector_state
from dehla_env.vector import wrappers as vector_wrappers
from dehla_env.vector.engine import DONE, BatchEngine
from dehla_env.vector.observe import BatchObserver
from tests.rulesets import one_per_table_size, rules_of, ruleset_id


def _python(kernel: Any) -> Any:
    """The plain Python function a compiled kernel was made from."""
    return getattr(kernel, "py_func", kernel)  # NUMBA_DISABLE_JIT=1: the function itself


#: the modules whose compiled functions the plain-Python runs replace
KERNEL_MODULES = (vector_decisions, vector_state, vector_observe, vector_engine, vector_wrappers)


def _plain_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compiled function of the batched engine, each rule's function included, is
    its plain Python function wherever a module names it."""
    for module in KERNEL_MODULES:
        for name, kernel in list(vars(module).items()):
            if hasattr(kernel, "py_func"):
                monkeypatch.setattr(module, name, kernel.py_func)


@pytest.fixture
def plain_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batched engine's kernels run as plain Python for the length of a test. The
    reference env's observations stay compiled (it plays its one game on the same
    kernels): they are compiled first, since numba compiles a kernel with the helpers
    its module names at that time, which the patches replace by plain functions."""
    reference = raw_env()
    reference.reset(seed=0)
    reference.step(int(np.flatnonzero(reference.last()[0]["action_mask"])[0]))
    _plain_python(monkeypatch)


def _rows(observer: BatchObserver, games: np.ndarray, seats: np.ndarray, python: bool) -> np.ndarray:
    if not python:
        return observer.observe(games, seats)
    with pytest.MonkeyPatch.context() as m:
        _plain_python(m)
        return observer.observe(games, seats)


@pytest.mark.parametrize("cfg", ALL, ids=[ruleset_id(c) for c in ALL])
@pytest.mark.parametrize("codes", [False, True], ids=["float32", "uint8"])
def test_compiled_rows_are_the_plain_python_rows_for_every_seat(cfg: tuple[str, dict[str, Any]], codes: bool) -> None:
    name, opts = cfg
    opts = {k: v for k, v in opts.items() if k != "reward"}
    env = vector_env(name, num_envs=24, seed=3, autoreset_mode="next_step", **opts)
    engine = env.engine
    observer = BatchObserver(engine, codes=codes)
    n = env.num_players
    games = np.repeat(engine.all, n)
    seats = np.tile(np.arange(n), len(engine.all))
    _obs, info = env.reset(seed=3)
    rng = np.random.default_rng(4)
    over = steps = 0
    while over < 24 or steps < 60:  # hands in progress, then over (NEXT_STEP keeps them a step), then anew
        expected = _rows(observer, games, seats, python=True)
        got = _rows(observer, games, seats, python=False)
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
        observer = BatchObserver(env.engine, codes=codes)
        expected = _rows(observer, done, seats, python=True)
        got = _rows(observer, done, seats, python=False)
        assert np.array_equal(got, expected)
        assert expected[:, env.observer.o["match"] :][:, :8].any()


@pytest.mark.parametrize("cfg", one_per_table_size(), ids=[ruleset_id(c) for c in one_per_table_size()])
def test_the_deals_compiled_or_not_are_the_one_shuffles_deals(cfg: tuple[str, dict[str, Any]]) -> None:
    r = rules_of(cfg)
    one = np.random.default_rng(11)  # the scalar env's draws: a dealer, then the one shuffle (R0.3)
    expected = [(int(one.integers(r.players)), shuffled_deck(one, r.packs)) for _ in range(300)]
    after = one.random()
    for draw in (vector_engine.draw_deals, _python(vector_engine.draw_deals)):
        rng = np.random.default_rng(11)
        decks, dealers = draw(rng, 300, r.players, r.deck_size)
        assert [(int(d), deck.tolist()) for d, deck in zip(dealers, decks, strict=True)] == expected, draw
        assert rng.random() == after, draw  # the generator moved as the scalar draws move it
    decks, _ = BatchEngine(r, 4).sample_deals(np.random.default_rng(11), 300)
    assert [deck.tolist() for deck in decks] == [deck for _, deck in expected]


@pytest.mark.parametrize("cfg", ONE_EACH, ids=[ruleset_id(c) for c in ONE_EACH])
@pytest.mark.parametrize("obs_dtype", ["float32", "uint8"])
@pytest.mark.usefixtures("plain_python")
def test_vector_env_on_the_plain_python_kernels_matches_the_reference_env(
    cfg: tuple[str, dict[str, Any]], obs_dtype: str
) -> None:
    """The equivalence tests run compiled; these runs, uncompiled."""
    name, opts = cfg
    run_equivalence(name, dict(opts), episodes=40, seed=ONE_EACH.index(cfg), obs_dtype=obs_dtype)


def test_numbas_own_switch_runs_the_kernels_as_python_with_the_same_observations() -> None:
    """``NUMBA_DISABLE_JIT=1`` (numba's switch, for debugging): the kernels are the plain
    functions, and the vector env gives the compiled run's observations."""
    code = (
        "import numpy as np\n"
        "from dehla_env.vector import observe, vector_env\n"
        "from dehla_env.vector import decisions, random_legal\n"
        "assert not hasattr(observe.observe_rows, 'py_func'), 'compiled'\n"
        "assert not hasattr(decisions.step_games, 'py_func'), 'compiled'\n"
        "env = vector_env('dehla', num_envs=8, seed=2)\n"
        "obs, info = env.reset(seed=2)\n"
        "rng = np.random.default_rng(0)\n"
        "for _ in range(30):\n"
        "    obs, *_rest, info = env.step(random_legal(info['action_mask'], rng))\n"
        "print(np.asarray(obs).tobytes().hex())\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    env = vector_env("dehla", num_envs=8, seed=2)
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):  # the decisions run too, past tricks and into the middle pile (R1.5)
        obs, *_rest, info = env.step(random_legal(info["action_mask"], rng))
    assert run.stdout.strip() == np.asarray(obs).tobytes().hex()


def test_random_legal_picks_the_same_column_compiled_or_not_and_never_an_illegal_one() -> None:
    """``random_legal``'s kernel (``nth_true``) compiled and as plain Python: the same
    column for the same draw, a true one in every row that has one, -1 in a row with
    none, for bool and int8 masks, contiguous or not."""
    rng = np.random.default_rng(12)
    mask = rng.random((3000, 85)) < 0.08
    mask[:40] = False  # rows with no legal action
    mask[40:80] = True  # rows where every action is legal
    for m in (mask, mask.astype(np.int8), mask[::2], mask[:, :52]):
        u = rng.random(len(m))
        got = vector_wrappers.nth_true(m, u)
        assert np.array_equal(got, _python(vector_wrappers.nth_true)(m, u))
        has = m.any(axis=1)
        assert (got[~has] == -1).all()
        assert m[np.flatnonzero(has), got[has]].all()
        counts = m.sum(axis=1)  # the column is true entry number floor(u * count)
        rank = np.array([int(np.count_nonzero(row[:c])) for row, c in zip(m[has], got[has], strict=True)])
        assert np.array_equal(rank, (u[has] * counts[has]).astype(np.int64))


def test_random_legal_is_uniform_over_the_legal_columns() -> None:
    mask = np.zeros((60_000, 85), bool)
    legal = [3, 17, 18, 51, 84]
    mask[:, legal] = True
    picks = random_legal(mask, np.random.default_rng(13))
    share = np.bincount(picks, minlength=85)[legal] / len(picks)
    assert np.abs(share - 0.2).max() < 0.01  # 5 sigma is about 0.0082 here
    assert set(np.unique(picks)) == set(legal)


@numba.njit
def _compiled_views(u8: np.ndarray, i64: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """Per array of the compiled ``arrays_of``: its address, size, last dimension and
    number of dimensions, into the rows of ``out``."""
    k = 0
    for a in literal_unroll(vector_state.arrays_of(u8, i64, meta)):
        out[k, 0] = a.ctypes.data
        out[k, 1] = a.size
        out[k, 2] = a.shape[-1]
        out[k, 3] = a.ndim
        k += 1  # noqa: SIM113 (numba unrolls the loop over the tuple: no enumerate)


@pytest.mark.parametrize("cfg", one_per_table_size(), ids=ruleset_id)
def test_the_compiled_views_of_the_engines_buffers_are_its_arrays(cfg: tuple[str, dict[str, Any]]) -> None:
    """The kernels make the engine's arrays from its two buffers (``state.arrays_of``,
    its shapes written out for numba): each is the engine's own array of that name, the
    same memory and shape (``state.views``, what the engine holds)."""
    engine = BatchEngine(rules_of(cfg), 5)
    got = np.zeros((len(vector_state.LAYOUT), 4), np.int64)
    _compiled_views(*engine._state, got)
    for row, (name, _buffer, _shape) in zip(got, vector_state.LAYOUT):
        held = getattr(engine, name)
        assert row.tolist() == [held.ctypes.data, held.size, held.shape[-1], held.ndim], name
