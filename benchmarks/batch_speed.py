"""Throughput of the batched engine and the vector env beside the reference, in one run.

    python benchmarks/batch_speed.py [--rules dehla] [--seconds 5] [--sizes 1,256,4096,16384]

Random legal play everywhere. Prints, for the reference (scalar) engine and env and
for the batched engine and vector env at each batch size N, decisions (moves) per
second, both wall-clock and per CPU-second of this process (on a shared machine the
CPU figure is the steadier one), and the ratio to the scalar figure measured in the
same run (the ratio is the figure to compare between runs):

* reference engine: ``MatchState`` with ``legal_actions`` / ``apply_action`` (no
  observations), as ``benchmarks/engine_speed.py``;
* reference env: ``dehla_env.raw_env`` with its flat observation and mask per decision;
* batched engine: :class:`BatchEngine` stepping all N games (legal masks, the random
  choice, chance steps and re-deals included; no observations);
* vector env: ``vector_env(...).step`` with flat observations and masks for all N, as
  float32 (gymnasium's NEXT_STEP autoreset) and as uint8 codes (SAME_STEP), whose
  float view ``codes / env.observation_scale`` is the same float32 observation, and at
  4,096 games with every fast setting at once (uint8 codes, SAME_STEP, the observation
  buffer handed out without a copy, no final observations): the vector env at its
  fastest. Its kernels (the observation writer and the deals) run compiled, as in
  every install (``NUMBA_DISABLE_JIT=1`` would run them as Python).

Then the memory the vector env holds per game, and for 65,536 games; and, with
``open_spiel`` installed (the ``bench`` extra), OpenSpiel's C++ spades measured in the same
run (``benchmarks/env_speed.py``'s loop: the observation tensor at every decision, per
CPU second) and the vector env's best row at 4,096 games as a multiple of it (per CPU
second too).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from env_speed import openspiel_loop

from dehla_env import make_rules, raw_env
from dehla_env.actions import NUM_ACTIONS
from dehla_env.engine import MatchState, Phase
from dehla_env.vector import BatchEngine, random_legal, vector_env
from dehla_env.vector.engine import DONE, DRAW


def _randoms() -> list[float]:
    """The uniform draws of ``env_speed.py``'s loops (its seed 0)."""
    return np.random.default_rng(0).random(31_000).tolist()


def timed(step: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run ``step`` (returns decisions made) for about ``seconds`` of CPU time;
    returns (decisions per wall second, decisions per CPU second)."""
    step()  # warm up
    done = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while time.process_time() - c0 < seconds:
        done += step()
    return done / (time.perf_counter() - w0), done / (time.process_time() - c0)


def reference_engine(rules_name: str, options: dict[str, Any], seconds: float) -> tuple[float, float]:
    rules = make_rules(rules_name, options)
    rng = np.random.default_rng(0)

    def hand() -> int:
        match = MatchState.new(rules, rng)
        match.sample_chance(rng)
        h = match.hand
        moves = 0
        while h.phase != Phase.DONE:
            if h.phase == Phase.DRAW:
                match.sample_chance(rng)
                continue
            legal = h.legal_actions()
            match.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
        return moves

    return timed(hand, seconds)


def reference_env(rules_name: str, options: dict[str, Any], seconds: float) -> tuple[float, float]:
    env = raw_env(rules=rules_name, **options)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def hand() -> int:
        env.reset()
        moves = 0
        while True:
            agent = env.agent_selection
            if env.terminations[agent]:
                return moves
            obs = env.observe(agent)
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            moves += 1

    return timed(hand, seconds)


def batched_engine(rules_name: str, options: dict[str, Any], n: int, seconds: float) -> tuple[float, float]:
    rules = make_rules(rules_name, options)
    engine = BatchEngine(rules, n)
    rng = np.random.default_rng(0)
    mask = np.zeros((n, NUM_ACTIONS), bool)
    decks, dealers = engine.sample_deals(rng, n)
    engine.deal(engine.all, decks, dealers)

    def step() -> int:
        engine.legal_mask(engine.all, out=mask)
        engine.step(random_legal(mask, rng))
        due = np.flatnonzero(engine.phase == DRAW)
        if len(due):
            engine.draw(due, engine.sample_draws(rng, due))
        done = np.flatnonzero(engine.phase == DONE)
        if len(done):
            d, s = engine.sample_deals(rng, len(done))
            engine.deal(done, d, s)
        return n

    return timed(step, seconds)


def vector(rules_name: str, options: dict[str, Any], n: int, seconds: float, **kw: Any) -> tuple[float, float]:
    env = vector_env(rules_name, num_envs=n, seed=0, **options, **kw)
    rng = np.random.default_rng(0)
    state = {"info": env.reset()[1]}

    def step() -> int:
        # NEXT_STEP: a game whose hand just ended has no legal action (its action is ignored)
        actions = np.maximum(random_legal(state["info"]["action_mask"], rng), 0)
        obs, rewards, terminated, truncated, info = env.step(actions)
        state["info"] = info
        return n

    return timed(step, seconds)


def memory_per_game(rules_name: str, options: dict[str, Any], n: int = 4096, obs_dtype: str = "float32") -> float:
    tracemalloc.start()
    env = vector_env(rules_name, num_envs=n, seed=0, obs_dtype=obs_dtype, **options)
    obs, info = env.reset()
    obs, *_ = env.step(random_legal(info["action_mask"], np.random.default_rng(0)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del env, obs
    return peak / n


#: the width of the rows' names, the longest (``vector_env float32 copy=False no finals``) included
NAME = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="dehla")
    parser.add_argument("--trump", default=None, help="trump option (dehla: first-void / chosen)")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    parser.add_argument("--sizes", default="1,256,4096,16384,65536")
    args = parser.parse_args()
    options: dict[str, Any] = {} if args.trump is None else {"trump": args.trump}
    sizes = [int(s) for s in args.sizes.split(",")]
    label = args.rules + "".join(f" {k}={v}" for k, v in options.items())
    print(f"ruleset: {label}; random legal play; {args.seconds:g} CPU-s per figure")
    print(f"{'':{NAME}s} {'N':>6s} {'decisions/s':>13s} {'per CPU-s':>13s} {'x scalar':>9s}")

    def row(name: str, n: int | str, wall: float, cpu: float, base: float | None) -> None:
        ratio = f"{cpu / base:9.1f}" if base else f"{'1.0':>9s}"
        print(f"{name:{NAME}s} {n!s:>6s} {wall:13,.0f} {cpu:13,.0f} {ratio}")

    ew, ec = reference_engine(args.rules, options, args.seconds)
    row("reference engine (MatchState)", 1, ew, ec, None)
    vw, vc = reference_env(args.rules, options, args.seconds)
    row("reference env (raw_env, obs)", 1, vw, vc, None)
    for n in sizes:
        w, c = batched_engine(args.rules, options, n, args.seconds)
        row("batched engine (no obs)", n, w, c, ec)
    for n in sizes:
        w, c = vector(args.rules, options, n, args.seconds)
        row("vector_env float32 (obs + masks)", n, w, c, vc)
    best_4096: dict[str, float] = {}
    for n in sizes:
        w, c = vector(args.rules, options, n, args.seconds, obs_dtype="uint8", autoreset_mode="same_step")
        row("vector_env uint8 codes, SAME_STEP", n, w, c, vc)
        if n == 4096:
            best_4096["uint8"] = c
    if 4096 in sizes:  # every fast setting at once: the vector env's fastest
        w, c = vector(args.rules, options, 4096, args.seconds, copy=False, final_obs=False, autoreset_mode="same_step")
        row("vector_env float32 copy=False no finals", 4096, w, c, vc)
        fastest = {"copy": False, "final_obs": False, "autoreset_mode": "same_step", "obs_dtype": "uint8"}
        w, c = vector(args.rules, options, 4096, args.seconds, **fastest)
        row("vector_env uint8 copy=False no finals", 4096, w, c, vc)
        best_4096["uint8, copy=False"] = c
    rates = list(best_4096.values())
    spades = max((openspiel_loop(30_000, randoms) or 0.0) for randoms in [_randoms()] * 3)
    if not spades:
        print("(install open_spiel, the bench extra, for OpenSpiel's spades in the same run)")
    elif rates:
        print(f"{'OpenSpiel spades (C++, obs tensor)':{NAME}s} {1:>6d} {'':>13s} {spades:13,.0f}")
        best = max(rates) / spades
        print(f"vector_env at 4096 games, best row: {best:.1f} x OpenSpiel's spades (same run, per CPU-s)")
    for dtype in ("float32", "uint8"):
        per_game = memory_per_game(args.rules, options, obs_dtype=dtype)
        print(
            f"vector_env memory ({dtype}): {per_game:,.0f} bytes per game; "
            f"65,536 games: {per_game * 65536 / 2**30:.2f} GiB"
        )
    print("x scalar: CPU-time ratio to the reference engine (batched engine rows) or to the reference env (vector_env)")


if __name__ == "__main__":
    main()
