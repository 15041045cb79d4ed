"""Speed of the search layer: the exact solver, the sampler and ``search`` decisions.

    python benchmarks/search_speed.py [--rules dehla] [--positions 100] [--hands 4]
        [--spec SPEC ...] [--seed 0] [--draws 8] [--skip-solver] [--skip-search]

**Solver.** For 5, 6, 7 and 8 tricks left: ``--positions`` random positions at a
lead (hands dealt and played with random legal cards), each solved from scratch
(``Solver.value``: the exact value for the side to move) and with the value of every
legal card (``Solver.move_values``); median and worst time and node count.

**Sampler.** Microseconds per consistent deal of the hidden cards (and per world state
built from it), over the decisions of a few hands, ``--draws`` deals from each view's
sampler (a search draws ``k``, and a sampler works out its distribution once).

**Search.** Milliseconds per decision of each ``--spec`` (default: the scalar search
and the batched one, ``batched-search``, with the ``cardsense`` and the network
playouts), playing the same ``--hands`` hands against ``hard`` (the search side's
decisions only, single legal moves included as the arena counts them), with the mean
per trick number and each spec's cost as a ratio to the first one's, same run: the
specs take turns hand by hand, so a slow spell of the machine falls on all alike. Each
spec first plays one more hand untimed (its time is printed as the warm-up): loading
networks and torch's first calls take up to a few seconds once, which an arena of
hundreds of deals spreads to nothing, but which would add several ms to the mean of
a few hands. Torch
runs on one thread, as an arena worker does.

Times are CPU seconds of this process (``time.process_time``), so a busy machine
inflates them less than wall time; run on an otherwise idle core for clean figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np

from agents.base import Agent
from agents.bots.sampler import WorldSampler
from agents.playing.deal_sets import preset_for
from agents.playing.loop import play, play_hand, sampled
from agents.registry import make_agent, shipped_policies
from agents.search.solver import Solver, position_of, solvable
from dehla_env import MatchState, make_rules
from dehla_env.cards import shuffled_deck
from dehla_env.engine import HandState, Phase
from dehla_env.rules import PRESETS, Rules
from dehla_env.view import PlayerView


def random_position(rules: Rules, rng: np.random.Generator, left: int) -> HandState:
    """A solvable position at a lead with ``left`` tricks to go (random legal play)."""
    while True:
        match = MatchState(rules, int(rng.integers(4)))
        match.apply_deal(match.random_deck(rng))
        hand = match.hand
        target = rules.num_tricks - left
        while hand.phase != Phase.DONE and not (hand.num_tricks_done == target and not hand.trick_cards):
            if hand.phase == Phase.DRAW:
                match.sample_chance(rng)
                continue
            legal = hand.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
        if hand.phase == Phase.PLAY and solvable(hand):
            return hand


def bench_solver(rules: Rules, positions: int, seed: int) -> None:
    print(f"solver, {rules.name}: {positions} random positions at a lead, CPU ms")
    heads = ("value med", "value max", "nodes med", "nodes max", "moves med", "moves max")
    print(f"{'left':>4} " + " ".join(f"{h:>10}" for h in heads))
    rng = np.random.default_rng([seed, 1])
    solver = Solver(rules)
    # warm the relative-rank cache once, as a running bot would have it
    for _ in range(5):
        solver.value(position_of(random_position(rules, rng, 6)))
    for left in (5, 6, 7, 8):
        hands = [random_position(rules, rng, left) for _ in range(positions)]
        tv, tm, nodes = [], [], []
        for hand in hands:
            pos = position_of(hand)
            solver.nodes = 0
            t = time.process_time()
            solver.value(pos)
            tv.append(1000 * (time.process_time() - t))
            nodes.append(solver.nodes)
            t = time.process_time()
            solver.move_values(pos)
            tm.append(1000 * (time.process_time() - t))
        print(
            f"{left:>4} {statistics.median(tv):>10.1f} {max(tv):>10.1f} {statistics.median(nodes):>10.0f}"
            f" {max(nodes):>10} {statistics.median(tm):>10.1f} {max(tm):>10.1f}"
        )


def bench_sampler(rules: Rules, seed: int, draws: int) -> None:
    rng = np.random.default_rng([seed, 2])
    t_sample = t_world = 0.0
    n = 0
    bots: list[Agent] = []

    def timed(seat: int, view: PlayerView) -> int:
        """Time the sampler on the view of every decision, then let the hard bot move."""
        nonlocal t_sample, t_world, n
        t = time.process_time()
        sampler = WorldSampler(view)
        deals = [sampler.sample(rng) for _ in range(draws)]
        t_sample += time.process_time() - t
        t = time.process_time()
        for d in deals:
            sampler.world(d)
        t_world += time.process_time() - t
        n += draws
        return bots[seat].act(view)

    for _ in range(3):
        match = MatchState(rules, int(rng.integers(4)))
        match.apply_deal(match.random_deck(rng))
        bots[:] = [make_agent("hard", rules, s) for s in range(4)]
        play(match, timed, sampled(rng))
    print(
        f"sampler, {rules.name}: {1e6 * t_sample / n:.0f} us per deal, {1e6 * t_world / n:.0f} us per world state"
        f" ({draws} deals per view)"
    )


class _Clock(Agent):
    def __init__(self, inner: Agent, log: dict[int, list[float]]) -> None:
        self.inner = inner
        self.rng = inner.rng
        self.log = log

    def act(self, view: PlayerView) -> int:
        t = time.process_time()
        action = self.inner.act(view)
        self.log.setdefault(len(view.history), []).append(1000 * (time.process_time() - t))
        return action


def default_specs(rules: Rules) -> list[str]:
    """The scalar search (first the 100 ms-budget reference every ratio is taken
    against) and the batched one, with the network playouts where the ruleset's preset
    has a shipped policy and a distilled playout network: at
    k=48 with each network, then the playout network with its endings solved
    (``rdepth=4``), then that with the policy as a prior (``prior``, ``keep=0.95``), and
    at ``keep=0.9`` with successive elimination (``prune=1``)."""
    specs = [
        "search:k=48,depth=5,budget_ms=100",
        "search:k=48,depth=5",
        "search:k=16,depth=5",
        "batched-search:playout=cardsense,k=16,depth=5",
    ]
    name = preset_for(rules).name
    have = [p for p in (name, f"{name}-playout") if p in shipped_policies()]
    specs += [f"batched-search:playout=policy:{policy},k=48,depth=5" for policy in have]
    if len(have) == 2:
        solved = f"batched-search:playout=policy:{name}-playout,k=48,depth=5,rdepth=4"
        prior = solved.replace("k=48", "k=64") + f",prior=policy:{name}"
        specs += [solved, prior + ",keep=0.95", prior + ",keep=0.9,prune=1"]
    return specs


def bench_search(rules: Rules, specs: list[str], hands: int, seed: int) -> None:
    print(f"search, {rules.name}: ms per decision over {hands} hands x 2 seats against hard")
    logs: list[dict[int, list[float]]] = [{} for _ in specs]
    warm = [0.0 for _ in specs]
    # hand by hand, every spec in turn, so that a slow spell of the machine falls on all
    # of them alike; hand -1 warms each up (networks loaded, caches filled), not timed
    for i in range(-1, hands):
        j = i if i >= 0 else 1000  # the warm-up deal is none of the timed ones
        for log, spec in zip(logs, specs):
            rng = np.random.default_rng([seed, 3, j])
            deck = shuffled_deck(rng, rules.packs)
            side = j % 2
            seats: list[Agent] = [
                _Clock(make_agent(spec, rules, 10 * j + s), log) if s % 2 == side else make_agent("hard", rules, s)
                for s in range(rules.players)
            ]
            play_hand(rules, deck, j % rules.players, seats, np.random.default_rng([seed, 4, j]))
        if i == -1:
            warm = [sum(x for v in log.values() for x in v) for log in logs]
            logs = [{} for _ in specs]
    first = 0.0
    for spec, log, warmed in zip(specs, logs, warm):
        times = [x for v in log.values() for x in v]
        per_trick = " ".join(f"{t + 1}:{statistics.mean(v):.0f}" for t, v in sorted(log.items()))
        mean = statistics.mean(times)
        first = first or mean
        print(
            f"  {spec}: mean {mean:6.1f}  median {statistics.median(times):6.1f}  max {max(times):7.1f}"
            f"  ({mean / first:.2f}x the first; warm-up hand {warmed:.0f} ms)  | by trick {per_trick}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="dehla", choices=PRESETS)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--spec", action="append", help="a search agent spec to time (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=8, help="sampler: deals drawn per view (a search draws k)")
    parser.add_argument("--skip-solver", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    args = parser.parse_args()
    rules = make_rules(args.rules)
    if not args.skip_solver:
        bench_solver(rules, args.positions, args.seed)
    bench_sampler(rules, args.seed, args.draws)
    if not args.skip_search:
        if importlib.util.find_spec("torch") is not None:
            import torch

            torch.set_num_threads(1)
        bench_search(rules, args.spec or default_specs(rules), args.hands, args.seed)


if __name__ == "__main__":
    main()
