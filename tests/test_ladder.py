"""The bot ladder, measured with the arena on duplicate deals (fixed seeds).

In ``dehla`` (default options) each level beats the one below with the 95% interval of
its hand win rate above 0.5; in every ruleset ``hard`` beats ``easy`` likewise (300 deals
each, enough for the narrowest of them but named trump with double-sar scoring).
Deal counts are sized from measured margins (2000 deals, seed 7: hard-medium 0.556,
medium-easy 0.590, easy-random 0.669; 500 deals of hard-easy: dehla chosen 0.60,
dehla-direct 0.73-0.87, court-piece 0.58, coat-pees 0.74, named + double-sar only
0.52-0.54) so that each lower bound clears 0.5 by several standard errors. The large
run is ``-m slow``.
"""

from __future__ import annotations

import pytest

from agents.arena import run_duel, run_round_robin
from dehla_env.rules import make_rules
from tests.rulesets import RULESETS, ruleset_id

SEED = 7
WORKERS = 2


def _check(rules, a, b, deals, seed=SEED):
    d = run_duel(rules, a, b, deals, seed=seed, workers=WORKERS)
    wr = d.win_rate
    assert wr.low > 0.5, f"{rules} {a} vs {b}: win rate {wr} over {deals} deals"
    return d


@pytest.mark.parametrize(
    ("a", "b", "deals"),
    [("hard", "medium", 800), ("medium", "easy", 500), ("easy", "random", 200)],
)
def test_dehla_ladder(a, b, deals):
    d = _check(make_rules("dehla"), a, b, deals)
    assert d.tens_diff.low > 0.0  # the better bot also takes more tens


@pytest.mark.parametrize(("name", "options"), RULESETS, ids=[ruleset_id(c) for c in RULESETS])
def test_hard_beats_easy_in_every_ruleset(name, options):
    _check(make_rules(name, options), "hard", "easy", 300)


def test_hard_beats_easy_named_double_sar():
    """Named trump with double-sar scoring is the closest race (hand win rate ~0.54):
    the tens difference shows hard's edge cheaply; the win-rate interval needs the
    slow run below."""
    d = run_duel(
        make_rules("dehla-direct", trump="named", scoring="double-sar"), "hard", "easy", 150, SEED, workers=WORKERS
    )
    assert d.tens_diff.low > 0.0, f"tens difference {d.tens_diff}"
    assert d.win_rate.value > 0.5, f"win rate {d.win_rate}"


@pytest.mark.slow
def test_hard_beats_easy_named_double_sar_interval():
    _check(make_rules("dehla-direct", trump="named", scoring="double-sar"), "hard", "easy", 2000, seed=8)


@pytest.mark.slow
def test_full_ladder_large():
    """Round robin of the four levels on 2000 duplicate deals: every level above the
    next with the interval above 0.5, and the ratings in order."""
    agents = ["hard", "medium", "easy", "random"]
    rr = run_round_robin(make_rules("dehla"), agents, 2000, SEED, workers=WORKERS, n_boot=200)
    for i in range(len(agents) - 1):
        wr = rr.duels[(i, i + 1)].win_rate
        assert wr.low > 0.5, f"{agents[i]} vs {agents[i + 1]}: {wr}"
    assert [rr.agents[i] for i in rr.ratings.order()] == agents
    for i in range(len(agents) - 1):
        assert rr.ratings.low[i] > rr.ratings.high[i + 1] or rr.ratings.elo[i] > rr.ratings.elo[i + 1]
