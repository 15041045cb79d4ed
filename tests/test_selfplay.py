"""The trainer's pieces: the opponent pool and the self-play rollouts on the batched engine."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.policy import PolicyNet
from agents.training import selfplay
from agents.training.pool import OpponentPool
from dehla_env.encoding import observation_size
from dehla_env.rewards import RewardKind, reward_weights
from dehla_env.rules import make_rules
from dehla_env.vector import VectorEnv
from tests.rulesets import FOUR_PLAYER, first_of_each, ruleset_id


def _net(rules) -> PolicyNet:
    torch.manual_seed(0)
    return PolicyNet(observation_size(rules), (32,)).eval()


def test_the_pool_draws_only_what_it_holds() -> None:
    pool = OpponentPool({"self": 1.0, "snapshot": 5.0, "imitation": 5.0, "cardsense": 1.0})
    rng = np.random.default_rng(0)
    first = pool.draw(rng, 2000)
    assert set(first.tolist()) == {0, 1}  # no snapshot and no warm start yet
    pool.imitation = {"w": torch.zeros(1)}
    for i in range(7):
        pool.add_snapshot({"w": torch.full((1,), float(i))})
    assert len(pool.snapshots) == 5 and float(pool.snapshots[0]["w"]) == 2.0  # the last five kept
    later = pool.draw(rng, 12000)
    counts = np.bincount(later, minlength=pool.num_slots)
    assert pool.slot_names() == ["self", "cardsense", "imitation"] + [f"snapshot{i}" for i in range(5)]
    assert abs(counts[2] / 12000 - 5 / 12) < 0.02  # imitation by weight
    assert abs(counts[3:].sum() / 12000 - 5 / 12) < 0.02 and counts[3:].min() > 0  # snapshots share theirs


@pytest.mark.parametrize(
    "weights, phrase",
    [
        ({"grandmaster": 1.0}, "neither one of"),
        ({"snapshot": 1.0}, "besides snapshot and imitation"),
        ({"self": -1.0}, ">= 0"),
    ],
)
def test_a_bad_pool_is_refused(weights: dict[str, float], phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        OpponentPool(weights)


def _rollout(rules_name: str, weights: dict[str, float], seed: int, **options) -> tuple[selfplay.Rollout, VectorEnv]:
    rules = make_rules(rules_name, options)
    env = VectorEnv(rules, num_envs=24, autoreset_mode="same_step", final_obs=False, copy=False)
    pool = OpponentPool(weights)
    rng = np.random.default_rng(seed)
    net = _net(rules)
    opponents = pool.policies(rules, rng, lambda sd: net)
    kinds = {"win": 1.0, "tens": 0.25} if rules.tens_scoring else {"win": 1.0}
    sp = selfplay.SelfPlayEnv(env, pool, opponents, rng=rng, rounds=2, reward=reward_weights(kinds, rules))
    r = selfplay.collect(sp, net.masked_logits, seed=seed)
    return r, env


def test_a_rollout_is_whole_trajectories_with_the_reward_on_the_last_decision() -> None:
    r, env = _rollout("dehla", {"cardsense": 1.0}, seed=3)
    assert r.hands == 48 and r.pool_hands == 48  # two hands in each of 24 games, all against cardsense
    assert r.done[-1] and r.done.sum() == 48 * 2  # the learner's two seats per hand
    assert (r.reward[~r.done] == 0).all() and (np.abs(r.reward[r.done]) >= 0.75).all()  # win +-1, tens +-0.25 at most
    assert (r.mask.sum(1) > 1).all()  # forced moves are played, not stored
    assert r.mask[np.arange(len(r.action)), r.action].all()
    assert r.obs.shape == (len(r.action), observation_size(env.rules))
    assert np.allclose(np.exp(r.logp), np.exp(r.logp).clip(0, 1)) and (r.logp <= 0).all()
    assert 0 <= r.learner_score <= r.pool_hands


def test_self_play_learns_both_sides_and_the_rewards_are_zero_sum() -> None:
    r, _ = _rollout("dehla", {"self": 1.0}, seed=4)
    assert r.pool_hands == 0 and r.done.sum() == 48 * 4
    # each hand: two seats get +v, two get -v
    assert abs(float(r.reward[r.done].sum())) < 1e-4


#: the first entry of each preset (trump made by a void, named, called at the deal R3.1, bid for R4.2)
MIRRORED = first_of_each(FOUR_PLAYER)


@pytest.mark.parametrize("rules_name, options", MIRRORED, ids=[ruleset_id(c) for c in MIRRORED])
def test_a_rollout_is_the_same_from_the_same_seed(rules_name: str, options: dict) -> None:
    a, _ = _rollout(rules_name, {"self": 0.5, "cardsense": 0.5}, seed=11, **options)
    b, _ = _rollout(rules_name, {"self": 0.5, "cardsense": 0.5}, seed=11, **options)
    for field in ("obs", "priv", "mask", "action", "logp", "reward", "done"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    c, _ = _rollout(rules_name, {"self": 0.5, "cardsense": 0.5}, seed=12, **options)
    assert not np.array_equal(a.action[:50], c.action[:50])


def test_the_trainer_reward_is_the_environments_reward_definition() -> None:
    rules = make_rules("dehla")
    w = reward_weights({"win": 1.0, "tens": 0.5}, rules)
    assert w == {RewardKind.WIN: 1.0, RewardKind.TENS: 0.5}
    with pytest.raises(ValueError, match="tens"):
        reward_weights({"tens": 1.0}, make_rules("court-piece"))


@pytest.mark.parametrize("rules_name, options", MIRRORED, ids=[ruleset_id(c) for c in MIRRORED])
def test_the_real_hard_bot_plays_its_seats_on_a_mirror_of_each_game(rules_name: str, options: dict) -> None:
    """An agent spec in the pool is the bot itself, on a scalar mirror that every move
    of its game reaches (a mirror that fell behind would refuse a move, or fail to end
    with the batched hand)."""
    from agents.training.pool import ScalarOpponent

    rules = make_rules(rules_name, options)
    env = VectorEnv(rules, num_envs=6, autoreset_mode="same_step", final_obs=False, copy=False)
    pool = OpponentPool({"hard": 1.0}, rules=rules)
    rng = np.random.default_rng(5)
    opponents = pool.policies(rules, rng, lambda sd: None)
    assert isinstance(opponents[1], ScalarOpponent) and pool.slot_names()[1] == "hard"
    sp = selfplay.SelfPlayEnv(env, pool, opponents, rng=rng, rounds=2, reward=reward_weights({"win": 1.0}, rules))
    r = selfplay.collect(sp, _net(rules).masked_logits, seed=5)
    assert r.pool_hands == r.hands == 12 and not opponents[1].games  # every mirror ended with its hand


def test_a_sharded_rollout_is_the_same_in_worker_processes_and_in_this_one() -> None:
    """The shards of a rollout depend on their seeds, not on where they ran; one shard
    has the seeds an unsharded rollout always had (and the float32 observations, which
    it stores as the env's uint8 codes), and merged shards keep every trajectory whole."""
    from agents.training.runs import Stop
    from agents.training.workers import Workers

    rules = make_rules("dehla")
    net = _net(rules)
    pool = OpponentPool({"self": 0.4, "snapshot": 0.3, "hard": 0.3})
    pool.add_snapshot(_net(rules).state_dict())
    reward = reward_weights({"win": 1.0, "tens": 0.25}, rules)
    settings = selfplay.RolloutSettings(rules, 13, rounds=1, reward=tuple(reward.items()))
    tasks = selfplay.shard_tasks(settings, net, pool, shards=2, seed=(3, 0))
    assert [t.settings.num_games for t in tasks] == [7, 6] and tasks[0].env_seed != tasks[1].env_seed
    here = selfplay.merge([selfplay.collect_shard(t) for t in tasks])
    workers = Workers(2, Stop())
    try:
        there = selfplay.merge(workers.map(selfplay.collect_shard, tasks))
    finally:
        workers.close()
    for field in ("obs", "priv", "mask", "action", "logp", "reward", "done"):
        assert np.array_equal(getattr(here, field), getattr(there, field)), field
    assert here.hands == 13 and here.done.sum() == 2 * here.pool_hands + 4 * (13 - here.pool_hands)

    (one,) = selfplay.shard_tasks(settings, net, pool, shards=1, seed=(3, 0))
    single = selfplay.collect_shard(one)
    env = VectorEnv(rules, num_envs=13, autoreset_mode="same_step", final_obs=False, copy=False)
    rng = np.random.default_rng([3, 0])
    opponents = pool.policies(rules, rng, lambda sd: _load(rules, sd))
    sp = selfplay.SelfPlayEnv(env, pool, opponents, rng=rng, rounds=1, reward=reward)
    plain = selfplay.collect(sp, net.masked_logits, seed=[3, 0, 1])
    assert np.array_equal(single.action, plain.action) and np.array_equal(single.reward, plain.reward)
    # a shard stores uint8 codes, this float32 env floats: the same observations to the bit
    assert single.obs.dtype == np.uint8 and plain.obs.dtype == np.float32
    assert np.array_equal(single.observations(slice(None)), plain.observations(slice(None)))
    assert np.array_equal(single.priv, plain.priv)


def _load(rules, sd) -> PolicyNet:
    net = _net(rules)
    net.load_state_dict(sd)
    return net.eval()


# ---------------------------------------------------------------------------- partners
def _partner_rollout(
    opponents: dict[str, float], partners: dict[str, float] | None, seed: int, games: int = 24
) -> tuple[selfplay.Rollout, list, selfplay.Partners | None]:
    rules = make_rules("dehla")
    env = VectorEnv(rules, num_envs=games, autoreset_mode="same_step", final_obs=False, copy=False)
    pool = OpponentPool(opponents, rules=rules)
    rng = np.random.default_rng(seed)
    net = _net(rules)
    players = pool.policies(rules, rng, lambda sd: net)
    side = None
    if partners is not None:
        partner_pool = OpponentPool(partners, rules=rules)
        side = selfplay.Partners(partner_pool, partner_pool.policies(rules, rng, lambda sd: net))
    reward = reward_weights({"win": 1.0, "tens": 0.25}, rules)
    sp = selfplay.SelfPlayEnv(env, pool, players, rng=rng, rounds=2, reward=reward, partners=side)
    r = selfplay.collect(sp, net.masked_logits, seed=seed)
    return r, players, side


def test_default_partners_make_the_rollout_the_trainer_always_made() -> None:
    """Without partners the rollout is the one made before partners existed, draw for
    draw: the digest pins that rollout's moves, masks and rewards. A shard given the
    default weights (``{self: 1.0}``) is the shard given none."""
    import hashlib

    r, _, _ = _partner_rollout({"self": 0.4, "cardsense": 0.3, "hard": 0.3}, None, seed=21)
    digest = hashlib.sha256()
    for field in ("action", "done", "reward", "mask"):
        digest.update(np.ascontiguousarray(getattr(r, field)).tobytes())
    assert (len(r.action), r.decisions) == (1240, 2496)
    assert digest.hexdigest()[:16] == "d9d0ef914568baf1"

    rules = make_rules("dehla")
    pool = OpponentPool({"self": 0.5, "hard": 0.5})
    reward = reward_weights({"win": 1.0}, rules)
    plain, explicit = (
        selfplay.collect_shard(selfplay.shard_tasks(settings, _net(rules), pool, shards=1, seed=(2, 0))[0])
        for settings in (
            selfplay.RolloutSettings(rules, 8, reward=tuple(reward.items()), partners=()),
            selfplay.RolloutSettings(rules, 8, reward=tuple(reward.items()), partners=(("self", 1.0),)),
        )
    )
    for field in ("obs", "action", "logp", "reward", "done"):
        assert np.array_equal(getattr(plain, field), getattr(explicit, field)), field


def test_a_partner_population_stores_only_the_learners_own_seat() -> None:
    """Beside a partner that is not itself the learner plays one seat: one trajectory
    per hand against a bot (two with itself as partner), and one more on the other side
    when the opponent is itself; which seat of its side it plays is drawn."""
    alone, _, _ = _partner_rollout({"cardsense": 1.0}, {"cardsense": 1.0}, seed=6)
    assert alone.hands == 48 and alone.done.sum() == 48
    mixed, _, _ = _partner_rollout({"self": 1.0}, {"tensafe": 1.0}, seed=6)
    assert mixed.done.sum() == 48 * 3  # its one seat, and both seats of the other side
    half, _, _ = _partner_rollout({"cardsense": 1.0}, {"self": 0.5, "random": 0.5}, seed=6)
    assert 48 < half.done.sum() < 96


def test_a_scalar_hard_partner_is_a_mirror_of_its_own_and_plays_legal_moves() -> None:
    """The real bot as a partner gets instances apart from the opponents' (a mirror must
    see every move of its games): a mirror that missed a move would refuse the next one,
    or not end with the batched hand. A noisy one plays random legal moves too."""
    from agents.training.pool import NoisyPolicy, ScalarOpponent

    for partner in ("hard", "noisy:hard,eps=0.5"):
        r, opponents, side = _partner_rollout({"hard": 1.0}, {partner: 1.0}, seed=8, games=6)
        assert side is not None and isinstance(side.players[1], ScalarOpponent)
        assert side.players[1] is not opponents[1] and side.players[1].eps == (0.5 if "noisy" in partner else 0.0)
        assert r.hands == 12 and r.done.sum() == 12
        assert not opponents[1].games and not side.players[1].games  # every mirror ended with its hand
    _, _, side = _partner_rollout({"cardsense": 1.0}, {"noisy:cardsense,eps=0.2": 1.0}, seed=8, games=6)
    assert side is not None and isinstance(side.players[1], NoisyPolicy)


@pytest.mark.parametrize(
    "kind, phrase",
    [
        ("noisy:hard", "noisy:KIND,eps=P"),
        ("noisy:hard,eps=1.5", "noisy:KIND,eps=P"),
        ("noisy:self,eps=0.1", "not 'self'"),
        ("noisy:grandmaster,eps=0.1", "neither one of"),
    ],
)
def test_a_bad_noisy_kind_is_refused(kind: str, phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        OpponentPool({kind: 1.0})


def test_a_noisy_kind_names_its_player_and_probability() -> None:
    from agents.training.pool import parse_kind

    assert parse_kind("hard") == ("hard", 0.0)
    assert parse_kind("noisy:search:k=8,depth=3,eps=0.25") == ("search:k=8,depth=3", 0.25)
    pool = OpponentPool({"self": 1.0, "noisy:hard,eps=0.3": 1.0, "noisy:cardsense,eps=0.1": 1.0})
    assert pool.slot_names()[:3] == ["self", "noisy:cardsense,eps=0.1", "noisy:hard,eps=0.3"]


def test_a_greedy_policy_opponent_plays_as_one_batch_the_moves_its_agent_makes() -> None:
    """A shipped network as the opponent (``policy:dehla``) plays its seats as one batch
    (its greedy move per row): the same rollout, move for move, as its agent on a scalar
    mirror of every game. Sampling or relabelling, it stays an agent on a mirror."""
    from agents.nets.agent import GreedyBatch
    from agents.training.pool import ScalarOpponent

    rules = make_rules("dehla")
    rollouts = []
    for batched in (True, False):
        env = VectorEnv(rules, num_envs=8, autoreset_mode="same_step", final_obs=False, copy=False)
        pool = OpponentPool({"policy:dehla": 1.0}, rules=rules)
        rng = np.random.default_rng(4)
        opponents = pool.policies(rules, rng, lambda sd: None)
        assert isinstance(opponents[1], GreedyBatch)
        if not batched:
            opponents[1] = ScalarOpponent("policy:dehla", rules, 0)
        sp = selfplay.SelfPlayEnv(env, pool, opponents, rng=rng, rounds=2, reward=reward_weights({"win": 1.0}, rules))
        rollouts.append(selfplay.collect(sp, _net(rules).masked_logits, seed=4))
    assert rollouts[0].decisions == rollouts[1].decisions and rollouts[0].pool_hands == 16
    for field in ("obs", "action", "reward", "done"):
        assert np.array_equal(getattr(rollouts[0], field), getattr(rollouts[1], field)), field
    for spec in ("policy:dehla,sample=1", "policy:dehla,relabel=1"):
        players = OpponentPool({spec: 1.0}, rules=rules).policies(rules, np.random.default_rng(0), lambda sd: None)
        assert isinstance(players[1], ScalarOpponent)
