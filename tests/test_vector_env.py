"""The vector env's API, seeding, auto-reset, errors and memory; the batched policies
and the learner wrapper. (Equality with the reference env: test_vector_equivalence.py.)"""

from __future__ import annotations

import tracemalloc
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from agents.bots.batched import CardSensePolicy, RandomPolicy, TenSafePolicy, TorchPolicy, make_batched_policy
from dehla_env import IllegalMoveError
from dehla_env.actions import NUM_ACTIONS
from dehla_env.encoding import layout_for
from dehla_env.rewards import RewardKind, side0_reward
from dehla_env.rules import make_rules
from dehla_env.vector import LearnerVectorEnv, random_legal, vector_env
from tests.rulesets import RULESETS, ruleset_id

SAME = {"autoreset_mode": "same_step"}


def _play(env: Any, steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset()
    for _ in range(steps):
        actions = random_legal(info["action_mask"], rng)
        obs, rewards, terminated, truncated, info = env.step(np.maximum(actions, 0))
    return obs, rewards, info


def _act(info: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Random legal actions; 0 where no action is legal (NEXT_STEP ignores those)."""
    return np.maximum(random_legal(info["action_mask"], rng), 0)


def test_it_is_a_gymnasium_vector_env_with_gymnasiums_spaces_and_modes() -> None:
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        env = vector_env("dehla", num_envs=8, seed=0, autoreset_mode=mode)
        assert isinstance(env, gymnasium.vector.VectorEnv)
        assert env.metadata["autoreset_mode"] is mode
        D = layout_for(4).size
        assert env.single_observation_space == gymnasium.spaces.Box(0.0, 3.0, (D,), np.float32)
        assert env.observation_space.shape == (8, D)
        assert env.single_action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
        assert env.action_space == gymnasium.spaces.MultiDiscrete(np.full(8, NUM_ACTIONS))
        assert env.render_mode is None and isinstance(env.np_random, np.random.Generator)
        obs, info = env.reset(seed=1)
        assert obs.shape == (8, D) and obs.dtype == np.float32 and env.observation_space.contains(obs)
        assert info["action_mask"].shape == (8, NUM_ACTIONS) and info["action_mask"].dtype == bool
        assert info["seat"].shape == (8,) and ((info["seat"] >= 0) & (info["seat"] < 4)).all()
        assert info["action_mask"].any(axis=1).all()
        assert info["rewards"].shape == (8, 4)
        obs, rewards, terminated, truncated, info = env.step(_act(info, np.random.default_rng(0)))
        assert rewards.shape == (8,) and rewards.dtype == np.float32
        assert terminated.shape == truncated.shape == (8,) and terminated.dtype == bool
        assert "final_obs" not in info
        env.close()
        assert env.closed


def test_gymnasiums_vector_wrappers_take_it() -> None:
    """RecordEpisodeStatistics, NormalizeReward and FlattenObservation (NEXT_STEP, the
    default; FlattenObservation is gymnasium's and refuses SAME_STEP)."""
    from gymnasium.wrappers.vector import FlattenObservation, NormalizeReward, RecordEpisodeStatistics

    env = FlattenObservation(NormalizeReward(RecordEpisodeStatistics(vector_env("dehla", num_envs=16, seed=1))))
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(160):
        obs, rewards, terminated, truncated, info = env.step(_act(info, rng))
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] == 52).all()  # a dehla hand: 52 cards
    assert episodes >= 16 * 2
    stats = RecordEpisodeStatistics(vector_env("court-piece", num_envs=16, seed=1, **SAME))
    _obs, info = stats.reset()
    for _ in range(100):
        _obs, _r, _t, _tr, info = stats.step(_act(info, rng))
    assert len(stats.return_queue) > 0


def test_next_step_shows_the_end_then_deals_anew() -> None:
    """NEXT_STEP: the step that ends a hand returns its final observation, no legal
    action and the actor's reward; the next step deals a new hand there, its action
    ignored, reward 0."""
    env = vector_env("dehla", num_envs=32, seed=3)
    rng = np.random.default_rng(3)
    obs, info = env.reset()
    seen = 0
    pending = np.zeros(32, bool)
    for _ in range(120):
        actor = info["seat"].copy()
        obs, rewards, terminated, _, info = env.step(_act(info, rng))
        assert not (terminated & pending).any()
        assert (rewards[pending] == 0).all() and info["action_mask"][pending].any(axis=1).all()
        if terminated.any():
            assert not info["action_mask"][terminated].any()
            assert (obs[terminated, -8:].sum(axis=1) > 0).all()  # the match values after the hand
            assert np.array_equal(rewards[terminated], info["rewards"][terminated, actor[terminated]])
            assert set(np.unique(rewards[terminated])) <= {-1.0, 1.0}
            seen += int(terminated.sum())
        pending = terminated
    assert seen >= 32


def test_one_hand_per_episode_with_zero_sum_partner_rewards() -> None:
    env = vector_env("dehla", num_envs=64, seed=1, **SAME)
    rng = np.random.default_rng(1)
    obs, info = env.reset()
    hands = 0
    steps_since = np.zeros(64, int)
    for _ in range(300):
        obs, reward, terminated, _, info = env.step(random_legal(info["action_mask"], rng))
        rewards = info["rewards"]
        steps_since += 1
        assert (rewards[~terminated] == 0).all()
        done = rewards[terminated]
        assert set(np.unique(done[:, 0])) <= {-1.0, 1.0}  # R1.6: every dehla hand has a winner
        assert (done[:, 0] == done[:, 2]).all() and (done[:, 1] == done[:, 3]).all()
        assert (done[:, 0] == -done[:, 1]).all()
        # a dehla hand is 52 cards (plus nothing else with first-void trump)
        assert (steps_since[terminated] == 52).all()
        steps_since[terminated] = 0
        hands += int(terminated.sum())
        if terminated.any():
            assert np.array_equal(info["_final_obs"], terminated) and np.array_equal(info["_final_info"], terminated)
            finals = np.stack(info["final_obs"][terminated])
            assert finals.shape == (int(terminated.sum()), env.observation_size)
            assert (finals[:, -8:].sum(axis=1) > 0).all()  # match values after the hand
            out = info["final_info"]
            assert set(out) >= {"winner", "kot", "tricks", "tens", "trump", "dealer", "seat"}
            assert (out["tens"][terminated].sum(axis=1) == 4).all()
            assert (out["tricks"][terminated].sum(axis=1) == 13).all()
        else:
            assert "final_obs" not in info
    assert hands >= 64 * 5


@pytest.mark.parametrize("kind", ["tens", "tricks"])
def test_reward_kinds(kind: str) -> None:
    env = vector_env("dehla", num_envs=32, seed=2, reward=kind, **SAME)
    rng = np.random.default_rng(2)
    obs, info = env.reset()
    for _ in range(110):
        obs, rewards, terminated, _, info = env.step(random_legal(info["action_mask"], rng))
        if terminated.any():
            out = info["final_info"]
            key = "tens" if kind == "tens" else "tricks"
            scale = 4 if kind == "tens" else 13
            expected = (out[key][terminated, 0] - out[key][terminated, 1]) / scale
            np.testing.assert_allclose(info["rewards"][terminated, 0], expected, rtol=1e-6)


def test_seeding_is_reproducible() -> None:
    a = _play(vector_env("coat-pees", num_envs=16, seed=5), 90)
    b = _play(vector_env("coat-pees", num_envs=16, seed=5), 90)
    c = _play(vector_env("coat-pees", num_envs=16, seed=6), 90)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[2]["action_mask"], b[2]["action_mask"])
    assert not np.array_equal(a[0], c[0])
    env = vector_env("coat-pees", num_envs=16)
    env.reset(seed=5)
    first, _ = vector_env("coat-pees", num_envs=16, seed=5).reset()
    again, _ = env.reset(seed=5)
    assert np.array_equal(first, again)


def test_first_dealers_are_uniform_unless_fixed() -> None:
    env = vector_env("dehla", num_envs=8000, seed=3)
    env.reset()
    counts = np.bincount(env.engine.dealer, minlength=4)
    assert (abs(counts - 2000) < 200).all()
    fixed = vector_env("dehla", num_envs=50, seed=3, first_dealer=2)
    obs, info = fixed.reset()
    assert (fixed.engine.dealer == 2).all() and (info["seat"] == 3).all()  # R1.2: dealer+1 leads


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = vector_env("dehla", num_envs=4, seed=7)
    twin = vector_env("dehla", num_envs=4, seed=7)
    obs, info = env.reset()
    twin.reset()
    actions = random_legal(info["action_mask"], np.random.default_rng(0))
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~info["action_mask"][2])[0])
    with pytest.raises(IllegalMoveError, match="game 2"):
        env.step(bad)
    with pytest.raises(IllegalMoveError):
        env.step(np.full(4, NUM_ACTIONS))
    with pytest.raises(ValueError):
        env.step(actions[:3])
    o1, r1, t1, _, i1 = env.step(actions)
    o2, r2, t2, _, i2 = twin.step(actions)
    assert np.array_equal(o1, o2) and np.array_equal(i1["action_mask"], i2["action_mask"])


def test_copy_option() -> None:
    env = vector_env("dehla", num_envs=4, seed=0)
    obs1, info1 = env.reset()
    obs2, _, _, _, info1 = env.step(_act(info1, np.random.default_rng(0)))
    assert obs1 is not obs2 and not np.shares_memory(obs1, obs2)
    # arrays still held (directly or through a view) are never recycled; released ones are
    rng = np.random.default_rng(1)
    kept, snapshots, view = [], [], None
    for t in range(12):
        obs2, _, _, _, info1 = env.step(_act(info1, rng))
        if t < 3:
            kept.append(obs2)
            snapshots.append(obs2.copy())
        if t == 5:
            view = obs2[1:3]
            view_snapshot = view.copy()
    for a, b in zip(kept, snapshots):
        assert np.array_equal(a, b)
    assert view is not None and np.array_equal(view, view_snapshot)
    fast = vector_env("dehla", num_envs=4, seed=0, copy=False)
    obs1, info1 = fast.reset()
    obs2, *_ = fast.step(_act(info1, np.random.default_rng(0)))
    assert obs1 is obs2  # the same buffer, overwritten


def test_final_obs_modes_agree() -> None:
    envs = {mode: vector_env("dehla", num_envs=16, seed=8, final_obs=mode, **SAME) for mode in ("actor", "all", 3)}
    infos = {mode: env.reset()[1] for mode, env in envs.items()}
    rng = np.random.default_rng(8)
    ended = 0
    for _ in range(60):
        actions = random_legal(infos["actor"]["action_mask"], rng)
        for mode, env in envs.items():
            infos[mode] = env.step(actions)[4]
        actor, every, three = infos["actor"], infos["all"], infos[3]
        if "final_obs" not in actor:
            continue
        for i in np.flatnonzero(actor["_final_obs"]):
            seat = actor["final_info"]["seat"][i]
            assert np.array_equal(actor["final_obs"][i], every["final_obs"][i][seat])
            assert np.array_equal(three["final_obs"][i], every["final_obs"][i][3])
            ended += 1
    assert ended == 16
    with pytest.raises(ValueError, match="SAME_STEP"):
        vector_env("dehla", final_obs="all")


def test_final_obs_can_be_switched_off() -> None:
    env = vector_env("court-piece", num_envs=16, seed=0, final_obs=False, **SAME)
    rng = np.random.default_rng(0)
    obs, info = env.reset()
    seen = 0
    for _ in range(80):
        obs, rewards, terminated, _, info = env.step(random_legal(info["action_mask"], rng))
        assert "final_obs" not in info
        seen += int(terminated.sum())
    assert seen > 0


def test_uint8_codes_and_their_float_view() -> None:
    """obs_dtype="uint8": a quarter of the bytes, and codes / observation_scale is the
    float32 observation exactly (tests/test_vector_equivalence.py checks every entry)."""
    fast = vector_env("dehla-direct", num_envs=64, seed=9, obs_dtype="uint8")
    ref = vector_env("dehla-direct", num_envs=64, seed=9)
    a, ia = fast.reset()
    b, ib = ref.reset()
    rng = np.random.default_rng(9)
    for _ in range(60):
        assert a.dtype == np.uint8 and fast.observation_space.contains(a)
        assert np.array_equal(fast.float_view(a), b)
        torch = pytest.importorskip("torch")
        assert np.array_equal((torch.from_numpy(a).float() / torch.from_numpy(fast.observation_scale)).numpy(), b)
        actions = _act(ia, rng)
        a, _, _, _, ia = fast.step(actions)
        b, _, _, _, ib = ref.step(actions)
    with pytest.raises(ValueError, match="obs_dtype"):
        vector_env("dehla", obs_dtype="float16")


def test_reset_with_given_decks_and_errors() -> None:
    env = vector_env("dehla", num_envs=2, seed=0)
    decks = np.stack([np.arange(52), np.arange(52)[::-1]])
    env.reset(options={"decks": decks, "dealers": np.array([0, 3])})
    assert env.engine.dealer.tolist() == [0, 3]
    assert env.engine.hand_cards(0, 1) == [0, 4, 8, 12, 16]  # R0.3: dealer+1 gets positions 0, 4, ...
    with pytest.raises(ValueError, match="permutation"):
        env.reset(options={"decks": np.zeros((2, 52), int), "dealers": np.array([0, 0])})
    with pytest.raises(ValueError):
        env.reset(options={"decks": decks, "dealers": np.array([0, 4])})
    with pytest.raises(ValueError, match="single hands"):
        vector_env("dehla", episode="match")
    with pytest.raises(ValueError):
        vector_env("dehla", reward="points")
    with pytest.raises(ValueError):
        vector_env("court-piece", reward="tens")
    with pytest.raises(ValueError, match="autoreset_mode"):
        vector_env("dehla", autoreset_mode="disabled")
    with pytest.raises(gymnasium.error.ResetNeeded):
        vector_env("dehla", num_envs=2).step(np.zeros(2, int))


@pytest.mark.parametrize("cfg", RULESETS, ids=ruleset_id)
def test_every_ruleset_and_policy_plays_legal_moves(cfg: tuple[str, dict[str, Any]]) -> None:
    name, opts = cfg
    env = vector_env(name, num_envs=1 if opts.get("players") == 6 else 24, seed=4, **SAME, **opts)
    n = env.num_players
    policies = [RandomPolicy(0), TenSafePolicy(n, 1), CardSensePolicy(n, 2)]
    obs, info = env.reset()
    hands = 0
    for t in range(400):
        policy = policies[t % 3]
        actions = policy(obs, info["action_mask"])
        assert info["action_mask"][np.arange(len(actions)), actions].all()
        obs, _reward, terminated, _, info = env.step(actions)
        rewards = info["rewards"]
        hands += int(terminated.sum())
        assert np.allclose(rewards[:, 0::2].sum(axis=1) / (n // 2), -rewards[:, 1::2].sum(axis=1) / (n // 2))
    assert hands > 0


def _win_rate(learner: str, opponents: str, hands: int = 1500, rules: str = "dehla") -> float:
    env = vector_env(rules, num_envs=256, seed=11)
    wrapped = LearnerVectorEnv(env, learner_seats=(0, 2), opponents=make_batched_policy(opponents, 4, 3), seed=12)
    policy = make_batched_policy(learner, 4, 13)
    obs, info = wrapped.reset()
    total = won = 0
    while total < hands:
        assert np.isin(info["seat"], (0, 2)).all()
        obs, rewards, terminated, _, info = wrapped.step(policy(obs, info["action_mask"]))
        total += int(terminated.sum())
        won += int((rewards[terminated] > 0).sum())
    return won / total


def test_card_sense_beats_random_and_ten_safe_is_not_worse() -> None:
    assert _win_rate("cardsense", "random") > 0.65
    assert _win_rate("tensafe", "random") > 0.5


def test_learner_wrapper_with_a_torch_opponent() -> None:
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: thread hand-offs would cost more than the work
    try:
        _learner_wrapper_with_a_torch_opponent(torch)
    finally:
        torch.set_num_threads(threads)


def _learner_wrapper_with_a_torch_opponent(torch: Any) -> None:
    env = vector_env("coat-pees", num_envs=32, seed=0)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(env.observation_size, 32), torch.nn.ReLU(), torch.nn.Linear(32, 85))
    opponent = TorchPolicy(model, seed=0)
    wrapped = LearnerVectorEnv(env, learner_seats=(1,), opponents=opponent, seed=1)
    assert len(wrapped._policies) == 1  # one callable plays seats 0, 2 and 3 in one batch
    obs, info = wrapped.reset()
    rng = np.random.default_rng(0)
    hands = 0
    for _ in range(30):
        assert (info["seat"] == 1).all()
        assert info["action_mask"].any(axis=1).all()
        obs, rewards, terminated, truncated, info = wrapped.step(random_legal(info["action_mask"], rng))
        assert (rewards[~terminated] == 0).all()
        assert info["final_obs"].shape == obs.shape
        assert (info["final_obs"][terminated].sum(axis=1) > 0).all()
        hands += int(terminated.sum())
    assert hands >= 32
    with pytest.raises(ValueError):
        LearnerVectorEnv(env, learner_seats=(0, 1))
    with pytest.raises(TypeError, match="callable"):
        LearnerVectorEnv(env, learner_seats=(0,), opponents={1: "random"})
    with pytest.raises(ValueError, match="not played by a policy"):
        LearnerVectorEnv(env, learner_seats=(0,), opponents={0: RandomPolicy(0)})


def test_memory_per_game_allows_65536_games_in_2_gb() -> None:
    n = 4096
    tracemalloc.start()
    env = vector_env("dehla", num_envs=n, seed=0)
    obs, info = env.reset()
    obs, *_ = env.step(random_legal(info["action_mask"], np.random.default_rng(0)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per_game = peak / n
    assert per_game * 65536 < 1.5 * 2**30, f"{per_game:.0f} bytes per game"
    assert env.engine.nbytes() / n < 4000


@pytest.mark.parametrize(
    ("ruleset", "kinds"),
    [
        ("dehla", ["win", "tens", "tricks"]),
        ("court-piece", ["win", "tricks", "points"]),
        ("coat-pees", ["win", "tricks", "points"]),
    ],
)
def test_a_hand_paid_alone_is_paid_what_a_batch_of_hands_pays(ruleset: str, kinds: list[str]) -> None:
    """``side0_reward`` takes plain numbers for one hand (``raw_env``) and arrays for a
    batch (the vector env, the trainer): the same table, the same floats."""
    rules = make_rules(ruleset)
    rng = np.random.default_rng(4)
    g = 500
    winner, kot = rng.integers(-1, 2, g), rng.integers(-1, 2, g)
    tens, tricks, score = rng.integers(0, 5, (g, 2)), rng.integers(0, 14, (g, 2)), rng.integers(-26, 27, (g, 2))
    for kind in map(RewardKind, kinds):
        batch = side0_reward(kind, rules, winner=winner, tens=tens, tricks=tricks, kot=kot, score=score)
        one = [
            side0_reward(
                kind,
                rules,
                winner=int(w),
                tens=tuple(t.tolist()),
                tricks=list(r.tolist()),
                kot=int(k),
                score=tuple(s.tolist()),
            )
            for w, t, r, k, s in zip(winner, tens, tricks, kot, score, strict=True)
        ]
        assert all(type(x) is float for x in one)
        assert batch.dtype == np.float64 and batch.tolist() == one, kind


def test_a_step_before_reset_is_reset_needed() -> None:
    env = vector_env("dehla", num_envs=2, seed=0)
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"step\(\) before reset"):
        env.step(np.zeros(2, np.int64))


def test_reset_options_are_checked_with_one_clear_error() -> None:
    """Without its companion, ``decks`` was a KeyError; floats were cut to cards silently."""
    env = vector_env("dehla", num_envs=2, seed=0)
    decks = np.stack([np.arange(52), np.arange(52)[::-1]])
    dealers = np.array([0, 3])
    bad = {
        "needs dealers too": {"decks": decks},
        "needs decks too": {"dealers": dealers},
        "unknown reset option.*reset_mask": {"decks": decks, "dealers": dealers, "reset_mask": [True, False]},
        "decks must be an integer array.*float64": {"decks": decks.astype(float), "dealers": dealers},
        "dealers must be an integer array.*bool": {"decks": decks, "dealers": np.array([True, False])},
        "decks must have shape \\(2, 52\\), not \\(1, 52\\)": {"decks": decks[:1], "dealers": dealers},
        "dealers must have shape": {"decks": decks, "dealers": np.array([[0, 3]])},
        "decks must be an integer array": {"decks": [[1, 2], [3]], "dealers": dealers},
        "card ids 0..51": {"decks": decks + 1, "dealers": dealers},
        "seats 0..3": {"decks": decks, "dealers": np.array([0, 4])},
    }
    for message, options in bad.items():
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    with pytest.raises(ValueError, match="a dict"):
        env.reset(options=[("decks", decks)])  # type: ignore[arg-type]
    env.reset(options={})
    env.reset(options={"decks": decks.tolist(), "dealers": [0, 3]})
    assert env.engine.dealer.tolist() == [0, 3]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_taken_mid_play_continues_exactly_as_the_original(how: str) -> None:
    """The engine's flat views and the observer's windows were copied as arrays of their
    own (the copy's writes missed its state): the copy is now rebound to its own arrays
    on load."""
    import copy
    import pickle

    env = vector_env("dehla", num_envs=4, seed=1, autoreset_mode="same_step")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    for _ in range(20):
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    twin_info = info
    for _ in range(80):  # past the end of the hands: the redeals draw from the copied generator
        actions = random_legal(info["action_mask"], rng)
        obs, reward, terminated, _, info = env.step(actions)
        twin_obs, twin_reward, twin_terminated, _, twin_info = twin.step(actions)
        assert np.array_equal(obs, twin_obs) and np.array_equal(reward, twin_reward)
        assert np.array_equal(terminated, twin_terminated)
        assert np.array_equal(info["action_mask"], twin_info["action_mask"])
    assert (env.engine.hands != twin.engine.hands).any() or env.engine is not twin.engine
