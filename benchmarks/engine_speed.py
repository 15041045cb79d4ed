"""Random-legal-play throughput of the rules engine, per ruleset, on one core.

    python benchmarks/engine_speed.py [--hands 3000] [--seed 0]

Prints hands per second and decisions (moves) per second for each ruleset, and the
ratio to a bare trick-taking loop (follow suit, highest of the led suit wins, no rules
checks) measured in the same run, because these machines are noisy: the ratio is the
figure to compare between runs.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from dehla_env.cards import shuffled_deck
from dehla_env.engine import MatchState, Phase
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


def bare_loop(decks: list[list[int]], randoms: list[float]) -> tuple[float, int]:
    """The floor: deal 13 each, follow suit if able, highest led-suit card wins."""
    k = 0
    moves = 0
    t = time.perf_counter()
    for deck in decks:
        hands: list[list[int]] = [deck[i::4] for i in range(4)]
        leader = 0
        for _ in range(13):
            led = -1
            best = -1
            winner = leader
            for j in range(4):
                seat = (leader + j) % 4
                h = hands[seat]
                follow = [c for c in h if c // 13 == led] if led >= 0 else h
                legal = follow or h
                c = legal[int(randoms[k] * len(legal))]
                k += 1
                h.remove(c)
                if led < 0:
                    led = c // 13
                if c // 13 == led and c > best:
                    best, winner = c, seat
                moves += 1
            leader = winner
    return time.perf_counter() - t, moves


def engine_run(name: str, options: dict, hands: int, seed: int) -> tuple[float, int]:
    rules = make_rules(name, options)
    rng = np.random.default_rng(seed)
    decks = [shuffled_deck(rng, rules.packs) for _ in range(hands)]
    randoms = rng.random(hands * 200).tolist()
    k = 0
    moves = 0
    t = time.perf_counter()
    for i in range(hands):
        match = MatchState(rules, i % rules.players)
        match.apply_deal(decks[i])
        hand = match.hand
        while True:
            phase = hand.phase
            if phase == Phase.DONE:
                break
            if phase == Phase.DRAW:
                cands = hand.draw_candidates()
                match.apply_draw(cands[int(randoms[k] * len(cands))])
            else:
                legal = hand.legal_actions()
                match.apply_action(legal[int(randoms[k] * len(legal))])
                moves += 1
            k += 1
    return time.perf_counter() - t, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    decks = [[int(c) for c in rng.permutation(52)] for _ in range(args.hands)]
    randoms = rng.random(args.hands * 60).tolist()
    bare_s, bare_moves = bare_loop(decks, randoms)
    bare_hps = args.hands / bare_s
    print(f"bare trick-taking loop: {bare_hps:10,.0f} hands/s {bare_moves / bare_s:12,.0f} moves/s  (baseline)")
    print(f"{'ruleset':52s} {'hands/s':>10s} {'moves/s':>12s} {'vs bare':>8s}")
    for name, options in CONFIGS:
        secs, moves = engine_run(name, options, args.hands, args.seed)
        hps = args.hands / secs
        label = name + (" " + " ".join(f"{k}={v}" for k, v in options.items()) if options else "")
        print(f"{label:52s} {hps:10,.0f} {moves / secs:12,.0f} {hps / bare_hps:8.2f}")


if __name__ == "__main__":
    main()
