"""Microseconds per observation of the encoders, on recorded random hands.

    python benchmarks/encoder_speed.py [--hands 80] [--repeat 5]

Random legal hands are recorded first; then each is replayed on a live match while the
incremental encoder writes the observation of the seat to act at every decision (as the
belief search and the imitation data do from a live match), and, for comparison in the
same run, the definition written from scratch from a fresh ``PlayerView`` every time
(``encode_view``, what a bot holding only a view pays) and the cost of building that
view (``view_of``), on the same replay. Best of ``--repeat`` per ruleset.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from dehla_env import MatchState, make_rules, view_of
from dehla_env.encoding import ObservationEncoder, encode_view

CONFIGS: list[tuple[str, dict[str, Any]]] = [("dehla", {}), ("dehla-direct", {}), ("coat-pees", {})]


def record(rules: Any, hands: int, seed: int) -> list[tuple[int, list[int], list[tuple[str, int]]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(hands):
        match = MatchState.new(rules, rng)
        dealer, deck = match.hand.dealer, match.random_deck(rng)
        match.apply_deal(deck)
        moves: list[tuple[str, int]] = []
        while not match.hand.complete:
            if match.is_chance():
                card = match.hand.draw_candidates()[0]
                match.apply_draw(card)
                moves.append(("draw", card))
                continue
            legal = match.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            match.apply_action(action)
            moves.append(("act", action))
        out.append((dealer, deck, moves))
    return out


def replay(rules: Any, games: list[Any], kind: str) -> float:
    """Seconds per observation of the seat to act."""
    encoder = ObservationEncoder(rules)
    spent = 0.0
    count = 0
    clock = time.perf_counter
    for dealer, deck, moves in games:
        match = MatchState(rules, dealer)
        match.apply_deal(deck)
        for what, x in moves:
            if what == "draw":
                match.apply_draw(x)
                continue
            seat = match.current_player()
            t = clock()
            if kind == "live":
                encoder.encode(match, seat)
            elif kind == "view":
                encode_view(view_of(match, seat))
            else:
                view_of(match, seat)
            spent += clock() - t
            count += 1
            match.apply_action(x)
    return spent / count


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kinds = ["live", "build", "view"]
    header = f"{'ruleset':14s} {'encode (live)':>14s} {'view_of':>10s} {'encode_view(view_of)':>21s}"
    print(header + "   us per observation")
    widths = {"live": 14, "build": 10, "view": 21}
    for name, options in CONFIGS:
        rules = make_rules(name, options)
        games = record(rules, args.hands, args.seed)
        best = {k: min(replay(rules, games, k) for _ in range(args.repeat)) for k in kinds}
        print(f"{name:14s}" + "".join(f" {best[k] * 1e6:{widths[k]}.2f}" for k in kinds))


if __name__ == "__main__":
    main()
