"""The command line, ``python -m agents.arena`` (see the package docstring)."""

from __future__ import annotations

import argparse
import json

from agents.playing.command_line import (
    EXIT_BAD_INPUT,
    BadInput,
    Parser,
    add_run_arguments,
    at_least,
    capped_workers,
    connect,
    sayer,
    split_agents,
    stoppable,
)
from agents.playing.plot import plot_ladder, require_matplotlib
from agents.playing.results import DuelResult, RoundRobinResult, duel_ratings
from agents.playing.run import MAX_DEALS, check_duel, check_round_robin, run_duel, run_round_robin
from agents.registry import spec_help
from dehla_env.commands import typed_command
from dehla_env.rules import PRESETS, Rules, make_rules, parse_option_pairs

PROG = typed_command("agents.arena")
_say = sayer(PROG)
DEFAULT_A = "hard"
DEFAULT_B = "medium"

#: the most bootstrap resamples ``--bootstrap`` takes (200 is plenty for a ladder's intervals)
MAX_BOOTSTRAP = 100_000
#: the largest ``--seed``: any 63-bit integer
MAX_SEED = 2**63 - 1


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Duplicate-deal duels and round robins between bots.",
        epilog="Cross-play: each side's lowest seat plays --a/--b, its other seats the partner spec.\n\n" + spec_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shown = " (default %(default)s)"
    parser.add_argument("--rules", default="dehla", choices=PRESETS, help="ruleset" + shown)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    parser.add_argument("--a", metavar="SPEC", help=f"agent A (default {DEFAULT_A})")
    parser.add_argument("--b", metavar="SPEC", help=f"agent B (default {DEFAULT_B})")
    parser.add_argument("--partner-a", "--partner", dest="partner_a", metavar="SPEC", help="A's partner(s)")
    parser.add_argument("--partner-b", dest="partner_b", metavar="SPEC", help="B's partner(s)")
    parser.add_argument("--agents", metavar="A,B,...", help="round robin of these agents (instead of --a/--b)")
    parser.add_argument(
        "--deals", type=at_least(1, MAX_DEALS), default=1000, help="duplicate deals, each played twice" + shown
    )
    parser.add_argument("--seed", type=at_least(0, MAX_SEED), default=0, help="seeds the deals" + shown)
    parser.add_argument(
        "--bootstrap", type=at_least(1, MAX_BOOTSTRAP), default=200, metavar="N", help="rating bootstrap resamples"
    )
    add_run_arguments(
        parser, plot="draw the ladder (ratings with 95%% intervals)", json="print one JSON object as the last line"
    )
    return parser


def _fail(error: BaseException | str) -> int:
    _say(f"error: {error}")
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    return stoppable(lambda: _main(argv), _say)


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        rules = make_rules(args.rules, parse_option_pairs(args.option))
        workers = capped_workers(args.workers, _say)
        agents, partners = None, {}
        if args.agents is not None:
            duel_flags = {"--a": args.a, "--b": args.b, "--partner-a": args.partner_a, "--partner-b": args.partner_b}
            given = [flag for flag, value in duel_flags.items() if value is not None]
            if given:
                raise BadInput(f"{', '.join(given)}: for a duel, not for a round robin (--agents)")
            agents = split_agents(args.agents)
            check_round_robin(rules, agents, args.deals, args.seed, mode=args.mode)
        else:
            args.a = DEFAULT_A if args.a is None else args.a
            args.b = DEFAULT_B if args.b is None else args.b
            partners = {"partner_a": args.partner_a, "partner_b": args.partner_b}
            check_duel(rules, args.a, args.b, args.deals, args.seed, mode=args.mode, **partners)
        if args.plot:
            require_matplotlib()
        cluster = connect(args, workers)
    except (BadInput, ValueError, ModuleNotFoundError) as e:  # RulesError and CheckpointError are ValueErrors
        return _fail(e)

    result: DuelResult | RoundRobinResult
    run = {"workers": workers, "mode": args.mode, "progress": not args.quiet, "cluster": cluster}
    if agents is not None:
        result = run_round_robin(rules, agents, args.deals, args.seed, n_boot=args.bootstrap, **run)
    else:
        result = run_duel(rules, args.a, args.b, args.deals, args.seed, **partners, **run)
    print(json.dumps(result.as_dict()) if args.json else result.table(), flush=True)
    if args.plot:
        try:
            _plot(result, rules, args.plot, args.bootstrap)
        except (OSError, ValueError, ModuleNotFoundError) as e:
            return _fail(f"--plot {args.plot}: the results are above, the picture was not written: {e}")
    return 0


def _plot(result: DuelResult | RoundRobinResult, rules: Rules, path: str, n_boot: int) -> None:
    if isinstance(result, RoundRobinResult):
        result.plot(path)
    else:
        plot_ladder(duel_ratings(result, n_boot), path, title=f"{rules} ({result.deals} deals x 2)")
