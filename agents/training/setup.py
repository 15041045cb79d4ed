"""What a training run checks before it trains: every setting that names a ruleset, an
architecture, an agent, the opponent pool, the reward or a cluster is tried here, so
that a mistake ends the run at once with one line (:class:`SetupError`, exit 2) instead
of a traceback at the first evaluation an hour in. ``--resume`` belongs here too: the
checkpoint is read (:func:`read_resume`) and loaded into the run's own objects
(:func:`restore`) before anything trains, and one that does not fit the settings is
such a one-line error."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from agents.distributed.cluster import RayCluster
from agents.distributed.cluster import connect as cluster_for
from agents.nets.policy import ARCHITECTURES, CheckpointError, PolicyNet, load_policy, read_checkpoint
from agents.playing.run import check_duel
from agents.registry import make_agent, policy_path
from agents.training.pool import OpponentPool
from agents.training.ppo import Learner
from agents.training.runs import SetupError, one_line
from dehla_env.rewards import reward_weights
from dehla_env.rules import Rules, RulesError, make_rules


def run_rules(name: str, options: Mapping[str, Any]) -> Rules:
    """The settings ``rules``/``rule_options`` as a ruleset."""
    try:
        return make_rules(name, dict(options))
    except (RulesError, ValueError, TypeError) as e:
        raise SetupError(f"settings rules/rule_options: {one_line(e)}") from None


def check_setup(
    rules: Rules,
    *,
    arch: str,
    opponents: Mapping[str, float],
    max_snapshots: int,
    reward: Mapping[str, float],
    agent_specs: Sequence[tuple[str, str]],
    evaluation: tuple[Sequence[str], int, int] | None = None,
    partners: Mapping[str, float] | None = None,
) -> None:
    """``agent_specs``: (setting, spec) of every agent the run will build besides the
    evaluation opponents (the teacher); each must build for ``rules``. ``evaluation``:
    the evaluation's opponents, deals and seed (``None``: the run does not evaluate),
    put through the arena's own check of a duel (:func:`agents.playing.run.check_duel`: the
    deals, the seed, and each spec parsed with its declared bounds and built), so an
    opponent the duel would refuse (``search:margin=inf``) ends the run here, not at
    the first evaluation. ``partners``: the partner pool's weights (the kinds of
    ``opponents``; ``None``: the learner is its own partner)."""
    if arch not in ARCHITECTURES:
        raise SetupError(f"setting arch: {arch!r} is not one of {', '.join(ARCHITECTURES)}")
    try:
        OpponentPool(opponents, max_snapshots, rules)
        reward_weights(reward, rules)
    except ValueError as e:
        raise SetupError(f"settings opponents/max_snapshots/reward: {one_line(e)}") from None
    if partners is not None:
        try:
            OpponentPool(partners, max_snapshots, rules)
        except ValueError as e:
            raise SetupError(f"setting partners: {one_line(e).replace('opponent', 'partner')}") from None
    for key, spec in agent_specs:
        try:
            make_agent(spec, rules, seed=0)
        except ValueError as e:  # a CheckpointError is one
            raise SetupError(f"setting {key}: {one_line(e)}") from None
    if evaluation is not None:
        eval_specs, deals, seed = evaluation
        for spec in eval_specs:
            try:
                check_duel(rules, spec, spec, deals, seed)
            except ValueError as e:
                raise SetupError(f"settings eval_opponents/eval_deals: {spec!r:.60}: {one_line(e)}") from None


def init_weights(name: str, rules: Rules, policy: PolicyNet) -> dict[str, torch.Tensor]:
    """The weights of ``init_policy`` (a shipped name, ``policy:NAME`` or a policy file),
    checked against the run: the network these settings build, for a table of as many
    players, so a mismatch ends the run here in one line. A network trained for another
    ruleset of the family is a warm start across rulesets: the rulesets of a table size
    share one observation layout (the encoder's), though what wins a hand differs; the
    run prints which ruleset the weights were trained for."""
    where = name.removeprefix("policy:")
    try:
        net, trained_for = load_policy(policy_path(where))
    except ValueError as e:  # a CheckpointError is one
        raise SetupError(f"setting init_policy: {one_line(e)}") from None
    if trained_for.players != rules.players:
        raise SetupError(
            f"setting init_policy: {name} plays {trained_for.players} players, not this run's {rules.players}"
        )
    if trained_for != rules:
        print(f"init_policy: {name} was trained for {trained_for}; this run plays {rules}", flush=True)
    if net.config() != policy.config():
        raise SetupError(f"setting init_policy: {name} is a {net.config()}, not this run's {policy.config()}")
    return net.state_dict()


def connect(backend: str, address: str | None, workers: int) -> RayCluster | None:
    """The Ray cluster of ``backend: ray`` (``None`` for local processes)."""
    try:
        return cluster_for(backend, address, max(1, workers))
    except (ValueError, ModuleNotFoundError) as e:
        raise SetupError(f"settings backend/ray_address: {one_line(e)}") from None


def read_resume(path: Path) -> dict[str, Any] | None:
    """The checkpoint ``--resume`` continues from (``None``: the run saved none yet)."""
    if not path.exists():
        return None
    try:
        return read_checkpoint(path)
    except CheckpointError as e:
        raise SetupError(f"--resume: {e}") from None


def restore(
    ckpt: Mapping[str, Any], path: Path, learner: Learner, gen: torch.Generator, pool: OpponentPool
) -> tuple[int, int, float]:
    """Load a checkpoint's weights, optimiser, RNG states and opponent pool into the
    run's own objects (the weights onto the learner's device); returns its counters
    (update, decisions, elapsed seconds). A checkpoint of other settings (another
    network size, ruleset ...) is a SetupError."""
    try:
        learner.load(ckpt["model"], ckpt["critic"], ckpt["optimizer"])
        torch.set_rng_state(ckpt["rng"]["torch"])
        gen.set_state(ckpt["rng"]["generator"])
        pool.load_state(ckpt["pool"])
        return int(ckpt["update"]), int(ckpt["decisions"]), float(ckpt["elapsed"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, IndexError) as e:
        raise SetupError(f"--resume: {path}: does not fit this run's settings: {one_line(e, 200)}") from None
