"""The benchmark's statistics (:mod:`agents.bench.sprt`, :mod:`agents.bench.ratings`),
checked on synthetic agents of known strength: numpy simulations with fixed seeds.

A simulated deal is played twice with the sides swapped, as the arena does. Each game is
one hand; a deal's *luck* favours one seat, so it raises A's chance in one game and lowers
it by as much in the other (the duplicate pair cancels it); a hand may end without a
winner (scored half), most often between even sides. A's expected score per hand is
exactly the chance the model says.
"""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

import numpy as np
import pytest

from agents.bench.ratings import (
    ELO_PER_NAT,
    TeamGame,
    adhoc_score,
    crossplay_gaps,
    fit_team_ratings,
    place_on_ladder,
)
from agents.bench.sprt import SPRT


# ---------------------------------------------------------------------- simulation
def duplicate_deals(
    rng: np.random.Generator, p: float | np.ndarray, size: int | tuple[int, ...], luck: float = 0.4, tie: float = 0.1
) -> np.ndarray:
    """Hands won by A over a deal's two games (0, 0.5, ..., 2), A's expected score per
    hand being ``p``. The deal's luck shifts ``p`` by up to ``luck * min(p, 1 - p)``,
    up in one game and down in the other, so no chance leaves [0, 1] and the pair's
    expectation stays ``2 p``; a hand ends without a winner with chance
    ``tie * 4 q (1 - q)`` (``q`` that game's chance)."""
    q = np.broadcast_to(np.asarray(p, dtype=float), size)
    shift = luck * np.minimum(q, 1.0 - q) * rng.uniform(-1.0, 1.0, size)

    def game(chance: np.ndarray) -> np.ndarray:
        draw = tie * 4.0 * chance * (1.0 - chance)
        win = chance - draw / 2.0
        u = rng.random(size)
        return np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))

    return game(q + shift) + game(q - shift)


def pair_scores(rng: np.random.Generator, mu: float, runs: int, pairs: int) -> np.ndarray:
    """``runs`` independent sequences of ``pairs`` pair scores (A's share of the deal's
    two hands: 0, .25, .5, .75 or 1) with mean ``mu``."""
    return duplicate_deals(rng, mu, (runs, pairs)) / 2.0


def bt_chance(r: float, r_opp: float) -> float:
    """Bradley-Terry on the Elo scale: the chance that ``r`` wins a hand against ``r_opp``."""
    return 1.0 / (1.0 + 10.0 ** ((r_opp - r) / 400.0))


def decisions(test: SPRT, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run's decision (as a string; "None" when it never decided) and its length."""
    states = [test.first_decision(run) for run in runs]
    return np.array([str(s.decision) for s in states]), np.array([s.n for s in states])


# ---------------------------------------------------------------------- SPRT
RUNS = 1000
SLACK = 3.0 * math.sqrt(0.05 * 0.95 / RUNS)  # three Monte-Carlo standard errors at rate 0.05


def test_sprt_claims_a_false_edge_at_most_alpha_of_the_time():
    test = SPRT(delta=0.05, alpha=0.05, beta=0.05)
    runs = pair_scores(np.random.default_rng(11), mu=0.5, runs=RUNS, pairs=2000)
    decided, _ = decisions(test, runs)
    assert np.mean(decided == "None") < 0.02  # (almost) every run ends
    assert np.mean(decided == "H1") <= test.alpha + SLACK


def test_sprt_misses_a_real_edge_of_delta_at_most_beta_of_the_time():
    test = SPRT(delta=0.05, alpha=0.05, beta=0.05)
    runs = pair_scores(np.random.default_rng(12), mu=0.55, runs=RUNS, pairs=2000)
    decided, _ = decisions(test, runs)
    assert np.mean(decided == "None") < 0.02
    assert np.mean(decided == "H0") <= test.beta + SLACK


def test_sprt_decides_a_strong_edge_in_far_fewer_pairs_than_a_fixed_sample_test():
    test = SPRT(delta=0.05)
    rng = np.random.default_rng(13)
    runs = pair_scores(rng, mu=0.7, runs=100, pairs=1000)
    decided, lengths = decisions(test, runs)
    assert np.all(decided == "H1")
    # the fixed-sample one-sided z-test with the same error rates at the same delta
    z = NormalDist().inv_cdf(1.0 - test.alpha) + NormalDist().inv_cdf(1.0 - test.beta)
    var = float(pair_scores(rng, mu=0.5, runs=1, pairs=10_000).var())
    fixed = math.ceil((z / test.delta) ** 2 * var)
    assert np.median(lengths) * 5 <= fixed, (np.median(lengths), fixed)


def test_sprt_takes_no_decision_before_min_pairs_and_survives_zero_variance():
    test = SPRT(delta=0.05, min_pairs=20)
    perfect = np.ones(100)
    assert test.evaluate(perfect[:19]).decision is None
    state = test.first_decision(perfect)
    assert (state.n, state.decision) == (20, "H1")
    assert math.isfinite(state.llr)
    split = np.full(100, 0.5)  # every deal split: zero variance, no edge
    assert test.first_decision(split).decision == "H0"


def test_first_decision_stops_at_the_first_crossing_even_if_later_pairs_undo_it():
    test = SPRT(delta=0.1, min_pairs=20)
    scores = np.concatenate([np.ones(30), np.zeros(200)])
    first = test.first_decision(scores)
    assert (first.n, first.decision) == (20, "H1")
    assert test.evaluate(scores).decision == "H0"  # the final state alone says otherwise


def test_first_decision_is_deterministic_and_is_the_earliest_prefix_that_decides():
    test = SPRT(delta=0.05)
    scores = pair_scores(np.random.default_rng(14), mu=0.56, runs=1, pairs=3000)[0]
    state = test.first_decision(scores)
    assert state.decision is not None
    assert test.first_decision(scores) == state
    assert test.first_decision(list(scores)) == state
    assert test.evaluate(scores[: state.n]) == state
    assert all(test.evaluate(scores[:k]).decision is None for k in range(1, state.n))


def test_sprt_bounds_and_summary():
    test = SPRT(delta=0.05, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    state = test.evaluate(np.ones(25))
    assert "H1 accepted" in state.summary() and "25 pairs" in state.summary()
    assert "no decision" in test.evaluate([0.5, 1.0]).summary()
    empty = test.evaluate([])
    assert (empty.n, empty.decision) == (0, None)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"delta": 0.0},
        {"delta": 0.5},
        {"delta": -0.1},
        {"delta": 0.05, "alpha": 0.0},
        {"delta": 0.05, "alpha": 1.0},
        {"delta": 0.05, "beta": 0.0},
        {"delta": 0.05, "alpha": 0.6, "beta": 0.5},
        {"delta": 0.05, "mu0": 0.0},
        {"delta": 0.3, "mu0": 0.8},
        {"delta": 0.05, "min_pairs": 1},
        {"delta": 0.05, "min_pairs": 2.5},
        {"delta": 0.05, "var_floor": 0.0},
        {"delta": float("nan")},
    ],
)
def test_sprt_refuses_invalid_arguments(kwargs):
    with pytest.raises(ValueError):
        SPRT(**kwargs)


@pytest.mark.parametrize("bad", [[0.5, 1.5], [0.5, -0.25], [0.5, float("nan")], [[0.5, 0.5]]])
def test_sprt_refuses_what_cannot_be_a_pair_score(bad):
    with pytest.raises(ValueError):
        SPRT(delta=0.05).evaluate(bad)


# ---------------------------------------------------------------------- the ladder
REFS = {"ref0": 0.0, "ref200": 200.0, "ref400": 400.0}


def ladder_results(rng: np.random.Generator, rating: float, deals: int = 2000) -> dict:
    """Per reference: the new agent's hands won per deal, out of 2 hands."""
    return {name: (duplicate_deals(rng, bt_chance(rating, r), deals), np.full(deals, 2.0)) for name, r in REFS.items()}


def test_place_on_ladder_recovers_a_known_rating():
    est = place_on_ladder(REFS, ladder_results(np.random.default_rng(21), rating=300.0))
    assert est.contains(300.0), est
    assert abs(est.value - 300.0) < 20.0
    assert est.n == 3 * 2000
    assert est.low < est.value < est.high


def test_place_on_ladder_moves_with_the_published_scale():
    results = ladder_results(np.random.default_rng(22), rating=300.0, deals=300)
    base = place_on_ladder(REFS, results, n_boot=50)
    shifted = place_on_ladder({k: v + 1000.0 for k, v in REFS.items()}, results, n_boot=50)
    assert shifted.value == pytest.approx(base.value + 1000.0, abs=1e-6)
    assert shifted.low == pytest.approx(base.low + 1000.0, abs=1e-6)


def test_place_on_ladder_is_seeded():
    results = ladder_results(np.random.default_rng(23), rating=100.0, deals=200)
    assert place_on_ladder(REFS, results, n_boot=50, seed=5) == place_on_ladder(REFS, results, n_boot=50, seed=5)


def test_a_perfect_score_gets_a_finite_rating_above_every_reference():
    results = {name: (np.full(100, 2.0), np.full(100, 2.0)) for name in REFS}
    est = place_on_ladder(REFS, results, n_boot=50)
    assert math.isfinite(est.value) and math.isfinite(est.low) and math.isfinite(est.high)
    assert est.value > max(REFS.values())
    zero = place_on_ladder(REFS, {name: (np.zeros(100), np.full(100, 2.0)) for name in REFS}, n_boot=50)
    assert math.isfinite(zero.value) and zero.value < min(REFS.values())


def test_place_on_ladder_refuses_unknown_references_and_bad_scores():
    with pytest.raises(ValueError, match="without a rating"):
        place_on_ladder(REFS, {"stranger": (np.ones(3), np.full(3, 2.0))})
    with pytest.raises(ValueError, match="between 0 and its hands"):
        place_on_ladder(REFS, {"ref0": (np.full(3, 3.0), np.full(3, 2.0))})
    with pytest.raises(ValueError):
        place_on_ladder(REFS, {})


# ---------------------------------------------------------------------- team ratings
TEAM_NAMES = ("a", "b", "c", "d")
TEAM_TRUTH = np.array([-150.0, -50.0, 50.0, 150.0])  # Elo, mean 0 (the fit's centring)


def team_games(rng: np.random.Generator, deals: int = 40) -> list[TeamGame]:
    """Every partnership of two (an agent with itself included) against every other,
    ``deals`` duplicate deals each, hands won with the additive model's chance."""
    teams = list(itertools.combinations_with_replacement(range(len(TEAM_NAMES)), 2))
    games = []
    for side_a, side_b in itertools.combinations(teams, 2):
        eta = (TEAM_TRUTH[list(side_a)].sum() - TEAM_TRUTH[list(side_b)].sum()) / ELO_PER_NAT
        won = duplicate_deals(rng, 1.0 / (1.0 + math.exp(-eta)), deals)
        names_a = tuple(TEAM_NAMES[i] for i in side_a)
        names_b = tuple(TEAM_NAMES[i] for i in side_b)
        games += [TeamGame(names_a, names_b, float(w) / 2.0, 2.0) for w in won]
    return games


def test_fit_team_ratings_recovers_individual_strengths_from_partnerships():
    fit = fit_team_ratings(TEAM_NAMES, team_games(np.random.default_rng(31)))
    assert fit.order() == ["d", "c", "b", "a"]
    assert sum(fit.ratings[n].value for n in TEAM_NAMES) == pytest.approx(0.0, abs=1e-6)
    for name, truth in zip(TEAM_NAMES, TEAM_TRUTH):
        assert fit.ratings[name].contains(truth), (name, truth, fit.ratings[name])
    table = fit.table()
    assert table.splitlines()[0].startswith("| # | agent | rating")
    assert table.splitlines()[2].startswith("| 1 | d |")


def test_a_member_listed_twice_counts_twice():
    # a in both seats of its side against b in both: the side's log-odds are 2 (theta_a - theta_b)
    rng = np.random.default_rng(32)
    diff, deals = 200.0 / ELO_PER_NAT, 3000
    games = [
        TeamGame(("a", "a"), ("b", "b"), float(x) / 2, 2.0)
        for x in duplicate_deals(rng, 1 / (1 + math.exp(-diff)), deals)
    ]
    fit = fit_team_ratings(("a", "b"), games, n_boot=50)
    assert fit.ratings["a"].value - fit.ratings["b"].value == pytest.approx(100.0, abs=15.0)


def test_team_games_are_checked():
    with pytest.raises(ValueError):
        TeamGame((), ("b",), 0.5, 2.0)
    with pytest.raises(ValueError):
        TeamGame(("a",), ("b",), 1.5, 2.0)
    with pytest.raises(ValueError):
        TeamGame(("a",), ("b",), 0.5, 0.0)
    with pytest.raises(ValueError, match="not among the agents"):
        fit_team_ratings(("a", "b"), [TeamGame(("a",), ("z",), 0.5, 2.0)])
    with pytest.raises(ValueError, match="in no game"):
        fit_team_ratings(("a", "b", "c"), [TeamGame(("a",), ("b",), 0.5, 2.0)])


# ---------------------------------------------------------------------- cross-play
CROSS = {
    ("a", "a"): 0.8,
    ("b", "b"): 0.6,
    ("c", "c"): 0.5,
    ("a", "b"): 0.5,
    ("b", "a"): 0.7,  # a with b: both seatings, mean 0.6
    ("a", "c"): 0.4,  # a with c: one seating only
}


def test_crossplay_gaps_on_a_hand_written_table():
    gaps = crossplay_gaps(CROSS)
    assert set(gaps) == {"a", "b", "c"}
    a, b, c = gaps["a"], gaps["b"], gaps["c"]
    assert (a.self_play, a.cross_play, a.gap) == pytest.approx((0.8, 0.5, 0.3))  # mean of 0.6 and 0.4
    assert a.partners == ("b", "c")
    assert (b.self_play, b.cross_play, b.gap) == pytest.approx((0.6, 0.6, 0.0))  # b never played with c
    assert (c.self_play, c.cross_play, c.gap) == pytest.approx((0.5, 0.4, 0.1))


def test_crossplay_gap_is_nan_without_self_play():
    gaps = crossplay_gaps({("a", "b"): 0.5, ("b", "b"): 0.7})
    assert math.isnan(gaps["a"].self_play) and math.isnan(gaps["a"].gap)
    assert gaps["a"].cross_play == pytest.approx(0.5)


def test_adhoc_score_averages_partners_and_seatings():
    assert adhoc_score(CROSS, "a", ["a", "b", "c"]) == pytest.approx(0.5)  # itself skipped
    assert adhoc_score(CROSS, "b", ["a"]) == pytest.approx(0.6)
    assert adhoc_score(CROSS, "c", ["a"]) == pytest.approx(0.4)  # the (a, c) seating counts for c too
    with pytest.raises(KeyError):
        adhoc_score(CROSS, "b", ["c"])  # never played together: an error, not a silent skip
    with pytest.raises(ValueError):
        adhoc_score(CROSS, "a", ["a"])
