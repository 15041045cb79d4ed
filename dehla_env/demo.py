"""Play out and print a seeded hand with random legal moves.

    python -m dehla_env.demo --rules dehla --seed 7 [--option trump=chosen ...]

Shows the engine end to end: the deal, trump making, every trick, the middle, and the
hand's result in R6 form.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from .actions import action_text
from .commands import typed_command
from .engine import MatchState
from .records import match_report
from .render import render_match
from .rules import PRESETS, RulesError, make_rules, parse_option_pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=typed_command("dehla_env.demo"), description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="dehla", choices=PRESETS)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed is a non-negative integer, not {args.seed}")
    try:
        rules = make_rules(args.rules, parse_option_pairs(args.option))
    except RulesError as e:
        parser.error(str(e))
    rng = np.random.default_rng(args.seed)
    match = MatchState.new(rules, rng)
    match.sample_chance(rng)
    print(render_match(match))
    tricks_seen = 0
    while not match.hand.complete:
        if match.is_chance():
            match.sample_chance(rng)
            print(f"\n-- chance: drew {action_text(match.hand.draw_card)} for trump (R1.4)")
            continue
        seat = match.current_player()
        legal = match.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        if action >= 52:
            print(f"\n-- seat {seat}: {action_text(action)}")
        match.apply_action(action)
        if len(match.hand.trick_winners) > tricks_seen:
            tricks_seen = len(match.hand.trick_winners)
            print()
            print(render_match(match))
    print("\nR6 result:")
    print(json.dumps(match_report(match)["hands"][-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
