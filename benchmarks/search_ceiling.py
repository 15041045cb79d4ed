"""How far search could go at all: a searcher that sees every card, against an opponent.

    python benchmarks/search_ceiling.py [--spec SPEC] [--b hard] [--rules dehla] [--option trump=chosen]
                                        [--deals 1000] [--seed 7] [--workers 2]

A measurement, not an agent: the arena's own duel (:func:`agents.playing.duel.play_deal`:
its duplicate deals, seeds, seating and scoring) with A's searcher (any ``search:``
spec) handed the *true* deal as every world it samples. Each worker process swaps
:meth:`agents.bots.sampler.WorldSampler.sample` for one that returns the hand being played,
which the arena's ``view_of`` call records just before A decides. Nothing else changes:
the same playout network, depth, solver and tie-breaks as the fair search of that spec.

So the figure is a ceiling for that search machinery: what it scores when the hidden
cards are no longer hidden. A fair searcher with the same settings cannot do better
than its cheating twin except by luck, and the gap between the two is what sampling
worlds costs. It also prints how many deals the cards decided (the arena's *flat*
deals), where the cheating searcher changed nothing: the share of hands won is ``0.5 *
flat + swing share * (1 - flat)``.

Every figure is A's share of hands won with the arena's 95% interval over deals, and
the decision times of both sides.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import agents.playing.loop as play_loop  # noqa: E402
from agents.bots import sampler  # noqa: E402
from agents.bots.sampler import Deal  # noqa: E402
from agents.playing.duel import Task  # noqa: E402
from agents.playing.pool import chunks, execute, worker_init  # noqa: E402
from agents.playing.results import DuelResult  # noqa: E402
from dehla_env.engine import HandState, MatchState  # noqa: E402
from dehla_env.engine.hand import FIRST_STAGE_CARDS  # noqa: E402
from dehla_env.rules import make_rules, parse_option_pairs  # noqa: E402
from dehla_env.view import PlayerView  # noqa: E402

#: the hand the arena is asking about now (set by the recording ``view_of``)
_TRUTH: dict[str, HandState] = {}


def _install_oracle() -> None:
    """In this (worker) process: record every hand the arena shows a seat, and make
    every world sampler return that hand's true deal."""
    view_of = play_loop.view_of

    def recording_view_of(match: MatchState, seat: int) -> PlayerView:
        _TRUTH["hand"] = match.hand
        return view_of(match, seat)

    def true_deal(self: sampler.WorldSampler, rng: np.random.Generator) -> Deal:
        h = _TRUTH["hand"]
        stock = tuple(h.deck[FIRST_STAGE_CARDS:]) if h.stage == 1 and h.deck is not None else ()
        hidden = h.trump_hidden and h.trump_suit >= 0  # R2.4c: a closed trump, in the world too
        return Deal(hands=tuple(h.hands), stock=stock, trump=h.trump_suit if hidden else -1)  # type: ignore[arg-type]

    play_loop.view_of = recording_view_of
    sampler.WorldSampler.sample = true_deal  # type: ignore[method-assign]


def _oracle_worker() -> None:
    """A worker of this script: the arena's (one torch thread, Ctrl-C to the parent),
    seeing every card."""
    worker_init()
    _install_oracle()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--spec", default="batched-search:playout=policy:dehla-playout,k=1,depth=7,rdepth=7")
    p.add_argument("--b", default="hard", help="the opponent (any agent spec)")
    p.add_argument("--rules", default="dehla")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    if not args.spec.startswith("search:"):
        p.error("--spec must be a search: spec (it is the one given the true worlds)")
    rules = make_rules(args.rules, parse_option_pairs(args.option))
    n = max(1, args.workers)
    tasks = [
        Task(rules, args.spec, args.b, None, None, seed=args.seed, mode="hand", start=s, stop=e)
        for s, e in chunks(args.deals, n)
    ]
    if n == 1:  # the arena plays a single chunk in this process: the swap goes here
        _install_oracle()
    t = time.perf_counter()
    records, clock, _ = execute(tasks, n, False, initializer=_oracle_worker)[None]
    seconds = time.perf_counter() - t
    duel = DuelResult(
        rules=rules,
        a=args.spec,
        b=args.b,
        seed=args.seed,
        mode="hand",
        partner_a=None,
        partner_b=None,
        records=records,
        seconds=seconds,
        clock=clock,
        workers=n,
    )
    w = duel.win_rate
    print(f"{rules}: {args.spec} seeing every card vs {args.b}, {duel.deals} deals (seed {args.seed})")
    print(f"A's share of hands won   {w.value:.3f} [{w.low:.3f}, {w.high:.3f}]")
    swings = duel.swings()
    assert swings is not None
    flat, swing = swings
    print(f"deals the cards decided  {flat.value:.3f} [{flat.low:.3f}, {flat.high:.3f}]")
    print(f"A's share of the others  {swing.value:.3f} [{swing.low:.3f}, {swing.high:.3f}]")
    for spec, (s, k) in clock.items():
        print(f"{spec}: {s / max(k, 1) * 1e3:.1f} ms a decision ({int(k)} decisions)")
    print(f"wall time {duel.seconds:.0f} s on {n} processes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
