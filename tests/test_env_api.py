"""The PettingZoo AEC environment against PettingZoo's API and the env's own promises.

``api_test`` and ``seed_test`` over every ruleset and its main options; truncation by
``max_cycles``; rendering; seeded reproducibility of whole episodes; zero-sum rewards
with equal partners; the action mask in infos; illegal actions (raw: IllegalMoveError,
wrapped: terminated with -1); the privileged state's shape.
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state_space as check_state_space

from dehla_env import IllegalMoveError, env, raw_env
from dehla_env.actions import NUM_ACTIONS
from dehla_env.cards import NUM_CARDS
from tests.rulesets import RULESETS, first_of_each, rules_of, ruleset_id, with_options

# every ruleset of tests/rulesets.py as it is, and some again with env-level options on top:
# episode, observation and every valid reward kind
ALL_CONFIGS = with_options(
    {
        "dehla": [{}, {"episode": "match"}, {"observation": "structured"}, {"reward": "tens"}, {"reward": "tricks"}],
        "dehla-direct-players=6": [{}, {"observation": "structured"}],
        "dehla-direct-scoring=double-sar": [{}, {"reward": "tens"}],
        "court-piece": [{}, {"episode": "match", "reward": "points"}, {"reward": "points"}, {"reward": "tricks"}],
        "coat-pees": [
            {},
            {"episode": "match", "reward": "points", "gap": 20},
            {"reward": "points"},
            {"reward": "tricks"},
        ],
    }
)


def _make(config: tuple[str, dict[str, Any]], wrapped: bool = True, **extra: Any) -> Any:
    name, options = config
    return (env if wrapped else raw_env)(rules=name, **options, **extra)


def _quiet_api_test(e: Any, num_cycles: int) -> None:
    with warnings.catch_warnings():
        # api_test's advice for Box-only observations; a Dict with an action mask is the
        # PettingZoo classic convention
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(e, num_cycles=num_cycles)


def play_episode(e: Any, rng: np.random.Generator, max_steps: int = 100_000) -> list[tuple[Any, ...]]:
    """Random legal play to the end; returns ``(agent, observation, reward, action)`` per step."""
    trace: list[tuple[Any, ...]] = []
    for agent in e.agent_iter(max_steps):
        obs, reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, obs, reward, action))
        e.step(action)
    return trace


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    return bool(a == b)


# ---------------------------------------------------------------------- PettingZoo's tests
@pytest.mark.parametrize("config", ALL_CONFIGS, ids=ruleset_id)
def test_pettingzoo_api_test(config: tuple[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> None:
    _quiet_api_test(_make(config), num_cycles=60)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=ruleset_id)
def test_pettingzoo_api_test_raw_env(config: tuple[str, dict[str, Any]]) -> None:
    _quiet_api_test(_make(config, wrapped=False), num_cycles=60)


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=ruleset_id)
def test_pettingzoo_seed_test(config: tuple[str, dict[str, Any]]) -> None:
    seed_test(lambda: _make(config), num_cycles=60)


def test_max_cycles_truncates_every_agent() -> None:
    # PettingZoo's max_cycles_test needs a parallel_env, which a turn-based card game
    # does not have (``is_parallelizable`` is False); this is the same check for AEC.
    for config in first_of_each() + [c for c in RULESETS if rules_of(c).players == 6]:
        for k in (1, 3, 5):
            e = _make(config, wrapped=False, max_cycles=k)
            e.reset(seed=k)
            n = e.num_agents
            rng = np.random.default_rng(k)
            steps = 0
            while not any(e.truncations.values()):
                assert not any(e.terminations.values()), "no hand ends within five cycles"
                e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
                steps += 1
            assert steps == k * n
            assert all(e.truncations.values()) and not any(e.terminations.values())
            trace = play_episode(e, rng)  # every agent then takes its dead step
            assert sorted(a for a, *_ in trace) == sorted(e.possible_agents)
            assert all(action is None for *_, action in trace)
            assert e.agents == []


def test_no_truncation_when_the_hand_ends_first() -> None:
    e = raw_env(rules="dehla", max_cycles=100)
    e.reset(seed=3)
    play_episode(e, np.random.default_rng(3))
    assert not any(e.truncations.values())
    assert e.match is not None and e.match.hand.complete


# ---------------------------------------------------------------------- render
def test_render_ansi_returns_text_and_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    e = raw_env(rules="dehla", render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "seat 0" in text and "dealer" in text
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert isinstance(e.render(), str)
    assert capsys.readouterr().out == ""

    h = raw_env(rules="court-piece", render_mode="human")
    h.reset(seed=0)
    assert h.render() is None
    printed = capsys.readouterr().out
    assert h.rules.name in printed and "seat 3" in printed
    h.step(int(np.flatnonzero(h.observe(h.agent_selection)["action_mask"])[0]))
    assert h.rules.name in capsys.readouterr().out  # "human" renders after every step


def test_render_without_mode_returns_none() -> None:
    e = raw_env(rules="dehla")
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(rules="dehla", render_mode="rgb_array")


# ---------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("config", ALL_CONFIGS, ids=ruleset_id)
def test_reset_seed_reproduces_whole_episodes(config: tuple[str, dict[str, Any]]) -> None:
    e1 = _make(config)
    e2 = _make(config)
    traces = []
    for e in (e1, e2, e1):  # two environments, and the first one again after a full episode
        e.reset(seed=11)
        traces.append(play_episode(e, np.random.default_rng(5)))
    for other in traces[1:]:
        assert len(other) == len(traces[0])
        for (a1, o1, r1, x1), (a2, o2, r2, x2) in zip(traces[0], other):
            assert a1 == a2 and r1 == r2 and x1 == x2 and _same(o1, o2)
    e1.reset(seed=12)
    other_seed = play_episode(e1, np.random.default_rng(5))
    assert not _same(other_seed[0][1], traces[0][0][1]), "another seed should deal other cards"


def test_unseeded_reset_continues_the_seeded_stream() -> None:
    a, b = raw_env(rules="dehla"), raw_env(rules="dehla")
    for e in (a, b):
        e.reset(seed=7)
        e.reset()
    assert a.match is not None and b.match is not None
    assert a.match.hand.deck == b.match.hand.deck and a.match.dealer == b.match.dealer


@pytest.mark.parametrize(
    "copy_env", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))], ids=["deepcopy", "pickle"]
)
def test_a_copied_env_goes_on_as_the_original(copy_env: Any) -> None:
    """A deep copy or a pickle taken mid-hand (vectorising libraries do both) plays on
    exactly like the original: its own engine and its own incremental encoder."""
    original = raw_env(rules="dehla")
    original.reset(seed=4)
    for _ in range(9):
        original.step(int(np.flatnonzero(original.last()[0]["action_mask"])[0]))
    copied = copy_env(original)
    while original.agents:
        expected = original.last()
        assert all(_same(a, b) for a, b in zip(copied.last(), expected))
        action = None if expected[2] else int(np.flatnonzero(expected[0]["action_mask"])[-1])
        for e in (original, copied):
            e.step(action)
    assert not copied.agents


# ---------------------------------------------------------------------- rewards
@pytest.mark.parametrize("config", ALL_CONFIGS, ids=ruleset_id)
def test_rewards_zero_sum_and_partners_equal(config: tuple[str, dict[str, Any]]) -> None:
    rng = np.random.default_rng(1)
    e = _make(config, wrapped=False)
    match_episode = config[1].get("episode") == "match"
    paid = 0
    for episode in range(1 if match_episode else 4):
        e.reset(seed=episode)
        paid_out = dict.fromkeys(e.possible_agents, 0.0)  # rewards of every step
        received = dict.fromkeys(e.possible_agents, 0.0)  # what last() hands each agent
        for agent in e.agent_iter(6000):
            obs, reward, terminated, truncated, _ = e.last()
            received[agent] += reward
            e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            values = [e.rewards.get(a, 0.0) for a in e.possible_agents]
            if not (terminated or truncated):
                assert abs(sum(values)) < 1e-9, values
                assert all(v == values[s % 2] and -1.0 <= v <= 1.0 for s, v in enumerate(values)), values
                paid += any(v != 0 for v in values)
                for a, v in zip(e.possible_agents, values):
                    paid_out[a] += v
        if not match_episode or e.agents == []:
            totals = [received[a] for a in e.possible_agents]
            assert totals == [paid_out[a] for a in e.possible_agents], "last() must hand out every reward"
            assert abs(sum(totals)) < 1e-9 and all(v == totals[s % 2] for s, v in enumerate(totals))
    if not match_episode:
        assert paid > 0, "some hand should pay a reward"


def test_reward_kinds_are_checked_against_the_ruleset() -> None:
    with pytest.raises(ValueError, match="tens"):
        raw_env(rules="court-piece", reward="tens")
    with pytest.raises(ValueError, match="tens"):
        raw_env(rules="dehla-direct", scoring="tricks", reward="tens")
    with pytest.raises(ValueError, match="points"):
        raw_env(rules="dehla", reward="points")
    with pytest.raises(ValueError, match="reward"):
        raw_env(rules="dehla", reward="score")
    with pytest.raises(ValueError, match="episode"):
        raw_env(rules="dehla", episode="game")


def test_win_reward_matches_the_hand_winner() -> None:
    e = raw_env(rules="dehla")
    for seed in range(10):
        e.reset(seed=seed)
        play_episode(e, np.random.default_rng(seed))
        assert e.match is not None
        winner = e.match.summaries[-1].hand_winner
        rewards = [1.0 if s % 2 == winner else -1.0 for s in range(4)]
        e.reset(seed=seed)
        trace = play_episode(e, np.random.default_rng(seed))
        final = {a: r for a, _o, r, action in trace if action is None}
        assert [final[a] for a in e.possible_agents] == rewards


# ---------------------------------------------------------------------- masks and infos
@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_info_mask_matches_observation_and_is_zero_for_others(config: tuple[str, dict[str, Any]]) -> None:
    e = _make(config, wrapped=False)
    rng = np.random.default_rng(2)
    e.reset(seed=2)
    zeros = np.zeros(NUM_ACTIONS, dtype=np.int8)
    while not any(e.terminations.values()):
        me = e.agent_selection
        assert e.match is not None
        legal = np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal[e.match.legal_actions()] = 1
        for agent in e.possible_agents:
            mask = e.infos[agent]["action_mask"]
            obs_mask = e.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and obs_mask.dtype == np.int8
            if agent == me:
                assert np.array_equal(mask, obs_mask) and np.array_equal(mask, legal) and mask.any()
            else:
                assert np.array_equal(mask, zeros) and np.array_equal(obs_mask, zeros)
        e.step(int(rng.choice(np.flatnonzero(legal))))
    for agent in e.possible_agents:  # the episode is over: nobody may act
        assert not e.infos[agent]["action_mask"].any() and not e.observe(agent)["action_mask"].any()


def test_observation_mask_is_a_copy() -> None:
    e = raw_env(rules="dehla")
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    obs["action_mask"][:] = 0
    assert e.observe(e.agent_selection)["action_mask"].any()


# ---------------------------------------------------------------------- illegal actions
def _illegal_action(e: Any) -> int:
    mask = e.observe(e.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_raw_env_raises_on_an_illegal_action_and_keeps_the_state(config: tuple[str, dict[str, Any]]) -> None:
    e = _make(config, wrapped=False)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(7):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    agent = e.agent_selection
    before = e.observe(agent)
    with pytest.raises(IllegalMoveError, match="R"):
        e.step(_illegal_action(e))
    assert e.agent_selection == agent and _same(e.observe(agent), before)
    with pytest.raises(IllegalMoveError):
        e.step(NUM_ACTIONS + 3)  # out of range: the engine's "no such action"


@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_wrapped_env_terminates_an_illegal_action_with_minus_one(config: tuple[str, dict[str, Any]]) -> None:
    e = _make(config)
    e.reset(seed=5)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    offender = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
        e.step(_illegal_action(e))
    assert all(e.terminations.values())
    rewards: dict[str, float] = {}
    for agent in e.agent_iter():
        _obs, reward, terminated, truncated, _ = e.last()
        assert terminated or truncated
        rewards[agent] = reward
        e.step(None)
    assert rewards[offender] == -1.0
    assert all(r == 0.0 for a, r in rewards.items() if a != offender)
    assert set(rewards) == set(e.possible_agents)


# ---------------------------------------------------------------------- privileged state
@pytest.mark.parametrize("config", RULESETS, ids=ruleset_id)
def test_state_and_privileged_observation_shapes(config: tuple[str, dict[str, Any]]) -> None:
    e = _make(config, wrapped=False)
    check_state_space(e)
    e.reset(seed=6)
    rng = np.random.default_rng(6)
    n = e.num_players
    deck_size = e.rules.deck_size
    while True:
        state = e.state()
        assert state.shape == e.state_space.shape and state.dtype == np.float32
        assert state in e.state_space
        hands = state[: n * NUM_CARDS].reshape(n, NUM_CARDS)
        undealt = state[n * NUM_CARDS : (n + 1) * NUM_CARDS]
        trump = state[(n + 1) * NUM_CARDS : (n + 1) * NUM_CARDS + 4]
        assert e.match is not None
        hand = e.match.hand
        assert hands.sum(axis=1).tolist() == hand.hand_counts
        played = len(hand.history) * n + len(hand.trick_cards)
        assert hands.sum() + undealt.sum() + played == deck_size
        assert trump.sum() == (1 if hand.trump_suit >= 0 else 0)
        for agent in e.possible_agents:
            priv = e.privileged_observation(agent)
            assert priv.shape == e.state_space.shape and priv in e.state_space
            seat = e.agent_name_mapping[agent]
            assert np.array_equal(priv[: e.layout.size], e.observe(agent)["observation"])
            own = priv[e.layout.size : e.layout.size + NUM_CARDS]
            assert own.tolist() == hands[seat].tolist(), "relative seat 0 is the observer"
        if any(e.terminations.values()):
            break
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))


# ---------------------------------------------------------------------- env() is PettingZoo's three wrappers
def _pettingzoo_stack(**kwargs: Any) -> Any:
    from pettingzoo.utils import wrappers

    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _outcome(e: Any, action: Any) -> tuple[Any, ...]:
    try:
        e.step(action)
        raised = None
    except Exception as err:  # noqa: BLE001 - the kind of failure is what is compared
        raised = type(err).__name__
    if not e.agents:
        return (raised, "no agents")
    agent = e.agent_selection
    obs, reward, term, trunc, info = e.last()
    return (raised, agent, reward, term, trunc, dict(e._cumulative_rewards), obs["observation"].tobytes())


@pytest.mark.parametrize("rules", [name for name, _ in first_of_each()])
def test_env_behaves_exactly_as_pettingzoos_three_wrappers(rules: str) -> None:
    """Legal, illegal, out-of-range and malformed actions, steps after the end: env()
    (SafeEnv, one layer) and PettingZoo's stacked wrappers give the same results."""

    rng = np.random.default_rng(3)
    ours, theirs = env(rules=rules), _pettingzoo_stack(rules=rules)
    for seed in range(12):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for _ in range(80):
            obs = theirs.observe(theirs.agent_selection) if theirs.agents else None
            ours.observe(ours.agent_selection) if ours.agents else None
            roll = rng.random()
            if obs is None or theirs.terminations[theirs.agent_selection]:
                action: Any = None
            elif roll < 0.05:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])  # illegal: the game ends
            elif roll < 0.08:
                action = int(rng.choice([-1, 85, 1000]))  # outside the action space
            elif roll < 0.10:  # a numpy integer, as a policy gives it: legal or not
                action = np.int64(rng.choice(np.flatnonzero(obs["action_mask"] == rng.integers(2))))
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert _outcome(ours, action) == _outcome(theirs, action)
            if not theirs.agents:
                break
    fresh, stack = env(), _pettingzoo_stack()
    for e in (fresh, stack):
        with pytest.raises(AttributeError, match="before reset"):
            _ = e.agent_selection
        with pytest.raises(AttributeError, match="before reset"):
            e.last()
        with pytest.raises(Exception, match="reset"):
            e.step(0)


@pytest.mark.parametrize(
    "kwargs", [{"max_cycles": -1}, {"max_cycles": 0}, {"max_cycles": 1.5}, {"first_dealer": 9}, {"first_dealer": True}]
)
def test_bad_env_options_are_refused_at_construction(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        raw_env(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_a_seed_is_a_non_negative_integer(seed: Any) -> None:
    e = raw_env()
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=seed)


@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
def test_every_call_before_reset_is_reset_needed_naming_the_call(make: Any) -> None:
    """Before reset() these were a bare AssertionError or AttributeError: now gymnasium's
    ResetNeeded, naming the call (still an AttributeError, as PettingZoo raises, so
    hasattr() is False until reset)."""
    from gymnasium.error import ResetNeeded

    e = make(render_mode="ansi")
    calls = {
        "step()": lambda: e.step(0),
        "observe()": lambda: e.observe("player_0"),
        "last()": lambda: e.last(),
        "render()": lambda: e.render(),
        "state()": lambda: e.state(),
        "agent_selection": lambda: e.agent_selection,
        "agents": lambda: e.agents,
        "num_agents": lambda: e.num_agents,
        "rewards": lambda: e.rewards,
    }
    for name, call in calls.items():
        with pytest.raises(ResetNeeded, match=rf"^{re.escape(name)} before reset\(\)"):
            call()
    assert not hasattr(e, "agents")
    e.reset(seed=0)
    assert e.last()[2] is False and e.render() and e.num_agents == 4


def test_the_single_agent_env_before_reset_is_reset_needed() -> None:
    from gymnasium.error import ResetNeeded

    from dehla_env.wrappers import SingleAgentEnv

    e = SingleAgentEnv(render_mode="ansi")
    for name, call in {"step()": lambda: e.step(0), "render()": e.render, "action_masks()": e.action_masks}.items():
        with pytest.raises(ResetNeeded, match=re.escape(name)):
            call()
    e.reset(seed=0)
    assert e.action_masks().any()
