"""Time of one policy decision, one position at a time: numpy (the play file) against
torch (the checkpoint), same run.

    python benchmarks/policy_speed.py [--policy dehla ...] [--positions 2000] [--seed 0] [--threads 1]

For each shipped policy (or each ``--policy``): ``--positions`` positions of games of
``hard`` bots (a card decision among several), each decided by ``PolicyAgent.act`` as
play asks it, one position at a time (encoding the view, the forward pass, the masked
argmax), first by the numpy network of ``NAME.safetensors``, then by the torch network
of ``NAME.pt``, alternating in blocks so that a slow spell of the machine falls on
both. Prints the mean ms per decision of each and the ratio torch / numpy: the figure
behind play's choice of numpy where a play file exists (:mod:`agents.nets.agent`).
Both agents play the same moves (the script checks it). Torch runs on ``--threads``
threads (1, as an arena worker runs it; 0 leaves torch's default).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.bots.heuristic import HardAgent
from agents.nets.agent import PolicyAgent
from agents.nets.play import read_play_file
from agents.playing.loop import play, sampled
from agents.playing.stats import format_table
from agents.registry import SHIPPED_POLICIES, shipped_policies
from dehla_env.engine.match import MatchState
from dehla_env.rules import Rules
from dehla_env.view import PlayerView

BLOCK = 100  # positions per turn of each backend


def positions(rules: Rules, count: int, seed: int) -> list[PlayerView]:
    """``count`` views of ``hard`` bots' games at a decision with more than one legal move."""
    rng = np.random.default_rng(seed)
    bots = [HardAgent(seed + s) for s in range(rules.players)]
    views: list[PlayerView] = []

    def collect(seat: int, view: PlayerView) -> int:
        if len(view.legal_actions) > 1:
            views.append(view)
        return bots[seat].act(view)

    while len(views) < count:
        play(MatchState.new(rules, rng), collect, sampled(rng), over=lambda m: m.is_terminal() or len(views) >= count)
    return views


def measure(name: str, count: int, seed: int) -> list[str]:
    """The row of one policy: ms per decision of numpy and torch, and their ratio."""
    rules = read_play_file(SHIPPED_POLICIES / f"{name}.safetensors")[1]
    numpy_agent = PolicyAgent(SHIPPED_POLICIES / f"{name}.safetensors", rules)
    torch_agent = PolicyAgent(SHIPPED_POLICIES / f"{name}.pt", rules)
    views = positions(rules, count, seed)
    spent = {"numpy": 0.0, "torch": 0.0}
    moves: dict[str, list[int]] = {"numpy": [], "torch": []}
    for agent in (numpy_agent, torch_agent):  # warm up: first calls allocate
        for view in views[:20]:
            agent.act(view)
    for start in range(0, count, BLOCK):
        for label, agent in (("numpy", numpy_agent), ("torch", torch_agent)):
            block = views[start : start + BLOCK]
            t = time.perf_counter()
            moves[label] += [agent.act(view) for view in block]
            spent[label] += time.perf_counter() - t
    same = sum(a == b for a, b in zip(moves["numpy"], moves["torch"]))
    ms = {label: 1000 * spent[label] / count for label in spent}
    return [name, f"{ms['numpy']:.3f}", f"{ms['torch']:.3f}", f"{ms['torch'] / ms['numpy']:.1f}x", f"{same}/{count}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--policy", action="append", default=None, help="a shipped policy (default: all)")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    rows = [measure(name, args.positions, args.seed) for name in args.policy or shipped_policies()]
    head = ["policy", "numpy ms/decision", "torch ms/decision", "torch / numpy", "same move"]
    print(f"one position at a time, {args.positions} positions each, torch on {torch.get_num_threads()} thread(s)")
    print(format_table(head, rows))


if __name__ == "__main__":
    main()
