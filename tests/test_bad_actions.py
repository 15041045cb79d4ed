"""R5 above the engine: at every layer only integers are actions, and anything else
(a float such as 1.5, a string such as "11", None, NaN, a bool, an array, an illegal
id) is refused with IllegalMoveError naming the move, the seat and the rule, or the
documented terminate path, and leaves the game exactly as it was."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dehla_env
from dehla_env import IllegalMoveError, raw_env
from dehla_env.actions import NUM_ACTIONS
from dehla_env.vector import vector_env
from dehla_env.wrappers import SingleAgentEnv
from tests.rulesets import RULESETS

not_integers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.binary(max_size=2),
    st.lists(st.integers(0, 84), max_size=2),
    st.sampled_from(
        [np.float32(1.0), np.float64(11.0), np.array([3]), np.array(2.5), np.bool_(True), Decimal(1), 1 + 0j, object()]
    ),
)
any_value = st.one_of(not_integers, st.integers(-(10**20), 10**20), st.integers(0, NUM_ACTIONS - 1).map(np.int64))


def _is_action_id(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _scalar_state(env: raw_env) -> tuple[Any, ...]:
    m = env.match
    assert m is not None
    hand = m.hand
    return (
        tuple(hand.events),
        tuple(hand.hands),
        tuple(hand.trick_cards),
        m.hands_completed,
        env.agent_selection,
        env.observe(env.agent_selection)["observation"].tobytes(),
        tuple(env.terminations.values()),
    )


def _started(rules: str, options: dict[str, Any], seed: int, moves: int) -> raw_env:
    env = raw_env(rules=rules, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if any(env.terminations.values()):
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    if any(env.terminations.values()):
        env.reset(seed=seed)
    return env


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESETS), st.integers(0, 10**6), st.integers(0, 40), any_value)
def test_raw_env_refuses_anything_but_a_legal_integer(cfg: Any, seed: int, moves: int, value: Any) -> None:
    env = _started(*cfg, seed, moves)
    legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
    if _is_action_id(value) and int(value) in legal:
        return  # a legal move: it plays (other tests check that)
    before = _scalar_state(env)
    seat = env.agent_name_mapping[env.agent_selection]
    with pytest.raises(IllegalMoveError) as err:
        env.step(value)
    assert f"by seat {seat}" in str(err.value) and "R" in str(err.value).rsplit("(", 1)[-1]
    assert _scalar_state(env) == before


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RULESETS), st.integers(0, 10**6), not_integers)
def test_gymnasium_wrapper_raises_or_terminates_and_never_plays_a_non_integer(cfg: Any, seed: int, value: Any) -> None:
    rules, options = cfg
    strict = SingleAgentEnv(rules, **options)
    strict.reset(seed=seed)
    before = _scalar_state(strict.raw)
    with pytest.raises(IllegalMoveError):
        strict.step(value)
    assert _scalar_state(strict.raw) == before
    lenient = SingleAgentEnv(rules, illegal_action="terminate", **options)
    lenient.reset(seed=seed)
    before = _scalar_state(lenient.raw)
    _obs, reward, terminated, truncated, info = lenient.step(value)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert _scalar_state(lenient.raw) == before


def test_the_examples_of_the_review() -> None:
    """step(1.5) used to play card 1 and "11" card 11; None crashed the terminate path."""
    for value in (1.5, "11", None, float("nan"), True, np.float64(3.0)):
        env = raw_env()
        env.reset(seed=1)
        with pytest.raises(IllegalMoveError, match=r"not an action id .*\(R5\)"):
            env.step(value)
    wrapped = SingleAgentEnv(illegal_action="terminate")
    wrapped.reset(seed=1)
    assert wrapped.step(None)[2] is True


def test_pettingzoo_wrapped_env_refuses_non_integers_before_the_engine() -> None:
    env = dehla_env.env()
    env.reset(seed=2)
    before = _scalar_state(env.unwrapped)
    for value in (1.5, "11", None, np.array([1])):
        with pytest.raises((AssertionError, IllegalMoveError)):
            env.step(value)
        assert _scalar_state(env.unwrapped) == before


# ---------------------------------------------------------------------- vector env
def _engine_state(venv: Any) -> list[bytes]:
    e = venv.engine
    return [v.tobytes() for v in vars(e).values() if isinstance(v, np.ndarray)] + [venv._mask.tobytes()]


bad_arrays = st.one_of(
    st.lists(st.floats(allow_nan=True), min_size=4, max_size=4).map(np.array),
    st.lists(st.booleans(), min_size=4, max_size=4).map(np.array),
    st.lists(st.text(max_size=2), min_size=4, max_size=4).map(np.array),
    st.lists(st.integers(-(2**40), 2**40), min_size=0, max_size=6).map(lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.none(), min_size=4, max_size=4).map(lambda v: np.array(v, dtype=object)),
)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(RULESETS), st.integers(0, 10**6), bad_arrays)
def test_vector_env_refuses_bad_action_arrays_and_changes_nothing(cfg: Any, seed: int, actions: np.ndarray) -> None:
    rules, options = cfg
    venv = vector_env(rules, num_envs=4, seed=seed, **options)
    _obs, info = venv.reset()
    mask = info["action_mask"]
    if actions.dtype.kind in "iu" and actions.shape == (4,):
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        if ok.all() and mask[np.arange(4), actions].all():
            return  # all legal: it plays
    before = _engine_state(venv)
    with pytest.raises(IllegalMoveError, match=r"\((R[0-9.]+, )?R5\)$"):
        venv.step(actions)
    assert _engine_state(venv) == before


@pytest.mark.parametrize("games", [[0, 0], [1, -1], [0.0, 1.0], [5], [[0, 1]], ["0"]])
def test_step_games_refuses_repeated_negative_float_or_unknown_games(games: Any) -> None:
    """A repeated game used to be stepped twice in one lockstep (its hand "ended" 0-0)."""
    venv = vector_env("dehla", num_envs=4, seed=0)
    _obs, info = venv.reset()
    before = _engine_state(venv)
    actions = np.flatnonzero(info["action_mask"][0])[:1].repeat(len(np.ravel(games)))
    with pytest.raises(ValueError, match="games"):
        venv.step_games(np.array(games), actions)
    assert _engine_state(venv) == before
