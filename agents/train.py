"""Train a policy network that plays a Dehla Pakad family ruleset: PPO in self-play on
the batched engine, after an imitation warm start.

    dehla-train --config dehla [--override key=value ...] [--SETTING value ...]
    dehla-train --config my.yaml                # a config file of your own
    dehla-train --resume RUN_DIR [--override key=value ...]
    dehla-train --help                          # every setting, with its documentation

``--config NAME`` takes a config shipped with the package (the repository's ``configs/``:
``dehla``, ``dehla-chosen``, ``dehla-direct``, ``court-piece``, ``coat-pees``: one per
shipped policy; ``small``: about a minute; ``quick``: seconds) or a path to a YAML file.
``python -m agents.train`` is the same command, and so is ``python train.py`` in a clone.

Read top to bottom, in the manner of CleanRL's ``ppo.py``: the settings (one frozen
dataclass, its field docstrings are ``--help``), seeding, the learner (policy, critic and
Adam on the ``device`` setting's device: :class:`agents.training.ppo.Learner`), the warm
start (the teacher's self-play recorded by the workers and fitted,
:mod:`agents.training.imitation`), then per update a rollout (the workers' shards each
play :class:`agents.training.selfplay.SelfPlayEnv`, a vector env of the learner's own
decisions that seats the opponent pool and the ``partners`` pool itself, from a CPU copy
of the weights), the PPO update (GAE, the clipped loss over minibatches with action
masking and a privileged critic that also reads the hidden cards, training only: all of
it in :mod:`agents.training.ppo`), logging (``charts/decisions_per_second`` end to end,
the rollout's and the learner's rates beside it), the arena's duel of the network in
memory as evaluation (:mod:`agents.training.evaluation`, so ``eval/`` is the arena's
figure) and a checkpoint.

Everything is seeded from ``seed``: the rollout of update ``u`` comes from (seed, u)
alone, and a checkpoint holds the model, critic, optimiser, torch RNG states, counters
and the opponent pool (CPU tensors, whatever the device), so ``--resume`` continues
exactly as if never interrupted.
Ctrl-C (SIGINT) or SIGTERM stops within seconds, saving the last completed update
(during the warm start nothing is saved and ``--resume`` starts again). Checkpoints are
written atomically and read with ``torch.load(weights_only=True)``.

A resume's ``--override`` settings are stored in the run's ``config.yaml`` (and noted in
``resumes.log``) with the resumed run's first checkpoint: a resume that fails before
that leaves the run directory's settings as they were
(:class:`agents.training.runs.ResumeChanges`).

Exit status: 0 done (or the time budget ran out); 1 a checkpoint could not be written
or a worker died; 2 a bad command line, config, setting, agent spec, run directory or
checkpoint (one line, before anything runs); 130 stopped by SIGINT; 143 by SIGTERM.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dehla_env.commands import silence_stdout, typed_command

PROG = typed_command("agents.train")

try:
    import torch
    import tyro  # noqa: F401  (the settings' command line, in agents.training.runs)
    import yaml  # noqa: F401  (the configs)
    from torch.utils.tensorboard import SummaryWriter
except ModuleNotFoundError as missing:  # the train extra is not installed
    raise SystemExit(f"{PROG} needs the train extra ({missing.name} is missing): pip install 'dehla[train]'") from None

from agents.nets.export import play_checkpoint  # noqa: E402
from agents.nets.policy import PolicyNet, ValueNet, policy_checkpoint  # noqa: E402
from agents.training import imitation, ppo, selfplay  # noqa: E402
from agents.training.evaluation import duel_win_rate  # noqa: E402
from agents.training.pool import OpponentPool  # noqa: E402
from agents.training.runs import (  # noqa: E402 (after the train extra's check)
    Interrupted,
    ResumeChanges,
    SaveError,
    SetupError,
    Stop,
    WorkerDied,
    load_settings,
    open_run_dir,
    parse_command_line,
    save_checkpoint,
    stop_report,
)
from agents.training.setup import check_setup, connect, init_weights, read_resume, restore, run_rules  # noqa: E402
from agents.training.workers import Workers  # noqa: E402
from dehla_env.encoding import observation_size, privileged_size  # noqa: E402
from dehla_env.rewards import reward_weights  # noqa: E402
from dehla_env.rules import Rules  # noqa: E402


@dataclass(frozen=True)
class Args:
    """Training settings: every field is a YAML key, an ``--override key=value`` and a flag."""

    run_name: str = "dehla"
    """name of the run; its directory is runs_dir/run_name__seed__time"""
    runs_dir: str = "runs"
    """where run directories go"""
    policy_out: str = ""
    """also write the play-only policy here at every checkpoint (e.g. my.pt, then play it
    as policy:my.pt); the run directory always holds it as policy.pt"""
    seed: int = 1
    """seeds everything (torch, rollouts, the warm start, evaluation deals)"""
    rules: str = "dehla"
    """ruleset preset"""
    rule_options: dict[str, Any] = field(default_factory=dict)
    """rule options, e.g. {trump: chosen}"""
    hidden: list[int] = field(default_factory=lambda: [512, 256])
    """hidden layer sizes of the policy (and of the critic, unless critic_hidden)"""
    critic_hidden: list[int] | None = None
    """hidden layer sizes of the critic (none: hidden)"""
    critic_arch: str = "mlp"
    """critic network: mlp, or suits (agents.nets.suitnet.SuitValue: the same weights for
    every suit, so a position and its renaming get the same value)"""
    card_features: bool = True
    """append the card-counting features of agents.nets.features to the policy's input"""
    arch: str = "mlp"
    """policy network: mlp, or suits (agents.nets.suitnet: equivariant under renaming suits)"""
    init_policy: str = ""
    """start the policy from these weights (a shipped name such as dehla, or a policy
    file) instead of at random; its network must be the one these settings describe,
    trained for this ruleset or another of the same table size (a warm start across
    rulesets). The imitation warm start then fits the critic only (imitation_hands: 0
    skips it)"""
    # --- imitation warm start
    teacher: str = "hard"
    """agent spec imitated in the warm start"""
    imitation_hands: int = 20000
    """hands of teacher self-play recorded for the warm start (0: no warm start)"""
    imitation_epochs: int = 4
    """passes over the imitation data"""
    imitation_learning_rate: float | None = None
    """Adam learning rate of the warm start (none: learning_rate); PPO uses learning_rate"""
    num_workers: int = 2
    """processes recording the warm start and playing the rollouts' shards (0: this one;
    the rollouts depend on the number of shards, max(1, num_workers))"""
    # --- rollouts
    updates: int = 1000
    """PPO updates (each one rollout plus optimisation)"""
    time_budget_minutes: float = 60.0
    """stop (and save) after this much wall time, the warm start included"""
    num_games: int = 512
    """games of the batched engine played in lockstep (over all workers)"""
    rounds: int = 1
    """hands played in every game per rollout"""
    opponents: dict[str, float] = field(
        default_factory=lambda: {"self": 0.3, "snapshot": 0.3, "imitation": 0.3, "cardsense": 0.1}
    )
    """opponent pool: kind -> sampling weight (self, snapshot, imitation, random, tensafe,
    cardsense, an agent spec such as hard, or noisy:KIND,eps=P: KIND playing a random
    legal move with probability P)"""
    partners: dict[str, float] = field(default_factory=lambda: {"self": 1.0})
    """who sits beside the learner: kind -> sampling weight, the kinds of opponents. Drawn
    per game and hand; when not self, the learner plays one seat of its side (drawn at
    random) and the partner the others, and only the learner's decisions are learned"""
    snapshot_every: int = 5
    """add a frozen copy of the policy to the pool every this many updates"""
    max_snapshots: int = 5
    """snapshots kept in the pool"""
    relabel_rollouts: bool = False
    """the learner sees each game under a random renaming of the suits (the same game,
    R0.4, R4.2), so it meets every position under all 24 namings"""
    reward: dict[str, float] = field(default_factory=lambda: {"win": 1.0, "tens": 0.25})
    """reward kind -> weight (dehla_env.rewards: win, tens, tricks, points)"""
    # --- PPO
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0 over ``updates``"""
    gae_lambda: float = 0.95
    """GAE lambda (gamma is 1: a hand is a short episode)"""
    clip_coef: float = 0.2
    """PPO clip"""
    ent_coef: float = 0.003
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    update_epochs: int = 3
    """optimisation passes per rollout"""
    minibatch_size: int = 4096
    """samples per gradient step"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    bf16_update: bool = False
    """the update's passes and GAE's values, and the warm start's fit, in bfloat16 autocast
    (weights, optimiser and losses stay float32): 1.4-2.6x faster on CPUs with AVX512-BF16
    (benchmarks/update_speed.py)"""
    privileged_critic: bool = True
    """the critic reads the hidden cards too (training only)"""
    # --- evaluation and checkpoints
    eval_every: int = 10
    """evaluate every this many updates (0: never)"""
    eval_deals: int = 200
    """duplicate deals per evaluation opponent"""
    eval_opponents: list[str] = field(default_factory=lambda: ["hard"])
    """agent specs the policy is evaluated against (the arena's duel)"""
    checkpoint_every: int = 5
    """save the checkpoint every this many updates"""
    keep_policy_minutes: float = 0.0
    """also keep a copy of the play-only policy every this many minutes of the run's wall
    time (after the warm start, then after the first update past each mark, and the
    last) in run_dir/policies/update-N.pt, holding its update and minutes: a learning
    curve per minute, evaluated afterwards outside the run's clock (0: none)"""
    torch_threads: int = 2
    """torch threads"""
    device: str = "auto"
    """where the learner (the PPO update and the warm start's fit) runs: auto (CUDA when
    torch sees a GPU, else the CPU), cpu, cuda or cuda:N. The rollouts play on the CPU's
    batched engine from a CPU copy of the weights; checkpoints hold CPU tensors"""
    backend: str = "local"
    """where the workers' tasks run: local processes, or ray (Ray tasks; the same results)"""
    ray_address: str | None = None
    """backend ray: a running cluster to join (HOST:PORT or auto; default: start a local Ray)"""

    def ppo_settings(self) -> ppo.PPOSettings:
        """The PPO update's settings: these settings of the same names, and ``bf16_update``."""
        same = [f.name for f in dataclasses.fields(ppo.PPOSettings) if f.name != "bf16"]
        return ppo.PPOSettings(**{k: getattr(self, k) for k in same}, bf16=self.bf16_update)

    def rollout_settings(self, rules: Rules) -> selfplay.RolloutSettings:
        """What every rollout of the run plays."""
        return selfplay.RolloutSettings(
            rules,
            self.num_games,
            rounds=self.rounds,
            reward=tuple(reward_weights(self.reward, rules).items()),
            relabel=self.relabel_rollouts,
            partners=tuple(self.partners.items()),
        )


def load_args(config: str | Path | None, overrides: list[str]) -> Args:
    return load_settings(Args, config, overrides)


#: the evaluation duels' seed is the run's seed plus this (deals unlike the rollouts')
EVAL_SEED_OFFSET = 17


def evaluate(learner: ppo.Learner, rules: Rules, a: Args, writer: SummaryWriter, update: int) -> None:
    """The arena's duel of the learner's network, in memory, against each of
    ``eval_opponents`` (the arena's figure for the same seed and deals), printed and
    logged as ``eval/``."""
    net = learner.acting_policy()
    for opp in a.eval_opponents:
        est = duel_win_rate(rules, net, opp, deals=a.eval_deals, seed=a.seed + EVAL_SEED_OFFSET)
        for tag, value in (("win_rate", est.value), ("ci_low", est.low), ("ci_high", est.high)):
            writer.add_scalar(f"eval/{tag}_vs_{opp}", value, update)
        print(f"  eval vs {opp}: {est.value:.3f} [{est.low:.3f}, {est.high:.3f}] over {a.eval_deals} deals", flush=True)


# ---------------------------------------------------------------------------- the run
def main(argv: list[str] | None = None) -> int:
    try:
        doc = (__doc__ or "").split("\n\n")[0]
        return train(*parse_command_line(Args, argv, doc, PROG))
    except (SetupError, SaveError) as e:  # a bad setting: 2; a checkpoint not written: 1
        print(f"{PROG}: {e}", file=sys.stderr, flush=True)
        return 2 if isinstance(e, SetupError) else 1
    except KeyboardInterrupt:  # during setup, before the run's own handler is in place
        print(f"{PROG}: interrupted", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:  # the reader of stdout stopped early (``--help | head``)
        silence_stdout()
        return 1


def train(cli: argparse.Namespace, a: Args, changed: list[str]) -> int:
    """The run; ``changed``: the settings a resume changed (``key=value``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(cli.resume) if cli.resume else Path(a.runs_dir) / f"{a.run_name}__{a.seed}__{stamp}"
    rules = run_rules(a.rules, a.rule_options)
    ckpt_path = run_dir / "checkpoint.pt"
    ckpt = read_resume(ckpt_path) if cli.resume else None
    imitation_done = a.imitation_hands == 0 if ckpt is None else bool(ckpt.get("imitation_done"))
    specs = [] if imitation_done else [("teacher", a.teacher)]
    evaluation = (a.eval_opponents, a.eval_deals, a.seed + EVAL_SEED_OFFSET) if a.eval_every else None
    check_setup(
        rules, arch=a.arch, opponents=a.opponents, max_snapshots=a.max_snapshots, reward=a.reward, agent_specs=specs,
        evaluation=evaluation, partners=a.partners,
    )  # fmt: skip
    device = ppo.resolve_device(a.device)
    cluster = connect(a.backend, a.ray_address, a.num_workers)

    # seeding and the learner
    torch.set_num_threads(a.torch_threads)
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)  # on the CPU: the same minibatches on every device
    policy = PolicyNet.for_rules(rules, tuple(a.hidden), a.card_features, a.arch)
    critic = ValueNet(
        observation_size(rules) + privileged_size(rules),
        tuple(a.critic_hidden or a.hidden),
        a.critic_arch,
        players=rules.players,
    )
    learner = ppo.Learner(policy, critic, a.learning_rate, device)
    pool = OpponentPool(a.opponents, a.max_snapshots)
    update, decisions, elapsed = 0, 0, 0.0
    if ckpt is None and a.init_policy:
        policy.load_state_dict(init_weights(a.init_policy, rules, policy))
    if ckpt is not None:
        update, decisions, elapsed = restore(ckpt, ckpt_path, learner, gen, pool)
        learner.set_lr(a.learning_rate)  # an overridden learning_rate applies from here on

    # the run directory and the logs
    writer = open_run_dir(run_dir, bool(cli.resume), dataclasses.asdict(a))
    # a resume's changed settings reach config.yaml with its first checkpoint (ResumeChanges)
    pending = ResumeChanges(run_dir, dataclasses.asdict(a), changed) if changed else None
    if ckpt is not None:
        print(f"resumed {run_dir} at update {update} ({decisions} decisions, {elapsed / 60:.1f} min)", flush=True)
    else:
        if cli.resume:
            print(f"{run_dir} has no checkpoint yet: starting the run from the beginning", flush=True)
        table = "|setting|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(a).items())
        writer.add_text("hyperparameters", table)
    del ckpt

    def state() -> dict[str, Any]:
        """Everything ``--resume`` needs, as CPU tensors (loadable without a GPU)."""
        return {
            **policy_checkpoint(policy, rules),  # model, model_config, rules: what a policy file holds
            "model": learner.acting_state(),
            **learner.state(),  # critic, optimizer
            "rng": {"torch": torch.get_rng_state(), "generator": gen.get_state()},
            "update": update,
            "decisions": decisions,
            "elapsed": elapsed,
            "pool": pool.state(),
            "imitation_done": imitation_done,
            "args": dataclasses.asdict(a),
        }

    def save(full: dict[str, Any] | None = None) -> None:
        nonlocal pending
        full = state() if full is None else full
        if pending is None:
            save_checkpoint(ckpt_path, full)
        else:
            pending.save_with(lambda: save_checkpoint(ckpt_path, full))
            pending = None
        save_checkpoint(run_dir / "policy.pt", play_checkpoint(full))
        if a.policy_out:
            save_checkpoint(Path(a.policy_out), play_checkpoint(full))

    next_keep = elapsed / 60  # the minutes of the next kept policy

    def keep_policy(last: bool = False) -> None:
        """The copy kept every ``keep_policy_minutes`` (the minutes are the run's wall
        time), and the run's ``last`` policy, wherever it ended."""
        nonlocal next_keep
        if a.keep_policy_minutes <= 0 or (elapsed / 60 < next_keep and not last):
            return
        (run_dir / "policies").mkdir(exist_ok=True)
        kept = {
            **policy_checkpoint(policy, rules),
            "model": learner.acting_state(),
            "update": update,
            "minutes": elapsed / 60,
        }
        save_checkpoint(run_dir / "policies" / f"update-{update}.pt", kept)
        while next_keep <= elapsed / 60:
            next_keep += a.keep_policy_minutes

    # the workers: they record the teacher's hands, then play the rollouts' shards
    rollout_settings, ppo_settings = a.rollout_settings(rules), a.ppo_settings()
    stop = Stop()
    workers = Workers(a.num_workers, stop, cluster)
    old_handlers = {s: signal.signal(s, stop.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    t_start = time.time() - elapsed
    phase, before = "imitation warm start", {}
    # wall seconds of this process; env and policy_forward: of all the rollouts' shards together
    timing = dict.fromkeys(("imitation", "rollout", "env", "policy_forward", "update", "evaluation"), 0.0)
    try:
        if not imitation_done:
            t0 = time.time()
            tasks = imitation.teacher_tasks(
                rules, a.teacher, a.seed, a.imitation_hands, a.reward, workers=a.num_workers
            )
            data = imitation.record(workers.map, tasks)
            learner.set_lr(a.learning_rate if a.imitation_learning_rate is None else a.imitation_learning_rate)
            fit = imitation.FitSettings(
                rules.players, a.imitation_epochs, a.minibatch_size, a.vf_coef, fit_policy=not a.init_policy,
                bf16=a.bf16_update,
            )  # fmt: skip
            imitation.fit(policy, critic, learner.opt, data, fit, gen=gen, stop=stop, log=writer.add_scalar)
            learner.set_lr(a.learning_rate)
            del data
            timing["imitation"] = time.time() - t0
            pool.imitation = learner.acting_state()
            imitation_done = True
            elapsed = time.time() - t_start
            save()
            keep_policy()

        t_ppo, first_update = time.time(), update  # this process's pace of updates gives the time left
        while update < a.updates:
            phase = "PPO rollout"
            stop.check()
            if time.time() - t_start > a.time_budget_minutes * 60:
                print("time budget reached", flush=True)
                break
            if a.anneal_lr:
                learner.set_lr(a.learning_rate * max(0.0, 1.0 - update / a.updates))
            t0 = time.time()
            shards = selfplay.shard_tasks(
                rollout_settings, policy, pool, shards=max(1, a.num_workers), seed=(a.seed, update)
            )
            r = selfplay.merge(workers.map(selfplay.collect_shard, shards))
            t_roll = time.time() - t0
            before = copy.deepcopy(state())
            phase = "PPO update"
            stats = ppo.update(learner, r, ppo_settings, gen=gen, stop=stop)
            t_learn = time.time() - t0 - t_roll
            timing["rollout"] += t_roll
            timing["update"] += t_learn
            timing["env"] += r.env_seconds
            timing["policy_forward"] += r.policy_seconds
            update += 1
            decisions += r.decisions
            if a.snapshot_every and update % a.snapshot_every == 0:
                pool.add_snapshot(learner.acting_state())
            elapsed = time.time() - t_start
            phase = "evaluation"
            win = r.learner_score / max(r.pool_hands, 1)
            for tag, value in {
                "charts/decisions_per_second": r.decisions / (t_roll + t_learn),
                "charts/rollout_decisions_per_second": r.decisions / t_roll,
                "charts/learner_samples_per_second": len(r.action) * a.update_epochs / max(t_learn, 1e-9),
                "charts/policy_forward_share": r.policy_seconds / max(r.policy_seconds + r.env_seconds, 1e-9),
                "charts/decisions": decisions,
                "charts/rollout_win_rate": win,
                "charts/learning_rate": learner.lr,
                **{f"losses/{k}": v for k, v in stats.items()},
            }.items():
                writer.add_scalar(tag, value, update)
            left = (time.time() - t_ppo) / (update - first_update) * (a.updates - update)  # seconds, at this pace
            left = min(left, max(0.0, a.time_budget_minutes * 60 - elapsed)) / 60  # minutes, within the budget
            print(
                f"update {update}/{a.updates}: {r.decisions} decisions ({len(r.action)} learned) in {t_roll:.1f}+"
                f"{t_learn:.1f}s, {r.decisions / (t_roll + t_learn):.0f}/s; win {win:.3f} vs pool, entropy "
                f"{stats['entropy']:.3f}, kl {stats['approx_kl']:.4f}; {elapsed / 60:.1f} min, ~{left:.1f} min left",
                flush=True,
            )
            if a.eval_every and update % a.eval_every == 0:
                t0 = time.time()
                with stop.abortable():
                    evaluate(learner, rules, a, writer, update)
                timing["evaluation"] += time.time() - t0
            if update % a.checkpoint_every == 0:
                save()
            keep_policy()
        phase = "PPO rollout"
        stop.check()
        workers.close()
        elapsed = time.time() - t_start
        save()
        keep_policy(last=True)
    except (Interrupted, WorkerDied) as e:
        workers.terminate()
        elapsed = time.time() - t_start

        def save_last() -> int:  # the last completed update: the one in progress is dropped
            point = before if phase == "PPO update" else state()
            save(point)
            return int(point["update"])

        msg, code = stop_report(
            e, stop.signum, phase, run_dir, None if phase == "imitation warm start" else save_last, prog=PROG
        )
        writer.close()
        print(f"{PROG}: {msg}", file=sys.stderr, flush=True)
        return code
    finally:
        workers.terminate()
        for s, h in old_handlers.items():
            signal.signal(s, h)
    writer.add_scalar("charts/wall_minutes", elapsed / 60, update)
    writer.close()
    summary = {"run_dir": str(run_dir), "updates": update, "decisions": decisions, "minutes": round(elapsed / 60, 2)}
    print(json.dumps({**summary, "seconds": {k: round(v, 3) for k, v in timing.items()}}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
