"""Decisions per second of each bot level, per ruleset, on one core.

    python benchmarks/bot_speed.py [--hands 200] [--seed 0] [--levels random,easy,medium,hard]

All seats play the same level on the same seeded deals; the figure is decisions per
second of whole hands (engine and view building included, as the arena sees it) and
the time inside ``act`` alone. The ratio to ``random`` measured in the same run is the
figure to compare between runs, because these machines are noisy.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from agents.playing.deals import deal_deck
from agents.playing.loop import by_seat, play, sampled
from agents.playing.stats import format_table
from agents.registry import make_agent
from dehla_env.engine import MatchState
from dehla_env.rules import make_rules

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("dehla", {}),
    ("dehla", {"trump": "chosen"}),
    ("dehla-direct", {}),
    ("dehla-direct", {"trump": "closed"}),
    ("dehla-direct", {"trump": "named", "scoring": "double-sar"}),
    ("dehla-direct", {"players": 6}),
    ("court-piece", {}),
    ("coat-pees", {}),
]


def measure(rules, spec: str, hands: int, seed: int) -> tuple[float, float]:
    """(decisions per second of whole hands, decisions per second inside act)."""
    decisions = 0
    in_act = 0.0
    total = 0.0
    for i in range(hands):
        deck = deal_deck(rules, seed, i)
        seats = [make_agent(spec, rules, seed * 1000 + i * 10 + s) for s in range(rules.players)]
        timers = [0.0]

        def timed(agent, timers=timers):
            inner = agent.act

            def act(view):
                t = time.perf_counter()
                a = inner(view)
                timers[0] += time.perf_counter() - t
                return a

            agent.act = act
            return agent

        seats = [timed(a) for a in seats]
        t = time.perf_counter()
        match = MatchState(rules, i % rules.players)
        match.apply_deal(deck)
        decisions += play(match, by_seat(seats), sampled(np.random.default_rng([seed, i, 1])))
        total += time.perf_counter() - t
        in_act += timers[0]
    return decisions / total, decisions / in_act if in_act > 0 else float("inf")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per level and ruleset (random: 5x)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--levels", default="random,easy,medium,hard")
    parser.add_argument("--rules", default=None, help="only this ruleset (dehla, dehla-direct, ...)")
    args = parser.parse_args(argv)
    levels = [s.strip() for s in args.levels.split(",") if s.strip()]
    if "random" not in levels:
        levels.insert(0, "random")
    rows = []
    for name, options in CONFIGS:
        if args.rules and name != args.rules:
            continue
        rules = make_rules(name, options)
        label = name + ("(" + ",".join(f"{k}={v}" for k, v in options.items()) + ")" if options else "")
        base = None
        for spec in levels:
            hands = args.hands * (5 if spec == "random" else 1)
            whole, act = measure(rules, spec, hands, args.seed)
            if spec == "random":
                base = whole
            assert base is not None
            rows.append([label, spec, f"{whole:,.0f}", f"{act:,.0f}", f"{whole / base:.3f}"])
            print(f"{label:45s} {spec:8s} {whole:10,.0f} dec/s", flush=True)
    print()
    headers = ["ruleset", "bot", "decisions/s", "in act/s", "vs random"]
    print(format_table(headers, rows, align="llrrr"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
