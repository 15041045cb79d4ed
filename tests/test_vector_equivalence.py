"""The batched engine and vector env against the reference engine and env.

The same deals, the same R1.4 draws and the same moves go through both: every decision
must show identical legal masks, seats and observations (float32-equal vectors); every
step identical rewards for every seat; every finished hand identical outcomes (trick
winners, takes, tricks, tens, trump, trump maker, contract, hand winner, kot) and
identical final observations for every seat; every seat's privileged critic features
(the hidden cards) read from the batched engine equal the reference's; every seat's
batched observation, now and then, equals the definition (:func:`dehla_env.encoding.encode_view`
of the seat's view). The reference side is :class:`dehla_env.env.raw_env` itself, with
its chance steps fed from the batched game. Then the R6 conformance sets (:mod:`tests.conformance`)
replay through the batched engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.bots.batched import CardSensePolicy
from dehla_env import make_rules
from dehla_env.encoding import ObservationEncoder, decode, encode_view, privileged_features
from dehla_env.engine import MatchState, Phase
from dehla_env.engine.hand import HandState
from dehla_env.env import raw_env
from dehla_env.tricks import trick_winner
from dehla_env.vector import random_legal, vector_env
from dehla_env.vector.decisions import rescore_tricks
from dehla_env.vector.engine import BatchEngine
from dehla_env.vector.observe import BatchObserver
from dehla_env.view import view_of
from tests.batched_replay import replay_records
from tests.conformance import conformance_sets, normalise
from tests.rulesets import FOUR_PLAYER, first_of_each, one_per_table_size, rules_of, ruleset_id, with_options


class _ScriptedEnv(raw_env):
    """The reference env, its chance steps (deal, R1.4 draw) taken from the batched game."""

    def __init__(self, vec: Any, slot: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.vec = vec
        self.slot = slot

    def _chance(self, match: Any) -> None:
        e = self.vec.engine
        if match.hand.phase == Phase.DRAW:
            match.apply_draw(int(e.draw_card[self.slot]))
        else:
            match.apply_deal([int(c) for c in e.deck[self.slot]])

    def new_hand(self) -> None:
        self.first_dealer = int(self.vec.engine.dealer[self.slot])
        self.reset()


def _diff(a: np.ndarray, b: np.ndarray, n: int) -> str:
    da, db = decode(a, n), decode(b, n)
    return ", ".join(k for k in da if not np.array_equal(da[k], db[k]))


def _outcome_of(env: raw_env) -> dict[str, Any]:
    match = env.match
    assert match is not None
    hand = match.hand
    summary = match.summaries[-1]
    result = summary.result
    return {
        "winner": -1 if result.winner is None else result.winner,
        "kot": -1 if result.kot is None else result.kot,
        "score": list(result.score),
        "tricks": list(hand.tricks),
        "tens": list(hand.tens),
        "trump": hand.trump_suit,
        "trump_maker": hand.trump_maker,
        "dealer": hand.dealer,
        "contract_seat": -1 if hand.contract is None else hand.contract[0],
        "contract_level": 0 if hand.contract is None else hand.contract[1],
    }


def all_follow_decks(rng: np.random.Generator, k: int) -> np.ndarray:
    """Decks whose first five cards each (R0.3 positions 0..19) have the same suit counts
    at every seat, so everybody can follow suit for five tricks: R1.4's draw is due."""
    decks = np.zeros((k, 52), np.int64)
    for i in range(k):
        counts = rng.multinomial(5, [0.25] * 4)
        while counts.max() > 3:  # at most 13 // 4 cards of a suit each
            counts = rng.multinomial(5, [0.25] * 4)
        first = np.zeros((4, 5), np.int64)
        used = []
        col = 0
        for suit, c in enumerate(counts):
            cards = suit * 13 + rng.permutation(13)[: 4 * c]
            first[:, col : col + c] = cards.reshape(4, c)
            used.extend(cards.tolist())
            col += c
        for row in first:
            rng.shuffle(row)
        rest = rng.permutation(np.setdiff1d(np.arange(52), used))
        decks[i, :20] = first.T.reshape(-1)  # position j * 4 + k goes to the k-th seat dealt
        decks[i, 20:] = rest
    return decks


def run_equivalence(
    rules_name: str,
    options: dict[str, Any],
    episodes: int,
    num_envs: int = 64,
    seed: int = 0,
    all_seats_every: int = 7,
    first_decks: np.ndarray | None = None,
    obs_dtype: str = "float32",
) -> dict[str, int]:
    """Play until ``episodes`` hands are complete; returns counts of what was compared.
    With ``obs_dtype="uint8"`` the env's codes are compared through its float view."""
    reward = options.pop("reward", "win")
    vec = vector_env(
        rules_name,
        num_envs=num_envs,
        seed=seed,
        reward=reward,
        final_obs="all",
        autoreset_mode="same_step",
        obs_dtype=obs_dtype,
        **options,
    )
    f = vec.float_view
    n = vec.num_players
    refs = [_ScriptedEnv(vec, i, rules=rules_name, reward=reward, **options) for i in range(num_envs)]
    if first_decks is None:
        obs, info = vec.reset()
    else:
        dealers = np.random.default_rng(seed).integers(n, size=num_envs)
        obs, info = vec.reset(options={"decks": first_decks, "dealers": dealers})
    for ref in refs:
        ref.new_hand()
    hard = CardSensePolicy(n, seed)
    rng = np.random.default_rng(seed + 1)
    use_hard = np.arange(num_envs) % 3 == 0  # a third of the games play the hard heuristic
    finished = 0
    decisions = 0
    draws = 0
    step = 0
    while finished < episodes:
        mask = info["action_mask"]
        seat = info["seat"]
        for i, ref in enumerate(refs):
            agent = ref.agent_selection
            s = ref.agent_name_mapping[agent]
            assert s == seat[i], f"game {i}: seat {seat[i]} to act, reference {s}"
            ref_obs = ref.observe(agent)
            assert np.array_equal(ref_obs["action_mask"].astype(bool), mask[i]), (
                f"game {i} step {step}: mask {np.flatnonzero(mask[i])} vs {np.flatnonzero(ref_obs['action_mask'])}"
            )
            assert np.array_equal(ref_obs["observation"], f(obs[i])), (
                f"game {i} step {step}: observation differs in {_diff(ref_obs['observation'], f(obs[i]), n)}"
            )
            if step % all_seats_every == 0:  # every seat's view, not only the one to act
                rows = np.full(n, i)
                views = f(vec.observer.observe(rows, np.arange(n)))
                hidden = vec.engine.privileged(rows, np.arange(n))  # the critics' features
                for other in range(n):
                    expected = encode_view(view_of(ref.match, other))  # type: ignore[arg-type]  # the definition
                    assert np.array_equal(expected, views[other]), (
                        f"game {i} step {step} seat {other}: {_diff(expected, views[other], n)}"
                    )
                    assert np.array_equal(privileged_features(ref.match, other), hidden[other]), (  # type: ignore[arg-type]
                        f"game {i} step {step} seat {other}: privileged features differ"
                    )
        actions = random_legal(mask, rng)
        if use_hard.any():
            actions[use_hard] = hard(obs[use_hard], mask[use_hard])
        actor = seat.copy()
        obs, reward, terminated, truncated, info = vec.step(actions)
        assert not truncated.any()
        rewards = info["rewards"]  # every seat's; ``reward`` is the actor's
        assert np.array_equal(reward, rewards[np.arange(num_envs), actor])
        decisions += num_envs
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            expected_r = np.array([ref.rewards[a] for a in ref.possible_agents], np.float32)
            assert np.array_equal(expected_r, rewards[i]), f"game {i} step {step}: rewards {rewards[i]} vs {expected_r}"
            ref_done = all(ref.terminations.values())
            assert ref_done == bool(terminated[i]), f"game {i} step {step}: terminated {terminated[i]}"
            if not ref_done:
                assert "final_obs" not in info or not info["_final_obs"][i]
                continue
            assert info["_final_obs"][i] and info["_final_info"][i]
            out = {key: v[i] for key, v in info["final_info"].items()}
            assert out["seat"] == actor[i]
            expected = _outcome_of(ref)
            got = {key: (list(out[key]) if np.ndim(out[key]) else int(out[key])) for key in expected}
            assert got == expected, f"game {i}: outcome {got} vs {expected}"
            for s, agent in enumerate(ref.possible_agents):
                ref_final = ref.observe(agent)["observation"]
                mine = f(info["final_obs"][i][s])
                assert np.array_equal(ref_final, mine), (
                    f"game {i} seat {s}: final observation differs in {_diff(ref_final, mine, n)}"
                )
            finished += 1
            draws += ref.match.hand.draw_card >= 0  # type: ignore[union-attr]
            ref.new_hand()
        step += 1
    return {"decisions": decisions, "hands": finished, "draws": draws}


#: every entry of tests/rulesets.py, some with env options (reward) or match options added
ALL = with_options(
    {
        "dehla": [{}, {"reward": "tens", "kots": 1}],
        "dehla-trump=chosen": [{}, {"reward": "tricks", "max_hands": 1}],
        "dehla-direct-trump=open": [{"match": "points", "points": 1}],
        "dehla-direct-trump=closed": [{"reward": "tens"}],
        "dehla-direct-trump=named": [{"scoring": "double-sar", "streak": 1}],
        "dehla-direct-scoring=tricks": [{"reward": "tricks", "max_hands": 1}],
        "dehla-direct-players=6": [
            {},
            {"trump": "closed", "scoring": "double-sar"},
            {"trump": "open", "scoring": "tricks"},
        ],
        "court-piece-defender_kot=True": [{"reward": "points", "points": 2}],
        "coat-pees": [{}, {"reward": "points", "gap": 8, "max_hands": 1}],
    }
)


def _players(config: tuple[str, dict[str, Any]]) -> int:
    """The table size of an entry of :data:`ALL` (its env options, the reward, left out)."""
    name, options = config
    return rules_of((name, {k: v for k, v in options.items() if k != "reward"})).players


CONFIGS = [c for c in ALL if _players(c) == 4]
SIX = [c for c in ALL if _players(c) == 6]


#: one configuration of each preset: the default check gives it the most hands, and the
#: slower variants of the check run on it alone
ONE_EACH = first_of_each(CONFIGS)
MAIN_HANDS = 600


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[ruleset_id(c) for c in CONFIGS])
def test_vector_env_matches_reference_env(index: int) -> None:
    name, opts = CONFIGS[index]
    run_equivalence(name, dict(opts), episodes=MAIN_HANDS if CONFIGS[index] in ONE_EACH else 120, seed=index)


@pytest.mark.parametrize(
    "index", range(0, len(CONFIGS), 2), ids=[ruleset_id(CONFIGS[i]) for i in range(0, len(CONFIGS), 2)]
)
def test_uint8_codes_are_the_reference_observation_exactly(index: int) -> None:
    """obs_dtype="uint8": codes / observation_scale is the float32 observation, bit for bit."""
    name, opts = CONFIGS[index]
    run_equivalence(name, dict(opts), episodes=40, num_envs=32, seed=100 + index, obs_dtype="uint8")


@pytest.mark.parametrize("cfg", SIX, ids=[ruleset_id(c) for c in SIX])
def test_six_players_match_reference_env(cfg: tuple[str, dict[str, Any]]) -> None:
    name, opts = cfg
    run_equivalence(name, dict(opts), episodes=40, num_envs=16, seed=3)
    run_equivalence(name, dict(opts), episodes=16, num_envs=8, seed=4, obs_dtype="uint8")


@pytest.mark.parametrize("trump", ["first-void", "chosen"])
def test_r14_draw_hands_match_reference_env(trump: str) -> None:
    """Deals where everybody follows suit for five tricks: the R1.4 draw happens inside
    the vector env (first-void); with chosen trump the same deals play normally."""
    decks = all_follow_decks(np.random.default_rng(2), 48)
    stats = run_equivalence(
        "dehla", {"trump": trump}, episodes=48, num_envs=48, seed=2, first_decks=decks, all_seats_every=2
    )
    if trump == "first-void":
        assert stats["draws"] >= 40  # the first hand of (nearly) every game drew its trump


@pytest.mark.slow
@pytest.mark.parametrize("cfg", ALL, ids=[ruleset_id(c) for c in ALL])
def test_vector_env_matches_reference_env_thousands(cfg: tuple[str, dict[str, Any]]) -> None:
    name, opts = cfg
    run_equivalence(name, dict(opts), episodes=3000, num_envs=256, seed=11, all_seats_every=3)


# --------------------------------------------------------------------- engine level
def test_the_batched_engines_trick_winner_is_the_rule_on_random_tricks() -> None:
    """R0.4 (and R2.8: between equal cards the first played wins): the card the batched
    engine finds winning a trick, as it does when a trump is revealed or named mid-trick
    (``rescore_tricks``), is :func:`~dehla_env.tricks.trick_winner`'s."""
    rng = np.random.default_rng(5)
    for config in one_per_table_size():
        k = 4000
        engine = BatchEngine(rules_of(config), k)
        n = engine.n
        cards = rng.integers(0, 52, size=(k, n))
        cards[:500, 1] = cards[:500, 0]  # equal cards (three packs): the first played wins
        trump = rng.integers(-1, 4, size=k)
        leader = rng.integers(0, n, size=k)
        engine.trick_cards[:] = cards
        engine.ntrick[:] = n
        engine.led[:] = cards[:, 0] // 13
        engine.trump[:] = trump
        engine.leader[:] = leader
        rescore_tricks(*engine._state, engine.all)
        want = [(lead + trick_winner(list(map(int, c)), int(t))) % n for c, t, lead in zip(cards, trump, leader)]
        assert engine.best_seat.tolist() == want


def test_engine_replays_given_deals_and_draws() -> None:
    """Drive BatchEngine directly (no env) with explicit decks and draws."""
    rules = make_rules("dehla")
    rng = np.random.default_rng(9)
    N = 200
    engine = BatchEngine(rules, N)
    observer = BatchObserver(engine)
    decks, dealers = engine.sample_deals(rng, N)
    decks[::2] = all_follow_decks(rng, N // 2)  # half the deals reach the R1.4 draw
    engine.deal(engine.all, decks, dealers)
    refs = []
    for i in range(N):
        m = MatchState(rules, int(dealers[i]))
        m.apply_deal([int(c) for c in decks[i]])
        refs.append(m)
    enc = ObservationEncoder(rules)
    draws = 0
    while True:
        due = np.flatnonzero(engine.phase == Phase.DRAW)
        if len(due):
            cards = engine.sample_draws(rng, due)
            for i, c in zip(due, cards):
                assert int(c) in refs[i].hand.draw_candidates()
                refs[i].apply_draw(int(c))
            engine.draw(due, cards)
            draws += len(due)
        active = np.flatnonzero(engine.phase != Phase.DONE)
        if not len(active):
            break
        mask = engine.legal_mask(active)
        for j, i in enumerate(active):
            assert np.array_equal(refs[i].legal_mask(), mask[j])
            if j % 5 == 0:
                seat = int(engine.to_act[i])
                obs = observer.observe(np.array([i]), np.array([seat]))[0]
                assert np.array_equal(enc.encode(refs[i], seat), obs)
        actions = random_legal(mask, rng)
        engine.step(actions, active)
        for a, i in zip(actions, active):
            refs[i].apply_action(int(a))
    assert draws > 0  # R1.4: some deals reach the draw
    for i in range(N):
        s = engine.summary(i)
        hand = refs[i].hand
        assert s["trick_winners"] == hand.trick_winners
        assert s["takes"] == [list(t) for t in hand.takes]
        assert s["tens"] == hand.tens and s["complete"]


# --------------------------------------------------------------------- R6 records
@pytest.mark.parametrize("folder", conformance_sets(), ids=lambda folder: f"{folder.parent.name}/{folder.name}")
def test_r6_conformance_records_replay_through_batched_engine(folder: Path) -> None:
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    expected = {}
    for line in (folder / "expected.jsonl").read_text().splitlines():
        r = json.loads(line)
        expected[r["id"]] = normalise(r)
    outputs = replay_records(records)
    assert len(outputs) == len(records)
    mismatched = [o["id"] for o in outputs if normalise(o) != expected[o["id"]]]
    assert not mismatched, f"{len(mismatched)} of {len(outputs)} records differ, first: {mismatched[:5]}"


def test_r6_bad_records_through_batched_engine() -> None:
    outs = replay_records(
        [
            {"id": "a", "rules": "whist", "first_dealer": 0, "hands": []},
            {"id": "b", "rules": "dehla", "first_dealer": 4, "hands": []},
            {"id": "c", "rules": "dehla", "first_dealer": 0, "hands": [{"deck": "AS KS", "moves": []}]},
            {"id": "d", "rules": "dehla", "first_dealer": 0, "hands": [{"deck": " ".join(["AS"] * 52)}]},
        ]
    )
    assert [o["error"]["hand"] for o in outs] == [None, None, 0, 0]
    assert all(o["error"]["move"] is None for o in outs)
    assert outs[2]["hands"] == [] and outs[2]["hands_played"] == 0


# every four-player entry of tests/rulesets.py (the batch loads four-player hands for search)
LOADED = FOUR_PLAYER


@pytest.mark.parametrize("cfg", LOADED, ids=ruleset_id)
def test_a_loaded_hand_plays_on_in_the_batch_as_in_the_reference_engine(cfg: tuple[str, dict[str, Any]]) -> None:
    """BatchEngine.load (what search uses to play sampled worlds out): hands stopped
    at every point of play, loaded into the batch, go on exactly as the reference
    hand does with the same moves and R1.4 draws: the same legal moves at every
    decision, the same observations (the batched observer against the one encoder),
    and the same tricks, tens, middle takes (R1.5), trump and outcome."""
    name, options = cfg
    rules = make_rules(name, options)
    rng = np.random.default_rng(11)
    k = 60
    batch = BatchEngine(rules, k)
    hands, stops, matches = [], [], []
    for _ in range(k):
        match = MatchState.new(rules, rng)
        matches.append(match)
        match.sample_chance(rng)
        hand = match.hand
        stop = int(rng.integers(0, 60))
        while not hand.complete and stop > 0:
            if hand.phase == Phase.DRAW:
                match.sample_chance(rng)
                continue
            legal = hand.legal_actions()
            hand.apply_action(legal[int(rng.integers(len(legal)))])
            stop -= 1
        while hand.phase == Phase.DRAW:
            match.sample_chance(rng)
        hands.append(hand)
        stops.append(stop)
    batch.load(np.arange(k), hands)
    loaded_at = {len(h.history) for h in hands}
    observer, encoder = BatchObserver(batch), ObservationEncoder(rules)
    for i, hand in enumerate(hands):
        while not hand.complete:
            if hand.phase == Phase.DRAW:
                card = hand.draw_candidates()[int(rng.integers(20))]
                hand.apply_draw(card)
                batch.draw(np.array([i]), np.array([card]))
                continue
            legal = hand.legal_actions()
            assert np.flatnonzero(batch.legal_mask(np.array([i]))[0]).tolist() == legal
            assert int(batch.to_act[i]) == hand.to_act
            seat = np.array([hand.to_act])
            assert (observer.observe(np.array([i]), seat)[0] == encoder.encode(matches[i], hand.to_act)).all()
            action = legal[int(rng.integers(len(legal)))]
            hand.apply_action(action)
            batch.step(np.array([action]), np.array([i]))
        assert int(batch.phase[i]) == int(Phase.DONE)
        assert batch.tricks[i].tolist() == hand.tricks and batch.tens[i].tolist() == hand.tens
        assert batch.trick_winners[i, : len(hand.trick_winners)].tolist() == hand.trick_winners
        assert [int(x) for x in np.flatnonzero(batch.take_cards[i])] == [t - 1 for t, _s, _c in hand.takes]
        assert int(batch.trump_suit[i]) == hand.trump_suit
        result, out = hand.result(), batch.outcome(np.array([i]))
        assert int(out["winner"][0]) == (-1 if result.winner is None else result.winner)
        assert out["score"][0].tolist() == list(result.score)
    assert any(s == 0 for s in stops) and len(loaded_at) > 3  # stopped all along the hand


@pytest.mark.parametrize("cfg", LOADED, ids=ruleset_id)
def test_a_loaded_hand_is_the_batch_state_of_the_same_hand_played_in_the_batch(cfg: tuple[str, dict[str, Any]]) -> None:
    """BatchEngine.load writes every array exactly as the batch itself would hold the
    hand had it dealt and played it: the same deals and moves through both."""
    from dehla_env.vector.kernel_types import HandArrays

    name, options = cfg
    rules = make_rules(name, options)
    rng = np.random.default_rng(12)
    k = 40
    played, loaded = BatchEngine(rules, k), BatchEngine(rules, k)
    decks, dealers = played.sample_deals(rng, k)
    played.deal(played.all, decks, dealers)
    hands = []
    for i in range(k):
        hand = HandState(rules, int(dealers[i]))
        hand.apply_deal([int(c) for c in decks[i]])
        for _ in range(int(rng.integers(0, 60))):
            if hand.complete:
                break
            if hand.phase == Phase.DRAW:
                card = hand.draw_candidates()[int(rng.integers(20))]
                hand.apply_draw(card)
                played.draw(np.array([i]), np.array([card]))
                continue
            legal = hand.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            hand.apply_action(action)
            played.step(np.array([action]), np.array([i]))
        if hand.phase == Phase.DRAW:
            card = hand.draw_candidates()[0]
            hand.apply_draw(card)
            played.draw(np.array([i]), np.array([card]))
        hands.append(hand)
    loaded.load(np.arange(k), hands)
    for field in HandArrays._fields:
        assert np.array_equal(getattr(loaded, field), getattr(played, field)), field


def test_a_closed_trump_is_seen_in_the_batch_as_the_view_decides() -> None:
    """R2.4c: a closed trump is hidden from everybody but its maker until it is
    revealed. The batched writer's decision (what its rows show of the trump) gives
    every seat, at every decision of many random hands, what the view decides
    (:func:`dehla_env.view.visible_trump`): the suit the seat sees, and whether a trump
    was made, kept from it, or is its own secret. (Six players, three packs, are held
    to the view through the observations: :meth:`BatchEngine.load` takes one pack.)"""
    from dehla_env.vector.observe import BatchObserver
    from dehla_env.view import visible_trump

    players = 4
    rules = make_rules("dehla-direct", trump="closed")
    rng = np.random.default_rng(4)
    states = {"none": 0, "seen": 0, "own secret": 0, "hidden": 0}
    for _ in range(40):
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        hand = match.hand
        while hand.phase != Phase.DONE:
            engine = BatchEngine(rules, 1)
            engine.load([0], [hand])
            rows = decode(BatchObserver(engine).observe(np.zeros(players, np.int64), np.arange(players)), players)
            state = rows["trump_state"].argmax(axis=1)
            suit = np.where(rows["trump_suit"].any(axis=1), rows["trump_suit"].argmax(axis=1), -1)
            for seat in range(players):
                seen, _in_force, kept_from_seat = visible_trump(hand, seat)
                assert suit[seat] == seen, (seat, hand.history)
                if hand.trump_suit < 0:
                    want = 0
                elif kept_from_seat:
                    want = 3
                elif hand.trump_hidden:
                    want = 2  # the maker's own secret
                else:
                    want = 1
                assert state[seat] == want, (seat, hand.history)
                states[list(states)[want]] += 1
            legal = hand.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
    assert all(states.values()), states  # every case came up
