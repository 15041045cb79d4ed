"""The compiled encoder (``kernel="numba"``, :mod:`dehla_env.compiled_encoder`) against
the definition of the observation, :func:`dehla_env.encoding.encode_view`: the same observation,
bit for bit, for every seat at every decision of every ruleset and main option (R0.6:
each seat sees only its own cards and what is public), through whole matches (the match
values between hands); the same legal cards (R0.4); and ``raw_env(kernel="numba")``
step for step the same episodes as ``raw_env()``, under PettingZoo's ``api_test``."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from helpers import MISSING_NUMBA, last_error_without_numba, random_step
from test_env_api import ALL_CONFIGS, _id, _quiet_api_test, _same, play_episode

from dehla_env import env, raw_env
from dehla_env.actions import MASK_DTYPE, NUM_ACTIONS, card_mask
from dehla_env.compiled_encoder import CompiledEncoder, make_encoder
from dehla_env.encoding import ObservationEncoder, encode_view
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import make_rules
from dehla_env.view import view_of
from tests.rulesets import RULESETS

pytest.importorskip("numba")


@pytest.mark.parametrize("config", RULESETS, ids=_id)
def test_every_seat_sees_the_reference_observation_at_every_decision(config: tuple[str, dict[str, Any]]) -> None:
    name, options = config
    rules = make_rules(name, options)
    rng = np.random.default_rng(11)
    decisions = 0
    for _match in range(6):
        match = MatchState.new(rules, rng)
        compiled = CompiledEncoder(rules)
        while not match.is_terminal() and match.hands_completed < 4:  # new deals, match values
            if not match.is_chance():
                # the seat to act always; every seat at a third of the decisions (a seat
                # may be asked after several events, or twice for one state)
                seats = range(rules.players) if rng.random() < 0.33 else [match.current_player()]
                for seat in seats:
                    expected = encode_view(view_of(match, seat))
                    got = compiled.encode(match, seat)
                    assert got.dtype == expected.dtype == np.float32
                    assert np.array_equal(got, expected), (seat, match.hand.phase, np.flatnonzero(got != expected))
                decisions += 1
            random_step(match, rng)  # a decision, the deal or the R1.4 draw
        for seat in range(rules.players):  # the hand (or match) over
            assert np.array_equal(compiled.encode(match, seat), encode_view(view_of(match, seat)))
    assert decisions > 300


@pytest.mark.parametrize("config", RULESETS, ids=_id)
def test_the_compiled_card_mask_is_the_follow_suit_rule(config: tuple[str, dict[str, Any]]) -> None:
    """R0.4: the legal cards ``encode_turn`` marks are the engine's, at every card."""
    name, options = config
    rules = make_rules(name, options)
    rng = np.random.default_rng(12)
    compiled = CompiledEncoder(rules)
    cards = 0
    for _hand in range(10):
        match = MatchState.new(rules, rng)
        random_step(match, rng)  # the deal
        while not match.hand.complete:
            if match.hand.phase == Phase.PLAY:
                seat = match.current_player()
                mask = np.zeros(NUM_ACTIONS, MASK_DTYPE)
                obs = compiled.encode_turn(match, seat, mask)
                assert np.array_equal(mask, card_mask(match.hand.legal_card_mask()))
                assert np.array_equal(obs, encode_view(view_of(match, seat)))
                cards += 1
            random_step(match, rng)
    assert cards >= 10 * rules.num_tricks * rules.players // 2


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=_id)
def test_the_numba_env_plays_the_same_episodes_as_the_reference(config: tuple[str, dict[str, Any]]) -> None:
    """Same seed, same actions: the same observations, rewards, terminations and infos."""
    name, options = config
    for seed in (0, 1, 2):
        reference, compiled = raw_env(rules=name, **options), raw_env(rules=name, kernel="numba", **options)
        reference.reset(seed=seed)
        compiled.reset(seed=seed)
        steps = 0
        while reference.agents:
            agent = reference.agent_selection
            assert compiled.agent_selection == agent
            expected, got = reference.last(), compiled.last()
            assert all(_same(a, b) for a, b in zip(expected, got)), (steps, agent)
            assert _same(compiled.observe(agent), reference.observe(agent))  # asked twice
            other = reference.possible_agents[(steps + 1) % reference.num_players]
            assert _same(compiled.observe(other), reference.observe(other))
            assert _same(compiled.infos, reference.infos)
            obs, _r, terminated, truncated, _i = expected
            legal = np.flatnonzero(obs["action_mask"])
            action = None if terminated or truncated else int(legal[(steps * 7) % len(legal)])
            reference.step(action)
            compiled.step(action)
            assert _same(compiled.rewards, reference.rewards)
            steps += 1
        assert np.array_equal(compiled.state(), reference.state())
        assert steps > 20


@pytest.mark.parametrize("config", RULESETS[:2] + RULESETS[-3:], ids=_id)
def test_pettingzoo_api_test_with_the_compiled_encoder(config: tuple[str, dict[str, Any]]) -> None:
    name, options = config
    _quiet_api_test(env(rules=name, kernel="numba", **options), num_cycles=60)
    rng = np.random.default_rng(3)
    e = env(rules=name, kernel="numba", **options)
    e.reset(seed=5)
    assert len(play_episode(e, rng)) > 20


@pytest.mark.parametrize("max_cycles", [1, 2, 5])
def test_dead_steps_without_observing_hand_out_each_agent_its_own_observation(max_cycles: int) -> None:
    """Moves chosen from the infos' masks, never observed, until every agent is
    truncated; then each dead agent stepped with None and the next one observed: the
    observation made for the last seat to act goes to no other agent (PettingZoo's dead
    steps move ``agent_selection`` without a move of the game)."""
    reference = raw_env(rules="coat-pees", max_cycles=max_cycles)
    compiled = raw_env(rules="coat-pees", max_cycles=max_cycles, kernel="numba")
    for e in (reference, compiled):
        e.reset(seed=6)
    steps = 0
    while not any(reference.truncations.values()):
        legal = np.flatnonzero(reference.infos[reference.agent_selection]["action_mask"])
        action = int(legal[steps % len(legal)])
        for e in (reference, compiled):
            e.step(action)
        steps += 1
    assert steps == 4 * max_cycles
    while reference.agents:
        for e in (reference, compiled):
            e.step(None)
        for agent in reference.agents:
            assert _same(compiled.observe(agent), reference.observe(agent)), agent


@pytest.mark.parametrize(
    "copy_env", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))], ids=["deepcopy", "pickle"]
)
def test_a_copied_numba_env_goes_on_as_the_original(copy_env: Any) -> None:
    """A deep copy or a pickle taken mid-hand (vectorising libraries do both) plays on
    like the original, and like the reference env."""
    reference, compiled = raw_env(rules="dehla"), raw_env(rules="dehla", kernel="numba")
    for e in (reference, compiled):
        e.reset(seed=4)
        for _ in range(9):
            e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    copied = copy_env(compiled)
    while reference.agents:
        expected = reference.last()
        for e in (compiled, copied):
            assert all(_same(a, b) for a, b in zip(e.last(), expected))
        action = None if expected[2] else int(np.flatnonzero(expected[0]["action_mask"])[-1])
        for e in (reference, compiled, copied):
            e.step(action)


def test_a_seat_or_buffer_that_does_not_fit_is_refused() -> None:
    """The kernels index without bounds checks, so the encoder checks what it is given."""
    rules = make_rules("dehla")
    rng = np.random.default_rng(0)
    match = MatchState.new(rules, rng)
    match.sample_chance(rng)
    compiled = CompiledEncoder(rules)
    for seat in (-1, 4, 99):
        with pytest.raises(ValueError, match=f"no seat {seat} with 4 players"):
            compiled.encode(match, seat)
        with pytest.raises(ValueError, match=f"no seat {seat} with 4 players"):
            compiled.encode_turn(match, seat, np.zeros(NUM_ACTIONS, MASK_DTYPE))
    with pytest.raises(ValueError, match="a mask not of shape"):
        compiled.encode_turn(match, 0, np.zeros(10, MASK_DTYPE))
    with pytest.raises(ValueError, match="out must be a float32 array"):
        compiled.encode(match, 0, out=np.empty(10, np.float32))
    out = np.empty(compiled.layout.size, np.float32)
    assert compiled.encode(match, 1, out=out) is out
    assert np.array_equal(out, encode_view(view_of(match, 1)))


def test_kernel_names_and_the_missing_extra() -> None:
    rules = make_rules("dehla")
    assert type(make_encoder(rules)) is ObservationEncoder
    assert isinstance(make_encoder(rules, "numba"), CompiledEncoder)
    with pytest.raises(ValueError, match="kernel must be one of python, numba"):
        raw_env(kernel="cython")
    code = (
        "from dehla_env import raw_env\n"
        "raw_env()  # the pure-Python reference needs nothing more\n"
        "raw_env(kernel='numba')\n"
    )
    assert last_error_without_numba(code) == MISSING_NUMBA
