"""The command line, ``python -m agents.bench`` (see the package docstring).

Bad input is one line on stderr and exit status 2 before any deal is played; Ctrl-C
stops the workers and exits with status 130, SIGTERM with 143 (with ``--results
FILE``, a rerun of the same command continues from the blocks already finished).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from agents.bench.crossplay import check_crossplay_agents, crossplay
from agents.bench.ladder import compute_ladder, place, references
from agents.bench.runner import Bench, Store, pair_scores
from agents.bench.sprt import SPRT
from agents.playing import deal_sets
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
from agents.playing.duel import DealRecord
from agents.playing.ladder import publish, published
from agents.playing.plot import plot_ladder, require_matplotlib
from agents.playing.run import MAX_DEALS, check_duel
from agents.playing.stats import Ratings
from dehla_env.commands import typed_command
from dehla_env.rules import PRESETS as RULESETS
from dehla_env.rules import make_rules, parse_option_pairs

PROG = typed_command("agents.bench")
_say = sayer(PROG)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROG,
        description="The benchmark: fixed deal sets, a reference ladder, sequential tests and cross-play.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "without --agent/--crossplay/--compute-ladder: print the published reference ladder\n"
            "  --agent SPEC                 place SPEC on the ladder (duplicate play against every reference)\n"
            "  --agent A --vs B --sprt      does A beat B by at least --delta? stops as soon as it is decided\n"
            "  --crossplay A,B,...          each agent as lead with each as partner, against --opponent\n"
            "  --compute-ladder [--write]   the references' round robin (maintainers)"
        ),
    )
    p.add_argument("--rules", default="dehla", choices=RULESETS)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    p.add_argument("--agent", metavar="SPEC", help="the agent to place on the ladder (or A of --sprt)")
    p.add_argument("--vs", metavar="SPEC", help="--sprt: the agent A is tested against")
    p.add_argument("--sprt", action="store_true", help="sequential test of A against --vs")
    p.add_argument("--delta", type=float, default=0.02, help="--sprt: the edge in pair score claimed (H1)")
    p.add_argument("--alpha", type=float, default=0.05, help="--sprt: chance of claiming an edge that is not there")
    p.add_argument("--beta", type=float, default=0.05, help="--sprt: chance of missing an edge of delta")
    p.add_argument("--crossplay", metavar="A,B,...", help="the cross-play table of these agents")
    p.add_argument("--opponent", default="hard", metavar="SPEC", help="--crossplay: the opposing pair's agent")
    p.add_argument("--compute-ladder", action="store_true", help="play the references' round robin")
    p.add_argument("--write", action="store_true", help="--compute-ladder: publish the result in the package")
    p.add_argument(
        "--deals", type=at_least(1, MAX_DEALS), default=None, help="first N deals of the set (default per task)"
    )
    p.add_argument("--results", metavar="FILE", help="save finished blocks here; a rerun continues from them")
    add_run_arguments(p, plot="draw the ladder", json="print one JSON record as the last line")
    return p


#: deals played by default: a placement and a cross-play cell, a ladder pair, an SPRT's cap
DEFAULT_DEALS = {"place": 1000, "crossplay": 500, "ladder": 500, "sprt": deal_sets.DEALS_PER_SET}


def main(argv: list[str] | None = None) -> int:
    return stoppable(lambda: _main(sys.argv[1:] if argv is None else argv), _say)


def _task(a: argparse.Namespace) -> str:
    if sum([a.agent is not None and not a.sprt, a.sprt, a.crossplay is not None, a.compute_ladder]) > 1:
        raise BadInput("choose one of --agent, --sprt, --crossplay, --compute-ladder")
    if a.sprt:
        if a.agent is None or a.vs is None:
            raise BadInput("--sprt needs --agent A and --vs B")
        if a.plot:
            raise BadInput("--plot draws a ladder: alone, with --agent or with --compute-ladder")
        return "sprt"
    if a.vs is not None:
        raise BadInput("--vs belongs to --sprt")
    if a.write and not a.compute_ladder:
        raise BadInput("--write belongs to --compute-ladder")
    if a.plot and a.crossplay is not None:
        raise BadInput("--plot draws a ladder: alone, with --agent or with --compute-ladder")
    if a.crossplay is not None:
        return "crossplay"
    if a.compute_ladder:
        return "ladder"
    return "place" if a.agent is not None else "show"


def _main(argv: list[str]) -> int:
    try:
        a = build_parser().parse_args(argv)
        task = _task(a)
        rules = make_rules(a.rules, parse_option_pairs(a.option))
        preset = deal_sets.preset_for(rules)
        ds = deal_sets.load(preset)
        deals = a.deals if a.deals is not None else DEFAULT_DEALS.get(task, 0)
        if task != "show" and deals > len(ds):
            raise BadInput(f"--deals {deals}: the {preset.name} set holds {len(ds)} deals")
        sprt = SPRT(a.delta, a.alpha, a.beta) if task == "sprt" else None
        specs: list[str] = []
        if task == "place":
            specs = [a.agent]
        elif task == "sprt":
            specs = [a.agent, a.vs]
        elif task == "crossplay":
            specs = [*check_crossplay_agents(split_agents(a.crossplay)), a.opponent]
        elif task == "ladder":
            specs = references(preset)
        for spec in specs:
            check_duel(rules, spec, spec, 1, ds.seed, mode=a.mode)
        shown = published(preset, a.mode) if task in ("show", "place") else None
        if task == "place":
            assert shown is not None
            shown.check_policies()  # a ladder to place on, fitted with the policies installed
        if a.plot:
            require_matplotlib()
        store = Store(a.results, say=_say)  # ResultsError (a ValueError) for a file it cannot use
        workers = capped_workers(a.workers, _say)
        cluster = connect(a, workers)
    except (BadInput, ValueError, ModuleNotFoundError) as e:
        _say(f"error: {e}")
        return EXIT_BAD_INPUT
    for note in store.notes:
        _say(f"note: {note}")

    bench = Bench(ds, a.mode, workers, store, cluster=cluster)
    record: dict[str, Any] = {"version": ds.version, "preset": preset.name, "mode": a.mode, "task": task}
    ratings: Ratings | None = None
    if task == "show":
        assert shown is not None
        text, ratings = shown.table(), shown.ratings
        record.update(shown.as_dict())
    else:
        if task == "place":
            assert shown is not None
            total = deals * len(shown.ratings.names)
        elif task == "crossplay":
            total = deals * (len(specs) - 1) ** 2
        elif task == "ladder":
            total = deals * len(specs) * (len(specs) - 1) // 2
        else:
            total = deals
        if not a.quiet:
            bench.start_progress(total)
        try:
            if task == "place":
                placement = place(bench, a.agent, deals, ladder=shown)
                text, ratings = placement.table(), _with(placement.ladder.ratings, a.agent, placement.rating)
                record.update(placement.as_dict())
            elif task == "sprt":
                assert sprt is not None
                duel = bench.duel(a.agent, a.vs, deals, enough=lambda recs: _decided(sprt, recs, a.mode))
                state = sprt.first_decision(pair_scores(duel.records, a.mode))
                text = f"{a.agent} vs {a.vs} on {preset.name} ({ds.version}): {state.summary()}"
                record.update(
                    agent=a.agent, vs=a.vs, delta=a.delta, alpha=a.alpha, beta=a.beta,
                    decision=state.decision, pairs=state.n, llr=state.llr, mean=state.mean,
                )  # fmt: skip
            elif task == "crossplay":
                table = crossplay(bench, specs[:-1], deals, a.opponent)
                text = table.table()
                record.update(table.as_dict())
            else:
                command = f"{PROG} {shlex.join(_reproducing(argv))}"
                ladder, _ = compute_ladder(bench, deals, command)
                text, ratings = ladder.table(), ladder.ratings
                record.update(ladder.as_dict())
                if a.write:
                    publish(ladder)
        finally:
            bench.stop_progress()
    print(text, flush=True)
    if a.json:
        print(json.dumps(record), flush=True)
    if a.plot:
        try:
            assert ratings is not None  # --plot is refused for the tasks without a ladder
            plot_ladder(ratings, a.plot, title=f"{preset.name} ({ds.version}, mode {a.mode})")
        except (OSError, ValueError) as e:
            _say(f"error: --plot {a.plot}: the results are above, the picture was not written: {e}")
            return EXIT_BAD_INPUT
    return 0


def _reproducing(argv: list[str]) -> list[str]:
    """The arguments that decide a ladder's figures: without where it ran, how it
    showed progress or saved partial results, and whether it was published."""
    skip_value = {"--workers", "--backend", "--address", "--results", "--plot"}
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        name = arg.split("=", 1)[0]
        if name in skip_value:
            i += 1 if "=" in arg else 2
            continue
        if arg not in ("--write", "--json", "--quiet"):
            out.append(arg)
        i += 1
    return out


def _decided(sprt: SPRT, records: list[DealRecord], mode: str) -> bool:
    return sprt.first_decision(pair_scores(records, mode)).decision is not None


def _with(ladder: Ratings, spec: str, rating: Any) -> Ratings:
    """The ladder with a placed agent added (for the picture)."""
    return Ratings(
        (*ladder.names, spec),
        (*ladder.elo, rating.value),
        (*ladder.low, rating.low),
        (*ladder.high, rating.high),
        ladder.n_boot,
    )
