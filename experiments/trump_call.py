"""How much of a player's strength is its trump call: swap the trump decisions of two bots.

    python experiments/trump_call.py --rules court-piece --spec policy:court-piece --trump hard \\
        --b hard --deals 2000 --seed 7

Side A plays its cards with ``--spec`` and makes its trump decisions (the R3.1 call from
five cards, R1.4 chosen, R4.2 bids and the trump after them) with ``--trump``; side B is
``--b``. The deals, seats, agent seeds and interval are the arena's
(:mod:`agents.arena`: each deal played both ways round, the pair of games the unit), so
``--spec X --trump X`` gives exactly ``dehla-arena --a X --b B``'s figure. Comparing
``--spec policy --trump hard`` with the policy alone says what the policy's own trump
call adds over ``hard``'s; ``--spec hard --trump policy`` says the same from the other side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.base import Agent  # noqa: E402
from agents.playing.duel import duel_in_process  # noqa: E402
from agents.playing.pool import torch_on_one_thread  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from dehla_env.engine import Phase  # noqa: E402
from dehla_env.rules import PRESETS, Rules, make_rules, parse_option_pairs  # noqa: E402
from dehla_env.view import PlayerView  # noqa: E402


class SplitAgent(Agent):
    """Cards from one agent, trump decisions (the trump and bidding phases) from another."""

    def __init__(self, cards: Agent, trump: Agent) -> None:
        super().__init__()
        self.cards, self.trump = cards, trump

    def act(self, view: PlayerView) -> int:
        deciding_trump = view.phase in (Phase.TRUMP, Phase.BID)
        return (self.trump if deciding_trump else self.cards).act(view)


def duel(rules: Rules, cards: str, trump: str, b: str, deals: int, seed: int) -> tuple[float, float, float]:
    """A's share of hands won against ``b`` and its 95% interval over the deals."""

    def side_a(seed: int) -> Agent:
        return SplitAgent(make_agent(cards, rules, seed), make_agent(trump, rules, seed))

    with torch_on_one_thread():
        est = duel_in_process(rules, side_a, b, deals=deals, seed=seed)
    return est.value, est.low, est.high


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="court-piece", choices=PRESETS)
    p.add_argument("--option", action="append", default=[], help="a rule option key=value (repeatable)")
    p.add_argument("--spec", required=True, help="agent spec that plays side A's cards")
    p.add_argument("--trump", required=True, help="agent spec that makes side A's trump decisions")
    p.add_argument("--b", default="hard", help="side B's agent spec")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args(argv)
    rules = make_rules(a.rules, parse_option_pairs(a.option))
    mean, low, high = duel(rules, a.spec, a.trump, a.b, a.deals, a.seed)
    print(f"{rules}: cards {a.spec}, trump {a.trump} vs {a.b}, {a.deals} deals (seed {a.seed})")
    print(f"A wins {mean:.3f} of hands [{low:.3f}, {high:.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
