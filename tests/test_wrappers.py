"""The gymnasium single-agent wrapper: API checks, rewards, seeding, policies, ids."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.base import RandomAgent
from agents.envs import ENV_IDS, register_envs
from dehla_env import IllegalMoveError, raw_env
from dehla_env.actions import NUM_ACTIONS
from dehla_env.view import PlayerView
from dehla_env.wrappers import MAX_HAND_STEPS, SingleAgentEnv


def _check_env(env: gymnasium.Env) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes.*")
        check_env(env)


def run_episode(
    env: gymnasium.Env, seed: int | None, action_seed: int = 0
) -> list[tuple[dict[str, Any], float, bool, bool, dict[str, Any]]]:
    """Random legal learner actions to the end of the episode."""
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    trace: list[tuple[dict[str, Any], float, bool, bool, dict[str, Any]]] = [(obs, 0.0, False, False, info)]
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return trace


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return bool(a == b)


# ---------------------------------------------------------------------- gymnasium checks
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"learner": "side", "learner_seat": 1},
        {"rules": "dehla-direct", "trump": "closed", "learner_seat": 2},
        {"rules": "dehla-direct", "players": 6, "learner": "side"},
        {"rules": "court-piece", "reward": "points", "observation": "structured"},
        {"rules": "coat-pees", "learner": "side", "episode": "match", "gap": 10},
    ],
    ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "default",
)
def test_check_env_passes(kwargs: dict[str, Any]) -> None:
    # check_env steps with unmasked samples of the action space, so it needs illegal
    # actions to end the episode rather than raise
    _check_env(SingleAgentEnv(illegal_action="terminate", **kwargs))


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_check_env_passes_for_registered_ids(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = gymnasium.make(env_id)
    _check_env(env)  # also makes it with each render mode; "human" prints
    _check_env(env.unwrapped)
    capsys.readouterr()


def test_registration_is_idempotent_and_complete() -> None:
    register_envs()
    register_envs()
    for env_id, rules in ENV_IDS.items():
        spec = gymnasium.spec(env_id)
        assert spec.entry_point == "agents.envs:single_agent_env"
        assert spec.kwargs["rules"] == rules
        assert spec.max_episode_steps == MAX_HAND_STEPS
        env = gymnasium.make(env_id)
        assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.rules.name == rules
        trace = run_episode(env, seed=1)
        assert trace[-1][2] and len(trace) - 1 < MAX_HAND_STEPS
    assert env.unwrapped.illegal_action == "terminate"  # the registered ids are the safe kind
    env = gymnasium.make("DehlaPakad-v0", trump="chosen", learner="side")
    assert env.unwrapped.rules.trump == "chosen" and env.unwrapped.learner_seats == (0, 2)


def test_spaces_are_the_aec_envs() -> None:
    for kwargs in ({}, {"observation": "structured"}, {"rules": "dehla-direct", "players": 6}):
        env = SingleAgentEnv(**kwargs)
        aec = raw_env(**({"rules": "dehla"} | kwargs))
        assert env.observation_space == aec.observation_space("player_0")
        assert env.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)


# ---------------------------------------------------------------------- rewards
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"learner_seat": 3, "reward": "tens"},
        {"learner": "side", "learner_seat": 1, "reward": "tricks"},
        {"rules": "court-piece", "learner_seat": 2, "reward": "points"},
        {"rules": "coat-pees", "learner": "side", "episode": "match", "gap": 10},
        {"rules": "dehla-direct", "players": 6, "learner_seat": 5},
    ],
    ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "default",
)
def test_reward_is_the_sides_reward(kwargs: dict[str, Any]) -> None:
    """Replaying the same actions in the AEC env: the learner's rewards sum to its side's."""
    played: list[int] = []

    def recording(view: PlayerView) -> int:
        action = view.legal_actions[0] if view.hands_completed % 2 else view.legal_actions[-1]
        played.append(action)
        return action

    env = SingleAgentEnv(opponents=recording, **kwargs)
    aec_kwargs = {k: v for k, v in kwargs.items() if k not in ("learner", "learner_seat")}
    totals = []
    for seed in range(3):
        played.clear()
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        total = 0.0
        learner_obs = []
        terminated = truncated = False
        while not (terminated or truncated):
            assert env.raw.match is not None and env.raw.match.current_player() == info["seat"]
            learner_obs.append((info["seat"], obs))
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            played.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
        aec = raw_env(**({"rules": "dehla"} | aec_kwargs))
        aec.reset(seed=seed)
        side_seat = env.learner_seat
        expected = 0.0
        seen = iter(learner_obs)
        for action in played:
            seat = aec.agent_name_mapping[aec.agent_selection]
            if seat in env.learner_seats:
                want_seat, want_obs = next(seen)
                assert seat == want_seat and _same(aec.observe(aec.agent_selection), want_obs)
            aec.step(action)
            expected += aec.rewards[aec.possible_agents[side_seat]]
        assert all(aec.terminations.values())
        assert total == pytest.approx(expected)
        totals.append(total)
        assert all(
            aec.rewards[a] == aec.rewards[aec.possible_agents[side_seat]]
            for a in aec.possible_agents[side_seat % 2 :: 2]
        )
    assert any(totals), "some episode should pay the learner"


def test_win_reward_in_hand_episodes() -> None:
    env = SingleAgentEnv(learner_seat=1)
    for seed in range(8):
        trace = run_episode(env, seed)
        assert all(r == 0.0 for _o, r, *_ in trace[:-1])
        match = env.raw.match
        assert match is not None and match.hands_completed == 1
        assert trace[-1][1] == (1.0 if match.summaries[-1].hand_winner == 1 else -1.0)


# ---------------------------------------------------------------------- seeding
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"learner": "side"}, {"rules": "dehla-direct", "trump": "closed", "observation": "structured"}],
    ids=["seat", "side", "closed-structured"],
)
def test_seeded_reset_reproduces_episodes(kwargs: dict[str, Any]) -> None:
    a, b = SingleAgentEnv(**kwargs), SingleAgentEnv(**kwargs)
    first = run_episode(a, seed=5)
    for env in (a, b):
        again = run_episode(env, seed=5)
        assert len(again) == len(first)
        assert all(_same(x, y) for x, y in zip(first, again))
    # the seed decides the opponents' play too, not only the deal
    assert not all(_same(x, y) for x, y in zip(first, run_episode(a, seed=6)))
    # an unseeded reset continues the seeded streams
    run_episode(a, seed=7)
    run_episode(b, seed=7)
    assert all(_same(x, y) for x, y in zip(run_episode(a, None), run_episode(b, None)))


def test_seed_reaches_agent_policies() -> None:
    """The same deal with opponents seeded differently: only reset(seed) decides."""
    agents = [RandomAgent(seed=0), RandomAgent(seed=999)]
    traces = []
    for agent in agents:
        env = SingleAgentEnv(opponents=agent, partner=RandomAgent(seed=1))
        traces.append(run_episode(env, seed=3))
    assert all(_same(x, y) for x, y in zip(*traces))


def test_random_agent_shortcut_matches_the_view_path() -> None:
    """Default RandomAgents skip building a view; a subclass takes the ordinary path."""

    class ViewRandom(RandomAgent):
        pass

    for kwargs in ({}, {"rules": "coat-pees", "learner": "side"}):
        fast = SingleAgentEnv(opponents=RandomAgent(), **kwargs)
        slow = SingleAgentEnv(opponents=ViewRandom(), **kwargs)
        for seed in range(3):
            assert all(_same(x, y) for x, y in zip(run_episode(fast, seed), run_episode(slow, seed)))


# ---------------------------------------------------------------------- policies
def test_opponents_as_dict_and_callable() -> None:
    calls: dict[str, list[int]] = {"one": [], "partner": []}

    def seat_one(view: PlayerView) -> int:
        assert view.to_act == view.seat == 1 and view.legal_actions
        calls["one"].append(view.seat)
        return view.legal_actions[0]

    def partner(view: PlayerView) -> int:
        calls["partner"].append(view.seat)
        return view.legal_actions[-1]

    env = SingleAgentEnv(opponents={1: seat_one, 3: RandomAgent(seed=4)}, partner=partner)
    trace = run_episode(env, seed=0)
    assert calls["one"] and set(calls["one"]) == {1}
    assert calls["partner"] and set(calls["partner"]) == {2}
    assert {info["seat"] for *_, info in trace} == {0}

    # a dict without the partner: the seats left out play random legal moves
    env = SingleAgentEnv(opponents={1: seat_one})
    assert env._policies[2] is None and env._policies[3] is None
    run_episode(env, seed=1)

    # one policy for everybody else, the partner included
    calls["partner"].clear()
    env = SingleAgentEnv(learner_seat=1, opponents=partner)
    run_episode(env, seed=2)
    assert set(calls["partner"]) == {0, 2, 3}


def test_bad_policies_and_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="not a seat played by a policy"):
        SingleAgentEnv(opponents={0: RandomAgent()})
    with pytest.raises(ValueError, match="not a seat played by a policy"):
        SingleAgentEnv(opponents={4: RandomAgent()})
    with pytest.raises(ValueError, match="partner"):
        SingleAgentEnv(learner="side", partner=RandomAgent())
    with pytest.raises(TypeError, match="neither an agent"):
        SingleAgentEnv(opponents=42)
    with pytest.raises(TypeError, match="agent spec"):
        SingleAgentEnv(opponents="hard")  # specs are resolved by agents.envs, not the env package
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(learner_seat=4)
    with pytest.raises(ValueError, match="learner must be"):
        SingleAgentEnv(learner="team")
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="unknown option"):
        SingleAgentEnv(colour="red")


def test_side_learner_acts_for_both_partner_seats() -> None:
    env = SingleAgentEnv(rules="dehla-direct", players=6, learner="side", learner_seat=3)
    assert env.learner_seats == (1, 3, 5)
    trace = run_episode(env, seed=4)
    seats = [info["seat"] for *_, info in trace]
    assert set(seats) == {1, 3, 5}
    assert len(trace) - 1 >= 3 * 26  # every card of three hands


# ---------------------------------------------------------------------- masks, illegal actions, render
def test_action_masks_and_info() -> None:
    env = SingleAgentEnv(rules="coat-pees", learner_seat=2)
    obs, info = env.reset(seed=9)
    terminated = False
    while not terminated:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and mask.any()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert info["seat"] == 2
        obs, _r, terminated, _t, info = env.step(int(np.flatnonzero(mask)[-1]))
    assert not env.action_masks().any() and not info["action_mask"].any() and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_action_raises_and_keeps_the_episode() -> None:
    env = SingleAgentEnv()
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError):
        env.step(illegal)
    with pytest.raises(IllegalMoveError):
        env.step(NUM_ACTIONS)
    assert _same(env._observation(), obs)  # nothing changed (R5): play on
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_illegal_action_terminates_with_minus_one_when_asked() -> None:
    env = SingleAgentEnv(illegal_action="terminate", learner="side")
    _obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any()


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = SingleAgentEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "seat 0" in text
    assert capsys.readouterr().out == ""
    human = SingleAgentEnv(rules="court-piece", render_mode="human")
    _obs, info = human.reset(seed=0)
    assert "court-piece" in capsys.readouterr().out
    human.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "court-piece" in capsys.readouterr().out
    assert human.render() is None
    # an unsupported mode warns, as gymnasium does (SB3's make_vec_env asks for rgb_array)
    with pytest.warns(UserWarning, match="rgb_array"):
        env = SingleAgentEnv(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None


def test_truncation_by_time_limit() -> None:
    env = gymnasium.make("DehlaPakad-v0", max_episode_steps=3)
    trace = run_episode(env, seed=0)
    assert len(trace) == 4 and trace[-1][3] and not trace[-1][2]
