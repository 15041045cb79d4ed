"""Decisions per second of the environments against the bare rules engine, per ruleset.

    python benchmarks/env_speed.py [--steps 10000] [--repeat 5] [--seed 0] [--profile dehla]

For each ruleset, in one run and on one core, these loops make the same number of
random legal decisions:

* ``engine``: ``MatchState`` directly (``legal_actions`` / ``apply_action``, chance
  steps from the same random stream);
* ``eng+obs``: the same loop, and the observation of the seat to act written at every
  decision as the env writes it (:class:`~dehla_env.vector.one_game.OneGame`: the
  batched engine at one game, given the same deal and moves, and its compiled row
  writer), nothing else: the floor of an AEC env over this engine and writer, what no
  trimming of the env's own bookkeeping can pass;
* ``eng+def``: the same, the observation written by its definition instead
  (``encode_view(view_of(match, seat))``, from scratch from the seat's view): the floor
  of an AEC env without an observation writer of its own;
* ``raw_env``: the bare PettingZoo AEC env, ``env.last()`` every decision (so the
  observation is encoded every step) and the action picked from its mask;
* ``env()``: the same through PettingZoo's safety wrappers;
* with ``open_spiel`` installed (the ``bench`` extra), OpenSpiel's C++ ``spades`` through
  pyspiel, the observation tensor built at every decision, so the speed of our envs is
  also a same-run ratio to a C++ trick-taking game.

All loops pick ``legal[int(u * len(legal))]`` with ``u`` from one precomputed list of
uniform floats, so they differ only in what the environment adds. Each loop runs
``--repeat`` times, in rounds over all the rulesets, and the best rate is kept; the
process is single threaded, and its rates are decisions per CPU second of this
process (``time.process_time``), the figure other jobs on a shared machine disturb
least. The ratios are the figures to compare between runs. Targets, for every
ruleset, against OpenSpiel's spades in the same run: raw_env at least 1.0x, env() at
least 0.85x. (Many games at once are measured by ``batch_speed.py``.)
``--profile NAME`` runs cProfile over the raw_env loop of that ruleset afterwards.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from dehla_env import env as wrapped_env
from dehla_env import raw_env
from dehla_env.encoding import encode_view
from dehla_env.engine import MatchState, Phase
from dehla_env.rules import make_rules
from dehla_env.vector.one_game import OneGame
from dehla_env.view import view_of

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("dehla", {}),
    ("dehla", {"trump": "chosen"}),
    ("dehla-direct", {}),
    ("dehla-direct", {"trump": "closed"}),
    ("dehla-direct", {"players": 6}),
    ("court-piece", {}),
    ("coat-pees", {}),
]

TARGETS = {"raw_env / OpenSpiel": 1.0, "env() / OpenSpiel": 0.85}  # same-run ratios, every ruleset
clock = time.process_time  # CPU seconds of this (single-threaded) process


def pick(legal: Sequence[int] | np.ndarray, u: float) -> int:
    """The one action-selection rule of every loop."""
    return int(legal[int(u * len(legal))])


def _env_rows(rows: OneGame, _match: MatchState, seat: int) -> np.ndarray:
    """``seat``'s observation as the env writes it (``rows`` kept in step with the match)."""
    return rows.observe(seat)


def engine_loop(
    name: str, options: dict[str, Any], steps: int, seed: int, randoms: list[float], observe: str | None = None
) -> float:
    """The bare engine; with ``observe``, the seat to act's observation written at every
    decision too, as the env writes it (``"env"``, the ``eng+obs`` column) or by the
    definition (``"definition"``, the ``eng+def`` column)."""
    rules = make_rules(name, options)
    rows = OneGame(rules) if observe == "env" else None
    observe_seat: Callable[[MatchState, int], Any] | None = None
    if rows is not None:
        observe_seat = partial(_env_rows, rows)
    elif observe == "definition":
        observe_seat = lambda match, seat: encode_view(view_of(match, seat))  # noqa: E731
    rng = np.random.default_rng(seed)
    k = 0
    decisions = 0
    gc.collect()  # every loop starts from a collected heap (see aec_loop)
    t = clock()
    while decisions < steps:
        match = MatchState.new(rules, rng)
        hand = match.hand
        match.sample_chance(rng)  # the deal
        if rows is not None:
            rows.tally(match)
            rows.deal(hand)
        while hand.phase != Phase.DONE:
            if hand.phase == Phase.DRAW:
                match.sample_chance(rng)  # R1.4
                if rows is not None:
                    rows.draw(hand)
                continue
            if observe_seat is not None:
                observe_seat(match, match.current_player())
            action = pick(match.legal_actions(), randoms[k])
            match.apply_action(action)
            if rows is not None:
                rows.step(action)
            k += 1
            decisions += 1
    return decisions / (clock() - t)


def aec_loop(make: Any, name: str, options: dict[str, Any], steps: int, seed: int, randoms: list[float]) -> float:
    e = make(rules=name, **options)
    e.reset(seed=seed)
    k = 0
    decisions = 0
    # a collected heap: otherwise a loop may pay for the garbage of the loops before it
    # (the dehla env() row, measured right after the engine and raw_env loops, read
    # 0.76-0.79 of raw_env in two runs of this script where alternating loops read 0.91)
    gc.collect()
    t = clock()
    while decisions < steps:
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            e.reset()
            continue
        e.step(pick(np.flatnonzero(obs["action_mask"]), randoms[k]))
        k += 1
        decisions += 1
    return decisions / (clock() - t)


def openspiel_loop(steps: int, randoms: list[float]) -> float | None:
    """Decisions/s of OpenSpiel's spades: random legal play, ``observation_tensor()``
    every decision (chance steps, the deal, are not counted); None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("spades")
    state = game.new_initial_state()
    k = decisions = 0
    gc.collect()  # as every loop here (see aec_loop)
    t = clock()
    while decisions < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(randoms[k % len(randoms)] * len(outcomes))][0])
            k += 1
        else:
            state.observation_tensor()
            state.apply_action(pick(state.legal_actions(), randoms[k % len(randoms)]))
            k += 1
            decisions += 1
    return decisions / (clock() - t)


def label(name: str, options: dict[str, Any]) -> str:
    return name + (" " + " ".join(f"{k}={v}" for k, v in options.items()) if options else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000, help="decisions per loop and ruleset")
    parser.add_argument("--repeat", type=int, default=5, help="runs per loop; the best is kept")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default=None, help="ruleset name to profile (raw_env loop)")
    args = parser.parse_args()
    randoms = np.random.default_rng(args.seed).random(args.steps + 1_000).tolist()  # the engine loop ends its last hand
    for make in (raw_env, wrapped_env):  # warm up (imports, caches, the CPU's clock)
        aec_loop(make, "dehla", {}, 2_000, args.seed, randoms)
    engine_loop("dehla", {}, 2_000, args.seed, randoms)
    envs: list[tuple[str, Callable[..., Any]]] = [("raw_env", raw_env), ("env()", wrapped_env)]
    print(f"{args.steps:,} random legal decisions per loop, best of {args.repeat}, seed {args.seed}, one core")
    header = f"{'ruleset':34s} {'engine/s':>10s} {'eng+obs/s':>10s} {'eng+def/s':>10s}"
    header += "".join(f" {n + '/s':>10s}" for n, _ in envs)
    header += f" {'raw/eng':>8s} {'env/eng':>8s} {'raw/OS':>7s} {'env/OS':>7s}"
    print(header)
    print("-" * len(header))
    best: dict[str, list[float]] = {label(*c): [0.0] * (3 + len(envs)) for c in CONFIGS}
    spades = 0.0
    for _ in range(args.repeat):  # rounds over every ruleset, so that noise spreads evenly
        os_rate = openspiel_loop(args.steps, randoms)
        spades = max(spades, os_rate or 0.0)
        for name, options in CONFIGS:
            row = best[label(name, options)]
            row[0] = max(row[0], engine_loop(name, options, args.steps, args.seed, randoms))
            row[1] = max(row[1], engine_loop(name, options, args.steps, args.seed, randoms, observe="env"))
            row[2] = max(row[2], engine_loop(name, options, args.steps, args.seed, randoms, observe="definition"))
            for i, (_n, make) in enumerate(envs):
                row[3 + i] = max(row[3 + i], aec_loop(make, name, options, args.steps, args.seed, randoms))
    for name, row in best.items():
        eng = row[0]
        line = f"{name:34s}" + "".join(f" {r:10,.0f}" for r in row) + f" {row[3] / eng:8.3f} {row[4] / eng:8.3f}"
        print(line + (f" {row[3] / spades:7.2f} {row[4] / spades:7.2f}" if spades else ""))
    rates = dict(zip([n for n, _ in envs], best["dehla"][3:]))
    eng_obs, eng_def = best["dehla"][1], best["dehla"][2]
    if spades:
        print(f"{'OpenSpiel spades (C++, obs tensor)':34s} {spades:10,.0f}")
        print(
            "ratio to OpenSpiel spades, dehla: "
            + ", ".join(f"{n} {r / spades:.2f}x" for n, r in rates.items())
            + f"; engine + the env's writer alone (no env) {eng_obs / spades:.2f}x"
            + f", engine + the definition alone {eng_def / spades:.2f}x"
        )
    else:
        print("(install open_spiel, the bench extra, for OpenSpiel's spades in the same run)")
    if spades:  # the lowest ratio over the rulesets, and which
        verdicts = []
        for i, (key, target) in enumerate(TARGETS.items()):
            worst = min(best, key=lambda name: best[name][3 + i])
            ratio = best[worst][3 + i] / spades
            verdicts.append(f"{key} {ratio:.2f} at least ({worst}; {'meets' if ratio >= target else 'BELOW'} {target})")
        print(f"targets, every ruleset: {', '.join(verdicts)}")
    if args.profile:
        name, options = next(c for c in CONFIGS if label(*c) == args.profile or c[0] == args.profile)
        profiler = cProfile.Profile()
        profiler.enable()
        aec_loop(raw_env, name, options, args.steps, args.seed, randoms)
        profiler.disable()
        print(f"\ncProfile of the raw_env loop, {label(name, options)} (tottime):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
